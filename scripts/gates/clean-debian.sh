#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prove the project's dependencies in a clean Debian 12, not on this machine:
# a debootstrap minbase system with git and make (cached bare in
# $CACHE/debian12-minbase; what the project installs never is), this
# repository's HEAD cloned into it; there, the packages of each target as
# the target installs them, each proven by what needs it: make tree's (those
# of make run on x86_64), the module built against the headers of each Debian
# kernel make check runs (with its arch's packages) and against the mainline
# tree, then make deps (make check's) and the checkpatch, docs and sparse
# tools.  A failure names the missing command.  Each run starts from the bare
# system, in an overlay on a tmpfs that goes with it.
#
#   clean-debian.sh         what make check runs
#   clean-debian.sh --run   and first `make run` there, on mainline and
#                           6.12, with make run's packages only (check-full)
. "$(dirname "$0")/../lib.sh"

run=0
case ${1:-} in
--run) run=1 ;;
"") ;;
*) die "usage: $0 [--run]" ;;
esac
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "debootstrap not found; run 'make deps'"

out=$BUILD/clean-debian
bare=$CACHE/debian12-minbase
main=$(debian_uri bookworm)
security=$(debian_uri bookworm-security)
mkdir -p "$CACHE" "$out"
[ -n "${CLEAN_DEBIAN_INNER:-}" ] || rm -f "$out"/*.log

# stage NAME CMD...: one line per stage, the tools' chatter in $out/NAME.log
stage()
{
	local name=$1 start=$SECONDS

	shift
	if "$@" >"$out/$name.log" 2>&1; then
		say "clean-debian: $name ($((SECONDS - start)) s)"
		return
	fi
	say "clean-debian: $name FAILED ($((SECONDS - start)) s); log: $out/$name.log"
	tail -n 15 "$out/$name.log" >&2
	missing "$out/$name.log"
	exit 1
}

# missing LOG: name what the clean system lacked, as the failing tool said
missing()
{
	grep -ohE '[A-Za-z0-9_.+/-]+: (command )?not found|No such file or directory: .*|fatal error: [^ ]+: No such file' "$1" |
		sort -u | sed 's/^/clean-debian: missing: /' >&2 || true
}

bootstrap()
{
	rm -rf "$bare.tmp"
	debootstrap --variant=minbase --include=git,make bookworm "$bare.tmp" "$main" &&
	mv "$bare.tmp" "$bare/root" && echo "bookworm minbase git make, from $main" >"$bare/done"
}

exec 9>"$bare.lock"
flock 9
if [ ! -f "$bare/done" ]; then
	rm -rf "$bare"
	mkdir -p "$bare"
	stage "debootstrap-minbase" bootstrap
fi
exec 9>&-

# Inside a mount and pid namespace of its own: the overlay and every
# process in the clean system go when this script does.
# The clean system's writes go to a tmpfs, a few GiB of this machine's memory.
if [ -z "${CLEAN_DEBIAN_INNER:-}" ]; then
	mkdir -p "$out/root" "$CACHE/debian12-archives"
	CLEAN_DEBIAN_INNER=1 exec unshare --mount --pid --fork --propagation private "$0" "$@"
fi

root=$out/root
mount -t tmpfs -o size=12G tmpfs "$out/root"
mkdir "$root/upper" "$root/work" "$root/root"
mount -t overlay overlay -o "lowerdir=$bare/root,upperdir=$root/upper,workdir=$root/work" "$root/root"
root=$root/root
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
# the .debs downloaded before, not what they install: that is anew each run
cp "$CACHE"/debian12-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
save_debs()
{
	(flock 9 && cp -n "$root"/var/cache/apt/archives/*.deb "$CACHE/debian12-archives/") \
		9>"$CACHE/debian12-archives.lock" 2>/dev/null || true
}
trap save_debs EXIT
mkdir -p "$root/mnt/repo"
mount --bind -o ro "$TOP" "$root/mnt/repo"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# what Debian 12's installer writes, with this machine's mirror
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
	"$main" "$main" "$security" >"$root/etc/apt/sources.list"
# The archive here serves sid and experimental past their Valid-Until;
# this machine's apt turns the check off (see shared notes), so must the
# clean one.
apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
	>"$root/etc/apt/apt.conf.d/99sched-state-clean-debian" || true

# inside CMD: run CMD in the clean system, in the clone, with a clean environment
inside()
{
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c 'cd /root/sched_state 2>/dev/null || cd /root; '"$1"
}

say "clean-debian: cloning $(git -C "$TOP" log --format=%h -1) into a clean Debian 12 (logs: $out)"
stage clone inside 'git clone -q /mnt/repo /root/sched_state && git -C /root/sched_state log --oneline -1'
# make run's packages alone: x86_64's
stage make-tree inside 'make tree'
if [ $run = 1 ]; then
	stage make-run inside 'make run'
	stage make-run-6.12 inside 'make run KERNEL=6.12'
fi
# the programs and the module for each Debian kernel make check runs, as
# make run KERNEL=<name> builds them (6.12's headers need pahole, say),
# after the packages of its arch (make run ARCH=<arch>)
declare -A arches=([x86_64]=1)
while read -r k a; do
	[ -n "${arches[$a]:-}" ] || stage "deps-$a" inside "ARCH=$a scripts/tree/deps.sh run"
	arches[$a]=1
	stage "module-$k" inside "KERNEL=$k scripts/tree/build-kselftest.sh"
done < <(kernels name,arch from=debian check!=-)
# the mainline tree, prepared for external modules; no kernel is linked, so
# no Module.symvers: modpost warns instead of failing on the kernel's symbols
stage module-mainline inside 'make -C build/linux -j2 modules_prepare &&
	rm -rf build/m && mkdir build/m &&
	cp -r build/linux/tools/testing/selftests/sched_state/{*.h,test_module} build/m/ &&
	KBUILD_MODPOST_WARN=1 make -C build/m/test_module KDIR=$PWD/build/linux &&
	test -f build/m/test_module/test_sched_state.ko'
# make check's own packages: the static and docs gates' tools run
stage make-deps inside 'make deps'
stage check-tools inside 'scripts/gates/checkpatch.sh && scripts/gates/docs.sh && scripts/gates/sparse.sh'
say "clean-debian: passed"

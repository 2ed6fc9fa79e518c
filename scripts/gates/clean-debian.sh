#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The project's packages, proven in a clean Debian 12 (docs/check.md): HEAD
# cloned into a debootstrap minbase with git and make.  --run: make run too.
. "$(dirname "$0")/../lib.sh"

run=0
[ "${1:-}" != --run ] || run=1
[ $# -eq $run ] || die "usage: $0 [--run]"
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "debootstrap not found; run 'make deps'"

out=$BUILD/clean-debian
bare=$CACHE/debian12-minbase
main=$(debian_uri bookworm)
security=$(debian_uri bookworm-security)
mkdir -p "$CACHE" "$out"
[ -n "${CLEAN_DEBIAN_INNER:-}" ] || rm -f "$out"/*.log

# stage NAME CMD...: CMD into $out/NAME.log; on failure, what the clean system lacked
stage()
{
	local name=$1 start=$SECONDS log=$out/$1.log

	"${@:2}" >"$log" 2>&1 && { say "clean-debian: $name ($((SECONDS - start)) s)"; return; }
	say "clean-debian: $name FAILED ($((SECONDS - start)) s); log: $log"
	tail -n 15 "$log" >&2
	grep -ohE '[A-Za-z0-9_.+/-]+: (command )?not found|No such file or directory: .*|fatal error: [^ ]+: No such file' \
		"$log" | sort -u | sed 's/^/clean-debian: missing: /' >&2 || true
	exit 1
}

lock "$bare.lock"
if [ ! -f "$bare/done" ]; then
	rm -rf "$bare" "$bare.tmp"
	mkdir -p "$bare"
	stage debootstrap-minbase debootstrap --variant=minbase --include=git,make bookworm "$bare.tmp" "$main"
	mv "$bare.tmp" "$bare/root"
	echo "bookworm minbase git make, from $main" >"$bare/done"
fi
exec 9>&-

# a mount and pid namespace: the mounts and processes go with the script
if [ -z "${CLEAN_DEBIAN_INNER:-}" ]; then
	mkdir -p "$out/root" "$CACHE/debian12-archives"
	CLEAN_DEBIAN_INNER=1 exec unshare --mount --pid --fork --propagation private "$0" "$@"
fi

root=$out/root
mount -t tmpfs -o size=12G tmpfs "$root"
mkdir "$root/upper" "$root/work" "$root/root"
mount -t overlay overlay -o "lowerdir=$bare/root,upperdir=$root/upper,workdir=$root/work" "$root/root"
root=$root/root
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs tmpfs "$root/tmp"
# the .debs downloaded before are kept, not what they install
cp "$CACHE"/debian12-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
trap '(flock 9 && cp -n "$root"/var/cache/apt/archives/*.deb "$CACHE/debian12-archives/") \
	9>"$CACHE/debian12-archives.lock" 2>/dev/null || true' EXIT
mkdir -p "$root/mnt/repo"
mount --bind -o ro "$TOP" "$root/mnt/repo"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# Debian 12's installer's sources, from this machine's mirror, and its
# apt's Valid-Until settings (the archive serves sid past it)
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
	"$main" "$main" "$security" >"$root/etc/apt/sources.list"
apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' \
	>"$root/etc/apt/apt.conf.d/99sched-state-clean-debian" || true

# inside CMD: CMD in the clone, in the clean system and environment
inside()
{
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		bash -c 'cd /root/sched_state 2>/dev/null || cd /root; '"$1"
}

say "clean-debian: cloning $(git -C "$TOP" log --format=%h -1) into a clean Debian 12 (logs: $out)"
stage clone inside 'git clone -q /mnt/repo /root/sched_state && git -C /root/sched_state log --oneline -1'
stage make-tree inside 'make tree'
if [ $run = 1 ]; then
	stage make-run inside 'make run'
	stage make-run-6.12 inside 'make run KERNEL=6.12'
fi
# make build (its arch's packages, the module) for each Debian kernel make check runs
while read -r k a; do
	stage "module-$k" inside "make build ARCH=$a KERNEL=$k"
done < <(kernels name,arch from=debian check!=-)
# against the mainline tree, from a copy: no Module.symvers, so modpost only warns
stage module-mainline inside 'make -C build/linux -j2 modules_prepare &&
	rm -rf build/m && mkdir build/m &&
	cp -r build/linux/tools/testing/selftests/sched_state/{*.h,test_module} build/m/ &&
	KBUILD_MODPOST_WARN=1 make -C build/m/test_module KDIR=$PWD/build/linux &&
	test -f build/m/test_module/test_sched_state.ko'
stage make-deps inside 'make deps'
stage check-tools inside 'scripts/gates/checkpatch.sh && scripts/gates/docs.sh && scripts/gates/sparse.sh'
say "clean-debian: passed"

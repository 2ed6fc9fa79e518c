#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# usage: vm.sh --kimage PATH --ksft DIR --out OUTDIR [--arch ARCH] [--timeout SECONDS]
#	[--guest-cmd CMD] [--append WORDS] [--env NAME=VALUE]...; env: GUEST_ENV, KVM=on, VM_LOCK=none
# Boots KIMAGE in QEMU, runs CMD (default: sh /guest/suite.sh) in /kselftest, judges its
# TAP and kernel log into OUTDIR (docs/files.md).
. "$(dirname "$0")/../lib.sh"

msg() { echo "vm.sh: $*"; }
ARCH=x86_64 KIMAGE='' KSFT='' OUT='' TIMEOUT=600 GUEST_CMD='sh /guest/suite.sh' APPEND=''
read -r -a GUEST_ENVS <<<"${GUEST_ENV:-}"
while (($#)); do
	(($# >= 2)) || die "$1 needs a value"
	case $1 in
	--env) GUEST_ENVS+=("$2") ;;
	--arch | --kimage | --ksft | --out | --timeout | --guest-cmd | --append)
		declare -u o=${1#--}
		printf -v "${o//-/_}" %s "$2" ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done

arch_set "$ARCH"
for t in "$A_QEMU" cpio fakeroot readelf; do
	command -v "$t" >/dev/null || die "$t not found; install it (scripts/tree/deps.sh)"
done
[[ -f $KIMAGE && -n $OUT ]] || die "--kimage IMAGE and --out DIR are required (no image '$KIMAGE')"
[[ -f $KSFT/run_kselftest.sh ]] ||
	die "no $KSFT/run_kselftest.sh: make -C tools/testing/selftests install INSTALL_PATH=$KSFT"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants seconds"
for e in "${GUEST_ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env/GUEST_ENV: '$e' is not NAME=VALUE"
done
# TCG by default: the project's figures are TCG's
case ${KVM:-off} in
on | 1) ACCEL=kvm accel=(-enable-kvm -cpu host) ;;
off | 0) ACCEL=tcg accel=(-accel 'tcg,thread=multi' -cpu "$A_CPU") ;;
*) die "KVM=$KVM: on or off" ;;
esac
[[ $ACCEL == tcg || -z $A_CROSS ]] || die "KVM=on: an $A_ARCH guest cannot use this machine's KVM"
OUT=$(mkdir -p "$OUT" && realpath "$OUT")
# the kernel log's and the TAP's streams: ttyS1, ttyS2 or PCI slots 10, 11
case $A_STREAMS in
serial) streams=(-serial "file:$OUT/kmsg.log" -serial "file:$OUT/ktap.raw") ;;
pci) streams=(-chardev "file,id=kmsg,path=$OUT/kmsg.log" -device "pci-serial,chardev=kmsg,addr=0x10"
	-chardev "file,id=tap,path=$OUT/ktap.raw" -device "pci-serial,chardev=tap,addr=0x11") ;;
*) die "arches.tsv: $A_ARCH: unknown streams '$A_STREAMS'" ;;
esac

# upath PATH: PATH, or its /usr one, in userland U (empty: this machine's), links followed in U
upath() {
	local f=$1 t
	for _ in 1 2 3 4 5 6 7 8; do
		[[ -e $U$f || -L $U$f ]] || f=/usr$f
		[[ -L $U$f ]] || break
		t=$(readlink "$U$f")
		[[ $t == /* ]] || t=${f%/*}/$t
		f=$t
	done
	[[ -e $U$f ]] || die "no $1 in ${U:-/}: install busybox-static, dash, coreutils, libc6"
	echo "$U$f"
}

# add_libraries ROOT: from U, the interpreter and DT_NEEDED libraries of ROOT's ELF files
add_libraries() {
	local f l c libs todo
	mapfile -d '' todo < <(find "$1" -type f -print0)
	while ((${#todo[@]})); do
		f=${todo[-1]}
		unset 'todo[-1]'
		[[ $(head -c 4 "$f" | tr -d '\0') == $'\x7fELF' ]] || continue
		libs=$(readelf -dlW "$f" |
			sed -n 's/.*program interpreter: \(.*\)]$/\1/p; s/.*Shared library: \[\(.*\)]$/\1/p')
		for l in $libs; do
			for c in "$U"/{,usr/}lib/*/"$l" "$U"/{,usr/}lib/"$l"; do
				[[ $l == /* || ! -e $c ]] || l=${c#"$U"}
			done
			[[ ! -e $1$l ]] || continue
			c=$(upath "$l")
			mkdir -p "$1${l%/*}"
			cp -L "$c" "$1$l"
			todo+=("$1$l")
		done
	done
}

make_initramfs() {
	local r=$OUT/root e v q="'\\''"
	rm -rf "$r"
	mkdir -p "$r"/{bin,dev,etc,proc,root,sys/kernel/debug,tmp,usr/bin,usr/local/bin}
	echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
	cp "$(upath /bin/busybox)" "$r/bin/busybox"
	# dash, Debian's /bin/sh, searches PATH; busybox sh would skip the sed below
	cp "$(upath /bin/dash)" "$r/bin/sh"
	cp "$(upath /usr/bin/timeout)" "$r/usr/bin/timeout"
	cp -a "$KSFT/." "$r/kselftest/"
	cp -a "$TOP/scripts/vm/guest" "$r/guest"
	add_libraries "$r"
	printf '%s\n' "$GUEST_CMD" >"$r/guest/command.sh"
	for e in "${GUEST_ENVS[@]}"; do
		v=${e#*=}
		echo "export ${e%%=*}='${v//\'/$q}'"
	done >"$r/guest/env.sh"
	# busybox sed buffers a pipe: runner.sh's "sed -e s/^/# /" would hold nested TAP
	cat >"$r/usr/local/bin/sed" <<-'EOF'
	#!/bin/sh
	[ "$*" = "-e s/^/# /" ] || exec busybox sed "$@"
	while IFS= read -r l || [ -n "$l" ]; do printf '# %s\n' "$l"; done
	EOF
	cat >"$r/init" <<-'EOF'
	#!/bin/sh
	export PATH=/usr/local/bin:/bin:/usr/bin HOME=/root
	up() { cut -d ' ' -f 1 /proc/uptime; }
	busybox mount -t proc proc /proc
	busybox --install -s /bin
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	# port N SLOT: serial port N or the PCI one in SLOT (waits 10 s), per streams= of the cmdline
	port() {
		[ $streams = serial ] && echo /dev/ttyS$1 && return
		for i in $(seq 100); do
			for t in /sys/bus/pci/devices/*:00:$2.0/tty/* /sys/bus/pci/devices/*:00:$2.0/*/*/tty/*; do
				[ -e "/dev/${t##*/}" ] && echo "/dev/${t##*/}" && return
			done
			sleep 0.1
		done
		return 1
	}
	kmsg=$(port 1 10) && tap=$(port 2 11) || { echo "SCHED_STATE_GUEST: no $streams ports"; poweroff -f; }
	# devtmpfs lacks these; runner.sh writes nested TAP to /dev/stdout
	ln -s /proc/self/fd /dev/fd
	ln -s fd/0 /dev/stdin
	ln -s fd/1 /dev/stdout
	ln -s fd/2 /dev/stderr
	mount -t tmpfs tmpfs /tmp
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	cat /proc/kmsg >"$kmsg" &
	echo "SCHED_STATE_GUEST: booted uptime=$(up)"
	cd /kselftest
	. /guest/env.sh
	{ sh /guest/command.sh; echo $? >/tmp/rc; } 2>&1 | tee "$tap"
	sleep 1
	echo "SCHED_STATE_GUEST: done rc=$(cat /tmp/rc) uptime=$(up)"
	poweroff -f
	EOF
	chmod +x "$r/init" "$r/usr/local/bin/sed"
	fakeroot -- sh -c 'cd "$1" && mknod -m 600 dev/console c 5 1 &&
		find . | cpio -o -H newc -R 0:0 --quiet' sh "$r" | gzip -1 >"$OUT/initramfs.cpio.gz"
	rm -rf "$r"
}

strip_escapes() { LC_ALL=C sed -u -E 's/\x1b\[[0-?]*[ -/]*[@-~]//g; s/\x1b[^[]//g; s/\r//g'; }

rm -rf "$OUT"/{console.*,kmsg.*,ktap.*,dmesg.log,qemu.log}

# U: this machine's userland, or a foreign arch's Debian packages, unpacked once
U=
if [[ -n $A_CROSS ]]; then
	U=$SCHED_STATE_CACHE/userland/$A_DEBIAN
	pkgs=$(. /etc/os-release && printf " %s/$VERSION_CODENAME" busybox-static dash coreutils libc6)
	mkdir -p "${U%/*}"
	exec 7>"$U.lock"
	flock 7
	if [[ $(cat "$U/.pkgs" 2>/dev/null) != "$pkgs" ]]; then
		msg "unpacking $A_DEBIAN's$pkgs into $U"
		rm -rf "$U"
		"$TOP/scripts/tree/debian.sh" unpack "$A_DEBIAN" "$U" $pkgs || die "could not unpack $A_DEBIAN's$pkgs"
		echo "$pkgs" >"$U/.pkgs"
	fi
	exec 7>&-
fi
make_initramfs

# one guest at a time (two would skew each other's emulated time), its initramfs made before
if [[ ${VM_LOCK:=/tmp/sched_state-vm.lock} != none ]]; then
	exec 8>"$VM_LOCK"
	flock -n 8 || { msg "waiting for another guest to finish"; flock 8; }
fi

# run_guest: boot once, until QEMU exits or the running command's timeout
run_guest() {
	"$A_QEMU" ${A_MACHINE:+-M "$A_MACHINE"} -m 1G -smp 2 -display none -no-reboot -monitor none \
		-nic none -kernel "$KIMAGE" -append "$APPEND console=$A_CONSOLE quiet panic=-1 loglevel=4 streams=$A_STREAMS" \
		-initrd "$OUT/initramfs.cpio.gz" "${accel[@]}" -serial "file:$OUT/console.log" "${streams[@]}" \
		</dev/null >>"$OUT/qemu.log" 2>&1 &
	qpid=$!
	trap 'kill $qpid 2>/dev/null || true' EXIT
	tail -n +1 -F --pid=$qpid "$OUT/console.log" 2>/dev/null | strip_escapes &
	tpid=$!
	start=$SECONDS limit=$((SECONDS + TIMEOUT)) timedout='' up=''
	while kill -0 $qpid 2>/dev/null; do
		((SECONDS < limit)) || { timedout=1; break; }
		if [[ -z $up ]] && ((SECONDS > start + 180)); then
			grep -qs 'SCHED_STATE_GUEST: booted' "$OUT/console.log" || break
			up=1
		fi
		sleep 1
	done
	kill $qpid 2>/dev/null || true
	wait $qpid && qrc=0 || qrc=$?
	wait $tpid || true
	seconds=$((SECONDS - start))
}
run_guest
# TCG's thread=multi can trap a text_poke() int3 before /init, and a boot can
# stall silently there (not at /init in 180 s): boot once more, logs as *.boot1
if [[ -z $timedout ]] && ! grep -qs 'SCHED_STATE_GUEST: booted' "$OUT/console.log"; then
	msg "the kernel died or stalled before /init: one more boot (first: $OUT/console.boot1.log)"
	for f in console.log kmsg.log ktap.raw; do
		mv "$OUT/$f" "$OUT/${f%.*}.boot1.${f##*.}" 2>/dev/null || true
	done
	run_guest
fi

problem() { msg "$*"; echo "$*" >>"$OUT/problems"; }

# OUT's verdict (result.py write) from its logs
strip_escapes <"$OUT/ktap.raw" >"$OUT/ktap.tap"
strip_escapes <"$OUT/console.log" >"$OUT/console.txt"
# dmesg.log: the kmsg stream, then the console's (KERN_ERR+) after a panic
awk '
function ts(l) { return match(l, /^\[ *[0-9.]+\]/) ? substr(l, 2, RLENGTH - 2) + 0 : -1 }
NR == FNR {
	gsub(/\r/, ""); sub(/^<[0-9]+>/, ""); print; seen[$0]
	if (ts($0) >= 0) last = ts($0)
	next
}
ts($0) >= last && !($0 in seen)
' "$OUT/kmsg.log" "$OUT/console.txt" >"$OUT/dmesg.log"
: >"$OUT/problems"
[[ -n $timedout || $qrc == 0 ]] || problem "QEMU exited with status $qrc: $(tail -n 1 "$OUT/qemu.log")"
[[ -n $timedout ]] || grep -q 'SCHED_STATE_GUEST: done' "$OUT/console.txt" ||
	problem "guest crashed or hung: no 'SCHED_STATE_GUEST: done' on the console"
rc=0
python3 "$TOP/scripts/report/result.py" write "$OUT" "$KIMAGE" "$A_ARCH" "$ACCEL" "$seconds" \
	"$TIMEOUT" "${timedout:+1}" "${GUEST_ENVS[@]}" || rc=1
rm -f "$OUT/problems"
exit $rc

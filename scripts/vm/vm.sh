#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel in QEMU with an installed kselftest tree as initramfs, run a
# command in it, then judge its TAP output and the kernel log.
#
# The command runs in /kselftest under dash; scripts/vm/guest/ is /guest in
# the initramfs: its programs take arguments (sh /guest/stress.sh 10000),
# and the helpers they share, tap.sh, include hand_back FILE, which sends a
# text file back to OUTDIR/files/ through the TAP stream.  The default
# command, sh /guest/suite.sh, is the suite: run_kselftest.sh -c sched_state
# as a farm runs it, then the hung-task program (sched_state.sh hung_task),
# one KTAP document; see guest/suite.sh.
#
# Writes OUTDIR/result.json, what the other scripts read:
#   ok, problems     the verdict, and each reason it failed
#   counts           top, planned, pass, skip, fail (nested included),
#                    reports (kernel reports), accepted (the hung-task
#                    reports the hung-task program provoked, accepted in
#                    its part of the run: unexpected_reports)
#   tests            every TAP result at every depth, as scripts/report/ktap.py
#                    reads them: depth, number, name, result (pass, fail,
#                    skip), directive, comment, diagnostics, planned,
#                    children (how many), parent (its index) and path (the
#                    names of its parents, then its own)
#   kernel_reports   line (of dmesg.log) and text
#   accepted_reports the same for the accepted hung-task reports
#   hung_task_part   the lines of dmesg.log of its begin and end marks (end
#                    null if it never ended), null if it did not run
#   seconds          host (wall time of the boot), timeout, guest_boot (the
#                    guest's uptime when it reached /init), guest_run (from
#                    there to the command's end), hung_task (the kernel
#                    log's time from the hung-task part's begin mark to its
#                    end mark, null without both); for --then-cmd's part:
#                    the host's time from its start, its own timeout, the
#                    uptime at its start, and from there to its end
#   files, bad_files what hand_back sent: name, path and bytes of each; the
#                    names of those cut short or changed on the way
#   guest_env        the variables --env and GUEST_ENV set, NAME: VALUE
#   kimage, arch, accel, guest_rc, timed_out, logs
#
# usage: vm.sh --kimage PATH --ksft DIR --out OUTDIR [--timeout SECONDS]
#              [--guest-cmd 'SHELL CMD'] [--extra DIR]... [--arch ARCH]
#              [--env NAME=VALUE]...
#              [--then-cmd 'SHELL CMD' --then-out DIR [--then-timeout S]]
# --env: export NAME=VALUE in the guest before its commands run, for the
# suite's knobs (--env SCHED_STATE_RACE_MS=10000: the race's bound, which
# guest/suite.sh also adds to the programs' timeout).  GUEST_ENV, in
# vm.sh's environment, is a list of such words (make run
# GUEST_ENV=SCHED_STATE_RACE_MS=10000), before the --env options.
# --then-cmd: once the command is done, the same guest runs a second one
# (make run's quick benchmark after the suite: one boot instead of two),
# whose TAP, kernel log and console from that point on are judged on their
# own, into DIR as OUTDIR's are; --then-timeout (default 600) counts from
# its start, --timeout up to it.  vm.sh's status stays the first command's
# verdict; the second's is in DIR/result.json.
# --arch: the kernel's line of scripts/arches.tsv (default $KARCH, which
# lib.sh's pick_kernel exports, else x86_64): the QEMU binary, machine, CPU,
# console and how the kernel log and the TAP leave the guest (serial ports
# or PCI serial ports: QEMU's pci-serial, the 8250_pci driver).  For an arch
# that is cross-compiled, the guest's busybox, dash and timeout (and their
# libraries) are the arch's Debian packages, unpacked by scripts/tree/debian.sh
# into $SCHED_STATE_CACHE/userland/<debian arch>, never installed.
# env:   KVM=auto|on|off (default auto; a foreign arch never has KVM)
#        GUEST_ENV='NAME=VALUE ...' (see --env)
set -euo pipefail

# Kernel log lines (grep -E, case-sensitive) that count as a kernel report.
# Extend this list to catch more; each entry is one alternative.
DMESG_PATTERNS=(
	'WARNING:'				# WARN_ON(), lockdep "WARNING: possible ..."
	'BUG:'					# BUG: KASAN, sleeping function, soft lockup ...
	'Oops'
	'kernel BUG at'
	'general protection fault'
	'INFO: task .* blocked.* for more than'	# hung task ("blocked in I/O wait")
	'INFO: possible'			# lockdep
	'INFO: .*detected stall'		# RCU stalls
	'hard LOCKUP'				# the NMI watchdog
	'={40,}'				# lockdep/KASAN/UBSAN report banner
	'KASAN:'
	'UBSAN:'
	'kmemleak:.*suspected memory leak'
	'Call Trace:'
	'Call trace:'				# arm64's stack dumps
	'Internal error:'			# arm, arm64: die()
	'Unable to handle kernel'		# arm, arm64: a fault in the kernel
	'RIP:'
	'do not call blocking ops when !TASK_RUNNING'
	'Kernel panic'
)

die() { echo "vm.sh: $*" >&2; exit 2; }
msg() { echo "vm.sh: $*"; }
HERE=$(cd "$(dirname "$0")" && pwd)	# scripts/vm: guest/
SCRIPTS=${HERE%/*}			# arches.tsv, tree/debian.sh

KIMAGE='' KSFT='' OUT='' TIMEOUT=600 GUEST_CMD='sh /guest/suite.sh'
THEN_CMD='' THEN_OUT='' THEN_TIMEOUT=600
ARCH_NAME=${KARCH:-x86_64}
EXTRA=()
read -r -a GUEST_ENVS <<<"${GUEST_ENV:-}"
while (($#)); do
	(($# >= 2)) || die "$1 needs a value"
	case $1 in
	--kimage) KIMAGE=$2 ;;
	--ksft) KSFT=$2 ;;
	--out) OUT=$2 ;;
	--timeout) TIMEOUT=$2 ;;
	--guest-cmd) GUEST_CMD=$2 ;;
	--extra) EXTRA+=("$2") ;;
	--arch) ARCH_NAME=$2 ;;
	--env) GUEST_ENVS+=("$2") ;;
	--then-cmd) THEN_CMD=$2 ;;
	--then-out) THEN_OUT=$2 ;;
	--then-timeout) THEN_TIMEOUT=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
KVM=${KVM:-auto}


need_tool() { command -v "$1" >/dev/null || die "$1 not found; install it: apt-get install $2"; }
# the arch's line of arches.tsv, as lib.sh's arch_set reads it
row=$(awk -v a="$ARCH_NAME" '!/^#/ && NF && ($1 == a || $2 == a)' "$SCRIPTS/arches.tsv" | head -n 1)
[[ -n $row ]] || die "--arch $ARCH_NAME: not in $SCRIPTS/arches.tsv"
read -r A_ARCH A_DEBIAN _ A_CROSS A_QEMU A_MACHINE A_CPU A_CONSOLE A_STREAMS _ <<<"$row"
[[ $A_CROSS != - ]] || A_CROSS=
[[ $A_MACHINE != - ]] || A_MACHINE=
[[ $A_STREAMS =~ ^(serial|pci)$ ]] || die "arches.tsv: $A_ARCH: unknown streams '$A_STREAMS'"
need_tool "$A_QEMU" "the qemu-system-* package with $A_QEMU (scripts/tree/deps.sh)"
need_tool cpio cpio
need_tool fakeroot fakeroot
[[ -n $A_CROSS ]] || need_tool busybox busybox-static
[[ -n $A_CROSS || -x /usr/bin/timeout ]] || die "/usr/bin/timeout not found; install it: apt-get install coreutils"
[[ -n $A_CROSS || -x /bin/dash ]] || die "/bin/dash not found; install it: apt-get install dash"
[[ -z $A_CROSS ]] || need_tool readelf binutils
[[ -n $KIMAGE && -n $KSFT && -n $OUT ]] || die "--kimage, --ksft and --out are required"
[[ -f $KIMAGE ]] || die "kernel image $KIMAGE not found; pass an existing bzImage/vmlinuz with --kimage"
[[ -f $KSFT/run_kselftest.sh ]] || die "$KSFT/run_kselftest.sh not found; install kselftests with 'make -C tools/testing/selftests install INSTALL_PATH=$KSFT'"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout wants seconds, got '$TIMEOUT'"
[[ $THEN_TIMEOUT =~ ^[0-9]+$ ]] || die "--then-timeout wants seconds, got '$THEN_TIMEOUT'"
[[ -z $THEN_CMD$THEN_OUT || (-n $THEN_CMD && -n $THEN_OUT) ]] || die "--then-cmd and --then-out go together"
[[ $KVM =~ ^(auto|on|off)$ ]] || die "KVM must be auto, on or off, not '$KVM'"
for e in "${GUEST_ENVS[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env/GUEST_ENV: '$e' is not NAME=VALUE"
done
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
if [[ -n $THEN_OUT ]]; then
	mkdir -p "$THEN_OUT"
	THEN_OUT=$(realpath "$THEN_OUT")
fi

# USERLAND: where the guest's busybox, dash and timeout come from: this
# machine, or the arch's packages of this machine's Debian release,
# unpacked once into the cache
userland() {
	local d=${SCHED_STATE_CACHE:-/var/cache/sched_state}/userland/$A_DEBIAN rel pkgs p
	if [[ -z $A_CROSS ]]; then
		USERLAND=/
		return
	fi
	rel=$(. /etc/os-release && echo "$VERSION_CODENAME")
	pkgs=
	for p in busybox-static dash coreutils libc6; do pkgs+=" $p/$rel"; done
	USERLAND=$d
	mkdir -p "$(dirname "$d")"
	exec 7>"$d.lock"
	flock 7
	if [[ $(cat "$d/.pkgs" 2>/dev/null) != "$pkgs" ]]; then
		msg "unpacking $A_DEBIAN's$pkgs into $d"
		rm -rf "$d"
		"$SCRIPTS/tree/debian.sh" unpack "$A_DEBIAN" "$d" $pkgs ||
			die "could not unpack $A_DEBIAN's$pkgs"
		echo "$pkgs" >"$d/.pkgs"
	fi
	exec 7>&-
	for p in /bin/busybox /bin/dash /usr/bin/timeout; do
		[[ -n $(userland_path "$p") ]] || die "$d: no $p in $A_DEBIAN's$pkgs"
	done
}

# userland_path PATH: PATH in USERLAND, also where a merged /usr moved it, its
# symbolic links followed inside USERLAND (libc6's /lib64/ld64.so.2 is an
# absolute one)
userland_path() {
	local r=${USERLAND%/} f=$1 t i
	for i in 1 2 3 4 5 6 7 8; do
		[[ -e $r$f || -L $r$f ]] || [[ ! -e $r/usr$f && ! -L $r/usr$f ]] || f=/usr$f
		if [[ -L $r$f ]]; then
			t=$(readlink "$r$f")
			[[ $t == /* ]] || t=$(dirname "$f")/$t
			f=$t
		elif [[ -e $r$f ]]; then
			echo "$r$f"
			return
		else
			return
		fi
	done
}

# make_root DIR: a root with busybox applets and /etc/passwd.
# A busybox that cannot run here lists its applets in the guest (see init).
make_root() {
	local r=$1 a
	rm -rf "$r"
	mkdir -p "$r"/{bin,dev,etc,proc,root,sys/kernel/debug,tmp,usr/bin,usr/local/bin}
	if [[ $USERLAND == / ]]; then
		cp "$(command -v busybox)" "$r/bin/busybox"
		for a in $(busybox --list); do
			# "busybox" is in the list too; linking it onto itself makes /init ELOOP
			[[ $a == busybox ]] || ln -sf busybox "$r/bin/$a"
		done
	else
		cp "$(userland_path /bin/busybox)" "$r/bin/busybox"
	fi
	echo 'root:x:0:0:root:/root:/bin/sh' >"$r/etc/passwd"
}

# add_libraries ROOT: copy the shared libraries every ELF file in ROOT needs, from
# this machine (ldd), or, for a foreign USERLAND, from there: each file's
# interpreter and DT_NEEDED libraries, found in USERLAND's library
# directories, and theirs in turn
add_libraries() {
	local f l p c
	if [[ $USERLAND == / ]]; then
		while IFS= read -r -d '' f; do
			[[ $(head -c 4 "$f" | tr -d '\0') == $'\x7fELF' ]] || continue
			for l in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
				[[ -e $1$l ]] || cp -L --parents "$l" "$1/"
			done
		done < <(find "$1" -type f -print0)
		return
	fi
	local -a todo=()
	while IFS= read -r -d '' f; do todo+=("$f"); done < <(find "$1" -type f -print0)
	while ((${#todo[@]})); do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		[[ $(head -c 4 "$f" | tr -d '\0') == $'\x7fELF' ]] || continue
		for l in $(readelf -lW "$f" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p') \
			 $(readelf -dW "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)]$/\1/p'); do
			if [[ $l == /* ]]; then
				p=$l
			else
				p=
				for c in "$USERLAND"/{,usr/}lib/*/"$l" "$USERLAND"/{,usr/}lib/"$l"; do
					[[ -e $c ]] && { p=${c#"$USERLAND"}; break; }
				done
				[[ -n $p ]] || die "$f needs $l: not in $USERLAND"
			fi
			[[ -e $1$p ]] && continue
			[[ -n $(userland_path "$p") ]] || die "$f needs $p: not in $USERLAND"
			mkdir -p "$1$(dirname "$p")"
			cp -L "$(userland_path "$p")" "$1$p"
			todo+=("$1$p")
		done
	done
}

# make_cpio ROOT FILE: ROOT as a gzipped newc archive owned by root, with a
# /dev/console, made under fakeroot: no need to be root
make_cpio() {
	fakeroot -- sh -c 'cd "$1" && mknod -m 600 dev/console c 5 1 &&
		find . | cpio -o -H newc -R 0:0 --quiet' sh "$1" | gzip -1 >"$2"
}

make_initramfs() {
	local r=$OUT/root streams e v q
	make_root "$r"
	cp -a "$KSFT/." "$r/kselftest/"
	# busybox sh runs its applets ahead of PATH, so it would never run the
	# sed below; dash (Debian's /bin/sh, as in real installs) searches PATH
	cp --remove-destination "$(userland_path /bin/dash)" "$r/bin/sh"
	cp "$(userland_path /usr/bin/timeout)" "$r/usr/bin/timeout"
	for d in "${EXTRA[@]}"; do
		cp -a "$d/." "$r/"
	done
	# the guest programs and their helpers, and the command, run from
	# /kselftest
	cp -a "$HERE/guest" "$r/guest"
	add_libraries "$r"
	printf '%s\n' "$GUEST_CMD" >"$r/guest/command.sh"
	# --env and GUEST_ENV, exported before the commands run
	: >"$r/guest/env.sh"
	for e in "${GUEST_ENVS[@]}"; do
		v=${e#*=} q="'\\''"
		printf "export %s='%s'\n" "${e%%=*}" "${v//\'/$q}" >>"$r/guest/env.sh"
	done
	[[ -z $THEN_CMD ]] || printf '%s\n' "$THEN_CMD" >"$r/guest/then.sh"
	# runner.sh prefixes nested TAP with "sed -e s/^/# /", and busybox sed
	# buffers a pipe: nested lines would only arrive when a test ends.
	cat >"$r/usr/local/bin/sed" <<-'EOF'
	#!/bin/sh
	[ "$*" = "-e s/^/# /" ] || exec busybox sed "$@"
	while IFS= read -r l || [ -n "$l" ]; do printf '# %s\n' "$l"; done
	EOF
	# the kernel log and the TAP go to their own streams: the serial ports
	# after the console's, or two PCI serial ports, found by their slots
	case $A_STREAMS in
	serial) streams='kmsg=/dev/ttyS1 tap=/dev/ttyS2' ;;
	pci) streams="kmsg=\$(pcitty $KMSG_SLOT) && tap=\$(pcitty $TAP_SLOT) || fail 'no tty on PCI slot $KMSG_SLOT or $TAP_SLOT'" ;;
	esac
	{
	cat <<-'EOF'
	#!/bin/sh
	export PATH=/usr/local/bin:/bin:/usr/bin HOME=/root
	fail() { echo "SCHED_STATE_GUEST: $*"; poweroff -f; }
	# a busybox that could not run on the host links its applets here
	[ -e /bin/mount ] || for a in $(busybox --list); do
		[ "$a" = busybox ] || [ -e "/bin/$a" ] || busybox ln -s busybox "/bin/$a"
	done
	# pcitty SLOT: the tty of the PCI serial device in SLOT of bus 0, its
	# child or (from 6.5, serial core's port devices) grandchild (waits 10 s)
	pcitty() {
		for i in $(seq 100); do
			for t in /sys/class/tty/ttyS*; do
				case $(readlink -f "$t") in
				*:00:$1.0/*) [ -e "/dev/${t##*/}" ] && echo "/dev/${t##*/}" && return 0 ;;
				esac
			done
			sleep 0.1
		done
		return 1
	}
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	EOF
	echo "$streams"
	cat <<-'EOF'
	# devtmpfs lacks these; runner.sh writes nested TAP to /dev/stdout
	ln -s /proc/self/fd /dev/fd
	ln -s fd/0 /dev/stdin
	ln -s fd/1 /dev/stdout
	ln -s fd/2 /dev/stderr
	mount -t tmpfs tmpfs /tmp
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	cat /proc/kmsg >"$kmsg" &
	echo "SCHED_STATE_GUEST: booted uptime=$(cut -d ' ' -f 1 /proc/uptime)"
	cd /kselftest
	. /guest/env.sh
	{ sh /guest/command.sh; echo $? >/tmp/rc; } 2>&1 | tee "$tap"
	sleep 1
	echo "SCHED_STATE_GUEST: done rc=$(cat /tmp/rc) uptime=$(cut -d ' ' -f 1 /proc/uptime)"
	# the second command: its part of each stream starts at this mark
	if [ -f /guest/then.sh ]; then
		echo "<6>SCHED_STATE_GUEST: then" >/dev/kmsg
		echo "SCHED_STATE_GUEST: then" >"$tap"
		echo "SCHED_STATE_GUEST: then uptime=$(cut -d ' ' -f 1 /proc/uptime)"
		{ sh /guest/then.sh; echo $? >/tmp/rc; } 2>&1 | tee "$tap"
		sleep 1
		echo "SCHED_STATE_GUEST: done rc=$(cat /tmp/rc) uptime=$(cut -d ' ' -f 1 /proc/uptime)"
	fi
	poweroff -f
	EOF
	} >"$r/init"
	chmod +x "$r/init" "$r/usr/local/bin/sed"
	make_cpio "$r" "$OUT/initramfs.cpio.gz"
	rm -rf "$r"
}

# start_qemu ARGS...: start QEMU in the background with what every boot shares
start_qemu() {
	"$A_QEMU" ${A_MACHINE:+-M "$A_MACHINE"} -m 1G -smp 2 -display none -no-reboot -monitor none \
		-nic none -kernel "$KIMAGE" \
		-append "console=$A_CONSOLE quiet panic=-1 loglevel=4" "$@" \
		</dev/null >>"$OUT/qemu.log" 2>&1 &
}

# strip_escapes: strip \r and terminal escape sequences
strip_escapes() { LC_ALL=C sed -u -E 's/\x1b\[[0-?]*[ -/]*[@-~]//g; s/\x1b[^[]//g; s/\r//g'; }

probe_kvm() {
	local d=$OUT/kvm-probe
	make_root "$d/root"
	printf '#!/bin/sh\necho KVM_PROBE_OK\npoweroff -f\n' >"$d/root/init"
	chmod +x "$d/root/init"
	add_libraries "$d/root"
	make_cpio "$d/root" "$d/initrd"
	start_qemu -serial "file:$d/console.log" -initrd "$d/initrd" -enable-kvm -cpu host
	local pid=$! t=0
	while kill -0 $pid 2>/dev/null && ((t++ < 20)); do sleep 1; done
	kill $pid 2>/dev/null || true
	wait $pid || true
	rm -rf "$d/root"
	grep -q KVM_PROBE_OK "$d/console.log"
}

pick_accel() {
	local cache
	cache=$(dirname "$OUT")/kvm-probe.$(basename "$KIMAGE").$(stat -c %Y "$KIMAGE")
	ACCEL=tcg
	if [[ -n $A_CROSS ]]; then
		[[ $KVM != on ]] || die "KVM=on: an $A_ARCH guest cannot use this machine's KVM"
		WHY="a guest for $A_ARCH, on $(uname -m)"
	elif [[ $KVM == off ]]; then
		WHY="KVM=off"
	elif [[ $KVM == on ]]; then
		ACCEL=kvm WHY="KVM=on"
	elif [[ ! -r /dev/kvm || ! -w /dev/kvm ]]; then
		WHY="/dev/kvm is not usable"
	elif [[ -f $cache ]]; then
		ACCEL=$(cat "$cache") WHY="cached probe verdict in $cache"
	else
		# stderr too: bash reports a QEMU that aborted there
		if probe_kvm 2>>"$OUT/qemu.log"; then
			ACCEL=kvm WHY="KVM probe boot succeeded"
		else
			WHY="KVM probe boot failed, see $OUT/qemu.log"
		fi
		echo $ACCEL >"$cache"
	fi
	msg "accel $ACCEL ($WHY)"
}

# make_dmesg: dmesg.log from the kmsg stream; a panic stops that stream early,
# so add the kernel lines (KERN_ERR and worse) the console got after it
make_dmesg() {
	awk '
	function ts(l) { return match(l, /^\[ *[0-9.]+\]/) ? substr(l, 2, RLENGTH - 2) + 0 : -1 }
	NR == FNR {
		gsub(/\r/, ""); sub(/^<[0-9]+>/, ""); print; seen[$0]
		if (ts($0) >= 0) last = ts($0)
		next
	}
	ts($0) >= last && !($0 in seen)
	' "$OUT/kmsg.log" "$OUT/console.txt" >"$OUT/dmesg.log"
}

# unexpected_reports: dmesg.log as "LINE:text", less the hung-task reports
# the hung-task program provokes, which go to $OUT/accepted as "LINE:text".
# Its part of the run is between the marks guest/suite.sh writes to the
# kernel log around it, "SCHED_STATE_GUEST: hung_task begin" and "... end"
# (the program itself writes none, and judges the detector itself); there,
# and only there, a report "INFO: task sched_state/uni:<pid> blocked for
# more than N seconds." (the module's uninterruptible kthread, its comm cut
# to 15 characters) is accepted with the lines that follow it (its stack
# trace; with lockdep, the locks held).  Any other report, anywhere, counts,
# a killable or idle kthread's (sched_state/kil, sched_state/idl) included.
unexpected_reports() {
	awk -v acc="$OUT/accepted" '
	BEGIN { printf "" >acc }
	/SCHED_STATE_GUEST: hung_task begin$/ { part = 1; next }
	/SCHED_STATE_GUEST: hung_task end$/ { part = 0; next }
	part && /INFO: task sched_state\/uni:[0-9]+ blocked for more than [0-9]+ seconds\.$/ {
		print NR ":" $0 >acc
		inreport = 1; trace = 0; after = 0; inlocks = 0
		next
	}
	# x86 closes the trace with </TASK>; where a "Call trace:" has no
	# <TASK> (arm64), the report ends at its first line that is no frame
	inreport {
		if (/<\/TASK>/) { inreport = 0; trace = 0; after = 1; next }
		if (/Call [Tt]race:/) { trace = 1; next }
		if (trace == 1 && /<TASK>/) { trace = 2; next }
		if (trace != 1 || /^\[ *[0-9.]+\] +(\[[0-9a-f]+\] +)*(\? )?[^ ]+\+0x[0-9a-f]+\/0x[0-9a-f]+/) next
		inreport = 0; trace = 0; after = 1
	}
	# with lockdep the detector then dumps every lock held (ending in a
	# row of "="): part of the accepted report
	after && /Showing all locks held in the system:/ { inlocks = 1; next }
	inlocks { if (/====================/) inlocks = after = 0; next }
	after && /^\[ *[0-9.]+\] *$/ { next }
	{ after = 0; print NR ":" $0 }
	' "$OUT/dmesg.log"
}

# running_test: the test a timed-out run was in, from the runner and harness lines
running_test() {
	awk -v cmd="$GUEST_CMD" '
	/^(# )*# selftests: / { sub(/^(# )*# selftests: /, ""); test = $0; cur = "" }
	/^(# )*# +RUN +[^ ]+ \.\.\.$/ { cur = $(NF - 1) }
	/^(# )*# +(OK|FAIL) +[^ ]+$/ { if ($NF == cur) cur = "" }
	END {
		if (test == "")
			test = "guest command \"" cmd "\" (no kselftest header seen)"
		print test (cur == "" ? "" : ", test " cur)
	}
	' "$OUT/ktap.tap"
}

# One guest at a time on this machine: two would share its cores and skew
# each other's emulated time.  VM_LOCK=none opts out.
if [[ ${VM_LOCK:-/tmp/sched_state-vm.lock} != none ]]; then
	exec 8>"${VM_LOCK:-/tmp/sched_state-vm.lock}"
	flock -n 8 || { msg "waiting for another guest to finish"; flock 8; }
fi
rm -rf "$OUT"/{console.*,kmsg.*,ktap.*,dmesg.log,qemu.log,kvm-probe}
[[ -z $THEN_OUT ]] || rm -rf "$THEN_OUT"/{console.*,kmsg.log,ktap.*,dmesg.log,qemu.log,initramfs.cpio.gz,result.json}
userland
# the PCI slots of the "pci" streams
KMSG_SLOT=10 TAP_SLOT=11
msg "building initramfs in $OUT"
make_initramfs
pick_accel
if [[ $ACCEL == kvm ]]; then
	accel=(-enable-kvm -cpu host)
else
	accel=(-accel 'tcg,thread=multi' -cpu "$A_CPU")
fi
case $A_STREAMS in
serial) streams=(-serial "file:$OUT/kmsg.log" -serial "file:$OUT/ktap.raw") ;;
pci) streams=(-chardev "file,id=kmsg,path=$OUT/kmsg.log" -device "pci-serial,chardev=kmsg,addr=0x$KMSG_SLOT"
	-chardev "file,id=tap,path=$OUT/ktap.raw" -device "pci-serial,chardev=tap,addr=0x$TAP_SLOT") ;;
esac
# run_guest: boot once, until QEMU exits or the timeout
run_guest() {
	start_qemu -serial "file:$OUT/console.log" "${streams[@]}" \
		-initrd "$OUT/initramfs.cpio.gz" "${accel[@]}"
	qpid=$!
	trap 'kill $qpid 2>/dev/null || true' EXIT
	tail -n +1 -F --pid=$qpid "$OUT/console.log" 2>/dev/null | strip_escapes &
	tpid=$!
	start=$SECONDS timedout= then_at=
	while kill -0 $qpid 2>/dev/null; do
		then_seen
		if [[ -z $then_at ]]; then
			limit=$((start + TIMEOUT))
		else
			limit=$((then_at + THEN_TIMEOUT))
		fi
		if ((SECONDS >= limit)); then
			timedout=1
			kill $qpid 2>/dev/null || true
			break
		fi
		sleep 1
	done
	qrc=0
	wait $qpid || qrc=$?
	wait $tpid || true
	seconds=$((SECONDS - start))
	then_seen
}

# then_seen: then_at, once the second command's mark is on the console
then_seen() {
	if [[ -n $THEN_CMD && -z $then_at ]] && grep -qs 'SCHED_STATE_GUEST: then' "$OUT/console.log"; then
		then_at=$SECONDS
	fi
}
run_guest
# A kernel that dies before /init ran nothing of ours: under TCG that is
# QEMU's (cross-modifying code under thread=multi can trap a text_poke()
# int3).  Boot once more; the first boot's logs stay as *.boot1.
if [[ -z $timedout ]] && ! grep -qs 'SCHED_STATE_GUEST: booted' "$OUT/console.log"; then
	msg "the kernel died before /init: booting once more (first boot: $OUT/console.boot1.log)"
	for f in console.log kmsg.log ktap.raw; do
		mv "$OUT/$f" "$OUT/${f%.*}.boot1.${f##*.}" 2>/dev/null || true
	done
	run_guest
fi

# what went wrong outside the TAP, one line each, for result.json
problem() { msg "$*"; echo "$*" >>"$OUT/problems"; }

# judge DIR SECONDS TIMEDOUT QRC CMD LIMIT [PROBLEM]: judge one command's
# run from DIR/console.log, kmsg.log and ktap.raw: DIR/dmesg.log,
# result.json and the summary line; fails if the run did
judge() {
	local OUT=$1 seconds=$2 timedout=$3 qrc=$4 GUEST_CMD=$5 TIMEOUT=$6 pats l bad=0

	strip_escapes <"$OUT/ktap.raw" >"$OUT/ktap.tap"
	strip_escapes <"$OUT/console.log" >"$OUT/console.txt"
	make_dmesg
	: >"$OUT/problems"
	[[ -z ${7:-} ]] || problem "$7"
	[[ -z $timedout ]] || problem "TIMEOUT after $TIMEOUT s; running: $(running_test)"
	[[ -n $timedout || $qrc == 0 ]] ||
		problem "QEMU exited with status $qrc: $(tail -n 1 "$OUT/qemu.log")"
	if ! grep -q 'SCHED_STATE_GUEST: done' "$OUT/console.txt"; then
		[[ -n $timedout ]] || problem "guest crashed or hung: no 'SCHED_STATE_GUEST: done' on the console"
		msg "last 30 console lines:"
		tail -n 30 "$OUT/console.txt" | sed 's/^/    /'
	fi
	pats=$(IFS='|'; echo "${DMESG_PATTERNS[*]}")
	unexpected_reports | grep -E -e "$pats" >"$OUT/reports" || true
	while IFS= read -r l; do
		problem "kernel report: dmesg.log:$l"
	done <"$OUT/reports"
	write_result || bad=1
	rm -f "$OUT"/{problems,reports,accepted}
	return $bad
}

# split_then FILE DEST [keep]: move FILE's lines from the second command's
# mark on to DEST (the mark itself only with keep: the console's carries
# the guest's uptime)
split_then() {
	: >"$2"
	awk -v dest="$2" -v keep="${3:-}" '
	!moved && /SCHED_STATE_GUEST: then/ { moved = 1; if (keep == "") next }
	moved { print >dest; next }
	{ print }
	' "$1" >"$1.tmp"
	mv "$1.tmp" "$1"
}

# result.json, and the TAP's own problems: scripts/report/result.py write
write_result() {
	python3 "$HERE/../report/result.py" write "$OUT" "$KIMAGE" "$A_ARCH" "$ACCEL" "$seconds" "$TIMEOUT" \
		"${timedout:+1}" "${GUEST_ENVS[@]}"
}

bad=0
if [[ -z $THEN_OUT ]]; then
	judge "$OUT" "$seconds" "$timedout" "$qrc" "$GUEST_CMD" "$TIMEOUT" || bad=1
	exit $bad
fi
# the time, a timeout and QEMU's status belong to the command that ran last
for f in console.log kmsg.log ktap.raw; do
	split_then "$OUT/$f" "$THEN_OUT/$f" $([[ $f != console.log ]] || echo keep)
done
cp "$OUT/qemu.log" "$THEN_OUT/qemu.log"
if [[ -n $then_at ]]; then
	judge "$OUT" $((then_at - start)) '' 0 "$GUEST_CMD" "$TIMEOUT" || bad=1
	judge "$THEN_OUT" $((seconds - then_at + start)) "$timedout" "$qrc" "$THEN_CMD" "$THEN_TIMEOUT" || true
else
	judge "$OUT" "$seconds" "$timedout" "$qrc" "$GUEST_CMD" "$TIMEOUT" || bad=1
	judge "$THEN_OUT" 0 '' 0 "$THEN_CMD" "$THEN_TIMEOUT" "not run: the first command did not finish" || true
fi
exit $bad

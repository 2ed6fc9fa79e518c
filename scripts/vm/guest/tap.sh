# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest programs of scripts/vm/guest/ (/guest in the initramfs
# scripts/vm/vm.sh makes): the TAP helpers they share, and how a file leaves
# the guest.  Runs under dash; sourced, never run.

# tap_nest: stdin as nested TAP, "# " before each line, as kselftest's
# runner.sh nests a test's own output
tap_nest()
{
	while IFS= read -r line || [ -n "$line" ]; do
		printf '# %s\n' "$line"
	done
}

# tap_result NUMBER NAME STATUS: the TAP result of a program that exited
# with STATUS: 0 passed, 4 (KSFT_SKIP) skipped, anything else failed
tap_result()
{
	case $3 in
	0) echo "ok $1 $2" ;;
	4) echo "ok $1 $2 # SKIP" ;;
	*) echo "not ok $1 $2 # exit $3" ;;
	esac
}

# hand_back FILE [NAME]: send a text file to the host, which vm.sh stores
# as <out>/files/NAME (default FILE's base name; [A-Za-z0-9._-] only) and
# lists in result.json.  On the TAP stream, as TAP comments:
#   # SCHED_STATE_FILE_BEGIN NAME
#   # |<each line of FILE>
#   # SCHED_STATE_FILE_END NAME <bytes>
# vm.sh keeps a file only if its END came and the size matches, so a file
# cut short by a crash, or with bytes a tty does not carry (\r, NUL), is
# reported instead of kept.  Returns 1, and says so, without FILE.
hand_back()
{
	local name=${2:-${1##*/}} line

	if [ ! -f "$1" ]; then
		echo "# SCHED_STATE_FILE_MISSING $name"
		return 1
	fi
	echo "# SCHED_STATE_FILE_BEGIN $name"
	while IFS= read -r line || [ -n "$line" ]; do
		printf '# |%s\n' "$line"
	done <"$1"
	echo "# SCHED_STATE_FILE_END $name $(($(wc -c <"$1")))"
}

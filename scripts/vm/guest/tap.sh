# SPDX-License-Identifier: GPL-2.0
# The guest programs' TAP helpers (dash; sourced from /guest/tap.sh).

# tap_nest [PREFIX]: stdin as nested TAP, as kselftest's runner.sh nests it
tap_nest() {
	while IFS= read -r line || [ -n "$line" ]; do
		printf '# %s%s\n' "${1:-}" "$line"
	done
}

# tap_result NUMBER NAME STATUS: 0 passed, 4 (KSFT_SKIP) skipped, else failed
tap_result() {
	case $3 in
	0) echo "ok $1 $2" ;;
	4) echo "ok $1 $2 # SKIP" ;;
	*) echo "not ok $1 $2 # exit $3" ;;
	esac
}

# hand_back FILE [NAME]: FILE to the host's OUT/files/NAME, kept if its END's size matches
hand_back() {
	local name=${2:-${1##*/}}
	[ -f "$1" ] || { echo "# SCHED_STATE_FILE_MISSING $name"; return 1; }
	echo "# SCHED_STATE_FILE_BEGIN $name"
	tap_nest '|' <"$1"
	echo "# SCHED_STATE_FILE_END $name $(($(wc -c <"$1")))"
}

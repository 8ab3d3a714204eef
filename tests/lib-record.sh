# tests/lib-record.sh: the state of runs that never ran, for the tests of what reads it (reports, claims, costs).
#
# The records are written by the record module itself (test-tool record,
# tests/helper/test-tool.c), so they are what a run writes today: its
# field names, its time and format. record_cell_legacy writes one as the
# versions before records carried a format did, for what must still read it.
# They use $A and $B (commits) and $DATA (tests/data/results).

TEST_TOOL_DIR="$(dirname "$MKSERIES_BIN")/tests/helper"
[ -x "$TEST_TOOL_DIR/test-tool" ] ||
	{ echo "Bail out! $TEST_TOOL_DIR/test-tool is not built (run make units)"; exit 1; }
export PATH="$TEST_TOOL_DIR:$PATH"

# record_branch WORKDIR SERIES-STATE [VARIANT]: what a run's import and
# apply record for branch t (base $A, tip $B), its one series (alpha) in
# SERIES-STATE, and VARIANT, when given, applied too.
record_branch() {
	dir=$1/t state=$2 &&
	if [ -n "${3:-}" ]; then set -- "variants=$3" "variant.$3.status=ok"; else set --; fi &&
	test-tool record "$dir" import status=ok base=$A &&
	test-tool record "$dir" apply status=ok tip=$B series=1 series.0.id=alpha \
		"series.0.title=mm: rename ptes" "series.0.state=$state" "$@"
}

# record_cell WORKDIR VARIANT COMMIT ACCEL TIMING CONSOLE... [NAME=VALUE...]:
# what build/ and vm/ record for a cell of branch t built from COMMIT and
# booted once per CONSOLE (a file of $DATA/consoles) under ACCEL, its
# time of kind TIMING; each NAME=VALUE is one more field of the test's.
record_cell() {
	dir=$1/t v=$2 commit=$3 accel=$4 timing=$5 &&
	shift 5 &&
	n=0 &&
	for a; do
		shift &&
		case "$a" in
		*=*)
			set -- "$@" "$a" ;;
		*)
			n=$((n + 1)) &&
			if [ $n = 1 ]; then
				set -- "$@" "console=$DATA/consoles/$a"
			else
				set -- "$@" "console.$n=$DATA/consoles/$a"
			fi ;;
		esac
	done &&
	test-tool record "$dir" build "$v" variant=$v branch=t commit=$commit status=ok seconds=1 &&
	test-tool record "$dir" test "$v" variant=$v branch=t status=ok accel=$accel \
		timing=$timing boots=$n mode=quick seconds=1 "$@"
}

# record_cell_legacy WORKDIR VARIANT COMMIT ACCEL CONSOLE: a cell booted
# once, recorded as versions before `timing` and `format` were did
# (format 1: no format, no at, the module's "finished"; TCG was on host
# time then), by hand, as no mkseries writes it any more.
record_cell_legacy() {
	printf 'variant=%s\nbranch=t\ncommit=%s\nstatus=ok\nseconds=1\nfinished=100\n' \
		"$2" "$3" >"$1/t/state/$2.build" &&
	printf 'variant=%s\nbranch=t\nstatus=ok\naccel=%s\nmode=quick\nseconds=1\nfinished=200\nconsole=%s\n' \
		"$2" "$4" "$DATA/consoles/$5" >"$1/t/state/$2.test"
}

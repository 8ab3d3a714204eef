#!/bin/sh
# t0930-run-612.sh: the kit's own 6.12 job for real: import, apply, build, boot under QEMU, mm-regress, report.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# Shared with the other real-tree tests and kept between runs: the Debian
# package, the imported tree, the work directories and ccache.
export XDG_CACHE_HOME="$REAL_CACHE"

test_expect_success REAL_TREES 'mkseries run --branch 6.12 on the kit succeeds' '
	mkseries --kit "$SRC_DIR" run --branch 6.12 --format json --output run.json >out 2>err
	code=$? &&
	cat out err &&
	test $code = 0 &&
	jq . run.json >/dev/null
'

cell() { jq -c ".branches[] | select(.name == \"6.12\") | .cells[] | select(.variant == \"$1\")" run.json; }

test_expect_success REAL_TREES 'base and kit built, booted, every case passed or skipped, no splat' '
	for v in base kit; do
		cell $v >cell.$v &&
		test -s cell.$v &&
		for c in build boot tests splats; do
			test "$(jq -r ".checks.$c.status" cell.$v)" = ok || { echo "$v $c:"; cat cell.$v; return 1; }
		done &&
		test "$(jq -r .fail cell.$v)" = 0 &&
		test "$(jq -r .pass cell.$v)" -ge 10 &&
		jq -r ".cases[] | select(.status == \"skip\") | .evidence" cell.$v >skips.$v &&
		! grep -q "^null$" skips.$v || return 1
	done
'

test_expect_success REAL_TREES 'the kit carries the series: PTE batching and process_madvise applied' '
	jq -r ".branches[] | select(.name == \"6.12\") | .series[] | \"\(.id) \(.state)\"" run.json >series &&
	test_grep "^mremap-pte-batch applied$" series &&
	test_grep "^process-madvise-lock applied$" series &&
	test_grep "^mremap-pmd-pud present$" series
'

test_expect_success REAL_TREES 'the report compares kit against base for every metric' '
	jq -r ".branches[] | select(.name == \"6.12\") | .comparison.comparable" run.json >comparable &&
	echo true >comparable.expect &&
	test_cmp comparable.expect comparable &&
	jq -r "[.metrics[] | \"\(.case) \(.name)\"] | sort | .[]" cell.base >base.metrics &&
	test -s base.metrics &&
	jq -r ".branches[] | select(.name == \"6.12\") | [.comparison.metrics[] | select(.base_mean != null and .kit_mean != null) | \"\(.case) \(.name)\"] | sort | .[]" run.json >compared &&
	test_cmp base.metrics compared &&
	test_grep "realloc_rate" compared
'

test_expect_success REAL_TREES 'no-fixes: without both fixups the writable-bit case fails, as expected' '
	cell no-fixes >cell.no-fixes &&
	test -s cell.no-fixes &&
	test "$(jq -r .status cell.no-fixes)" = ok &&
	jq -r ".cases[] | select(.name == \"pte_batch_wrbit\") | \"\(.status) \(.expected_fail)\"" cell.no-fixes >wrbit &&
	cat wrbit &&
	echo "fail true" >wrbit.expect &&
	test_cmp wrbit.expect wrbit
'

test_expect_success REAL_TREES 'the kit passes the writable-bit case the no-fixes variant fails' '
	jq -r ".cases[] | select(.name == \"pte_batch_wrbit\") | .status" cell.kit >wrbit.kit &&
	echo pass >wrbit.kit.expect &&
	test_cmp wrbit.kit.expect wrbit.kit
'

test_expect_success REAL_TREES 'no-hotfix: realloc_rate is reported next to the kit' '
	cell no-hotfix >cell.no-hotfix &&
	test "$(jq -r .status cell.no-hotfix)" = ok &&
	jq -r ".metrics[] | select(.case == \"realloc_rate\") | .mean" cell.no-hotfix >realloc.no-hotfix &&
	test -s realloc.no-hotfix &&
	(cd "$SRC_DIR" && mkseries report --branch 6.12) >report.txt &&
	test_grep "no-hotfix" report.txt &&
	grep "realloc_rate.calls_per_sec" report.txt >realloc.line &&
	test $(grep -o "%" realloc.line | wc -l) -ge 4
'

WORK=$(kit_workdir "$SRC_DIR" 6.12)
test_expect_success REAL_TREES 'the kit claims hold, each on the cells where its code runs' '
	jq -r ".branches[] | select(.name == \"6.12\") | .cells[] | .variant as \$v |
		.claims[]? | \"\(\$v) \(.metric) \(.outcome)\"" run.json | sort >claims &&
	cat claims &&
	cat >claims.expect <<-\EOF &&
	base mremap_pud_time.pud_speedup held
	kit mremap_pud_time.pud_speedup held
	kit process_madvise_dontneed.cold_batch_1024 held
	kit process_madvise_dontneed.cold_batch_256 held
	no-hotfix mremap_pte_loop.us_per_iteration held
	no-hotfix realloc_rate.calls_per_sec held
	EOF
	test_cmp claims.expect claims
'


test_expect_success REAL_TREES 'every cell booted twice on a clock that ticks, instruction-paced under TCG' '
	for v in base kit no-hotfix no-fixes; do
		st="$WORK/state/$v.test" &&
		test_grep "^boots=2$" "$st" &&
		test_grep "^started=1$" "$st" &&
		accel=$(sed -n "s/^accel=//p" "$st") &&
		timing=$(sed -n "s/^timing=//p" "$st") &&
		case "$accel" in
		kvm) test "$timing" = hardware ;;
		tcg) test "$timing" = instructions ;;
		*) echo "$v: accel $accel"; return 1 ;;
		esac &&
		for log in "$WORK/logs/$v-console.log" "$WORK/logs/$v-console.2.log"; do
			sed -n "s/^# clocksource: //p" "$log" | tr -d "\r" >cs &&
			sed -n "s/^# clock: resolution_ns=\([0-9]*\).*/\1/p" "$log" >res &&
			echo "$v: $(cat cs), $(cat res) ns" &&
			test -s cs && ! grep -q jiffies cs &&
			test "$(cat res)" -lt 1000 || return 1
		done
	done
'

# Instruction-paced time repeats: a metric of a cell moves by less than
# 0.5% when the tests run again. A metric whose own samples spread wider
# (madvise_dontneed: freeing pages leaves the page allocator in another
# state each time, and the instructions it takes follow) may move as far
# as three standard errors of the two means, and is listed.
test_expect_success REAL_TREES 'the tests run again give every metric of every cell within 0.5%, or within its own spread' '
	mkseries --kit "$SRC_DIR" run --branch 6.12 --force=test --format json --output run2.json >out3 2>&1
	code=$? &&
	cat out3 &&
	test $code = 0 &&
	metrics() {
		jq -r ".branches[] | select(.name == \"6.12\") | .cells[] | .variant as \$v |
			.metrics[] | \"\(\$v)/\(.case).\(.name) \(.mean) \(.stddev) \(.n)\"" "$1" | sort
	} &&
	metrics run.json >m1 &&
	metrics run2.json >m2 &&
	test "$(wc -l <m1)" -ge 60 &&
	join -j1 m1 m2 >both &&
	test "$(wc -l <both)" = "$(wc -l <m1)" &&
	awk "{
		m1 = \$2; s1 = \$3; n1 = \$4; m2 = \$5; s2 = \$6; n2 = \$7
		base = m1 ? m1 : 1
		d = (m2 - m1) / base * 100; if (d < 0) d = -d
		se = 3 * 100 * sqrt(s1 * s1 / n1 + s2 * s2 / n2) / (base < 0 ? -base : base)
		allowed = se > 0.5 ? se : 0.5
		if (d > 0.5)
			printf \"%s moved %.3f%% (its spread allows %.3f%%)\n\", \$1, d, allowed
		if (d > allowed) bad++
		if (d > worst) worst = d
	} END { printf \"largest move: %.3f%%\n\", worst; exit bad > 0 }" both >drift &&
	cat drift
'

test_expect_success REAL_TREES 'a rerun with nothing changed is up to date at every step' '
	mkseries --kit "$SRC_DIR" run --branch 6.12 >out2 2>&1 &&
	cat out2 &&
	test_grep "import: up to date" out2 &&
	test_grep "apply: up to date" out2 &&
	test_grep ! "built in" out2
'

test_done

#!/bin/sh
# t0790-bisect.sh: `mkseries bisect`: the first applied patch where a build, a boot, a case or a metric goes wrong, on a synthetic kit with the failure planted at patch 3 of 5.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# The kit applies five commits on t: A1, A2, F1 (batch() returns 2), F2
# (returns 3), B1. "return [23]" is in mm/mremap.c from the third on.
PLANT='return [23]'

test_expect_success 'setup: a kit of five commits on t, built and booted at base' '
	setup_fake_run kit &&
	(cd kit && mkseries apply --branch t >../out 2>&1) &&
	mk_git linux log --format=%s $(git -C linux rev-parse v1.0-mk)..$(kit_ref kit t) >subjects &&
	test $(wc -l <subjects) -eq 5 &&
	(cd kit && mkseries run --branch t --variant base >../out 2>&1)
'

# first_bad OUT: the "first bad commit" line of bisect's output, without
# the upstream id and the kit's file (the first test checks those)
first_bad() {
	sed -n "s/^t kit: first bad commit: \([0-9]*\/[0-9]*\) commit [0-9a-f]\{40\} upstream, patches\/[^:]*: \(.*\)/\1 \2/p" "$1"
}

test_expect_success 'bisect --case: patch 3 of 5, in two steps, with the failing case as evidence' '
	(cd kit && FAKE_QEMU_TIMED=1 FAKE_QEMU_FAIL_IF="$PLANT" mkseries bisect --branch t --case steady >../out 2>../err) &&
	cat out &&
	test_grep "^t kit: bisecting the 5 commits of $(kit_ref kit t) above base" out &&
	test_grep "^  tip      5/5 [0-9a-f]* madvise: split locking: bad (not ok 3 steady: steady: pattern mismatch at offset 4096)$" out &&
	test_grep "^  step 1   2/5 [0-9a-f]* mm: batch ptes: good (ok 3 steady)$" out &&
	test_grep "^  step 2   3/5 [0-9a-f]* mm: fix batch ptes: bad " out &&
	test $(grep -c "^  step" out) -eq 2 &&
	first_bad out >got && echo "3/5 mm: fix batch ptes" >expect && test_cmp expect got &&
	up=$(sed -n "1s/^From \([0-9a-f]*\) .*/\1/p" kit/patches/alpha/0003-mm-fix-batch-ptes.patch) &&
	test $(printf %s "$up" | wc -c) -eq 40 &&
	test_grep "^t kit: first bad commit: 3/5 commit $up upstream, patches/alpha/0003-mm-fix-batch-ptes.patch: mm: fix batch ptes$" out &&
	test_grep "^    kit commit: $(mk_git linux rev-parse "$(kit_ref kit t)~2") on $(kit_ref kit t)$" out &&
	test_grep "^    evidence: not ok 3 steady: steady: pattern mismatch at offset 4096$" out &&
	test_grep "^    log: .*/logs/bisect-console.log$" out
'

test_expect_success 'bisect --boot: a splat from patch 3 on' '
	(cd kit && FAKE_QEMU_SPLAT_IF="$PLANT" mkseries bisect --branch t --boot >../out 2>../err) &&
	first_bad out >got && echo "3/5 mm: fix batch ptes" >expect && test_cmp expect got &&
	test_grep "^    evidence: .*WARNING: CPU: 0 PID: 1 at mm/mremap.c:5" out
'

test_expect_success 'bisect --build: the first commit that does not compile' '
	(cd kit && FAKE_BREAK_IF="$PLANT" mkseries bisect --branch t --build >../out 2>../err) &&
	first_bad out >got && echo "3/5 mm: fix batch ptes" >expect && test_cmp expect got &&
	test_grep "^    evidence: mm/mremap.c:6:9: error: expected .;. before .return.$" out &&
	test_grep "^    log: .*/logs/bisect-build.log$" out
'

test_expect_success 'bisect --claim: the metric against base, beyond the threshold' '
	(cd kit && FAKE_QEMU_SLOWER_IF="$PLANT" mkseries bisect --branch t --claim perf_loop.us_per_iteration >../out 2>../err) &&
	first_bad out >got && echo "3/5 mm: fix batch ptes" >expect && test_cmp expect got &&
	cat out &&
	test_grep "^    evidence: perf_loop.us_per_iteration +29.8% against base (130.6 us ± 0.3% (5 samples) against 100.6 us ± 0.4% (5 samples); instructions time), more than 5% worse$" out &&
	test_grep "^  step 1   2/5 .*: good (perf_loop.us_per_iteration +0.0% against base (100.6 us ± 0.4% (5 samples) against 100.6 us ± 0.4% (5 samples); instructions time), no more than 5% worse)$" out
'

test_expect_success 'a commit that cannot be judged is stepped over; the first bad is then one of two (exit 1)' '
	(cd kit && FAKE_QEMU_FAIL_IF="return 3" FAKE_BREAK_IF="return 2" \
		test_expect_code 1 mkseries bisect --branch t --case steady >../out 2>../err) &&
	cat out &&
	test_grep "^  step 1   2/5 .*: good" out &&
	test_grep "^  step 2   3/5 .*: cannot tell (does not build: mm/mremap.c:6:9: error" out &&
	test_grep "^  step 3   4/5 .*: bad" out &&
	test_grep "^t kit: the first bad commit is one of these (those before 4/5 could not be judged):$" out &&
	sed -n "s/^    \([0-9]\/5\) commit [0-9a-f]* upstream, patches\/alpha\/[^:]*: /\1 /p" out >got &&
	printf "%s\n" "3/5 mm: fix batch ptes" "4/5 mm: fix the fix" >expect &&
	test_cmp expect got &&
	test $(grep -c "^        kit commit: [0-9a-f]\{40\} on " out) -eq 2
'

test_expect_success 'when the tip is good there is nothing to bisect (exit 1)' '
	(cd kit && test_expect_code 1 mkseries bisect --branch t --case steady >../out 2>../err) &&
	test_grep "^  tip      5/5 .*: good (ok 3 steady)$" out &&
	test_grep "^t kit: the tip is good: nothing to bisect$" out
'

test_expect_success 'usage: the failure named once, a branch, a metric CASE.NAME, not base' '
	(cd kit && test_expect_code 2 mkseries bisect --branch t 2>../err) &&
	test_grep "say what fails: one of --case NAME, --claim METRIC, --boot, --build" err &&
	(cd kit && test_expect_code 2 mkseries bisect --branch t --boot --build 2>../err) &&
	test_grep "say what fails" err &&
	(cd kit && test_expect_code 2 mkseries bisect --boot 2>../err) &&
	test_grep "which branch" err &&
	(cd kit && test_expect_code 2 mkseries bisect --branch t --claim perf_loop 2>../err) &&
	test_grep "a metric is CASE.NAME" err &&
	(cd kit && test_expect_code 2 mkseries bisect --branch t --case "" >../out 2>../err) &&
	test_grep "^error: --case ..: name a case of mm-regress as it prints it, letters, digits and ._. (mkseries regress --list shows them)\$" err &&
	test_must_be_empty out &&
	(cd kit && test_expect_code 2 mkseries bisect --branch t --case "steady,x" 2>../err) &&
	test_grep "^error: --case .steady,x.: name a case" err &&
	(cd kit && test_expect_code 2 mkseries bisect --branch t --variant base --boot 2>../err) &&
	test_grep "the base has no applied commits" err &&
	(cd kit && test_expect_code 2 mkseries bisect --branch nosuch --boot 2>../err) &&
	test_grep "nosuch" err
'

test_expect_success 'the probes are no cell of the branch: report and export leave them out' '
	ls "$(kit_workdir kit t)/state" >files &&
	test_grep "^bisect.test$" files &&
	(cd kit && test_expect_code 1 mkseries report --branch t --format json --output ../r.json \
		2>../err) &&
	test_grep "\"variant\": \"base\"" r.json &&
	test_grep "\"variant\": \"kit\"" r.json &&
	! grep "\"variant\": \"bisect\"" r.json &&
	(cd kit && test_expect_code 1 mkseries export --branch t --format mbox -o ../exp 2>../err) &&
	test_grep "never run\|not pass\|moved" err &&
	! grep bisect err
'

test_expect_success '--claim without a recorded base boot says what to run' '
	rm "$(kit_workdir kit t)/logs/base-console.log" &&
	(cd kit && test_expect_code 1 mkseries bisect --branch t --claim perf_loop.us_per_iteration 2>../err) &&
	test_grep "run mkseries test --branch t --variant base first" err
'

test_expect_success 'a kernels file may not declare a variant named bisect' '
	cp kit/kernels/t.yaml t.yaml.orig &&
	printf "variants:\n  bisect:\n    without: [x]\n" >>kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	test_grep "variant name .bisect. is taken (base and kit are every branch.s own, bisect is bisect.s)" err &&
	cp t.yaml.orig kit/kernels/t.yaml
'

test_done

#!/bin/sh
# t0700-run.sh: mkseries run: every step, failures recorded and reported, resumable, up to date in seconds.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

DATA="$TEST_DIRECTORY/data/results"

# child_of PID: the first child process of PID (from /proc: procps may be missing).
child_of() {
	_parent=$1
	for _stat in /proc/[0-9]*/stat; do
		_line=$(cat "$_stat" 2>/dev/null) || continue
		# "pid (comm) state ppid ...": comm may hold spaces, so cut after ") ".
		set -- ${_line##*) }
		if [ "$2" = "$_parent" ]; then
			_child=${_stat#/proc/}
			echo "${_child%/stat}"
			return 0
		fi
	done
	return 1
}

test_expect_success 'setup: a kit whose trees build with a fake kbuild and boot in a fake QEMU' '
	setup_fake_run kit &&
	git -C linux checkout -q stable &&
	sed -i "s/move_ptes/move_the_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "diverge" &&
	git -C linux tag v1.0-conflict &&
	git -C linux checkout -q master &&
	kernel_yaml kit c v1.0-conflict &&
	echo "default: false" >>kit/kernels/c.yaml &&
	kernel_yaml kit plain v1.0
'

test_expect_success 'run imports, applies, builds and tests base and kit, then reports' '
	(cd kit && mkseries run --branch t --workdir ../work >../out 2>../err) &&
	cat out &&
	# Nothing recorded: every step to do, timed by the figures of the README, said up front.
	sed -n 1p out >first &&
	test_grep -E "^run: 1 branch, 2 cells \(5 steps to do, 0 up to date\); about ([0-9]+h)?[0-9]+[ms] left \(first run: README.s figures\)$" first &&
	test_grep "^t: import: imported v1.0-mk of .* as " out &&
	test_grep "^t: apply: $(kit_ref kit t) -> .* (5 commits" out &&
	test_grep "^t base: build: built in" out &&
	test_grep "^t base: test: booted (tcg, instruction-paced, 2 boots) 3 ok, 0 skip, 0 fail" out &&
	test_grep "^t kit: test: booted (tcg, instruction-paced, 2 boots) 3 ok" out &&
	test_grep "^alpha  *applied" out &&
	test_grep "^t kit   ok     ok     ok tcg  3 ok   none    no change" out &&
	test_grep "tcg: instruction-paced time (TCG icount: instructions at a 1 GHz virtual clock" out &&
	test_grep "^2 cells: 2 ok; 0 regressions, 0 improvements" out
'

test_expect_success 'mm-regress is asked for 5 samples a metric by default' '
	test_grep "mm_regress=--repeat,5" work/t/logs/kit-console.log &&
	test_grep "^# sample: perf_loop us_per_iteration 5/5 " work/t/logs/kit-console.log &&
	test_grep "realloc.calls_per_sec" out
'

test_expect_success 'a rerun with nothing changed is up to date at every step, and runs nothing' '
	cp -R work/t/logs logs.before &&
	# A make or a QEMU that ran would fail the run: neither runs.
	(cd kit && FAKE_QEMU_ABORT=1 FAKE_BREAK_KIT=1 \
		mkseries run --branch t --workdir ../work >../out) &&
	diff -r logs.before work/t/logs &&
	test_grep "^t: import: up to date" out &&
	test_grep "^t: apply: up to date" out &&
	test_grep "^t base: build: up to date" out &&
	test_grep "^t base: test: up to date (3 passed)" out &&
	test_grep "^t kit: build: up to date" out &&
	test_grep "^t kit: test: up to date (3 passed)" out &&
	test $(grep -c ": up to date" out) = 6 &&
	test_grep "^2 cells: 2 ok" out &&
	test_grep "^run: 1 branch, 2 cells (0 steps to do, 5 up to date)$" out
'

test_expect_success 'with MKSERIES_LOCK_TIMEOUT=0, run will not start a branch while another mkseries holds its repository' '
	while_locked mkseries run --branch t --workdir ../work-locked &&
	cat out err &&
	echo 1 >code.expect &&
	test_cmp code.expect code &&
	test_grep "cannot lock the kernel repository: .*$(mk_repo linux)/. is locked by another mkseries (pid .*)" out &&
	test_grep ! "^t base: build:" out
'

test_expect_success 'by default, run waits for the mkseries that holds the repository, then runs' '
	rm -f holding &&
	flock $(mk_repo linux)/mkseries.lock sh -c "printf \"4242\\nmkseries backport --branch t\\n\" \
		>$(mk_repo linux)/mkseries.lock; touch holding; sleep 2" &
	while ! test -e holding; do sleep 0.1; done &&
	(cd kit && MKSERIES_LOCK_TIMEOUT= mkseries run --branch t --workdir ../work-waits >../out 2>../err) &&
	wait &&
	test_grep "^waiting for another mkseries (pid 4242: mkseries backport --branch t) to finish with " err &&
	test_grep "^t kit: test: " out
'

test_expect_success 'run holds the repository lock for import and apply, not while it builds' '
	(cd kit && FAKE_LOCK_PROBE="$(mk_repo ../linux)/mkseries.lock" \
		mkseries run --branch t --workdir ../work-probe >../out 2>../err) &&
	test_grep "^t: apply: " out &&
	test_grep "^t base: build: built" out &&
	test_grep "^t kit: build: built" out &&
	test_grep "mkseries.lock: free" work-probe/t/logs/base-build.log &&
	test_grep "mkseries.lock: free" work-probe/t/logs/kit-build.log
'

test_expect_success 'another --repeat redoes the tests only' '
	(cd kit && mkseries run --branch t --workdir ../work --repeat 3 >../out) &&
	test_grep "^t kit: build: up to date" out &&
	test_grep "^t kit: test: booted" out &&
	test_grep "^# sample: perf_loop us_per_iteration 3/3 " work/t/logs/kit-console.log &&
	(cd kit && mkseries run --branch t --workdir ../work --repeat 3 >../out) &&
	test $(grep -c ": up to date" out) = 6
'

test_expect_success '--force=build redoes the builds and the tests, not import and apply' '
	(cd kit && mkseries run --branch t --workdir ../work --force=build >../out) &&
	# Each step to do ran before: the estimate is what they took then.
	test_grep -E "^run: 1 branch, 2 cells \(4 steps to do, 1 up to date\); about [0-9]+s left by the last run.s times$" out &&
	test_grep "^t: import: up to date" out &&
	test_grep "^t: apply: up to date" out &&
	test_grep "^t base: build: built" out &&
	test_grep "^t kit: build: built" out &&
	test_grep "^t kit: test: booted" out
'

test_expect_success '--force redoes every step' '
	(cd kit && mkseries run --branch t --workdir ../work --force >../out) &&
	test_grep "^t: import: imported v1.0-mk of" out &&
	test_grep "^t: apply: $(kit_ref kit t) up to date at [0-9a-f]* (5 commits" out &&
	test_grep ! ": up to date" out
'

test_expect_success '--force=apply redoes apply and the kit cell, not base: base does not depend on apply' '
	(cd kit && FAKE_QEMU_SLEEP=1 mkseries run --branch t --workdir ../work --force=apply \
		--progress=always >../out 2>../err) &&
	test_grep "^run: 1 branch, 2 cells (3 steps to do, 2 up to date)" out &&
	test_grep "^t: apply: again: forced$" out &&
	test_grep "^t base: build: up to date" out &&
	test_grep "^t base: test: up to date" out &&
	test_grep "^t kit: build: again: forced$" out &&
	test_grep "^t kit: build: built" out &&
	test_grep "^t kit: test: booted" out &&
	# Which boot of how many, while each boots.
	test_grep "t kit: boot 1/2: " err &&
	test_grep "t kit: boot 2/2: " err &&
	test_grep ! "t base: b" err
'

test_expect_success 'a step with no time recorded is estimated by README.s figures, and said so' '
	rm work/t/state/kit.test &&
	(cd kit && mkseries run --branch t --workdir ../work --force=test >../out) &&
	test_grep -E "^run: 1 branch, 2 cells \(2 steps to do, 3 up to date\); about [0-9hms]+ left \(1 step by the last run.s times, 1 by README.s figures\)$" out
'

# line_of PATTERN FILE: the number of the first line of FILE that matches PATTERN (grep -E).
line_of() {
	grep -n -E "$1" "$2" | sed -n "1s/:.*//p"
}

test_expect_success 'the reason for a rerun comes before the work it explains' '
	(cd kit && FAKE_QEMU_SLEEP=2 FAKE_MAKE_SLEEP=2 MKSERIES_PROGRESS_INTERVAL=1 \
		mkseries run --branch t --workdir ../work --force=build >../both 2>&1) &&
	cat both &&
	why=$(line_of "^t base: build: again: forced$" both) &&
	work=$(line_of "t base: building [0-9]" both) &&
	test -n "$why" && test -n "$work" && test "$why" -lt "$work" &&
	why=$(line_of "^t kit: test: again: " both) &&
	work=$(line_of "t kit: boot 1/2: " both) &&
	test -n "$why" && test -n "$work" && test "$why" -lt "$work" &&
	# The cell lines count the whole run: its time so far and what is left.
	test_grep -E "^\[cell 2/2, [0-9]+s in, about [0-9hms]+ left\] t kit: boot 2/2: " both
'

test_expect_success 'a rebuild that makes the same image keeps its test' '
	rm work/t/out-base/arch/x86/boot/bzImage &&
	sleep 1 &&
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t base: build: built" out &&
	test_grep "^t base: test: up to date" out &&
	test_grep "^t base  -      ok     ok tcg  3 ok" out
'

test_expect_success 'a new compiler makes build and run alike build again' '
	write_new_gcc newcc &&
	(cd kit && mkseries build --branch t --variant base --workdir ../work >../out 2>&1) &&
	test_grep "^t base: up to date" out &&
	(cd kit && PATH="$TRASH_DIRECTORY/newcc:$PATH" &&
	 mkseries build --branch t --variant base --workdir ../work >../out 2>&1) &&
	test_grep "^t base: built in" out &&
	(cd kit && PATH="$TRASH_DIRECTORY/newcc:$PATH" &&
	 mkseries run --branch t --workdir ../work >../out 2>&1) &&
	test_grep "^t kit: build: built" out &&
	(cd kit && PATH="$TRASH_DIRECTORY/newcc:$PATH" &&
	 mkseries run --branch t --workdir ../work >../out 2>&1) &&
	test_grep "^t base: build: up to date" out &&
	test_grep "^t kit: build: up to date" out &&
	(cd kit && mkseries build --branch t --variant kit --workdir ../work >../out 2>&1) &&
	test_grep "^t kit: built in" out &&
	(cd kit && mkseries run --branch t --workdir ../work >../out 2>&1) &&
	test_grep "^t base: build: built" out
'

test_expect_success 'a regression beyond the noise in instruction-paced time fails the run' '
	(cd kit && FAKE_QEMU_SLOWER=1 test_expect_code 1 mkseries run --branch t --workdir ../work \
		--force=test >../out) &&
	test_grep "^t kit .*+29.8% perf_loop.us_per_iteration (worse)" out &&
	test_grep "+29.8% .*perf_loop.us_per_iteration (us)  (worse)$" out &&
	test_grep "steady.ns_per_op (ns)$" out &&
	test_grep "^2 cells: 2 ok; 1 regression, 0 improvements" out
'

test_expect_success 'the same regression on the host clock (tcg-clock: host) is emulated and fails nothing' '
	sed -i "s/^  accel: tcg$/  accel: tcg\n  tcg-clock: host/" kit/kernels/t.yaml &&
	(cd kit && FAKE_QEMU_SLOWER=1 mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t kit: test: booted (tcg, host clock, 2 boots)" out &&
	test_grep "^t kit .*+29.8% perf_loop.us_per_iteration (worse)" out &&
	test_grep "^2 cells: 2 ok; 1 regression, 0 improvements (1 of the regressions in emulated time, TCG on host time: not a failure)" out &&
	sed -i "/^  tcg-clock: host$/d" kit/kernels/t.yaml &&
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t kit: test: booted (tcg, instruction-paced, 2 boots)" out
'

test_expect_success 'a failing case is recorded with its evidence' '
	(cd kit && FAKE_QEMU_FAIL=1 test_must_fail mkseries run --branch t --workdir ../work \
		--force=test >../out) &&
	test_grep "^t kit: test: FAILED (tcg, instruction-paced) 1 case failed: steady" out &&
	test_grep "^  t kit: tests: not ok 3 steady: steady: pattern mismatch at offset 4096" out &&
	test_grep "^t base: test: booted" out &&
	(cd kit && test_must_fail mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t kit: test: up to date (FAILED 1 case failed: steady)" out
'

test_expect_success 'a compiler error is recorded with its line, and stays until forced' '
	(cd kit && FAKE_BREAK_KIT=1 test_must_fail mkseries run --branch t --workdir ../work \
		--force=build >../out) &&
	test_grep "^t kit: build: FAILED mm/mremap.c:5:9: error: .batch. redeclared" out &&
	test_grep "^t base: test: booted" out &&
	test_grep "^  t kit: build: mm/mremap.c:5:9: error:" out &&
	(cd kit && test_must_fail mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t kit: build: up to date (FAILED mm/mremap.c:5:9: error:" out &&
	(cd kit && mkseries run --branch t --workdir ../work --force=build >../out) &&
	test_grep "^t kit: test: booted" out
'

test_expect_success 'a tree that does not build fails its cells; the run goes on with the next branch' '
	(cd kit && test_must_fail mkseries run --all --workdir ../work >../out) &&
	test_grep "^plain base: build: FAILED make tinyconfig failed" out &&
	test_grep "^plain kit: build: FAILED make tinyconfig failed" out &&
	test_grep "^t kit: test: up to date" out &&
	test_grep "^plain base .* FAILED" out &&
	test_grep "^4 cells: 2 ok, 2 failed" out
'

test_expect_success 'an import that fails is recorded; the other branches go on' '
	kernel_yaml kit gone v9.9 &&
	echo "default: false" >>kit/kernels/gone.yaml &&
	(cd kit && test_must_fail mkseries run --branch gone --workdir ../work >../out 2>../err) &&
	test_grep "^gone: import: FAILED cannot import git v9.9 of .*/linux: branch .gone.: no commit .v9.9. in" out &&
	test_grep "no commit .v9.9." err &&
	test_grep "^  gone: import: cannot import git v9.9 of .*/linux: branch .gone.: no commit .v9.9." out &&
	test_grep "^gone kit   -      -" out &&
	test_grep "1 branch failed to import or apply" out &&
	rm kit/kernels/gone.yaml
'

test_expect_success 'a conflict makes the kit cells conflict; base still runs' '
	(cd kit && test_must_fail mkseries run --branch c --workdir ../work >../out) &&
	test_grep "^c: apply: CONFLICT: nothing applied; .$(kit_ref kit c). not created$" out &&
	test_grep "^cannot apply .alpha 1/2." out &&
	test_grep "^c base: test: booted" out &&
	test_grep "^c kit: skipped: the kit did not apply" out &&
	test_grep "^alpha  *conflict" out &&
	test_grep "^beta  *blocked" out &&
	test_grep "^c kit   conflict" out &&
	test_grep "^2 cells: 1 ok, 1 conflict" out &&
	(cd kit && test_must_fail mkseries run --branch c --workdir ../work >../out) &&
	test_grep "^c: apply: up to date (conflict: cannot apply .alpha 1/2." out
'

test_expect_success 'a hostile subject in the conflict reaches the step lines escaped' '
	cp -r kit kit-evil &&
	sed -i "/^        subject: \"mm: rename ptes\"$/d" kit-evil/series.yaml &&
	sed -i "s/^Subject: .*/Subject: [PATCH] =?UTF-8?q?mm:=20evil=1B[2K=0Dmm:=20innocent?=/" \
		kit-evil/patches/alpha/0001-mm-rename-ptes.patch &&
	(cd kit-evil && test_must_fail mkseries run --branch c --workdir ../work-evil >../out 2>../err) &&
	cat out err &&
	test_grep "^c: apply: CONFLICT" out &&
	test_grep -F "alpha 1/2" out &&
	test_grep -F "mm: evil\\x1b[2K mm: innocent" out &&
	! grep -q "$(printf "\033")" out err
'

test_expect_success 'SIGINT during a build: the rerun resumes, nothing half-done counts' '
	# A background job ignores SIGINT unless told otherwise; a terminal would not.
	FAKE_MAKE_SLEEP=10 env --default-signal=INT mkseries --kit kit run --branch t --workdir w2 \
		>int.out 2>&1 &
	pid=$! &&
	wait_for w2/t/state/base.build status=running &&
	kill -INT $pid &&
	{ wait $pid; code=$?; } &&
	test $code = 130 &&
	test_grep "^status=running$" w2/t/state/base.build &&
	(cd kit && test_must_fail mkseries report --branch t --workdir ../w2 >../rep) &&
	test_grep "^  t base: build: interrupted" rep &&
	(cd kit && mkseries run --branch t --workdir ../w2 >../out) &&
	test_grep "^t: import: up to date" out &&
	test_grep "^t: apply: up to date" out &&
	test_grep "^t base: build: built" out &&
	test_grep "^2 cells: 2 ok" out &&
	(cd kit && mkseries run --branch t --workdir ../w2 >../out) &&
	test $(grep -c ": up to date" out) = 6
'

test_expect_success 'SIGKILL during a build: the rerun builds again' '
	FAKE_MAKE_SLEEP=10 mkseries --kit kit run --branch t --workdir w3 >kill.out 2>&1 &
	pid=$! &&
	wait_for w3/t/state/base.build status=running &&
	# "running" is written before the tree is; make starts after that.
	n=0 &&
	while ! child=$(child_of $pid); do
		n=$((n + 1)) && test $n -lt 100 && sleep 0.1 || return 1
	done &&
	kill -KILL $pid &&
	kill -KILL -$child &&
	{ wait $pid; code=$?; } &&
	test $code = 137 &&
	test_grep "^status=running$" w3/t/state/base.build &&
	(cd kit && mkseries run --branch t --workdir ../w3 >../out) &&
	test_grep "^t base: build: built" out &&
	test_grep "^t base: test: booted" out &&
	test_grep "^2 cells: 2 ok" out
'

test_expect_success 'SIGKILL during a boot: the rerun boots again, the build stays' '
	FAKE_QEMU_SLEEP=10 mkseries --kit kit run --branch t --workdir w4 >kill.out 2>&1 &
	pid=$! &&
	wait_for w4/t/logs/base-console.log "Linux version" &&
	child=$(child_of $pid) &&
	kill -KILL $pid &&
	kill -KILL -$child &&
	{ wait $pid; code=$?; } &&
	test $code = 137 &&
	test_grep "^status=ok$" w4/t/state/base.build &&
	test ! -e w4/t/state/base.test &&
	(cd kit && mkseries run --branch t --workdir ../w4 >../out) &&
	test_grep "^t base: build: up to date" out &&
	test_grep "^t base: test: booted" out
'

test_expect_success 'a guest that never started is not a result: the next run boots again' '
	(cd kit && FAKE_QEMU_ABORT=1 test_must_fail mkseries run --branch t --workdir ../work \
		--force=test >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: test: FAILED (tcg, instruction-paced) mm-regress never started: QEMU exited with status 134" out &&
	test_grep "^started=0$" work/t/state/base.test &&
	(cd kit && mkseries run --branch t --workdir ../work >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: test: booted (tcg, instruction-paced, 2 boots) 3 ok" out &&
	test_grep "^t kit: test: booted" out &&
	test_grep "^started=1$" work/t/state/base.test &&
	(cd kit && mkseries run --branch t --workdir ../work >../out 2>../err) &&
	test_grep "^t base: test: up to date" out
'

test_expect_success 'a kit that applies nothing reuses the build and test of base, and says so' '
	mkdir -p kit0/kernels &&
	printf "series: []\n" >kit0/series.yaml &&
	sed "s|^name: t|name: done|" kit/kernels/t.yaml >kit0/kernels/done.yaml &&
	(cd kit0 && mkseries run --branch done --workdir ../work >../out 2>../err)
	code=$? &&
	cat out err &&
	test $code = 0 &&
	test_grep "^done base: test: booted" out &&
	test_grep "^done kit: build: same tree as base ([0-9a-f]*): base.s build reused$" out &&
	test_grep "^done kit: test: same tree as base: base.s results reused (3 passed)$" out &&
	test_grep ! "^done kit: build: built" out &&
	! test -e work/done/out-kit &&
	test_grep "^reused=base$" work/done/state/kit.test &&
	test_grep "^key=" work/done/state/kit.test &&
	ls work/done/state >actual &&
	printf "%s\n" base.build base.test kit.build kit.test run.apply run.import >expect &&
	test_cmp expect actual &&
	(cd kit0 && mkseries run --branch done --workdir ../work >../out 2>../err) &&
	cat out &&
	test_grep "^done base: test: up to date" out &&
	test_grep "^done kit: test: same tree as base" out
'

test_expect_success 'a series with some patches present and the rest skipped is partial, with counts' '
	mkdir -p kitp/kernels kitp/patches &&
	cp kit/patches/alpha/0001-mm-rename-ptes.patch kit/patches/alpha/0002-mm-batch-ptes.patch kitp/patches/ &&
	sed "s|^name: t|name: done|" kit/kernels/t.yaml >kitp/kernels/done.yaml &&
	cat >kitp/series.yaml <<-EOF &&
	series:
	  - id: part
	    title: "half of it"
	    claims:
	      - { metric: perf_loop.us_per_iteration, below: 1 }
	    patches:
	      - file: patches/0001-mm-rename-ptes.patch
	        branches:
	          done: { present: "the rename is in the tree already" }
	      - file: patches/0002-mm-batch-ptes.patch
	    branches:
	      done: { skip: "no batching in this tree" }
	EOF
	(cd kitp && mkseries run --branch done --workdir ../workp --format json --output ../p.json >../out 2>../err)
	code=$? &&
	cat out err &&
	test $code = 0 &&
	(cd kitp && mkseries report --branch done --workdir ../workp >../report.txt) &&
	cat report.txt &&
	test_grep "^part  *partial" report.txt &&
	test_grep ! "did not hold" report.txt &&
	python3 -c "
import json, sys
r = json.load(open(\"p.json\"))
s = [s for s in r[\"branches\"][0][\"series\"] if s[\"id\"] == \"part\"][0]
print(s)
sys.exit(not (s[\"state\"] == \"partial\" and s[\"detail\"].startswith(\"1 present, 1 skipped\")))
"
'

test_expect_success 'one cell of a fanned-out run: --variant, a JSON report to a file' '
	(cd kit && mkseries run --branch t --variant kit --workdir ../work --format json \
		--output ../kit.json >../out) &&
	test_grep "^report: ../kit.json" out &&
	test_grep ! "^t base:" out &&
	python3 -m json.tool kit.json >/dev/null &&
	test_grep "\"variant\": \"kit\"" kit.json &&
	test_grep ! "\"variant\": \"base\"" kit.json
'

test_expect_success 'a JSON report on stdout keeps the step lines on stderr' '
	(cd kit && mkseries run --branch t --workdir ../work --format json >../out.json 2>../err) &&
	test_grep "^t kit: test: up to date" err &&
	head -1 out.json >first &&
	echo "{" >first.expect &&
	test_cmp first.expect first
'


test_expect_success 'setup: variants of t; a QEMU whose kernel without the fix fails steady' '
	cp -r kit kitv &&
	rm kitv/kernels/c.yaml kitv/kernels/plain.yaml &&
	add_variants kitv t &&
	sed -i "s|qemu: .*|qemu: $TRASH_DIRECTORY/fake-qemu-v|" kitv/kernels/t.yaml &&
	write_variant_qemu fake-qemu-v
'

test_expect_success 'run applies, builds and tests the variants; the expected failure is an XFAIL' '
	(cd kitv && mkseries run --branch t --workdir ../wv >../out 2>../err) &&
	cat out err &&
	test_grep "^t: apply: $(kit_ref kitv t) -> .* (5 commits" out &&
	test_grep "^t no-fix: apply: $(kit_ref kitv t no-fix) -> [0-9a-f]* (3 commits, 2 shared with the kit, 0 squashed; without $(short $F1))$" out &&
	test_grep "^t no-beta: apply: $(kit_ref kitv t no-beta) -> [0-9a-f]* (4 commits, 4 shared with the kit, 0 squashed; without $(short $B1))$" out &&
	test_grep "^t no-fix: build: built in" out &&
	test_grep "^t no-fix: test: booted (tcg, instruction-paced, 2 boots) 2 ok, 0 skip, 0 fail, 1 xfail in" out &&
	test_grep "^    XFAIL steady failed as expected: shows $(short $F1) matters$" out &&
	test_grep "^t no-beta: test: booted (tcg, instruction-paced, 2 boots) 3 ok, 0 skip, 0 fail in" out &&
	test_grep "^t no-fix   ok     ok     ok tcg  2 ok, 1 xfail  none    -30.0% realloc.calls_per_sec (worse)$" out &&
	test_grep "^t no-beta  ok     ok     ok tcg  3 ok           none    no change$" out &&
	test_grep "^expected failures:$" out &&
	test_grep "^  t no-fix: steady failed as expected: shows $(short $F1) matters$" out &&
	test_grep "^t: kit, no-fix, no-beta against base, " out &&
	test_grep "^  *1001 ±  0%  *+0.0%  *1001 ±  0%  *-30.0%  *700 ±  0%  *+0.0%  *1001 ±  0%  realloc.calls_per_sec (calls/s)  (no-fix worse)$" out &&
	test_grep "^4 cells: 4 ok; 0 regressions, 0 improvements (variants: 1 worse, 0 better); 1 expected failure$" out
'

test_expect_success 'a rerun is up to date at every step, the variants included' '
	(cd kitv && mkseries run --branch t --workdir ../wv >../out) &&
	cat out &&
	test_grep "^t no-fix: apply: up to date ($(kit_ref kitv t no-fix) at " out &&
	test_grep "^t no-fix: test: up to date (2 passed, 1 xfail)" out &&
	test $(grep -c ": up to date" out) = 12
'

test_expect_success 'a change to what a variant expects redoes its test only' '
	sed -i "s/expect-fail: \[steady\]/expect-fail: [steady, realloc]/" kitv/kernels/t.yaml &&
	(cd kitv && test_must_fail mkseries run --branch t --workdir ../wv >../out) &&
	cat out &&
	test_grep "^t no-fix: build: up to date" out &&
	test_grep "^t no-fix: test: FAILED (tcg, instruction-paced) unexpected pass: realloc was expected to fail without $(short $F1) (the demonstration did not work)$" out &&
	test_grep "^t no-beta: test: up to date" out &&
	sed -i "s/expect-fail: \[steady, realloc\]/expect-fail: [steady]/" kitv/kernels/t.yaml
'

test_expect_success 'an expected failure that passes fails the cell and the run' '
	(cd kitv && FAKE_QEMU_FIXED=1 test_must_fail mkseries run --branch t --workdir ../wv \
		--force=test >../out) &&
	cat out &&
	test_grep "^t no-fix: test: FAILED (tcg, instruction-paced) unexpected pass: steady was expected to fail without $(short $F1) (the demonstration did not work)$" out &&
	test_grep "^  t no-fix: tests: unexpected pass: steady was expected to fail" out &&
	test_grep "^t no-fix   ok     ok     ok tcg  FAILED " out &&
	test_grep "^4 cells: 3 ok, 1 failed" out &&
	(cd kitv && mkseries run --branch t --workdir ../wv --force=test >../out) &&
	test_grep "^4 cells: 4 ok" out
'

test_expect_success 'one variant of a fanned-out run: --variant NAME' '
	(cd kitv && mkseries run --branch t --variant no-fix --workdir ../wv2 --format json \
		--output ../no-fix.json >../out) &&
	cat out &&
	test_grep "^t: apply: $(kit_ref kitv t)" out &&
	test_grep "^t no-beta: apply: " out &&
	test_grep ! "^t base: build" out &&
	test_grep ! "^t no-beta: build" out &&
	test_grep "^t no-fix: test: booted" out &&
	jq -r ".branches[0].cells[].variant" no-fix.json >cells &&
	echo no-fix >cells.expect &&
	test_cmp cells.expect cells &&
	jq -r ".branches[0].cells[0] | [.xfail, .without, (.expect_fail | join(\",\")), .checks.tests.evidence] | join(\" \")" \
		no-fix.json >cell &&
	echo "1 $(short $F1) steady steady failed as expected: shows $(short $F1) matters" >cell.expect &&
	test_cmp cell.expect cell &&
	(cd kitv && test_expect_code 2 mkseries run --branch t --variant no-such 2>../err) &&
	test_grep "unknown variant .no-such. (known: base, kit, no-fix, no-beta)" err
'

test_expect_success 'usage and configuration errors exit 2' '
	(cd kit &&
	 test_expect_code 2 mkseries run --branch t --force=boot 2>../err &&
	 test_grep "unknown step .boot. for --force" ../err &&
	 test_expect_code 2 mkseries run --branch t --force build 2>../err &&
	 test_grep "unexpected argument .build. (a step to force is given as --force=STEP)" ../err &&
	 test_expect_code 2 mkseries run --branch t --format xml 2>../err &&
	 test_grep "unknown report format .xml." ../err &&
	 test_expect_code 2 mkseries run --branch t --quick --full 2>../err &&
	 test_grep "cannot be used together" ../err &&
	 test_expect_code 2 mkseries run --branch t --repeat 0 2>../err &&
	 test_grep "repeat must be between 1 and 1000" ../err &&
	 test_expect_code 2 mkseries run --branch t --variant tip 2>../err &&
	 test_grep "unknown variant .tip." ../err &&
	 test_expect_code 2 mkseries run --branch t --accel hvf 2>../err &&
	 test_grep "unknown accelerator .hvf." ../err &&
	 test_expect_code 2 mkseries run --branch t --boots 101 2>../err &&
	 test_grep "boots must be between 1 and 100, not 101" ../err &&
	 test_expect_code 2 mkseries run --branch nope 2>../err &&
	 test_expect_code 2 mkseries run 2>../err)
'

test_done

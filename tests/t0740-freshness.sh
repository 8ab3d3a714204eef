#!/bin/sh
# t0740-freshness.sh: mkseries run redoes exactly the steps whose inputs changed: the console,
# QEMU (its version, its binary), a boot setting, the compiler, mkseries itself; and says which.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# run_t: mkseries run of branch t into out (the binary is $MKS, else mkseries on PATH).
run_t() {
	(cd kit && ${MKS:-mkseries} run --branch t --workdir ../work >../out 2>&1)
}

# steps_rerun: the steps of out that ran, one "cell step" a line, sorted.
steps_rerun() {
	sed -n -e "/: up to date/d" -e "/: again: /d" \
	    -e "s/^t: \(import\|apply\): .*/t \1/p" \
	    -e "s/^t \([a-z]*\): \(build\|test\): .*/\1 \2/p" out | sort
}

# reasons: why the steps of out ran again, one "cell step: why" a line, sorted.
reasons() {
	sed -n -e "s/^t: \(apply\): again: /t \1: /p" \
	    -e "s/^t \([a-z]*\): \(build\|test\): again: /\1 \2: /p" out | sort
}

# expect_rerun STEPS: a run redoes exactly STEPS ("cell step" lines, sorted,
# as steps_rerun prints them), and the run after it is up to date throughout.
# Why each ran again is left in the file again, as reasons prints it.
expect_rerun() {
	run_t &&
	reasons >again &&
	steps_rerun >actual &&
	printf "%s\n" "$@" >expect &&
	test_cmp expect actual &&
	run_t &&
	test $(grep -c ": up to date" out) = 6
}

test_expect_success 'setup: a kit run once, then up to date at every step' '
	setup_fake_run kit &&
	run_t &&
	test_grep "^t kit: test: booted" out &&
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	steps_rerun >actual &&
	test_must_be_empty actual
'

test_expect_success 'another console in the kernels file redoes the tests only, with that console' '
	kernel_yaml kit t v1.0-mk "  console: ttyS1" &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: argv, console changed" "kit test: argv, console changed" >expect &&
	test_cmp expect again &&
	test_grep "console=ttyS1 panic=-1" work/t/logs/kit-console.log
'

test_expect_success 'a QEMU whose --version differs, at the same path, redoes the tests only' '
	sed -i "s/7\.2\.99 (fake)/7.2.100 (fake)/" fake-qemu &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: qemu-version, qemu-binary changed" \
		"kit test: qemu-version, qemu-binary changed" >expect &&
	test_cmp expect again
'

test_expect_success 'another boot setting that is no QEMU option (boot-timeout) redoes the tests only' '
	kernel_yaml kit t v1.0-mk "  console: ttyS1
  boot-timeout: 200" &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: timeouts changed" "kit test: timeouts changed" >expect &&
	test_cmp expect again
'

test_expect_success 'another QEMU binary of the same version redoes the tests only' '
	cp fake-qemu fake-qemu2 &&
	sed -i "s|qemu: .*/fake-qemu\$|qemu: $TRASH_DIRECTORY/fake-qemu2|" kit/kernels/t.yaml &&
	test_grep "fake-qemu2" kit/kernels/t.yaml &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: argv, qemu changed" "kit test: argv, qemu changed" >expect &&
	test_cmp expect again
'

test_expect_success 'another build of mkseries redoes apply only, and so does going back' '
	mkdir bin2 &&
	cp "$MKSERIES_BIN" bin2/mkseries &&
	printf "\0another build\n" >>bin2/mkseries &&
	(MKS="$TRASH_DIRECTORY/bin2/mkseries" && expect_rerun "t apply") &&
	echo "t apply: mkseries changed" >expect &&
	test_cmp expect again &&
	expect_rerun "t apply" &&
	echo "t apply: mkseries changed" >expect &&
	test_cmp expect again
'

test_expect_success 'another compiler redoes the builds only: the same image keeps its tests' '
	write_new_gcc newcc &&
	(PATH="$TRASH_DIRECTORY/newcc:$PATH" && expect_rerun "base build" "kit build") &&
	printf "%s\n" \
		"base build: inputs changed: the build tools (compiler, make, ccache)" \
		"kit build: inputs changed: the build tools (compiler, make, ccache)" >expect &&
	test_cmp expect again
'

test_expect_success 'state from before key parts were recorded: up to date, then reruns once saying so' '
	run_t &&
	sed -i "/^key_parts=/d" work/t/state/base.test work/t/state/kit.test &&
	test_grep ! "^key_parts=" work/t/state/kit.test &&
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	sed -i "s/console: ttyS1/console: ttyS3/" kit/kernels/t.yaml &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: its inputs changed" "kit test: its inputs changed" >expect &&
	test_cmp expect again &&
	test_grep "^key_parts=.*console:" work/t/state/kit.test
'

test_expect_success 'one state file per step: import, apply, and per cell its build and its test' '
	run_t &&
	ls work/t/state >actual &&
	printf "%s\n" base.build base.test kit.build kit.test run.apply run.import >expect &&
	test_cmp expect actual &&
	test_grep "^key=[0-9a-f]\{40\}$" work/t/state/kit.build &&
	test_grep "^bzimage=.*/out-kit/" work/t/state/kit.build &&
	test_grep "^key=[0-9a-f]\{40\}$" work/t/state/kit.test &&
	test_grep "^console=.*/logs/kit-console.log$" work/t/state/kit.test &&
	for f in work/t/state/*; do
		test_grep "^format=2$" "$f" || return 1
	done
'

test_expect_success 'mkseries build or test alone, then mkseries run: the run takes them as they are' '
	(cd kit && mkseries build --branch t --variant base --workdir ../work2 >../out 2>&1) &&
	test_grep "^t base: built in" out &&
	cp work2/t/state/base.build base.build.before &&
	(cd kit && mkseries run --branch t --workdir ../work2 >../out 2>&1) &&
	test_grep "^t base: build: up to date (.*/work2/t/out-base/arch/x86/boot/bzImage)$" out &&
	test_grep "^t kit: build: built in" out &&
	test_grep "^t base: test: booted" out &&
	test_cmp base.build.before work2/t/state/base.build &&
	(cd kit && mkseries build --branch t --workdir ../work2 >../out 2>&1) &&
	printf "%s\n" "t base: up to date" "t kit: up to date" >expect &&
	sed "s/ (.*//" out >actual &&
	test_cmp expect actual &&
	(cd kit && mkseries test --branch t --variant base --workdir ../work2 >../out 2>&1) &&
	test_grep "^status=ok$" work2/t/state/base.test &&
	test_grep "^key=" work2/t/state/base.test &&
	cp work2/t/state/base.test base.test.before &&
	(cd kit && mkseries run --branch t --workdir ../work2 >../out 2>&1) &&
	test_grep "^t base: test: up to date (3 passed)$" out &&
	test_grep ! "booted" out &&
	test_cmp base.test.before work2/t/state/base.test
'

test_expect_success 'mkseries apply alone, then mkseries run: the run applies nothing' '
	(cd kit && mkseries apply --branch t --workdir ../work3 >../out 2>&1) &&
	test_grep "^t: $(kit_ref kit t) [-u]" out &&
	test_grep "^status=ok$" work3/t/state/run.apply &&
	test_grep "^key=" work3/t/state/run.apply &&
	cp work3/t/state/run.apply apply.before &&
	(cd kit && mkseries run --branch t --workdir ../work3 >../out 2>&1) &&
	test_grep "^t: apply: up to date ($(kit_ref kit t) at [0-9a-f]*)$" out &&
	test_grep ! "^t: apply: again" out &&
	test_cmp apply.before work3/t/state/run.apply &&
	(cd kit && mkseries apply --branch t --workdir ../work3 >../out 2>&1) &&
	test_grep "^t: $(kit_ref kit t) up to date at " out &&
	(cd kit && mkseries run --branch t --workdir ../work3 >../out 2>&1) &&
	test_grep "^t: apply: up to date" out
'

# to_old_format DIR: rewrite DIR/state as versions before one record per step
# kept it (format 1, no format key): the module's file (<variant>.<step>, with "finished") and the run's
# (run.<variant>.<step>: key, key parts, outcome, what the test ran). A step
# that still has its two files is left as it is.
to_old_format() {
	for f in base.build kit.build base.test kit.test; do
		test -e "$1/state/run.$f" && continue
		at=$(sed -n "s/^at=//p" "$1/state/$f") &&
		test -n "$at" &&
		grep -E "^(key|key_parts|status|bzimage_hash|repeat|started)=" "$1/state/$f" \
			>"$1/state/run.$f" &&
		echo "finished=$at" >>"$1/state/run.$f" &&
		sed -i -E -e "/^(key|key_parts|at|bzimage_hash|repeat|format)=/d" "$1/state/$f" &&
		echo "finished=$at" >>"$1/state/$f" || return 1
	done
}

test_expect_success 'a work directory of an earlier version (two files a step) is not redone' '
	run_t &&
	to_old_format work/t &&
	test_grep ! "^key=" work/t/state/kit.build &&
	test_grep "^key=" work/t/state/run.kit.build &&
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	(cd kit && mkseries report --branch t --workdir ../work >../rep 2>&1) &&
	test_grep "^2 cells: 2 ok" rep &&
	sed -i "s/console: ttyS3/console: ttyS1/" kit/kernels/t.yaml &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: argv, console changed" "kit test: argv, console changed" >expect &&
	test_cmp expect again &&
	ls work/t/state >actual &&
	printf "%s\n" base.build base.test kit.build kit.test run.apply run.base.build \
		run.import run.kit.build >expect &&
	test_cmp expect actual
'

test_expect_success 'old files of different work (or a run error) are stale: that step runs once' '
	run_t &&
	to_old_format work/t &&
	sed -i "s/^finished=.*/finished=1/" work/t/state/run.kit.build &&
	sed -i "s/^status=.*/status=error/" work/t/state/run.base.test &&
	run_t &&
	test_grep "^t kit: build: again: no key was recorded$" out &&
	test_grep "^t kit: build: built" out &&
	test_grep "^t base: build: up to date" out &&
	test_grep "^t base: test: again: no key was recorded$" out &&
	test_grep "^t base: test: booted" out &&
	test_grep "^t kit: test: up to date" out &&
	! test -e work/t/state/run.kit.build &&
	! test -e work/t/state/run.base.test &&
	test_grep "^key=" work/t/state/kit.build &&
	run_t &&
	test $(grep -c ": up to date" out) = 6
'

test_expect_success 'a record of a newer mkseries (format 3) is ignored, said once, and its step done again' '
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	sed -i -e "/^format=/d" -e "\$a format=3" work/t/state/kit.test &&
	test_grep "^format=3$" work/t/state/kit.test &&
	run_t &&
	test_grep "^warning: ignoring state file .*/work/t/state/kit.test.: format 3 is not one this mkseries reads (1 to 2), a newer mkseries wrote it; its step counts as not done$" out &&
	test $(grep -c "^warning: ignoring state file" out) = 1 &&
	steps_rerun >actual &&
	echo "kit test" >expect &&
	test_cmp expect actual &&
	test_grep "^format=2$" work/t/state/kit.test &&
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	test_grep ! "^warning:" out
'

test_expect_success 'modelled cycles, then another cache model (boot.tcg-cache), redo the tests only' '
	kernel_yaml kit t v1.0-mk "  console: ttyS1
  tcg-clock: modelled" &&
	expect_rerun "base test" "kit test" &&
	test_grep "^base test: .*tcg-clock changed$" again &&
	kernel_yaml kit t v1.0-mk "  console: ttyS1
  tcg-clock: modelled
  tcg-cache: \"mem_latency=1000\"" &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: argv, tcg-model changed" "kit test: argv, tcg-model changed" >expect &&
	test_cmp expect again &&
	test_grep -e "-plugin [^ ]*/tcg-cache.so,mem_latency=1000 " work/t/logs/kit-console.log
'

test_expect_success 'a relative XDG_CACHE_HOME is ignored: work directories go under HOME, as the repository' '
	(cd kit && XDG_CACHE_HOME=rel mkseries build --branch t --variant base >../out 2>&1) &&
	test_grep "^t base: built in" out &&
	test -d "$HOME/.cache/mkseries/work/$(kit_id kit)/t/out-base" &&
	! test -e kit/rel &&
	(cd kit && test_expect_code 2 env -u HOME -u XDG_CACHE_HOME \
		mkseries build --branch t --variant base >../out 2>&1) &&
	test_grep "^error: cannot tell where work directories go: neither XDG_CACHE_HOME (absolute) nor HOME is set (use --workdir DIR)$" out &&
	test $(grep -c "cannot tell where" out) = 1
'

test_done

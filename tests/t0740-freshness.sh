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
	printf "%s\n" "base test: qemu-version changed" "kit test: qemu-version changed" >expect &&
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
	printf "%s\n" "base build: inputs changed" "kit build: inputs changed" >expect &&
	test_cmp expect again
'

test_expect_success 'state from before key parts were recorded: up to date, then reruns once saying so' '
	run_t &&
	sed -i "/^key_parts=/d" work/t/state/run.base.test work/t/state/run.kit.test &&
	test_grep ! "^key_parts=" work/t/state/run.kit.test &&
	run_t &&
	test $(grep -c ": up to date" out) = 6 &&
	sed -i "s/console: ttyS1/console: ttyS3/" kit/kernels/t.yaml &&
	expect_rerun "base test" "kit test" &&
	printf "%s\n" "base test: its inputs changed" "kit test: its inputs changed" >expect &&
	test_cmp expect again &&
	test_grep "^key_parts=.*console:" work/t/state/run.kit.test
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

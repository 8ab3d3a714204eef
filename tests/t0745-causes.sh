#!/bin/sh
# t0745-causes.sh: a step that fails keeps its cause in its record, in the words the user
# saw, and report shows it in every format (text, json, junit, markdown, html).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# report_all: mkseries report of branch t in every format, into report.FORMAT;
# each exits 1, as a report with a failure does.
report_all() {
	for f in text json junit markdown html; do
		(cd kit && test_expect_code 1 mkseries report --workdir ../work --branch t \
			--format $f >../report.$f) || return 1
	done
}

# cause_everywhere TEXT: TEXT (a fixed string with no character HTML or XML
# escapes) is in the report of every format.
cause_everywhere() {
	for f in text json junit markdown html; do
		grep -F "$1" report.$f >/dev/null || {
			echo "no '$1' in the $f report:" && cat report.$f && return 1
		}
	done
}

# expect_cause LINE TEXT: out has a line matching LINE (a grep pattern), and
# the report of every format says TEXT.
expect_cause() {
	test_grep "$1" out &&
	report_all &&
	cause_everywhere "$2"
}

# The checks before the long steps (mkseries doctor) would stop most of
# these runs before any step; here the steps must meet the causes themselves.
MKSERIES_TEST_NO_PREFLIGHT=1
export MKSERIES_TEST_NO_PREFLIGHT

test_expect_success 'setup: a kit that runs' '
	setup_fake_run kit &&
	mkdir nobody
'

test_expect_success 'an apply that cannot run (no git identity) keeps why, and report shows it' '
	(cd kit && HOME="$TRASH_DIRECTORY/nobody" test_must_fail \
		mkseries run --branch t --workdir ../work >../out 2>../err) &&
	test_grep "^t: apply: FAILED apply could not run: no user.name: mkseries signs off backports in your name: git config --global user.name" out &&
	test_grep "^error: no user.name: " err &&
	test_grep "^evidence=apply could not run: no user.name: " work/t/state/run.apply &&
	report_all &&
	cause_everywhere "apply could not run: no user.name: mkseries signs off" &&
	test_grep ! "see the error" report.text
'

test_expect_success 'a build that cannot run (no cross compiler) keeps why, and report shows it' '
	kernel_yaml kit t v1.0-mk &&
	echo "cross: no-such-" >>kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries run --branch t --workdir ../work >../out 2>../err) &&
	test_grep "^t base: build: FAILED the kit.s build settings are invalid: .*t.yaml:[0-9]*: cannot build arch x86_64: no .no-such-gcc. on PATH" out &&
	test_grep "^status=error$" work/t/state/base.build &&
	test_grep "^failure=kernels/t.yaml:[0-9]*: cannot build arch x86_64: no .no-such-gcc." work/t/state/base.build &&
	report_all &&
	cause_everywhere "cannot build arch x86_64:" &&
	cause_everywhere "no-such-gcc"
'

test_expect_success 'mkseries build alone keeps that cause in the build record, and report shows it' '
	(cd kit && test_expect_code 2 mkseries build --branch t --variant base --workdir ../work \
		>../out 2>../err) &&
	test_grep "^t base: FAILED the kit.s build settings are invalid: kernels/t.yaml:[0-9]*: cannot build arch x86_64: no .no-such-gcc. on PATH" out &&
	test_grep "^status=error" work/t/state/base.build &&
	test_grep "^failure=kernels/t.yaml:[0-9]*: cannot build arch x86_64: no .no-such-gcc." work/t/state/base.build &&
	(cd kit && test_expect_code 1 mkseries test --branch t --variant base --workdir ../work \
		>../out 2>../err) &&
	expect_cause "^t base: not tested: its build failed (kernels/t.yaml:[0-9]*: cannot build arch" \
		"no-such-gcc"
'

test_expect_success 'a build that fails keeps the compiler error, and report shows it' '
	kernel_yaml kit t v1.0-mk &&
	(cd kit && FAKE_BREAK_KIT=1 test_must_fail mkseries run --branch t --workdir ../work \
		>../out 2>../err) &&
	expect_cause "^t kit: build: FAILED mm/mremap.c:5:9: error: .batch. redeclared" \
		"mm/mremap.c:5:9: error:"
'

test_expect_success 'a boot that fails (QEMU missing) keeps why, and report shows it' '
	kernel_yaml kit t v1.0-mk &&
	sed -i "s|qemu: .*|qemu: $TRASH_DIRECTORY/no-such-qemu|" kit/kernels/t.yaml &&
	(cd kit && test_must_fail mkseries run --branch t --workdir ../work >../out 2>../err) &&
	expect_cause "^t base: test: FAILED (tcg, [a-z-]*) mm-regress never started: QEMU exited with status 127 after .error: cannot run .*/no-such-qemu.: No such file" \
		"no-such-qemu"
'

test_expect_success 'a branch whose work directory is in use says so, with the lock, in its results' '
	kernel_yaml kit t v1.0-mk &&
	flock work/t/lock sh -c "cd kit && mkseries run --branch t --workdir ../work >../out 2>../err; echo \$? >../code" &&
	echo 1 >expect &&
	test_cmp expect code &&
	test_grep "^error: .*/work/t. is in use by another mkseries (lock .*/work/t/lock)" err &&
	test_grep "^  t: import: its work directory: .*/work/t. is in use by another mkseries (lock " out
'

test_done

#!/bin/sh
# t0000-lib.sh: the test harness itself: scripts that source lib.sh, their exact TAP and exit status.
. "$(dirname "$0")/lib.sh"

# run_sub_test [--shell SH] NAME: run the test script on stdin (lib.sh is
# sourced first) with SH (default sh) and the options in $SUB_ARGS; its
# stdout goes to NAME.out, its stderr to NAME.err and its exit status to
# NAME.code.
run_sub_test() {
	_sh=sh
	if [ "$1" = --shell ]; then
		_sh=$2
		shift 2
	fi
	mkdir -p sub &&
	{
		printf '#!/bin/sh\n. "%s/lib.sh"\n' "$TEST_DIRECTORY" &&
		cat
	} >"sub/$1.sh" &&
	{
		TEST_DIRECTORY="$TEST_DIRECTORY" TEST_OUTPUT_DIRECTORY="$TRASH_DIRECTORY/sub-trash" \
			$_sh "sub/$1.sh" ${SUB_ARGS:-} >"$1.out" 2>"$1.err"
		echo $? >"$1.code"
	}
}

# check_sub NAME CODE: NAME.out is the file expect, NAME exited with CODE.
check_sub() {
	test_cmp expect "$1.out" &&
	echo "$2" >code.expect &&
	test_cmp code.expect "$1.code"
}

test_expect_success 'passing bodies: ok lines, the plan, status 0' '
	run_sub_test pass <<-\EOF &&
	test_expect_success "first" "true"
	test_expect_success "second" "echo hidden output && true"
	test_done
	EOF
	cat >expect <<-\EOF &&
	ok 1 - first
	ok 2 - second
	1..2
	EOF
	check_sub pass 0
'

test_expect_success 'a failing body: not ok with its body and output, later tests still run, status 1' '
	run_sub_test fail <<-\EOF &&
	test_expect_success "fails" "
		echo shown output &&
		false
	"
	test_expect_success "still runs" "true"
	test_done
	EOF
	printf "%s\n" "not ok 1 - fails" "#  " "#  echo shown output &&" "#  false" "#  " \
		"# > shown output" "ok 2 - still runs" "1..2" "# failed 1 among 2 test(s)" >expect &&
	check_sub fail 1
'

test_expect_success 'return 0 ends the body only: ok, and the next test runs' '
	run_sub_test return0 <<-\EOF &&
	test_expect_success "returns 0 early" "
		return 0
		echo not reached >reached
		false
	"
	test_expect_success "next" "! test -f reached"
	test_done
	EOF
	cat >expect <<-\EOF &&
	ok 1 - returns 0 early
	ok 2 - next
	1..2
	EOF
	check_sub return0 0
'

test_expect_success 'return 1 ends the body: not ok, and the next test runs' '
	run_sub_test return1 <<-\EOF &&
	test_expect_success "returns 1" "true && return 1; true"
	test_expect_success "next" "true"
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok 1 - returns 1
	#  true && return 1; true
	ok 2 - next
	1..2
	# failed 1 among 2 test(s)
	EOF
	check_sub return1 1
'

test_expect_success 'return from inside a loop in a body, as t0400 does' '
	run_sub_test loop <<-\EOF &&
	test_expect_success "loop" "for i in 1 2 3; do test \$i -lt 2 || return 1; done"
	test_expect_success "after" "test \$i = 2"
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok 1 - loop
	#  for i in 1 2 3; do test $i -lt 2 || return 1; done
	ok 2 - after
	1..2
	# failed 1 among 2 test(s)
	EOF
	check_sub loop 1
'

for shell in sh bash; do
	test_expect_success "exit in a body ($shell): one not ok line, the plan, status 1" '
		run_sub_test --shell $shell exit-$shell <<-\EOF &&
		test_expect_success "before" "true"
		test_expect_success "exits" "echo last words && exit 0"
		test_expect_success "never runs" "true"
		test_done
		EOF
		cat >expect <<-\EOF &&
		ok 1 - before
		not ok 2 - exits
		# the body exited with status 0; no test runs after it
		#  echo last words && exit 0
		# > last words
		1..2
		# failed 1 among 2 test(s)
		EOF
		check_sub exit-$shell 1 &&
		test_must_be_empty exit-$shell.err
	'
done

test_expect_success 'exit 3 in a body, and a shell error in one, end the script the same way' '
	run_sub_test exit3 <<-\EOF &&
	test_expect_success "exits 3" "exit 3"
	test_done
	EOF
	cat >expect <<-\EOF &&
	not ok 1 - exits 3
	# the body exited with status 3; no test runs after it
	#  exit 3
	1..1
	# failed 1 among 1 test(s)
	EOF
	check_sub exit3 1 &&
	run_sub_test unset <<-\EOF &&
	test_expect_success "unset variable" "echo \$no_such_variable"
	test_done
	EOF
	sed -n 1,2p unset.out >out &&
	printf "%s\n" "not ok 1 - unset variable" "# the body exited with status 2; no test runs after it" >expect &&
	test_cmp expect out &&
	test "$(tail -n 2 unset.out)" = "$(printf "1..1\n# failed 1 among 1 test(s)")" &&
	echo 1 >code.expect &&
	test_cmp code.expect unset.code
'

test_expect_success 'what a body defines stays defined; the directory goes back to the trash' '
	run_sub_test persist <<-\EOF &&
	test_expect_success "setup" "
		value=42 &&
		helper() { echo helped; } &&
		mkdir -p deeper && cd deeper
	"
	test_expect_success "uses them" "
		test \$value = 42 &&
		test \"\$(helper)\" = helped &&
		test \"\$PWD\" = \"\$TRASH_DIRECTORY\"
	"
	test_done
	EOF
	cat >expect <<-\EOF &&
	ok 1 - setup
	ok 2 - uses them
	1..2
	EOF
	check_sub persist 0
'

test_expect_success 'lazy prerequisites: skipped with the first missing name and the reason, run once, when first needed' '
	run_sub_test prereq <<-\EOF &&
	test_lazy_prereq HAVE "echo run >>\"\$TRASH_DIRECTORY/have-runs\""
	test_lazy_prereq LACK "echo no such thing && false"
	test_lazy_prereq MADE "test -f \"\$TRASH_DIRECTORY/made\""
	test_expect_success LACK "needs LACK" "false"
	test_expect_success HAVE "needs HAVE" "true"
	test_expect_success HAVE,!LACK "needs HAVE, not LACK" "true"
	test_expect_success !HAVE "needs no HAVE" "false"
	test_expect_success HAVE,LACK,!HAVE "needs HAVE, LACK and no HAVE" "false"
	test_expect_success "makes made" ": >made"
	test_expect_success MADE "needs MADE" "true"
	test_expect_success "HAVE ran once" "test \$(wc -l <have-runs) = 1"
	test_done
	EOF
	cat >expect <<-\EOF &&
	# LACK: no such thing
	ok 1 # skip needs LACK (missing LACK)
	ok 2 - needs HAVE
	ok 3 - needs HAVE, not LACK
	ok 4 # skip needs no HAVE (missing !HAVE)
	ok 5 # skip needs HAVE, LACK and no HAVE (missing LACK)
	ok 6 - makes made
	ok 7 - needs MADE
	ok 8 - HAVE ran once
	1..8
	EOF
	check_sub prereq 0
'

test_expect_success 'a prerequisite nobody declared bails out' '
	run_sub_test unknown <<-\EOF &&
	test_expect_success NOSUCH "needs NOSUCH" "true"
	test_done
	EOF
	echo "Bail out! unknown prerequisite NOSUCH" >expect &&
	check_sub unknown 1
'

test_expect_success 'a script that ends without test_done fails' '
	run_sub_test nodone <<-\EOF &&
	test_expect_success "one" "true"
	EOF
	cat >expect <<-\EOF &&
	ok 1 - one
	# nodone exited with status 0 outside a test, before test_done
	EOF
	check_sub nodone 1
'

test_expect_success 'test_when_finished runs after the body, passed or not, the last first' '
	run_sub_test finished <<-\EOF &&
	test_expect_success "passes" "
		test_when_finished \"echo first >>log\" &&
		test_when_finished \"echo second >>log\" &&
		echo body >>log
	"
	test_expect_success "fails, cleaned all the same" "
		test_when_finished \"echo cleaned >>log\" &&
		false
	"
	test_expect_success "a cleanup that fails fails its test" "
		test_when_finished false &&
		true
	"
	test_expect_success "nothing left over" "
		echo next >>log
	"
	test_expect_success "the log" "
		printf \"%s\n\" body second first cleaned next >expect &&
		test_cmp expect log
	"
	test_done
	EOF
	grep -v "^#" finished.out >actual &&
	printf "%s\n" "ok 1 - passes" "not ok 2 - fails, cleaned all the same" \
		"not ok 3 - a cleanup that fails fails its test" "ok 4 - nothing left over" \
		"ok 5 - the log" "1..5" >expect &&
	test_cmp expect actual &&
	echo 1 >code.expect &&
	test_cmp code.expect finished.code
'

test_expect_success 'test_when_finished outside a body bails out' '
	run_sub_test finished-outside <<-\EOF &&
	test_when_finished "echo never"
	test_done
	EOF
	echo "Bail out! test_when_finished outside a test body: echo never" >expect &&
	check_sub finished-outside 1
'

test_expect_success '-v shows the output of passing bodies too' '
	SUB_ARGS=-v run_sub_test verbose <<-\EOF &&
	test_expect_success "talks" "echo said this"
	test_done
	EOF
	printf "%s\n" "ok 1 - talks" "# > said this" "1..1" >expect &&
	check_sub verbose 0 &&
	run_sub_test quiet <<-\EOF &&
	test_expect_success "talks" "echo said this"
	test_done
	EOF
	printf "%s\n" "ok 1 - talks" "1..1" >expect &&
	check_sub quiet 0
'

test_expect_success '-x traces the commands of a body, and nothing of the harness' '
	SUB_ARGS="-v -x" run_sub_test trace <<-\EOF &&
	test_expect_success "traced" "x=1 && test \$x = 1"
	test_done
	EOF
	printf "%s\n" "ok 1 - traced" "# > + x=1" "# > + test 1 = 1" "1..1" >expect &&
	check_sub trace 0 &&
	SUB_ARGS=-x run_sub_test trace-fail <<-\EOF &&
	test_expect_success "traced" "false"
	test_done
	EOF
	test_grep "^# > + false$" trace-fail.out &&
	SUB_ARGS=-q run_sub_test badopt <<-\EOF &&
	test_done
	EOF
	echo "Bail out! unknown option '\''-q'\'' (-v, --verbose, -x)" >expect &&
	check_sub badopt 1
'

test_expect_success 'chainlint finds a broken && chain, and passes what is joined' '
	cat >broken.sh <<-\EOF &&
	test_expect_success "joined" '\''
		echo a &&
		if echo condition
		then
			echo then
		fi &&
		if true; then
			echo b
		else
			echo c
		fi &&
		for i in 1 2; do
			echo $i || return 1
		done &&
		cat >f <<-EOT &&
		not a command
		EOT
		(cd sub && echo d) &&
		echo "two
	lines" &&
		echo e
	'\''
	test_expect_success "broken" '\''
		test_expect_code 2 mkseries plan >out 2>err;
		cat out err &&
		echo one
		echo two
	'\''
	EOF
	test_expect_code 1 "$TEST_DIRECTORY/chainlint.pl" broken.sh >out &&
	cat >expect <<-\EOF &&
	broken.sh:24: broken && chain: test_expect_code 2 mkseries plan >out 2>err;
	broken.sh:26: broken && chain: echo one
	EOF
	test_cmp expect out &&
	head -n 22 broken.sh >joined.sh &&
	"$TEST_DIRECTORY/chainlint.pl" joined.sh >out &&
	test_must_be_empty out
'

test_done

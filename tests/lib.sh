# tests/lib.sh: a small test harness in the style of git's t/test-lib.sh, printing TAP for prove.
#
# Each test script sources this file, then calls
#   test_expect_success [PREREQ] 'what it checks' '<commands joined with &&>'
# and ends with test_done. Tests run in a fresh trash directory with a
# private HOME and git identity, so nothing outside is read or written.
#
# Contract (tests/t0000-lib.sh checks it):
# - A body runs in this shell, inside a function: what it defines (variables,
#   functions) stays defined for later tests, `return N` ends the body only
#   (0 is ok, anything else not ok), and each test prints exactly one TAP
#   line. After a body the working directory is the trash directory again.
# - A body that calls `exit` ends the script: its test is reported not ok,
#   the plan follows and the script exits 1.
# - PREREQ is a comma-separated list of names, each maybe negated with `!`.
#   A test whose prerequisites do not hold is reported
#   `ok N # skip DESCRIPTION (missing NAME)`, never left out.
#   test_lazy_prereq NAME 'script' declares one, evaluated the first time a
#   test asks for it (so it may look at what earlier tests made) and cached.
#
# - test_when_finished 'CMDS', inside a body, runs CMDS after the body
#   whatever its outcome (the last registered first); a cleanup that fails
#   fails its test.
#
# Options, as git's test-lib has them: -v (--verbose) shows each body's
# output after its TAP line, each line as "# > ..."; -x traces each body's
# commands (set -x) into that output, shown with -v or when a test fails.
#
# TEST_DIRECTORY and TEST_OUTPUT_DIRECTORY may be set by the caller (t0000
# runs scripts of its own that are not in tests/).

set -u
test_verbose_=
test_trace_=
for test_arg_ in "$@"; do
	case $test_arg_ in
	-v | --verbose) test_verbose_=1 ;;
	-x) test_trace_=1 ;;
	-vx | -xv) test_verbose_=1 test_trace_=1 ;;
	*) echo "Bail out! unknown option '$test_arg_' (-v, --verbose, -x)"; exit 1 ;;
	esac
done
TEST_DIRECTORY=${TEST_DIRECTORY:-$(cd "$(dirname "$0")" && pwd)}
SRC_DIR=$(cd "$TEST_DIRECTORY/.." && pwd)
TEST_OUTPUT_DIRECTORY=${TEST_OUTPUT_DIRECTORY:-$SRC_DIR/build/trash}
MKSERIES_BIN=${MKSERIES_BIN:-$SRC_DIR/build/mkseries}
# Where the real-tree tests (t09*) keep the Debian package, the imported
# tree, work directories and ccache between runs.
REAL_CACHE=${MKSERIES_REAL_CACHE:-$SRC_DIR/build/real-cache}
export PATH="$(dirname "$MKSERIES_BIN"):$PATH"
[ -x "$MKSERIES_BIN" ] || { echo "Bail out! $MKSERIES_BIN is not built (run make)"; exit 1; }

name=$(basename "$0" .sh)
TRASH_DIRECTORY="$TEST_OUTPUT_DIRECTORY/$name"
rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY"
cd "$TRASH_DIRECTORY" || exit 1

export HOME="$TRASH_DIRECTORY"
export XDG_CACHE_HOME="$TRASH_DIRECTORY/.cache"
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
export NO_COLOR=1 LC_ALL=C TZ=UTC
# a command that finds the repository locked fails at once, as the tests
# that hold the lock around it expect; those of the wait set their own
export MKSERIES_LOCK_TIMEOUT=0
# The synthetic kernel trees' boot images are written by it.
export MKBZIMAGE="$TEST_DIRECTORY/data/mkbzimage"
unset MKSERIES_KIT
# ccache and distcc take settings from the environment; a test sets its own.
unset XDG_CONFIG_HOME DISTCC_HOSTS DISTCC_DIR $(env | sed -n 's/^\(CCACHE_[A-Z0-9_]*\)=.*/\1/p')
# A test outside a kit must not find this project's own series.yaml above it.
export MKSERIES_CEILING_DIRECTORY="$TEST_OUTPUT_DIRECTORY"
git config --global user.name 'Back Porter'
git config --global user.email 'backporter@example.com'
git config --global init.defaultBranch master
git config --global advice.detachedHead false

test_count=0
test_failed=0
test_skipped=0
test_in_body_=
test_desc_=
test_body_=
test_log_="$TRASH_DIRECTORY/.test-output"
test_done_=
test_bailed_=

# TAP goes to fd 7, a copy of the script's stdout: a body writes to its log,
# and when a body exits, bash runs the EXIT trap with the body's redirections.
exec 7>&1
trap 'test_at_exit_' EXIT

say() { echo "# $*"; }

test_bail_() {
	test_bailed_=1
	echo "Bail out! $*" >&7
	exit 1
}

# The body is evaluated inside this function, so `return` ends the body only.
# (Its $1 is the body itself, as in git's test_eval_inner_.) Under -x the
# trace stops before anything of the harness's own shows in it.
test_eval_() {
	if [ -n "$test_trace_" ]; then
		# set -x inside the eval: neither the eval nor the harness is traced.
		eval "set -x
$1"
		{ test_eval_ret_=$?; set +x; } 2>/dev/null
		return $test_eval_ret_
	fi
	eval "$1"
}

# test_when_finished CMDS: in a body, run CMDS once the body has ended,
# passed or not; the last registered runs first. Its failure fails the test.
test_when_finished() {
	[ -n "$test_in_body_" ] || test_bail_ "test_when_finished outside a test body: $*"
	test_cleanup_="{ $*
	} && (exit \"\$test_ret_\"); test_ret_=\$?; $test_cleanup_"
}

# test_expect_success [PREREQ] DESCRIPTION BODY
test_expect_success() {
	case $# in
	2) test_prereq_= ;;
	3) test_prereq_=$1; shift ;;
	*) test_bail_ "test_expect_success takes [PREREQ] DESCRIPTION BODY, not $# argument(s)" ;;
	esac
	if [ -n "$test_prereq_" ] && ! test_have_prereq "$test_prereq_"; then
		test_skip "$1" "missing $test_missing_prereq_"
		return 0
	fi
	test_count=$((test_count + 1))
	test_desc_=$1
	test_body_=$2
	test_in_body_=1
	test_cleanup_=:
	test_eval_ "$2" >"$test_log_" 2>&1 </dev/null
	# A body that returned early is still traced: stop it here, unseen.
	{ test_ret_=$?; set +x; } 2>/dev/null
	test_in_body_=
	# The cleanups run where the body ended, and keep the first failure's status.
	if [ "$test_cleanup_" != : ]; then
		# It sets test_ret_ itself.
		test_eval_ "$test_cleanup_" >>"$test_log_" 2>&1 </dev/null
		{ set +x; } 2>/dev/null
	fi
	cd "$TRASH_DIRECTORY" || test_bail_ "cannot return to $TRASH_DIRECTORY"
	if [ "$test_ret_" -eq 0 ]; then
		echo "ok $test_count - $1" >&7
		[ -z "$test_verbose_" ] || sed -e 's/^/# > /' "$test_log_" >&7
	else
		test_failed=$((test_failed + 1))
		test_report_failure_ >&7
	fi
	return 0
}

# test_report_failure_ [NOTE]: the not ok line, NOTE, the body and what it printed.
test_report_failure_() {
	echo "not ok $test_count - $test_desc_"
	[ $# -eq 0 ] || echo "# $1"
	printf '%s\n' "$test_body_" | sed -e 's/^/#  /'
	sed -e 's/^/# > /' "$test_log_"
}

# A body that exits ends the script here: one not ok line for its test, the
# plan of what ran, status 1. An exit outside a body before test_done (a
# script error) is reported too and is never a success.
test_at_exit_() {
	test_exit_code_=$?
	if [ -n "$test_in_body_" ]; then
		test_in_body_=
		test_failed=$((test_failed + 1))
		{
			test_report_failure_ "the body exited with status $test_exit_code_; no test runs after it"
			echo "1..$test_count"
			echo "# failed $test_failed among $test_count test(s)"
		} >&7
		exit 1
	fi
	if [ -z "$test_done_" ] && [ -z "$test_bailed_" ]; then
		echo "# $name exited with status $test_exit_code_ outside a test, before test_done" >&7
		[ "$test_exit_code_" -ne 0 ] || exit 1
	fi
}

# test_skip DESCRIPTION REASON: a test counted and reported as skipped, saying why.
test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count # skip $1 ($2)" >&7
}

# test_lazy_prereq NAME SCRIPT: NAME holds if SCRIPT succeeds. SCRIPT runs once,
# the first time a test needs NAME, in a subshell in a scratch directory; the
# answer is kept for the rest of the script.
test_lazy_prereq() {
	case $1 in
	'' | *[!A-Za-z0-9_]*) test_bail_ "bad prerequisite name '$1'" ;;
	esac
	eval "test_prereq_script_$1=\$2"
	eval "test_prereq_state_$1="
}

# test_have_prereq LIST: every name of the comma-separated LIST holds (a name
# after ! must not), checked in order. The first that does not is left in
# $test_missing_prereq_, and those after it are not evaluated.
test_have_prereq() {
	test_missing_prereq_=
	for test_p_ in $(echo "$1" | tr , ' '); do
		case $test_p_ in
		!*) ! test_prereq_holds_ "${test_p_#!}" ;;
		*) test_prereq_holds_ "$test_p_" ;;
		esac || {
			test_missing_prereq_=$test_p_
			return 1
		}
	done
}

test_prereq_holds_() {
	case $1 in
	'' | *[!A-Za-z0-9_]*) test_bail_ "bad prerequisite name '$1'" ;;
	esac
	eval "test_state_=\${test_prereq_state_$1-unknown}"
	[ "$test_state_" != unknown ] || test_bail_ "unknown prerequisite $1"
	if [ -z "$test_state_" ]; then
		test_dir_="$TRASH_DIRECTORY/.prereq-$1"
		mkdir -p "$test_dir_" || test_bail_ "cannot create $test_dir_"
		eval "test_script_=\$test_prereq_script_$1"
		if (cd "$test_dir_" && test_eval_ "$test_script_") >"$test_dir_.out" 2>&1 </dev/null; then
			test_state_=yes
		else
			test_state_=no
			# Why it is missing, if the script says so.
			sed -e "s/^/# $1: /" "$test_dir_.out"
		fi
		rm -rf "$test_dir_" "$test_dir_.out"
		eval "test_prereq_state_$1=\$test_state_"
	fi
	[ "$test_state_" = yes ]
}

test_lazy_prereq B4 'command -v b4'
test_lazy_prereq QEMU 'command -v qemu-system-x86_64'
test_lazy_prereq REAL_TREES 'test "${MKSERIES_SKIP_REAL:-}" != 1'

test_done() {
	test_done_=1
	echo "1..$test_count"
	if [ "$test_failed" -ne 0 ]; then
		echo "# failed $test_failed among $test_count test(s)"
		exit 1
	fi
	exit 0
}
# test_must_fail CMD...: CMD must exit 1..125 (a failure, not a crash or a missing command).
test_must_fail() {
	"$@"
	test_code_=$?
	if [ $test_code_ -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*"
		return 1
	elif [ $test_code_ -gt 125 ]; then
		echo "test_must_fail: command died with $test_code_: $*"
		return 1
	fi
	return 0
}

# test_expect_code N CMD...: CMD must exit with N.
test_expect_code() {
	test_want_=$1
	shift
	"$@"
	test_code_=$?
	if [ $test_code_ -ne "$test_want_" ]; then
		echo "test_expect_code: expected $test_want_, got $test_code_: $*"
		return 1
	fi
	return 0
}

# test_cmp EXPECTED ACTUAL: the two files must be identical.
test_cmp() {
	diff -u "$1" "$2"
}

# test_must_be_empty FILE: FILE exists and is empty; shows it otherwise.
test_must_be_empty() {
	if ! test -f "$1"; then
		echo "test_must_be_empty: no file $1"
		return 1
	elif test -s "$1"; then
		echo "test_must_be_empty: $1 is not empty:"
		cat "$1"
		return 1
	fi
}

# test_grep [-v] [grep options] PATTERN FILE: like grep, but shows the file on failure.
test_grep() {
	if [ "$1" = "!" ]; then
		shift
		if grep "$@"; then
			echo "test_grep: unexpected match for $*"
			return 1
		fi
		return 0
	fi
	if ! grep "$@"; then
		eval "test_last_=\${$#}"
		echo "test_grep: no match for $* in:"
		cat "$test_last_"
		return 1
	fi
}

# test_commit FILE CONTENT [MESSAGE]: write, add and commit in the current repository.
test_commit() {
	mkdir -p "$(dirname "$1")" &&
	printf '%s\n' "$2" >"$1" &&
	git add "$1" &&
	git commit -q -m "${3:-$1}"
}

# short ID: the 12-digit abbreviation mkseries prints.
short() {
	echo "$1" | cut -c1-12
}

# wait_for FILE PATTERN: until FILE holds a line matching PATTERN, at most 10 seconds.
wait_for() {
	test_wait_n_=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		test_wait_n_=$((test_wait_n_ + 1))
		test $test_wait_n_ -lt 100 || { echo "wait_for: no '$2' in $1"; return 1; }
		sleep 0.1
	done
}

# json_ok FILE: FILE is one JSON document (python3 is in make deps).
json_ok() {
	python3 -m json.tool "$1" >/dev/null
}

# xml_ok FILE: FILE is well-formed XML (xmllint, libxml2-utils, is in make test-deps).
xml_ok() {
	xmllint --noout "$1"
}

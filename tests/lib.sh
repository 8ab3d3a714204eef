# tests/lib.sh: a small test harness in the style of git's t/test-lib.sh, printing TAP for prove.
#
# Each test script sources this file, then calls
#   test_expect_success 'what it checks' '<commands joined with &&>'
# and ends with test_done. Tests run in a fresh trash directory with a
# private HOME and git identity, so nothing outside is read or written.

set -u
TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(cd "$TEST_DIRECTORY/.." && pwd)
MKSERIES_BIN=${MKSERIES_BIN:-$SRC_DIR/build/mkseries}
export PATH="$(dirname "$MKSERIES_BIN"):$PATH"
[ -x "$MKSERIES_BIN" ] || { echo "Bail out! $MKSERIES_BIN is not built (run make)"; exit 1; }

name=$(basename "$0" .sh)
TRASH_DIRECTORY="$SRC_DIR/build/trash/$name"
rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY"
cd "$TRASH_DIRECTORY" || exit 1

export HOME="$TRASH_DIRECTORY"
export XDG_CACHE_HOME="$TRASH_DIRECTORY/.cache"
export GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL='author@example.com'
export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL='committer@example.com'
export NO_COLOR=1 LC_ALL=C TZ=UTC
unset MKSERIES_KIT
git config --global user.name 'Back Porter'
git config --global user.email 'backporter@example.com'
git config --global init.defaultBranch master
git config --global advice.detachedHead false

test_count=0
test_failed=0
test_skipped=0

say() { echo "# $*"; }

test_expect_success() {
	if [ $# -eq 3 ]; then
		test_prereq_ok "$1" || { test_skip "$2" "missing $1"; return 0; }
		shift
	fi
	test_count=$((test_count + 1))
	out="$TRASH_DIRECTORY/.test-output"
	# Like git's test-lib: the body runs in this shell, so what a setup
	# test defines stays defined; the && chain decides the result.
	if eval "$2" >"$out" 2>&1 </dev/null; then
		cd "$TRASH_DIRECTORY" || exit 1
		echo "ok $test_count - $1"
	else
		cd "$TRASH_DIRECTORY" || exit 1
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed -e 's/^/#  /' <<-EOF_BODY
		$2
		EOF_BODY
		sed -e 's/^/# > /' "$out"
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	echo "ok $test_count # skip $1 ($2)"
}

test_prereq_ok() {
	case "$1" in
	B4) command -v b4 >/dev/null ;;
	QEMU) command -v qemu-system-x86_64 >/dev/null ;;
	REAL_TREES) [ "${MKSERIES_SKIP_REAL:-}" != 1 ] ;;
	*) echo "Bail out! unknown prerequisite $1"; exit 1 ;;
	esac
}

test_done() {
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
	code=$?
	if [ $code -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*"
		return 1
	elif [ $code -gt 125 ]; then
		echo "test_must_fail: command died with $code: $*"
		return 1
	fi
	return 0
}

# test_expect_code N CMD...: CMD must exit with N.
test_expect_code() {
	want=$1
	shift
	"$@"
	code=$?
	if [ $code -ne "$want" ]; then
		echo "test_expect_code: expected $want, got $code: $*"
		return 1
	fi
	return 0
}

# test_cmp EXPECTED ACTUAL: the two files must be identical.
test_cmp() {
	diff -u "$1" "$2"
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
		eval "last=\${$#}"
		echo "test_grep: no match for $* in:"
		cat "$last"
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

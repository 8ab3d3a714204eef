#!/bin/sh
# t0150-hostile-text.sh: text from patches and mainline histories reaches no terminal raw.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# A subject that, printed raw, erases its own line and writes another
# (the mail parser unfolds the CR of a Subject: header to a space).
EVIL=$(printf 'mm: evil\033[2K\rmm: innocent')
ESC=$(printf '\033')
SQ="'"

# no_raw FILE...: no ESC, CR or other C0 control but tab and newline, no DEL.
no_raw() {
	for f; do
		if LC_ALL=C grep -n "$(printf '[\001-\010\013-\037\177]')" "$f"; then
			echo "no_raw: $f holds a raw control character"
			return 1
		fi
	done
}

test_expect_success 'setup: a kit whose beta 2/2 has a hostile subject and does not apply' '
	make_upstream linux &&
	make_kit kit linux &&
	(
		cd linux &&
		sed -i "s/line 6/line six/" mm/madvise.c &&
		git commit -q -a -m "$EVIL" -m "Signed-off-by: Ev Il <evil@example.org>" &&
		git format-patch -q -1 -o ../evil
	) &&
	sed "s/^ line 5$/ line 5 that is not in the tree/" evil/0001-*.patch \
		>kit/patches/beta/0002-evil.patch &&
	cat >>kit/series.yaml <<-EOF &&
	      - file: patches/beta/0002-evil.patch
	EOF
	grep -q "$ESC" evil/0001-*.patch || grep -q "=1B" evil/0001-*.patch
'

test_expect_success 'plan shows the subject with its control characters escaped' '
	(cd kit && mkseries plan --branch t >../out 2>../err) &&
	cat out err &&
	no_raw out err &&
	test_grep -F "mm: evil\\x1b[2K mm: innocent" out
'

test_expect_success 'a failing apply names the subject escaped' '
	(cd kit && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	cat out err &&
	no_raw out err &&
	test_grep -F "cannot apply ${SQ}beta 2/2${SQ} (mm: evil\\x1b[2K mm: innocent)" err
'

test_expect_success 'setup: a mainline commit with a hostile subject and stable comment fixes alpha 2/2' '
	(
		cd linux &&
		echo more >>mm/mremap.c &&
		git commit -q -a -m "$EVIL" \
			-m "Fixes: $(git rev-parse --short=12 "$A2") (\"mm: batch ptes\")
Cc: stable@vger.kernel.org # 1.0+$(printf "\033]0;owned\007")" &&
		git log -1 --format=%B | grep -q "$ESC"
	)
'

test_expect_success 'fixups --mainline prints the missing commit escaped' '
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../linux >../out 2>../err) &&
	cat out err &&
	no_raw out err &&
	test_grep -F "mm: evil\\x1b[2K\\rmm: innocent (fixes" out &&
	test_grep -F "# 1.0+\\x1b]0;owned\\x07)" out
'

test_expect_success 'fixups --write records the subject escaped; the kit loads and lists it so' '
	(cd kit && mkseries fixups --mainline ../linux --write >../out 2>../err) &&
	cat out err &&
	no_raw out err kit/series.yaml &&
	test_grep -F "subject: \"mm: evil\\\\x1b[2K\\\\rmm: innocent\"" kit/series.yaml &&
	(cd kit && mkseries fixups >../out 2>../err) &&
	cat out err &&
	no_raw out err &&
	test_grep -F "mm: evil\\x1b[2K\\rmm: innocent" out
'

test_done

#!/bin/sh
# t0178-words.sh: one wording per error: unknown names with a suggestion, stray arguments, a repeated --branch, the kit found from a subdirectory.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: a kit with two branches' '
	make_upstream up &&
	make_kit kit up &&
	sed "s/^name: t/name: u/" kit/kernels/t.yaml >kit/kernels/u.yaml
'

test_expect_success 'an unknown branch: one wording, with the name it was probably meant to be' '
	(cd kit && test_expect_code 2 mkseries plan --branch tt 2>../err) &&
	echo "error: unknown branch '\''tt'\'' (the kit has: t, u); did you mean '\''t'\'' or '\''u'\''?" >expect &&
	test_cmp expect err &&
	(cd kit && test_expect_code 2 mkseries backport --branch tt 2>../err) &&
	test_cmp expect err &&
	(cd kit && test_expect_code 2 mkseries plan --branch zzzz 2>../err) &&
	test_grep "^error: unknown branch .zzzz. (the kit has: t, u)$" err
'

test_expect_success 'a misspelt series gets a suggestion, as a misspelt command does' '
	(cd kit && test_expect_code 2 mkseries fetch alpah --mainline ../up 2>../err) &&
	echo "error: unknown series '\''alpah'\'' (the kit has: alpha, beta); did you mean '\''alpha'\''?" >expect &&
	test_cmp expect err &&
	(cd kit && test_expect_code 2 mkseries backport --branch t alpah 2>../err) &&
	test_cmp expect err
'

test_expect_success 'an extra argument is named before the usage' '
	for cmd in build test apply plan import export fixups doctor; do
		(cd kit && test_expect_code 2 mkseries $cmd t >../out 2>../err) &&
		head -n 1 err >first &&
		echo "error: unexpected argument '\''t'\'': '\''mkseries $cmd'\'' takes no arguments" >expect &&
		test_cmp expect first &&
		sed -n 2p err | grep -q "^usage: mkseries $cmd " || return 1
	done
'

test_expect_success 'plan --branch A --branch B plans both; build says it takes one' '
	(cd kit && mkseries plan --branch u --branch t >../out) &&
	grep -E "^(t|u): git " out >branches &&
	printf "u\nt\n" >expect &&
	cut -d: -f1 branches >got &&
	test_cmp expect got &&
	(cd kit && test_expect_code 2 mkseries build --branch t --branch u >../out 2>../err) &&
	test_grep "^error: option .--branch. is given twice (.t., then .u.): it takes one$" err &&
	(cd kit && mkseries plan --branch t --branch t >../out) &&
	test $(grep -c "^t: git " out) = 1
'

test_expect_success 'a subdirectory of the kit finds the kit, as git finds its repository' '
	(cd kit && mkseries plan >../expect) &&
	(cd kit/patches/alpha && mkseries plan >../../../out) &&
	test_cmp expect out &&
	mkdir elsewhere &&
	(cd elsewhere && test_expect_code 2 mkseries plan 2>../err) &&
	test_grep "^error: not in a kit: no series.yaml here or in a directory above; run mkseries in the kit, or name it with --kit DIR$" err &&
	(cd elsewhere && mkseries --kit ../kit plan >../out) &&
	test_cmp expect out
'

test_done

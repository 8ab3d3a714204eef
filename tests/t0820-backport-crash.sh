#!/bin/sh
# t0820-backport-crash.sh: the backport loop killed at each step of --continue and --skip: a rerun finishes, --abort puts the kit back.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: a kit whose first patch conflicts on the stable tree' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b stable v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns long" &&
	git -C linux checkout -q master &&
	sed -i "s/ref: v1.0 }/ref: stable }/" kit/kernels/t.yaml &&
	ID_A1=$(echo "$A1" | cut -c1-12)
'

# loop_at NAME: a fresh copy of the kit as NAME with its loop stopped at
# alpha 1/2 and the conflict resolved in the work tree wd-NAME.
loop_at() {
	rm -rf "$1" "wd-$1" && cp -R kit "$1" &&
	(cd "$1" && test_expect_code 1 mkseries backport --branch t --workdir "$TRASH_DIRECTORY/wd-$1" >../out 2>../err) &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >"wd-$1/t/backport/tree/mm/mremap.c"
}

# bp NAME ARGS...: the loop of kit NAME.
bp() {
	k=$1 && shift &&
	(cd "$k" && mkseries backport --branch t --workdir "$TRASH_DIRECTORY/wd-$k" "$@" >../out 2>../err)
}

# finished NAME: the loop of NAME ended with one recorded file, one decision, the branch applied.
finished() {
	ls "$1/patches/alpha/t" >files &&
	echo "0001-$ID_A1-mm-rename-ptes.patch" >files.expect &&
	test_cmp files.expect files &&
	test $(grep -c "\"t\": { file: patches/alpha/t/0001-" "$1/series.yaml") = 1 &&
	! test -d "wd-$1/t/backport" &&
	git -C linux worktree list >wt &&
	! test_grep mkseries-backport wt &&
	(cd "$1" && mkseries apply --branch t >../out 2>../err) &&
	git -C linux show "$(kit_ref "$1" t):mm/mremap.c" >tree.c &&
	test_grep "static long move_pteps" tree.c
}

# restored NAME: the kit NAME is as it was before its loop.
restored() {
	test_cmp kit/series.yaml "$1/series.yaml" &&
	! test -e "$1/patches/alpha/t" || { ls "$1/patches/alpha/t" >left && test_must_be_empty left; } &&
	! test -d "wd-$1/t/backport" &&
	git -C linux worktree list >wt &&
	! test_grep mkseries-backport wt &&
	git -C linux for-each-ref "refs/heads/mkseries-backport/" >refs &&
	test_must_be_empty refs
}

for step in target written recorded decided finished
do
	test_expect_success "--continue killed at '$step': run again, it finishes" '
		loop_at k-c-$step &&
		MKSERIES_TEST_BACKPORT_CRASH=$step test_expect_code 3 bp k-c-$step --continue &&
		bp k-c-$step --status &&
		bp k-c-$step --continue &&
		cat out &&
		finished k-c-$step
	'

	test_expect_success "--continue killed at '$step': --abort puts the kit back" '
		loop_at k-a-$step &&
		MKSERIES_TEST_BACKPORT_CRASH=$step test_expect_code 3 bp k-a-$step --continue &&
		bp k-a-$step --abort &&
		cat out &&
		restored k-a-$step
	'
done

for step in skipped finished
do
	test_expect_success "--skip killed at '$step': run again, it finishes" '
		loop_at k-s-$step &&
		MKSERIES_TEST_BACKPORT_CRASH=$step test_expect_code 3 bp k-s-$step --skip -m "t keeps it" &&
		bp k-s-$step --skip -m "t keeps it" &&
		cat out err &&
		test $(grep -c "\"t\": { skip: \"t keeps it\" }" k-s-$step/series.yaml) = 1 &&
		! test -d wd-k-s-$step/t/backport
	'
done

test_expect_success 'the start killed once the work tree is there: --continue starts again, --abort restores' '
	rm -rf k-st wd-k-st && cp -R kit k-st &&
	MKSERIES_TEST_BACKPORT_CRASH=checked-out test_expect_code 3 bp k-st &&
	bp k-st --status &&
	test_grep "between two patches (interrupted)" out &&
	test_expect_code 1 bp k-st --continue &&
	test_grep "alpha 1/2 does not apply" out &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >wd-k-st/t/backport/tree/mm/mremap.c &&
	bp k-st --continue &&
	finished k-st &&
	rm -rf k-st2 wd-k-st2 && cp -R kit k-st2 &&
	MKSERIES_TEST_BACKPORT_CRASH=checked-out test_expect_code 3 bp k-st2 &&
	bp k-st2 --abort &&
	restored k-st2
'

test_expect_success 'a temporary file a killed write left: the file keeps its number, --abort removes it' '
	loop_at k-tmp &&
	mkdir -p k-tmp/patches/alpha/t &&
	echo half >k-tmp/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch.tmp.99999 &&
	echo half >k-tmp/series.yaml.tmp.99998 &&
	MKSERIES_TEST_BACKPORT_CRASH=recorded test_expect_code 3 bp k-tmp --continue &&
	test -f k-tmp/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	bp k-tmp --abort &&
	cat out &&
	test_grep "removed patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch.tmp.99999 (left by a mkseries that was killed)" out &&
	test_grep "removed series.yaml.tmp.99998" out &&
	! test -e k-tmp/series.yaml.tmp.99998 &&
	restored k-tmp
'

test_expect_success 'a work tree half removed, its registration left: --abort and a new loop go through' '
	loop_at k-wt &&
	name=$(ls linux/.git/worktrees/) &&
	rm -rf wd-k-wt/t/backport/tree &&
	rm -f linux/.git/worktrees/$name/gitdir &&
	bp k-wt --abort &&
	! test -e linux/.git/worktrees/$name &&
	loop_at k-wt &&
	bp k-wt --continue &&
	finished k-wt
'

test_expect_success 'a lock left on the loop branch is named; removed, --abort goes through' '
	loop_at k-lock &&
	ref=refs/heads/mkseries-backport/$(kit_id k-lock)/t &&
	touch linux/.git/$ref.lock &&
	test_expect_code 1 bp k-lock --abort &&
	cat err &&
	test_grep "cannot update\\|cannot delete\\|its lock .*$ref.lock. is there" err &&
	test_grep "$ref.lock" err &&
	rm linux/.git/$ref.lock &&
	bp k-lock --abort &&
	restored k-lock
'

test_done

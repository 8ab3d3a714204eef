#!/bin/sh
# t0821-backport-no-branch.sh: every step of the backport loop without --branch (the README's recipe): the loop in progress is found, and a step that reloads the kit goes on with it.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: a kit whose alpha 1/2 and beta 1/1 conflict on the stable tree' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b stable v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	sed -i "s/line 4/line 4 (stable)/" linux/mm/madvise.c &&
	git -C linux commit -q -a -m "stable: two changes" &&
	git -C linux checkout -q master &&
	sed -i "s/ref: v1.0 }/ref: stable }/" kit/kernels/t.yaml &&
	ID_A1=$(echo "$A1" | cut -c1-12) &&
	find kit/patches -type f | sort | xargs cat >patches.before
'

# fresh NAME: a copy of the kit, its loop started (with --branch: a
# start has nothing to find) and stopped at alpha 1/2, resolved.
fresh() {
	rm -rf "$1" && cp -R kit "$1" &&
	(cd "$1" && test_expect_code 1 mkseries backport --branch t >../out 2>../err) &&
	test_grep "alpha 1/2 does not apply" out &&
	tree="$(kit_workdir "$1" t)/backport/tree" &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >"$tree/mm/mremap.c"
}

# clean_err: nothing on stderr says the loop lost its branch or was killed.
clean_err() {
	! test_grep "gone from the kit" err &&
	! test_grep "killed" err out &&
	! test -e "$(kit_workdir "$k" t)/backport/journal"
}

test_expect_success 'a start needs --branch; no loop: every step says so' '
	rm -rf k0 && cp -R kit k0 &&
	(cd k0 && test_expect_code 2 mkseries backport >../out 2>../err) &&
	test_grep "usage: mkseries backport --branch B" err &&
	(cd k0 && mkseries backport --status >../out 2>../err) &&
	test_grep "no backport loop in progress in this kit" out &&
	for step in --continue --abort
	do
		(cd k0 && test_expect_code 2 mkseries backport $step >../out 2>../err) &&
		test_grep "no backport loop in progress in this kit" err ||
		return 1
	done &&
	(cd k0 && test_expect_code 2 mkseries backport --skip -m why >../out 2>../err) &&
	test_grep "no backport loop in progress in this kit" err
'

test_expect_success '--status and an unresolved --continue without --branch' '
	k=k-st &&
	rm -rf $k && cp -R kit $k &&
	(cd $k && test_expect_code 1 mkseries backport --branch t >../out 2>../err) &&
	(cd $k && test_expect_code 1 mkseries backport --status >../out 2>../err) &&
	test_grep "^backport loop on .t.$" out &&
	test_grep "patch:   alpha 1/2 $ID_A1 mm: rename ptes" out &&
	test_grep "left to do:" out &&
	(cd $k && test_expect_code 1 mkseries backport --continue >../out 2>../err) &&
	test_grep "error: not resolved yet in" err &&
	clean_err
'

test_expect_success '--continue without --branch records, writes the decision, and stops at the next patch' '
	k=k-c && fresh $k &&
	(cd $k && test_expect_code 1 mkseries backport --continue >../out 2>../err) &&
	cat out err &&
	clean_err &&
	test_grep "recorded patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch" out &&
	test_grep "series.yaml: alpha 1/2 on .t.: patches/alpha/t/0001-" out &&
	test $(grep -c "\"t\": { file: patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch }" $k/series.yaml) = 1 &&
	test_grep "beta 1/1 does not apply" out &&
	(cd $k && test_expect_code 1 mkseries backport --status >../out 2>../err) &&
	test_grep "patch:   beta 1/1" out
'

test_expect_success '--skip without --branch records the skip and finishes the branch' '
	k=k-c &&
	(cd $k && mkseries backport --skip -m "t has its own locking" >../out 2>../err) &&
	cat out err &&
	clean_err &&
	test $(grep -c "\"t\": { skip: \"t has its own locking\" }" $k/series.yaml) = 1 &&
	test_grep "t: $(kit_ref $k t) -> " out &&
	! test -e "$(kit_workdir $k t)/backport" &&
	(cd $k && mkseries plan --branch t >../out 2>../err) &&
	(cd $k && mkseries backport --status >../out 2>../err) &&
	test_grep "no backport loop in progress in this kit" out
'

test_expect_success '--abort without --branch after a --continue that recorded: the kit as it was' '
	k=k-a && fresh $k &&
	(cd $k && test_expect_code 1 mkseries backport --continue >../out 2>../err) &&
	clean_err &&
	test -f $k/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	(cd $k && mkseries backport --abort >../out 2>../err) &&
	cat out err &&
	clean_err &&
	test_grep "aborted; the kit is as it was before it" out &&
	test_cmp kit/series.yaml $k/series.yaml &&
	find $k/patches -type f | sort | xargs cat >patches.after &&
	test_cmp patches.before patches.after &&
	! test -e "$(kit_workdir $k t)/backport" &&
	(cd $k && mkseries plan --branch t >../out 2>../err)
'

test_expect_success '--skip without --branch at the first stop goes on to the next' '
	k=k-s && fresh $k &&
	(cd $k && test_expect_code 1 mkseries backport --skip -m "not on t" >../out 2>../err) &&
	cat out err &&
	clean_err &&
	test $(grep -c "\"t\": { skip: \"not on t\" }" $k/series.yaml) = 1 &&
	test_grep "beta 1/1 does not apply" out
'

test_done

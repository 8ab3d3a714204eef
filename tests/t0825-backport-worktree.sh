#!/bin/sh
# t0825-backport-worktree.sh: the loop's work tree is checked out, read back and removed as git does: what git checks out, what git add -A records.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

TREE=wd/t/backport/tree

test_expect_success 'setup: a kit stopped at a conflict on a tree with a link and a script' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b stable-conflict v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	mkdir -p linux/mm/deep/er &&
	echo "int deep;" >linux/mm/deep/er/x.c &&
	echo "*.o" >linux/.gitignore &&
	git -C linux add -A &&
	git -C linux commit -q -m "stable: move_ptes returns long" &&
	git -C linux checkout -q master &&
	sed -i "s/ref: v1.0 }/ref: stable-conflict }/" kit/kernels/t.yaml &&
	(cd kit && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd" >../out 2>../err) &&
	test_grep "conflict  mm/mremap.c" out
'

test_expect_success 'the checkout is the tree, with the modes, the link and the ignore rules git gives' '
	git -C linux ls-tree -r stable-conflict >tree.expect &&
	git -C $TREE ls-files -s >index &&
	awk "{ print \$1, \$2, \$3 \"\t\" \$4 }" index >index.got &&
	awk "{ print \$1, \$3, 0 \"\t\" \$4 }" tree.expect >index.expect &&
	test_cmp index.expect index.got &&
	test -x $TREE/scripts/run.sh &&
	! test -x $TREE/mm/madvise.c &&
	test -h $TREE/mm/link.c &&
	echo mremap.c >link.expect &&
	readlink $TREE/mm/link.c >link.got &&
	test_cmp link.expect link.got &&
	echo "int deep;" >deep.expect &&
	test_cmp deep.expect $TREE/mm/deep/er/x.c &&
	git -C linux show stable-conflict:mm/madvise.c >madvise.expect &&
	test_cmp madvise.expect $TREE/mm/madvise.c
'

test_expect_success 'the index has the stat data of every file: git sees only what the loop changed' '
	# diff-files does not refresh: a file whose stat data is not in the
	# index would be listed even though its content is the same
	git -C $TREE diff-files --name-only >dirty &&
	echo mm/mremap.c >dirty.expect &&
	test_cmp dirty.expect dirty &&
	git -C $TREE status --porcelain >status &&
	echo " M mm/mremap.c" >status.expect &&
	test_cmp status.expect status
'

test_expect_success 'the backporter edits, adds, deletes, changes a mode and a link; --status in between' '
	resolve_alpha() { printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >"$1"; } &&
	resolve_alpha $TREE/mm/mremap.c &&
	# an edit that keeps the size and the time: only the ctime tells
	cp -p $TREE/mm/madvise.c madvise.time &&
	sed -i "s/line 1/line X/" $TREE/mm/madvise.c &&
	touch -r madvise.time $TREE/mm/madvise.c &&
	echo "int new_one;" >$TREE/mm/new.c &&
	mkdir $TREE/mm/newdir &&
	echo "int newer;" >$TREE/mm/newdir/n.c &&
	echo "object" >$TREE/mm/built.o &&
	rm $TREE/mm/deep/er/x.c &&
	chmod +x $TREE/mm/madvise.c &&
	rm $TREE/mm/link.c &&
	ln -s madvise.c $TREE/mm/link.c &&
	(cd kit && mkseries backport --branch t --workdir "$PWD/../wd" --status >../out) &&
	test_grep "nothing left to resolve" out &&
	# an edit after --status read the tree is taken too
	echo "int new_two;" >>$TREE/mm/new.c
'

test_expect_success '--continue records every change of the work tree, not only the files the loop wrote' '
	(cd kit && mkseries backport --branch t --workdir "$PWD/../wd" --continue >../out 2>../err) &&
	cat out &&
	test_grep "recorded patches/alpha/t/0001-" out &&
	mk_git linux for-each-ref --format="%(objectname) %(subject)" \
		"refs/mkseries-backports/$(kit_id kit)/t/" >recorded &&
	ref=$(sed -n "s/ mm: rename ptes\$//p" recorded) &&
	test -n "$ref" &&
	mk_git linux ls-tree -r "$ref" >rec &&
	cat rec &&
	test_grep "^100755 blob [0-9a-f]*	mm/madvise.c\$" rec &&
	test_grep "^120000 blob [0-9a-f]*	mm/link.c\$" rec &&
	test_grep "	mm/new.c\$" rec &&
	test_grep "	mm/newdir/n.c\$" rec &&
	! test_grep "mm/built.o" rec &&
	! test_grep "mm/deep/er/x.c" rec &&
	mk_git linux show "$ref:mm/madvise.c" >madvise &&
	test_grep "^line X\$" madvise &&
	mk_git linux show "$ref:mm/link.c" >link &&
	printf "madvise.c" >link.expect &&
	test_cmp link.expect link &&
	printf "int new_one;\nint new_two;\n" >new.expect &&
	mk_git linux show "$ref:mm/new.c" >new &&
	test_cmp new.expect new &&
	mk_git linux show "$ref:mm/mremap.c" >mremap &&
	test_grep "static long move_pteps" mremap &&
	! test -d wd/t/backport
'

test_expect_success 'the work tree and its registration are gone, the user checkout untouched' '
	! test -e $TREE &&
	mk_git linux worktree list >wt &&
	! test_grep "mkseries-backport" wt &&
	! test -d $(mk_repo linux)/worktrees/mkseries-backport-$(kit_id kit)-t &&
	git -C linux status --porcelain >st &&
	test_must_be_empty st
'

test_done

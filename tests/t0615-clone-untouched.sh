#!/bin/sh
# t0615-clone-untouched.sh: a git source's clone is the user's: apply, backport, run, export and gc leave it byte for byte as it was; mkseries keeps its refs in a repository of its own.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# snapshot FILE: what of linux/ mkseries could write: its refs, packed or
# loose, worktrees, config, index, reflogs and the git directory's names.
snapshot() {
	{
		git -C linux for-each-ref --format="%(objectname) %(refname)" &&
		git -C linux worktree list --porcelain &&
		cat linux/.git/config &&
		git hash-object linux/.git/index &&
		if test -f linux/.git/packed-refs
		then
			cat linux/.git/packed-refs
		fi &&
		(cd linux/.git && find . -path ./objects -prune -o -print | sort) &&
		(cd linux/.git && find logs -type f -exec cat {} +)
	} >"$1"
}

test_expect_success 'setup: the synthetic clone, a kit that runs on it, one that needs a backport' '
	setup_fake_run kit &&
	git -C linux checkout -q -b stable-conflict v1.0-mk &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns long" &&
	git -C linux checkout -q master &&
	git -C linux pack-refs --all &&
	cp -R kit kbp &&
	sed -i "s/ref: v1.0-mk }/ref: stable-conflict }/" kbp/kernels/t.yaml &&
	grep -q "ref: stable-conflict" kbp/kernels/t.yaml &&
	snapshot before
'

test_expect_success 'apply: the kit branch and base tag are in mkseries repository, not the clone' '
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	snapshot after &&
	test_cmp before after &&
	mk_git linux rev-parse --verify -q $(kit_ref kit t) &&
	mk_git linux rev-parse --verify -q refs/tags/mkseries/base/t &&
	test "$(mk_git linux rev-parse refs/tags/mkseries/base/t^{commit})" = "$(git -C linux rev-parse v1.0-mk)" &&
	echo "$(cd linux/.git && pwd -P)/objects" >expect &&
	test_cmp expect "$(mk_repo linux)/objects/info/alternates"
'

test_expect_success 'backport: started, aborted, started again and continued' '
	(cd kbp && test_expect_code 1 mkseries backport --branch t --workdir ../wd >../out 2>../err) &&
	test -d wd/t/backport/tree &&
	snapshot after &&
	test_cmp before after &&
	mk_git linux worktree list --porcelain >wt &&
	test_grep "^worktree $TRASH_DIRECTORY/wd/t/backport/tree" wt &&
	(cd kbp && mkseries backport --branch t --workdir ../wd --abort >../out 2>../err) &&
	snapshot after &&
	test_cmp before after &&
	(cd kbp && test_expect_code 1 mkseries backport --branch t --workdir ../wd >../out 2>../err) &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >wd/t/backport/tree/mm/mremap.c &&
	(cd kbp && mkseries backport --branch t --workdir ../wd --continue >../out 2>../err) &&
	snapshot after &&
	test_cmp before after &&
	mk_git linux rev-parse --verify -q $(kit_ref kbp t)
'

test_expect_success 'run: import, apply, build and test leave the clone alone' '
	(cd kit && mkseries run --branch t --workdir ../work >../out 2>../err) &&
	snapshot after &&
	test_cmp before after
'

test_expect_success 'export: the clone read for its release tags, and left alone' '
	(cd kit && mkseries export --branch t --format mbox --workdir ../work -o ../mbox >../out 2>../err) &&
	test_grep "^t: 5 patches from $(kit_ref kit t) " out &&
	snapshot after &&
	test_cmp before after
'

test_expect_success 'gc, and gc --prune of a kit that is gone, leave the clone alone' '
	(cd kit && mkseries gc >../out 2>../err) &&
	test_grep "clones" out &&
	snapshot after &&
	test_cmp before after &&
	ref=$(kit_ref kbp t) &&
	mk_git linux rev-parse --verify -q $ref &&
	(cd kit && mkseries gc --prune --drop $(kit_id ../kbp) >../out 2>../err) &&
	snapshot after &&
	test_cmp before after &&
	! mk_git linux rev-parse --verify -q $ref
'

test_expect_success 'an identity set only in the clone signs the backports' '
	git -C linux config user.name "Clone Local" &&
	git -C linux config user.email clone@example.org &&
	test_when_finished "mv gitconfig.keep .gitconfig" &&
	mv .gitconfig gitconfig.keep &&
	cp -R kit kid &&
	(cd kid && mkseries apply --branch t >../out 2>../err) &&
	mk_git linux log -1 --format=%B $(kit_ref kid t) >msg &&
	test_grep "^Signed-off-by: Clone Local <clone@example.org>$" msg &&
	git -C linux config --unset user.name &&
	git -C linux config --unset user.email &&
	cp -R kit kid2 &&
	(cd kid2 && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "no user.name: " err
'

test_done

#!/bin/sh
# t0935-export-612.sh: the kit's 6.12 branch exported as mails and as a quilt series, round-tripped on the real tree.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# Shared with the other real-tree tests. In the real suite this runs after
# t0930, which leaves 6.12 applied and run: the export is then verified.
export XDG_CACHE_HOME="$REAL_CACHE"
REPO="$REAL_CACHE/mkseries/linux.git"

# sparse_clone DIR PATHS...: a clone of the cache's repository sharing its
# objects, at 6.12's base, with only PATHS in its work tree (the real
# tree has 86,691 files; the patches touch a handful).
sparse_clone() {
	dir=$1 &&
	shift &&
	git clone -q --shared --no-checkout "$REPO" "$dir" &&
	git -C "$dir" sparse-checkout set --no-cone "$@" &&
	git -C "$dir" checkout -q --detach "$BASE"
}

test_expect_success REAL_TREES 'setup: 6.12 applied (cheap: the tree is imported already)' '
	mkseries --kit "$SRC_DIR" apply --branch 6.12 >apply.out 2>&1 &&
	cat apply.out &&
	REF=$(kit_ref "$SRC_DIR" 6.12) &&
	BASE=$(git -C "$REPO" rev-parse refs/tags/mkseries/base/6.12^{commit}) &&
	git -C "$REPO" rev-parse $REF^{tree} >applied.tree &&
	git -C "$REPO" diff --name-only $BASE $REF >touched &&
	test -s touched
'

# Verified when t0930 ran for this checkout; else the refusal is checked
# and the export goes on with --force.
test_expect_success REAL_TREES 'export 6.12 as mails: verified by the last run, or refused and forced' '
	if mkseries --kit "$SRC_DIR" export --branch 6.12 --format mbox -o mbox >out 2>err
	then
		test_grep "verified by its last run" out &&
		test_grep "^Tested-by: " mbox/0000-cover-letter.patch
	else
		test_grep "6.12. was never run: nothing verifies it; not exported (verify it: mkseries run --branch 6.12" err &&
		! test -e mbox &&
		mkseries --kit "$SRC_DIR" export --branch 6.12 --format mbox -o mbox --force >out 2>err &&
		test_grep "NOT verified" out
	fi &&
	cat out &&
	n=$(git -C "$REPO" rev-list --count $BASE..$REF) &&
	test $(ls mbox | grep -vc 0000-cover) = $n &&
	test_grep "^Subject: \[PATCH 6.12.y 1/$n\] " mbox/0001-*.patch &&
	test_grep "^Subject: \[PATCH 6.12.y 0/$n\] " mbox/0000-cover-letter.patch &&
	! grep -l "^libgit2 " mbox/*
'

test_expect_success REAL_TREES 'git am of the mails onto the real 6.12 base gives the applied tree' '
	sparse_clone am $(cat touched) &&
	git -C am am -q $(ls -d "$PWD"/mbox/* | grep -v 0000-cover) &&
	git -C am rev-parse HEAD^{tree} >am.tree &&
	test_cmp applied.tree am.tree &&
	git -C "$REPO" log --format="%an <%ae> %ad%n%B" --date=raw $BASE..$REF >applied.log &&
	git -C am log --format="%an <%ae> %ad%n%B" --date=raw $BASE..HEAD >am.log &&
	test_cmp applied.log am.log &&
	git -C am log --format=%B -1 HEAD~$((n - 1)) >first.msg &&
	sed -n 3p first.msg >first.line &&
	test_grep "^commit [0-9a-f]\{40\} upstream\.\$" first.line
'

test_expect_success REAL_TREES 'quilt push -a of the Debian export onto the real base gives the applied files' '
	mkseries --kit "$SRC_DIR" export --branch 6.12 --format quilt -o debian-patches --force >out 2>err &&
	test_grep "^Origin: upstream, https://git.kernel.org/linus/[0-9a-f]\{40\}\$" debian-patches/*/all/*.patch &&
	sparse_clone q $(cat touched) &&
	(cd q && QUILT_PATCHES="$TRASH_DIRECTORY/debian-patches" quilt push -a -q >../quilt.out) &&
	rm -rf q/.pc &&
	git -C q add -A &&
	git -C q write-tree >quilt.tree &&
	test_cmp applied.tree quilt.tree
'

test_done

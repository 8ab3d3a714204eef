#!/bin/sh
# t0950-backport-real.sh: one of the kit's 6.12 backports through the backport loop on the real 6.1 tree, then plain apply.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# The real trees are big: share their cache between the real-tree tests and runs.
export XDG_CACHE_HOME="$REAL_CACHE"
REPO="$XDG_CACHE_HOME/mkseries/linux.git"
PATCH=0001-94dab12d86cf-mm-call-pointers-to-ptes-as-ptep.patch

# The loop writes into the shared repository: put its refs back as they were.
# The kit's refs are its own (its kit id), but the cache is kept between runs.
restore_refs() {
	if test -s "$TRASH_DIRECTORY/tip.before"; then
		git -C "$REPO" update-ref -m "t0950: put back" "$(kit_ref "$TRASH_DIRECTORY/kit" 6.1)" \
			"$(cat "$TRASH_DIRECTORY/tip.before")"
	else
		git -C "$REPO" update-ref -d "$(kit_ref "$TRASH_DIRECTORY/kit" 6.1)" 2>/dev/null
	fi
	git -C "$REPO" for-each-ref --format="%(refname)" "refs/mkseries-backports/$(kit_id "$TRASH_DIRECTORY/kit")/6.1/" |
	while read -r ref; do
		grep -qx "$ref" "$TRASH_DIRECTORY/keep.before" || git -C "$REPO" update-ref -d "$ref"
	done
	return 0
}

# The kit's patch names, in its index line, the blobs of the 6.12 it was
# written on. Debian's 6.12 moves with each point release, and the loop
# merges three-way only when those blobs are in the repository: name the
# blobs of the 6.12 imported there instead (the base's mm/mremap.c, and
# the patch applied to it, written with hash-object -w), as a mail
# written against that tree would.
index_to_repo() {
	old=$(git -C "$REPO" rev-parse refs/tags/mkseries/base/6.12:mm/mremap.c) &&
	mkdir -p pre/mm &&
	git -C "$REPO" cat-file blob "$old" >pre/mm/mremap.c &&
	(cd pre && GIT_CEILING_DIRECTORIES="$TRASH_DIRECTORY" git apply -p1 "$1") &&
	new=$(git -C "$REPO" hash-object -w "$PWD/pre/mm/mremap.c") &&
	sed -i "s/^index [0-9a-f]*\.\.[0-9a-f]* 100644\$/index ${old%${old#?????????}}..${new%${new#?????????}} 100644/" "$1" &&
	grep -q "^index ${old%${old#?????????}}\.\." "$1"
}

test_expect_success REAL_TREES 'setup: a kit of one 6.12 backport, for 6.1, copied out of the repository' '
	mkdir -p kit/kernels kit/patches/pte &&
	cp "$SRC_DIR/kernels/6.1.yaml" "$SRC_DIR/kernels/mm.config" kit/kernels/ &&
	sed -n "1,/^  debian:/p" "$SRC_DIR/kernels/6.12.yaml" >kit/kernels/6.12.yaml &&
	test_grep "linux-source-6.12" kit/kernels/6.12.yaml &&
	cp "$SRC_DIR/patches/mremap-pte-batch/6.12/$PATCH" kit/patches/pte/ &&
	cat >kit/series.yaml <<-EOF &&
	series:
	  - id: pte
	    title: "the 6.12 backport of 94dab12d86cf, on 6.1"
	    patches:
	      - file: patches/pte/$PATCH
	        upstream: 94dab12d86cf
	EOF
	(cd kit && mkseries import --branch 6.1 >../import.out 2>&1 &&
	 mkseries import --branch 6.12 >>../import.out 2>&1) &&
	cat import.out &&
	index_to_repo "$PWD/kit/patches/pte/$PATCH" &&
	{ git -C "$REPO" rev-parse -q --verify "$(kit_ref "$TRASH_DIRECTORY/kit" 6.1)" >tip.before || :; } &&
	git -C "$REPO" for-each-ref --format="%(refname)" "refs/mkseries-backports/$(kit_id "$TRASH_DIRECTORY/kit")/6.1/" >keep.before
'

test_expect_success REAL_TREES 'the 6.12 backport does not apply on 6.1' '
	(cd kit && test_must_fail mkseries apply --branch 6.1 >../out 2>../err) &&
	test_grep "cannot apply .pte 1/1." err
'

test_expect_success REAL_TREES 'the loop merges it three-way in a work tree and stops at the conflicts' '
	(cd kit && test_expect_code 1 mkseries backport --branch 6.1 --workdir "$PWD/../wd" >../out 2>../err) &&
	cat out &&
	test_grep "conflict  mm/mremap.c" out &&
	grep -c "^<<<<<<< tree" wd/6.1/backport/tree/mm/mremap.c >nr &&
	test $(cat nr) -ge 1
'

test_expect_success REAL_TREES 'resolved by keeping the tree side of each conflict, --continue records it' '
	f=wd/6.1/backport/tree/mm/mremap.c &&
	awk "/^<<<<<<< /{m=1;next} /^=======\$/{if(m==1){m=2;next}} /^>>>>>>> /{if(m==2){m=0;next}} m!=2{print}" \
		$f >resolved && mv resolved $f &&
	(cd kit && mkseries backport --branch 6.1 --workdir "$PWD/../wd" --continue >../out 2>../err) &&
	cat out &&
	test_grep "recorded patches/pte/6.1/$PATCH" out &&
	test_grep "\"6.1\": { file: patches/pte/6.1/$PATCH }" kit/series.yaml &&
	test_grep "^commit 94dab12d86cf77ff0b8f667dc98af6d997422cb4 upstream.\$" kit/patches/pte/6.1/$PATCH &&
	test_grep "backported to 6.1; mm/mremap.c (conflict resolved) \]" kit/patches/pte/6.1/$PATCH &&
	! test -d wd/6.1/backport
'

test_expect_success REAL_TREES 'plain apply takes the recorded file' '
	git -C "$REPO" update-ref -d "$(kit_ref "$TRASH_DIRECTORY/kit" 6.1)" &&
	(cd kit && mkseries apply --branch 6.1 >../out 2>../err) &&
	cat out &&
	test_grep "applied   pte 1/1" out &&
	git -C "$REPO" diff --stat refs/tags/mkseries/base/6.1 "$(kit_ref "$TRASH_DIRECTORY/kit" 6.1)" >stat &&
	test_grep "mm/mremap.c" stat
'

test_expect_success REAL_TREES 'the kit in the repository is untouched; shared refs put back' '
	git -C "$SRC_DIR" status --porcelain -- series.yaml patches kernels >st &&
	test_must_be_empty st &&
	restore_refs
'

test_done

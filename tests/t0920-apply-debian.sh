#!/bin/sh
# t0920-apply-debian.sh: apply a small series with a fixup onto Debian's real linux-source-6.12 tree.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# The real trees are big: share their cache between the real-tree tests and runs.
export XDG_CACHE_HOME="$REAL_CACHE"

test_expect_success REAL_TREES 'setup: a kit for 6.12 with two patches and a fixup' '
	mkdir -p kit/kernels kit/patches/small &&
	cp "$TEST_DIRECTORY"/data/real-612/*.patch kit/patches/small/ &&
	cat >kit/kernels/6.12.yaml <<-\EOF_K &&
	name: "6.12"
	source:
	  debian: { package: linux-source-6.12, suite: bookworm }
	config:
	  base: tinyconfig
	EOF_K
	cat >kit/series.yaml <<-\EOF_S
	series:
	  - id: small
	    title: "comments for the real-tree test"
	    patches:
	      - file: patches/small/0001-mm-mremap-say-why-move_ptes-may-take-the-rmap-locks.patch
	        upstream: c410334bbfe6
	      - file: patches/small/0002-mm-madvise-note-how-process_madvise-walks-its-ranges.patch
	        upstream: bfe7a08e7727
	    fixups:
	      - file: patches/small/0003-mm-mremap-reword-the-rmap-lock-comment.patch
	        upstream: ad1bccbe5f7f
	        fixes: c410334bbfe6
	EOF_S
'

test_expect_success REAL_TREES 'import the real tree (downloads linux-source-6.12 once)' '
	(cd kit && mkseries import --branch 6.12 >../import.out 2>&1) &&
	cat import.out &&
	repo="$XDG_CACHE_HOME/mkseries/linux.git" &&
	git -C "$repo" cat-file -e refs/tags/mkseries/base/6.12:mm/mremap.c
'

test_expect_success REAL_TREES 'apply the series onto 6.12' '
	(cd kit && mkseries apply --branch 6.12 >../apply.out 2>&1) &&
	cat apply.out &&
	repo="$XDG_CACHE_HOME/mkseries/linux.git" &&
	git -C "$repo" log --format=%s refs/tags/mkseries/base/6.12..$(kit_ref kit 6.12) >subjects &&
	printf "%s\n" "mm/madvise: note how process_madvise() walks its ranges" \
		"mm/mremap: reword the rmap lock comment" \
		"mm/mremap: say why move_ptes() may take the rmap locks" >subjects.expect &&
	test_cmp subjects.expect subjects &&
	git -C "$repo" show $(kit_ref kit 6.12):mm/mremap.c >mremap.c &&
	test_grep "callers that can not" mremap.c &&
	git -C "$repo" log -1 --format=%B $(kit_ref kit 6.12)~2 >msg &&
	test_grep "^mm/mremap: say why move_ptes() may take the rmap locks$" msg &&
	test_grep "^commit c410334bbfe6[0-9a-f]\{28\} upstream\.$" msg &&
	git -C "$repo" diff --stat refs/tags/mkseries/base/6.12 $(kit_ref kit 6.12) >stat &&
	test_grep "2 files changed" stat
'

test_expect_success REAL_TREES 'applying again changes nothing' '
	repo="$XDG_CACHE_HOME/mkseries/linux.git" &&
	git -C "$repo" rev-parse $(kit_ref kit 6.12) >tip1 &&
	(cd kit && mkseries apply --branch 6.12 >again.out) &&
	test_grep "up to date" kit/again.out &&
	git -C "$repo" rev-parse $(kit_ref kit 6.12) >tip2 &&
	test_cmp tip1 tip2
'

test_done

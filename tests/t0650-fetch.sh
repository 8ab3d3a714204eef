#!/bin/sh
# t0650-fetch.sh: `mkseries fetch`: a series' patches from a mainline repository, or through b4 from an mbox.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"
. "$TEST_DIRECTORY/lib-mainline.sh"

# write_kit DIR: a kit over $PWD/up whose entries name upstream ids only.
write_kit() {
	git_yaml "$1" t "$PWD/up" v1.0 &&
	cat >"$1/series.yaml" <<-EOF_SERIES
	# fetched kit

	series:
	  - id: alpha   # the pte one
	    title: "mm: batch ptes"
	    patches:
	      - upstream: $(short $A1)
	        subject: "mm: rename ptes"
	      - { upstream: $(short $A2), subject: "mm: batch ptes" }
	    fixups:
	      - upstream: $(short $F1)
	        subject: "mm: fix batch ptes"
	        fixes: $(short $A2)   # the batching
	      - upstream: $(short $F2)
	        subject: "mm: fix the fix"
	        fixes: $(short $F1)

	  # madvise
	  - id: beta
	    title: "madvise: split locking"
	    patches:
	      - upstream: $(short $B1)
	        subject: "madvise: split locking"
	EOF_SERIES
}

test_expect_success 'setup: a mainline and a kit without patch files' '
	make_upstream up &&
	write_kit kit &&
	cp kit/series.yaml series.orig &&
	for v in A1 A2 F1 F2 B1; do eval "echo $v=\$$v"; done >ids
'
. ./ids

test_expect_success 'fetch --mainline writes one format-patch file per entry' '
	(cd kit && mkseries fetch alpha --mainline ../up >../out) &&
	cat >expect <<-EOF &&
	patches/alpha/0001-mm-rename-ptes.patch
	patches/alpha/0002-mm-batch-ptes.patch
	patches/alpha/0003-mm-fix-batch-ptes.patch
	patches/alpha/0004-mm-fix-the-fix.patch
	EOF
	(cd kit && ls patches/alpha/* >../got) &&
	test_cmp expect got &&
	test_grep "^alpha fixup 2/2: patches/alpha/0004-mm-fix-the-fix.patch" out
'

test_expect_success 'the files carry the headers, the message and the diff' '
	f=kit/patches/alpha/0002-mm-batch-ptes.patch &&
	test_grep -x "From $A2 Mon Sep 17 00:00:00 2001" $f &&
	test_grep -x "From: A U Thor <author@example.com>" $f &&
	test_grep -x "Date: $(git -C up log -1 --format=%aD $A2)" $f &&
	test_grep -x "Subject: \[PATCH\] mm: batch ptes" $f &&
	test_grep -x "Batch them." $f &&
	test_grep -x "Signed-off-by: Dev Eloper <dev@example.org>" $f &&
	git -C up diff $A2~1 $A2 >want.diff &&
	sed -n "/^diff --git/,\$p" $f >got.diff &&
	! test_grep "^libgit2 " $f &&
	test_cmp want.diff got.diff
'

test_expect_success 'file: is recorded on each entry; nothing else in series.yaml changes' '
	diff --old-line-format= --new-line-format=%L --unchanged-line-format= \
		series.orig kit/series.yaml >added || test $? = 1 &&
	cat >expect <<-EOF &&
	        file: patches/alpha/0001-mm-rename-ptes.patch
	      - { upstream: $(short $A2), subject: "mm: batch ptes", file: patches/alpha/0002-mm-batch-ptes.patch }
	        file: patches/alpha/0003-mm-fix-batch-ptes.patch
	        file: patches/alpha/0004-mm-fix-the-fix.patch
	EOF
	test_cmp expect added &&
	diff --old-line-format=%L --new-line-format= --unchanged-line-format= \
		series.orig kit/series.yaml >removed || test $? = 1 &&
	echo "      - { upstream: $(short $A2), subject: \"mm: batch ptes\" }" >expect &&
	test_cmp expect removed
'

test_expect_success 'apply works with the fetched patches' '
	(cd kit && mkseries fetch beta --mainline ../up >../out) &&
	test_grep "^beta 1/1: patches/beta/0001-madvise-split-locking.patch" out &&
	(cd kit && mkseries apply --branch t >../out 2>&1) &&
	test "$(mk_git up rev-parse $(kit_ref kit t)^{tree})" = "$(git -C up rev-parse $B1^{tree})"
'

test_expect_success 'patches that are there are not overwritten without --force' '
	echo "local edit" >>kit/patches/alpha/0001-mm-rename-ptes.patch &&
	cp kit/series.yaml series.before &&
	(cd kit && test_expect_code 1 mkseries fetch alpha --mainline ../up >../out 2>../err) &&
	test_grep -x "error: patches/alpha/0001-mm-rename-ptes.patch exists; use --force to overwrite" err &&
	test_grep -x "local edit" kit/patches/alpha/0001-mm-rename-ptes.patch &&
	test_cmp series.before kit/series.yaml &&
	(cd kit && mkseries fetch alpha --mainline ../up --force >../out) &&
	test_grep ! "local edit" kit/patches/alpha/0001-mm-rename-ptes.patch &&
	test_cmp series.before kit/series.yaml
'

test_expect_success 'errors: unknown series, commit not in the mainline, no message-id, no series' '
	(cd kit && test_expect_code 2 mkseries fetch nosuch --mainline ../up 2>../err) &&
	test_grep "unknown series .nosuch." err &&
	git init -q empty && (cd empty && test_commit a a) &&
	(cd kit && test_expect_code 1 mkseries fetch beta --mainline ../empty --force 2>../err) &&
	test_grep "beta 1/1: commit $(short $B1) is not in .../empty." err &&
	(cd kit && test_expect_code 2 mkseries fetch beta 2>../err) &&
	test_grep "series .beta. has no message-id" err &&
	(cd kit && test_expect_code 2 mkseries fetch 2>../err) &&
	test_grep "which series" err &&
	(cd kit && test_expect_code 2 mkseries fetch beta --mainline ../nowhere 2>../err) &&
	test_grep "nowhere" err
'

test_expect_success B4 'b4: a series fetched by message-id from a local mbox' '
	git clone -q --bare up up2 &&
	git -C up format-patch -q --thread --cover-letter -o "$PWD/mails" v1.0..$A2 &&
	test_grep -i "^message-id: <" mails/0001-mm-rename-ptes.patch &&
	cat mails/*.patch >series.mbox &&
	msgid=$(sed -n "s/^Message-I[dD]: <\(.*\)>\$/\1/p" mails/0000-cover-letter.patch) &&
	test -n "$msgid" &&
	mkdir -p kit2/kernels &&
	sed "s|$PWD/up,|$PWD/up2,|" kit/kernels/t.yaml >kit2/kernels/t.yaml &&
	cat >kit2/series.yaml <<-EOF &&
	series:
	  - id: alpha
	    title: "mm: batch ptes"
	    link: https://lore.kernel.org/r/$msgid
	    patches:
	      - subject: "mm: rename ptes"
	        upstream: $(short $A1)
	      - subject: "mm: batch ptes"
	        upstream: $(short $A2)
	EOF
	(cd kit2 && mkseries fetch alpha --mbox ../series.mbox >../out 2>../err) &&
	(cd kit2 && ls patches/alpha/* >../got) &&
	printf "%s\n" patches/alpha/0001-mm-rename-ptes.patch patches/alpha/0002-mm-batch-ptes.patch >expect &&
	test_cmp expect got &&
	test_grep -x "Subject: \[PATCH 2/2\] mm: batch ptes" kit2/patches/alpha/0002-mm-batch-ptes.patch &&
	test_grep "^Message-I[dD]: <" kit2/patches/alpha/0002-mm-batch-ptes.patch &&
	test_grep -x "+int batch(void)" kit2/patches/alpha/0002-mm-batch-ptes.patch &&
	test_grep -x "        file: patches/alpha/0002-mm-batch-ptes.patch" kit2/series.yaml &&
	(cd kit2 && mkseries apply --branch t >../out 2>&1) &&
	test "$(mk_git up2 rev-parse $(kit_ref kit2 t)^{tree})" = "$(git -C up rev-parse $A2^{tree})"
'

test_expect_success B4 'b4: a message-id that is not in the mbox' '
	(cd kit2 && sed -i "s|link: .*|message-id: <nosuch@example.org>|" series.yaml &&
	 test_expect_code 1 mkseries fetch alpha --mbox ../series.mbox --force 2>../err) &&
	test_grep "b4 found no series for <nosuch@example.org> in .\.\.\/series.mbox." err
'

test_expect_success B4 'b4: lore not reachable is said in words, with what to do instead' '
	git config --global b4.midmask "http://127.0.0.1:9/all/%s" &&
	test_when_finished "git config --global --unset b4.midmask" &&
	(cd kit2 && test_expect_code 1 mkseries fetch alpha --force 2>../err) &&
	test_grep "^error: lore is not reachable: b4 could not fetch <nosuch@example.org>$" err &&
	test_grep "or fetch with --mbox FILE or --mainline DIR$" err &&
	test_grep ! Traceback err
'

test_done

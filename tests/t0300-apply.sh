#!/bin/sh
# t0300-apply.sh: mkseries apply writes one stable-style commit per patch, in memory, all or nothing.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: upstream repository and kit' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b work v1.0 &&
	echo "local change" >>linux/mm/madvise.c &&
	git -C linux rev-parse HEAD >head.before &&
	git -C linux status --porcelain >status.before &&
	test -s status.before
'

test_expect_success 'apply writes refs/heads/mkseries/t with one commit per patch' '
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	cat out &&
	test_grep "t: refs/heads/mkseries/t ->" out &&
	git -C linux rev-list v1.0..mkseries/t >commits &&
	test $(wc -l <commits) = 5
'

test_expect_success 'the user HEAD, index and working tree are untouched' '
	git -C linux rev-parse HEAD >head.after &&
	test_cmp head.before head.after &&
	git -C linux status --porcelain >status.after &&
	test_cmp status.before status.after &&
	git -C linux symbolic-ref HEAD >sym &&
	echo refs/heads/work >sym.expect &&
	test_cmp sym.expect sym
'

test_expect_success 'the applied tree equals upstream' '
	test "$(git -C linux rev-parse mkseries/t^{tree})" = "$(git -C linux rev-parse master^{tree})"
'

test_expect_success 'commits keep the upstream author and date, in the stable style' '
	git -C linux log -1 --format="%an <%ae> %at" "$A2" >want &&
	git -C linux log -1 --format="%an <%ae> %at" mkseries/t~3 >got &&
	test_cmp want got &&
	git -C linux log -1 --format=%B mkseries/t~3 >msg &&
	head -1 msg >subject &&
	echo "mm: batch ptes" >subject.expect &&
	test_cmp subject.expect subject &&
	sed -n 3p msg >upline &&
	echo "commit ${A2%${A2#????????????}} upstream." >upline.expect &&
	test_cmp upline.expect upline &&
	grep "^Signed-off-by:" msg | tail -2 >sobs &&
	printf "%s\n" "Signed-off-by: Dev Eloper <dev@example.org>" \
		"Signed-off-by: Back Porter <backporter@example.com>" >sobs.expect &&
	test_cmp sobs.expect sobs &&
	git -C linux log -1 --format="%cn <%ce>" mkseries/t >committer &&
	echo "Back Porter <backporter@example.com>" >committer.expect &&
	test_cmp committer.expect committer
'

test_expect_success 'the backporter signs off once' '
	git -C linux log --format=%B v1.0..mkseries/t >all &&
	test $(grep -c "Signed-off-by: Back Porter" all) = 5
'

test_expect_success 'fixups follow the patch they fix, fixes of fixes after them' '
	git -C linux log --reverse --format=%s v1.0..mkseries/t >order &&
	printf "%s\n" "mm: rename ptes" "mm: batch ptes" "mm: fix batch ptes" \
		"mm: fix the fix" "madvise: split locking" >order.expect &&
	test_cmp order.expect order
'

test_expect_success 'the ref update is in the reflog' '
	git -C linux reflog show mkseries/t >reflog &&
	test_grep "mkseries apply" reflog
'

test_expect_success 'applying twice gives the same branch' '
	git -C linux rev-parse mkseries/t >tip1 &&
	(cd kit && mkseries apply --branch t >../out2) &&
	test_grep "up to date" out2 &&
	git -C linux rev-parse mkseries/t >tip2 &&
	test_cmp tip1 tip2
'

test_expect_success 'a patch already in the tree is found, not applied twice' '
	git -C linux branch -f mkseries/t v1.0 &&
	mkdir -p kit2 && cp -r kit/patches kit2/ && mkdir -p kit2/kernels &&
	sed "s/ref: v1.0/ref: $A1/" kit/kernels/t.yaml >kit2/kernels/t.yaml &&
	cp kit/series.yaml kit2/ &&
	(cd kit2 && mkseries apply --branch t >../out3) &&
	test_grep "found .*alpha 1/2.*already in the tree" out3 &&
	git -C linux rev-list $A1..mkseries/t >commits3 &&
	test $(wc -l <commits3) = 4
'

test_expect_success 'a patch that does not apply: exit 1, a report, the ref not moved' '
	(cd kit && mkseries apply --branch t >/dev/null) &&
	git -C linux rev-parse mkseries/t >tip.before &&
	cp -r kit kitc &&
	sed -i "s/^-line 4/-line FOUR/; s/^ line 3/ line three/" kitc/patches/beta/0001-madvise-split-locking.patch &&
	(cd kitc && test_expect_code 1 mkseries apply --branch t >../out4 2>../err4) &&
	cat err4 &&
	test_grep "cannot apply .beta 1/1" err4 &&
	test_grep "mm/madvise.c" err4 &&
	test_grep "hunk 1" err4 &&
	test_grep "line 4" err4 &&
	test_grep "nothing applied" err4 &&
	git -C linux rev-parse mkseries/t >tip.after &&
	test_cmp tip.before tip.after
'

test_expect_success 'a patch reaching outside the tree is refused' '
	mkdir -p evil/kernels evil/patches &&
	cp kit/kernels/t.yaml evil/kernels/ &&
	cat >evil/patches/0001-evil.patch <<-\EOF &&
	From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
	From: Evil <evil@example.org>
	Date: Mon, 1 Jan 2024 00:00:00 +0000
	Subject: [PATCH] evil

	Signed-off-by: Evil <evil@example.org>
	---
	diff --git a/../outside b/../outside
	new file mode 100644
	index 0000000..e69de29
	--- /dev/null
	+++ b/../outside
	@@ -0,0 +1 @@
	+pwned
	EOF
	cat >evil/series.yaml <<-\EOF &&
	series:
	  - id: evil
	    title: evil
	    patches:
	      - file: patches/0001-evil.patch
	        subject: evil
	EOF
	(cd evil && test_expect_code 1 mkseries apply --branch t >out 2>err) &&
	cat evil/err &&
	test_grep "outside\|leaves the tree" evil/err &&
	test ! -e outside && test ! -e linux/../outside
'

test_expect_success 'a second mkseries on the same repository is refused' '
	flock linux/.git/mkseries.lock sh -c "cd kit && mkseries apply --branch t >../out5 2>../err5; echo \$? >../code5" &&
	echo 1 >code5.expect &&
	test_cmp code5.expect code5 &&
	test_grep "locked by another mkseries" err5
'

test_expect_success 'a checked-out mkseries branch is not moved' '
	git -C linux worktree add -q ../wt mkseries/t &&
	(cd kit && test_expect_code 1 mkseries apply --branch t 2>../err6) &&
	test_grep "checked out" err6 &&
	git -C linux worktree remove ../wt
'

test_done

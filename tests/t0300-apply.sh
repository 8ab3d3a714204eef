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

test_expect_success 'apply writes refs/heads/mkseries/<kit id>/t with one commit per patch' '
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	cat out &&
	test_grep "t: $(kit_ref kit t) ->" out &&
	mk_git linux rev-list $(git -C linux rev-parse v1.0)..$(kit_ref kit t) >commits &&
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
	test "$(mk_git linux rev-parse $(kit_ref kit t)^{tree})" = "$(git -C linux rev-parse master^{tree})"
'

test_expect_success 'commits keep the upstream author and date, in the stable style' '
	git -C linux log -1 --format="%an <%ae> %at" "$A2" >want &&
	mk_git linux log -1 --format="%an <%ae> %at" $(kit_ref kit t)~3 >got &&
	test_cmp want got &&
	mk_git linux log -1 --format=%B $(kit_ref kit t)~3 >msg &&
	head -1 msg >subject &&
	echo "mm: batch ptes" >subject.expect &&
	test_cmp subject.expect subject &&
	sed -n 3p msg >upline &&
	echo "commit $A2 upstream." >upline.expect &&
	test_cmp upline.expect upline &&
	grep "^Signed-off-by:" msg | tail -2 >sobs &&
	printf "%s\n" "Signed-off-by: Dev Eloper <dev@example.org>" \
		"Signed-off-by: Back Porter <backporter@example.com>" >sobs.expect &&
	test_cmp sobs.expect sobs &&
	mk_git linux log -1 --format="%cn <%ce>" $(kit_ref kit t) >committer &&
	echo "Back Porter <backporter@example.com>" >committer.expect &&
	test_cmp committer.expect committer
'

test_expect_success 'the backporter signs off once' '
	mk_git linux log --format=%B $(git -C linux rev-parse v1.0)..$(kit_ref kit t) >all &&
	test $(grep -c "Signed-off-by: Back Porter" all) = 5
'

test_expect_success 'a stable-style backport note and the trailers around it are kept as the file has them' '
	cp -r kit kit-note &&
	f=kit-note/patches/alpha/0001-mm-rename-ptes.patch &&
	sed "/^Signed-off-by: Dev Eloper/a\\
Cc: Some One <one@example.org>,\\
  Another <two@example.org>\\
[ Back Porter: the rename, done on t\\
  where the names differ ]" "$f" >note.patch &&
	test_grep "^\\[ Back Porter: the rename, done on t$" note.patch &&
	mv note.patch "$f" &&
	(cd kit-note && mkseries apply --branch t >../out) &&
	mk_git linux log -1 --format=%B $(kit_ref kit-note t)~4 >msg &&
	sed -n "/^Signed-off-by: Dev Eloper/,\$p" msg | sed "/^\$/d" >tail &&
	printf "%s\n" "Signed-off-by: Dev Eloper <dev@example.org>" \
		"Cc: Some One <one@example.org>," "  Another <two@example.org>" \
		"[ Back Porter: the rename, done on t" "  where the names differ ]" \
		"Signed-off-by: Back Porter <backporter@example.com>" >tail.expect &&
	test_cmp tail.expect tail
'

test_expect_success 'fixups follow the patch they fix, fixes of fixes after them' '
	mk_git linux log --reverse --format=%s $(git -C linux rev-parse v1.0)..$(kit_ref kit t) >order &&
	printf "%s\n" "mm: rename ptes" "mm: batch ptes" "mm: fix batch ptes" \
		"mm: fix the fix" "madvise: split locking" >order.expect &&
	test_cmp order.expect order
'

test_expect_success 'the ref update is in the reflog' '
	mk_git linux reflog show $(kit_ref kit t) >reflog &&
	test_grep "mkseries apply" reflog
'

test_expect_success 'applying twice gives the same branch' '
	mk_git linux rev-parse $(kit_ref kit t) >tip1 &&
	(cd kit && mkseries apply --branch t >../out2) &&
	test_grep "up to date" out2 &&
	mk_git linux rev-parse $(kit_ref kit t) >tip2 &&
	test_cmp tip1 tip2
'

test_expect_success 'a patch already in the tree is found by the plan, not applied twice' '
	mkdir -p kit2 && cp -r kit/patches kit2/ && mkdir -p kit2/kernels &&
	sed "s/ref: v1.0/ref: $A1/" kit/kernels/t.yaml >kit2/kernels/t.yaml &&
	cp kit/series.yaml kit2/ &&
	(cd kit2 && mkseries plan --branch t >../plan3) &&
	test_grep "^    present  alpha 1/2 " plan3 &&
	test_grep "already in the tree: every change of patches/alpha/0001-mm-rename-ptes.patch is there (1 part, 1 file)" plan3 &&
	(cd kit2 && mkseries apply --branch t >../out3) &&
	test_grep "(4 commits, 0 squashed, 0 already in the tree; plan: 1 present, 0 skipped)" out3 &&
	mk_git linux rev-list $A1..$(kit_ref kit2 t) >commits3 &&
	test $(wc -l <commits3) = 4
'

test_expect_success 'a series with no file for the branch: one error for it, with the line that settles it' '
	cp -R kit kit-nofile &&
	perl -0pi -e "s/- file: patches\/alpha\/\S+\n\s+upstream:/- upstream:/g" kit-nofile/series.yaml &&
	test_grep ! "patches/alpha" kit-nofile/series.yaml &&
	(cd kit-nofile && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	cat err &&
	test "$(grep -c "^error:" err)" = 1 &&
	test_grep "^error: series.yaml:3: series .alpha. has no patch file for .t. (1/2, 2/2, fixup 1/2 and 1 more): decide for the branch in one line under the series. branches: \"t\": { present: \"why\" } when its tree has the series, { skip: \"why\" } to leave it out, or { patches: DIR } with a backport of each patch; or fetch the series. own patches: mkseries fetch alpha$" err &&
	sed -i "s/^    title: \"mm: batch ptes\"$/&\n    branches:\n      \"t\": { skip: \"not for t\" }/" kit-nofile/series.yaml &&
	(cd kit-nofile && mkseries plan --branch t >../out 2>../err) &&
	test_grep "series skipped: not for t" out
'

test_expect_success 'a patch that does not apply: exit 1, a report, the ref not moved' '
	(cd kit && mkseries apply --branch t >/dev/null) &&
	mk_git linux rev-parse $(kit_ref kit t) >tip.before &&
	cp -r kit kitc &&
	sed -i "s/^-line 4/-line FOUR/; s/^ line 3/ line three/" kitc/patches/beta/0001-madvise-split-locking.patch &&
	(cd kitc && test_expect_code 1 mkseries apply --branch t >../out4 2>../err4) &&
	cat err4 &&
	test_grep "cannot apply .beta 1/1" err4 &&
	test_grep "mm/madvise.c" err4 &&
	test_grep "^  mm/madvise.c: hunk (@@ -1,7 +1,7 @@) does not apply$" err4 &&
	test_grep "line 4" err4 &&
	test_grep "^t: CONFLICT: nothing applied; .$(kit_ref kitc t). not created$" out4 &&
	test_grep "the 4 entries before it apply, but a branch is applied whole or not at all: nothing was committed" err4 &&
	test_grep ! "^  applied" out4 &&
	test_grep ! "000000000000" out4 &&
	mk_git linux rev-parse $(kit_ref kit t) >tip.after &&
	test_cmp tip.before tip.after &&
	! mk_git linux rev-parse -q --verify $(kit_ref kitc t)
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

test_expect_success 'an apply step that hangs is stopped after MKSERIES_APPLY_TIMEOUT, the ref kept' '
	cp -r kit kith &&
	(cd kith && mkseries apply --branch t >../outh1) &&
	mk_git linux rev-parse $(kit_ref kith t) >tiph.before &&
	sed -i "s/^Date: .*/Date: Tue, 2 Jan 2024 00:00:00 +0000/" \
		kith/patches/alpha/0001-mm-rename-ptes.patch &&
	(cd kith && MKSERIES_APPLY_TIMEOUT=1 MKSERIES_TEST_APPLY_STALL=beta/0001 \
		test_expect_code 1 mkseries apply --branch t >../outh2 2>../errh2) &&
	cat errh2 &&
	test_grep "applying .patches/beta/0001-madvise-split-locking.patch. onto .t. took more than 1 s" errh2 &&
	test_grep "no ref was moved, the repository is unchanged" errh2 &&
	mk_git linux rev-parse $(kit_ref kith t) >tiph.after &&
	test_cmp tiph.before tiph.after &&
	(cd kith && mkseries apply --branch t >../outh3 2>../errh3) &&
	mk_git linux rev-parse $(kit_ref kith t) >tiph.next &&
	! test_cmp tiph.before tiph.next &&
	test "$(mk_git linux rev-parse $(kit_ref kith t)^{tree})" = "$(git -C linux rev-parse master^{tree})"
'

test_expect_success 'a second mkseries on the same repository is refused' '
	while_locked mkseries apply --branch t &&
	echo 1 >code.expect &&
	test_cmp code.expect code &&
	test_grep "locked by another mkseries" err
'

test_expect_success 'a checked-out mkseries branch is not moved' '
	mk_git linux worktree add -q wt mkseries/$(kit_id kit)/t &&
	(cd kit && test_expect_code 1 mkseries apply --branch t 2>../err6) &&
	test_grep "checked out" err6 &&
	mk_git linux worktree remove wt
'

SQ="'"

test_expect_success 'setup: variants of t, each leaving something out' '
	cp -r kit kitv &&
	cat >>kitv/kernels/t.yaml <<-EOF
	variants:
	  no-fix: { without: [$(short $F1)] }
	  no-beta: { without: [$(short $B1)] }
	  no-batch: { without: [$(short $A2)] }
	EOF
'

test_expect_success 'apply writes the kit, then a branch per variant, one line each' '
	(cd kitv && mkseries apply -q --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^t: $(kit_ref kitv t) " out &&
	test_grep "^t no-fix: $(kit_ref kitv t no-fix) -> [0-9a-f]* (3 commits, 2 shared with the kit, 0 squashed; without $(short $F1))$" out &&
	test_grep "^t no-beta: $(kit_ref kitv t no-beta) -> [0-9a-f]* (4 commits, 4 shared with the kit, 0 squashed; without $(short $B1))$" out &&
	test_grep "^t no-batch: $(kit_ref kitv t no-batch) -> [0-9a-f]* (2 commits, 1 shared with the kit, 0 squashed; without $(short $A2))$" out &&
	test $(wc -l <out) = 4
'

test_expect_success 'commits shared with the kit have the kit commits ids' '
	test "$(mk_git linux rev-parse $(kit_ref kitv t no-beta))" = "$(mk_git linux rev-parse $(kit_ref kitv t)~1)" &&
	test "$(mk_git linux rev-parse $(kit_ref kitv t no-fix)~1)" = "$(mk_git linux rev-parse $(kit_ref kitv t)~3)" &&
	test "$(mk_git linux rev-parse $(kit_ref kitv t no-batch)~1)" = "$(mk_git linux rev-parse $(kit_ref kitv t)~4)" &&
	test "$(mk_git linux rev-parse $(kit_ref kitv t no-batch)~2)" = "$(git -C linux rev-parse v1.0)"
'

test_expect_success 'a variant leaves out its entries and the fixups of them' '
	mk_git linux log --reverse --format=%s $(git -C linux rev-parse v1.0)..$(kit_ref kitv t no-fix) >order &&
	printf "%s\n" "mm: rename ptes" "mm: batch ptes" "madvise: split locking" >order.expect &&
	test_cmp order.expect order &&
	mk_git linux show $(kit_ref kitv t no-fix):mm/mremap.c >mremap.c &&
	test_grep "return 1;" mremap.c &&
	mk_git linux log --reverse --format=%s $(git -C linux rev-parse v1.0)..$(kit_ref kitv t no-batch) >order &&
	printf "%s\n" "mm: rename ptes" "madvise: split locking" >order.expect &&
	test_cmp order.expect order
'

test_expect_success 'applying again: the kit and every variant are up to date' '
	mk_git linux for-each-ref --format="%(objectname) %(refname)" refs/heads/mkseries refs/heads/mkseries-variants >refs1 &&
	(cd kitv && mkseries apply -q --branch t >../out) &&
	cat out &&
	test $(grep -c "up to date at" out) = 4 &&
	mk_git linux for-each-ref --format="%(objectname) %(refname)" refs/heads/mkseries refs/heads/mkseries-variants >refs2 &&
	test_cmp refs1 refs2 &&
	mk_git linux reflog show $(kit_ref kitv t no-fix) >reflog &&
	test_grep "mkseries apply" reflog
'

test_expect_success 'a variant that does not apply fails alone, exit 1' '
	cp -r kitv kitr &&
	mkdir -p kitr/patches/gamma &&
	cat >kitr/patches/gamma/0001-count.patch <<-\EOF &&
	From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
	From: Dev Eloper <dev@example.org>
	Date: Mon, 1 Jan 2024 00:00:00 +0000
	Subject: [PATCH] mm: count pteps

	Signed-off-by: Dev Eloper <dev@example.org>
	---
	diff --git a/mm/mremap.c b/mm/mremap.c
	--- a/mm/mremap.c
	+++ b/mm/mremap.c
	@@ -1,4 +1,4 @@
	-static int move_pteps(void)
	+static int move_pteps(int n)
	 {
	 	return 0;
	 }
	EOF
	cat >>kitr/series.yaml <<-\EOF &&
	  - id: gamma
	    title: "mm: count pteps"
	    requires: [alpha]
	    patches:
	      - file: patches/gamma/0001-count.patch
	EOF
	cat >>kitr/kernels/t.yaml <<-EOF &&
	  no-rename: { without: [$(short $A1)] }
	EOF
	(cd kitr && test_expect_code 1 mkseries apply -q --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^t: $(kit_ref kitr t) -> " out &&
	test_grep "^t no-fix: $(kit_ref kitr t no-fix) -> .* (4 commits, 2 shared" out &&
	test_grep "^t no-rename: CONFLICT without $(short $A1): nothing applied; .$(kit_ref kitr t no-rename). not created$" out &&
	test_grep "^error: cannot apply .gamma 1/1. (mm: count pteps) onto .t. (variant .no-rename.)$" err &&
	test_grep "mm/mremap.c" err &&
	test_must_fail mkseries --kit kitr build --branch t --variant no-rename --workdir wd >out 2>err &&
	test_grep "^t no-rename: no applied branch $(kit_ref kitr t no-rename): run mkseries apply --branch t$" out &&
	mk_git linux log -1 --format=%s $(kit_ref kitr t) >subject &&
	echo "mm: count pteps" >subject.expect &&
	test_cmp subject.expect subject
'

# one_patch_kit DIR PATCH: a kit of branch t whose one series applies PATCH.
one_patch_kit() {
	mkdir -p "$1/kernels" "$1/patches" &&
	cp kit/kernels/t.yaml "$1/kernels/" &&
	cp "$2" "$1/patches/0001.patch" &&
	cat >"$1/series.yaml" <<-\EOF
	series:
	  - id: one
	    title: one
	    patches:
	      - file: patches/0001.patch
	EOF
}

test_expect_success 'setup: binary patches made by git format-patch --binary' '
	git clone -q linux bin &&
	git -C bin checkout -q -b blob v1.0 &&
	mkdir bin/firmware &&
	perl -e "srand(7); print map { chr(int(rand(256))) } 1..3001" >bin/firmware/blob.bin &&
	echo "line 8" >>bin/mm/madvise.c &&
	git -C bin add firmware/blob.bin mm/madvise.c &&
	git -C bin commit -q -m "firmware: add the blob" &&
	git -C bin format-patch -q --binary -1 --stdout >blob.patch &&
	git -C bin checkout -q -b lastbin v1.0 &&
	echo "line 8" >>bin/mm/madvise.c &&
	perl -e "srand(8); print map { chr(int(rand(256))) } 1..700" >bin/mm/zz-table.bin &&
	git -C bin add mm/zz-table.bin mm/madvise.c &&
	git -C bin commit -q -m "mm: add a table" &&
	git -C bin format-patch -q --binary -1 --stdout >lastbin.patch &&
	tail -n 6 lastbin.patch >tail &&
	test_grep "^literal 0$" tail &&
	test_grep "literal 3001" blob.patch
'

test_expect_success 'a format-patch whose last file is binary applies as git am applies it' '
	one_patch_kit kitlb lastbin.patch &&
	(cd kitlb && mkseries apply --branch t >../out 2>../err) &&
	cat out err &&
	test "$(mk_git linux rev-parse $(kit_ref kitlb t)^{tree})" = "$(git -C bin rev-parse lastbin^{tree})"
'

test_expect_success 'a corrupt binary patch is refused at once, naming the file, line and path' '
	awk "/^literal 3001/ { lit = NR } lit && NR == lit + 3 { next } { print }" blob.patch >bad.patch &&
	! cmp -s blob.patch bad.patch &&
	mk_git linux rev-parse $(kit_ref kitlb t) >tip.before &&
	one_patch_kit kitbad bad.patch &&
	(cd kitbad && test_expect_code 1 timeout 60 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "from patches/0001.patch" err &&
	test_grep "line [0-9]*: corrupt binary patch for .firmware/blob.bin." err &&
	mk_git linux rev-parse $(kit_ref kitlb t) >tip.after &&
	! mk_git linux rev-parse -q --verify $(kit_ref kitbad t) &&
	test_cmp tip.before tip.after &&
	one_patch_kit kitgood blob.patch &&
	(cd kitgood && mkseries apply --branch t >../out) &&
	test "$(mk_git linux rev-parse $(kit_ref kitgood t)^{tree})" = "$(git -C bin rev-parse blob^{tree})"
'

test_expect_success 'a variant can add a patch the kit skips on its branch (with:)' '
	cp -r kit kitw &&
	sed -i "/^  - id: beta/,\$ s|^      - file: patches/beta/0001-madvise-split-locking.patch|&\n        branches:\n          t: { skip: \"the review chose another way\" }|" kitw/series.yaml &&
	cat >>kitw/kernels/t.yaml <<-EOF &&
	variants:
	  other-way:
	    with: [patches/beta/0001-madvise-split-locking.patch]
	    note: "the way review turned down"
	EOF
	cat kitw/series.yaml &&
	(cd kitw && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    skip     beta 1/1 " out &&
	test_grep "^             skipped: the review chose another way$" out &&
	test_grep "^variant other-way: apply beta 1/1 ($(short $B1)): added by variant ${SQ}other-way${SQ} (the kit skips it: the review chose another way)$" out &&
	(cd kitw && mkseries apply -q --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^t other-way: $(kit_ref kitw t other-way) -> [0-9a-f]* (5 commits, 4 shared with the kit, 0 squashed; with beta 1/1)$" out &&
	mk_git linux log --format=%s -1 $(kit_ref kitw t other-way) >tip &&
	echo "madvise: split locking" >tip.expect &&
	test_cmp tip.expect tip &&
	test "$(mk_git linux rev-parse $(kit_ref kitw t other-way)~1)" = "$(mk_git linux rev-parse $(kit_ref kitw t))" &&
	(cd kitw && mkseries plan --format json >../plan.json) &&
	jq -r ".branches[] | select(.name == \"t\") | .variants[0].with[0].patch" plan.json >with &&
	echo "beta 1/1" >with.expect &&
	test_cmp with.expect with
'

test_expect_success 'with: names only patches the kit skips there by their own decision' '
	cp -r kitw kitw2 &&
	sed -i "s|with: \[patches/beta/0001-madvise-split-locking.patch\]|with: [$(short $A1)]|" kitw2/kernels/t.yaml &&
	(cd kitw2 && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	cat err &&
	test_grep "kernels/t.yaml:[0-9]*: variant ${SQ}other-way${SQ} adds ${SQ}alpha 1/2${SQ}, which is not a patch the kit skips on t by its own decision" err
'

test_expect_success 'two kits applying branch t to one repository keep their own refs' '
	cp -r kit kitone &&
	sed -i "/^  - id: beta/,\$d" kitone/series.yaml &&
	(cd kit && mkseries apply --branch t >../out) &&
	mk_git linux rev-parse $(kit_ref kit t) >tip.kit &&
	(cd kitone && mkseries apply --branch t >../out) &&
	test_grep "^t: $(kit_ref kitone t) -> .* (4 commits" out &&
	mk_git linux rev-parse $(kit_ref kit t) >tip.kit.after &&
	test_cmp tip.kit tip.kit.after &&
	mk_git linux log -1 --format=%s $(kit_ref kitone t) >one.tip &&
	echo "mm: fix the fix" >one.expect &&
	test_cmp one.expect one.tip &&
	(cd kit && mkseries apply --branch t >../out) &&
	test_grep "up to date" out &&
	mk_git linux reflog show $(kit_ref kit t) >reflog &&
	test_grep ! "4 commits" reflog
'

test_expect_success 'a kit id is stable for one checkout and differs between checkouts' '
	test "$(kit_id kit)" = "$(kit_id "$TRASH_DIRECTORY/kit/")" &&
	test "$(kit_id kit)" != "$(kit_id kitone)" &&
	mkdir "odd name.d" && cp -r kit/* "odd name.d"/ &&
	(cd "odd name.d" && mkseries apply --branch t >../out) &&
	case "$(kit_id "odd name.d")" in
	odd-name-d-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
	*) false ;;
	esac &&
	mk_git linux rev-parse -q --verify $(kit_ref "odd name.d" t)
'

test_done

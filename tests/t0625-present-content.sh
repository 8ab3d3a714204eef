#!/bin/sh
# t0625-present-content.sh: "present" by what the tree has: a stable commit that carries part of X, one that carries all of it under other context, X merged with no stable wording; plan and apply agree.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: upstream X touching two files in three hunks, and stable branches' '
	git init -q up &&
	mkdir up/mm &&
	{
		printf "int a(void)\n{\n\treturn 0;\n}\n" &&
		for i in 1 2 3 4 5 6 7 8 9 10; do printf "/* filler %s */\n" $i; done &&
		printf "int b(void)\n{\n\treturn 0;\n}\n"
	} >up/mm/a.c &&
	printf "int c(void)\n{\n\treturn 0;\n}\n" >up/mm/b.c &&
	git -C up add -A && git -C up commit -q -m "Linux 1.0" && git -C up tag v1.0 &&
	sed -i "3s/^/\tlock_a();\n/" up/mm/a.c &&
	sed -i "s/^int b(void)$/&\n{\n\tunlock_b();/; /unlock_b/{n;/^{$/d}" up/mm/a.c &&
	sed -i "s/return 0;/return 1;/" up/mm/b.c &&
	git -C up commit -q -a -m "mm: lock a, unlock b, c returns 1" \
		-m "Signed-off-by: Up Stream <up@example.org>" &&
	X=$(git -C up rev-parse HEAD) &&
	git -C up show --stat --format= HEAD >stat &&
	test_grep "2 files changed, 3 insertions(+), 1 deletion(-)" stat &&
	git -C up diff v1.0 HEAD -- mm/a.c >a.diff &&
	test $(grep -c "^@@" a.diff) = 2 &&

	# v1.0.1: a stable rewrite that names X and carries only its first hunk
	git -C up checkout -q -b partial v1.0 &&
	sed -i "3s/^/\tlock_a();\n/" up/mm/a.c &&
	git -C up commit -q -a -m "mm: lock a" -m "commit $X upstream." \
		-m "[ backporter: only the part of a() applies to 1.0 ]" &&
	git -C up tag v1.0.1 &&

	# v1.0.2: an older tree whose context differs, and X carried whole on it
	git -C up checkout -q -b context v1.0 &&
	sed -i "s/^int a(void)$/int a(int old)/; s/^int b(void)$/static int b(void)/" up/mm/a.c &&
	sed -i "s/^int c(void)$/static int c(void)/" up/mm/b.c &&
	git -C up commit -q -a -m "mm: the older tree" &&
	sed -i "3s/^/\tlock_a();\n/" up/mm/a.c &&
	sed -i "s/^static int b(void)$/&\n{\n\tunlock_b();/; /unlock_b/{n;/^{$/d}" up/mm/a.c &&
	sed -i "s/return 0;/return 1;/" up/mm/b.c &&
	git -C up commit -q -a -m "mm: lock a, unlock b, c returns 1" -m "[ Upstream commit $X ]" &&
	git -C up tag v1.0.2 &&
	test_must_fail git -C up apply --check -R ../a.diff 2>/dev/null &&
	git -C up checkout -q master &&

	mkdir -p kit/kernels kit/patches/locks &&
	git -C up format-patch -q -o "$TRASH_DIRECTORY/kit/patches/locks" v1.0..master &&
	cat >kit/series.yaml <<-EOF &&
	series:
	  - id: locks
	    title: "mm: locks"
	    patches:
	      - file: patches/locks/0001-mm-lock-a-unlock-b-c-returns-1.patch
	        upstream: $X
	        subject: "mm: lock a, unlock b, c returns 1"
	EOF
	cp kit/series.yaml series.yaml.orig &&
	echo "X=$X" >ids &&
	echo "S1=$(git -C up rev-parse v1.0.1)" >>ids &&
	echo "S2=$(git -C up rev-parse v1.0.2)" >>ids
'
. ./ids

test_expect_success 'a stable commit with part of X: plan says partial, with the hunks missing' '
	follow_up_ref v1.0.1 &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    partial  locks 1/1 " out &&
	test_grep "stable commit $(echo $S1 | cut -c1-12) (\"mm: lock a\") in v1.0.1 says it is upstream commit $X (v1.0..v1.0.1), but the tree has 1 of the 3 hunks of patches/locks/0001-mm-lock-a-unlock-b-c-returns-1.patch; missing: mm/a.c hunk 2 of 2 (@@ -14,5 +15,6 @@), mm/b.c hunk 1 of 1 (@@ -1,4 +1,4 @@)\$" out &&
	test_grep "^t: 0 to apply, 0 squashed, 0 present, 0 skipped, 1 partial: apply refuses until series.yaml decides\$" out
'

test_expect_success 'partial: the JSON plan carries the stable commit and the missing parts' '
	(cd kit && mkseries plan --branch t --format json >../plan.json) &&
	python3 - "$S1" <<-\EOF
	import json, sys
	it = json.load(open("plan.json"))["branches"][0]["items"][0]
	assert it["action"] == "partial", it
	assert it["stable_commit"] == sys.argv[1], it
	assert it["in_tree"] == "some", it
	assert it["missing"] == [
	    {"file": "mm/a.c", "hunk": 2, "hunks": 2, "what": "@@ -14,5 +15,6 @@"},
	    {"file": "mm/b.c", "hunk": 1, "hunks": 1, "what": "@@ -1,4 +1,4 @@"},
	], it["missing"]
	EOF
'

test_expect_success 'partial: apply refuses with the same evidence, and writes no branch' '
	(cd kit && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "^error: refusing to apply .locks 1/1. ($X mm: lock a, unlock b, c returns 1) onto .t.: a stable commit names it, but the tree lacks part of its change\$" err &&
	test_grep "missing: mm/a.c hunk 2 of 2 (@@ -14,5 +15,6 @@), mm/b.c hunk 1 of 1 (@@ -1,4 +1,4 @@)\$" err &&
	test_grep "decide in series.yaml, under the entry.s branches: \"t\": { present: \"why\" }" err &&
	test_grep "^t: CONFLICT: nothing applied; .$(kit_ref kit t). not created$" out &&
	test_must_fail mk_git up rev-parse --verify -q $(kit_ref kit t)
'

test_expect_success 'partial, and series.yaml says the stable backport is enough: present' '
	printf "        branches:\n          \"t\": { present: \"1.0 needs only the a() part\" }\n" >>kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../out) &&
	test_grep "^    present  locks 1/1 " out &&
	test_grep "present: 1.0 needs only the a() part" out &&
	(cd kit && mkseries apply --branch t >../out) &&
	test_grep "(0 commits, 0 squashed, 0 already in the tree; plan: 1 present, 0 skipped)" out &&
	cp series.yaml.orig kit/series.yaml
'

test_expect_success 'partial, and series.yaml gives a backport of the missing part: applied' '
	git -C up checkout -q -b rest v1.0.1 &&
	git -C up diff v1.0.1 master -- mm >rest.diff &&
	git -C up apply ../rest.diff &&
	git -C up commit -q -a -m "mm: lock a, unlock b, c returns 1" -m "commit $X upstream." &&
	git -C up format-patch -q -1 --stdout >kit/patches/locks/rest.patch &&
	git -C up checkout -q master &&
	cp series.yaml.orig kit/series.yaml &&
	printf "        branches:\n          \"t\": { file: patches/locks/rest.patch }\n" >>kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    apply    locks 1/1 " out &&
	test_grep "but the tree has 0 of the 2 hunks of patches/locks/rest.patch; missing: .*; applied as series.yaml decides for this branch\$" out &&
	(cd kit && mkseries apply --branch t >../out) &&
	test_grep "(1 commits, 0 squashed, 0 already in the tree; plan: 0 present, 0 skipped)" out &&
	test "$(mk_git up rev-parse $(kit_ref kit t)^{tree})" = "$(git -C up rev-parse master^{tree})" &&
	cp series.yaml.orig kit/series.yaml
'

test_expect_success 'a stable commit with all of X under other context: present in plan and apply' '
	cp series.yaml.orig kit/series.yaml &&
	follow_up_ref v1.0.2 &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    present  locks 1/1 " out &&
	test_grep "backported to stable in v1.0.2: $(echo $S2 | cut -c1-12) (\"mm: lock a, unlock b, c returns 1\") says it is upstream commit $X (v1.0..v1.0.2); its change is in the tree\$" out &&
	test_grep "^t: 0 to apply, 0 squashed, 1 present, 0 skipped\$" out &&
	(cd kit && mkseries apply --branch t >../out) &&
	test_grep "(0 commits, 0 squashed, 0 already in the tree; plan: 1 present, 0 skipped)" out &&
	test "$(mk_git up rev-parse $(kit_ref kit t))" = "$S2"
'

test_expect_success 'X merged with no stable wording: present by content in plan and apply' '
	follow_up_ref master &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    present  locks 1/1 " out &&
	test_grep "already in the tree: every change of patches/locks/0001-mm-lock-a-unlock-b-c-returns-1.patch is there (3 parts, 2 files)\$" out &&
	test_grep ! "stable" out &&
	(cd kit && mkseries plan --branch t --format json >../plan.json) &&
	python3 - <<-\EOF &&
	import json
	it = json.load(open("plan.json"))["branches"][0]["items"][0]
	assert it["action"] == "present" and it["in_tree"] == "all" and it["missing"] == [], it
	assert "stable_commit" not in it, it
	EOF
	(cd kit && mkseries apply --branch t >../out) &&
	test_grep "(0 commits, 0 squashed, 0 already in the tree; plan: 1 present, 0 skipped)" out
'

test_expect_success 'a stable commit that names X and carries none of it: partial, nothing in' '
	git -C up checkout -q -b none v1.0 &&
	echo "/* unrelated */" >>up/mm/b.c &&
	git -C up commit -q -a -m "mm: something else" -m "commit $X upstream." &&
	git -C up tag v1.0.3 &&
	git -C up checkout -q master &&
	follow_up_ref v1.0.3 &&
	(cd kit && mkseries plan --branch t >../out) &&
	test_grep "^    partial  locks 1/1 " out &&
	test_grep "but the tree has 0 of the 3 hunks of .*; missing: mm/a.c hunk 1 of 2 (@@ -1,5 +1,6 @@), mm/a.c hunk 2 of 2 (@@ -14,5 +15,6 @@), mm/b.c hunk 1 of 1 (@@ -1,4 +1,4 @@)\$" out &&
	(cd kit && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	test_grep "onto .t.: a stable commit names it, but the tree lacks part of its change\$" err
'

test_done

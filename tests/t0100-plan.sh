#!/bin/sh
# t0100-plan.sh: mkseries plan shows what apply will do on each branch, and why.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

SQ="'"

test_expect_success 'setup: a kit with three branches and per-branch decisions' '
	make_upstream linux &&
	make_kit kit linux &&
	for b in u v; do sed "s/^name: t/name: $b/" kit/kernels/t.yaml >kit/kernels/$b.yaml || return 1; done &&
	mkdir -p kit/patches/alpha/v &&
	cp kit/patches/alpha/0002-mm-batch-ptes.patch kit/patches/alpha/v/0001-batch.patch &&
	cat >>kit/series.yaml <<-EOF &&
	    branches:
	      u: { present: "merged in 1.1" }
	EOF
	sed -i "/^  - id: beta/i\\    branches:\\n      u: { skip: \"needs the 1.2 locking\" }\\n      v: { patches: patches/alpha/v/ }" kit/series.yaml &&
	cat kit/series.yaml
'

test_expect_success 'plan on a branch with no decisions: everything applies in order' '
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	grep -E "^    (apply|squash|present|skip)" out | awk "{print \$1, \$2, \$3}" >actions &&
	printf "%s\n" "apply alpha 1/2" "apply alpha 2/2" "apply alpha fixup" "apply alpha fixup" \
		"apply beta 1/1" >actions.expect &&
	test_cmp actions.expect actions &&
	test_grep "fixes alpha 2/2 ($(short $A2)), applied on t" out &&
	test_grep "fixes alpha fixup 1/2 ($(short $F1)), applied on t" out &&
	test_grep "t: 5 to apply, 0 squashed, 0 present, 0 skipped" out
'

test_expect_success 'an entry without a subject shows its patch file subject, in text and JSON' '
	cp -r kit kit-nosubj &&
	sed -i "/^        subject: \"mm: rename ptes\"$/d" kit-nosubj/series.yaml &&
	! grep -q "subject: \"mm: rename ptes\"" kit-nosubj/series.yaml &&
	(cd kit-nosubj && mkseries plan --branch t >../out 2>../err) &&
	cat out err &&
	test_grep -E "^    apply +alpha 1/2 +$(short $A1) mm: rename ptes$" out &&
	test_must_be_empty err &&
	(cd kit-nosubj && mkseries plan --branch t --format json >../plan.json) &&
	python3 -c "
import json, sys
p = json.load(open(\"plan.json\"))
subjects = [it[\"subject\"] for b in p[\"branches\"] for it in b[\"items\"]]
print(subjects)
sys.exit(\"mm: rename ptes\" not in subjects)
"
'

test_expect_success 'skipped and present series carry their reasons; their fixups follow' '
	(cd kit && mkseries plan --branch u >../out) &&
	cat out &&
	test_grep "skip .*alpha 1/2" out &&
	test_grep "series skipped: needs the 1.2 locking" out &&
	test_grep "present .*beta 1/1" out &&
	test_grep "series present: merged in 1.1" out &&
	test_grep "u: 0 to apply, 0 squashed, 1 present, 4 skipped" out
'

test_expect_success 'a branch backport directory supplies the patch it matches' '
	(cd kit && mkseries plan --branch v >../out) &&
	cat out &&
	test_grep "v backport" out &&
	test_grep "from patches/alpha/v/0001-batch.patch" out &&
	test_grep "from patches/alpha/0001-mm-rename-ptes.patch" out
'

test_expect_success 'plan without --branch covers every default branch' '
	(cd kit && mkseries plan >../out) &&
	test_grep "^t: " out && test_grep "^u: " out && test_grep "^v: " out
'

test_expect_success 'plan --format json lists the plans and the cells to fan out' '
	(cd kit && mkseries plan --format json >../plan.json) &&
	python3 -m json.tool plan.json >/dev/null &&
	test_grep "\"kind\": \"plan\"" plan.json &&
	jq -r ".cells[] | select(.branch == \"u\" and .variant == \"kit\") | .run | join(\" \")" \
		plan.json >cell &&
	test_grep "^mkseries run --branch u --variant kit" cell &&
	jq -r ".cells[].id" plan.json >ids &&
	printf "%s\n" t/base t/kit u/base u/kit v/base v/kit >ids.expect &&
	test_cmp ids.expect ids &&
	test_grep "\"reason\": \"series skipped: needs the 1.2 locking\"" plan.json
'

test_expect_success 'setup: variants of t, each the kit without some of its entries' '
	cp -r kit kitv &&
	cat >>kitv/kernels/t.yaml <<-EOF &&
	variants:
	  no-fix:
	    without: [$(short $F1)]
	    note: "the kit without the fix"
	    expect-fail: [steady]
	  no-beta:
	    without: patches/beta/0001-madvise-split-locking.patch
	EOF
	cat kitv/kernels/t.yaml
'

test_expect_success 'plan shows the kit, then what each variant leaves out' '
	(cd kitv && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "t: 5 to apply, 0 squashed, 0 present, 0 skipped" out &&
	sed -n "/^variant /p" out >variants &&
	cat >variants.expect <<-EOF &&
	variant no-fix: without alpha fixup 1/2 ($(short $F1))
	variant no-fix: skip alpha fixup 2/2 ($(short $F2)): fixes alpha fixup 1/2 ($(short $F1)), which is left out of variant ${SQ}no-fix${SQ}
	variant no-fix: expects steady to fail
	variant no-beta: without beta 1/1 ($(short $B1))
	EOF
	test_cmp variants.expect variants
'

test_expect_success 'a branch without variants prints none' '
	(cd kitv && mkseries plan --branch u >../out) &&
	test_grep ! "^variant " out
'

test_expect_success 'plan --format json: the variants, and a cell for each' '
	(cd kitv && mkseries plan --format json >../plan.json) &&
	python3 -m json.tool plan.json >/dev/null &&
	jq -r ".cells[].id" plan.json >ids &&
	printf "%s\n" t/base t/kit t/no-fix t/no-beta u/base u/kit v/base v/kit >ids.expect &&
	test_cmp ids.expect ids &&
	jq -r ".cells[] | select(.id == \"t/no-fix\") | .run | join(\" \")" plan.json >cell &&
	test_grep "^mkseries run --branch t --variant no-fix --format json --output mkseries-t+no-fix.json$" cell &&
	jq -r ".branches[0].variants[] | [.name, .ref, (.without | map(.upstream) | join(\",\")), (.expect_fail | join(\",\"))] | join(\" \")" \
		plan.json >vars &&
	printf "%s\n" "no-fix $(kit_ref kitv t no-fix) $(short $F1) steady" \
		"no-beta $(kit_ref kitv t no-beta) $(short $B1) " >vars.expect &&
	test_cmp vars.expect vars &&
	jq -r ".branches[0].variants[0].items[] | select(.left_out) | .patch" plan.json >left &&
	echo "alpha fixup 1/2" >left.expect &&
	test_cmp left.expect left &&
	jq -r ".branches[0].variants[0].note" plan.json >note &&
	echo "the kit without the fix" >note.expect &&
	test_cmp note.expect note &&
	jq -r ".branches[1].variants | length" plan.json >nv &&
	echo 0 >nv.expect &&
	test_cmp nv.expect nv &&
	jq -r ".merge[]" plan.json >merge &&
	test_grep "^mkseries-t+no-beta.json$" merge &&
	test_grep "^--cells$" merge &&
	test_grep "^t/base t/kit t/no-fix t/no-beta u/base u/kit v/base v/kit$" merge
'

test_expect_success 'a variant that leaves out what the kit does not apply there is an error' '
	cp -r kitv kitw &&
	cat >>kitw/kernels/u.yaml <<-EOF &&
	variants:
	  no-alpha:
	    without: $(short $A1)
	EOF
	(cd kitw && test_expect_code 2 mkseries plan --branch u >../out 2>../err) &&
	cat err &&
	test_grep "^error: kernels/u.yaml:8: variant .no-alpha. leaves out .alpha 1/2., which the kit does not apply on u (skip: series skipped: needs the 1.2 locking)$" err
'

test_expect_success 'a variant that leaves out what the kit lacks is a kit error with FILE:LINE' '
	cp -r kitv kitx &&
	sed -i "s/without: \[$(short $F1)\]/without: [deadbeef]/" kitx/kernels/t.yaml &&
	(cd kitx && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	cat err &&
	test_grep "^error: kernels/t.yaml:8: variant .no-fix.: without .deadbeef. matches no patch or fixup of the kit$" err
'

test_expect_success 'an unknown plan format is a usage error' '
	(cd kit && test_expect_code 2 mkseries plan --format yaml 2>../err) &&
	test_grep "unknown format .yaml." err
'

test_expect_success 'a squashed fixup goes into the commit of the patch it fixes' '
	sed -i "/fixes: $(short $A2)/a\\        squash: true" kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "squash .*alpha fixup 1/2" out &&
	test_grep "(into alpha 2/2)" out
'

test_expect_success 'a file in a backport directory that matches nothing is an error' '
	printf "From: a <a@b.c>\nSubject: [PATCH] unrelated\n\nx\n---\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" \
		>kit/patches/alpha/v/0002-unrelated.patch &&
	(cd kit && test_expect_code 2 mkseries plan --branch v 2>../err) &&
	test_grep "0002-unrelated.patch: matches no patch of series .alpha." err &&
	rm kit/patches/alpha/v/0002-unrelated.patch
'

test_expect_success 'an unknown branch is a usage error naming the known ones' '
	(cd kit && test_expect_code 2 mkseries plan --branch 9.9 2>../err) &&
	test_grep "unknown branch .9.9. (the kit has: t, u, v)" err
'

test_expect_success '--kit finds the kit from elsewhere' '
	mkseries --kit kit plan --branch t >out &&
	test_grep "alpha 1/2" out
'

test_expect_success 'option values may be attached, as git takes them: -bt, --branch=t, -j2' '
	(cd kit && mkseries plan --branch t >../out.sep) &&
	(cd kit && mkseries plan -bt >../out.short) &&
	(cd kit && mkseries plan --branch=t >../out.long) &&
	test_cmp out.sep out.short &&
	test_cmp out.sep out.long &&
	(cd kit && test_expect_code 2 mkseries plan -b9.9 2>../err) &&
	test_grep "unknown branch .9.9." err &&
	mkseries build -j2 --help >out &&
	test_grep "jobs" out &&
	test_expect_code 2 mkseries build -jx 2>err &&
	test_grep "option .--jobs. expects a number, not .x." err &&
	test_expect_code 2 mkseries apply -qx 2>err &&
	test_grep "unknown option .-qx." err
'

test_expect_success 'options as git reads them: --no-NAME, no abbreviations, optional values after "="' '
	(cd kit && mkseries plan --branch t >../out.t) &&
	(cd kit && mkseries plan --branch u --no-branch --branch t >../out.neg) &&
	test_cmp out.t out.neg &&
	(cd kit && mkseries --progress plan --no-progress --branch t >../out.prog) &&
	test_cmp out.t out.prog &&
	(cd kit && test_expect_code 2 mkseries plan --bra t 2>../err) &&
	test_grep "^error: unknown option .--bra.: options are never abbreviated; did you mean .--branch.?$" err &&
	test_expect_code 2 mkseries build --force=yes 2>err &&
	test_grep "^error: option .--force. takes no value$" err &&
	test_expect_code 2 mkseries build --no-jobs 2>err &&
	test_grep "^error: option .--jobs. cannot be negated (.--no-jobs.)$" err &&
	test_expect_code 2 mkseries build --branch 2>err &&
	test_grep "^error: option .--branch. needs a value$" err &&
	test_expect_code 2 mkseries build -- --all 2>err &&
	test_grep "^error: unexpected argument .--all.: .mkseries build. takes no arguments$" err &&
	test_expect_code 2 mkseries run --force build 2>err &&
	test_grep "^error: unexpected argument .build. (a step to force is given as --force=STEP)$" err &&
	test_expect_code 2 mkseries run --force=boot 2>err &&
	test_grep "^error: unknown step .boot. for --force (import, apply, build or test)$" err &&
	mkseries run -h >out &&
	test_grep "^    -f, --force\[=STEP\]  *redo every step" out &&
	test_grep "^    --progress\[=WHEN\]  *auto" out
'

test_expect_success 'a broken series.yaml stops plan with FILE:LINE' '
	mkdir -p bad/kernels && cp kit/kernels/t.yaml bad/kernels/ &&
	printf "series:\n  - id: x\n    title: x\n    colour: red\n    patches: []\n" >bad/series.yaml &&
	(cd bad && test_expect_code 2 mkseries plan 2>../err) &&
	cat err &&
	test_grep "^error: series.yaml:4: " err
'

test_expect_success 'no kit here: a clear error' '
	mkdir -p empty &&
	(cd empty && test_expect_code 2 mkseries plan 2>../err) &&
	test_grep "series.yaml" err
'

test_expect_success 'a kit of 5,000 series loads and plans, in requires order, its mistakes found' '
	mkdir -p big/kernels &&
	printf "name: t\nsource:\n  git: { repo: $PWD/linux, ref: v1.0 }\n" >big/kernels/t.yaml &&
	awk "BEGIN {
		print \"series:\"
		for (i = 0; i < 5000; i++) {
			printf \"  - id: s%d\n    title: t\n\", i
			if (i % 10 == 0 && i)
				printf \"    requires: [s%d]\n\", i + 5
			printf \"    patches:\n      - { upstream: %010x01, subject: one }\n\", i
			printf \"    fixups:\n      - { upstream: %010x03, fixes: %010x01, subject: fix }\n\", i, i
			printf \"    branches:\n      t: { skip: no }\n\"
		}
	}" >big/series.yaml &&
	mkseries --kit big plan --branch t --format json >big.json &&
	jq -r ".branches[0].items[].series" big.json | uniq >order &&
	test $(wc -l <order) = 5000 &&
	grep -n "^s15$" order | cut -d: -f1 >at15 &&
	grep -n "^s10$" order | cut -d: -f1 >at10 &&
	test $(cat at15) -lt $(cat at10) &&
	n=$(wc -l <big/series.yaml) &&
	first=$(grep -n "^  - id: s42\$" big/series.yaml | cut -d: -f1) &&
	up=$(grep -n "upstream: 000000002901," big/series.yaml | cut -d: -f1) &&
	cat >>big/series.yaml <<-\EOF &&
	  - id: s42
	    title: again
	    patches:
	      - { upstream: 00000000290102, subject: dup }
	EOF
	test_expect_code 2 mkseries --kit big plan --branch t 2>err &&
	test_grep "^error: big/series.yaml:$((n + 1)): duplicate series id .s42. (first at big/series.yaml:$first)" err &&
	test_grep "^error: big/series.yaml:$((n + 4)): upstream id .00000000290102. is listed twice: big/series.yaml:$up and :$((n + 4))" err
'

test_done

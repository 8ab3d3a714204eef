#!/bin/sh
# t0620-stable-backports.sh: a branch with a release tag: what its stable history carries is present, and the rest of the kit goes on top.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

up_short() { git -C up rev-parse --short=12 "$1"; }

test_expect_success 'setup: upstream, a stable branch with backports of A1 and A2, and the kit' '
	make_upstream up &&
	make_kit kit up &&
	git -C up checkout -q -b stable v1.0 &&
	git -C up cherry-pick $A1 >/dev/null &&
	git -C up commit -q --amend -m "mm: rename ptes" -m "commit $A1 upstream." \
		-m "Call them pteps." -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
	git -C up tag v1.0.1 &&
	git -C up cherry-pick $A2 >/dev/null &&
	git -C up commit -q --amend -m "mm: batch ptes" -m "[ Upstream commit $A2 ]" \
		-m "Batch them. Unlike commit $F1 upstream, this one is not a fix." \
		-m "Signed-off-by: Dev Eloper <dev@example.org>" &&
	git -C up tag v1.0.2 &&
	git -C up checkout -q master &&
	for v in A1 A2 F1 F2 B1; do eval "echo $v=\$$v"; done >ids &&
	echo S1=$(git -C up rev-parse v1.0.1) >>ids &&
	echo S2=$(git -C up rev-parse v1.0.2) >>ids
'
. ./ids

test_expect_success 'v1.0.1: A1 is present, found in stable; A2 and its fixes are applied' '
	follow_up_ref v1.0.1 &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    present  alpha 1/2 .* $(up_short $A1) " out &&
	test_grep "backported to stable in v1.0.1: $(up_short $S1) (\"mm: rename ptes\") says it is upstream commit $A1 (v1.0..v1.0.1)" out &&
	test_grep "^    apply    alpha 2/2 .* $(up_short $A2) " out &&
	test_grep "the series. patch; no stable backport of $(up_short $A2) in v1.0..v1.0.1 (1 commits)" out &&
	test_grep "^    apply    alpha fixup 1/2 " out &&
	test_grep "^    apply    alpha fixup 2/2 " out &&
	test_grep "^t: 4 to apply, 0 squashed, 1 present, 0 skipped\$" out
'

test_expect_success 'v1.0.1: apply gives upstream'\''s tree in four commits' '
	(cd kit && mkseries apply --branch t >../out) &&
	test $(mk_git up rev-list $(git -C up rev-parse v1.0.1)..$(kit_ref kit t) | wc -l) = 4 &&
	test "$(mk_git up rev-parse $(kit_ref kit t)^{tree})" = "$(git -C up rev-parse master^{tree})"
'

test_expect_success 'v1.0.2: A1 and A2 are present; the fixes of A2 still go on top' '
	follow_up_ref v1.0.2 &&
	(cd kit && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^    present  alpha 1/2 " out &&
	test_grep "^    present  alpha 2/2 .* $(up_short $A2) " out &&
	test_grep "backported to stable in v1.0.2: $(up_short $S2) (\"mm: batch ptes\") says it is upstream commit $A2 (v1.0..v1.0.2)" out &&
	test_grep "^    apply    alpha fixup 1/2 .* $(up_short $F1) " out &&
	test_grep "fixes alpha 2/2 ($(up_short $A2)), whose stable backport $(up_short $S2) is on t; no stable backport of $(up_short $F1) in v1.0..v1.0.2 (2 commits)" out &&
	test_grep "^    apply    alpha fixup 2/2 " out &&
	test_grep "^t: 3 to apply, 0 squashed, 2 present, 0 skipped\$" out
'

test_expect_success 'v1.0.2: apply gives upstream'\''s tree in three commits' '
	(cd kit && mkseries apply --branch t >../out) &&
	mk_git up log --format=%s $(git -C up rev-parse v1.0.2)..$(kit_ref kit t) >subjects &&
	printf "%s\n" "madvise: split locking" "mm: fix the fix" "mm: fix batch ptes" >subjects.expect &&
	test_cmp subjects.expect subjects &&
	test "$(mk_git up rev-parse $(kit_ref kit t)^{tree})" = "$(git -C up rev-parse master^{tree})"
'

test_expect_success 'a squashed fix of a patch stable has: a commit of its own' '
	sed -i "/fixes: $(up_short $A2)/a\\        squash: true" kit/series.yaml &&
	grep -q "squash: true" kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../out) &&
	test_grep "^    apply    alpha fixup 1/2 " out &&
	follow_up_ref v1.0.1 &&
	(cd kit && mkseries plan --branch t >../out) &&
	test_grep "^    squash   alpha fixup 1/2 " out
'

test_expect_success 'a kernel file without a release: no stable history is read, the tree still is' '
	sed -i "/squash: true/d" kit/series.yaml &&
	follow_up_ref v1.0.2 &&
	sed -i "s/, release: v1.0//" kit/kernels/t.yaml &&
	(cd kit && mkseries plan --branch t >../out) &&
	test_grep ! "stable backport\|backported to stable" out &&
	test_grep "^    present  alpha 1/2 " out &&
	test_grep "^             already in the tree: every change of patches/alpha/0001-mm-rename-ptes.patch is there (1 part, 1 file)\$" out &&
	test_grep "^    present  alpha 2/2 " out &&
	test_grep "^t: 3 to apply, 0 squashed, 2 present, 0 skipped\$" out
'

test_done

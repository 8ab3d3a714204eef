#!/bin/sh
# t0610-stable-617.sh: the kit's 6.17 on a linux-stable-like clone: the writable-bit fix applied before 6.17.9, found in stable from 6.17.9 on.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

FIX=04d1c9d60c6e
PATCH=patches/mremap-pte-batch/6.17/0001-04d1c9d60c6e-mm-mremap-honour-writable-bit-in-mremap-pte-batching.patch

# The kit's kernels/6.17.yaml, following TAG instead of the ref it names.
set_ref() {
	sed -i "s/ref: v6\.17\.[0-9]*/ref: $1/" kit/kernels/6.17.yaml &&
	grep -q "ref: $1," kit/kernels/6.17.yaml
}

test_expect_success 'setup: the kit, and a stable-like clone with v6.17.8 and v6.17.9' '
	make_stable stable &&
	echo "STABLE_FIX=$STABLE_FIX" >ids &&
	mkdir kit &&
	cp -R "$SRC_DIR/series.yaml" "$SRC_DIR/kernels" "$SRC_DIR/patches" kit/ &&
	grep -q "ref: v6.17.8," kit/kernels/6.17.yaml &&
	grep -n "repo: \$MKSERIES_LINUX_STABLE" kit/kernels/6.17.yaml | cut -d: -f1 >repo.line &&
	test -s repo.line
'
. ./ids
unset MKSERIES_LINUX_STABLE

test_expect_success 'plan --branch 6.17 without MKSERIES_LINUX_STABLE: the file, line and variable' '
	(cd kit && test_expect_code 2 mkseries plan --branch 6.17 >../out 2>../err) &&
	test_must_be_empty out &&
	echo "error: kernels/6.17.yaml:$(cat repo.line): branch '\''6.17'\'' takes its tree from the git repository \$MKSERIES_LINUX_STABLE names, and \$MKSERIES_LINUX_STABLE is not set (point it at a linux-stable clone: export MKSERIES_LINUX_STABLE=~/src/linux-stable)" >expect &&
	test_cmp expect err
'

test_expect_success 'apply --branch 6.17 without it: the same error, nothing written' '
	(cd kit && test_expect_code 2 mkseries apply --branch 6.17 >../out 2>../err) &&
	test_grep "kernels/6.17.yaml:$(cat repo.line): .*MKSERIES_LINUX_STABLE is not set" err &&
	! test -e "$(mk_repo stable)"
'

test_expect_success 'import --branch 6.17 without it: the same error' '
	(cd kit && test_expect_code 2 mkseries import --branch 6.17 >../out 2>../err) &&
	test_grep "kernels/6.17.yaml:$(cat repo.line): .*MKSERIES_LINUX_STABLE is not set" err
'

test_expect_success 'MKSERIES_LINUX_STABLE naming no directory: said, with the variable' '
	(cd kit && MKSERIES_LINUX_STABLE=$TRASH_DIRECTORY/nowhere \
		test_expect_code 2 mkseries plan --branch 6.17 >../out 2>../err) &&
	echo "error: kernels/6.17.yaml:$(cat repo.line): branch '\''6.17'\'': no git repository at '\''$TRASH_DIRECTORY/nowhere'\'' (from \$MKSERIES_LINUX_STABLE)" >expect &&
	test_cmp expect err
'

test_expect_success '6.17 is not a default branch: plan --all needs no clone and leaves it out' '
	(cd kit && mkseries plan --all >../out 2>../err) &&
	test_must_be_empty err &&
	test_grep "^7.2: " out &&
	test_grep ! "^6.17" out
'

export MKSERIES_LINUX_STABLE="$TRASH_DIRECTORY/stable"

test_expect_success 'v6.17.8: the series is present, only the writable-bit fix is applied' '
	(cd kit && mkseries plan --branch 6.17 >../out) &&
	sed -n "/^  mremap-pte-batch:/,/^  process-madvise-lock:/p" out >pte &&
	test_grep "^    present  mremap-pte-batch 1/2 .* 94dab12d86cf" pte &&
	test_grep "^    present  mremap-pte-batch 2/2 .* f822a9a81a31" pte &&
	test_grep "^    present  mremap-pte-batch fixup 1/2 .* 0b5be138ce00" pte &&
	test_grep "^    apply    mremap-pte-batch fixup 2/2 .* $FIX mm/mremap: honour writable bit in mremap pte batching" pte &&
	test_grep "fixes mremap-pte-batch 2/2 (f822a9a81a31), present on 6.17; no stable backport of $FIX in v6.17..v6.17.8 (3 commits)" pte &&
	test_grep "from $PATCH\$" pte &&
	test_grep "^6.17: 1 to apply, 0 squashed, 17 present, 3 skipped\$" out
'

test_expect_success 'v6.17.8: apply writes that one commit, and the tree then has the fix as 6.17.9 has it' '
	(cd kit && mkseries apply --branch 6.17 >../out) &&
	test_grep "^6.17: $(kit_ref kit 6.17) -> .* (1 commits, 0 squashed" out &&
	mk_git stable rev-list $(git -C stable rev-parse v6.17.8)..$(kit_ref kit 6.17) >commits &&
	test $(wc -l <commits) = 1 &&
	mk_git stable log -1 --format=%B $(kit_ref kit 6.17) >msg &&
	test_grep "^commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 upstream\\.\$" msg &&
	mk_git stable log -1 --format="%an <%ae>" $(kit_ref kit 6.17) >author &&
	echo "Dev Jain <dev.jain@arm.com>" >author.expect &&
	test_cmp author.expect author &&
	mk_git stable diff --exit-code $(git -C stable rev-parse v6.17.9) $(kit_ref kit 6.17) -- mm/ &&
	mk_git stable diff --name-only $(git -C stable rev-parse v6.17.8) $(kit_ref kit 6.17) >changed &&
	echo mm/mremap.c >changed.expect &&
	test_cmp changed.expect changed
'

test_expect_success 'v6.17.9: the fix is present, and the plan names the stable commit that carries it' '
	set_ref v6.17.9 &&
	(cd kit && mkseries plan --branch 6.17 >../out) &&
	sed -n "/^  mremap-pte-batch:/,/^  process-madvise-lock:/p" out >pte &&
	test_grep "^    present  mremap-pte-batch fixup 2/2 .* $FIX " pte &&
	short=$(git -C stable rev-parse --short=12 $STABLE_FIX) &&
	test_grep "backported to stable in v6.17.9: $short (\"mm/mremap: honour writable bit in mremap pte batching\") says it is upstream commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 (v6.17..v6.17.9)" pte &&
	test_grep ! "^    apply" out &&
	test_grep "^6.17: 0 to apply, 0 squashed, 18 present, 3 skipped\$" out
'

test_expect_success 'v6.17.9: the JSON plan carries the stable commit' '
	(cd kit && mkseries plan --branch 6.17 --format json >../plan.json) &&
	python3 - "$STABLE_FIX" <<-\EOF
	import json, sys
	items = json.load(open("plan.json"))["branches"][0]["items"]
	fix = [i for i in items if i["upstream"] == "04d1c9d60c6e"][0]
	assert fix["action"] == "present", fix
	assert fix["stable_commit"] == sys.argv[1], fix
	assert not any("stable_commit" in i for i in items if i is not fix)
	EOF
'

test_expect_success 'v6.17.9: apply adds nothing; the branch is the release' '
	(cd kit && mkseries apply --branch 6.17 >../out) &&
	test_grep "(0 commits, 0 squashed, 0 already in the tree; plan: 18 present, 3 skipped)" out &&
	test "$(mk_git stable rev-parse $(kit_ref kit 6.17))" = "$(git -C stable rev-parse v6.17.9^{commit})"
'

test_expect_success 'a later revert of the backport: the fix is applied again, and the plan says why' '
	git -C stable checkout -q -b revert v6.17.9 &&
	git -C stable revert --no-edit $STABLE_FIX >/dev/null &&
	git -C stable tag v6.17.10 &&
	git -C stable checkout -q master &&
	set_ref v6.17.10 &&
	(cd kit && mkseries plan --branch 6.17 >../out) &&
	short=$(git -C stable rev-parse --short=12 $STABLE_FIX) &&
	reverter=$(git -C stable rev-parse --short=12 v6.17.10) &&
	test_grep "^    apply    mremap-pte-batch fixup 2/2 .* $FIX " out &&
	test_grep "its stable backport $short (\"mm/mremap: honour writable bit in mremap pte batching\") is reverted by $reverter in v6.17..v6.17.10" out &&
	(cd kit && mkseries apply --branch 6.17 >../out) &&
	mk_git stable diff --exit-code $(git -C stable rev-parse v6.17.9) $(kit_ref kit 6.17) -- mm/
'

test_expect_success 'a release that is not in the clone: the file, line and tag' '
	set_ref v6.17.8 &&
	sed -i "s/release: v6\.17 /release: v6.71 /" kit/kernels/6.17.yaml &&
	grep -q "release: v6.71 " kit/kernels/6.17.yaml &&
	(cd kit && test_expect_code 2 mkseries plan --branch 6.17 >../out 2>../err) &&
	echo "error: kernels/6.17.yaml:$(cat repo.line): release '\''v6.71'\'' of branch '\''6.17'\'' names no commit in '\''$MKSERIES_LINUX_STABLE'\''" >expect &&
	test_cmp expect err
'

test_expect_success 'a release that the ref does not grow from: refused' '
	git -C stable tag v6.99 revert &&
	sed -i "s/release: v6\.71 /release: v6.99 /" kit/kernels/6.17.yaml &&
	(cd kit && test_expect_code 2 mkseries plan --branch 6.17 >../out 2>../err) &&
	test_grep "kernels/6.17.yaml:$(cat repo.line): release '\''v6.99'\'' of branch '\''6.17'\'' is not in the history of '\''v6.17.8'\''" err
'

test_done

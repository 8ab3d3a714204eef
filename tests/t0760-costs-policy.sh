#!/bin/sh
# t0760-costs-policy.sh: costs declared per metric, checked on recorded runs; a branch's kind and the policy rule plan shows.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"
. "$TEST_DIRECTORY/lib-record.sh"

DATA="$TEST_DIRECTORY/data/results"
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb

# kernel_file COSTS...: kit/kernels/t.yaml with these lines under `costs:`.
kernel_file() {
	{
		printf 'name: t\nkind: distro\nsource: { tarball: /nonexistent/linux-t.tar.xz }\nconfig: { base: tinyconfig }\n' &&
		if [ $# -gt 0 ]; then echo "costs:" && printf '  %s\n' "$@"; fi
	} >kit/kernels/t.yaml
}

test_expect_success 'setup: a kit, and a run whose kit is 30% slower on one metric' '
	alpha_kit kit &&
	record_branch slower applied &&
	record_cell slower base $A tcg instructions base-icount.log &&
	record_cell slower kit $B tcg instructions kit-icount-slower.log
'

test_expect_success 'without a cost, +30% is a regression and fails the run' '
	kernel_file &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower >../out) &&
	test_grep "perf_loop.us_per_iteration (us)  (worse)$" out &&
	test_grep ! "declared cost" out
'

test_expect_success 'a cost of 35% on that metric: shown with its why, the run passes' '
	kernel_file "- { metric: perf_loop.us_per_iteration, worse: 35%, why: \"the loop checks every entry twice\" }" &&
	(cd kit && mkseries report --workdir ../slower >../out) &&
	cat out &&
	test_grep "^       100 ±  0%     +30.0%        130 ±  0%  perf_loop.us_per_iteration (us)  (declared cost)$" out &&
	test_grep "^declared costs:$" out &&
	test_grep "^  t kit: declared cost: perf_loop.us_per_iteration up to 35% worse than base (\"the loop checks every entry twice\"): +30.0%, within it$" out &&
	test_grep "^2 cells: 2 ok; 0 regressions, 1 improvement" out
'

test_expect_success 'the cost in markdown, JSON and JUnit, with its why' '
	(cd kit && mkseries report --workdir ../slower --format markdown >../out.md) &&
	test_grep "^Declared costs:$" out.md &&
	test_grep "^    t kit: declared cost: perf_loop.us_per_iteration up to 35% worse$" out.md &&
	test_grep "^      than base (\"the loop checks every entry twice\"): +30.0%, within it$" out.md &&
	(cd kit && mkseries report --workdir ../slower --format json >../out.json) &&
	jq -r ".status, .summary.costs, .summary.regressions" out.json >sum &&
	printf "%s\n" ok 1 0 >sum.expect &&
	test_cmp sum.expect sum &&
	jq -r ".branches[0].comparison.metrics[] | select(.name == \"us_per_iteration\") | [.verdict, .cost.worse_pct, .cost.why, .threshold_pct] | map(tostring) | join(\"|\")" out.json >row &&
	echo "cost|35|the loop checks every entry twice|35" >row.expect &&
	test_cmp row.expect row &&
	jq -r ".branches[0].costs[] | [.metric, .worse_pct, .why] | map(tostring) | join(\"|\")" out.json >costs &&
	echo "perf_loop.us_per_iteration|35|the loop checks every entry twice" >costs.expect &&
	test_cmp costs.expect costs &&
	(cd kit && mkseries report --workdir ../slower --format junit >../out.xml) &&
	test_grep "declared cost: +30.0%, within its bound of 35%: the loop checks every entry twice" out.xml &&
	test_grep ! "<failure" out.xml
'

test_expect_success 'json reports merge back with their costs' '
	mkseries report --merge out.json >merged &&
	test_grep "^  t kit: declared cost: perf_loop.us_per_iteration up to 35% worse than base" merged
'

test_expect_success 'beyond its bound the cost is a regression: exit 1, said so' '
	kernel_file "- { metric: perf_loop.us_per_iteration, worse: 25%, why: \"the loop checks every entry twice\" }" &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower >../out) &&
	test_grep "perf_loop.us_per_iteration (us)  (worse)$" out &&
	test_grep "^  t kit: declared cost: perf_loop.us_per_iteration up to 25% worse than base (\"the loop checks every entry twice\"): +30.0%, BEYOND IT$" out &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower --format junit >../out.xml) &&
	test_grep "<failure message=\"regression: +30.0% (exact: no spread in 5 and 5 samples, threshold 25.0%), in instruction-paced time\" type=\"regression\">" out.xml
'

test_expect_success 'a cost on another metric does not cover this one' '
	kernel_file "- { metric: realloc.calls_per_sec, worse: 50%, why: \"not this one\" }" &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower >../out) &&
	test_grep "perf_loop.us_per_iteration (us)  (worse)$" out
'

test_expect_success 'mistakes in costs are FILE:LINE errors, exit 2' '
	kernel_file "- { metric: perf_loop, worse: 9 percent }" \
		"- { metric: a.b, worse: 0%, why: x }" \
		"- { metric: a.b, worse: 5%, why: y, than: kit }" \
		"- { why: z }" &&
	(cd kit && test_expect_code 2 mkseries plan 2>../err) &&
	cat err &&
	test_grep "^error: kernels/t.yaml:6: .metric. must be CASE.NAME, an mm-regress case and one of its metrics, not .perf_loop.$" err &&
	test_grep "^error: kernels/t.yaml:6: .worse. must be a percentage like 9%, not .9 percent.$" err &&
	test_grep "^error: kernels/t.yaml:6: a cost needs a .why.: what the kit pays it for$" err &&
	test_grep "^error: kernels/t.yaml:7: .worse. must be more than 0% and at most 100%, not .0%.$" err &&
	test_grep "^error: kernels/t.yaml:8: unknown key .than. in a cost" err &&
	test_grep "^error: kernels/t.yaml:8: metric .a.b. has a cost already (line 7): one bound a metric$" err &&
	test_grep "^error: kernels/t.yaml:9: a cost needs a .metric." err &&
	test_grep "^error: kernels/t.yaml:9: a cost needs .worse." err
'

test_expect_success 'a bad kind is a FILE:LINE error, exit 2' '
	kernel_file &&
	sed -i "s/^kind: distro/kind: vendor/" kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries plan 2>../err) &&
	test_grep "^error: kernels/t.yaml:2: .kind. must be stable (fixes only, as the upstream stable rules say) or distro (also performance work a claim shows), not .vendor.$" err
'

test_expect_success 'setup: a series with a fixup, for the policy' '
	cp -r kit pol &&
	git init -q mk && (cd mk && git commit -q --allow-empty -m init) &&
	cp "$DATA/kit/patches/0001-mm-rename-ptes.patch" pol/patches/0002-fix.patch &&
	cat >>pol/series.yaml <<-\EOF
	    fixups:
	      - file: patches/0002-fix.patch
	        upstream: 2b467ebe92f3
	        subject: "mm: fix the rename"
	        fixes: 1a356dad81e2
	EOF
'

test_expect_success 'plan on a stable branch: the fix is taken, the feature refused, each with its rule' '
	printf "name: t\nkind: stable\nsource: { tarball: /nonexistent/linux-t.tar.xz }\n" >pol/kernels/t.yaml &&
	(cd pol && mkseries plan --branch t >../out) &&
	cat out &&
	test_grep "^t: tarball /nonexistent/linux-t.tar.xz, stable  \[kernels/t.yaml\]$" out &&
	test_grep "^             policy refuses: stable takes fixes only (a Fixes:, a Cc: stable, the kit.s fixes:, a Stable-dep-of: or a stated stable: reason): this entry is none, stable review would bounce it$" out &&
	test_grep "^             policy: stable: a fix (the kit.s fixes:), which stable takes$" out &&
	test_grep "^t: 1 the stable policy refuses (see .policy refuses. above)$" out &&
	(cd pol && mkseries plan --branch t --format json >../plan.json) &&
	jq -r ".branches[0].items[] | [.upstream, .policy] | join(\" \")" plan.json >policy &&
	printf "%s\n" "1a356dad81e2 refuses" "2b467ebe92f3 takes" >pol.expect &&
	test_cmp pol.expect policy
'

test_expect_success 'plan on a stable branch: a patch whose trailers say Fixes: or Cc: stable is taken' '
	sed "s/^Signed-off-by: Dev Eloper/Cc: <stable@vger.kernel.org> # 6.1+\nSigned-off-by: Dev Eloper/" \
		pol/patches/0001-mm-rename-ptes.patch >cc.patch &&
	test_grep "^Cc: <stable@vger.kernel.org> # 6.1+$" cc.patch &&
	cp cc.patch pol/patches/0001-mm-rename-ptes.patch &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep "^             policy: stable: marked for stable (its Cc: stable trailer)$" out &&
	test_grep ! "policy refuses" out &&
	sed "s/^Cc: <stable@vger.kernel.org> # 6.1+$/Fixes: 0123456789ab (\"mm: the bug\")/" cc.patch \
		>pol/patches/0001-mm-rename-ptes.patch &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep "^             policy: stable: a fix (its Fixes: trailer), which stable takes$" out &&
	sed "s/^Cc: <stable@vger.kernel.org> # 6.1+$/Stable-dep-of: 2b467ebe92f3 (\"mm: fix the rename\")/" cc.patch \
		>pol/patches/0001-mm-rename-ptes.patch &&
	(cd pol && mkseries plan --branch t >../out 2>../err) &&
	test_grep "^             policy: stable: the prerequisite of a fix (its Stable-dep-of: trailer)$" out &&
	test_grep ! "policy refuses" out &&
	test_must_be_empty err &&
	sed "s/^Cc: <stable@vger.kernel.org> # 6.1+$/Stable-dep-of: 0123456789ab (\"mm: a fix elsewhere\")/" cc.patch \
		>pol/patches/0001-mm-rename-ptes.patch &&
	(cd pol && mkseries plan --branch t >../out 2>../err) &&
	test_grep "^             policy refuses: stable takes fixes only" out &&
	test_grep "^             policy note: its Stable-dep-of: 0123456789ab names no fix this plan applies: it is no prerequisite here$" out &&
	test_grep "^warning: t: alpha 1/1: its Stable-dep-of: 0123456789ab names no fix this plan applies" err &&
	sed "s/^Cc: <stable@vger.kernel.org> # 6.1+$/Cc: a colleague/; s/^Signed-off-by: Dev Eloper.*/Fixes: 0123456789ab (\"in the text\")\n\n&/" \
		cc.patch >pol/patches/0001-mm-rename-ptes.patch &&
	test_grep "^Fixes: 0123456789ab" pol/patches/0001-mm-rename-ptes.patch &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep "^             policy refuses: stable takes fixes only" out &&
	cp "$DATA/kit/patches/0001-mm-rename-ptes.patch" pol/patches/
'

test_expect_success 'plan on a stable branch: a stated reason (stable:) is taken and shown; an empty one is an error' '
	cp pol/series.yaml series.keep &&
	sed -i "s/^        subject: \"mm: rename ptes\"$/&\n        stable: \"a prerequisite of the fix below, which needs the new name\"/" pol/series.yaml &&
	test_grep "stable: \"a prerequisite" pol/series.yaml &&
	(cd pol && mkseries plan --branch t >../out 2>../err) &&
	test_grep "^             policy: stable: a stated reason (its stable: key): \"a prerequisite of the fix below, which needs the new name\"$" out &&
	test_grep ! "policy refuses" out &&
	# the kit vouches for it, not upstream: review decides, and plan says so
	test_grep "^             policy note: taken on the kit.s own stated reason (stable:), with no upstream trailer behind it: stable review decides$" out &&
	test_grep "^warning: t: alpha 1/1: taken on the kit.s own stated reason (stable:)" err &&
	(cd pol && mkseries plan --branch t --format json >../plan.json) &&
	jq -r ".branches[0].items[0].policy" plan.json >policy &&
	echo takes >pol.expect && test_cmp pol.expect policy &&
	jq -r ".branches[0].items[0].policy_note" plan.json >note &&
	test_grep "stable review decides" note &&
	sed -i "s/^        stable: .*/        stable: \"\"/" pol/series.yaml &&
	(cd pol && test_expect_code 2 mkseries plan --branch t 2>../err) &&
	test_grep "^error: series.yaml:8: .stable. states why a stable branch takes a patch: it must not be empty$" err &&
	cp series.keep pol/series.yaml
'

test_expect_success 'plan on a distro branch: performance work needs a claim that shows the gain' '
	sed -i "s/^kind: stable/kind: distro/" pol/kernels/t.yaml &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep "^             policy refuses: distro takes performance work only where a claim shows the gain: none does here$" out &&
	cp pol/kernels/t.yaml t.yaml.keep &&
	printf "claims:\n  - { metric: perf_loop.us_per_iteration, worse: 5%% }\n" >>pol/kernels/t.yaml &&
	(cd pol && mkseries plan --branch t >../out) &&
	# a claim that bounds a cost shows no gain
	test_grep "^             policy refuses: distro takes performance work only where a claim shows the gain: none does here$" out &&
	cp t.yaml.keep pol/kernels/t.yaml &&
	printf "claims:\n  - { metric: perf_loop.us_per_iteration, better: 10%% }\n" >>pol/kernels/t.yaml &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep "^             policy: distro: performance work whose gain a kernel file.s claims check on this branch.s decisions$" out &&
	test_grep ! "policy refuses" out
'

test_expect_success 'a kernel file without kind: no rule is followed, and plan says nothing of one' '
	sed -i "/^kind:/d" pol/kernels/t.yaml &&
	(cd pol && mkseries plan --branch t >../out) &&
	test_grep ! "policy" out &&
	(cd pol && mkseries plan --branch t --format json >../plan.json) &&
	jq -r ".branches[0].items[] | .policy" plan.json >policy &&
	printf "%s\n" unset unset >pol.expect &&
	test_cmp pol.expect policy
'

test_done

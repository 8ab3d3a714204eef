#!/bin/sh
# t0720-timing-claims.sh: kinds of time, several boots, reused cells and performance claims, on recorded state and consoles.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"
. "$TEST_DIRECTORY/lib-record.sh"

DATA="$TEST_DIRECTORY/data/results"
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccccccccccc

# The runs' records are written as a run writes them (lib-record.sh),
# but for the kit of "emulated": an earlier version's (format 1), from
# before `timing` was recorded, when TCG always ran on host time.
test_expect_success 'setup: a kit with claims, and the state of five recorded runs' '
	alpha_kit kit "verdicts: { threshold: 5% }" &&
	cat >>kit/series.yaml <<-\EOF &&
	    claims:
	      - { metric: realloc.calls_per_sec, better: 20%, why: "the cover letter: 25% more reallocs" }
	      - { metric: steady.ns_per_op, below: 60 }
	EOF
	cat >kit/kernels/t.yaml <<-\EOF &&
	name: t
	source: { tarball: /nonexistent/linux-t.tar.xz }
	config: { base: tinyconfig }
	claims:
	  - { metric: perf_loop.us_per_iteration, better: 10% }
	variants:
	  slow:
	    without: [1a356dad81e2]
	    claims:
	      - { metric: realloc.calls_per_sec, worse: 20%, than: kit }
	EOF
	record_branch good applied slow &&
	record_cell good base $A tcg instructions base-icount.log base-icount-boot2.log &&
	record_cell good kit $B tcg instructions kit-icount.log &&
	record_cell good slow $C tcg instructions base-icount.log &&
	record_branch slower applied &&
	record_cell slower base $A tcg instructions base-icount.log &&
	record_cell slower kit $B tcg instructions kit-icount-slower.log &&
	record_branch emulated applied &&
	record_cell emulated base $A tcg emulated base-icount.log &&
	record_cell_legacy emulated kit $B tcg kit-icount-slower.log &&
	record_branch skipped applied &&
	record_cell skipped base $A kvm hardware base-icount.log &&
	record_cell skipped kit $B kvm hardware kit-jiffies.log &&
	record_branch reused present &&
	record_cell reused base $A tcg instructions base-icount.log &&
	record_cell reused kit $A tcg instructions base-icount.log reused=base
'

test_expect_success 'instruction-paced: two boots of base merged, every claim held, exit 0' '
	(cd kit && mkseries report --workdir ../good >../out) &&
	cat out &&
	test_grep "^t: kit, slow against base, mm-regress quick, 5 samples a metric, tcg: instruction-paced time (TCG icount: instructions at a 1 GHz virtual clock, not hardware time: no cache or TLB-miss costs), clock tsc (resolution 1 ns), threshold 5%, boots (samples merged): base 2, kit 1, slow 1$" out &&
	test_grep "^       100 ±  0%     -20.1%      80.00 ±  0%      -0.1%        100 ±  0%  perf_loop.us_per_iteration (us)  (kit better)$" out &&
	test_grep "^  t kit: series alpha: realloc.calls_per_sec better by 20% than base (\"the cover letter: 25% more reallocs\"): held: +25.9% against base (kit 1260, base 1000 calls/s)" out &&
	test_grep "^  t kit: series alpha: steady.ns_per_op below 60: held: kit mean 50.00 ns" out &&
	test_grep "^  t kit: branch t: perf_loop.us_per_iteration better by 10% than base: held: -20.1% against base" out &&
	test_grep "^  t slow: variant slow: realloc.calls_per_sec worse by 20% than kit: held: -20.6% against kit" out &&
	test_grep "^3 cells: 3 ok; 0 regressions, 2 improvements; claims: 4 held, 0 did not hold, 0 not checked$" out
'

test_expect_success 'json: the boots, their consoles and every sample of both' '
	(cd kit && mkseries report --workdir ../good --format json >../good.json) &&
	jq -r ".branches[0].cells[0] | [.timing, .boots, (.console_logs | length), .metrics[0].n, (.metrics[0].samples | length), .clock.source] | join(\" \")" \
		good.json >base &&
	echo "instructions 2 2 10 10 tsc" >base.expect &&
	test_cmp base.expect base &&
	jq -r ".branches[0].cells[1].claims[] | .owner + \" \" + .outcome" good.json >claims &&
	printf "%s\n" "alpha held" "alpha held" "t held" >claims.expect &&
	test_cmp claims.expect claims &&
	jq -r ".status, .summary.claims_held" good.json >sum &&
	printf "%s\n" ok 4 >sum.expect &&
	test_cmp sum.expect sum
'

test_expect_success 'an instruction-paced regression and claims that do not hold fail the run' '
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower >../out) &&
	cat out &&
	test_grep "^       100 ±  0%     +30.0%        130 ±  0%  perf_loop.us_per_iteration (us)  (worse)$" out &&
	test_grep "^  t kit: claim did not hold: series alpha: realloc.calls_per_sec better by 20% than base$" out &&
	test_grep "^  t kit: series alpha: realloc.calls_per_sec better by 20% than base (\"the cover letter: 25% more reallocs\"): DID NOT HOLD: +10.0% against base (kit 1100, base 1000 calls/s), exact: the same value in each of the 5 and 5 samples; needed +20% or more (better by 20%): smaller than claimed$" out &&
	test_grep "^  t kit: branch t: perf_loop.us_per_iteration better by 10% than base: DID NOT HOLD: +30.0% against base .*: it went the other way$" out &&
	test_grep "^2 cells: 1 ok, 1 failed; 1 regression, 1 improvement; claims: 1 held, 2 did not hold, 0 not checked$" out &&
	test_grep ! "emulated" out
'

test_expect_success 'junit: a testcase per claim, a failure for each that did not hold' '
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower --format junit >../s.xml) &&
	xml_ok s.xml &&
	test_grep "<property name=\"timing\" value=\"instructions\"/>" s.xml &&
	test $(grep -c "<testcase classname=\"t/kit/claims\"" s.xml) = 3 &&
	test $(grep -c "<failure message=\"claim did not hold: " s.xml) = 2 &&
	test_grep "<testcase classname=\"t/kit/claims\" name=\"series alpha: steady.ns_per_op below 60\" time=\"0.000\"/>" s.xml &&
	test_grep "<failure message=\"regression: +30.0% (exact: no spread in 5 and 5 samples, threshold 5.0%), in instruction-paced time\" type=\"regression\">" s.xml
'

test_expect_success 'the same numbers in emulated time fail nothing: claims not checked' '
	(cd kit && mkseries report --workdir ../emulated >../out) &&
	cat out &&
	test_grep "^t: kit against base, mm-regress quick, 5 samples a metric, tcg: emulated time (TCG on host time: the emulator.s speed, noise; never fails a run)" out &&
	test_grep "+30.0%  *130 .*perf_loop.us_per_iteration (us)  (worse)$" out &&
	test_grep "^  t kit: series alpha: realloc.calls_per_sec better by 20% than base (.*): not checked: kit measured emulated time (TCG on host time): its numbers say little about the kernel$" out &&
	test_grep "^2 cells: 2 ok; 1 regression, 1 improvement (1 of the regressions in emulated time, TCG on host time: not a failure); claims: 0 held, 0 did not hold, 3 not checked$" out &&
	(cd kit && mkseries report --workdir ../emulated --format junit >../e.xml) &&
	xml_ok e.xml &&
	test $(grep -c "<skipped message=\"not checked: kit measured emulated time" e.xml) = 3 &&
	test_grep "<skipped message=\"regression in emulated time (TCG on host time), not a failure: +30.0% (exact: no spread in 5 and 5 samples, threshold 5.0%)\"/>" e.xml &&
	test_grep ! "<failure" e.xml
'

test_expect_success 'a metric mm-regress skipped is not measured, and its claim not checked' '
	(cd kit && mkseries report --workdir ../skipped >../out) &&
	cat out &&
	test_grep ", kvm: hardware time (KVM), clock jiffies (resolution 10 ms), threshold 5%$" out &&
	test_grep "^      1000 ±  0%                     -        realloc.calls_per_sec (calls/s)  (kit not measured)$" out &&
	test_grep "^  t kit realloc.calls_per_sec: not measured: shortest interval 0.8 ms is under 100 x the clock.s resolution (10 ms)$" out &&
	test_grep "^  t kit: series alpha: realloc.calls_per_sec better by 20% than base (.*): not checked: realloc.calls_per_sec not measured on kit: mm-regress skipped it (shortest interval" out &&
	test_grep "^2 cells: 2 ok; 0 regressions, 1 improvement; claims: 2 held, 0 did not hold, 1 not checked$" out &&
	(cd kit && mkseries report --workdir ../skipped --format json >../k.json) &&
	jq -r ".branches[0].cells[1].metric_skips[0] | .case + \".\" + .name" k.json >skip &&
	echo realloc.calls_per_sec >skip.expect &&
	test_cmp skip.expect skip &&
	jq -r "[.branches[0].cells[1].metrics[].name] | join(\" \")" k.json >names &&
	echo "us_per_iteration ns_per_op" >names.expect &&
	test_cmp names.expect names
'

test_expect_success 'a kit reused from base is base.s tree: no change, said in every format' '
	cp -r kit kit2 &&
	sed -i "/^claims:/,/better: 10%/d" kit2/kernels/t.yaml &&
	(cd kit2 && mkseries report --workdir ../reused >../out) &&
	cat out &&
	test_grep "^t kit   ok     ok     ok tcg  3 ok   none    same tree as base$" out &&
	test_grep "^kit is base.s tree (nothing applied): base.s build and results reused, no change against base$" out &&
	test_grep "^       100 ±  0%      +0.0%        100 ±  0%  perf_loop.us_per_iteration (us)$" out &&
	test_grep "^  t base: series alpha: steady.ns_per_op below 60: held" out &&
	test_grep "^2 cells: 2 ok; 0 regressions, 0 improvements; claims: 2 held" out &&
	(cd kit2 && mkseries report --workdir ../reused --format json >../u.json) &&
	jq -r ".branches[0].cells[1].reused, .branches[0].comparison.same_tree, .branches[0].comparison.regressions, ([.branches[0].comparison.metrics[].verdict] | unique | join(\" \"))" \
		u.json >u &&
	printf "%s\n" base true 0 same >u.expect &&
	test_cmp u.expect u &&
	(cd kit2 && mkseries report --workdir ../reused --format junit >../u.xml) &&
	test_grep "<property name=\"reused\" value=\"base: the same tree as base, base&#39;s build and results, no change\"/>" u.xml &&
	(cd kit2 && mkseries report --workdir ../reused --format markdown >../u.md) &&
	test_grep "^| t kit  | ok    | ok    | ok   | 3 ok  | base.s tree |$" u.md &&
	test_grep "^kit is base.s tree (nothing applied): base.s build and results reused,$" u.md
'

test_expect_success 'json reports merge back: the claims travel with them and are judged again' '
	(cd kit && test_expect_code 1 mkseries report --workdir ../slower --format json --output ../s.json) &&
	test_expect_code 1 mkseries report --merge s.json --format json >m.json &&
	grep -v "\"generated\"" s.json >s.cut &&
	grep -v "\"generated\"" m.json >m.cut &&
	test_cmp s.cut m.cut &&
	test_expect_code 1 mkseries report --merge s.json --format junit >m.xml &&
	test $(grep -c "<failure message=\"claim did not hold: " m.xml) = 2 &&
	(cd kit && mkseries report --workdir ../good --variant base --format json --output ../gb.json) &&
	(cd kit && mkseries report --workdir ../good --variant kit --format json --output ../gk.json) &&
	mkseries report --merge gb.json gk.json >merged &&
	test_grep "^  t kit: series alpha: realloc.calls_per_sec better by 20% than base (.*): held: +25.9% against base" merged
'

test_expect_success 'a mistake in a claim is a FILE:LINE error, exit 2' '
	cp -r kit kit3 &&
	sed -i "s/metric: realloc.calls_per_sec, better: 20%,/metric: realloc, better: 20 percent,/" kit3/series.yaml &&
	(cd kit3 && test_expect_code 2 mkseries report --workdir ../good 2>../err) &&
	test_grep "^error: series.yaml:10: .metric. must be CASE.NAME, an mm-regress case and one of its metrics (as in realloc_rate.calls_per_sec), not .realloc.$" err &&
	test_grep "^error: series.yaml:10: .better. must be a percentage like 20%, not .20 percent.$" err &&
	sed -i "s/than: kit/than: fast/" kit3/kernels/t.yaml &&
	(cd kit3 && test_expect_code 2 mkseries report --workdir ../good 2>../err) &&
	test_grep "^error: kernels/t.yaml:10: unknown cell .fast. in .than. (base, kit)$" err
'

# Modelled time: the kit's cells booted with tcg-clock: modelled, where the
# plugin's counts join mm-regress's regions as metrics of their own.
test_expect_success 'modelled cycles: judged as deterministic time, labelled so, claims on them checked' '
	cp -r kit kit-m &&
	cat >kit-m/kernels/t.yaml <<-\EOF &&
	name: t
	source: { tarball: /nonexistent/linux-t.tar.xz }
	config: { base: tinyconfig }
	boot: { accel: tcg, tcg-clock: modelled }
	claims:
	  - { metric: realloc.modelled_cycles, better: 10%, than: base }
	variants:
	  slow:
	    without: [1a356dad81e2]
	    claims:
	      - { metric: realloc.modelled_cycles, worse: 40%, than: kit, why: "the cold lookup" }
	      - { metric: realloc.llc_misses, worse: 60%, than: kit }
	EOF
	record_branch modelled applied slow &&
	record_cell modelled base $A tcg modelled base-modelled.log &&
	record_cell modelled kit $B tcg modelled kit-modelled.log &&
	record_cell modelled slow $C tcg modelled slow-modelled.log &&
	(cd kit-m && mkseries report --workdir ../modelled >../out) &&
	cat out &&
	test_grep "^t: kit, slow against base, mm-regress quick, 5 samples a metric, tcg: instruction-paced time and modelled cycles (TCG icount with the tcg-cache plugin: instructions plus the modelled cache and TLB misses of one Raptor Lake core, deterministic; no prefetchers, no out-of-order overlap, one vCPU), " out &&
	test_grep "^      3000 ±  0%     -20.0%       2400 ±  0%     +20.0%       3600 ±  0%  realloc.modelled_cycles (cycles/call)" out &&
	test_grep "^     10.00 ±  0%     -20.0%       8.00 ±  0%     +40.0%      14.00 ±  0%  realloc.llc_misses (misses/call)  (kit better, slow worse)$" out &&
	test_grep "^  t kit: branch t: realloc.modelled_cycles better by 10% than base: held: -20.0% against base (kit 2400, base 3000 cycles/call)" out &&
	test_grep "^  t slow: variant slow: realloc.modelled_cycles worse by 40% than kit (\"the cold lookup\"): held: +50.0% against kit (slow 3600, kit 2400 cycles/call)" out &&
	test_grep "^  t slow: variant slow: realloc.llc_misses worse by 60% than kit: held: +75.0% against kit" out &&
	test_grep "^3 cells: 3 ok; 0 regressions, 3 improvements (variants: 2 worse, 1 better); claims: 4 held, 0 did not hold, 1 not checked$" out
'

test_expect_success 'modelled cycles: every format says which kind of time they are' '
	(cd kit-m && mkseries report --workdir ../modelled --format json >../m.json) &&
	jq -r "[.branches[0].cells[] | .timing] | join(\" \")" m.json >timing &&
	echo "modelled modelled modelled" >timing.expect &&
	test_cmp timing.expect timing &&
	jq -r ".branches[0].cells[0].timing_note" m.json >note &&
	test_grep "^instruction-paced time and modelled cycles (TCG icount with the tcg-cache plugin" note &&
	(cd kit-m && mkseries report --workdir ../modelled --format junit >../m.xml) &&
	xml_ok m.xml &&
	test_grep "<property name=\"timing\" value=\"modelled\"/>" m.xml &&
	(cd kit-m && mkseries report --workdir ../modelled --format markdown >../m.md) &&
	test_grep "modelled cycles (TCG icount with the tcg-cache plugin: instructions plus" m.md &&
	(cd kit-m && mkseries report --workdir ../modelled --format html >../m.html) &&
	test_grep "instruction-paced time and modelled cycles" m.html
'

test_expect_success "the kit's 6.12-modelled: 6.12's plan and no-hotfix variant, modelled, two cases, not a default branch" '
	mkdir real-kit &&
	cp -R "$SRC_DIR/series.yaml" "$SRC_DIR/kernels" "$SRC_DIR/patches" real-kit/ &&
	(cd real-kit && mkseries plan --branch 6.12 --format json >../p612.json) &&
	(cd real-kit && mkseries plan --branch 6.12-modelled --format json >../pm.json) &&
	(cd real-kit && mkseries plan --all >../all.txt) &&
	jq -c "[.branches[0].items[] | [.series, .subject, .action]]" p612.json >items.612 &&
	jq -c "[.branches[0].items[] | [.series, .subject, .action]]" pm.json >items.m &&
	test_cmp items.612 items.m &&
	jq -r ".branches[0] | [.name, .default, .decisions] | map(tostring) | join(\" \")" pm.json >branch &&
	echo "6.12-modelled false 6.12" >expect &&
	test_cmp expect branch &&
	jq -r ".branches[0].variants[] | .name + \" \" + (.without | map(.upstream) | join(\",\"))" pm.json >variants &&
	echo "no-hotfix 0b5be138ce00" >expect &&
	test_cmp expect variants &&
	test_grep "^6.12: " all.txt &&
	test_grep ! "^6.12-modelled" all.txt &&
	test_grep "^  tcg-clock: modelled\$" real-kit/kernels/6.12-modelled.yaml &&
	test_grep "^  cmdline: \"mm_regress=--case=bigheap,--case=mremap_pte_loop,--instances=32,--heap=48M\"\$" real-kit/kernels/6.12-modelled.yaml &&
	test_grep "metric: mremap_pte_loop.modelled_cycles" real-kit/kernels/6.12-modelled.yaml &&
	test_grep "metric: bigheap.modelled_cycles" real-kit/kernels/6.12-modelled.yaml &&
	test_grep ! "metric: realloc_rate" real-kit/kernels/6.12-modelled.yaml
'

test_done

#!/bin/sh
# t0400-regress.sh: mkseries regress runs the embedded mm-regress on this machine and prints KTAP.
. "$(dirname "$0")/lib.sh"

CASES="mremap_pte mremap_pmd mremap_pud mremap_unaligned mremap_pud_time mremap_pte_loop
realloc_rate bigheap pte_batch_mprotect pte_batch_cow pte_batch_wrbit madvise_dontneed
process_madvise_dontneed cache_colour"
# What a run that names no case runs: all but the opt-in bigheap (t0422).
DEFAULT_CASES="mremap_pte mremap_pmd mremap_pud mremap_unaligned mremap_pud_time mremap_pte_loop
realloc_rate pte_batch_mprotect pte_batch_cow pte_batch_wrbit madvise_dontneed
process_madvise_dontneed cache_colour"

test_expect_success 'mkseries regress -- --list lists every case' '
	printf "%s\n" $CASES >expect &&
	mkseries regress -- --list >list &&
	test_cmp expect list
'

test_expect_success 'mkseries regress --list is the same list' '
	mkseries regress --list >list2 &&
	test_cmp expect list2
'

test_expect_success 'a quick run prints valid KTAP and every case passes or skips with a reason' '
	start=$(date +%s) &&
	mkseries regress -- --quick --seed 7 >out &&
	end=$(date +%s) &&
	echo "quick run: $((end - start)) s" &&
	cat out &&
	test "$(sed -n 1p out)" = "KTAP version 1" &&
	test "$(sed -n 2p out)" = "1..13" &&
	test_grep ! "^not ok" out &&
	grep -E "^ok [0-9]+ " out | awk "{print \$2, \$3}" >results &&
	i=0 && for c in $DEFAULT_CASES; do i=$((i + 1)); echo "$i $c"; done >results.expect &&
	test_cmp results.expect results &&
	test_grep ! -E "^ok [0-9]+ [a-z_]+ # SKIP *$" out &&
	test "$(tail -n 1 out)" = "# mm-regress: done"
'

test_expect_success 'a run that names no case leaves out bigheap, and --help says why' '
	test_grep ! -E "^(not )?ok [0-9]+ bigheap" out &&
	test_grep ! "^# bigheap" out &&
	mkseries regress -- --help >help &&
	test_grep "^    bigheap  *stress-ng bigheap.s realloc calls per second, .*(only with --case)$" help &&
	test_grep "^cases (those marked .only with --case. run only when named):$" help
'

test_expect_success 'the quick run prints its seed and its metrics' '
	test_grep "^# seed: 7$" out &&
	test_grep "rerun with --seed 7" out &&
	test_grep -E "^# metric: mremap_pud_time move_1g_pud_aligned [0-9.]+ us lower_is_better$" out &&
	test_grep -E "^# metric: mremap_pud_time pud_speedup [0-9.]+ x higher_is_better$" out &&
	test_grep -E "^# metric: mremap_pte_loop us_per_iteration [0-9.]+ us lower_is_better$" out &&
	test_grep -E "^# metric: realloc_rate calls_per_sec [0-9.]+ calls/s higher_is_better$" out &&
	test_grep -E "^# metric: madvise_dontneed dontneed_madvise [0-9.]+ ns lower_is_better$" out &&
	test_grep -E "^# metric: cache_colour fill_move_check [0-9.]+ us lower_is_better$" out &&
	test_grep "^# Totals: pass:[0-9]* fail:0 " out
'

BATCHES="1 2 4 8 16 32 64 128 256 512 1024"
CLOCKSOURCE=/sys/devices/system/clocksource/clocksource0/current_clocksource

test_expect_success 'the header states the clocksource and the clock, before the first case' '
	test_grep -E "^# clocksource: [^ ]+$" out &&
	src=$(sed -n "s/^# clocksource: //p" out) &&
	if [ -r $CLOCKSOURCE ]; then
		test "$src" = "$(cat $CLOCKSOURCE)"
	else
		test "$src" = unknown &&
		test_grep "^# cannot read $CLOCKSOURCE: " out
	fi &&
	test "$(grep -c "^# clock: " out)" = 1 &&
	test_grep -E "^# clock: resolution_ns=[0-9]+ getres_ns=[0-9]+ step_ns=[0-9]+$" out &&
	sed -n "s/^# clock: resolution_ns=\([0-9]*\) getres_ns=\([0-9]*\) step_ns=\([0-9]*\)$/\1 \2 \3/p" out >clock &&
	read res getres step <clock &&
	echo "clocksource $src: resolution $res ns, getres $getres ns, step $step ns" &&
	test "$getres" -ge 1 && test "$step" -ge 1 &&
	if [ "$getres" -gt "$step" ]; then test "$res" = "$getres"; else test "$res" = "$step"; fi &&
	test "$res" -lt 100000000 &&
	seed=$(grep -n "^# seed: " out | cut -d: -f1) &&
	clock=$(grep -n "^# clock: " out | cut -d: -f1) &&
	first=$(grep -n "^ok 1 " out | cut -d: -f1) &&
	test "$seed" -lt "$clock" && test "$clock" -lt "$first"
'

test_expect_success 'without --clock-resolution every metric is a number' '
	test_grep ! "^# metric-skip: " out &&
	test_grep ! "^# --clock-resolution" out &&
	test_grep ! -E "^ok [0-9]+ [a-z_]+ # SKIP shortest timed interval" out
'

test_expect_success '--mthp: a size such as 64kB, acted on only as init; anything else is a usage error' '
	test_grep ! "^# mTHP" out &&
	mkseries regress -- --quick --seed 7 --case mremap_pte --mthp 64kB >mthp &&
	test_grep "^# mTHP 64kB: left as it is (--mthp acts only as init)$" mthp &&
	test_expect_code 2 mkseries regress -- --mthp 64 2>err &&
	test_grep "option .--mthp. takes a size such as 64kB, not .64." err &&
	test_expect_code 2 mkseries regress -- --mthp 64kBB 2>err &&
	test_grep "not .64kBB." err
'

test_expect_success '--heap: realloc_rate grows its heap up to that size; a size off its steps is a usage error' '
	mkseries regress -- --quick --seed 7 --case realloc_rate >default &&
	test_grep -E "^# sample 1: [0-9]+ realloc calls in .*heaps of up to 8 MiB$" default &&
	mkseries regress -- --quick --seed 7 --case realloc_rate --heap 2M >small &&
	test_grep "^ok 1 realloc_rate$" small &&
	test_grep -E "^# sample 1: [0-9]+ realloc calls in .*heaps of up to 2 MiB$" small &&
	mkseries regress -- --quick --seed 7 --case realloc_rate --heap=3072K >k &&
	test_grep "heaps of up to 3 MiB$" k &&
	test_expect_code 2 mkseries regress -- --heap 100K 2>err &&
	test_grep "option .--heap. takes a size from 1M to 64G in 64K steps (as 256M), not .100K." err &&
	test_expect_code 2 mkseries regress -- --heap 1000000 2>err &&
	test_grep "not .1000000." err &&
	test_expect_code 2 mkseries regress -- --heap 1T 2>err &&
	test_grep "not .1T." err
'

MEASURES_ONLY="mremap_pud_time mremap_pte_loop realloc_rate"
UNDER_1S="is under 100 x the clock.s resolution (1000000000 ns, clocksource [^ ]*)"

test_expect_success '--clock-resolution 1000000000: timings are withheld, measuring cases skip, checks pass' '
	mkseries regress -- --quick --seed 7 --clock-resolution 1000000000 >coarse &&
	cat coarse &&
	test_grep -E "^# clock: resolution_ns=1000000000 getres_ns=[0-9]+ step_ns=[0-9]+$" coarse &&
	test_grep -E "^# --clock-resolution: timings are judged against 1000000000 ns, not the [0-9]+ ns measured$" coarse &&
	test_grep ! -E "^# (metric|sample): " coarse &&
	for m in "mremap_pud_time move_1g_pud_aligned" "mremap_pud_time move_1g_pmd_aligned" \
		 "mremap_pud_time pud_speedup" "mremap_pte_loop us_per_iteration" \
		 "realloc_rate calls_per_sec" "madvise_dontneed dontneed_madvise" \
		 "cache_colour fill_move_check"; do
		test_grep "^# metric-skip: $m shortest timed interval [0-9]* ns $UNDER_1S$" coarse ||
		return 1
	done &&
	n=4 && for c in $MEASURES_ONLY; do
		n=$((n + 1)) &&
		test_grep "^ok $n $c # SKIP shortest timed interval [0-9]* ns $UNDER_1S$" coarse ||
		return 1
	done &&
	grep -E "^(not )?ok " out | grep -v -E " (mremap_pud_time|mremap_pte_loop|realloc_rate)$" >checks.expect &&
	grep -E "^(not )?ok " coarse | grep -v -E " (mremap_pud_time|mremap_pte_loop|realloc_rate) # SKIP " >checks &&
	test_cmp checks.expect checks &&
	test_grep "^ok 13 cache_colour$" coarse &&
	test_grep "^# 1 page: 4096 bytes .*, data intact (too quick for the clock to time)$" coarse &&
	test_grep "^# Totals: pass:[0-9]* fail:0 " coarse &&
	test "$(tail -n 1 coarse)" = "# mm-regress: done"
'

test_expect_success '--clock-resolution: the madvise sweeps withhold every batch, and still check the memory' '
	if grep -q "^ok 12 process_madvise_dontneed # SKIP" coarse; then
		test_grep ! "^# metric-skip: process_madvise_dontneed " coarse
	else
		test_grep "^ok 12 process_madvise_dontneed$" coarse &&
		for b in $BATCHES; do
			test_grep "^# metric-skip: process_madvise_dontneed [a-z]*_batch_$b shortest timed interval [0-9]* ns $UNDER_1S$" coarse ||
			return 1
		done
	fi &&
	test_grep "^ok 11 madvise_dontneed$" coarse &&
	test_grep "^# MADV_DONTNEED over [0-9]* MiB, 4 KiB per madvise() call; memory reads zero after$" coarse
'

test_expect_success '--clock-resolution under the measured resolution changes nothing' '
	mkseries regress -- --case mremap_pud_time --quick --clock-resolution 1 >fine &&
	test_grep ! "^# --clock-resolution" fine &&
	test_grep -E "^# metric: mremap_pud_time pud_speedup [0-9.]+ x higher_is_better$" fine &&
	test_grep "^ok 1 mremap_pud_time$" fine
'

test_expect_success '--help explains --clock-resolution as a diagnostic aid' '
	mkseries regress -- --help >help &&
	test_grep "^    --clock-resolution NS$" help &&
	test_grep "diagnostic aid: pretend the clock is at least NS ns" help
'


test_expect_success 'the madvise sweep has a metric per batch size, or says why not' '
	if grep -q "^ok 12 process_madvise_dontneed # SKIP" out; then
		test_grep "process_madvise(MADV_DONTNEED) refused: .*errno" out
	else
		adv=$(sed -n "s/^# process_madvise_dontneed: advice MADV_\([A-Z]*\).*/\1/p" out | tr A-Z a-z) &&
		echo "advice: $adv" &&
		case "$adv" in dontneed|cold) ;; *) false ;; esac &&
		for b in $BATCHES; do
			test_grep -E "^# metric: process_madvise_dontneed ${adv}_batch_$b [0-9.]+ ns lower_is_better$" out ||
			return 1
		done
	fi
'

test_expect_success 'process_madvise_dontneed says which advice it used, and why not DONTNEED' '
	if grep -q "^ok 12 process_madvise_dontneed # SKIP" out; then
		test_grep ! "^# process_madvise_dontneed: advice " out
	elif grep -q "^# process_madvise_dontneed: advice MADV_DONTNEED$" out; then
		test_grep ! " cold_" out &&
		test_grep "^# MADV_DONTNEED over [0-9]* MiB in [0-9]* KiB ranges, batches of 1 to 1024 ranges per call; memory reads zero after each$" out
	else
		test_grep "^# process_madvise_dontneed: advice MADV_COLD (process_madvise(MADV_DONTNEED) refused: Invalid argument)$" out &&
		test_grep -E "^# metric: process_madvise_dontneed cold_madvise [0-9.]+ ns lower_is_better$" out &&
		test_grep ! " dontneed_batch_" out
	fi
'

test_expect_success 'MM_REGRESS_FORCE_COLD=1: process_madvise_dontneed measures MADV_COLD, data intact' '
	MM_REGRESS_FORCE_COLD=1 mkseries regress -- --case process_madvise_dontneed --quick --seed 9 >cold &&
	cat cold &&
	test_grep "^1\.\.1$" cold &&
	test_grep "^ok 1 process_madvise_dontneed$" cold &&
	test_grep "^# process_madvise_dontneed: advice MADV_COLD (MM_REGRESS_FORCE_COLD is set)$" cold &&
	test_grep -E "^# metric: process_madvise_dontneed cold_madvise [0-9.]+ ns lower_is_better$" cold &&
	for b in $BATCHES; do
		test_grep -E "^# metric: process_madvise_dontneed cold_batch_$b [0-9.]+ ns lower_is_better$" cold ||
		return 1
	done &&
	test "$(grep -c "^# metric: " cold)" = 12 &&
	test_grep ! "dontneed_batch_" cold &&
	test_grep "^# MADV_COLD over 8 MiB in [0-9]* KiB ranges, one per madvise() call and batches of 1 to 1024 per process_madvise() call; the data reads back unchanged after each$" cold &&
	secs=$(sed -n "s/^# process_madvise_dontneed: \([0-9.]*\) s$/\1/p" cold) &&
	echo "process_madvise_dontneed (MADV_COLD, quick) took $secs s (not asserted: timings belong in bench/)" &&
	test -n "$secs"
'

test_expect_success 'MM_REGRESS_FORCE_COLD=0 leaves the choice to the kernel' '
	MM_REGRESS_FORCE_COLD=0 mkseries regress -- --case process_madvise_dontneed --quick >nocold &&
	test_grep ! "MM_REGRESS_FORCE_COLD is set" nocold &&
	if grep -q "^# process_madvise_dontneed: advice MADV_DONTNEED$" out; then
		test_grep "^# process_madvise_dontneed: advice MADV_DONTNEED$" nocold
	fi
'

test_expect_success 'data MADV_COLD loses fails process_madvise_dontneed with the offset and both words' '
	test_expect_code 1 env MM_REGRESS_FORCE_COLD=1 MM_REGRESS_COLD_INJECT=1 \
		mkseries regress -- --case process_madvise_dontneed --quick --seed 9 >lost &&
	cat lost &&
	test_grep "^not ok 1 process_madvise_dontneed$" lost &&
	test_grep -E "^# offset 0x[0-9a-f]+ reads 0x0{16} after MADV_COLD, expected 0x[0-9a-f]{16}$" lost &&
	test_grep "^# process_madvise_dontneed: MADV_COLD lost data: 1 word(s) changed (madvise(), one range per call)$" lost &&
	test_grep ! "^# metric: " lost &&
	test_grep "^# Totals: pass:0 fail:1 " lost
'

test_expect_success 'pte_batch_wrbit is listed, with its help line' '
	test_grep "^pte_batch_wrbit$" list &&
	mkseries regress -- --help >help &&
	test_grep "^    pte_batch_wrbit  *one VMA, PTEs of a THP with mixed write bits, moved: no write through$" help
'

test_expect_success 'pte_batch_wrbit runs ok on this host, quickly, or skips with a reason' '
	mkseries regress -- --case pte_batch_wrbit --quick --seed 11 >wrbit &&
	cat wrbit &&
	test_grep "^1\.\.1$" wrbit &&
	if grep -q "^ok 1 pte_batch_wrbit # SKIP" wrbit; then
		test_grep -E "^ok 1 pte_batch_wrbit # SKIP [a-zA-Z].{9,}" wrbit
	else
		test_grep "^ok 1 pte_batch_wrbit$" wrbit &&
		test_grep "^# one VMA, THP mapped by PTEs (AnonHugePages: 0 kB); " wrbit &&
		test_grep "^# move 1: pages 0\.\.1 (1 writable, then 1 write-protected) to " wrbit &&
		test_grep "^# move 3: pages 16\.\.63 (16 writable, then 32 write-protected) to " wrbit &&
		test "$(grep -c "^# move [1-4]: pages " wrbit)" = 4 &&
		test_grep "^# the child kept its copy" wrbit &&
		test_grep ! "^# child:" wrbit &&
		if [ "$(uname -m)" = x86_64 ]; then
			test_grep "^# pte_batch_wrbit: batching is only reachable on x86 without 0b5be138ce00$" wrbit
		fi &&
		secs=$(sed -n "s/^# pte_batch_wrbit: \([0-9.]*\) s$/\1/p" wrbit) &&
		echo "pte_batch_wrbit took $secs s" &&
		awk -v s="$secs" "BEGIN { exit !(s ~ /^[0-9]+(\\.[0-9]+)?$/) }"
	fi
'

# The injected leak needs the case to run here (not skip) on 4 KiB pages.
test_lazy_prereq WRBIT_RUNS '
	if ! grep -q "^ok 1 pte_batch_wrbit$" "$TRASH_DIRECTORY/wrbit"; then
		echo "pte_batch_wrbit did not run on this host (see its test)"
		false
	elif test "$(getconf PAGESIZE)" != 4096; then
		echo "pages are $(getconf PAGESIZE) bytes, not 4 KiB"
		false
	fi
'

test_expect_success WRBIT_RUNS 'a write that reaches the child fails pte_batch_wrbit with offsets and bytes' '
	test_expect_code 1 env MM_REGRESS_WRBIT_INJECT=1 \
		mkseries regress -- --case pte_batch_wrbit --seed 11 >leak &&
	cat leak &&
	test_grep "^not ok 1 pte_batch_wrbit$" leak &&
	test_grep "^# child: move 1 (pages 0\.\.1): 1 page(s) changed, offsets 0x1000\.\.0x1fff$" leak &&
	test_grep -E "^# child:   at 0x1000 it read 0x[0-9a-f]{16}, expected 0x[0-9a-f]{16}; 512 of 512 wrong words hold the parent.s new data$" leak &&
	test_grep -E "^# pte_batch_wrbit: the parent.s writes through moved write-protected PTEs reached the child: 1 page\(s\) changed; at 0x1000 it read 0x[0-9a-f]{16}, expected 0x[0-9a-f]{16} \(the parent.s new data\)$" leak &&
	test_grep ! "the child kept its copy" leak &&
	test_grep "^# Totals: pass:0 fail:1 " leak
'

# PR_SET_THP_DISABLE (41) is inherited across exec: the case must skip, never pass.
test_lazy_prereq PYTHON3 'command -v python3'

test_expect_success PYTHON3 'without THP pte_batch_wrbit skips and says why' '
	python3 -c "import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(41, 1, 0, 0, 0):
    sys.exit(\"prctl: errno %d\" % ctypes.get_errno())
os.execv(sys.argv[1], sys.argv[1:])" "$MKSERIES_BIN" regress -- --case pte_batch_wrbit >nothp &&
	cat nothp &&
	test_grep -E "^ok 1 pte_batch_wrbit # SKIP (no THP backs the region \(AnonHugePages: 0 kB\)|THP is disabled .*)$" nothp
'

test_expect_success '--case picks one case, --seed sets the seed' '
	mkseries regress -- --case cache_colour --seed 3 --quick >one &&
	cat one &&
	test_grep "^1\.\.1$" one &&
	test "$(grep -c -E "^(not )?ok " one)" = 1 &&
	test_grep "^ok 1 cache_colour$" one &&
	test_grep "^# seed: 3$" one
'

test_expect_success '--case takes a comma-separated list and repeats' '
	mkseries regress -- --case=mremap_pte,mremap_pmd --case cache_colour --quick >three &&
	test_grep "^1\.\.3$" three &&
	grep -E "^ok " three | awk "{print \$3}" >names &&
	printf "%s\n" mremap_pte mremap_pmd cache_colour >names.expect &&
	test_cmp names.expect names
'

test_expect_success '--repeat prints each sample, then the mean with n and stddev' '
	mkseries regress -- --case mremap_pud_time --repeat 3 --quick >rep &&
	cat rep &&
	test "$(grep -c "^# sample: mremap_pud_time move_1g_pud_aligned [1-3]/3 " rep)" = 3 &&
	test_grep -E "^# metric: mremap_pud_time move_1g_pud_aligned [0-9.]+ us lower_is_better n=3 stddev=[0-9.]+$" rep
'

test_expect_success 'a bad mm-regress option exits 2 with a message' '
	test_expect_code 2 mkseries regress -- --bogus >out.bad 2>err &&
	test_grep "mm-regress: unknown option .--bogus." err &&
	test_expect_code 2 mkseries regress -- --case nosuchcase 2>err &&
	test_grep "unknown case .nosuchcase. (see --list)" err &&
	test_expect_code 2 mkseries regress -- --seed 2>err &&
	test_grep "option .--seed. needs a value" err &&
	test_expect_code 2 mkseries regress -- --seed twelve 2>err &&
	test_grep "option .--seed. expects a number" err &&
	test_expect_code 2 mkseries regress -- --repeat 0 2>err &&
	test_grep "option .--repeat. must be at least 1" err &&
	test_expect_code 2 mkseries regress -- --quick=yes 2>err &&
	test_grep "option .--quick. takes no value" err &&
	test_expect_code 2 mkseries regress -- stray 2>err &&
	test_grep "unexpected argument .stray." err &&
	test_expect_code 2 mkseries regress -- --clock-resolution 2>err &&
	test_grep "option .--clock-resolution. needs a value" err &&
	test_expect_code 2 mkseries regress -- --clock-resolution 1ms 2>err &&
	test_grep "option .--clock-resolution. expects a number up to 100000000000, not .1ms." err &&
	test_expect_code 2 mkseries regress -- --clock-resolution=1000000000000 2>err &&
	test_grep "option .--clock-resolution. expects a number up to 100000000000" err
'

test_expect_success 'a bad mkseries regress option exits 2 with a message' '
	test_expect_code 2 mkseries regress --bogus 2>err &&
	test_grep "unknown option .--bogus." err &&
	test_expect_code 2 mkseries regress --quick 2>err &&
	test_grep "unknown option .--quick." err &&
	test_expect_code 2 mkseries regress stray -- --list 2>err &&
	test_grep "unexpected argument .stray. (mm-regress options go after .--.)" err
'

test_expect_success 'a case that runs past --timeout is killed and fails the run' '
	test_expect_code 1 mkseries regress -- --case mremap_pte_loop --repeat 500 --timeout 1 >slow &&
	cat slow &&
	test_grep "^not ok 1 mremap_pte_loop$" slow &&
	test_grep "^# mremap_pte_loop: timed out after 1 s$" slow &&
	test_grep "^# Totals: pass:0 fail:1 " slow &&
	test "$(tail -n 1 slow)" = "# mm-regress: done"
'

test_expect_success '--args-from reads mm_regress= from a kernel command line' '
	printf "console=ttyS0 panic=-1 mm_regress=\"--case=mremap_pte,--seed=42\" -- ignored\n" >cmdline &&
	mkseries regress -- --args-from cmdline >fromcl &&
	test_grep "^1\.\.1$" fromcl &&
	test_grep "^ok 1 mremap_pte$" fromcl &&
	test_grep "^# seed: 42$" fromcl &&
	echo "console=ttyS0 quiet" >nocl &&
	test_expect_code 2 mkseries regress -- --args-from nocl 2>err &&
	test_grep "nocl. has no mm_regress= parameter" err &&
	test_expect_code 2 mkseries regress -- --args-from missing 2>err &&
	test_grep "cannot read .missing.: No such file or directory" err
'

test_expect_success 'without a memfd it runs from a temporary file and removes it' '
	mkdir tmp &&
	MKSERIES_REGRESS_NO_MEMFD=1 TMPDIR="$PWD/tmp" mkseries regress -- --list >list3 &&
	test_cmp expect list3 &&
	test -z "$(ls tmp)" &&
	MKSERIES_REGRESS_NO_MEMFD=1 TMPDIR="$PWD/tmp" mkseries regress -- --case nosuchcase 2>err;
	test $? = 2 &&
	test -z "$(ls tmp)" &&
	test_expect_code 1 env MKSERIES_REGRESS_NO_MEMFD=1 TMPDIR="$PWD/nodir" mkseries regress --list 2>err &&
	test_grep "cannot create a temporary file in .*nodir" err
'

# PID 1 of a new PID namespace is the closest the host gets to an initramfs's /init:
# reboot() there ends the namespace (SIGHUP), as -no-reboot ends QEMU.
MM_REGRESS="$(dirname "$MKSERIES_BIN")/mm-regress"
test_lazy_prereq PID1 '
	if test "$(id -u)" != 0; then
		echo "needs root"
		false
	elif ! test -x "$MM_REGRESS"; then
		echo "no $MM_REGRESS"
		false
	else
		unshare --pid --fork --mount --mount-proc true
	fi
'

test_expect_success PID1 'as PID 1 it takes mm_regress= arguments, prints the done marker last, and reboots' '
	{ mm_regress=--case=mremap_pte,--seed=5 timeout 60 \
		unshare --pid --fork --mount --mount-proc "$MM_REGRESS" not-an-option >init.out 2>init.err;
	  echo $? >code; } &&
	cat init.out code &&
	test "$(cat code)" = 129 &&
	test_grep "^# init: ignoring argument .not-an-option.$" init.out &&
	test_grep "as init" init.out &&
	test_grep "^# seed: 5$" init.out &&
	test_grep "^ok 1 mremap_pte$" init.out &&
	test_grep "^# init: exit status 0, rebooting$" init.out &&
	test "$(tail -n 1 init.out)" = "# mm-regress: done"
'

test_expect_success PID1 'as PID 1 bad arguments still end in a reboot, with Bail out!' '
	{ mm_regress=--bogus timeout 60 \
		unshare --pid --fork --mount --mount-proc "$MM_REGRESS" >init2.out 2>init2.err;
	  echo $? >code; } &&
	cat init2.out &&
	test "$(cat code)" = 129 &&
	test "$(sed -n 1p init2.out)" = "KTAP version 1" &&
	test "$(sed -n 2p init2.out)" = "1..0" &&
	test_grep "^Bail out! unknown option .--bogus.$" init2.out &&
	test_grep "^# init: exit status 2, rebooting$" init2.out &&
	test "$(tail -n 1 init2.out)" = "# mm-regress: done"
'

test_done

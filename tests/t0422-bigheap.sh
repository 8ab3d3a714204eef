#!/bin/sh
# t0422-bigheap.sh: mm-regress's bigheap times and counts only the realloc() calls, in one worker or --instances N.
. "$(dirname "$0")/lib.sh"

MM_REGRESS="$(dirname "$MKSERIES_BIN")/mm-regress"
PLUGIN="$(dirname "$MKSERIES_BIN")/tcg-cache.so"

# "sample 1: C calls by N worker(s) in ..., R restarts at L MiB" into calls, workers, restarts.
read_sample() {
	line=$(grep "^# sample 1: [0-9]* calls by " "$1") &&
	calls=$(echo "$line" | sed "s/^# sample 1: \([0-9]*\) calls by .*/\1/") &&
	workers=$(echo "$line" | sed "s/.* calls by \([0-9]*\) worker(s) .*/\1/") &&
	restarts=$(echo "$line" | sed "s/.*, \([0-9]*\) restarts at .*/\1/") &&
	line=$(grep "^# sample 1: [0-9]* malloc() of a fresh block, " "$1") &&
	mallocs=$(echo "$line" | sed "s/^# sample 1: \([0-9]*\) malloc().*/\1/") &&
	mremaps=$(echo "$line" | sed "s/.*, \([0-9]*\) realloc() of a mapped block (mremap), .*/\1/") &&
	brks=$(echo "$line" | sed "s/.* (mremap), \([0-9]*\) in the brk heap;.*/\1/") &&
	echo "calls=$calls workers=$workers restarts=$restarts mallocs=$mallocs mremaps=$mremaps brks=$brks" &&
	test $((mallocs + mremaps + brks)) = "$calls"
}

test_expect_success 'bigheap is listed, and a run of it alone reports calls_per_sec' '
	mkseries regress -- --list >list &&
	test_grep "^bigheap$" list &&
	mkseries regress -- --case bigheap --quick --seed 5 >one &&
	cat one &&
	test_grep "^1\.\.1$" one &&
	test_grep "^ok 1 bigheap$" one &&
	test_grep -E "^# metric: bigheap calls_per_sec [0-9.]+ calls/s higher_is_better$" one &&
	test_grep "^# 1 worker(s) in the case.s process, each growing a heap by 64 KiB a call up to 64 MiB; glibc.s default malloc (no mallopt), malloc_trim(0) at each restart$" one &&
	test_grep ! "within glibc.s dynamic mmap threshold" one
'

test_expect_success 'one worker: the region counts every call, and glibc grows the block by mremap()' '
	read_sample one &&
	test "$workers" = 1 &&
	test "$calls" -gt 10 &&
	test_grep "^# region: bigheap $calls call$" one &&
	test "$mallocs" = $((restarts + 1)) &&
	test $((mremaps * 10)) -gt $((calls * 9)) &&
	test_grep -E "^# sample 1: .*; [0-9]+ moved the block, [0-9]+ of them by mremap\(\)$" one &&
	test_grep ! "^# sample 1: worker " one
'

# One instance keeps its heap from sample to sample, as a stress-ng
# instance keeps it through its run: a sample after the first starts on
# the last one's heap (no fresh malloc() but at a restart), and freeing
# that heap at a sample's end, at 32 MiB or less, would have raised
# glibc's mmap threshold and sent the later heaps into the brk heap.
test_expect_success 'one worker: its heap lives on into the next sample, which stays on mremap()' '
	"$MM_REGRESS" --quick --seed 5 --case bigheap --heap 48M --repeat 3 >three &&
	for s in 2 3
	do
		line=$(grep "^# sample $s: [0-9]* calls by " three) &&
		calls=$(echo "$line" | sed "s/^# sample $s: \([0-9]*\) calls by .*/\1/") &&
		restarts=$(echo "$line" | sed "s/.*, \([0-9]*\) restarts at .*/\1/") &&
		line=$(grep "^# sample $s: [0-9]* malloc() of a fresh block, " three) &&
		mallocs=$(echo "$line" | sed "s/^# sample $s: \([0-9]*\) malloc().*/\1/") &&
		brks=$(echo "$line" | sed "s/.* (mremap), \([0-9]*\) in the brk heap;.*/\1/") &&
		echo "sample $s: calls=$calls restarts=$restarts mallocs=$mallocs brks=$brks" &&
		test "$mallocs" = "$restarts" &&
		test $((brks * 20)) -lt "$calls" || return 1
	done
'

test_expect_success '--instances 4: four workers with a heap each, taking turns; one result line' '
	mkseries regress -- --case bigheap --quick --seed 5 --instances 4 >four &&
	cat four &&
	test_grep "^# 4 worker(s) taking turns, one call each, each growing a heap by 64 KiB a call up to 64 MiB; " four &&
	test_grep "^ok 1 bigheap$" four &&
	test "$(grep -c -E "^(not )?ok " four)" = 1 &&
	test "$(grep -c "^KTAP version 1$" four)" = 1 &&
	test "$(grep -c "^# metric: " four)" = 1 &&
	read_sample four &&
	test "$workers" = 4 &&
	test_grep "^# region: bigheap $calls call$" four &&
	test_grep "^# worker i (from 0) starts each sample on a block of i x 256 KiB, up to half the limit, made before the first call$" four &&
	test "$mallocs" = $((restarts + 1)) &&
	sed -n "s/^# sample 1: worker \([0-9]*\): \([0-9]*\) calls in .*/\1 \2/p" four >per &&
	test "$(wc -l <per)" = 4 &&
	test "$(cut -d" " -f1 per | tr "\n" " ")" = "1 2 3 4 " &&
	total=0 && lo= && hi= &&
	while read w c; do
		total=$((total + c)) &&
		if [ -z "$lo" ] || [ "$c" -lt "$lo" ]; then lo=$c; fi &&
		if [ -z "$hi" ] || [ "$c" -gt "$hi" ]; then hi=$c; fi || return 1
	done <per &&
	echo "per worker: $lo to $hi calls, $total in all" &&
	test "$total" = "$calls" &&
	test $((hi - lo)) -le 1
'

test_expect_success '--instances takes 1 to 256; 0, garbage and more are usage errors' '
	test_expect_code 2 mkseries regress -- --case bigheap --instances 0 2>err &&
	test_grep "option .--instances. must be at least 1" err &&
	test_expect_code 2 mkseries regress -- --instances four 2>err &&
	test_grep "option .--instances. expects a number up to 256, not .four." err &&
	test_expect_code 2 mkseries regress -- --instances=257 2>err &&
	test_grep "not .257." err &&
	test_expect_code 2 mkseries regress -- --instances 2>err &&
	test_grep "option .--instances. needs a value" err &&
	mkseries regress -- --help >help &&
	test_grep "^    --instances N      bigheap runs N worker processes (1 to 256, default 1),$" help
'

test_expect_success 'a worker that is killed fails the case, and the ring does not wait for it' '
	start=$(date +%s) &&
	test_expect_code 1 env MM_REGRESS_BIGHEAP_KILL=2 \
		timeout 120 mkseries regress -- --case bigheap --seed 5 --instances 3 >killed &&
	end=$(date +%s) &&
	cat killed &&
	test_grep "^not ok 1 bigheap$" killed &&
	test_grep "^# bigheap: worker 2 of 3 was killed by signal 9 (Killed)$" killed &&
	test_grep ! "^# metric: " killed &&
	test "$(tail -n 1 killed)" = "# mm-regress: done" &&
	echo "failed in $((end - start)) s" &&
	test $((end - start)) -lt 60
'

# --clock-resolution stretches the sample to 5 s. Workers left alive
# would run on to its end, holding the case's result pipe open (the
# run waits for them), and be there after it.
test_expect_success 'a case killed by --timeout takes its workers with it' '
	start=$(date +%s) &&
	test_expect_code 1 "$MM_REGRESS" --case bigheap --seed 4242427 --instances 3 --timeout 1 \
		--clock-resolution 50000000 >timedout &&
	end=$(date +%s) &&
	cat timedout &&
	test_grep "^# bigheap: timed out after 1 s$" timedout &&
	echo "the run ended after $((end - start)) s" &&
	test $((end - start)) -le 3 &&
	! pgrep -f "seed 4242427"
'

test_expect_success 'a worker whose realloc() fails fails the case with the reason' '
	test_expect_code 1 sh -c "ulimit -v 30000 && exec \"\$0\" --case bigheap --seed 5 --instances 2 --heap 512M" \
		"$MM_REGRESS" >nomem &&
	cat nomem &&
	test_grep "^not ok 1 bigheap$" nomem &&
	test_grep -E "^# bigheap: worker [12] of 2 failed: realloc to [0-9]+ bytes failed: Cannot allocate memory$" nomem
'

test_lazy_prereq STRACE '
	command -v strace && test -x "$MM_REGRESS" && strace -f -o /dev/null true
'

# glibc grows a mapped block with one mremap() per realloc(); the case
# tells them from calls in the brk heap by the block's address.
test_expect_success STRACE 'the mremap() count is the number of calls on a mapped block' '
	strace -f -o trace -e trace=mremap "$MM_REGRESS" --case bigheap --quick --seed 5 --instances 2 >traced &&
	read_sample traced &&
	test "$(grep -c "mremap(" trace)" = "$mremaps" &&
	test "$mremaps" -gt 0
'

test_expect_success STRACE 'heaps within the dynamic threshold: after the first, glibc grows them by brk()' '
	strace -f -o trace -e trace=mremap "$MM_REGRESS" --case bigheap --quick --seed 5 --heap 2M >small &&
	cat small &&
	test_grep "^# a limit of 2 MiB is within glibc.s dynamic mmap threshold (up to 32 MiB): heaps after the first grow by brk(), not mremap()$" small &&
	read_sample small &&
	test "$restarts" -ge 2 &&
	test "$(grep -c "mremap(" trace)" = "$mremaps" &&
	test "$mremaps" -lt 32 &&
	test "$brks" -gt "$mremaps"
'

test_lazy_prereq QEMU_USER '
	command -v qemu-x86_64 && test "$(uname -m)" = x86_64 && test -f "$PLUGIN"
'

# The value of KEY on the plugin's line starting with PREFIX, in FILE.
count() {
	grep "^mkseries-cycles: $2 " "$1" | head -n 1 | tr " " "\n" | sed -n "s/^$3=//p"
}

# Under qemu-user the case runs in a child of its own, with a copy of the
# plugin: its "total regions=1" line holds the case's markers. Each call
# is followed by writes to 16 pages never written before: were they in
# the region, it would count at least 16 DTLB misses a call.
test_expect_success QEMU_USER 'under the plugin the region counts the calls alone: one pause a call, no writes' '
	qemu-x86_64 -plugin "$PLUGIN" "$MM_REGRESS" --quick --case bigheap --seed 5 >q.out 2>q.counts &&
	cat q.out q.counts &&
	test_grep "^ok 1 bigheap$" q.out &&
	calls=$(sed -n "s/^# region: bigheap \([0-9]*\) call$/\1/p" q.out) &&
	test "$calls" -gt 10 &&
	test "$(count q.counts "total regions=1" pauses)" = $((calls + 1)) &&
	test "$(count q.counts "total regions=1" unmatched_ends)" = 0 &&
	insns=$(count q.counts region=1 insns) &&
	dtlb=$(count q.counts region=1 dtlb_misses) &&
	echo "paused: $calls calls, $((insns / calls)) instructions and $((dtlb / calls)) DTLB misses a call" &&
	test "$insns" -gt $((calls * 100)) &&
	test "$dtlb" -lt $((calls * 8))
'

# Under qemu-user each forked worker has a copy of the plugin, taken while
# the region was open and paused (pauses=1): its own total line shows one
# more pause for each of its calls, and no worker ends the region.
test_expect_success QEMU_USER '--instances 3 under the plugin: each worker pauses once after each of its calls' '
	qemu-x86_64 -plugin "$PLUGIN" "$MM_REGRESS" --quick --case bigheap --seed 5 --instances 3 \
		>w.out 2>w.counts &&
	cat w.out w.counts &&
	test_grep "^ok 1 bigheap$" w.out &&
	calls=$(sed -n "s/^# region: bigheap \([0-9]*\) call$/\1/p" w.out) &&
	test "$(grep -c "^mkseries-cycles: region=" w.counts)" = 1 &&
	test_grep "^mkseries-cycles: total regions=1 markers=3 unmatched_ends=0 pauses=1 " w.counts &&
	grep "^mkseries-cycles: total regions=1 " w.counts | sed -n "s/.* markers=\([0-9]*\) unmatched_ends=0 pauses=\([0-9]*\) .*/\1 \2/p" >workers &&
	sed -n "s/^# sample 1: worker [0-9]*: \([0-9]*\) calls in .*/\1/p" w.out | sort -n >expect &&
	awk "\$2 > 1 { print \$2 - 1 }" workers | sort -n >actual &&
	test_cmp expect actual &&
	awk "\$2 > 1 && \$1 != 2 * \$2 { exit 1 }" workers &&
	test "$(awk "{ n += \$1 } END { print n }" expect)" = "$calls"
'

test_expect_success QEMU_USER 'MM_REGRESS_BIGHEAP_UNPAUSED=1: the region takes in the writes, many times the calls alone' '
	MM_REGRESS_BIGHEAP_UNPAUSED=1 qemu-x86_64 -plugin "$PLUGIN" "$MM_REGRESS" --quick --case bigheap --seed 5 \
		>u.out 2>u.counts &&
	test_grep "^# MM_REGRESS_BIGHEAP_UNPAUSED is set: " u.out &&
	ucalls=$(sed -n "s/^# region: bigheap \([0-9]*\) call$/\1/p" u.out) &&
	test "$(count u.counts "total regions=1" pauses)" = 0 &&
	uinsns=$(count u.counts region=1 insns) &&
	udtlb=$(count u.counts region=1 dtlb_misses) &&
	echo "unpaused: $ucalls calls, $((uinsns / ucalls)) instructions and $((udtlb / ucalls)) DTLB misses a call" &&
	test "$udtlb" -ge $((ucalls * 16)) &&
	calls=$(sed -n "s/^# region: bigheap \([0-9]*\) call$/\1/p" q.out) &&
	insns=$(count q.counts region=1 insns) &&
	test $((uinsns / ucalls)) -gt $((insns / calls * 10))
'

test_done

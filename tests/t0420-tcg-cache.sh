#!/bin/sh
# t0420-tcg-cache.sh: the tcg-cache QEMU plugin counts the misses a known access pattern makes.
. "$(dirname "$0")/lib.sh"

PLUGIN=$(dirname "$MKSERIES_BIN")/tcg-cache.so
CC=${CC:-cc}

test_lazy_prereq QEMU_USER 'command -v qemu-x86_64 && test "$(uname -m)" = x86_64'

# The walk program (tests/data/tcg-cache-walk.c), static so that its
# buffer lies at the same address on every run.
test_expect_success QEMU_USER 'the walk program builds with the region markers in it' '
	test -f "$PLUGIN" &&
	$CC -O2 -static -no-pie -I"$SRC_DIR/tools/tcg-cache" -o walk "$SRC_DIR/tests/data/tcg-cache-walk.c" &&
	./walk 4096 64 1 >native &&
	test_grep "walked 4096 bytes by 64, 1 passes, 1 regions" native
'

# walk BYTES STRIDE PASSES [REGIONS] under the plugin with ARGS; the counts in "counts".
walk() {
	args=$1 && shift &&
	qemu-x86_64 -plugin "$PLUGIN$args" ./walk "$@" 2>counts >/dev/null &&
	cat counts
}

# The value of KEY on the line of region N (or "total") of counts.
count() {
	grep "^mkseries-cycles: $1 " counts | tr " " "\n" | sed -n "s/^$2=//p"
}

test_expect_success QEMU_USER 'QEMU 7.2 loads the plugin (API version 1), which states its model' '
	walk "" 4096 64 1 &&
	test_grep "^mkseries-cycles: model l1d=48K/12 l2=2048K/16+16 llc=36864K/12+70 mem+350 dtlb=96/6 stlb=2048/16+7 walk+30 stores=buffered rep=line user_page=4K line=64 virtual$" counts &&
	test_grep "^mkseries-cycles: total regions=1 markers=2 unmatched_ends=0 pauses=0 insns=[1-9]" counts
'

test_expect_success QEMU_USER 'a plugin that claims a later API version is refused by QEMU' '
	$CC -shared -fPIC -fvisibility=hidden -DQEMU_PLUGIN_VERSION=2 -o later.so \
		"$SRC_DIR/tools/tcg-cache/tcg-cache.c" &&
	! qemu-x86_64 -plugin ./later.so ./walk 4096 64 1 2>err &&
	test_grep "plugin requires API version 2, but this QEMU supports only up to version 1" err
'

# 4 MiB by 64 bytes: 65,536 lines a pass, 1,024 pages. Larger than L1d
# and L2, so each of LRU's cyclic passes misses every line at both;
# inside the LLC, so nothing misses there; 1,024 pages overflow the
# 96-entry DTLB but not the 2,048-entry STLB. The walk calls and returns
# once per region: a stack page may add a DTLB miss either side.
test_expect_success QEMU_USER 'a walk larger than L1d and L2 misses every line at both, none in the LLC' '
	walk "" 4194304 64 2 &&
	test "$(count region=1 l1d_misses)" = 131072 &&
	test "$(count region=1 l2_misses)" = 131072 &&
	test "$(count region=1 llc_misses)" = 0 &&
	dtlb=$(count region=1 dtlb_misses) &&
	test "$dtlb" -ge 2048 && test "$dtlb" -le 2052 &&
	test "$(count region=1 page_walks)" = 0 &&
	insns=$(count region=1 insns) &&
	test "$(count region=1 cycles)" = $((insns + 131072 * 16 + 131072 * 70 + dtlb * 7))
'

# Paused: each region opens, pauses (twice: the second changes
# nothing), walks 3 passes uncounted, resumes for one pass and pauses
# again before its end, which closes it at that pause; a resume before
# any region changes nothing either. Each region counts the one pass
# alone, exactly as a one-pass region does (65,536 lines missing L1d and
# L2, 1,025 pages the DTLB), where its four passes would miss 262,144;
# 13 markers ran, 4 of them pauses that took.
test_expect_success QEMU_USER 'pause and resume: a region counts only what runs between its resumes and pauses' '
	walk "" 4194304 64 3 2 pause &&
	for r in 1 2
	do
		test "$(count region=$r l1d_misses)" = 65536 &&
		test "$(count region=$r l2_misses)" = 65536 &&
		test "$(count region=$r llc_misses)" = 0 &&
		test "$(count region=$r dtlb_misses)" = 1025 &&
		insns=$(count region=$r insns) &&
		test "$insns" -lt 524288 &&
		test "$(count region=$r cycles)" = $((insns + 65536 * 16 + 65536 * 70 + 1025 * 7)) || return 1
	done &&
	test_grep "^mkseries-cycles: total regions=2 markers=13 unmatched_ends=0 pauses=4 " counts
'

# The same walk storing: the same lines miss (a store fills its line),
# counted apart as store misses; under the default stores=buffered they
# cost no cycles (a store retires into the store buffer), under
# stores=stall exactly what the loads cost.
test_expect_success QEMU_USER 'store misses fill lines and are counted, charged only with stores=stall' '
	walk "" 4194304 64 2 1 store &&
	test "$(count region=1 l1d_misses)" = 131072 &&
	test "$(count region=1 l1d_store_misses)" = 131072 &&
	test "$(count region=1 l2_store_misses)" = 131072 &&
	dtlb=$(count region=1 dtlb_misses) &&
	test "$(count region=1 cycles)" = $(($(count region=1 insns) + dtlb * 7)) &&
	walk ",stores=stall" 4194304 64 2 1 store &&
	test_grep " walk+30 stores=stall rep=line " counts &&
	dtlb=$(count region=1 dtlb_misses) &&
	test "$(count region=1 cycles)" = $(($(count region=1 insns) + 131072 * 16 + 131072 * 70 + dtlb * 7))
'

# rep stosb over 4 MiB, twice: QEMU runs (and counts as an instruction)
# each byte, 8,388,608 of them; under rep=line they cost a cycle a line
# instead, as a fast-string store does, under rep=element one each.
test_expect_success QEMU_USER 'a rep string instruction costs a cycle a line, or an element with rep=element' '
	walk "" 4194304 64 2 1 rep &&
	elements=$(count region=1 rep_elements) &&
	test "$elements" -ge 8388608 && test "$elements" -le 8388612 &&
	lines=$(count region=1 rep_lines) &&
	test "$lines" -ge 131072 && test "$lines" -le 131076 &&
	insns=$(count region=1 insns) &&
	test "$insns" -gt "$elements" &&
	dtlb=$(count region=1 dtlb_misses) &&
	test "$(count region=1 cycles)" = $((insns - elements + lines + dtlb * 7)) &&
	walk ",rep=element" 4194304 64 2 1 rep &&
	test_grep " stores=buffered rep=element " counts &&
	dtlb=$(count region=1 dtlb_misses) &&
	test "$(count region=1 cycles)" = $(($(count region=1 insns) + dtlb * 7))
'

test_expect_success QEMU_USER 'a walk that fits in L1d misses nothing' '
	walk "" 16384 64 2 &&
	test "$(count region=1 l1d_misses)" = 0 &&
	test "$(count region=1 dtlb_misses)" = 0 &&
	test "$(count region=1 cycles)" = "$(count region=1 insns)"
'

test_expect_success QEMU_USER 'a tiny LLC and TLB miss every line and page the big walk touches' '
	walk ",llc_size=1M,llc_assoc=16,stlb_size=512,stlb_assoc=8,mem_latency=100" 4194304 64 2 &&
	test_grep "llc=1024K/16+70 mem+100 dtlb=96/6 stlb=512/8+7" counts &&
	test "$(count region=1 llc_misses)" = 131072 &&
	test "$(count region=1 page_walks)" -ge 2048
'

test_expect_success QEMU_USER 'two runs give identical counts' '
	walk "" 4194304 64 2 3 && mv counts counts.1 &&
	walk "" 4194304 64 2 3 &&
	test_cmp counts.1 counts
'

test_expect_success QEMU_USER 'each start marker opens a region, numbered in order, each end closes it' '
	test_grep "^mkseries-cycles: total regions=3 markers=6 unmatched_ends=0 " counts &&
	test "$(grep -c "^mkseries-cycles: region=" counts)" = 3 &&
	test "$(count region=1 l1d_misses)" = 131072 &&
	test "$(count region=3 l1d_misses)" = 131072
'

test_expect_success QEMU_USER 'out=FILE writes the counts there' '
	qemu-x86_64 -plugin "$PLUGIN,out=$PWD/cycles.txt" ./walk 16384 64 1 2>err >/dev/null &&
	test_must_be_empty err &&
	test_grep "^mkseries-cycles: region=1 insns=" cycles.txt
'

test_expect_success QEMU_USER 'a bad argument is refused, named' '
	! qemu-x86_64 -plugin "$PLUGIN,l2_size=100" ./walk 4096 64 1 2>err &&
	test_grep "tcg-cache: l2: 100 bytes is not a whole number of 16-way sets" err &&
	! qemu-x86_64 -plugin "$PLUGIN,l3_size=8M" ./walk 4096 64 1 2>err &&
	test_grep "tcg-cache: bad argument .l3_size=8M.: expected out=FILE" err &&
	! qemu-x86_64 -plugin "$PLUGIN,l1d_assoc=many" ./walk 4096 64 1 2>err &&
	test_grep "bad argument .l1d_assoc=many." err &&
	! qemu-x86_64 -plugin "$PLUGIN,stores=sometimes" ./walk 4096 64 1 2>err &&
	test_grep "bad argument .stores=sometimes." err
'

# user_page=2M: the buffer's 4 MiB are two or three 2 MiB pages, all in
# the DTLB after the warm-up pass, and so is the stack's: no DTLB miss,
# where 4 KiB pages miss about 2,048 (above).
test_expect_success QEMU_USER 'user_page=2M models user pages as 2 MiB: the big walk misses no DTLB entry' '
	walk ",user_page=2M" 4194304 64 2 &&
	test_grep " rep=line user_page=2M line=64 virtual$" counts &&
	test "$(count region=1 l1d_misses)" = 131072 &&
	test "$(count region=1 dtlb_misses)" = 0 &&
	test "$(count region=1 page_walks)" = 0 &&
	test "$(count region=1 cycles)" = $(($(count region=1 insns) + 131072 * 16 + 131072 * 70)) &&
	! qemu-x86_64 -plugin "$PLUGIN,user_page=1G" ./walk 4096 64 1 2>err &&
	test_grep "bad argument .user_page=1G.: expected out=FILE, stores=buffered|stall, rep=line|element, user_page=4K|2M, " err
'

# tests/data/tcg-cache-guest.c: under qemu-user a guest thread is a
# second vCPU, whose accesses the one CPU's counters cannot take; a
# forked child is another QEMU process with its own copy of the plugin.
test_expect_success QEMU_USER 'a guest thread stops the run, saying why; a forked child is counted on its own' '
	$CC -O2 -static -no-pie -I"$SRC_DIR/tools/tcg-cache" -o guest "$SRC_DIR/tests/data/tcg-cache-guest.c" &&
	./guest thread >native &&
	test_grep "thread: joined" native &&
	! qemu-x86_64 -plugin "$PLUGIN,out=$PWD/thread.txt" ./guest thread >out 2>err &&
	test_must_be_empty out &&
	test_grep "^tcg-cache: a second vCPU (1, the first was 0) started, a guest thread under qemu-user: the model and its counters are one CPU.s, so the run stops" err &&
	test_grep "^tcg-cache: a second vCPU (1, the first was 0) started" thread.txt &&
	test "$(grep -c "^mkseries-cycles: total " thread.txt)" = 0 &&
	qemu-x86_64 -plugin "$PLUGIN" ./guest fork >out 2>counts &&
	test_grep "fork: the child exited 0" out &&
	test "$(grep -c "^mkseries-cycles: model " counts)" = 1 &&
	test "$(grep -c "^mkseries-cycles: region=1 " counts)" = 2 &&
	test "$(grep -c "^mkseries-cycles: total regions=1 markers=2 unmatched_ends=0 " counts)" = 2
'

# An 8-byte load 4 bytes before the end of a page whose last line was
# just loaded: the first half hits that line and page; the second half
# is in the next page, never touched: its line misses at every level,
# and the page misses the DTLB and STLB (before the fix, the TLB saw
# only the first page: no miss).
test_expect_success QEMU_USER 'a load across two pages looks both pages up in the TLB' '
	qemu-x86_64 -plugin "$PLUGIN" ./guest cross >out 2>counts &&
	test_grep "cross: loaded 0" out &&
	test "$(count region=1 l1d_misses)" = 1 &&
	test "$(count region=1 llc_misses)" = 1 &&
	test "$(count region=1 dtlb_misses)" = 1 &&
	test "$(count region=1 page_walks)" = 1
'

# mm-regress's own markers, under qemu-user (each case runs in a child
# process there, with a copy of the plugin's counters: in a booted guest
# there is one plugin for the whole machine).
test_expect_success QEMU_USER 'mm-regress marks the timed loop of realloc_rate, and says how many calls it made' '
	mkseries regress -- --list >/dev/null &&
	qemu-x86_64 -plugin "$PLUGIN" "$(dirname "$MKSERIES_BIN")/mm-regress" --quick --case realloc_rate \
		>out 2>&1 &&
	cat out &&
	test_grep "^ok 1 realloc_rate$" out &&
	test_grep -E "^# region: realloc_rate [1-9][0-9]* call$" out &&
	test_grep -E "^mkseries-cycles: region=1 insns=[1-9][0-9]* l1d_misses=[1-9]" out &&
	test_grep "^mkseries-cycles: total regions=1 markers=2 unmatched_ends=0 " out
'

test_done

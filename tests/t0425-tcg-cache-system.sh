#!/bin/sh
# t0425-tcg-cache-system.sh: the tcg-cache plugin in system mode, on a tiny kernel whose page tables we wrote.
. "$(dirname "$0")/lib.sh"

PLUGIN=$(dirname "$MKSERIES_BIN")/tcg-cache.so
CC=${CC:-cc}

test_lazy_prereq QEMU_SYSTEM 'command -v qemu-system-x86_64 && test "$(uname -m)" = x86_64'

# tests/data/tcg-cache-kernel.S says what each region touches, and how
# its page tables map it. A 32-bit multiboot ELF: QEMU 7.2's -kernel
# loads those (not a 64-bit one), at 1 MiB.
test_expect_success QEMU_SYSTEM 'the kernel builds as a multiboot ELF' '
	test -f "$PLUGIN" &&
	$CC -m32 -nostdlib -static -no-pie -Wl,-n -Wl,--no-warn-rwx-segments -Wl,-Ttext=0x100000 \
		-Wl,--build-id=none -I"$SRC_DIR/tools/tcg-cache" -o kernel \
		"$SRC_DIR/tests/data/tcg-cache-kernel.S" &&
	od -A n -t x4 -N 8192 kernel >words &&
	test_grep 1badb002 words
'

# boot [QEMU ARGS...]: the kernel under the plugin with one vCPU and
# icount; the plugin's lines in "counts", COM1 in "serial". The kernel
# leaves through isa-debug-exit with 1, so QEMU exits 3 ((1 << 1) | 1);
# a fault would be a triple fault, and with -no-reboot an exit of 0.
boot() {
	rm -f counts &&
	timeout 120 qemu-system-x86_64 -machine pc -accel tcg -icount shift=0,sleep=off \
		-m 64M -net none -nographic -no-reboot -display none \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-plugin "$PLUGIN,out=$PWD/counts" -kernel kernel "$@" </dev/null >serial 2>err
}

# The value of KEY on the line of region N (or "total") of counts.
count() {
	grep "^mkseries-cycles: $1 " counts | tr " " "\n" | sed -n "s/^$2=//p"
}

test_expect_success QEMU_SYSTEM 'two vCPUs are refused when QEMU loads the plugin' '
	! boot -smp 2 &&
	test_grep "tcg-cache: the model is of one CPU: run with -smp 1, not 2 vCPUs" err
'

test_expect_success QEMU_SYSTEM 'the kernel runs its regions under the plugin, physically indexed' '
	test_expect_code 3 boot &&
	cat counts serial &&
	test_grep "^mkseries-cycles: model .* line=64 physical$" counts &&
	test_grep "^mkseries-cycles: total regions=8 markers=16 unmatched_ends=0 " counts
'

# Region 1 reads the 64 lines of virtual page 0x401000, after a pass
# over 0x400000 outside it; both pages map frame 0x200000. The caches
# are indexed by physical address: every line hits. The page is new to
# the TLB: one DTLB miss and one walk (7 + 30 cycles).
test_expect_success QEMU_SYSTEM 'an alias of a frame in L1d hits there: the caches see physical lines' '
	test "$(count region=1 l1d_misses)" = 0 &&
	test "$(count region=1 l2_misses)" = 0 &&
	test "$(count region=1 dtlb_misses)" = 1 &&
	test "$(count region=1 page_walks)" = 1 &&
	test "$(count region=1 cycles)" = $(($(count region=1 insns) + 7 + 30))
'

# Regions 2 and 3 each load once from 16 pages never touched before,
# 4 KiB apart: from 0xffff800000240000 (the upper half, which the model
# maps as 2 MiB pages, as Linux maps its direct map: one entry) and
# from 0x250000 (user pages of 4 KiB: 16 entries, in 16 of the DTLB's
# 16 sets). Each line is new to every level: 16 misses at each.
test_expect_success QEMU_SYSTEM 'the upper half is 2 MiB pages (one DTLB miss for 16 pages), the lower 4 KiB (16)' '
	test "$(count region=2 dtlb_misses)" = 1 &&
	test "$(count region=2 page_walks)" = 1 &&
	test "$(count region=2 llc_misses)" = 16 &&
	test "$(count region=2 cycles)" = $(($(count region=2 insns) + 16 * (16 + 70 + 350) + 7 + 30)) &&
	test "$(count region=3 dtlb_misses)" = 16 &&
	test "$(count region=3 page_walks)" = 16 &&
	test "$(count region=3 llc_misses)" = 16 &&
	test "$(count region=3 cycles)" = $(($(count region=3 insns) + 16 * (16 + 70 + 350) + 16 * (7 + 30)))
'

# Region 4 is one 8-byte load at 0x402ffc: 4 bytes in page 0x402000
# (frame 0x210000), 4 in page 0x403000 (frame 0x300000, 1 MiB on).
# Before it, loads of 0x402fc0 (the first part's line, and its page in
# the TLB) and of 0x300000 (the second part's line, through the
# identity map). The second line is frame 0x300000's first, in L1d: no
# miss (taken from the first frame, 0x211000's line, it would be one);
# the second page is new to the TLB: one miss and one walk.
test_expect_success QEMU_SYSTEM 'a load across two pages reads the second page through its own frame and TLB entry' '
	test "$(count region=4 l1d_misses)" = 0 &&
	test "$(count region=4 dtlb_misses)" = 1 &&
	test "$(count region=4 page_walks)" = 1
'

# Regions 5 to 8 pass over the flush set: a line in each of 16 user
# pages from 0x260000 and one in the upper half, all warm from a pass
# just before the region (17 lines in 17 L1d sets, 17 pages in the
# DTLB). Without a flush nothing misses. A mov to CR3 or an invlpg
# empties the user half of the DTLB and STLB (the invlpg all of it: the
# plugin cannot read which page it names): 16 DTLB misses and 16 walks,
# the upper half page still there, the lines all still in L1d.
test_expect_success QEMU_SYSTEM 'warm, a pass over 17 pages misses nothing' '
	test "$(count region=5 dtlb_misses)" = 0 &&
	test "$(count region=5 l1d_misses)" = 0 &&
	test "$(count region=5 tlb_flushes)" = 0 &&
	test "$(count region=5 cycles)" = "$(count region=5 insns)"
'

test_expect_success QEMU_SYSTEM 'a mov to CR3 flushes the 16 user pages from the TLB, not the upper half' '
	test "$(count region=6 tlb_flushes)" = 1 &&
	test "$(count region=6 tlb_page_flushes)" = 0 &&
	test "$(count region=6 dtlb_misses)" = 16 &&
	test "$(count region=6 page_walks)" = 16 &&
	test "$(count region=6 l1d_misses)" = 0 &&
	test "$(count region=6 cycles)" = $(($(count region=6 insns) + 16 * (7 + 30)))
'

test_expect_success QEMU_SYSTEM 'an invlpg flushes every user page, as we cannot read which it names' '
	test "$(count region=7 tlb_flushes)" = 0 &&
	test "$(count region=7 tlb_page_flushes)" = 1 &&
	test "$(count region=7 dtlb_misses)" = 16 &&
	test "$(count region=7 page_walks)" = 16 &&
	test "$(count region=7 l1d_misses)" = 0
'

# The whole run's flushes: the kernel's CR3 write as it turns paging on,
# region 6's and region 8's invpcid; SeaBIOS and QEMU's multiboot
# loader make none.
test_expect_success QEMU_SYSTEM 'the run counts every flush' '
	test "$(count total tlb_flushes)" = 3 &&
	test "$(count total tlb_page_flushes)" = 1
'

# Region 8 does the same after an invpcid (type 3). No CPU model of
# QEMU 7.2's TCG has INVPCID (-cpu max, even -cpu max,+invpcid, leaves
# CPUID.7.0:EBX bit 10 clear), so there the instruction raises #UD as it
# starts and the kernel's handler steps over it: what this checks is
# that the plugin knows the instruction by its bytes (66 0f 38 82, all
# that QEMU reads of it then) and counts its flush before it runs, as
# it would on a CPU that has it (COM1 says which it was: the counts are
# the same). The exception frame goes on a stack in the upper half,
# warm, so the region sees only the flush set.
test_expect_success QEMU_SYSTEM 'an invpcid flushes the 16 user pages from the TLB (here it raises #UD after the plugin saw it)' '
	test_grep "tcg-cache-kernel: invpcid: " serial &&
	test "$(count region=8 tlb_flushes)" = 1 &&
	test "$(count region=8 tlb_page_flushes)" = 0 &&
	test "$(count region=8 dtlb_misses)" = 16 &&
	test "$(count region=8 page_walks)" = 16 &&
	test "$(count region=8 l1d_misses)" = 0
'

test_done

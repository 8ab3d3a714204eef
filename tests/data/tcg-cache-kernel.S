/* tests/data/tcg-cache-kernel.S: a tiny x86-64 kernel for t0425, whose marked regions make known TLB and cache misses. */
/*
 * A 32-bit multiboot (v1) ELF, as QEMU's -kernel loads one, that builds
 * its own page tables, enters long mode and runs the regions below,
 * each opened and closed by tcg-cache's markers (marker.h), then says
 * on COM1 whether the CPU has INVPCID and leaves through
 * isa-debug-exit (iobase 0xf4): writing 1 makes QEMU exit with status
 * 3; a fault (there is no IDT) is a triple fault, and -no-reboot makes
 * that status 0.
 *
 * Memory (physical = virtual where not said), 4 KiB pages throughout:
 *   0 - 4 MiB          identity-mapped: this kernel at 1 MiB, and the
 *                      frames the regions read, from 2 MiB on;
 *   4 MiB - 6 MiB      the test mappings (PT2):
 *     0x400000, 0x401000   both to frame 0x200000 (an alias);
 *     0x402000             to frame 0x210000,
 *     0x403000             to frame 0x300000 (next pages, far frames);
 *   0xffff800000000000 + the above: the upper half, the same tables again
 *                      (PML4 entry 256 is entry 0's PDPT).
 *
 * Inside a region only the loads the comment names touch memory: the
 * loops keep their state in registers, and nothing calls or pushes.
 * Regions, in order (t0425 asserts their counts):
 *   1 alias       every line of 0x401000, after a pass over 0x400000
 *   2 upper       one load from each of 16 pages at 0xffff800000240000
 *   3 lower       one load from each of 16 pages at 0x250000
 *   4 crossing    an 8-byte load at 0x402ffc, after loads of 0x402fc0
 *                 and of frame 0x300000's first line (at 0x300000)
 *   5 no flush    a pass over the flush set, warm
 *   6 mov to CR3  the same, after writing CR3 back
 *   7 invlpg      the same, after invlpg 0x260000
 *   8 invpcid     the same, after invpcid type 3 (no CPU model of QEMU
 *                 7.2's TCG has INVPCID: there it raises #UD, which
 *                 our handler steps over; COM1 says which it was)
 * The flush set is one load from each of 16 pages from 0x260000 on
 * (0x260000, 0x261040, ... a line further each time) and one from the
 * upper half's 0xffff800000270400; it is passed over once, outside the
 * region, before each of regions 5 to 8.
 */
#include "marker.h"

#define PAGE		4096
#define UPPER		0xffff800000000000
#define DEBUG_EXIT	0xf4
#define COM1		0x3f8

	.macro mark kind
	.byte TCG_CACHE_MARK_BYTES(\kind)
	.endm

	/* Load a quadword from each of n addresses step bytes apart from base on. */
	.macro pass base, n, step
	movabs $\base, %rsi
	mov $\n, %ecx
1:	mov (%rsi), %rax
	add $\step, %rsi
	dec %ecx
	jnz 1b
	.endm

	/* A line further on in each page, so that the 17 lines fall in 17 sets of L1d. */
	.macro flush_set
	pass 0x260000, 16, PAGE + 64
	movabs $(UPPER + 0x270400), %rsi
	mov (%rsi), %rax
	.endm

	.text
	.code32
	.align 4
multiboot:
	.long 0x1badb002		/* magic */
	.long 0				/* flags: nothing asked of the loader */
	.long -0x1badb002		/* checksum */

	.globl _start
_start:
	cli
	mov $stack_top, %esp

	/* The tables are in .bss, which the loader leaves zero. */
	mov $pdpt + 3, %eax
	mov %eax, pml4
	mov %eax, pml4 + 256 * 8
	mov $pd + 3, %eax
	mov %eax, pdpt
	mov $pt + 3, %eax
	mov %eax, pd
	add $PAGE, %eax
	mov %eax, pd + 8
	add $PAGE, %eax
	mov %eax, pd + 16

	/* PT0 and PT1: 0 - 4 MiB, identity. */
	xor %ecx, %ecx
1:	mov %ecx, %eax
	shl $12, %eax
	or $3, %eax
	mov %eax, pt(, %ecx, 8)
	inc %ecx
	cmp $1024, %ecx
	jne 1b

	/* PT2: the test mappings at 4 MiB. */
	movl $0x200000 + 3, pt + 1024 * 8
	movl $0x200000 + 3, pt + 1025 * 8
	movl $0x210000 + 3, pt + 1026 * 8
	movl $0x300000 + 3, pt + 1027 * 8

	/* Long mode: PAE, the tables, EFER.LME, paging. */
	mov %cr4, %eax
	or $0x20, %eax
	mov %eax, %cr4
	mov $pml4, %eax
	mov %eax, %cr3
	mov $0xc0000080, %ecx
	rdmsr
	or $0x100, %eax
	wrmsr
	mov %cr0, %eax
	or $0x80000001, %eax
	mov %eax, %cr0
	lgdt gdtr
	ljmp $8, $long_mode

	.code64
long_mode:
	mov $16, %ax
	mov %ax, %ds
	mov %ax, %es
	mov %ax, %ss
	mov $stack_top, %esp		/* zero-extended: an ELF32 has no 64-bit relocations */

	/* 1: an alias of a frame whose lines are all in L1d. */
	pass 0x400000, 64, 64
	mark TCG_CACHE_MARK_START
	pass 0x401000, 64, 64
	mark TCG_CACHE_MARK_END

	/* 2: 16 pages of one 2 MiB page of the upper half. */
	mark TCG_CACHE_MARK_START
	pass UPPER + 0x240000, 16, PAGE
	mark TCG_CACHE_MARK_END

	/* 3: 16 pages of the lower half. */
	mark TCG_CACHE_MARK_START
	pass 0x250000, 16, PAGE
	mark TCG_CACHE_MARK_END

	/* 4: a load across two pages whose frames are 1 MiB apart. */
	mov 0x402fc0, %rax
	mov 0x300000, %rax
	mark TCG_CACHE_MARK_START
	mov 0x402ffc, %rax
	mark TCG_CACHE_MARK_END

	/* 5: the flush set again, no flush. */
	flush_set
	mark TCG_CACHE_MARK_START
	flush_set
	mark TCG_CACHE_MARK_END

	/* 6: mov to CR3, the value it had. */
	flush_set
	mov %cr3, %rdx
	mark TCG_CACHE_MARK_START
	mov %rdx, %cr3
	flush_set
	mark TCG_CACHE_MARK_END

	/* 7: invlpg of one of the set's pages. */
	flush_set
	mark TCG_CACHE_MARK_START
	invlpg 0x260000
	flush_set
	mark TCG_CACHE_MARK_END

	/*
	 * 8: invpcid type 3, its descriptor read through the upper half,
	 * which the flush keeps. On a CPU without INVPCID (CPUID.(EAX=7,
	 * ECX=0):EBX bit 10) it raises #UD, which the handler below steps
	 * over; the plugin decodes its bytes and counts its flush as it
	 * starts, either way. The exception's frame goes on a stack in the
	 * upper half, and the IDT and GDT the CPU reads for it are found
	 * there too, warm, so that the region sees only the flush set.
	 */
	mov $idt, %edi			/* registers: an ELF32 has no 64-bit relocations */
	mov $ud_handler, %eax
	mov %ax, 6 * 16(%rdi)
	movw $8, 6 * 16 + 2(%rdi)
	movw $0x8e00, 6 * 16 + 4(%rdi)	/* present, DPL 0, interrupt gate */
	shr $16, %eax
	mov %ax, 6 * 16 + 6(%rdi)
	mov $idtr, %edi
	lidt (%rdi)
	mov $gdtr_upper, %edi
	lgdt (%rdi)
	movabs $UPPER, %rax
	or %rax, %rsp
	push %rax
	pop %rax
	mov $invpcid_desc, %edx
	or %rax, %rdx
	mov (%rdx), %rax
	mov $3, %ebx			/* every address space's entries but global ones */
	flush_set
	mark TCG_CACHE_MARK_START
	invpcid (%rdx), %rbx
	flush_set
	mark TCG_CACHE_MARK_END

	mov $msg_no_invpcid, %esi
	xor %eax, %eax
	cpuid
	cmp $7, %eax
	jb done
	mov $7, %eax
	xor %ecx, %ecx
	cpuid
	bt $10, %ebx
	jnc done
	mov $msg_invpcid, %esi

done:
	mov $COM1, %dx
1:	lodsb
	test %al, %al
	jz 2f
	out %al, %dx
	jmp 1b
2:	mov $DEBUG_EXIT, %dx
	mov $1, %eax
	out %eax, %dx
	hlt
	jmp 2b

	/* #UD: step over the 5-byte invpcid that raised it. */
ud_handler:
	addq $5, (%rsp)
	iretq

	.section .rodata
msg_invpcid:
	.asciz "tcg-cache-kernel: invpcid: yes\n"
msg_no_invpcid:
	.asciz "tcg-cache-kernel: invpcid: no\n"

	.data
	.align 16
gdt:
	.quad 0
	.quad 0x00af9a000000ffff	/* 8: 64-bit code */
	.quad 0x00cf92000000ffff	/* 16: data */
gdtr:
	.word gdtr - gdt - 1
	.long gdt
gdtr_upper:				/* the same table, through the upper half */
	.word gdtr - gdt - 1
	.long gdt, UPPER >> 32
	.align 16
invpcid_desc:
	.quad 0, 0
idtr:
	.word 256 * 16 - 1
	.long idt, UPPER >> 32

	.bss
	.align PAGE
pml4:	.skip PAGE
pdpt:	.skip PAGE
pd:	.skip PAGE
pt:	.skip 3 * PAGE
idt:	.skip PAGE
	.skip 4 * PAGE
stack_top:

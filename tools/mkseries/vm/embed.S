/* vm/embed.S: carries the static mm-regress binaries inside mkseries (the host's and one per arch), and the tcg-cache QEMU plugin. */
/*
 * blob NAME, PATH: NAME_start .. NAME_end hold the bytes of PATH, then a
 * NUL that is not part of them (so a text file reads as a C string).
 */
.macro blob name, path
	.global \name\()_start
	.global \name\()_end
	.balign 16
\name\()_start:
	.incbin "\path"
\name\()_end:
	.byte 0
.endm

	.section .rodata
	blob mm_regress, MM_REGRESS_PATH
	blob mm_regress_x86_64, MM_REGRESS_X86_64
	blob mm_regress_x86_64_why, MM_REGRESS_X86_64_WHY
	blob mm_regress_aarch64, MM_REGRESS_AARCH64
	blob mm_regress_aarch64_why, MM_REGRESS_AARCH64_WHY
	blob mm_regress_sparc64, MM_REGRESS_SPARC64
	blob mm_regress_sparc64_why, MM_REGRESS_SPARC64_WHY
	blob tcg_cache, TCG_CACHE_PATH
	.section .note.GNU-stack,"",@progbits

/* embed.S: carries the static mm-regress binary inside mkseries. */
	.section .rodata
	.global mm_regress_start
	.global mm_regress_end
	.balign 16
mm_regress_start:
	.incbin MM_REGRESS_PATH
mm_regress_end:
	.section .note.GNU-stack,"",@progbits

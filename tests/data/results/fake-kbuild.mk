# fake-kbuild.mk: the Makefile of the synthetic trees in tests/t07*.sh, in
# place of the kernel's: a .config, a "vmlinux" (an ELF object whose one
# section is the tree's mm/mremap.c) and a "bzImage" that carries it (an
# x86 setup header naming the vmlinux as its payload, written by
# tests/data/mkbzimage), which mkseries checks.
#   FAKE_MAKE_SLEEP=N  the config step takes N seconds (to be interrupted)
#   FAKE_BREAK_KIT=1   the kit (mm/mremap.c with "batch") fails to compile
#   FAKE_BREAK_IF=RE   mm/mremap.c fails to compile when it has RE (grep -E)
#   FAKE_LOCK_PROBE=F  the config step prints "lock F: free" or "lock F: held"
#                      (whether flock(1) could take F) into the build log
tinyconfig defconfig:
	@sleep $${FAKE_MAKE_SLEEP:-0}
	@if [ -n "$${FAKE_LOCK_PROBE:-}" ]; then \
		if flock -n "$${FAKE_LOCK_PROBE}" true; then echo "lock $${FAKE_LOCK_PROBE}: free"; \
		else echo "lock $${FAKE_LOCK_PROBE}: held"; fi; \
	fi
	@mkdir -p $(O)
	@echo 'CONFIG_MMU=y' >$(O)/.config
olddefconfig:
	@true
vmlinux:
	@mkdir -p $(O)
	@if [ -n "$${FAKE_BREAK_KIT:-}" ] && grep -q batch mm/mremap.c; then \
		echo "mm/mremap.c:5:9: error: 'batch' redeclared as different kind of symbol"; \
		exit 1; \
	fi
	@if [ -n "$${FAKE_BREAK_IF:-}" ] && grep -Eq "$${FAKE_BREAK_IF}" mm/mremap.c; then \
		echo "mm/mremap.c:6:9: error: expected ';' before 'return'"; \
		exit 1; \
	fi
	@ld -r -b binary -o $(O)/vmlinux mm/mremap.c
bzImage: vmlinux
	@mkdir -p $(O)/arch/x86/boot
	@"$${MKBZIMAGE:?the tests export it}" $(O)/vmlinux $(O)/arch/x86/boot/bzImage

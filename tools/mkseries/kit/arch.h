/* kit/arch.h: the architectures a branch can be built and booted for, and the checks that an image or binary is really theirs. */
#ifndef MKSERIES_ARCH_H
#define MKSERIES_ARCH_H

#include <stddef.h>

#include "lib/util.h"

/*
 * What mkseries knows of one architecture: the `arch:` of a kernel file
 * names it. Every field is a static string and never NULL unless said.
 */
struct arch_info {
	const char *name;	/* as in kernels/<branch>.yaml: "arm64" */
	const char *srcarch;	/* the kernel's arch/ directory and make's ARCH=: "arm64" */
	const char *machine;	/* uname -m inside the guest: "aarch64" */
	unsigned elf_machine;	/* ELF e_machine of its kernels and programs */
	const char *image;	/* the kernel image, relative to make's O=: "arch/arm64/boot/Image" */
	const char *cross;	/* the Debian cross compiler's prefix: "aarch64-linux-gnu-" */
	const char *cross_packages;	/* what Debian installs it with */
	const char *qemu;	/* the QEMU binary */
	const char *qemu_package;	/* Debian's package for it */
	const char *qemu_machine;	/* -machine, or NULL for QEMU's default */
	const char *qemu_cpu;	/* -cpu under TCG, or NULL for QEMU's default */
	const char *console;	/* the serial console device: "ttyAMA0" */
	unsigned max_cpus;	/* what its QEMU machine can boot with (sun4u: 1), or 0: no limit */
};

struct kernel_branch;
/* b's architecture; kit_load() made sure it is a known one. */
const struct arch_info *branch_arch(const struct kernel_branch *b);
/* CROSS_COMPILE for b: its `cross`, else "" on the host's arch, else the arch's Debian prefix. */
const char *branch_cross(const struct kernel_branch *b);
/* The kernel image inside O=: b's `image`, else the arch's ("arch/arm64/boot/Image"). */
const char *branch_image(const struct kernel_branch *b);

/* The architecture called `name` ("x86_64", "arm64", "sparc64"), or NULL. */
const struct arch_info *arch_find(const char *name);

/* The architecture of a kernels file that names none. */
#define ARCH_DEFAULT "x86_64"
/* "x86_64, arm64, sparc64": the known names, for messages. */
const char *arch_names(void);
/* The architecture of the machine mkseries runs on, or NULL when it is none of them. */
const struct arch_info *arch_host(void);
/* Whether `a` is the host's: only then can KVM run its guests, and its compiler needs no prefix. */
int arch_is_host(const struct arch_info *a);

/*
 * "x86-64", "AArch64", "SPARC V9", "EM_<n>": an e_machine for messages;
 * buf (at least 32 bytes) holds the last kind. Returns the name.
 */
const char *elf_machine_name_to(char *buf, unsigned m);
/* The same into a buffer of the calling block's own, as oid_short(). */
#define elf_machine_name(m) elf_machine_name_to((char[32]){ 0 }, (m))

/*
 * Check that the kernel image at `path` was built for `a`: an arm64
 * Image by its header magic "ARM\x64" at offset 56, an x86 bzImage by
 * "HdrS" at 0x202, an ELF image (vmlinux, sparc's image) by e_machine.
 * Returns 0, or -1 with `why` saying what the file is instead ("an ELF
 * file for x86-64, not SPARC V9").
 */
int arch_check_image(const struct arch_info *a, const char *path, struct strbuf *why);

/*
 * Check that the program `data` (a static mm-regress) runs on `a`.
 * Returns 0, or -1 with `why` saying what it is instead.
 */
int arch_check_program(const struct arch_info *a, const void *data, size_t len, struct strbuf *why);

#endif

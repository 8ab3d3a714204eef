/* kit/arch.c: the architectures a branch can be built and booted for, and the checks that an image or binary is really theirs. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "kit/arch.h"
#include "kit/model.h"

#define EM_SPARCV9_ 43
#define EM_X86_64_ 62
#define EM_AARCH64_ 183

/*
 * sparc64's image is arch/sparc/boot/image, the ELF vmlinux stripped,
 * which OpenBIOS loads with -kernel (zImage does not boot); QEMU's
 * sun4u console is ttyS0 and the machine has a single CPU.
 */
static const struct arch_info arches[] = {
	{
		.name = "x86_64", .srcarch = "x86", .machine = "x86_64", .elf_machine = EM_X86_64_,
		.image = "arch/x86/boot/bzImage", .cross = "x86_64-linux-gnu-",
		.cross_packages = "gcc-x86-64-linux-gnu libc6-dev-amd64-cross",
		.qemu = "qemu-system-x86_64", .qemu_package = "qemu-system-x86",
		.console = "ttyS0",
	},
	{
		.name = "arm64", .srcarch = "arm64", .machine = "aarch64", .elf_machine = EM_AARCH64_,
		.image = "arch/arm64/boot/Image", .cross = "aarch64-linux-gnu-",
		.cross_packages = "gcc-aarch64-linux-gnu libc6-dev-arm64-cross",
		.qemu = "qemu-system-aarch64", .qemu_package = "qemu-system-arm",
		.qemu_machine = "virt", .qemu_cpu = "cortex-a57", .console = "ttyAMA0",
	},
	{
		.name = "sparc64", .srcarch = "sparc", .machine = "sparc64", .elf_machine = EM_SPARCV9_,
		.image = "arch/sparc/boot/image", .cross = "sparc64-linux-gnu-",
		.cross_packages = "gcc-sparc64-linux-gnu libc6-dev-sparc64-cross",
		.qemu = "qemu-system-sparc64", .qemu_package = "qemu-system-sparc",
		.qemu_machine = "sun4u", .console = "ttyS0", .max_cpus = 1,
	},
};

const struct arch_info *arch_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(arches) / sizeof(*arches); i++)
		if (!strcmp(arches[i].name, name))
			return &arches[i];
	return NULL;
}

const char *arch_names(void)
{
	return "x86_64, arm64, sparc64";
}

const struct arch_info *arch_host(void)
{
	struct utsname u;
	size_t i;

	if (uname(&u))
		return NULL;
	for (i = 0; i < sizeof(arches) / sizeof(*arches); i++)
		if (!strcmp(arches[i].machine, u.machine))
			return &arches[i];
	return NULL;
}

int arch_is_host(const struct arch_info *a)
{
	return a && a == arch_host();
}

/*
 * The ELF e_machine of the `len` bytes at `data`, or 0 when they are not
 * an ELF file (too short, no magic). Reads both byte orders.
 */
static unsigned elf_machine_of(const void *data, size_t len)
{
	const unsigned char *p = data;

	if (len < 20 || memcmp(p, "\177ELF", 4))
		return 0;
	/* EI_DATA: 1 little-endian, 2 big-endian; e_machine is at 18 in both classes. */
	if (p[5] == 2)
		return (unsigned)p[18] << 8 | p[19];
	return (unsigned)p[19] << 8 | p[18];
}

const char *elf_machine_name_to(char *buf, unsigned m)
{
	switch (m) {
	case EM_X86_64_:
		return "x86-64";
	case EM_AARCH64_:
		return "AArch64";
	case EM_SPARCV9_:
		return "SPARC V9";
	case 3:
		return "i386";
	case 40:
		return "ARM";
	case 2:
		return "SPARC";
	}
	snprintf(buf, 32, "EM_%u", m);
	return buf;
}

/* What the first bytes of a kernel image say it is, in words. */
static void describe(struct strbuf *why, const unsigned char *p, size_t len)
{
	unsigned m = elf_machine_of(p, len);

	if (m)
		strbuf_addf(why, "an ELF file for %s", elf_machine_name(m));
	else if (len >= 60 && !memcmp(p + 56, "ARM\x64", 4))
		strbuf_addstr(why, "an arm64 Image");
	else if (len >= 0x206 && !memcmp(p + 0x202, "HdrS", 4))
		strbuf_addstr(why, "an x86 bzImage");
	else if (!len)
		strbuf_addstr(why, "empty");
	else
		strbuf_addstr(why, "of no kernel image format mkseries knows");
}

int arch_check_image(const struct arch_info *a, const char *path, struct strbuf *why)
{
	unsigned char head[1024];
	size_t len = 0;
	unsigned m;
	FILE *f = fopen(path, "rb");

	if (!f) {
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	len = fread(head, 1, sizeof(head), f);
	fclose(f);
	m = elf_machine_of(head, len);
	if (m == a->elf_machine)
		return 0;
	if (!m && !strcmp(a->name, "arm64") && len >= 60 && !memcmp(head + 56, "ARM\x64", 4))
		return 0;
	if (!m && !strcmp(a->name, "x86_64") && len >= 0x206 && !memcmp(head + 0x202, "HdrS", 4))
		return 0;
	strbuf_addf(why, "'%s' is not a kernel image for %s: it is ", path, a->name);
	describe(why, head, len);
	return -1;
}

int arch_check_program(const struct arch_info *a, const void *data, size_t len, struct strbuf *why)
{
	unsigned m = elf_machine_of(data, len);

	if (m == a->elf_machine)
		return 0;
	if (!m)
		strbuf_addf(why, "mm-regress for %s is not an ELF program (%zu bytes)", a->name, len);
	else
		strbuf_addf(why, "mm-regress for %s is built for %s, not %s", a->name,
			    elf_machine_name(m), elf_machine_name(a->elf_machine));
	return -1;
}

const struct arch_info *branch_arch(const struct kernel_branch *b)
{
	const struct arch_info *a = arch_find(b->arch ? b->arch : ARCH_DEFAULT);

	if (!a)
		BUG("branch '%s' has unknown arch '%s' after kit_load()", b->name, b->arch);
	return a;
}

const char *branch_cross(const struct kernel_branch *b)
{
	const struct arch_info *a = branch_arch(b);

	if (b->cross)
		return b->cross;
	return arch_is_host(a) ? "" : a->cross;
}

const char *branch_image(const struct kernel_branch *b)
{
	return b->image ? b->image : branch_arch(b)->image;
}

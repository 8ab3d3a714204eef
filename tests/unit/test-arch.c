/* test-arch.c: the architectures, and the checks that a kernel image or mm-regress is really theirs. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/arch.h"
#include "vm/regress.h"
#include "tap.h"
#include "lib/util.h"
#include "vm/vm.h"

static char *tmpdir;

static char *image_file(const char *name, size_t len, size_t at, const char *magic)
{
	char *path = path_join(tmpdir, name), *buf = xcalloc(1, len);

	if (magic)
		memcpy(buf + at, magic, strlen(magic));
	if (write_file_atomic(path, buf, len))
		ok(0, "write %s", path);
	free(buf);
	return path;
}

static void test_table(void)
{
	const struct arch_info *a;

	a = arch_find("arm64");
	ok(a && !strcmp(a->srcarch, "arm64") && !strcmp(a->machine, "aarch64") &&
	   a->elf_machine == 183, "arm64: srcarch arm64, machine aarch64, EM_AARCH64");
	is_str(a ? a->image : NULL, "arch/arm64/boot/Image", "arm64's image");
	is_str(a ? a->console : NULL, "ttyAMA0", "arm64's console");
	a = arch_find("sparc64");
	ok(a && !strcmp(a->srcarch, "sparc") && a->elf_machine == 43, "sparc64: srcarch sparc, EM_SPARCV9");
	a = arch_find("x86_64");
	is_str(a ? a->image : NULL, "arch/x86/boot/bzImage", "x86_64's image");
	ok(!arch_find("riscv64") && !arch_find(NULL), "unknown arches are NULL");
}

static void test_images(void)
{
	const struct arch_info *arm = arch_find("arm64"), *x86 = arch_find("x86_64");
	struct strbuf why = STRBUF_INIT;
	char *img = image_file("Image", 4096, 56, "ARM\x64");
	char *bz = image_file("bzImage", 4096, 0x202, "HdrS");
	char *empty = image_file("empty", 0, 0, NULL);

	is_int(arch_check_image(arm, img, &why), 0, "an arm64 Image is arm64's");
	is_int(arch_check_image(x86, bz, &why), 0, "a bzImage is x86_64's");
	is_int(arch_check_image(arm, bz, &why), -1, "a bzImage is not arm64's");
	ok(strstr(why.buf, "is not a kernel image for arm64: it is an x86 bzImage") != NULL,
	   "and why says what it is: %s", why.buf);
	strbuf_reset(&why);
	is_int(arch_check_image(x86, img, &why), -1, "an arm64 Image is not x86_64's");
	ok(strstr(why.buf, "it is an arm64 Image") != NULL, "and why says so: %s", why.buf);
	strbuf_reset(&why);
	is_int(arch_check_image(arm, empty, &why), -1, "an empty file is nobody's image");
	strbuf_reset(&why);
	/* This test program is an ELF file for the host: a vmlinux-like image of the host's arch. */
	is_int(arch_check_image(arch_host() ? arch_host() : x86, "/proc/self/exe", &why),
	       arch_host() ? 0 : -1, "an ELF file of the host's machine is the host arch's");
	strbuf_reset(&why);
	is_int(arch_check_image(arch_find("sparc64"), "/proc/self/exe", &why), -1,
	       "and not sparc64's");
	ok(strstr(why.buf, "it is an ELF file for") != NULL, "why names its machine: %s", why.buf);
	strbuf_release(&why);
	free(img);
	free(bz);
	free(empty);
}

static void test_programs(void)
{
	static const char *const names[] = { "x86_64", "arm64", "sparc64" };
	struct strbuf why = STRBUF_INIT;
	size_t i, len;

	for (i = 0; i < 3; i++) {
		const struct arch_info *a = arch_find(names[i]);
		const char *msg, *img = mm_regress_image_for(a->machine, &len, &msg);

		if (!len) {
			/* mkseries was built without that cross compiler: the reason is carried. */
			ok(*msg, "%s: no mm-regress carried, and the reason: %s", a->name, msg);
			continue;
		}
		strbuf_reset(&why);
		is_int(arch_check_program(a, img, len, &why), 0, "%s: the carried mm-regress is %s's",
		       a->name, a->name);
		strbuf_reset(&why);
		is_int(arch_check_program(arch_find(names[(i + 1) % 3]), img, len, &why), -1,
		       "%s: and no other arch's (%s)", a->name, why.buf);
	}
	is_int(arch_check_program(arch_find("arm64"), "#!/bin/sh\n", 10, &why), -1,
	       "a script is no arm64 mm-regress");
	ok(!mm_regress_image_for("riscv64", &len, &(const char *){ NULL }) && !len,
	   "no mm-regress for an unknown machine");
	strbuf_release(&why);
}

/* The -smp QEMU gets: sun4u boots one CPU only, whatever boot.cpus says. */
static const char *smp_of(unsigned cpus, unsigned max_cpus)
{
	static char buf[16];
	struct kernel_boot boot;
	struct strvec argv = STRVEC_INIT;
	size_t i;

	memset(&boot, 0, sizeof(boot));
	boot.qemu = "qemu-system-sparc64";
	boot.cpus = cpus;
	boot.tcg_clock = "host";
	vm_qemu_argv(&argv, &boot, "tcg", "image", "initramfs.cpio", 0, NULL, max_cpus);
	buf[0] = '\0';
	for (i = 0; i + 1 < argv.nr; i++)
		if (!strcmp(argv.v[i], "-smp"))
			snprintf(buf, sizeof(buf), "%s", argv.v[i + 1]);
	strvec_clear(&argv);
	return buf;
}

static void test_cpus(void)
{
	is_str(smp_of(4, 0), "4", "no arch limit: boot.cpus");
	is_str(smp_of(4, arch_find("sparc64")->max_cpus), "1", "sparc64's sun4u: one CPU");
	is_str(smp_of(2, arch_find("arm64")->max_cpus), "2", "arm64: boot.cpus within its limit (the loader sets the default two)");
}

int main(void)
{
	char tmpl[] = "/tmp/mkseries-test-arch.XXXXXX";

	tmpdir = mkdtemp(tmpl);
	if (!tmpdir)
		return 1;
	test_table();
	test_images();
	test_programs();
	test_cpus();
	remove_tree(tmpdir);
	return tap_done();
}

/* test-image.c: a boot image must hold the vmlinux just built; each way an image can fail to. */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/image.h"
#include "tap.h"
#include "lib/util.h"

static char *tmpdir, *kernel;
static struct strbuf elf = STRBUF_INIT;

/* data compressed as xz, as libarchive writes a raw stream. */
static void xz(struct strbuf *out, const void *data, size_t len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	size_t cap = len + 65536, used = 0;
	char *buf = xmalloc(cap);

	archive_write_add_filter_xz(a);
	archive_write_set_format_raw(a);
	archive_write_set_bytes_in_last_block(a, 1);
	if (archive_write_open_memory(a, buf, cap, &used) != ARCHIVE_OK)
		BUG("archive_write_open_memory: %s", archive_error_string(a));
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, len);
	if (archive_write_header(a, e) != ARCHIVE_OK ||
	    archive_write_data(a, data, len) != (la_ssize_t)len || archive_write_close(a) != ARCHIVE_OK)
		BUG("xz: %s", archive_error_string(a));
	archive_entry_free(e);
	archive_write_free(a);
	strbuf_add(out, buf, used);
	free(buf);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

/* A bzImage of boot protocol `version` whose header says its payload is `len` bytes; the payload as given. */
static char *bzimage(const char *name, unsigned version, const void *payload, size_t plen, size_t len)
{
	char *path = path_join(tmpdir, name);
	struct strbuf img = STRBUF_INIT;
	unsigned char *h;

	strbuf_addchars(&img, 0, 1024);
	h = (unsigned char *)img.buf;
	h[0x1f1] = 1;
	memcpy(h + 0x202, "HdrS", 4);
	h[0x206] = version & 0xff, h[0x207] = version >> 8;
	put32(h + 0x24c, len);
	strbuf_add(&img, payload, plen);
	if (write_file_atomic(path, img.buf, img.len))
		ok(0, "write %s", path);
	strbuf_release(&img);
	return path;
}

/* Check image (freed after, unless it is the kernel itself) against the kernel. */
static void check(char *image, int want, const char *want_why, const char *what)
{
	struct strbuf why = STRBUF_INIT;

	is_int(image_check_payload(image, kernel, &why), want, "%s", what);
	if (want_why)
		ok(strstr(why.buf, want_why) != NULL, "  and says '%s': %s", want_why, why.buf);
	strbuf_release(&why);
	if (image != kernel)
		free(image);
}

static void test_good(void)
{
	struct strbuf z = STRBUF_INIT;
	unsigned char size[4];

	check(kernel, 0, NULL, "an ELF image holds itself");
	check(bzimage("plain", 0x20f, elf.buf, elf.len, elf.len), 0, NULL,
	      "a bzImage whose payload is the kernel, uncompressed");
	xz(&z, elf.buf, elf.len);
	check(bzimage("xz", 0x20f, z.buf, z.len, z.len), 0, NULL, "an xz payload");
	put32(size, elf.len);
	strbuf_add(&z, size, 4);
	check(bzimage("xz-size", 0x20f, z.buf, z.len, z.len), 0, NULL,
	      "an xz payload followed by its size, as kbuild writes it");
	strbuf_release(&z);
}

static void test_bad(void)
{
	struct strbuf z = STRBUF_INIT, other = STRBUF_INIT;
	unsigned char size[4];
	char *interp;

	check(bzimage("old", 0x204, elf.buf, elf.len, elf.len), -1, "boot protocol 2.04 names no payload",
	      "a bzImage too old to name its payload");
	check(bzimage("long", 0x20f, elf.buf, elf.len, elf.len + 1), -1, "lies outside",
	      "a payload longer than the file");
	check(bzimage("half", 0x20f, elf.buf, elf.len / 2, elf.len / 2), -1, "does not hold the kernel just built",
	      "half a kernel");
	xz(&z, elf.buf, elf.len);
	put32(size, elf.len + 1);
	strbuf_add(&z, size, 4);
	check(bzimage("xz-lies", 0x20f, z.buf, z.len, z.len), -1, "where its trailer says",
	      "a size trailer that is not the kernel's");
	check(bzimage("xz-cut", 0x20f, z.buf, z.len - 64, z.len - 64), -1, "cannot decompress its payload",
	      "a cut xz stream");
	/* A loaded section's byte: the dynamic loader's path, in .interp. */
	strbuf_add(&other, elf.buf, elf.len);
	interp = memmem(other.buf, other.len, "ld-linux", 8);
	ok(interp != NULL, "the test program names its dynamic loader");
	if (interp)
		*interp ^= 1;
	check(bzimage("flipped", 0x20f, other.buf, other.len, other.len), -1, "its kernel's .interp differs",
	      "one bit of another kernel");
	strbuf_release(&other);
	strbuf_release(&z);
}

int main(void)
{
	char tmpl[] = "/tmp/test-image.XXXXXX";

	tmpdir = mkdtemp(tmpl);
	if (!tmpdir)
		BUG("mkdtemp");
	/* This test program is the kernel: an ELF file with loaded sections. */
	kernel = path_join(tmpdir, "vmlinux");
	if (strbuf_read_file(&elf, "/proc/self/exe") < 0 || write_file_atomic(kernel, elf.buf, elf.len))
		BUG("cannot copy /proc/self/exe");
	test_good();
	test_bad();
	remove_tree(tmpdir);
	free(kernel);
	strbuf_release(&elf);
	return tap_done();
}

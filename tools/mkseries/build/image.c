/* build/image.c: find the kernel inside a boot image and compare it with the vmlinux just built. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "build/image.h"

/* Larger than any kernel a QEMU guest boots: a bound on hostile or broken payloads. */
#define IMAGE_PAYLOAD_MAX ((size_t)1 << 31)

/* A loaded section of vmlinux: its name, load address and bytes (inside the ELF's map). */
struct image_section {
	const char *name;
	uint64_t lma;
	const unsigned char *data;
	size_t size;
};

struct image_sections {
	struct image_section *v;
	size_t nr, alloc;
};

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The address a section is loaded at: its segment's physical address, as objcopy -O binary places it. */
static uint64_t section_lma(Elf *elf, const GElf_Shdr *sh)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return sh->sh_addr;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (sh->sh_addr >= ph.p_vaddr && sh->sh_addr + sh->sh_size <= ph.p_vaddr + ph.p_memsz)
			return ph.p_paddr + (sh->sh_addr - ph.p_vaddr);
	}
	return sh->sh_addr;
}

/*
 * The sections of elf that a boot image must carry: allocated, with
 * contents in the file, and not notes (an image may leave out the build
 * id; two builds of one kernel never differ only there).
 */
static int loaded_sections(struct image_sections *out, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		struct image_section *s;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			return -1;
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_type == SHT_NOTE || !sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || d->d_size != sh.sh_size)
			return -1;
		if (out->nr == out->alloc) {
			out->alloc = out->alloc ? 2 * out->alloc : 32;
			out->v = xrealloc(out->v, out->alloc * sizeof(*out->v));
		}
		s = &out->v[out->nr++];
		s->name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!s->name)
			s->name = "(unnamed)";
		s->lma = section_lma(elf, &sh);
		s->data = d->d_buf;
		s->size = d->d_size;
	}
	return 0;
}

/* Decompress data into out as libarchive recognises it; data that is not compressed comes out as it is. */
static int decompress(struct strbuf *out, const void *data, size_t len, struct strbuf *why)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char buf[65536];
	ssize_t n;
	int ret = -1;

	strbuf_reset(out);
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		strbuf_addf(why, "cannot read its payload: %s", archive_error_string(a));
		goto cleanup;
	}
	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		if (out->len + n > IMAGE_PAYLOAD_MAX) {
			strbuf_addstr(why, "its payload decompresses to more than 2 GiB");
			goto cleanup;
		}
		strbuf_add(out, buf, n);
	}
	if (n < 0) {
		strbuf_addf(why, "cannot decompress its payload: %s", archive_error_string(a));
		goto cleanup;
	}
	ret = 0;
cleanup:
	archive_read_free(a);
	return ret;
}

/*
 * The kernel in a compressed payload. kbuild appends the uncompressed
 * size, four bytes little-endian, to every format but gzip (size_append
 * in scripts/Makefile.lib), and a decompressor that takes the stream
 * whole calls those bytes corrupt: so a payload that does not decompress
 * whole is tried once more without them, and must then come out at the
 * size they give. A short or broken payload is never taken as it is.
 */
static int unpack_payload(struct strbuf *out, const unsigned char *p, size_t len,
			  struct strbuf *why)
{
	struct strbuf whole = STRBUF_INIT, trimmed = STRBUF_INIT;
	int ret = -1;

	if (!decompress(out, p, len, &whole))
		ret = 0;
	else if (len <= 4 || decompress(out, p, len - 4, &trimmed))
		strbuf_addstr(why, whole.buf);
	else if (out->len != le32(p + len - 4))
		strbuf_addf(why, "its payload decompresses to %zu bytes where its trailer says %u",
			    out->len, (unsigned)le32(p + len - 4));
	else
		ret = 0;
	strbuf_release(&whole);
	strbuf_release(&trimmed);
	return ret;
}

/* The compressed kernel of an x86 bzImage: where its setup header says it is. */
static int bzimage_payload(const unsigned char **p, size_t *len, const unsigned char *img,
			   size_t size, struct strbuf *why)
{
	unsigned setup_sects, version;
	size_t start, off, plen;

	if (size < 0x250) {
		strbuf_addf(why, "it is too short for a bzImage (%zu bytes)", size);
		return -1;
	}
	version = img[0x206] | img[0x207] << 8;
	if (version < 0x208) {
		strbuf_addf(why, "its boot protocol %u.%02u names no payload (2.08 or later does)",
			    version >> 8, version & 0xff);
		return -1;
	}
	setup_sects = img[0x1f1] ? img[0x1f1] : 4;
	start = (size_t)(setup_sects + 1) * 512;
	off = le32(img + 0x248);
	plen = le32(img + 0x24c);
	if (start > size || off > size - start || plen > size - start - off || !plen) {
		strbuf_addf(why, "its payload (%zu bytes at %zu) lies outside its %zu bytes", plen,
			    start + off, size);
		return -1;
	}
	*p = img + start + off;
	*len = plen;
	return 0;
}

/* The first of want's sections that payload, an ELF file, lacks or holds with other bytes; NULL if none. */
static const char *elf_mismatch(const struct image_sections *want, Elf *payload, struct strbuf *why)
{
	struct image_sections have = { 0 };
	const char *bad = NULL;
	size_t i, j;

	if (loaded_sections(&have, payload)) {
		strbuf_addf(why, "its payload is a broken ELF file: %s", elf_errmsg(-1));
		free(have.v);
		return "";
	}
	for (i = 0; i < want->nr && !bad; i++) {
		const struct image_section *w = &want->v[i];

		for (j = 0; j < have.nr; j++)
			if (!strcmp(have.v[j].name, w->name))
				break;
		if (j == have.nr)
			strbuf_addf(why, "its kernel has no %s section", w->name), bad = w->name;
		else if (have.v[j].size != w->size || memcmp(have.v[j].data, w->data, w->size))
			strbuf_addf(why, "its kernel's %s differs", w->name), bad = w->name;
	}
	free(have.v);
	return bad;
}

/* The same for a raw payload, each section at its load address less the lowest. */
static const char *raw_mismatch(const struct image_sections *want, const unsigned char *p,
				size_t len, struct strbuf *why)
{
	uint64_t base = UINT64_MAX;
	size_t i;

	for (i = 0; i < want->nr; i++)
		if (want->v[i].lma < base)
			base = want->v[i].lma;
	for (i = 0; i < want->nr; i++) {
		const struct image_section *w = &want->v[i];
		uint64_t off = w->lma - base;

		if (off > len || w->size > len - off) {
			strbuf_addf(why, "it ends before the kernel's %s (%zu bytes, %s at offset %llu)",
				    w->name, len, w->name, (unsigned long long)off);
			return w->name;
		}
		if (memcmp(p + off, w->data, w->size)) {
			strbuf_addf(why, "its kernel's %s differs", w->name);
			return w->name;
		}
	}
	return NULL;
}

/* Compare the kernel in the payload p with want; 0 when it is the same. */
static int payload_matches(const struct image_sections *want, const unsigned char *p, size_t len,
			   struct strbuf *why)
{
	struct strbuf plain = STRBUF_INIT;
	const char *bad;
	Elf *elf;

	if (unpack_payload(&plain, p, len, why)) {
		strbuf_release(&plain);
		return -1;
	}
	elf = elf_memory(plain.buf, plain.len);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		bad = elf_mismatch(want, elf, why);
	else
		bad = raw_mismatch(want, (const unsigned char *)plain.buf, plain.len, why);
	if (elf)
		elf_end(elf);
	strbuf_release(&plain);
	return bad ? -1 : 0;
}

/* vmlinux, opened for reading its sections; -1 with why when it is no ELF file. */
static int open_vmlinux(int *fd, Elf **elf, const char *path, struct strbuf *why)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		strbuf_addf(why, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		strbuf_addf(why, "'%s' is not an ELF file", path);
		return -1;
	}
	return 0;
}

int image_check_payload(const char *image, const char *vmlinux, struct strbuf *why)
{
	struct image_sections want = { 0 };
	struct strbuf img = STRBUF_INIT, what = STRBUF_INIT;
	const unsigned char *p, *u;
	Elf *elf = NULL;
	size_t len;
	int fd = -1, ret = -1;

	if (elf_version(EV_CURRENT) == EV_NONE)
		BUG("libelf refuses its own version");
	if (open_vmlinux(&fd, &elf, vmlinux, why))
		goto cleanup;
	if (loaded_sections(&want, elf) || !want.nr) {
		strbuf_addf(why, "'%s' has no loaded sections to look for", vmlinux);
		goto cleanup;
	}
	if (strbuf_read_file(&img, image) < 0) {
		strbuf_addf(why, "cannot read '%s': %s", image, strerror(errno));
		goto cleanup;
	}
	u = (const unsigned char *)img.buf;
	p = u;
	len = img.len;
	if (len >= 0x206 && !memcmp(u + 0x202, "HdrS", 4) && memcmp(u, ELFMAG, SELFMAG) &&
	    bzimage_payload(&p, &len, u, img.len, &what))
		goto mismatch;
	if (!payload_matches(&want, p, len, &what)) {
		ret = 0;
		goto cleanup;
	}
mismatch:
	strbuf_addf(why, "'%s' does not hold the kernel just built ('%s'): %s", image, vmlinux,
		    what.buf);
cleanup:
	free(want.v);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	strbuf_release(&what);
	strbuf_release(&img);
	return ret;
}

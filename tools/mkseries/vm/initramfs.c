/* vm/initramfs.c: write the newc cpio archive that boots mm-regress as /init. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "vm/initramfs.h"

static void pad4(struct strbuf *sb)
{
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
}

/*
 * One entry: a 110-byte header of 13 eight-digit hex fields after the
 * magic, the name with its NUL, padding to 4, the data, padding to 4.
 */
static void add_entry(struct cpio *c, const char *name, mode_t mode, unsigned nlink,
		      unsigned rmajor, unsigned rminor, const void *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	if (c->finished)
		BUG("cpio entry '%s' added after the trailer", name);
	strbuf_addf(&c->buf, "070701%08lX%08X%08X%08X%08X%08X%08lX%08X%08X%08X%08X%08lX%08X",
		    c->next_ino++, (unsigned)mode, 0u, 0u, nlink, 0u, (unsigned long)len,
		    0u, 0u, rmajor, rminor, (unsigned long)namesize, 0u);
	strbuf_add(&c->buf, name, namesize);
	pad4(&c->buf);
	if (len) {
		strbuf_add(&c->buf, data, len);
		pad4(&c->buf);
	}
}

/* `name` is relative ("dev/console"); `mode` carries the type bits (S_IFDIR | 0755). */
static void cpio_add_dir(struct cpio *c, const char *name, mode_t mode)
{
	add_entry(c, name, S_IFDIR | (mode & 07777), 2, 0, 0, NULL, 0);
}

static void cpio_add_file(struct cpio *c, const char *name, mode_t mode, const void *data, size_t len)
{
	add_entry(c, name, S_IFREG | (mode & 07777), 1, 0, 0, data, len);
}

/* A character or block device node: mode is S_IFCHR or S_IFBLK plus permissions. */
static void cpio_add_node(struct cpio *c, const char *name, mode_t mode, unsigned major, unsigned minor)
{
	if (!S_ISCHR(mode) && !S_ISBLK(mode))
		BUG("cpio node '%s' is neither a character nor a block device", name);
	add_entry(c, name, mode, 1, major, minor, NULL, 0);
}

/* Append the TRAILER!!! entry and pad to 512 bytes; nothing may be added after. */
static void cpio_finish(struct cpio *c)
{
	if (c->finished)
		return;
	c->next_ino = 0;
	add_entry(c, "TRAILER!!!", 0, 1, 0, 0, NULL, 0);
	c->finished = 1;
	while (c->buf.len % 512)
		strbuf_addch(&c->buf, '\0');
}

static void cpio_release(struct cpio *c)
{
	strbuf_release(&c->buf);
	c->next_ino = 1;
	c->finished = 0;
}

void initramfs_build(struct strbuf *out, const void *init, size_t init_len)
{
	struct cpio c = CPIO_INIT;

	cpio_add_dir(&c, "dev", 0755);
	/* The kernel opens /dev/console for init's stdio before devtmpfs is mounted. */
	cpio_add_node(&c, "dev/console", S_IFCHR | 0600, 5, 1);
	cpio_add_dir(&c, "proc", 0555);
	cpio_add_dir(&c, "sys", 0555);
	cpio_add_dir(&c, "tmp", 01777);
	cpio_add_file(&c, "init", 0755, init, init_len);
	cpio_finish(&c);
	strbuf_add(out, c.buf.buf, c.buf.len);
	cpio_release(&c);
}

int initramfs_write(const char *path, const void *init, size_t init_len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	initramfs_build(&sb, init, init_len);
	if (write_file_atomic(path, sb.buf, sb.len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	strbuf_release(&sb);
	return ret;
}

/* test-initramfs.c: the cpio archive mm-regress boots from, read back entry by entry. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/initramfs.h"
#include "tap.h"
#include "lib/util.h"

struct entry {
	char name[64];
	unsigned long ino, mode, nlink, filesize, rmajor, rminor;
	const char *data;
};

static unsigned long hex8(const char *p)
{
	char tmp[9];

	memcpy(tmp, p, 8);
	tmp[8] = '\0';
	return strtoul(tmp, NULL, 16);
}

/* Read the archive the way the kernel's initramfs unpacker does; -1 on any damage. */
static int parse(const struct strbuf *sb, struct entry *out, int max)
{
	size_t off = 0;
	int n = 0;

	while (off + 110 <= sb->len && n < max) {
		const char *h = sb->buf + off;
		struct entry *e = &out[n];
		unsigned long namesize;

		if (memcmp(h, "070701", 6))
			return -1;
		e->ino = hex8(h + 6);
		e->mode = hex8(h + 14);
		e->nlink = hex8(h + 38);
		e->filesize = hex8(h + 54);
		e->rmajor = hex8(h + 78);
		e->rminor = hex8(h + 86);
		namesize = hex8(h + 94);
		if (namesize == 0 || namesize > sizeof(e->name) || off + 110 + namesize > sb->len)
			return -1;
		memcpy(e->name, h + 110, namesize);
		if (e->name[namesize - 1] != '\0')
			return -1;
		off = (off + 110 + namesize + 3) & ~3UL;
		e->data = sb->buf + off;
		off = (off + e->filesize + 3) & ~3UL;
		if (off > sb->len)
			return -1;
		n++;
		if (!strcmp(e->name, "TRAILER!!!"))
			return n;
	}
	return -1;
}

static const struct entry *find(const struct entry *e, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return &e[i];
	return NULL;
}

static void test_archive(void)
{
	static const char init[] = "\177ELF pretend static binary\0with a NUL";
	struct strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
	struct entry e[16];
	const struct entry *x;
	int n;

	initramfs_build(&sb, init, sizeof(init));
	n = parse(&sb, e, 16);
	is_int(n, 7, "archive parses back into 7 entries including the trailer");
	is_int(sb.len % 512, 0, "archive is padded to 512 bytes");
	if (n < 0)
		goto out;

	x = find(e, n, "dev/console");
	ok(x && S_ISCHR(x->mode), "dev/console is a character device");
	ok(x && x->rmajor == 5 && x->rminor == 1, "dev/console is 5:1");
	ok(x && (x->mode & 07777) == 0600, "dev/console mode is 0600");

	x = find(e, n, "dev");
	ok(x && S_ISDIR(x->mode) && (x->mode & 07777) == 0755, "dev is a 0755 directory");
	ok(find(e, n, "proc") && S_ISDIR(find(e, n, "proc")->mode), "proc is a directory");
	ok(find(e, n, "sys") && S_ISDIR(find(e, n, "sys")->mode), "sys is a directory");
	ok(find(e, n, "dev") < find(e, n, "dev/console"), "dev comes before dev/console");

	x = find(e, n, "init");
	ok(x && S_ISREG(x->mode) && (x->mode & 07777) == 0755, "init is an executable file");
	ok(x && x->filesize == sizeof(init) && !memcmp(x->data, init, sizeof(init)),
	   "init holds the bytes given, NULs included");
	ok(x && !((x->data - sb.buf) % 4), "init's data is 4-byte aligned");

	is_str(e[n - 1].name, "TRAILER!!!", "the last entry is the trailer");
	ok(e[0].ino != e[1].ino, "entries have distinct inode numbers");

	initramfs_build(&again, init, sizeof(init));
	ok(again.len == sb.len && !memcmp(again.buf, sb.buf, sb.len),
	   "the same input gives the same bytes");
out:
	strbuf_release(&again);
	strbuf_release(&sb);
}

static void test_cpio_tool(void)
{
	char dir[] = "/tmp/test-initramfs.XXXXXX";
	struct child cmd = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	char *path = NULL;
	int status;

	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory");
		return;
	}
	path = path_join(dir, "initramfs.cpio");
	is_int(initramfs_write(path, "#!/bin/true\n", 12), 0, "initramfs_write succeeds");
	strvec_pushl(&cmd.argv, "cpio", "-itv", "--quiet", "-F", path, NULL);
	cmd.out = &out;
	status = child_run(&cmd);
	if (status < 0 || status == 127) {
		printf("# cpio(1) not found: skipping its check\n");
		ok(1, "# SKIP cpio not installed");
	} else {
		is_int(status, 0, "cpio -itv reads the archive");
		ok(strstr(out.buf, "crw-------") && strstr(out.buf, "5,") &&
		   strstr(out.buf, "dev/console"), "cpio lists dev/console as a 5,1 char device");
		ok(strstr(out.buf, "-rwxr-xr-x") && strstr(out.buf, " init\n"),
		   "cpio lists init as 0755");
		if (tap_failed)
			printf("# cpio said:\n%s", out.buf);
	}
	unlink(path);
	rmdir(dir);
	free(path);
	child_release(&cmd);
	strbuf_release(&out);
}

int main(void)
{
	test_archive();
	test_cpio_tool();
	return tap_done();
}

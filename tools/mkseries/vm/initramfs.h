/* vm/initramfs.h: a newc cpio archive with /dev/console and an /init, for booting mm-regress. */
#ifndef MKSERIES_INITRAMFS_H
#define MKSERIES_INITRAMFS_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/util.h"

/*
 * A "newc" (070701) cpio archive built in memory. Entries get inode
 * numbers in order, uid/gid 0 and mtime 0, so the same input always
 * gives the same bytes. The archive is uncompressed: every kernel with
 * BLK_DEV_INITRD unpacks that, whatever RD_* decompressors it has.
 */
struct cpio {
	struct strbuf buf;
	unsigned long next_ino;
	int finished;
};
#define CPIO_INIT { STRBUF_INIT, 1, 0 }

/*
 * The archive mm-regress boots from: dev/ with dev/console (char 5:1),
 * proc/, sys/, tmp/ and init (0755) holding `init`. `out` gets the
 * finished archive.
 */
void initramfs_build(struct strbuf *out, const void *init, size_t init_len);

/* Build it and write it to `path` atomically. Returns 0 or -1 after printing. */
int initramfs_write(const char *path, const void *init, size_t init_len);

#endif

/* lib/fs.h: writing beneath a root directory without following a symbolic link anywhere below it. */
#ifndef MKSERIES_FS_H
#define MKSERIES_FS_H

#include <sys/types.h>

#include "lib/util.h"

/*
 * Every function here takes a directory `root` (trusted: it may itself be
 * or lie beyond a symbolic link) and a path `rel` below it, which is not:
 * it comes from a patch, a kit or a state file. `rel` must be relative,
 * without empty, "." or ".." components; each of its directories is
 * opened with O_NOFOLLOW, one at a time (openat), so that no symbolic
 * link below `root` is ever followed, whoever made it and whenever. A
 * path that breaks these rules is refused with MKS_EUNSAFE and the
 * reason appended to `why` ("'mm/out' is a symbolic link"), and nothing
 * is written. Other failures return -1 with the reason in `why` too
 * (errno's words, or "'mm' is not a directory"). `why` does not repeat
 * `rel`: callers say "cannot write '<rel>': <why>". Nothing is printed.
 */
enum fs_flags {
	FS_REFUSE_LINK = 1 << 0,	/* the file itself may not be a symbolic link (else it is replaced) */
	FS_EXCLUSIVE = 1 << 1,		/* the file may not exist yet */
};

/*
 * Write `data` as file `rel` beneath `root` with permission bits `mode`,
 * atomically (a temporary file beside it, renamed over it), creating the
 * directories above it. The temporary file is named "<name>.tmp.<pid>"
 * and is removed on failure and when a signal ends mkseries.
 */
int fs_write_beneath(const char *root, const char *rel, const void *data, size_t len,
		     mode_t mode, unsigned flags, struct strbuf *why);

/* Make `rel` beneath `root` a symbolic link to `target` (replacing a file or link there). */
int fs_symlink_beneath(const char *root, const char *rel, const char *target, struct strbuf *why);

/* Remove file or link `rel` beneath `root`; already gone is not an error. */
int fs_unlink_beneath(const char *root, const char *rel, struct strbuf *why);

/*
 * Remove directory `rel` beneath `root` if it is empty: 1 when removed,
 * 0 when it is not empty, not a directory or not there.
 */
int fs_rmdir_beneath(const char *root, const char *rel, struct strbuf *why);

/* Create directory `rel` beneath `root` and those above it. */
int fs_mkdir_beneath(const char *root, const char *rel, struct strbuf *why);

/*
 * Whether `rel` names something beneath `root` without a symbolic link
 * among its directories: 1 when it exists (a link itself counts), 0 when
 * not, MKS_EUNSAFE (with `why`) when a directory on the way is a link or
 * not a directory, -1 on other errors.
 */
int fs_exists_beneath(const char *root, const char *rel, struct strbuf *why);

#endif

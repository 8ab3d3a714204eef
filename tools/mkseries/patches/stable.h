/* patches/stable.h: the stable backports a branch's history carries since its release tag. */
#ifndef MKSERIES_STABLE_H
#define MKSERIES_STABLE_H

#include <git2.h>

#include "kit/model.h"

/* One commit of the branch that says which upstream commit it is. */
struct stable_backport {
	char upstream[GIT_OID_HEXSZ + 1];	/* as its message names it, lowercase */
	git_oid oid;			/* the stable commit */
	char *subject;			/* owned, never NULL */
	char *tag;			/* the first <release>.N tag that holds it, or NULL; owned */
	int reverted;			/* a later commit of the range reverts it ... */
	git_oid reverted_by;		/* ... this one */
};

/*
 * The backports in release..ref of a branch's linux-stable clone, newest
 * first. `since` and `ref` are the names the kernel file gives.
 */
struct stable_log {
	char *since, *ref;		/* owned */
	git_oid ref_oid;
	size_t walked;			/* commits read */
	struct stable_backport *v;
	size_t nr, alloc;
};

#define STABLE_LOG_INIT { NULL, NULL, { { 0 } }, 0, NULL, 0, 0 }

/*
 * Read the backports of branch b, whose source is git with a `release`:
 * every commit reachable from its ref and not from its release, with
 * "commit <id> upstream." or "[ Upstream commit <id> ]" in its message.
 * A backport that a later commit of the range reverts is kept, marked.
 * Returns 0, or MKS_ECONFIG after printing "kernels/B.yaml:LINE: ..."
 * (no repository, no such ref or release, the release not under the
 * ref), or -1 after printing.
 */
int stable_log_read(struct stable_log *log, const struct kernel_branch *b);
void stable_log_release(struct stable_log *log);

/*
 * The backport of upstream commit `upstream` (8 to 40 hex digits): one
 * that is not reverted when there is one, else a reverted one, else NULL.
 */
const struct stable_backport *stable_log_find(const struct stable_log *log, const char *upstream);

#endif

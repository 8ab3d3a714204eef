/* patches/fixups.h: find the upstream commits that fix what the kit carries (Fixes:, reverts, Stable-dep-of:). */
#ifndef MKSERIES_FIXUPS_H
#define MKSERIES_FIXUPS_H

#include <stdint.h>
#include <git2.h>

#include "patches/fixref.h"
#include "kit/model.h"

/* An upstream commit that fixes (reverts, is a stable dependency of) the kit, and is not in it. */
struct fixup_missing {
	git_oid oid;
	char *subject;			/* owned */
	enum fixref_kind kind;
	const struct kit_patch *target;	/* the kit entry it names, or NULL ... */
	size_t target_missing;		/* ... then the index of the missing commit it names */
	const struct kit_patch *root;	/* the kit entry its chain starts from: its series gets it */
	int depth;			/* 1 for a direct fix of the kit, 2 for a fix of that ... */
	int64_t time;			/* committer time */
	size_t walk_order;		/* when the walk met it: larger is older (with equal times) */
	char *tag;			/* the oldest tag by version that contains it, or NULL; owned */
	int stable;			/* asks for stable */
	char *stable_comment;		/* "6.17+", or NULL; owned */
};

struct fixups_report {
	/* per series in kit order, then by depth, then oldest first */
	struct fixup_missing *missing;
	size_t nr, alloc;
	size_t walked;			/* commits read */
	size_t candidates;		/* commits carrying any reference */
};

#define FIXUPS_REPORT_INIT { NULL, 0, 0, 0, 0 }

/*
 * Walk the commits of `repo` reachable from `ref` (NULL: HEAD) and not
 * from `since` (NULL: none), and find every commit that refers to a kit
 * patch or fixup, or (transitively) to such a commit, and is not in the
 * kit itself. Kit ids are resolved through `repo` when they can be.
 * Returns 0, or -1 after printing.
 */
int fixups_find(struct fixups_report *rep, const struct kit *kit, git_repository *repo,
		const char *ref, const char *since);
void fixups_report_release(struct fixups_report *rep);

#endif

/* diff/present.h: whether a patch's change is already in a tree, file by file and hunk by hunk. */
#ifndef MKSERIES_PRESENT_H
#define MKSERIES_PRESENT_H

#include <git2.h>
#include "lib/util.h"

enum presence_state {
	PRESENCE_APPLIES = 1,	/* the patch applies: its change is not in the tree */
	PRESENCE_IN,		/* every part of its change is in the tree */
	PRESENCE_PARTIAL,	/* it does not apply; some parts are in, some are not */
	PRESENCE_CONFLICT,	/* it does not apply, and no part of it is in */
};

/* One part of a patch: a hunk of a file, or a whole file (created, deleted, binary, mode). */
struct presence_part {
	char *path;		/* owned */
	size_t hunk, nr_hunks;	/* 1-based; 0 for a whole-file part */
	char *what;		/* "@@ -1,7 +1,7 @@", "new file", "deleted file", ...; owned */
	int in;
};

struct presence {
	enum presence_state state;
	struct presence_part *v;
	size_t nr, alloc, nr_in;
};

#define PRESENCE_INIT { 0, NULL, 0, 0, 0 }

/*
 * Check `diff` against tree `base` (a commit or tree) in memory, reading
 * only the files it names. A hunk is in when the tree has what the hunk
 * leaves (its context and added lines; what `git apply -R` looks for)
 * and not what it expects, or, when the context differs, when its added
 * lines are there, in the hunk's order and close together, and the lines
 * it removes are not there beside them. A created file is in when it
 * exists with the added lines, a deleted one when it is gone, a binary
 * one when the tree has the blob the patch makes. The whole patch is in
 * when every part is, or when it applies in reverse.
 * Returns 0 with *out filled, MKS_EUNSAFE (a path leaves the tree; the
 * reason in `why` when given), or -1 (printed).
 */
int presence_check(struct presence *out, git_repository *repo, const git_oid *base,
		   const char *diff, size_t len, struct strbuf *why);
void presence_release(struct presence *p);

/*
 * Append the parts whose `in` equals `in`, as "FILE hunk H of N (@@ ... @@)"
 * or "FILE (new file)", joined by ", ".
 */
void presence_describe(struct strbuf *sb, const struct presence *p, int in);

/*
 * Whether the change of `diff` is already in tree `base`, as
 * presence_check() decides it for plan and apply alike:
 * every hunk of it is in, or it applies in reverse. A patch that is only
 * partly in is not present. Returns 1, 0, or -1 (an unsafe or
 * unreadable patch, message printed).
 */
int apply_is_present(git_repository *repo, const git_oid *base, const char *diff, size_t len);

#endif

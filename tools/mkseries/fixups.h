/* fixups.h: find the upstream commits that fix what the kit carries (Fixes:, reverts, Stable-dep-of:). */
#ifndef MKSERIES_FIXUPS_H
#define MKSERIES_FIXUPS_H

#include <stdint.h>
#include <git2.h>

#include "model.h"

enum fixref_kind {
	FIXREF_FIXES = 1,	/* a "Fixes: <id>" trailer line */
	FIXREF_REVERTS,		/* "This reverts commit <40 hex>." */
	FIXREF_STABLE_DEP,	/* a "Stable-dep-of: <id>" trailer line */
};

/* One reference from a commit message to another commit. */
struct fixref {
	enum fixref_kind kind;
	char hex[GIT_OID_HEXSZ + 1];	/* lowercase, 8 to 40 digits */
};

/* "fixes", "reverts" or "stable-dep-of". */
const char *fixref_kind_name(enum fixref_kind kind);

/* The compiled patterns; make one and use it for every message. */
struct fixref_scanner;

int fixref_scanner_new(struct fixref_scanner **out);
void fixref_scanner_free(struct fixref_scanner *sc);

/*
 * Append the references of a commit message (`msg`, the text after the
 * commit header) to *refs, which holds *nr of *alloc slots. Only trailer
 * lines ("Fixes:"/"Stable-dep-of:" at the start of a line, any case, any
 * spacing before the colon, 8 to 40 hex digits) and the revert sentence
 * count; ids in prose do not. Returns how many were appended.
 */
size_t fixref_scan(struct fixref_scanner *sc, const char *msg, size_t len,
		   struct fixref **refs, size_t *nr, size_t *alloc);

/*
 * Whether the message asks for stable ("Cc: stable@vger.kernel.org",
 * "Cc: <stable@kernel.org>"). On 1, *comment is what follows the address
 * ("# 6.17+" gives "6.17+"), caller-owned, or NULL when there is none.
 */
int fixref_stable(struct fixref_scanner *sc, const char *msg, size_t len, char **comment);

/*
 * The upstream commit a stable backport says it is: the first line of
 * `msg` reading "commit <id> upstream." (Greg's style) or
 * "[ Upstream commit <id> ]" (Sasha's), any case, 8 to 40 hex digits.
 * Ids in prose, in Fixes: trailers or in "(cherry picked from ...)" do
 * not count. Returns 1 with the id in hex (lowercase), else 0.
 */
int fixref_upstream(struct fixref_scanner *sc, const char *msg, size_t len,
		    char hex[GIT_OID_HEXSZ + 1]);

/*
 * 1 when two commit ids (abbreviated or not) can name the same commit:
 * both are 8 or more hex digits and one is a prefix of the other
 * (case does not matter).
 */
int hexid_match(const char *a, const char *b);

/* Order tag names by version: v2.9 < v2.10-rc1 < v2.10 < v2.10.1. */
int tag_version_cmp(const char *a, const char *b);

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

/* git format-patch's file name for a commit: "0001-mm-batch-ptes.patch" (caller frees). */
char *patch_file_name(unsigned number, const char *subject);

/*
 * Write commit `oid` of `repo` as git format-patch would (From, Date and
 * Subject headers, the message, a diffstat and the diff), to
 * <kit_dir>/<file> when `file` is set, else to
 * <kit_dir>/<dir>/<patch_file_name(number)>. An existing file is an
 * error ("<path> exists; use --force to overwrite") unless `force`.
 * *rel is set to the path written, relative to the kit (caller frees).
 * Returns 0 or -1 (printed).
 */
int patch_write_commit(char **rel, git_repository *repo, const git_oid *oid, const char *kit_dir,
		       const char *file, const char *dir, unsigned number, int force);

/* The highest NNNN of the NNNN-*.patch files in a directory; 0 when none or no directory. */
unsigned patch_dir_last_number(const char *path);

#endif

/* patches/fixref.h: the references a commit message makes to other commits, found by trailer and sentence, never in prose. */
#ifndef MKSERIES_FIXREF_H
#define MKSERIES_FIXREF_H

#include <stddef.h>
#include <git2.h>

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

/* The length of s when it is all hex digits, else 0. */
size_t hex_len(const char *s);

/*
 * 1 when two commit ids (abbreviated or not) can name the same commit:
 * both are 8 or more hex digits and one is a prefix of the other
 * (case does not matter).
 */
int hexid_match(const char *a, const char *b);

/* Order tag names by version: v2.9 < v2.10-rc1 < v2.10 < v2.10.1. */
int tag_version_cmp(const char *a, const char *b);

#endif

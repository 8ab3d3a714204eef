/* patches/fixref.c: what a commit message says about other commits: Fixes:, reverts, Stable-dep-of:, Cc: stable, "commit <id> upstream". */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "patches/fixref.h"
#include "lib/util.h"

/*
 * Trailer lines start a line; the revert sentence may be wrapped. The
 * look-ahead refuses an id that runs on into more letters or digits, so
 * a 7-digit abbreviation followed by prose never passes for 8.
 */
static const char refs_pattern[] =
	"^(?:fixes[ \\t]*:[ \\t]*(?:commit[ \\t]+)?([0-9a-f]{8,40})"
	"|stable-dep-of[ \\t]*:[ \\t]*(?:commit[ \\t]+)?([0-9a-f]{8,40}))(?![0-9a-z_])"
	"|this\\s+reverts\\s+commit\\s+([0-9a-f]{40})(?![0-9a-z_])";

static const char stable_pattern[] =
	"^cc[ \\t]*:[ \\t]*(?:[^\\n<]*<)?stable@(?:vger\\.)?kernel\\.org>?([^\\n]*)$";

/*
 * How a stable tree names the upstream commit a backport stands for, on
 * a line of its own: Greg's "commit <id> upstream." and Sasha's
 * "[ Upstream commit <id> ]" (the brackets and the spaces inside them
 * are optional in what people actually wrote).
 */
static const char upstream_pattern[] =
	"^[ \\t]*(?:\\[[ \\t]*)?(?:upstream[ \\t]+commit[ \\t]+([0-9a-f]{8,40})(?![0-9a-z_])[ \\t]*\\]?"
	"|commit[ \\t]+([0-9a-f]{8,40})[ \\t]+upstream\\b[ \\t.]*\\]?)[ \\t\\r]*$";

struct fixref_scanner {
	pcre2_code *refs;
	pcre2_code *stable;
	pcre2_code *upstream;
	pcre2_match_data *md;
	int jit;			/* both patterns are JIT-compiled */
};

const char *fixref_kind_name(enum fixref_kind kind)
{
	switch (kind) {
	case FIXREF_FIXES:
		return "fixes";
	case FIXREF_REVERTS:
		return "reverts";
	case FIXREF_STABLE_DEP:
		return "stable-dep-of";
	}
	return "?";
}

static pcre2_code *compile(const char *pattern, int *jit)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE off;
	pcre2_code *re;
	int err;

	re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
			   PCRE2_CASELESS | PCRE2_MULTILINE, &err, &off, NULL);
	if (!re) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		BUG("cannot compile '%s' at %zu: %s", pattern, (size_t)off, msg);
	}
	/* without JIT (some architectures) the interpreter does the same */
	if (pcre2_jit_compile(re, PCRE2_JIT_COMPLETE))
		*jit = 0;
	return re;
}

int fixref_scanner_new(struct fixref_scanner **out)
{
	struct fixref_scanner *sc = xcalloc(1, sizeof(*sc));

	sc->jit = 1;
	sc->refs = compile(refs_pattern, &sc->jit);
	sc->stable = compile(stable_pattern, &sc->jit);
	sc->upstream = compile(upstream_pattern, &sc->jit);
	sc->md = pcre2_match_data_create(8, NULL);
	if (!sc->md)
		die("out of memory");
	*out = sc;
	return 0;
}

void fixref_scanner_free(struct fixref_scanner *sc)
{
	if (!sc)
		return;
	pcre2_match_data_free(sc->md);
	pcre2_code_free(sc->refs);
	pcre2_code_free(sc->stable);
	pcre2_code_free(sc->upstream);
	free(sc);
}

/* Whether needle (lowercase) is at p, letters in any case. */
static int folded_at(const char *p, const char *needle, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)p[i], w = needle[i];

		if (c != w && !(w >= 'a' && w <= 'z' && c == w - 'a' + 'A'))
			return 0;
	}
	return 1;
}

/*
 * Whether `needle` (lowercase) occurs in buf, letters in any case. It
 * only decides whether the regex runs at all, so it must never miss;
 * and it runs on every commit, so it hops with memchr() from one
 * occurrence of a rare byte of the needle (`anchor`) to the next.
 */
static int has_folded(const char *buf, size_t len, const char *needle, size_t anchor)
{
	size_t n = strlen(needle);
	int a = needle[anchor], pass;

	if (len < n)
		return 0;
	for (pass = 0; pass < 2; pass++) {
		const char *p = buf + anchor, *end = buf + len - n + anchor + 1;
		int c = pass ? a - 'a' + 'A' : a;

		if (pass && !(a >= 'a' && a <= 'z'))
			break;
		while (p < end && (p = memchr(p, c, end - p))) {
			if (folded_at(p - anchor, needle, n))
				return 1;
			p++;
		}
	}
	return 0;
}

static int match(struct fixref_scanner *sc, pcre2_code *re, const char *buf, size_t len,
		 size_t start)
{
	if (sc->jit)
		return pcre2_jit_match(re, (PCRE2_SPTR)buf, len, start, 0, sc->md, NULL);
	return pcre2_match(re, (PCRE2_SPTR)buf, len, start, 0, sc->md, NULL);
}

size_t fixref_scan(struct fixref_scanner *sc, const char *msg, size_t len,
		   struct fixref **refs, size_t *nr, size_t *alloc)
{
	size_t start = 0, found = 0;

	if (!has_folded(msg, len, "ixes", 1) && !has_folded(msg, len, "reverts", 2) &&
	    !has_folded(msg, len, "dep-of", 3))
		return 0;
	while (start < len) {
		PCRE2_SIZE *ov;
		struct fixref *r;
		int rc = match(sc, sc->refs, msg, len, start), g;
		size_t i, n;

		if (rc < 0)
			break;
		ov = pcre2_get_ovector_pointer(sc->md);
		for (g = 1; g < rc && ov[2 * g] == PCRE2_UNSET; g++)
			;
		if (g >= rc)
			break;
		ALLOC_GROW(*refs, *nr + 1, *alloc);
		r = &(*refs)[(*nr)++];
		r->kind = g == 1 ? FIXREF_FIXES : g == 2 ? FIXREF_STABLE_DEP : FIXREF_REVERTS;
		n = ov[2 * g + 1] - ov[2 * g];
		for (i = 0; i < n; i++)
			r->hex[i] = tolower((unsigned char)msg[ov[2 * g] + i]);
		r->hex[n] = '\0';
		found++;
		start = ov[1] > start ? ov[1] : start + 1;
	}
	return found;
}

int fixref_stable(struct fixref_scanner *sc, const char *msg, size_t len, char **comment)
{
	PCRE2_SIZE *ov;
	const char *c;
	size_t n;
	int rc;

	*comment = NULL;
	if (!has_folded(msg, len, "stable@", 6))
		return 0;
	rc = match(sc, sc->stable, msg, len, 0);
	if (rc < 0)
		return 0;
	ov = pcre2_get_ovector_pointer(sc->md);
	c = msg + ov[2];
	n = ov[3] - ov[2];
	while (n && (*c == ' ' || *c == '\t' || *c == '#')) {
		c++;
		n--;
	}
	while (n && (c[n - 1] == ' ' || c[n - 1] == '\t' || c[n - 1] == '\r'))
		n--;
	if (n)
		*comment = xstrndup(c, n);
	return 1;
}

int fixref_upstream(struct fixref_scanner *sc, const char *msg, size_t len,
		    char hex[GIT_OID_HEXSZ + 1])
{
	PCRE2_SIZE *ov;
	size_t i, n;
	int rc, g;

	hex[0] = '\0';
	if (!has_folded(msg, len, "upstream", 0))
		return 0;
	rc = match(sc, sc->upstream, msg, len, 0);
	if (rc < 0)
		return 0;
	ov = pcre2_get_ovector_pointer(sc->md);
	for (g = 1; g < rc && ov[2 * g] == PCRE2_UNSET; g++)
		;
	if (g >= rc)
		return 0;
	n = ov[2 * g + 1] - ov[2 * g];
	for (i = 0; i < n; i++)
		hex[i] = tolower((unsigned char)msg[ov[2 * g] + i]);
	hex[n] = '\0';
	return 1;
}

size_t hex_len(const char *s)
{
	size_t n = 0;

	while (isxdigit((unsigned char)s[n]))
		n++;
	return s[n] ? 0 : n;
}

int hexid_match(const char *a, const char *b)
{
	size_t la = hex_len(a), lb = hex_len(b);

	if (la < 8 || lb < 8)
		return 0;
	return !strncasecmp(a, b, la < lb ? la : lb);
}

/* A run of digits as a number, saturating. */
static unsigned long digits(const char **s)
{
	unsigned long v = 0;

	while (isdigit((unsigned char)**s)) {
		v = v > 100000000UL ? v : v * 10 + (unsigned long)(**s - '0');
		(*s)++;
	}
	return v;
}

int tag_version_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			unsigned long x = digits(&a), y = digits(&b);

			if (x != y)
				return x < y ? -1 : 1;
			continue;
		}
		if (*a != *b)
			break;
		a++;
		b++;
	}
	if (*a == *b)
		return 0;
	/* "v2.10-rc1" comes before "v2.10": a suffix after a dash is a pre-release */
	if (!*b)
		return *a == '-' ? -1 : 1;
	if (!*a)
		return *b == '-' ? 1 : -1;
	if (*a == '-' && *b != '-')
		return -1;
	if (*b == '-' && *a != '-')
		return 1;
	return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
}

/* diff/diffscan.c: reading diff text line by line as libgit2 would, and checking the paths and names it gives. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/apply.h"
#include "diff/diffscan.h"
#include "lib/treecheck.h"

void line_iter_init(struct line_iter *it, const char *buf, size_t len)
{
	it->pos = buf;
	it->end = buf + len;
	it->line = NULL;
	it->len = 0;
	it->nr = 0;
}

int line_iter_next(struct line_iter *it)
{
	const char *nl;

	if (it->pos >= it->end)
		return 0;
	nl = memchr(it->pos, '\n', it->end - it->pos);
	it->line = it->pos;
	it->len = nl ? (size_t)(nl + 1 - it->pos) : (size_t)(it->end - it->pos);
	it->pos += it->len;
	it->nr++;
	return 1;
}

int has_prefix(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(line, prefix, n);
}

/* Length of the line without its newline and trailing blanks (as libgit2 trims paths). */
size_t trimmed_len(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n;
}

/*
 * Decode a C-style quoted path as git writes it ("a/t\303\244st\tx").
 * s[0] is the opening quote; *used is set past the closing one.
 * Returns 0, or -1 when the quoting is malformed.
 */
static int unquote_c(struct strbuf *out, const char *s, size_t n, size_t *used)
{
	size_t i = 1;

	if (!n || s[0] != '"')
		return -1;
	while (i < n) {
		char c = s[i++];
		unsigned v;
		int k;

		if (c == '"') {
			*used = i;
			return 0;
		}
		if (c != '\\') {
			strbuf_addch(out, c);
			continue;
		}
		if (i >= n)
			return -1;
		c = s[i++];
		switch (c) {
		case 'a': strbuf_addch(out, '\a'); break;
		case 'b': strbuf_addch(out, '\b'); break;
		case 't': strbuf_addch(out, '\t'); break;
		case 'n': strbuf_addch(out, '\n'); break;
		case 'v': strbuf_addch(out, '\v'); break;
		case 'f': strbuf_addch(out, '\f'); break;
		case 'r': strbuf_addch(out, '\r'); break;
		case '"': case '\\': strbuf_addch(out, c); break;
		case '0': case '1': case '2': case '3':
		case '4': case '5': case '6': case '7':
			v = c - '0';
			for (k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
				v = v * 8 + (s[i++] - '0');
			if (v > 255)
				return -1;
			strbuf_addch(out, (char)v);
			break;
		default:
			return -1;
		}
	}
	return -1;
}

/*
 * Check one path as libgit2 will see it (prefix included). `shown` is
 * the text as the patch writes it. Returns 0, or MKS_EUNSAFE with the
 * reason appended to `why`.
 */
int check_one_path(const char *p, size_t n, const char *shown, size_t shown_len,
		   unsigned lineno, struct strbuf *why)
{
	const char *reason = treecheck_path(p, n);

	if (!reason)
		return 0;
	if (lineno)
		strbuf_addf(why, "line %u: ", lineno);
	strbuf_addstr(why, "patch touches '");
	strbuf_add_shown(why, shown, shown_len, 0);
	strbuf_addf(why, "': %s", reason);
	return MKS_EUNSAFE;
}

/*
 * Check a path field that runs to the end of the line ("--- a/x",
 * "rename to x"), quoted or not. /dev/null is allowed where a side
 * may be absent.
 */
static int check_path_field(const char *s, size_t n, int allow_devnull, unsigned lineno,
			    struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	size_t used = 0;
	int ret;

	n = trimmed_len(s, n);
	if (allow_devnull && n == 9 && !memcmp(s, "/dev/null", 9))
		return 0;
	if (n && s[0] == '"') {
		if (unquote_c(&path, s, n, &used) < 0 || used != n) {
			if (lineno)
				strbuf_addf(why, "line %u: ", lineno);
			strbuf_addstr(why, "patch touches '");
			strbuf_add_shown(why, s, n, 0);
			strbuf_addstr(why, "': malformed quoted path");
			strbuf_release(&path);
			return MKS_EUNSAFE;
		}
		ret = check_one_path(path.buf, path.len, s, n, lineno, why);
	} else {
		ret = check_one_path(s, n, s, n, lineno, why);
	}
	strbuf_release(&path);
	return ret;
}

/*
 * The "diff --git" line is ambiguous when names have blanks; check
 * every word (or quoted name) on it, which covers any way of reading it.
 */
static int check_git_header(const char *s, size_t n, unsigned lineno, struct strbuf *why)
{
	size_t i = 0, j;
	int ret;

	n = trimmed_len(s, n);
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t') {
			i++;
			continue;
		}
		if (s[i] == '"') {
			struct strbuf path = STRBUF_INIT;
			size_t used = 0;

			if (unquote_c(&path, s + i, n - i, &used) < 0) {
				strbuf_release(&path);
				return check_path_field(s + i, n - i, 0, lineno, why);
			}
			ret = check_one_path(path.buf, path.len, s + i, used, lineno, why);
			strbuf_release(&path);
			if (ret)
				return ret;
			i += used;
			continue;
		}
		for (j = i; j < n && s[j] != ' ' && s[j] != '\t'; j++)
			;
		if ((ret = check_one_path(s + i, j - i, s + i, j - i, lineno, why)))
			return ret;
		i = j;
	}
	return 0;
}

/* Parse a decimal number (up to 10^9) at *s, before end, advancing *s. Returns 0 or -1. */
static int parse_num(const char **s, const char *end, long *out)
{
	long v = 0;

	if (*s >= end || !isdigit((unsigned char)**s))
		return -1;
	while (*s < end && isdigit((unsigned char)**s)) {
		if (v > 100000000)
			return -1;
		v = v * 10 + (**s - '0');
		(*s)++;
	}
	*out = v;
	return 0;
}

/* Parse "@@ -a[,b] +c[,d] @@"; an omitted count is 1, as in libgit2. */
static int parse_hunk_range(const char *s, size_t n, struct hunk_range *r)
{
	const char *p = s + 4, *end = s + n;

	if (!has_prefix(s, n, "@@ -"))
		return -1;
	r->old_lines = r->new_lines = 1;
	r->old_has_count = r->new_has_count = 0;
	if (parse_num(&p, end, &r->old_start))
		return -1;
	if (p < end && *p == ',') {
		p++;
		if (parse_num(&p, end, &r->old_lines))
			return -1;
		r->old_has_count = 1;
	}
	if (end - p < 2 || p[0] != ' ' || p[1] != '+')
		return -1;
	p += 2;
	if (parse_num(&p, end, &r->new_start))
		return -1;
	if (p < end && *p == ',') {
		p++;
		if (parse_num(&p, end, &r->new_lines))
			return -1;
		r->new_has_count = 1;
	}
	if (end - p < 3 || memcmp(p, " @@", 3))
		return -1;
	r->tail = p + 3;
	return 0;
}

enum scan_state {
	SCAN_TEXT,
	SCAN_HEADER,
	SCAN_HUNK,
	SCAN_HUNK_END,
};

int scan_diff(const char *diff, size_t len, scan_fn fn, void *data)
{
	enum scan_state st = SCAN_TEXT;
	struct line_iter it;
	struct hunk_range r;
	long old_left = 0, new_left = 0;
	int ret;

	line_iter_init(&it, diff, len);
	while (line_iter_next(&it)) {
		const char *l = it.line;
		size_t n = it.len;
		enum scan_event ev = EV_TEXT;
again:
		switch (st) {
		case SCAN_HUNK:
			if (n && l[0] == '\\') {
				ev = EV_EOF_MARKER;
				break;
			}
			if (has_prefix(l, n, "@@ -")) {
				st = SCAN_HEADER;
				goto again;
			}
			if (!n || l[0] == '\n' || l[0] == ' ') {
				old_left--;
				new_left--;
			} else if (l[0] == '-') {
				old_left--;
			} else if (l[0] == '+') {
				new_left--;
			} else {
				st = SCAN_TEXT;
				goto again;
			}
			ev = EV_HUNK_LINE;
			if (old_left <= 0 && new_left <= 0)
				st = SCAN_HUNK_END;
			break;
		case SCAN_HUNK_END:
			if (n && l[0] == '\\') {
				ev = EV_EOF_MARKER;
				break;
			}
			st = has_prefix(l, n, "@@ -") ? SCAN_HEADER : SCAN_TEXT;
			goto again;
		case SCAN_TEXT:
		case SCAN_HEADER:
			if (has_prefix(l, n, "diff --git ")) {
				ev = EV_GIT_HEADER;
				st = SCAN_HEADER;
			} else if (st == SCAN_TEXT) {
				ev = EV_TEXT;
			} else if (!parse_hunk_range(l, n, &r)) {
				ev = EV_HUNK_HEADER;
				old_left = r.old_lines;
				new_left = r.new_lines;
				st = old_left > 0 || new_left > 0 ? SCAN_HUNK : SCAN_HUNK_END;
			} else if (has_prefix(l, n, "-- ")) {
				ev = EV_TEXT;	/* a mail signature ends the section */
				st = SCAN_TEXT;
			} else {
				ev = EV_HEADER_LINE;
			}
			break;
		}
		if ((ret = fn(data, ev, l, n, it.nr, ev == EV_HUNK_HEADER ? &r : NULL)))
			return ret;
	}
	return 0;
}

static const char *const path_headers[] = {
	"--- ", "+++ ", "rename from ", "rename to ", "rename old ", "rename new ",
	"copy from ", "copy to ",
};

static int check_paths_line(void *data, enum scan_event ev, const char *l, size_t n,
			    unsigned lineno, const struct hunk_range *r)
{
	struct strbuf *why = data;
	size_t i;

	if (ev == EV_GIT_HEADER)
		return check_git_header(l + 11, n - 11, lineno, why);
	if (ev != EV_HEADER_LINE)
		return 0;
	for (i = 0; i < ARRAY_SIZE(path_headers); i++) {
		size_t plen = strlen(path_headers[i]);

		if (has_prefix(l, n, path_headers[i]))
			return check_path_field(l + plen, n - plen, i < 2, lineno, why);
	}
	return 0;
}

int diff_check_paths(const char *diff, size_t len, struct strbuf *why)
{
	const char *nul = memchr(diff, '\0', len);

	if (nul) {
		unsigned lineno = 1;
		const char *p;

		for (p = diff; p < nul; p++)
			lineno += *p == '\n';
		strbuf_addf(why, "line %u: patch has a NUL byte", lineno);
		return MKS_EUNSAFE;
	}
	return scan_diff(diff, len, check_paths_line, why);
}

/*
 * A rename's "rename from/to" lines and its "---"/"+++" lines must name
 * the same files: libgit2 believes the rename lines alone, `git apply`
 * refuses a patch where they disagree, and so do we. Each of them comes
 * once a file at most.
 */
struct names_state {
	struct strbuf side[4];	/* rename from, rename to, ---, +++ (without their prefix) */
	unsigned line[4];
	struct strbuf *report;
};

/* The value of a path field, unquoted, without the a/ or b/ prefix when `strip`. */
static void field_path(struct strbuf *out, const char *s, size_t n, int strip)
{
	size_t used;
	const char *slash;

	strbuf_reset(out);
	n = trimmed_len(s, n);
	if (n && s[0] == '"') {
		if (unquote_c(out, s, n, &used) < 0)
			strbuf_reset(out);
	} else {
		strbuf_add(out, s, n);
	}
	if (strip && strcmp(out->buf, "/dev/null") && (slash = strchr(out->buf, '/'))) {
		size_t k = slash + 1 - out->buf;

		memmove(out->buf, out->buf + k, out->len - k + 1);
		strbuf_setlen(out, out->len - k);
	}
}

static int names_section_done(struct names_state *ns)
{
	int i, ret = 0;

	for (i = 0; i < 2 && !ret; i++) {
		if (!ns->line[i] || !ns->line[i + 2] || !strcmp(ns->side[i + 2].buf, "/dev/null") ||
		    !strcmp(ns->side[i].buf, ns->side[i + 2].buf))
			continue;
		strbuf_addf(ns->report, "line %u: the patch renames %s '", ns->line[i],
			    i ? "to" : "from");
		strbuf_add_shown(ns->report, ns->side[i].buf, ns->side[i].len, 0);
		strbuf_addf(ns->report, "' but line %u names '", ns->line[i + 2]);
		strbuf_add_shown(ns->report, ns->side[i + 2].buf, ns->side[i + 2].len, 0);
		strbuf_addch(ns->report, '\'');
		ret = MKS_EAPPLYFAIL;
	}
	for (i = 0; i < 4; i++)
		ns->line[i] = 0;
	return ret;
}

static int names_line(void *data, enum scan_event ev, const char *l, size_t n,
		      unsigned lineno, const struct hunk_range *r)
{
	static const char *const keys[][2] = {
		{ "rename from ", "copy from " }, { "rename to ", "copy to " },
		{ "--- ", NULL }, { "+++ ", NULL },
	};
	struct names_state *ns = data;
	int i, k;

	if (ev == EV_GIT_HEADER || ev == EV_TEXT || ev == EV_HUNK_HEADER)
		return names_section_done(ns);
	if (ev != EV_HEADER_LINE)
		return 0;
	for (i = 0; i < 4; i++) {
		for (k = 0; k < 2 && keys[i][k]; k++) {
			size_t plen = strlen(keys[i][k]);

			if (!has_prefix(l, n, keys[i][k]))
				continue;
			if (ns->line[i]) {
				/*
				 * libgit2 1.5 keeps the last and leaks the one
				 * before; git apply takes neither as a patch
				 */
				strbuf_addf(ns->report, "line %u: a second '%.*s' line for one file "
					    "(the first is line %u)", lineno, (int)(plen - 1),
					    keys[i][k], ns->line[i]);
				return MKS_EAPPLYFAIL;
			}
			field_path(&ns->side[i], l + plen, n - plen, i >= 2);
			ns->line[i] = lineno;
		}
	}
	return 0;
}

int diff_check_names(const char *diff, size_t len, struct strbuf *report)
{
	struct names_state ns = { .report = report };
	int i, ret;

	for (i = 0; i < 4; i++)
		strbuf_init(&ns.side[i], 0);
	ret = scan_diff(diff, len, names_line, &ns);
	if (!ret)
		ret = names_section_done(&ns);
	for (i = 0; i < 4; i++)
		strbuf_release(&ns.side[i]);
	return ret;
}

/* Split the two names of a "diff --git" line the way git writes them. */
void split_git_header(const char *s, size_t n, size_t *len1, size_t *start2)
{
	size_t i, used = 0;
	struct strbuf tmp = STRBUF_INIT;
	int quoted = n && s[0] == '"' && !unquote_c(&tmp, s, n, &used);

	strbuf_release(&tmp);
	if (quoted) {
		*len1 = used;
		for (i = used; i < n && s[i] == ' '; i++)
			;
		*start2 = i;
		return;
	}
	/* "a/P b/P": the same name on both sides splits in the middle */
	if (n % 2 && n > 5 && s[n / 2] == ' ' && !memcmp(s + 2, s + n / 2 + 3, n / 2 - 2)) {
		*len1 = n / 2;
		*start2 = n / 2 + 1;
		return;
	}
	for (i = 0; i + 4 < n; i++) {
		if (!memcmp(s + i, " b/", 3) || !memcmp(s + i, " \"b/", 4)) {
			*len1 = i;
			*start2 = i + 1;
			return;
		}
	}
	for (i = 0; i < n && s[i] != ' '; i++)
		;
	*len1 = i;
	*start2 = i < n ? i + 1 : n;
}

void add_range(struct strbuf *sb, long start, long lines, int has_count)
{
	strbuf_addf(sb, "%ld", start);
	if (has_count)
		strbuf_addf(sb, ",%ld", lines);
}

/* The length of a header line's value after a keyword of length k (trailing blanks trimmed). */
size_t value_len(size_t body, size_t k)
{
	return body > k ? body - k : 0;
}

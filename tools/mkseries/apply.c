/* apply.c: apply a git diff to a tree in memory, touching only the paths it names. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "apply.h"
#include "gitutil.h"
#include "treecheck.h"

/* Lines of context shown around a hunk that does not apply. */
#define REPORT_CONTEXT 3

/* One line of a buffer at a time; `len` includes the newline when there is one. */
struct line_iter {
	const char *pos, *end;
	const char *line;
	size_t len;
	unsigned nr;
};

static void line_iter_init(struct line_iter *it, const char *buf, size_t len)
{
	it->pos = buf;
	it->end = buf + len;
	it->line = NULL;
	it->len = 0;
	it->nr = 0;
}

static int line_iter_next(struct line_iter *it)
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

static int has_prefix(const char *line, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(line, prefix, n);
}

/* Length of the line without its newline and trailing blanks (as libgit2 trims paths). */
static size_t trimmed_len(const char *s, size_t n)
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
static int check_one_path(const char *p, size_t n, const char *shown, size_t shown_len,
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

/* A hunk header's ranges; `tail` is what follows the closing "@@" (the function name). */
struct hunk_range {
	long old_start, old_lines, new_start, new_lines;
	int old_has_count, new_has_count;
	const char *tail;
};

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

/*
 * What a line of diff text is, as libgit2's parser would take it:
 * text outside any file section, a "diff --git" line, another line of
 * a section's header, a hunk header, a counted hunk line, or a
 * "\ No newline at end of file" marker. Counted hunk lines are content,
 * never headers, however they look.
 */
enum scan_event {
	EV_TEXT,
	EV_GIT_HEADER,
	EV_HEADER_LINE,
	EV_HUNK_HEADER,
	EV_HUNK_LINE,
	EV_EOF_MARKER,
};

enum scan_state {
	SCAN_TEXT,
	SCAN_HEADER,
	SCAN_HUNK,
	SCAN_HUNK_END,
};

/* Called for every line; `r` is set for EV_HUNK_HEADER. A non-zero return stops the scan. */
typedef int (*scan_fn)(void *data, enum scan_event ev, const char *l, size_t n, unsigned lineno,
		       const struct hunk_range *r);

static int scan_diff(const char *diff, size_t len, scan_fn fn, void *data)
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

/* ---- reversing a diff ---- */

/* Swap the a/ and b/ side prefixes of a path as written ("a/x", "\"b/x\""). */
static void add_swapped_side(struct strbuf *sb, const char *s, size_t n)
{
	size_t q = n && s[0] == '"';

	if (n >= q + 2 && (s[q] == 'a' || s[q] == 'b') && s[q + 1] == '/') {
		strbuf_add(sb, s, q);
		strbuf_addch(sb, s[q] == 'a' ? 'b' : 'a');
		strbuf_add(sb, s + q + 1, n - q - 1);
	} else {
		strbuf_add(sb, s, n);
	}
}

/* Split the two names of a "diff --git" line the way git writes them. */
static void split_git_header(const char *s, size_t n, size_t *len1, size_t *start2)
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

/* The header lines that come in from/to pairs. */
static const char *const pair_keywords[][2] = {
	{ "rename from ", "rename to " },
	{ "rename old ", "rename new " },
	{ "copy from ", "copy to " },
};

/* The keyword (side 0: from, 1: to) the line starts with, or -1. */
static int pair_keyword(const char *l, size_t n, int side)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pair_keywords); i++)
		if (has_prefix(l, n, pair_keywords[i][side]))
			return i;
	return -1;
}

struct reverse_state {
	struct strbuf *out;	/* where the current section or text goes */
	struct strbuf *final;	/* the caller's buffer */
	struct strbuf sect;	/* the section being reversed */
	int sect_open;
	int sect_add, sect_del;	/* it creates / deletes its file, once reversed */
	struct strbuf pending;	/* the section before it, held back in case the two swap */
	int pending_open, pending_add;
	struct strbuf pending_head;	/* its "diff --git" line */
	struct strbuf sect_head;
	struct strbuf minus;	/* a change block's '+' lines, turned into '-' */
	struct strbuf plus;	/* its '-' lines, turned into '+' */
	int last;		/* where the previous hunk line went: 0 out, 1 minus, 2 plus */
	struct strbuf saved;	/* the "--- ", "old mode " or "from" value awaiting its pair */
	int binary;		/* -1, or which half of a binary patch is being read */
	struct strbuf half[2];
};

/* git writes a change block's '-' lines before its '+' lines; the reverse must too. */
static void reverse_flush(struct reverse_state *rs)
{
	strbuf_add(rs->out, rs->minus.buf, rs->minus.len);
	strbuf_add(rs->out, rs->plus.buf, rs->plus.len);
	strbuf_reset(&rs->minus);
	strbuf_reset(&rs->plus);
	rs->last = 0;
}

/*
 * git writes a file that changes type as a deletion followed by a
 * creation of the same path; reversed, those two become a creation
 * followed by a deletion, which no one applies. Sections are held one
 * back so that such a pair can be swapped again.
 */
static void section_done(struct reverse_state *rs)
{
	if (!rs->sect_open)
		return;
	rs->sect_open = 0;
	rs->out = rs->final;
	if (rs->pending_open && rs->pending_add && rs->sect_del &&
	    !strcmp(rs->pending_head.buf, rs->sect_head.buf)) {
		strbuf_add(rs->final, rs->sect.buf, rs->sect.len);
		strbuf_add(rs->final, rs->pending.buf, rs->pending.len);
		rs->pending_open = 0;
		strbuf_reset(&rs->sect);
		return;
	}
	if (rs->pending_open)
		strbuf_add(rs->final, rs->pending.buf, rs->pending.len);
	strbuf_reset(&rs->pending);
	strbuf_add(&rs->pending, rs->sect.buf, rs->sect.len);
	strbuf_reset(&rs->pending_head);
	strbuf_add(&rs->pending_head, rs->sect_head.buf, rs->sect_head.len);
	rs->pending_open = 1;
	rs->pending_add = rs->sect_add;
	strbuf_reset(&rs->sect);
}

static void pending_flush(struct reverse_state *rs)
{
	section_done(rs);
	if (rs->pending_open)
		strbuf_add(rs->final, rs->pending.buf, rs->pending.len);
	rs->pending_open = 0;
	strbuf_reset(&rs->pending);
}

static void add_range(struct strbuf *sb, long start, long lines, int has_count)
{
	strbuf_addf(sb, "%ld", start);
	if (has_count)
		strbuf_addf(sb, ",%ld", lines);
}

/* The length of a header line's value after a keyword of length k (trailing blanks trimmed). */
static size_t value_len(size_t body, size_t k)
{
	return body > k ? body - k : 0;
}

static void reverse_header_line(struct reverse_state *rs, const char *l, size_t n)
{
	struct strbuf *out = rs->out;
	size_t body = trimmed_len(l, n);
	int k;

	if (has_prefix(l, n, "--- ")) {
		strbuf_reset(&rs->saved);
		strbuf_add(&rs->saved, l + 4, value_len(body, 4));
	} else if (has_prefix(l, n, "+++ ")) {
		strbuf_addstr(out, "--- ");
		add_swapped_side(out, l + 4, value_len(body, 4));
		strbuf_addstr(out, "\n+++ ");
		add_swapped_side(out, rs->saved.buf, rs->saved.len);
		strbuf_addch(out, '\n');
	} else if (has_prefix(l, n, "new file mode ")) {
		strbuf_addstr(out, "deleted file mode ");
		strbuf_add(out, l + 14, n - 14);
		rs->sect_del = 1;
	} else if (has_prefix(l, n, "deleted file mode ")) {
		strbuf_addstr(out, "new file mode ");
		strbuf_add(out, l + 18, n - 18);
		rs->sect_add = 1;
	} else if (has_prefix(l, n, "old mode ")) {
		strbuf_reset(&rs->saved);
		strbuf_add(&rs->saved, l + 9, value_len(body, 9));
	} else if (has_prefix(l, n, "new mode ")) {
		strbuf_addstr(out, "old mode ");
		strbuf_add(out, l + 9, value_len(body, 9));
		strbuf_addf(out, "\nnew mode %s\n", rs->saved.buf);
	} else if ((k = pair_keyword(l, n, 0)) >= 0) {
		size_t plen = strlen(pair_keywords[k][0]);

		strbuf_reset(&rs->saved);
		strbuf_add(&rs->saved, l + plen, value_len(body, plen));
	} else if ((k = pair_keyword(l, n, 1)) >= 0) {
		size_t plen = strlen(pair_keywords[k][1]);

		strbuf_addstr(out, pair_keywords[k][0]);
		strbuf_add(out, l + plen, value_len(body, plen));
		strbuf_addf(out, "\n%s%s\n", pair_keywords[k][1], rs->saved.buf);
	} else if (has_prefix(l, n, "index ") && memmem(l, body, "..", 2)) {
		const char *dots = memmem(l, body, "..", 2);
		const char *sp = memchr(dots, ' ', l + body - dots);
		const char *idend = sp ? sp : l + body;

		strbuf_addstr(out, "index ");
		strbuf_add(out, dots + 2, idend - dots - 2);
		strbuf_addstr(out, "..");
		strbuf_add(out, l + 6, dots - l - 6);
		strbuf_add(out, idend, l + n - idend);
	} else {
		if (has_prefix(l, n, "GIT binary patch"))
			rs->binary = 0;
		strbuf_add(out, l, n);
	}
}

static int reverse_line(void *data, enum scan_event ev, const char *l, size_t n,
			unsigned lineno, const struct hunk_range *r)
{
	struct reverse_state *rs = data;
	size_t body = trimmed_len(l, n);

	if (ev != EV_HUNK_LINE && ev != EV_EOF_MARKER)
		reverse_flush(rs);
	if (rs->binary >= 0 && ev == EV_HEADER_LINE) {
		/* a binary patch has the forward data, a blank line, the reverse data */
		strbuf_add(&rs->half[rs->binary], l, n);
		if (n == 1 && l[0] == '\n' && ++rs->binary == 2) {
			strbuf_add(rs->out, rs->half[1].buf, rs->half[1].len);
			strbuf_add(rs->out, rs->half[0].buf, rs->half[0].len);
			strbuf_reset(&rs->half[0]);
			strbuf_reset(&rs->half[1]);
			rs->binary = -1;
		}
		return 0;
	}
	switch (ev) {
	case EV_TEXT:
		pending_flush(rs);
		strbuf_add(rs->out, l, n);
		break;
	case EV_GIT_HEADER: {
		size_t len1, start2, start;

		section_done(rs);
		rs->sect_open = 1;
		rs->sect_add = rs->sect_del = 0;
		rs->out = &rs->sect;
		start = rs->out->len;
		split_git_header(l + 11, value_len(body, 11), &len1, &start2);
		strbuf_addstr(rs->out, "diff --git ");
		add_swapped_side(rs->out, l + 11 + start2, value_len(body, 11 + start2));
		strbuf_addch(rs->out, ' ');
		add_swapped_side(rs->out, l + 11, len1);
		strbuf_reset(&rs->sect_head);
		strbuf_add(&rs->sect_head, rs->out->buf + start, rs->out->len - start);
		strbuf_add(rs->out, l + body, n - body);
		break;
	}
	case EV_HEADER_LINE:
		reverse_header_line(rs, l, n);
		break;
	case EV_HUNK_HEADER:
		strbuf_addstr(rs->out, "@@ -");
		add_range(rs->out, r->new_start, r->new_lines, r->new_has_count);
		strbuf_addstr(rs->out, " +");
		add_range(rs->out, r->old_start, r->old_lines, r->old_has_count);
		strbuf_addstr(rs->out, " @@");
		strbuf_add(rs->out, r->tail, l + n - r->tail);
		break;
	case EV_HUNK_LINE:
		if (n && l[0] == '-') {
			strbuf_addch(&rs->plus, '+');
			strbuf_add(&rs->plus, l + 1, n - 1);
			rs->last = 2;
		} else if (n && l[0] == '+') {
			strbuf_addch(&rs->minus, '-');
			strbuf_add(&rs->minus, l + 1, n - 1);
			rs->last = 1;
		} else {
			reverse_flush(rs);
			strbuf_add(rs->out, l, n);
		}
		break;
	case EV_EOF_MARKER:
		/* the marker stays with the line it follows */
		strbuf_add(rs->last == 1 ? &rs->minus : rs->last == 2 ? &rs->plus : rs->out, l, n);
		break;
	}
	return 0;
}

int diff_reverse(const char *diff, size_t len, struct strbuf *out)
{
	struct reverse_state rs = { .out = out, .final = out, .binary = -1 };
	int ret = 0;

	strbuf_init(&rs.sect, 0);
	strbuf_init(&rs.pending, 0);
	strbuf_init(&rs.pending_head, 0);
	strbuf_init(&rs.sect_head, 0);
	strbuf_init(&rs.minus, 0);
	strbuf_init(&rs.plus, 0);
	strbuf_init(&rs.saved, 0);
	strbuf_init(&rs.half[0], 0);
	strbuf_init(&rs.half[1], 0);
	scan_diff(diff, len, reverse_line, &rs);
	reverse_flush(&rs);
	if (rs.binary >= 0) {
		strbuf_add(rs.out, rs.half[0].buf, rs.half[0].len);
		strbuf_add(rs.out, rs.half[1].buf, rs.half[1].len);
		ret = -1;
	}
	pending_flush(&rs);
	strbuf_release(&rs.sect);
	strbuf_release(&rs.pending);
	strbuf_release(&rs.pending_head);
	strbuf_release(&rs.sect_head);
	strbuf_release(&rs.minus);
	strbuf_release(&rs.plus);
	strbuf_release(&rs.saved);
	strbuf_release(&rs.half[0]);
	strbuf_release(&rs.half[1]);
	return ret;
}

/*
 * A rename's "rename from/to" lines and its "---"/"+++" lines must name
 * the same files: libgit2 believes the rename lines alone, `git apply`
 * refuses a patch where they disagree, and so do we.
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
			field_path(&ns->side[i], l + plen, n - plen, i >= 2);
			ns->line[i] = lineno;
		}
	}
	return 0;
}

static int check_names(const char *diff, size_t len, struct strbuf *report)
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

/* Where each hunk header is in the text, by file section and hunk, to move hunks. */
struct hunk_loc {
	size_t section, hunk;
	size_t off, len;
	struct hunk_range r;
};

struct hunk_locs {
	const char *base;
	struct hunk_loc *v;
	size_t nr, alloc;
	size_t sections;	/* file sections seen */
	size_t in_section;	/* hunks seen in the current one */
};

static int locate_line(void *data, enum scan_event ev, const char *l, size_t n,
		       unsigned lineno, const struct hunk_range *r)
{
	struct hunk_locs *hl = data;
	struct hunk_loc *loc;

	if (ev == EV_GIT_HEADER) {
		hl->sections++;
		hl->in_section = 0;
	} else if (ev == EV_HUNK_HEADER && hl->sections) {
		ALLOC_GROW(hl->v, hl->nr + 1, hl->alloc);
		loc = &hl->v[hl->nr++];
		loc->section = hl->sections - 1;
		loc->hunk = hl->in_section++;
		loc->off = l - hl->base;
		loc->len = n;
		loc->r = *r;
	}
	return 0;
}

/* ---- checking binary patches ---- */

/*
 * A "GIT binary patch" section is checked here before libgit2 parses
 * it: libgit2 1.5 can spin forever inflating a corrupt hunk. The rules
 * are git's (apply.c parse_binary_hunk, inflate_it); the size bound is
 * ours, so that a patch cannot make us (or libgit2) inflate gigabytes.
 */
#define BINARY_MAX_SIZE (256UL << 20)

static const char base85_chars[] =
	"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

enum binary_step {
	BIN_NONE,	/* not in a binary patch */
	BIN_METHOD,	/* "literal N" or "delta N" must follow */
	BIN_DATA,	/* data lines, up to a blank line */
	BIN_AFTER,	/* the forward hunk is done; a reverse one may follow */
};

struct binary_state {
	struct strbuf *why;
	struct strbuf path;	/* the section's file, as its "diff --git" line writes it */
	enum binary_step step;
	int hunks;
	unsigned long declared;
	const char *method;	/* "literal" or "delta" */
	unsigned method_line;
	struct strbuf data;	/* the hunk's deflated bytes */
};

static int binary_fail(struct binary_state *bs, unsigned lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int binary_fail(struct binary_state *bs, unsigned lineno, const char *fmt, ...)
{
	va_list ap;

	strbuf_addf(bs->why, "line %u: corrupt binary patch for '", lineno);
	strbuf_add_shown(bs->why, bs->path.buf, bs->path.len, 0);
	strbuf_addstr(bs->why, "': ");
	va_start(ap, fmt);
	strbuf_vaddf(bs->why, fmt, ap);
	va_end(ap);
	return MKS_EAPPLYFAIL;
}

/* Decode one data line ("zcmV..." without its newline) into bs->data, as git's decode_85. */
static int binary_data_line(struct binary_state *bs, const char *l, size_t n, unsigned lineno)
{
	size_t want, max, i;
	char c = n ? l[0] : '\0';

	if (c >= 'A' && c <= 'Z')
		want = c - 'A' + 1;
	else if (c >= 'a' && c <= 'z')
		want = c - 'a' + 27;
	else
		return binary_fail(bs, lineno, "a data line must start with a length letter "
				   "(A-Z, a-z)");
	/* each 4 bytes take 5 characters; the letter says how many of the last 4 count */
	max = (n - 1) / 5 * 4;
	if (n < 6 || (n - 1) % 5 || max < want || want + 4 <= max)
		return binary_fail(bs, lineno, "the line has %zu characters of data, "
				   "not what %zu bytes take", n - 1, want);
	for (i = 1; i < n; i += 5) {
		uint32_t acc = 0;
		int k;

		for (k = 0; k < 5; k++) {
			const char *p = memchr(base85_chars, l[i + k], sizeof(base85_chars) - 1);

			if (!p) {
				return binary_fail(bs, lineno, "'%c' is not a base85 character",
						   isprint((unsigned char)l[i + k]) ? l[i + k] : '?');
			}
			if (k == 4 && (acc > 0xffffffffU / 85 ||
				       0xffffffffU - (uint32_t)(p - base85_chars) < acc * 85))
				return binary_fail(bs, lineno, "a base85 group is out of range");
			acc = acc * 85 + (uint32_t)(p - base85_chars);
		}
		for (k = 0; k < 4 && want; k++, want--)
			strbuf_addch(&bs->data, (char)(acc >> (24 - 8 * k)));
	}
	return 0;
}

/* The hunk's data must inflate, as zlib data, to exactly the declared size. */
static int binary_hunk_done(struct binary_state *bs)
{
	GConverter *z = G_CONVERTER(g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_ZLIB));
	size_t pos = 0, total = 0;
	char buf[65536];
	int ret = 0;

	for (;;) {
		GConverterResult res;
		GError *gerr = NULL;
		gsize rd = 0, wr = 0;

		res = g_converter_convert(z, bs->data.buf + pos, bs->data.len - pos, buf, sizeof(buf),
					  G_CONVERTER_INPUT_AT_END, &rd, &wr, &gerr);
		if (res == G_CONVERTER_ERROR) {
			ret = binary_fail(bs, bs->method_line, "its data does not inflate (%s)",
					  gerr && gerr->message ? gerr->message : "zlib error");
			g_clear_error(&gerr);
			break;
		}
		pos += rd;
		total += wr;
		if (total > bs->declared) {
			ret = binary_fail(bs, bs->method_line, "its data inflates to more than "
					  "'%s %lu' says", bs->method, bs->declared);
			break;
		}
		if (res == G_CONVERTER_FINISHED) {
			if (total != bs->declared)
				ret = binary_fail(bs, bs->method_line, "its data inflates to %zu bytes "
						  "but '%s %lu' says %lu", total, bs->method,
						  bs->declared, bs->declared);
			break;
		}
		if (!rd && !wr) {
			ret = binary_fail(bs, bs->method_line, "its data is cut short");
			break;
		}
	}
	g_object_unref(z);
	strbuf_reset(&bs->data);
	return ret;
}

/* Parse "literal N" or "delta N"; returns 1 when the line is one. */
static int binary_method(struct binary_state *bs, const char *l, size_t n)
{
	const char *p, *end = l + trimmed_len(l, n);
	unsigned long v = 0;

	if (has_prefix(l, n, "literal "))
		bs->method = "literal";
	else if (has_prefix(l, n, "delta "))
		bs->method = "delta";
	else
		return 0;
	p = l + strlen(bs->method) + 1;
	if (p >= end)
		return 0;
	for (; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return 0;
		if (v > BINARY_MAX_SIZE)
			break;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	bs->declared = v;
	return 1;
}

static int binary_line(void *data, enum scan_event ev, const char *l, size_t n,
		       unsigned lineno, const struct hunk_range *r)
{
	struct binary_state *bs = data;

	if (bs->step == BIN_DATA && (ev != EV_HEADER_LINE || !n))
		return binary_fail(bs, lineno, "its hunk does not end with a blank line");
	if (ev == EV_GIT_HEADER) {
		size_t body = trimmed_len(l, n), len1, start2;

		split_git_header(l + 11, value_len(body, 11), &len1, &start2);
		const char *name = l + 11 + start2;
		size_t nlen = value_len(body, 11 + start2);

		if (has_prefix(name, nlen, "b/")) {
			name += 2;
			nlen -= 2;
		}
		strbuf_reset(&bs->path);
		strbuf_add(&bs->path, name, nlen);
		bs->step = BIN_NONE;
		return 0;
	}
	if (ev != EV_HEADER_LINE) {
		bs->step = BIN_NONE;
		return 0;
	}
	switch (bs->step) {
	case BIN_NONE:
		if (trimmed_len(l, n) == 16 && has_prefix(l, n, "GIT binary patch")) {
			bs->step = BIN_METHOD;
			bs->hunks = 0;
		}
		return 0;
	case BIN_METHOD:
	case BIN_AFTER:
		if (!binary_method(bs, l, n)) {
			if (bs->step == BIN_METHOD)
				return binary_fail(bs, lineno, "expected 'literal SIZE' or 'delta SIZE'");
			bs->step = BIN_NONE;
			return 0;
		}
		if (bs->declared > BINARY_MAX_SIZE)
			return binary_fail(bs, lineno, "it declares more than the %lu MiB "
					   "mkseries accepts", BINARY_MAX_SIZE >> 20);
		bs->method_line = lineno;
		bs->step = BIN_DATA;
		return 0;
	case BIN_DATA:
		if (n == 1 && l[0] == '\n') {
			int ret = binary_hunk_done(bs);

			bs->step = ++bs->hunks == 1 ? BIN_AFTER : BIN_NONE;
			return ret;
		}
		if (l[n - 1] != '\n')
			return binary_fail(bs, lineno, "its hunk does not end with a blank line");
		return binary_data_line(bs, l, n - 1, lineno);
	}
	return 0;
}

int diff_check_binary(const char *diff, size_t len, struct strbuf *why)
{
	struct binary_state bs = { .why = why, .step = BIN_NONE };
	unsigned lines = 0;
	size_t i;
	int ret;

	strbuf_init(&bs.path, 0);
	strbuf_init(&bs.data, 0);
	ret = scan_diff(diff, len, binary_line, &bs);
	if (!ret && bs.step == BIN_DATA) {
		for (i = 0; i < len; i++)
			lines += diff[i] == '\n';
		ret = binary_fail(&bs, lines + (len && diff[len - 1] != '\n'),
				  "its hunk does not end with a blank line");
	}
	strbuf_release(&bs.path);
	strbuf_release(&bs.data);
	return ret;
}

/* ---- applying ---- */

/* What the base tree has at a path the diff names. */
enum base_kind {
	BASE_ABSENT = 0,
	BASE_FILE,	/* blob, symlink or gitlink */
	BASE_DIR,
};

struct touched {
	const char *path;	/* owned by the git_diff */
	enum base_kind kind;
	git_oid id;
	git_filemode_t mode;	/* normalised, for the small tree */
	git_filemode_t raw_mode;
	unsigned made_mode;	/* the mode a delta created it with */
	unsigned gone : 1;	/* deleted or renamed away by some delta */
	unsigned made : 1;	/* created by a delta seen so far */
	unsigned has_sim : 1;	/* sim holds its content after the deltas simulated so far */
	struct strbuf sim;
};

struct apply_ctx {
	git_repository *repo;
	git_tree *base;
	git_diff *diff;
	struct touched *t;
	size_t nr, alloc;
	struct strbuf *report;
};

static int touched_cmp(const void *a, const void *b)
{
	return strcmp(((const struct touched *)a)->path, ((const struct touched *)b)->path);
}

static struct touched *touched_find(struct apply_ctx *ctx, const char *path)
{
	struct touched key;

	if (!path)
		return NULL;
	key.path = path;
	return bsearch(&key, ctx->t, ctx->nr, sizeof(*ctx->t), touched_cmp);
}

static void touched_add(struct apply_ctx *ctx, const char *path)
{
	struct touched *t;

	if (!path)
		return;
	ALLOC_GROW(ctx->t, ctx->nr + 1, ctx->alloc);
	t = &ctx->t[ctx->nr++];
	memset(t, 0, sizeof(*t));
	t->path = path;
	strbuf_init(&t->sim, 0);
}

static void apply_ctx_release(struct apply_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nr; i++)
		strbuf_release(&ctx->t[i].sim);
	free(ctx->t);
	ctx->t = NULL;
	ctx->nr = ctx->alloc = 0;
}

/* Returns the kind of entry at `path` in `tree`, filling id and modes; -1 on error. */
static int tree_lookup(git_tree *tree, const char *path, git_oid *id, git_filemode_t *mode,
		       git_filemode_t *raw_mode)
{
	git_tree_entry *e = NULL;
	int err = git_tree_entry_bypath(&e, tree, path);
	int kind;

	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		return BASE_ABSENT;
	}
	if (err < 0)
		return gitutil_error(err, "cannot look up '%s' in the tree", path);
	kind = git_tree_entry_type(e) == GIT_OBJECT_TREE ? BASE_DIR : BASE_FILE;
	if (id)
		git_oid_cpy(id, git_tree_entry_id(e));
	if (mode)
		*mode = git_tree_entry_filemode(e);
	if (raw_mode)
		*raw_mode = git_tree_entry_filemode_raw(e);
	git_tree_entry_free(e);
	return kind;
}

/*
 * Gather the paths the deltas name, check them again as libgit2 parsed
 * them (the text check cannot see every way a parser might read a
 * line), and look each up in the base tree.
 */
static int collect_paths(struct apply_ctx *ctx)
{
	size_t i, j, n = git_diff_num_deltas(ctx->diff);
	int ret;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);

		touched_add(ctx, d->old_file.path);
		touched_add(ctx, d->new_file.path);
	}
	qsort(ctx->t, ctx->nr, sizeof(*ctx->t), touched_cmp);
	for (i = j = 0; i < ctx->nr; i++) {
		if (j && !strcmp(ctx->t[j - 1].path, ctx->t[i].path)) {
			strbuf_release(&ctx->t[i].sim);
			continue;
		}
		ctx->t[j++] = ctx->t[i];
	}
	ctx->nr = j;
	for (i = 0; i < ctx->nr; i++) {
		struct touched *t = &ctx->t[i];

		if ((ret = check_one_path(t->path, strlen(t->path), t->path, strlen(t->path), 0,
					  ctx->report)))
			return ret;
		ret = tree_lookup(ctx->base, t->path, &t->id, &t->mode, &t->raw_mode);
		if (ret < 0)
			return ret;
		t->kind = ret;
	}
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);

		struct touched *t = touched_find(ctx, d->old_file.path);

		if (t && (d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_RENAMED))
			t->gone = 1;
	}
	return 0;
}

static int exists_now(const struct touched *t)
{
	return t->made || (t->kind == BASE_FILE && !t->gone);
}

static const char *mode_kind(unsigned mode)
{
	switch (mode & 0170000) {
	case 0120000:
		return "symlink";
	case 0160000:
		return "submodule";
	case 0040000:
		return "directory";
	default:
		return "regular file";
	}
}

/* Whether `path` is a symlink in `tree`. */
static int kind_is_link(git_tree *tree, const char *path)
{
	git_filemode_t raw = 0;

	return tree_lookup(tree, path, NULL, NULL, &raw) == BASE_FILE && raw == GIT_FILEMODE_LINK;
}

/*
 * Nothing the patch creates may sit under something else it creates:
 * a symlink "d" then "d/f" would write through the link where the tree
 * is checked out (git: "beyond a symbolic link"). Checked once every
 * delta is seen, so that the order of the sections does not matter.
 */
static int check_beyond(struct apply_ctx *ctx)
{
	struct strbuf prefix = STRBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < ctx->nr && !ret; i++) {
		const char *path = ctx->t[i].path, *slash;

		if (!ctx->t[i].made)
			continue;
		for (slash = strchr(path, '/'); slash && !ret; slash = strchr(slash + 1, '/')) {
			struct touched *p;

			strbuf_reset(&prefix);
			strbuf_add(&prefix, path, slash - path);
			p = touched_find(ctx, prefix.buf);
			if (!p || !p->made)
				continue;
			if ((p->made_mode & 0170000) == GIT_FILEMODE_LINK)
				strbuf_addf(ctx->report, "%s: the patch creates it beyond a symbolic link "
					    "('%s', which it creates too)", path, p->path);
			else
				strbuf_addf(ctx->report, "%s: the patch creates it under '%s', which it "
					    "creates as a %s", path, p->path, mode_kind(p->made_mode));
			ret = MKS_EAPPLYFAIL;
		}
	}
	strbuf_release(&prefix);
	return ret;
}

/* A new file needs every directory above it to be a directory, or to be removed by the diff. */
static int check_parents(struct apply_ctx *ctx, const char *path)
{
	struct strbuf prefix = STRBUF_INIT;
	const char *slash;
	int ret = 0;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct touched *t;
		int kind;

		strbuf_reset(&prefix);
		strbuf_add(&prefix, path, slash - path);
		kind = tree_lookup(ctx->base, prefix.buf, NULL, NULL, NULL);
		if (kind < 0) {
			ret = -1;
			break;
		}
		if (kind != BASE_FILE)
			continue;
		t = touched_find(ctx, prefix.buf);
		if (t && t->gone)
			continue;
		if (kind_is_link(ctx->base, prefix.buf))
			strbuf_addf(ctx->report, "%s: the patch creates it beyond a symbolic link "
				    "('%s' in the tree)", path, prefix.buf);
		else
			strbuf_addf(ctx->report, "%s: the patch creates it but '%s' is a file in the tree",
				    path, prefix.buf);
		ret = MKS_EAPPLYFAIL;
		break;
	}
	strbuf_release(&prefix);
	return ret;
}

/* As in `git apply`, a file of another type is refused; other mode bits are not. */
static int check_type(struct apply_ctx *ctx, const struct touched *o, const git_diff_delta *d)
{
	if (o->made || o->kind != BASE_FILE || !d->old_file.mode ||
	    !((o->raw_mode ^ d->old_file.mode) & 0170000))
		return 0;
	strbuf_addf(ctx->report, "%s: the patch expects a %s but the tree has a %s there", o->path,
		    mode_kind(d->old_file.mode), mode_kind(o->raw_mode));
	return MKS_EAPPLYFAIL;
}

static int fail(struct apply_ctx *ctx, const char *path, const char *what)
{
	strbuf_addstr(ctx->report, path);
	strbuf_addf(ctx->report, ": %s", what);
	return MKS_EAPPLYFAIL;
}

/*
 * A delta's names, as libgit2 parsed them, must make sense before
 * libgit2 acts on them. Sets *po and *pn to its old and new paths
 * (the same entry when it names one file).
 */
static int check_names_of(struct apply_ctx *ctx, size_t i, const git_diff_delta *d,
			  struct touched **po, struct touched **pn)
{
	struct touched *o = touched_find(ctx, d->old_file.path);
	struct touched *nw = touched_find(ctx, d->new_file.path);

	if (!d->old_file.path && (nw || o)) {
		/* libgit2 reads every delta's old path, even a new file's */
		strbuf_addf(ctx->report, "%s: the patch's 'diff --git' line does not match "
			    "its file names", (nw ? nw : o)->path);
		return MKS_EAPPLYFAIL;
	}
	if (d->new_file.mode && d->status != GIT_DELTA_DELETED &&
	    d->new_file.mode != GIT_FILEMODE_BLOB &&
	    d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    d->new_file.mode != GIT_FILEMODE_LINK && d->new_file.mode != GIT_FILEMODE_COMMIT) {
		strbuf_addf(ctx->report, "%s: the patch gives it mode %o, which git does not use",
			    (nw ? nw : o)->path, d->new_file.mode);
		return MKS_EAPPLYFAIL;
	}
	if (o && nw && o != nw && d->status != GIT_DELTA_RENAMED &&
	    d->status != GIT_DELTA_COPIED) {
		/* libgit2 would read one file and write the other */
		strbuf_addf(ctx->report, "%s: the patch also calls it '%s' without renaming it",
			    o->path, nw->path);
		return MKS_EAPPLYFAIL;
	}
	if (!o || !nw) {
		/* libgit2 leaves a side unnamed only for odd headers; never guess it */
		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED || (!o && !nw)) {
			strbuf_addf(ctx->report, "file %zu of the patch does not name both its sides",
				    i + 1);
			return MKS_EAPPLYFAIL;
		}
		if (!nw)
			nw = o;
		if (!o)
			o = nw;
	}
	*po = o;
	*pn = nw;
	return 0;
}

/*
 * Files the patch modifies must be there, with the type it expects;
 * files it creates must not, and the directories above them must not
 * be files. libgit2 checks little of this (it prepends an "added" file
 * to one that already exists); `git apply` refuses all of it, so we
 * check first.
 */
static int check_structure(struct apply_ctx *ctx)
{
	size_t i, n = git_diff_num_deltas(ctx->diff);
	int ret;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);
		struct touched *o, *nw;
		const char *verb;

		if ((ret = check_names_of(ctx, i, d, &o, &nw)))
			return ret;
		switch (d->status) {
		case GIT_DELTA_ADDED:
			if (nw->kind == BASE_DIR && !nw->made)
				return fail(ctx, nw->path, "the patch creates it but the tree has a directory there");
			if (exists_now(nw))
				return fail(ctx, nw->path, "the patch creates it but the tree already has it");
			if ((ret = check_parents(ctx, nw->path)))
				return ret;
			nw->made = 1;
			nw->made_mode = d->new_file.mode;
			break;
		case GIT_DELTA_RENAMED:
		case GIT_DELTA_COPIED:
			verb = d->status == GIT_DELTA_RENAMED ? "renames" : "copies";
			if (!o->made && o->kind != BASE_FILE) {
				strbuf_addf(ctx->report, "%s: the patch %s it to '%s' but the tree %s",
					    o->path, verb, nw->path,
					    o->kind == BASE_DIR ? "has a directory there" : "does not have it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_type(ctx, o, d)))
				return ret;
			if (o == nw)
				break;
			if (nw->kind == BASE_DIR || exists_now(nw)) {
				strbuf_addf(ctx->report, "%s: the patch %s '%s' to it but the tree already has %s",
					    nw->path, verb, o->path,
					    nw->kind == BASE_DIR ? "a directory there" : "it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_parents(ctx, nw->path)))
				return ret;
			nw->made = 1;
			nw->made_mode = d->new_file.mode ? d->new_file.mode : d->old_file.mode;
			break;
		default:
			verb = d->status == GIT_DELTA_DELETED ? "deletes" : "modifies";
			if (!o->made && o->kind != BASE_FILE) {
				strbuf_addf(ctx->report, "%s: the patch %s it but the tree %s", o->path, verb,
					    o->kind == BASE_DIR ? "has a directory there" : "does not have it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_type(ctx, o, d)))
				return ret;
			break;
		}
	}
	return check_beyond(ctx);
}

/* Lines as (pointer, length) pairs into a file's content or the patch. */
struct span {
	const char *p;
	size_t n;
};

struct spans {
	struct span *v;
	size_t nr, alloc;
};

static void spans_push(struct spans *s, const char *p, size_t n)
{
	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr].p = p;
	s->v[s->nr].n = n;
	s->nr++;
}

static void spans_split(struct spans *s, const char *buf, size_t len)
{
	struct line_iter it;

	line_iter_init(&it, buf, len);
	while (line_iter_next(&it))
		spans_push(s, it.line, it.len);
}

static int span_eq(const struct span *a, const struct span *b)
{
	return a->n == b->n && !memcmp(a->p, b->p, a->n);
}

static int spans_match_at(const struct spans *img, size_t at, const struct spans *pre)
{
	size_t i;

	if (at > img->nr || pre->nr > img->nr - at)
		return 0;
	for (i = 0; i < pre->nr; i++)
		if (!span_eq(&img->v[at + i], &pre->v[i]))
			return 0;
	return 1;
}

/* Replace pre->nr lines at `at` by post. */
static void spans_splice(struct spans *img, size_t at, size_t remove, const struct spans *post)
{
	ALLOC_GROW(img->v, img->nr + post->nr, img->alloc);
	memmove(img->v + at + post->nr, img->v + at + remove,
		(img->nr - at - remove) * sizeof(*img->v));
	if (post->nr)
		memcpy(img->v + at, post->v, post->nr * sizeof(*post->v));
	img->nr = img->nr + post->nr - remove;
}

/*
 * Where `git apply` puts a hunk (its find_pos(), without fuzz): a hunk
 * that starts the file (old start 0 or 1) must match at the top, one
 * without context after its change must match at the end; any other
 * is searched for from the line the header names, nearest first,
 * alternating down and up. Returns 1 with *out set, or 0.
 */
static int find_hunk(const struct spans *img, const struct spans *pre, size_t line,
		     int at_start, int at_end, size_t *out)
{
	size_t down, up;

	if (at_start || at_end) {
		size_t at = at_start ? 0 : img->nr - pre->nr;

		if (pre->nr > img->nr && !at_start)
			return 0;
		if (at_end && at + pre->nr != img->nr)
			return 0;
		if (!spans_match_at(img, at, pre))
			return 0;
		*out = at;
		return 1;
	}
	if (line > img->nr)
		line = img->nr;
	if (spans_match_at(img, line, pre)) {
		*out = line;
		return 1;
	}
	for (down = up = line; down < img->nr || up > 0; ) {
		if (down < img->nr && spans_match_at(img, ++down, pre)) {
			*out = down;
			return 1;
		}
		if (up > 0 && spans_match_at(img, --up, pre)) {
			*out = up;
			return 1;
		}
	}
	return 0;
}

static void add_numbered(struct strbuf *sb, size_t lineno, char mark, const struct span *l)
{
	size_t n = l->n;

	if (n && l->p[n - 1] == '\n')
		n--;
	strbuf_addf(sb, "  %6zu %c", lineno, mark);
	strbuf_add_shown(sb, l->p, n, 0);
	strbuf_addch(sb, '\n');
}

/*
 * Describe a hunk that does not apply: the hunk, the lines it expects,
 * and what the tree has around that place, marking the lines that
 * differ, with line numbers of the tree's file.
 */
static void report_hunk(struct strbuf *sb, const char *path, size_t h, size_t nh,
			const git_diff_hunk *hunk, const struct spans *pre, const char *premark,
			const struct spans *orig, int at_start, int at_end)
{
	size_t first = hunk->old_start ? hunk->old_start : 1, i, lo, hi, k, at;
	size_t hlen = hunk->header_len;

	while (hlen && (hunk->header[hlen - 1] == '\n' || hunk->header[hlen - 1] == '\r'))
		hlen--;
	strbuf_addf(sb, "%s: hunk %zu of %zu (", path, h + 1, nh);
	strbuf_add_shown(sb, hunk->header, hlen, 0);
	strbuf_addstr(sb, ") does not apply\n");
	if (pre->nr) {
		strbuf_addf(sb, "the patch expects at lines %zu-%zu:\n", first, first + pre->nr - 1);
		for (i = 0; i < pre->nr; i++)
			add_numbered(sb, first + i, premark[i], &pre->v[i]);
	}
	if (first > orig->nr) {
		strbuf_addf(sb, "the tree's copy has only %zu lines\n", orig->nr);
		first = orig->nr + 1;
	}
	lo = first > REPORT_CONTEXT ? first - REPORT_CONTEXT : 1;
	hi = first + (pre->nr ? pre->nr - 1 : 0) + REPORT_CONTEXT;
	if (hi > orig->nr)
		hi = orig->nr;
	if (lo <= hi) {
		strbuf_addf(sb, "the tree has at lines %zu-%zu:\n", lo, hi);
		for (k = lo; k <= hi; k++) {
			int differs = k >= first && k - first < pre->nr &&
				      !span_eq(&orig->v[k - 1], &pre->v[k - first]);

			add_numbered(sb, k, differs ? '!' : ' ', &orig->v[k - 1]);
		}
	}
	/* a hunk anchored at an end of the file may still be found inside it: say why it does not count */
	if ((at_start || at_end) && pre->nr && find_hunk(orig, pre, first - 1, 0, 0, &at))
		strbuf_addf(sb, "the expected lines are at line %zu of the tree, but the hunk %s\n",
			    at + 1, at_start ? "starts the file and must match at its top" :
			    "has no context after its change and must match at the end of the file");
	strbuf_rtrim(sb);
}

/*
 * Run a text patch's hunks over `src` the way `git apply` does, so that
 * a failure is pinned to its hunk and a hunk that moved in the tree is
 * found. The patched content goes to `out`. When `moved` is non-NULL,
 * each hunk's new start line, as libgit2 must be told it to apply there,
 * is stored in moved[h] (0 when libgit2 would find it on its own).
 * Returns 0, MKS_EAPPLYFAIL with the report written, or -1.
 */
static int run_hunks(git_patch *patch, const char *path, const char *src, size_t srclen,
		     struct strbuf *out, struct strbuf *report, long *moved)
{
	struct spans img = { NULL, 0, 0 }, orig = { NULL, 0, 0 };
	struct spans pre = { NULL, 0, 0 }, post = { NULL, 0, 0 };
	char *premark = NULL;
	size_t premark_alloc = 0, nh = git_patch_num_hunks(patch), h, i;
	int ret = 0, err;

	spans_split(&img, src, srclen);
	spans_split(&orig, src, srclen);
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *hunk;
		size_t nl, at, natural;
		int last = 0;	/* bit 0: the previous line is in pre, bit 1: in post */
		int trailing = 0, at_start, at_end;

		if ((err = git_patch_get_hunk(&hunk, &nl, patch, h)) < 0) {
			ret = gitutil_error(err, "cannot read hunk %zu of '%s'", h + 1, path);
			goto cleanup;
		}
		pre.nr = post.nr = 0;
		for (i = 0; i < nl; i++) {
			const git_diff_line *l;
			struct span *s;

			if ((err = git_patch_get_line_in_hunk(&l, patch, h, i)) < 0) {
				ret = gitutil_error(err, "cannot read hunk %zu of '%s'", h + 1, path);
				goto cleanup;
			}
			switch (l->origin) {
			case GIT_DIFF_LINE_CONTEXT_EOFNL:
			case GIT_DIFF_LINE_ADD_EOFNL:
			case GIT_DIFF_LINE_DEL_EOFNL:
				/* the line before has no newline in the file */
				s = (last & 1) ? &pre.v[pre.nr - 1] : NULL;
				if (s && s->n && s->p[s->n - 1] == '\n')
					s->n--;
				s = (last & 2) ? &post.v[post.nr - 1] : NULL;
				if (s && s->n && s->p[s->n - 1] == '\n')
					s->n--;
				last = 0;
				break;
			case GIT_DIFF_LINE_CONTEXT:
				ALLOC_GROW(premark, pre.nr + 1, premark_alloc);
				premark[pre.nr] = ' ';
				spans_push(&pre, l->content, l->content_len);
				spans_push(&post, l->content, l->content_len);
				trailing++;
				last = 3;
				break;
			case GIT_DIFF_LINE_DELETION:
				ALLOC_GROW(premark, pre.nr + 1, premark_alloc);
				premark[pre.nr] = '-';
				spans_push(&pre, l->content, l->content_len);
				trailing = 0;
				last = 1;
				break;
			case GIT_DIFF_LINE_ADDITION:
				spans_push(&post, l->content, l->content_len);
				trailing = 0;
				last = 2;
				break;
			default:
				last = 0;
				break;
			}
		}
		at_start = hunk->old_start <= 1;
		at_end = !trailing;
		natural = hunk->new_start ? (size_t)hunk->new_start - 1 : 0;
		if (!find_hunk(&img, &pre, natural, at_start, at_end, &at)) {
			report_hunk(report, path, h, nh, hunk, &pre, premark, &orig, at_start, at_end);
			ret = MKS_EAPPLYFAIL;
			goto cleanup;
		}
		if (moved)
			moved[h] = at == (natural > img.nr ? img.nr : natural) ? 0 : (long)at + 1;
		spans_splice(&img, at, pre.nr, &post);
	}
	strbuf_reset(out);
	for (i = 0; i < img.nr; i++)
		strbuf_add(out, img.v[i].p, img.v[i].n);
cleanup:
	free(img.v);
	free(orig.v);
	free(pre.v);
	free(post.v);
	free(premark);
	return ret;
}

/* What a patch shows as a gitlink's content, as git apply makes it from the index. */
static void gitlink_text(struct strbuf *sb, const git_oid *id)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "Subproject commit %s\n", git_oid_tostr_s(id));
}

/* A hunk whose header must name another start line for libgit2 to apply it where git would. */
struct hunk_move {
	size_t delta, hunk;
	long new_start;
	long old_start, old_lines, new_lines;	/* to recognise its header in the text */
};

/*
 * Simulate delta i on the content the deltas before it left (or the
 * base tree's). Returns 0, MKS_EAPPLYFAIL with the report written, or -1.
 */
static int simulate_delta(struct apply_ctx *ctx, size_t i, struct hunk_move **moves,
			  size_t *nr_moves, size_t *alloc_moves)
{
	git_patch *patch = NULL;
	git_blob *blob = NULL;
	const git_diff_delta *d;
	struct touched *o, *nw;
	struct strbuf result = STRBUF_INIT, link = STRBUF_INIT;
	const char *src = "";
	size_t srclen = 0, h, nh;
	long *moved = NULL;
	int ret = 0, err;

	if ((err = git_patch_from_diff(&patch, ctx->diff, i)) < 0) {
		ret = gitutil_error(err, "cannot read file %zu of the patch", i + 1);
		goto cleanup;
	}
	d = git_patch_get_delta(patch);
	o = touched_find(ctx, d->old_file.path);
	nw = touched_find(ctx, d->new_file.path);
	if ((d->flags & GIT_DIFF_FLAG_BINARY) || (!o && !nw))
		goto cleanup;
	if (d->status != GIT_DELTA_ADDED && o) {
		if (o->has_sim && d->status != GIT_DELTA_RENAMED) {
			src = o->sim.buf;
			srclen = o->sim.len;
		} else if (o->kind == BASE_FILE && o->raw_mode == GIT_FILEMODE_COMMIT) {
			gitlink_text(&link, &o->id);
			src = link.buf;
			srclen = link.len;
		} else if (o->kind == BASE_FILE) {
			if ((err = git_blob_lookup(&blob, ctx->repo, &o->id)) < 0) {
				ret = gitutil_error(err, "cannot read '%s' from the tree", o->path);
				goto cleanup;
			}
			src = git_blob_rawcontent(blob);
			srclen = git_blob_rawsize(blob);
		} else {
			goto cleanup;	/* check_structure has reported it */
		}
	} else if (d->status == GIT_DELTA_ADDED && nw && nw->has_sim) {
		src = nw->sim.buf;
		srclen = nw->sim.len;
	}
	nh = git_patch_num_hunks(patch);
	moved = xcalloc(nh + 1, sizeof(*moved));
	ret = run_hunks(patch, o ? o->path : nw->path, src, srclen, &result, ctx->report, moved);
	if (ret)
		goto cleanup;
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *hunk;
		struct hunk_move *m;
		size_t lines;

		if (!moved[h] || git_patch_get_hunk(&hunk, &lines, patch, h) < 0)
			continue;
		ALLOC_GROW(*moves, *nr_moves + 1, *alloc_moves);
		m = &(*moves)[(*nr_moves)++];
		m->delta = i;
		m->hunk = h;
		m->new_start = moved[h];
		m->old_start = hunk->old_start;
		m->old_lines = hunk->old_lines;
		m->new_lines = hunk->new_lines;
	}
	if (d->status == GIT_DELTA_DELETED) {
		/* libgit2 removes a file without looking at it; git checks it is what the patch removes */
		if (result.len) {
			strbuf_addf(ctx->report, "%s: the patch deletes it but the tree's copy has lines "
				    "the patch does not remove", o->path);
			ret = MKS_EAPPLYFAIL;
		}
		goto cleanup;
	}
	if (nw) {
		strbuf_reset(&nw->sim);
		strbuf_add(&nw->sim, result.buf, result.len);
		nw->has_sim = 1;
	}
cleanup:
	free(moved);
	strbuf_release(&link);
	strbuf_release(&result);
	git_blob_free(blob);
	git_patch_free(patch);
	return ret;
}

/*
 * Write the diff text again with the moved hunks' start lines changed,
 * so that libgit2, which applies a hunk only at the line its header
 * names, puts it where `git apply` would. Returns 0, or -1 when the
 * text's sections cannot be matched with libgit2's deltas.
 */
static int move_hunks(struct strbuf *out, struct apply_ctx *ctx, const char *diff, size_t len,
		      const struct hunk_move *moves, size_t nr_moves)
{
	struct hunk_locs hl = { diff, NULL, 0, 0, 0, 0 };
	size_t i, j, pos = 0;
	int ret = 0;

	scan_diff(diff, len, locate_line, &hl);
	if (hl.sections != git_diff_num_deltas(ctx->diff)) {
		ret = -1;
		goto cleanup;
	}
	for (i = 0; i < nr_moves; i++) {
		const struct hunk_loc *loc = NULL;
		const struct hunk_range *r;

		for (j = 0; j < hl.nr; j++)
			if (hl.v[j].section == moves[i].delta && hl.v[j].hunk == moves[i].hunk)
				loc = &hl.v[j];
		if (!loc || loc->off < pos || loc->r.old_start != moves[i].old_start ||
		    loc->r.old_lines != moves[i].old_lines || loc->r.new_lines != moves[i].new_lines) {
			ret = -1;
			goto cleanup;
		}
		r = &loc->r;
		strbuf_add(out, diff + pos, loc->off - pos);
		strbuf_addstr(out, "@@ -");
		add_range(out, r->old_start, r->old_lines, r->old_has_count);
		strbuf_addstr(out, " +");
		add_range(out, moves[i].new_start, r->new_lines, r->new_has_count);
		strbuf_addstr(out, " @@");
		strbuf_add(out, r->tail, diff + loc->off + loc->len - r->tail);
		pos = loc->off + loc->len;
	}
	strbuf_add(out, diff + pos, len - pos);
cleanup:
	free(hl.v);
	return ret;
}

/*
 * The tree of only the touched paths that exist in the base, for libgit2
 * to apply onto. libgit2 reads a gitlink as a blob, so a gitlink's entry
 * points at a blob of its "Subproject commit <id>" text; fold_back()
 * turns the result into a gitlink again.
 */
static int build_small_tree(git_tree **out, struct apply_ctx *ctx)
{
	git_tree_update *up = xcalloc(ctx->nr ? ctx->nr : 1, sizeof(*up));
	struct strbuf link = STRBUF_INIT;
	size_t i, n = 0;
	git_oid id;
	int err = 0, ret = 0;

	for (i = 0; i < ctx->nr; i++) {
		if (ctx->t[i].kind != BASE_FILE)
			continue;
		up[n].action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&up[n].id, &ctx->t[i].id);
		up[n].filemode = ctx->t[i].mode;
		up[n].path = ctx->t[i].path;
		if (ctx->t[i].raw_mode == GIT_FILEMODE_COMMIT) {
			gitlink_text(&link, &ctx->t[i].id);
			if ((err = git_blob_create_from_buffer(&up[n].id, ctx->repo, link.buf,
							       link.len)) < 0)
				break;
		}
		n++;
	}
	if (err < 0 || (err = git_tree_create_updated(&id, ctx->repo, NULL, n, up)) < 0 ||
	    (err = git_tree_lookup(out, ctx->repo, &id)) < 0)
		ret = gitutil_error(err, "cannot build the tree of the patch's files");
	strbuf_release(&link);
	free(up);
	return ret;
}

/*
 * A gitlink's "content" in a patch is the line "Subproject commit <id>";
 * libgit2 stores that text as a blob and links to the blob, where git
 * apply links to <id>. Read <id> from the simulated content, as git's
 * add_index_file() does.
 */
static int gitlink_target(git_oid *out, struct apply_ctx *ctx, const char *path)
{
	static const char prefix[] = "Subproject commit ";
	const struct touched *t = touched_find(ctx, path);
	const size_t plen = sizeof(prefix) - 1;

	if (!t || !t->has_sim || t->sim.len < plen + GIT_OID_HEXSZ ||
	    memcmp(t->sim.buf, prefix, plen) ||
	    git_oid_fromstrn(out, t->sim.buf + plen, GIT_OID_HEXSZ) < 0) {
		git_error_clear();
		return fail(ctx, path, "corrupt patch for a submodule: its content is not "
			    "'Subproject commit <40-hex id>'");
	}
	return 0;
}

/*
 * Fold libgit2's result back into the full tree: the paths it has are
 * upserted (with their modes: exec bits, symlinks), the touched paths
 * it no longer has are removed. Emptied directories disappear.
 */
static int fold_back(git_oid *out, struct apply_ctx *ctx, git_index *idx)
{
	size_t n = git_index_entrycount(idx), i, nup = 0;
	git_tree_update *up = xcalloc(n + ctx->nr + 1, sizeof(*up));
	int err, ret = 0;

	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		struct touched *t = touched_find(ctx, e->path);

		if (t && t->kind == BASE_FILE && git_oid_equal(&t->id, &e->id) &&
		    t->raw_mode == (git_filemode_t)e->mode)
			continue;
		up[nup].action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&up[nup].id, &e->id);
		if (e->mode == GIT_FILEMODE_COMMIT &&
		    (ret = gitlink_target(&up[nup].id, ctx, e->path)))
			goto cleanup;
		up[nup].filemode = (git_filemode_t)e->mode;
		up[nup].path = e->path;
		nup++;
	}
	for (i = 0; i < ctx->nr; i++) {
		if (ctx->t[i].kind != BASE_FILE || git_index_get_bypath(idx, ctx->t[i].path, 0))
			continue;
		up[nup].action = GIT_TREE_UPDATE_REMOVE;
		up[nup].path = ctx->t[i].path;
		nup++;
	}
	if (!nup)
		git_oid_cpy(out, git_tree_id(ctx->base));
	else if ((err = git_tree_create_updated(out, ctx->repo, ctx->base, nup, up)) < 0)
		ret = gitutil_error(err, "cannot write the patched tree");
cleanup:
	free(up);
	return ret;
}

static int lookup_base_tree(git_tree **out, git_repository *repo, const git_oid *base)
{
	git_object *obj = NULL;
	int err;

	*out = NULL;
	if ((err = git_object_lookup(&obj, repo, base, GIT_OBJECT_ANY)) < 0)
		return gitutil_error(err, "cannot read tree '%s'", oid_short(base));
	err = git_object_peel((git_object **)out, obj, GIT_OBJECT_TREE);
	git_object_free(obj);
	if (err < 0)
		return gitutil_error(err, "'%s' is not a tree", oid_short(base));
	return 0;
}

/* Which file a libgit2 failure is most likely about, for the report. */
static const char *first_binary_path(git_diff *diff)
{
	size_t i;

	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->flags & GIT_DIFF_FLAG_BINARY)
			return d->new_file.path ? d->new_file.path : d->old_file.path;
	}
	return NULL;
}

/* The whole apply; with out NULL it only checks whether the diff applies. */
/*
 * Hold each .gitmodules the patch leaves (in any spelling, at any depth)
 * to the rules of an imported tree (treecheck_gitmodules()): git fsck
 * would reject the branch otherwise, and a clone might run its url.
 */
static int check_gitmodules(struct apply_ctx *ctx, git_index *idx)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < ctx->nr && !ret; i++) {
		const char *path = ctx->t[i].path, *slash = strrchr(path, '/');
		const char *name = slash ? slash + 1 : path;
		const git_index_entry *e = git_index_get_bypath(idx, path, 0);
		git_blob *blob = NULL;
		int err;

		if (!e || !treecheck_is_gitmodules(name, strlen(name)))
			continue;
		strbuf_reset(&why);
		if (e->mode == GIT_FILEMODE_LINK) {
			strbuf_addstr(&why, "a .gitmodules that is a symbolic link");
		} else if ((err = git_blob_lookup(&blob, ctx->repo, &e->id)) < 0) {
			ret = gitutil_error(err, "cannot read the new '%s'", shown(path));
			break;
		} else if ((size_t)git_blob_rawsize(blob) > TREECHECK_GITMODULES_MAX) {
			strbuf_addf(&why, "more than %u bytes: too large to check",
				    TREECHECK_GITMODULES_MAX);
		} else {
			treecheck_gitmodules(git_blob_rawcontent(blob), git_blob_rawsize(blob), &why);
		}
		git_blob_free(blob);
		if (why.len) {
			strbuf_addf(ctx->report, "%s: git fsck would reject it: %s\n", shown(path),
				    why.buf);
			ret = MKS_EUNSAFE;
		}
	}
	strbuf_release(&why);
	return ret;
}

static int run_apply(git_oid *out, git_repository *repo, const git_oid *base, const char *diff,
		     size_t len, struct strbuf *report)
{
	struct apply_ctx ctx = { repo, NULL, NULL, NULL, 0, 0, report };
	struct hunk_move *moves = NULL;
	size_t nr_moves = 0, alloc_moves = 0, i;
	struct strbuf moved_text = STRBUF_INIT;
	git_diff *moved_diff = NULL;
	git_tree *small = NULL;
	git_index *idx = NULL;
	int ret, err;

	if ((ret = diff_check_paths(diff, len, report)) || (ret = check_names(diff, len, report)) ||
	    (ret = diff_check_binary(diff, len, report)))
		return ret;
	if ((ret = lookup_base_tree(&ctx.base, repo, base)))
		goto cleanup;
	git_error_clear();	/* libgit2 may fail without a message; never show a stale one */
	err = git_diff_from_buffer(&ctx.diff, diff, len);
	if (err == GIT_ENOTFOUND || (!err && !git_diff_num_deltas(ctx.diff))) {
		strbuf_addstr(report, "the patch changes no file (it has no 'diff --git' section)");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if (err < 0) {
		const git_error *e = git_error_last();

		strbuf_addf(report, "cannot parse the patch: %s",
			    e && e->message ? e->message : "malformed diff");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if ((ret = collect_paths(&ctx)) || (ret = check_structure(&ctx)))
		goto cleanup;
	for (i = 0; i < git_diff_num_deltas(ctx.diff); i++)
		if ((ret = simulate_delta(&ctx, i, &moves, &nr_moves, &alloc_moves)))
			goto cleanup;
	if (nr_moves) {
		if (move_hunks(&moved_text, &ctx, diff, len, moves, nr_moves) < 0 ||
		    git_diff_from_buffer(&moved_diff, moved_text.buf, moved_text.len) < 0 ||
		    git_diff_num_deltas(moved_diff) != git_diff_num_deltas(ctx.diff)) {
			strbuf_addstr(report, "the patch's hunks are not where it says and "
				      "cannot be moved: its file sections are ambiguous");
			ret = MKS_EAPPLYFAIL;
			goto cleanup;
		}
	}
	if ((ret = build_small_tree(&small, &ctx)))
		goto cleanup;
	err = git_apply_to_tree(&idx, repo, small, moved_diff ? moved_diff : ctx.diff, NULL);
	if (err == GIT_EAPPLYFAIL) {
		const git_error *e = git_error_last();
		const char *bin = first_binary_path(ctx.diff);

		if (bin)
			strbuf_addf(report, "%s: ", bin);
		strbuf_addf(report, "the patch does not apply: %s",
			    e && e->message ? e->message : "libgit2 gives no reason");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if (err < 0) {
		ret = gitutil_error(err, "cannot apply the patch");
		goto cleanup;
	}
	if ((ret = check_gitmodules(&ctx, idx)))
		goto cleanup;
	if (out)
		ret = fold_back(out, &ctx, idx);
cleanup:
	git_index_free(idx);
	git_tree_free(small);
	git_diff_free(moved_diff);
	strbuf_release(&moved_text);
	free(moves);
	apply_ctx_release(&ctx);
	git_diff_free(ctx.diff);
	git_tree_free(ctx.base);
	return ret;
}

int apply_diff(git_oid *out, git_repository *repo, const git_oid *base,
	       const char *diff, size_t len, struct strbuf *report)
{
	return run_apply(out, repo, base, diff, len, report);
}

int apply_is_present(git_repository *repo, const git_oid *base, const char *diff, size_t len)
{
	struct strbuf report = STRBUF_INIT, rev = STRBUF_INIT;
	git_tree *tree = NULL;
	git_oid result;
	int ret;

	ret = run_apply(&result, repo, base, diff, len, &report);
	if (ret == 0) {
		/* it applies; it is in already only when applying changes nothing (a mode change) */
		if ((ret = lookup_base_tree(&tree, repo, base)) == 0)
			ret = git_oid_equal(&result, git_tree_id(tree));
		goto cleanup;
	}
	if (ret == MKS_EUNSAFE) {
		ret = error("%s", report.buf);
		goto cleanup;
	}
	if (ret != MKS_EAPPLYFAIL) {
		ret = -1;
		goto cleanup;
	}
	if (diff_reverse(diff, len, &rev) < 0) {
		ret = 0;
		goto cleanup;
	}
	strbuf_reset(&report);
	ret = run_apply(NULL, repo, base, rev.buf, rev.len, &report);
	if (ret == 0)
		ret = 1;
	else if (ret == MKS_EAPPLYFAIL)
		ret = 0;
	else
		ret = -1;
cleanup:
	git_tree_free(tree);
	strbuf_release(&rev);
	strbuf_release(&report);
	return ret;
}

/* diff/diffreverse.c: the reverse of a diff, to tell whether its change is in a tree already. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/apply.h"
#include "diff/diffscan.h"

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

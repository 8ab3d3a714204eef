/* diff/diffbinary.c: checking "GIT binary patch" hunks as git does, before libgit2 inflates them. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "diff/apply.h"
#include "diff/diffscan.h"

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

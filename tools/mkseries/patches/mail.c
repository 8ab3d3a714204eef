/* patches/mail.c: read patch mails (git format-patch files, b4 mboxes) into struct mail_patch. */
/*
 * Why GMime does the mail work: RFC 2047 encoded words, quoted-printable
 * and base64 bodies, charset conversion and address parsing each look
 * like an afternoon's work and each hides years of corner cases (encoded
 * words split across folds, soft line breaks, 8-bit headers with no
 * charset, "Last, First" <addr>, broken encoders on mailing lists). A
 * patch that is decoded subtly wrong still applies, just not as its
 * author wrote it, so we leave this to a library that has met those
 * mails already.
 *
 * One thing we do not hand to GMime is finding where a mail starts in an
 * mbox: its mbox mode cuts at every line beginning with "From ", even
 * one in the middle of a commit message ("From now on ..."), and then
 * loses the mails after it. We split as git mailsplit does, only at
 * lines that look like a real separator (a time and a year), and give
 * GMime one mail at a time. Bodies are not ">From " unquoted, which is
 * what git am and b4 am expect.
 *
 * pcre2 matches the lines that carry meaning: trailers, subject
 * prefixes, in-body headers and the stable "commit X upstream." line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gmime/gmime.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "lib/util.h"
#include "patches/mail.h"

/* Regular expressions, compiled on first use and kept for the process. */
enum {
	RE_TRAILER,	/* "Key: value" */
	RE_UPSTREAM,	/* "commit X upstream." / "[ Upstream commit X ]" */
	RE_PREFIX,	/* a leading "Re:"/"Fwd:" or "[...]" of a subject */
	RE_VERSION,	/* "v2", "PATCHv2" inside a bracket */
	RE_COUNT,	/* "3/5" inside a bracket */
	RE_PATCHWORD,	/* "PATCH", "RFC" inside a bracket */
	RE_INBODY,	/* "From:", "Subject:", "Date:" at the top of a body */
	RE_NR
};

static const struct {
	const char *pattern;
	uint32_t flags;
} re_src[RE_NR] = {
	/* A key starts with a letter; "https://..." is a URL, not a trailer. */
	[RE_TRAILER] = { "^([A-Za-z][A-Za-z0-9-]*):(?!//)(.*)$", 0 },
	[RE_UPSTREAM] = { "^[ \\t]*(?:commit[ \\t]+([0-9a-f]{12,40})[ \\t]+upstream\\.?"
			  "|\\[[ \\t]*upstream[ \\t]+commit[ \\t]+([0-9a-f]{12,40})[ \\t]*\\])[ \\t]*$",
			  PCRE2_CASELESS },
	[RE_PREFIX] = { "^ ?(?:(?:re|fwd)[ \\t]*:|\\[([^\\]]*)\\])", PCRE2_CASELESS },
	[RE_VERSION] = { "^(?:patch|rfc)?v([0-9]{1,6})$", PCRE2_CASELESS },
	[RE_COUNT] = { "^([0-9]{1,6})/([0-9]{1,6})$", 0 },
	[RE_PATCHWORD] = { "^(?:patch|rfc)", PCRE2_CASELESS },
	[RE_INBODY] = { "^(from|subject|date):[ \\t]*(.*)$", PCRE2_CASELESS },
};

static pcre2_code *re_code[RE_NR];
static pcre2_match_context *re_mctx;

static const pcre2_code *re_get(int which)
{
	int err;
	PCRE2_SIZE off;

	if (re_code[which])
		return re_code[which];
	re_code[which] = pcre2_compile((PCRE2_SPTR)re_src[which].pattern, PCRE2_ZERO_TERMINATED,
				       re_src[which].flags | PCRE2_DOLLAR_ENDONLY, &err, &off, NULL);
	if (!re_code[which])
		BUG("pattern %d does not compile at offset %zu (error %d)", which, (size_t)off, err);
	if (!re_mctx) {
		/* The patterns are linear; the limit only guards against surprises. */
		re_mctx = pcre2_match_context_create(NULL);
		pcre2_set_match_limit(re_mctx, 1000000);
	}
	return re_code[which];
}

/*
 * Match pattern `which` against s[0..len). On a match, fill up to `n`
 * (start, end) pairs of ovec (unset groups get start == end == -1) and
 * return 1; return 0 otherwise (a hit limit counts as no match).
 */
static int re_match(int which, const char *s, size_t len, size_t *ovec, int n)
{
	const pcre2_code *re = re_get(which);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	int rc, i;

	if (!md)
		die("out of memory");
	rc = pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, md, re_mctx);
	if (rc > 0 && ovec) {
		PCRE2_SIZE *v = pcre2_get_ovector_pointer(md);
		uint32_t count = pcre2_get_ovector_count(md);

		for (i = 0; i < n; i++) {
			if ((uint32_t)i < count && v[2 * i] != PCRE2_UNSET) {
				ovec[2 * i] = v[2 * i];
				ovec[2 * i + 1] = v[2 * i + 1];
			} else {
				ovec[2 * i] = ovec[2 * i + 1] = (size_t)-1;
			}
		}
	}
	pcre2_match_data_free(md);
	return rc > 0;
}

static GMimeParserOptions *mime_options;

static void mail_init(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	g_mime_init();
	/* Mailing lists carry sloppy encoders: decode what can be decoded. */
	mime_options = g_mime_parser_options_new();
	g_mime_parser_options_set_rfc2047_compliance_mode(mime_options, GMIME_RFC_COMPLIANCE_LOOSE);
	g_mime_parser_options_set_address_compliance_mode(mime_options, GMIME_RFC_COMPLIANCE_LOOSE);
	g_mime_parser_options_set_parameter_compliance_mode(mime_options,
							    GMIME_RFC_COMPLIANCE_LOOSE);
}

/* Lines of a buffer: [*start, *start + *len) without its newline; *pos moves on. */
static int next_line(const char *buf, size_t size, size_t *pos, const char **start, size_t *len)
{
	const char *nl;

	if (*pos >= size)
		return 0;
	*start = buf + *pos;
	nl = memchr(*start, '\n', size - *pos);
	*len = nl ? (size_t)(nl - *start) : size - *pos;
	*pos += *len + (nl ? 1 : 0);
	return 1;
}

static int is_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\f' && s[i] != '\v')
			return 0;
	return 1;
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A copy of s[0..len) with spaces around it removed. */
static char *xstrndup_trim(const char *s, size_t len)
{
	while (len && is_space(*s)) {
		s++;
		len--;
	}
	while (len && is_space(s[len - 1]))
		len--;
	return xstrndup(s, len);
}

/* A malloc()ed copy of s, with invalid UTF-8 replaced (U+FFFD). */
static char *utf8_dup(const char *s)
{
	char *valid, *ret;

	if (g_utf8_validate(s, -1, NULL))
		return xstrdup(s);
	valid = g_utf8_make_valid(s, -1);
	ret = xstrdup(valid);
	g_free(valid);
	return ret;
}

/* GLib-allocated string into a malloc()ed, valid UTF-8 one; frees the original. */
static char *from_glib(char *s)
{
	char *ret;

	if (!s)
		return NULL;
	ret = utf8_dup(s);
	g_free(s);
	return ret;
}

static int charset_is_utf8(const char *charset)
{
	const char *canon;

	if (!charset)
		return 1;
	canon = g_mime_charset_canon_name(charset);
	return !g_ascii_strcasecmp(canon, "utf-8") || !g_ascii_strcasecmp(canon, "us-ascii") ||
	       !g_ascii_strcasecmp(canon, "ascii");
}

/*
 * Text of s[0..len) (no NUL inside) in UTF-8. The declared charset is
 * trusted when iconv knows it; otherwise, and for UTF-8 that is not,
 * GMime guesses from its fallback charsets (ending with Latin-1, which
 * always converts).
 */
static char *to_utf8(const char *s, size_t len, const char *charset)
{
	char *out = NULL;

	if (charset_is_utf8(charset) && g_utf8_validate(s, len, NULL))
		return xstrndup(s, len);
	if (!charset_is_utf8(charset)) {
		iconv_t cd = g_mime_iconv_open("UTF-8", charset);

		if (cd != (iconv_t)-1) {
			out = g_mime_iconv_strndup(cd, s, len);
			g_mime_iconv_close(cd);
		}
	}
	if (!out)
		out = g_mime_utils_decode_8bit(mime_options, s, len);
	return from_glib(out);
}

/* Unfold a header value and collapse runs of white space into one space. */
static char *collapse_space(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	int pending = 0;

	for (; *s; s++) {
		if (is_space(*s)) {
			pending = sb.len > 0;
			continue;
		}
		if (pending)
			strbuf_addch(&sb, ' ');
		pending = 0;
		strbuf_addch(&sb, *s);
	}
	return strbuf_detach(&sb, NULL);
}

/* Look inside one "[...]" of a subject for vN, m/n and PATCH/RFC. */
static void subject_bracket(const char *s, size_t len, int *version, int *number, int *total,
			    int *patchword)
{
	size_t i = 0;

	while (i < len) {
		size_t start, ov[6];

		while (i < len && is_space(s[i]))
			i++;
		start = i;
		while (i < len && !is_space(s[i]))
			i++;
		if (i == start)
			break;
		if (!*version && re_match(RE_VERSION, s + start, i - start, ov, 2))
			*version = atoi(s + start + ov[2]);
		if (!*number && !*total && re_match(RE_COUNT, s + start, i - start, ov, 3)) {
			*number = atoi(s + start + ov[2]);
			*total = atoi(s + start + ov[4]);
		}
		if (re_match(RE_PATCHWORD, s + start, i - start, NULL, 0))
			*patchword = 1;
	}
}

char *subject_clean(const char *subject, int *version, int *number, int *total)
{
	char *flat = collapse_space(subject ? subject : "");
	const char *p = flat, *end = flat + strlen(flat);
	int v = 0, n = 0, t = 0, patchword = 0;
	size_t ov[4];
	char *ret;

	while (re_match(RE_PREFIX, p, end - p, ov, 2)) {
		if (ov[2] != (size_t)-1)
			subject_bracket(p + ov[2], ov[3] - ov[2], &v, &n, &t, &patchword);
		p += ov[1];
		while (is_space(*p))
			p++;
	}
	if (!v && patchword)
		v = 1;
	if (version)
		*version = v;
	if (number)
		*number = n;
	if (total)
		*total = t;
	ret = xstrdup(p);
	free(flat);
	return ret;
}

void trailers_free(struct trailer *t, size_t nr)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < nr; i++) {
		free(t[i].key);
		free(t[i].value);
	}
	free(t);
}

size_t trailers_parse(struct trailer **out, const char *message, size_t *body_len)
{
	struct trailer *t = NULL;
	size_t nr = 0, alloc = 0;
	size_t size = message ? strlen(message) : 0;
	size_t pos = 0, para = 0, para_end = 0, llen;
	const char *line;
	int prev_blank = 1, last = 0; /* last line kind: 0 none, 1 trailer, 2 note */
	int in_note = 0, ok = 1;

	*out = NULL;
	if (body_len)
		*body_len = size;
	/* The last paragraph: after the last blank line that precedes text. */
	while (next_line(message, size, &pos, &line, &llen)) {
		if (is_blank(line, llen)) {
			prev_blank = 1;
			continue;
		}
		if (prev_blank)
			para = line - message;
		prev_blank = 0;
		para_end = pos;
	}
	if (para_end <= para)
		return 0;

	pos = para;
	while (ok && next_line(message, para_end, &pos, &line, &llen)) {
		size_t ov[6];

		if (in_note) {
			/* A note may wrap; it ends with its closing bracket. */
			while (llen && is_space(line[llen - 1]))
				llen--;
			in_note = !(llen && line[llen - 1] == ']');
		} else if (is_space(line[0])) {
			if (last == 1) {
				char *more = xstrndup_trim(line, llen);
				char *joined = *t[nr - 1].value ?
					xstrfmt("%s %s", t[nr - 1].value, more) : xstrdup(more);

				free(t[nr - 1].value);
				t[nr - 1].value = joined;
				free(more);
			} else if (last != 2) {
				ok = 0;
			}
		} else if (line[0] == '[') {
			while (llen && is_space(line[llen - 1]))
				llen--;
			in_note = line[llen - 1] != ']';
			last = 2;
		} else if (re_match(RE_TRAILER, line, llen, ov, 3)) {
			ALLOC_GROW(t, nr + 1, alloc);
			t[nr].key = xstrndup(line + ov[2], ov[3] - ov[2]);
			t[nr].value = xstrndup_trim(line + ov[4], ov[5] - ov[4]);
			nr++;
			last = 1;
		} else {
			ok = 0;
		}
	}
	if (!ok || in_note || !nr) {
		trailers_free(t, nr);
		return 0;
	}
	*out = t;
	if (body_len)
		*body_len = para;
	return nr;
}

const char *mail_trailer(const struct mail_patch *p, const char *key, size_t nth)
{
	size_t i;

	for (i = 0; i < p->nr_trailers; i++)
		if (!strcasecmp(p->trailers[i].key, key) && nth-- == 0)
			return p->trailers[i].value;
	return NULL;
}

static void mail_patch_release(struct mail_patch *p)
{
	if (!p)
		return;
	free(p->author_name);
	free(p->author_email);
	free(p->message_id);
	free(p->subject);
	free(p->message);
	trailers_free(p->trailers, p->nr_trailers);
	free(p->upstream);
	free(p->diff);
	free(p->source_commit);
	memset(p, 0, sizeof(*p));
}

void mail_patches_free(struct mail_patch *p, size_t nr)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < nr; i++)
		mail_patch_release(&p[i]);
	free(p);
}

/*
 * git mailsplit's test for an mbox separator: "From " and, near the end,
 * a time ("12:34:56") followed by a year after 1990. A commit message line
 * "From now on ..." is not one.
 */
static int is_from_line(const char *line, size_t len)
{
	const char *colon;
	long year;

	if (len < 19 || memcmp(line, "From ", 5))
		return 0;
	for (colon = line + len - 1; colon > line + 5 && *colon != ':'; colon--)
		;
	if (colon - line < 9 || line + len - colon < 4)
		return 0;
	if (!g_ascii_isdigit(colon[-4]) || !g_ascii_isdigit(colon[-2]) ||
	    !g_ascii_isdigit(colon[-1]) || !g_ascii_isdigit(colon[1]) ||
	    !g_ascii_isdigit(colon[2]))
		return 0;
	year = 0;
	for (colon += 3; colon < line + len && *colon == ' '; colon++)
		;
	for (; colon < line + len && g_ascii_isdigit(*colon) && year < 100000; colon++)
		year = year * 10 + (*colon - '0');
	return year > 90;
}

void mail_split_mbox(struct strvec *mails, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *start = NULL;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t line_len = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (is_from_line(p, line_len)) {
			if (start) {
				char *m = xstrndup(start, p - start);

				strvec_push(mails, m);
				free(m);
			}
			start = p;
		}
		p = eol ? eol + 1 : end;
	}
	if (start) {
		char *m = xstrndup(start, end - start);

		strvec_push(mails, m);
		free(m);
	}
}

/* Whether the header of one mail's text (up to its first empty line) has a Message-Id. */
static int header_has_message_id(const char *p, const char *end)
{
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t line_len = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (!line_len || (line_len == 1 && *p == '\r'))
			return 0;
		if (line_len >= 11 && !g_ascii_strncasecmp(p, "Message-Id:", 11))
			return 1;
		p = eol ? eol + 1 : end;
	}
	return 0;
}

int mail_mbox_has_message_id(const char *buf, size_t len)
{
	struct strvec mails = STRVEC_INIT;
	size_t i;
	int ret = 0;

	mail_split_mbox(&mails, buf, len);
	if (!mails.nr)
		ret = header_has_message_id(buf, buf + len);
	for (i = 0; !ret && i < mails.nr; i++)
		ret = header_has_message_id(mails.v[i], mails.v[i] + strlen(mails.v[i]));
	strvec_clear(&mails);
	return ret;
}

/* The commit id of git format-patch's "From <sha> Mon Sep 17 00:00:00 2001". */
static char *source_commit_of(const char *line, size_t len)
{
	static const char magic[] = " Mon Sep 17 00:00:00 2001";
	char *ret;
	size_t i, idlen = len > 5 + sizeof(magic) - 1 ? len - 5 - (sizeof(magic) - 1) : 0;

	if (idlen != 40 || memcmp(line + 5 + idlen, magic, sizeof(magic) - 1))
		return NULL;
	for (i = 0; i < idlen; i++)
		if (!g_ascii_isxdigit(line[5 + i]))
			return NULL;
	ret = xstrndup(line + 5, idlen);
	for (i = 0; i < idlen; i++)
		ret[i] = g_ascii_tolower(ret[i]);
	return ret;
}

/* Collect the decoded bytes of the text parts, in order, and the first charset. */
static void collect_text(GMimeObject *obj, struct strbuf *body, const char **charset, int depth)
{
	GMimeContentType *ct;
	GMimeDataWrapper *content;
	GMimeStream *stream;
	GByteArray *bytes;

	if (depth > 16)
		return;
	if (GMIME_IS_MULTIPART(obj)) {
		GMimeMultipart *mp = GMIME_MULTIPART(obj);
		int i, n = g_mime_multipart_get_count(mp);

		for (i = 0; i < n; i++)
			collect_text(g_mime_multipart_get_part(mp, i), body, charset, depth + 1);
		return;
	}
	if (!GMIME_IS_PART(obj))
		return;
	ct = g_mime_object_get_content_type(obj);
	if (ct && !g_mime_content_type_is_type(ct, "text", "*"))
		return;
	content = g_mime_part_get_content(GMIME_PART(obj));
	if (!content)
		return;
	stream = g_mime_stream_mem_new();
	g_mime_data_wrapper_write_to_stream(content, stream);
	bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream));
	if (bytes && bytes->len) {
		if (body->len && body->buf[body->len - 1] != '\n')
			strbuf_addch(body, '\n');
		strbuf_add(body, bytes->data, bytes->len);
		if (!*charset)
			*charset = g_mime_object_get_content_type_parameter(obj, "charset");
	}
	g_object_unref(stream);
}

/* The first mailbox of a parsed address list: name (may be "") and address. */
static int first_mailbox(InternetAddressList *list, const char **name, const char **addr)
{
	int i, n = list ? internet_address_list_length(list) : 0;

	for (i = 0; i < n; i++) {
		InternetAddress *a = internet_address_list_get_address(list, i);

		if (INTERNET_ADDRESS_IS_GROUP(a)) {
			if (first_mailbox(internet_address_group_get_members(INTERNET_ADDRESS_GROUP(a)),
					  name, addr))
				return 1;
		} else if (INTERNET_ADDRESS_IS_MAILBOX(a)) {
			const char *e = internet_address_mailbox_get_addr(INTERNET_ADDRESS_MAILBOX(a));

			if (e && *e) {
				*name = internet_address_get_name(a);
				*addr = e;
				return 1;
			}
		}
	}
	return 0;
}

/* Set the author from a parsed From: value; git uses the address when there is no name. */
static int set_author(struct mail_patch *p, InternetAddressList *list)
{
	const char *name = NULL, *addr = NULL;

	if (!first_mailbox(list, &name, &addr))
		return -1;
	free(p->author_name);
	free(p->author_email);
	p->author_email = utf8_dup(addr);
	p->author_name = collapse_space(name && *name ? name : addr);
	if (!g_utf8_validate(p->author_name, -1, NULL)) {
		char *valid = utf8_dup(p->author_name);

		free(p->author_name);
		p->author_name = valid;
	}
	return 0;
}

static void set_date(struct mail_patch *p, GDateTime *dt)
{
	p->date = g_date_time_to_unix(dt);
	p->tz_offset = (int)(g_date_time_get_utc_offset(dt) / G_TIME_SPAN_MINUTE);
}

/*
 * git am's in-body headers: "From:", "Subject:" and "Date:" lines at the
 * top of the body (blank lines before them skipped), folded lines going
 * on with the header before, ended by a blank line. Their raw values go
 * to vals[0..2] (NULL when absent). Returns where the message starts.
 */
static size_t parse_inbody(const char *body, size_t size, char *vals[3])
{
	struct strbuf v[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	int seen[3] = { 0, 0, 0 }, cur = -1, i;
	size_t pos = 0, start = 0, llen, ov[6];
	const char *line;

	while (next_line(body, size, &pos, &line, &llen)) {
		if (is_blank(line, llen)) {
			if (cur < 0)
				continue;
			start = pos;
			break;
		}
		if (cur >= 0 && (line[0] == ' ' || line[0] == '\t')) {
			strbuf_addch(&v[cur], ' ');
			strbuf_add(&v[cur], line, llen);
			start = pos;
			continue;
		}
		if (!re_match(RE_INBODY, line, llen, ov, 3))
			break;
		switch (g_ascii_tolower(line[0])) {
		case 'f':
			cur = 0;
			break;
		case 's':
			cur = 1;
			break;
		default:
			cur = 2;
			break;
		}
		seen[cur] = 1;
		strbuf_reset(&v[cur]);
		strbuf_add(&v[cur], line + ov[4], ov[5] - ov[4]);
		start = pos;
	}
	for (i = 0; i < 3; i++) {
		vals[i] = seen[i] ? strbuf_detach(&v[i], NULL) : NULL;
		strbuf_release(&v[i]);
	}
	return cur < 0 ? 0 : start;
}

static int read_count(const char **p, const char *end, long *out)
{
	long n = 0;
	const char *start = *p;

	while (*p < end && g_ascii_isdigit(**p)) {
		if (n < 1000000000)
			n = n * 10 + (**p - '0');
		(*p)++;
	}
	*out = n;
	return *p > start;
}

/* The old and new line counts of a hunk header "@@ -a[,b] +c[,d] @@". */
static int hunk_counts(const char *s, size_t len, long *old_nr, long *new_nr)
{
	const char *p = s + 4, *end = s + len;
	long start, counts[2];
	int i;

	if (len < 4 || memcmp(s, "@@ -", 4))
		return 0;
	for (i = 0; i < 2; i++) {
		if (i == 1) {
			if (end - p < 2 || memcmp(p, " +", 2))
				return 0;
			p += 2;
		}
		counts[i] = 1;
		if (!read_count(&p, end, &start))
			return 0;
		if (p < end && *p == ',') {
			p++;
			if (!read_count(&p, end, &counts[i]))
				return 0;
		}
	}
	if (end - p < 3 || memcmp(p, " @@", 3))
		return 0;
	*old_nr = counts[0];
	*new_nr = counts[1];
	return 1;
}

/*
 * Where the diff d[0..len) ends: before the "-- " line of the mail's
 * signature, without blank lines after the last hunk. Hunks are walked
 * by their line counts, so a removed line "- " (written "-- ") inside a
 * hunk is not taken for the signature.
 */
static size_t diff_span(const char *d, size_t len)
{
	size_t pos = 0, end = 0, llen;
	long old_left = 0, new_left = 0;
	const char *line;
	int binary = 0, prev_data = 0;	/* in a "GIT binary patch"; the line before was data */

	while (next_line(d, len, &pos, &line, &llen)) {
		if (old_left > 0 || new_left > 0) {
			char c = llen ? line[0] : ' ';

			if (c == ' ') {
				old_left--;
				new_left--;
			} else if (c == '-') {
				old_left--;
			} else if (c == '+') {
				new_left--;
			} else if (c != '\\') {
				/* A short hunk: this line is outside it. */
				old_left = new_left = 0;
				goto outside;
			}
			end = pos;
			continue;
		}
outside:
		if (llen == 3 && !memcmp(line, "-- ", 3))
			break;
		if (llen >= 11 && !memcmp(line, "diff --git ", 11))
			binary = 0;
		else if (llen == 16 && !memcmp(line, "GIT binary patch", 16))
			binary = 1;
		hunk_counts(line, llen, &old_left, &new_left);
		/* the empty line that ends a binary hunk belongs to it, even the last one */
		if (!is_blank(line, llen) || (binary && prev_data && !llen))
			end = pos;
		prev_data = binary && llen;
	}
	return end;
}

/* Message text: no blank lines before or after it, one final newline ("" when empty). */
static char *message_tidy(const char *text)
{
	size_t size = strlen(text), pos = 0, llen, first = size, last = 0;
	const char *line;

	while (next_line(text, size, &pos, &line, &llen)) {
		if (is_blank(line, llen))
			continue;
		if (first == size)
			first = line - text;
		last = line - text + llen;
	}
	if (first >= last)
		return xstrdup("");
	return xstrfmt("%.*s\n", (int)(last - first), text + first);
}

static char *upstream_of(const char *message)
{
	size_t pos = 0, llen, ov[6], i;
	const char *line;
	char *id;

	while (next_line(message, strlen(message), &pos, &line, &llen)) {
		if (is_blank(line, llen))
			continue;
		if (!re_match(RE_UPSTREAM, line, llen, ov, 3))
			return NULL;
		i = ov[2] != (size_t)-1 ? 2 : 4;
		id = xstrndup(line + ov[i], ov[i + 1] - ov[i]);
		for (i = 0; id[i]; i++)
			id[i] = g_ascii_tolower(id[i]);
		return id;
	}
	return NULL;
}

/*
 * Parse one mail (headers and body, without its mbox separator) into p.
 * Returns 0, 1 when the mail carries no diff (dropped), or -1 (printed).
 */
/* Where the diff starts in body: its first "diff --git " line. 0 when there is none. */
static int find_diff(const struct strbuf *body, size_t *diff_start)
{
	size_t pos = 0, llen;
	const char *line;

	while (next_line(body->buf, body->len, &pos, &line, &llen))
		if (llen >= 11 && !memcmp(line, "diff --git ", 11)) {
			*diff_start = line - body->buf;
			return 1;
		}
	return 0;
}

/* The author: an in-body From: (raw, in `charset`) wins over the mail's. */
static int take_author(struct mail_patch *p, GMimeMessage *msg, const char *inbody,
		       const char *charset, const char *name, size_t index)
{
	const char *from = g_mime_object_get_header(GMIME_OBJECT(msg), "From");
	InternetAddressList *list;
	char *text;
	int ret = 0;

	if (!inbody && !from)
		return error("%s: mail %zu: no From header", name, index);
	if (!inbody) {
		if (set_author(p, g_mime_message_get_from(msg)) < 0)
			return error("%s: mail %zu: cannot parse From header '%s'", name, index,
				     from);
		return 0;
	}
	text = to_utf8(inbody, strlen(inbody), charset);
	list = internet_address_list_parse(mime_options, text);
	if (set_author(p, list) < 0)
		ret = error("%s: mail %zu: cannot parse in-body From '%s'", name, index, text);
	if (list)
		g_object_unref(list);
	free(text);
	return ret;
}

/* The subject: numbering comes from the mail's, unless the in-body one has it. */
static int take_subject(struct mail_patch *p, GMimeMessage *msg, const char *inbody,
			const char *charset, const char *name, size_t index)
{
	const char *hsubject = g_mime_message_get_subject(msg);
	char *text, *decoded;
	int v, n, t;

	if (!hsubject && !inbody)
		return error("%s: mail %zu: no Subject header", name, index);
	if (hsubject) {
		text = utf8_dup(hsubject);
		p->subject = subject_clean(text, &p->version, &p->number, &p->total);
		free(text);
	}
	if (!inbody)
		return 0;
	text = to_utf8(inbody, strlen(inbody), charset);
	decoded = from_glib(g_mime_utils_header_decode_text(mime_options, text));
	free(p->subject);
	p->subject = subject_clean(decoded, &v, &n, &t);
	if (v || n || t) {
		p->version = v;
		p->number = n;
		p->total = t;
	}
	free(decoded);
	free(text);
	return 0;
}

/* The date: an in-body Date: wins over the mail's; none leaves it unset. */
static void take_date(struct mail_patch *p, GMimeMessage *msg, const char *inbody,
		      const char *charset)
{
	GDateTime *in_date = NULL, *date;

	if (inbody) {
		char *text = to_utf8(inbody, strlen(inbody), charset);

		in_date = g_mime_utils_header_decode_date(text);
		free(text);
	}
	date = in_date ? in_date : g_mime_message_get_date(msg);
	if (date)
		set_date(p, date);
	if (in_date)
		g_date_time_unref(in_date);
}

/*
 * The commit message, from msg_start to the "---" before the diffstat
 * (or to the diff), with its trailers and upstream id; then the diff,
 * in the bytes the mail carried, as git am applies them.
 */
static void take_message_and_diff(struct mail_patch *p, const struct strbuf *body,
				  size_t msg_start, size_t diff_start, const char *charset)
{
	size_t pos = msg_start, msg_end = diff_start, llen;
	const char *line;
	char *text;

	while (next_line(body->buf, diff_start, &pos, &line, &llen)) {
		if (llen >= 3 && !memcmp(line, "---", 3) && is_blank(line + 3, llen - 3)) {
			msg_end = line - body->buf;
			break;
		}
	}
	text = to_utf8(body->buf + msg_start, msg_end - msg_start, charset);
	p->message = message_tidy(text);
	free(text);
	p->nr_trailers = trailers_parse(&p->trailers, p->message, &p->message_body_len);
	p->upstream = upstream_of(p->message);

	p->diff_len = diff_span(body->buf + diff_start, body->len - diff_start);
	p->diff = xstrndup(body->buf + diff_start, p->diff_len);
}

/* Whether the encoded words (RFC 2047) in header value s..end decode to a NUL byte. */
static int encoded_nul(const char *s, const char *end)
{
	const char *w, *q1, *q2, *e;

	for (w = s; (w = memmem(w, end - w, "=?", 2)); w += 2) {
		if (!(q1 = memchr(w + 2, '?', end - w - 2)) || q1 + 3 >= end || q1[2] != '?' ||
		    !(e = memmem(q1 + 3, end - q1 - 3, "?=", 2)))
			continue;
		q2 = q1 + 3;
		if (q1[1] == 'Q' || q1[1] == 'q') {
			if (memmem(q2, e - q2, "=00", 3))
				return 1;
		} else if (q1[1] == 'B' || q1[1] == 'b') {
			char *b64 = xstrndup(q2, e - q2);
			gsize n = 0;
			guchar *raw = g_base64_decode(b64, &n);
			int nul = raw && memchr(raw, '\0', n) != NULL;

			g_free(raw);
			free(b64);
			if (nul)
				return 1;
		}
	}
	return 0;
}

/*
 * The header (From, Subject) that holds a NUL byte, raw or encoded, in
 * the header block of `mail`, or NULL. GMime's strings end at a NUL: a
 * From of "Evil\0 <e@x>" would be taken as "Evil <Evil>", silently.
 */
static const char *header_with_nul(const char *mail, size_t size)
{
	size_t pos = 0, llen;
	const char *line, *current = NULL;

	while (next_line(mail, size, &pos, &line, &llen)) {
		if (is_blank(line, llen))
			break;
		if (!is_space(line[0]))
			current = !strncasecmp(line, "From:", 5) ? "the From" :
				  !strncasecmp(line, "Subject:", 8) ? "the Subject" : NULL;
		if (memchr(line, '\0', llen))
			return current ? current : "a";
		if (current && encoded_nul(line, line + llen))
			return current;
	}
	return NULL;
}

static int parse_one(struct mail_patch *p, const char *mail, size_t size, const char *name,
		     size_t index)
{
	GMimeStream *stream = NULL;
	GMimeParser *parser = NULL;
	GMimeMessage *msg = NULL;
	GMimeObject *part;
	struct strbuf body = STRBUF_INIT;
	const char *charset = NULL, *id;
	char *inbody[3] = { NULL, NULL, NULL };
	size_t diff_start = 0, msg_start;
	int ret = -1;

	if ((id = header_with_nul(mail, size))) {
		error("%s: mail %zu: NUL byte in %s header", name, index, id);
		goto cleanup;
	}
	stream = g_mime_stream_mem_new_with_buffer(mail, size);
	parser = g_mime_parser_new_with_stream(stream);
	g_mime_parser_set_format(parser, GMIME_FORMAT_MESSAGE);
	msg = g_mime_parser_construct_message(parser, mime_options);
	if (!msg) {
		ret = 1;
		goto cleanup;
	}
	part = g_mime_message_get_mime_part(msg);
	if (part)
		collect_text(part, &body, &charset, 0);

	if (!find_diff(&body, &diff_start)) {
		ret = 1;
		goto cleanup;
	}
	if (memchr(body.buf, '\0', body.len)) {
		error("%s: mail %zu: NUL byte in the body", name, index);
		goto cleanup;
	}

	msg_start = parse_inbody(body.buf, diff_start, inbody);
	if (take_author(p, msg, inbody[0], charset, name, index) < 0 ||
	    take_subject(p, msg, inbody[1], charset, name, index) < 0)
		goto cleanup;
	take_date(p, msg, inbody[2], charset);
	id = g_mime_message_get_message_id(msg);
	if (id && *id)
		p->message_id = utf8_dup(id);
	take_message_and_diff(p, &body, msg_start, diff_start, charset);
	ret = 0;

cleanup:
	free(inbody[0]);
	free(inbody[1]);
	free(inbody[2]);
	strbuf_release(&body);
	if (msg)
		g_object_unref(msg);
	if (parser)
		g_object_unref(parser);
	if (stream)
		g_object_unref(stream);
	return ret;
}

int mail_parse_buffer(struct mail_patch **out, size_t *nr, const char *buf, size_t len,
		      const char *name)
{
	struct strbuf norm = STRBUF_INIT;
	struct mail_patch *patches = NULL;
	size_t count = 0, alloc = 0, index = 0, i, pos = 0, llen;
	size_t mail_start = 0, marker = 0, marker_len = 0;
	const char *line;
	int is_mbox = 0, ret = -1, r;

	*out = NULL;
	*nr = 0;
	mail_init();

	/* Like git mailsplit, read CRLF line ends as LF. */
	strbuf_grow(&norm, len);
	for (i = 0; i < len; i++)
		if (buf[i] != '\r' || i + 1 == len || buf[i + 1] != '\n')
			strbuf_addch(&norm, buf[i]);

	/* An mbox starts (after blank lines) with a separator; else it is one mail. */
	while (next_line(norm.buf, norm.len, &pos, &line, &llen)) {
		if (is_blank(line, llen))
			continue;
		if (is_from_line(line, llen)) {
			is_mbox = 1;
			marker = line - norm.buf;
			marker_len = llen;
			mail_start = pos;
		}
		break;
	}

	for (;;) {
		size_t mail_end = norm.len, next_marker = 0, next_len = 0, next_start = 0;

		if (is_mbox) {
			pos = mail_start;
			while (next_line(norm.buf, norm.len, &pos, &line, &llen)) {
				if (is_from_line(line, llen)) {
					mail_end = line - norm.buf;
					next_marker = mail_end;
					next_len = llen;
					next_start = pos;
					break;
				}
			}
		}
		index++;
		ALLOC_GROW(patches, count + 1, alloc);
		memset(&patches[count], 0, sizeof(patches[count]));
		r = parse_one(&patches[count], norm.buf + mail_start, mail_end - mail_start, name,
			      index);
		if (r < 0) {
			mail_patch_release(&patches[count]);
			goto cleanup;
		}
		if (r == 0) {
			if (is_mbox)
				patches[count].source_commit =
					source_commit_of(norm.buf + marker, marker_len);
			count++;
		} else {
			mail_patch_release(&patches[count]);
		}
		if (mail_end == norm.len)
			break;
		marker = next_marker;
		marker_len = next_len;
		mail_start = next_start;
	}
	if (!count) {
		error("%s: no patch found (not a git format-patch file or mbox?)", name);
		goto cleanup;
	}
	*out = patches;
	*nr = count;
	patches = NULL;
	count = 0;
	ret = 0;

cleanup:
	mail_patches_free(patches, count);
	strbuf_release(&norm);
	return ret;
}

int mail_parse_file(struct mail_patch **out, size_t *nr, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	*out = NULL;
	*nr = 0;
	if (strbuf_read_file(&sb, path) < 0) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		strbuf_release(&sb);
		return ret;
	}
	ret = mail_parse_buffer(out, nr, sb.buf, sb.len, path);
	strbuf_release(&sb);
	return ret;
}

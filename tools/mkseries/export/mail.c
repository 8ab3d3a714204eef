/* export/mail.c: patches and the cover letter as git format-patch writes them. */
#include <string.h>
#include <time.h>

#include "export/export.h"
#include "lib/gitutil.h"

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* RFC 2047 Q-encoding of s, as git format-patch writes a non-ASCII header. */
static void add_encoded_word(struct strbuf *sb, const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!*+-/";

	strbuf_addstr(sb, "=?UTF-8?q?");
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == ' ')
			strbuf_addch(sb, '_');
		else if (strchr(ok, c))
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "=%02X", c);
	}
	strbuf_addstr(sb, "?=");
}

/* "Name <email>" for a From: header: encoded when not ASCII, quoted when it has specials. */
static void add_mailbox(struct strbuf *sb, const char *name, const char *email)
{
	const char *p;

	if (!is_ascii(name)) {
		add_encoded_word(sb, name);
	} else if (strpbrk(name, "()<>@,;:\\\".[]")) {
		strbuf_addch(sb, '"');
		for (p = name; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		}
		strbuf_addch(sb, '"');
	} else {
		strbuf_addstr(sb, name);
	}
	strbuf_addf(sb, " <%s>", email);
}

/* RFC 2822 date in the signature's own time zone: "Thu, 16 Jan 2025 17:30:55 -0800". */
static void add_date(struct strbuf *sb, const git_time *when)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = (time_t)when->time + (time_t)when->offset * 60;
	int off = when->offset < 0 ? -when->offset : when->offset;
	struct tm tm;

	gmtime_r(&t, &tm);
	strbuf_addf(sb, "%s, %d %s %d %02d:%02d:%02d %c%02d%02d", days[tm.tm_wday], tm.tm_mday,
		    months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		    when->offset < 0 ? '-' : '+', off / 60, off % 60);
}

static void add_subject(struct strbuf *sb, const char *prefix, size_t n, size_t nr,
			const char *subject)
{
	struct strbuf line = STRBUF_INIT;

	if (nr)
		strbuf_addf(&line, "[%s %zu/%zu] %s", prefix, n, nr, subject);
	else
		strbuf_addf(&line, "[%s] %s", prefix, subject);
	strbuf_addstr(sb, "Subject: ");
	if (is_ascii(line.buf))
		strbuf_add(sb, line.buf, line.len);
	else
		add_encoded_word(sb, line.buf);
	strbuf_addch(sb, '\n');
	strbuf_release(&line);
}

static void add_mime(struct strbuf *sb, int ascii)
{
	if (!ascii)
		strbuf_addstr(sb, "MIME-Version: 1.0\n"
				  "Content-Type: text/plain; charset=UTF-8\n"
				  "Content-Transfer-Encoding: 8bit\n");
	strbuf_addch(sb, '\n');
}

void export_patch_mail(struct strbuf *out, const struct export_series *s, size_t i,
		       const char *prefix, size_t nr)
{
	const struct export_patch *p = &s->v[i];
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), &p->commit);
	strbuf_addf(out, "From %s Mon Sep 17 00:00:00 2001\nFrom: ", hex);
	add_mailbox(out, p->author_name, p->author_email);
	strbuf_addstr(out, "\nDate: ");
	add_date(out, &p->author_when);
	strbuf_addch(out, '\n');
	add_subject(out, prefix, i + 1, nr, p->subject);
	add_mime(out, is_ascii(p->body) && is_ascii(p->subject) && is_ascii(p->author_name) &&
		      is_ascii(p->diff));
	strbuf_addstr(out, p->body);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addf(out, "---\n%s\n%s\n", p->stat, p->diff);
}

void export_cover_mail(struct strbuf *out, const struct export_series *s,
		       const struct export_cover *cover)
{
	struct strbuf body = STRBUF_INIT;
	git_time now = { (git_time_t)time(NULL), 0, '+' };
	const char *lt = strrchr(s->exporter, '<');
	char *name = xstrndup(s->exporter, lt && lt > s->exporter ? (size_t)(lt - s->exporter - 1) : 0);
	char *email = xstrndup(lt ? lt + 1 : "", lt ? strcspn(lt + 1, ">") : 0);
	size_t i;

	strbuf_addf(&body, "Backports for %s", s->branch);
	if (s->variant)
		strbuf_addf(&body, " (variant %s)", s->variant);
	strbuf_addf(&body, ", from '%s' (%s) onto %s.\n\n", s->refname, oid_short(&s->tip),
		    oid_short(&s->base));
	for (i = 0; i < s->nr; i++) {
		const struct export_patch *p = &s->v[i];

		strbuf_addf(&body, "  %zu/%zu %s\n", i + 1, s->nr, p->subject);
		if (p->upstream)
			strbuf_addf(&body, "      commit %s upstream%s%s\n", p->upstream,
				    p->applied_upstream ? ", in " : "",
				    p->applied_upstream ? p->applied_upstream : "");
		else
			strbuf_addstr(&body, "      no upstream commit: the kit's own patch\n");
	}
	strbuf_addf(&body, "\n%s\n", s->stat ? s->stat : "");
	export_say_messages(&body, s);
	if (s->nr_left) {
		strbuf_addstr(&body, "Left out, as stable takes fixes only (a Fixes:, a Cc: stable, "
				     "the kit's fixes:, a Stable-dep-of: or a stated stable: reason):\n\n");
		for (i = 0; i < s->nr_left; i++) {
			const struct export_left_out *l = &s->left[i];

			strbuf_addf(&body, "  - %s\n", l->subject);
			if (l->upstream)
				strbuf_addf(&body, "      commit %s upstream\n", l->upstream);
			strbuf_addf(&body, "      %s\n", l->why);
		}
		strbuf_addch(&body, '\n');
	}
	if (cover->header)
		strbuf_addf(&body, "%s\n\n", cover->header);
	if (cover->verdict)
		strbuf_addf(&body, "%s", cover->verdict);

	strbuf_addstr(out, "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
			   "From: ");
	add_mailbox(out, name, email);
	strbuf_addstr(out, "\nDate: ");
	add_date(out, &now);
	strbuf_addch(out, '\n');
	add_subject(out, s->prefix, 0, s->nr, cover->title);
	add_mime(out, is_ascii(body.buf) && is_ascii(cover->title) && is_ascii(name));
	strbuf_add(out, body.buf, body.len);
	if (out->len && out->buf[out->len - 1] != '\n')
		strbuf_addch(out, '\n');
	strbuf_addch(out, '\n');
	strbuf_release(&body);
	free(name);
	free(email);
}

/* test-mail.c: unit tests of mail.c on real git format-patch / b4 mails and hostile input, and of b4.c's argv. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>

#include "tap.h"
#include "lib/util.h"
#include "patches/b4.h"
#include "patches/mail.h"

/* Run from the top of the source tree (make test does), or set MKSERIES_SRC. */
static char *data_path(const char *name)
{
	const char *src = getenv("MKSERIES_SRC");

	return xstrfmt("%s%stests/data/mail/%s", src ? src : "", src ? "/" : "", name);
}

/* Capture what error() prints, to assert on the message. */
static FILE *cap_file;
static int cap_saved = -1;
static char cap_buf[8192];

static void capture_begin(void)
{
	error_flush();
	fflush(stderr);
	cap_file = tmpfile();
	if (!cap_file)
		die("tmpfile failed");
	cap_saved = dup(2);
	dup2(fileno(cap_file), 2);
}

static const char *capture_end(void)
{
	size_t n;

	error_flush();
	fflush(stderr);
	dup2(cap_saved, 2);
	close(cap_saved);
	rewind(cap_file);
	n = fread(cap_buf, 1, sizeof(cap_buf) - 1, cap_file);
	fclose(cap_file);
	while (n && cap_buf[n - 1] == '\n')
		n--;
	cap_buf[n] = '\0';
	return cap_buf;
}

static int load(struct mail_patch **p, size_t *nr, const char *name)
{
	char *path = data_path(name);
	int ret = mail_parse_file(p, nr, path);

	free(path);
	return ret;
}

/* Parse a buffer that must fail; returns the error message printed. */
static const char *parse_error(const char *buf, size_t len, const char *name)
{
	struct mail_patch *p = NULL;
	size_t nr = 99;
	int ret;

	capture_begin();
	ret = mail_parse_buffer(&p, &nr, buf, len, name);
	capture_end();
	ok(ret == -1 && !p && nr == 0, "%s: parse fails and leaves nothing", name);
	mail_patches_free(p, nr);
	return cap_buf;
}

static int starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static int ends(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

static const char joerg_message[] =
	"Moving one PTE at a time costs a clear and a set for each page. When the\n"
	"old PTEs map a large folio, move them as one batch.\n"
	"\n"
	"Fixes: abcdef123456 (\"mm: call pointers to ptes as ptep\")\n"
	"Cc: <stable@vger.kernel.org> # 6.17+\n"
	"Link: https://lore.kernel.org/all/20250304101112.12345-1-joro@8bytes.org/T/"
	"#m0123456789abcdef0123456789abcdef01234567\n"
	"Reviewed-by: Lorenzo Stoakes <lorenzo.stoakes@oracle.com>\n"
	"Signed-off-by: J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>\n";

static const char joerg_diff_start[] =
	"diff --git a/mm/mremap.c b/mm/mremap.c\n"
	"index 8c16d1a..7a89c10 100644\n"
	"--- a/mm/mremap.c\n"
	"+++ b/mm/mremap.c\n"
	"@@ -12,12 +12,13 @@ static int move_ptes(";

static const char joerg_diff_end[] =
	"+\t\tnew_addr += nr * PAGE_SIZE;\n"
	" \t}\n"
	" \treturn ret;\n"
	" }\n";

/* The mremap batching patch by Jörg, as git format-patch wrote it. */
static void check_joerg(const struct mail_patch *p, const char *what)
{
	is_str(p->author_name, "J\xc3\xb6rg R\xc3\xb6" "del", "%s: RFC 2047 author decoded", what);
	is_str(p->author_email, "joro@8bytes.org", "%s: author email", what);
	is_int(p->date, 1741079472, "%s: date in epoch seconds", what);
	is_int(p->tz_offset, 60, "%s: +0100 is 60 minutes", what);
	is_str(p->subject, "mm/mremap: batch PTE moves when the folio allows it", "%s: subject",
	       what);
	is_str(p->message, joerg_message, "%s: message up to the ---", what);
	is_int(p->message_body_len, strstr(joerg_message, "Fixes:") - joerg_message,
	       "%s: body ends where the trailers start", what);
	is_int(p->nr_trailers, 5, "%s: five trailers", what);
	if (p->nr_trailers == 5) {
		is_str(p->trailers[0].key, "Fixes", "%s: trailer 1 key", what);
		is_str(p->trailers[0].value, "abcdef123456 (\"mm: call pointers to ptes as ptep\")",
		       "%s: Fixes value keeps the quoted subject", what);
		is_str(p->trailers[1].key, "Cc", "%s: trailer 2 key", what);
		is_str(p->trailers[1].value, "<stable@vger.kernel.org> # 6.17+",
		       "%s: Cc keeps its comment", what);
		is_str(p->trailers[2].value,
		       "https://lore.kernel.org/all/20250304101112.12345-1-joro@8bytes.org/T/"
		       "#m0123456789abcdef0123456789abcdef01234567",
		       "%s: long Link URL whole", what);
		is_str(p->trailers[3].key, "Reviewed-by", "%s: trailer 4 key", what);
		is_str(p->trailers[4].key, "Signed-off-by", "%s: trailer 5 key keeps its case", what);
		is_str(p->trailers[4].value, "J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>",
		       "%s: Signed-off-by value in UTF-8", what);
	}
	is_str(mail_trailer(p, "SIGNED-OFF-BY", 0), "J\xc3\xb6rg R\xc3\xb6" "del <joro@8bytes.org>",
	       "%s: mail_trailer() ignores case", what);
	ok(!mail_trailer(p, "signed-off-by", 1), "%s: no second Signed-off-by", what);
	ok(!mail_trailer(p, "Acked-by", 0), "%s: no Acked-by", what);
	ok(!p->upstream, "%s: no upstream line", what);
	ok(starts(p->diff, joerg_diff_start), "%s: diff starts at diff --git", what);
	ok(ends(p->diff, joerg_diff_end), "%s: diff ends with the last hunk line", what);
	ok(p->diff && !strstr(p->diff, "\n-- \n") && !strstr(p->diff, "2.39.5"),
	   "%s: signature removed", what);
	is_int(p->diff_len, p->diff ? strlen(p->diff) : 0, "%s: diff_len", what);
}

static void test_single(void)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;

	is_int(load(&p, &nr, "single.patch"), 0, "single.patch parses");
	is_int(nr, 1, "single.patch: one patch");
	if (nr != 1)
		return;
	check_joerg(p, "single.patch");
	is_int(p->version, 1, "single.patch: [PATCH] is version 1");
	is_int(p->number, 0, "single.patch: no number");
	is_int(p->total, 0, "single.patch: no total");
	is_str(p->message_id, "e8ca55347aac8117f71753dde1f67bf3702af4a2.1796018601.git.maint@example.org",
	       "single.patch: message id without <>");
	is_str(p->source_commit, "e8ca55347aac8117f71753dde1f67bf3702af4a2",
	       "single.patch: commit of the From line");
	mail_patches_free(p, nr);
}

static const char rename_message[] =
	"The file holds more than one helper now.\n"
	"\n"
	"Note: this paragraph only looks like a trailer block.\n"
	"Tested: on x86_64\n"
	"\n"
	"Signed-off-by: Dev Eloper <dev@example.com>\n"
	"Acked-by: Some One <some.one@example.com>\n"
	"  with a continuation line\n";

static const char rename_diff[] =
	"diff --git a/lib/helper.c b/lib/helpers.c\n"
	"similarity index 82%\n"
	"rename from lib/helper.c\n"
	"rename to lib/helpers.c\n"
	"index d480361..8ce6a50 100644\n"
	"--- a/lib/helper.c\n"
	"+++ b/lib/helpers.c\n"
	"@@ -8,5 +8,5 @@ int helper_add(int a, int b)\n"
	" \n"
	" int helper_sub(int a, int b)\n"
	" {\n"
	"-\treturn a - b;\n"
	"+\treturn a - b; /* may wrap */\n"
	" }\n";

/* git format-patch --cover-letter -2 -v2 --thread, concatenated; or b4 am's mbox. */
static void test_series(const char *file, int from_b4)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;

	is_int(load(&p, &nr, file), 0, "%s parses", file);
	is_int(nr, 2, "%s: cover letter dropped, two patches", file);
	if (nr != 2) {
		mail_patches_free(p, nr);
		return;
	}
	is_str(p[0].author_name, "J\xc3\xb6rg R\xc3\xb6" "del", "%s: 1/2 author", file);
	is_int(p[0].version, 2, "%s: 1/2 version", file);
	is_int(p[0].number, 1, "%s: 1/2 number", file);
	is_int(p[0].total, 2, "%s: 1/2 total", file);
	is_str(p[0].subject, "mm/mremap: batch PTE moves when the folio allows it", "%s: 1/2 subject",
	       file);
	is_int(p[0].date, 1741079472, "%s: 1/2 date", file);
	if (from_b4) {
		/* b4 adds its Link: after the sign-off. */
		is_int(p[0].nr_trailers, 6, "%s: 1/2 six trailers", file);
		is_str(mail_trailer(&p[0], "link", 1),
		       "https://patch.msgid.link/e8ca55347aac8117f71753dde1f67bf3702af4a2.1796018601.git.maint@example.org",
		       "%s: b4's Link is the second one", file);
		ok(!p[0].source_commit, "%s: b4's From git@z names no commit", file);
	} else {
		check_joerg(&p[0], file);
		is_str(p[0].source_commit, "e8ca55347aac8117f71753dde1f67bf3702af4a2",
		       "%s: 1/2 commit", file);
	}

	is_str(p[1].author_name, "Dev Eloper", "%s: 2/2 author", file);
	is_str(p[1].author_email, "dev@example.com", "%s: 2/2 email", file);
	is_int(p[1].date, 1741244399, "%s: 2/2 date", file);
	is_int(p[1].tz_offset, -420, "%s: -0700 is -420 minutes", file);
	is_str(p[1].subject, "lib: rename helper.c to helpers.c", "%s: 2/2 subject", file);
	is_int(p[1].version, 2, "%s: 2/2 version", file);
	is_int(p[1].number, 2, "%s: 2/2 number", file);
	is_int(p[1].total, 2, "%s: 2/2 total", file);
	is_str(p[1].message, rename_message, "%s: 2/2 message", file);
	is_int(p[1].message_body_len, strstr(rename_message, "Signed-off-by") - rename_message,
	       "%s: the look-alike middle paragraph stays in the body", file);
	is_int(p[1].nr_trailers, 2, "%s: 2/2 two trailers", file);
	if (p[1].nr_trailers == 2)
		is_str(p[1].trailers[1].value, "Some One <some.one@example.com> with a continuation line",
		       "%s: continuation line joined", file);
	is_str(p[1].diff, rename_diff, "%s: 2/2 rename diff", file);
	is_str(p[1].message_id,
	       "4c7e83f93f55912087f54c3887b733c0ea991a3c.1796018601.git.maint@example.org",
	       "%s: 2/2 message id", file);
	mail_patches_free(p, nr);
}

static void test_stable(void)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;

	is_int(load(&p, &nr, "stable.patch"), 0, "stable.patch parses");
	if (nr != 1)
		return;
	is_str(p->author_name, "Up Stream", "stable: in-body From wins over the sender");
	is_str(p->author_email, "up@example.com", "stable: in-body From email");
	is_int(p->date, 1732069800, "stable: date");
	is_int(p->tz_offset, 330, "stable: +0530 is 330 minutes");
	is_str(p->subject, "mm: stop the PTE batch at the PMD end", "stable: subject");
	is_int(p->version, 1, "stable: [PATCH 6.12.y] is version 1");
	is_int(p->number, 0, "stable: 6.12.y is not a count");
	is_str(p->upstream, "0123456789abcdef0123456789abcdef01234567", "stable: upstream lowercased");
	ok(starts(p->message, "commit 0123456789ABCDEF0123456789abcdef01234567 upstream.\n\nThe batch"),
	   "stable: message starts after the in-body From");
	is_int(p->nr_trailers, 4, "stable: four trailers, the note is not one");
	is_str(mail_trailer(p, "signed-off-by", 1), "Dev Eloper <dev@example.com>",
	       "stable: second Signed-off-by after the note");
	ok(ends(p->message, "[ dev: backported to 6.12, move_ptes() has no batch argument ]\n"
			    "Signed-off-by: Dev Eloper <dev@example.com>\n"),
	   "stable: the note stays in the message");
	ok(p->diff && strstr(p->diff, "\n-- \n - one entry\n--- \n end\n"),
	   "stable: a removed '- ' line inside a hunk is not the signature");
	ok(ends(p->diff, "new_pte += nr) {\n"), "stable: diff runs to the last hunk");
	ok(p->diff && !strstr(p->diff, "2.39.5"), "stable: signature removed");
	mail_patches_free(p, nr);
}

static void test_qp(void)
{
	struct mail_patch *p = NULL, *s = NULL;
	size_t nr = 0, snr = 0;

	is_int(load(&p, &nr, "qp.patch"), 0, "qp.patch parses");
	if (nr != 1)
		return;
	check_joerg(p, "qp.patch");
	is_int(p->version, 3, "qp: version from the mail's [PATCH RESEND v3 1/1]");
	is_int(p->number, 1, "qp: number from the mail's subject");
	is_int(p->total, 1, "qp: total from the mail's subject");
	is_str(p->message_id, "20250307090000.4242-1-maint@example.org", "qp: message id");
	if (!load(&s, &snr, "single.patch") && snr == 1)
		is_str(p->diff, s->diff, "qp: decoded diff equals the 8bit one");
	mail_patches_free(s, snr);
	mail_patches_free(p, nr);
}

static void test_base64(void)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;

	is_int(load(&p, &nr, "base64.patch"), 0, "base64.patch parses");
	if (nr != 1)
		return;
	is_str(p->author_name, "Fran\xc3\xa7ois Lef\xc3\xa8vre", "base64: Latin-1 encoded word");
	is_str(p->subject, "lib: rename helper.c to helpers.c for the caf\xc3\xa9 code",
	       "base64: folded subject with an encoded word");
	is_int(p->version, 2, "base64: version");
	is_int(p->number, 2, "base64: number");
	is_int(p->tz_offset, -420, "base64: tz");
	ok(starts(p->message, "The file holds more than one helper now; Fran\xc3\xa7ois asked for the\n"
			      "plural in the caf\xc3\xa9.\n"),
	   "base64: Latin-1 body converted to UTF-8");
	is_int(p->nr_trailers, 3, "base64: three trailers");
	is_str(mail_trailer(p, "Reported-by", 0), "Fran\xc3\xa7ois Lef\xc3\xa8vre <fl@example.org>",
	       "base64: Latin-1 trailer converted");
	is_str(p->diff, rename_diff, "base64: decoded diff");
	mail_patches_free(p, nr);
}

static void test_subject_clean(void)
{
	static const struct {
		const char *in, *out;
		int v, n, t;
	} cases[] = {
		{ "[PATCH] mm: fix", "mm: fix", 1, 0, 0 },
		{ "[PATCH v2 1/2] mm: fix", "mm: fix", 2, 1, 2 },
		{ "[PATCH 6.12.y 3/4] mm: fix", "mm: fix", 1, 3, 4 },
		{ "[RFC PATCH v3 0/5] mm: series", "mm: series", 3, 0, 5 },
		{ "[PATCH mm-hotfixes] mm: fix", "mm: fix", 1, 0, 0 },
		{ "[PATCH -next v2 01/10] net: fix", "net: fix", 2, 1, 10 },
		{ "Re: [PATCH v2 1/2] mm: fix", "mm: fix", 2, 1, 2 },
		{ "RE: Fwd: [PATCH] mm: fix", "mm: fix", 1, 0, 0 },
		{ "[PATCH 5.10] [media] [v4l2] foo: bar", "foo: bar", 1, 0, 0 },
		{ "[PATCHv5 2/7] mm: x", "mm: x", 5, 2, 7 },
		{ "[PATCH v2 1/2]\n mm: a folded\n\t subject   with  spaces ", "mm: a folded subject with spaces", 2, 1, 2 },
		{ "mm: no prefix [keeps this]", "mm: no prefix [keeps this]", 0, 0, 0 },
		{ "regmap: re is not Re:", "regmap: re is not Re:", 0, 0, 0 },
		{ "[net-next] tcp: x", "tcp: x", 0, 0, 0 },
		{ "[PATCH unclosed", "[PATCH unclosed", 0, 0, 0 },
		{ "[PATCH v2]", "", 2, 0, 0 },
		{ "", "", 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int v = -1, n = -1, t = -1;
		char *s = subject_clean(cases[i].in, &v, &n, &t);

		is_str(s, cases[i].out, "subject_clean case %zu text", i);
		ok(v == cases[i].v && n == cases[i].n && t == cases[i].t,
		   "subject_clean case %zu: v%d %d/%d (want v%d %d/%d)", i, v, n, t, cases[i].v,
		   cases[i].n, cases[i].t);
		free(s);
	}
	{
		char *s = subject_clean(NULL, NULL, NULL, NULL);

		is_str(s, "", "subject_clean(NULL) is empty");
		free(s);
	}
}

/* trailers_parse() on one message: the count and the body length. */
static size_t tp(struct trailer **t, const char *msg, size_t *body_len)
{
	*t = NULL;
	return trailers_parse(t, msg, body_len);
}

static void test_trailers(void)
{
	struct trailer *t;
	size_t n, body;
	const char *msg;
	char *longlink;

	msg = "Subject line text.\n\nFixes: 1234: a lookalike in the middle\nCc: x@y\n\n"
	      "And a last paragraph of prose.\n";
	n = tp(&t, msg, &body);
	is_int(n, 0, "trailers: a look-alike middle paragraph is not the block");
	is_int(body, strlen(msg), "trailers: no block, body is all");
	ok(!t, "trailers: nothing allocated");

	msg = "Body.\n\nFixes: abcdef123456 (\"mm: call pointers: to ptes\")\n"
	      "Cc: <stable@vger.kernel.org> # 6.17+\n"
	      "Acked-by: A B <a@b>\n   wrapped onto\n\tsecond lines\n"
	      "[ dev: backported to 6.12 ]\n"
	      "[dev@x: fixed conflict in\n  mm/mremap.c ]\n"
	      "Signed-off-by: D <d@x>\n\n\n";
	n = tp(&t, msg, &body);
	is_int(n, 4, "trailers: four, notes skipped, trailing blank lines ignored");
	is_int(body, 7, "trailers: body is 'Body.\\n\\n'");
	if (n == 4) {
		is_str(t[0].value, "abcdef123456 (\"mm: call pointers: to ptes\")",
		       "trailers: Fixes with a quoted subject");
		is_str(t[1].value, "<stable@vger.kernel.org> # 6.17+", "trailers: Cc comment kept");
		is_str(t[2].value, "A B <a@b> wrapped onto second lines",
		       "trailers: continuation lines joined with one space");
		is_str(t[3].key, "Signed-off-by", "trailers: after a two-line note");
	}
	trailers_free(t, n);

	longlink = xstrfmt("Body.\n\nLink: https://lore.kernel.org/all/%0300d@example.org/\n"
			   "Signed-off-by: D <d@x>\n", 7);
	n = tp(&t, longlink, &body);
	is_int(n, 2, "trailers: long Link line");
	if (n == 2)
		is_int(strlen(t[0].value), strlen("https://lore.kernel.org/all/") + 300 + strlen("@example.org/"),
		       "trailers: long URL kept whole");
	trailers_free(t, n);
	free(longlink);

	n = tp(&t, "Body.\n\nSigned-off-by: A <a@b>\nThis line is prose.\n", &body);
	is_int(n, 0, "trailers: one prose line spoils the block");
	n = tp(&t, "Body.\n\n[ just a note ]\n", &body);
	is_int(n, 0, "trailers: notes alone are no block");
	n = tp(&t, "Body.\n\nhttps://example.org/a/b\n", &body);
	is_int(n, 0, "trailers: a bare URL is not a trailer");
	n = tp(&t, "Body.\n\n  indented first\nAcked-by: x\n", &body);
	is_int(n, 0, "trailers: a continuation with nothing to continue");
	n = tp(&t, "Body.\n\nAcked-by: x\n[1] https://example.org/ref\n", &body);
	is_int(n, 0, "trailers: a reference list is not a note");
	n = tp(&t, "Body.\n\nSigned-off-by: A\n[ unclosed note\n", &body);
	is_int(n, 0, "trailers: an unclosed note spoils the block");

	n = tp(&t, "Body.\n\nSigned-off-by: A\n[ dev: a note\nthat wraps: without indent\n"
		   "over three lines ]\nSigned-off-by: B\n", &body);
	is_int(n, 2, "trailers: the lines of a wrapped note are not trailers");
	if (n == 2)
		is_str(t[1].value, "B", "trailers: the trailer after a wrapped note");
	trailers_free(t, n);

	n = tp(&t, "Signed-off-by: Only <o@x>\n", &body);
	is_int(n, 1, "trailers: a message of trailers only");
	is_int(body, 0, "trailers: body is empty");
	trailers_free(t, n);

	n = tp(&t, "", &body);
	is_int(n, 0, "trailers: empty message");
	n = tp(&t, "Body.\n\nReviewed-by:Tight <t@x>\nCC:  spaced  \n", NULL);
	is_int(n, 2, "trailers: body_len may be NULL");
	if (n == 2) {
		is_str(t[0].value, "Tight <t@x>", "trailers: no space after the colon");
		is_str(t[1].key, "CC", "trailers: key case kept");
		is_str(t[1].value, "spaced", "trailers: value trimmed");
	}
	trailers_free(t, n);
}

static const char minimal_diff[] =
	"diff --git a/f b/f\n"
	"--- a/f\n"
	"+++ b/f\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

static char *mail_text(const char *from_line, const char *headers, const char *body)
{
	return xstrfmt("%s%s%s\n%s\n---\n%s-- \n2.39.5\n\n", from_line ? from_line : "",
		       from_line ? "\n" : "", headers, body, minimal_diff);
}

#define GIT_FROM "From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001"

static void test_errors(void)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;
	char *path, *m1, *m2, *buf;
	const char *msg;
	size_t len;

	path = data_path("does-not-exist.patch");
	capture_begin();
	is_int(mail_parse_file(&p, &nr, path), -1, "missing file fails");
	msg = capture_end();
	ok(strstr(msg, "error: cannot read '") && strstr(msg, "does-not-exist.patch': No such file or directory"),
	   "missing file message: %s", msg);
	free(path);

	path = data_path("cover-letter.patch");
	capture_begin();
	is_int(mail_parse_file(&p, &nr, path), -1, "a cover letter alone fails");
	msg = capture_end();
	ok(strstr(msg, "cover-letter.patch: no patch found (not a git format-patch file or mbox?)") != NULL,
	   "cover letter message: %s", msg);
	free(path);

	msg = parse_error("", 0, "empty.patch");
	is_str(msg, "error: empty.patch: no patch found (not a git format-patch file or mbox?)",
	       "empty file message");

	msg = parse_error("just some text\nwith lines\n", 26, "notes.txt");
	is_str(msg, "error: notes.txt: no patch found (not a git format-patch file or mbox?)",
	       "plain text message");

	m1 = mail_text(GIT_FROM, "From: A <a@x>\nSubject: [PATCH 1/2] one\n", "Body one.");
	m2 = mail_text(GIT_FROM, "From: A <a@x>\nDate: Tue, 4 Mar 2025 10:11:12 +0100\n", "Body two.");
	buf = xstrfmt("%s%s", m1, m2);
	msg = parse_error(buf, strlen(buf), "two.mbox");
	is_str(msg, "error: two.mbox: mail 2: no Subject header", "missing Subject message");
	free(m1);
	free(m2);
	free(buf);

	buf = mail_text(GIT_FROM, "From: <>\nSubject: [PATCH] x\n", "Body.");
	msg = parse_error(buf, strlen(buf), "badfrom.patch");
	is_str(msg, "error: badfrom.patch: mail 1: cannot parse From header '<>'",
	       "From without an address message");
	free(buf);

	buf = mail_text(GIT_FROM, "Subject: [PATCH] x\n", "Body.");
	msg = parse_error(buf, strlen(buf), "nofrom.patch");
	is_str(msg, "error: nofrom.patch: mail 1: no From header", "missing From message");
	free(buf);

	buf = mail_text(GIT_FROM, "From: A <a@x>\nSubject: [PATCH] x\n", "Body with a NUL here: #.");
	len = strlen(buf);
	*strchr(buf, '#') = '\0';
	msg = parse_error(buf, len, "nul.patch");
	is_str(msg, "error: nul.patch: mail 1: NUL byte in the body", "NUL byte message");
	free(buf);

	buf = mail_text(GIT_FROM, "From: A <a@x>\nSubject: [PATCH] x\n", "From: \n\nBody.");
	msg = parse_error(buf, strlen(buf), "inbody.patch");
	is_str(msg, "error: inbody.patch: mail 1: cannot parse in-body From ''",
	       "empty in-body From message");
	free(buf);
}

/* Input that must parse, or fail cleanly, without crashing. */
static void test_hostile(void)
{
	struct mail_patch *p = NULL;
	size_t nr = 0;
	struct strbuf sb = STRBUF_INIT;
	char *buf, *m1, *m2, *b64;
	size_t i;
	int ret;

	/* A commit message line "From now on" is no mbox separator (git mailsplit agrees). */
	m1 = mail_text(GIT_FROM, "From: A <a@x>\nSubject: [PATCH 1/2] one\n",
		       "From now on the batch\nstops at the PMD.\nFrom 10:30:00 on, it did not.");
	m2 = mail_text(GIT_FROM, "From: B <b@x>\nSubject: [PATCH 2/2] two\n", "Body two.");
	buf = xstrfmt("%s%s", m1, m2);
	is_int(mail_parse_buffer(&p, &nr, buf, strlen(buf), "from.mbox"), 0, "From-line mbox parses");
	is_int(nr, 2, "from.mbox: still two mails");
	if (nr == 2) {
		is_str(p[0].message,
		       "From now on the batch\nstops at the PMD.\nFrom 10:30:00 on, it did not.\n",
		       "from.mbox: the From line stays in the message");
		is_str(p[0].diff, minimal_diff, "from.mbox: 1/2 diff");
		is_str(p[1].author_name, "B", "from.mbox: 2/2 author");
	}
	mail_patches_free(p, nr);
	free(m1);
	free(m2);
	free(buf);

	/* CRLF line ends, as some mailers save them. */
	buf = mail_text(GIT_FROM, "From: A <a@x>\nSubject: [PATCH] crlf\n", "Body.\n\nSigned-off-by: A <a@x>");
	for (i = 0; buf[i]; i++) {
		if (buf[i] == '\n')
			strbuf_addch(&sb, '\r');
		strbuf_addch(&sb, buf[i]);
	}
	is_int(mail_parse_buffer(&p, &nr, sb.buf, sb.len, "crlf.patch"), 0, "CRLF mail parses");
	if (nr == 1) {
		is_str(p->diff, minimal_diff, "crlf: diff without CR");
		is_str(mail_trailer(p, "signed-off-by", 0), "A <a@x>", "crlf: trailer without CR");
	}
	mail_patches_free(p, nr);
	strbuf_release(&sb);
	free(buf);

	/* A 4 MiB line in the subject, the message and the diff. */
	{
		char *big = xmalloc(4 << 20);

		memset(big, 'x', (4 << 20) - 1);
		big[(4 << 20) - 1] = '\0';
		big[10] = ':';
		buf = xstrfmt(GIT_FROM "\nFrom: A <a@x>\nSubject: [PATCH] %s\n\n%s\n\nKey: %s\n---\n"
			      "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-%s\n+b\n",
			      big, big, big, big);
		ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "huge.patch");
		is_int(ret, 0, "huge lines parse");
		if (nr == 1) {
			is_int(strlen(p->subject), (4 << 20) - 1, "huge: subject kept");
			is_int(p->nr_trailers, 1, "huge: the long trailer");
		}
		mail_patches_free(p, nr);
		free(buf);
		free(big);
	}

	/* Bad encodings: an unknown charset, invalid base64, invalid UTF-8 in headers. */
	buf = xstrfmt(GIT_FROM "\nFrom: =?x-nonsense?q?J=F6rg?= \xff\xfe <a@x>\n"
		      "Subject: [PATCH] =?UTF-8?B?!!!not base64?= caf\xe9\n"
		      "Content-Type: text/plain; charset=x-no-such-charset\n"
		      "Content-Transfer-Encoding: base64\n\n"
		      "QmFkIGJhc2U2NCBib2R5ICEhIQo=!!!@@@\n");
	capture_begin();
	ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "bad.patch");
	capture_end();
	is_int(ret, -1, "bad encodings without a diff fail cleanly");
	free(buf);

	buf = xstrfmt(GIT_FROM "\nFrom: =?x-nonsense?q?J=F6rg?= \xff\xfe <a@x>\n"
		      "Subject: [PATCH] caf\xe9 \xc3\n"
		      "Content-Type: text/plain; charset=x-no-such-charset\n"
		      "Content-Transfer-Encoding: quoted-printable\n\n"
		      "caf=E9 =FF=FE=\n=ZZ\n---\n%s", minimal_diff);
	ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "bad2.patch");
	is_int(ret, 0, "bad encodings with a diff parse");
	if (nr == 1) {
		ok(g_utf8_validate(p->author_name, -1, NULL), "bad2: author is valid UTF-8 (%s)",
		   p->author_name);
		ok(g_utf8_validate(p->subject, -1, NULL), "bad2: subject is valid UTF-8 (%s)", p->subject);
		ok(g_utf8_validate(p->message, -1, NULL), "bad2: message is valid UTF-8");
		is_str(p->diff, minimal_diff, "bad2: diff");
	}
	mail_patches_free(p, nr);
	free(buf);

	/* A multipart mail with the patch as an attachment. */
	b64 = g_base64_encode((const guchar *)minimal_diff, strlen(minimal_diff));
	buf = xstrfmt(GIT_FROM "\nFrom: A <a@x>\nSubject: [PATCH] attached\nMIME-Version: 1.0\n"
		      "Content-Type: multipart/mixed; boundary=\"BB\"\n\n"
		      "--BB\nContent-Type: text/plain; charset=UTF-8\n\nThe message.\n\n"
		      "Signed-off-by: A <a@x>\n---\n"
		      "--BB\nContent-Type: application/pgp-signature\n\nnot text\n"
		      "--BB\nContent-Type: text/x-patch; name=\"p.diff\"\n"
		      "Content-Transfer-Encoding: base64\n\n%s\n--BB--\n",
		      b64);
	g_free(b64);
	ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "multipart.patch");
	is_int(ret, 0, "multipart mail parses");
	if (nr == 1) {
		is_str(p->message, "The message.\n\nSigned-off-by: A <a@x>\n", "multipart: message");
		is_str(p->diff, minimal_diff, "multipart: diff from the attachment");
	}
	mail_patches_free(p, nr);
	free(buf);

	/* Absurd hunk counts, a truncated diff, an unterminated last line. */
	buf = xstrfmt(GIT_FROM "\nFrom: A <a@x>\nSubject: x\n\nBody\n---\n"
		      "diff --git a/f b/f\n@@ -1,99999999999999999999 +1 @@\n-- \n-a");
	ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "counts.patch");
	is_int(ret, 0, "absurd hunk counts parse");
	if (nr == 1) {
		ok(ends(p->diff, "\n-- \n-a"), "counts: '-- ' inside the hunk kept");
		is_int(p->version, 0, "counts: no bracket, version 0");
	}
	mail_patches_free(p, nr);
	free(buf);

	/* A binary file last: the blank line closing its hunks stays, the signature goes. */
	buf = xstrfmt(GIT_FROM "\nFrom: A <a@x>\nSubject: [PATCH] blob\n\nBody\n---\n"
		      "diff --git a/f.bin b/f.bin\nnew file mode 100644\n"
		      "index 0000000..e69de29\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n"
		      "literal 0\nHcmV?d00001\n\n-- \n2.39.5\n\n");
	ret = mail_parse_buffer(&p, &nr, buf, strlen(buf), "lastbin.patch");
	is_int(ret, 0, "binary last: parses");
	if (nr == 1)
		ok(ends(p->diff, "HcmV?d00001\n\nliteral 0\nHcmV?d00001\n\n"),
		   "binary last: the blank line after each binary hunk is kept");
	mail_patches_free(p, nr);
	free(buf);

	/* Headers only, the diff line without a newline, nesting, junk before the first mail. */
	{
		static const char *const junk[] = {
			"From x Mon Sep 17 00:00:00 2001\n",
			"From x Mon Sep 17 00:00:00 2001\nFrom: a\nSubject: s\n\ndiff --git ",
			"\n\nFrom x Mon Sep 17 00:00:00 2001\nFrom: <>\nSubject: s\n\ndiff --git a b\n",
			"From: a@b\nSubject: s\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
			"Content-Type: multipart/mixed; boundary=y\n\n--y\n\ndiff --git a b\n--y--\n--x--\n",
			"Subject: =?UTF-8?Q?=\nFrom: =?\n\n\n\ndiff --git \n",
			"From: \"unterminated <a@b\nSubject: [[[[[[\n\n\ndiff --git a b\n-- \n",
		};

		for (i = 0; i < ARRAY_SIZE(junk); i++) {
			capture_begin();
			ret = mail_parse_buffer(&p, &nr, junk[i], strlen(junk[i]), "junk");
			capture_end();
			ok(ret == 0 ? nr == 1 && p[0].diff != NULL : !p && !nr,
			   "junk %zu: %s cleanly (%s)", i, ret ? "fails" : "parses", ret ? cap_buf : "");
			mail_patches_free(p, nr);
		}
	}
}

/* git format-patch without --thread writes no Message-Id: such a file goes past b4. */
static void test_message_id(void)
{
	static const char plain[] =
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"From: A U Thor <author@example.com>\n"
		"Subject: [PATCH] mm: x\n"
		"\n"
		"Message-Id: <in-the-body@example.org>\n";
	static const char second[] =
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 1/2] mm: x\n"
		"\n"
		"body\n"
		"From 1123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] mm: y\n"
		"message-ID: <2@example.org>\r\n"
		"\n";
	static const char bare[] = "Subject: x\nMessage-Id: <1@example.org>\n\nbody\n";

	ok(!mail_mbox_has_message_id(plain, strlen(plain)),
	   "message id: none in a plain format-patch file (one in its body does not count)");
	ok(mail_mbox_has_message_id(second, strlen(second)),
	   "message id: the second mail's, in any case, found");
	ok(mail_mbox_has_message_id(bare, strlen(bare)), "message id: a mail without a From line");
	ok(!mail_mbox_has_message_id("", 0), "message id: none in nothing");
}

/* The message id comes after "--": one beginning with '-' is not an option of b4's. */
static void test_b4_argv(void)
{
	struct strvec argv = STRVEC_INIT;
	size_t i;

	b4_am_argv(&argv, "/tmp/d", "-h@example.org", NULL);
	ok(argv.nr == 8 && !strcmp(argv.v[0], "b4") && !strcmp(argv.v[1], "am") &&
	   !strcmp(argv.v[6], "--") && !strcmp(argv.v[7], "-h@example.org"),
	   "b4 argv: the message id last, after --");
	for (i = 0; i < argv.nr; i++)
		if (!strcmp(argv.v[i], "--offline-mode"))
			break;
	ok(i == argv.nr, "b4 argv: a message id goes to lore, not offline");
	strvec_clear(&argv);
	b4_am_argv(&argv, "/tmp/d", NULL, "-thread.mbox");
	ok(argv.nr == 9 && !strcmp(argv.v[1], "--offline-mode") && !strcmp(argv.v[7], "-m") &&
	   !strcmp(argv.v[8], "-thread.mbox"), "b4 argv: an mbox offline, as -m's value");
	strvec_clear(&argv);
}

int main(void)
{
	char *probe = data_path("single.patch");

	if (access(probe, R_OK)) {
		printf("Bail out! %s is not readable: run from the source tree or set MKSERIES_SRC\n",
		       probe);
		free(probe);
		return 1;
	}
	free(probe);
	test_single();
	test_series("series-v2.mbox", 0);
	test_series("b4-am.mbx", 1);
	test_stable();
	test_qp();
	test_base64();
	test_subject_clean();
	test_trailers();
	test_errors();
	test_hostile();
	test_message_id();
	test_b4_argv();
	return tap_done();
}

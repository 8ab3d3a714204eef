/* test-export.c: unit tests for the pure parts of export: file names, prefixes, and the stable message it passes on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "apply/applyplan.h"
#include "export/export.h"
#include "lib/gitutil.h"
#include "patches/mail.h"
#include "tap.h"

static void check_slug(const char *subject, size_t max, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	export_subject_slug(&sb, subject, max);
	is_str(sb.buf, want, "slug of '%s'", subject);
	strbuf_release(&sb);
}

static void test_names(void)
{
	char *p;

	check_slug("mm: call pointers to ptes as ptep", 52, "mm-call-pointers-to-ptes-as-ptep");
	/* the name Debian's patches/series carries for this subject */
	check_slug("mm/secretmem: Fix NULL page->mapping dereference in page_is_secretmem()", 52,
		   "mm-secretmem-Fix-NULL-page-mapping-dereference-in-pa");
	check_slug("mm: add gamma, for \"quoted\" reasons", 52, "mm-add-gamma-for-quoted-reasons");
	check_slug("...a..b... ", 52, ".a.b");
	check_slug("a. .b", 52, "a.-.b");
	check_slug("mm/mremap: avoid expensive folio lookup on mremap folio pte batch", 52,
		   "mm-mremap-avoid-expensive-folio-lookup-on-mremap-fol");
	check_slug("x86: mremap speedup - Enable HAVE_MOVE_PUD", 10, "x86-mremap");
	check_slug("   ", 52, "");
	check_slug("Zoë: café", 52, "Zo-caf");

	p = export_default_prefix("6.12");
	is_str(p, "PATCH 6.12.y", "branch 6.12 mails as 6.12.y");
	free(p);
	p = export_default_prefix("6.12-arm64");
	is_str(p, "PATCH 6.12.y", "an arch's branch mails as its version");
	free(p);
	p = export_default_prefix("t");
	is_str(p, "PATCH t", "a branch that is no version keeps its name");
	free(p);
}

static void test_formats(void)
{
	enum export_format f = EXPORT_MBOX;

	ok(!export_format_parse(&f, "quilt") && f == EXPORT_QUILT, "quilt is a format");
	ok(!export_format_parse(&f, "rpm") && f == EXPORT_RPM, "rpm is a format");
	ok(export_format_parse(&f, "tar") == MKS_ECONFIG, "tar is not");
}

/* The stable message apply writes and export passes on: notes and trailers as written. */
static void test_stable_message(void)
{
	static const char mail[] =
		"From 94dab12d86cf77ff0b8f667dc98af6d997422cb4 Mon Sep 17 00:00:00 2001\n"
		"From: Dev Jain <dev.jain@arm.com>\n"
		"Date: Tue, 10 Jun 2025 09:20:42 +0530\n"
		"Subject: [PATCH] mm: call pointers to ptes as ptep\n"
		"\n"
		"Rename them.\n"
		"\n"
		"Link: https://lkml.kernel.org/r/20250610035043.75448-2-dev.jain@arm.com\n"
		"Reviewed-by:  Barry Song <baohua@kernel.org>\n"
		"Signed-off-by: Dev Jain <dev.jain@arm.com>\n"
		"[ bp: renamed on 6.12's move_ptes() ]\n"
		"---\n"
		"diff --git a/x b/x\n"
		"--- a/x\n"
		"+++ b/x\n"
		"@@ -1 +1 @@\n"
		"-a\n"
		"+b\n";
	struct kit_patch kp = { 0 };
	struct mail_patch *m = NULL;
	git_signature *me = NULL, *other = NULL;
	struct strbuf sb = STRBUF_INIT;
	size_t nr = 0;
	char *msg;

	kp.upstream = (char *)"94dab12d86cf";
	kp.subject = (char *)"mm: call pointers to ptes as ptep";
	git_signature_new(&me, "Back Porter", "bp@example.org", 0, 0);
	git_signature_new(&other, "Ex Porter", "ep@example.org", 0, 0);
	if (!ok(!mail_parse_buffer(&m, &nr, mail, sizeof(mail) - 1, "mail") && nr == 1,
		"the mail parses"))
		return;
	msg = stable_message(m, &kp, NULL, NULL, 0, me);
	is_str(msg, "mm: call pointers to ptes as ptep\n\n"
		    "commit 94dab12d86cf77ff0b8f667dc98af6d997422cb4 upstream.\n\n"
		    "Rename them.\n\n"
		    "Link: https://lkml.kernel.org/r/20250610035043.75448-2-dev.jain@arm.com\n"
		    "Reviewed-by:  Barry Song <baohua@kernel.org>\n"
		    "Signed-off-by: Dev Jain <dev.jain@arm.com>\n"
		    "[ bp: renamed on 6.12's move_ptes() ]\n"
		    "Signed-off-by: Back Porter <bp@example.org>\n",
	       "the full id from the From line; the trailer block and its note as written");

	strbuf_addstr(&sb, msg);
	stable_add_signoff(&sb, me);
	is_str(sb.buf, msg, "the backporter does not sign off twice");
	stable_add_signoff(&sb, other);
	ok(ends_with(sb.buf, "Signed-off-by: Back Porter <bp@example.org>\n"
			     "Signed-off-by: Ex Porter <ep@example.org>\n"),
	   "the next one to pass it on signs off after");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "subject\n\nno trailers here\n");
	stable_add_signoff(&sb, other);
	is_str(sb.buf, "subject\n\nno trailers here\n\nSigned-off-by: Ex Porter <ep@example.org>\n",
	       "a message without trailers gets a trailer block");
	free(msg);

	kp.upstream = NULL;
	free(m->upstream);
	m->upstream = NULL;
	msg = stable_message(m, &kp, NULL, NULL, 0, me);
	ok(starts_with(msg, "mm: call pointers to ptes as ptep\n\nRename them.\n") &&
	   ends_with(msg, "[ bp: renamed on 6.12's move_ptes() ]\n") &&
	   !strstr(msg, "Back Porter"),
	   "a patch of our own keeps its message: no upstream line, no sign-off added");
	free(msg);

	strbuf_release(&sb);
	mail_patches_free(m, nr);
	git_signature_free(me);
	git_signature_free(other);
}

/*
 * quilt names from subjects that would make a hidden file (".patch",
 * ".hidden-x.patch") or one taken for an option ("-x.patch"): none
 * starts with '.' or '-'; a subject with nothing left is named by its commit.
 */
static void test_quilt_names(void)
{
	static const char *const subjects[] = { ".", ".hidden thing", ". -dash first", "--" };
	struct export_patch v[ARRAY_SIZE(subjects)];
	struct export_series s = EXPORT_SERIES_INIT;
	struct strvec files = STRVEC_INIT;
	struct strbuf series = STRBUF_INIT;
	char tmpl[] = "/tmp/mkseries-test-export-XXXXXX", *dir, *path;
	size_t i;

	memset(v, 0, sizeof(v));
	for (i = 0; i < ARRAY_SIZE(subjects); i++) {
		v[i].subject = (char *)subjects[i];
		v[i].body = "";
		v[i].author_name = "A U Thor";
		v[i].author_email = "author@example.org";
		v[i].stat = "";
		v[i].diff = "";
		git_oid_fromstr(&v[i].commit, i == 3 ? "abcdef0123456789abcdef0123456789abcdef01" :
				"0123456789abcdef0123456789abcdef01234567");
	}
	s.branch = "t";
	s.refname = "refs/heads/t";
	s.v = v;
	s.nr = ARRAY_SIZE(subjects);
	if (!mkdtemp(tmpl)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	dir = path_join(tmpl, "quilt");
	ok(!export_write(&s, EXPORT_QUILT, dir, NULL, 0, &files), "written");
	is_str(files.nr > 0 ? files.v[0] : "", "features/all/patch-0123456789ab.patch",
	       "a subject of dots: named by its commit");
	is_str(files.nr > 1 ? files.v[1] : "", "features/all/hidden-thing.patch",
	       "'.hidden thing': not hidden");
	is_str(files.nr > 2 ? files.v[2] : "", "features/all/dash-first.patch",
	       "'. -dash first': no dash first");
	is_str(files.nr > 3 ? files.v[3] : "", "features/all/patch-abcdef012345.patch",
	       "'--': named by its commit");
	path = path_join(dir, "series");
	strbuf_read_file(&series, path);
	ok(!strstr(series.buf, "/.") && !strstr(series.buf, "/-"), "the series file names none");
	free(path);
	remove_tree(tmpl);
	strbuf_release(&series);
	strvec_clear(&files);
	free(dir);
}

int main(void)
{
	gitutil_init();
	test_names();
	test_formats();
	test_stable_message();
	test_quilt_names();
	return tap_done();
}

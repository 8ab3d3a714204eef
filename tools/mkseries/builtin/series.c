/* builtin/series.c: `mkseries series add`: start a series in the kit from a message id or an mbox, through b4. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "kit/select.h"
#include "kit/yamledit.h"
#include "lib/fs.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/util.h"
#include "patches/b4.h"
#include "patches/mail.h"
#include "patches/patchfile.h"

/* What b4 gave: the series' title and message id, and one text and parsed mail a patch. */
struct thread {
	char *title;		/* the cover letter's subject, else the first patch's */
	char *message_id;	/* the cover letter's, else the first patch's; without <> */
	struct strvec texts;	/* each patch's mail as b4 wrote it */
	struct mail_patch *mails;	/* mails[i] parsed from texts.v[i] */
	size_t nr;
	char **upstream;	/* per patch: the upstream id, or NULL */
};

static void thread_release(struct thread *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->upstream[i]);
	mail_patches_free(t->mails, t->nr);
	free(t->upstream);
	strvec_clear(&t->texts);
	free(t->title);
	free(t->message_id);
}

/* "<id>", "id", "https://lore.kernel.org/r/id/" or ".../all/id/": the message id alone. */
static char *bare_message_id(const char *arg)
{
	const char *p = arg, *at;
	size_t len;

	if (starts_with(p, "https://") || starts_with(p, "http://")) {
		const char *slash;

		at = strchr(p, '@');
		if (!at)
			return NULL;
		for (slash = at; slash > p && slash[-1] != '/'; slash--)
			;
		p = slash;
	}
	if (*p == '<')
		p++;
	len = strcspn(p, ">/ \t\n");
	if (!len || !memchr(p, '@', len))
		return NULL;
	/* RFC 5322: a message id is printable ASCII; anything else names no thread on lore */
	for (at = p; at < p + len; at++)
		if (*at < 0x21 || *at > 0x7e)
			return NULL;
	return xstrndup(p, len);
}

/* The Message-Id header of a mail's text, without <>, or NULL. */
static char *header_message_id(const char *text)
{
	const char *p = text;

	while (*p && *p != '\n') {
		if (!strncasecmp(p, "Message-Id:", 11))
			return bare_message_id(p + 11 + strspn(p + 11, " \t"));
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	return NULL;
}

/* The subject of a cover letter (a mail without a diff), or NULL. */
static char *cover_subject(const char *text, size_t len, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	struct mail_patch *mp = NULL;
	size_t nr = 0, mark = error_mark();
	char *ret = NULL;

	/* a cover letter has no diff: read its subject through a parse of its own */
	strbuf_add(&sb, text, len);
	strbuf_addstr(&sb, "\n---\ndiff --git a/x b/x\n");
	/* git format-patch --cover-letter's template left as it was is no title */
	if (!mail_parse_buffer(&mp, &nr, sb.buf, sb.len, name) && nr && mp[0].subject &&
	    *mp[0].subject && !strstr(mp[0].subject, "*** SUBJECT HERE ***"))
		ret = xstrdup(mp[0].subject);
	/* without one, the first patch's subject is the title: nothing to say */
	error_drop(mark);
	mail_patches_free(mp, nr);
	strbuf_release(&sb);
	return ret;
}

/* Whether mail `text` parses and carries a diff (a cover letter does not). */
static int mail_has_patch(const char *text, const char *name)
{
	struct mail_patch *mp = NULL;
	size_t nr = 0, mark = error_mark();
	int ret = !mail_parse_buffer(&mp, &nr, text, strlen(text), name) && nr;

	/* the parse proper says what is wrong with it */
	error_drop(mark);
	mail_patches_free(mp, nr);
	return ret;
}

/* Take texts.v[t->nr] as the next patch: 0, or -1 when it is not one patch with a subject. */
static int thread_add_patch(struct thread *t, const char *name)
{
	const char *text = t->texts.v[t->nr];
	struct mail_patch *mp = NULL;
	size_t nr = 0;

	if (mail_parse_buffer(&mp, &nr, text, strlen(text), name)) {
		/* the parse said why */
		error_flush();
		return -1;
	}
	if (nr != 1 || !mp[0].subject || !*mp[0].subject) {
		mail_patches_free(mp, nr);
		return print_error("mail %zu of %s is not one patch with a subject", t->nr + 1, name);
	}
	t->mails[t->nr] = mp[0];
	free(mp);
	if (t->mails[t->nr].upstream)
		t->upstream[t->nr] = xstrdup(t->mails[t->nr].upstream);
	t->nr++;
	return 0;
}

static void thread_alloc(struct thread *t)
{
	t->mails = xcalloc(t->texts.nr ? t->texts.nr : 1, sizeof(*t->mails));
	t->upstream = xcalloc(t->texts.nr ? t->texts.nr : 1, sizeof(*t->upstream));
}

/*
 * A file with no Message-Id (git format-patch without --thread) was never
 * posted: b4 cannot thread it, so its mails are taken as they are, in
 * order, a first mail without a diff as the cover letter.
 */
static int read_unposted(struct thread *t, const char *mbox, const struct strbuf *buf)
{
	struct strvec all = STRVEC_INIT;
	char *name = xstrfmt("'%s'", shown(mbox));
	size_t i = 0;
	int ret = 0;

	mail_split_mbox(&all, buf->buf, buf->len);
	if (!all.nr)
		strvec_push(&all, buf->buf);
	if (all.nr > 1 && !mail_has_patch(all.v[0], name)) {
		t->title = cover_subject(all.v[0], strlen(all.v[0]), name);
		i++;
	}
	for (; i < all.nr; i++)
		strvec_push(&t->texts, all.v[i]);
	strvec_clear(&all);
	thread_alloc(t);
	while (!ret && t->nr < t->texts.nr)
		ret = thread_add_patch(t, name);
	free(name);
	return ret;
}

/* Run b4 am on `msgid` (or the mbox) and read what it wrote into t. */
static int run_b4(struct thread *t, const char *msgid, const char *mbox)
{
	struct strbuf text = STRBUF_INIT, cover = STRBUF_INIT;
	int ret;

	ret = b4_am(&text, &cover, msgid, mbox, "'mkseries series add FILE'");
	if (ret)
		goto cleanup;
	if (cover.len) {
		t->message_id = header_message_id(cover.buf);
		t->title = cover_subject(cover.buf, cover.len, "cover letter");
	}
	mail_split_mbox(&t->texts, text.buf, text.len);
	thread_alloc(t);
	while (!ret && t->nr < t->texts.nr)
		ret = thread_add_patch(t, "b4's mbox");
	if (ret)
		goto cleanup;
	if (!t->message_id)
		t->message_id = header_message_id(t->texts.v[0]);
	if (!t->message_id && msgid)
		t->message_id = xstrdup(msgid);
cleanup:
	strbuf_release(&text);
	strbuf_release(&cover);
	return ret;
}

/* The thread of `msgid` from lore, or of the file `mbox`: through b4 unless it was never posted. */
static int read_thread(struct thread *t, const char *msgid, const char *mbox)
{
	struct strbuf buf = STRBUF_INIT;
	int ret;

	if (mbox && strbuf_read_file(&buf, mbox))
		ret = print_error("cannot read '%s': %s", shown(mbox), strerror(errno));
	else if (mbox && buf.len && !mail_mbox_has_message_id(buf.buf, buf.len))
		ret = read_unposted(t, mbox, &buf);
	else
		ret = run_b4(t, msgid, mbox);
	strbuf_release(&buf);
	if (!ret && !t->nr)
		ret = print_error("no patches%s%s", mbox ? " in " : "", mbox ? shown(mbox) : "");
	if (!ret && !t->title)
		t->title = xstrdup(t->mails[0].subject);
	return ret;
}

/*
 * With a mainline repository: the upstream id of each patch that has
 * none, as the newest commit reachable from `ref` whose summary is the
 * patch's subject (a series merged upstream keeps its subjects).
 */
static int find_upstream(struct thread *t, const char *mainline, const char *ref)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid oid;
	size_t left = 0, i;
	int ret = 0;

	for (i = 0; i < t->nr; i++)
		left += !t->upstream[i];
	if (!left)
		return 0;
	if (repo_open(&repo, mainline, 0))
		return MKS_ECONFIG;
	{
		git_object *obj = NULL;

		if (git_revwalk_new(&walk, repo) ||
		    git_revparse_single(&obj, repo, ref ? ref : "HEAD") ||
		    git_revwalk_push(walk, git_object_id(obj))) {
			ret = print_error_code(MKS_ECONFIG, "'%s' names no commit in '%s'",
					 ref ? ref : "HEAD", mainline);
			git_object_free(obj);
			goto cleanup;
		}
		git_object_free(obj);
	}
	while (left && !git_revwalk_next(&oid, walk)) {
		git_commit *c = NULL;
		const char *summary;

		if (git_commit_lookup(&c, repo, &oid))
			continue;
		summary = git_commit_summary(c);
		for (i = 0; summary && i < t->nr; i++) {
			if (t->upstream[i] || strcmp(summary, t->mails[i].subject))
				continue;
			t->upstream[i] = xstrdup(git_oid_tostr_s(&oid));
			left--;
		}
		git_commit_free(c);
	}
cleanup:
	git_revwalk_free(walk);
	git_repository_free(repo);
	return ret;
}

/* A series id from a title: lower case, runs of anything else one '-', at most 40 characters. */
static char *id_from_title(const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = title;

	/* "mm/mremap: optimize ..." -> "mremap-optimize-..." reads better without the "mm/" */
	if (starts_with(p, "mm/"))
		p += 3;
	for (; *p && sb.len < 40; p++) {
		if (isalnum((unsigned char)*p))
			strbuf_addch(&sb, tolower((unsigned char)*p));
		else if (sb.len && sb.buf[sb.len - 1] != '-')
			strbuf_addch(&sb, '-');
	}
	while (sb.len && sb.buf[sb.len - 1] == '-')
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb, NULL);
}

static int valid_id(const char *id)
{
	const char *p = id;

	if (!isdigit((unsigned char)*p) && !islower((unsigned char)*p))
		return 0;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p) && !islower((unsigned char)*p) && !strchr("._-", *p))
			return 0;
	return 1;
}

/*
 * The patch files of a new series, written so that they can be taken
 * back: what a file held before --force overwrote it, and whether the
 * series' directory (and patches/) were there.
 */
struct patch_files {
	char **files;		/* patches/<id>/NNNN-<subject>.patch, one a patch */
	struct strbuf *old;	/* what files[i] held when had[i] */
	int *had;
	size_t nr, written;	/* files[0..written) are written */
	char *dir;		/* patches/<id> */
	int had_dir, had_patches;
};

static void patch_files_release(struct patch_files *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		free(w->files[i]);
		strbuf_release(&w->old[i]);
	}
	free(w->files);
	free(w->old);
	free(w->had);
	free(w->dir);
}

/* Whether `rel` is there beneath the kit: 1, 0, or -1 (said) when it cannot be told safely. */
static int kit_has(const struct kit *kit, const char *rel)
{
	struct strbuf why = STRBUF_INIT;
	int there = fs_exists_beneath(kit->dir, rel, &why);

	if (there < 0)
		print_error("cannot write '%s': %s", rel, why.buf);
	strbuf_release(&why);
	return there;
}

/* Name the files and keep what --force would overwrite; nothing is written yet. */
static int patch_files_prepare(struct patch_files *w, const struct kit *kit, const char *id,
			       const struct thread *t, int force)
{
	size_t i;
	int there;

	w->nr = t->nr;
	w->files = xcalloc(t->nr, sizeof(*w->files));
	w->old = xcalloc(t->nr, sizeof(*w->old));
	w->had = xcalloc(t->nr, sizeof(*w->had));
	w->dir = xstrfmt("patches/%s", id);
	if ((w->had_patches = kit_has(kit, "patches")) < 0 || (w->had_dir = kit_has(kit, w->dir)) < 0)
		return -1;
	for (i = 0; i < t->nr; i++) {
		char *name = patch_file_name((unsigned)i + 1, t->mails[i].subject), *path;
		struct stat st;

		w->files[i] = xstrfmt("%s/%s", w->dir, name);
		free(name);
		strbuf_init(&w->old[i], 0);
		if ((there = kit_has(kit, w->files[i])) < 0)
			return -1;
		if (there && !force)
			return print_error("%s exists; use --force to overwrite", w->files[i]);
		path = path_join(kit->dir, w->files[i]);
		/* a link or a directory there is refused when written: nothing to keep */
		if (there && !lstat(path, &st) && S_ISREG(st.st_mode)) {
			if (strbuf_read_file(&w->old[i], path)) {
				print_error("cannot read '%s': %s", w->files[i], strerror(errno));
				free(path);
				return -1;
			}
			w->had[i] = 1;
		}
		free(path);
	}
	return 0;
}

static int patch_files_write(struct patch_files *w, const struct kit *kit, const struct thread *t)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	for (; w->written < w->nr; w->written++) {
		const char *text = t->texts.v[w->written];

		if (fs_write_beneath(kit->dir, w->files[w->written], text, strlen(text), 0644,
				     FS_REFUSE_LINK, &why)) {
			ret = print_error("cannot write '%s': %s", w->files[w->written], why.buf);
			break;
		}
	}
	strbuf_release(&why);
	return ret;
}

/* Take back what patch_files_write() wrote: the kit's files as they were. */
static void patch_files_undo(struct patch_files *w, const struct kit *kit)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;

	for (i = 0; i < w->written; i++) {
		int bad = w->had[i] ? fs_write_beneath(kit->dir, w->files[i], w->old[i].buf,
						       w->old[i].len, 0644, FS_REFUSE_LINK, &why)
				    : fs_unlink_beneath(kit->dir, w->files[i], &why);

		if (bad)
			print_error("cannot put '%s' back: %s", w->files[i], why.buf);
		strbuf_reset(&why);
	}
	w->written = 0;
	if (!w->had_dir)
		fs_rmdir_beneath(kit->dir, w->dir, &why);
	if (!w->had_patches)
		fs_rmdir_beneath(kit->dir, "patches", &why);
	strbuf_release(&why);
}

/*
 * A subject or title as series.yaml keeps it: one line of text, so a
 * control character a mail encoded (ESC, DEL) is written as it is shown,
 * "\x1b", never as itself.
 */
static char *kit_line(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_shown(&sb, s, strlen(s), 0);
	return strbuf_detach(&sb, NULL);
}

static int add_to_kit(struct kit *kit, const char *id, const struct thread *t, char **files)
{
	struct yaml_patch_entry *p = xcalloc(t->nr, sizeof(*p));
	struct yaml_series_entry e = { 0 };
	struct strbuf text = STRBUF_INIT, orig = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	char *path = path_join(kit->dir, "series.yaml"), *dir = xstrdup(kit->dir), *link = NULL;
	char *title = kit_line(t->title);
	size_t i;
	int ret = 0;

	for (i = 0; i < t->nr; i++) {
		char *subject = kit_line(t->mails[i].subject);

		strvec_push(&lines, subject);
		free(subject);
	}
	for (i = 0; i < t->nr; i++) {
		p[i].subject = lines.v[i];
		p[i].upstream = t->upstream[i];
		p[i].file = files[i];
	}
	e.id = id;
	e.title = title;
	e.message_id = t->message_id;
	if (t->message_id)
		e.link = link = xstrfmt("https://lore.kernel.org/r/%s", t->message_id);
	e.patches = p;
	e.nr_patches = t->nr;
	if (strbuf_read_file(&text, path)) {
		ret = print_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	strbuf_add(&orig, text.buf, text.len);
	if (yamledit_add_series(&text, "series.yaml", &e) ||
	    yamledit_commit(kit, dir, path, &text, &orig, "the new series")) {
		ret = -1;
		goto cleanup;
	}
cleanup:
	strbuf_release(&text);
	strbuf_release(&orig);
	strvec_clear(&lines);
	free(title);
	free(p);
	free(link);
	free(path);
	free(dir);
	return ret;
}

static void print_added(const char *id, const struct thread *t, char **files, const char *mainline)
{
	size_t i;

	printf("series '%s': %s\n", id, shown(t->title));
	if (t->message_id)
		printf("  link: https://lore.kernel.org/r/%s\n", t->message_id);
	for (i = 0; i < t->nr; i++)
		printf("  %zu/%zu %-12.12s %s\n      %s\n", i + 1, t->nr,
		       t->upstream[i] ? t->upstream[i] : "(no id)", shown(t->mails[i].subject),
		       files[i]);
	printf("added to series.yaml; patches in patches/%s/\n", id);
	if (!mainline)
		printf("the patches carry no upstream ids: with --mainline DIR they are found by "
		       "subject, and 'mkseries fixups --mainline DIR' lists the fixes that "
		       "must travel with them\n");
}

static int series_add(int argc, const char **argv)
{
	const char *idopt = NULL, *mainline = NULL, *ref = NULL;
	int force = 0, ret = 0;
	const struct option opts[] = {
		OPT_STRING("id", 0, &idopt, "ID", "the series' id (default: from the cover letter's subject)"),
		OPT_STRING("mainline", 0, &mainline, "DIR",
		  "find upstream ids by subject in this mainline repository, then list missing fixups"),
		OPT_STRING("ref", 0, &ref, "REF", "with --mainline: walk from REF (default HEAD)"),
		OPT_BOOL("force", 'f', &force, "overwrite patch files that exist"),
		OPT_END(),
	};
	const char *usage = "mkseries series add (MESSAGE-ID | MBOX) [--id ID] [--mainline DIR [--ref REF]] [--force]";
	struct thread t = { .texts = STRVEC_INIT };
	struct kit kit = KIT_INIT;
	struct stat st;
	struct patch_files pf = { 0 };
	char *msgid = NULL, *id = NULL;
	const char *mbox = NULL;

	if (parse_options(argc, argv, opts, usage) != 1) {
		print_error("name one message id or mbox file");
		usage_with_options(usage, opts, 2);
	}
	if (ref && !mainline) {
		print_error("--ref needs --mainline");
		usage_with_options(usage, opts, 2);
	}
	if (!stat(argv[0], &st))
		mbox = argv[0];
	else if (!(msgid = bare_message_id(argv[0]))) {
		print_error("'%s' is neither a file nor a message id (<id@host>, or a lore link)",
		      shown(argv[0]));
		return 2;
	}
	if (mbox && !S_ISREG(st.st_mode)) {
		print_error("'%s' is not a regular file", shown(mbox));
		return 2;
	}
	if (idopt && !valid_id(idopt)) {
		print_error("--id '%s': a series id is [a-z0-9][a-z0-9._-]*", shown(idopt));
		return 2;
	}
	if (kit_open(&kit))
		return 2;
	ret = read_thread(&t, msgid, mbox);
	if (!ret && mainline)
		ret = find_upstream(&t, mainline, ref);
	if (ret)
		goto cleanup;
	id = idopt ? xstrdup(idopt) : id_from_title(t.title);
	if (!valid_id(id)) {
		ret = print_error_code(MKS_ECONFIG, "cannot make a series id from '%s': give one with --id",
				 shown(t.title));
		goto cleanup;
	}
	if (kit_find_series(&kit, id)) {
		ret = print_error_code(MKS_ECONFIG, "the kit has a series '%s' already: give another with --id", id);
		goto cleanup;
	}
	/* all or nothing: a series.yaml that does not take the series takes back its files */
	if (patch_files_prepare(&pf, &kit, id, &t, force) || patch_files_write(&pf, &kit, &t) ||
	    add_to_kit(&kit, id, &t, pf.files)) {
		patch_files_undo(&pf, &kit);
		ret = -1;
		goto cleanup;
	}
	print_added(id, &t, pf.files, mainline);
	if (mainline) {
		const char *fargv[6] = { "fixups", "--mainline", mainline, NULL, NULL, NULL };

		if (ref) {
			fargv[3] = "--ref";
			fargv[4] = ref;
		}
		fflush(stdout);
		printf("fixups of the kit, the new series with them:\n");
		ret = cmd_fixups(ref ? 5 : 3, fargv);
		/* fixups gave the command that adds them; 1 must not read as a failed add */
		if (ret == 1)
			fprintf(stderr, "hint: series '%s' is added all the same: exit status 1 says "
				"that fixes it needs are missing from the kit\n", id);
		goto out;
	}
cleanup:
	ret = mks_exit_status(ret);
out:
	patch_files_release(&pf);
	free(id);
	free(msgid);
	thread_release(&t);
	kit_release(&kit);
	return ret;
}

int cmd_series(int argc, const char **argv)
{
	const char *help[] = { "add", "--help", NULL };

	if (argc < 2) {
		print_error("which 'series' subcommand? 'mkseries series add --help' says how to add one");
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return series_add(2, help);
	if (!strcmp(argv[1], "add"))
		return series_add(argc - 1, argv + 1);
	print_error("unknown 'series' subcommand '%s' (add)", shown(argv[1]));
	return 2;
}

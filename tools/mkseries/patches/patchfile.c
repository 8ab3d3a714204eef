/* patches/patchfile.c: commits written as git format-patch files into the kit, and their numbering. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fs.h"
#include "lib/gitutil.h"
#include "patches/patchfile.h"
#include "lib/util.h"

static int title_char(int c)
{
	return isalnum(c) || c == '.' || c == '_';
}

char *patch_file_name(unsigned number, const char *subject)
{
	/* as git's format-patch: the whole name within 64 bytes with ".patch" */
	const size_t max = 64 - (sizeof(".patch") - 1) - 1;
	struct strbuf sb = STRBUF_INIT;
	size_t start;
	int space = 0;

	strbuf_addf(&sb, "%04u-", number);
	start = sb.len;
	for (; *subject && sb.len < max; subject++) {
		unsigned char c = *subject;

		if (!title_char(c)) {
			space = 1;
			continue;
		}
		if (c == '.' && sb.len > start && sb.buf[sb.len - 1] == '.')
			continue;
		if (space && sb.len > start)
			strbuf_addch(&sb, '-');
		space = 0;
		strbuf_addch(&sb, c);
	}
	while (sb.len > start && (sb.buf[sb.len - 1] == '.' || sb.buf[sb.len - 1] == '-'))
		strbuf_setlen(&sb, sb.len - 1);
	if (sb.len == start)
		strbuf_addstr(&sb, "patch");
	strbuf_addstr(&sb, ".patch");
	return strbuf_detach(&sb, NULL);
}

/* libgit2's initialiser leaves trailing fields to C's zeroing, as it means to. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const git_email_create_options email_options = GIT_EMAIL_CREATE_OPTIONS_INIT;
#pragma GCC diagnostic pop

/*
 * git_email_create_from_commit(), limited to the files the commit
 * changes: libgit2's tree diff would read every tree of a kernel to find
 * them; tree_delta_diff() reads only those that differ.
 */
static int commit_email(git_buf *mail, git_repository *repo, git_commit *commit)
{
	git_email_create_options opts = email_options;
	struct tree_delta changed = { 0 };
	git_commit *parent = NULL;
	git_tree *old = NULL, *new = NULL;
	const char **paths = NULL;
	size_t i;
	int err;

	if ((git_commit_parentcount(commit) &&
	     ((err = git_commit_parent(&parent, commit, 0)) < 0 ||
	      (err = git_commit_tree(&old, parent)) < 0)) ||
	    (err = git_commit_tree(&new, commit)) < 0 ||
	    (err = tree_delta_diff(&changed, repo, old, new)) < 0)
		goto cleanup;
	paths = xcalloc(changed.nr + 1, sizeof(*paths));
	for (i = 0; i < changed.nr; i++)
		paths[i] = changed.v[i].new_file.path;
	if (changed.nr) {
		opts.diff_opts.pathspec.strings = (char **)paths;
		opts.diff_opts.pathspec.count = changed.nr;
		opts.diff_opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	err = git_email_create_from_commit(mail, commit, &opts);
cleanup:
	free(paths);
	tree_delta_release(&changed);
	git_tree_free(new);
	git_tree_free(old);
	git_commit_free(parent);
	return err;
}

/*
 * The length of `mail` (git_email_create_from_commit()'s) without the
 * "--\nlibgit2 <version>" signature libgit2 always ends it with: a
 * kit's patch is the same whichever libgit2 wrote it.
 */
static size_t mail_without_signature(const char *mail, size_t len)
{
	size_t end = len, at;

	while (end && mail[end - 1] == '\n')
		end--;
	for (at = end; at && mail[at - 1] != '\n'; at--)
		;
	if (at >= 3 && end - at > 8 && !memcmp(mail + at, "libgit2 ", 8) &&
	    !memcmp(mail + at - 3, "--\n", 3) && (at == 3 || mail[at - 4] == '\n'))
		return at - 3;
	return len;
}

int patch_write_commit(char **rel, git_repository *repo, const git_oid *oid, const char *kit_dir,
		       const char *file, const char *dir, unsigned number, int force)
{
	git_commit *commit = NULL;
	git_buf mail = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *name = NULL;
	int err, ret = 0;

	*rel = NULL;
	err = git_commit_lookup(&commit, repo, oid);
	if (err < 0) {
		ret = gitutil_error(err, "cannot read commit %s", oid_short(oid));
		goto cleanup;
	}
	if (git_commit_parentcount(commit) > 1) {
		ret = error("%s is a merge; it cannot be written as a patch", oid_short(oid));
		goto cleanup;
	}
	if (file) {
		*rel = xstrdup(file);
	} else {
		name = patch_file_name(number, git_commit_summary(commit) ? git_commit_summary(commit) : "");
		*rel = xstrfmt("%s/%s", dir, name);
	}
	err = fs_exists_beneath(kit_dir, *rel, &why);
	if (err < 0) {
		ret = error("cannot write '%s': %s", shown(*rel), why.buf);
		goto cleanup;
	}
	if (!force && err) {
		ret = error("%s exists; use --force to overwrite", *rel);
		goto cleanup;
	}
	err = commit_email(&mail, repo, commit);
	if (err < 0) {
		ret = gitutil_error(err, "cannot make a patch of %s", oid_short(oid));
		goto cleanup;
	}
	if (fs_write_beneath(kit_dir, *rel, mail.ptr, mail_without_signature(mail.ptr, mail.size),
			     0644, FS_REFUSE_LINK, &why))
		ret = error("cannot write '%s': %s", shown(*rel), why.buf);
cleanup:
	if (ret) {
		free(*rel);
		*rel = NULL;
	}
	git_buf_dispose(&mail);
	git_commit_free(commit);
	strbuf_release(&why);
	free(name);
	return ret;
}

unsigned patch_dir_last_number(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	unsigned last = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		/* a temporary file a killed writer left ("<name>.tmp.<pid>") numbers nothing */
		if (isdigit((unsigned char)n[0]) && isdigit((unsigned char)n[1]) &&
		    isdigit((unsigned char)n[2]) && isdigit((unsigned char)n[3]) && n[4] == '-' &&
		    !strstr(n, ".tmp.")) {
			unsigned v = (unsigned)strtoul(n, NULL, 10);

			if (v > last)
				last = v;
		}
	}
	closedir(d);
	return last;
}

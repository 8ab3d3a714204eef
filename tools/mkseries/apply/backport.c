/* apply/backport.c: the backporter's loop: apply a patch into a git worktree as well as it can, and turn the result into the branch's backport. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/apply.h"
#include "apply/backport.h"
#include "lib/fs.h"
#include "patches/patchfile.h"
#include "lib/gitutil.h"

void backport_result_release(struct backport_result *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		free(r->files[i].path);
		free(r->files[i].moved);
		free(r->files[i].rej);
	}
	free(r->files);
	memset(r, 0, sizeof(*r));
}

int backport_result_needs_work(const struct backport_result *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->files[i].how == BACKPORT_CONFLICT || r->files[i].how == BACKPORT_PARTIAL)
			return 1;
	return 0;
}

const char *backport_how_name(enum backport_how how)
{
	switch (how) {
	case BACKPORT_APPLIED:
		return "applied";
	case BACKPORT_MERGED:
		return "merged";
	case BACKPORT_CONFLICT:
		return "conflict";
	case BACKPORT_PARTIAL:
		return "rejected";
	}
	return "?";
}

static struct backport_file *add_file(struct backport_result *r, const char *path,
				      enum backport_how how)
{
	struct backport_file *f;

	ALLOC_GROW(r->files, r->nr + 1, r->alloc);
	f = &r->files[r->nr++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->how = how;
	return f;
}

/*
 * Write `data` as file `path` of the tree at `dir` with `mode` (a git
 * file mode), beneath `dir` only (fs.h): MKS_EUNSAFE with the reason in
 * `report` when a symbolic link is on the way, -1 (printed) on others.
 */
static int write_tree_file(const char *dir, const char *path, const void *data, size_t len,
			   unsigned mode, struct strbuf *report)
{
	struct strbuf why = STRBUF_INIT;
	int ret;

	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(data, len);

		ret = fs_symlink_beneath(dir, path, target, &why);
		free(target);
	} else {
		ret = fs_write_beneath(dir, path, data, len,
				       mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644, 0, &why);
	}
	if (ret == MKS_EUNSAFE)
		strbuf_addf(report, "%s: %s: nothing is written beyond a symbolic link\n",
			    shown(path), why.buf);
	else if (ret)
		ret = error("cannot write '%s' in '%s': %s", shown(path), dir, why.buf);
	strbuf_release(&why);
	return ret;
}

/* The directories above removed file `path` that it left empty go, as git removes them. */
static void remove_emptied_dirs(const char *dir, const char *path)
{
	struct strbuf why = STRBUF_INIT;
	char *p = xstrdup(path), *slash;

	while ((slash = strrchr(p, '/'))) {
		*slash = '\0';
		strbuf_reset(&why);
		if (fs_rmdir_beneath(dir, p, &why) != 1)
			break;
	}
	strbuf_release(&why);
	free(p);
}

/*
 * Make file `path` of the tree at `dir` what it is in `tree_id` (a tree,
 * or the commit the work tree was checked out from; absent: removed).
 */
static int sync_path(git_repository *repo, const git_oid *tree_id, const char *dir,
		     const char *path, struct strbuf *report)
{
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	struct strbuf why = STRBUF_INIT;
	int err, ret = 0;

	if ((err = git_object_lookup(&obj, repo, tree_id, GIT_OBJECT_ANY)) < 0 ||
	    (err = git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE)) < 0) {
		ret = gitutil_error(err, "cannot read tree %s", oid_short(tree_id));
		goto cleanup;
	}
	err = git_tree_entry_bypath(&e, tree, path);
	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		ret = fs_unlink_beneath(dir, path, &why);
		if (ret == MKS_EUNSAFE)
			strbuf_addf(report, "%s: %s: nothing is removed beyond a symbolic link\n",
				    shown(path), why.buf);
		else if (ret)
			ret = error("cannot remove '%s' in '%s': %s", shown(path), dir, why.buf);
		else
			remove_emptied_dirs(dir, path);
		goto cleanup;
	}
	if (err < 0 || (err = git_blob_lookup(&blob, repo, git_tree_entry_id(e))) < 0) {
		ret = gitutil_error(err, "cannot read '%s'", path);
		goto cleanup;
	}
	ret = write_tree_file(dir, path, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob),
			      git_tree_entry_filemode(e), report);
cleanup:
	strbuf_release(&why);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_object_free(obj);
	return ret;
}

/* A one-file diff: the header git writes for `path`, then `body`. */
static void file_diff(struct strbuf *sb, const char *path, const char *body, size_t len)
{
	strbuf_addf(sb, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", path, path, path, path);
	strbuf_add(sb, body, len);
}

/* The text of hunk `h` of `patch`, header line first, as a diff carries it. */
static int hunk_text(struct strbuf *sb, git_patch *patch, size_t h)
{
	const git_diff_hunk *hunk;
	size_t i, n;
	int err;

	if ((err = git_patch_get_hunk(&hunk, &n, patch, h)) < 0)
		return gitutil_error(err, "cannot read hunk %zu", h + 1);
	strbuf_add(sb, hunk->header, hunk->header_len);
	if (!hunk->header_len || hunk->header[hunk->header_len - 1] != '\n')
		strbuf_addch(sb, '\n');
	for (i = 0; i < n; i++) {
		const git_diff_line *l;

		if ((err = git_patch_get_line_in_hunk(&l, patch, h, i)) < 0)
			return gitutil_error(err, "cannot read hunk %zu", h + 1);
		switch (l->origin) {
		case GIT_DIFF_LINE_CONTEXT:
		case GIT_DIFF_LINE_ADDITION:
		case GIT_DIFF_LINE_DELETION:
			strbuf_addch(sb, l->origin);
			strbuf_add(sb, l->content, l->content_len);
			break;
		default:
			/* the "\ No newline at end of file" of the line before */
			strbuf_addstr(sb, "\\ No newline at end of file\n");
			continue;
		}
		if (!l->content_len || l->content[l->content_len - 1] != '\n')
			strbuf_addch(sb, '\n');
	}
	return 0;
}

/* The blob an `index` line names by its abbreviated id, or NULL. */
static git_blob *blob_by_prefix(git_repository *repo, const git_diff_file *f)
{
	git_object *o = NULL;

	if (!f->id_abbrev || git_oid_is_zero(&f->id))
		return NULL;
	if (git_object_lookup_prefix(&o, repo, &f->id, f->id_abbrev, GIT_OBJECT_BLOB) < 0) {
		git_error_clear();
		return NULL;
	}
	return (git_blob *)o;
}

/* libgit2's initialisers leave trailing fields to C's zeroing, as they mean to. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const git_merge_file_input merge_input_init = GIT_MERGE_FILE_INPUT_INIT;
static const git_merge_file_options merge_options_init = GIT_MERGE_FILE_OPTIONS_INIT;
#pragma GCC diagnostic pop

/* The three-way merge of file `d`; 1 when the blobs are not there to merge from. */
static int merge_three_way(struct backport_result *r, git_repository *repo, git_tree *onto,
			   const char *dir, const git_diff_delta *d, struct strbuf *report)
{
	git_blob *old = NULL, *new = NULL, *ours = NULL;
	git_tree_entry *e = NULL;
	git_merge_file_result res = { 0 };
	git_merge_file_input in_old = merge_input_init, in_ours = merge_input_init,
			     in_new = merge_input_init;
	git_merge_file_options opts = merge_options_init;
	git_repository *wt = NULL;
	int err, ret = 1;

	if (d->status != GIT_DELTA_MODIFIED)
		return 1;
	if (!(old = blob_by_prefix(repo, &d->old_file)) || !(new = blob_by_prefix(repo, &d->new_file)))
		goto cleanup;
	if (git_tree_entry_bypath(&e, onto, d->old_file.path) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    git_blob_lookup(&ours, repo, git_tree_entry_id(e)) < 0) {
		git_error_clear();
		goto cleanup;
	}
	in_old.ptr = git_blob_rawcontent(old);
	in_old.size = (size_t)git_blob_rawsize(old);
	in_old.path = d->old_file.path;
	in_ours.ptr = git_blob_rawcontent(ours);
	in_ours.size = (size_t)git_blob_rawsize(ours);
	in_ours.path = d->old_file.path;
	in_ours.mode = git_tree_entry_filemode(e);
	in_new.ptr = git_blob_rawcontent(new);
	in_new.size = (size_t)git_blob_rawsize(new);
	in_new.path = d->new_file.path;
	in_new.mode = git_tree_entry_filemode(e);
	opts.ancestor_label = "upstream base";
	opts.our_label = "tree";
	opts.their_label = "upstream patch";
	/* the size git would write them in, from the tree's attributes: the check reads them so */
	wt = backport_attr_repo(dir);
	opts.marker_size = (unsigned short)backport_marker_size(wt, d->new_file.path);
	if ((err = git_merge_file(&res, &in_old, &in_ours, &in_new, &opts)) < 0) {
		ret = gitutil_error(err, "cannot merge '%s'", d->old_file.path);
		goto cleanup;
	}
	ret = write_tree_file(dir, d->new_file.path, res.ptr, res.len, git_tree_entry_filemode(e),
			      report);
	if (!ret)
		add_file(r, d->new_file.path, res.automergeable ? BACKPORT_MERGED :
			 BACKPORT_CONFLICT)->markers = res.automergeable ? 0 : opts.marker_size;
cleanup:
	git_repository_free(wt);
	git_merge_file_result_free(&res);
	git_tree_entry_free(e);
	git_blob_free(ours);
	git_blob_free(new);
	git_blob_free(old);
	return ret;
}

/*
 * Where hunk `h` of `patch` finds its preimage (context and removed
 * lines) in `path` of `tree_id` (a tree or a commit), as an offset from `expected` (a
 * 1-based line): the match nearest to it. 0 when it cannot tell.
 */
static long hunk_offset(git_repository *repo, const git_oid *tree_id, const char *path,
			git_patch *patch, size_t h, long expected)
{
	struct strvec pre = STRVEC_INIT, img = STRVEC_INIT;
	git_object *obj = NULL;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	const git_diff_hunk *hunk;
	size_t i, n, at;
	long best = 0, found = 0;

	/* tree_id may be the commit the tree is checked out from */
	if (git_patch_get_hunk(&hunk, &n, patch, h) < 0 ||
	    git_object_lookup(&obj, repo, tree_id, GIT_OBJECT_ANY) < 0 ||
	    git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) < 0 ||
	    git_tree_entry_bypath(&e, tree, path) < 0 ||
	    git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0)
		goto cleanup;
	for (i = 0; i < n; i++) {
		const git_diff_line *l;

		if (git_patch_get_line_in_hunk(&l, patch, h, i) < 0)
			goto cleanup;
		if (l->origin == GIT_DIFF_LINE_CONTEXT || l->origin == GIT_DIFF_LINE_DELETION) {
			char *line = xstrndup(l->content, l->content_len);

			strvec_push(&pre, line);
			free(line);
		}
	}
	{
		const char *b = git_blob_rawcontent(blob), *end = b + git_blob_rawsize(blob);

		while (b < end) {
			const char *nl = memchr(b, '\n', end - b);
			char *line = xstrndup(b, nl ? (size_t)(nl + 1 - b) : (size_t)(end - b));

			strvec_push(&img, line);
			free(line);
			b = nl ? nl + 1 : end;
		}
	}
	for (at = 0; pre.nr && at + pre.nr <= img.nr; at++) {
		long off = (long)at + 1 - expected;

		for (i = 0; i < pre.nr && !strcmp(img.v[at + i], pre.v[i]); i++)
			;
		if (i == pre.nr && (!found || labs(off) < labs(best))) {
			best = off;
			found = 1;
		}
	}
cleanup:
	git_error_clear();
	strvec_clear(&img);
	strvec_clear(&pre);
	git_blob_free(blob);
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_object_free(obj);
	return best;
}

/* Whether `name` is in the tree at `dir` or is a file of `r`: a reject file must not replace it. */
static int name_taken(const char *dir, const struct backport_result *r, const char *name)
{
	char *abs = path_join(dir, name);
	struct stat st;
	int taken = !lstat(abs, &st);
	size_t i;

	free(abs);
	for (i = 0; !taken && i < r->nr; i++)
		taken = !strcmp(r->files[i].path, name) ||
			(r->files[i].rej && !strcmp(r->files[i].rej, name));
	return taken;
}

/*
 * Where the rejected hunks of `path` go: <path>.rej, as patch(1) and git
 * apply --reject name it, unless that or its .why report would replace a
 * file the tree has (a tracked "X.rej" is the kernel's to keep); then
 * <path>.mkseries.rej, <path>.mkseries-2.rej and so on.
 */
static char *reject_name(const char *dir, const struct backport_result *r, const char *path)
{
	unsigned n;

	for (n = 0;; n++) {
		char *name = !n ? xstrfmt("%s.rej", path) :
			     n == 1 ? xstrfmt("%s.mkseries.rej", path) :
			     xstrfmt("%s.mkseries-%u.rej", path, n);
		char *why = xstrfmt("%s.why", name);
		int taken = name_taken(dir, r, name) || name_taken(dir, r, why);

		free(why);
		if (!taken)
			return name;
		free(name);
	}
}

/* Hunk by hunk: each that applies is applied, the others go to <file>.rej. */
static int apply_hunks(struct backport_result *r, git_repository *repo, const git_oid *onto,
		       const char *dir, const git_diff_delta *d, git_patch *patch,
		       struct strbuf *unsafe)
{
	struct strbuf rej = STRBUF_INIT, why = STRBUF_INIT, one = STRBUF_INIT,
		      hunk = STRBUF_INIT, report = STRBUF_INIT, moved = STRBUF_INIT;
	long shift = 0;
	const char *path = d->new_file.path;
	size_t h, nh = git_patch_num_hunks(patch);
	struct backport_file *f;
	git_oid cur = *onto, next;
	char *name = NULL;
	int err, ret = 0;

	/* a file created or removed whole, or renamed, is left whole to the user */
	if (d->status != GIT_DELTA_MODIFIED)
		nh = 0;
	f = add_file(r, path, BACKPORT_PARTIAL);
	f->hunks = git_patch_num_hunks(patch);
	f->rej = reject_name(dir, r, path);
	if (!nh) {
		git_buf whole = { 0 };

		if ((err = git_patch_to_buf(&whole, patch)) < 0) {
			ret = gitutil_error(err, "cannot write the diff of '%s'", path);
			goto cleanup;
		}
		strbuf_add(&rej, whole.ptr, whole.size);
		git_buf_dispose(&whole);
		strbuf_addf(&why, "'%s' is %s by the patch; its change is left whole in %s\n",
			    path, d->status == GIT_DELTA_ADDED ? "created" :
			    d->status == GIT_DELTA_DELETED ? "deleted" : "renamed or copied", f->rej);
		f->rejected = f->hunks ? f->hunks : 1;
	}
	for (h = 0; h < nh; h++) {
		strbuf_reset(&hunk);
		strbuf_reset(&one);
		strbuf_reset(&report);
		if ((ret = hunk_text(&hunk, patch, h)))
			goto cleanup;
		file_diff(&one, path, hunk.buf, hunk.len);
		err = apply_diff(&next, repo, &cur, one.buf, one.len, &report);
		if (!err) {
			const git_diff_hunk *gh = NULL;
			size_t nl;
			long off;

			if (git_patch_get_hunk(&gh, &nl, patch, h) == 0) {
				off = hunk_offset(repo, &cur, path, patch, h, gh->old_start + shift);
				if (off) {
					strbuf_addf(&moved, "%shunk %zu at offset %+ld line%s",
						    moved.len ? ", " : "", h + 1, off,
						    labs(off) == 1 ? "" : "s");
				}
				shift += (long)gh->new_lines - (long)gh->old_lines;
			}
			cur = next;
			continue;
		}
		if (err != MKS_EAPPLYFAIL) {
			if (err == MKS_EUNSAFE)
				strbuf_add(unsafe, report.buf, report.len);
			ret = err == MKS_EUNSAFE ? err : -1;
			goto cleanup;
		}
		if (!rej.len)
			strbuf_addf(&rej, "--- a/%s\n+++ b/%s\n", path, path);
		strbuf_add(&rej, hunk.buf, hunk.len);
		strbuf_addf(&why, "hunk %zu of %zu:\n", h + 1, nh);
		strbuf_add_indented(&why, report.buf, "  ");
		f->rejected++;
	}
	if (!f->rejected) {
		/* every hunk applied on its own: not what apply_diff() said of the whole */
		f->how = BACKPORT_APPLIED;
	} else {
		if ((ret = write_tree_file(dir, f->rej, rej.buf, rej.len, GIT_FILEMODE_BLOB, unsafe)))
			goto cleanup;
		name = xstrfmt("%s.why", f->rej);
		if ((ret = write_tree_file(dir, name, why.buf, why.len, GIT_FILEMODE_BLOB, unsafe)))
			goto cleanup;
	}
	if (moved.len)
		f->moved = strbuf_detach(&moved, NULL);
	if (nh)
		ret = sync_path(repo, &cur, dir, path, unsafe);
cleanup:
	strbuf_release(&moved);
	free(name);
	strbuf_release(&report);
	strbuf_release(&hunk);
	strbuf_release(&one);
	strbuf_release(&why);
	strbuf_release(&rej);
	return ret;
}

/*
 * The blob each file of `r` is in the tree at `dir` as the loop left it
 * (zero: not there), hashed as git add would, without writing it: what
 * backport_note() compares the resolution with.
 */
static int note_written(struct backport_result *r, const char *dir)
{
	struct strbuf target = STRBUF_INIT;
	size_t i;
	int err = 0;

	for (i = 0; i < r->nr && !err; i++) {
		struct backport_file *f = &r->files[i];
		char *abs = path_join(dir, f->path);
		struct stat st;

		memset(&f->wrote, 0, sizeof(f->wrote));
		if (lstat(abs, &st)) {
			/* not there, or a file where the patch had a directory */
			if (errno != ENOENT && errno != ENOTDIR)
				err = error("cannot read '%s': %s", abs, strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			ssize_t n;

			strbuf_reset(&target);
			strbuf_grow(&target, (size_t)st.st_size + 1);
			n = readlink(abs, target.buf, (size_t)st.st_size + 1);
			if (n < 0 || n > st.st_size ||
			    git_odb_hash(&f->wrote, target.buf, (size_t)n, GIT_OBJECT_BLOB) < 0)
				err = error("cannot read the link '%s'", abs);
		} else if (S_ISREG(st.st_mode) &&
			   git_odb_hashfile(&f->wrote, abs, GIT_OBJECT_BLOB) < 0) {
			err = gitutil_error(-1, "cannot read '%s'", abs);
		}
		f->wrote_known = !err;
		free(abs);
	}
	strbuf_release(&target);
	return err;
}

int backport_apply_in_tree(struct backport_result *r, struct strbuf *report, git_repository *repo,
			   const git_oid *onto, const char *dir, const char *diff, size_t len)
{
	git_diff *gd = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_oid cur = *onto;
	size_t i, k = 0, n, *order = NULL;
	int err, ret = 0;

	if ((ret = diff_check_paths(diff, len, report)))
		return ret;
	if ((err = git_commit_lookup(&commit, repo, onto)) < 0 ||
	    (err = git_commit_tree(&tree, commit)) < 0) {
		ret = gitutil_error(err, "cannot read commit %s", oid_short(onto));
		goto cleanup;
	}
	if ((err = git_diff_from_buffer(&gd, diff, len)) < 0) {
		ret = gitutil_error(err, "cannot read the patch");
		goto cleanup;
	}
	n = git_diff_num_deltas(gd);
	/*
	 * Files removed first, and each file applied onto the tree with the
	 * files before it: a patch that replaces a link or a directory by a
	 * directory or a file of the same name goes in as git am does.
	 */
	order = xcalloc(n ? n : 1, sizeof(*order));
	for (i = 0; i < n; i++)
		if (git_diff_get_delta(gd, i)->status == GIT_DELTA_DELETED)
			order[k++] = i;
	for (i = 0; i < n; i++)
		if (git_diff_get_delta(gd, i)->status != GIT_DELTA_DELETED)
			order[k++] = i;
	for (k = 0; k < n && !ret; k++) {
		const git_diff_delta *d = git_diff_get_delta(gd, order[k]);
		git_patch *patch = NULL;
		git_buf text = { 0 };
		struct strbuf why = STRBUF_INIT;
		git_oid next;

		i = order[k];
		if ((err = git_patch_from_diff(&patch, gd, i)) < 0 ||
		    (err = git_patch_to_buf(&text, patch)) < 0) {
			ret = gitutil_error(err, "cannot read the patch of '%s'", d->new_file.path);
			git_patch_free(patch);
			break;
		}
		err = apply_diff(&next, repo, &cur, text.ptr, text.size, &why);
		if (!err) {
			if (strcmp(d->old_file.path, d->new_file.path))
				ret = sync_path(repo, &next, dir, d->old_file.path, report);
			if (!ret)
				ret = sync_path(repo, &next, dir, d->new_file.path, report);
			if (!ret)
				add_file(r, d->new_file.path, BACKPORT_APPLIED);
			cur = next;
		} else if (err == MKS_EAPPLYFAIL) {
			ret = merge_three_way(r, repo, tree, dir, d, report);
			if (ret == 1)
				ret = apply_hunks(r, repo, onto, dir, d, patch, report);
		} else {
			if (err == MKS_EUNSAFE)
				strbuf_add(report, why.buf, why.len);
			ret = err;
		}
		strbuf_release(&why);
		git_buf_dispose(&text);
		git_patch_free(patch);
	}
	for (i = 0; !ret && i < r->nr; i++)
		if (!r->files[i].rej)
			r->files[i].rej = reject_name(dir, r, r->files[i].path);
	if (!ret)
		ret = note_written(r, dir);
cleanup:
	free(order);
	git_diff_free(gd);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}

int backport_is_loop_rej(const struct backport_result *r, const char *path)
{
	size_t i, len;

	for (i = 0; r && i < r->nr; i++) {
		const char *rej = r->files[i].rej;

		if (!rej)
			continue;
		len = strlen(rej);
		if (!strncmp(path, rej, len) && (!path[len] || !strcmp(path + len, ".why")))
			return 1;
	}
	return 0;
}

static const char *const rej_suffixes[] = { "", ".why" };

void backport_remove_rejects(const char *dir, const struct backport_result *r)
{
	struct strbuf why = STRBUF_INIT;
	size_t i, k;

	for (i = 0; r && i < r->nr; i++) {
		for (k = 0; r->files[i].rej && k < ARRAY_SIZE(rej_suffixes); k++) {
			char *rel = xstrfmt("%s%s", r->files[i].rej, rej_suffixes[k]);

			strbuf_reset(&why);
			fs_unlink_beneath(dir, rel, &why);
			free(rel);
		}
	}
	strbuf_release(&why);
}

size_t backport_leftovers(struct strbuf *left, const struct backport_result *r, const char *dir)
{
	size_t i, k, n = 0;

	for (i = 0; i < r->nr; i++) {
		for (k = 0; r->files[i].rej && k < ARRAY_SIZE(rej_suffixes); k++) {
			char *rel = xstrfmt("%s%s", r->files[i].rej, rej_suffixes[k]);
			char *abs = path_join(dir, rel);

			if (file_exists(abs)) {
				strbuf_addf(left, "%s: still there\n", shown(rel));
				n++;
			}
			free(abs);
			free(rel);
		}
	}
	return n;
}

char *backport_file_name(const char *kit_dir, const char *dir, const struct kit_patch *p,
			 const char *subject)
{
	char *abs = path_join(kit_dir, dir), *title, *name, *ret;
	unsigned number = patch_dir_last_number(abs) + 1;

	title = p->upstream ? xstrfmt("%.12s %s", p->upstream, subject) : xstrdup(subject);
	name = patch_file_name(number, title);
	ret = path_join(dir, name);
	free(name);
	free(title);
	free(abs);
	return ret;
}

/* The blob of `path` in `tree` (zero when it is not there, or not a blob). */
static void blob_at(git_oid *out, git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;

	memset(out, 0, sizeof(*out));
	if (git_tree_entry_bypath(&e, tree, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB)
		git_oid_cpy(out, git_tree_entry_id(e));
	git_error_clear();
	git_tree_entry_free(e);
}

/* What the resolution did to file `f` of the patch, or NULL: it went in as the patch has it. */
static const char *file_fate(struct strbuf *buf, const struct backport_file *f, const git_oid *old,
			     const git_oid *fin)
{
	int as_written = f->wrote_known && git_oid_equal(fin, &f->wrote);

	if (git_oid_equal(fin, old) && !(as_written && f->how == BACKPORT_APPLIED))
		return "dropped";
	switch (f->how) {
	case BACKPORT_APPLIED:
		return as_written || !f->wrote_known ? NULL : "redone";
	case BACKPORT_MERGED:
		return as_written || !f->wrote_known ? "merged three-way" : "redone";
	case BACKPORT_CONFLICT:
		return "conflict resolved";
	case BACKPORT_PARTIAL:
		if (!as_written)
			return "rejected hunks redone";
		strbuf_reset(buf);
		strbuf_addf(buf, "%zu of %zu hunks dropped", f->rejected, f->hunks);
		return buf->buf;
	}
	return NULL;
}

/* Whether `path` is a file of `r`, or the .rej or .rej.why the loop wrote beside one. */
static int in_result(const struct backport_result *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (!strcmp(r->files[i].path, path))
			return 1;
	return backport_is_loop_rej(r, path);
}

int backport_note(struct strbuf *note, git_repository *repo, const git_oid *onto,
		  const git_oid *final, const struct backport_result *r)
{
	struct strbuf buf = STRBUF_INIT;
	struct backport_diff bd;
	git_tree *old, *new;
	size_t i;
	int ret = 0;

	if (backport_diff_open(&bd, repo, onto, final, "the backport")) {
		ret = -1;
		goto cleanup;
	}
	old = bd.old;
	new = bd.new;
	for (i = 0; i < r->nr; i++) {
		git_oid o, f;
		const char *what;

		blob_at(&o, old, r->files[i].path);
		blob_at(&f, new, r->files[i].path);
		if ((what = file_fate(&buf, &r->files[i], &o, &f)))
			strbuf_addf(note, " %s (%s)", r->files[i].path, what);
	}
	for (i = 0; i < bd.diff.nr; i++) {
		const git_diff_delta *d = &bd.diff.v[i];
		const char *path = d->status == GIT_DELTA_DELETED ? d->old_file.path :
				   d->new_file.path;

		if (!in_result(r, path))
			strbuf_addf(note, " %s (added: not in the patch)", path);
	}
cleanup:
	strbuf_release(&buf);
	backport_diff_free(&bd);
	return ret;
}

/* Where the last line "Signed-off-by: ... <email>" of `message` starts, or -1. */
static long backporter_signoff_at(const char *message, const char *email)
{
	const char *line = message, *nl, *lt;
	size_t elen = strlen(email);
	long at = -1;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (strncasecmp(line, "Signed-off-by:", 14))
			continue;
		lt = memchr(line, '<', nl ? (size_t)(nl - line) : strlen(line));
		if (lt && !strncasecmp(lt + 1, email, elen) && lt[1 + elen] == '>')
			at = line - message;
		if (!nl)
			break;
	}
	return at;
}

char *backport_add_note(const char *message, const char *note, const char *email)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len = strlen(message), at;
	long sob = email ? backporter_signoff_at(message, email) : -1;

	if (sob > 0) {
		/* in the trailer block, just before the backporter's sign-off, as stable does */
		strbuf_add(&sb, message, sob);
		strbuf_addf(&sb, "%s\n", note);
		strbuf_addstr(&sb, message + sob);
		return strbuf_detach(&sb, NULL);
	}
	while (len && message[len - 1] == '\n')
		len--;
	/* the start of the last paragraph: the trailer block */
	for (at = len; at > 1 && !(message[at - 1] == '\n' && message[at - 2] == '\n'); at--)
		;
	if (at <= 1)
		at = len;
	strbuf_add(&sb, message, at);
	if (at == len)
		strbuf_addstr(&sb, "\n\n");
	strbuf_addstr(&sb, note);
	strbuf_addstr(&sb, at == len ? "\n" : "\n\n");
	strbuf_add(&sb, message + at, len - at);
	if (at < len)
		strbuf_addch(&sb, '\n');
	return strbuf_detach(&sb, NULL);
}

int backport_replay(git_oid *out, git_repository *repo, const git_oid *base, const char *diff,
		    size_t len, struct strbuf *files)
{
	git_diff *gd = NULL;
	git_tree *tree = NULL;
	git_tree_update *up = NULL;
	size_t i, n = 0;
	int err, ret = 0;

	if ((err = git_tree_lookup(&tree, repo, base)) < 0) {
		ret = gitutil_error(err, "cannot read tree %s", oid_short(base));
		goto cleanup;
	}
	if ((err = git_diff_from_buffer(&gd, diff, len)) < 0) {
		git_error_clear();
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	n = git_diff_num_deltas(gd);
	up = xcalloc(n ? n : 1, sizeof(*up));
	for (i = 0; i < n && !ret; i++) {
		const git_diff_delta *d = git_diff_get_delta(gd, i);
		git_blob *old = NULL, *new = NULL, *ours = NULL;
		git_tree_entry *e = NULL;
		git_merge_file_result res = { 0 };
		git_merge_file_input in_old = merge_input_init, in_ours = merge_input_init,
				     in_new = merge_input_init;

		ret = MKS_EAPPLYFAIL;
		if (d->status != GIT_DELTA_MODIFIED || strcmp(d->old_file.path, d->new_file.path) ||
		    !(old = blob_by_prefix(repo, &d->old_file)) ||
		    !(new = blob_by_prefix(repo, &d->new_file)) ||
		    git_tree_entry_bypath(&e, tree, d->old_file.path) < 0 ||
		    git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
		    git_blob_lookup(&ours, repo, git_tree_entry_id(e)) < 0)
			goto next;
		in_old.ptr = git_blob_rawcontent(old);
		in_old.size = (size_t)git_blob_rawsize(old);
		in_ours.ptr = git_blob_rawcontent(ours);
		in_ours.size = (size_t)git_blob_rawsize(ours);
		in_new.ptr = git_blob_rawcontent(new);
		in_new.size = (size_t)git_blob_rawsize(new);
		if (git_merge_file(&res, &in_old, &in_ours, &in_new, NULL) < 0 || !res.automergeable)
			goto next;
		if ((err = git_blob_create_from_buffer(&up[i].id, repo, res.ptr, res.len)) < 0) {
			ret = gitutil_error(err, "cannot write the merged '%s'", d->new_file.path);
			goto next;
		}
		up[i].action = GIT_TREE_UPDATE_UPSERT;
		up[i].filemode = git_tree_entry_filemode(e);
		up[i].path = d->new_file.path;
		if (files)
			strbuf_addf(files, "%s%s", files->len ? ", " : "", d->new_file.path);
		ret = 0;
next:
		git_error_clear();
		git_merge_file_result_free(&res);
		git_tree_entry_free(e);
		git_blob_free(ours);
		git_blob_free(new);
		git_blob_free(old);
	}
	if (!ret && (err = git_tree_create_updated(out, repo, tree, n, up)) < 0)
		ret = gitutil_error(err, "cannot write the replayed tree");
cleanup:
	free(up);
	git_diff_free(gd);
	git_tree_free(tree);
	return ret;
}

/*
 * The mail's or the kit's (maybe abbreviated) upstream id, completed
 * from the commit the mail was written from or from the repository when
 * either has it; else as given. NULL when there is none.
 */
static char *complete_id(git_repository *repo, const struct mail_patch *m,
			 const struct kit_patch *p)
{
	const char *id = m->upstream ? m->upstream : p->upstream;
	git_object *o = NULL;
	git_oid oid;
	size_t n;
	char *ret;

	if (!id)
		return NULL;
	n = strlen(id);
	if (n >= GIT_OID_HEXSZ || n < 4 || strspn(id, "0123456789abcdef") != n)
		return xstrdup(id);
	if (m->source_commit && strlen(m->source_commit) == GIT_OID_HEXSZ &&
	    !strncmp(m->source_commit, id, n))
		return xstrdup(m->source_commit);
	if (!git_oid_fromstrn(&oid, id, n) &&
	    !git_object_lookup_prefix(&o, repo, &oid, n, GIT_OBJECT_COMMIT)) {
		ret = xstrdup(git_oid_tostr_s(git_object_id(o)));
		git_object_free(o);
		return ret;
	}
	git_error_clear();
	return xstrdup(id);
}

/*
 * What a stable reviewer bounces: an upstream id the repository could
 * not complete (the message says "commit <id> upstream." with fewer
 * than 40 digits) and a Fixes: id shorter than the kernel's 12 digits.
 * Warned, not refused: the record is still the backport.
 */
static void warn_short_ids(const struct kit_patch *p, const struct mail_patch *m, const char *id)
{
	const char *what = p->file ? p->file : p->subject;
	size_t i, n;

	if (id && strlen(id) < GIT_OID_HEXSZ)
		warning("%s: the upstream id '%s' is abbreviated and no commit of the repository "
			"starts with it; the recorded message says \"commit %s upstream.\" where "
			"stable wants all 40 digits: write the full id in series.yaml's upstream: "
			"(or fetch the commit) and record it again", shown(what), id, id);
	for (i = 0; i < m->nr_trailers; i++) {
		const char *v = m->trailers[i].value;

		if (strcasecmp(m->trailers[i].key, "Fixes"))
			continue;
		n = strspn(v, "0123456789abcdefABCDEF");
		if (n && n < 12)
			warning("%s: 'Fixes: %s' gives %zu digits of the commit id; the kernel's "
				"rule is at least 12, with the subject", shown(what), v, n);
	}
}

char *backport_upstream_id(git_repository *repo, const struct mail_patch *m,
			   const struct kit_patch *p)
{
	char *id = complete_id(repo, m, p);

	warn_short_ids(p, m, id);
	return id;
}

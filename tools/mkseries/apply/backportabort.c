/* apply/backportabort.c: --abort of the backport loop: the kit, its series.yaml and refs as they were before it. */
#include <errno.h>
#include <string.h>

#include "apply/backportsteps.h"
#include "lib/fs.h"
#include "lib/gitutil.h"

/* A three-way merge of `now` and `orig` from `base`, into *res (git_merge_file_result_free()). */
static int merge_texts(git_merge_file_result *res, const struct strbuf *base,
		       const struct strbuf *now, const struct strbuf *orig)
{
	git_merge_file_input in_base, in_now, in_orig;

	git_merge_file_input_init(&in_base, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&in_now, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&in_orig, GIT_MERGE_FILE_INPUT_VERSION);
	in_base.ptr = base->buf;
	in_base.size = base->len;
	in_now.ptr = now->buf;
	in_now.size = now->len;
	in_orig.ptr = orig->buf;
	in_orig.size = orig->len;
	return git_merge_file(res, &in_base, &in_now, &in_orig, NULL);
}

/*
 * Take the loop's decisions out of series.yaml and keep the rest: a
 * three-way merge of the kit's file now (the user's edits and the
 * loop's) with the loop's own copy as the base and the file as it was
 * before the loop. Untouched when the loop wrote no decision.
 */
static int restore_series_yaml(struct backport_loop *l)
{
	char *path = path_join(l->kit->dir, "series.yaml");
	struct strbuf base = STRBUF_INIT, now = STRBUF_INIT, orig = STRBUF_INIT, why = STRBUF_INIT;
	git_merge_file_result res = { 0 };
	int err, ret = 0;

	/* a --continue killed while writing a decision left it in .next (backport_loop_decide()) */
	if (strbuf_read_file(&base, l->paths.yaml_next) &&
	    strbuf_read_file(&base, l->paths.yaml_loop))
		goto cleanup;	/* the loop wrote no decision */
	if (strbuf_read_file(&orig, l->paths.yaml_orig) || strbuf_read_file(&now, path)) {
		ret = error("cannot read '%s' or '%s': %s", path, l->paths.yaml_orig,
			    strerror(errno));
		goto cleanup;
	}
	if ((err = merge_texts(&res, &base, &now, &orig)) < 0) {
		ret = gitutil_error(err, "cannot take the loop's decisions out of '%s'", path);
		goto cleanup;
	}
	if (!res.automergeable) {
		ret = error("series.yaml was edited where the loop wrote its decisions: it is left "
			    "as it is; the kit's file before the loop is '%s'", l->paths.yaml_orig);
		goto cleanup;
	}
	if (fs_write_beneath(l->kit->dir, "series.yaml", res.ptr, res.len, 0644, FS_REFUSE_LINK,
			     &why))
		ret = error("cannot restore the kit's series.yaml: %s", why.buf);
	else if (res.len != orig.len || memcmp(res.ptr, orig.buf, orig.len))
		backport_loop_say(l, "series.yaml: the loop's decisions taken out, the edits made "
				  "meanwhile kept\n");
cleanup:
	git_merge_file_result_free(&res);
	strbuf_release(&why);
	strbuf_release(&orig);
	strbuf_release(&now);
	strbuf_release(&base);
	free(path);
	return ret;
}

/*
 * The directories above kit file `rel` that removing it left empty (the
 * loop made patches/<series>/<branch>/ for it), up to the kit's own
 * top directories, which stay.
 */
static void remove_empty_dirs(const char *kit_dir, const char *rel)
{
	struct strbuf why = STRBUF_INIT;
	char *dir = xstrdup(rel), *slash;

	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (!strchr(dir, '/') || fs_rmdir_beneath(kit_dir, dir, &why) != 1)
			break;
	}
	strbuf_release(&why);
	free(dir);
}

/* --abort: the files the loop wrote (state `st`) removed, those it replaced put back. */
static int put_back_files(struct backport_loop *l, const struct state *st)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;
	int err, ret = 0;

	for (i = 0;; i++) {
		const char *rel = loop_state_get_at(st, LK_REPLACED, i);
		const char *bak = loop_state_get_at(st, LK_BACKUP, i);
		struct strbuf old = STRBUF_INIT;

		if (!rel || !bak)
			break;
		strbuf_reset(&why);
		if (strbuf_read_file(&old, bak))
			ret = error("cannot put back '%s': %s", rel, strerror(errno));
		else if (fs_write_beneath(l->kit->dir, rel, old.buf, old.len, 0644, FS_REFUSE_LINK,
					  &why))
			ret = error("cannot put back '%s': %s", shown(rel), why.buf);
		else
			backport_loop_say(l, "put back %s\n", rel);
		strbuf_release(&old);
	}
	test_crash_point("put-back");
	for (i = 0;; i++) {
		const char *rel = loop_state_get_at(st, LK_CREATED, i);

		if (!rel)
			break;
		strbuf_reset(&why);
		backport_remove_temp_files(l->kit->dir, rel, &why);
		backport_loop_say(l, "%s", why.buf);
		strbuf_reset(&why);
		/* not there (0): never written, or an --abort killed after it removed it */
		err = fs_exists_beneath(l->kit->dir, rel, &why);
		if (err > 0 && !(err = fs_unlink_beneath(l->kit->dir, rel, &why)))
			backport_loop_say(l, "removed %s\n", shown(rel));
		else if (err == MKS_EUNSAFE)
			/* the loop never wrote it: it writes nothing beyond a link */
			backport_loop_say(l, "left %s alone: %s\n", shown(rel), why.buf);
		else if (err)
			ret = error("cannot remove '%s': %s", shown(rel), why.buf);
		remove_empty_dirs(l->kit->dir, rel);
		test_crash_point("removed-file");
	}
	strbuf_release(&why);
	return ret;
}

/*
 * series.yaml goes back first and the patch files after it, so that
 * every kill leaves a kit that loads: a decision the loop wrote never
 * outlives the file it names. The journal says an --abort is under way:
 * a rerun of --abort does it all again (every step can be done twice),
 * a --continue refuses. The loop's directory, and with it the records
 * each step reads, goes last and at once.
 */
int backport_loop_abort(struct backport_loop *l)
{
	struct state st = STATE_INIT;
	struct strbuf why = STRBUF_INIT;
	char *kit_ref = NULL;
	int ret = 0;

	if (!file_exists(l->paths.loop) && !file_exists(l->paths.patch)) {
		error("no backport loop in progress on '%s'", l->b->name);
		/* what a loop killed as it ended left is nobody's */
		backport_loop_remove(&l->paths);
		return MKS_ECONFIG;
	}
	if (backport_journal_begin(&l->paths, BS_ABORT, NULL, NULL) ||
	    state_read(&st, l->paths.loop)) {
		ret = -1;
		goto cleanup;
	}
	if (backport_worktree_remove(l->repo, l->paths.wt_name, l->paths.tree, l->paths.refname))
		ret = -1;
	backport_remove_temp_files(l->kit->dir, "series.yaml", &why);
	backport_loop_say(l, "%s", why.buf);
	if (restore_series_yaml(l)) {
		/* its decisions still name the loop's files: they stay with them */
		ret = -1;
		goto cleanup;
	}
	test_crash_point("yaml-restored");
	if (put_back_files(l, &st))
		ret = -1;
	strbuf_reset(&why);
	kit_ref = kit_refname(l->kit, l->b, NULL);
	if (backport_abort_refs(l->repo, &st, kit_ref, &why))
		ret = -1;
	backport_loop_say(l, "%s", why.buf);
	if (!ret && backport_loop_remove(&l->paths))
		ret = -1;
	if (!ret)
		backport_loop_say(l, "backport loop on '%s' aborted; the kit is as it was "
				  "before it\n", l->b->name);
cleanup:
	free(kit_ref);
	strbuf_release(&why);
	state_release(&st);
	return ret;
}

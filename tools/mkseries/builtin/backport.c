/* builtin/backport.c: `mkseries backport`: apply the kit, and resolve each patch that does not apply into the branch's backport. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply/applyplan.h"
#include "apply/backport.h"
#include "apply/backportloop.h"
#include "builtin/builtin.h"
#include "lib/fs.h"
#include "patches/patchfile.h"
#include "lib/gitutil.h"
#include "patches/mail.h"
#include "lib/options.h"
#include "apply/plan.h"
#include "kit/select.h"
#include "lib/state.h"
#include "tree/tree.h"
#include "lib/util.h"
#include "tree/workdir.h"
#include "kit/yamledit.h"


struct loop_opts {
	const char *repo, *series, *message;
	int edit;
	struct strvec accept;	/* --accept-markers: files whose markers are meant */
};

/* What one run of the loop works with. */
struct loop {
	struct kit *kit;
	/*
	 * b points into the kit and is found again by `name` whenever
	 * add_decision() reloads it; name is owned, so it outlives the kit
	 * it was found in (a branch name taken from the kit would not).
	 */
	const struct kernel_branch *b;
	char *name;
	/* the patch finished last in this run (owned), for the journal of the loop's end */
	char *last_label;
	const struct loop_opts *opts;
	struct backport_paths paths;
	git_repository *repo;	/* owned by repos */
	git_signature *me;
	struct kernel_repos repos;
	/* the work tree's tree, once read in this run (reading stats every file) */
	git_oid wt_tree;
	int have_wt_tree;
	/*
	 * wt_index: the work tree's index from that read (owned). wt_synced:
	 * it is the work tree, nothing written since: the next checkout
	 * takes it and need not scan nor read the index again.
	 */
	git_index *wt_index;
	int wt_synced;
	/* from that read: the new files .gitignore hides, named one a line, and their number */
	struct strbuf wt_ignored;
	int wt_nr_ignored;
};

/*
 * The tree the loop's work tree holds now, read once per run: the files
 * the loop wrote (`r`) whatever .gitignore says, the backporter's new
 * files unless it hides them (those are counted in l->wt_nr_ignored).
 */
static int loop_worktree_tree(git_oid *out, struct loop *l, const struct backport_result *r)
{
	if (!l->have_wt_tree) {
		struct strbuf said = STRBUF_INIT;
		int n = backport_index_unlock(&l->paths, l->repo, &said);

		fputs(said.buf, stdout);
		strbuf_release(&said);
		strbuf_reset(&l->wt_ignored);
		if (n || backport_index_begin(&l->paths))
			return -1;
		test_crash_point("index-writing");
		git_index_free(l->wt_index);
		l->wt_index = NULL;
		n = backport_worktree_tree(&l->wt_tree, l->paths.tree, r, &l->wt_ignored,
					   &l->wt_index);
		backport_index_done(&l->paths);
		if (n < 0)
			return -1;
		l->wt_nr_ignored = n;
		l->have_wt_tree = 1;
	}
	*out = l->wt_tree;
	return 0;
}

/* tests/t0820 kills the loop here (SIGKILL) when MKSERIES_TEST_BACKPORT_CRASH names the step. */
static void crash_point(const char *step)
{
	test_crash_point(step);
}

/* Finish or roll back the step a killed run left half done (the journal's), saying what it did. */
static int loop_recover(struct loop *l, int aborting)
{
	struct strbuf said = STRBUF_INIT;
	int ret = backport_journal_recover(&l->paths, l->repo, l->kit->dir, aborting, &said);

	fputs(said.buf, stdout);
	strbuf_release(&said);
	return ret;
}

/* After add_decision(), done or not: the branch of the kit it loaded again. */
static int loop_kit_reloaded(struct loop *l)
{
	l->b = kit_find_branch(l->kit, l->name);
	if (!l->b)
		return error("branch '%s' is gone from the kit", shown(l->name));
	return 0;
}

/* The kernel repository, opened and locked for the loop's steps (KERNEL_REPO_*: `flags`). */
static int loop_open(struct loop *l, unsigned flags)
{
	int err = kernel_repos_open(&l->repo, &l->repos, l->kit, l->b, l->opts->repo, flags);

	if (err)
		return err;
	if ((flags & KERNEL_REPO_LOCK) && backporter_signature(&l->me, l->repo))
		return -1;
	return 0;
}

static void loop_close(struct loop *l)
{
	git_signature_free(l->me);
	l->me = NULL;
	kernel_repos_release(&l->repos);
	l->repo = NULL;
}

/* The entry `list`/`index` names in series `sid` of the kit, or NULL (printed). */
static const struct kit_patch *find_entry(const struct kit *kit, const char *sid, const char *list,
					  const char *index)
{
	const struct kit_series *s = sid ? kit_find_series(kit, sid) : NULL;
	unsigned long i = index ? strtoul(index, NULL, 10) : 0;

	if (!s || !list || !index) {
		error("the loop's state names series '%s', which the kit no longer has",
		      sid ? sid : "?");
		return NULL;
	}
	if (!strcmp(list, "patches") && i < s->nr_patches)
		return &s->patches[i];
	if (!strcmp(list, "fixups") && i < s->nr_fixups)
		return &s->fixups[i];
	error("series '%s' has no entry %lu in '%s' any more", sid, i + 1, list);
	return NULL;
}

static void print_files(const struct backport_result *r, const char *tree)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct backport_file *f = &r->files[i];

		printf("  %-9s %s", backport_how_name(f->how), shown(f->path));
		if (f->how == BACKPORT_CONFLICT)
			printf(" (conflict markers: <<<<<<< tree / >>>>>>> upstream patch)");
		else if (f->how == BACKPORT_PARTIAL)
			printf(" (%zu of %zu hunks in %s, why in %s.why)", f->rejected,
			       f->hunks, shown(f->rej), shown(f->rej));
		if (f->moved)
			printf(" (applied elsewhere than the patch says: %s)", f->moved);
		else if (f->how == BACKPORT_MERGED)
			printf(" (three-way merge, clean)");
		putchar('\n');
	}
}

/* The directory the branch's backports of series s go to, relative to the kit. */
static char *backport_dir(const struct kit_series *s, const struct kernel_branch *b, int *declared)
{
	const struct decision *d = series_decision(s, branch_decisions(b));
	char *dir = xstrfmt("patches/%s/%s", s->id, branch_decisions(b));

	*declared = 0;
	if (d && d->kind == DECISION_PATCHES) {
		size_t n = strlen(d->path);

		while (n && d->path[n - 1] == '/')
			n--;
		*declared = strlen(dir) == n && !strncmp(dir, d->path, n);
	}
	return dir;
}

/*
 * Add the decision `"<branch>": <flow>` to entry p of series.yaml. The
 * kit is loaded again: p and every pointer into the kit are stale after.
 * `branch` may point into the kit: it is copied first. The same
 * decision goes into the loop's own copy (series.yaml.loop:
 * the kit's series.yaml as it was, with the loop's decisions only), so
 * that --abort takes out the loop's edits and keeps the user's.
 */
static int add_decision(struct loop *l, const struct kit_patch *p, const char *branch,
			const char *flow, const char *what)
{
	struct kit *kit = l->kit;
	char *path = path_join(kit->dir, "series.yaml"), *dir = xstrdup(kit->dir);
	char *sid = xstrdup(p->series->id), *list = p->is_fixup ? "fixups" : "patches";
	char *mine = path_join(l->paths.dir, "series.yaml.loop"), *bname = xstrdup(branch);
	char *next = xstrfmt("%s.next", mine);
	struct strbuf text = STRBUF_INIT, orig = STRBUF_INIT, own = STRBUF_INIT;
	size_t index = (size_t)p->index - 1;
	int ret = 0;

	if (strbuf_read_file(&text, path)) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (strbuf_read_file(&own, mine) && strbuf_read_file(&own, l->paths.yaml_orig)) {
		ret = error("cannot read '%s': %s", l->paths.yaml_orig, strerror(errno));
		goto cleanup;
	}
	strbuf_add(&orig, text.buf, text.len);
	if (yamledit_add_branch_decision(&text, path, sid, list, index, bname, flow)) {
		ret = -1;
		goto cleanup;
	}
	/*
	 * The loop's copy with the decision goes to series.yaml.loop.next
	 * first, and becomes series.yaml.loop once the kit's file is
	 * written: killed in between, --abort takes the decision out with
	 * .next as the base (taking out one the kit's file does not have
	 * yet changes nothing), and a rerun adds it to series.yaml.loop
	 * again. The user may have moved entries: then the copy is the
	 * kit's file as it will be.
	 */
	if (yamledit_add_branch_decision(&own, mine, sid, list, index, bname, flow)) {
		strbuf_reset(&own);
		strbuf_add(&own, text.buf, text.len);
	}
	if (write_file_atomic(next, own.buf, own.len)) {
		ret = error("cannot write '%s': %s", next, strerror(errno));
		goto cleanup;
	}
	if (yamledit_commit(kit, dir, path, &text, &orig, what))
		ret = -1;
	else if (rename(next, mine))
		ret = error("cannot rename '%s' to '%s': %s", next, mine, strerror(errno));
cleanup:
	strbuf_release(&own);
	strbuf_release(&orig);
	strbuf_release(&text);
	free(bname);
	free(next);
	free(mine);
	free(sid);
	free(dir);
	free(path);
	return ret;
}

/* Run the user's editor on `path`, with the terminal: argv from $GIT_EDITOR, $VISUAL or $EDITOR split at blanks. */
static int edit_file(const char *path)
{
	const char *ed = getenv("GIT_EDITOR");
	struct child cmd = CHILD_INIT;
	char *copy, *tok, *save = NULL;
	int status, ret = 0;

	if (!ed || !*ed)
		ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	copy = xstrdup(ed);
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		strvec_push(&cmd.argv, tok);
	strvec_push(&cmd.argv, path);
	cmd.terminal = 1;
	status = child_run(&cmd);
	if (status < 0 || cmd.exec_errno)
		ret = error("cannot run the editor '%s'", shown(cmd.argv.v[0]));
	else if (status)
		ret = error("the editor '%s' failed; nothing recorded", shown(cmd.argv.v[0]));
	child_release(&cmd);
	free(copy);
	return ret;
}

/* Note in the loop's state that the loop wrote `rel` (LK_CREATED), replaced it (LK_REPLACED)... */
static int add_loop_file(const char *loop_path, enum loop_key key, const char *rel)
{
	struct state st = STATE_INIT;
	int ret = -1;

	if (!state_read(&st, loop_path)) {
		loop_state_append(&st, key, rel);
		ret = state_write(&st, loop_path);
	}
	state_release(&st);
	return ret;
}

/*
 * The tree the work tree holds (*tree_id) and the commit it was checked
 * out from (*onto_c, caller frees); an error when nothing changed.
 */
static int worktree_change(git_oid *tree_id, git_commit **onto_c, struct loop *l,
			   const struct state *st, const struct backport_result *r)
{
	git_oid onto;
	int err;

	*onto_c = NULL;
	if (git_oid_fromstr(&onto, loop_state_get(st, LK_ONTO) ? loop_state_get(st, LK_ONTO) : ""))
		return error("the loop's state has no valid 'onto' commit");
	if (loop_worktree_tree(tree_id, l, r))
		return -1;
	if ((err = git_commit_lookup(onto_c, l->repo, &onto)) < 0)
		return gitutil_error(err, "cannot read commit %s", oid_short(&onto));
	if (git_oid_equal(tree_id, git_commit_tree_id(*onto_c)))
		return error("the work tree has no change left; use --skip -m \"why\" to skip the patch");
	return 0;
}

/* Let the backporter edit *message (-e) in the loop's MESSAGE file. */
static int edit_message(struct loop *l, char **message)
{
	struct strbuf edited = STRBUF_INIT;
	char *msgfile = path_join(l->paths.dir, "MESSAGE");
	int ret = -1;

	if (write_file_atomic(msgfile, *message, strlen(*message)))
		error("cannot write '%s': %s", msgfile, strerror(errno));
	else if (!edit_file(msgfile) && !strbuf_read_file(&edited, msgfile))
		ret = 0;
	if (!ret) {
		free(*message);
		*message = strbuf_detach(&edited, NULL);
	}
	strbuf_release(&edited);
	free(msgfile);
	return ret;
}

/*
 * The backport's commit message: the stable-style message of mail `m`
 * with a note of how each file that did not apply as it was got in.
 * NULL when the editor failed (printed). Caller frees.
 */
static char *backport_message(struct loop *l, const struct kit_patch *p,
			      const struct mail_patch *m, const struct backport_result *r,
			      git_commit *onto_c, const git_oid *tree_id)
{
	struct strbuf note = STRBUF_INIT;
	struct mail_patch full = *m;
	char *id = backport_upstream_id(l->repo, m, p), *message, *noted;

	full.upstream = id;
	message = stable_message(&full, p, NULL, NULL, 0, l->me);
	free(id);

	strbuf_addf(&note, "[ %s: backported to %s;", l->me->name, branch_decisions(l->b));
	if (backport_note(&note, l->repo, git_commit_id(onto_c), tree_id, r)) {
		strbuf_release(&note);
		free(message);
		return NULL;
	}
	strbuf_addstr(&note, " ]");
	noted = backport_add_note(message, note.buf, l->me->email);
	strbuf_release(&note);
	free(message);
	if (l->opts->edit && edit_message(l, &noted)) {
		free(noted);
		return NULL;
	}
	return noted;
}

/*
 * Write the backport's commit (author from mail `m`, committed by the
 * backporter) and a ref that keeps it: the blobs its index lines name
 * stay in the repository, for replays.
 */
static int write_backport_commit(git_oid *out, struct loop *l, const struct kit_patch *p,
				 const struct mail_patch *m, const git_oid *tree_id,
				 git_commit *onto_c, const char *message)
{
	git_signature *author = NULL;
	git_transaction *tx = NULL;
	git_tree *tree = NULL;
	char *keep = NULL;
	int err, ret = 0;

	if (m->author_name && m->author_email)
		err = git_signature_new(&author, m->author_name, m->author_email, m->date,
					m->tz_offset);
	else
		err = git_signature_dup(&author, l->me);
	if (err < 0 || (err = git_tree_lookup(&tree, l->repo, tree_id)) < 0 ||
	    (err = git_commit_create(out, l->repo, NULL, author, l->me, NULL, message, tree,
				     1, (const git_commit **)&onto_c)) < 0) {
		ret = gitutil_error(err, "cannot write the backport of %s", kit_patch_label(p));
		goto cleanup;
	}
	keep = xstrfmt("%s%s", l->paths.keep_prefix, git_oid_tostr_s(out));
	/* noted first: --abort deletes the keep refs of the backports it drops */
	if (add_loop_file(l->paths.loop, LK_KEEP, keep) ||
	    backport_journal_begin(&l->paths, BS_KEEP, kit_patch_label(p), NULL)) {
		ret = -1;
		goto cleanup;
	}
	/* a transaction: the crash tests stop it with the lock held, as a kill may */
	if ((err = git_transaction_new(&tx, l->repo)) >= 0 &&
	    (err = git_transaction_lock_ref(tx, keep)) >= 0) {
		crash_point("keep-locked");
		if ((err = git_transaction_set_target(tx, keep, out, NULL,
						      "mkseries backport: recorded")) >= 0)
			err = git_transaction_commit(tx);
	}
	if (err < 0)
		ret = err == GIT_ELOCKED ? ref_locked_error(l->repo, keep) :
		      gitutil_error(err, "cannot write '%s'", keep);
	else
		ret = backport_journal_done(&l->paths);
cleanup:
	git_transaction_free(tx);
	free(keep);
	git_tree_free(tree);
	git_signature_free(author);
	return ret;
}

/*
 * A recorded backport that no longer applies is rewritten in place: keep
 * a copy of it first, and note both in the loop file for --abort.
 */
static int keep_replaced(struct loop *l, const char *replaces)
{
	char *abs = path_join(l->kit->dir, replaces), *bak = NULL;
	struct strbuf old = STRBUF_INIT;
	size_t n = 0;
	int err;

	while (bak = xstrfmt("%s.%zu", l->paths.backup, n), file_exists(bak)) {
		free(bak);
		n++;
	}
	err = strbuf_read_file(&old, abs) || write_file_atomic(bak, old.buf, old.len);
	free(abs);
	strbuf_release(&old);
	if (err) {
		error("cannot keep a copy of '%s': %s", replaces, strerror(errno));
		free(bak);
		return -1;
	}
	err = add_loop_file(l->paths.loop, LK_REPLACED, replaces) ||
	      add_loop_file(l->paths.loop, LK_BACKUP, bak);
	free(bak);
	return err ? -1 : 0;
}

/* The kit file the backport goes to (*rel, caller frees): the one it replaces, or a new one. */
static int backport_target(char **rel, struct loop *l, const char *replaces,
			   const struct kit_patch *p, const struct mail_patch *m)
{
	char *dir;
	int declared;

	*rel = NULL;
	if (replaces && *replaces) {
		if (keep_replaced(l, replaces))
			return -1;
		*rel = xstrdup(replaces);
		return 0;
	}
	dir = backport_dir(p->series, l->b, &declared);
	*rel = backport_file_name(l->kit->dir, dir, p,
				  m->subject && *m->subject ? m->subject :
				  p->subject ? p->subject : "backport");
	free(dir);
	return add_loop_file(l->paths.loop, LK_CREATED, *rel) ? -1 : 0;
}

/*
 * The first step of recording: commit the work tree and write it as the
 * branch's patch file, then mark "recorded" in the state file.
 */
static int record_file(struct loop *l, struct state *st, const struct kit_patch *p,
		       const struct backport_result *r)
{
	struct mail_patch *mails = NULL;
	size_t nr_mails = 0;
	git_oid tree_id, commit_id;
	git_commit *onto_c = NULL;
	char *src = NULL, *message = NULL, *rel = NULL, *written = NULL;
	const char *replaces = loop_state_get(st, LK_REPLACES);
	int ret = -1;

	if (worktree_change(&tree_id, &onto_c, l, st, r))
		goto cleanup;
	src = path_join(l->kit->dir, loop_state_get(st, LK_SOURCE));
	if (mail_parse_file(&mails, &nr_mails, src) < 0)
		goto cleanup;
	if (nr_mails != 1) {
		error("'%s' holds %zu patches; the kit names one patch per file", src, nr_mails);
		goto cleanup;
	}
	message = backport_message(l, p, &mails[0], r, onto_c, &tree_id);
	if (!message ||
	    write_backport_commit(&commit_id, l, p, &mails[0], &tree_id, onto_c, message))
		goto cleanup;
	/*
	 * The file's name is chosen once and kept in the state before it is
	 * written: a --continue killed while writing it writes the same
	 * file again, not a second one numbered after it.
	 */
	if (loop_state_get(st, LK_TARGET) && *loop_state_get(st, LK_TARGET)) {
		rel = xstrdup(loop_state_get(st, LK_TARGET));
	} else {
		if (backport_target(&rel, l, replaces, p, &mails[0]))
			goto cleanup;
		loop_state_set(st, LK_TARGET, rel);
		if (state_write(st, l->paths.patch))
			goto cleanup;
	}
	crash_point("target");
	if (backport_journal_begin(&l->paths, BS_RECORD, kit_patch_label(p), rel) ||
	    patch_write_commit(&written, l->repo, &commit_id, l->kit->dir, rel, NULL, 0, 1))
		goto cleanup;
	crash_point("written");
	loop_state_set(st, LK_RECORDED, rel);
	if (replaces && *replaces)
		loop_state_set(st, LK_DECIDED, "1");
	if (state_write(st, l->paths.patch) || backport_journal_done(&l->paths))
		goto cleanup;
	printf("recorded %s\n", rel);
	ret = 0;
cleanup:
	free(written);
	free(rel);
	free(message);
	free(src);
	git_commit_free(onto_c);
	mail_patches_free(mails, nr_mails);
	return ret;
}

/* The second step: declare the new file in series.yaml unless its directory is declared. */
static int record_decision(struct loop *l, struct state *st, const struct kit_patch *p)
{
	struct strbuf flow = STRBUF_INIT;
	char *bname = xstrdup(branch_decisions(l->b)), *label = xstrdup(kit_patch_label(p));
	char *dir;
	int declared, err, ret = -1;

	dir = backport_dir(p->series, l->b, &declared);
	/* a --continue killed after series.yaml was written: the decision is ours */
	if (!declared && patch_decision(p, bname)) {
		printf("series.yaml: %s on '%s': already recorded\n", label, bname);
	} else if (!declared) {
		strbuf_addstr(&flow, "{ file: ");
		yaml_scalar(&flow, loop_state_get(st, LK_RECORDED));
		strbuf_addstr(&flow, " }");
		err = backport_journal_begin(&l->paths, BS_DECIDE, label, "series.yaml") ||
		      add_decision(l, p, bname, flow.buf, "the new backport");
		/* reloaded even when the decision was refused (yamledit_commit()) */
		if (loop_kit_reloaded(l) || err)
			goto cleanup;
		printf("series.yaml: %s on '%s': %s\n", label, bname, loop_state_get(st, LK_RECORDED));
		crash_point("decided");
	}
	loop_state_set(st, LK_DECIDED, "1");
	if (state_write(st, l->paths.patch) || backport_journal_done(&l->paths))
		goto cleanup;
	ret = 0;
cleanup:
	strbuf_release(&flow);
	free(dir);
	free(label);
	free(bname);
	return ret;
}

/*
 * Turn the work tree into the branch's backport of the patch in `st`:
 * the patch file, then the decision in series.yaml. Each step is marked
 * done in the state file, so an interrupted --continue does the rest.
 */
static int record_backport(struct loop *l, struct state *st, const struct kit_patch *p,
			   const struct backport_result *r)
{
	if (!loop_state_get(st, LK_RECORDED)) {
		if (record_file(l, st, p, r))
			return -1;
		/* the file written, series.yaml not yet */
		crash_point("recorded");
	}
	if (loop_state_get(st, LK_DECIDED))
		return 0;
	return record_decision(l, st, p);
}

/*
 * The patch `label` is done with (recorded or skipped): its state goes,
 * and the loop's .rej files of `r` (left by a --skip; a tree's
 * .gitignore may hide them from the next checkout). The work tree
 * stays for the next patch, unless `drop_tree`.
 */
static int finish_patch(struct loop *l, const char *label, const struct backport_result *r,
			int drop_tree)
{
	l->wt_synced = l->have_wt_tree && !drop_tree;
	l->have_wt_tree = 0;
	free(l->last_label);
	l->last_label = xstrdup(label ? label : "");
	if (backport_journal_begin(&l->paths, BS_FINISH, label, NULL) ||
	    (drop_tree && backport_worktree_remove(l->repo, l->paths.wt_name, l->paths.tree,
						   l->paths.refname)))
		return -1;
	if (!drop_tree)
		backport_remove_rejects(l->paths.tree, r);
	if (unlink(l->paths.patch) && errno != ENOENT)
		return error("cannot remove '%s': %s", l->paths.patch, strerror(errno));
	return backport_journal_done(&l->paths);
}

/* The loop is over: its work tree and branch go, journaled as the last patch's end. */
static int remove_work_tree(struct loop *l)
{
	l->have_wt_tree = l->wt_synced = 0;
	git_index_free(l->wt_index);
	l->wt_index = NULL;
	if (!dir_exists(l->paths.dir))
		return 0;
	if (backport_journal_begin(&l->paths, BS_FINISH,
				   l->last_label ? l->last_label : "the last patch", NULL) ||
	    backport_worktree_remove(l->repo, l->paths.wt_name, l->paths.tree, l->paths.refname))
		return -1;
	return backport_journal_done(&l->paths);
}

static void print_next_steps(const struct loop *l)
{
	printf("resolve it in %s (edit, build, test), then:\n"
	       "  mkseries backport --branch %s --continue [-e]   record it as the %s backport and go on\n"
	       "  mkseries backport --branch %s --skip -m \"why\"   record a skip decision instead\n"
	       "  mkseries backport --branch %s --abort           drop the loop; the kit as it was\n",
	       l->paths.tree, l->b->name, branch_decisions(l->b), l->b->name, l->b->name);
}

/* The kit applies on the branch: say so, and the loop's directory goes. */
static void kit_applied(struct loop *l, const struct apply_outcome *o)
{
	char *ref = kit_refname(l->kit, l->b, NULL);

	printf("%s: %s %s %s (%zu commits, %zu squashed, %zu already in the tree)\n",
	       l->b->name, ref, o->moved ? "->" : "up to date at", oid_short(&o->tip),
	       o->nr_commits, o->nr_squashed, o->nr_found);
	free(ref);
	crash_point("applied");
	if (!remove_work_tree(l))
		backport_loop_remove(&l->paths);
}

/* What --continue, --skip and status need to know of the patch worked on. */
static void set_patch_state(struct state *st, const struct loop *l, const struct plan_item *it,
			    const git_oid *onto, const struct backport_result *r)
{
	loop_state_set(st, LK_BRANCH, l->b->name);
	loop_state_set(st, LK_SERIES, it->patch->series->id);
	loop_state_set(st, LK_LIST, it->patch->is_fixup ? "fixups" : "patches");
	loop_state_setf(st, LK_INDEX, "%d", it->patch->index - 1);
	loop_state_set(st, LK_LABEL, kit_patch_label(it->patch));
	loop_state_set(st, LK_UPSTREAM, it->patch->upstream ? it->patch->upstream : "");
	loop_state_set(st, LK_SUBJECT, it->subject ? it->subject : "");
	loop_state_set(st, LK_SOURCE, it->source);
	loop_state_set(st, LK_REPLACES, it->branch_backport ? it->source : "");
	loop_state_set(st, LK_ONTO, git_oid_tostr_s(onto));
	loop_state_set(st, LK_TREE, l->paths.tree);
	backport_result_to_state(st, r);
}

/* The patch that does not apply, the tree checked out for it, and how each file went. */
static void print_checked_out(const struct loop *l, const struct plan_item *it,
			      const struct apply_outcome *before, const struct backport_result *r)
{
	printf("%s: %s does not apply; the tree it goes on (%s: the base", l->b->name,
	       kit_patch_label(it->patch), oid_short(&before->tip));
	if (before->nr_commits)
		printf(" and the %zu %s before it", before->nr_commits,
		       before->nr_commits == 1 ? "commit" : "commits");
	printf(") is checked out in %s:\n", l->paths.tree);
	print_files(r, l->paths.tree);
}

/*
 * Check out `onto` in the loop's work tree (a fresh one) and apply mail
 * m's diff there as well as it goes. Returns 0 or -1 (printed; the work
 * tree removed again when the apply failed).
 */
static int apply_in_work_tree(struct backport_result *r, struct loop *l, const git_oid *onto,
			      const struct plan_item *it, const struct mail_patch *m)
{
	struct strbuf report = STRBUF_INIT;
	long touched;
	int err;

	l->have_wt_tree = 0;
	if (backport_journal_begin(&l->paths, BS_CHECKOUT, kit_patch_label(it->patch), NULL) ||
	    mkdir_p(l->paths.dir, 0755) ||
	    backport_worktree_checkout(&touched, l->repo, l->paths.wt_name, l->paths.tree,
				       l->paths.refname, onto, l->wt_synced ? l->wt_index : NULL))
		return -1;
	l->wt_synced = 0;
	git_index_free(l->wt_index);
	l->wt_index = NULL;
	err = backport_apply_in_tree(r, &report, l->repo, onto, l->paths.tree, m->diff,
				     m->diff_len);
	if (err) {
		if (err == MKS_EUNSAFE) {
			struct strbuf msg = STRBUF_INIT;

			strbuf_add_indented(&msg, report.buf, "  ");
			error("refusing %s onto '%s' in the backport loop\n  from %s\n%s",
			      kit_patch_label(it->patch), l->b->name, shown(it->source), msg.buf);
			strbuf_release(&msg);
		}
		finish_patch(l, kit_patch_label(it->patch), r, 1);
	}
	strbuf_release(&report);
	return err ? -1 : 0;
}

/*
 * Apply the kit; at the first patch that does not apply, check out the
 * tree before it and apply it there as well as possible. A clean result
 * is recorded at once and the loop goes on. Returns the exit status.
 */
static int run_loop(struct loop *l)
{
	int ret = 1, err;

	for (;;) {
		struct plan plan = PLAN_INIT;
		struct apply_outcome o, before;
		struct backport_result r = { 0 };
		struct state st = STATE_INIT;
		const struct plan_item *it;
		struct mail_patch *mails = NULL;
		size_t nr_mails = 0, keep;
		char *src = NULL;
		git_oid base;
		int again = 0;

		apply_outcome_init(&o);
		apply_outcome_init(&before);
		if (plan_build(&plan, l->kit, l->b)) {
			ret = 2;
			goto next;
		}
		if ((err = tree_import(&base, l->repo, l->kit, l->b, 0)))
			goto next;
		err = branch_apply(&o, l->repo, &plan, &base, NULL, l->me, "mkseries backport");
		if (!err) {
			kit_applied(l, &o);
			ret = 0;
			goto next;
		}
		if (err != MKS_EAPPLYFAIL) {
			if (err == MKS_EUNSAFE)
				fprintf(stderr, "error: %s", o.report.buf);
			goto next;
		}
		it = &plan.items[o.failed];
		fprintf(stderr, "%s", o.report.buf);
		if (l->opts->series && strcmp(l->opts->series, it->patch->series->id)) {
			error("that patch is not of series '%s': resolve it first", l->opts->series);
			goto next;
		}
		if (it->action == PLAN_SQUASH) {
			error("%s is squashed into the patch before it; the loop works on patches "
			      "of their own (declare it without `squash` to work on it)",
			      kit_patch_label(it->patch));
			goto next;
		}
		/* the commits of the items before the failing one: its tree to work in */
		keep = plan.nr;
		plan.nr = o.failed;
		err = plan_apply(&before, l->repo, &plan, &base, NULL, NULL, l->me);
		plan.nr = keep;
		if (err)
			goto next;
		src = path_join(l->kit->dir, it->source);
		if (mail_parse_file(&mails, &nr_mails, src) < 0 || nr_mails != 1 || !mails[0].diff) {
			error("'%s' does not hold one patch", it->source);
			goto next;
		}
		if (apply_in_work_tree(&r, l, &before.tip, it, &mails[0]))
			goto next;
		crash_point("checked-out");
		set_patch_state(&st, l, it, &before.tip, &r);
		if (state_write(&st, l->paths.patch) || backport_journal_done(&l->paths))
			goto next;
		print_checked_out(l, it, &before, &r);
		if (!backport_result_needs_work(&r)) {
			printf("every file applied or merged cleanly: recording it\n");
			if (record_backport(l, &st, it->patch, &r) ||
			    finish_patch(l, loop_state_get(&st, LK_LABEL), &r, 0))
				goto next;
			again = 1;
			goto next;
		}
		print_next_steps(l);
		ret = 1;
next:
		state_release(&st);
		mail_patches_free(mails, nr_mails);
		free(src);
		backport_result_release(&r);
		apply_outcome_release(&before);
		apply_outcome_release(&o);
		plan_release(&plan);
		if (!again)
			return ret;
		/* the kit changed: plan and apply again */
	}
}

/*
 * What is left to resolve in the work tree, one line each in `left`:
 * .rej files, conflict markers on lines the tree the loop checked out
 * did not have (backport_new_markers(); not in the files accepted with
 * --accept-markers), and new files .gitignore hides (the user says
 * whether they are the backport's: git add -A would drop them silently,
 * and the tree goes once recorded). Returns their number, or -1.
 */
static int loop_leftovers(struct strbuf *left, struct loop *l, const struct state *st,
			  const struct backport_result *r)
{
	struct strvec accepted = STRVEC_INIT, marked = STRVEC_INIT;
	git_oid onto, tree;
	int n = (int)backport_leftovers(left, r, l->paths.tree), m;
	size_t i;

	if (git_oid_fromstr(&onto, loop_state_get(st, LK_ONTO) ? loop_state_get(st, LK_ONTO) : ""))
		return error("the loop's state has no valid 'onto' commit");
	if (loop_worktree_tree(&tree, l, r))
		return -1;
	loop_state_list(&accepted, st, LK_ACCEPTED);
	m = backport_new_markers(left, &marked, l->repo, &onto, &tree, l->paths.tree, r,
				 &accepted);
	strvec_clear(&accepted);
	if (m < 0)
		return -1;
	for (i = 0; i < marked.nr; i++)
		strbuf_addf(left, "hint: if the markers in %s are meant to be there: "
			    "mkseries backport --branch %s --continue --accept-markers %s\n",
			    shown(marked.v[i]), l->b->name, shown(marked.v[i]));
	strvec_clear(&marked);
	if (l->wt_nr_ignored) {
		strbuf_add(left, l->wt_ignored.buf, l->wt_ignored.len);
		strbuf_addf(left, "hint: `git -C %s add -f <file>` records a file .gitignore hides;\n"
			    "hint: remove those that are not the backport's (`git -C %s clean -fdX`\n"
			    "hint: removes every new file it hides that is not added)\n",
			    l->paths.tree, l->paths.tree);
	}
	return n + m + l->wt_nr_ignored;
}

/*
 * --accept-markers: the files whose conflict markers the backporter
 * means, kept in the patch's state `st` (written) so that a later
 * --continue needs them no more. Each must be a file of the work tree.
 */
static int accept_markers(struct loop *l, struct state *st)
{
	struct strvec have = STRVEC_INIT;
	size_t i, k;
	int ret = 0;

	if (!l->opts->accept.nr)
		return 0;
	loop_state_list(&have, st, LK_ACCEPTED);
	for (i = 0; i < l->opts->accept.nr && !ret; i++) {
		const char *path = l->opts->accept.v[i];
		char *abs = path_join(l->paths.tree, path);
		int dup = 0;

		if (!*path || *path == '/' || !strcmp(path, "..") || !strncmp(path, "../", 3) ||
		    strstr(path, "/../") || !file_exists(abs))
			ret = error("--accept-markers '%s': not a file of the work tree '%s' (a path "
				    "as --status shows it, e.g. mm/mremap.c)", shown(path),
				    l->paths.tree);
		for (k = 0; k < have.nr && !ret && !dup; k++)
			dup = !strcmp(have.v[k], path);
		if (!ret && !dup) {
			loop_state_set_at(st, LK_ACCEPTED, have.nr, path);
			strvec_push(&have, path);
			printf("the conflict markers in %s are taken as meant\n", shown(path));
		}
		free(abs);
	}
	if (!ret && state_write(st, l->paths.patch))
		ret = -1;
	strvec_clear(&have);
	return ret;
}

/* Whether the loop's work tree is there to read (a killed removal may have taken it). */
static int work_tree_there(const struct loop *l)
{
	char *git = path_join(l->paths.tree, ".git");
	int there = file_exists(git);

	free(git);
	return there;
}

/* The files whose conflict markers --accept-markers took as meant. */
static void print_accepted(const struct state *st)
{
	struct strvec acc = STRVEC_INIT;
	size_t i;

	loop_state_list(&acc, st, LK_ACCEPTED);
	for (i = 0; i < acc.nr; i++)
		printf("  accepted  %s (its conflict markers are meant: --accept-markers)\n",
		       shown(acc.v[i]));
	strvec_clear(&acc);
}

static int cmd_status(struct loop *l)
{
	struct state st = STATE_INIT;
	struct backport_result r = { 0 };
	struct strbuf left = STRBUF_INIT;
	const char *v;
	int nleft;

	if (state_read(&st, l->paths.patch))
		return 2;
	if (backport_journal_status(&l->paths, l->repo, l->b->name, &st, &left)) {
		fputs(left.buf, stdout);
		strbuf_release(&left);
		state_release(&st);
		return 0;	/* nothing to resolve: --continue finishes the step */
	}
	fputs(left.buf, stdout);
	strbuf_reset(&left);
	if (!(v = loop_state_get(&st, LK_LABEL))) {
		int between = file_exists(l->paths.loop);

		if (between)
			printf("backport loop on '%s': between two patches (interrupted); "
			       "--continue goes on, --abort drops it\n", l->b->name);
		else
			printf("no backport loop in progress on '%s'%s\n", l->b->name,
			       dir_exists(l->paths.starting) ? " (a start was killed: the next "
			       "--continue, --abort or start removes what it wrote)" : "");
		strbuf_release(&left);
		state_release(&st);
		return 0;	/* nothing to resolve either way */
	}
	backport_result_from_state(&r, &st);
	printf("backport loop on '%s'\n", l->b->name);
	printf("  series:  %s\n", shown(loop_state_get(&st, LK_SERIES)));
	printf("  patch:   %s %s %s\n", shown(v), shown(loop_state_get(&st, LK_UPSTREAM)),
	       shown(loop_state_get(&st, LK_SUBJECT)));
	printf("  from:    %s\n", shown(loop_state_get(&st, LK_SOURCE)));
	printf("  tree:    %s (at %.12s)\n", shown(loop_state_get(&st, LK_TREE)),
	       loop_state_get(&st, LK_ONTO) ? loop_state_get(&st, LK_ONTO) : "?");
	print_files(&r, l->paths.tree);
	print_accepted(&st);
	if (!loop_state_get(&st, LK_RECORDED) && !work_tree_there(l)) {
		printf("the work tree %s is gone; --continue checks the patch out again, "
		       "--abort drops the loop\n", l->paths.tree);
		nleft = 1;
	} else if (loop_state_get(&st, LK_RECORDED)) {
		/* a --continue was killed after the patch was written: what is left is its own */
		printf("recorded as %s; %s\n", shown(loop_state_get(&st, LK_RECORDED)),
		       loop_state_get(&st, LK_DECIDED) ?
		       "--continue removes the work tree and goes on" :
		       "--continue adds its decision to series.yaml and goes on");
		nleft = 0;
	} else if ((nleft = loop_leftovers(&left, l, &st, &r)) > 0) {
		printf("left to do:\n%s", left.buf);
	} else if (!nleft) {
		printf("nothing left to resolve: --continue records it\n");
	}
	strbuf_release(&left);
	backport_result_release(&r);
	state_release(&st);
	return nleft < 0 ? 2 : nleft ? 1 : 0;
}

/* --continue, or --skip when skip_reason is set. */
static int cmd_resume(struct loop *l, const char *skip_reason)
{
	struct state st = STATE_INIT;
	struct backport_result r = { 0 };
	struct strbuf left = STRBUF_INIT;
	const struct kit_patch *p;
	int ret = 1, err;

	if (state_read(&st, l->paths.patch))
		goto cleanup;
	if (!loop_state_get(&st, LK_LABEL)) {
		if (!file_exists(l->paths.loop)) {
			error("no backport loop in progress on '%s'", l->b->name);
			/* what a loop killed as it ended left is nobody's */
			backport_loop_remove(&l->paths);
			ret = 2;
			goto cleanup;
		}
		/* interrupted between two patches: go on */
		ret = run_loop(l);
		goto cleanup;
	}
	p = find_entry(l->kit, loop_state_get(&st, LK_SERIES), loop_state_get(&st, LK_LIST),
		       loop_state_get(&st, LK_INDEX));
	if (!p)
		goto cleanup;
	if (skip_reason) {
		struct strbuf flow = STRBUF_INIT;

		strbuf_addstr(&flow, "{ skip: ");
		yaml_quote(&flow, skip_reason);
		strbuf_addstr(&flow, " }");
		printf("series.yaml: %s skipped on '%s'\n", kit_patch_label(p),
		       branch_decisions(l->b));
		/* a --skip killed after series.yaml was written: the decision is ours */
		err = patch_decision(p, branch_decisions(l->b)) ? 0 :
		      backport_journal_begin(&l->paths, BS_DECIDE, kit_patch_label(p), "series.yaml") ||
		      add_decision(l, p, branch_decisions(l->b), flow.buf, "the skip") ||
		      backport_journal_done(&l->paths);
		strbuf_release(&flow);
		if (loop_kit_reloaded(l) || err)
			goto cleanup;
		crash_point("skipped");
	} else {
		if (!loop_state_get(&st, LK_RECORDED) && !work_tree_there(l)) {
			/* nothing there to record: the patch is checked out again */
			printf("the work tree %s is gone: checking %s out again\n", l->paths.tree,
			       shown(loop_state_get(&st, LK_LABEL)));
			ret = finish_patch(l, loop_state_get(&st, LK_LABEL), NULL, 1) ? 1 : run_loop(l);
			goto cleanup;
		}
		backport_result_from_state(&r, &st);
		if (accept_markers(l, &st))
			goto cleanup;
		err = loop_leftovers(&left, l, &st, &r);
		if (err < 0)
			goto cleanup;
		if (err) {
			fprintf(stderr, "error: not resolved yet in %s:\n%s", l->paths.tree, left.buf);
			goto cleanup;
		}
		if (record_backport(l, &st, p, &r))
			goto cleanup;
	}
	/* p is stale once a decision reloaded the kit */
	if (skip_reason)
		backport_result_from_state(&r, &st);
	if (finish_patch(l, loop_state_get(&st, LK_LABEL), &r, 0))
		goto cleanup;
	crash_point("finished");
	ret = run_loop(l);
cleanup:
	strbuf_release(&left);
	backport_result_release(&r);
	state_release(&st);
	return ret;
}

/* The loop's state belongs to the kit it started in: not to another with a branch of that name. */
static int check_same_kit(const struct loop *l)
{
	struct state st = STATE_INIT;
	const char *kit;
	int ret = 0;

	if (state_read(&st, l->paths.loop))
		ret = -1;
	else if ((kit = loop_state_get(&st, LK_KIT)) && strcmp(kit, l->kit->dir))
		ret = error("the backport loop in '%s' was started in the kit '%s', not here",
			    l->paths.dir, kit);
	state_release(&st);
	return ret;
}

/*
 * Take the loop's decisions out of series.yaml and keep the rest: a
 * three-way merge of the kit's file now (the user's edits and the
 * loop's) with the loop's own copy as the base and the file as it was
 * before the loop. Untouched when the loop wrote no decision.
 */
static int restore_series_yaml(struct loop *l)
{
	char *mine = path_join(l->paths.dir, "series.yaml.loop"), *next = xstrfmt("%s.next", mine);
	char *path = path_join(l->kit->dir, "series.yaml");
	struct strbuf base = STRBUF_INIT, now = STRBUF_INIT, orig = STRBUF_INIT, why = STRBUF_INIT;
	git_merge_file_input in_base, in_now, in_orig;
	git_merge_file_result res = { 0 };
	int err, ret = 0;

	git_merge_file_input_init(&in_base, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&in_now, GIT_MERGE_FILE_INPUT_VERSION);
	git_merge_file_input_init(&in_orig, GIT_MERGE_FILE_INPUT_VERSION);

	/* a --continue killed while writing a decision left it in .next (add_decision()) */
	if (strbuf_read_file(&base, next) && strbuf_read_file(&base, mine))
		goto cleanup;	/* the loop wrote no decision */
	if (strbuf_read_file(&orig, l->paths.yaml_orig) || strbuf_read_file(&now, path)) {
		ret = error("cannot read '%s' or '%s': %s", path, l->paths.yaml_orig,
			    strerror(errno));
		goto cleanup;
	}
	in_base.ptr = base.buf;
	in_base.size = base.len;
	in_now.ptr = now.buf;
	in_now.size = now.len;
	in_orig.ptr = orig.buf;
	in_orig.size = orig.len;
	if ((err = git_merge_file(&res, &in_base, &in_now, &in_orig, NULL)) < 0) {
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
		printf("series.yaml: the loop's decisions taken out, the edits made meanwhile kept\n");
cleanup:
	git_merge_file_result_free(&res);
	strbuf_release(&why);
	strbuf_release(&orig);
	strbuf_release(&now);
	strbuf_release(&base);
	free(path);
	free(next);
	free(mine);
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
static int put_back_files(struct loop *l, const struct state *st)
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
			printf("put back %s\n", rel);
		strbuf_release(&old);
	}
	crash_point("put-back");
	for (i = 0;; i++) {
		const char *rel = loop_state_get_at(st, LK_CREATED, i);

		if (!rel)
			break;
		strbuf_reset(&why);
		backport_remove_temp_files(l->kit->dir, rel, &why);
		fputs(why.buf, stdout);
		strbuf_reset(&why);
		/* not there (0): never written, or an --abort killed after it removed it */
		err = fs_exists_beneath(l->kit->dir, rel, &why);
		if (err > 0 && !(err = fs_unlink_beneath(l->kit->dir, rel, &why)))
			printf("removed %s\n", shown(rel));
		else if (err == MKS_EUNSAFE)
			/* the loop never wrote it: it writes nothing beyond a link */
			printf("left %s alone: %s\n", shown(rel), why.buf);
		else if (err)
			ret = error("cannot remove '%s': %s", shown(rel), why.buf);
		remove_empty_dirs(l->kit->dir, rel);
		crash_point("removed-file");
	}
	strbuf_release(&why);
	return ret;
}

/*
 * Drop the loop. series.yaml goes back first and the patch files after
 * it, so that every kill leaves a kit that loads: a decision the loop
 * wrote never outlives the file it names. The journal says an --abort
 * is under way: a rerun of --abort does it all again (every step can
 * be done twice), a --continue refuses. The loop's directory, and with
 * it the records each step reads, goes last and at once.
 */
static int cmd_abort(struct loop *l)
{
	struct state st = STATE_INIT;
	struct strbuf why = STRBUF_INIT;
	char *kit_ref = NULL;
	int ret = 0;

	if (!file_exists(l->paths.loop) && !file_exists(l->paths.patch)) {
		error("no backport loop in progress on '%s'", l->b->name);
		/* what a loop killed as it ended left is nobody's */
		backport_loop_remove(&l->paths);
		return 2;
	}
	if (backport_journal_begin(&l->paths, BS_ABORT, NULL, NULL) ||
	    state_read(&st, l->paths.loop)) {
		ret = 1;
		goto cleanup;
	}
	if (backport_worktree_remove(l->repo, l->paths.wt_name, l->paths.tree, l->paths.refname))
		ret = 1;
	backport_remove_temp_files(l->kit->dir, "series.yaml", &why);
	fputs(why.buf, stdout);
	if (restore_series_yaml(l)) {
		/* its decisions still name the loop's files: they stay with them */
		ret = 1;
		goto cleanup;
	}
	crash_point("yaml-restored");
	if (put_back_files(l, &st))
		ret = 1;
	strbuf_reset(&why);
	kit_ref = kit_refname(l->kit, l->b, NULL);
	if (backport_abort_refs(l->repo, &st, kit_ref, &why))
		ret = 1;
	fputs(why.buf, stdout);
	if (!ret && backport_loop_remove(&l->paths))
		ret = 1;
	if (!ret)
		printf("backport loop on '%s' aborted; the kit is as it was before it\n", l->b->name);
cleanup:
	free(kit_ref);
	strbuf_release(&why);
	state_release(&st);
	return ret;
}

static int cmd_start(struct loop *l)
{
	struct strbuf yaml = STRBUF_INIT;
	struct state st = STATE_INIT;
	char *path = path_join(l->kit->dir, "series.yaml"), *ref;
	git_oid tip;
	int ret = 1;

	if (file_exists(l->paths.loop) || file_exists(l->paths.patch)) {
		error("a backport loop is in progress on '%s' (mkseries backport --branch %s "
		      "--status): --continue, --skip or --abort it first", l->b->name, l->b->name);
		ret = 2;
		goto cleanup;
	}
	if (strbuf_read_file(&yaml, path)) {
		error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	loop_state_set(&st, LK_BRANCH, l->b->name);
	loop_state_set(&st, LK_KIT, l->kit->dir);
	/* for --abort: the kit's ref as it was ("": none) */
	ref = kit_refname(l->kit, l->b, NULL);
	loop_state_set(&st, LK_KIT_REF, git_reference_name_to_id(&tip, l->repo, ref) ? "" :
		  git_oid_tostr_s(&tip));
	git_error_clear();
	free(ref);
	/* what an older loop left is not this one's: its series.yaml.loop would be taken as ours */
	if (backport_loop_remove(&l->paths))
		goto cleanup;
	if (!backport_loop_begin(&l->paths, yaml.buf, yaml.len, &st))
		ret = run_loop(l);
cleanup:
	state_release(&st);
	strbuf_release(&yaml);
	free(path);
	return ret;
}

/*
 * The branch whose loop is in progress when no --branch is given, as
 * git am and git rebase find theirs. Returns 1 with *out set when the
 * kit has one loop in progress, 0 when none, 2 when several (printed).
 */
static int find_loop_branch(const char **out, const struct kit *kit, const char *workdir)
{
	struct strbuf found = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < kit->nr_branches; i++) {
		struct backport_paths lp;

		if (backport_paths_init(&lp, kit, workdir, &kit->branches[i])) {
			strbuf_release(&found);
			return 2;
		}
		if (file_exists(lp.loop) || file_exists(lp.patch)) {
			strbuf_addf(&found, "  mkseries backport --branch %s ...\n",
				    kit->branches[i].name);
			*out = kit->branches[i].name;
			n++;
		}
		backport_paths_release(&lp);
	}
	if (n > 1)
		error("backport loops are in progress on %zu branches; name one:\n%s", n,
		      found.buf);
	strbuf_release(&found);
	if (n != 1)
		*out = NULL;
	return (int)(n > 1 ? 2 : n);
}

/* The loop of branch `branch` of `kit` (may point into it: copied), its paths. 0, or 2 (printed). */
static int loop_setup(struct loop *l, struct kit *kit, const struct loop_opts *lo,
		      const char *branch, const char *workdir)
{
	l->kit = kit;
	l->opts = lo;
	l->name = xstrdup(branch);
	l->b = kit_find_branch(kit, l->name);
	if (!l->b) {
		kit_unknown_branch(kit, l->name);
		return 2;
	}
	if (lo->series && !kit_find_series(kit, lo->series)) {
		kit_unknown_series(kit, lo->series);
		return 2;
	}
	return backport_paths_init(&l->paths, kit, workdir, l->b) ? 2 : 0;
}

int cmd_backport(int argc, const char **argv)
{
	const char *branch = NULL, *workdir = NULL, *skip_msg = NULL;
	int cont = 0, skip = 0, abort_ = 0, status = 0, modes, nr, ret;
	struct loop_opts lo = { 0 };
	const struct option opts[] = {
		OPT_STRING("branch", 'b', &branch, "B", "the branch to backport to"),
		OPT_BOOL("continue", 0, &cont, "record the resolved tree and go on"),
		OPT_BOOL("skip", 0, &skip, "record a skip decision (-m why) and go on"),
		OPT_BOOL("abort", 0, &abort_, "drop the loop; the kit as it was before it"),
		OPT_BOOL("status", 0, &status, "show where the loop stands"),
		OPT_STRING("message", 'm', &skip_msg, "WHY", "--skip: the reason recorded"),
		OPT_BOOL("edit", 'e', &lo.edit, "--continue: edit the message first"),
		OPT_LIST("accept-markers", 0, &lo.accept, "PATH",
			 "--continue: the conflict markers in PATH are meant to be there"),
		OPT_REPO(&lo.repo),
		OPT_WORKDIR(&workdir),
		OPT_END(),
	};
	const char *usage = "mkseries backport --branch B [SERIES] | --continue [-e] "
			    "[--accept-markers PATH]... | --skip -m WHY | --abort | --status";
	struct kit kit = KIT_INIT;
	struct loop l = { 0 };

	strvec_init(&lo.accept);
	nr = parse_options(argc, argv, opts, usage);
	modes = cont + skip + abort_ + status;
	/* parse_options() leaves the arguments from argv[0]: SERIES is argv[0]. */
	if (nr < 0 || modes > 1 || (!branch && !modes) || (nr > 0 && modes) || nr > 1 ||
	    (skip_msg && !skip) || (lo.accept.nr && !cont))
		usage_with_options(usage, opts, 2);
	if (skip && (!skip_msg || !*skip_msg)) {
		error("--skip needs the reason it records in series.yaml: --skip -m \"why\"");
		return 2;
	}
	lo.series = nr == 1 ? argv[0] : NULL;
	if (kit_open(&kit)) {
		/* the loop's own edits may be what broke it: --abort still takes them out */
		if (!abort_ || kit_load_kernels(&kit, kit_dir()))
			return 2;
		warning("series.yaml does not load; --abort takes the loop's changes out all the same");
	}
	if (!branch && (ret = find_loop_branch(&branch, &kit, workdir)) != 1) {
		if (!ret && status)
			printf("no backport loop in progress in this kit\n");
		else if (!ret)
			error("no backport loop in progress in this kit (start one with "
			      "mkseries backport --branch B)");
		kit_release(&kit);
		strvec_clear(&lo.accept);
		return !ret && status ? 0 : 2;
	}
	strbuf_init(&l.wt_ignored, 0);
	if ((ret = loop_setup(&l, &kit, &lo, branch, workdir)))
		goto cleanup;
	branch = NULL;	/* it may point into the kit, which add_decision() reloads */
	if (status) {
		/* read only: no lock, the repository only when there is a tree to look at */
		if ((file_exists(l.paths.patch) || file_exists(l.paths.journal)) &&
		    (ret = loop_open(&l, 0))) {
			ret = 2;
			goto cleanup;
		}
		ret = cmd_status(&l);
		goto cleanup;
	}
	if ((ret = loop_open(&l, KERNEL_REPO_CREATE | KERNEL_REPO_LOCK))) {
		ret = mks_exit_status(ret);
		goto cleanup;
	}
	if ((abort_ || cont || skip) && check_same_kit(&l))
		ret = 2;
	else if (loop_recover(&l, abort_))
		ret = 1;
	else if (abort_)
		ret = cmd_abort(&l);
	else if (cont || skip)
		ret = cmd_resume(&l, skip ? skip_msg : NULL);
	else
		ret = cmd_start(&l);
cleanup:
	loop_close(&l);
	backport_paths_release(&l.paths);
	strbuf_release(&l.wt_ignored);
	git_index_free(l.wt_index);
	free(l.name);
	free(l.last_label);
	kit_release(&kit);
	strvec_clear(&lo.accept);
	return ret;
}

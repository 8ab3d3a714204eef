/* apply/backportrecord.c: the backport loop's recording of a resolved patch: its commit, its kit file, its decision in series.yaml. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply/backportsteps.h"
#include "kit/yamledit.h"
#include "lib/fs.h"
#include "lib/gitutil.h"
#include "lib/runcmd.h"
#include "patches/mail.h"
#include "patches/patchfile.h"

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

/* Where a decision goes, and what it says. */
struct decision_at {
	char *sid, *branch;	/* owned: the kit they came from is loaded again */
	const char *list, *flow;
	size_t index;
};

/*
 * The loop's copy with the decision goes to series.yaml.loop.next
 * first, and becomes series.yaml.loop once the kit's file is written:
 * killed in between, --abort takes the decision out with .next as the
 * base (taking out one the kit's file does not have yet changes
 * nothing), and a rerun adds it to series.yaml.loop again. The user may
 * have moved entries: then the copy is the kit's file as it will be
 * (`text`, the decision in it).
 */
static int write_loop_copy(struct backport_loop *l, const struct decision_at *at,
			   struct strbuf *own, const struct strbuf *text)
{
	if (yamledit_add_branch_decision(own, l->paths.yaml_loop, at->sid, at->list, at->index,
					 at->branch, at->flow)) {
		strbuf_reset(own);
		strbuf_add(own, text->buf, text->len);
	}
	if (write_file_atomic(l->paths.yaml_next, own->buf, own->len))
		return error("cannot write '%s': %s", l->paths.yaml_next, strerror(errno));
	return 0;
}

int backport_loop_decide(struct backport_loop *l, const struct kit_patch *p, const char *branch,
			 const char *flow, const char *what)
{
	char *path = path_join(l->kit->dir, "series.yaml"), *dir = xstrdup(l->kit->dir);
	struct decision_at at = {
		.sid = xstrdup(p->series->id), .branch = xstrdup(branch),
		.list = p->is_fixup ? "fixups" : "patches", .flow = flow,
		.index = (size_t)p->index - 1,
	};
	struct strbuf text = STRBUF_INIT, orig = STRBUF_INIT, own = STRBUF_INIT;
	int ret = -1;

	if (strbuf_read_file(&text, path)) {
		error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (strbuf_read_file(&own, l->paths.yaml_loop) &&
	    strbuf_read_file(&own, l->paths.yaml_orig)) {
		error("cannot read '%s': %s", l->paths.yaml_orig, strerror(errno));
		goto cleanup;
	}
	strbuf_add(&orig, text.buf, text.len);
	if (yamledit_add_branch_decision(&text, path, at.sid, at.list, at.index, at.branch, flow) ||
	    write_loop_copy(l, &at, &own, &text) ||
	    yamledit_commit(l->kit, dir, path, &text, &orig, what))
		goto cleanup;
	if (rename(l->paths.yaml_next, l->paths.yaml_loop))
		error("cannot rename '%s' to '%s': %s", l->paths.yaml_next, l->paths.yaml_loop,
		      strerror(errno));
	else
		ret = 0;
cleanup:
	strbuf_release(&own);
	strbuf_release(&orig);
	strbuf_release(&text);
	free(at.branch);
	free(at.sid);
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

/*
 * The tree the work tree holds (*tree_id) and the commit it was checked
 * out from (*onto_c, caller frees); an error when nothing changed.
 */
static int worktree_change(git_oid *tree_id, git_commit **onto_c, struct backport_loop *l,
			   const struct state *st, const struct backport_result *r)
{
	git_oid onto;
	int err;

	*onto_c = NULL;
	if (git_oid_fromstr(&onto, loop_state_get(st, LK_ONTO) ? loop_state_get(st, LK_ONTO) : ""))
		return error("the loop's state has no valid 'onto' commit");
	if (backport_loop_worktree_tree(tree_id, l, r))
		return -1;
	if ((err = git_commit_lookup(onto_c, l->repo, &onto)) < 0)
		return gitutil_error(err, "cannot read commit %s", oid_short(&onto));
	if (git_oid_equal(tree_id, git_commit_tree_id(*onto_c)))
		return error("the work tree has no change left; use --skip -m \"why\" to skip the patch");
	return 0;
}

/* Let the backporter edit *message (-e) in the loop's MESSAGE file. */
static int edit_message(struct backport_loop *l, char **message)
{
	struct strbuf edited = STRBUF_INIT;
	const char *msgfile = l->paths.message;
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
	return ret;
}

/*
 * The backport's commit message: the stable-style message of mail `m`
 * with a note of how each file that did not apply as it was got in.
 * NULL when the editor failed (printed). Caller frees.
 */
static char *backport_message(struct backport_loop *l, const struct kit_patch *p,
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
static int write_backport_commit(git_oid *out, struct backport_loop *l, const struct kit_patch *p,
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
	if (backport_loop_note(&l->paths, LK_KEEP, keep) ||
	    backport_journal_begin(&l->paths, BS_KEEP, kit_patch_label(p), NULL)) {
		ret = -1;
		goto cleanup;
	}
	/* a transaction: the crash tests stop it with the lock held, as a kill may */
	if ((err = git_transaction_new(&tx, l->repo)) >= 0 &&
	    (err = git_transaction_lock_ref(tx, keep)) >= 0) {
		test_crash_point("keep-locked");
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
static int keep_replaced(struct backport_loop *l, const char *replaces)
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
	err = backport_loop_note(&l->paths, LK_REPLACED, replaces) ||
	      backport_loop_note(&l->paths, LK_BACKUP, bak);
	free(bak);
	return err ? -1 : 0;
}

/* The kit file the backport goes to (*rel, caller frees): the one it replaces, or a new one. */
static int backport_target(char **rel, struct backport_loop *l, const char *replaces,
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
	return backport_loop_note(&l->paths, LK_CREATED, *rel) ? -1 : 0;
}

/* The one patch of the file the state `st` names, in *mails (*nr is 1). 0 or -1 (printed). */
static int read_source(struct mail_patch **mails, size_t *nr, const struct backport_loop *l,
		       const struct state *st)
{
	char *src = path_join(l->kit->dir, loop_state_get(st, LK_SOURCE));
	int ret = mail_parse_file(mails, nr, src) < 0 ? -1 : 0;

	if (!ret && *nr != 1)
		ret = error("'%s' holds %zu patches; the kit names one patch per file", src, *nr);
	free(src);
	return ret;
}

/*
 * The kit file the backport goes to (*rel, caller frees). Its name is
 * chosen once and kept in the state before it is written: a --continue
 * killed while writing it writes the same file again, not a second one
 * numbered after it.
 */
static int record_target(char **rel, struct backport_loop *l, struct state *st,
			 const struct kit_patch *p, const struct mail_patch *m)
{
	const char *target = loop_state_get(st, LK_TARGET);

	if (target && *target) {
		*rel = xstrdup(target);
		return 0;
	}
	if (backport_target(rel, l, loop_state_get(st, LK_REPLACES), p, m))
		return -1;
	loop_state_set(st, LK_TARGET, *rel);
	return state_write(st, l->paths.patch);
}

/*
 * The first step of recording: commit the work tree and write it as the
 * branch's patch file, then mark it recorded in the state file.
 */
static int record_file(struct backport_loop *l, struct state *st, const struct kit_patch *p,
		       const struct backport_result *r)
{
	struct mail_patch *mails = NULL;
	size_t nr_mails = 0;
	git_oid tree_id, commit_id;
	git_commit *onto_c = NULL;
	char *message = NULL, *rel = NULL, *written = NULL;
	const char *replaces = loop_state_get(st, LK_REPLACES);
	int ret = -1;

	if (worktree_change(&tree_id, &onto_c, l, st, r) || read_source(&mails, &nr_mails, l, st))
		goto cleanup;
	message = backport_message(l, p, &mails[0], r, onto_c, &tree_id);
	if (!message ||
	    write_backport_commit(&commit_id, l, p, &mails[0], &tree_id, onto_c, message) ||
	    record_target(&rel, l, st, p, &mails[0]))
		goto cleanup;
	test_crash_point("target");
	if (backport_journal_begin(&l->paths, BS_RECORD, kit_patch_label(p), rel) ||
	    patch_write_commit(&written, l->repo, &commit_id, l->kit->dir, rel, NULL, 0, 1))
		goto cleanup;
	test_crash_point("written");
	loop_state_set(st, LK_RECORDED, rel);
	if (replaces && *replaces)
		loop_state_set(st, LK_DECIDED, "1");
	if (state_write(st, l->paths.patch) || backport_journal_done(&l->paths))
		goto cleanup;
	backport_loop_say(l, "recorded %s\n", rel);
	ret = 0;
cleanup:
	free(written);
	free(rel);
	free(message);
	git_commit_free(onto_c);
	mail_patches_free(mails, nr_mails);
	return ret;
}

/* The second step: declare the new file in series.yaml unless its directory is declared. */
static int record_decision(struct backport_loop *l, struct state *st, const struct kit_patch *p)
{
	struct strbuf flow = STRBUF_INIT;
	char *bname = xstrdup(branch_decisions(l->b)), *label = xstrdup(kit_patch_label(p));
	char *dir;
	int declared, err, ret = -1;

	dir = backport_dir(p->series, l->b, &declared);
	/* a --continue killed after series.yaml was written: the decision is ours */
	if (!declared && patch_decision(p, bname)) {
		backport_loop_say(l, "series.yaml: %s on '%s': already recorded\n", label,
				  bname);
	} else if (!declared) {
		strbuf_addstr(&flow, "{ file: ");
		yaml_scalar(&flow, loop_state_get(st, LK_RECORDED));
		strbuf_addstr(&flow, " }");
		err = backport_journal_begin(&l->paths, BS_DECIDE, label, "series.yaml") ||
		      backport_loop_decide(l, p, bname, flow.buf, "the new backport");
		/* reloaded even when the decision was refused (yamledit_commit()) */
		if (backport_loop_reloaded(l) || err)
			goto cleanup;
		backport_loop_say(l, "series.yaml: %s on '%s': %s\n", label, bname,
				  loop_state_get(st, LK_RECORDED));
		test_crash_point("decided");
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

int backport_loop_record(struct backport_loop *l, struct state *st, const struct kit_patch *p,
			 const struct backport_result *r)
{
	if (!loop_state_get(st, LK_RECORDED)) {
		if (record_file(l, st, p, r))
			return -1;
		/* the file written, series.yaml not yet */
		test_crash_point("recorded");
	}
	if (loop_state_get(st, LK_DECIDED))
		return 0;
	return record_decision(l, st, p);
}

int backport_loop_leftovers(struct strbuf *left, struct backport_loop *l, const struct state *st,
			    const struct backport_result *r)
{
	struct strvec accepted = STRVEC_INIT, marked = STRVEC_INIT;
	git_oid onto, tree;
	int n = (int)backport_leftovers(left, r, l->paths.tree), m;
	size_t i;

	if (git_oid_fromstr(&onto, loop_state_get(st, LK_ONTO) ? loop_state_get(st, LK_ONTO) : ""))
		return error("the loop's state has no valid 'onto' commit");
	if (backport_loop_worktree_tree(&tree, l, r))
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

int backport_loop_accept_markers(struct backport_loop *l, struct state *st)
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
			backport_loop_say(l, "the conflict markers in %s are taken as meant\n",
					  shown(path));
		}
		free(abs);
	}
	if (!ret && state_write(st, l->paths.patch))
		ret = -1;
	strvec_clear(&have);
	return ret;
}

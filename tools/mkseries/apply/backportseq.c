/* apply/backportseq.c: the backport loop's state machine: apply the kit, stop at a patch that does not apply, resume, record, go on. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "apply/backportsteps.h"
#include "kit/yamledit.h"
#include "lib/fs.h"
#include "lib/gitutil.h"
#include "patches/mail.h"
#include "tree/tree.h"

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

/*
 * The patch `label` is done with (recorded or skipped): its state goes,
 * and the loop's .rej files of `r` (left by a --skip; a tree's
 * .gitignore may hide them from the next checkout). The work tree
 * stays for the next patch, unless `drop_tree`.
 */
static int finish_patch(struct backport_loop *l, const char *label,
			const struct backport_result *r, int drop_tree)
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
static int remove_work_tree(struct backport_loop *l)
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

/* The kit applies on the branch: say so, and the loop's directory goes. */
static void kit_applied(struct backport_loop *l, const struct apply_outcome *o)
{
	char *ref = kit_refname(l->kit, l->b, NULL);

	backport_loop_say(l, "%s: %s %s %s (%zu commits, %zu squashed, %zu already in the tree)\n",
			  l->b->name, ref, o->moved ? "->" : "up to date at", oid_short(&o->tip),
			  o->nr_commits, o->nr_squashed, o->nr_found);
	free(ref);
	test_crash_point("applied");
	if (!remove_work_tree(l))
		backport_loop_remove(&l->paths);
}

/* What --continue, --skip and status need to know of the patch worked on. */
static void set_patch_state(struct state *st, const struct backport_loop *l,
			    const struct plan_item *it, const git_oid *onto,
			    const struct backport_result *r)
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

/*
 * Check out `onto` in the loop's work tree (a fresh one) and apply mail
 * m's diff there as well as it goes. Returns 0 or -1 (printed; the work
 * tree removed again when the apply failed).
 */
static int apply_in_work_tree(struct backport_result *r, struct backport_loop *l,
			      const git_oid *onto, const struct plan_item *it,
			      const struct mail_patch *m)
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
 * Patch `it`, item o->failed of `plan`, does not apply: its tree (the
 * base `base` and the items before it: *before) checked out in the work
 * tree, and the patch applied there as well as it goes (*r). Returns 0,
 * or -1 (printed).
 */
static int check_out_failed(struct apply_outcome *before, struct backport_result *r,
			    struct backport_loop *l, struct plan *plan,
			    const struct apply_outcome *o, const git_oid *base)
{
	const struct plan_item *it = &plan->items[o->failed];
	struct mail_patch *mails = NULL;
	size_t nr_mails = 0, keep = plan->nr;
	char *src;
	int err;

	if (l->opts->series && strcmp(l->opts->series, it->patch->series->id))
		return error("that patch is not of series '%s': resolve it first", l->opts->series);
	if (it->action == PLAN_SQUASH)
		return error("%s is squashed into the patch before it; the loop works on patches "
			     "of their own (declare it without `squash` to work on it)",
			     kit_patch_label(it->patch));
	/* the commits of the items before the failing one: its tree to work in */
	plan->nr = o->failed;
	err = plan_apply(before, l->repo, plan, base, NULL, NULL, l->me);
	plan->nr = keep;
	if (err)
		return -1;
	src = path_join(l->kit->dir, it->source);
	if (mail_parse_file(&mails, &nr_mails, src) < 0 || nr_mails != 1 || !mails[0].diff)
		err = error("'%s' does not hold one patch", it->source);
	else
		err = apply_in_work_tree(r, l, &before->tip, it, &mails[0]);
	mail_patches_free(mails, nr_mails);
	free(src);
	return err;
}

/*
 * Item o->failed of `plan` does not apply: checked out, its state
 * written. A clean result is recorded at once: 0, the loop goes on.
 * Otherwise the loop stops there for the backporter, or failed
 * (kept): -1.
 */
static int stop_at(struct backport_loop *l, struct plan *plan, const struct apply_outcome *o,
		   const git_oid *base)
{
	const struct plan_item *it = &plan->items[o->failed];
	struct apply_outcome before;
	struct backport_result r = { 0 };
	struct state st = STATE_INIT;
	int ret = -1;

	apply_outcome_init(&before);
	if (check_out_failed(&before, &r, l, plan, o, base))
		goto cleanup;
	test_crash_point("checked-out");
	set_patch_state(&st, l, it, &before.tip, &r);
	if (state_write(&st, l->paths.patch) || backport_journal_done(&l->paths))
		goto cleanup;
	/* Why it does not apply, when it is the backporter's to finish: not for a clean merge. */
	if (backport_result_needs_work(&r) && l->ops && l->ops->report)
		l->ops->report(l, o->report.buf);
	if (l->ops && l->ops->checked_out)
		l->ops->checked_out(l, it, &before, &r);
	if (!backport_result_needs_work(&r)) {
		backport_loop_say(l, "every file applied or merged cleanly: recording it\n");
		if (!backport_loop_record(l, &st, it->patch, &r) &&
		    !finish_patch(l, loop_state_get(&st, LK_LABEL), &r, 0))
			ret = 0;
		goto cleanup;
	}
	if (l->ops && l->ops->stopped)
		l->ops->stopped(l);
cleanup:
	state_release(&st);
	backport_result_release(&r);
	apply_outcome_release(&before);
	return ret;
}

/*
 * Apply the kit; at the first patch that does not apply, check out the
 * tree before it and apply it there as well as possible. A clean result
 * is recorded at once and the loop goes on. Returns 0 when the kit
 * applies, -1 when it stopped at a patch or failed, MKS_ECONFIG when the
 * kit does not plan.
 */
static int run_loop(struct backport_loop *l)
{
	int ret, again;

	do {
		struct plan plan = PLAN_INIT;
		struct apply_outcome o;
		git_oid base;
		int err;

		ret = -1;
		again = 0;
		apply_outcome_init(&o);
		if (plan_build(&plan, l->kit, l->b)) {
			ret = MKS_ECONFIG;
		} else if (tree_import(&base, l->repo, l->kit, l->b, 0)) {
			;	/* printed */
		} else if (!(err = branch_apply(&o, l->repo, &plan, &base, NULL, l->me,
						"mkseries backport"))) {
			kit_applied(l, &o);
			ret = 0;
		} else if (err == MKS_EAPPLYFAIL) {
			/* recorded: the kit changed, plan and apply again */
			again = !stop_at(l, &plan, &o, &base);
		} else if (err == MKS_EUNSAFE) {
			error("%.*s", (int)(o.report.len && o.report.buf[o.report.len - 1] == '\n' ?
					    o.report.len - 1 : o.report.len), o.report.buf);
		}
		apply_outcome_release(&o);
		plan_release(&plan);
	} while (again);
	return ret;
}

int backport_loop_resume(struct backport_loop *l, const char *skip_reason)
{
	struct state st = STATE_INIT;
	struct backport_result r = { 0 };
	struct strbuf left = STRBUF_INIT;
	const struct kit_patch *p;
	int ret = -1, err;

	if (state_read(&st, l->paths.patch))
		goto cleanup;
	if (!loop_state_get(&st, LK_LABEL)) {
		if (!file_exists(l->paths.loop)) {
			error("no backport loop in progress on '%s'", l->b->name);
			/* what a loop killed as it ended left is nobody's */
			backport_loop_remove(&l->paths);
			ret = MKS_ECONFIG;
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
		backport_loop_say(l, "series.yaml: %s skipped on '%s'\n", kit_patch_label(p),
				  branch_decisions(l->b));
		/* a --skip killed after series.yaml was written: the decision is ours */
		err = patch_decision(p, branch_decisions(l->b)) ? 0 :
		      backport_journal_begin(&l->paths, BS_DECIDE, kit_patch_label(p), "series.yaml") ||
		      backport_loop_decide(l, p, branch_decisions(l->b), flow.buf, "the skip") ||
		      backport_journal_done(&l->paths);
		strbuf_release(&flow);
		if (backport_loop_reloaded(l) || err)
			goto cleanup;
		test_crash_point("skipped");
	} else {
		if (!loop_state_get(&st, LK_RECORDED) && !backport_loop_tree_there(l)) {
			/* nothing there to record: the patch is checked out again */
			backport_loop_say(l, "the work tree %s is gone: checking %s out again\n",
					  l->paths.tree, shown(loop_state_get(&st, LK_LABEL)));
			ret = finish_patch(l, loop_state_get(&st, LK_LABEL), NULL, 1) ? -1 : run_loop(l);
			goto cleanup;
		}
		backport_result_from_state(&r, &st);
		if (backport_loop_accept_markers(l, &st))
			goto cleanup;
		err = backport_loop_leftovers(&left, l, &st, &r);
		if (err < 0)
			goto cleanup;
		if (err) {
			strbuf_rtrim(&left);
			error("not resolved yet in %s:\n%s", l->paths.tree, left.buf);
			goto cleanup;
		}
		if (backport_loop_record(l, &st, p, &r))
			goto cleanup;
	}
	/* p is stale once a decision reloaded the kit */
	if (skip_reason)
		backport_result_from_state(&r, &st);
	if (finish_patch(l, loop_state_get(&st, LK_LABEL), &r, 0))
		goto cleanup;
	test_crash_point("finished");
	ret = run_loop(l);
cleanup:
	strbuf_release(&left);
	backport_result_release(&r);
	state_release(&st);
	return ret;
}

int backport_loop_start(struct backport_loop *l)
{
	struct strbuf yaml = STRBUF_INIT;
	struct state st = STATE_INIT;
	char *path = path_join(l->kit->dir, "series.yaml"), *ref;
	git_oid tip;
	int ret = -1;

	if (file_exists(l->paths.loop) || file_exists(l->paths.patch)) {
		error("a backport loop is in progress on '%s' (mkseries backport --branch %s "
		      "--status): --continue, --skip or --abort it first", l->b->name, l->b->name);
		ret = MKS_ECONFIG;
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

/* run/applystep.c: the apply step of one branch: fresh or not, apply, record, and its lines. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "run/applystep.h"
#include "apply/applyplan.h"
#include "apply/backportloop.h"
#include "apply/plan.h"
#include "lib/gitutil.h"
#include "record/key.h"
#include "results/results.h"
#include "tree/tree.h"

/* "git v6.12.58 of /src/linux", "debian linux-source-6.12 (bookworm)", "tarball FILE" */
static char *source_name(const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;

	switch (s->kind) {
	case SOURCE_GIT:
		return xstrfmt("git %s of %s", s->ref ? s->ref : "HEAD", s->repo);
	case SOURCE_DEBIAN:
		return xstrfmt("debian %s (%s)", s->package, s->suite);
	case SOURCE_TARBALL:
		return xstrfmt("tarball %s", s->tarball);
	}
	return xstrdup("its source");
}

/* Whether the import record in workdir already says what st does: then it is not written again. */
static int same_import(const struct step_record *st, const char *workdir)
{
	struct step_record old = STEP_RECORD_INIT;
	const char *a, *b;
	int same = 0;

	if (record_status(st) == RS_OK && !record_read(&old, workdir, STEP_IMPORT, NULL) &&
	    record_status(&old) == RS_OK) {
		a = record_get(st, RF_WHAT);
		b = record_get(&old, RF_WHAT);
		same = !strcmp(record_get(st, RF_BASE), record_get(&old, RF_BASE) ?
			       record_get(&old, RF_BASE) : "") &&
		       (a && b ? !strcmp(a, b) : a == b);
	}
	record_release(&old);
	return same;
}

int import_step_run(git_oid *base, struct strbuf *out, git_repository *repo, const struct kit *kit,
		    const struct kernel_branch *b, const char *workdir, unsigned flags)
{
	struct tree_import_info info;
	struct step_record st = STEP_RECORD_INIT;
	size_t mark = error_mark();
	char *errors;
	int ret = 0;

	ret = tree_import_ex(base, &info, repo, kit, b, flags);
	if (ret) {
		char *what = source_name(b);

		errors = error_since(mark);
		error_flush();
		record_set_status(&st, RS_FAILED);
		record_setf(&st, RF_EVIDENCE, "cannot import %s: %s", what,
			    errors ? errors : "no error was given");
		free(errors);
		strbuf_addf(out, "FAILED %s", record_get(&st, RF_EVIDENCE));
		free(what);
		ret = -1;
	} else {
		record_set_status(&st, RS_OK);
		record_set(&st, RF_BASE, git_oid_tostr_s(base));
		if (info.what)
			record_set(&st, RF_WHAT, info.what);
		strbuf_addstr(out, tree_import_summary(&info, base));
	}
	if (!same_import(&st, workdir) && record_write(&st, workdir, STEP_IMPORT, NULL))
		ret = -1;
	tree_import_info_release(&info);
	record_release(&st);
	return ret;
}

int apply_step_plan(struct apply_step *s, const struct kit *kit, const struct kernel_branch *b,
		    struct strbuf *why)
{
	size_t mark = error_mark();
	char *errors;
	int ret = 0;

	s->b = b;
	s->vplans = xcalloc(b->nr_variants + 1, sizeof(*s->vplans));
	s->vapplied = xcalloc(b->nr_variants + 1, sizeof(*s->vapplied));
	s->verr = xcalloc(b->nr_variants + 1, sizeof(*s->verr));
	s->vo = xcalloc(b->nr_variants + 1, sizeof(*s->vo));
	for (size_t i = 0; i < b->nr_variants; i++)
		apply_outcome_init(&s->vo[i]);
	apply_outcome_init(&s->kit);
	if (plan_build(&s->plan, kit, b)) {
		strbuf_addstr(why, "the kit is invalid for this branch");
		ret = MKS_ECONFIG;
	}
	for (; !ret && s->nr_vplans < b->nr_variants; s->nr_vplans++) {
		if (plan_build_variant(&s->vplans[s->nr_vplans], kit, b, &b->variants[s->nr_vplans])) {
			strbuf_addf(why, "variant '%s' is invalid for this branch",
				    b->variants[s->nr_vplans].name);
			ret = MKS_ECONFIG;
		}
	}
	errors = ret ? error_since(mark) : NULL;
	if (errors)
		strbuf_addf(why, ": %s", errors);
	free(errors);
	error_flush();
	return ret;
}

void apply_step_release(struct apply_step *s)
{
	size_t i;

	plan_release(&s->plan);
	for (i = 0; i < s->nr_vplans; i++)
		plan_release(&s->vplans[i]);
	for (i = 0; s->vo && s->b && i < s->b->nr_variants; i++)
		apply_outcome_release(&s->vo[i]);
	apply_outcome_release(&s->kit);
	free(s->vplans);
	free(s->vapplied);
	free(s->verr);
	free(s->vo);
	free(s->refname);
	record_release(&s->rec);
	strbuf_release(&s->why);
	memset(s, 0, sizeof(*s));
}

/* "cannot apply 'x 2/2' onto '6.12': mm/mremap.c hunk 3 ..." from apply's report. */
static char *conflict_evidence(const char *report)
{
	const char *eol = strchrnul(report, '\n'), *why;
	struct strbuf sb = STRBUF_INIT;

	strbuf_add(&sb, report, eol - report);
	/* The report goes on with "  from FILE", then why, indented. */
	why = *eol ? strchrnul(eol + 1, '\n') : eol;
	if (*why) {
		why++;
		while (*why == ' ')
			why++;
		if (*why)
			strbuf_addf(&sb, ": %.*s", (int)(strchrnul(why, '\n') - why), why);
	}
	return strbuf_detach(&sb, NULL);
}

static void record_series(struct step_record *st, const struct plan *plan,
			  const enum applied_state *applied, size_t failed)
{
	struct branch_result tmp;
	size_t i;

	memset(&tmp, 0, sizeof(tmp));
	branch_series_from_plan(&tmp, plan, applied, failed);
	record_setf(st, RF_SERIES, "%zu", tmp.nr_series);
	for (i = 0; i < tmp.nr_series; i++) {
		record_item_setn(st, RI_SERIES_ID, i, tmp.series[i].id);
		record_item_setn(st, RI_SERIES_TITLE, i, tmp.series[i].title);
		record_item_setn(st, RI_SERIES_STATE, i, series_state_name(tmp.series[i].state));
		record_item_setn(st, RI_SERIES_DETAIL, i, tmp.series[i].detail);
	}
	branch_result_release(&tmp);
}

/*
 * Whether what the apply record says is still what the repository has:
 * each branch (the kit's, each variant's) recorded as applied is at its
 * tip; a conflict stays a conflict.
 */
static int still_there(const struct apply_step *s, git_repository *repo)
{
	const struct step_record *st = &s->rec;
	enum record_status status = record_status(st);
	const char *tip;
	size_t i;
	int ok = 1;

	for (i = 0; ok && i <= s->b->nr_variants; i++) {
		const struct plan *plan = i ? &s->vplans[i - 1] : &s->plan;
		const char *name = i ? plan->variant->name : NULL;
		char *refname = branch_refname(plan);
		git_oid now;

		if (name) {
			status = record_variant_status(st, name);
			tip = record_item_get(st, RI_VARIANT_TIP, name);
		} else {
			tip = record_get(st, RF_TIP);
		}
		if (status == RS_OK)
			ok = tip && git_reference_name_to_id(&now, repo, refname) == 0 &&
			     !strcmp(tip, git_oid_tostr_s(&now));
		else
			ok = status == RS_CONFLICT;
		free(refname);
	}
	return ok;
}

/* What the record says applied, for the cells of an apply that was up to date. */
static void mark_recorded(struct apply_step *s)
{
	size_t i;

	s->uptodate = 1;
	s->applied = record_status(&s->rec) == RS_OK;
	for (i = 0; i < s->b->nr_variants; i++)
		s->vapplied[i] = record_variant_status(&s->rec, s->b->variants[i].name) == RS_OK;
}

/* Record how the kit or a variant (name) went: err from branch_apply(). */
static void record_outcome(struct apply_step *s, const char *name, const struct plan *plan,
			   const struct apply_outcome *o, int err)
{
	enum record_status status = !err ? RS_OK : err == MKS_EAPPLYFAIL ? RS_CONFLICT : RS_FAILED;
	char *evidence = err ? conflict_evidence(o->report.buf) : NULL;

	if (name) {
		record_item_set(&s->rec, RI_VARIANT_STATUS, name, record_status_name(status));
		if (err)
			record_item_set(&s->rec, RI_VARIANT_EVIDENCE, name, evidence);
		else
			record_item_set(&s->rec, RI_VARIANT_TIP, name, git_oid_tostr_s(&o->tip));
	} else {
		record_set_status(&s->rec, status);
		if (err)
			record_set(&s->rec, RF_EVIDENCE, evidence);
		else
			record_set(&s->rec, RF_TIP, git_oid_tostr_s(&o->tip));
		record_series(&s->rec, plan, o->state, err ? o->failed : (size_t)-1);
	}
	free(evidence);
}

/*
 * Apply the kit, then each variant after it (sharing the kit's commits
 * when it applied), and move every ref that applied in one transaction.
 * Returns 0 however the patches went, -1 when something else failed.
 */
static int apply_all(struct apply_step *s, git_repository *repo, const git_oid *base,
		     const git_signature *me, const char *cmd)
{
	struct apply_outcome **moving = xcalloc(s->b->nr_variants + 1, sizeof(*moving));
	size_t i, n = s->b->nr_variants;
	int ret = -1;

	s->kit.defer = 1;
	s->kit_err = branch_apply(&s->kit, repo, &s->plan, base, NULL, me, cmd);
	if (s->kit_err && s->kit_err != MKS_EAPPLYFAIL && s->kit_err != MKS_EUNSAFE)
		goto cleanup;
	record_outcome(s, NULL, &s->plan, &s->kit, s->kit_err);
	s->applied = !s->kit_err;
	for (i = 0; i < n; i++) {
		s->vo[i].defer = 1;
		s->verr[i] = branch_apply(&s->vo[i], repo, &s->vplans[i], base,
					  s->applied ? &s->kit.tip : NULL, me, cmd);
		if (s->verr[i] && s->verr[i] != MKS_EAPPLYFAIL && s->verr[i] != MKS_EUNSAFE)
			goto cleanup;
		record_outcome(s, s->b->variants[i].name, &s->vplans[i], &s->vo[i], s->verr[i]);
		s->vapplied[i] = !s->verr[i];
	}
	/* the kit and its variants move together or not at all */
	moving[0] = s->applied ? &s->kit : NULL;
	for (i = 0; i < n; i++)
		moving[i + 1] = s->vapplied[i] ? &s->vo[i] : NULL;
	ret = branch_refs_move(repo, moving, n + 1) ? -1 : 0;
cleanup:
	free(moving);
	return ret;
}

/*
 * The plan looked at the tree it could find without importing; apply
 * goes by the one it has, so that both check the same tree.
 */
static int replan_at(struct apply_step *s, git_repository *repo, const git_oid *base)
{
	const struct kit *kit = s->plan.kit;

	if (s->plan.tree_checked && git_oid_equal(&s->plan.base, base))
		return 0;
	plan_release(&s->plan);
	return plan_build_at(&s->plan, kit, s->b, repo, base);
}

/* The key of the apply about to run (or not), into key. */
static int apply_step_key(struct step_key *key, const struct apply_step *s, git_repository *repo,
			  const git_oid *base, git_signature **me)
{
	const struct plan **plans;
	char *who;
	size_t i;

	if (backporter_signature(me, repo))
		return -1;
	plans = xcalloc(s->b->nr_variants + 1, sizeof(*plans));
	plans[0] = &s->plan;
	for (i = 0; i < s->b->nr_variants; i++)
		plans[i + 1] = &s->vplans[i];
	who = xstrfmt("%s <%s>", (*me)->name, (*me)->email);
	apply_key(key, plans, s->b->nr_variants + 1, base, who);
	free(who);
	free(plans);
	return 0;
}

static void variant_names(struct strbuf *names, const struct kernel_branch *b)
{
	for (size_t i = 0; i < b->nr_variants; i++)
		strbuf_addf(names, "%s%s", i ? " " : "", b->variants[i].name);
}

int apply_step_run(struct apply_step *s, git_repository *repo, const git_oid *base,
		   const char *workdir, const struct apply_step_opts *opts)
{
	struct step_key key = STEP_KEY_INIT;
	struct strbuf names = STRBUF_INIT;
	git_signature *me = NULL;
	size_t mark = error_mark();
	double start;
	char *errors;
	int ret = -1;

	s->loop_running = backport_loop_in_progress(s->plan.kit, s->b, workdir);
	s->refname = kit_refname(s->plan.kit, s->b, NULL);
	if (replan_at(s, repo, base)) {
		ret = MKS_ECONFIG;
		goto error;
	}
	if (record_read(&s->rec, workdir, STEP_APPLY, NULL) ||
	    apply_step_key(&key, s, repo, base, &me))
		goto error;
	if (record_fresh(&s->rec, &key, opts->force, &s->why)) {
		if (still_there(s, repo)) {
			mark_recorded(s);
			ret = 0;
			goto cleanup;
		}
		strbuf_addstr(&s->why, "its branches moved");
	}
	if (opts->starting)
		opts->starting(s->why.buf, opts->data);
	start = mono_seconds();
	record_release(&s->rec);
	record_set_key(&s->rec, &key);
	variant_names(&names, s->b);
	record_set(&s->rec, RF_VARIANTS, names.buf);
	if (apply_all(s, repo, base, me, opts->cmd))
		goto error;
	s->ran = 1;
	record_setf(&s->rec, RF_SECONDS, "%.1f", mono_seconds() - start);
	ret = record_write(&s->rec, workdir, STEP_APPLY, NULL) ? -1 : 0;
	goto cleanup;
error:
	/* Not an outcome of the kit: recorded as an error, retried next time. */
	record_release(&s->rec);
	record_set_status(&s->rec, RS_ERROR);
	errors = error_since(mark);
	record_setf(&s->rec, RF_EVIDENCE, "apply could not run: %s",
		    errors ? errors : "no error was given");
	free(errors);
	strbuf_reset(&s->why);
	strbuf_addstr(&s->why, record_get(&s->rec, RF_EVIDENCE));
	record_write(&s->rec, workdir, STEP_APPLY, NULL);
	s->ran = s->applied = 0;
	memset(s->vapplied, 0, s->b->nr_variants * sizeof(*s->vapplied));
cleanup:
	error_flush();
	git_signature_free(me);
	step_key_release(&key);
	strbuf_release(&names);
	return ret;
}

int apply_step_status(const struct apply_step *s)
{
	size_t i;

	if (!s->applied)
		return 1;
	for (i = 0; i < s->b->nr_variants; i++)
		if (!s->vapplied[i])
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The lines */

/* One line per patch of the kit: applied, squashed or found, and where. */
static void say_patches(struct strbuf *out, const struct plan *plan, const struct apply_outcome *o)
{
	size_t i;

	for (i = 0; i < plan->nr && i < o->nr_items; i++) {
		const struct kit_patch *p = plan->items[i].patch;
		static const char *const what[] = {
			[APPLIED_COMMIT] = "applied", [APPLIED_SQUASHED] = "squashed",
			[APPLIED_FOUND] = "found",
		};

		if (o->state[i] == APPLIED_NONE)
			continue;
		strbuf_addf(out, "  %-9s %-28s %-12s", what[o->state[i]], kit_patch_label(p),
			    p->upstream ? p->upstream : "-");
		if (o->state[i] == APPLIED_FOUND)
			strbuf_addstr(out, " already in the tree: not applied twice\n");
		else if (o->replayed && o->replayed[i])
			strbuf_addf(out, " -> %s, replayed: %s no longer takes %s as written; merged "
				    "three-way from the tree it was written for, cleanly (%s)\n",
				    oid_short(&o->commit[i]), plan->branch->name,
				    plan->items[i].source, o->replayed[i]);
		else
			strbuf_addf(out, " -> %s\n", oid_short(&o->commit[i]));
	}
}

/* "B: " or "B V: ", then STEP. */
static void label(struct strbuf *out, const struct kernel_branch *b, const char *variant,
		  const char *step)
{
	if (variant)
		strbuf_addf(out, "%s %s: %s", b->name, variant, step);
	else
		strbuf_addf(out, "%s: %s", b->name, step);
}

/*
 * What to do about a conflict of the kit: start the backport loop, or
 * go on with the one in progress, as git am says "git am --continue".
 */
static void say_next_step(struct strbuf *out, const struct apply_step *s)
{
	const char *b = s->b->name;

	if (s->loop_running)
		strbuf_addf(out, "  a backport loop is in progress on %s: mkseries backport --branch "
			    "%s --status shows where; --continue or --abort it\n", b, b);
	else
		strbuf_addf(out, "  backport it: mkseries backport --branch %s (the patch merged "
			    "in a work tree as far as it goes, for you to finish)\n", b);
}

/* A conflict or a refusal: the line, then apply's report of it on reports. */
static void say_failed(struct strbuf *out, struct strbuf *reports, int err, const char *refname,
		       const char *without, const struct apply_outcome *o)
{
	strbuf_addf(out, "%s%s%s: nothing applied; '%s' %s\n",
		    err == MKS_EAPPLYFAIL ? "CONFLICT" : "REFUSED", without ? " " : "",
		    without ? without : "", refname, o->have_old ? "left where it was" : "not created");
	strbuf_add(reports, o->report.buf, o->report.len);
	if (o->report.len && o->report.buf[o->report.len - 1] != '\n')
		strbuf_addch(reports, '\n');
}

static void say_uptodate(struct strbuf *out, const char *step, const struct apply_step *s)
{
	const struct step_record *st = &s->rec;
	const char *ev = record_get(st, RF_EVIDENCE), *name;
	size_t i;

	label(out, s->b, NULL, step);
	if (record_status(st) == RS_OK)
		strbuf_addf(out, "up to date (%s at %.12s)\n", s->refname, record_get(st, RF_TIP));
	else
		strbuf_addf(out, "up to date (conflict: %s)\n", ev ? ev : "");
	if (record_status(st) == RS_CONFLICT)
		say_next_step(out, s);
	for (i = 0; i < s->b->nr_variants; i++) {
		char *vref = branch_refname(&s->vplans[i]);

		name = s->b->variants[i].name;
		ev = record_item_get(st, RI_VARIANT_EVIDENCE, name);
		label(out, s->b, name, step);
		if (record_variant_status(st, name) == RS_OK)
			strbuf_addf(out, "up to date (%s at %.12s)\n", vref,
				    record_item_get(st, RI_VARIANT_TIP, name));
		else
			strbuf_addf(out, "up to date (conflict: %s)\n", ev ? ev : "");
		free(vref);
	}
}

void apply_step_say(struct strbuf *out, struct strbuf *reports, const char *step,
		    const struct apply_step *s, int patches)
{
	const struct apply_outcome *o = &s->kit;
	size_t i;

	if (s->uptodate) {
		say_uptodate(out, step, s);
		return;
	}
	if (!s->ran) {
		label(out, s->b, NULL, step);
		strbuf_addf(out, "FAILED %s\n", s->why.buf);
		return;
	}
	if (patches)
		say_patches(out, &s->plan, o);
	label(out, s->b, NULL, step);
	if (s->kit_err)
		say_failed(out, reports, s->kit_err, s->refname, NULL, o);
	if (s->kit_err == MKS_EAPPLYFAIL)
		say_next_step(out, s);
	else
		strbuf_addf(out, "%s %s %s (%zu commits, %zu squashed, %zu already in the tree; "
			    "plan: %zu present, %zu skipped)\n", s->refname,
			    o->moved ? "->" : "up to date at", oid_short(&o->tip), o->nr_commits,
			    o->nr_squashed, o->nr_found, plan_count(&s->plan, PLAN_PRESENT),
			    plan_count(&s->plan, PLAN_SKIP));
	for (i = 0; i < s->b->nr_variants; i++) {
		char *vref = branch_refname(&s->vplans[i]);
		char *without = variant_change_text(&s->b->variants[i]);

		o = &s->vo[i];
		label(out, s->b, s->b->variants[i].name, step);
		if (s->verr[i])
			say_failed(out, reports, s->verr[i], vref, without, o);
		else
			strbuf_addf(out, "%s %s %s (%zu commits, %zu shared with the kit, %zu "
				    "squashed; %s)\n", vref, o->moved ? "->" : "up to date at",
				    oid_short(&o->tip), o->nr_commits, o->nr_shared, o->nr_squashed,
				    without);
		free(without);
		free(vref);
	}
}

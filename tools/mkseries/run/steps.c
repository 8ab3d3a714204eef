/* run/steps.c: the resumable steps of a run on one branch, each redone only when its inputs changed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "run/steps.h"
#include "run/cells.h"
#include "run/teststep.h"
#include "apply/applyplan.h"
#include "kit/arch.h"
#include "build/build.h"
#include "results/collect.h"
#include "lib/gitutil.h"
#include "apply/plan.h"
#include "lib/progress.h"
#include "record/record.h"
#include "tree/tree.h"
#include "apply/variant.h"
#include "vm/regress.h"
#include "vm/vm.h"
#include "tree/workdir.h"

/* One branch while it runs. */
struct branch_run {
	const struct kit *kit;
	const struct kernel_branch *b;
	struct run_opts *args;
	const char *workdir;	/* the cell loop's: locked while the branch runs */
	const struct strvec *variants;	/* the cells this run works on, in order */
	struct plan plan;
	struct plan *vplans;	/* one per declared variant of b, in order */
	size_t nr_vplans;	/* of them, built */
	git_repository *repo;	/* the cell loop's */
	git_oid base;
	int applied;		/* the kit applied: its cells can be built */
	int *vapplied;		/* per declared variant: it applied */
	int base_tested;	/* base built and booted cleanly in this run */
	int collect;		/* the branch started: its records go into the results */
};

__attribute__((format(printf, 3, 4)))
static void say(struct branch_run *br, const char *variant, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/* A step's line quotes subjects, compilers and consoles. */
	strbuf_add_shown(&sb, msg.buf, msg.len, SHOWN_LINES);
	if (variant)
		fprintf(br->args->log, "%s %s: %s\n", br->b->name, variant, sb.buf);
	else
		fprintf(br->args->log, "%s: %s\n", br->b->name, sb.buf);
	fflush(br->args->log);
	strbuf_release(&sb);
	strbuf_release(&msg);
}

/* Whether any cell but base is wanted: then the kit and its variants are applied. */
static int wants_apply(const struct branch_run *br)
{
	size_t i;

	for (i = 0; i < br->variants->nr; i++)
		if (strcmp(br->variants->v[i], "base"))
			return 1;
	return 0;
}

static int forced(const struct run_opts *args, enum run_step step)
{
	return args->force <= step;
}

/* The record of the import or apply, which the run does itself, in br's work directory. */
static int record(const struct branch_run *br, enum run_step step, struct step_record *r)
{
	return record_write(r, br->workdir, step, NULL);
}

/* Say why a step that has a record runs again; a first run says nothing. */
static void say_again(struct branch_run *br, const char *variant, enum run_step step,
		      const struct strbuf *why)
{
	if (why->len)
		say(br, variant, "%s: again: %s", run_step_name(step), why->buf);
}

/*
 * What a step that could not run keeps as its cause: `what`, then the
 * errors it printed while it ran (error_capture_push()), in the user's words.
 */
static void could_not_run(struct step_record *r, const char *what, const struct strbuf *errors)
{
	record_release(r);
	record_set_status(r, RS_ERROR);
	record_setf(r, RF_EVIDENCE, "%s: %s", what, errors->len ? errors->buf : "no error was printed");
}

/* ------------------------------------------------------------------ */
/* import */

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

static int step_import(struct branch_run *br)
{
	struct tree_import_info info;
	struct step_record st = STEP_RECORD_INIT;
	struct strbuf errors = STRBUF_INIT;
	int err, ret = 0;

	error_capture_push(&errors);
	err = tree_import_ex(&br->base, &info, br->repo, br->kit, br->b, forced(br->args, STEP_IMPORT));
	error_capture_pop(&errors);
	if (err) {
		char *what = source_name(br->b);

		record_set_status(&st, RS_FAILED);
		record_setf(&st, RF_EVIDENCE, "cannot import %s: %s", what,
			    errors.len ? errors.buf : "no error was printed");
		say(br, NULL, "import: FAILED %s", record_get(&st, RF_EVIDENCE));
		free(what);
		ret = -1;
	} else {
		record_set_status(&st, RS_OK);
		record_set(&st, RF_BASE, git_oid_tostr_s(&br->base));
		if (info.what)
			record_set(&st, RF_WHAT, info.what);
		if (info.up_to_date)
			say(br, NULL, "import: up to date (%s)", oid_short(&br->base));
		else
			say(br, NULL, "import: %s as %s (%zu files, %.1f s)",
			    info.what ? info.what : "imported", oid_short(&br->base), info.nr_files,
			    info.seconds);
	}
	if (record(br, STEP_IMPORT, &st))
		ret = -1;
	tree_import_info_release(&info);
	record_release(&st);
	strbuf_release(&errors);
	return ret;
}

/* ------------------------------------------------------------------ */
/* apply */

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
 * Whether what run.apply recorded is still what the repository has: each
 * branch (the kit's, each variant's) recorded as applied is at its tip;
 * a conflict stays a conflict.
 */
static int apply_still_there(const struct branch_run *br, const struct step_record *st)
{
	enum record_status status = record_status(st);
	const char *tip;
	size_t i;
	int ok = 1;

	for (i = 0; ok && i <= br->b->nr_variants; i++) {
		const struct plan *plan = i ? &br->vplans[i - 1] : &br->plan;
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
			ok = tip && git_reference_name_to_id(&now, br->repo, refname) == 0 &&
			     !strcmp(tip, git_oid_tostr_s(&now));
		else
			ok = status == RS_CONFLICT;
		free(refname);
	}
	return ok;
}

/*
 * Apply one declared variant after the kit into `o` (initialised by the
 * caller), sharing the kit's commits; record it in `now`. Its ref is
 * left to move with the kit's (o->defer), said by variant_moved().
 */
static int apply_variant(struct branch_run *br, size_t i, const git_oid *kit_tip,
			 const git_signature *me, struct step_record *now, struct apply_outcome *o)
{
	const struct plan *plan = &br->vplans[i];
	const char *name = plan->variant->name;
	char *refname = branch_refname(plan), *evidence = NULL;
	char *without = variant_change_text(plan->variant);
	int err, ret = 0;

	o->defer = 1;
	err = branch_apply(o, br->repo, plan, &br->base, kit_tip, me, "mkseries run");
	if (err == MKS_EAPPLYFAIL || err == MKS_EUNSAFE) {
		evidence = conflict_evidence(o->report.buf);
		record_item_set(now, RI_VARIANT_STATUS, name, record_status_name(err == MKS_EAPPLYFAIL ?
				RS_CONFLICT : RS_FAILED));
		record_item_set(now, RI_VARIANT_EVIDENCE, name, evidence);
		say(br, name, "apply: %s %s; '%s' %s", err == MKS_EAPPLYFAIL ? "CONFLICT" :
		    "REFUSED", without, refname, o->have_old ? "left where it was" : "not created");
		fprintf(br->args->log, "%s", o->report.buf);
		if (o->report.len && o->report.buf[o->report.len - 1] != '\n')
			fputc('\n', br->args->log);
	} else if (err) {
		ret = -1;
	} else {
		/* said by variant_moved() once the refs moved */
		record_item_set(now, RI_VARIANT_STATUS, name, record_status_name(RS_OK));
		record_item_set(now, RI_VARIANT_TIP, name, git_oid_tostr_s(&o->tip));
		br->vapplied[i] = 1;
	}
	free(evidence);
	free(without);
	free(refname);
	return ret;
}

/* Say where variant i's ref went, once the refs moved. */
static void variant_moved(struct branch_run *br, size_t i, const struct apply_outcome *o)
{
	const struct plan *plan = &br->vplans[i];
	char *refname = branch_refname(plan), *without = variant_change_text(plan->variant);

	say(br, plan->variant->name, "apply: %s -> %s (%zu commits, %zu shared with the kit; %s)",
	    refname, oid_short(&o->tip), o->nr_commits, o->nr_shared, without);
	free(without);
	free(refname);
}

/* Say that the recorded apply st is current, and mark what of the kit and its variants applied. */
static void apply_uptodate(struct branch_run *br, const struct step_record *st,
			   const char *refname, const git_oid *old_tip)
{
	const char *ev = record_get(st, RF_EVIDENCE);
	size_t i;

	if (record_status(st) == RS_CONFLICT) {
		say(br, NULL, "apply: up to date (conflict: %s)", ev ? ev : "");
	} else {
		say(br, NULL, "apply: up to date (%s at %s)", refname, oid_short(old_tip));
		br->applied = 1;
	}
	for (i = 0; i < br->b->nr_variants; i++) {
		const char *name = br->b->variants[i].name;
		char *vref = branch_refname(&br->vplans[i]);

		ev = record_item_get(st, RI_VARIANT_EVIDENCE, name);
		if (record_variant_status(st, name) == RS_OK) {
			say(br, name, "apply: up to date (%s at %.12s)", vref,
			    record_item_get(st, RI_VARIANT_TIP, name));
			br->vapplied[i] = 1;
		} else {
			say(br, name, "apply: up to date (conflict: %s)", ev ? ev : "");
		}
		free(vref);
	}
}

/*
 * Record in now and say how applying the kit went: err is 0,
 * MKS_EAPPLYFAIL (a conflict) or MKS_EUNSAFE (refused) from branch_apply().
 */
static void kit_outcome(struct branch_run *br, struct step_record *now, const struct apply_outcome *o,
			int err, const char *refname, int have_old)
{
	char *evidence;

	if (!err) {
		/* said once the refs moved */
		record_set_status(now, RS_OK);
		record_set(now, RF_TIP, git_oid_tostr_s(&o->tip));
		record_series(now, &br->plan, o->state, (size_t)-1);
		br->applied = 1;
		return;
	}
	evidence = conflict_evidence(o->report.buf);
	record_set_status(now, err == MKS_EAPPLYFAIL ? RS_CONFLICT : RS_FAILED);
	record_set(now, RF_EVIDENCE, evidence);
	record_series(now, &br->plan, o->state, o->failed);
	say(br, NULL, "apply: %s; '%s' %s", err == MKS_EAPPLYFAIL ? "CONFLICT" : "REFUSED",
	    refname, have_old ? "left where it was" : "not created");
	fprintf(br->args->log, "%s", o->report.buf);
	if (o->report.len && o->report.buf[o->report.len - 1] != '\n')
		fputc('\n', br->args->log);
	free(evidence);
}

static int step_apply(struct branch_run *br)
{
	struct apply_outcome o;
	struct step_record st = STEP_RECORD_INIT, now = STEP_RECORD_INIT;
	struct step_key key = STEP_KEY_INIT;
	struct strbuf names = STRBUF_INIT, why = STRBUF_INIT, errors = STRBUF_INIT;
	const struct plan **plans = xcalloc(br->b->nr_variants + 1, sizeof(*plans));
	struct apply_outcome *vo = xcalloc(br->b->nr_variants + 1, sizeof(*vo));
	struct apply_outcome **moving = xcalloc(br->b->nr_variants + 1, sizeof(*moving));
	git_signature *me = NULL;
	char *refname = kit_refname(br->kit, br->b, NULL);
	char *who = NULL;
	git_oid old_tip;
	size_t i;
	int have_old, err, ret = 0;

	error_capture_push(&errors);
	apply_outcome_init(&o);
	plans[0] = &br->plan;
	for (i = 0; i < br->b->nr_variants; i++) {
		apply_outcome_init(&vo[i]);
		plans[i + 1] = &br->vplans[i];
		strbuf_addf(&names, "%s%s", i ? " " : "", br->b->variants[i].name);
	}
	if (record_read(&st, br->workdir, STEP_APPLY, NULL))
		goto error;
	if (backporter_signature(&me, br->repo))
		goto error;
	who = xstrfmt("%s <%s>", me->name, me->email);
	apply_key(&key, plans, br->b->nr_variants + 1, &br->base, who);
	have_old = git_reference_name_to_id(&old_tip, br->repo, refname) == 0;

	if (record_fresh(&st, &key, forced(br->args, STEP_APPLY), &why)) {
		if (apply_still_there(br, &st)) {
			apply_uptodate(br, &st, refname, &old_tip);
			goto cleanup;
		}
		strbuf_addstr(&why, "its branches moved");
	}
	say_again(br, NULL, STEP_APPLY, &why);
	record_set_key(&now, &key);
	record_set(&now, RF_VARIANTS, names.buf);
	o.defer = 1;
	err = branch_apply(&o, br->repo, &br->plan, &br->base, NULL, me, "mkseries run");
	if (err && err != MKS_EAPPLYFAIL && err != MKS_EUNSAFE)
		goto error;
	kit_outcome(br, &now, &o, err, refname, have_old);
	/* Each variant fails on its own; the kit's commits are shared when it applied. */
	for (i = 0; i < br->b->nr_variants; i++)
		if (apply_variant(br, i, br->applied ? &o.tip : NULL, me, &now, &vo[i]))
			goto error;
	/* the kit and its variants move together or not at all, as apply moves them */
	moving[0] = br->applied ? &o : NULL;
	for (i = 0; i < br->b->nr_variants; i++)
		moving[i + 1] = br->vapplied[i] ? &vo[i] : NULL;
	if (branch_refs_move(br->repo, moving, br->b->nr_variants + 1))
		goto error;
	if (br->applied)
		say(br, NULL, "apply: %s -> %s (%zu commits, %zu squashed, %zu already in the tree)",
		    refname, oid_short(&o.tip), o.nr_commits, o.nr_squashed, o.nr_found);
	for (i = 0; i < br->b->nr_variants; i++)
		if (br->vapplied[i])
			variant_moved(br, i, &vo[i]);
	if (record(br, STEP_APPLY, &now))
		ret = -1;
	goto cleanup;
error:
	/* Not an outcome of the kit: recorded as an error, retried next time. */
	could_not_run(&now, "apply could not run", &errors);
	say(br, NULL, "apply: FAILED %s", record_get(&now, RF_EVIDENCE));
	record(br, STEP_APPLY, &now);
	br->applied = 0;
	for (i = 0; i < br->b->nr_variants; i++)
		br->vapplied[i] = 0;
	ret = -1;
cleanup:
	error_capture_pop(&errors);
	for (i = 0; i < br->b->nr_variants; i++)
		apply_outcome_release(&vo[i]);
	free(vo);
	free(moving);
	apply_outcome_release(&o);
	git_signature_free(me);
	record_release(&st);
	record_release(&now);
	step_key_release(&key);
	strbuf_release(&names);
	strbuf_release(&why);
	strbuf_release(&errors);
	free(plans);
	free(refname);
	free(who);
	return ret;
}

/* ------------------------------------------------------------------ */
/* build */

/* Say how a build just went, and hand its image over. */
static void say_built(struct branch_run *br, const char *variant, const struct build_result *res,
		      char **bzimage)
{
	switch (res->status) {
	case BUILD_OK:
		say(br, variant, "build: built in %s (%s)", format_duration(res->seconds), res->bzimage);
		*bzimage = xstrdup(res->bzimage);
		break;
	case BUILD_UPTODATE:
		say(br, variant, "build: up to date (%s)", res->bzimage);
		*bzimage = xstrdup(res->bzimage);
		break;
	case BUILD_FAILED:
		say(br, variant, "build: FAILED %s", res->failure ? res->failure : "");
		fprintf(br->args->log, "    log: %s\n", res->log);
		break;
	}
}

/*
 * Build one variant: build/ decides whether its record is current and
 * writes it. *bzimage is set when it built (or had built, and nothing
 * changed). Returns 0 whatever the build's outcome (that is recorded),
 * MKS_ECONFIG when the kit is unusable, -1 on other errors.
 */
static int step_build(struct branch_run *br, const char *variant, const git_oid *commit,
		      char **bzimage)
{
	struct build_result res;
	struct build_opts opts = { 0 };
	char *label = xstrfmt("%s %s", br->b->name, variant);
	int err, ret = 0;

	memset(&res, 0, sizeof(res));
	*bzimage = NULL;
	opts.workdir = br->workdir;
	opts.jobs = br->args->jobs;
	opts.force = forced(br->args, STEP_BUILD);
	opts.progress = progress_wanted();
	opts.label = label;
	err = build_variant(&res, br->repo, br->kit, br->b, variant, commit, &opts);
	if (err) {
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
		say(br, variant, "build: FAILED %s: %s", ret == MKS_ECONFIG ?
		    "the kit's build settings are invalid" : "the build could not run",
		    shown(res.failure));
	} else if (res.recorded && res.status == BUILD_UPTODATE) {
		say(br, variant, "build: up to date (%s)", res.bzimage);
		*bzimage = xstrdup(res.bzimage);
	} else if (res.recorded) {
		say(br, variant, "build: up to date (FAILED %s)", shown(res.failure));
	} else {
		say_again(br, variant, STEP_BUILD, &res.why);
		say_built(br, variant, &res, bzimage);
	}
	build_result_release(&res);
	free(label);
	return ret;
}

/* ------------------------------------------------------------------ */
/* test */

/* The test step of a cell: run/teststep.c's, as `mkseries test` takes it too. */
static int step_test(struct branch_run *br, const char *variant, const char *bzimage)
{
	const struct kernel_variant *declared = branch_find_variant(br->b, variant);
	struct test_step t = TEST_STEP_INIT;
	struct test_step_opts o = { 0 };
	struct strbuf out = STRBUF_INIT;
	char *label = xstrfmt("%s %s", br->b->name, variant);
	int ret;

	o.accel = br->args->accel;
	o.full = br->args->full;
	o.force = forced(br->args, STEP_TEST);
	o.repeat = br->args->repeat;
	o.boots = br->args->boots;
	o.probe_timeout = br->args->probe_timeout;
	o.label = label;
	ret = test_step_run(&t, br->b, variant, bzimage, br->workdir, &o);
	if (ret) {
		say(br, variant, "test: FAILED %s", t.why.buf);
	} else if (t.uptodate) {
		test_step_say_uptodate(&out, label, &t, declared);
	} else {
		say_again(br, variant, STEP_TEST, &t.why);
		if (t.res.accel_note)
			fprintf(br->args->log, "note: using %s: %s\n", t.res.accel,
				shown(t.res.accel_note));
		test_step_say(&out, label, "test: ", &t, declared);
	}
	fputs(out.buf, br->args->log);
	fflush(br->args->log);
	test_step_release(&t);
	strbuf_release(&out);
	free(label);
	return ret;
}

/* ------------------------------------------------------------------ */
/* A cell whose tree is base's */

/* Whether `commit` has the tree of the branch's base. */
static int same_tree_as_base(const struct branch_run *br, const git_oid *commit)
{
	git_commit *a = NULL, *b = NULL;
	int ret = 0;

	if (!git_commit_lookup(&a, br->repo, commit) && !git_commit_lookup(&b, br->repo, &br->base))
		ret = git_oid_equal(git_commit_tree_id(a), git_commit_tree_id(b));
	git_commit_free(a);
	git_commit_free(b);
	return ret;
}

/*
 * A kit (or a variant with no expected failures) that applied nothing
 * has base's tree: building and booting it again would only measure
 * the emulator twice. When base's build and test are recorded and
 * current, they become this cell's, marked `reused=base`, and the cell
 * says so. Returns 1 when reused, 0 when the cell must run itself.
 */
static int reuse_base(struct branch_run *br, const char *variant, const git_oid *commit)
{
	const struct kernel_variant *declared = branch_find_variant(br->b, variant);
	struct step_record bs = STEP_RECORD_INIT, ts = STEP_RECORD_INIT;
	int ret = 0;

	if (!strcmp(variant, "base") || (declared && declared->nr_expect_fail) ||
	    !same_tree_as_base(br, commit))
		return 0;
	if (record_read(&bs, br->workdir, STEP_BUILD, "base") ||
	    record_read(&ts, br->workdir, STEP_TEST, "base"))
		goto cleanup;
	/* Only what this run has just found good (or up to date) for base. */
	if (record_status(&bs) != RS_OK || record_status(&ts) != RS_OK ||
	    record_ll(&ts, RF_STARTED) != 1 || !br->base_tested)
		goto cleanup;
	if (record_copy_from_base(br->workdir, STEP_BUILD, variant) ||
	    record_copy_from_base(br->workdir, STEP_TEST, variant))
		goto cleanup;
	say(br, variant, "build: same tree as base (%s): base's build reused", oid_short(commit));
	say(br, variant, "test: same tree as base: base's results reused (%s passed)",
	    record_get(&ts, RF_PASS) ? record_get(&ts, RF_PASS) : "?");
	ret = 1;
cleanup:
	record_release(&bs);
	record_release(&ts);
	return ret;
}

/* ------------------------------------------------------------------ */
/* A branch */

/* A branch that could not even start: its cells are shown as not run, with why. */
static void branch_not_started(struct run_results *res, const struct kernel_branch *b,
			       const struct strvec *variants, const char *why)
{
	struct branch_result *br = results_branch(res, b->name);
	size_t i;

	check_set(&br->import, CHECK_FAILED, why);
	for (i = 0; i < variants->nr; i++) {
		struct cell_result *c = branch_cell(br, variants->v[i]);

		check_set(&c->apply, strcmp(c->variant, "base") ? CHECK_SKIPPED : CHECK_NA, why);
		check_set(&c->build, CHECK_SKIPPED, why);
		check_set(&c->boot, CHECK_SKIPPED, why);
		check_set(&c->tests, CHECK_SKIPPED, why);
		check_set(&c->splats, CHECK_SKIPPED, why);
	}
}

/* Whether cell `variant` can be built: the kit and each declared variant must have applied. */
static int cell_applied(const struct branch_run *br, const char *variant, const char **why)
{
	size_t i;

	*why = NULL;
	if (!strcmp(variant, "base"))
		return 1;
	if (!strcmp(variant, "kit")) {
		*why = "the kit did not apply";
		return br->applied;
	}
	for (i = 0; i < br->b->nr_variants; i++)
		if (!strcmp(br->b->variants[i].name, variant)) {
			*why = "the variant did not apply";
			return br->vapplied[i];
		}
	return 0;
}

/* A run of the selected branches, as the cell loop visits them. */
struct run_loop {
	struct run_results *res;
	struct run_opts *args;
	struct branch_run br;	/* the branch being visited */
	int status;		/* the highest exit status the loop's steps could not return */
};

static void run_not_started(const struct kit *kit, const struct kernel_branch *b,
			    const struct strvec *variants, const char *why, void *data)
{
	struct run_loop *rl = data;

	branch_not_started(rl->res, b, variants, why);
}

/* Build the plans of the kit and of each variant of b; MKS_ECONFIG when one is invalid. */
static int build_plans(struct branch_run *br, struct strbuf *why)
{
	const struct kernel_branch *b = br->b;
	struct strbuf errors = STRBUF_INIT;
	int ret = 0;

	error_capture_push(&errors);
	br->vplans = xcalloc(b->nr_variants + 1, sizeof(*br->vplans));
	br->vapplied = xcalloc(b->nr_variants + 1, sizeof(*br->vapplied));
	if (plan_build(&br->plan, br->kit, b)) {
		strbuf_addstr(why, "the kit is invalid for this branch");
		ret = MKS_ECONFIG;
	}
	for (; !ret && br->nr_vplans < b->nr_variants; br->nr_vplans++) {
		if (plan_build_variant(&br->vplans[br->nr_vplans], br->kit, b,
				       &b->variants[br->nr_vplans])) {
			strbuf_addf(why, "variant '%s' is invalid for this branch",
				    b->variants[br->nr_vplans].name);
			ret = MKS_ECONFIG;
		}
	}
	error_capture_pop(&errors);
	if (ret && errors.len)
		strbuf_addf(why, ": %s", errors.buf);
	strbuf_release(&errors);
	return ret;
}

/* The branch's own steps, before its cells: import, then apply when a cell needs it. */
static int run_begin(const struct cell *c, const struct strvec *variants, void *data)
{
	struct run_loop *rl = data;
	struct branch_run *br = &rl->br;
	struct strbuf why = STRBUF_INIT, errors = STRBUF_INIT;
	git_repository *locked;
	int ret = 0;

	memset(br, 0, sizeof(*br));
	br->kit = c->kit;
	br->b = c->b;
	br->args = rl->args;
	br->workdir = c->workdir;
	br->variants = variants;
	br->repo = c->repo;
	if (build_plans(br, &why)) {
		branch_not_started(rl->res, c->b, variants, why.buf);
		ret = 2;
		goto cleanup;
	}
	error_capture_push(&errors);
	ret = kernel_repos_open(&locked, c->repos, c->kit, c->b, c->repo_opt, KERNEL_REPO_LOCK);
	error_capture_pop(&errors);
	if (ret) {
		strbuf_addf(&why, "cannot lock the kernel repository: %s", errors.buf);
		branch_not_started(rl->res, c->b, variants, why.buf);
		ret = 1;
		goto cleanup;
	}
	br->collect = 1;
	/* A branch that did not import has no cells to run; its record says why. */
	if (step_import(br))
		ret = 1;
	else if (wants_apply(br))
		step_apply(br);
	kernel_repos_unlock(c->repos);
cleanup:
	strbuf_release(&why);
	strbuf_release(&errors);
	return ret;
}

/* One cell: its commit, then build and test, or base's reused. Returns 2 for a kit that does not do. */
static int run_cell(const struct cell *c, void *data)
{
	struct run_loop *rl = data;
	struct branch_run *br = &rl->br;
	const char *variant = c->variant, *skipped;
	struct strbuf why = STRBUF_INIT;
	char *refname = NULL, *bzimage = NULL;
	git_oid commit;
	int err, ret = 0;

	if (!cell_applied(br, variant, &skipped)) {
		say(br, variant, "skipped: %s", skipped);
		return 0;
	}
	err = variant_resolve(&commit, &refname, &why, br->repo, br->kit, br->b, variant);
	if (err) {
		say(br, variant, "FAILED %s", why.len ? why.buf : "cannot find its commit");
	} else if (!reuse_base(br, variant, &commit)) {
		err = step_build(br, variant, &commit, &bzimage);
		if (!err && bzimage)
			err = step_test(br, variant, bzimage);
		if (err == MKS_ECONFIG)
			ret = 2;
		if (!err && bzimage && !strcmp(variant, "base"))
			br->base_tested = 1;
	}
	strbuf_release(&why);
	free(refname);
	free(bzimage);
	return ret;
}

/* After the cells: what the branch's records say goes into the results. */
static void run_end(const struct cell *c, const struct strvec *variants, void *data)
{
	struct run_loop *rl = data;
	struct branch_run *br = &rl->br;
	size_t i;

	if (br->collect &&
	    results_collect_branch(results_branch(rl->res, c->b->name), c->workdir, variants) < 0 &&
	    !rl->status)
		rl->status = 1;
	plan_release(&br->plan);
	for (i = 0; i < br->nr_vplans; i++)
		plan_release(&br->vplans[i]);
	free(br->vplans);
	free(br->vapplied);
	memset(br, 0, sizeof(*br));
}

int run_branches(struct run_results *res, const struct kit *kit,
		 struct kernel_branch *const *sel, size_t nr, struct run_opts *args)
{
	struct run_loop rl;
	struct cell_loop loop = { 0 };
	int ret;

	memset(&rl, 0, sizeof(rl));
	rl.res = res;
	rl.args = args;
	loop.given = &args->given;
	loop.workdir = args->workdir;
	loop.repo = args->repo;
	loop.create_repo = 1;
	loop.branch_fn = run_begin;
	loop.cell_fn = run_cell;
	loop.branch_end_fn = run_end;
	loop.not_started_fn = run_not_started;
	loop.data = &rl;
	ret = for_each_selected_cell(&loop, kit, sel, nr);
	return ret > rl.status ? ret : rl.status;
}

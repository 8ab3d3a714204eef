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
#include "run/applystep.h"
#include "run/buildstep.h"
#include "run/estimate.h"
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
	struct apply_step apply;	/* its plans, and how the kit and each variant applied */
	git_repository *repo;	/* the cell loop's */
	git_oid base;
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

static int forced(const struct branch_run *br, enum run_step step, const char *variant)
{
	return run_step_forced(br->args->force, step, variant);
}

/* A step about to work, for its `starting` hook. */
struct step_start {
	struct branch_run *br;
	const char *variant;	/* NULL: the branch's own step */
	enum run_step step;
};

/*
 * Before a step works: say why it runs again (a first run says nothing),
 * so that the reason comes before the work it explains, and set the
 * run's clock to this step.
 */
static void step_starting(const char *why, void *data)
{
	struct step_start *s = data;

	if (*why)
		say(s->br, s->variant, "%s: again: %s", run_step_name(s->step), why);
	run_estimate_at(s->br->args->estimate, s->br->b->name, s->variant, s->step);
}

/* ------------------------------------------------------------------ */
/* import */

/* The import step: run/applystep.c's, as `mkseries apply` takes it too. */
static int step_import(struct branch_run *br)
{
	struct strbuf out = STRBUF_INIT;
	int ret;

	run_estimate_at(br->args->estimate, br->b->name, NULL, STEP_IMPORT);
	ret = import_step_run(&br->base, &out, br->repo, br->kit, br->b, br->workdir,
			      forced(br, STEP_IMPORT, NULL) ? TREE_IMPORT_FORCE : 0);
	say(br, NULL, "import: %s", out.buf);
	strbuf_release(&out);
	return ret;
}

/* ------------------------------------------------------------------ */
/* apply */

/* The apply step of the branch: run/applystep.c's, as `mkseries apply` takes it too. */
static void step_apply(struct branch_run *br)
{
	struct apply_step_opts o = { 0 };
	struct step_start start = { br, NULL, STEP_APPLY };
	struct strbuf out = STRBUF_INIT, shown_out = STRBUF_INIT;

	o.force = forced(br, STEP_APPLY, NULL);
	o.cmd = "mkseries run";
	o.starting = step_starting;
	o.data = &start;
	apply_step_run(&br->apply, br->repo, &br->base, br->workdir, &o);
	apply_step_say(&out, &out, "apply: ", &br->apply, 0);
	/* Its lines quote subjects and apply's report. */
	strbuf_add_shown(&shown_out, out.buf, out.len, SHOWN_LINES);
	fputs(shown_out.buf, br->args->log);
	fflush(br->args->log);
	strbuf_release(&shown_out);
	strbuf_release(&out);
}

/* ------------------------------------------------------------------ */
/* build */

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
	struct step_start start = { br, variant, STEP_BUILD };
	struct strbuf out = STRBUF_INIT;
	char *label = xstrfmt("%s %s", br->b->name, variant);
	int err, ret = 0;

	memset(&res, 0, sizeof(res));
	*bzimage = NULL;
	opts.workdir = br->workdir;
	opts.jobs = br->args->jobs;
	opts.force = forced(br, STEP_BUILD, variant);
	opts.progress = progress_wanted();
	opts.label = label;
	opts.starting = step_starting;
	opts.data = &start;
	err = build_variant(&res, br->repo, br->kit, br->b, variant, commit, &opts);
	if (err)
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
	/* Its image, when it built (or had built, and nothing changed). */
	if (!err && res.status != BUILD_FAILED)
		*bzimage = xstrdup(res.bzimage);
	build_step_say(&out, label, "build: ", err, &res, 0);
	fputs(out.buf, br->args->log);
	fflush(br->args->log);
	strbuf_release(&out);
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
	struct step_start start = { br, variant, STEP_TEST };
	struct strbuf out = STRBUF_INIT;
	char *label = xstrfmt("%s %s", br->b->name, variant);
	int ret;

	o.accel = br->args->accel;
	o.full = br->args->full;
	o.force = forced(br, STEP_TEST, variant);
	o.repeat = br->args->repeat;
	o.boots = br->args->boots;
	o.probe_timeout = br->args->probe_timeout;
	o.label = label;
	o.starting = step_starting;
	o.data = &start;
	ret = test_step_run(&t, br->b, variant, bzimage, br->workdir, &o);
	if (ret) {
		say(br, variant, "test: FAILED %s", t.why.buf);
	} else if (t.uptodate) {
		test_step_say_uptodate(&out, label, &t, declared);
	} else {
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
		return br->apply.applied;
	}
	for (i = 0; i < br->b->nr_variants; i++)
		if (!strcmp(br->b->variants[i].name, variant)) {
			*why = "the variant did not apply";
			return br->apply.vapplied[i];
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

/* The branch's own steps, before its cells: import, then apply when a cell needs it. */
static int run_begin(const struct cell *c, const struct strvec *variants, void *data)
{
	struct run_loop *rl = data;
	struct branch_run *br = &rl->br;
	struct strbuf why = STRBUF_INIT;
	git_repository *locked;
	size_t mark;
	char *errors;
	int ret = 0;

	memset(br, 0, sizeof(*br));
	br->kit = c->kit;
	br->b = c->b;
	br->args = rl->args;
	br->workdir = c->workdir;
	br->variants = variants;
	br->repo = c->repo;
	br->apply = (struct apply_step)APPLY_STEP_INIT;
	if (apply_step_plan(&br->apply, c->kit, c->b, &why)) {
		error_flush();
		branch_not_started(rl->res, c->b, variants, why.buf);
		ret = 2;
		goto cleanup;
	}
	mark = error_mark();
	ret = kernel_repos_open(&locked, c->repos, c->kit, c->b, c->repo_opt, KERNEL_REPO_LOCK);
	if (ret) {
		errors = error_since(mark);
		error_flush();
		strbuf_addf(&why, "cannot lock the kernel repository: %s", errors ? errors : "");
		free(errors);
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

	if (br->collect &&
	    results_collect_branch(results_branch(rl->res, c->b->name), c->workdir, variants) < 0 &&
	    !rl->status)
		rl->status = 1;
	apply_step_release(&br->apply);
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

/* run/steps.c: the resumable steps of a run on one branch, each redone only when its inputs changed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "run/steps.h"
#include "apply/applyplan.h"
#include "kit/arch.h"
#include "build/build.h"
#include "results/collect.h"
#include "lib/gitutil.h"
#include "apply/plan.h"
#include "lib/progress.h"
#include "lib/state.h"
#include "tree/tree.h"
#include "apply/variant.h"
#include "vm/vm.h"
#include "tree/workdir.h"

/* One branch while it runs. */
struct branch_run {
	const struct kit *kit;
	const struct kernel_branch *b;
	struct run_opts *args;
	char *workdir;
	struct strvec variants;	/* the cells this run works on, in order */
	struct plan plan;
	struct plan *vplans;	/* one per declared variant of b, in order */
	git_repository *repo;
	git_oid base;
	int applied;		/* the kit applied: its cells can be built */
	int *vapplied;		/* per declared variant: it applied */
	int config_error;	/* the kit is unusable for this branch: exit 2 */
	int base_tested;	/* base built and booted cleanly in this run */
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

	for (i = 0; i < br->variants.nr; i++)
		if (strcmp(br->variants.v[i], "base"))
			return 1;
	return 0;
}

static int forced(const struct run_opts *args, enum run_step step)
{
	return args->force <= step;
}

/* Write state/run.<name> atomically, stamped with the time it was written. */
static int record(const struct branch_run *br, const char *name, struct state *st)
{
	char *path = runstate_path(br->workdir, name);
	int ret;

	state_setf(st, "at", "%lld", (long long)time(NULL));
	ret = state_write(st, path);
	free(path);
	return ret;
}

static int read_run_state(struct state *st, const struct branch_run *br, const char *name)
{
	char *path = runstate_path(br->workdir, name);
	int ret = state_read(st, path);

	free(path);
	return ret;
}

static int read_module_state(struct state *st, const struct branch_run *br, const char *variant,
			     const char *step)
{
	char *path = xstrfmt("%s/state/%s.%s", br->workdir, variant, step);
	int ret = state_read(st, path);

	free(path);
	return ret;
}

static int same_value(const struct state *a, const char *ka, const struct state *b, const char *kb)
{
	const char *va = state_get(a, ka), *vb = state_get(b, kb);

	return va && vb && !strcmp(va, vb);
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
	struct state st = STATE_INIT;
	int err, ret = 0;

	err = tree_import_ex(&br->base, &info, br->repo, br->kit, br->b, forced(br->args, STEP_IMPORT));
	if (err) {
		char *what = source_name(br->b);

		state_set(&st, "status", "failed");
		state_setf(&st, "evidence", "cannot import %s: see the error output", what);
		free(what);
		say(br, NULL, "import: FAILED (see the error above)");
		ret = -1;
	} else {
		state_set(&st, "status", "ok");
		state_set(&st, "base", git_oid_tostr_s(&br->base));
		if (info.what)
			state_set(&st, "what", info.what);
		if (info.up_to_date)
			say(br, NULL, "import: up to date (%s)", oid_short(&br->base));
		else
			say(br, NULL, "import: %s as %s (%zu files, %.1f s)",
			    info.what ? info.what : "imported", oid_short(&br->base), info.nr_files,
			    info.seconds);
	}
	if (record(br, "import", &st))
		ret = -1;
	tree_import_info_release(&info);
	state_release(&st);
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

static void record_series(struct state *st, const struct plan *plan,
			  const enum applied_state *applied, size_t failed)
{
	struct branch_result tmp;
	size_t i;

	memset(&tmp, 0, sizeof(tmp));
	branch_series_from_plan(&tmp, plan, applied, failed);
	state_setf(st, "series", "%zu", tmp.nr_series);
	for (i = 0; i < tmp.nr_series; i++) {
		char *k = xstrfmt("series.%zu.id", i);

		state_set(st, k, tmp.series[i].id);
		free(k);
		k = xstrfmt("series.%zu.title", i);
		state_set(st, k, tmp.series[i].title ? tmp.series[i].title : "");
		free(k);
		k = xstrfmt("series.%zu.state", i);
		state_set(st, k, series_state_name(tmp.series[i].state));
		free(k);
		k = xstrfmt("series.%zu.detail", i);
		state_set(st, k, tmp.series[i].detail ? tmp.series[i].detail : "");
		free(k);
	}
	branch_result_release(&tmp);
}

static const char *state_getf(const struct state *st, const char *fmt, const char *arg)
{
	char *k = xstrfmt(fmt, arg);
	const char *v = state_get(st, k);

	free(k);
	return v;
}

static void state_setf_key(struct state *st, const char *fmt, const char *arg, const char *value)
{
	char *k = xstrfmt(fmt, arg);

	state_set(st, k, value);
	free(k);
}

/*
 * Whether what run.apply recorded is still what the repository has: each
 * branch (the kit's, each variant's) recorded as applied is at its tip;
 * a conflict stays a conflict.
 */
static int apply_still_there(const struct branch_run *br, const struct state *st)
{
	const char *status = state_get(st, "status"), *tip;
	size_t i;
	int ok = 1;

	for (i = 0; ok && i <= br->b->nr_variants; i++) {
		const struct plan *plan = i ? &br->vplans[i - 1] : &br->plan;
		const char *name = i ? plan->variant->name : NULL;
		char *refname = branch_refname(plan);
		git_oid now;

		if (name) {
			status = state_getf(st, "variant.%s.status", name);
			tip = state_getf(st, "variant.%s.tip", name);
		} else {
			tip = state_get(st, "tip");
		}
		if (!status)
			ok = 0;
		else if (!strcmp(status, "ok"))
			ok = tip && git_reference_name_to_id(&now, br->repo, refname) == 0 &&
			     !strcmp(tip, git_oid_tostr_s(&now));
		else
			ok = !strcmp(status, "conflict");
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
			 const git_signature *me, struct state *now, struct apply_outcome *o)
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
		state_setf_key(now, "variant.%s.status", name,
			       err == MKS_EAPPLYFAIL ? "conflict" : "failed");
		state_setf_key(now, "variant.%s.evidence", name, evidence);
		say(br, name, "apply: %s %s; '%s' %s", err == MKS_EAPPLYFAIL ? "CONFLICT" :
		    "REFUSED", without, refname, o->have_old ? "left where it was" : "not created");
		fprintf(br->args->log, "%s", o->report.buf);
		if (o->report.len && o->report.buf[o->report.len - 1] != '\n')
			fputc('\n', br->args->log);
	} else if (err) {
		ret = -1;
	} else {
		state_setf_key(now, "variant.%s.status", name, "ok");
		state_setf_key(now, "variant.%s.tip", name, git_oid_tostr_s(&o->tip));
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
static void apply_uptodate(struct branch_run *br, const struct state *st, const char *refname,
			   const git_oid *old_tip)
{
	const char *status = state_get(st, "status");
	size_t i;

	if (!strcmp(status, "conflict")) {
		say(br, NULL, "apply: up to date (conflict: %s)",
		    state_get(st, "evidence") ? state_get(st, "evidence") : "");
	} else {
		say(br, NULL, "apply: up to date (%s at %s)", refname, oid_short(old_tip));
		br->applied = 1;
	}
	for (i = 0; i < br->b->nr_variants; i++) {
		const char *name = br->b->variants[i].name;
		const char *vs = state_getf(st, "variant.%s.status", name);
		const char *ev = state_getf(st, "variant.%s.evidence", name);
		char *vref = branch_refname(&br->vplans[i]);

		if (!strcmp(vs, "ok")) {
			say(br, name, "apply: up to date (%s at %.12s)", vref,
			    state_getf(st, "variant.%s.tip", name));
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
static void kit_outcome(struct branch_run *br, struct state *now, const struct apply_outcome *o,
			int err, const char *refname, int have_old)
{
	char *evidence;

	if (!err) {
		/* said once the refs moved */
		state_set(now, "status", "ok");
		state_set(now, "tip", git_oid_tostr_s(&o->tip));
		record_series(now, &br->plan, o->state, (size_t)-1);
		br->applied = 1;
		return;
	}
	evidence = conflict_evidence(o->report.buf);
	state_set(now, "status", err == MKS_EAPPLYFAIL ? "conflict" : "failed");
	state_set(now, "evidence", evidence);
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
	struct state st = STATE_INIT, now = STATE_INIT;
	struct strbuf names = STRBUF_INIT;
	const struct plan **plans = xcalloc(br->b->nr_variants + 1, sizeof(*plans));
	struct apply_outcome *vo = xcalloc(br->b->nr_variants + 1, sizeof(*vo));
	struct apply_outcome **moving = xcalloc(br->b->nr_variants + 1, sizeof(*moving));
	git_signature *me = NULL;
	char *refname = kit_refname(br->kit, br->b, NULL);
	char *key = NULL, *who = NULL;
	git_oid old_tip;
	size_t i;
	int have_old, err, ret = 0;

	apply_outcome_init(&o);
	plans[0] = &br->plan;
	for (i = 0; i < br->b->nr_variants; i++) {
		apply_outcome_init(&vo[i]);
		plans[i + 1] = &br->vplans[i];
		strbuf_addf(&names, "%s%s", i ? " " : "", br->b->variants[i].name);
	}
	if (read_run_state(&st, br, "apply"))
		goto error;
	if (backporter_signature(&me, br->repo))
		goto error;
	who = xstrfmt("%s <%s>", me->name, me->email);
	key = apply_key(plans, br->b->nr_variants + 1, &br->base, who);
	have_old = git_reference_name_to_id(&old_tip, br->repo, refname) == 0;

	if (!forced(br->args, STEP_APPLY) && runstate_current(&st, key) &&
	    apply_still_there(br, &st)) {
		apply_uptodate(br, &st, refname, &old_tip);
		goto cleanup;
	}

	state_set(&now, "key", key);
	state_set(&now, "variants", names.buf);
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
	if (record(br, "apply", &now))
		ret = -1;
	goto cleanup;
error:
	/* Not an outcome of the kit: recorded as an error, retried next time. */
	state_release(&now);
	state_set(&now, "status", "error");
	state_set(&now, "evidence", "apply could not run: see the error output");
	say(br, NULL, "apply: FAILED (see the error above)");
	record(br, "apply", &now);
	br->applied = 0;
	for (i = 0; i < br->b->nr_variants; i++)
		br->vapplied[i] = 0;
	ret = -1;
cleanup:
	for (i = 0; i < br->b->nr_variants; i++)
		apply_outcome_release(&vo[i]);
	free(vo);
	free(moving);
	apply_outcome_release(&o);
	git_signature_free(me);
	state_release(&st);
	state_release(&now);
	strbuf_release(&names);
	free(plans);
	free(refname);
	free(key);
	free(who);
	return ret;
}

/* ------------------------------------------------------------------ */
/* build */

/* Whether what build.c recorded is still the build run.<v>.build names, and its image is there. */
static int build_still_there(const struct state *rb, const struct state *bs)
{
	const char *status = state_get(rb, "status"), *img = state_get(bs, "bzimage");
	const char *mtime = state_get(bs, "bzimage_mtime");
	struct stat s;

	if (!same_value(rb, "finished", bs, "finished") || !same_value(rb, "status", bs, "status"))
		return 0;
	if (!strcmp(status, "failed"))
		return 1;
	return img && mtime && !stat(img, &s) && strtoll(mtime, NULL, 10) == (long long)s.st_mtime;
}


/*
 * Build one variant. *bzimage is set when it built (or had built, and
 * nothing changed). Returns 0 whatever the build's outcome (that is
 * recorded), MKS_ECONFIG when the kit is unusable, -1 on other errors.
 */
static int step_build(struct branch_run *br, const char *variant, const git_oid *commit,
		      char **bzimage)
{
	struct state rb = STATE_INIT, bs = STATE_INIT, now = STATE_INIT;
	struct build_result res;
	struct build_opts opts = { 0 };
	char *name = xstrfmt("%s.build", variant), *key = NULL;
	char *label = xstrfmt("%s %s", br->b->name, variant);
	const char *old_key, *v;
	int err, ret = 0;

	memset(&res, 0, sizeof(res));
	*bzimage = NULL;
	err = build_key(&key, br->repo, commit, br->kit, br->b);
	if (err || read_run_state(&rb, br, name) || read_module_state(&bs, br, variant, "build")) {
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
		goto error;
	}
	if (!forced(br->args, STEP_BUILD) && runstate_current(&rb, key) &&
	    build_still_there(&rb, &bs)) {
		if (!strcmp(state_get(&rb, "status"), "ok")) {
			*bzimage = xstrdup(state_get(&bs, "bzimage"));
			say(br, variant, "build: up to date (%s)", *bzimage);
		} else {
			v = state_get(&rb, "evidence");
			say(br, variant, "build: up to date (FAILED %s)", v ? v : "");
		}
		goto cleanup;
	}
	/* The run's key changed: rebuild, whatever build.c's own record says. */
	old_key = state_get(&rb, "key");
	opts.workdir = br->workdir;
	opts.jobs = br->args->jobs;
	opts.force = forced(br->args, STEP_BUILD) || (old_key && strcmp(old_key, key));
	opts.progress = progress_wanted();
	opts.label = label;
	err = build_variant(&res, br->repo, br->kit, br->b, variant, commit, &opts);
	if (err) {
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
		goto error;
	}
	state_release(&bs);
	if (read_module_state(&bs, br, variant, "build")) {
		ret = -1;
		goto error;
	}
	state_set(&now, "key", key);
	state_set(&now, "status", res.status == BUILD_FAILED ? "failed" : "ok");
	if (res.failure)
		state_set(&now, "evidence", res.failure);
	if ((v = state_get(&bs, "finished")))
		state_set(&now, "finished", v);
	if (res.status != BUILD_FAILED && res.bzimage)
		state_set(&now, "bzimage", res.bzimage);
	if (record(br, name, &now)) {
		ret = -1;
		goto cleanup;
	}
	switch (res.status) {
	case BUILD_OK:
		say(br, variant, "build: built in %s (%s)", format_duration(res.seconds), res.bzimage);
		*bzimage = xstrdup(res.bzimage);
		break;
	case BUILD_UPTODATE:
		say(br, variant, "build: up to date (%s)", res.bzimage);
		*bzimage = xstrdup(res.bzimage);
		break;
	case BUILD_FAILED:
		say(br, variant, "build: FAILED %s", res.failure ? res.failure : "");
		fprintf(br->args->log, "    log: %s\n", res.log);
		break;
	}
	goto cleanup;
error:
	state_release(&now);
	state_set(&now, "status", "error");
	state_set(&now, "evidence", ret == MKS_ECONFIG ?
		  "the kit's build settings are invalid: see the error output" :
		  "the build could not run: see the error output");
	record(br, name, &now);
	say(br, variant, "build: FAILED (see the error above)");
cleanup:
	build_result_release(&res);
	state_release(&rb);
	state_release(&bs);
	state_release(&now);
	free(name);
	free(key);
	free(label);
	return ret;
}

/* ------------------------------------------------------------------ */
/* test */

/* Say that the recorded test (rt, and vm.c's ts) of a cell is current, and how it went. */
static void test_uptodate(struct branch_run *br, const char *variant, const struct state *rt,
			  const struct state *ts, const struct kernel_variant *declared)
{
	const char *pass = state_get(ts, "pass") ? state_get(ts, "pass") : "?";

	if (!strcmp(state_get(rt, "status"), "ok") && declared && declared->nr_expect_fail)
		say(br, variant, "test: up to date (%s passed, %s xfail)", pass,
		    state_get(ts, "xfail") ? state_get(ts, "xfail") : "?");
	else if (!strcmp(state_get(rt, "status"), "ok"))
		say(br, variant, "test: up to date (%s passed)", pass);
	else
		say(br, variant, "test: up to date (FAILED %s)", state_get(rt, "evidence") ?
		    state_get(rt, "evidence") : "");
}

/*
 * Record in now what a finished test gave: res, with vm.c's record of it
 * ts, of the image whose hash is image_hash, `repeat` samples a case.
 */
static void test_outcome(struct state *now, const struct vm_result *res, const struct state *ts,
			 const char *image_hash, unsigned repeat)
{
	const char *v;

	state_set(now, "status", res->status == VM_OK ? "ok" : "failed");
	if (res->failure)
		state_set(now, "evidence", res->failure);
	if ((v = state_get(ts, "finished")))
		state_set(now, "finished", v);
	state_setf(now, "repeat", "%u", repeat);
	state_set(now, "bzimage_hash", image_hash);
	state_set(now, "started", res->started ? "1" : "0");
	if (res->accel)
		state_set(now, "accel", res->accel);
	if (res->timing)
		state_set(now, "timing", res->timing);
}

/* Say how the test of a cell just went. */
static void say_tested(struct branch_run *br, const char *variant, const struct vm_result *res,
		       const struct kernel_variant *declared)
{
	char *how;

	if (res->accel_note)
		fprintf(br->args->log, "note: using %s: %s\n", res->accel, shown(res->accel_note));
	how = vm_result_how(res);
	if (res->status == VM_OK && declared && declared->nr_expect_fail) {
		say(br, variant, "test: booted (%s) %zu ok, %zu skip, %zu fail, %zu xfail in %s",
		    how, res->nr_pass, res->nr_skip, res->nr_fail, res->nr_xfail,
		    format_duration(res->seconds));
	} else if (res->status == VM_OK) {
		say(br, variant, "test: booted (%s) %zu ok, %zu skip, %zu fail in %s", how,
		    res->nr_pass, res->nr_skip, res->nr_fail, format_duration(res->seconds));
	} else {
		say(br, variant, "test: FAILED (%s) %s", how, res->failure ? res->failure : "");
		fprintf(br->args->log, "    console: %s\n", res->console_log);
	}
	if (res->expected)
		fprintf(br->args->log, "    XFAIL %s\n", shown(res->expected));
	free(how);
}

/* What the test of a cell depends on, but QEMU's command line. */
static void test_inputs_of(struct test_inputs *in, const struct branch_run *br,
			   const struct kernel_variant *declared, const char *image_hash,
			   const char *regress_hash, const char *qemu_version)
{
	in->bzimage_hash = image_hash;
	in->regress_hash = regress_hash;
	in->qemu_version = qemu_version;
	in->accel = br->args->accel ? br->args->accel :
		    br->b->boot.accel ? br->b->boot.accel : "auto";
	in->full = br->args->full;
	in->repeat = br->args->repeat;
	in->boots = br->args->boots ? br->args->boots : br->b->boot.boots;
	in->boot = &br->b->boot;
	in->variant = declared;
}

static int step_test(struct branch_run *br, const char *variant, const char *bzimage)
{
	const struct kernel_variant *declared = branch_find_variant(br->b, variant);
	struct state rt = STATE_INIT, ts = STATE_INIT, now = STATE_INIT;
	struct vm_result res;
	struct vm_opts opts = { 0 };
	struct strvec argv = STRVEC_INIT;
	struct test_inputs in = { 0 };
	char *name = xstrfmt("%s.test", variant), *label = xstrfmt("%s %s", br->b->name, variant);
	char *image_hash = NULL, *key = NULL, *cmdline = NULL, *regress_hash = NULL;
	char *qemu_version = NULL;
	const char *v;
	int err, ret = 0;

	memset(&res, 0, sizeof(res));
	/* mm-regress takes its options from the kernel command line (mm_regress=A,B). */
	cmdline = xstrfmt("mm_regress=--repeat,%u", br->args->repeat);
	opts.accel = br->args->accel;
	opts.full = br->args->full;
	opts.progress = progress_wanted();
	opts.label = label;
	opts.variant = declared;
	opts.boots = br->args->boots;
	opts.probe_timeout = br->args->probe_timeout;
	opts.cmdline = cmdline;

	regress_hash = mm_regress_hash(branch_arch(br->b)->machine);
	if (file_hash(&image_hash, bzimage)) {
		error("cannot read '%s': %s", bzimage, strerror(errno));
		ret = -1;
		goto error;
	}
	qemu_version = vm_qemu_version(br->b->boot.qemu);
	test_inputs_of(&in, br, declared, image_hash, regress_hash, qemu_version);
	in.qemu_argv = vm_boot_argv(&argv, br->b, bzimage, br->workdir, &opts) ? NULL : &argv;
	key = test_key(&in);
	if (read_run_state(&rt, br, name) || read_module_state(&ts, br, variant, "test")) {
		ret = -1;
		goto error;
	}
	/* A guest that never reached mm-regress gave no result: try again. */
	if (!forced(br->args, STEP_TEST) && runstate_current(&rt, key) &&
	    same_value(&rt, "finished", &ts, "finished") &&
	    (v = state_get(&rt, "started")) && !strcmp(v, "1")) {
		test_uptodate(br, variant, &rt, &ts, declared);
		goto cleanup;
	}
	err = vm_test_variant(&res, br->b, bzimage, br->workdir, variant, &opts);
	if (err) {
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
		goto error;
	}
	state_release(&ts);
	if (read_module_state(&ts, br, variant, "test")) {
		ret = -1;
		goto error;
	}
	/* The key of what ran: the accelerator is settled now, even by a probe. */
	free(key);
	in.qemu_argv = &res.argv;
	key = test_key(&in);
	state_set(&now, "key", key);
	test_outcome(&now, &res, &ts, image_hash, br->args->repeat);
	if (record(br, name, &now)) {
		ret = -1;
		goto cleanup;
	}
	say_tested(br, variant, &res, declared);
	goto cleanup;
error:
	state_release(&now);
	state_set(&now, "status", "error");
	state_set(&now, "evidence", ret == MKS_ECONFIG ?
		  "the kit's boot settings are invalid: see the error output" :
		  "the boot could not run: see the error output");
	state_setf(&now, "repeat", "%u", br->args->repeat);
	record(br, name, &now);
	say(br, variant, "test: FAILED (see the error above)");
cleanup:
	vm_result_release(&res);
	state_release(&rt);
	state_release(&ts);
	state_release(&now);
	strvec_clear(&argv);
	free(qemu_version);
	free(regress_hash);
	free(image_hash);
	free(key);
	free(cmdline);
	free(name);
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

/* Copy one of base's state files to `variant`'s, marked as reused from base. */
static int copy_base_state(const struct branch_run *br, const char *variant, const char *step,
			   int run_state)
{
	struct state st = STATE_INIT;
	char *from, *to;
	int ret;

	if (run_state) {
		char *b = xstrfmt("base.%s", step), *v = xstrfmt("%s.%s", variant, step);

		from = runstate_path(br->workdir, b);
		to = runstate_path(br->workdir, v);
		free(b);
		free(v);
	} else {
		from = xstrfmt("%s/state/base.%s", br->workdir, step);
		to = xstrfmt("%s/state/%s.%s", br->workdir, variant, step);
	}
	ret = state_read(&st, from);
	if (!ret) {
		if (state_get(&st, "variant"))
			state_set(&st, "variant", variant);
		state_set(&st, "reused", "base");
		ret = state_write(&st, to);
	}
	state_release(&st);
	free(from);
	free(to);
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
	struct state rb = STATE_INIT, rt = STATE_INIT, ts = STATE_INIT;
	const char *v;
	int ret = 0;

	if (!strcmp(variant, "base") || (declared && declared->nr_expect_fail) ||
	    !same_tree_as_base(br, commit))
		return 0;
	if (read_run_state(&rb, br, "base.build") || read_run_state(&rt, br, "base.test") ||
	    read_module_state(&ts, br, "base", "test"))
		goto cleanup;
	/* Only what this run has just found good (or up to date) for base. */
	if (!(v = state_get(&rb, "status")) || strcmp(v, "ok") || !(v = state_get(&rt, "status")) ||
	    strcmp(v, "ok") || !(v = state_get(&rt, "started")) || strcmp(v, "1") ||
	    !br->base_tested)
		goto cleanup;
	if (copy_base_state(br, variant, "build", 0) || copy_base_state(br, variant, "build", 1) ||
	    copy_base_state(br, variant, "test", 0) || copy_base_state(br, variant, "test", 1))
		goto cleanup;
	say(br, variant, "build: same tree as base (%s): base's build reused", oid_short(commit));
	say(br, variant, "test: same tree as base: base's results reused (%s passed)",
	    state_get(&ts, "pass") ? state_get(&ts, "pass") : "?");
	ret = 1;
cleanup:
	state_release(&rb);
	state_release(&rt);
	state_release(&ts);
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

int run_branch(struct run_results *res, const struct kit *kit,
	       const struct kernel_branch *b, struct run_opts *args)
{
	struct branch_run br;
	struct workdir_lock wl = WORKDIR_LOCK_INIT;
	struct repo_lock rl = REPO_LOCK_INIT;
	size_t i, nr_vplans = 0;
	int ret = 0, err;

	memset(&br, 0, sizeof(br));
	br.kit = kit;
	br.b = b;
	br.args = args;
	br.workdir = branch_workdir(kit, args->workdir, b);
	strvec_init(&br.variants);
	variants_of_branch(&br.variants, b, &args->given);
	br.vplans = xcalloc(b->nr_variants + 1, sizeof(*br.vplans));
	br.vapplied = xcalloc(b->nr_variants + 1, sizeof(*br.vapplied));
	if (!br.workdir) {
		branch_not_started(res, b, &br.variants, "no work directory: see the error above");
		ret = 2;
		goto cleanup;
	}
	if (plan_build(&br.plan, kit, b)) {
		branch_not_started(res, b, &br.variants, "the kit is invalid for this branch: see the errors");
		ret = 2;
		goto cleanup;
	}
	for (nr_vplans = 0; nr_vplans < b->nr_variants; nr_vplans++) {
		if (plan_build_variant(&br.vplans[nr_vplans], kit, b, &b->variants[nr_vplans])) {
			branch_not_started(res, b, &br.variants,
					   "a variant is invalid for this branch: see the errors");
			ret = 2;
			goto cleanup;
		}
	}
	if (workdir_lock(&wl, br.workdir)) {
		char *why = xstrfmt("its work directory: %s (see the error above)", wl.why);

		branch_not_started(res, b, &br.variants, why);
		free(why);
		ret = 1;
		goto cleanup;
	}
	if (kernel_repo_open(&br.repo, kit, b, args->repo, 1) ||
	    repo_lock(&rl, br.repo)) {
		branch_not_started(res, b, &br.variants, "cannot open or lock the kernel repository");
		ret = 1;
		goto cleanup;
	}
	if (step_import(&br))
		goto collect;
	if (wants_apply(&br))
		step_apply(&br);
	repo_unlock(&rl);

	for (i = 0; i < br.variants.nr; i++) {
		const char *variant = br.variants.v[i], *skipped;
		struct strbuf why = STRBUF_INIT;
		char *refname = NULL, *bzimage = NULL;
		git_oid commit;

		progress_cell_next();
		if (!cell_applied(&br, variant, &skipped)) {
			say(&br, variant, "skipped: %s", skipped);
			continue;
		}
		err = variant_resolve(&commit, &refname, &why, br.repo, kit, b, variant);
		if (err) {
			say(&br, variant, "FAILED %s", why.len ? why.buf : "cannot find its commit");
		} else if (!reuse_base(&br, variant, &commit)) {
			err = step_build(&br, variant, &commit, &bzimage);
			if (!err && bzimage)
				err = step_test(&br, variant, bzimage);
			if (err == MKS_ECONFIG)
				ret = 2;
			if (!err && bzimage && !strcmp(variant, "base"))
				br.base_tested = 1;
		}
		strbuf_release(&why);
		free(refname);
		free(bzimage);
	}
collect:
	if (results_collect_branch(results_branch(res, b->name), br.workdir, &br.variants) < 0)
		ret = ret ? ret : 1;
cleanup:
	repo_unlock(&rl);
	workdir_unlock(&wl);
	git_repository_free(br.repo);
	plan_release(&br.plan);
	for (i = 0; i < nr_vplans; i++)
		plan_release(&br.vplans[i]);
	free(br.vplans);
	free(br.vapplied);
	strvec_clear(&br.variants);
	free(br.workdir);
	return ret;
}

/* results/collect.c: read the state files of a branch's work directory into its results. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "results/collect.h"
#include "lib/state.h"
#include "apply/variant.h"

static char *state_path(const char *workdir, const char *name)
{
	return xstrfmt("%s/state/%s", workdir, name);
}

static int read_state(struct state *st, const char *workdir, const char *fmt, const char *arg)
{
	char *name = xstrfmt(fmt, arg), *path = state_path(workdir, name);
	int ret = state_read(st, path);

	free(path);
	free(name);
	return ret;
}

static long long state_ll(const struct state *st, const char *key)
{
	const char *v = state_get(st, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

static double state_double(const struct state *st, const char *key)
{
	const char *v = state_get(st, key);

	return v ? strtod(v, NULL) : 0;
}

static void dup_state(char **out, const struct state *st, const char *key)
{
	const char *v = state_get(st, key);

	free(*out);
	*out = v && *v ? xstrdup(v) : NULL;
}

/* A run's own record of a step: status ok/failed/conflict/error and its evidence. */
static void check_from_run_state(struct check *c, const struct state *st)
{
	const char *status = state_get(st, "status"), *ev = state_get(st, "evidence");
	int s;

	if (!status)
		return;
	if (!strcmp(status, "error"))
		s = CHECK_FAILED;
	else
		s = check_status_parse(status);
	if (s < 0)
		s = CHECK_FAILED;
	check_set(c, s, ev && *ev ? ev : NULL);
}

static int collect_apply(struct branch_result *b, const char *workdir)
{
	struct state st = STATE_INIT;
	size_t i, nr;
	int ret;

	ret = read_state(&st, workdir, "%s", "run.apply");
	if (ret || !state_get(&st, "status"))
		goto cleanup;
	check_from_run_state(&b->apply, &st);
	dup_state(&b->tip, &st, "tip");
	nr = (size_t)state_ll(&st, "series");
	for (i = 0; i < nr && i < 10000; i++) {
		char *k = xstrfmt("series.%zu.id", i);
		const char *id = state_get(&st, k), *v;
		struct series_result *s;
		int state;

		free(k);
		if (!id || !*id)
			continue;
		k = xstrfmt("series.%zu.title", i);
		s = branch_add_series(b, id, state_get(&st, k));
		free(k);
		k = xstrfmt("series.%zu.state", i);
		state = series_state_parse(state_get(&st, k));
		s->state = state < 0 ? SERIES_PLANNED : state;
		free(k);
		k = xstrfmt("series.%zu.detail", i);
		v = state_get(&st, k);
		s->detail = v && *v ? xstrdup(v) : NULL;
		free(k);
	}
	ret = 1;
cleanup:
	state_release(&st);
	return ret;
}

/*
 * Whether a run recorded an error for a step after the module's own
 * state was last written: then the error is the step's latest outcome.
 */
static int run_error_is_latest(const struct state *run, const struct state *mod)
{
	const char *status = state_get(run, "status");

	if (!status || strcmp(status, "error"))
		return 0;
	return !state_get(mod, "finished") || state_ll(run, "at") >= state_ll(mod, "finished");
}

/* Mark every check after `from` (all of them when NULL) skipped for `why`. */
static void skip_after(struct cell_result *c, struct check *from, const char *why)
{
	struct check *order[] = { &c->build, &c->boot, &c->tests, &c->splats };
	size_t i;
	int after = !from;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (after)
			check_set(order[i], CHECK_SKIPPED, why);
		if (order[i] == from)
			after = 1;
	}
}

/*
 * Whether the recorded test (ts, and the run's record rt) booted the
 * image the last build made. A run records the image's hash; a test
 * made by `mkseries test` alone is judged by time: it must be newer.
 */
static int tested_this_image(const struct state *ts, const struct state *rt,
			     const struct state *bs)
{
	const char *image = state_get(ts, "bzimage"), *built = state_get(bs, "bzimage");
	const char *hash = state_get(rt, "bzimage_hash");
	git_oid oid;

	if (image && built && strcmp(image, built))
		return 0;
	if (hash && state_get(rt, "finished") && state_get(ts, "finished") &&
	    !strcmp(state_get(rt, "finished"), state_get(ts, "finished")) && built) {
		if (git_odb_hashfile(&oid, built, GIT_OBJECT_BLOB) < 0)
			return 0;
		return !strcmp(hash, git_oid_tostr_s(&oid));
	}
	return state_ll(ts, "finished") >= state_ll(bs, "finished");
}

/* More boots than this in a state file are a corrupt file, not a measurement. */
#define MAX_BOOTS 1000

/* What a test's state ts says about how the cell booted; c->boots is 1..MAX_BOOTS after it. */
static void take_test_state(struct cell_result *c, const struct state *ts)
{
	const char *v;
	long long boots;

	dup_state(&c->accel, ts, "accel");
	dup_state(&c->accel_note, ts, "accel_note");
	dup_state(&c->mode, ts, "mode");
	dup_state(&c->console_log, ts, "console");
	dup_state(&c->reused, ts, "reused");
	c->test_seconds = state_double(ts, "seconds");
	/* State written before `timing` was: TCG was always on host time then. */
	v = state_get(ts, "timing");
	c->timing = v && timing_parse(v) > 0 ? timing_parse(v) : timing_from_accel(c->accel);
	boots = state_get(ts, "boots") ? state_ll(ts, "boots") : 1;
	if (boots < 1 || boots > MAX_BOOTS)
		boots = 1;
	c->boots = (unsigned)boots;
}

/*
 * Read the console log of each of c's boots into consoles[] (c->boots of
 * them). Returns how many were initialised: c->boots when all were read,
 * fewer after marking c's boot failed for the one that was not.
 */
static size_t read_console_logs(struct strbuf *consoles, struct cell_result *c,
				const struct state *ts)
{
	size_t i;

	for (i = 0; i < c->boots; i++) {
		char *key = i ? xstrfmt("console.%zu", i + 1) : xstrdup("console");
		const char *path = state_get(ts, key);
		struct strbuf why = STRBUF_INIT, reason = STRBUF_INIT;

		free(key);
		strbuf_init(&consoles[i], 0);
		if (path)
			strvec_push(&c->console_logs, path);
		if (path && !results_read_file(&consoles[i], path, RESULTS_FILE_MAX, &reason))
			continue;
		if (c->boots > 1)
			strbuf_addf(&why, "boot %zu of %u: ", i + 1, c->boots);
		strbuf_addf(&why, "console log '%s' cannot be read: %s", path ? path : "(none)",
			    path ? reason.buf : "not recorded");
		strbuf_release(&reason);
		check_set(&c->boot, CHECK_FAILED, why.buf);
		skip_after(c, &c->boot, "no console log");
		strbuf_release(&why);
		return i + 1;
	}
	return c->boots;
}

/* A declared variant's expectations, as they were when it was tested. */
static void take_expectations(struct cell_result *c, const struct state *ts)
{
	const char *p = state_get(ts, "expect_fail");

	dup_state(&c->without, ts, "without");
	while (p && *p) {
		size_t n = strcspn(p, " ");

		if (n) {
			char *name = xstrndup(p, n);

			cell_expect_fail(c, name);
			free(name);
		}
		p += n + !!p[n];
	}
}

/* Judge the consoles of c's boots (c->boots of them). */
static void judge_consoles(struct cell_result *c, const struct strbuf *consoles,
			   const char *failure)
{
	const char **text = xcalloc(c->boots, sizeof(*text));
	size_t *lens = xcalloc(c->boots, sizeof(*lens));
	size_t i;

	for (i = 0; i < c->boots; i++) {
		text[i] = consoles[i].buf;
		lens[i] = consoles[i].len;
	}
	cell_read_consoles(c, text, lens, c->boots, failure);
	free(text);
	free(lens);
}

static int collect_test(struct cell_result *c, const char *workdir, const struct state *bs)
{
	struct state ts = STATE_INIT, rt = STATE_INIT;
	struct strbuf *consoles = NULL;
	const char *status;
	size_t i, nr_read = 0;
	int ret = 0, any = 0;

	if ((ret = read_state(&ts, workdir, "%s.test", c->variant)) ||
	    (ret = read_state(&rt, workdir, "run.%s.test", c->variant)))
		goto cleanup;
	any = state_get(&ts, "status") || state_get(&rt, "status");
	if (state_get(&rt, "repeat"))
		c->repeat = (unsigned)state_ll(&rt, "repeat");
	if (run_error_is_latest(&rt, &ts)) {
		check_from_run_state(&c->boot, &rt);
		skip_after(c, &c->boot, "did not boot");
		goto cleanup;
	}
	status = state_get(&ts, "status");
	if (!status)
		goto cleanup;
	if (!tested_this_image(&ts, &rt, bs)) {
		check_set(&c->boot, CHECK_NOT_RUN, "the last test booted an earlier build");
		goto cleanup;
	}
	take_test_state(c, &ts);
	consoles = xcalloc(c->boots, sizeof(*consoles));
	nr_read = read_console_logs(consoles, c, &ts);
	if (nr_read < c->boots)
		goto cleanup;
	take_expectations(c, &ts);
	judge_consoles(c, consoles, state_get(&ts, "failure"));
	/* vm.c judged the run: when it says failed and the console did not show why, say it. */
	if (!strcmp(status, "failed") && c->boot.status == CHECK_OK && c->tests.status == CHECK_OK &&
	    c->splats.status == CHECK_OK)
		check_set(&c->tests, CHECK_FAILED,
			  state_get(&ts, "failure") ? state_get(&ts, "failure") : "failed");
	if (!c->repeat) {
		/* Samples a boot asked for: the metrics hold every boot's. */
		for (i = 0; i < c->nr_metrics; i++)
			if (c->metrics[i].n / (c->boots ? c->boots : 1) > c->repeat)
				c->repeat = c->metrics[i].n / (c->boots ? c->boots : 1);
	}
cleanup:
	for (i = 0; i < nr_read; i++)
		strbuf_release(&consoles[i]);
	free(consoles);
	state_release(&ts);
	state_release(&rt);
	return ret ? ret : any;
}

/* How run.apply says a declared variant applied: variant.<v>.status and .evidence. */
static void variant_apply_check(struct check *out, const struct state *apply, const char *variant)
{
	char *ks = xstrfmt("variant.%s.status", variant), *ke = xstrfmt("variant.%s.evidence", variant);
	const char *status = state_get(apply, ks), *ev = state_get(apply, ke);
	int st;

	if (status) {
		st = !strcmp(status, "error") ? CHECK_FAILED : check_status_parse(status);
		check_set(out, st < 0 ? CHECK_FAILED : st, ev && *ev ? ev : NULL);
	}
	free(ks);
	free(ke);
}

static int collect_cell(struct cell_result *c, const struct branch_result *b, const char *workdir,
			const struct state *apply)
{
	struct state bs = STATE_INIT, rb = STATE_INIT;
	const char *status;
	int ret = 0, any = 0;

	if (b->import.status == CHECK_FAILED) {
		check_set(&c->apply, strcmp(c->variant, "base") ? CHECK_SKIPPED : CHECK_NA,
			  "not imported");
		skip_after(c, NULL, "not imported");
		return 1;
	}
	if (!strcmp(c->variant, "base")) {
		check_set(&c->apply, CHECK_NA, NULL);
	} else {
		if (!strcmp(c->variant, "kit"))
			check_set(&c->apply, b->apply.status, b->apply.evidence);
		else
			variant_apply_check(&c->apply, apply, c->variant);
		if (c->apply.status == CHECK_CONFLICT || c->apply.status == CHECK_FAILED) {
			skip_after(c, NULL, c->apply.status == CHECK_CONFLICT ?
				   "apply conflict" : "not applied");
			return 1;
		}
	}
	if ((ret = read_state(&bs, workdir, "%s.build", c->variant)) ||
	    (ret = read_state(&rb, workdir, "run.%s.build", c->variant)))
		goto cleanup;
	any = state_get(&bs, "status") || state_get(&rb, "status");
	if (run_error_is_latest(&rb, &bs)) {
		check_from_run_state(&c->build, &rb);
		skip_after(c, &c->build, "not built");
		goto cleanup;
	}
	status = state_get(&bs, "status");
	dup_state(&c->commit, &bs, "commit");
	dup_state(&c->build_log, &bs, "log");
	c->build_seconds = state_double(&bs, "seconds");
	if (!status) {
		goto cleanup;
	} else if (!strcmp(status, "ok")) {
		check_set(&c->build, CHECK_OK, NULL);
	} else if (!strcmp(status, "failed")) {
		check_set(&c->build, CHECK_FAILED, state_get(&bs, "failure") ?
			  state_get(&bs, "failure") : "the build failed");
		skip_after(c, &c->build, "not built");
		goto cleanup;
	} else {
		/* "running": the build was interrupted; what it left does not count. */
		check_set(&c->build, CHECK_NOT_RUN, "interrupted");
		goto cleanup;
	}
	ret = collect_test(c, workdir, &bs);
	if (ret > 0)
		any = 1;
cleanup:
	state_release(&bs);
	state_release(&rb);
	return ret < 0 ? ret : any;
}

/*
 * Every variant with something recorded: base and kit, those run.apply
 * lists (in the kernel file's order), then any other the state directory
 * has a file of, by name.
 */
static void recorded_variants(struct strvec *out, const char *workdir, const struct state *apply)
{
	struct strvec found = STRVEC_INIT;
	const char *list = state_get(apply, "variants");
	char *dir = path_join(workdir, "state");
	struct dirent *de;
	size_t i, j;
	DIR *d;

	for (i = 0; build_variants[i]; i++)
		strvec_push(out, build_variants[i]);
	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n) {
			char *v = xstrndup(list, n);

			if (variant_name_ok(v))
				strvec_push(out, v);
			free(v);
		}
		list += n + !!list[n];
	}
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		const char *name = de->d_name, *dot;
		char *v;

		skip_prefix(name, "run.", &name);
		dot = strrchr(name, '.');
		if (!dot || (strcmp(dot, ".build") && strcmp(dot, ".test")))
			continue;
		v = xstrndup(name, dot - name);
		for (j = 0; j < out->nr && strcmp(out->v[j], v); j++)
			;
		for (i = 0; i < found.nr && strcmp(found.v[i], v); i++)
			;
		if (j == out->nr && i == found.nr && variant_name_ok(v))
			strvec_push(&found, v);
		free(v);
	}
	if (d)
		closedir(d);
	qsort(found.v, found.nr, sizeof(*found.v), strp_cmp);
	for (i = 0; i < found.nr; i++)
		strvec_push(out, found.v[i]);
	strvec_clear(&found);
	free(dir);
}

int results_collect_branch(struct branch_result *b, const char *workdir,
			   const struct strvec *variants)
{
	struct state st = STATE_INIT, apply = STATE_INIT;
	struct strvec all = STRVEC_INIT;
	size_t i;
	int any = 0, r;

	r = read_state(&st, workdir, "%s", "run.import");
	if (r)
		return r;
	if (state_get(&st, "status")) {
		check_from_run_state(&b->import, &st);
		dup_state(&b->base, &st, "base");
		any = 1;
	}
	state_release(&st);
	r = collect_apply(b, workdir);
	if (r < 0)
		return r;
	any |= r;
	r = read_state(&apply, workdir, "%s", "run.apply");
	if (r)
		return r;
	if (!variants)
		recorded_variants(&all, workdir, &apply);
	for (i = 0; i < (variants ? variants : &all)->nr; i++) {
		const char *v = (variants ? variants : &all)->v[i];
		struct cell_result tmp;
		char *key = xstrfmt("variant.%s.status", v);
		int applied = !strcmp(v, "kit") ? b->apply.status != CHECK_NOT_RUN :
			      state_get(&apply, key) != NULL;

		free(key);
		memset(&tmp, 0, sizeof(tmp));
		tmp.variant = xstrdup(v);
		r = collect_cell(&tmp, b, workdir, &apply);
		if (r < 0) {
			cell_result_release(&tmp);
			break;
		}
		/* Without --variant, a variant with nothing recorded is left out. */
		if (r > 0 || variants || (strcmp(v, "base") && applied)) {
			struct cell_result *c = branch_cell(b, v);

			cell_result_release(c);
			*c = tmp;
			any = 1;
		} else {
			cell_result_release(&tmp);
		}
	}
	state_release(&apply);
	strvec_clear(&all);
	return r < 0 ? r : any;
}

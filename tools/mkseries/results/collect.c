/* results/collect.c: read the state files of a branch's work directory into its results. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "results/collect.h"
#include "record/record.h"
#include "kit/variants.h"

/* The check a recorded status stands for; -1 for none. */
static int check_of(enum record_status s)
{
	switch (s) {
	case RS_OK:
		return CHECK_OK;
	case RS_CONFLICT:
		return CHECK_CONFLICT;
	case RS_FAILED:
	case RS_ERROR:
	case RS_UNKNOWN:
		return CHECK_FAILED;
	case RS_NONE:
	case RS_RUNNING:
		break;
	}
	return -1;
}

static void dup_field(char **out, const struct step_record *st, enum record_field f)
{
	const char *v = record_get(st, f);

	free(*out);
	*out = v && *v ? xstrdup(v) : NULL;
}

/* The record of an import or apply: status ok/failed/conflict/error and its evidence. */
static void check_from_run_state(struct check *c, const struct step_record *st)
{
	const char *ev = record_get(st, RF_EVIDENCE);
	int s = check_of(record_status(st));

	if (record_status(st) == RS_NONE)
		return;
	check_set(c, s < 0 ? CHECK_FAILED : s, ev && *ev ? ev : NULL);
}

static int collect_apply(struct branch_result *b, const char *workdir)
{
	struct step_record st = STEP_RECORD_INIT;
	size_t i, nr;
	int ret;

	ret = record_read(&st, workdir, STEP_APPLY, NULL);
	if (ret || !record_get(&st, RF_STATUS))
		goto cleanup;
	check_from_run_state(&b->apply, &st);
	dup_field(&b->tip, &st, RF_TIP);
	nr = (size_t)record_ll(&st, RF_SERIES);
	for (i = 0; i < nr && i < 10000; i++) {
		const char *id = record_item_getn(&st, RI_SERIES_ID, i), *v;
		struct series_result *s;
		int state;

		if (!id || !*id)
			continue;
		s = branch_add_series(b, id, record_item_getn(&st, RI_SERIES_TITLE, i));
		state = series_state_parse(record_item_getn(&st, RI_SERIES_STATE, i));
		s->state = state < 0 ? SERIES_PLANNED : state;
		v = record_item_getn(&st, RI_SERIES_DETAIL, i);
		s->detail = v && *v ? xstrdup(v) : NULL;
	}
	ret = 1;
cleanup:
	record_release(&st);
	return ret;
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
 * Whether the recorded test ts booted the image the last build (bs)
 * made: the image's hash it recorded is the hash of that image. A test
 * recorded by an earlier version without the hash is judged by time: it
 * must be newer.
 */
static int tested_this_image(const struct step_record *ts, const struct step_record *bs)
{
	const char *image = record_get(ts, RF_BZIMAGE), *built = record_get(bs, RF_BZIMAGE);
	const char *hash = record_get(ts, RF_BZIMAGE_HASH);
	git_oid oid;

	if (image && built && strcmp(image, built))
		return 0;
	if (hash && built) {
		if (git_odb_hashfile(&oid, built, GIT_OBJECT_BLOB) < 0)
			return 0;
		return !strcmp(hash, git_oid_tostr_s(&oid));
	}
	return record_ll(ts, RF_AT) >= record_ll(bs, RF_AT);
}

/* More boots than this in a state file are a corrupt file, not a measurement. */
#define MAX_BOOTS 1000

/* What a test's state ts says about how the cell booted; c->boots is 1..MAX_BOOTS after it. */
static void take_test_state(struct cell_result *c, const struct step_record *ts)
{
	const char *v;
	long long boots;

	dup_field(&c->accel, ts, RF_ACCEL);
	dup_field(&c->accel_note, ts, RF_ACCEL_NOTE);
	dup_field(&c->mode, ts, RF_MODE);
	dup_field(&c->console_log, ts, RF_CONSOLE);
	dup_field(&c->reused, ts, RF_REUSED);
	c->test_seconds = record_double(ts, RF_SECONDS);
	/* State written before `timing` was: TCG was always on host time then. */
	v = record_get(ts, RF_TIMING);
	c->timing = v && timing_parse(v) > 0 ? timing_parse(v) : timing_from_accel(c->accel);
	boots = record_get(ts, RF_BOOTS) ? record_ll(ts, RF_BOOTS) : 1;
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
				const struct step_record *ts)
{
	size_t i;

	for (i = 0; i < c->boots; i++) {
		const char *path = i ? record_item_getn(ts, RI_CONSOLE, i + 1) :
				   record_get(ts, RF_CONSOLE);
		struct strbuf why = STRBUF_INIT, reason = STRBUF_INIT;

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
static void take_expectations(struct cell_result *c, const struct step_record *ts)
{
	const char *p = record_get(ts, RF_EXPECT_FAIL);

	dup_field(&c->without, ts, RF_WITHOUT);
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

static int collect_test(struct cell_result *c, const char *workdir, const struct step_record *bs)
{
	struct step_record ts = STEP_RECORD_INIT;
	struct strbuf *consoles = NULL;
	enum record_status status;
	size_t i, nr_read = 0;
	int ret = 0, any = 0;

	if ((ret = record_read(&ts, workdir, STEP_TEST, c->variant)))
		goto cleanup;
	any = !!record_get(&ts, RF_STATUS);
	if (record_get(&ts, RF_REPEAT))
		c->repeat = (unsigned)record_ll(&ts, RF_REPEAT);
	status = record_status(&ts);
	if (status == RS_NONE)
		goto cleanup;
	if (status == RS_ERROR) {
		/* The test could not boot it at all: its record says why. */
		check_set(&c->boot, CHECK_FAILED, record_get(&ts, RF_FAILURE) ?
			  record_get(&ts, RF_FAILURE) : "the boot could not run");
		skip_after(c, &c->boot, "did not boot");
		goto cleanup;
	}
	if (!tested_this_image(&ts, bs)) {
		check_set(&c->boot, CHECK_NOT_RUN, "the last test booted an earlier build");
		goto cleanup;
	}
	take_test_state(c, &ts);
	c->tested_at = record_ll(&ts, RF_AT);
	consoles = xcalloc(c->boots, sizeof(*consoles));
	nr_read = read_console_logs(consoles, c, &ts);
	if (nr_read < c->boots)
		goto cleanup;
	take_expectations(c, &ts);
	judge_consoles(c, consoles, record_get(&ts, RF_FAILURE));
	/* vm.c judged the run: when it says failed and the console did not show why, say it. */
	if (record_status(&ts) == RS_FAILED && c->boot.status == CHECK_OK && c->tests.status == CHECK_OK &&
	    c->splats.status == CHECK_OK)
		check_set(&c->tests, CHECK_FAILED,
			  record_get(&ts, RF_FAILURE) ? record_get(&ts, RF_FAILURE) : "failed");
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
	record_release(&ts);
	return ret ? ret : any;
}

/* How run.apply says a declared variant applied: variant.<v>.status and .evidence. */
static void variant_apply_check(struct check *out, const struct step_record *apply, const char *variant)
{
	const char *ev = record_item_get(apply, RI_VARIANT_EVIDENCE, variant);
	enum record_status status = record_variant_status(apply, variant);
	int st = check_of(status);

	if (status != RS_NONE)
		check_set(out, st < 0 ? CHECK_FAILED : st, ev && *ev ? ev : NULL);
}

static int collect_cell(struct cell_result *c, const struct branch_result *b, const char *workdir,
			const struct step_record *apply)
{
	struct step_record bs = STEP_RECORD_INIT;
	enum record_status status;
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
	if ((ret = record_read(&bs, workdir, STEP_BUILD, c->variant)))
		goto cleanup;
	any = !!record_get(&bs, RF_STATUS);
	status = record_status(&bs);
	dup_field(&c->commit, &bs, RF_COMMIT);
	dup_field(&c->build_log, &bs, RF_LOG);
	c->build_seconds = record_double(&bs, RF_SECONDS);
	if (status == RS_NONE) {
		goto cleanup;
	} else if (status == RS_OK) {
		check_set(&c->build, CHECK_OK, NULL);
	} else if (status == RS_FAILED || status == RS_ERROR) {
		check_set(&c->build, CHECK_FAILED, record_get(&bs, RF_FAILURE) ?
			  record_get(&bs, RF_FAILURE) : "the build failed");
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
	record_release(&bs);
	return ret < 0 ? ret : any;
}

/*
 * Every variant with something recorded: base and kit, those run.apply
 * lists (in the kernel file's order), then any other the state directory
 * has a file of, by name.
 */
static void recorded_variants(struct strvec *out, const char *workdir, const struct step_record *apply)
{
	const char *list = record_get(apply, RF_VARIANTS);
	size_t i;

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
	record_variants(out, workdir);
}

int results_collect_branch(struct branch_result *b, const char *workdir,
			   const struct strvec *variants)
{
	struct step_record st = STEP_RECORD_INIT, apply = STEP_RECORD_INIT;
	struct strvec all = STRVEC_INIT;
	size_t i;
	int any = 0, r;

	r = record_read(&st, workdir, STEP_IMPORT, NULL);
	if (r)
		return r;
	if (record_get(&st, RF_STATUS)) {
		check_from_run_state(&b->import, &st);
		dup_field(&b->base, &st, RF_BASE);
		any = 1;
	}
	record_release(&st);
	r = collect_apply(b, workdir);
	if (r < 0)
		return r;
	any |= r;
	r = record_read(&apply, workdir, STEP_APPLY, NULL);
	if (r)
		return r;
	if (!variants)
		recorded_variants(&all, workdir, &apply);
	for (i = 0; i < (variants ? variants : &all)->nr; i++) {
		const char *v = (variants ? variants : &all)->v[i];
		struct cell_result tmp;
		int applied = !strcmp(v, "kit") ? b->apply.status != CHECK_NOT_RUN :
			      record_variant_status(&apply, v) != RS_NONE;

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
	record_release(&apply);
	strvec_clear(&all);
	return r < 0 ? r : any;
}

/* run/estimate.c: how long a run will take, from what each step took the last time. */
#include <stdlib.h>
#include <string.h>

#include "run/estimate.h"
#include "kit/variants.h"
#include "lib/progress.h"
#include "run/stale.h"
#include "tree/workdir.h"

static struct estimate_step *add_step(struct run_estimate *e, const struct kernel_branch *b,
				      const char *variant, enum run_step step)
{
	struct estimate_step *s;

	ALLOC_GROW(e->steps, e->nr + 1, e->alloc);
	s = &e->steps[e->nr++];
	memset(s, 0, sizeof(*s));
	s->branch = b->name;
	s->variant = variant ? xstrdup(variant) : NULL;
	s->step = step;
	return s;
}

/* Whether a step recorded as r must work even when its key still stands. */
static int not_done(const struct step_record *r)
{
	enum record_status st = record_status(r);

	return st != RS_OK && st != RS_FAILED && st != RS_CONFLICT;
}

/* The seconds r recorded, when it did the work itself (not base's, reused). */
static void time_by(struct estimate_step *s, const struct step_record *r, double readme)
{
	if (record_get(r, RF_SECONDS) && !record_get(r, RF_REUSED)) {
		s->seconds = record_double(r, RF_SECONDS);
		s->recorded = 1;
	} else if (record_get(r, RF_REUSED) && !not_done(r)) {
		/* base's build and test stand for it again: nothing of its own */
		s->recorded = 1;
	} else {
		s->seconds = readme;
	}
}

/* The build and test of cell `variant`, whose keys' changes are `stale`. */
static void add_cell(struct run_estimate *e, const struct kernel_branch *b, const char *variant,
		     const char *workdir, unsigned stale, int apply_todo, const struct run_opts *args)
{
	struct step_record br = STEP_RECORD_INIT, tr = STEP_RECORD_INIT;
	struct estimate_step *s;
	int base = !strcmp(variant, "base");
	unsigned boots = args->boots ? args->boots : b->boot.boots;

	if (workdir) {
		record_read(&br, workdir, STEP_BUILD, variant);
		record_read(&tr, workdir, STEP_TEST, variant);
	}
	s = add_step(e, b, variant, STEP_BUILD);
	s->todo = run_step_forced(args->force, STEP_BUILD, variant) || not_done(&br) ||
		  (stale & (1u << STEP_BUILD)) || (!base && apply_todo);
	time_by(s, &br, base ? ESTIMATE_BASE_BUILD : ESTIMATE_CELL_BUILD);
	/* A build that failed, and stays failed, leaves nothing to boot. */
	if (!s->todo && record_status(&br) == RS_FAILED)
		goto cleanup;
	s = add_step(e, b, variant, STEP_TEST);
	s->todo = e->steps[e->nr - 2].todo || run_step_forced(args->force, STEP_TEST, variant) ||
		  not_done(&tr) || record_ll(&tr, RF_STARTED) != 1 || (stale & (1u << STEP_TEST));
	time_by(s, &tr, ESTIMATE_BOOT * (boots ? boots : 1));
cleanup:
	record_release(&br);
	record_release(&tr);
}

/* The steps of branch b: apply when a cell but base is run, then each cell's. */
static void add_branch(struct run_estimate *e, const struct kit *kit, const struct kernel_branch *b,
		       const struct run_opts *args)
{
	struct strvec variants = STRVEC_INIT;
	struct step_record ar = STEP_RECORD_INIT;
	char *workdir = branch_workdir(kit, args->workdir, b);
	unsigned *stale, apply = 0;
	int apply_todo = 0;
	size_t i;

	variants_of_branch(&variants, b, &args->given);
	stale = xcalloc(variants.nr + 1, sizeof(*stale));
	if (workdir)
		apply = branch_stale_steps(stale, kit, b, workdir, &variants);
	e->cells += variants.nr;
	for (i = 0; i < variants.nr; i++)
		if (strcmp(variants.v[i], "base")) {
			struct estimate_step *s = add_step(e, b, NULL, STEP_APPLY);

			if (workdir)
				record_read(&ar, workdir, STEP_APPLY, NULL);
			s->todo = apply_todo = run_step_forced(args->force, STEP_APPLY, NULL) || not_done(&ar) ||
					       apply;
			/* README has no figure: it takes seconds, and is not counted until recorded. */
			time_by(s, &ar, 0);
			break;
		}
	for (i = 0; i < variants.nr; i++)
		add_cell(e, b, variants.v[i], workdir, stale[i], apply_todo, args);
	record_release(&ar);
	strvec_clear(&variants);
	free(stale);
	free(workdir);
}

void run_estimate_make(struct run_estimate *e, const struct kit *kit,
		       struct kernel_branch *const *sel, size_t nr, const struct run_opts *args)
{
	size_t i, mark = error_mark();

	memset(e, 0, sizeof(*e));
	e->start = mono_seconds();
	e->branches = nr;
	for (i = 0; i < nr; i++)
		add_branch(e, kit, sel[i], args);
	/* What could not be read here, the steps will say themselves. */
	error_drop(mark);
	for (i = 0; i < e->nr; i++) {
		const struct estimate_step *s = &e->steps[i];

		if (!s->todo) {
			e->uptodate++;
			continue;
		}
		e->todo++;
		e->left += s->seconds;
		if (s->recorded)
			e->by_record++;
		else if (s->seconds)
			e->by_readme++;
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void run_estimate_say(struct strbuf *out, const struct run_estimate *e)
{
	strbuf_addf(out, "run: %zu %s, %zu %s (%zu %s to do, %zu up to date)", e->branches,
		    plural(e->branches, "branch", "branches"), e->cells,
		    plural(e->cells, "cell", "cells"), e->todo, plural(e->todo, "step", "steps"),
		    e->uptodate);
	if (!e->by_record && !e->by_readme)
		;
	else if (!e->by_readme)
		strbuf_addf(out, "; about %s left by the last run's times", format_rough(e->left));
	else if (!e->by_record)
		strbuf_addf(out, "; about %s left (first run: README's figures)",
			    format_rough(e->left));
	else
		strbuf_addf(out, "; about %s left (%zu %s by the last run's times, %zu by README's figures)",
			    format_rough(e->left), e->by_record, plural(e->by_record, "step", "steps"),
			    e->by_readme);
	strbuf_addch(out, '\n');
}

static int is_step(const struct estimate_step *s, const char *branch, const char *variant,
		   enum run_step step)
{
	if (strcmp(s->branch, branch))
		return 0;
	if (step == STEP_IMPORT)
		return 1;
	return s->step == step && (variant ? s->variant && !strcmp(s->variant, variant) : !s->variant);
}

void run_estimate_at(struct run_estimate *e, const char *branch, const char *variant,
		     enum run_step step)
{
	double now = 0, after = 0;
	size_t i, j;

	if (!e)
		return;
	/* The run goes forward: look from where it was, then from the start. */
	for (i = e->at; i < e->nr && !is_step(&e->steps[i], branch, variant, step); i++)
		;
	for (j = 0; i == e->nr && j < e->at; j++)
		if (is_step(&e->steps[j], branch, variant, step))
			i = j;
	if (i == e->nr) {
		progress_clock(e->start, 0, 0);
		return;
	}
	/* At a branch's start nothing works yet: its first step is still to come. */
	if (step == STEP_IMPORT)
		j = i;
	else
		now = e->steps[i].seconds, j = i + 1;
	e->at = j;
	for (; j < e->nr; j++)
		if (e->steps[j].todo)
			after += e->steps[j].seconds;
	progress_clock(e->start, now, after);
}

void run_estimate_release(struct run_estimate *e)
{
	size_t i;

	progress_clock(0, 0, 0);
	for (i = 0; i < e->nr; i++)
		free(e->steps[i].variant);
	free(e->steps);
	memset(e, 0, sizeof(*e));
}

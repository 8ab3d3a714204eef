/* results/merge.c: the results of several reports merged into one run, each cell once. */
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

static void move_str(char **to, char **from)
{
	if (!*from)
		return;
	free(*to);
	*to = *from;
	*from = NULL;
}

static void move_check(struct check *to, struct check *from)
{
	free(to->evidence);
	*to = *from;
	from->evidence = NULL;
	from->status = CHECK_NOT_RUN;
}

static void merge_branch(struct branch_result *into, struct branch_result *from)
{
	int from_applied = from->apply.status != CHECK_NOT_RUN;
	int into_applied = into->apply.status != CHECK_NOT_RUN;
	size_t i;

	if (from->import.status != CHECK_NOT_RUN) {
		move_check(&into->import, &from->import);
		move_str(&into->base, &from->base);
	}
	if (from_applied) {
		move_check(&into->apply, &from->apply);
		move_str(&into->tip, &from->tip);
	}
	/* The series matrix goes with the apply it describes; a plan-only one fills a gap. */
	if (from->nr_series && (from_applied || !into_applied || !into->nr_series)) {
		for (i = 0; i < into->nr_series; i++) {
			free(into->series[i].id);
			free(into->series[i].title);
			free(into->series[i].detail);
		}
		free(into->series);
		into->series = from->series;
		into->nr_series = from->nr_series;
		into->alloc_series = from->alloc_series;
		from->series = NULL;
		from->nr_series = from->alloc_series = 0;
	}
	/* The kit's claims and threshold are the same in every job: the later report's stand. */
	if (from->threshold_pct > 0)
		into->threshold_pct = from->threshold_pct;
	if (from->nr_costs) {
		costs_free(into->costs, into->nr_costs);
		into->costs = from->costs;
		into->nr_costs = from->nr_costs;
		into->alloc_costs = from->alloc_costs;
		from->costs = NULL;
		from->nr_costs = from->alloc_costs = 0;
	}
	if (from->nr_claims) {
		claims_release(into->claims, into->nr_claims);
		into->claims = from->claims;
		into->nr_claims = from->nr_claims;
		into->alloc_claims = from->alloc_claims;
		from->claims = NULL;
		from->nr_claims = from->alloc_claims = 0;
	}
	for (i = 0; i < from->nr_cells; i++) {
		struct cell_result *c;

		/* Keeping either one would drop a cell unseen: results_load_reports() refuses it. */
		if (branch_find_cell(into, from->cells[i].variant))
			BUG("cell '%s %s' merged twice", into->name, from->cells[i].variant);
		c = branch_cell(into, from->cells[i].variant);
		cell_result_release(c);
		*c = from->cells[i];
		memset(&from->cells[i], 0, sizeof(from->cells[i]));
	}
	/* A kit cell recorded before apply was known: its apply check follows the branch. */
	for (i = 0; i < into->nr_cells; i++) {
		struct cell_result *c = &into->cells[i];

		if (!strcmp(c->variant, "kit") && c->apply.status == CHECK_NOT_RUN &&
		    into->apply.status != CHECK_NOT_RUN)
			check_set(&c->apply, into->apply.status, into->apply.evidence);
	}
}

void results_merge(struct run_results *into, struct run_results *from)
{
	size_t i;

	if (!into->generator)
		move_str(&into->generator, &from->generator);
	if (!into->tester)
		move_str(&into->tester, &from->tester);
	move_str(&into->generated, &from->generated);
	for (i = 0; i < from->nr_branches; i++) {
		struct branch_result *b = results_branch(into, from->branches[i].name);

		merge_branch(b, &from->branches[i]);
	}
	results_release(from);
}

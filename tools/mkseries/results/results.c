/* results/results.c: the result model of a run: branches, cells, checks, series, metrics and claims, built and released. */
#include <stdlib.h>
#include <string.h>

#include "kit/variants.h"
#include "results/results.h"

static void check_release(struct check *c)
{
	free(c->evidence);
	c->evidence = NULL;
	c->status = CHECK_NOT_RUN;
}

void results_init(struct run_results *r)
{
	memset(r, 0, sizeof(*r));
}

void cell_result_release(struct cell_result *c)
{
	size_t i;

	free(c->variant);
	free(c->commit);
	free(c->without);
	for (i = 0; i < c->nr_expect_fail; i++)
		free(c->expect_fail[i]);
	free(c->expect_fail);
	free(c->expected);
	check_release(&c->apply);
	check_release(&c->build);
	check_release(&c->boot);
	check_release(&c->tests);
	check_release(&c->splats);
	free(c->accel);
	free(c->accel_note);
	free(c->mode);
	free(c->build_log);
	free(c->console_log);
	strvec_clear(&c->console_logs);
	free(c->reused);
	free(c->stale);
	free(c->clocksource);
	for (i = 0; i < c->nr_metric_skips; i++) {
		free(c->metric_skips[i].case_name);
		free(c->metric_skips[i].name);
		free(c->metric_skips[i].reason);
	}
	free(c->metric_skips);
	for (i = 0; i < c->nr_cases; i++) {
		free(c->cases[i].name);
		free(c->cases[i].evidence);
	}
	free(c->cases);
	for (i = 0; i < c->nr_metrics; i++) {
		free(c->metrics[i].case_name);
		free(c->metrics[i].name);
		free(c->metrics[i].unit);
		free(c->metrics[i].samples);
	}
	free(c->metrics);
	memset(c, 0, sizeof(*c));
}

void claims_release(struct claim *cl, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(cl[i].owner);
		free(cl[i].c.case_name);
		free(cl[i].c.metric);
		free(cl[i].c.than);
		free(cl[i].c.why);
	}
	free(cl);
}

void branch_add_cost(struct branch_result *b, const struct kit_cost *c)
{
	struct kit_cost *nc;

	ALLOC_GROW(b->costs, b->nr_costs + 1, b->alloc_costs);
	nc = &b->costs[b->nr_costs++];
	memset(nc, 0, sizeof(*nc));
	nc->case_name = xstrdup(c->case_name ? c->case_name : "?");
	nc->metric = xstrdup(c->metric ? c->metric : "?");
	nc->worse_pct = c->worse_pct;
	nc->why = c->why ? xstrdup(c->why) : NULL;
}

void branch_result_release(struct branch_result *b)
{
	size_t i;

	free(b->name);
	free(b->base);
	free(b->tip);
	check_release(&b->import);
	check_release(&b->apply);
	for (i = 0; i < b->nr_series; i++) {
		free(b->series[i].id);
		free(b->series[i].title);
		free(b->series[i].detail);
	}
	free(b->series);
	for (i = 0; i < b->nr_cells; i++)
		cell_result_release(&b->cells[i]);
	free(b->cells);
	claims_release(b->claims, b->nr_claims);
	costs_free(b->costs, b->nr_costs);
	memset(b, 0, sizeof(*b));
}

void results_release(struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		branch_result_release(&r->branches[i]);
	free(r->branches);
	free(r->generator);
	free(r->generated);
	free(r->tester);
	memset(r, 0, sizeof(*r));
}

const struct branch_result *results_find_branch(const struct run_results *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (!strcmp(r->branches[i].name, name))
			return &r->branches[i];
	return NULL;
}

struct branch_result *results_branch(struct run_results *r, const char *name)
{
	struct branch_result *b = (struct branch_result *)results_find_branch(r, name);

	if (b)
		return b;
	ALLOC_GROW(r->branches, r->nr_branches + 1, r->alloc_branches);
	b = &r->branches[r->nr_branches++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	return b;
}

const struct cell_result *branch_find_cell(const struct branch_result *b, const char *variant)
{
	size_t i;

	for (i = 0; i < b->nr_cells; i++)
		if (!strcmp(b->cells[i].variant, variant))
			return &b->cells[i];
	return NULL;
}

/* Variants in their usual order: build_variants[] first, the declared ones after. */
static int variant_rank(const char *v)
{
	int i;

	for (i = 0; build_variants[i]; i++)
		if (!strcmp(build_variants[i], v))
			return i;
	return i;
}

struct cell_result *branch_cell(struct branch_result *b, const char *variant)
{
	struct cell_result *c = (struct cell_result *)branch_find_cell(b, variant);
	size_t at;

	if (c)
		return c;
	ALLOC_GROW(b->cells, b->nr_cells + 1, b->alloc_cells);
	/* Declared variants keep the order they come in (the kernel file's). */
	for (at = b->nr_cells; at > 0; at--)
		if (variant_rank(b->cells[at - 1].variant) <= variant_rank(variant))
			break;
	memmove(&b->cells[at + 1], &b->cells[at], (b->nr_cells - at) * sizeof(*b->cells));
	b->nr_cells++;
	c = &b->cells[at];
	memset(c, 0, sizeof(*c));
	c->variant = xstrdup(variant);
	return c;
}

struct series_result *branch_add_series(struct branch_result *b, const char *id, const char *title)
{
	struct series_result *s;

	ALLOC_GROW(b->series, b->nr_series + 1, b->alloc_series);
	s = &b->series[b->nr_series++];
	memset(s, 0, sizeof(*s));
	s->id = xstrdup(id);
	s->title = title ? xstrdup(title) : NULL;
	return s;
}

struct metric_result *cell_add_metric(struct cell_result *c, const char *case_name,
				      const char *name, const char *unit,
				      enum ktap_direction dir, unsigned n, double mean,
				      double stddev, const double *samples, size_t nr_samples)
{
	struct metric_result *m;

	ALLOC_GROW(c->metrics, c->nr_metrics + 1, c->alloc_metrics);
	m = &c->metrics[c->nr_metrics++];
	memset(m, 0, sizeof(*m));
	m->case_name = xstrdup(case_name);
	m->name = xstrdup(name);
	m->unit = xstrdup(unit ? unit : "");
	m->direction = dir;
	m->n = n;
	m->mean = mean;
	m->stddev = stddev;
	if (samples && nr_samples) {
		m->samples = xmalloc(nr_samples * sizeof(*m->samples));
		memcpy(m->samples, samples, nr_samples * sizeof(*m->samples));
		m->nr_samples = nr_samples;
	}
	return m;
}

struct case_result *cell_add_case(struct cell_result *c, const char *name,
				  enum ktap_status status, const char *evidence)
{
	struct case_result *k;
	size_t i;

	ALLOC_GROW(c->cases, c->nr_cases + 1, c->alloc_cases);
	k = &c->cases[c->nr_cases++];
	k->name = xstrdup(name);
	k->status = status;
	k->evidence = evidence ? xstrdup(evidence) : NULL;
	k->expected_fail = 0;
	for (i = 0; i < c->nr_expect_fail; i++)
		if (!strcmp(c->expect_fail[i], name))
			k->expected_fail = 1;
	return k;
}

void cell_expect_fail(struct cell_result *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nr_expect_fail; i++)
		if (!strcmp(c->expect_fail[i], name))
			return;
	c->expect_fail = xrealloc(c->expect_fail, (c->nr_expect_fail + 1) * sizeof(*c->expect_fail));
	c->expect_fail[c->nr_expect_fail++] = xstrdup(name);
	for (i = 0; i < c->nr_cases; i++)
		if (!strcmp(c->cases[i].name, name))
			c->cases[i].expected_fail = 1;
}

void cell_add_metric_skip(struct cell_result *c, const char *case_name, const char *name,
			  const char *reason)
{
	struct metric_skip *ms;

	if (cell_find_metric_skip(c, case_name, name))
		return;
	ALLOC_GROW(c->metric_skips, c->nr_metric_skips + 1, c->alloc_metric_skips);
	ms = &c->metric_skips[c->nr_metric_skips++];
	ms->case_name = xstrdup(case_name);
	ms->name = xstrdup(name);
	ms->reason = xstrdup(reason ? reason : "no reason given");
}

const struct metric_skip *cell_find_metric_skip(const struct cell_result *c,
						const char *case_name, const char *name)
{
	size_t i;

	for (i = 0; c && i < c->nr_metric_skips; i++)
		if (!strcmp(c->metric_skips[i].case_name, case_name) &&
		    !strcmp(c->metric_skips[i].name, name))
			return &c->metric_skips[i];
	return NULL;
}

int cell_is_base_tree(const struct branch_result *b, const struct cell_result *c)
{
	const struct cell_result *base = branch_find_cell(b, "base");

	if (!c || !strcmp(c->variant, "base"))
		return 0;
	if (c->reused && !strcmp(c->reused, "base"))
		return 1;
	return base && base->commit && c->commit && !strcmp(base->commit, c->commit);
}

struct claim *branch_add_claim(struct branch_result *b, enum claim_origin origin,
			       const char *owner, const struct kit_claim *c)
{
	struct claim *cl;

	ALLOC_GROW(b->claims, b->nr_claims + 1, b->alloc_claims);
	cl = &b->claims[b->nr_claims++];
	memset(cl, 0, sizeof(*cl));
	cl->origin = origin;
	cl->owner = xstrdup(owner);
	cl->c.case_name = c->case_name ? xstrdup(c->case_name) : NULL;
	cl->c.metric = c->metric ? xstrdup(c->metric) : NULL;
	cl->c.kind = c->kind;
	cl->c.value = c->value;
	cl->c.than = c->than ? xstrdup(c->than) : NULL;
	cl->c.why = c->why ? xstrdup(c->why) : NULL;
	cl->c.line = c->line;
	cl->c.than_line = c->than_line;
	return cl;
}

void results_use_kit(struct run_results *r, const struct kit *kit)
{
	size_t i, j, k;

	for (i = 0; i < r->nr_branches; i++) {
		struct branch_result *b = &r->branches[i];
		const struct kernel_branch *kb = kit_find_branch(kit, b->name);

		if (!kb)
			continue;
		b->threshold_pct = kit_threshold_pct(kit, kb);
		claims_release(b->claims, b->nr_claims);
		b->claims = NULL;
		b->nr_claims = b->alloc_claims = 0;
		for (j = 0; j < kit->nr_series; j++)
			for (k = 0; k < kit->series[j].nr_claims; k++)
				branch_add_claim(b, CLAIM_OF_SERIES, kit->series[j].id,
						 &kit->series[j].claims[k]);
		for (k = 0; k < kb->nr_claims; k++)
			branch_add_claim(b, CLAIM_OF_BRANCH, kb->name, &kb->claims[k]);
		costs_free(b->costs, b->nr_costs);
		b->costs = NULL;
		b->nr_costs = b->alloc_costs = 0;
		for (k = 0; k < kb->nr_costs; k++)
			branch_add_cost(b, &kb->costs[k]);
		for (j = 0; j < kb->nr_variants; j++)
			for (k = 0; k < kb->variants[j].nr_claims; k++)
				branch_add_claim(b, CLAIM_OF_VARIANT, kb->variants[j].name,
						 &kb->variants[j].claims[k]);
	}
}

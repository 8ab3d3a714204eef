/* results/results.c: the results of a run: cells, checks, metrics and claims, read back from JSON reports and merged. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "vm/console.h"
#include "lib/json.h"
#include "apply/plan.h"
#include "results/results.h"
#include "kit/variants.h"

static const char *const check_names[] = {
	[CHECK_NOT_RUN] = "not-run",
	[CHECK_OK] = "ok",
	[CHECK_FAILED] = "failed",
	[CHECK_SKIPPED] = "skipped",
	[CHECK_CONFLICT] = "conflict",
	[CHECK_NA] = "n/a",
};

static const char *const series_names[] = {
	[SERIES_PLANNED] = "planned",
	[SERIES_APPLIED] = "applied",
	[SERIES_PRESENT] = "present",
	[SERIES_SKIPPED] = "skipped",
	[SERIES_CONFLICT] = "conflict",
	[SERIES_BLOCKED] = "blocked",
	[SERIES_PARTIAL] = "partial",
};

static const char *const case_names[] = {
	[KTAP_PASS] = "pass",
	[KTAP_FAIL] = "fail",
	[KTAP_SKIP] = "skip",
	[KTAP_TODO] = "todo",
};

static const char *const timing_names[] = {
	[TIMING_UNKNOWN] = "unknown",
	[TIMING_HARDWARE] = "hardware",
	[TIMING_INSTRUCTIONS] = "instructions",
	[TIMING_EMULATED] = "emulated",
	[TIMING_MODELLED] = "modelled",
};

static const char *const origin_names[] = {
	[CLAIM_OF_SERIES] = "series",
	[CLAIM_OF_BRANCH] = "branch",
	[CLAIM_OF_VARIANT] = "variant",
};

static int name_index(const char *const *names, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; name && i < nr; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *check_status_name(enum check_status s)
{
	return (size_t)s < ARRAY_SIZE(check_names) ? check_names[s] : "?";
}

/* The status named `name` ("ok", "not-run" ...); -1 when unknown. */
static int check_status_parse(const char *name)
{
	return name_index(check_names, ARRAY_SIZE(check_names), name);
}

const char *series_state_name(enum series_state s)
{
	return (size_t)s < ARRAY_SIZE(series_names) ? series_names[s] : "?";
}

int series_state_parse(const char *name)
{
	return name_index(series_names, ARRAY_SIZE(series_names), name);
}

const char *timing_name(enum timing_kind t)
{
	return (size_t)t < ARRAY_SIZE(timing_names) ? timing_names[t] : "?";
}

int timing_parse(const char *name)
{
	int t = name_index(timing_names, ARRAY_SIZE(timing_names), name);

	return t == TIMING_UNKNOWN ? -1 : t;
}

enum timing_kind timing_from_accel(const char *accel)
{
	if (!accel)
		return TIMING_UNKNOWN;
	return !strcmp(accel, "kvm") ? TIMING_HARDWARE : TIMING_EMULATED;
}

const char *timing_words(enum timing_kind t, int terse)
{
	switch (t) {
	case TIMING_HARDWARE:
		return terse ? "hardware time" : "hardware time (KVM)";
	case TIMING_INSTRUCTIONS:
		return terse ? "instruction-paced time" :
		       "instruction-paced time (TCG icount: instructions at a 1 GHz virtual clock, "
		       "not hardware time: no cache or TLB-miss costs)";
	case TIMING_EMULATED:
		return terse ? "emulated time" :
		       "emulated time (TCG on host time: the emulator's speed, noise; never fails a run)";
	case TIMING_MODELLED:
		return terse ? "instruction-paced time and modelled cycles" :
		       "instruction-paced time and modelled cycles (TCG icount with the tcg-cache "
		       "plugin: instructions plus the modelled cache and TLB misses of one Raptor Lake "
		       "core, deterministic; no prefetchers, no out-of-order overlap, one vCPU)";
	case TIMING_UNKNOWN:
		break;
	}
	return "unknown time";
}

enum timing_kind cell_timing(const struct cell_result *c)
{
	if (!c)
		return TIMING_UNKNOWN;
	return c->timing ? c->timing : timing_from_accel(c->accel);
}

int timing_counts(enum timing_kind t)
{
	return t == TIMING_HARDWARE || t == TIMING_INSTRUCTIONS || t == TIMING_MODELLED;
}

const char *claim_origin_name(enum claim_origin o)
{
	return (size_t)o < ARRAY_SIZE(origin_names) ? origin_names[o] : "?";
}

/* The origin named `name`; -1 when unknown. */
static int claim_origin_parse(const char *name)
{
	return name_index(origin_names, ARRAY_SIZE(origin_names), name);
}

const char *claim_owner_label(const struct claim *cl)
{
	static struct strbuf bufs[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	static unsigned turn;
	struct strbuf *sb = &bufs[turn++ % ARRAY_SIZE(bufs)];

	strbuf_reset(sb);
	strbuf_addf(sb, "%s %s", claim_origin_name(cl->origin), cl->owner ? cl->owner : "?");
	return sb->buf;
}

void check_set(struct check *c, enum check_status status, const char *evidence)
{
	char *copy = evidence ? xstrdup(evidence) : NULL;

	free(c->evidence);
	c->status = status;
	c->evidence = copy;
}

static void check_release(struct check *c)
{
	free(c->evidence);
	c->evidence = NULL;
	c->status = CHECK_NOT_RUN;
}

void metric_value_format(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (a >= 1e7)
		snprintf(buf, len, "%.3e", v);
	else if (a >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1 || a == 0)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

const char *metric_label(const struct metric_result *m)
{
	static struct strbuf bufs[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	static unsigned turn;
	struct strbuf *sb = &bufs[turn++ % ARRAY_SIZE(bufs)];

	strbuf_reset(sb);
	strbuf_addf(sb, "%s.%s", m->case_name, m->name);
	return sb->buf;
}

/* ------------------------------------------------------------------ */
/* Building and releasing */

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

static void claims_release(struct claim *cl, size_t nr)
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

/* ------------------------------------------------------------------ */
/* The series of a branch, from its plan and the apply outcome */

struct series_count {
	size_t apply, squash, present, skip;	/* from the plan */
	size_t commits, squashed, found;	/* from the apply */
};

static void describe_counts(struct strbuf *sb, const struct series_count *n)
{
	const char *sep = "";

	if (n->commits) {
		strbuf_addf(sb, "%zu commit%s", n->commits, n->commits > 1 ? "s" : "");
		sep = ", ";
	}
	if (n->squashed) {
		strbuf_addf(sb, "%s%zu squashed", sep, n->squashed);
		sep = ", ";
	}
	if (n->found) {
		strbuf_addf(sb, "%s%zu already in the tree", sep, n->found);
		sep = ", ";
	}
	if (n->present) {
		strbuf_addf(sb, "%s%zu present", sep, n->present);
		sep = ", ";
	}
	if (n->skip)
		strbuf_addf(sb, "%s%zu skipped", sep, n->skip);
}

void branch_series_from_plan(struct branch_result *b, const struct plan *plan,
			     const enum applied_state *applied, size_t failed)
{
	size_t i, j;

	for (i = 0; i < plan->nr; i++) {
		const struct kit_series *ks = plan->items[i].patch->series;
		const struct decision *d = series_decision(ks, branch_decisions(plan->branch));
		struct series_count n;
		struct series_result *s;
		struct strbuf sb = STRBUF_INIT;
		int seen = 0, conflict = 0;

		for (j = 0; j < i && !seen; j++)
			seen = plan->items[j].patch->series == ks;
		if (seen)
			continue;
		memset(&n, 0, sizeof(n));
		for (j = i; j < plan->nr; j++) {
			const struct plan_item *it = &plan->items[j];

			if (it->patch->series != ks)
				continue;
			if (j == failed)
				conflict = 1;
			switch (it->action) {
			case PLAN_APPLY:
			case PLAN_PARTIAL:	/* apply refuses it: counted where a conflict is */
				n.apply++;
				break;
			case PLAN_SQUASH:
				n.squash++;
				break;
			case PLAN_PRESENT:
				n.present++;
				break;
			case PLAN_SKIP:
				n.skip++;
				break;
			}
			if (applied && failed == (size_t)-1) {
				if (applied[j] == APPLIED_COMMIT)
					n.commits++;
				else if (applied[j] == APPLIED_SQUASHED)
					n.squashed++;
				else if (applied[j] == APPLIED_FOUND)
					n.found++;
			}
		}
		s = branch_add_series(b, ks->id, ks->title);
		if (conflict) {
			s->state = SERIES_CONFLICT;
			strbuf_addf(&sb, "%s does not apply", kit_patch_label(plan->items[failed].patch));
		} else if (!n.apply && !n.squash && n.present && n.skip) {
			s->state = SERIES_PARTIAL;
			strbuf_addf(&sb, "%zu present, %zu skipped", n.present, n.skip);
			if (d && d->reason && (d->kind == DECISION_SKIP || d->kind == DECISION_PRESENT))
				strbuf_addf(&sb, ": %s", d->reason);
		} else if (!n.apply && !n.squash) {
			s->state = n.present ? SERIES_PRESENT : SERIES_SKIPPED;
			if (d && d->reason && (d->kind == DECISION_SKIP || d->kind == DECISION_PRESENT))
				strbuf_addstr(&sb, d->reason);
			else
				describe_counts(&sb, &n);
		} else if (failed != (size_t)-1) {
			s->state = SERIES_BLOCKED;
			strbuf_addf(&sb, "not applied: %s does not apply",
				    kit_patch_label(plan->items[failed].patch));
		} else if (!applied) {
			s->state = SERIES_PLANNED;
			strbuf_addf(&sb, "%zu to apply", n.apply);
			if (n.squash)
				strbuf_addf(&sb, ", %zu to squash", n.squash);
		} else {
			s->state = n.commits || n.squashed ? SERIES_APPLIED : SERIES_PRESENT;
			describe_counts(&sb, &n);
		}
		s->detail = sb.len ? strbuf_detach(&sb, NULL) : NULL;
		strbuf_release(&sb);
	}
}

/* ------------------------------------------------------------------ */
/* Reading a console */

/* "boot 2: " before what a later boot showed, when there were several. */
static void add_boot(struct strbuf *sb, unsigned boot, size_t nr)
{
	if (nr > 1)
		strbuf_addf(sb, "boot %u of %zu: ", boot, nr);
}

void cell_read_console(struct cell_result *c, const char *console, size_t len,
		       const char *failure)
{
	cell_read_consoles(c, &console, &len, 1, failure);
}

/* Copy into c the cases, metrics and counts of the judged consoles v. */
static void cell_take_ktap(struct cell_result *c, const struct console_verdict *v)
{
	const struct ktap_result *k = &v->k;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	free(c->clocksource);
	c->clocksource = k->clocksource ? xstrdup(k->clocksource) : NULL;
	c->clock_resolution_ns = k->clock_resolution_ns;
	for (i = 0; i < k->nr_metric_skips; i++)
		cell_add_metric_skip(c, k->metric_skips[i].case_name, k->metric_skips[i].name,
				     k->metric_skips[i].reason);
	for (i = 0; i < k->nr_cases; i++) {
		const struct ktap_case *kc = &k->cases[i];
		const char *ev = NULL;

		if (kc->status == KTAP_FAIL && kc->diag.nr)
			ev = kc->diag.v[kc->diag.nr - 1];
		else if (kc->status == KTAP_SKIP || kc->status == KTAP_TODO)
			ev = kc->reason;
		cell_add_case(c, kc->name, kc->status, ev);
	}
	for (i = 0; i < k->nr_metrics; i++) {
		const struct ktap_metric *m = &k->metrics[i];

		/* A number its clock could not resolve in one boot is not a number. */
		if (cell_find_metric_skip(c, m->case_name, m->name))
			continue;
		cell_add_metric(c, m->case_name, m->name, m->unit, m->direction, m->n, m->value,
				m->stddev, m->samples, m->nr_samples);
	}
	c->nr_pass = k->nr_pass + k->nr_todo;
	c->nr_fail = v->e.nr_fail;
	c->nr_xfail = v->e.xfail.nr;
	c->nr_skip = k->nr_skip;
	expectations_describe(&sb, &v->e, c->without);
	free(c->expected);
	c->expected = sb.len ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
}

/* Set c's tests check from the rule v's judge applied to nr booted consoles. */
static void cell_judge_tests(struct cell_result *c, const struct console_verdict *v, size_t nr,
			     const char *failure)
{
	const struct ktap_result *k = &v->k;
	struct strbuf sb = STRBUF_INIT;

	switch (v->tests_rule) {
	case CONSOLE_OK:
		check_set(&c->tests, CHECK_OK, c->expected);
		return;
	case CONSOLE_CASE_FAILED: {
		const struct ktap_case *kc = v->e.first_fail;

		add_boot(&sb, v->boot_of[kc - k->cases], nr);
		strbuf_addf(&sb, "not ok %u %s", kc->number, kc->name);
		if (kc->diag.nr)
			strbuf_addf(&sb, ": %s", kc->diag.v[kc->diag.nr - 1]);
		break;
	}
	case CONSOLE_CUT_SHORT:
		/* Nothing failed, so the run was cut short: say how. */
		add_boot(&sb, v->cut_short, nr);
		strbuf_addstr(&sb, failure ? failure : v->problems.v[0]);
		break;
	case CONSOLE_MISSED:
		expectations_missed(&sb, &v->e, c->without);
		break;
	default:
		BUG("console_judge() gave tests rule %d without a machine to check", v->tests_rule);
	}
	check_set(&c->tests, CHECK_FAILED, sb.buf);
	strbuf_release(&sb);
}

void cell_read_consoles(struct cell_result *c, const char *const *consoles, const size_t *lens,
			size_t nr, const char *failure)
{
	struct console_rules rules = {
		.expect_fail = c->expect_fail,
		.nr_expect_fail = c->nr_expect_fail,
		.without = c->without,
	};
	struct console_verdict v;
	struct strbuf sb = STRBUF_INIT;

	console_judge(&v, consoles, lens, nr, &rules);
	if (v.splat_boot) {
		add_boot(&sb, v.splat_boot, nr);
		strbuf_addf(&sb, "console line %zu: %s", v.splat.line, v.splat.text ? v.splat.text : "");
		check_set(&c->splats, CHECK_FAILED, sb.buf);
	} else {
		check_set(&c->splats, CHECK_OK, NULL);
	}
	if (!c->boots)
		c->boots = (unsigned)nr;

	if (v.not_started) {
		strbuf_reset(&sb);
		add_boot(&sb, v.not_started, nr);
		strbuf_addstr(&sb, failure ? failure : "mm-regress never started: no KTAP on the console");
		check_set(&c->boot, CHECK_FAILED, sb.buf);
		check_set(&c->tests, CHECK_SKIPPED, "did not boot");
		goto cleanup;
	}
	if (!nr) {
		check_set(&c->boot, CHECK_FAILED, failure ? failure : "no console recorded");
		check_set(&c->tests, CHECK_SKIPPED, "did not boot");
		goto cleanup;
	}
	check_set(&c->boot, CHECK_OK, NULL);

	cell_take_ktap(c, &v);
	cell_judge_tests(c, &v, nr, failure);
cleanup:
	strbuf_release(&sb);
	console_verdict_release(&v);
}

/* ------------------------------------------------------------------ */
/* From JSON to results */

struct loader {
	const char *file;
	int errors;
};

__attribute__((format(printf, 3, 4)))
static void lerror(struct loader *ld, const struct jval *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s:%d: %s", ld->file, at ? at->line : 1, sb.buf);
	strbuf_release(&sb);
	ld->errors++;
}

static const char *type_name(enum jtype t)
{
	switch (t) {
	case J_NULL: return "null";
	case J_BOOL: return "a boolean";
	case J_NUMBER: return "a number";
	case J_STRING: return "a string";
	case J_ARRAY: return "an array";
	case J_OBJECT: return "an object";
	}
	return "?";
}

/* The member `key` of obj when it has type t; NULL when absent or null, else an error. */
static const struct jval *jmember(struct loader *ld, const struct jval *obj, const char *key,
				  enum jtype t, int required)
{
	const struct jval *v = json_get(obj, key);

	if (!v || v->type == J_NULL) {
		if (required)
			lerror(ld, obj, "'%s' is missing", key);
		return NULL;
	}
	if (v->type != t) {
		lerror(ld, v, "'%s' must be %s, not %s", key, type_name(t), type_name(v->type));
		return NULL;
	}
	return v;
}

static char *jdup(struct loader *ld, const struct jval *obj, const char *key, int required)
{
	const struct jval *v = jmember(ld, obj, key, J_STRING, required);

	return v ? xstrdup(v->str) : NULL;
}

static double jnum(struct loader *ld, const struct jval *obj, const char *key, double dflt)
{
	const struct jval *v = jmember(ld, obj, key, J_NUMBER, 0);

	return v ? v->number : dflt;
}

static unsigned jcount(struct loader *ld, const struct jval *obj, const char *key)
{
	const struct jval *v = jmember(ld, obj, key, J_NUMBER, 0);

	if (!v)
		return 0;
	if (v->number < 0 || v->number > 1e9 || v->number != floor(v->number)) {
		lerror(ld, v, "'%s' must be a count, not %g", key, v->number);
		return 0;
	}
	return (unsigned)v->number;
}

static void load_check(struct loader *ld, struct check *c, const struct jval *obj, const char *key)
{
	const struct jval *v = jmember(ld, obj, key, J_OBJECT, 0);
	const struct jval *st;
	int s;

	if (!v)
		return;
	st = jmember(ld, v, "status", J_STRING, 1);
	if (!st)
		return;
	s = check_status_parse(st->str);
	if (s < 0) {
		lerror(ld, st, "unknown status '%s' for '%s'", st->str, key);
		return;
	}
	c->status = s;
	free(c->evidence);
	c->evidence = jdup(ld, v, "evidence", 0);
}

static void load_metric(struct loader *ld, struct cell_result *c, const struct jval *m)
{
	const struct jval *samples = jmember(ld, m, "samples", J_ARRAY, 0);
	const struct jval *dir = jmember(ld, m, "direction", J_STRING, 1);
	char *case_name = jdup(ld, m, "case", 1), *name = jdup(ld, m, "name", 1);
	char *unit = jdup(ld, m, "unit", 0);
	double *v = NULL;
	size_t i, nr = 0;
	enum ktap_direction d = KTAP_LOWER_IS_BETTER;

	if (dir && !strcmp(dir->str, "higher_is_better"))
		d = KTAP_HIGHER_IS_BETTER;
	else if (dir && strcmp(dir->str, "lower_is_better"))
		lerror(ld, dir, "'direction' must be higher_is_better or lower_is_better, not '%s'",
		       dir->str);
	if (!jmember(ld, m, "mean", J_NUMBER, 1))
		goto cleanup;
	if (samples) {
		v = xcalloc(samples->nr ? samples->nr : 1, sizeof(*v));
		for (i = 0; i < samples->nr; i++) {
			if (samples->items[i].type != J_NUMBER) {
				lerror(ld, &samples->items[i], "'samples' must hold numbers");
				goto cleanup;
			}
			v[nr++] = samples->items[i].number;
		}
	}
	if (case_name && name)
		cell_add_metric(c, case_name, name, unit, d,
				samples && !json_get(m, "n") ? (unsigned)nr : jcount(ld, m, "n"),
				jnum(ld, m, "mean", 0), jnum(ld, m, "stddev", 0), v, nr);
cleanup:
	free(v);
	free(case_name);
	free(name);
	free(unit);
}

/*
 * What kind of time a cell measured, how often it booted, whether it is
 * base's tree reused, its clock and the metrics mm-regress skipped. A
 * report written before these were has none: its TCG cells were timed
 * on host time.
 */
static void load_cell_timing(struct loader *ld, struct cell_result *c, const struct jval *obj)
{
	const struct jval *v = jmember(ld, obj, "timing", J_STRING, 0), *list;
	size_t i;

	c->timing = timing_from_accel(c->accel);
	if (v && timing_parse(v->str) < 0)
		lerror(ld, v, "unknown timing '%s' (hardware, instructions or emulated)", v->str);
	else if (v)
		c->timing = timing_parse(v->str);
	c->boots = jcount(ld, obj, "boots");
	c->reused = jdup(ld, obj, "reused", 0);
	c->stale = jdup(ld, obj, "stale", 0);
	list = jmember(ld, obj, "console_logs", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_STRING) {
			lerror(ld, &list->items[i], "'console_logs' must hold strings");
			continue;
		}
		strvec_push(&c->console_logs, list->items[i].str);
	}
	v = jmember(ld, obj, "clock", J_OBJECT, 0);
	if (v) {
		c->clocksource = jdup(ld, v, "source", 0);
		c->clock_resolution_ns = jnum(ld, v, "resolution_ns", 0);
	}
	list = jmember(ld, obj, "metric_skips", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *m = &list->items[i];
		char *case_name, *name, *reason;

		if (m->type != J_OBJECT) {
			lerror(ld, m, "'metric_skips' must hold objects");
			continue;
		}
		case_name = jdup(ld, m, "case", 1);
		name = jdup(ld, m, "name", 1);
		reason = jdup(ld, m, "reason", 0);
		if (case_name && name)
			cell_add_metric_skip(c, case_name, name, reason);
		free(case_name);
		free(name);
		free(reason);
	}
}

/* A claim of a branch: what it says and whose it is (its outcome is derived, not read). */
static void load_cost(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	const struct jval *metric = jmember(ld, obj, "metric", J_STRING, 1);
	const struct jval *worse = jmember(ld, obj, "worse_pct", J_NUMBER, 1);
	struct kit_cost kc;
	const char *dot = metric ? strchr(metric->str, '.') : NULL;

	if (metric && (!dot || dot == metric->str || !dot[1])) {
		lerror(ld, metric, "a cost's 'metric' must be CASE.NAME, not '%s'", metric->str);
		return;
	}
	if (worse && !(worse->number > 0 && worse->number <= 100)) {
		lerror(ld, worse, "a cost's 'worse_pct' must be more than 0 and at most 100, not %g",
		       worse->number);
		return;
	}
	if (!metric || !worse)
		return;
	memset(&kc, 0, sizeof(kc));
	kc.case_name = xstrndup(metric->str, dot - metric->str);
	kc.metric = xstrdup(dot + 1);
	kc.worse_pct = worse->number;
	kc.why = jdup(ld, obj, "why", 0);
	branch_add_cost(b, &kc);
	free(kc.case_name);
	free(kc.metric);
	free(kc.why);
}

static void load_claim(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	static const char *const kinds[] = {
		[CLAIM_BETTER] = "better", [CLAIM_WORSE] = "worse",
		[CLAIM_ABOVE] = "above", [CLAIM_BELOW] = "below",
	};
	const struct jval *origin = jmember(ld, obj, "origin", J_STRING, 1);
	const struct jval *kind = jmember(ld, obj, "kind", J_STRING, 1);
	const struct jval *metric = jmember(ld, obj, "metric", J_STRING, 1);
	const struct jval *value = jmember(ld, obj, "value", J_NUMBER, 1);
	char *owner = jdup(ld, obj, "owner", 1);
	struct kit_claim kc;
	const char *dot;
	int o = -1, k = -1;

	memset(&kc, 0, sizeof(kc));
	if (origin && (o = claim_origin_parse(origin->str)) < 0)
		lerror(ld, origin, "unknown claim origin '%s' (series, branch or variant)", origin->str);
	if (kind && (k = name_index(kinds, ARRAY_SIZE(kinds), kind->str)) < 0)
		lerror(ld, kind, "unknown claim kind '%s' (better, worse, above or below)", kind->str);
	dot = metric ? strchr(metric->str, '.') : NULL;
	if (metric && (!dot || dot == metric->str || !dot[1]))
		lerror(ld, metric, "a claim's 'metric' must be CASE.NAME, not '%s'", metric->str);
	if (o < 0 || k < 0 || !dot || !dot[1] || dot == metric->str || !value || !owner)
		goto cleanup;
	kc.case_name = xstrndup(metric->str, dot - metric->str);
	kc.metric = xstrdup(dot + 1);
	kc.kind = k;
	kc.value = value->number;
	kc.why = jdup(ld, obj, "why", 0);
	if (k == CLAIM_BETTER || k == CLAIM_WORSE) {
		kc.than = jdup(ld, obj, "than", 0);
		if (!kc.than)
			kc.than = xstrdup("base");
	}
	branch_add_claim(b, o, owner, &kc);
	free(kc.case_name);
	free(kc.metric);
	free(kc.than);
	free(kc.why);
cleanup:
	free(owner);
}

static void load_cell(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	const struct jval *variant = jmember(ld, obj, "variant", J_STRING, 1);
	const struct jval *checks, *list, *v;
	struct cell_result tmp, *c;
	size_t i;

	if (!variant)
		return;
	if (!variant_name_ok(variant->str)) {
		lerror(ld, variant, "bad variant name '%s' (base, kit, or [a-z0-9][a-z0-9-]*)",
		       variant->str);
		return;
	}
	if (branch_find_cell(b, variant->str)) {
		lerror(ld, variant, "cell '%s %s' appears twice", b->name, variant->str);
		return;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.variant = xstrdup(variant->str);
	tmp.commit = jdup(ld, obj, "commit", 0);
	checks = jmember(ld, obj, "checks", J_OBJECT, 1);
	load_check(ld, &tmp.apply, checks, "apply");
	load_check(ld, &tmp.build, checks, "build");
	load_check(ld, &tmp.boot, checks, "boot");
	load_check(ld, &tmp.tests, checks, "tests");
	load_check(ld, &tmp.splats, checks, "splats");
	tmp.accel = jdup(ld, obj, "accel", 0);
	tmp.accel_note = jdup(ld, obj, "accel_note", 0);
	tmp.mode = jdup(ld, obj, "mode", 0);
	tmp.repeat = jcount(ld, obj, "repeat");
	tmp.build_seconds = jnum(ld, obj, "build_seconds", 0);
	tmp.test_seconds = jnum(ld, obj, "test_seconds", 0);
	tmp.build_log = jdup(ld, obj, "build_log", 0);
	tmp.console_log = jdup(ld, obj, "console_log", 0);
	tmp.nr_pass = jcount(ld, obj, "pass");
	tmp.nr_fail = jcount(ld, obj, "fail");
	tmp.nr_skip = jcount(ld, obj, "skip");
	/* A declared variant's members; a report of an older mkseries has none. */
	tmp.nr_xfail = jcount(ld, obj, "xfail");
	tmp.without = jdup(ld, obj, "without", 0);
	tmp.expected = jdup(ld, obj, "expected", 0);
	list = jmember(ld, obj, "expect_fail", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_STRING) {
			lerror(ld, &list->items[i], "'expect_fail' must hold strings");
			continue;
		}
		cell_expect_fail(&tmp, list->items[i].str);
	}
	list = jmember(ld, obj, "cases", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *k = &list->items[i];
		char *name, *ev;
		int s;

		if (k->type != J_OBJECT) {
			lerror(ld, k, "'cases' must hold objects");
			continue;
		}
		v = jmember(ld, k, "status", J_STRING, 1);
		s = v ? name_index(case_names, ARRAY_SIZE(case_names), v->str) : -1;
		if (v && s < 0)
			lerror(ld, v, "unknown case status '%s' (pass, fail, skip or todo)", v->str);
		name = jdup(ld, k, "name", 1);
		ev = jdup(ld, k, "evidence", 0);
		if (name && s >= 0)
			cell_add_case(&tmp, name, s, ev);
		free(name);
		free(ev);
	}
	list = jmember(ld, obj, "metrics", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'metrics' must hold objects");
			continue;
		}
		load_metric(ld, &tmp, &list->items[i]);
	}
	load_cell_timing(ld, &tmp, obj);
	c = branch_cell(b, variant->str);
	cell_result_release(c);
	*c = tmp;
}

static void load_branch(struct loader *ld, struct run_results *r, const struct jval *obj)
{
	const struct jval *name = jmember(ld, obj, "name", J_STRING, 1);
	const struct jval *list;
	struct branch_result tmp, *b;
	size_t i;

	if (!name)
		return;
	if (!*name->str || strchr(name->str, '/') || strchr(name->str, '\n')) {
		lerror(ld, name, "bad branch name '%s'", name->str);
		return;
	}
	if (results_find_branch(r, name->str)) {
		lerror(ld, name, "branch '%s' appears twice", name->str);
		return;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.name = xstrdup(name->str);
	tmp.base = jdup(ld, obj, "base", 0);
	tmp.tip = jdup(ld, obj, "tip", 0);
	load_check(ld, &tmp.import, obj, "import");
	load_check(ld, &tmp.apply, obj, "apply");
	list = jmember(ld, obj, "series", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *s = &list->items[i], *st;
		struct series_result *sr;
		char *id, *title;
		int state = SERIES_PLANNED;

		if (s->type != J_OBJECT) {
			lerror(ld, s, "'series' must hold objects");
			continue;
		}
		st = jmember(ld, s, "state", J_STRING, 1);
		if (st && (state = series_state_parse(st->str)) < 0) {
			lerror(ld, st, "unknown series state '%s'", st->str);
			continue;
		}
		id = jdup(ld, s, "id", 1);
		title = jdup(ld, s, "title", 0);
		if (id) {
			sr = branch_add_series(&tmp, id, title);
			sr->state = state;
			sr->detail = jdup(ld, s, "detail", 0);
		}
		free(id);
		free(title);
	}
	list = jmember(ld, obj, "cells", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'cells' must hold objects");
			continue;
		}
		load_cell(ld, &tmp, &list->items[i]);
	}
	/* A report written before claims and thresholds has neither: the defaults. */
	tmp.threshold_pct = jnum(ld, obj, "threshold_pct", 0);
	if (tmp.threshold_pct < 0 || tmp.threshold_pct > 100) {
		lerror(ld, json_get(obj, "threshold_pct"), "'threshold_pct' must be between 0 and 100, not %g",
		       tmp.threshold_pct);
		tmp.threshold_pct = 0;
	}
	list = jmember(ld, obj, "claims", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'claims' must hold objects");
			continue;
		}
		load_claim(ld, &tmp, &list->items[i]);
	}
	list = jmember(ld, obj, "costs", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'costs' must hold objects");
			continue;
		}
		load_cost(ld, &tmp, &list->items[i]);
	}
	b = results_branch(r, tmp.name);
	free(b->name);
	*b = tmp;
}

int results_parse_json(struct run_results *r, const char *file, const char *buf, size_t len)
{
	struct loader ld = { file, 0 };
	struct run_results tmp;
	struct jval root;
	const struct jval *v, *list;
	size_t i;
	int ret;

	results_init(&tmp);
	ret = json_parse(&root, file, buf, len);
	if (ret)
		return ret;
	if (root.type != J_OBJECT) {
		lerror(&ld, &root, "a report is a JSON object, not %s", type_name(root.type));
		goto done;
	}
	v = jmember(&ld, &root, "schema", J_NUMBER, 1);
	if (!v)
		goto done;
	if (v->number != RESULTS_SCHEMA) {
		lerror(&ld, v, "report schema %g is not one this mkseries reads (%d)", v->number,
		       RESULTS_SCHEMA);
		goto done;
	}
	tmp.generator = jdup(&ld, &root, "generator", 0);
	tmp.generated = jdup(&ld, &root, "generated", 0);
	tmp.tester = jdup(&ld, &root, "tester", 0);
	list = jmember(&ld, &root, "branches", J_ARRAY, 1);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(&ld, &list->items[i], "'branches' must hold objects");
			continue;
		}
		load_branch(&ld, &tmp, &list->items[i]);
	}
done:
	jval_release(&root);
	for (i = 0; !ld.errors && i < tmp.nr_branches; i++) {
		const struct branch_result *had = results_find_branch(r, tmp.branches[i].name);
		size_t j;

		for (j = 0; had && j < tmp.branches[i].nr_cells; j++)
			if (branch_find_cell(had, tmp.branches[i].cells[j].variant))
				lerror(&ld, &root, "cell '%s %s' is in an earlier report too",
				       had->name, tmp.branches[i].cells[j].variant);
	}
	if (ld.errors) {
		results_release(&tmp);
		return MKS_ECONFIG;
	}
	results_merge(r, &tmp);
	return 0;
}

int results_read_file(struct strbuf *sb, const char *path, size_t max, struct strbuf *why)
{
	return strbuf_read_regular(sb, path, max, "a report reads", why);
}

int results_load_json(struct run_results *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int ret;

	if (results_read_file(&sb, path, RESULTS_FILE_MAX, &why)) {
		ret = error_code(MKS_ECONFIG, "cannot read report '%s': %s", path, why.buf);
		strbuf_release(&why);
		strbuf_release(&sb);
		return ret;
	}
	if (memchr(sb.buf, '\0', sb.len)) {
		strbuf_release(&sb);
		return error_code(MKS_ECONFIG, "%s: not a JSON report (it holds NUL bytes)", path);
	}
	ret = results_parse_json(r, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Merging */

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

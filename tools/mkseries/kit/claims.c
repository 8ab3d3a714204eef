/* kit/claims.c: performance claims and verdict settings, in series.yaml and the kernel files (docs/verdicts.md, "Verdicts"). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

enum { CL_METRIC, CL_BETTER, CL_WORSE, CL_ABOVE, CL_BELOW, CL_THAN, CL_WHY, CL_NR };
static const char *const claim_keys[] = {
	"metric", "better", "worse", "above", "below", "than", "why", NULL
};
static const char *const verdicts_keys[] = { "threshold", NULL };

/* "20%", "12.5%": decimal digits, an optional fraction, then '%'. Returns -1 otherwise. */
static int parse_percent(const char *v, double *out)
{
	size_t n = strspn(v, "0123456789"), frac = 0;

	if (!n || n > 9)
		return -1;
	if (v[n] == '.') {
		frac = strspn(v + n + 1, "0123456789");
		if (!frac || frac > 6)
			return -1;
		frac++;
	}
	if (strcmp(v + n + frac, "%"))
		return -1;
	*out = strtod(v, NULL);
	return 0;
}

/* A decimal number, as strtod() reads it, finite and nothing after it. */
static int parse_number(const char *v, double *out)
{
	char *end;
	double d;

	if (!*v || isspace((unsigned char)*v))
		return -1;
	errno = 0;
	d = strtod(v, &end);
	if (errno || *end || end == v || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

/* "CASE.NAME": an mm-regress case and one of its metrics, both [a-z0-9_]+. */
static int split_metric(const char *v, char **case_name, char **metric)
{
	const char *dot = strchr(v, '.');
	char *c, *m;

	if (!dot)
		return -1;
	c = xstrndup(v, dot - v);
	m = xstrdup(dot + 1);
	if (!valid_case_name(c) || !valid_case_name(m)) {
		free(c);
		free(m);
		return -1;
	}
	*case_name = c;
	*metric = m;
	return 0;
}

static void parse_claim(struct yfile *f, yaml_node_t *n, struct kit_claim *c)
{
	static const enum claim_kind kinds[] = {
		[CL_BETTER] = CLAIM_BETTER, [CL_WORSE] = CLAIM_WORSE,
		[CL_ABOVE] = CLAIM_ABOVE, [CL_BELOW] = CLAIM_BELOW,
	};
	yaml_node_t *v[CL_NR];
	const char *text;
	char *metric = NULL;
	int k, which = -1;

	c->line = c->than_line = ynode_line(n);
	if (yfile_map_fields(f, n, "a claim", claim_keys, v))
		return;
	if (!v[CL_METRIC])
		yfile_report(f, c->line, "a claim needs a 'metric' (CASE.NAME, as in realloc_rate.calls_per_sec)");
	else if (!yfile_get_str(f, v[CL_METRIC], "metric", &metric) &&
		 (!metric || split_metric(metric, &c->case_name, &c->metric)))
		yfile_report(f, ynode_line(v[CL_METRIC]),
			     "'metric' must be CASE.NAME, an mm-regress case and one of its metrics (as in realloc_rate.calls_per_sec), not '%s'",
			     metric ? metric : "");
	free(metric);
	for (k = CL_BETTER; k <= CL_BELOW; k++) {
		if (!v[k])
			continue;
		if (which >= 0) {
			yfile_report(f, ynode_line(v[k]),
				     "a claim takes one of better, worse, above or below, not both '%s' and '%s'",
				     claim_keys[which], claim_keys[k]);
			continue;
		}
		which = k;
	}
	if (which < 0) {
		yfile_report(f, c->line, "a claim needs one of better, worse (N%%, against another cell), above or below (a value)");
		return;
	}
	c->kind = kinds[which];
	text = yfile_scalar(f, v[which], claim_keys[which], which <= CL_WORSE ? "a percentage" : "a number");
	if (!text) {
		;
	} else if (which <= CL_WORSE) {
		if (parse_percent(text, &c->value))
			yfile_report(f, ynode_line(v[which]), "'%s' must be a percentage like 20%%, not '%s'",
				     claim_keys[which], text);
		else if (c->value > 1000)
			yfile_report(f, ynode_line(v[which]), "'%s' must be between 0%% and 1000%%, not '%s'",
				     claim_keys[which], text);
	} else if (parse_number(text, &c->value)) {
		yfile_report(f, ynode_line(v[which]), "'%s' must be a number (in the metric's unit), not '%s'",
			     claim_keys[which], text);
	}
	if (v[CL_THAN]) {
		c->than_line = ynode_line(v[CL_THAN]);
		if (which > CL_WORSE)
			yfile_report(f, c->than_line, "'than' goes with better or worse, not with '%s'",
				     claim_keys[which]);
		else if (!yfile_get_str(f, v[CL_THAN], "than", &c->than) && !c->than)
			yfile_report(f, c->than_line, "'than' must not be empty");
	}
	if (which <= CL_WORSE && !c->than)
		c->than = xstrdup("base");
	yfile_get_str(f, v[CL_WHY], "why", &c->why);
}

/* `claims:`, a sequence of claims, into a new array. */
void parse_claims(struct yfile *f, yaml_node_t *n, struct kit_claim **out, size_t *nr)
{
	yaml_node_t **items;
	size_t count, i;

	items = yfile_seq_nodes(f, n, "claims", 0, &count);
	if (count)
		*out = xcalloc(count, sizeof(**out));
	for (i = 0; i < count; i++)
		parse_claim(f, items[i], &(*out)[(*nr)++]);
	free(items);
}

static int any_branch_has_variant(const struct kit *kit, const char *name)
{
	size_t i;

	for (i = 0; i < kit->nr_branches; i++)
		if (branch_find_variant(&kit->branches[i], name))
			return 1;
	return 0;
}

static void add_variant_names(struct strbuf *sb, const struct kernel_branch *b, const char *self)
{
	size_t i;

	for (i = 0; i < b->nr_variants; i++)
		if (!self || strcmp(b->variants[i].name, self))
			strbuf_addf(sb, ", %s", b->variants[i].name);
}

/*
 * What `than` may name: base, or a declared variant (of any branch for
 * a series, of its own branch otherwise); a variant's claims may also
 * name the kit. The cell a claim is checked on is never its own `than`.
 */
void check_claims_than(struct yfile *f, const struct kit_claim *c, size_t nr,
		       enum claim_owner owner, const struct kernel_branch *b, const char *self)
{
	struct strbuf known = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *than = c[i].than;

		if (!than || !strcmp(than, "base"))
			continue;
		if (!strcmp(than, "kit")) {
			if (owner == OWNER_SERIES)
				yfile_report(f, c[i].than_line,
					     "a series' claims are checked on the kit: 'than: kit' compares it with itself (base, or a declared variant)");
			else if (owner == OWNER_BRANCH)
				yfile_report(f, c[i].than_line,
					     "a kernel file's claims are checked on its kit: 'than: kit' compares it with itself (base, or one of its variants)");
			continue;
		}
		if (owner == OWNER_VARIANT && !strcmp(than, self)) {
			yfile_report(f, c[i].than_line, "variant '%s' cannot be compared with itself", self);
			continue;
		}
		if (owner == OWNER_SERIES ? any_branch_has_variant(f->ld->kit, than) :
		    branch_find_variant(b, than) != NULL)
			continue;
		strbuf_reset(&known);
		if (owner == OWNER_SERIES) {
			strbuf_addstr(&known, "base, or a variant a kernel file declares");
		} else {
			strbuf_addstr(&known, owner == OWNER_VARIANT ? "base, kit" : "base");
			add_variant_names(&known, b, self);
		}
		yfile_report(f, c[i].than_line, "unknown cell '%s' in 'than' (%s)", than, known.buf);
	}
	strbuf_release(&known);
}

enum { CO_METRIC, CO_WORSE, CO_WHY, CO_NR };
static const char *const cost_keys[] = { "metric", "worse", "why", NULL };

static void parse_cost(struct yfile *f, yaml_node_t *n, struct kit_cost *c)
{
	yaml_node_t *v[CO_NR];
	const char *text;
	char *metric = NULL;

	c->line = ynode_line(n);
	if (yfile_map_fields(f, n, "a cost", cost_keys, v))
		return;
	if (!v[CO_METRIC])
		yfile_report(f, c->line, "a cost needs a 'metric' (CASE.NAME, as in mremap_pud_time.move_1g_pmd_aligned)");
	else if (!yfile_get_str(f, v[CO_METRIC], "metric", &metric) &&
		 (!metric || split_metric(metric, &c->case_name, &c->metric)))
		yfile_report(f, ynode_line(v[CO_METRIC]),
			     "'metric' must be CASE.NAME, an mm-regress case and one of its metrics, not '%s'",
			     metric ? metric : "");
	free(metric);
	if (!v[CO_WORSE]) {
		yfile_report(f, c->line, "a cost needs 'worse', the most it may cost against base (a percentage like 9%%)");
	} else if ((text = yfile_scalar(f, v[CO_WORSE], "worse", "a percentage"))) {
		if (parse_percent(text, &c->worse_pct))
			yfile_report(f, ynode_line(v[CO_WORSE]), "'worse' must be a percentage like 9%%, not '%s'",
				     text);
		else if (c->worse_pct <= 0 || c->worse_pct > 100)
			yfile_report(f, ynode_line(v[CO_WORSE]),
				     "'worse' must be more than 0%% and at most 100%%, not '%s'", text);
	}
	yfile_get_str(f, v[CO_WHY], "why", &c->why);
	if (!c->why)
		yfile_report(f, c->line, "a cost needs a 'why': what the kit pays it for");
}

void parse_costs(struct yfile *f, yaml_node_t *n, struct kit_cost **out, size_t *nr)
{
	yaml_node_t **items;
	size_t count, i, j;

	items = yfile_seq_nodes(f, n, "costs", 0, &count);
	if (count)
		*out = xcalloc(count, sizeof(**out));
	for (i = 0; i < count; i++) {
		struct kit_cost *c = &(*out)[(*nr)++];

		parse_cost(f, items[i], c);
		if (!c->case_name)
			continue;
		for (j = 0; j + 1 < *nr; j++)
			if ((*out)[j].case_name && !strcmp((*out)[j].case_name, c->case_name) &&
			    !strcmp((*out)[j].metric, c->metric))
				yfile_report(f, c->line, "metric '%s.%s' has a cost already (line %d): one bound a metric",
					     c->case_name, c->metric, (*out)[j].line);
	}
	free(items);
}

void costs_free(struct kit_cost *c, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(c[i].case_name);
		free(c[i].metric);
		free(c[i].why);
	}
	free(c);
}

const struct kit_cost *branch_find_cost(const struct kit_cost *costs, size_t nr,
					const char *case_name, const char *metric)
{
	size_t i;

	for (i = 0; case_name && metric && i < nr; i++)
		if (costs[i].case_name && !strcmp(costs[i].case_name, case_name) &&
		    !strcmp(costs[i].metric, metric))
			return &costs[i];
	return NULL;
}

/* `verdicts: { threshold: N% }`, in series.yaml or a kernel file. */
void parse_verdicts(struct yfile *f, yaml_node_t *n, double *threshold)
{
	yaml_node_t *v[2];
	const char *text;
	double t;

	if (ynode_absent(n) || yfile_map_fields(f, n, "'verdicts'", verdicts_keys, v) || ynode_absent(v[0]))
		return;
	text = yfile_scalar(f, v[0], "threshold", "a percentage");
	if (!text)
		return;
	if (parse_percent(text, &t))
		yfile_report(f, ynode_line(v[0]), "'threshold' must be a percentage like 5%%, not '%s'", text);
	else if (t <= 0 || t > 100)
		yfile_report(f, ynode_line(v[0]), "'threshold' must be more than 0%% and at most 100%%, not '%s'",
			     text);
	else
		*threshold = t;
}

void claims_free(struct kit_claim *c, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(c[i].case_name);
		free(c[i].metric);
		free(c[i].than);
		free(c[i].why);
	}
	free(c);
}

double kit_threshold_pct(const struct kit *kit, const struct kernel_branch *b)
{
	if (b && b->threshold_pct > 0)
		return b->threshold_pct;
	return kit->threshold_pct;
}

char *kit_claim_text(const struct kit_claim *c)
{
	const char *case_name = c->case_name ? c->case_name : "?";
	const char *metric = c->metric ? c->metric : "?";

	switch (c->kind) {
	case CLAIM_BETTER:
	case CLAIM_WORSE:
		return xstrfmt("%s.%s %s by %g%% than %s", case_name, metric,
			       c->kind == CLAIM_BETTER ? "better" : "worse", c->value,
			       c->than ? c->than : "base");
	case CLAIM_ABOVE:
	case CLAIM_BELOW:
		return xstrfmt("%s.%s %s %g", case_name, metric,
			       c->kind == CLAIM_ABOVE ? "above" : "below", c->value);
	}
	return xstrfmt("%s.%s", case_name, metric);
}

static const char *const kind_names[] = {
	[CLAIM_BETTER] = "better",
	[CLAIM_WORSE] = "worse",
	[CLAIM_ABOVE] = "above",
	[CLAIM_BELOW] = "below",
};

const char *claim_kind_name(enum claim_kind k)
{
	return (size_t)k < ARRAY_SIZE(kind_names) && kind_names[k] ? kind_names[k] : "?";
}

int claim_kind_parse(const char *name)
{
	return name_index(kind_names, ARRAY_SIZE(kind_names), name);
}

/* console/ktap.c: parse mm-regress's KTAP from a console log and spot kernel splats in it. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "console/ktap.h"
#include "../../tcg-cache/contract.h"

/* A sample line waiting for the metric line that summarises it. */
struct sample {
	char *case_name;
	char *name;
	double value;
};

/*
 * The counters of one "mkseries-cycles: region=N ..." line that make a
 * metric, in modelled[]'s order: named as the plugin prints them
 * (tools/tcg-cache/contract.h, whose TCG_CACHE_COUNTER() refuses a
 * name it does not list).
 */
#define NR_MODELLED 7
static const struct {
	const char *key;	/* in the plugin's line */
	const char *metric;	/* the metric made of it */
	const char *unit;	/* before "/PER" */
} modelled[NR_MODELLED] = {
	{ TCG_CACHE_CYCLES, "modelled_cycles", "cycles" },
	{ TCG_CACHE_COUNTER(insns), "instructions", "insns" },
	{ TCG_CACHE_COUNTER(l1d_misses), "l1d_misses", "misses" },
	{ TCG_CACHE_COUNTER(l2_misses), "l2_misses", "misses" },
	{ TCG_CACHE_COUNTER(llc_misses), "llc_misses", "misses" },
	{ TCG_CACHE_COUNTER(dtlb_misses), "dtlb_misses", "misses" },
	{ TCG_CACHE_COUNTER(page_walks), "page_walks", "walks" },
};

struct plugin_region {
	unsigned long n;
	double v[NR_MODELLED];
	size_t line;
};

/* "# region: CASE ITERATIONS PER" */
struct guest_region {
	char *case_name;
	double iterations;
	char *per;
	size_t line;
};

struct parser {
	struct ktap_result *res;
	struct sample *samples;
	size_t nr_samples, alloc_samples;
	struct plugin_region *plugin;
	size_t nr_plugin, alloc_plugin;
	struct guest_region *guest;
	size_t nr_guest, alloc_guest;
	int in_ktap;
	int stopped;
};

void ktap_result_init(struct ktap_result *res)
{
	memset(res, 0, sizeof(*res));
	strvec_init(&res->pending);
}

void ktap_release(struct ktap_result *res)
{
	size_t i;

	for (i = 0; i < res->nr_cases; i++) {
		free(res->cases[i].name);
		free(res->cases[i].reason);
		strvec_clear(&res->cases[i].diag);
	}
	free(res->cases);
	for (i = 0; i < res->nr_metric_skips; i++) {
		free(res->metric_skips[i].case_name);
		free(res->metric_skips[i].name);
		free(res->metric_skips[i].reason);
	}
	free(res->metric_skips);
	free(res->clocksource);
	for (i = 0; i < res->nr_metrics; i++) {
		free(res->metrics[i].case_name);
		free(res->metrics[i].name);
		free(res->metrics[i].unit);
		free(res->metrics[i].samples);
	}
	free(res->metrics);
	strvec_clear(&res->pending);
	free(res->bail_reason);
	ktap_result_init(res);
}

/*
 * A printk prefix: "[    1.234567] ", optionally followed by a caller id
 * "[    T1] " or "[    C0] ". Returns what follows it, or NULL.
 */
static const char *skip_printk_prefix(const char *s)
{
	const char *p = s;

	if (*p++ != '[')
		return NULL;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ']')
		return NULL;
	if (p[0] == '[') {
		const char *q = p + 1;

		while (*q == ' ')
			q++;
		if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
			q++;
			while (isdigit((unsigned char)*q))
				q++;
			if (*q == ']')
				p = q + 1;
		}
	}
	if (*p == ' ')
		p++;
	return p;
}

static char *trimmed_dup(const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s))
		s++, len--;
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return xstrndup(s, len);
}

/* "SKIP" or "TODO" as a whole word at the start of a directive. */
static int directive_is(const char *d, const char *word)
{
	size_t n = strlen(word);

	return !strncasecmp(d, word, n) && (!d[n] || isspace((unsigned char)d[n]));
}

static void add_result(struct parser *ps, int ok, const char *rest, size_t line)
{
	struct ktap_result *res = ps->res;
	struct ktap_case *c;
	const char *hash;
	char *end;
	unsigned long num;

	if (!isdigit((unsigned char)*rest))
		return;	/* "ok" without a number is not a result */
	errno = 0;
	num = strtoul(rest, &end, 10);
	if (errno || num > 0xffffffffUL)
		return;
	rest = end;
	if (*rest && *rest != ' ' && *rest != '\t')
		return;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (rest[0] == '-' && (rest[1] == ' ' || !rest[1]))
		rest += rest[1] ? 2 : 1;

	ALLOC_GROW(res->cases, res->nr_cases + 1, res->alloc_cases);
	c = &res->cases[res->nr_cases++];
	memset(c, 0, sizeof(*c));
	c->number = (unsigned)num;
	c->line = line;
	c->status = ok ? KTAP_PASS : KTAP_FAIL;
	hash = strchr(rest, '#');
	c->name = trimmed_dup(rest, hash ? (size_t)(hash - rest) : strlen(rest));
	if (hash) {
		const char *d = hash + 1;
		size_t skip = 0;

		while (isspace((unsigned char)*d))
			d++;
		if (directive_is(d, "SKIP")) {
			c->status = KTAP_SKIP;
			skip = 4;
		} else if (directive_is(d, "TODO")) {
			c->status = KTAP_TODO;
			skip = 4;
		}
		c->reason = trimmed_dup(d + skip, strlen(d + skip));
		if (!*c->reason) {
			free(c->reason);
			c->reason = NULL;
		}
	}
	/* The diagnostics gathered so far belong to this result. */
	c->diag = res->pending;
	strvec_init(&res->pending);
	if (c->number != res->nr_cases)
		res->misnumbered = 1;
	switch (c->status) {
	case KTAP_PASS:
		res->nr_pass++;
		break;
	case KTAP_FAIL:
		res->nr_fail++;
		break;
	case KTAP_SKIP:
		res->nr_skip++;
		break;
	case KTAP_TODO:
		res->nr_todo++;
		break;
	}
}

/* Split on blanks into at most max words; returns how many. Words point into buf. */
static size_t split_words(char *buf, char **words, size_t max)
{
	size_t n = 0;
	char *p = buf;

	while (*p && n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return *s && !*end && !errno ? 0 : -1;
}

static void bad_metric(struct ktap_result *res, size_t line)
{
	if (!res->bad_metrics++)
		res->bad_metric_line = line;
}

/* "sample: CASE NAME I/N VALUE UNIT" */
static void add_sample(struct parser *ps, const char *text, size_t line)
{
	char *copy = xstrdup(text), *w[8];
	struct sample *s;
	double v;

	if (split_words(copy, w, 8) != 5 || parse_double(w[3], &v)) {
		bad_metric(ps->res, line);
		goto cleanup;
	}
	ALLOC_GROW(ps->samples, ps->nr_samples + 1, ps->alloc_samples);
	s = &ps->samples[ps->nr_samples++];
	s->case_name = xstrdup(w[0]);
	s->name = xstrdup(w[1]);
	s->value = v;
cleanup:
	free(copy);
}

/* "metric: CASE NAME VALUE UNIT DIRECTION [n=N] [stddev=S]" */
static void add_metric(struct parser *ps, const char *text, size_t line)
{
	struct ktap_result *res = ps->res;
	char *copy = xstrdup(text), *w[8];
	struct ktap_metric m;
	size_t n, i, kept = 0;

	memset(&m, 0, sizeof(m));
	m.n = 1;
	n = split_words(copy, w, 8);
	if (n < 5 || n > 7 || parse_double(w[2], &m.value))
		goto bad;
	if (!strcmp(w[4], "higher_is_better"))
		m.direction = KTAP_HIGHER_IS_BETTER;
	else if (!strcmp(w[4], "lower_is_better"))
		m.direction = KTAP_LOWER_IS_BETTER;
	else
		goto bad;
	for (i = 5; i < n; i++) {
		double v;

		if (starts_with(w[i], "n=") && !parse_double(w[i] + 2, &v) && v >= 1 && v < 1e9)
			m.n = (unsigned)v;
		else if (starts_with(w[i], "stddev=") && !parse_double(w[i] + 7, &v) && v >= 0)
			m.stddev = v;
		else
			goto bad;
	}
	m.case_name = xstrdup(w[0]);
	m.name = xstrdup(w[1]);
	m.unit = xstrdup(w[3]);
	m.line = line;
	/* Claim the samples printed for this metric; keep the others waiting. */
	for (i = 0; i < ps->nr_samples; i++) {
		struct sample *s = &ps->samples[i];

		if (!strcmp(s->case_name, m.case_name) && !strcmp(s->name, m.name)) {
			m.samples = xrealloc(m.samples, (m.nr_samples + 1) * sizeof(double));
			m.samples[m.nr_samples++] = s->value;
			free(s->case_name);
			free(s->name);
		} else {
			ps->samples[kept++] = *s;
		}
	}
	ps->nr_samples = kept;
	ALLOC_GROW(res->metrics, res->nr_metrics + 1, res->alloc_metrics);
	res->metrics[res->nr_metrics++] = m;
	free(copy);
	return;
bad:
	bad_metric(res, line);
	free(copy);
}

/* "metric-skip: CASE NAME REASON..." */
static void add_metric_skip(struct ktap_result *res, const char *text, size_t line)
{
	struct ktap_metric_skip *ms;
	const char *p = text, *name, *reason;
	size_t case_len, name_len;

	while (*p == ' ')
		p++;
	case_len = strcspn(p, " ");
	name = p + case_len;
	while (*name == ' ')
		name++;
	name_len = strcspn(name, " ");
	reason = name + name_len;
	while (*reason == ' ')
		reason++;
	if (!case_len || !name_len || !*reason) {
		bad_metric(res, line);
		return;
	}
	ALLOC_GROW(res->metric_skips, res->nr_metric_skips + 1, res->alloc_metric_skips);
	ms = &res->metric_skips[res->nr_metric_skips++];
	ms->case_name = xstrndup(p, case_len);
	ms->name = xstrndup(name, name_len);
	ms->reason = xstrdup(reason);
	ms->line = line;
}

/* "clock: resolution_ns=R [getres_ns=G] [step_ns=S]": only R is kept. */
static void read_clock(struct ktap_result *res, const char *text)
{
	const char *p = strstr(text, "resolution_ns=");
	double v;
	char *end;

	if (!p)
		return;
	p += strlen("resolution_ns=");
	errno = 0;
	v = strtod(p, &end);
	if (!errno && end != p && (!*end || *end == ' ') && v > 0 && v < 1e12)
		res->clock_resolution_ns = v;
}

/*
 * "region=N insns=I ... cycles=C", the plugin's line after its prefix; a
 * line that does not parse, or lacks one of modelled[]'s keys, is left
 * out. Keys of its own that modelled[] does not name are skipped.
 */
static void add_plugin_region(struct parser *ps, const char *text, size_t line)
{
	struct plugin_region r = { .line = line };
	unsigned seen = 0;
	const char *p = text;
	char *end;
	double v;
	size_t i;

	errno = 0;
	r.n = strtoul(p, &end, 10);
	if (errno || end == p || *end != ' ')
		return;
	for (p = end; *p == ' '; ) {
		const char *eq = strchr(++p, '=');

		if (!eq)
			return;
		for (i = 0; i < NR_MODELLED; i++) {
			if (strlen(modelled[i].key) == (size_t)(eq - p) &&
			    !strncmp(p, modelled[i].key, eq - p))
				break;
		}
		v = strtod(eq + 1, &end);
		if (end == eq + 1)
			return;
		if (i < NR_MODELLED) {
			r.v[i] = v;
			seen |= 1u << i;
		}
		p = end;
	}
	if (*p || seen != (1u << NR_MODELLED) - 1)
		return;
	ALLOC_GROW(ps->plugin, ps->nr_plugin + 1, ps->alloc_plugin);
	ps->plugin[ps->nr_plugin++] = r;
}

static void add_guest_region(struct parser *ps, const char *text, size_t line)
{
	char *buf = xstrdup(text), *w[4];
	double iterations;

	if (split_words(buf, w, 4) == 3 && !parse_double(w[1], &iterations) && iterations > 0) {
		struct guest_region g = { xstrdup(w[0]), iterations, xstrdup(w[2]), line };

		ALLOC_GROW(ps->guest, ps->nr_guest + 1, ps->alloc_guest);
		ps->guest[ps->nr_guest++] = g;
	} else {
		bad_metric(ps->res, line);
	}
	free(buf);
}

/*
 * The k-th region mm-regress printed is the plugin's region k: each
 * metric of modelled[] for a case gets one sample per region of it, the
 * count divided by the region's iterations.
 */
static void join_regions(struct parser *ps)
{
	struct ktap_result *res = ps->res;
	size_t i, j, k;

	for (i = 0; i < ps->nr_plugin; i++) {
		if (ps->plugin[i].n != i + 1 || i >= ps->nr_guest) {
			res->modelled_mismatch = ps->plugin[i].line;
			return;
		}
	}
	if (!ps->nr_plugin)
		return;
	if (ps->nr_guest != ps->nr_plugin) {
		res->modelled_mismatch = ps->guest[ps->nr_plugin].line;
		return;
	}
	res->nr_modelled_regions = ps->nr_plugin;
	for (i = 0; i < ps->nr_guest; i++) {
		const struct guest_region *g = &ps->guest[i];

		/* A case's metrics are made at its first region. */
		for (j = 0; j < i; j++)
			if (!strcmp(ps->guest[j].case_name, g->case_name))
				break;
		if (j < i)
			continue;
		for (k = 0; k < NR_MODELLED; k++) {
			struct ktap_metric m = { 0 };
			struct sample_stats st;

			m.case_name = xstrdup(g->case_name);
			m.name = xstrdup(modelled[k].metric);
			m.unit = xstrfmt("%s/%s", modelled[k].unit, g->per);
			m.direction = KTAP_LOWER_IS_BETTER;
			m.line = g->line;
			for (j = i; j < ps->nr_guest; j++) {
				if (strcmp(ps->guest[j].case_name, g->case_name))
					continue;
				m.samples = xrealloc(m.samples, (m.nr_samples + 1) * sizeof(double));
				m.samples[m.nr_samples++] = ps->plugin[j].v[k] / ps->guest[j].iterations;
			}
			sample_stats(&st, m.samples, m.nr_samples);
			m.value = st.mean;
			m.n = st.n;
			m.stddev = st.stddev;
			if (m.nr_samples == 1) {
				free(m.samples);
				m.samples = NULL;
				m.nr_samples = 0;
			}
			ALLOC_GROW(res->metrics, res->nr_metrics + 1, res->alloc_metrics);
			res->metrics[res->nr_metrics++] = m;
		}
	}
}

static void add_diag(struct parser *ps, const char *text, size_t line)
{
	struct ktap_result *res = ps->res;
	const char *v;

	strvec_push(&res->pending, text);
	if (skip_prefix(text, "metric:", &v)) {
		add_metric(ps, v, line);
	} else if (skip_prefix(text, "sample:", &v)) {
		add_sample(ps, v, line);
	} else if (skip_prefix(text, "region:", &v)) {
		add_guest_region(ps, v, line);
	} else if (skip_prefix(text, "metric-skip:", &v)) {
		add_metric_skip(res, v, line);
	} else if (skip_prefix(text, "clocksource:", &v) && !res->clocksource) {
		while (*v == ' ')
			v++;
		if (*v)
			res->clocksource = xstrdup(v);
	} else if (skip_prefix(text, "clock:", &v) && !res->clock_resolution_ns) {
		read_clock(res, v);
	} else if (skip_prefix(text, "seed:", &v) && !res->has_seed) {
		char *end;

		errno = 0;
		res->seed = strtoull(v, &end, 0);
		while (isspace((unsigned char)*end))
			end++;
		res->has_seed = !errno && end != v && !*end;
	} else if (!strcmp(text, KTAP_DONE_MARKER)) {
		res->done = 1;
	}
}

/* "KTAP version N" or "TAP version N" anywhere in s: the version, or 0. */
static int header_version(const char *s)
{
	const char *p = strstr(s, "KTAP version ");
	int v;

	if (p)
		p += strlen("KTAP version ");
	else if ((p = strstr(s, "TAP version ")))
		p += strlen("TAP version ");
	else
		return 0;
	v = atoi(p);
	return v > 0 ? v : 0;
}

static void parse_line(struct parser *ps, const char *s, size_t line)
{
	struct ktap_result *res = ps->res;
	const char *rest;
	int v;

	/* Kernel messages are never ours, even when they look like KTAP (KUnit). */
	if (skip_printk_prefix(s))
		return;
	/* The tcg-cache plugin writes to QEMU's stderr, which the console holds too. */
	if (skip_prefix(s, TCG_CACHE_LINE " region=", &rest)) {
		if (ps->in_ktap)
			add_plugin_region(ps, rest, line);
		return;
	}
	if (!ps->in_ktap) {
		/* Firmware may leave escape sequences in front of the header. */
		v = header_version(s);
		if (v) {
			ps->in_ktap = 1;
			res->version = v;
			res->header_line = line;
		}
		return;
	}
	if (starts_with(s, "KTAP version ") || starts_with(s, "TAP version ")) {
		if (res->nr_cases || res->has_plan) {
			res->second_header = 1;
			ps->stopped = 1;
		}
		return;
	}
	if (skip_prefix(s, "ok ", &rest)) {
		add_result(ps, 1, rest, line);
	} else if (skip_prefix(s, "not ok ", &rest)) {
		add_result(ps, 0, rest, line);
	} else if (s[0] == '#') {
		rest = s + 1;
		if (*rest == ' ')
			rest++;
		add_diag(ps, rest, line);
	} else if (skip_prefix(s, "1..", &rest) && isdigit((unsigned char)*rest)) {
		char *end;
		unsigned long n = strtoul(rest, &end, 10);

		if (!res->has_plan && (!*end || isspace((unsigned char)*end)) && n <= 0xffffffffUL) {
			res->has_plan = 1;
			res->plan = (unsigned)n;
		}
	} else if (skip_prefix(s, "Bail out!", &rest)) {
		res->bail_out = 1;
		free(res->bail_reason);
		res->bail_reason = trimmed_dup(rest, strlen(rest));
	}
}

/*
 * Call fn for each line of the log, as a NUL-terminated string without
 * its line end ("\n", "\r\n", stray "\r"s) and with NUL bytes made blanks.
 */
static void each_line(const char *log, size_t len, void (*fn)(void *data, const char *s, size_t line),
		      void *data, const int *stop)
{
	struct strbuf sb = STRBUF_INIT;
	size_t pos = 0, line = 0;

	while (pos < len && !(stop && *stop)) {
		const char *nl = memchr(log + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - log) : len, i;

		strbuf_reset(&sb);
		for (i = pos; i < end; i++)
			strbuf_addch(&sb, log[i] ? log[i] : ' ');
		while (sb.len && (sb.buf[sb.len - 1] == '\r' || sb.buf[sb.len - 1] == ' ' ||
				  sb.buf[sb.len - 1] == '\t'))
			strbuf_setlen(&sb, sb.len - 1);
		fn(data, sb.buf, ++line);
		pos = end + 1;
	}
	strbuf_release(&sb);
}

static void parse_cb(void *data, const char *s, size_t line)
{
	struct parser *ps = data;

	if (!ps->stopped)
		parse_line(ps, s, line);
}

int ktap_parse(struct ktap_result *res, const char *log, size_t len)
{
	struct parser ps;
	size_t i;

	ktap_result_init(res);
	memset(&ps, 0, sizeof(ps));
	ps.res = res;
	each_line(log, len, parse_cb, &ps, &ps.stopped);
	join_regions(&ps);
	for (i = 0; i < ps.nr_samples; i++) {
		free(ps.samples[i].case_name);
		free(ps.samples[i].name);
	}
	free(ps.samples);
	for (i = 0; i < ps.nr_guest; i++) {
		free(ps.guest[i].case_name);
		free(ps.guest[i].per);
	}
	free(ps.guest);
	free(ps.plugin);
	if (res->has_plan) {
		if (res->plan > res->nr_cases)
			res->missing = res->plan - (unsigned)res->nr_cases;
		else if (res->nr_cases > res->plan)
			res->extra = (unsigned)res->nr_cases - res->plan;
	}
	return res->version ? 0 : MKS_ENOTFOUND;
}

int ktap_all_good(const struct ktap_result *res)
{
	return res->version && res->has_plan && !res->missing && !res->extra &&
	       !res->misnumbered && res->done && !res->bail_out && !res->nr_fail;
}

int ktap_problems(const struct ktap_result *res, struct strvec *out)
{
	size_t before = out->nr;

	if (!res->version) {
		strvec_push(out, "no KTAP output: no 'KTAP version' line");
		return 1;
	}
	if (!res->has_plan)
		strvec_push(out, "no test plan (a '1..N' line)");
	if (res->missing) {
		if (res->pending.nr)
			strvec_pushf(out, "plan says %u results, got %zu: the run stopped during case %zu (last said: '%s')",
				     res->plan, res->nr_cases, res->nr_cases + 1,
				     res->pending.v[res->pending.nr - 1]);
		else
			strvec_pushf(out, "plan says %u results, got %zu: the run stopped during case %zu",
				     res->plan, res->nr_cases, res->nr_cases + 1);
	}
	if (res->extra)
		strvec_pushf(out, "%u results beyond the plan of %u", res->extra, res->plan);
	if (res->misnumbered)
		strvec_push(out, "results are not numbered 1, 2, 3, ... in order");
	if (res->bail_out)
		strvec_pushf(out, "the run bailed out%s%s", res->bail_reason && *res->bail_reason ? ": " : "",
			     res->bail_reason ? res->bail_reason : "");
	if (res->modelled_mismatch)
		strvec_pushf(out, "the tcg-cache plugin's regions and mm-regress's '# region:' lines are out of step at line %zu",
			     res->modelled_mismatch);
	if (res->bad_metrics)
		strvec_pushf(out, "%zu metric line(s) do not parse, the first at line %zu",
			     res->bad_metrics, res->bad_metric_line);
	if (res->second_header)
		strvec_push(out, "a second KTAP run follows the first one and was ignored");
	if (!res->done)
		strvec_push(out, "no '# " KTAP_DONE_MARKER "' line: the run did not finish");
	return (int)(out->nr - before);
}

const struct ktap_case *ktap_find_case(const struct ktap_result *res, const char *name)
{
	size_t i;

	for (i = 0; i < res->nr_cases; i++)
		if (!strcmp(res->cases[i].name, name))
			return &res->cases[i];
	return NULL;
}

const struct ktap_metric *ktap_find_metric(const struct ktap_result *res, const char *case_name,
					   const char *name)
{
	size_t i;

	for (i = 0; i < res->nr_metrics; i++)
		if (!strcmp(res->metrics[i].case_name, case_name) &&
		    !strcmp(res->metrics[i].name, name))
			return &res->metrics[i];
	return NULL;
}

/* Splats. */

/* What a kernel message is, judged by how it starts. */
static enum console_splat_kind classify(const char *m)
{
	static const char *const facilities[] = { "kernel: ", "watchdog: ", "rcu: " };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(facilities); i++)
		if (starts_with(m, facilities[i]))
			m += strlen(facilities[i]);

	if (starts_with(m, "BUG: KASAN:"))
		return SPLAT_KASAN;
	if (starts_with(m, "BUG: soft lockup"))
		return SPLAT_SOFT_LOCKUP;
	if (starts_with(m, "BUG: unable to handle") || starts_with(m, "Unable to handle kernel") ||
	    starts_with(m, "unable to handle kernel"))
		return SPLAT_BAD_ACCESS;
	if (starts_with(m, "BUG:") || starts_with(m, "kernel BUG at "))
		return SPLAT_BUG;
	if (starts_with(m, "WARNING:"))
		return SPLAT_WARNING;
	if (starts_with(m, "general protection fault") ||
	    starts_with(m, "Oops: general protection fault"))
		return SPLAT_GPF;
	if (starts_with(m, "Internal error: Oops") ||
	    (starts_with(m, "Oops") && (m[4] == ':' || m[4] == '[' || m[4] == ' ')))
		return SPLAT_OOPS;
	if (starts_with(m, "Kernel panic - not syncing") ||
	    starts_with(m, "---[ end Kernel panic - not syncing"))
		return SPLAT_PANIC;
	if (starts_with(m, "INFO: task ") && strstr(m, " blocked for more than "))
		return SPLAT_HUNG_TASK;
	if (starts_with(m, "RCU stall") ||
	    (starts_with(m, "INFO: rcu") &&
	     (strstr(m, "detected stall") || strstr(m, "detected stalls") ||
	      strstr(m, "detected expedited stalls"))))
		return SPLAT_RCU_STALL;
	return SPLAT_NONE;
}

/* The message starts on a line: its start when unprefixed, and after every printk prefix. */
static enum console_splat_kind line_splat(const char *s)
{
	enum console_splat_kind kind;
	const char *p, *msg;

	msg = skip_printk_prefix(s);
	kind = classify(msg ? msg : s);
	if (kind != SPLAT_NONE)
		return kind;
	/*
	 * Another writer may have left half a line in front of the kernel's.
	 * Not on an empty line: s + 1 would be past its end.
	 */
	for (p = *s ? strchr(s + 1, '[') : NULL; p; p = strchr(p + 1, '[')) {
		msg = skip_printk_prefix(p);
		if (msg && (kind = classify(msg)) != SPLAT_NONE)
			return kind;
	}
	return SPLAT_NONE;
}

struct splat_search {
	struct console_splat *out;
	int found;
};

static void splat_cb(void *data, const char *s, size_t line)
{
	struct splat_search *ss = data;
	enum console_splat_kind kind;

	if (ss->found)
		return;
	kind = line_splat(s);
	if (kind == SPLAT_NONE)
		return;
	ss->out->kind = kind;
	ss->out->line = line;
	ss->out->text = xstrdup(s);
	ss->found = 1;
}

int console_find_splat(struct console_splat *out, const char *log, size_t len)
{
	struct splat_search ss = { out, 0 };

	out->kind = SPLAT_NONE;
	out->line = 0;
	out->text = NULL;
	each_line(log, len, splat_cb, &ss, &ss.found);
	return ss.found;
}

void console_splat_release(struct console_splat *splat)
{
	if (!splat)
		return;
	free(splat->text);
	splat->text = NULL;
	splat->kind = SPLAT_NONE;
	splat->line = 0;
}

const char *console_splat_kind_name(enum console_splat_kind kind)
{
	switch (kind) {
	case SPLAT_NONE:
		return "none";
	case SPLAT_BUG:
		return "BUG";
	case SPLAT_WARNING:
		return "WARNING";
	case SPLAT_OOPS:
		return "Oops";
	case SPLAT_PANIC:
		return "panic";
	case SPLAT_KASAN:
		return "KASAN";
	case SPLAT_SOFT_LOCKUP:
		return "soft lockup";
	case SPLAT_HUNG_TASK:
		return "hung task";
	case SPLAT_BAD_ACCESS:
		return "bad kernel access";
	case SPLAT_GPF:
		return "general protection fault";
	case SPLAT_RCU_STALL:
		return "RCU stall";
	}
	return "unknown";
}

int ktap_complete(const struct ktap_result *k)
{
	return k->version && k->has_plan && !k->missing && !k->extra && !k->misnumbered &&
	       k->done && !k->bail_out;
}

static const char *const status_names[] = {
	[KTAP_PASS] = "pass",
	[KTAP_FAIL] = "fail",
	[KTAP_SKIP] = "skip",
	[KTAP_TODO] = "todo",
};

const char *ktap_status_name(enum ktap_status s)
{
	return (size_t)s < ARRAY_SIZE(status_names) ? status_names[s] : "?";
}

int ktap_status_parse(const char *name)
{
	return name_index(status_names, ARRAY_SIZE(status_names), name);
}

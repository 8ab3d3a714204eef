/* results/names.c: the names of the result model's statuses, states, timings and origins, and how values and labels are shown. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/results.h"

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

const char *check_status_name(enum check_status s)
{
	return (size_t)s < ARRAY_SIZE(check_names) ? check_names[s] : "?";
}

int check_status_parse(const char *name)
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

int timing_repeatable(enum timing_kind t)
{
	return t == TIMING_INSTRUCTIONS || t == TIMING_MODELLED;
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

int claim_origin_parse(const char *name)
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

/* clock.c: the clock the cases time with, what it can resolve, and samples that remember their timings. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm-regress.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

/*
 * The probe stops after this many changes of the clock, or once this much
 * time has passed by the clock itself: long enough to see a 10 ms jiffy
 * step several times over, short enough not to be noticed otherwise.
 */
#define PROBE_CHANGES 64
#define PROBE_NS (50 * 1000 * 1000ULL)
/* A clock that does not move stops the probe here (seconds under emulation). */
#define PROBE_MAX_READS 5000000UL
/* And is taken to resolve no better than this. */
#define STILL_CLOCK_NS 1000000000ULL

uint64_t mr_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double mr_now(void)
{
	return mr_clock_ns() / 1e9;
}

/* The kernel's clocksource into c->source, or "unknown" and why not into why. */
static void read_clocksource(struct mr_clock *c, char *why, size_t len)
{
	FILE *f = fopen(CLOCKSOURCE_PATH, "r");
	char buf[sizeof(c->source)];
	size_t n = 0, i;

	snprintf(c->source, sizeof(c->source), "unknown");
	if (!f) {
		snprintf(why, len, "cannot read %s: %s", CLOCKSOURCE_PATH, strerror(errno));
		return;
	}
	if (fgets(buf, sizeof(buf), f))
		n = strcspn(buf, "\n");
	fclose(f);
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	/* One word of printable characters, or the header line would not parse. */
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)buf[i]))
			break;
	if (!n || i < n) {
		snprintf(why, len, "%s holds no clocksource name", CLOCKSOURCE_PATH);
		return;
	}
	memcpy(c->source, buf, n);
	c->source[n] = '\0';
}

/*
 * The smallest change between two consecutive reads: the clock's own step
 * (a jiffy) or the cost of reading it, whichever is larger. 0 when the
 * clock never moved. Preemption only makes some changes larger.
 */
static uint64_t probe_step(unsigned long *reads_out)
{
	uint64_t start = mr_clock_ns(), prev = start, now, step = 0;
	unsigned long reads, changes = 0;

	for (reads = 1; reads <= PROBE_MAX_READS; reads++) {
		now = mr_clock_ns();
		if (now <= prev)
			continue;
		if (!step || now - prev < step)
			step = now - prev;
		prev = now;
		if (++changes >= PROBE_CHANGES || now - start >= PROBE_NS)
			break;
	}
	*reads_out = reads;
	return step;
}

/*
 * x86 boots on "tsc-early" and moves to "tsc" once the TSC has been
 * calibrated again against another clock, about a second after boot; only
 * then can high-resolution timers start. A run that began before would
 * switch clocks in the middle of its measurements, so wait for the switch
 * (idle time costs nothing under instruction-paced TCG).
 */
#define SETTLE_NS (5 * 1000 * 1000 * 1000ULL)

static void settle_clocksource(struct mr_clock *c, char *why, size_t len)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	uint64_t start = mr_clock_ns();
	char first[sizeof(c->source)];

	if (strcmp(c->source, "tsc-early"))
		return;
	memcpy(first, c->source, sizeof(first));
	while (!strcmp(c->source, first) && mr_clock_ns() - start < SETTLE_NS) {
		nanosleep(&pause, NULL);
		read_clocksource(c, why, len);
	}
	mr_diag("waited %.2f s for the clocksource to settle: %s, then %s",
		(mr_clock_ns() - start) / 1e9, first, c->source);
}

void mr_clock_init(struct mr_clock *c, uint64_t floor_ns)
{
	char why[256] = "";
	struct timespec res;
	unsigned long reads;
	uint64_t measured;

	memset(c, 0, sizeof(*c));
	read_clocksource(c, why, sizeof(why));
	settle_clocksource(c, why, sizeof(why));
	if (!clock_getres(CLOCK_MONOTONIC, &res))
		c->getres_ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
	c->step_ns = probe_step(&reads);
	/*
	 * What a timing can resolve is the smallest step between two reads
	 * (a jiffy when the clocksource is jiffies). clock_getres() is the
	 * timers' resolution: the tick until high-resolution timers are on,
	 * even while the clocksource itself reads in nanoseconds, so it is
	 * printed but does not decide.
	 */
	measured = c->step_ns;
	if (!c->step_ns && measured < STILL_CLOCK_NS)
		measured = STILL_CLOCK_NS;
	c->resolution_ns = measured > floor_ns ? measured : floor_ns;

	mr_diag("clocksource: %s", c->source);
	if (*why)
		mr_diag("%s", why);
	mr_diag("clock: resolution_ns=%llu getres_ns=%llu step_ns=%llu",
		(unsigned long long)c->resolution_ns, (unsigned long long)c->getres_ns,
		(unsigned long long)c->step_ns);
	if (!c->step_ns)
		mr_diag("CLOCK_MONOTONIC did not move in %lu reads: taking %llu ns as its resolution",
			reads, (unsigned long long)measured);
	if (c->resolution_ns > measured)
		mr_diag("--clock-resolution: timings are judged against %llu ns, not the %llu ns measured",
			(unsigned long long)c->resolution_ns, (unsigned long long)measured);
}

int mr_resolved(const struct mr_ctx *ctx, uint64_t interval_ns)
{
	return interval_ns >= MR_MIN_TICKS * ctx->clock->resolution_ns;
}

unsigned mr_iterations(const struct mr_ctx *ctx, double op_ns, unsigned min, unsigned max)
{
	double want = ceil(MR_MIN_TICKS * (double)ctx->clock->resolution_ns / op_ns);

	if (want <= min)
		return min;
	if (want >= max)
		return max;
	return (unsigned)want;
}

uint64_t mr_timed_span_ns(const struct mr_ctx *ctx, uint64_t min_ns, uint64_t max_ns)
{
	uint64_t want = MR_MIN_TICKS * ctx->clock->resolution_ns;

	if (want <= min_ns)
		return min_ns;
	return want >= max_ns ? max_ns : want;
}

int mr_samples_init(struct mr_samples *s, unsigned max)
{
	s->v = calloc(max ? max : 1, sizeof(*s->v));
	s->n = 0;
	s->max = s->v ? max : 0;
	s->shortest_ns = UINT64_MAX;
	return s->v ? 0 : -1;
}

void mr_samples_reset(struct mr_samples *s)
{
	s->n = 0;
	s->shortest_ns = UINT64_MAX;
}

void mr_samples_release(struct mr_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->max = 0;
	s->shortest_ns = UINT64_MAX;
}

void mr_sample(struct mr_samples *s, double v)
{
	if (s->n >= s->max) {
		mr_diag("BUG: more than %u samples", s->max);
		abort();
	}
	s->v[s->n++] = v;
}

void mr_sample_timed(struct mr_samples *s, double v, uint64_t interval_ns)
{
	mr_sample(s, v);
	if (interval_ns < s->shortest_ns)
		s->shortest_ns = interval_ns;
}

void mr_samples_ratio(struct mr_samples *out, const struct mr_samples *num,
		      const struct mr_samples *den)
{
	unsigned i, n = num->n < den->n ? num->n : den->n;

	mr_samples_reset(out);
	for (i = 0; i < n; i++)
		mr_sample(out, den->v[i] ? num->v[i] / den->v[i] : 0);
	out->shortest_ns = num->shortest_ns < den->shortest_ns ? num->shortest_ns : den->shortest_ns;
}

/* lib/progress.c: the one progress drawer (see progress.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/progress.h"
#include "lib/util.h"

enum progress_when mks_progress = PROGRESS_AUTO;

static size_t cell_nr, cell_total;
/* progress_clock()'s: the run's start, the step's estimate, the steps' after it, when set */
static double clock_start, clock_step, clock_after, clock_set;

int progress_when_parse(enum progress_when *out, const char *s)
{
	if (!strcmp(s, "auto"))
		*out = PROGRESS_AUTO;
	else if (!strcmp(s, "always"))
		*out = PROGRESS_ALWAYS;
	else if (!strcmp(s, "never"))
		*out = PROGRESS_NEVER;
	else
		return -1;
	return 0;
}

enum progress_mode progress_mode_now(void)
{
	switch (mks_progress) {
	case PROGRESS_NEVER:
		return PROGRESS_OFF;
	case PROGRESS_ALWAYS:
		return PROGRESS_REDRAW;
	case PROGRESS_AUTO:
		break;
	}
	if (!mks_verbose)
		return PROGRESS_OFF;
	return mks_isatty_stderr() ? PROGRESS_REDRAW : PROGRESS_LOG;
}

int progress_wanted(void)
{
	return progress_mode_now() != PROGRESS_OFF;
}

double progress_log_interval(void)
{
	const char *s = getenv("MKSERIES_PROGRESS_INTERVAL");
	char *end;
	double v;

	if (!s || !*s)
		return 30;
	v = strtod(s, &end);
	return *end || !(v > 0) ? 30 : v;
}

void progress_cells(size_t first, size_t total)
{
	cell_nr = first;
	cell_total = total;
}

void progress_cell_next(void)
{
	if (cell_nr < cell_total)
		cell_nr++;
}

void progress_clock(double start, double step, double after)
{
	clock_start = start;
	clock_step = step;
	clock_after = after;
	clock_set = mono_seconds();
}

/* "[cell 3/16, 4m10s in, about 41m left] ", as much of it as is known. */
static void add_prefix(struct strbuf *sb)
{
	double now = mono_seconds(), step_left;
	int cell = cell_total && cell_nr;

	if (!cell && !clock_start)
		return;
	strbuf_addch(sb, '[');
	if (cell)
		strbuf_addf(sb, "cell %zu/%zu%s", cell_nr, cell_total, clock_start ? ", " : "");
	if (clock_start) {
		step_left = clock_step - (now - clock_set);
		strbuf_addf(sb, "%s in, ", format_duration(now - clock_start));
		strbuf_addf(sb, "about %s left",
			    format_rough(clock_after + (step_left > 0 ? step_left : 0)));
	}
	strbuf_addstr(sb, "] ");
}

void progress_init(struct progress *p, int enabled, double interval)
{
	p->mode = enabled ? progress_mode_now() : PROGRESS_OFF;
	p->enabled = p->mode != PROGRESS_OFF;
	p->interval = interval;
	p->drawn = 0;
	p->logged = mono_seconds();
	p->nr_logged = 0;
}

int progress_too_soon(const struct progress *p)
{
	return p->drawn && mono_seconds() - p->drawn < p->interval;
}

/* The terminal's width on stderr, 80 when it cannot be told. */
static size_t columns(void)
{
	struct winsize ws;

	if (!ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

static void draw(struct progress *p, const char *fmt, va_list ap, const char *end)
{
	struct strbuf text = STRBUF_INIT, sb = STRBUF_INIT;

	add_prefix(&text);
	strbuf_vaddf(&text, fmt, ap);
	strbuf_add_shown(&sb, text.buf, text.len, 0);
	if (p->mode == PROGRESS_LOG) {
		fprintf(stderr, "%s\n", sb.buf);
		p->logged = mono_seconds();
		p->nr_logged++;
	} else {
		size_t cols = columns();

		if (sb.len > cols - 1)
			strbuf_setlen(&sb, cols - 1);
		fprintf(stderr, "\r\033[K%s%s", sb.buf, end);
	}
	fflush(stderr);
	p->drawn = mono_seconds();
	strbuf_release(&sb);
	strbuf_release(&text);
}

int progress_show(struct progress *p, int force, const char *fmt, ...)
{
	va_list ap;

	if (!p->enabled)
		return 0;
	if (p->mode == PROGRESS_LOG) {
		if (mono_seconds() - p->logged < progress_log_interval())
			return 0;
	} else if (!force && progress_too_soon(p)) {
		return 0;
	}
	va_start(ap, fmt);
	draw(p, fmt, ap, "");
	va_end(ap);
	return 1;
}

void progress_clear(struct progress *p)
{
	if (p->enabled && p->mode == PROGRESS_REDRAW && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = 0;
}

void progress_done(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->enabled || (p->mode == PROGRESS_LOG && !p->nr_logged))
		return;
	va_start(ap, fmt);
	draw(p, fmt, ap, "\n");
	va_end(ap);
	p->drawn = 0;
}

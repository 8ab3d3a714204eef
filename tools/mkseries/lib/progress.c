/* lib/progress.c: the one progress line on stderr (see progress.h). */
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib/progress.h"
#include "lib/util.h"

void progress_init(struct progress *p, int enabled, double interval)
{
	p->enabled = enabled;
	p->interval = interval;
	p->drawn = 0;
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
	size_t cols = columns();

	strbuf_vaddf(&text, fmt, ap);
	strbuf_add_shown(&sb, text.buf, text.len, 0);
	if (sb.len > cols - 1)
		strbuf_setlen(&sb, cols - 1);
	fprintf(stderr, "\r\033[K%s%s", sb.buf, end);
	fflush(stderr);
	p->drawn = mono_seconds();
	strbuf_release(&sb);
	strbuf_release(&text);
}

int progress_show(struct progress *p, int force, const char *fmt, ...)
{
	va_list ap;

	if (!p->enabled || (!force && progress_too_soon(p)))
		return 0;
	va_start(ap, fmt);
	draw(p, fmt, ap, "");
	va_end(ap);
	return 1;
}

void progress_clear(struct progress *p)
{
	if (p->enabled && p->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->drawn = 0;
}

void progress_done(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->enabled)
		return;
	va_start(ap, fmt);
	draw(p, fmt, ap, "\n");
	va_end(ap);
	p->drawn = 0;
}

/* lib/progress.h: the one progress line on stderr, redrawn in place, cut to the terminal, cleared at the end. */
#ifndef MKSERIES_PROGRESS_H
#define MKSERIES_PROGRESS_H

/*
 * One line on stderr that a long step redraws ("6.12 base: building
 * 1m02s  CC mm/mremap.o"). Nothing is drawn unless `enabled` (the caller
 * decides: mks_isatty_stderr(), an option). Text goes through shown(),
 * so a file name or a console line cannot move the cursor.
 */
struct progress {
	int enabled;
	double interval;	/* seconds between two redraws that are not forced */
	double drawn;		/* mono_seconds() of the last draw, 0: never drawn */
};
#define PROGRESS_INIT { 0, 0.5, 0 }

void progress_init(struct progress *p, int enabled, double interval);

/*
 * Draw the line, cut to the terminal's width, unless it was drawn less
 * than p->interval ago and `force` is 0. Returns 1 when drawn.
 */
int progress_show(struct progress *p, int force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether a draw now would be too soon (less than p->interval after the last). */
int progress_too_soon(const struct progress *p);

/* Erase the line if one was drawn, leaving the cursor at its start. */
void progress_clear(struct progress *p);

/* Draw the line one last time, forced, and end it with a newline: it stays. */
void progress_done(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

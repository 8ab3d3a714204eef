/* lib/progress.h: the one progress drawer: a line redrawn on a terminal, a status line at a steady pace in a log. */
#ifndef MKSERIES_PROGRESS_H
#define MKSERIES_PROGRESS_H

#include <stddef.h>

/*
 * When progress is drawn: --progress=auto|always|never on every command.
 * auto: a line redrawn in place when stderr is a terminal, else (a CI
 * log, a pipe) a status line every MKSERIES_PROGRESS_INTERVAL seconds
 * (30 unless set); -q turns auto into never. always: the redrawn line
 * even off a terminal. never: nothing.
 */
enum progress_when {
	PROGRESS_AUTO = 0,
	PROGRESS_ALWAYS,
	PROGRESS_NEVER,
};
extern enum progress_when mks_progress;

/* Parse "auto", "always" or "never"; -1 (nothing printed) for anything else. */
int progress_when_parse(enum progress_when *out, const char *s);

enum progress_mode {
	PROGRESS_OFF = 0,
	PROGRESS_REDRAW,	/* one line, redrawn in place, cleared at the end */
	PROGRESS_LOG,		/* whole lines, one every progress_log_interval() seconds */
};
/* How progress is drawn now, from mks_progress, -q and whether stderr is a terminal. */
enum progress_mode progress_mode_now(void);
/* Whether a long step should report progress at all (progress_mode_now() is not off). */
int progress_wanted(void);
/* Seconds between two status lines off a terminal: MKSERIES_PROGRESS_INTERVAL, else 30. */
double progress_log_interval(void);

/*
 * The cell a command is at, shown as "[cell 3/16] " before every
 * progress line. progress_cells(first, total): the next cell is number
 * first + 1 of total (0 total: no cell shown); progress_cell_next()
 * moves to it.
 */
void progress_cells(size_t first, size_t total);
void progress_cell_next(void);

/*
 * The clock of a whole run, shown after the cell: "[cell 3/16, 4m10s
 * in, about 41m left] ". progress_clock(start, step, after) at the
 * start of each step that works: start is the run's mono_seconds(),
 * `step` the seconds this step is expected to take, `after` those of
 * the steps after it; what is left then counts down with the step and
 * never below `after`. A start of 0 turns the clock off.
 */
void progress_clock(double start, double step, double after);

/*
 * One line on stderr that a long step redraws ("6.12 base: building
 * 1m02s  CC mm/mremap.o"). Nothing is drawn unless `enabled` (the
 * caller wants progress for this step) and progress_mode_now() allows.
 * Text goes through shown(), so a file name or a console line cannot
 * move the cursor.
 */
struct progress {
	int enabled;		/* drawn at all: mode is not off */
	enum progress_mode mode;
	double interval;	/* seconds between two redraws that are not forced */
	double drawn;		/* mono_seconds() of the last draw, 0: never drawn */
	double logged;		/* PROGRESS_LOG: mono_seconds() of the last line (at first, of init) */
	unsigned nr_logged;	/* PROGRESS_LOG: lines printed */
};
#define PROGRESS_INIT { 0, PROGRESS_OFF, 0.5, 0, 0, 0 }

void progress_init(struct progress *p, int enabled, double interval);

/*
 * Draw the line, cut to the terminal's width, unless it was drawn less
 * than p->interval ago and `force` is 0. Off a terminal, a whole line
 * only when progress_log_interval() has passed since the last one (or
 * since progress_init()), whatever `force`. Returns 1 when drawn.
 */
int progress_show(struct progress *p, int force, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether a draw now would be too soon (less than p->interval after the last). */
int progress_too_soon(const struct progress *p);

/* Erase the line if one was drawn, leaving the cursor at its start. */
void progress_clear(struct progress *p);

/*
 * Draw the line one last time, forced, and end it with a newline: it
 * stays. Off a terminal, only when a status line was printed before.
 */
void progress_done(struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

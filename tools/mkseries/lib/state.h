/* lib/state.h: key=value state files that record what a step did. */
#ifndef MKSERIES_STATE_H
#define MKSERIES_STATE_H

#include <stdarg.h>

#include "lib/util.h"

/*
 * State files: "key=value" lines, one per key, values on one line.
 * A missing file reads as empty; one that is not a regular file of at
 * most STATE_FILE_MAX bytes is an error naming it. Values are stored as
 * given with newlines turned into spaces.
 */
/*
 * The most a state file may hold: a step's record or the backport
 * loop's notes of a patch touching thousands of files stay far below it,
 * and a file that is more (or is a device, a FIFO, a link to one) is
 * refused by state_read() without reading it.
 */
#define STATE_FILE_MAX ((size_t)8 << 20)

struct state {
	struct strvec kv;	/* "key=value" strings */
};
#define STATE_INIT { STRVEC_INIT }
int state_read(struct state *s, const char *path);
/* The value of key, or NULL. Points into s. */
const char *state_get(const struct state *s, const char *key);
void state_set(struct state *s, const char *key, const char *value);
void state_setf(struct state *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void state_vsetf(struct state *s, const char *key, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Written atomically; the directory is created when missing. */
int state_write(const struct state *s, const char *path);
void state_release(struct state *s);

#endif

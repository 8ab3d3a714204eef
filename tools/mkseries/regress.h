/* regress.h: the mm-regress binary that mkseries carries (see embed.S and builtin/regress.c). */
#ifndef MKSERIES_REGRESS_H
#define MKSERIES_REGRESS_H

#include <stddef.h>

/* The static mm-regress executable, linked in by embed.S. */
extern const char mm_regress_start[];
extern const char mm_regress_end[];

/* The embedded executable and its size; the bytes belong to the program image. */
const char *mm_regress_image(size_t *len);

/*
 * Write the embedded mm-regress to path (created or truncated) with mode
 * 0755, e.g. as the /init of an initramfs. Returns 0, or -1 with a
 * message naming the path.
 */
int mm_regress_write(const char *path);

#endif

/* vm/regress.h: the mm-regress binary that mkseries carries (see embed.S and regress.c). */
#ifndef MKSERIES_REGRESS_H
#define MKSERIES_REGRESS_H

#include <stddef.h>

/* The static mm-regress executable, linked in by embed.S. */
extern const char mm_regress_start[];
extern const char mm_regress_end[];

/* One per arch (see embed.S and the Makefile); *_why is a C string. */
extern const char mm_regress_x86_64_start[], mm_regress_x86_64_end[];
extern const char mm_regress_x86_64_why_start[], mm_regress_x86_64_why_end[];
extern const char mm_regress_aarch64_start[], mm_regress_aarch64_end[];
extern const char mm_regress_aarch64_why_start[], mm_regress_aarch64_why_end[];
extern const char mm_regress_sparc64_start[], mm_regress_sparc64_end[];
extern const char mm_regress_sparc64_why_start[], mm_regress_sparc64_why_end[];

/* The embedded executable and its size; the bytes belong to the program image. */
const char *mm_regress_image(size_t *len);

/*
 * The embedded mm-regress for guests whose uname -m is `machine`
 * ("aarch64"). *len is 0 when this mkseries carries none: then *why
 * (static, never NULL) says what was missing when it was built, or that
 * no such machine is known.
 */
const char *mm_regress_image_for(const char *machine, size_t *len, const char **why);
/* The SHA-1 of that image (of nothing when there is none), hex: a test key's part. Caller frees. */
char *mm_regress_hash(const char *machine);

/*
 * Write the embedded mm-regress to path (created or truncated) with mode
 * 0755, e.g. as the /init of an initramfs. Returns 0, or -1 with a
 * message naming the path.
 */
int mm_regress_write(const char *path);

#endif

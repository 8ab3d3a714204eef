/* kit/select.h: what the subcommands share: finding the kit and choosing branches. */
#ifndef MKSERIES_SELECT_H
#define MKSERIES_SELECT_H

#include "kit/model.h"

/*
 * The kit directory: `mkseries --kit DIR` (kit_dir_set()), else
 * $MKSERIES_KIT, else the nearest directory with a series.yaml from the
 * current one up ("." in the kit, ".." in its kernels/), but never up
 * into $MKSERIES_CEILING_DIRECTORY (as GIT_CEILING_DIRECTORIES), else "."
 * (kit_open() then says how to name it).
 */
const char *kit_dir(void);
/* Whether there is a kit to open: named (--kit, $MKSERIES_KIT) or found from here up. */
int kit_found(void);
/* What `--kit DIR` before the command said: kit_dir() returns it from then on. */
void kit_dir_set(const char *dir);

/*
 * Print "unknown branch 'x' (the kit has: ...)", with "; did you mean
 * 'y'?" when a name is close, the one wording of a name the kit does not
 * have. Return MKS_ECONFIG.
 */
int kit_unknown_branch(const struct kit *kit, const char *name);
int kit_unknown_series(const struct kit *kit, const char *name);

/* Load the kit from kit_dir(). Returns 0 or MKS_ECONFIG (printed). */
int kit_open(struct kit *kit);

/*
 * Branches a command works on: `branch` (by name), or every default
 * branch with `all`. Exactly one of them must be given unless
 * `default_all`, which means no --branch selects every default branch.
 * *out is a caller-owned array of pointers into kit.
 */
int select_branches(struct kernel_branch ***out, size_t *nr, const struct kit *kit,
		    const char *branch, int all, int default_all);

/*
 * Open the kit, choose its branches as select_branches() does and call
 * fn on each in turn; fn returns 0 or a negative code (MKS_E*), and one
 * branch's failure does not stop the next. Returns 0, the first code fn
 * returned, or MKS_ECONFIG (kept) when the kit or the choice does not do.
 */
int for_each_selected_branch(const char *branch, int all, int default_all,
			     int (*fn)(const struct kit *kit, const struct kernel_branch *b,
				       void *data),
			     void *data);

#endif

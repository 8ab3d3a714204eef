/* cells.h: what build and test work on: each selected branch's variants, one cell at a time. */
#ifndef MKSERIES_CELLS_H
#define MKSERIES_CELLS_H

#include "model.h"
#include "util.h"

/*
 * What build and test work on: the kit (from kit_dir()), the branches
 * (`branch`, or every default one with `all`) and the --variant names
 * `given`, checked against them. Returns 0, or a negative MKS_* code
 * after printing (MKS_ECONFIG for a kit or name that does not do); *sel
 * (caller frees) points into *kit, which the caller releases either way.
 */
int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given);

#endif

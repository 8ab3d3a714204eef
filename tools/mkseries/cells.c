/* cells.c: choosing the branches and variants a command works on. */
#include <stdlib.h>

#include "cells.h"
#include "select.h"
#include "variant.h"

int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given)
{
	struct strvec checked = STRVEC_INIT;
	int ret;

	*sel = NULL;
	*nr = 0;
	ret = variants_select(&checked, given);
	if (!ret)
		ret = kit_open(kit);
	if (!ret)
		ret = select_branches(sel, nr, kit, branch, all, 0);
	if (!ret)
		ret = variants_check(given, *sel, *nr);
	strvec_clear(&checked);
	/* Whatever a helper returned, what the caller gets is one of ours. */
	return ret > 0 ? MKS_ECONFIG : ret;
}

/* apply/variant.h: the commit each variant of a branch builds (their names are kit/variants.h's). */
#ifndef MKSERIES_VARIANT_H
#define MKSERIES_VARIANT_H

#include <git2.h>

#include "kit/model.h"
#include "kit/variants.h"
#include "lib/util.h"

/*
 * The commit of `variant` of branch b. *refname (caller frees, may be
 * NULL on return) names the ref read. MKS_ENOTFOUND, without printing,
 * when the ref does not exist yet: `why` then says so and which command
 * makes it ("no applied branch refs/heads/mkseries/<kit id>/6.12: run mkseries
 * apply --branch 6.12"). An unknown variant is MKS_ECONFIG; other
 * failures are printed.
 */
int variant_resolve(git_oid *out, char **refname, struct strbuf *why, git_repository *repo,
		    const struct kit *kit, const struct kernel_branch *b, const char *variant);

#endif

/* apply/variant.h: the variants of a branch: their names, refs and the selection of them. */
#ifndef MKSERIES_VARIANT_H
#define MKSERIES_VARIANT_H

#include <git2.h>

#include "kit/model.h"
#include "lib/util.h"

/*
 * Variants of a branch B: "base", the commit tagged
 * refs/tags/mkseries/base/B by an import, "kit", the branch
 * refs/heads/mkseries/<kit id>/B that apply writes, then the variants
 * kernels/B.yaml declares, in file order, each on the branch
 * refs/heads/mkseries-variants/<kit id>/B/<variant> that apply writes
 * too (kit_refname() names them).
 */
extern const char *const build_variants[];	/* NULL-terminated: "base", "kit" */
/* Whether `variant` is "base" or "kit". */
int variant_known(const char *variant);
/* Whether `variant` could name a variant: base, kit, or [a-z0-9][a-z0-9-]*. */
int variant_name_ok(const char *variant);

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

/*
 * The variants named by --variant options (`given`, each a possible
 * variant name), or "base" and "kit" when none. Returns 0 or MKS_ECONFIG
 * after printing. Which variants a branch has is variants_of_branch()'s.
 */
int variants_select(struct strvec *out, const struct strvec *given);

/*
 * Check that each of `given` (--variant options) is a variant of at
 * least one of the nr branches sel. Returns 0 or MKS_ECONFIG after
 * printing "unknown variant 'x' (known: base, kit, ...)".
 */
int variants_check(const struct strvec *given, struct kernel_branch *const *sel, size_t nr);


/*
 * The variants of b to work on: with `given` empty, all of them (base,
 * kit, the declared ones in file order); else those of `given` that b
 * has, in the order given.
 */
void variants_of_branch(struct strvec *out, const struct kernel_branch *b,
			const struct strvec *given);

#endif

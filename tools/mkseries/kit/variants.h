/* kit/variants.h: the names of a branch's variants and the selection of them; apply/variant.h finds their commits. */
#ifndef MKSERIES_KIT_VARIANTS_H
#define MKSERIES_KIT_VARIANTS_H

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
/* Whether `variant` could name a variant: base, kit, or [a-z0-9][a-z0-9-]*. */
int variant_name_ok(const char *variant);

/* "base, kit, <each variant the nr branches of sel declare>", once each, into sb. */
void variants_known_list(struct strbuf *sb, struct kernel_branch *const *sel, size_t nr);

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

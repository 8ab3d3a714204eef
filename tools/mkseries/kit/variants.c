/* kit/variants.c: the names of a branch's variants (base, kit, the declared ones) and which a command works on. */
#include <ctype.h>
#include <string.h>

#include "kit/variants.h"

const char *const build_variants[] = { "base", "kit", NULL };

/* Whether `variant` is "base" or "kit". */
static int variant_known(const char *variant)
{
	size_t i;

	for (i = 0; build_variants[i]; i++)
		if (!strcmp(variant, build_variants[i]))
			return 1;
	return 0;
}

int variant_name_ok(const char *variant)
{
	if (!islower((unsigned char)*variant) && !isdigit((unsigned char)*variant))
		return 0;
	return !variant[strspn(variant, "abcdefghijklmnopqrstuvwxyz0123456789-")];
}

static int branch_has_variant(const struct kernel_branch *b, const char *variant)
{
	return variant_known(variant) || branch_find_variant(b, variant);
}

void variants_known_list(struct strbuf *sb, struct kernel_branch *const *sel, size_t nr)
{
	struct strvec seen = STRVEC_INIT;
	size_t i, j, k;

	for (i = 0; build_variants[i]; i++)
		strvec_push(&seen, build_variants[i]);
	for (i = 0; i < nr; i++)
		for (j = 0; j < sel[i]->nr_variants; j++) {
			for (k = 0; k < seen.nr && strcmp(seen.v[k], sel[i]->variants[j].name); k++)
				;
			if (k == seen.nr)
				strvec_push(&seen, sel[i]->variants[j].name);
		}
	for (i = 0; i < seen.nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", seen.v[i]);
	strvec_clear(&seen);
}

int variants_select(struct strvec *out, const struct strvec *given)
{
	size_t i, j;

	if (!given->nr) {
		for (i = 0; build_variants[i]; i++)
			strvec_push(out, build_variants[i]);
		return 0;
	}
	for (i = 0; i < given->nr; i++) {
		if (!variant_name_ok(given->v[i]))
			return error_code(MKS_ECONFIG, "unknown variant '%s' (base, kit, or one a kernels/<branch>.yaml declares)",
					  given->v[i]);
		for (j = 0; j < out->nr; j++)
			if (!strcmp(out->v[j], given->v[i]))
				break;
		if (j == out->nr)
			strvec_push(out, given->v[i]);
	}
	return 0;
}

int variants_check(const struct strvec *given, struct kernel_branch *const *sel, size_t nr)
{
	size_t i, j;

	for (i = 0; i < given->nr; i++) {
		struct strbuf known = STRBUF_INIT;

		for (j = 0; j < nr && !branch_has_variant(sel[j], given->v[i]); j++)
			;
		if (j < nr)
			continue;
		variants_known_list(&known, sel, nr);
		error("unknown variant '%s' (known: %s)", given->v[i], known.buf);
		strbuf_release(&known);
		return MKS_ECONFIG;
	}
	return 0;
}

void variants_of_branch(struct strvec *out, const struct kernel_branch *b,
			const struct strvec *given)
{
	size_t i, j;

	if (!given || !given->nr) {
		for (i = 0; build_variants[i]; i++)
			strvec_push(out, build_variants[i]);
		for (i = 0; i < b->nr_variants; i++)
			strvec_push(out, b->variants[i].name);
		return;
	}
	for (i = 0; i < given->nr; i++) {
		if (!branch_has_variant(b, given->v[i]))
			continue;
		for (j = 0; j < out->nr && strcmp(out->v[j], given->v[i]); j++)
			;
		if (j == out->nr)
			strvec_push(out, given->v[i]);
	}
}

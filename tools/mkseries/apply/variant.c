/* apply/variant.c: the variants of a branch: names, the commit each one builds, which ones a command works on. */
#include <string.h>

#include "apply/variant.h"
#include "lib/gitutil.h"
#include "tree/tree.h"

int variant_resolve(git_oid *out, char **refname, struct strbuf *why, git_repository *repo,
		    const struct kit *kit, const struct kernel_branch *b, const char *variant)
{
	git_object *obj = NULL;
	int err;

	*refname = NULL;
	if (!strcmp(variant, "base")) {
		*refname = xstrdup(tree_base_refname(b));
		err = tree_base(out, repo, b);
		if (err == MKS_ENOTFOUND)
			strbuf_addf(why, "not imported (no %s): run mkseries import --branch %s",
				    *refname, b->name);
		return err;
	}
	if (!strcmp(variant, "kit") || branch_find_variant(b, variant)) {
		*refname = kit_refname(kit, b, variant);
	} else {
		struct strbuf known = STRBUF_INIT;
		struct kernel_branch *one = (struct kernel_branch *)b;

		variants_known_list(&known, &one, 1);
		err = error_code(MKS_ECONFIG, "unknown variant '%s' of '%s' (known: %s)", variant,
				 b->name, known.buf);
		strbuf_release(&known);
		return err;
	}
	err = git_revparse_single(&obj, repo, *refname);
	if (err == GIT_ENOTFOUND) {
		strbuf_addf(why, "no applied branch %s: run mkseries apply --branch %s", *refname,
			    b->name);
		return MKS_ENOTFOUND;
	}
	if (err >= 0) {
		git_object *commit = NULL;

		err = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
		if (err >= 0)
			git_oid_cpy(out, git_object_id(commit));
		git_object_free(commit);
	}
	git_object_free(obj);
	if (err < 0)
		return gitutil_error(err, "cannot read '%s'", *refname);
	return 0;
}


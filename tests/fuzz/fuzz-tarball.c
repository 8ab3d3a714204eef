/* fuzz-tarball.c: libFuzzer target for the tarball importer (tree.c) writing into a scratch bare repository. */
#include <git2.h>
#include <stdint.h>

#include "lib/util.h"
#include "fuzz-common.h"
#include "lib/gitutil.h"
#include "tree/tarimport.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static git_repository *repo;
	static char *tarball;
	git_oid tree;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	if (!repo) {
		char *path = xstrfmt("%s/repo.git", fuzz_scratch());

		gitutil_init();
		if (git_repository_init(&repo, path, 1) < 0)
			abort();
		free(path);
		tarball = xstrfmt("%s/in.tar", fuzz_scratch());
	}
	fuzz_write(tarball, data, size);
	tree_from_tarball(&tree, repo, tarball);
	return 0;
}

/* fuzz-apply.c: libFuzzer target for apply_diff() (diff/apply.c): a diff applied to a small tree in an in-memory repository. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include "lib/util.h"
#include "diff/apply.h"
#include "diff/present.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static git_repository *repo;
static git_odb_backend *mempack;

/* The tree the diffs go on: the files the seed diffs name, a link and a subdirectory. */
static const struct {
	const char *path, *text;
	git_filemode_t mode;
} files[] = {
	{ "mm/mremap.c", "static int move_ptes(void)\n{\n\treturn 0;\n}\n", GIT_FILEMODE_BLOB },
	{ "mm/madvise.c", "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n",
	  GIT_FILEMODE_BLOB },
	{ "mm/link.c", "mremap.c", GIT_FILEMODE_LINK },
	{ "scripts/run.sh", "#!/bin/sh\necho ok\n", GIT_FILEMODE_BLOB_EXECUTABLE },
};

static void die_git(const char *what)
{
	const git_error *e = git_error_last();

	fprintf(stderr, "fuzz-apply: %s: %s\n", what, e ? e->message : "?");
	abort();
}

/* The base tree, written again after each input empties the in-memory store. */
static void write_base(git_oid *tree)
{
	git_treebuilder *top = NULL, *mm = NULL, *scripts = NULL;
	git_oid id, sub;
	size_t i;

	if (git_treebuilder_new(&top, repo, NULL) || git_treebuilder_new(&mm, repo, NULL) ||
	    git_treebuilder_new(&scripts, repo, NULL))
		die_git("treebuilder");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *slash = strchr(files[i].path, '/');

		if (git_blob_create_from_buffer(&id, repo, files[i].text, strlen(files[i].text)) ||
		    git_treebuilder_insert(NULL, !strncmp(files[i].path, "mm/", 3) ? mm : scripts,
					   slash + 1, &id, files[i].mode))
			die_git("blob");
	}
	if (git_treebuilder_write(&sub, mm) ||
	    git_treebuilder_insert(NULL, top, "mm", &sub, GIT_FILEMODE_TREE) ||
	    git_treebuilder_write(&sub, scripts) ||
	    git_treebuilder_insert(NULL, top, "scripts", &sub, GIT_FILEMODE_TREE) ||
	    git_treebuilder_write(tree, top))
		die_git("tree");
	git_treebuilder_free(scripts);
	git_treebuilder_free(mm);
	git_treebuilder_free(top);
}

static void setup(void)
{
	git_odb *odb = NULL;

	git_libgit2_init();
	if (git_odb_new(&odb) || git_mempack_new(&mempack) ||
	    git_odb_add_backend(odb, mempack, 1) || git_repository_wrap_odb(&repo, odb))
		die_git("in-memory repository");
	git_odb_free(odb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf report = STRBUF_INIT;
	git_oid base, out;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	if (!repo)
		setup();
	write_base(&base);
	apply_diff(&out, repo, &base, (const char *)data, size, &report);
	apply_is_present(repo, &base, (const char *)data, size);
	strbuf_release(&report);
	git_mempack_reset(mempack);
	return 0;
}

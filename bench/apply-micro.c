/* apply-micro.c: time per patch, confined apply against whole-tree apply, 50,000 files. */
/*
 * Not built by the Makefile. Build and run by hand after `make B=build`:
 *
 *   cc -O2 -std=gnu11 -Itools/mkseries $(pkg-config --cflags libgit2) \
 *      -o build/apply-micro bench/apply-micro.c \
 *      build/obj/mkseries/apply.o build/obj/mkseries/gitutil.o build/obj/mkseries/util.o \
 *      $(pkg-config --libs libgit2)
 *   build/apply-micro [FILES]
 *
 * It builds a synthetic repository (git fast-import) in a temporary
 * directory, applies a one-file and a five-file patch both ways, checks
 * that both give the same tree, and prints the mean time of each.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "diff/apply.h"
#include "lib/gitutil.h"

#define DIRS 50
#define SUBS 20

static void file_content(struct strbuf *sb, const char *path, const char *changed_line5)
{
	int i;

	for (i = 1; i <= 12; i++) {
		if (i == 5 && changed_line5)
			strbuf_addf(sb, "%s\n", changed_line5);
		else
			strbuf_addf(sb, "%s line %d\n", path, i);
	}
}

/* A git diff that changes line 5 of each path. */
static void make_patch(struct strbuf *diff, const char **paths, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		strbuf_addf(diff, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -2,7 +2,7 @@\n",
			    paths[i], paths[i], paths[i], paths[i]);
		for (k = 2; k <= 8; k++) {
			if (k == 5)
				strbuf_addf(diff, "-%s line 5\n+%s line 5 changed\n", paths[i], paths[i]);
			else
				strbuf_addf(diff, " %s line %d\n", paths[i], k);
		}
	}
}

static int whole_tree(git_oid *out, git_repository *repo, git_tree *tree, git_diff *diff)
{
	git_index *idx = NULL;
	int err = git_apply_to_tree(&idx, repo, tree, diff, NULL);

	if (!err)
		err = git_index_write_tree_to(out, idx, repo);
	git_index_free(idx);
	return err;
}

static void bench(git_repository *repo, const git_oid *base, const char *name, const char **paths,
		  int n)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_tree *tree = NULL;
	git_diff *d = NULL;
	git_oid ours, theirs;
	double t0, confined, whole;
	int i, rounds_c = 200, rounds_w = 10;

	make_patch(&diff, paths, n);
	if (apply_diff(&ours, repo, base, diff.buf, diff.len, &report))
		die("confined apply failed: %s", report.buf);
	if (git_tree_lookup(&tree, repo, base) || git_diff_from_buffer(&d, diff.buf, diff.len) ||
	    whole_tree(&theirs, repo, tree, d))
		die("whole-tree apply failed");
	if (!git_oid_equal(&ours, &theirs))
		die("the two applies disagree");

	t0 = mono_seconds();
	for (i = 0; i < rounds_c; i++)
		apply_diff(&ours, repo, base, diff.buf, diff.len, &report);
	confined = (mono_seconds() - t0) / rounds_c;
	t0 = mono_seconds();
	for (i = 0; i < rounds_w; i++)
		whole_tree(&theirs, repo, tree, d);
	whole = (mono_seconds() - t0) / rounds_w;
	printf("%-10s confined %8.3f ms   whole tree %8.3f ms   (%.0fx), same tree %s\n", name,
	       confined * 1e3, whole * 1e3, whole / confined, oid_short(&ours));
	git_diff_free(d);
	git_tree_free(tree);
	strbuf_release(&diff);
	strbuf_release(&report);
}

int main(int argc, char **argv)
{
	int files = argc > 1 ? atoi(argv[1]) : 50000, per_sub = files / (DIRS * SUBS), i;
	char tmpl[] = "/tmp/apply-micro.XXXXXX";
	struct strbuf stream = STRBUF_INIT, content = STRBUF_INIT, out = STRBUF_INIT;
	struct child cmd = CHILD_INIT;
	git_repository *repo = NULL;
	git_oid base;
	char path[128];
	double t0;
	const char *one[] = { "dir7/sub3/file21.c" };
	const char *five[] = { "dir0/sub0/file0.c", "dir7/sub3/file21.c", "dir19/sub11/file5.c",
			       "dir33/sub2/file40.c", "dir49/sub19/file49.c" };

	gitutil_init();
	if (per_sub < 50)
		die("use at least %d files", DIRS * SUBS * 50);
	if (!mkdtemp(tmpl) || git_repository_init(&repo, tmpl, 1))
		die("cannot create a repository");
	t0 = mono_seconds();
	for (i = 0; i < DIRS * SUBS * per_sub; i++) {
		snprintf(path, sizeof(path), "dir%d/sub%d/file%d.c", i / (SUBS * per_sub),
			 i / per_sub % SUBS, i % per_sub);
		strbuf_reset(&content);
		file_content(&content, path, NULL);
		strbuf_addf(&stream, "blob\nmark :%d\ndata %zu\n%s\n", i + 1, content.len, content.buf);
	}
	strbuf_addstr(&stream, "commit refs/heads/main\ncommitter B <b@example.org> 1700000000 +0000\n"
		      "data 5\nbase\n");
	for (i = 0; i < DIRS * SUBS * per_sub; i++)
		strbuf_addf(&stream, "M 100644 :%d dir%d/sub%d/file%d.c\n", i + 1, i / (SUBS * per_sub),
			    i / per_sub % SUBS, i % per_sub);
	strvec_pushl(&cmd.argv, "git", "--git-dir", tmpl, "fast-import", "--quiet", NULL);
	cmd.in = stream.buf;
	if (child_run(&cmd))
		die("git fast-import failed");
	child_release(&cmd);
	strvec_pushl(&cmd.argv, "git", "--git-dir", tmpl, "rev-parse", "main^{tree}", NULL);
	cmd.in = NULL;
	cmd.out = &out;
	if (child_run(&cmd))
		die("git rev-parse failed");
	strbuf_rtrim(&out);
	git_oid_fromstr(&base, out.buf);
	printf("# %d files in %d directories, built in %.1f s\n", DIRS * SUBS * per_sub,
	       DIRS * SUBS + DIRS, mono_seconds() - t0);

	bench(repo, &base, "1 file", one, 1);
	bench(repo, &base, "5 files", five, 5);

	child_release(&cmd);
	git_repository_free(repo);
	remove_tree(tmpl);
	strbuf_release(&stream);
	strbuf_release(&content);
	strbuf_release(&out);
	return 0;
}

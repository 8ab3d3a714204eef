/* test-wtscan.c: unit tests for the work-tree scan (apply/wtscan.c), the tree diff that skips equal subtrees (tree_delta_diff) and the loop's read of its work tree (backport_worktree_tree). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/backport.h"
#include "apply/wtscan.h"
#include "lib/gitutil.h"
#include "lib/util.h"
#include "tap.h"

static char top[] = "/tmp/test-wtscan-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = path_join(top, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	mkdir_p(p, 0777);
	*slash = '/';
	if (write_file_atomic(p, text, strlen(text)))
		printf("# cannot write %s\n", p);
	free(p);
}

/* The repository with every file of the work tree in its index, written. */
static git_repository *setup(void)
{
	git_repository *repo = NULL;
	git_index *index = NULL;
	char *link;

	if (!mkdtemp(top) || git_repository_init(&repo, top, 0) < 0)
		return NULL;
	put("top.c", "top\n");
	put(".gitignore", "*.o\n");
	put("a/x.c", "x\n");
	put("a/b/y.c", "y\n");
	put("c/z.c", "z\n");
	put("c/run.sh", "echo\n");
	link = path_join(top, "c/link");
	if (symlink("z.c", link))
		printf("# cannot make %s\n", link);
	free(link);
	if (git_repository_index(&index, repo) < 0 || git_index_add_all(index, NULL, 0, NULL, NULL) < 0 ||
	    git_index_write(index) < 0)
		printf("# cannot write the index: %s\n", git_error_last()->message);
	git_index_free(index);
	return repo;
}

static const struct wtscan_change *find(const struct wtscan *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->v[i].path, path))
			return &s->v[i];
	return NULL;
}

static int scan(struct wtscan *s, git_repository *repo, unsigned flags)
{
	git_index *index = NULL;
	int ret;

	wtscan_release(s);
	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0)
		return -1;
	ret = wtscan_run(s, repo, index, flags);
	git_index_free(index);
	return ret;
}

/* A record of a scan `ahead` seconds from now, with directories `dirty` (NUL-separated, len bytes). */
static void record(git_repository *repo, long ahead, const char *dirty, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xstrfmt("%smkseries-wtscan", git_repository_path(repo));

	strbuf_addf(&sb, "mkseries-wtscan 1 %lld 0\n", (long long)time(NULL) + ahead);
	strbuf_add(&sb, dirty, len);
	if (write_file_atomic(p, sb.buf, sb.len))
		printf("# cannot write %s\n", p);
	strbuf_release(&sb);
	free(p);
}

static void test_scan(git_repository *repo)
{
	struct wtscan s = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const struct wtscan_change *c;
	char *p;

	is_int(scan(&s, repo, 0), 0, "a clean tree scans");
	is_int(s.nr, 0, "and has no change");
	is_int(s.dirs_read, 4, "without a record every directory is read (top, a, a/b, c)");

	put("a/new.c", "new\n");
	put("a/x.o", "obj\n");
	is_int(scan(&s, repo, 0), 0, "a new file");
	c = find(&s, "a/new.c");
	ok(c && c->how == WTSCAN_NEW, "is found");
	ok(!find(&s, "a/x.o"), "an ignored one is left out");
	is_int(scan(&s, repo, WTSCAN_IGNORED), 0, "with WTSCAN_IGNORED");
	c = find(&s, "a/x.o");
	ok(c && c->how == WTSCAN_NEW_IGNORED, "it is named as ignored");
	p = xstrfmt("%smkseries-wtscan", git_repository_path(repo));
	strbuf_read_file(&sb, p);
	free(p);
	ok(sb.len > 2 && !memcmp(sb.buf + sb.len - 2, "a", 2) && !memchr(sb.buf, '\0', sb.len - 2),
	   "the record names a/ alone, the directory that held new files");
	strbuf_release(&sb);

	record(repo, 60, "", 0);
	is_int(scan(&s, repo, 0), 0, "a record later than every directory's change, listing none");
	is_int(s.dirs_read, 0, "reads no directory");
	ok(!find(&s, "a/new.c"), "and so cannot see the new file: the record is trusted");
	record(repo, 60, "a", 2);
	is_int(scan(&s, repo, 0), 0, "the same record listing a/");
	is_int(s.dirs_read, 1, "reads a/ alone");
	ok(find(&s, "a/new.c") != NULL, "and finds the new file there");

	p = path_join(top, "a/new.c");
	unlink(p);
	free(p);
	p = path_join(top, "a/x.o");
	unlink(p);
	free(p);
	put("a/x.c", "X\n");	/* the same size: found by its content */
	put("top.c", "top and more\n");
	p = path_join(top, "c/z.c");
	unlink(p);
	free(p);
	p = path_join(top, "c/run.sh");
	chmod(p, 0755);
	free(p);
	p = path_join(top, "c/link");
	unlink(p);
	if (symlink("run.sh", p))
		printf("# cannot make %s\n", p);
	free(p);
	record(repo, -60, "", 0);
	is_int(scan(&s, repo, 0), 0, "a tree with changes");
	c = find(&s, "a/x.c");
	ok(c && c->how == WTSCAN_MODIFIED, "a file of the same size, changed");
	c = find(&s, "top.c");
	ok(c && c->how == WTSCAN_MODIFIED, "a file of another size");
	c = find(&s, "c/z.c");
	ok(c && c->how == WTSCAN_DELETED, "a file removed");
	c = find(&s, "c/run.sh");
	ok(c && c->how == WTSCAN_MODIFIED, "a file made executable");
	c = find(&s, "c/link");
	ok(c && c->how == WTSCAN_MODIFIED, "a link pointed elsewhere");
	is_int(s.nr, 5, "and nothing else");
	ok(s.nr == 5 && !strcmp(s.v[0].path, "a/x.c") && !strcmp(s.v[4].path, "top.c"),
	   "sorted by path");

	p = path_join(top, "a/b");
	remove_tree(p);
	free(p);
	put("a/b", "now a file\n");
	is_int(scan(&s, repo, 0), 0, "a directory replaced by a file");
	c = find(&s, "a/b/y.c");
	ok(c && c->how == WTSCAN_DELETED, "its file is deleted");
	c = find(&s, "a/b");
	ok(c && c->how == WTSCAN_NEW, "the file is new");
	wtscan_release(&s);
}

static void test_refresh(git_repository *repo)
{
	git_index *index = NULL;
	struct wtscan s = { 0 };
	const git_index_entry *e;
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	char *p = path_join(top, ".gitignore");
	struct stat st;

	utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW);
	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0)
		return;
	is_int(wtscan_run(&s, repo, index, WTSCAN_REFRESH), 0, "a file touched, not changed");
	ok(!find(&s, ".gitignore"), "is no change");
	e = git_index_get_bypath(index, ".gitignore", 0);
	ok(e && !lstat(p, &st) && e->mtime.seconds == (int32_t)st.st_mtim.tv_sec,
	   "and WTSCAN_REFRESH gives its entry the new stat data");
	wtscan_release(&s);
	git_index_free(index);
	free(p);
}

/* Each delta of libgit2's tree diff is tree_delta_diff()'s, in the same order. */
static void test_tree_delta(git_repository *repo)
{
	git_index *index = NULL;
	git_oid before, after;
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	struct tree_delta d = { 0 };
	size_t i, n;
	int same = 1;

	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0 ||
	    git_index_write_tree(&before, index) < 0 ||
	    git_index_add_all(index, NULL, 0, NULL, NULL) < 0 ||
	    git_index_update_all(index, NULL, NULL, NULL) < 0 ||
	    git_index_write_tree(&after, index) < 0 ||
	    git_tree_lookup(&a, repo, &before) < 0 || git_tree_lookup(&b, repo, &after) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, a, b, NULL) < 0) {
		ok(0, "trees to compare: %s", git_error_last() ? git_error_last()->message : "?");
		return;
	}
	is_int(tree_delta_diff(&d, repo, a, b), 0, "tree_delta_diff");
	n = git_diff_num_deltas(diff);
	is_int(d.nr, n, "as many files as libgit2's diff");
	ok(n > 3, "of a change of several files (%zu)", n);
	for (i = 0; i < n && i < d.nr; i++) {
		const git_diff_delta *g = git_diff_get_delta(diff, i);

		if (g->status != d.v[i].status || strcmp(g->new_file.path, d.v[i].new_file.path) ||
		    !git_oid_equal(&g->new_file.id, &d.v[i].new_file.id) ||
		    !git_oid_equal(&g->old_file.id, &d.v[i].old_file.id) ||
		    g->new_file.mode != d.v[i].new_file.mode) {
			same = 0;
			printf("# %zu: %s %d against %s %d\n", i, g->new_file.path, g->status,
			       d.v[i].new_file.path, d.v[i].status);
		}
	}
	ok(same, "each with its status, path, ids and mode, in the same order");
	tree_delta_release(&d);
	is_int(tree_delta_diff(&d, repo, a, a), 0, "a tree against itself");
	is_int(d.nr, 0, "differs in nothing");
	tree_delta_release(&d);
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	git_index_free(index);
}

/* The tree git write-tree gives for the index of `repo` as its file has it now. */
static void index_tree(git_oid *out, git_repository *repo)
{
	git_index *index = NULL;

	memset(out, 0, sizeof(*out));
	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0 ||
	    git_index_write_tree(out, index) < 0)
		printf("# cannot write the index's tree: %s\n", git_error_last()->message);
	git_index_free(index);
}

/* The record of the index's tree: "mkseries-index-tree 1 <checksum> <tree>". */
static char *index_record(git_repository *repo)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xstrfmt("%smkseries-index-tree", git_repository_path(repo));

	strbuf_read_file(&sb, p);
	free(p);
	return strbuf_detach(&sb, NULL);
}

static void put_record(git_repository *repo, const char *text)
{
	char *p = xstrfmt("%smkseries-index-tree", git_repository_path(repo));

	if (write_file_atomic(p, text, strlen(text)))
		printf("# cannot write %s\n", p);
	free(p);
}

/* backport_worktree_tree() against the same work tree read back by libgit2 whole. */
static void worktree_tree_is_git(git_repository *repo, const char *what)
{
	git_oid got, want;

	ok(backport_worktree_tree(&got, top, NULL, NULL, NULL) >= 0, "%s: read", what);
	index_tree(&want, repo);
	ok(git_oid_equal(&got, &want), "%s: the tree is what git write-tree gives", what);
}

/*
 * The record of the index's tree is believed while the index is the one
 * recorded, and only then; either way the tree read is the work tree.
 */
static void test_worktree_tree(git_repository *repo)
{
	char want[GIT_OID_HEXSZ + 1], *rec, *p, *lie;
	git_index *index = NULL;
	git_oid before, tree;

	worktree_tree_is_git(repo, "without a record");
	index_tree(&before, repo);
	rec = index_record(repo);
	git_oid_tostr(want, sizeof(want), &before);
	ok(!strncmp(rec, "mkseries-index-tree 1 ", 22) && strlen(rec) == 22 + 2 * GIT_OID_HEXSZ + 2 &&
	   !strncmp(rec + 23 + GIT_OID_HEXSZ, want, GIT_OID_HEXSZ),
	   "a record of the index's checksum and its tree is written");

	put("a/x.c", "x edited\n");
	put("d/e/f.c", "f\n");
	p = path_join(top, "a/b/y.c");
	unlink(p);
	free(p);
	worktree_tree_is_git(repo, "an edit, a new directory, a directory emptied, from the record");
	p = index_record(repo);
	ok(strcmp(p, rec) != 0, "and the record is of the new index");
	free(p);
	free(rec);

	/* a record of this very index naming another tree: believed, so the answer is built on it */
	rec = index_record(repo);
	lie = xstrdup(rec);
	git_oid_tostr(want, sizeof(want), &before);
	memcpy(lie + 23 + GIT_OID_HEXSZ, want, GIT_OID_HEXSZ);
	put_record(repo, lie);
	put("top.c", "top again\n");
	ok(backport_worktree_tree(&tree, top, NULL, NULL, NULL) >= 0, "a record that lies is read");
	index_tree(&before, repo);
	ok(!git_oid_equal(&tree, &before), "and believed while the index is the one it names");
	free(lie);
	free(rec);

	/* git writes the index (a file staged): the record is not believed */
	put("a/x.c", "x staged\n");
	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0 ||
	    git_index_add_bypath(index, "a/x.c") < 0 || git_index_write(index) < 0)
		printf("# cannot stage a/x.c: %s\n", git_error_last()->message);
	git_index_free(index);
	put("a/staged.c", "new, staged\n");
	if (git_repository_index(&index, repo) < 0 || git_index_read(index, 1) < 0 ||
	    git_index_add_bypath(index, "a/staged.c") < 0 || git_index_write(index) < 0)
		printf("# cannot stage a/staged.c: %s\n", git_error_last()->message);
	git_index_free(index);
	worktree_tree_is_git(repo, "after git staged files");
	index_tree(&tree, repo);
	{
		git_tree *t = NULL;
		git_tree_entry *e = NULL;

		ok(!git_tree_lookup(&t, repo, &tree) && !git_tree_entry_bypath(&e, t, "a/staged.c"),
		   "the staged new file is in it");
		git_tree_entry_free(e);
		git_tree_free(t);
	}

	/* a file becomes a directory and a directory a file: libgit2's own way, the same answer */
	p = path_join(top, "c/z.c");
	unlink(p);
	free(p);
	put("c/z.c/inner.c", "inner\n");
	p = path_join(top, "d/e");
	remove_tree(p);
	free(p);
	put("d/e", "now a file\n");
	worktree_tree_is_git(repo, "a file made a directory, a directory a file");
}

int main(void)
{
	git_repository *repo = setup();

	if (!ok(repo != NULL, "a repository to scan"))
		return tap_done();
	test_scan(repo);
	test_refresh(repo);
	test_tree_delta(repo);
	test_worktree_tree(repo);
	git_repository_free(repo);
	remove_tree(top);
	return tap_done();
}

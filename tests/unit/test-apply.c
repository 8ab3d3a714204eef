/* test-apply.c: apply.c against `git apply --cached`: trees, reports, unsafe paths, presence. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff/apply.h"
#include "diff/present.h"
#include "lib/gitutil.h"
#include "tap.h"

static char *tmp;	/* scratch directory, removed at the end */
static char *work;	/* the test repository's work tree */
static git_repository *repo;
static git_oid base_tree, base_commit;

/* Run git in the work tree with a clean configuration; stdout into out. Returns the exit status. */
static int git_run(struct strbuf *out, const char *in, ...)
{
	struct child cmd = CHILD_INIT;
	struct strbuf err = STRBUF_INIT;
	const char *a;
	va_list ap;
	int ret;

	strvec_push(&cmd.argv, "git");
	va_start(ap, in);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cmd.argv, a);
	va_end(ap);
	strvec_pushf(&cmd.env, "HOME=%s", tmp);
	strvec_pushl(&cmd.env, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=/nonexistent",
		     "GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.org",
		     "GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.org",
		     "GIT_AUTHOR_DATE=1700000000 +0000", "GIT_COMMITTER_DATE=1700000000 +0000",
		     NULL);
	cmd.dir = work;
	cmd.in = in;
	cmd.out = out;
	cmd.err = &err;
	ret = child_run(&cmd);
	child_release(&cmd);
	strbuf_release(&err);
	return ret;
}

static void put(const char *path, const char *content)
{
	char *full = path_join(work, path);
	char *dir = xstrdup(full);

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	unlink(full);
	if (write_file_atomic(full, content, strlen(content)))
		die("cannot write '%s'", full);
	free(dir);
	free(full);
}

/* A binary file: 256 bytes counting from `start`, NULs included. */
static void put_binary(const char *path, int start)
{
	char *full = path_join(work, path);
	unsigned char buf[256];
	int i;

	for (i = 0; i < 256; i++)
		buf[i] = (unsigned char)(start + i);
	*strrchr(full, '/') = '\0';
	mkdir_p(full, 0755);
	full[strlen(full)] = '/';
	unlink(full);
	if (write_file_atomic(full, buf, sizeof(buf)))
		die("cannot write '%s'", full);
	free(full);
}

/* A file of `n` numbered lines "<tag> line N". */
static void put_lines(const char *path, const char *tag, int n)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	for (i = 1; i <= n; i++)
		strbuf_addf(&sb, "%s line %d\n", tag, i);
	put(path, sb.buf);
	strbuf_release(&sb);
}

/* Replace line `nr` (1-based) of a file by `text`. */
static void edit_line(const char *path, int nr, const char *text)
{
	char *full = path_join(work, path);
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	char *p, *save = NULL;
	int i = 1;

	if (strbuf_read_file(&in, full))
		die("cannot read '%s'", full);
	for (p = strtok_r(in.buf, "\n", &save); p; p = strtok_r(NULL, "\n", &save), i++)
		strbuf_addf(&out, "%s\n", i == nr ? text : p);
	put(path, out.buf);
	strbuf_release(&in);
	strbuf_release(&out);
	free(full);
}

static void rm(const char *path)
{
	char *full = path_join(work, path);

	unlink(full);
	free(full);
}

static void set_mode(const char *path, mode_t mode)
{
	char *full = path_join(work, path);

	chmod(full, mode);
	free(full);
}

static void symlink_to(const char *path, const char *target)
{
	char *full = path_join(work, path);
	char *dir = xstrdup(full);

	*strrchr(dir, '/') = '\0';
	mkdir_p(dir, 0755);
	if (symlink(target, full))
		die("cannot link '%s'", full);
	free(dir);
	free(full);
}

static void oid_from_out(git_oid *oid, struct strbuf *out)
{
	strbuf_rtrim(out);
	if (git_oid_fromstr(oid, out->buf))
		die("not an object id: '%s'", out->buf);
}

/* Record the work tree as a tree. */
static void snapshot(git_oid *tree)
{
	struct strbuf out = STRBUF_INIT;

	if (git_run(NULL, NULL, "add", "-A", NULL) || git_run(&out, NULL, "write-tree", NULL))
		die("cannot snapshot the work tree");
	oid_from_out(tree, &out);
	strbuf_release(&out);
}

/* Make the work tree and index hold `tree` again. */
static void restore(const git_oid *tree)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof(hex), tree);
	if (git_run(NULL, NULL, "read-tree", "--reset", "-u", hex, NULL))
		die("cannot restore %s", hex);
}

/* `git diff -M` between two trees. */
static void diff_trees(struct strbuf *out, const git_oid *a, const git_oid *b)
{
	char ha[GIT_OID_HEXSZ + 1], hb[GIT_OID_HEXSZ + 1];

	git_oid_tostr(ha, sizeof(ha), a);
	git_oid_tostr(hb, sizeof(hb), b);
	strbuf_reset(out);
	if (git_run(out, NULL, "diff", "-M", "--binary", ha, hb, NULL))
		die("git diff failed");
}

/* What `git apply --cached` makes of the diff on `tree`; returns its exit status. */
static int git_apply_cached(git_oid *result, const git_oid *tree, const char *diff)
{
	char hex[GIT_OID_HEXSZ + 1];
	struct strbuf out = STRBUF_INIT;
	int ret;

	git_oid_tostr(hex, sizeof(hex), tree);
	if (git_run(NULL, NULL, "read-tree", hex, NULL))
		die("cannot read tree %s", hex);
	ret = git_run(NULL, diff, "apply", "--cached", NULL);
	if (!ret && !git_run(&out, NULL, "write-tree", NULL))
		oid_from_out(result, &out);
	strbuf_release(&out);
	return ret;
}

/* libgit2's own way: the whole tree into an index, apply, write every tree back. */
static int whole_tree_apply(git_oid *result, const git_oid *tree, const char *diff, size_t len)
{
	git_diff *d = NULL;
	git_tree *t = NULL;
	git_index *idx = NULL;
	int err;

	if ((err = git_diff_from_buffer(&d, diff, len)) >= 0 &&
	    (err = git_tree_lookup(&t, repo, tree)) >= 0 &&
	    (err = git_apply_to_tree(&idx, repo, t, d, NULL)) >= 0)
		err = git_index_write_tree_to(result, idx, repo);
	git_index_free(idx);
	git_tree_free(t);
	git_diff_free(d);
	return err;
}

/* Print text as TAP diagnostics, one "# " line each. */
static void diag_lines(const char *title, const char *text)
{
	const char *p = text, *nl;

	printf("# %s:\n", title);
	while (*p) {
		nl = strchrnul(p, '\n');
		printf("#   %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

static int odb_count_cb(const git_oid *id, void *payload)
{
	(*(size_t *)payload)++;
	return 0;
}

static size_t odb_count(void)
{
	git_odb *odb = NULL;
	size_t n = 0;

	git_repository_odb(&odb, repo);
	git_odb_foreach(odb, odb_count_cb, &n);
	git_odb_free(odb);
	return n;
}

static void make_base(void)
{
	struct strbuf out = STRBUF_INIT;

	put_lines("mm/mremap.c", "mremap", 80);
	put_lines("mm/util.c", "util", 30);
	put_lines("README", "readme", 10);
	put_lines("drivers/only/deep/one.c", "one", 5);
	put_lines("drivers/other.c", "other", 12);
	put("scripts/run.sh", "#!/bin/sh\necho run\n");
	put("tools/exec.sh", "#!/bin/sh\necho exec\nexit 0\n");
	set_mode("tools/exec.sh", 0755);
	put("tools/noeol.txt", "first\nsecond\nthird");
	put_lines("lib/old_name.c", "old", 20);
	put_lines("lib/rename_mod.c", "renmod", 40);
	put_binary("firmware/blob.bin", 0);
	snapshot(&base_tree);
	if (git_run(&out, NULL, "commit-tree", git_oid_tostr_s(&base_tree), "-m", "base", NULL))
		die("cannot commit the base");
	oid_from_out(&base_commit, &out);
	strbuf_release(&out);
}

/* The edits, each turning the base into a target tree. */
static void e_modify(void) { edit_line("mm/mremap.c", 40, "mremap line 40 changed"); }
static void e_new_dir(void) { put("newdir/sub/new.c", "int new_file;\n"); }
static void e_delete_last(void) { rm("drivers/only/deep/one.c"); }
static void e_rename(void)
{
	put_lines("lib/new_name.c", "old", 20);
	rm("lib/old_name.c");
}
static void e_rename_modify(void)
{
	put_lines("lib/renamed.c", "renmod", 40);
	rm("lib/rename_mod.c");
	edit_line("lib/renamed.c", 5, "renmod line 5 changed");
}
static void e_mode(void) { set_mode("scripts/run.sh", 0755); }
static void e_symlink(void) { symlink_to("include/mremap-link", "../mm/mremap.c"); }
static void e_several(void)
{
	edit_line("mm/util.c", 15, "util line 15 changed");
	edit_line("README", 1, "readme title changed");
	put("docs/x.txt", "docs\n");
	rm("drivers/other.c");
}
static void e_hunks(void)
{
	edit_line("mm/mremap.c", 3, "mremap line 3 changed");
	edit_line("mm/mremap.c", 40, "mremap line 40 changed");
	edit_line("mm/mremap.c", 78, "mremap line 78 changed");
}
static void e_noeol(void)
{
	put("tools/noeol.txt", "first\nsecond\nthird changed");
	put("tools/exec.sh", "#!/bin/sh\necho exec changed\nexit 0\n");
}
static void e_add_eol(void) { put("tools/noeol.txt", "first\nsecond\nthird\n"); }
static void e_typechange(void)
{
	rm("README");
	symlink_to("README", "mm/util.c");
}

static void e_binary(void) { put_binary("firmware/blob.bin", 7); }

static const struct edit {
	const char *name;
	void (*fn)(void);
} edits[] = {
	{ "modify one line", e_modify },
	{ "add a file in a new directory", e_new_dir },
	{ "delete the last file of a directory", e_delete_last },
	{ "rename", e_rename },
	{ "rename and modify", e_rename_modify },
	{ "mode change 100644->100755", e_mode },
	{ "add a symlink", e_symlink },
	{ "several files", e_several },
	{ "several hunks", e_hunks },
	{ "no newline at end of file, exec bit kept", e_noeol },
	{ "add the missing newline", e_add_eol },
	{ "file becomes a symlink", e_typechange },
	{ "binary file", e_binary },
};

/* Make the target tree of an edit (from the base) and the diff that leads there. */
static void target_of(git_oid *target, struct strbuf *diff, void (*fn)(void))
{
	restore(&base_tree);
	fn();
	snapshot(target);
	diff_trees(diff, &base_tree, target);
}

static void test_identical_trees(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(edits); i++) {
		git_oid target, ours, git_tree, whole;
		int ret, present;

		target_of(&target, &diff, edits[i].fn);
		strbuf_reset(&report);
		ret = apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report);
		is_int(ret, 0, "%s: applies", edits[i].name);
		if (ret)
			diag_lines("the report", report.buf);
		ok(!git_apply_cached(&git_tree, &base_tree, diff.buf) && git_oid_equal(&ours, &git_tree),
		   "%s: same tree as git apply --cached", edits[i].name);
		ok(!whole_tree_apply(&whole, &base_tree, diff.buf, diff.len) &&
		   git_oid_equal(&ours, &whole), "%s: same tree as git_apply_to_tree on the whole tree",
		   edits[i].name);
		ok(git_oid_equal(&ours, &target), "%s: the tree the diff was made from", edits[i].name);
		present = apply_is_present(repo, &target, diff.buf, diff.len);
		is_int(present, 1, "%s: present in the target", edits[i].name);
		present = apply_is_present(repo, &base_tree, diff.buf, diff.len);
		is_int(present, 0, "%s: not present in the base", edits[i].name);
	}
	strbuf_release(&diff);
	strbuf_release(&report);
}

/* A mail from git format-patch: the commit message and signature around the diff are skipped. */
static void test_format_patch(void)
{
	struct strbuf out = STRBUF_INIT, mail = STRBUF_INIT, report = STRBUF_INIT;
	git_oid target, commit, ours;
	char th[GIT_OID_HEXSZ + 1], bh[GIT_OID_HEXSZ + 1], ch[GIT_OID_HEXSZ + 1];

	target_of(&target, &out, e_several);
	strbuf_reset(&out);
	git_oid_tostr(th, sizeof(th), &target);
	git_oid_tostr(bh, sizeof(bh), &base_commit);
	if (git_run(&out, NULL, "commit-tree", th, "-p", bh, "-m",
		    "mm: several changes\n\n--- a/../etc/passwd in the message is only text\n", NULL))
		die("cannot commit");
	oid_from_out(&commit, &out);
	git_oid_tostr(ch, sizeof(ch), &commit);
	if (git_run(&mail, NULL, "format-patch", "-1", "--stdout", ch, NULL))
		die("cannot format-patch");
	is_int(apply_diff(&ours, repo, &base_tree, mail.buf, mail.len, &report), 0,
	       "format-patch mail applies");
	ok(git_oid_equal(&ours, &target), "format-patch mail gives the commit's tree");
	strbuf_release(&out);
	strbuf_release(&mail);
	strbuf_release(&report);
}

/* A hunk that moved in the tree applies where git apply puts it. */
static void test_offsets(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_oid target, shifted, ours, git_tree, whole;
	int ret;

	target_of(&target, &diff, e_hunks);
	restore(&base_tree);
	put_lines("mm/mremap.c", "mremap", 80);
	{
		struct strbuf sb = STRBUF_INIT;
		char *full = path_join(work, "mm/mremap.c");

		strbuf_read_file(&sb, full);
		strbuf_addstr(&sb, "mremap tail 1\nmremap tail 2\n");
		/* five new lines in the middle move the last two hunks down */
		put("mm/mremap.c", "");
		free(full);
		strbuf_reset(&sb);
		for (int i = 1; i <= 80; i++) {
			strbuf_addf(&sb, "mremap line %d\n", i);
			if (i == 20)
				strbuf_addstr(&sb, "new a\nnew b\nnew c\nnew d\nnew e\n");
		}
		put("mm/mremap.c", sb.buf);
		strbuf_release(&sb);
	}
	snapshot(&shifted);
	ret = apply_diff(&ours, repo, &shifted, diff.buf, diff.len, &report);
	is_int(ret, 0, "hunks moved by 5 lines still apply");
	ok(!git_apply_cached(&git_tree, &shifted, diff.buf) && git_oid_equal(&ours, &git_tree),
	   "moved hunks: same tree as git apply --cached");
	ok(whole_tree_apply(&whole, &shifted, diff.buf, diff.len) < 0,
	   "moved hunks: libgit2 alone refuses them");
	is_int(apply_is_present(repo, &shifted, diff.buf, diff.len), 0, "moved hunks: not present");
	is_int(apply_is_present(repo, &ours, diff.buf, diff.len), 1, "moved hunks: present once applied");
	strbuf_release(&diff);
	strbuf_release(&report);
}

static void e_two_hunks(void)
{
	edit_line("mm/mremap.c", 10, "mremap line 10 changed");
	edit_line("mm/mremap.c", 70, "mremap line 70 changed");
}

static const struct bad_header {
	const char *name;
	const char *diff;
	const char *report;
} bad_headers[] = {
	{ "rename lines against +++",
	  "diff --git a/lib/old_name.c b/lib/new_name.c\nsimilarity index 90%\n"
	  "rename from lib/old_name.c\nrename to lib/new_name.c\n--- a/lib/old_name.c\n"
	  "+++ b/lib/other.c\n@@ -1,3 +1,3 @@\n-old line 1\n+old line 1 changed\n"
	  " old line 2\n old line 3\n",
	  "line 4: the patch renames to 'lib/new_name.c' but line 6 names 'lib/other.c'" },
	{ "a second rename line for one file (libgit2 leaks the first; found by fuzz-apply)",
	  "diff --git a/lib/old_name.c b/lib/new_name.c\nsimilarity index 100%\n"
	  "rename from lib/old_name.c\nrename to lib/new_name.c\n"
	  "rename from lib/old_name.c\nrename to lib/other/new_name.c\n",
	  "line 5: a second 'rename from' line for one file (the first is line 3)" },
	{ "a second +++ line for one file",
	  "diff --git a/lib/old_name.c b/lib/old_name.c\n--- a/lib/old_name.c\n"
	  "+++ b/lib/old_name.c\n+++ b/lib/old_name.c\n@@ -1,3 +1,3 @@\n-old line 1\n"
	  "+old line 1 changed\n old line 2\n old line 3\n",
	  "line 4: a second '+++' line for one file (the first is line 3)" },
	{ "two names without a rename",
	  "diff --git a/scripts/run.sh b/scripts/run2.sh\nold mode 100644\nnew mode 100755\n",
	  "scripts/run.sh: the patch also calls it 'scripts/run2.sh' without renaming it" },
	{ "unknown mode",
	  "diff --git a/scripts/run.sh b/scripts/run.sh\nold mode 100644\nnew mode 100666\n",
	  "scripts/run.sh: the patch gives it mode 100666, which git does not use" },
	{ "unreadable diff --git line",
	  "diff --git a/a dded.c b/added.c\nnew file mode 100644\n--- /dev/null\n+++ b/added.c\n"
	  "@@ -0,0 +1 @@\n+new\n",
	  "added.c: the patch's 'diff --git' line does not match its file names" },
};

static void test_failures(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_oid target, tree, ours, ignored;
	int ret;

	/* context changed under the second hunk */
	target_of(&target, &diff, e_two_hunks);
	restore(&base_tree);
	edit_line("mm/mremap.c", 71, "changed in the tree");
	snapshot(&tree);
	ret = apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report);
	is_int(ret, MKS_EAPPLYFAIL, "changed context: does not apply");
	ok(starts_with(report.buf, "mm/mremap.c: hunk 2 of 2 (@@ -67,7 +67,7 @@"),
	   "changed context: names the file, the hunk and its header");
	ok(strstr(report.buf, ") does not apply\nthe patch expects at lines 67-73:\n"),
	   "changed context: shows what the patch expects");
	ok(strstr(report.buf, "      70 -mremap line 70\n      71  mremap line 71\n"),
	   "changed context: expected lines are numbered and marked");
	ok(strstr(report.buf, "the tree has at lines 64-76:\n      64  mremap line 64\n"),
	   "changed context: shows the tree 3 lines around the hunk");
	ok(strstr(report.buf, "      71 !changed in the tree\n"),
	   "changed context: marks the tree's line that differs");
	ok(git_apply_cached(&ignored, &tree, diff.buf) != 0, "changed context: git apply refuses it too");
	is_int(apply_is_present(repo, &tree, diff.buf, diff.len), 0, "changed context: not present");
	diag_lines("the report", report.buf);

	/* a line the tree has in addition: it alone is marked, not every line after it */
	restore(&base_tree);
	edit_line("mm/mremap.c", 69, "mremap line 69\nadded in the tree");
	snapshot(&tree);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "added line: does not apply");
	ok(strstr(report.buf, "      69  mremap line 69\n      70 !added in the tree\n"
			      "      71  mremap line 70\n      72  mremap line 71\n"
			      "      73  mremap line 72\n      74  mremap line 73\n"),
	   "added line: only the tree's added line is marked '!'");
	diag_lines("the report", report.buf);

	/* the modified file is missing */
	diff_trees(&diff, &base_tree, &target);
	restore(&base_tree);
	rm("mm/mremap.c");
	snapshot(&tree);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "missing file: does not apply");
	is_str(report.buf, "mm/mremap.c: the patch modifies it but the tree does not have it",
	       "missing file: says so");

	/* the new file already exists */
	target_of(&target, &diff, e_new_dir);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &target, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "existing file: does not apply");
	is_str(report.buf, "newdir/sub/new.c: the patch creates it but the tree already has it",
	       "existing file: says so");
	ok(whole_tree_apply(&ignored, &target, diff.buf, diff.len) == 0,
	   "existing file: libgit2 alone would have accepted it");

	/* a deleted file whose content differs */
	target_of(&target, &diff, e_several);
	restore(&base_tree);
	edit_line("drivers/other.c", 6, "other line 6 changed in the tree");
	snapshot(&tree);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "deleted file with other content: does not apply");
	ok(starts_with(report.buf, "drivers/other.c: hunk (@@ -1,12 +0,0 @@) does not apply"),
	   "deleted file with other content: names the hunk, without '1 of 1'");
	ok(strstr(report.buf, "       6 !other line 6 changed in the tree"),
	   "deleted file with other content: shows the changed line");

	/* a regular file the tree has as a symlink */
	target_of(&tree, &diff, e_typechange);
	target_of(&target, &diff, e_several);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "wrong type: does not apply");
	is_str(report.buf, "README: the patch expects a regular file but the tree has a symlink there",
	       "wrong type: says so");

	/* rename onto an existing file */
	target_of(&target, &diff, e_rename);
	restore(&base_tree);
	put("lib/new_name.c", "already here\n");
	snapshot(&tree);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "rename onto a file: does not apply");
	is_str(report.buf, "lib/new_name.c: the patch renames 'lib/old_name.c' to it but the tree "
	       "already has it", "rename onto a file: says so");

	/* a file where the patch needs a directory */
	strbuf_reset(&diff);
	strbuf_addstr(&diff, "diff --git a/README/inner.txt b/README/inner.txt\n"
		      "new file mode 100644\nindex 0000000..e69de29\n"
		      "--- /dev/null\n+++ b/README/inner.txt\n@@ -0,0 +1 @@\n+inner\n");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "file in the way: does not apply");
	is_str(report.buf, "README/inner.txt: the patch creates it but 'README' is a file in the tree",
	       "file in the way: says so");

	/* a hunk that must end the file, with lines after it in the tree */
	strbuf_reset(&diff);
	strbuf_addstr(&diff, "diff --git a/mm/util.c b/mm/util.c\n--- a/mm/util.c\n+++ b/mm/util.c\n"
		      "@@ -10,3 +10,4 @@\n util line 10\n util line 11\n util line 12\n+appended\n");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "hunk anchored at the end: does not apply in the middle");
	ok(strstr(report.buf, "the expected lines are at line 10 of the tree, but the hunk has no "
		  "context after its change"), "hunk anchored at the end: explains why");
	ok(git_apply_cached(&ignored, &base_tree, diff.buf) != 0,
	   "hunk anchored at the end: git apply refuses it too");

	/* malformed headers that libgit2 would take its own way */
	for (size_t k = 0; k < ARRAY_SIZE(bad_headers); k++) {
		strbuf_reset(&report);
		is_int(apply_diff(&ours, repo, &base_tree, bad_headers[k].diff,
				  strlen(bad_headers[k].diff), &report), MKS_EAPPLYFAIL,
		       "%s: refused", bad_headers[k].name);
		is_str(report.buf, bad_headers[k].report, "%s: says why", bad_headers[k].name);
	}

	/* malformed and empty patches */
	strbuf_reset(&diff);
	strbuf_addstr(&diff, "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "truncated hunk: refused");
	ok(starts_with(report.buf, "cannot parse the patch: "), "truncated hunk: says it cannot parse");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, "just a mail\n", 12, &report), MKS_EAPPLYFAIL,
	       "no diff: refused");
	is_str(report.buf, "the patch changes no file (it has no 'diff --git' section)",
	       "no diff: says so");

	strbuf_release(&diff);
	strbuf_release(&report);
}

/* A patch that is half in the tree is neither applicable nor present. */
static void test_half_applied(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_oid target, half, ours;

	target_of(&target, &diff, e_two_hunks);
	restore(&base_tree);
	edit_line("mm/mremap.c", 10, "mremap line 10 changed");
	snapshot(&half);
	is_int(apply_is_present(repo, &half, diff.buf, diff.len), 0, "half applied: not present");
	is_int(apply_diff(&ours, repo, &half, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "half applied: does not apply");
	ok(starts_with(report.buf, "mm/mremap.c: hunk 1 of 2 "),
	   "half applied: hunk 1 is the one in the way");
	strbuf_release(&diff);
	strbuf_release(&report);
}

/*
 * presence_check(), part by part: half a patch in the tree is partial
 * with the other hunk named; the whole change under a changed context
 * line is in; nothing of it is a plain apply.
 */
static void test_presence(void)
{
	struct strbuf diff = STRBUF_INIT, sb = STRBUF_INIT;
	struct presence p = PRESENCE_INIT;
	git_oid target, tree;

	target_of(&target, &diff, e_two_hunks);
	restore(&base_tree);
	edit_line("mm/mremap.c", 10, "mremap line 10 changed");
	snapshot(&tree);
	is_int(presence_check(&p, repo, &tree, diff.buf, diff.len, NULL), 0, "presence: half");
	is_int(p.state, PRESENCE_PARTIAL, "presence: half of it is partial");
	is_int((int)p.nr_in, 1, "presence: one hunk of two in");
	presence_describe(&sb, &p, 0);
	is_str(sb.buf, "mm/mremap.c hunk 2 of 2 (@@ -67,7 +67,7 @@)", "presence: the missing hunk named");
	presence_release(&p);

	restore(&target);
	edit_line("mm/mremap.c", 71, "mremap line 71 as an older tree has it");
	edit_line("mm/mremap.c", 9, "mremap line 9 as an older tree has it");
	snapshot(&tree);
	is_int(presence_check(&p, repo, &tree, diff.buf, diff.len, NULL), 0, "presence: context");
	is_int(p.state, PRESENCE_IN, "presence: the whole change under other context is in");
	is_int(apply_is_present(repo, &tree, diff.buf, diff.len), 1,
	       "presence: apply finds it too");
	presence_release(&p);

	is_int(presence_check(&p, repo, &base_tree, diff.buf, diff.len, NULL), 0, "presence: base");
	is_int(p.state, PRESENCE_APPLIES, "presence: none of it in: it applies");
	is_int((int)p.nr_in, 0, "presence: no hunk in");
	presence_release(&p);

	restore(&base_tree);
	edit_line("mm/mremap.c", 11, "mremap line 11 changed elsewhere");
	edit_line("mm/mremap.c", 69, "mremap line 69 changed elsewhere");
	snapshot(&tree);
	is_int(presence_check(&p, repo, &tree, diff.buf, diff.len, NULL), 0, "presence: conflict");
	is_int(p.state, PRESENCE_CONFLICT, "presence: neither there nor applicable: a conflict");
	presence_release(&p);
	strbuf_release(&sb);
	strbuf_release(&diff);
}

static const struct unsafe {
	const char *name;
	const char *diff;
	const char *why;
} unsafe[] = {
	{ "dot-dot", "diff --git a/../etc/passwd b/../etc/passwd\nnew file mode 100644\n"
	  "--- /dev/null\n+++ b/../etc/passwd\n@@ -0,0 +1 @@\n+root::0:0::/:/bin/sh\n",
	  "line 1: patch touches 'a/../etc/passwd': path leaves the tree" },
	{ "absolute", "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ /etc/passwd\n"
	  "@@ -0,0 +1 @@\n+x\n", "line 4: patch touches '/etc/passwd': absolute path" },
	{ ".git/config", "diff --git a/.git/config b/.git/config\n--- a/.git/config\n"
	  "+++ b/.git/config\n@@ -1 +1 @@\n-a\n+b\n",
	  "line 1: patch touches 'a/.git/config': path reaches into .git" },
	{ ".GIT in the middle", "diff --git a/a/.GIT/hooks/pre-commit b/a/.GIT/hooks/pre-commit\n"
	  "new file mode 100755\n--- /dev/null\n+++ b/a/.GIT/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n",
	  "line 1: patch touches 'a/a/.GIT/hooks/pre-commit': path reaches into .git" },
	{ ".git with trailing dots", "diff --git \"a/.git. /x\" \"b/.git. /x\"\n",
	  "line 1: patch touches '\"a/.git. /x\"': path reaches into .git" },
	{ "quoted dot-dot", "diff --git \"a/x/../../y\\303\\244\" \"b/x/../../y\\303\\244\"\n",
	  "line 1: patch touches '\"a/x/../../y\\303\\244\"': path leaves the tree" },
	{ "quoted control character", "diff --git \"a/x\\033[2J\" \"b/x\\033[2J\"\n",
	  "line 1: patch touches '\"a/x\\033[2J\"': control character in path" },
	{ "rename target", "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to ../y\n",
	  "line 4: patch touches '../y': path leaves the tree" },
	{ "empty component", "diff --git a/x//y b/x//y\n",
	  "line 1: patch touches 'a/x//y': empty path component" },
	{ "NUL byte", "diff --git a/x b/x\n--- a/x\n+++ b/x\0\n",
	  "line 3: patch has a NUL byte" },
};

static void test_unsafe(void)
{
	struct strbuf report = STRBUF_INIT, why = STRBUF_INIT;
	size_t i, before = odb_count();
	git_oid ours;

	for (i = 0; i < ARRAY_SIZE(unsafe); i++) {
		size_t len = strlen(unsafe[i].diff);

		if (!strcmp(unsafe[i].name, "NUL byte"))
			len += 2;
		strbuf_reset(&why);
		is_int(diff_check_paths(unsafe[i].diff, len, &why), MKS_EUNSAFE, "unsafe %s: refused",
		       unsafe[i].name);
		is_str(why.buf, unsafe[i].why, "unsafe %s: says why", unsafe[i].name);
		strbuf_reset(&report);
		is_int(apply_diff(&ours, repo, &base_tree, unsafe[i].diff, len, &report), MKS_EUNSAFE,
		       "unsafe %s: apply_diff refuses it", unsafe[i].name);
	}
	is_int(odb_count(), before, "unsafe patches wrote no object");
	strbuf_reset(&why);
	is_int(diff_check_paths("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n"
				"--- a/../content\n+++ b/../content\n", 84, &why), 0,
	       "hunk lines that look like headers are content");
	is_int(apply_is_present(repo, &base_tree, unsafe[0].diff, strlen(unsafe[0].diff)), -1,
	       "presence of an unsafe patch is an error");
	strbuf_release(&report);
	strbuf_release(&why);
}

/* Reversing twice gives back git's own diff. */
static void test_reverse(void)
{
	struct strbuf diff = STRBUF_INIT, rev = STRBUF_INIT, back = STRBUF_INIT;
	git_oid target;
	size_t i;
	int same = 1;

	for (i = 0; i < ARRAY_SIZE(edits); i++) {
		target_of(&target, &diff, edits[i].fn);
		strbuf_reset(&rev);
		strbuf_reset(&back);
		diff_reverse(diff.buf, diff.len, &rev);
		diff_reverse(rev.buf, rev.len, &back);
		if (strcmp(back.buf, diff.buf)) {
			diag_lines(edits[i].name, diff.buf);
			diag_lines("became", back.buf);
			same = 0;
		}
	}
	ok(same, "reversing every test diff twice gives it back byte for byte");
	strbuf_release(&diff);
	strbuf_release(&rev);
	strbuf_release(&back);
}

/* Replace the first occurrence of `from` in sb by `to`; dies when it is not there. */
static void sb_replace(struct strbuf *sb, const char *from, const char *to)
{
	char *at = strstr(sb->buf, from);
	struct strbuf out = STRBUF_INIT;

	if (!at)
		die("'%s' is not in the diff", from);
	strbuf_add(&out, sb->buf, at - sb->buf);
	strbuf_addstr(&out, to);
	strbuf_addstr(&out, at + strlen(from));
	strbuf_reset(sb);
	strbuf_add(sb, out.buf, out.len);
	strbuf_release(&out);
}

/* The start of the first data line after the "literal"/"delta" line of the diff. */
static char *first_data_line(struct strbuf *sb)
{
	char *m = strstr(sb->buf, "\nliteral ");

	if (!m)
		m = strstr(sb->buf, "\ndelta ");
	if (!m || !(m = strchr(m + 1, '\n')))
		die("no binary hunk in the diff");
	return m + 1;
}

static int check_binary_str(const char *diff, struct strbuf *why)
{
	return diff_check_binary(diff, strlen(diff), why);
}

/* Corrupt binary patches are refused with the line and file before libgit2 inflates them. */
static void test_binary(void)
{
	struct strbuf diff = STRBUF_INIT, bad = STRBUF_INIT, why = STRBUF_INIT;
	git_oid target, ours;
	char method[64], *l, *nl;
	unsigned long size;

	target_of(&target, &diff, e_binary);
	is_int(diff_check_binary(diff.buf, diff.len, &why), 0, "binary: git's own binary diff passes");
	l = first_data_line(&diff);
	if (sscanf(strstr(diff.buf, "literal ") ? strstr(diff.buf, "literal ") :
		   strstr(diff.buf, "delta "), "%63s %lu", method, &size) != 2)
		die("cannot read the binary hunk's size");

	/* the declared size is one more than the data holds */
	strbuf_reset(&bad);
	strbuf_add(&bad, diff.buf, diff.len);
	{
		char from[96], to[96];

		snprintf(from, sizeof(from), "\n%s %lu\n", method, size);
		snprintf(to, sizeof(to), "\n%s %lu\n", method, size + 1);
		sb_replace(&bad, from, to);
	}
	strbuf_reset(&why);
	is_int(diff_check_binary(bad.buf, bad.len, &why), MKS_EAPPLYFAIL, "binary: wrong size refused");
	ok(strstr(why.buf, "corrupt binary patch for 'firmware/blob.bin': its data inflates to") &&
	   starts_with(why.buf, "line "), "binary: wrong size: says line, file and why");
	diag_lines("wrong size", why.buf);
	strbuf_reset(&why);
	is_int(apply_diff(&ours, repo, &base_tree, bad.buf, bad.len, &why), MKS_EAPPLYFAIL,
	       "binary: apply_diff refuses the wrong size");

	/* a character outside the base85 alphabet */
	strbuf_reset(&bad);
	strbuf_add(&bad, diff.buf, diff.len);
	bad.buf[first_data_line(&bad) - bad.buf + 2] = '"';
	strbuf_reset(&why);
	is_int(diff_check_binary(bad.buf, bad.len, &why), MKS_EAPPLYFAIL, "binary: base85 checked");
	ok(strstr(why.buf, "'\"' is not a base85 character"), "binary: names the bad character");

	/* a length letter that does not match the characters */
	strbuf_reset(&bad);
	strbuf_add(&bad, diff.buf, diff.len);
	l = first_data_line(&bad);
	l[0] = l[0] == 'A' ? 'B' : 'A';
	strbuf_reset(&why);
	is_int(diff_check_binary(bad.buf, bad.len, &why), MKS_EAPPLYFAIL,
	       "binary: line length checked");
	ok(strstr(why.buf, "characters of data, not what"), "binary: says the length is wrong");

	/* one data line gone (when there are two) or the data cut short */
	strbuf_reset(&bad);
	strbuf_add(&bad, diff.buf, diff.len);
	l = first_data_line(&bad);
	nl = strchr(l, '\n');
	memmove(l, nl + 1, bad.buf + bad.len - nl);
	bad.len -= nl + 1 - l;
	strbuf_reset(&why);
	is_int(diff_check_binary(bad.buf, bad.len, &why), MKS_EAPPLYFAIL,
	       "binary: a missing data line refused");
	diag_lines("missing line", why.buf);

	/* an absurd size, and a hunk without its closing blank line */
	strbuf_reset(&why);
	is_int(check_binary_str("diff --git a/x b/x\nGIT binary patch\nliteral 99999999999\n"
				"HcmV?d00001\n\n", &why), MKS_EAPPLYFAIL,
	       "binary: a huge declared size refused");
	is_str(why.buf, "line 3: corrupt binary patch for 'x': it declares more than the 256 MiB "
	       "mkseries accepts", "binary: says the bound");
	strbuf_reset(&why);
	is_int(check_binary_str("diff --git a/x b/x\nGIT binary patch\nliteral 0\nHcmV?d00001\n",
				&why), MKS_EAPPLYFAIL, "binary: the blank line is required");
	is_str(why.buf, "line 4: corrupt binary patch for 'x': its hunk does not end with a blank "
	       "line", "binary: says the blank line is missing");
	strbuf_reset(&why);
	is_int(check_binary_str("diff --git a/x b/x\nGIT binary patch\nliteral 0\nHcmV?d00001\n\n",
				&why), 0, "binary: an empty literal passes");
	strbuf_release(&diff);
	strbuf_release(&bad);
	strbuf_release(&why);
}

/* A patch may not create a symlink and a file through it, in either order. */
static void test_beyond_symlink(void)
{
	static const char link_sect[] =
		"diff --git a/mm/out b/mm/out\nnew file mode 120000\nindex 0000000..cad2309\n"
		"--- /dev/null\n+++ b/mm/out\n@@ -0,0 +1 @@\n+/tmp\n\\ No newline at end of file\n";
	static const char file_sect[] =
		"diff --git a/mm/out/f b/mm/out/f\nnew file mode 100644\nindex 0000000..e7a7c8b\n"
		"--- /dev/null\n+++ b/mm/out/f\n@@ -0,0 +1 @@\n+pwned\n";
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_oid ours, ignored;

	strbuf_addstr(&diff, link_sect);
	strbuf_addstr(&diff, file_sect);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "beyond a symlink: refused");
	is_str(report.buf, "mm/out/f: the patch creates it beyond a symbolic link ('mm/out', "
	       "which it creates too)", "beyond a symlink: says why");
	ok(git_apply_cached(&ignored, &base_tree, diff.buf) != 0, "beyond a symlink: git refuses it too");
	strbuf_reset(&diff);
	strbuf_addstr(&diff, file_sect);
	strbuf_addstr(&diff, link_sect);
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "beyond a symlink, file first: refused");
	strbuf_release(&diff);
	strbuf_release(&report);
}

/* A .gitmodules the patch leaves is held to git fsck's rules, as an imported one is. */
static void test_gitmodules(void)
{
	static const char bad[] =
		"diff --git a/.gitmodules b/.gitmodules\nnew file mode 100644\nindex 0000000..1111111\n"
		"--- /dev/null\n+++ b/.gitmodules\n@@ -0,0 +1,3 @@\n+[submodule \"x\"]\n+\tpath = x\n"
		"+\turl = --upload-pack=touch /tmp/pwned\n";
	static const char good[] =
		"diff --git a/.gitmodules b/.gitmodules\nnew file mode 100644\nindex 0000000..1111111\n"
		"--- /dev/null\n+++ b/.gitmodules\n@@ -0,0 +1,3 @@\n+[submodule \"x\"]\n+\tpath = x\n"
		"+\turl = https://example.org/x.git\n";
	struct strbuf report = STRBUF_INIT;
	git_oid ours;

	is_int(apply_diff(&ours, repo, &base_tree, bad, strlen(bad), &report), MKS_EUNSAFE,
	       ".gitmodules with an option for a url: refused");
	is_str(report.buf, ".gitmodules: git fsck would reject it: line 3: disallowed submodule url "
	       "'--upload-pack=touch /tmp/pwned': it could be taken for an option\n",
	       ".gitmodules with an option for a url: says why");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, good, strlen(good), &report), 0,
	       "a .gitmodules git accepts applies");
	strbuf_release(&report);
}

/* A new submodule links to the commit its patch names, as git apply --cached records it. */
static void test_submodule(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_oid ours, theirs;
	git_tree *tree = NULL;
	git_tree_entry *e = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	int ret;

	git_oid_tostr(hex, sizeof(hex), &base_commit);
	strbuf_addf(&diff, "diff --git a/sub/mod b/sub/mod\nnew file mode 160000\n"
		    "index 0000000..%.7s\n--- /dev/null\n+++ b/sub/mod\n@@ -0,0 +1 @@\n"
		    "+Subproject commit %s\n", hex, hex);
	ret = apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report);
	is_int(ret, 0, "submodule: applies");
	if (ret)
		diag_lines("the report", report.buf);
	ok(!ret && !git_tree_lookup(&tree, repo, &ours) &&
	   !git_tree_entry_bypath(&e, tree, "sub/mod") &&
	   git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT &&
	   git_oid_equal(git_tree_entry_id(e), &base_commit),
	   "submodule: a gitlink to the named commit");
	ok(!ret && !git_apply_cached(&theirs, &base_tree, diff.buf) && git_oid_equal(&ours, &theirs),
	   "submodule: same tree as git apply --cached");
	git_tree_entry_free(e);
	git_tree_free(tree);
	strbuf_reset(&diff);
	strbuf_addstr(&diff, "diff --git a/sub/mod b/sub/mod\nnew file mode 160000\n"
		      "--- /dev/null\n+++ b/sub/mod\n@@ -0,0 +1 @@\n+Subproject commit nothex\n");
	strbuf_reset(&report);
	is_int(apply_diff(&ours, repo, &base_tree, diff.buf, diff.len, &report), MKS_EAPPLYFAIL,
	       "submodule without a commit id: refused");
	strbuf_release(&diff);
	strbuf_release(&report);
}

/* A submodule the tree has already: its commit changes, or it goes, as with git apply --cached. */
static void test_submodule_change(void)
{
	struct strbuf diff = STRBUF_INIT, report = STRBUF_INIT;
	git_tree_update up = { GIT_TREE_UPDATE_UPSERT, { { 0 } }, GIT_FILEMODE_COMMIT, "sub/mod" };
	git_tree *base = NULL, *tree = NULL;
	git_tree_entry *e = NULL;
	git_oid with_mod, ours, theirs;
	char old_hex[GIT_OID_HEXSZ + 1], new_hex[GIT_OID_HEXSZ + 1];
	int ret;

	git_oid_cpy(&up.id, &base_commit);
	if (git_tree_lookup(&base, repo, &base_tree) < 0 ||
	    git_tree_create_updated(&with_mod, repo, base, 1, &up) < 0)
		die("cannot make a tree with a submodule");
	git_oid_tostr(old_hex, sizeof(old_hex), &base_commit);
	git_oid_tostr(new_hex, sizeof(new_hex), &base_tree);

	strbuf_addf(&diff, "diff --git a/sub/mod b/sub/mod\nindex %.7s..%.7s 160000\n"
		    "--- a/sub/mod\n+++ b/sub/mod\n@@ -1 +1 @@\n-Subproject commit %s\n"
		    "+Subproject commit %s\n", old_hex, new_hex, old_hex, new_hex);
	ret = apply_diff(&ours, repo, &with_mod, diff.buf, diff.len, &report);
	is_int(ret, 0, "submodule update: applies");
	if (ret)
		diag_lines("the report", report.buf);
	ok(!ret && !git_tree_lookup(&tree, repo, &ours) &&
	   !git_tree_entry_bypath(&e, tree, "sub/mod") &&
	   git_tree_entry_filemode(e) == GIT_FILEMODE_COMMIT &&
	   git_oid_equal(git_tree_entry_id(e), &base_tree),
	   "submodule update: the gitlink moves to the new commit");
	ok(!ret && !git_apply_cached(&theirs, &with_mod, diff.buf) && git_oid_equal(&ours, &theirs),
	   "submodule update: same tree as git apply --cached");
	is_int(apply_is_present(repo, &ours, diff.buf, diff.len), 1, "submodule update: present after");

	strbuf_reset(&diff);
	strbuf_addf(&diff, "diff --git a/sub/mod b/sub/mod\ndeleted file mode 160000\n"
		    "index %.7s..0000000\n--- a/sub/mod\n+++ /dev/null\n@@ -1 +0,0 @@\n"
		    "-Subproject commit %s\n", old_hex, old_hex);
	strbuf_reset(&report);
	ret = apply_diff(&ours, repo, &with_mod, diff.buf, diff.len, &report);
	is_int(ret, 0, "submodule removal: applies");
	if (ret)
		diag_lines("the report", report.buf);
	ok(!ret && git_oid_equal(&ours, &base_tree), "submodule removal: the tree without it");
	git_tree_entry_free(e);
	git_tree_free(tree);
	git_tree_free(base);
	strbuf_release(&diff);
	strbuf_release(&report);
}

int main(void)
{
	char tmpl[] = "/tmp/test-apply.XXXXXX";
	struct strbuf out = STRBUF_INIT;

	gitutil_init();
	if (!mkdtemp(tmpl))
		die("cannot make a temporary directory");
	tmp = xstrdup(tmpl);
	work = path_join(tmp, "repo");
	mkdir_p(work, 0755);
	if (git_run(NULL, NULL, "init", "-q", NULL))
		die("git init failed");
	if (git_repository_open(&repo, work) < 0)
		die("cannot open the test repository");
	make_base();

	test_identical_trees();
	test_format_patch();
	test_offsets();
	test_failures();
	test_half_applied();
	test_presence();
	test_unsafe();
	test_reverse();
	test_binary();
	test_beyond_symlink();
	test_gitmodules();
	test_submodule();
	test_submodule_change();

	git_repository_free(repo);
	remove_tree(tmp);
	free(work);
	free(tmp);
	strbuf_release(&out);
	git_libgit2_shutdown();
	return tap_done();
}

/* test-tree.c: unit tests for tree.c: tarballs into git trees, apt sources, repository paths. */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/gitutil.h"
#include "tap.h"
#include "tree/aptsuite.h"
#include "tree/tarimport.h"
#include "tree/tree.h"
#include "tree/workdir.h"
#include "lib/util.h"

static char *tmp;
static git_repository *repo;

/* One archive entry: f file, d directory, l symlink, h hard link, c char device, p fifo. */
struct ent {
	const char *path;
	char type;
	unsigned mode;
	const char *data;	/* file content, or link target */
};

enum { F_NONE, F_GZIP, F_XZ, F_BZIP2 };

static char *tmp_path(const char *name)
{
	return path_join(tmp, name);
}

static int make_tar(const char *path, int filter, const struct ent *e, size_t nr)
{
	struct archive *a = archive_write_new();
	size_t i;
	int ret = 0;

	archive_write_set_format_pax_restricted(a);
	if (filter == F_GZIP)
		archive_write_add_filter_gzip(a);
	else if (filter == F_XZ)
		archive_write_add_filter_xz(a);
	else if (filter == F_BZIP2)
		archive_write_add_filter_bzip2(a);
	if (archive_write_open_filename(a, path) != ARCHIVE_OK) {
		archive_write_free(a);
		return -1;
	}
	for (i = 0; i < nr; i++) {
		struct archive_entry *ae = archive_entry_new();

		archive_entry_set_pathname(ae, e[i].path);
		archive_entry_set_mtime(ae, 1700000000 + i, 0);
		switch (e[i].type) {
		case 'f':
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_perm(ae, e[i].mode);
			archive_entry_set_size(ae, strlen(e[i].data));
			break;
		case 'd':
			archive_entry_set_filetype(ae, AE_IFDIR);
			archive_entry_set_perm(ae, 0755);
			break;
		case 'l':
			archive_entry_set_filetype(ae, AE_IFLNK);
			archive_entry_set_perm(ae, 0777);
			archive_entry_set_symlink(ae, e[i].data);
			break;
		case 'h':
			archive_entry_set_filetype(ae, AE_IFREG);
			archive_entry_set_perm(ae, 0644);
			archive_entry_set_hardlink(ae, e[i].data);
			archive_entry_set_size(ae, 0);
			break;
		case 'c':
			archive_entry_set_filetype(ae, AE_IFCHR);
			archive_entry_set_perm(ae, 0600);
			archive_entry_set_rdev(ae, makedev(1, 3));
			break;
		case 'p':
			archive_entry_set_filetype(ae, AE_IFIFO);
			archive_entry_set_perm(ae, 0600);
			break;
		}
		if (archive_write_header(a, ae) != ARCHIVE_OK)
			ret = -1;
		if (e[i].type == 'f' && *e[i].data &&
		    archive_write_data(a, e[i].data, strlen(e[i].data)) < 0)
			ret = -1;
		archive_entry_free(ae);
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		ret = -1;
	archive_write_free(a);
	return ret;
}

/* Run fn with stderr going into *err. */
static int capture_fd = -1, saved_fd = -1;

static void capture_start(void)
{
	char *p = tmp_path("stderr");

	fflush(stderr);
	saved_fd = dup(2);
	capture_fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
	dup2(capture_fd, 2);
	free(p);
}

static void capture_end(struct strbuf *err)
{
	char *p = tmp_path("stderr");

	error_flush();
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	close(capture_fd);
	strbuf_reset(err);
	strbuf_read_file(err, p);
	strbuf_rtrim(err);
	free(p);
}

/* Import entries as a tarball; returns tree_from_tarball()'s result, stderr in *err. */
static int import_ents(git_oid *tree, struct strbuf *err, int filter, const struct ent *e,
		       size_t nr)
{
	char *p = tmp_path("t.tar");
	int ret;

	if (make_tar(p, filter, e, nr)) {
		free(p);
		return -100;
	}
	capture_start();
	ret = tree_from_tarball(tree, repo, p);
	capture_end(err);
	free(p);
	return ret;
}

/* The mode and content of path in tree; mode 0 when absent. */
static unsigned entry_at(struct strbuf *content, const git_oid *tree_id, const char *path)
{
	git_tree *tree = NULL;
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	unsigned mode = 0;

	strbuf_reset(content);
	if (git_tree_lookup(&tree, repo, tree_id) || git_tree_entry_bypath(&te, tree, path))
		goto cleanup;
	mode = git_tree_entry_filemode(te);
	if (git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    !git_blob_lookup(&blob, repo, git_tree_entry_id(te)))
		strbuf_add(content, git_blob_rawcontent(blob), git_blob_rawsize(blob));
cleanup:
	git_blob_free(blob);
	git_tree_entry_free(te);
	git_tree_free(tree);
	return mode;
}

static int count_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct strbuf *sb = payload;

	strbuf_addf(sb, "%06o %s%s\n", git_tree_entry_filemode(e), root, git_tree_entry_name(e));
	return 0;
}

/* "mode path" of every entry, trees included, in walk order. */
static void listing(struct strbuf *out, const git_oid *tree_id)
{
	git_tree *tree = NULL;

	strbuf_reset(out);
	if (!git_tree_lookup(&tree, repo, tree_id))
		git_tree_walk(tree, GIT_TREEWALK_PRE, count_cb, out);
	git_tree_free(tree);
}

static const struct ent kernelish[] = {
	{ "linux-1.0/", 'd', 0, NULL },
	{ "linux-1.0/.gitignore", 'f', 0644, "/*\n" },
	{ "linux-1.0/Makefile", 'f', 0644, "all:\n" },
	{ "linux-1.0/scripts/", 'd', 0, NULL },
	{ "linux-1.0/scripts/run.sh", 'f', 0755, "#!/bin/sh\necho ok\n" },
	{ "linux-1.0/scripts/owner-x", 'f', 0700, "#!/bin/sh\n" },
	{ "linux-1.0/scripts/group-x", 'f', 0654, "#!/bin/sh\n" },
	{ "linux-1.0/scripts/read-only", 'f', 0444, "ro\n" },
	{ "linux-1.0/mm/a/b/c/deep.c", 'f', 0644, "deep\n" },
	{ "linux-1.0/mm/mremap.c", 'f', 0644, "int mremap;\n" },
	{ "linux-1.0/mm/link.c", 'l', 0, "mremap.c" },
	{ "linux-1.0/mm/hard.c", 'h', 0, "linux-1.0/mm/mremap.c" },
	{ "linux-1.0/mm/empty.c", 'f', 0644, "" },
	{ "linux-1.0/with space.txt", 'f', 0644, "spaced out\n" },
	{ "linux-1.0/dev/null", 'c', 0, NULL },
	{ "linux-1.0/dev/fifo", 'p', 0, NULL },
	{ "linux-1.0/empty-dir/", 'd', 0, NULL },
	{ "linux-1.0/empty-dir/deeper/", 'd', 0, NULL },
};

static void test_kernelish(void)
{
	static const struct { const char *path; unsigned mode; const char *data; } want[] = {
		{ ".gitignore", 0100644, "/*\n" },
		{ "Makefile", 0100644, "all:\n" },
		{ "scripts/run.sh", 0100755, "#!/bin/sh\necho ok\n" },
		{ "scripts/owner-x", 0100755, "#!/bin/sh\n" },
		{ "scripts/group-x", 0100755, "#!/bin/sh\n" },
		{ "scripts/read-only", 0100644, "ro\n" },
		{ "mm/a/b/c/deep.c", 0100644, "deep\n" },
		{ "mm/mremap.c", 0100644, "int mremap;\n" },
		{ "mm/link.c", 0120000, "mremap.c" },
		{ "mm/hard.c", 0100644, "int mremap;\n" },
		{ "mm/empty.c", 0100644, "" },
		{ "with space.txt", 0100644, "spaced out\n" },
	};
	const char *want_listing =
		"100644 .gitignore\n"
		"100644 Makefile\n"
		"040000 mm\n"
		"040000 mm/a\n"
		"040000 mm/a/b\n"
		"040000 mm/a/b/c\n"
		"100644 mm/a/b/c/deep.c\n"
		"100644 mm/empty.c\n"
		"100644 mm/hard.c\n"
		"120000 mm/link.c\n"
		"100644 mm/mremap.c\n"
		"040000 scripts\n"
		"100755 scripts/group-x\n"
		"100755 scripts/owner-x\n"
		"100644 scripts/read-only\n"
		"100755 scripts/run.sh\n"
		"100644 with space.txt\n";
	struct strbuf err = STRBUF_INIT, content = STRBUF_INIT, list = STRBUF_INIT;
	git_oid tree, other;
	size_t i;
	int filters[] = { F_GZIP, F_XZ, F_BZIP2 };

	is_int(import_ents(&tree, &err, F_NONE, kernelish, ARRAY_SIZE(kernelish)), 0,
	       "a kernel-like tarball imports");
	is_str(err.buf, "", "quietly");
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		unsigned mode = entry_at(&content, &tree, want[i].path);

		is_int(mode, want[i].mode, "'%s' has mode %06o", want[i].path, want[i].mode);
		is_str(content.buf, want[i].data, "'%s' has its content", want[i].path);
	}
	listing(&list, &tree);
	is_str(list.buf, want_listing,
	       "top directory stripped; devices, fifos and empty directories left out");

	for (i = 0; i < ARRAY_SIZE(filters); i++) {
		is_int(import_ents(&other, &err, filters[i], kernelish, ARRAY_SIZE(kernelish)), 0,
		       "compressed variant %zu imports", i);
		ok(git_oid_equal(&tree, &other), "compressed variant %zu gives the same tree", i);
	}
	strbuf_release(&err);
	strbuf_release(&content);
	strbuf_release(&list);
}

static void test_layouts(void)
{
	static const struct ent flat[] = {
		{ "a", 'f', 0644, "a\n" },
		{ "b/c", 'f', 0644, "c\n" },
	};
	static const struct ent one_file[] = { { "only", 'f', 0644, "1\n" } };
	static const struct ent dotslash[] = {
		{ "./", 'd', 0, NULL },
		{ "./top/", 'd', 0, NULL },
		{ "./top//x", 'f', 0644, "x\n" },
		{ "./top/./y/", 'd', 0, NULL },
		{ "./top/y/z", 'f', 0644, "z\n" },
	};
	static const struct ent dup[] = {
		{ "top/x", 'f', 0644, "first\n" },
		{ "top/x", 'f', 0755, "second\n" },
	};
	struct strbuf err = STRBUF_INIT, content = STRBUF_INIT, list = STRBUF_INIT;
	git_oid tree;

	is_int(import_ents(&tree, &err, F_NONE, flat, ARRAY_SIZE(flat)), 0,
	       "a tarball without a top directory imports");
	listing(&list, &tree);
	is_str(list.buf, "100644 a\n040000 b\n100644 b/c\n", "and keeps its layout");

	is_int(import_ents(&tree, &err, F_NONE, one_file, ARRAY_SIZE(one_file)), 0,
	       "a tarball of one file imports");
	listing(&list, &tree);
	is_str(list.buf, "100644 only\n", "a single top-level file is not stripped");

	is_int(import_ents(&tree, &err, F_NONE, dotslash, ARRAY_SIZE(dotslash)), 0,
	       "./ prefixes and doubled slashes import");
	listing(&list, &tree);
	is_str(list.buf, "100644 x\n040000 y\n100644 y/z\n", "and are normalised away");

	is_int(import_ents(&tree, &err, F_NONE, dup, ARRAY_SIZE(dup)), 0,
	       "a path given twice imports");
	is_int(entry_at(&content, &tree, "x"), 0100755, "the later entry's mode wins");
	is_str(content.buf, "second\n", "the later entry's content wins");

	strbuf_release(&err);
	strbuf_release(&content);
	strbuf_release(&list);
}

static void test_refused(void)
{
	static const struct {
		struct ent e[2];
		const char *msg;
	} bad[] = {
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "../x", 'f', 0644, "pwned\n" } },
		  "refusing entry '../x': '..' leads outside the tree" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/../../x", 'f', 0644, "pwned\n" } },
		  "refusing entry 'top/../../x': '..' leads outside the tree" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/a/..", 'd', 0, NULL } },
		  "refusing entry 'top/a/../': '..' leads outside the tree" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "/etc/passwd", 'f', 0644, "pwned\n" } },
		  "refusing entry '/etc/passwd': an absolute path" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/.git/config", 'f', 0644, "x\n" } },
		  "refusing entry 'top/.git/config': path reaches into .git" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/.GIT/hooks/x", 'f', 0755, "x\n" } },
		  "refusing entry 'top/.GIT/hooks/x': path reaches into .git" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/GIT~1/config", 'f', 0644, "x\n" } },
		  "refusing entry 'top/GIT~1/config': path reaches into .git" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/a\tb", 'f', 0644, "x\n" } },
		  "refusing entry 'top/a\tb': control character in path" },
		{ { { "top/ok", 'f', 0644, "ok\n" },
		    { "top/.gitmodules", 'f', 0644, "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n" } },
		  "refusing entry 'top/.gitmodules': .gitmodules line 3: disallowed submodule url '--upload-pack=touch /tmp/pwned': it could be taken for an option" },
		{ { { "top/ok", 'f', 0644, "ok\n" },
		    { "top/sub/.GITMODULES.", 'f', 0644, "[submodule \"../../x\"]\n\turl = https://example.org/x\n" } },
		  "refusing entry 'top/sub/.GITMODULES.': .gitmodules line 2: disallowed submodule name '../../x'" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/.gitmodules", 'l', 0, "ok" } },
		  "refusing entry 'top/.gitmodules': a .gitmodules that is a symbolic link" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/ok/sub", 'f', 0644, "x\n" } },
		  "'top/ok' is both a file and a directory" },
		{ { { "top/d/f", 'f', 0644, "ok\n" }, { "top/d", 'f', 0644, "x\n" } },
		  "'top/d' is both a directory and a file" },
		{ { { "top/ok", 'f', 0644, "ok\n" }, { "top/hard", 'h', 0, "top/missing" } },
		  "hard link 'top/hard' names 'top/missing', which the archive does not hold as a file" },
	};
	struct strbuf err = STRBUF_INIT;
	git_oid tree;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = import_ents(&tree, &err, F_NONE, bad[i].e, 2);

		ok(ret < 0 && ret != -100, "refused: %s", bad[i].msg);
		ok(strstr(err.buf, bad[i].msg) != NULL, "message names it: %s", bad[i].msg);
		if (!strstr(err.buf, bad[i].msg))
			printf("#   stderr: %s\n", err.buf);
	}
	is_int(import_ents(&tree, &err, F_NONE, bad[0].e, 2), MKS_EUNSAFE,
	       "a path outside the tree is MKS_EUNSAFE");

	{
		struct strbuf deep = STRBUF_INIT;
		struct ent e[2] = { { "top/ok", 'f', 0644, "ok\n" }, { NULL, 'f', 0644, "x\n" } };

		for (i = 0; i < 1001; i++)
			strbuf_addstr(&deep, "d/");
		strbuf_addstr(&deep, "f");
		e[1].path = deep.buf;
		is_int(import_ents(&tree, &err, F_NONE, e, 2), MKS_EUNSAFE,
		       "a path nested 1,002 deep is refused");
		ok(strstr(err.buf, "nested too deep") != NULL, "as nested too deep");
		strbuf_release(&deep);

		e[1].path = "top/\033[31mred/../../x";
		import_ents(&tree, &err, F_NONE, e, 2);
		ok(strstr(err.buf, "refusing entry 'top/\\x1b[31mred/../../x'") != NULL,
		   "control characters in names do not reach the terminal: %s", err.buf);
	}
	strbuf_release(&err);
}

static void test_broken(void)
{
	static const struct ent dirs_only[] = { { "top/", 'd', 0, NULL }, { "top/e/", 'd', 0, NULL } };
	struct strbuf err = STRBUF_INIT, data = STRBUF_INIT;
	char *good = tmp_path("good.tar.gz"), *cut = tmp_path("cut.tar.gz");
	char *junk = tmp_path("junk.tar"), *none = tmp_path("none.tar");
	git_oid tree;
	int ret;

	make_tar(good, F_GZIP, kernelish, ARRAY_SIZE(kernelish));
	strbuf_read_file(&data, good);
	write_file_atomic(cut, data.buf, data.len / 2);
	capture_start();
	ret = tree_from_tarball(&tree, repo, cut);
	capture_end(&err);
	ok(ret < 0, "a truncated tarball is an error");
	ok(strstr(err.buf, cut) != NULL, "naming the tarball: %s", err.buf);

	write_file_atomic(junk, "this is not a tarball\n", 22);
	capture_start();
	ret = tree_from_tarball(&tree, repo, junk);
	capture_end(&err);
	ok(ret < 0, "a file that is no archive is an error");
	ok(strstr(err.buf, junk) != NULL, "naming it: %s", err.buf);

	capture_start();
	ret = tree_from_tarball(&tree, repo, none);
	capture_end(&err);
	ok(ret < 0, "a missing tarball is an error");
	ok(strstr(err.buf, "cannot read") != NULL, "saying so: %s", err.buf);

	ret = import_ents(&tree, &err, F_NONE, dirs_only, ARRAY_SIZE(dirs_only));
	ok(ret < 0, "a tarball of empty directories is an error");
	ok(strstr(err.buf, "holds no files") != NULL, "saying it holds no files: %s", err.buf);

	strbuf_release(&err);
	strbuf_release(&data);
	free(good);
	free(cut);
	free(junk);
	free(none);
}

static int run_git(const char *dir, ...)
{
	struct child cmd = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *arg;
	va_list ap;
	int ret;

	strvec_pushl(&cmd.argv, "git", "-c", "user.name=T", "-c", "user.email=t@example.org",
		     "-c", "init.defaultBranch=master", NULL);
	va_start(ap, dir);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&cmd.argv, arg);
	va_end(ap);
	cmd.dir = dir;
	cmd.out = &out;
	cmd.err_to_out = 1;
	ret = child_run(&cmd);
	if (ret)
		printf("# git failed: %s\n", out.buf);
	child_release(&cmd);
	strbuf_release(&out);
	return ret;
}

/* git archive writes a pax global header; the tree must come back identical. */
static void test_git_archive_roundtrip(void)
{
	char *src = tmp_path("src"), *tgz = tmp_path("src.tar.gz");
	git_repository *srepo = NULL;
	git_object *head = NULL;
	git_oid tree;
	struct strbuf err = STRBUF_INIT;
	int ret = -1;

	mkdir_p(src, 0755);
	if (run_git(src, "init", "-q", NULL))
		goto cleanup;
	{
		char *p = path_join(src, "x.sh"), *q = path_join(src, "sub/dir/y.c");
		char *l = path_join(src, "sub/link"), *g = path_join(src, ".gitignore");

		write_file_atomic(p, "#!/bin/sh\n", 10);
		chmod(p, 0755);
		mkdir_p(q, 0755);
		rmdir(q);
		write_file_atomic(q, "int y;\n", 7);
		if (symlink("dir/y.c", l))
			printf("# symlink failed\n");
		write_file_atomic(g, "/*\n", 3);
		free(p);
		free(q);
		free(l);
		free(g);
	}
	if (run_git(src, "add", "-f", "-A", ".", NULL) || run_git(src, "commit", "-q", "-m", "x", NULL) ||
	    run_git(src, "archive", "--format=tar.gz", "--prefix=proj-1/", "-o", tgz, "HEAD", NULL))
		goto cleanup;
	if (git_repository_open(&srepo, src) || git_revparse_single(&head, srepo, "HEAD^{tree}"))
		goto cleanup;
	capture_start();
	ret = tree_from_tarball(&tree, repo, tgz);
	capture_end(&err);
cleanup:
	is_int(ret, 0, "a git archive tarball (with its pax global header) imports");
	ok(!ret && head && git_oid_equal(&tree, git_object_id(head)),
	   "to the very tree git archived");
	git_object_free(head);
	git_repository_free(srepo);
	strbuf_release(&err);
	free(src);
	free(tgz);
}

static void write_under(const char *root, const char *rel, const char *text)
{
	char *p = path_join(root, rel);

	mkdir_p(p, 0755);
	rmdir(p);
	write_file_atomic(p, text, strlen(text));
	free(p);
}

static void test_apt_sources(void)
{
	char *root = tmp_path("aptroot"), *empty = tmp_path("aptempty");
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec looked = STRVEC_INIT;
	const char *want =
		"Types: deb\n"
		"URIs: http://mirror.example/debian\n"
		"Components: main contrib\n"
		"Architectures: amd64 i386\n"
		"Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
		"Suites: sid\n"
		"\n"
		"Types: deb\n"
		"URIs: http://mirror.example/debian-security\n"
		"Components: main\n"
		"Suites: sid-security\n"
		"\n"
		"Types: deb\n"
		"URIs: http://deb.example/debian http://mirror2.example/debian\n"
		"Components: main\n"
		"Signed-By:\n"
		" -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
		" .\n"
		" mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD9K2WYj7c\n"
		" -----END PGP PUBLIC KEY BLOCK-----\n"
		"Suites: sid sid-updates\n";
	int ret;

	write_under(root, "etc/os-release",
		    "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_CODENAME=bookworm\n");
	write_under(root, "etc/apt/sources.list",
		    "# the main archive\n"
		    "deb [arch=amd64,i386 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
		    "http://mirror.example/debian bookworm main contrib\n"
		    "deb-src http://mirror.example/debian bookworm main\n"
		    "# deb http://commented.example/debian bookworm main\n"
		    "\n"
		    "deb http://mirror.example/debian-security bookworm-security main # trailing\n");
	write_under(root, "etc/apt/sources.list.d/debian.sources",
		    "Types: deb deb-src\n"
		    "# a comment inside\n"
		    "URIs: http://deb.example/debian http://mirror2.example/debian\n"
		    "Suites: bookworm bookworm-updates bookworm\n"
		    "Components: main\n"
		    "Signed-By:\n"
		    " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
		    " .\n"
		    " mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD9K2WYj7c\n"
		    " -----END PGP PUBLIC KEY BLOCK-----\n"
		    "\n"
		    "Types: deb\n"
		    "URIs: http://off.example/debian\n"
		    "Suites: bookworm\n"
		    "Components: main\n"
		    "Enabled: no\n"
		    "\n"
		    "Types: deb-src\n"
		    "URIs: http://src.example/debian\n"
		    "Suites: bookworm\n"
		    "Components: main\n");
	write_under(root, "etc/apt/sources.list.d/google.list",
		    "deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main\n");
	write_under(root, "etc/apt/sources.list.d/node.sources",
		    "Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\n"
		    "Components: main\n");
	write_under(root, "etc/apt/sources.list.d/old.list.disabled",
		    "deb http://disabled.example/debian bookworm main\n");

	ret = tree_apt_sources(&out, &looked, root, "sid");
	is_int(ret, 0, "apt sources for another suite are derived");
	is_str(out.buf, want, "only the system's Debian archive, its suites mapped, keys kept");
	is_int(looked.nr, 6, "six places to look");
	is_str(looked.nr > 0 ? looked.v[0] : NULL, "http://mirror.example/debian sid",
	       "the first is the main archive");
	is_str(looked.nr > 1 ? looked.v[1] : NULL, "http://mirror.example/debian-security sid-security",
	       "then security");
	is_str(looked.nr > 5 ? looked.v[5] : NULL, "http://mirror2.example/debian sid-updates",
	       "the last is the deb822 file's second mirror");
	strvec_clear(&looked);

	ret = tree_apt_sources(&out, &looked, root, "trixie-backports");
	ok(!ret && strstr(out.buf, "Suites: trixie-backports trixie-backports-updates\n"),
	   "a suite with a dash maps the same way");
	strvec_clear(&looked);

	write_under(empty, "etc/os-release", "ID=debian\n");
	capture_start();
	ret = tree_apt_sources(&out, &looked, empty, "sid");
	capture_end(&err);
	ok(ret < 0, "no codename is an error");
	ok(strstr(err.buf, "names no VERSION_CODENAME") != NULL, "saying so: %s", err.buf);

	write_under(empty, "etc/os-release", "VERSION_CODENAME=\"bookworm\"\n");
	write_under(empty, "etc/apt/sources.list", "deb http://elsewhere.example/ubuntu jammy main\n");
	capture_start();
	ret = tree_apt_sources(&out, &looked, empty, "sid");
	capture_end(&err);
	is_int(ret, MKS_ENOTFOUND, "no Debian archive for the codename is MKS_ENOTFOUND");
	ok(strstr(err.buf, "no Debian archive for 'bookworm'") != NULL, "saying so: %s", err.buf);

	strvec_clear(&looked);
	strbuf_release(&out);
	strbuf_release(&err);
	free(root);
	free(empty);
}

static void test_paths(void)
{
	struct kit kit = KIT_INIT;
	struct kernel_branch b;
	struct tree_import_info info = { 0 };
	char *out = NULL;
	git_oid id;

	memset(&b, 0, sizeof(b));
	b.name = "6.12";
	b.source.kind = SOURCE_DEBIAN;
	kit.dir = "/kit";
	is_str(tree_base_refname(&b), "refs/tags/mkseries/base/6.12", "the base tag's name");

	kernel_repo_path(&out, &kit, &b, "/elsewhere.git");
	is_str(out, "/elsewhere.git", "--repo wins");
	free(out);

	setenv("XDG_CACHE_HOME", "/cache", 1);
	kernel_repo_path(&out, &kit, &b, NULL);
	is_str(out, "/cache/mkseries/linux.git", "else the cache's linux.git");
	free(out);

	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/me", 1);
	kernel_repo_path(&out, &kit, &b, NULL);
	is_str(out, "/home/me/.cache/mkseries/linux.git", "~/.cache without XDG_CACHE_HOME");
	free(out);

	b.source.kind = SOURCE_GIT;
	b.source.repo = "/src/linux-stable";
	ok(kernel_repo_path(&out, &kit, &b, NULL) == MKS_ECONFIG && !out,
	   "a git source's clone that is not there: MKS_ECONFIG, no repository named");
	error_drop(0);
	free(out);

	git_oid_fromstr(&id, "0123456789abcdef0123456789abcdef01234567");
	info.what = "linux-source-6.12 6.12.117-1~deb12u1";
	info.nr_files = 86691;
	info.seconds = 41.23;
	is_str(tree_import_summary(&info, &id),
	       "imported linux-source-6.12 6.12.117-1~deb12u1 as 0123456789ab "
	       "(86,691 files, 41.2 s)", "the import line");
	info.up_to_date = 1;
	is_str(tree_import_summary(&info, &id), "up to date (0123456789ab)",
	       "the up-to-date line");
	out = workdir_path("/w/6.12", WD_OUT, "kit");
	is_str(out, "/w/6.12/out-kit", "a variant's make O=");
	free(out);
	out = workdir_path("/w/6.12", WD_CONSOLE_LOG, "base");
	is_str(out, "/w/6.12/logs/base-console.log", "the first boot's console");
	free(out);
	out = workdir_name(WD_STATE, NULL);
	is_str(out, "state", "the records' directory");
	free(out);
	is_str(workdir_out_variant("out-no-fixes"), "no-fixes", "out-<variant> names its variant");
	ok(!workdir_out_variant("out-") && !workdir_out_variant("logs"), "others name none");
}

/* tree_import() on a tarball source: tagged, cached, forced. */
static void test_import_tarball(void)
{
	struct kit kit = KIT_INIT;
	struct kernel_branch b;
	struct tree_import_info info;
	struct strbuf err = STRBUF_INIT;
	char *tarball = tmp_path("k.tar.xz");
	git_oid first, again, base;
	int ret;

	memset(&b, 0, sizeof(b));
	b.name = "k";
	b.source.kind = SOURCE_TARBALL;
	b.source.tarball = "k.tar.xz";
	kit.dir = tmp;
	make_tar(tarball, F_XZ, kernelish, ARRAY_SIZE(kernelish));

	is_int(tree_base(&base, repo, &b), MKS_ENOTFOUND, "no base before the import");
	ret = tree_import_ex(&first, &info, repo, &kit, &b, 0);
	is_int(ret, 0, "a tarball branch imports (path relative to the kit)");
	is_int(info.up_to_date, 0, "not up to date the first time");
	is_int(info.nr_files, 12, "twelve files");
	is_str(info.what, "k.tar.xz", "named by the tarball");
	tree_import_info_release(&info);
	ok(!tree_base(&base, repo, &b) && git_oid_equal(&base, &first), "tree_base() finds it");

	ret = tree_import_ex(&again, &info, repo, &kit, &b, 0);
	ok(!ret && info.up_to_date && git_oid_equal(&again, &first), "then it is up to date");
	tree_import_info_release(&info);

	ret = tree_import_ex(&again, &info, repo, &kit, &b, TREE_IMPORT_FORCE);
	ok(!ret && !info.up_to_date && git_oid_equal(&again, &first),
	   "forced, it imports to the same commit");
	tree_import_info_release(&info);

	b.source.tarball = "missing.tar.xz";
	capture_start();
	ret = tree_import(&again, repo, &kit, &b, 0);
	capture_end(&err);
	ok(ret < 0, "a missing tarball fails");
	ok(strstr(err.buf, "branch 'k': tarball '") && strstr(err.buf, "missing.tar.xz' does not exist"),
	   "saying so: %s", err.buf);
	ok(!tree_base(&base, repo, &b) && git_oid_equal(&base, &first), "and leaves the tag alone");

	strbuf_release(&err);
	free(tarball);
}

/* kernel_repos_open(): each repository opened and locked once for all the branches sharing it. */
static void test_repos_once(void)
{
	struct kit kit = KIT_INIT;
	struct kernel_branch b1, b2;
	struct kernel_repos rs = KERNEL_REPOS_INIT;
	struct repo_lock other = REPO_LOCK_INIT;
	struct strbuf err = STRBUF_INIT;
	time_t t0;
	git_repository *r1 = NULL, *r2 = NULL, *again = NULL;
	char *cache = tmp_path("cache"), *own = tmp_path("own.git");
	char *pid = xstrfmt("(pid %ld)", (long)getpid());

	memset(&b1, 0, sizeof(b1));
	memset(&b2, 0, sizeof(b2));
	b1.name = "6.1";
	b2.name = "6.12";
	b1.source.kind = b2.source.kind = SOURCE_DEBIAN;
	kit.dir = tmp;
	setenv("XDG_CACHE_HOME", cache, 1);

	is_int(kernel_repos_open(&r1, &rs, &kit, &b1, NULL, KERNEL_REPO_CREATE | KERNEL_REPO_LOCK),
	       0, "the first branch opens the cache's repository, made and locked");
	is_int(kernel_repos_open(&r2, &rs, &kit, &b2, NULL, KERNEL_REPO_CREATE | KERNEL_REPO_LOCK),
	       0, "the second branch, sharing it, is not refused by the first one's lock");
	ok(r1 && r1 == r2 && rs.nr == 1, "both get the same handle, opened once");

	/* another holder (flock is per open file, so this stands for a second mkseries) */
	repo_open(&again, git_repository_path(r1), 0);
	setenv("MKSERIES_LOCK_TIMEOUT", "0", 1);
	capture_start();
	is_int(repo_lock(&other, again), MKS_ELOCKED, "held, no wait: another lock is refused");
	capture_end(&err);
	ok(strstr(err.buf, "is locked by another mkseries") && strstr(err.buf, pid) &&
	   !strstr(err.buf, "waiting"), "naming the holder's pid, at once: %s", err.buf);
	strbuf_reset(&err);
	setenv("MKSERIES_LOCK_TIMEOUT", "1", 1);
	t0 = time(NULL);
	capture_start();
	is_int(repo_lock(&other, again), MKS_ELOCKED, "held for longer than MKSERIES_LOCK_TIMEOUT");
	capture_end(&err);
	ok(time(NULL) - t0 >= 1, "it waited for it first");
	ok(strstr(err.buf, "waited MKSERIES_LOCK_TIMEOUT seconds"), "and says so: %s", err.buf);
	unsetenv("MKSERIES_LOCK_TIMEOUT");

	is_int(kernel_repos_open(&r2, &rs, &kit, &b2, own, KERNEL_REPO_CREATE), 0,
	       "--repo elsewhere: another repository");
	ok(r2 != r1 && rs.nr == 2, "opened apart, not locked");
	is_int(repo_lock(&other, r2), 0, "... so another may lock it");
	repo_unlock(&other);

	kernel_repos_release(&rs);
	ok(!rs.nr && !rs.v, "released");
	is_int(repo_lock(&other, again), 0, "then the cache's repository is free again");
	repo_unlock(&other);

	b1.source.kind = SOURCE_GIT;
	b1.source.repo = "no-such-clone";
	b1.path = "kernels/6.1.yaml";
	capture_start();
	is_int(kernel_repos_open(&r1, &rs, &kit, &b1, NULL, KERNEL_REPO_CREATE | KERNEL_REPO_LOCK),
	       MKS_ECONFIG, "a git source's missing clone is not made");
	capture_end(&err);
	ok(strstr(err.buf, "the git source's repository '") && !rs.nr && !r1,
	   "said, and nothing held: %s", err.buf);

	git_repository_free(again);
	unsetenv("XDG_CACHE_HOME");
	strbuf_release(&err);
	free(pid);
	free(cache);
	free(own);
}

int main(void)
{
	char tmpl[] = "/tmp/test-tree-XXXXXX";
	char *rp;

	gitutil_init();
	tmp = mkdtemp(tmpl);
	if (!tmp) {
		printf("Bail out! cannot make a temporary directory\n");
		return 1;
	}
	rp = tmp_path("repo.git");
	if (repo_open(&repo, rp, 1)) {
		printf("Bail out! cannot make a repository\n");
		return 1;
	}
	test_kernelish();
	test_layouts();
	test_refused();
	test_broken();
	test_git_archive_roundtrip();
	test_apt_sources();
	test_import_tarball();
	test_paths();
	test_repos_once();
	git_repository_free(repo);
	remove_tree(tmp);
	free(rp);
	return tap_done();
}

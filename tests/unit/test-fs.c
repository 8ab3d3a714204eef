/* test-fs.c: unit tests for fs.c: nothing is written, removed or created beyond a symbolic link. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"
#include "tap.h"
#include "lib/util.h"

static char *root, *outside;

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel);

	if (write_file_atomic(p, text, strlen(text)))
		BUG("cannot write '%s'", p);
	free(p);
}

/* The number of entries in dir, "." and ".." left out. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		BUG("cannot open '%s'", dir);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void test_paths(void)
{
	static const char *const bad[] = { "", "/etc/passwd", "a/../b", "../x", "./x", "a//b",
					   "a/", "..", "." };
	struct strbuf why = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		strbuf_reset(&why);
		is_int(fs_write_beneath(root, bad[i], "x", 1, 0644, 0, &why), MKS_EUNSAFE,
		       "'%s' is refused", bad[i]);
		ok(why.len > 0, "and the reason given: %s", why.buf);
	}
	strbuf_release(&why);
}

static void test_write(void)
{
	struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
	char *p = path_join(root, "a/b/c.txt");
	struct stat st;

	is_int(fs_write_beneath(root, "a/b/c.txt", "hello\n", 6, 0755, 0, &why), 0,
	       "a file in new directories: %s", why.buf);
	ok(!strbuf_read_file(&sb, p) && !strcmp(sb.buf, "hello\n"), "it holds what was written");
	ok(!stat(p, &st) && (st.st_mode & 0777) == 0755, "with the mode asked for");
	is_int(fs_write_beneath(root, "a/b/c.txt", "x", 1, 0644, FS_EXCLUSIVE, &why), -1,
	       "FS_EXCLUSIVE: an existing file is an error");
	is_str(why.buf, "it exists already", "and says so");
	is_int(fs_exists_beneath(root, "a/b/c.txt", &why), 1, "fs_exists_beneath sees it");
	is_int(fs_exists_beneath(root, "a/b/none", &why), 0, "and not what is not there");
	is_int(fs_exists_beneath(root, "none/b/c", &why), 0, "nor under a missing directory");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "a/b", "x", 1, 0644, 0, &why), -1, "a directory is not replaced");
	is_str(why.buf, "it is a directory", "and says so");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "a/b/c.txt/d", "x", 1, 0644, 0, &why), -1,
	       "a file is not a directory");
	is_str(why.buf, "'a/b/c.txt' is not a directory", "and says which");
	is_int(fs_unlink_beneath(root, "a/b/c.txt", &why), 0, "unlink");
	ok(access(p, F_OK) && errno == ENOENT, "the file is gone");
	is_int(fs_unlink_beneath(root, "a/b/c.txt", &why), 0, "unlink again: already gone");
	is_int(fs_unlink_beneath(root, "x/y/z", &why), 0, "unlink under a missing directory");
	is_int(fs_mkdir_beneath(root, "d/e/f", &why), 0, "mkdir of a new path");
	is_int(fs_mkdir_beneath(root, "d/e/f", &why), 0, "and again");
	strbuf_release(&sb);
	strbuf_release(&why);
	free(p);
}

static void test_links(void)
{
	struct strbuf why = STRBUF_INIT, sb = STRBUF_INIT;
	char *link = path_join(root, "mm/out"), *mm = path_join(root, "mm");
	char *file_link = path_join(root, "series.yaml"), *target = path_join(outside, "series.yaml");

	if (mkdir(mm, 0755) || symlink(outside, link))
		BUG("cannot make the link");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "mm/out/pwned", "x", 1, 0644, 0, &why), MKS_EUNSAFE,
	       "a write beyond a link is refused");
	is_str(why.buf, "'mm/out' is a symbolic link", "naming the link");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "mm/out/new/deeper", "x", 1, 0644, 0, &why), MKS_EUNSAFE,
	       "so is a write that would create directories beyond one");
	strbuf_reset(&why);
	is_int(fs_mkdir_beneath(root, "mm/out/dir", &why), MKS_EUNSAFE, "and a mkdir");
	put(outside, "keep", "mine\n");
	strbuf_reset(&why);
	is_int(fs_unlink_beneath(root, "mm/out/keep", &why), MKS_EUNSAFE, "and an unlink");
	strbuf_reset(&why);
	is_int(fs_exists_beneath(root, "mm/out/keep", &why), MKS_EUNSAFE,
	       "fs_exists_beneath does not look beyond one either");
	ok(access(target, F_OK) && errno == ENOENT, "nothing was written outside");
	{
		char *keep = path_join(outside, "keep");

		ok(!access(keep, F_OK), "nothing was removed outside");
		free(keep);
	}
	strbuf_reset(&why);
	is_int(fs_symlink_beneath(root, "mm/out/l", "/etc", &why), MKS_EUNSAFE,
	       "no link is made beyond a link");

	/* the link itself: replaced as a type change does, or refused for kit files */
	if (symlink(target, file_link))
		BUG("cannot make the file link");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "series.yaml", "x", 1, 0644, FS_REFUSE_LINK, &why),
	       MKS_EUNSAFE, "FS_REFUSE_LINK: a link in the file's place is refused");
	is_str(why.buf, "it is a symbolic link", "and says so");
	ok(access(target, F_OK) && errno == ENOENT, "its target was not written");
	strbuf_reset(&why);
	is_int(fs_write_beneath(root, "series.yaml", "yes\n", 4, 0644, 0, &why), 0,
	       "without it, the link is replaced by the file");
	ok(access(target, F_OK) && errno == ENOENT, "and its target is still not written");
	ok(!strbuf_read_file(&sb, file_link) && !strcmp(sb.buf, "yes\n"), "the file is there");
	is_int(fs_symlink_beneath(root, "mm/link", "../series.yaml", &why), 0,
	       "a link is made where the path is clean");
	is_int(entries(outside), 1, "outside holds only what the test put there");
	strbuf_release(&sb);
	strbuf_release(&why);
	free(target);
	free(file_link);
	free(mm);
	free(link);
}

int main(void)
{
	char tmpl[] = "/tmp/test-fs.XXXXXX", tmpl2[] = "/tmp/test-fs-out.XXXXXX";
	struct child rm = CHILD_INIT;

	if (!mkdtemp(tmpl) || !mkdtemp(tmpl2))
		BUG("mkdtemp");
	root = tmpl;
	outside = tmpl2;
	test_paths();
	is_int(entries(root), 0, "nothing refused was written");
	test_write();
	test_links();
	strvec_pushl(&rm.argv, "rm", "-rf", tmpl, tmpl2, NULL);
	child_run(&rm);
	child_release(&rm);
	return tap_done();
}

/* tree/workdir.c: the cache directory, each branch's work directory and the lock that keeps a second mkseries out of it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/workdir.h"
#include "lib/util.h"

#define OUT_PREFIX "out-"

char *workdir_name(enum workdir_part part, const char *variant)
{
	switch (part) {
	case WD_LOCK:
		return xstrdup("lock");
	case WD_STATE:
		return xstrdup("state");
	case WD_SRC:
		return xstrdup("src");
	case WD_OUT:
		return xstrfmt(OUT_PREFIX "%s", variant);
	case WD_LOGS:
		return xstrdup("logs");
	case WD_BUILD_LOG:
		return xstrfmt("logs/%s-build.log", variant);
	case WD_CONSOLE_LOG:
		return xstrfmt("logs/%s-console.log", variant);
	case WD_INITRAMFS:
		return xstrdup("initramfs.cpio");
	case WD_BACKPORT:
		return xstrdup("backport");
	}
	BUG("unknown work directory part %d", (int)part);
}

char *workdir_path(const char *workdir, enum workdir_part part, const char *variant)
{
	char *name = workdir_name(part, variant), *path = path_join(workdir, name);

	free(name);
	return path;
}

const char *workdir_out_variant(const char *name)
{
	const char *v;

	return skip_prefix(name, OUT_PREFIX, &v) && *v ? v : NULL;
}

int workdir_lock(struct workdir_lock *lk, const char *workdir)
{
	char *path = workdir_path(workdir, WD_LOCK, NULL);
	struct stat st;
	int ret = 0;

	lk->why = NULL;
	if (mkdir_p(workdir, 0755)) {
		lk->why = "it cannot be created";
		ret = error("cannot create '%s': %s", workdir, strerror(errno));
		goto cleanup;
	}
	lk->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (lk->fd < 0 || fstat(lk->fd, &st) || !S_ISREG(st.st_mode)) {
		int link = lk->fd < 0 && errno == ELOOP;

		lk->why = link ? "its lock is a symbolic link, refused" :
			  lk->fd < 0 ? "its lock cannot be opened" :
			  "its lock is not a regular file, refused";
		ret = error("cannot use lock '%s': %s", path,
			    link ? "it is a symbolic link; remove it" :
			    lk->fd < 0 ? strerror(errno) : "it is not a regular file; remove it");
		if (lk->fd >= 0)
			close(lk->fd);
		lk->fd = -1;
		goto cleanup;
	}
	if (flock(lk->fd, LOCK_EX | LOCK_NB)) {
		lk->why = "it is in use by another mkseries";
		ret = error_code(MKS_ELOCKED, "'%s' is in use by another mkseries (lock %s)",
				 workdir, path);
		close(lk->fd);
		lk->fd = -1;
	}
cleanup:
	free(path);
	return ret;
}

void workdir_unlock(struct workdir_lock *lk)
{
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
}

/* `path` made absolute, with "." and ".." components folded away. Caller frees. */
static char *absolute_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char cwd[4096];
	const char *p;

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		strbuf_addstr(&sb, cwd);
	for (p = path; *p;) {
		const char *slash = strchrnul(p, '/');
		size_t n = slash - p;

		if (n == 2 && !strncmp(p, "..", 2)) {
			char *last = strrchr(sb.buf, '/');

			strbuf_setlen(&sb, last ? (size_t)(last - sb.buf) : 0);
		} else if (n && !(n == 1 && *p == '.')) {
			strbuf_addch(&sb, '/');
			strbuf_add(&sb, p, n);
		}
		p = *slash ? slash + 1 : slash;
	}
	if (!sb.len)
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb, NULL);
}

/*
 * <cache>/work/<kit id>/kit names the kit's directory, so that `mkseries
 * gc` can tell a kit that is gone (moved or deleted: its id changed) from
 * one that is still there. Written when missing or different; a cache
 * that cannot be written is no error here (`report` only reads).
 */
static void note_kit_dir(const char *root, const struct kit *kit)
{
	struct strbuf have = STRBUF_INIT, want = STRBUF_INIT;
	char *path = path_join(root, "kit");

	strbuf_addf(&want, "%s\n", kit->dir);
	if ((strbuf_read_file(&have, path) || strcmp(have.buf, want.buf)) && !mkdir_p(root, 0755))
		write_file_atomic(path, want.buf, want.len);
	strbuf_release(&have);
	strbuf_release(&want);
	free(path);
}

char *branch_workdir(const struct kit *kit, const char *workdir_opt, const struct kernel_branch *b)
{
	char *root, *ret;

	if (workdir_opt && *workdir_opt) {
		root = absolute_path(workdir_opt);
	} else {
		char *cache = mks_cache_dir();

		/* Where the repository would go too: a command cannot go on without it. */
		if (!cache) {
			error("cannot tell where work directories go: neither XDG_CACHE_HOME "
			      "(absolute) nor HOME is set (use --workdir DIR)");
			return NULL;
		}
		root = xstrfmt("%s/work/%s", cache, kit_id(kit));
		free(cache);
		if (kit->dir)
			note_kit_dir(root, kit);
	}
	ret = path_join(root, b->name);
	free(root);
	return ret;
}

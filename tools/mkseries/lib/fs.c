/* lib/fs.c: writing beneath a root directory, one openat() a component, no symbolic link followed. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fs.h"

/* `rel` as the rules of fs.h want it: relative, no empty, "." or ".." component. */
static int check_rel(const char *rel, struct strbuf *why)
{
	const char *c = rel;

	if (!*rel || *rel == '/') {
		strbuf_addstr(why, "not a path below the root");
		return MKS_EUNSAFE;
	}
	while (*c) {
		size_t n = strcspn(c, "/");

		if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
			strbuf_addstr(why, "an empty, '.' or '..' component");
			return MKS_EUNSAFE;
		}
		c += n;
		if (*c == '/' && !*++c) {
			strbuf_addstr(why, "it ends with '/'");
			return MKS_EUNSAFE;
		}
	}
	return 0;
}

/*
 * Open the directory that holds `rel` beneath `root` (creating what is
 * missing when `create`), component by component with O_NOFOLLOW. On
 * success *dirfd is open and *name points into rel at the last component.
 */
static int open_parent(int *dirfd, const char **name, const char *root, const char *rel,
		       int create, struct strbuf *why)
{
	const char *c = rel, *slash;
	int fd, ret;

	*dirfd = -1;
	if ((ret = check_rel(rel, why)))
		return ret;
	if ((fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		strbuf_addf(why, "cannot open the root '%s': %s", root, strerror(errno));
		return -1;
	}
	while ((slash = strchr(c, '/'))) {
		char *part = xstrndup(c, slash - c), *upto = xstrndup(rel, slash - rel);
		struct stat st;
		int next = -1, said = 0;

		ret = fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW);
		if (ret && errno == ENOENT && create) {
			if (mkdirat(fd, part, 0755) && errno != EEXIST) {
				strbuf_addf(why, "cannot create '%s': %s", shown(upto),
					    strerror(errno));
				said = 1;
			} else {
				ret = fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW);
			}
		}
		if (ret) {
			int e = errno;

			if (!said)
				strbuf_addf(why, "cannot reach '%s': %s", shown(upto), strerror(e));
			ret = e == ENOENT ? MKS_ENOTFOUND : -1;
		} else if (S_ISLNK(st.st_mode)) {
			strbuf_addf(why, "'%s' is a symbolic link", shown(upto));
			ret = MKS_EUNSAFE;
		} else if (!S_ISDIR(st.st_mode)) {
			strbuf_addf(why, "'%s' is not a directory", shown(upto));
			ret = -1;
		} else if ((next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			/* it was a directory a moment ago: someone swapped it */
			strbuf_addf(why, "'%s' changed under mkseries: %s", shown(upto),
				    strerror(errno));
			ret = MKS_EUNSAFE;
		}
		free(upto);
		free(part);
		close(fd);
		if (ret)
			return ret;
		fd = next;
		c = slash + 1;
	}
	*dirfd = fd;
	*name = c;
	return 0;
}

/* What is at `name` in dirfd: its mode, 0 when nothing is there, -1 on errors. */
static int mode_at(mode_t *mode, int dirfd, const char *name)
{
	struct stat st;

	*mode = 0;
	if (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		*mode = st.st_mode;
		return 0;
	}
	return errno == ENOENT ? 0 : -1;
}

int fs_write_beneath(const char *root, const char *rel, const void *data, size_t len,
		     mode_t mode, unsigned flags, struct strbuf *why)
{
	char *tmp = NULL, *tmp_abs = NULL;
	const char *name;
	mode_t have;
	int dirfd, fd = -1, ret;

	if ((ret = open_parent(&dirfd, &name, root, rel, 1, why)))
		return ret;
	if (mode_at(&have, dirfd, name)) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
		goto cleanup;
	}
	if (have && (flags & FS_EXCLUSIVE)) {
		strbuf_addstr(why, "it exists already");
		ret = -1;
		goto cleanup;
	}
	if (S_ISLNK(have) && (flags & FS_REFUSE_LINK)) {
		strbuf_addstr(why, "it is a symbolic link");
		ret = MKS_EUNSAFE;
		goto cleanup;
	}
	if (have && S_ISDIR(have)) {
		strbuf_addstr(why, "it is a directory");
		ret = -1;
		goto cleanup;
	}
	tmp = xstrfmt("%s.tmp.%ld", name, (long)getpid());
	tmp_abs = xstrfmt("%s/%s.tmp.%ld", root, rel, (long)getpid());
	temp_path_add(tmp_abs);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_in_full(fd, data, len) || fchmod(fd, mode) || fsync(fd)) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	if (fd >= 0 && close(fd) && !ret) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	if (!ret)
		test_crash_point_tmp(name);
	if (!ret && renameat(dirfd, tmp, dirfd, name)) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	if (ret)
		unlinkat(dirfd, tmp, 0);
	temp_path_done(tmp_abs);
cleanup:
	free(tmp_abs);
	free(tmp);
	close(dirfd);
	return ret;
}

int fs_symlink_beneath(const char *root, const char *rel, const char *target, struct strbuf *why)
{
	const char *name;
	int dirfd, ret;

	if ((ret = open_parent(&dirfd, &name, root, rel, 1, why)))
		return ret;
	if ((unlinkat(dirfd, name, 0) && errno != ENOENT) || symlinkat(target, dirfd, name)) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	close(dirfd);
	return ret;
}

/*
 * open_parent() without creating, for what removes or looks: 1 (and `why`
 * as it was) when a directory above `rel` is not there, so neither is it.
 */
static int open_parent_if_there(int *dirfd, const char **name, const char *root,
				const char *rel, struct strbuf *why)
{
	size_t len = why->len;
	int ret = open_parent(dirfd, name, root, rel, 0, why);

	if (ret == MKS_ENOTFOUND) {
		strbuf_setlen(why, len);
		return 1;
	}
	return ret;
}

int fs_rmdir_beneath(const char *root, const char *rel, struct strbuf *why)
{
	const char *name;
	int dirfd, ret;

	ret = open_parent_if_there(&dirfd, &name, root, rel, why);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (!unlinkat(dirfd, name, AT_REMOVEDIR))
		ret = 1;
	else if (errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST && errno != ENOTDIR) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	close(dirfd);
	return ret;
}

int fs_unlink_beneath(const char *root, const char *rel, struct strbuf *why)
{
	const char *name;
	int dirfd, ret;

	ret = open_parent_if_there(&dirfd, &name, root, rel, why);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (unlinkat(dirfd, name, 0) && errno != ENOENT) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	}
	close(dirfd);
	return ret;
}

int fs_mkdir_beneath(const char *root, const char *rel, struct strbuf *why)
{
	const char *name;
	mode_t have;
	int dirfd, ret;

	if ((ret = open_parent(&dirfd, &name, root, rel, 1, why)))
		return ret;
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	} else if (mode_at(&have, dirfd, name) || !S_ISDIR(have)) {
		strbuf_addstr(why, S_ISLNK(have) ? "it is a symbolic link" : "it is not a directory");
		ret = S_ISLNK(have) ? MKS_EUNSAFE : -1;
	}
	close(dirfd);
	return ret;
}

int fs_exists_beneath(const char *root, const char *rel, struct strbuf *why)
{
	const char *name;
	mode_t have;
	int dirfd, ret;

	ret = open_parent_if_there(&dirfd, &name, root, rel, why);
	if (ret)
		return ret == 1 ? 0 : ret;
	if (mode_at(&have, dirfd, name)) {
		strbuf_addstr(why, strerror(errno));
		ret = -1;
	} else {
		ret = have != 0;
	}
	close(dirfd);
	return ret;
}

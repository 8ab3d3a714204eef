/* lib/util.c: errors, memory, strbuf, strvec and file helpers. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

static void test_crash_point_rm(const char *path);

int mks_verbose = 1;
char *mks_command_line;
char strbuf_slopbuf[1];
const char *empty_strvec[] = { NULL };

/*
 * The messages error() and error_code() kept and no one has printed
 * yet, oldest first. A lock, as the scan and writer threads fail too.
 */
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct strvec kept = STRVEC_INIT;

static void print_line(const char *prefix, const char *msg, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, prefix);
	/* Messages quote patches, mails and consoles: keep their escapes off the terminal. */
	strbuf_add_shown(&sb, msg, len, SHOWN_LINES);
	strbuf_addch(&sb, '\n');
	fflush(stdout);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

static void vkeep(const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;

	strbuf_vaddf(&msg, fmt, ap);
	pthread_mutex_lock(&kept_lock);
	strvec_push(&kept, msg.buf);
	pthread_mutex_unlock(&kept_lock);
	strbuf_release(&msg);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vkeep(fmt, ap);
	va_end(ap);
	return -1;
}

int error_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vkeep(fmt, ap);
	va_end(ap);
	return code;
}

size_t error_mark(void)
{
	size_t nr;

	pthread_mutex_lock(&kept_lock);
	nr = kept.nr;
	pthread_mutex_unlock(&kept_lock);
	return nr;
}

char *error_since(size_t mark)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	pthread_mutex_lock(&kept_lock);
	for (i = mark; i < kept.nr; i++)
		strbuf_addf(&sb, "%s%s", sb.len ? "; " : "", kept.v[i]);
	pthread_mutex_unlock(&kept_lock);
	return sb.len ? strbuf_detach(&sb, NULL) : NULL;
}

void error_drop(size_t mark)
{
	pthread_mutex_lock(&kept_lock);
	while (kept.nr > mark) {
		free((char *)kept.v[--kept.nr]);
		kept.v[kept.nr] = NULL;
	}
	pthread_mutex_unlock(&kept_lock);
}

int error_flush(void)
{
	int nr;
	size_t i;

	pthread_mutex_lock(&kept_lock);
	nr = (int)kept.nr;
	for (i = 0; i < kept.nr; i++)
		print_line("error: ", kept.v[i], strlen(kept.v[i]));
	strvec_clear(&kept);
	pthread_mutex_unlock(&kept_lock);
	return nr;
}

static void vprint(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;

	error_flush();
	strbuf_vaddf(&msg, fmt, ap);
	print_line(prefix, msg.buf, msg.len);
	strbuf_release(&msg);
}

int print_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

int print_error_code(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("error: ", fmt, ap);
	va_end(ap);
	return code;
}

const char *format_duration_to(char *buf, double seconds)
{
	long s = (long)(seconds + 0.5);

	if (s < 60)
		snprintf(buf, 32, "%lds", s);
	else if (s < 3600)
		snprintf(buf, 32, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, 32, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

const char *format_rough_to(char *buf, double seconds)
{
	long s = (long)(seconds + 0.5), m = (s + 30) / 60;

	if (s < 60)
		snprintf(buf, 32, "%lds", s);
	else if (m < 60)
		snprintf(buf, 32, "%ldm", m);
	else
		snprintf(buf, 32, "%ldh%02ldm", m / 60, m % 60);
	return buf;
}

const char *thousands_to(char *buf, size_t n)
{
	char tmp[32];
	size_t len, i, o = 0;

	snprintf(tmp, sizeof(tmp), "%zu", n);
	len = strlen(tmp);
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

int mks_exit_status(int err)
{
	if (!err)
		return 0;
	return err == MKS_ECONFIG ? 2 : 1;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint("fatal: ", fmt, ap);
	va_end(ap);
	exit(2);
}

void bug_fl(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int mks_isatty_stderr(void)
{
	return isatty(2);
}

int mks_use_color(void)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return 0;
	return isatty(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

void *xcalloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (!p)
		die("out of memory");
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int new_buf = !sb->alloc;

	if (sb->len + extra + 1 <= sb->len)
		die("strbuf too large");
	if (new_buf)
		sb->buf = NULL;
	ALLOC_GROW(sb->buf, sb->len + extra + 1, sb->alloc);
	if (new_buf)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > (sb->alloc ? sb->alloc - 1 : 0))
		BUG("strbuf_setlen() beyond buffer");
	sb->len = len;
	if (sb->buf != strbuf_slopbuf)
		sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_addchars(struct strbuf *sb, int c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	strbuf_setlen(sb, sb->len + n);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		BUG("vsnprintf failed");
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' || sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

void strbuf_add_indented(struct strbuf *sb, const char *text, const char *prefix)
{
	while (*text) {
		const char *nl = strchrnul(text, '\n');

		strbuf_addstr(sb, prefix);
		strbuf_add(sb, text, nl - text);
		strbuf_addch(sb, '\n');
		text = *nl ? nl + 1 : nl;
	}
}

/* Length of the valid UTF-8 sequence at s[0..len) (0 when invalid); *cp gets the code point. */
static size_t utf8_seq(const unsigned char *s, size_t len, unsigned *cp)
{
	size_t n, i;
	unsigned c = s[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		*cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		*cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		*cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n > len)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp < 0xe000))
		return 0;
	return n;
}

size_t utf8_char_len(const char *s, size_t len)
{
	unsigned cp;

	return utf8_seq((const unsigned char *)s, len, &cp);
}

/*
 * Format characters that change how the text around them reads without
 * showing themselves: the bidirectional overrides, embeddings and
 * isolates (U+202E turns "gpj.exe" into what looks like "exe.jpg"), the
 * directional marks, zero-width characters, line and paragraph
 * separators, and the byte order mark. They are escaped as the C1
 * controls are.
 */
static int is_invisible_control(unsigned cp)
{
	return cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

void strbuf_add_shown(struct strbuf *sb, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		unsigned cp;
		size_t n = utf8_seq(p, end - p, &cp);

		if (!n) {
			strbuf_addf(sb, "\\x%02x", *p++);
			continue;
		}
		if (cp == '\t' || (cp == '\n' && (flags & SHOWN_LINES)))
			strbuf_addch(sb, cp);
		else if (cp == '\n')
			strbuf_addstr(sb, "\\n");
		else if (cp == '\r')
			strbuf_addstr(sb, "\\r");
		else if (cp < 0x20 || cp == 0x7f)
			strbuf_addf(sb, "\\x%02x", cp);
		else if ((cp >= 0x80 && cp < 0xa0) || is_invisible_control(cp))
			strbuf_addf(sb, "\\u%04x", cp);
		else
			strbuf_add(sb, p, n);
		p += n;
	}
}

const char *shown(const char *s)
{
	static struct strbuf ring[16];
	static unsigned next;
	struct strbuf *sb;
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s);
	sb = &ring[next++ % ARRAY_SIZE(ring)];
	if (!sb->buf)
		strbuf_init(sb, 0);
	strbuf_reset(sb);
	strbuf_add_shown(sb, s, len, 0);
	return sb->len == len && !memcmp(sb->buf, s, len) ? s : sb->buf;
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	for (;;) {
		ssize_t n;

		strbuf_grow(sb, 65536);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!n)
			break;
		sb->len += n;
		sb->buf[sb->len] = '\0';
	}
	return 0;
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, saved;

	if (fd < 0)
		return -1;
	ret = strbuf_read_fd(sb, fd);
	saved = errno;
	close(fd);
	errno = saved;
	return ret;
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* Whether `path` may be opened: a regular file of at most `max` bytes. */
static int regular_file_ok(const char *path, size_t max, const char *limit,
			   struct strbuf *why)
{
	struct stat st, lst;

	if (stat(path, &st)) {
		strbuf_addstr(why, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		int link = !lstat(path, &lst) && S_ISLNK(lst.st_mode);

		strbuf_addf(why, "not a regular file (%s%s)",
			    link ? "a symbolic link to " : "", file_kind(st.st_mode));
		errno = EINVAL;
		return -1;
	}
	if ((unsigned long long)st.st_size > max) {
		strbuf_addf(why, "%lld bytes, more than the %zu MiB %s",
			    (long long)st.st_size, max >> 20, limit);
		errno = EFBIG;
		return -1;
	}
	return 0;
}

int strbuf_read_regular(struct strbuf *sb, const char *path, size_t max,
			const char *limit, struct strbuf *why)
{
	struct stat st;
	ssize_t n;
	int fd = -1, saved;

	/* stat first: opening a device can have effects of its own (a tape rewinds) */
	if (regular_file_ok(path, max, limit, why))
		goto fail;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		strbuf_addstr(why, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		/* swapped for something else since the stat() */
		strbuf_addf(why, "not a regular file (%s)", file_kind(st.st_mode));
		errno = EINVAL;
		goto fail;
	}
	strbuf_grow(sb, (size_t)st.st_size + 1);
	/* a file that grows while read stops at the cap all the same */
	while (sb->len <= max &&
	       (n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			strbuf_addstr(why, strerror(errno));
			goto fail;
		}
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (sb->alloc - sb->len < 2)
			strbuf_grow(sb, 8192);
	}
	if (sb->len > max) {
		strbuf_addf(why, "more than the %zu MiB %s", max >> 20, limit);
		errno = EFBIG;
		goto fail;
	}
	close(fd);
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	strbuf_reset(sb);
	errno = saved;
	return -1;
}

void strvec_init(struct strvec *sv)
{
	sv->v = empty_strvec;
	sv->nr = sv->alloc = 0;
}

void strvec_push(struct strvec *sv, const char *s)
{
	if (sv->v == empty_strvec)
		sv->v = NULL;
	ALLOC_GROW(sv->v, sv->nr + 2, sv->alloc);
	sv->v[sv->nr++] = xstrdup(s);
	sv->v[sv->nr] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push(sv, sb.buf);
	strbuf_release(&sb);
}

void strvec_pushl(struct strvec *sv, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, sv);
	while ((s = va_arg(ap, const char *)))
		strvec_push(sv, s);
	va_end(ap);
}

void strvec_clear(struct strvec *sv)
{
	size_t i;

	if (sv->v != empty_strvec) {
		for (i = 0; i < sv->nr; i++)
			free((char *)sv->v[i]);
		free(sv->v);
	}
	strvec_init(sv);
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	if (mkdir(p, mode) && errno != EEXIST) {
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

int remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path))
			return -1;
		test_crash_point_rm(path);
		return 0;
	}
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = path_join(path, de->d_name);
		if (remove_tree(sub))
			ret = -1;
		free(sub);
	}
	closedir(d);
	if (rmdir(path))
		ret = -1;
	return ret;
}

const char *format_bytes_to(char *buf, unsigned long long bytes)
{
	static const char *const unit[] = { "KB", "MB", "GB", "TB" };
	double v = bytes;
	size_t u = 0;

	if (bytes < 1024) {
		snprintf(buf, 32, "%llu B", bytes);
		return buf;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, 32, "%.1f %s", v, unit[u]);
	return buf;
}

/* Inodes with more than one link already counted by disk_usage(): an open-addressed set. */
struct inode_set {
	ino_t *ino;
	size_t nr, size;
};

static int inode_seen(struct inode_set *set, ino_t ino)
{
	size_t i;

	if (2 * (set->nr + 1) > set->size) {
		struct inode_set bigger = { NULL, 0, set->size ? 2 * set->size : 1024 };

		bigger.ino = xcalloc(bigger.size, sizeof(*bigger.ino));
		for (i = 0; i < set->size; i++)
			if (set->ino[i])
				inode_seen(&bigger, set->ino[i]);
		free(set->ino);
		*set = bigger;
	}
	for (i = (size_t)ino * 2654435761u % set->size; set->ino[i]; i = (i + 1) % set->size)
		if (set->ino[i] == ino)
			return 1;
	set->ino[i] = ino;
	set->nr++;
	return 0;
}

static unsigned long long usage_below(const char *path, dev_t dev, struct inode_set *links)
{
	unsigned long long sum;
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (lstat(path, &st) || st.st_dev != dev)
		return 0;
	if (!S_ISDIR(st.st_mode) && st.st_nlink > 1 && inode_seen(links, st.st_ino))
		return 0;
	sum = (unsigned long long)st.st_blocks * 512;
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return sum;
	while ((de = readdir(d))) {
		char *sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = path_join(path, de->d_name);
		sum += usage_below(sub, dev, links);
		free(sub);
	}
	closedir(d);
	return sum;
}

unsigned long long disk_usage(const char *path)
{
	struct inode_set links = { NULL, 0, 0 };
	unsigned long long sum;
	struct stat st;

	if (lstat(path, &st))
		return 0;
	sum = usage_below(path, st.st_dev, &links);
	free(links.ino);
	return sum;
}

int file_exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

int dir_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int write_in_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

void test_crash_point(const char *step)
{
	const char *at = getenv("MKSERIES_TEST_BACKPORT_CRASH");

	if (at && *at && !fnmatch(at, step, 0)) {
		fflush(stdout);
		raise(SIGKILL);
	}
}

/* test_crash_point("<what>:<last component of path>"). */
static void test_crash_point_at(const char *what, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *step;

	if (!getenv("MKSERIES_TEST_BACKPORT_CRASH"))
		return;
	step = xstrfmt("%s:%s", what, slash ? slash + 1 : path);
	test_crash_point(step);
	free(step);
}

void test_crash_point_tmp(const char *path)
{
	test_crash_point_at("tmp", path);
}

/* test_crash_point("rm:<last component of path>"): remove_tree() has just unlinked the file. */
static void test_crash_point_rm(const char *path)
{
	test_crash_point_at("rm", path);
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	char *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		goto fail;
	if (write_in_full(fd, data, len)) {
		close(fd);
		goto fail_unlink;
	}
	if (fsync(fd) || close(fd))
		goto fail_unlink;
	test_crash_point_tmp(path);
	if (rename(tmp, path))
		goto fail_unlink;
	free(tmp);
	return 0;
fail_unlink:
	unlink(tmp);
fail:
	free(tmp);
	return -1;
}

int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *mks_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	/* A relative XDG_CACHE_HOME is invalid (XDG base directory spec): ignored. */
	if (xdg && *xdg == '/')
		return path_join(xdg, "mkseries");
	if (home && *home)
		return xstrfmt("%s/.cache/mkseries", home);
	return NULL;
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (!n)
		return xstrdup(name);
	return xstrfmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int skip_prefix(const char *s, const char *prefix, const char **out)
{
	size_t n = strlen(prefix);

	if (strncmp(s, prefix, n))
		return 0;
	*out = s + n;
	return 1;
}

int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

double mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Levenshtein distance between a and b: the edits from one to the other. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row = xcalloc(lb + 1, sizeof(*row)), res;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	res = row[lb];
	free(row);
	return res;
}

int similar_name(const char *typed, const char *name)
{
	return edit_distance(typed, name) <= 2 || starts_with(name, typed);
}

int name_index(const char *const *names, size_t nr, const char *name)
{
	size_t i;

	for (i = 0; name && i < nr; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -1;
}

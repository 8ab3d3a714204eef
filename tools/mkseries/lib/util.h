/* lib/util.h: small helpers every module uses: errors, memory, strings, argv vectors, files (processes are runcmd.h's). */
#ifndef MKSERIES_UTIL_H
#define MKSERIES_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The index of `name` in the table names[0..nr) (NULL entries skipped); -1 when absent or name is NULL. */
int name_index(const char *const *names, size_t nr, const char *name);

/* Named failures that callers handle; anything else is -1. */
enum {
	MKS_ERROR = -1,
	MKS_ENOTFOUND = -2,   /* the thing asked for does not exist */
	MKS_EAPPLYFAIL = -3,  /* a patch does not apply */
	MKS_ECONFIG = -4,     /* the kit (series.yaml, kernels/) is invalid */
	MKS_ELOCKED = -5,     /* another mkseries holds the repository */
	MKS_EUNSAFE = -6,     /* input reaches outside where it may */
};

/*
 * Errors are kept, not printed, where they happen: below run/, a function
 * that fails says why with error() or error_code() and returns the code,
 * as libgit2 keeps git_error_last() for its caller. The messages wait, in
 * order, until a builtin or run/ prints them: print_error() (its own,
 * after those waiting), error_flush(), warning(), die(), and the end of
 * the command. So a step can record the words the user will see
 * (error_since()), and a look-ahead can drop what a later step says
 * itself (error_drop()). tests/check-layers.sh holds each side to its
 * functions.
 */
/* Keep "msg" and return -1, so `return error(...)` reads well. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same as error() but returns the given code. */
int error_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* How many messages wait now: a mark for error_since() and error_drop(). */
size_t error_mark(void);
/* The messages kept since `mark`, "; " between two; NULL when none. */
char *error_since(size_t mark);
/* Forget the messages kept since `mark`. */
void error_drop(size_t mark);
/* Print every waiting message as "error: ...", oldest first; how many there were. */
int error_flush(void);
/* For builtins and run/: print the waiting messages, then "error: msg"; -1 or the code. */
int print_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int print_error_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The exit status of a command whose work returned err: 0 for 0, 2 for
 * MKS_ECONFIG (the kit or the command line is wrong), 1 for any other
 * failure. The one place a code becomes an exit status.
 */
int mks_exit_status(int err);
/* Print the waiting errors, then "warning: msg". */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print and exit(2): only for usage errors in cmd_* and for running out of memory. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#define BUG(...) bug_fl(__FILE__, __LINE__, __VA_ARGS__)
void bug_fl(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

/* "3m02s", "41s" into buf (at least 32 bytes); returns buf. */
const char *format_duration_to(char *buf, double seconds);
/* The same into a buffer of the calling block's own, as oid_short(). */
#define format_duration(seconds) format_duration_to((char[32]){ 0 }, (seconds))
/* An estimate, no finer than it can be: "40s", "41m", "1h10m" into buf (32 bytes). */
const char *format_rough_to(char *buf, double seconds);
#define format_rough(seconds) format_rough_to((char[32]){ 0 }, (seconds))

/* "86691" -> "86,691" into buf (at least 32 bytes); returns buf. */
const char *thousands_to(char *buf, size_t n);
#define thousands(n) thousands_to((char[32]){ 0 }, (n))
/* A size for people: "512 B", "3.4 KB", "1.2 GB" (powers of 1024, one decimal). */
const char *format_bytes_to(char *buf, unsigned long long bytes);
#define format_bytes(n) format_bytes_to((char[32]){ 0 }, (n))
/*
 * The disk space a file or a tree takes, as du counts it (allocated
 * blocks, a file with several links once), not following symbolic links
 * and not leaving the file system; 0 when it is not there.
 */
unsigned long long disk_usage(const char *path);

/* Verbosity: 0 with -q, 1 by default, 2 with -v; and whether stderr is a terminal. */
extern int mks_verbose;
/* This process's command line ("mkseries run --all"), set by main(); NULL in tests. */
extern char *mks_command_line;
int mks_isatty_stderr(void);
/* Whether to colour stdout: a TTY, and NO_COLOR unset or empty. */
int mks_use_color(void);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array `x` of `nr` used out of `alloc` slots to hold at least n. */
#define ALLOC_GROW(x, n, alloc) \
	do { \
		if ((n) > (alloc)) { \
			(alloc) = (alloc) * 2 + 16 > (n) ? (alloc) * 2 + 16 : (n); \
			(x) = xrealloc((x), (alloc) * sizeof(*(x))); \
		} \
	} while (0)

/*
 * A growable string. Invariants: buf is never NULL and is always
 * NUL-terminated; len excludes the NUL.
 */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};
extern char strbuf_slopbuf[];
#define STRBUF_INIT { 0, 0, strbuf_slopbuf }
void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Hand the buffer to the caller (who frees it); sb is reset. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_setlen(struct strbuf *sb, size_t len);
#define strbuf_reset(sb) strbuf_setlen((sb), 0)
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
/* Append n copies of c. */
void strbuf_addchars(struct strbuf *sb, int c, size_t n);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_rtrim(struct strbuf *sb);
/* Append text with prefix before each line (a final newline is ensured). */
void strbuf_add_indented(struct strbuf *sb, const char *text, const char *prefix);
/*
 * Text from patches, mails, consoles and mainline histories, made safe
 * to show: C0 control characters but tab (and newline with SHOWN_LINES)
 * become `\r`, `\n` or `\xNN`, DEL `\x7f`, a C1 control (U+0080..U+009F)
 * `\u00NN`, and a byte that is not valid UTF-8 `\xNN`; everything else,
 * tab and backslash included, is kept. The output is valid UTF-8 and
 * cannot move the cursor back, erase, recolour or retitle a terminal.
 */
enum shown_flags {
	SHOWN_LINES = 1 << 0,	/* keep newlines: multi-line text */
};
void strbuf_add_shown(struct strbuf *sb, const char *s, size_t len, unsigned flags);
/*
 * The length of the valid UTF-8 sequence s starts with (len > 0 bytes
 * readable), or 0 when it starts none: an overlong form, a surrogate or
 * a code point past U+10FFFF is not valid.
 */
size_t utf8_char_len(const char *s, size_t len);
/*
 * s as strbuf_add_shown() shows it on one line: s itself when nothing
 * needs escaping, else a copy that stays valid until the 16th call after
 * (a ring, as git's oid_to_hex(); not for threads). NULL gives NULL.
 */
const char *shown(const char *s);

/* Read a whole file; returns 0 or -1 with errno set (no message printed). */
int strbuf_read_file(struct strbuf *sb, const char *path);
/* Read everything from fd; returns 0 or -1 with errno set. */
int strbuf_read_fd(struct strbuf *sb, int fd);
/*
 * Read `path` into `sb` only if it is a regular file (a symbolic link is
 * followed to one, never to a device, FIFO or socket, which are not even
 * opened) of at most `max` bytes; `limit` says whose cap it is in the
 * reason ("a report reads"). Returns 0, or -1 with the reason appended
 * to `why` ("not a regular file (a symbolic link to a character device)",
 * "3221225472 bytes, more than the 8 MiB a state file may hold", errno's
 * words) and sb left empty; errno is ENOENT when nothing is there.
 */
int strbuf_read_regular(struct strbuf *sb, const char *path, size_t max,
			const char *limit, struct strbuf *why);

/* A NULL-terminated argument vector that owns its strings. v is never NULL. */
struct strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};
extern const char *empty_strvec[];
#define STRVEC_INIT { empty_strvec, 0, 0 }
void strvec_init(struct strvec *sv);
void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strvec_pushl(struct strvec *sv, ...); /* NULL-terminated list */
void strvec_clear(struct strvec *sv);

/* Filesystem helpers. */
int mkdir_p(const char *path, mode_t mode);
int remove_tree(const char *path);
int file_exists(const char *path);
int dir_exists(const char *path);
/* Write all of buf, retrying short writes and EINTR; 0 or -1 with errno. */
int write_in_full(int fd, const void *buf, size_t len);
/* Write a file atomically (temporary file + rename). */
int write_file_atomic(const char *path, const void *data, size_t len);

/*
 * For the crash tests: when MKSERIES_TEST_BACKPORT_CRASH is a pattern
 * (fnmatch) that matches `step`, the process kills itself there with
 * SIGKILL, so that no handler runs and nothing is cleaned up, exactly
 * as a kill -9 at that point would leave things. Steps are named by
 * the code that calls this ("tmp:<file name>" between the write of a
 * temporary file and its rename).
 */
void test_crash_point(const char *step);
/* test_crash_point("tmp:<last component of path>"): the file is written, not renamed yet. */
void test_crash_point_tmp(const char *path);
/*
 * The cache directory, of the repository, the work directories, Debian
 * packages, ccache and the KVM probe alike: $XDG_CACHE_HOME/mkseries when
 * that is absolute (a relative one is ignored, as the XDG base directory
 * spec says), else $HOME/.cache/mkseries; NULL when neither is set.
 * Caller frees.
 */
char *mks_cache_dir(void);

/* Join dir and name into a new string (caller frees). */
/* strcmp() of two char * array elements, for qsort() and bsearch(). */
int strp_cmp(const void *a, const void *b);

char *path_join(const char *dir, const char *name);

int starts_with(const char *s, const char *prefix);
/* Whether `name` is what `typed` probably meant: at most two edits away, or begun by it. */
int similar_name(const char *typed, const char *name);
/* If s starts with prefix, set *out past it and return 1. */
int skip_prefix(const char *s, const char *prefix, const char **out);
int ends_with(const char *s, const char *suffix);

/* Seconds since an arbitrary point, monotonic. */
double mono_seconds(void);

/* Child processes (struct child, child_run()) are runcmd.h's. */
#include "lib/runcmd.h"

/* Banned: use strbuf/xstrfmt instead. */
#define strcpy(a, b) BANNED_strcpy
#define strcat(a, b) BANNED_strcat
#define sprintf(...) BANNED_sprintf
#define vsprintf(...) BANNED_vsprintf

#endif

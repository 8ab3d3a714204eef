/* tap.h: a tiny TAP producer for the C unit tests (run under prove). */
#ifndef MKSERIES_TAP_H
#define MKSERIES_TAP_H

#include <stdio.h>
#include <string.h>

#include <git2.h>

static int tap_count, tap_failed;

/* libgit2 set up before the tests, as main() sets it up before a command. */
__attribute__((constructor)) static void tap_init_libgit2(void)
{
	git_libgit2_init();
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", pass ? "ok" : "not ok", ++tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!pass) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

/* Compare strings, NULL-safe, and show both on failure. */
#define is_str(got, want, ...) \
	do { \
		const char *g_ = (got), *w_ = (want); \
		int p_ = (g_ && w_) ? !strcmp(g_, w_) : g_ == w_; \
		if (!tap_ok(p_, __FILE__, __LINE__, __VA_ARGS__)) \
			printf("#   got:  '%s'\n#   want: '%s'\n", g_ ? g_ : "(null)", \
			       w_ ? w_ : "(null)"); \
	} while (0)

#define is_int(got, want, ...) \
	do { \
		long long g_ = (got), w_ = (want); \
		if (!tap_ok(g_ == w_, __FILE__, __LINE__, __VA_ARGS__)) \
			printf("#   got:  %lld\n#   want: %lld\n", g_, w_); \
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif

/* diff/diffscan.h: the apply module's reading of diff text, shared by its checks, its reversing and its hunk moves. */
#ifndef MKSERIES_DIFFSCAN_H
#define MKSERIES_DIFFSCAN_H

#include <stddef.h>
#include "lib/util.h"

/* One line of a buffer at a time; `len` includes the newline when there is one. */
struct line_iter {
	const char *pos, *end;
	const char *line;
	size_t len;
	unsigned nr;
};

void line_iter_init(struct line_iter *it, const char *buf, size_t len);
/* Step to the next line: 1, or 0 at the end of the buffer. */
int line_iter_next(struct line_iter *it);

/* Whether line (len bytes) starts with prefix. */
int has_prefix(const char *line, size_t len, const char *prefix);
/* n without the trailing newline and blanks of s. */
size_t trimmed_len(const char *s, size_t n);

/* A hunk header's ranges; `tail` is what follows the closing "@@" (the function name). */
struct hunk_range {
	long old_start, old_lines, new_start, new_lines;
	int old_has_count, new_has_count;
	const char *tail;
};

/*
 * What a line of diff text is, as libgit2's parser would take it:
 * text outside any file section, a "diff --git" line, another line of
 * a section's header, a hunk header, a counted hunk line, or a
 * "\ No newline at end of file" marker. Counted hunk lines are content,
 * never headers, however they look.
 */
enum scan_event {
	EV_TEXT,
	EV_GIT_HEADER,
	EV_HEADER_LINE,
	EV_HUNK_HEADER,
	EV_HUNK_LINE,
	EV_EOF_MARKER,
};

/* Called for every line; `r` is set for EV_HUNK_HEADER. A non-zero return stops the scan. */
typedef int (*scan_fn)(void *data, enum scan_event ev, const char *l, size_t n, unsigned lineno,
		       const struct hunk_range *r);

/* Call fn for every line of diff; returns the first non-zero value fn returns, else 0. */
int scan_diff(const char *diff, size_t len, scan_fn fn, void *data);

/*
 * Check one path as libgit2 will see it (prefix included); `shown` is
 * the text as the patch writes it. Returns 0, or MKS_EUNSAFE with the
 * reason, naming line `lineno`, appended to `why`.
 */
int check_one_path(const char *p, size_t n, const char *shown, size_t shown_len,
		   unsigned lineno, struct strbuf *why);

/* Split the two names of a "diff --git" line the way git writes them. */
void split_git_header(const char *s, size_t n, size_t *len1, size_t *start2);
/* Append a hunk range's "start[,lines]" to sb. */
void add_range(struct strbuf *sb, long start, long lines, int has_count);
/* The length of a header line's value after a keyword of length k (trailing blanks trimmed). */
size_t value_len(size_t body, size_t k);

/*
 * A rename's "rename from/to" lines and its "---"/"+++" lines must name
 * the same files. Returns 0, or MKS_EAPPLYFAIL with the reason appended
 * to report.
 */
int diff_check_names(const char *diff, size_t len, struct strbuf *report);

#endif

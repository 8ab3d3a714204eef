/* patches/mail.h: patches as mails: git format-patch files and mboxes (b4 am output). */
#ifndef MKSERIES_MAIL_H
#define MKSERIES_MAIL_H

#include <stddef.h>
#include <stdint.h>

struct trailer {
	char *key;	/* as written, e.g. "Signed-off-by" */
	char *value;	/* trimmed */
};

struct mail_patch {
	char *author_name;	/* decoded (RFC 2047), UTF-8 */
	char *author_email;
	int64_t date;		/* seconds since the epoch; 0 when absent */
	int tz_offset;		/* minutes east of UTC */
	char *message_id;	/* without <>, or NULL */
	char *subject;		/* decoded, "[PATCH v2 1/2]" and "Re:" removed */
	int version, number, total;	/* from the [PATCH ...] prefix; 0 when absent */
	/*
	 * The commit message after the subject: body paragraphs, then the
	 * trailer block, without the "---" line and what follows it.
	 */
	char *message;
	size_t message_body_len;	/* length of `message` before the trailer block */
	struct trailer *trailers;
	size_t nr_trailers;
	char *upstream;		/* id from "commit X upstream." / "[ Upstream commit X ]", or NULL */
	/*
	 * From the first "diff --git" to the end, signature removed; or NULL.
	 * The bytes as the mail carried them once transfer-decoded (QP,
	 * base64): not charset-converted, as git am applies them.
	 */
	char *diff;
	size_t diff_len;
	/*
	 * The commit git format-patch wrote the mail from, lowercase hex, from
	 * its "From <sha> Mon Sep 17 00:00:00 2001" line; NULL for other mails
	 * (b4 writes "From git@z ...").
	 */
	char *source_commit;
};

/*
 * Parse a file holding one patch mail (git format-patch) or several (an
 * mbox, "From " separated). Mails without a diff (a cover letter) are
 * dropped. On error prints "FILE: message" and returns -1.
 * *out is an array of *nr patches that the caller frees with
 * mail_patches_free().
 */
int mail_parse_file(struct mail_patch **out, size_t *nr, const char *path);
int mail_parse_buffer(struct mail_patch **out, size_t *nr, const char *buf, size_t len,
		      const char *name);

/*
 * Split an mbox into one text per mail, at the separator lines git
 * mailsplit takes ("From " ... a time and a year), never at a message
 * line such as "From now on".
 */
struct strvec;
void mail_split_mbox(struct strvec *mails, const char *buf, size_t len);
/*
 * Whether any mail of mbox (or single mail) `buf` has a Message-Id
 * header. git format-patch without --thread writes none: such a file was
 * never posted, b4 cannot thread it and no lore link can name it.
 */
int mail_mbox_has_message_id(const char *buf, size_t len);
void mail_patches_free(struct mail_patch *p, size_t nr);

/*
 * Parse the trailer block at the end of a commit message ("Key: value"
 * lines, continuation lines indented). Returns the number found; *out is
 * owned by the caller (trailers_free()). The block is the last paragraph
 * when every line of it is a trailer, a continuation or a bracketed note
 * ("[ dev: backported to 6.12 ]", not returned), with one trailer at
 * least; else 0 is returned and *body_len (may be NULL) is the whole
 * length.
 */
size_t trailers_parse(struct trailer **out, const char *message, size_t *body_len);
void trailers_free(struct trailer *t, size_t nr);

/* The nth (0-based) trailer whose key matches case-insensitively, or NULL. */
const char *mail_trailer(const struct mail_patch *p, const char *key, size_t nth);

/*
 * Strip "Re:", "[PATCH v3 2/5]", "[RFC PATCH]" and similar from a subject.
 * Fills version/number/total when non-NULL. Returns a new string.
 */
char *subject_clean(const char *subject, int *version, int *number, int *total);

#endif

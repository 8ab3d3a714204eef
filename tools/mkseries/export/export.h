/* export/export.h: an applied branch as maintainers ship it: stable mails, a quilt series with DEP-3 headers, RPM patch lines. */
#ifndef MKSERIES_EXPORT_H
#define MKSERIES_EXPORT_H

#include <git2.h>

#include "results/results.h"
#include "lib/util.h"

enum export_format {
	EXPORT_MBOX,		/* git format-patch mails and a cover letter, for git send-email */
	EXPORT_QUILT,		/* Debian: series + DEP-3 headed patches, for quilt push -a */
	EXPORT_RPM,		/* patch files and the spec's PatchNNNN: lines */
};

/* "mbox", "quilt" or "rpm"; MKS_ECONFIG with a message for anything else. */
int export_format_parse(enum export_format *out, const char *name);
const char *export_format_name(enum export_format f);

/* One commit of the applied branch, as it is mailed. */
struct export_patch {
	git_oid commit;
	char *subject;		/* the commit's first paragraph on one line */
	/*
	 * What follows the subject: the stable-style message apply wrote
	 * (stable_message()) with the exporter's Signed-off-by added by
	 * the same rule, or for the user's own patch (no upstream id) the
	 * message exactly as committed.
	 */
	char *body;
	char *upstream;		/* the 40 (or fewer) hex digits of "commit X upstream.", or NULL */
	char *author_name, *author_email;
	git_time author_when;
	git_time commit_when;	/* when the backport was made: DEP-3 Last-Update */
	char *applied_upstream;	/* the first mainline release tag holding upstream, or NULL */
	char *stat;		/* diffstat as format-patch writes it */
	char *diff;		/* "diff --git" to the end */
	/*
	 * Whose words the message is: upstream's, taken from the clone
	 * export_series.messages names (with the kit's bracketed note and
	 * sign-offs after it), or the kit's (MESSAGE_KIT: no clone, or the
	 * commit not found there).
	 */
	enum { MESSAGE_KIT = 0, MESSAGE_UPSTREAM } message;
};

/* A commit of the branch the export leaves out, and why. */
struct export_left_out {
	char *subject;
	char *upstream;		/* as the commit names it, or NULL */
	char *why;		/* the policy's rule, or which left-out patch a fixup follows */
};

/* The applied branch, base (exclusive) to tip, oldest first. */
struct export_series {
	char *branch;		/* "6.12" */
	char *variant;		/* NULL for the kit */
	char *refname;		/* the branch ref exported */
	char *prefix;		/* "PATCH 6.12.y", or --subject-prefix */
	size_t first;		/* the number of the first patch file (mbox, rpm): --start-number, else 1 */
	char *exporter;		/* "Name <email>" */
	/*
	 * Set by the caller before export_series_read(): a mainline or
	 * stable clone to take upstream's messages, author dates and merge
	 * trailers from (read only), and the path it is known by; NULL: the
	 * kit's messages stay.
	 */
	git_repository *messages;
	const char *messages_from;
	git_oid base, tip;
	char *stat;		/* diffstat of the whole series, base to tip */
	struct export_patch *v;
	size_t nr, alloc;
	/* What export_stable_filter() took out of v, in branch order. */
	struct export_left_out *left;
	size_t nr_left, alloc_left;
};

#define EXPORT_SERIES_INIT { 0 }

/*
 * Read the first-parent commits base..tip of repo into s (its branch,
 * variant, refname and prefix set by the caller), each message signed
 * off by `exporter`. The first release with a patch's upstream commit
 * is looked up among the v* tags of `releases` (the user's clone, which
 * is only read, for a git source: kernel_clone_open()), or of repo when
 * it is NULL. A commit with more than one parent, or a history that
 * does not reach base, is an error. Returns 0 or -1 (printed).
 */
int export_series_read(struct export_series *s, git_repository *repo, git_repository *releases,
		       const git_oid *base, const git_oid *tip, const git_signature *exporter);
void export_series_release(struct export_series *s);

/*
 * Whose words the backports' messages are, for the cover letter and the
 * terminal: upstream's from s->messages, or the kit's, naming each
 * backport whose message is the kit's. Nothing when s has no backport.
 * Returns how many backports carry the kit's words.
 */
size_t export_say_messages(struct strbuf *sb, const struct export_series *s);

/*
 * The diff of tree a to tree b, as format-patch writes it: the diffstat
 * with its summary in *stat and, when patch is not NULL, the patch text
 * (binary files included) in *patch. The caller frees both. Returns a
 * libgit2 error code (negative) and sets neither when it fails.
 */
int export_tree_diff(char **patch, char **stat, git_repository *repo, git_tree *a, git_tree *b);

/* "PATCH 6.12.y" for branch "6.12" (or "6.12-arm64"); "PATCH <name>" when the name is no version. */
char *export_default_prefix(const char *branch);

/*
 * The part of a subject git format-patch puts in a file name: letters,
 * digits, '.' and '_' kept (a run of dots one dot), every other run one
 * '-' (none at the start), no '-' or '.' at the end, then cut to `max`
 * characters (format-patch's 52 after "NNNN-"), as git does it.
 */
void export_subject_slug(struct strbuf *out, const char *subject, size_t max);

/*
 * One patch as git format-patch writes it: the "From <commit>" line,
 * From (the upstream author), Date (the author date), Subject
 * "[<prefix> N/M] subject" (no numbers when nr == 0), MIME headers when
 * anything is not ASCII, the body, "---", the diffstat and the diff,
 * ending with a blank line (no signature).
 */
void export_patch_mail(struct strbuf *out, const struct export_series *s, size_t i,
		       const char *prefix, size_t nr);

/*
 * What the cover letter says about the run: `verdict` (the markdown
 * report of the branch, or why there is none), appended after the
 * series list. Written as 0000-cover-letter.patch.
 */
struct export_cover {
	const char *title;	/* the series' titles */
	const char *verdict;
	/*
	 * One line naming the tree the last run verified and when, or why
	 * it is exported unverified (--force): atop the verdict in the
	 * cover letter, and a comment atop quilt's series and the RPM lines.
	 */
	const char *header;
};

/*
 * The cover letter, 0000 of the mails: "[<prefix> 0/M] <title>" from the
 * exporter, the series with each patch's upstream id, the diffstat of
 * the whole, then cover->verdict.
 */
void export_cover_mail(struct strbuf *out, const struct export_series *s,
		       const struct export_cover *cover);

struct plan;

/*
 * For a stable branch: leave out of s each commit whose plan entry the
 * policy refuses (kit_policy_takes() says 0), and each fixup applied
 * on its own whose patch is left out, moving them to s->left and saying
 * on stderr which and why. A commit is matched to its entry by the
 * upstream id it names, else by its subject; one that matches none is
 * kept. The kept diffs are then applied in order onto s->base in
 * memory: when one does not apply without what was left out, that is
 * an error naming both (-1), or with `force` a warning. s->stat becomes
 * the diffstat of what is kept. Returns 0 or -1 (printed).
 */
int export_stable_filter(struct export_series *s, git_repository *repo, const struct plan *plan,
			 int force);

/*
 * Whether an export of `branch` as fmt may write into dir: 1 when dir
 * does not exist or is an empty directory; 2 when it holds an earlier
 * export of branch in fmt and nothing else, and `replace` (--replace)
 * was given; else 0, with why kept ("'out' holds an earlier mbox export
 * of 6.12: replace it with --replace"). An earlier export is known by
 * what mkseries wrote there, not by a marker of its own (git send-email
 * would mail a stray file): quilt's series and rpm's patches.spec open
 * with "# <branch> backports exported by mkseries from", and every other
 * file must be one they list; mbox's cover letter opens its body with
 * "Backports for <branch>", and every other file must be a numbered mail
 * (NNNN-*.patch) whose first line is git format-patch's "From <id> ".
 */
int export_dir_free(const char *dir, const char *branch, enum export_format fmt, int replace);

/*
 * Write s into directory `dir`, which must not exist or be empty, or
 * with `replace` may hold an earlier export of s's branch in fmt (see
 * export_dir_free()): it is built beside it ("<dir>.mkseries-<pid>")
 * and renamed into place (over the empty directory, or swapped with the
 * earlier export, which is then removed), so a failure leaves nothing
 * half written. Such a directory whose pid runs no more, left by an
 * export killed before its rename, is removed first, with a warning.
 * `files` gets each file written, relative to dir. Returns 0 or -1 (kept).
 */
int export_write(const struct export_series *s, enum export_format fmt, const char *dir,
		 const struct export_cover *cover, int replace, struct strvec *files);

/*
 * Whether the last run recorded in b verified `tip`, the ref exported
 * (variant NULL: the kit): b has results, its run applied that very
 * commit (or, for a cell, a commit of the same tree: repo looks it up),
 * and every cell passed with no regression (the markdown report's test
 * for a Tested-by). 1 when verified; else 0 with why in `why` (one
 * sentence, without the remedy).
 */
int export_verified(struct strbuf *why, git_repository *repo, const struct branch_result *b,
		    const char *variant, const git_oid *tip);

#endif

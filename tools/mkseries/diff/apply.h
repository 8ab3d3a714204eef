/* diff/apply.h: apply one diff to a tree in memory, touching only the paths it names. */
#ifndef MKSERIES_APPLY_H
#define MKSERIES_APPLY_H

#include <git2.h>
#include "lib/util.h"

/*
 * Check every path a diff names (old and new side, renames, copies):
 * refuse absolute paths, "..", ".git" components, empty or NUL-bearing
 * names. Returns 0 or MKS_EUNSAFE with the reason appended to `why`.
 */
int diff_check_paths(const char *diff, size_t len, struct strbuf *why);

/*
 * Check every "GIT binary patch" hunk of a diff as `git apply` does,
 * before libgit2 inflates it: data lines whose length letter matches
 * their characters, base85 only, a blank line ending each hunk, and
 * data that inflates to exactly the size "literal N" or "delta N"
 * declares, N at most 256 MiB. Returns 0, or MKS_EAPPLYFAIL with
 * "line L: corrupt binary patch for 'FILE': why" appended to `why`.
 */
int diff_check_binary(const char *diff, size_t len, struct strbuf *why);

/*
 * Append to `out` the reverse of `diff`: old and new sides swapped
 * (names, modes, renames, index ids, hunk ranges, '-' and '+' lines),
 * so that applying it undoes the change. Text outside the file
 * sections is copied. Returns 0, or -1 when a binary part is truncated.
 */
int diff_reverse(const char *diff, size_t len, struct strbuf *out);

/*
 * Apply `diff` (git-style unified diff text, or a mail holding one, as
 * git format-patch writes) onto `base` (a tree, or anything that peels
 * to one) and write the resulting tree to *out. Only the paths the diff
 * names are loaded and rewritten: cost follows the patch, not the tree.
 * The result is the tree `git apply --cached` makes: hunks must match
 * exactly but may have moved (they are looked for as git does), a
 * created file must not exist, a modified or deleted one must exist
 * with its type and, when deleted, hold what the patch removes.
 * Returns:
 *   0              applied; *out set
 *   MKS_EAPPLYFAIL does not apply; `report` names the file and hunk and
 *                  shows the hunk and what the tree has there
 *   MKS_EUNSAFE    a path reaches outside the tree; `report` says which
 *   -1             other failures (message printed)
 * New blobs and trees go to the object database; nothing is written to
 * any ref.
 */
int apply_diff(git_oid *out, git_repository *repo, const git_oid *base,
	       const char *diff, size_t len, struct strbuf *report);

/* The tree of `base` (a commit or a tree) into *out. Returns 0, or a negative code after printing. */
int apply_base_tree(git_tree **out, git_repository *repo, const git_oid *base);

/* apply_diff() without a result: whether `diff` applies onto `base` (0), and if not why. */
int apply_check(git_repository *repo, const git_oid *base, const char *diff, size_t len,
		struct strbuf *report);

#endif

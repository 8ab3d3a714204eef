/* lib/gitutil.h: the one place that turns libgit2 errors into our messages, plus repository helpers. */
#ifndef MKSERIES_GITUTIL_H
#define MKSERIES_GITUTIL_H

#include <git2.h>

/*
 * Initialise libgit2: main() does, once, before any command; unit tests
 * (tests/unit/tap.h) and fuzzers do it themselves. Safe to call again.
 */
void gitutil_init(void);

/*
 * libgit2's global switches that mkseries turns off for a while. libgit2
 * 1.5 can set them but not read them back, so every change goes through
 * gitutil_set_opt(), which remembers them (libgit2's defaults at first):
 * it returns the previous value, which the caller sets back when done,
 * so a switch turned off inside another caller's "off" stays off.
 */
enum gitutil_opt {
	GITUTIL_CACHING,		/* GIT_OPT_ENABLE_CACHING */
	GITUTIL_STRICT_HASH,		/* GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION */
	GITUTIL_STRICT_CREATION,	/* GIT_OPT_ENABLE_STRICT_OBJECT_CREATION */
};
int gitutil_set_opt(enum gitutil_opt opt, int on);

/*
 * Print "error: <what>: <libgit2's message>" and return -1. `gerr` is the
 * libgit2 return code; git_error_last() may be NULL in libgit2 1.5.1.
 */
int gitutil_error(int gerr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same as a "warning: ...", for what mkseries can do without. */
void gitutil_warning(int gerr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The hex id git gives `len` bytes of data as a blob. Caller frees. */
char *blob_hash_hex(const void *data, size_t len);

/* Open (or with create, init bare) a repository. Prints on failure. */
int repo_open(git_repository **out, const char *path, int create);

/*
 * A lock that keeps a second mkseries off the same repository
 * (flock on <gitdir>/mkseries.lock, released when the process dies;
 * its holder writes its pid and command line into it). When another
 * mkseries holds it, repo_lock() says so once, naming the holder, and
 * waits for it: for ever, or MKSERIES_LOCK_TIMEOUT seconds when set (0:
 * not at all). Returns 0, or MKS_ELOCKED with a message naming the
 * holder.
 */
struct repo_lock {
	int fd;
};
#define REPO_LOCK_INIT { -1 }
int repo_lock(struct repo_lock *lk, git_repository *repo);
void repo_unlock(struct repo_lock *lk);

/* Print why ref `refname` cannot be written, its lock file being there (its path, its age, what to do). -1. */
int ref_locked_error(git_repository *repo, const char *refname);

/*
 * Move `refname` to `target` atomically, only if it still points at
 * `expected` (NULL: it must not exist yet, or may be anything when
 * force is set), with `log_message` in the reflog.
 */
int ref_update(git_repository *repo, const char *refname, const git_oid *target,
	       const git_oid *expected, int force, const char *log_message);

/*
 * What follows "no user.name: " (or user.email) wherever mkseries finds
 * no git identity: why it needs one and the commands that set it.
 */
#define GIT_IDENTITY_HOWTO "mkseries signs off backports in your name: " \
	"git config --global user.name 'Your Name' && " \
	"git config --global user.email you@example.org"

/*
 * The backporter's signature from git config (user.name, user.email): the
 * repository's, else that of the repository whose objects it borrows (a
 * user's clone, whose .git/config may hold them), else the global one.
 * Without one: "no user.name: " GIT_IDENTITY_HOWTO, kept, and -1.
 */
int backporter_signature(git_signature **out, git_repository *repo);

/* The first 12 hex digits of oid into buf (at least 13 bytes); returns buf. */
const char *oid_short_to(char *buf, const git_oid *oid);
/*
 * The same into a buffer of the calling block's own (a compound literal):
 * valid until that block ends, and two in one printf() stay apart.
 */
#define oid_short(oid) oid_short_to((char[GIT_OID_HEXSZ + 1]){ 0 }, (oid))

/*
 * The files (blobs, links, gitlinks) that differ between trees `a` and
 * `b` of `repo` (either may be NULL: an empty tree), as deltas of a
 * tree-to-tree diff without renames, in path order: ADDED, DELETED or
 * MODIFIED, both sides' path, mode and id filled. Unlike libgit2's
 * git_diff_tree_to_tree(), which reads every subtree, a subtree whose
 * id is the same on both sides is not read: on a kernel tree, a few
 * dozen trees rather than thousands. Paths are owned by `out`.
 */
struct tree_delta {
	git_diff_delta *v;
	size_t nr, alloc;
};
int tree_delta_diff(struct tree_delta *out, git_repository *repo, const git_tree *a,
		    const git_tree *b);
void tree_delta_release(struct tree_delta *d);

#endif

/* tree/tree.h: kernel trees: where the kernel repository is, and importing a branch's tree into it. */
#ifndef MKSERIES_TREE_H
#define MKSERIES_TREE_H

#include <git2.h>
#include "kit/model.h"
#include "lib/gitutil.h"
#include "lib/util.h"

/*
 * The kernel repository for branch `b`: `repo_opt` when given, else for
 * a git source mkseries' own repository for its clone (tree/clone.h:
 * the clone is read through alternates and never written), else
 * $XDG_CACHE_HOME/mkseries/linux.git (~/.cache when unset), created bare
 * on first use. *out is owned by the caller. A git source whose repo
 * comes from an environment variable that is unset, or names no
 * directory, is MKS_ECONFIG (printed by kernel_source_check()).
 */
int kernel_repo_path(char **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt);

/*
 * Open the kernel repository for branch `b` (kernel_repo_path()), made
 * when missing if `create` is set. mkseries' own repository under the
 * cache is bare, and git keeps no reflog in a bare repository unless
 * told to: there core.logAllRefUpdates is set to always, on creation
 * and on every open of one made before, so each ref update is logged.
 * So is mkseries' repository for a git source's clone, made whenever it
 * is missing (the clone is there) with the clone's objects as its
 * alternate. A repository named by --repo keeps its configuration.
 * Returns 0, MKS_ECONFIG as kernel_repo_path() does, or -1 (printed).
 */
int kernel_repo_open(git_repository **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt, int create);

/*
 * The user's clone a git source of `b` names, when no --repo
 * (`repo_opt`) puts its refs elsewhere, opened to be read only: its
 * tags (v6.17, ...) name the kernel's releases, and mkseries' own
 * repository for it (kernel_repo_open()) has its objects, not its refs.
 * Opening writes nothing in the clone. *out is the caller's; it is
 * NULL, and 0 is returned, for a branch whose repository is not a
 * clone's view (a tarball or Debian source, a --repo): the releases'
 * tags are in that repository itself. Returns 0, MKS_ECONFIG as
 * kernel_repo_path() does, or a code of repo_open().
 */
int kernel_clone_open(git_repository **out, const struct kit *kit, const struct kernel_branch *b,
		      const char *repo_opt);

/*
 * The kernel repositories one command works in, each opened, and locked
 * (repo_lock()), once: import, apply and backport over several branches
 * that share a repository (the cache's linux.git) open and lock it for
 * the first and hand the same handle to the others, so that no other
 * mkseries slips in between two branches, and the lock is taken in one
 * place; the cell loop of build, test and run (run/cells.h) opens its
 * branches' repositories here too, and locks them only around the
 * steps that write. kernel_repos_release() unlocks and frees them at
 * the command's end.
 */
struct kernel_repo_held {
	char *path;
	git_repository *repo;
	struct repo_lock lock;
};
struct kernel_repos {
	struct kernel_repo_held *v;
	size_t nr, alloc;
};
#define KERNEL_REPOS_INIT { NULL, 0, 0 }
#define KERNEL_REPO_CREATE 1	/* make it when missing (kernel_repo_open()'s `create`) */
#define KERNEL_REPO_LOCK 2	/* and hold its lock until kernel_repos_release() */

/*
 * b's repository (kernel_repo_open()) in *out, owned by rs: opened the
 * first time it is asked for, locked the first time KERNEL_REPO_LOCK
 * asks. Returns 0, an error of kernel_repo_open(), or MKS_ELOCKED when
 * another mkseries holds it ("... is locked by another mkseries (pid N)").
 */
int kernel_repos_open(git_repository **out, struct kernel_repos *rs, const struct kit *kit,
		      const struct kernel_branch *b, const char *repo_opt, unsigned flags);
/*
 * Give up every lock rs holds, keeping the repositories open: for a
 * command that writes only in part of its work (build and run lock
 * around a branch's import and apply, and read the repository unlocked
 * while they build). The next KERNEL_REPO_LOCK locks again.
 */
void kernel_repos_unlock(struct kernel_repos *rs);
void kernel_repos_release(struct kernel_repos *rs);

/*
 * The history of b's imports, newest first, one line each: number, base
 * commit, source ("2 1a2b3c4d5e6f git:... (current)"). Every import that
 * moves the base tag keeps the tag it wrote as
 * refs/mkseries-imports/<branch>/<n>, so the trees of earlier point
 * releases stay reachable. Returns the number of imports recorded.
 */
struct strbuf;
int tree_import_log(struct strbuf *out, git_repository *repo, const struct kernel_branch *b);

/* The tag an import writes: refs/tags/mkseries/base/<branch>. Static buffer. */
const char *tree_base_refname(const struct kernel_branch *b);

/*
 * Bring branch b's tree into `repo` and tag it (tree_base_refname()):
 * from a git ref, a Debian linux-source package (apt-get download from
 * the suite named, the mirror taken from /etc/apt), or a tarball.
 * Cached: when the tag already records the same source, returns at once
 * unless `force`. *out is the tagged commit. The tag is written last, so
 * a failure leaves it as it was. The caller holds repo_lock() on repo
 * (tree_import() does not take it: a caller may already hold it).
 */
int tree_import(git_oid *out, git_repository *repo, const struct kit *kit,
		const struct kernel_branch *b, int force);

/* What an import did, for the one line `mkseries import` prints. */
struct tree_import_info {
	char *what;		/* "linux-source-6.12 6.12.117-1~deb12u1", owned */
	size_t nr_files;	/* files in the tree; 0 when up to date */
	int up_to_date;		/* the tag already recorded the same source */
	double seconds;
};

enum tree_import_flags {
	TREE_IMPORT_FORCE = 1 << 0,	/* import again even when the tag is current */
	/*
	 * Ask the source whether it has moved on (for Debian: refresh the
	 * suite's package lists). Without it, a Debian branch whose tag
	 * records the same package and suite is current, with no network.
	 */
	TREE_IMPORT_REFRESH = 1 << 1,
};

/* tree_import(), telling what it did; release info even on failure. */
int tree_import_ex(git_oid *out, struct tree_import_info *info, git_repository *repo,
		   const struct kit *kit, const struct kernel_branch *b, unsigned flags);
void tree_import_info_release(struct tree_import_info *info);

/*
 * "imported linux-source-6.12 6.12.117-1~deb12u1 as <commit> (86,691
 * files, 41.2 s)" or "up to date (<commit>)". Static buffer.
 */
const char *tree_import_summary(const struct tree_import_info *info, const git_oid *commit);

/*
 * The commit apply would start b from, found without importing anything:
 * for a git source, its ref in its repository; else the base tag of the
 * kernel repository when that tag records b's source as it is now
 * (Debian: the same package and suite; a tarball: the same file, size and
 * mtime). *repo (the caller frees) is the repository that holds it.
 * Returns 0, or MKS_ENOTFOUND when the tree is not known yet (never
 * imported, or imported from another source), silently: the caller
 * decides what that means. Nothing is written.
 */
int tree_base_peek(git_repository **repo, git_oid *out, const struct kit *kit,
		   const struct kernel_branch *b);

/* The commit an earlier import tagged; MKS_ENOTFOUND when never imported. */
int tree_base(git_oid *out, git_repository *repo, const struct kernel_branch *b);

#endif

/* build/build.h: building a variant of a branch: its inputs key, the make run, the image and its state file. */
#ifndef MKSERIES_BUILD_H
#define MKSERIES_BUILD_H

#include <git2.h>

#include "build/materialise.h"
#include "kit/model.h"
#include "lib/util.h"

/*
 * The first compiler error in a build log, as "file:line:col: error: ..."
 * with `srcdir` (and a following '/') stripped from the path; failing
 * that a linker error, a make "***" line, or NULL. Caller frees.
 */
char *build_first_error(const char *log, const char *srcdir);

enum build_status {
	BUILD_OK = 1,		/* built now */
	BUILD_UPTODATE,		/* nothing changed since the last good build */
	BUILD_FAILED,
};

struct build_result {
	enum build_status status;
	double seconds;
	char *bzimage;		/* absolute */
	char *log;		/* absolute */
	char *config_hash;
	char *failure;		/* one line: why it failed */
	char *details;		/* more lines for a failure (options that did not stick), or NULL */
	char *notes;		/* e.g. options absent from this tree, or NULL */
	struct materialise_stats mat;
	int recorded;		/* nothing ran: res is what the record says (up to date, or failed) */
	struct strbuf why;	/* when it built and a build was recorded: why again ("forced", ...) */
};
void build_result_release(struct build_result *r);

struct build_opts {
	const char *workdir;	/* the branch's, from branch_workdir() */
	unsigned jobs;		/* 0: the number of online CPUs */
	int force;		/* build even when the state says up to date */
	int progress;		/* draw a progress line on stderr */
	const char *label;	/* "6.12 base", for the progress line */
	/*
	 * When the build is about to be made, before any work: why it is
	 * made again ("" when nothing was recorded), so that a caller can
	 * say so first. May be NULL.
	 */
	void (*starting)(const char *why, void *data);
	void *data;
};

/* What branch_check_compiler() says, or NULL when b's compiler is there. Caller frees. */
char *branch_compiler_missing(const struct kernel_branch *b);

/*
 * The hash of the build's inputs besides the source (what a build's
 * record keeps as its inputs, see below) as b and this machine make
 * them now; the caller frees. NULL when the kit's build settings cannot
 * be read (printed). With `parts`, *parts (caller frees) is set to what
 * the record keeps as its input parts: "tools:HASH config-base:HASH
 * fragment%20FILE:HASH ...", the build tools and make's settings, the
 * config base, each config fragment.
 */
char *build_inputs_hash(const struct kit *kit, const struct kernel_branch *b, char **parts);
/* A name of those parts as a maintainer reads it: "kernels/mm.config (a config fragment of kernels/6.12.yaml)". */
char *build_input_part_shown(const char *part, const struct kernel_branch *b);

/*
 * Build variant `variant` (its commit resolved by the caller) of branch
 * b: materialise into src/, configure out-<variant>/ (config_base, then
 * the fragments, then olddefconfig and the check that the fragments'
 * options took), make the image (branch_image()), check that it is an
 * image of b's arch, and record state/<variant>.build, the build's one
 * record. Its key (record/key.h's build_key()) is the commit's tree and
 * the hash of the build's inputs besides the source: the arch, cross
 * prefix and image, ccache, the compiler's and make's versions, every
 * make setting, the config base and the fragments. A build whose record
 * has that key (record_fresh()), unless opts->force, is not made again:
 * res says what was recorded (res->recorded), up to date or failed;
 * otherwise res->why says why it is made again.
 * Returns 0 with res->status telling how it went (a failed build is
 * not an error of this function), or a negative code after printing
 * when the kit is unusable (MKS_ECONFIG) or the work directory is: then
 * what it printed is res->failure and the record's (status error).
 */
int build_variant(struct build_result *res, git_repository *repo, const struct kit *kit,
		  const struct kernel_branch *b, const char *variant, const git_oid *commit,
		  const struct build_opts *opts);

#endif

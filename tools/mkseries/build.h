/* build.h: variants of a branch, their work directories and state, config fragments, kernel builds. */
#ifndef MKSERIES_BUILD_H
#define MKSERIES_BUILD_H

#include <git2.h>

#include "materialise.h"
#include "model.h"
#include "util.h"

/*
 * Variants of a branch B: "base", the commit tagged
 * refs/tags/mkseries/base/B by an import, "kit", the branch
 * refs/heads/mkseries/<kit id>/B that apply writes, then the variants
 * kernels/B.yaml declares, in file order, each on the branch
 * refs/heads/mkseries-variants/<kit id>/B/<variant> that apply writes
 * too (kit_refname() names them).
 */
extern const char *const build_variants[];	/* NULL-terminated: "base", "kit" */
/* Whether `variant` is "base" or "kit". */
int variant_known(const char *variant);
/* Whether `variant` could name a variant: base, kit, or [a-z0-9][a-z0-9-]*. */
int variant_name_ok(const char *variant);

/*
 * The commit of `variant` of branch b. *refname (caller frees, may be
 * NULL on return) names the ref read. MKS_ENOTFOUND, without printing,
 * when the ref does not exist yet: `why` then says so and which command
 * makes it ("no applied branch refs/heads/mkseries/<kit id>/6.12: run mkseries
 * apply --branch 6.12"). An unknown variant is MKS_ECONFIG; other
 * failures are printed.
 */
int variant_resolve(git_oid *out, char **refname, struct strbuf *why, git_repository *repo,
		    const struct kit *kit, const struct kernel_branch *b, const char *variant);

/*
 * The variants named by --variant options (`given`, each a possible
 * variant name), or "base" and "kit" when none. Returns 0 or MKS_ECONFIG
 * after printing. Which variants a branch has is variants_of_branch()'s.
 */
int variants_select(struct strvec *out, const struct strvec *given);

/*
 * Check that each of `given` (--variant options) is a variant of at
 * least one of the nr branches sel. Returns 0 or MKS_ECONFIG after
 * printing "unknown variant 'x' (known: base, kit, ...)".
 */
int variants_check(const struct strvec *given, struct kernel_branch *const *sel, size_t nr);

/*
 * What build and test work on: the kit (from kit_dir()), the branches
 * (`branch`, or every default one with `all`) and the --variant names
 * `given`, checked against them. Returns 0, or a negative MKS_* code
 * after printing (MKS_ECONFIG for a kit or name that does not do); *sel
 * (caller frees) points into *kit, which the caller releases either way.
 */
int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given);

/*
 * The variants of b to work on: with `given` empty, all of them (base,
 * kit, the declared ones in file order); else those of `given` that b
 * has, in the order given.
 */
void variants_of_branch(struct strvec *out, const struct kernel_branch *b,
			const struct strvec *given);

/*
 * Keep a second mkseries out of a branch's work directory (they would
 * share src/): flock on <workdir>/lock, released on exit.
 */
struct workdir_lock {
	int fd;
};
#define WORKDIR_LOCK_INIT { -1 }
int workdir_lock(struct workdir_lock *lk, const char *workdir);
void workdir_unlock(struct workdir_lock *lk);

/*
 * The cache directory: $XDG_CACHE_HOME/mkseries, else ~/.cache/mkseries.
 * Caller frees.
 */
char *mks_cache_dir(void);

/*
 * Work directory of branch b: <root>/<branch>, where root is `workdir_opt`
 * when given (the user chose it for this kit), else <cache>/work/<kit id>
 * (see kit_id(): the cache is shared by every kit). It holds src/ (the one materialised
 * source tree the variants share), out-<variant>/ (make O=),
 * logs/<variant>-build.log, logs/<variant>-console.log and
 * state/<variant>.build, state/<variant>.test. Caller frees.
 */
char *branch_workdir(const struct kit *kit, const char *workdir_opt, const struct kernel_branch *b);

/*
 * State files: "key=value" lines, one per key, values on one line.
 * A missing file reads as empty. Values are stored as given with
 * newlines turned into spaces.
 */
struct state {
	struct strvec kv;	/* "key=value" strings */
};
#define STATE_INIT { STRVEC_INIT }
int state_read(struct state *s, const char *path);
/* The value of key, or NULL. Points into s. */
const char *state_get(const struct state *s, const char *key);
void state_set(struct state *s, const char *key, const char *value);
void state_setf(struct state *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Written atomically; the directory is created when missing. */
int state_write(const struct state *s, const char *path);
void state_release(struct state *s);

/*
 * One option set by a config fragment. `name` lacks the CONFIG_ prefix;
 * `value` is "n" for "# CONFIG_X is not set", else the text after '='
 * exactly as written (y, m, 42, 0x10, "a string").
 */
struct kconfig_opt {
	char *name;
	char *value;
	char *file;	/* the fragment, as named to the user */
	int line;
};

/* Options in order; a later line for the same name replaces an earlier one. */
struct kconfig_frag {
	struct kconfig_opt *opts;
	size_t nr, alloc;
};
#define KCONFIG_FRAG_INIT { NULL, 0, 0 }

/*
 * Parse fragment text. Blank lines and comments are ignored; any other
 * line must be CONFIG_NAME=VALUE or "# CONFIG_NAME is not set". Errors
 * are printed as FILE:LINE: message; parsing goes on, and MKS_ECONFIG is
 * returned at the end when there was any.
 */
int kconfig_frag_parse(struct kconfig_frag *f, const char *file, const char *buf, size_t len);
/* Read and parse `path`; `display` is how messages name it. */
int kconfig_frag_load(struct kconfig_frag *f, const char *path, const char *display);
void kconfig_frag_release(struct kconfig_frag *f);

/* The .config text `config` with f's options applied: replaced where present, appended else. */
void kconfig_apply(struct strbuf *out, const char *config, const struct kconfig_frag *f);

/*
 * Check that what f asks for is what .config text `config` has. An "n"
 * is met by "# CONFIG_X is not set" and by no line at all. Every option
 * that is not met is described in `missing` ("CONFIG_X=y (FILE:LINE):
 * is not set"), unless `defined` says the tree does not define X at all:
 * then it goes to `absent` instead (either may be NULL to drop them).
 * `defined` may be NULL (every symbol counts as defined). Returns the
 * number of entries added to `missing`.
 */
size_t kconfig_check(struct strvec *missing, struct strvec *absent, const char *config,
		     const struct kconfig_frag *f,
		     int (*defined)(void *data, const char *name), void *data);

/*
 * Symbols that the Kconfig files of source tree `src` define ("config X",
 * "menuconfig X"), looking under arch/<srcarch>/ only for arch/. Sorted.
 */
int kconfig_symbols(struct strvec *out, const char *src, const char *srcarch);
/* For kconfig_check(): `data` is a sorted strvec from kconfig_symbols(). */
int kconfig_symbol_defined(void *data, const char *name);

/*
 * The first compiler error in a build log, as "file:line:col: error: ..."
 * with `srcdir` (and a following '/') stripped from the path; failing
 * that a linker error, a make "***" line, or NULL. Caller frees.
 */
char *build_first_error(const char *log, const char *srcdir);

/* "3m02s", "41s" into buf (at least 32 bytes); returns buf. */
const char *format_duration_to(char *buf, double seconds);
/* The same into a buffer of the calling block's own, as oid_short(). */
#define format_duration(seconds) format_duration_to((char[32]){ 0 }, (seconds))

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
};
void build_result_release(struct build_result *r);

struct build_opts {
	const char *workdir;	/* the branch's, from branch_workdir() */
	unsigned jobs;		/* 0: the number of online CPUs */
	int force;		/* build even when the state says up to date */
	int progress;		/* draw a progress line on stderr */
	const char *label;	/* "6.12 base", for the progress line */
};

struct arch_info;
/* b's architecture (see arch.h); kit_load() made sure it is a known one. */
const struct arch_info *branch_arch(const struct kernel_branch *b);
/* CROSS_COMPILE for b: its `cross`, else "" on the host's arch, else the arch's Debian prefix. */
const char *branch_cross(const struct kernel_branch *b);
/* The kernel image inside O=: b's `image`, else the arch's ("arch/arm64/boot/Image"). */
const char *branch_image(const struct kernel_branch *b);
/* MKS_ECONFIG after printing, naming the Debian package, when b's cross compiler is not on PATH. */
int branch_check_compiler(const struct kernel_branch *b);

/* The first line of `<cross>gcc --version`, or "none". Caller frees. */
char *compiler_version(const char *cross);

/*
 * The freshness key of b's build inputs besides its source: the arch,
 * cross prefix and image, whether ccache is used, the compiler's
 * version, the config base (its content when it is a file of the kit)
 * and each fragment's content. `mkseries build` (with the commit) and
 * `mkseries run` (with the tree, runstate.c's build_key()) both decide
 * with it whether a build is current, so they cannot disagree. Returns 0
 * with *out (caller frees), or MKS_ECONFIG (printed) when the kit's
 * files cannot be read.
 */
int build_inputs_key(char **out, const struct kit *kit, const struct kernel_branch *b);

/*
 * Build variant `variant` (its commit resolved by the caller) of branch
 * b: materialise into src/, configure out-<variant>/ (config_base, then
 * the fragments, then olddefconfig and the check that the fragments'
 * options took), make the image (branch_image()), check that it is an
 * image of b's arch, and record state/<variant>.build.
 * Returns 0 with res->status telling how it went (a failed build is
 * not an error of this function), or a negative code after printing
 * when the kit is unusable (MKS_ECONFIG) or the work directory is.
 */
int build_variant(struct build_result *res, git_repository *repo, const struct kit *kit,
		  const struct kernel_branch *b, const char *variant, const git_oid *commit,
		  const struct build_opts *opts);

#endif

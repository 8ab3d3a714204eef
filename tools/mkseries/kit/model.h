/* kit/model.h: the kit as loaded from series.yaml and kernels/<branch>.yaml. */
#ifndef MKSERIES_MODEL_H
#define MKSERIES_MODEL_H

#include <stddef.h>

/*
 * What a series, patch or fixup does on one branch. A series that names
 * no decision for a branch is applied there with its own patch files.
 */
enum decision_kind {
	DECISION_APPLY = 1,	/* the default: apply */
	DECISION_PRESENT,	/* already in the tree; `reason` says since when */
	DECISION_SKIP,		/* left out; `reason` says why (required) */
	DECISION_PATCHES,	/* series level: branch backports in directory `path` */
	DECISION_FILE,		/* patch level: this branch's backport is file `path` */
};

struct decision {
	char *branch;
	enum decision_kind kind;
	char *reason;		/* PRESENT, SKIP; may be NULL for APPLY */
	char *path;		/* PATCHES, FILE: relative to the kit directory */
	int line;
};

struct kit_series;

/*
 * A performance claim (`claims:` of a series, of a kernel file for its
 * kit cell, or of a declared variant; docs/verdicts.md, "Verdicts"): metric
 * CASE.NAME of the cell it is checked on is better or worse than another
 * cell's by at least `value` per cent and beyond the spread, or its mean
 * is above or below `value`.
 */
enum claim_kind {
	CLAIM_BETTER = 1,
	CLAIM_WORSE,
	CLAIM_ABOVE,
	CLAIM_BELOW,
};

struct kit_claim {
	char *case_name;	/* the mm-regress case: "realloc_rate" */
	char *metric;		/* one of its metrics: "calls_per_sec" */
	enum claim_kind kind;
	double value;		/* BETTER, WORSE: per cent, >= 0; ABOVE, BELOW: the bound, in the metric's unit */
	char *than;		/* BETTER, WORSE: "base" (the default), "kit" or a declared variant; else NULL */
	char *why;		/* may be NULL */
	int line;
	int than_line;		/* of `than`, or `line` when it is the default */
};

/* A patch of a series, or one of its fixups (is_fixup). */
struct kit_patch {
	struct kit_series *series;	/* owner, never NULL */
	int is_fixup;
	int index;			/* 1-based among patches (or among fixups) */
	char *file;			/* relative to the kit directory, or NULL */
	char *upstream;			/* upstream commit id as written (>= 8 hex), or NULL */
	char *subject;			/* NULL only when the file gives it */
	char *link;			/* optional */
	/*
	 * `stable:`, the reason a stable branch takes this entry although it
	 * fixes nothing itself (a prerequisite of a fix, a device id), as the
	 * upstream stable rules allow; or NULL.
	 */
	char *stable;
	/* fixups only */
	char *fixes;			/* as written: an upstream id or a patch file */
	int fixes_line;
	struct kit_patch *fixes_patch;	/* resolved by kit_load(): never NULL for a fixup */
	int squash;
	struct decision *decisions;
	size_t nr_decisions;
	int line;
};

struct kit_series {
	char *id;
	char *title;
	char *link;
	char *message_id;		/* cover letter's, without <>, or NULL */
	char **requires;		/* series ids */
	int *requires_line;
	size_t nr_requires;
	struct kit_patch *patches;
	size_t nr_patches;
	struct kit_patch *fixups;
	size_t nr_fixups;
	struct decision *decisions;
	size_t nr_decisions;
	struct kit_claim *claims;	/* checked where the series is applied or present */
	size_t nr_claims;
	/*
	 * `fixup-order: upstream`: its fixups (not those squashed) go after
	 * the whole series, in their listed order, as upstream applied fixes
	 * written on top of the series; by default each goes right after the
	 * patch it fixes.
	 */
	int fixups_upstream_order;
	int line;
	int id_line;
};

enum source_kind {
	SOURCE_GIT = 1,		/* repo + ref */
	SOURCE_DEBIAN,		/* package + suite */
	SOURCE_TARBALL,		/* path */
};

struct kernel_source {
	enum source_kind kind;
	/*
	 * git: repo is absolute. A repo written "$VAR" or "$VAR/sub" is
	 * taken from the environment when the kit is loaded: repo_var names
	 * the variable, and repo stays NULL while it is unset (an error only
	 * for a command that uses the branch: kernel_source_check()).
	 */
	char *repo, *ref;
	char *repo_var;		/* git: "MKSERIES_LINUX_STABLE", or NULL */
	/* git: the mainline release the branch grows from; its backports are in release..ref */
	char *release;
	int repo_line, ref_line, release_line;
	char *package, *suite;	/* debian */
	char *tarball;		/* tarball: absolute (kit-relative paths are made absolute) */
};

/* After kit_load(), qemu and console are set; machine and cpu default to the arch's (see arch.c). */
struct kernel_boot {
	char *qemu;		/* default: the arch's, qemu-system-x86_64 for x86_64 */
	char *machine;		/* -machine, may be NULL (arm64: virt, sparc64: sun4u) */
	char *cpu;		/* -cpu, may be NULL (arm64: cortex-a57 under TCG) */
	char *console;		/* console= device: ttyS0, ttyAMA0 for arm64 */
	unsigned memory_mb;	/* default 2048 */
	unsigned cpus;		/* default 2 */
	char *cmdline;		/* extra kernel command line, may be NULL */
	unsigned boot_timeout;	/* seconds until mm-regress must start; default 300 */
	unsigned run_timeout;	/* seconds for the mm-regress run; default 900 */
	char *accel;		/* "auto" (default), "kvm" or "tcg" */
	/*
	 * How the guest's clock runs under TCG: "instructions" (default),
	 * QEMU's icount, so guest time follows the instructions executed and
	 * timings repeat from boot to boot (blind to cache and TLB misses);
	 * or "host", the host's clock, which makes timings emulator noise.
	 */
	char *tcg_clock;
	/*
	 * boot.tcg-cache: the tcg-cache plugin's arguments under "modelled"
	 * ("mem_latency=1000,llc_size=8M"), keys checked; NULL for its defaults.
	 */
	char *tcg_cache;
	unsigned boots;		/* boots of each variant, their samples pooled; default 2 */
};

/*
 * A declared variant of a branch (`variants:` in kernels/<branch>.yaml):
 * the kit without some of its entries, applied, built and tested next to
 * base and kit to show what those entries do.
 */
struct kernel_variant {
	char *name;		/* [a-z0-9][a-z0-9-]*, neither "base" nor "kit" */
	char **without;		/* the kit entries left out, as written (8+ hex or a file) */
	int *without_line;
	size_t nr_without;	/* at least one */
	struct kit_patch **without_patch;	/* resolved by kit_load(): never NULL */
	/*
	 * `with`: patches the kit skips on this branch (a patch-level skip
	 * decision) that this variant applies, so that an alternative the
	 * kit turned down can be built and compared with it.
	 */
	char **with;
	int *with_line;
	size_t nr_with;
	struct kit_patch **with_patch;		/* resolved by kit_load(): never NULL */
	char *note;		/* may be NULL */
	char **expect_fail;	/* mm-regress cases expected to fail in this variant */
	size_t nr_expect_fail;
	struct kit_claim *claims;	/* checked on this variant's cell */
	size_t nr_claims;
	int line;
};

/*
 * What a branch is (`kind:` in its kernel file; docs/kit.md, "The kit: kernels/<branch>.yaml"):
 * stable takes fixes only, as the upstream stable rules say; distro also
 * takes performance work whose gain a claim shows on that branch and
 * whose costs are declared (patches/NOTES.md, "Policy").
 */
enum branch_kind {
	BRANCH_KIND_UNSET = 0,	/* the file says nothing: no rule is applied */
	BRANCH_STABLE,
	BRANCH_DISTRO,
};
const char *branch_kind_name(enum branch_kind k);	/* "stable", "distro", "unset" */

/*
 * A known cost the kit accepts on a branch (`costs:` in its kernel
 * file): metric CASE.NAME of the kit cell may be worse than base by up
 * to `worse_pct` per cent; beyond it the run fails as for any
 * regression. Every other metric keeps the branch's threshold.
 */
struct kit_cost {
	char *case_name;
	char *metric;
	double worse_pct;	/* > 0 */
	char *why;		/* required */
	int line;
};

/* `build:` of a kernel file: how compiles are shared; the user's own settings come first (build/ccache.c). */
struct kernel_build {
	char *ccache_remote;	/* ccache remote_storage, or NULL */
	int ccache_remote_line;
	char *distcc_hosts;	/* DISTCC_HOSTS, space-separated, or NULL */
	int distcc_line;
};

struct kernel_branch {
	char *name;		/* "6.12" */
	enum branch_kind kind;
	int kind_line;
	char *path;		/* kernels/6.12.yaml, relative to the kit */
	struct kernel_source source;
	char *arch;		/* default x86_64; always one arch_find() knows after kit_load() */
	char *cross;		/* CROSS_COMPILE prefix, or NULL: none on the host's own arch, else the arch's Debian one */
	char *image;		/* kernel image inside O=, or NULL: the arch's (arch/arm64/boot/Image ...) */
	char *decisions;	/* the branch whose series.yaml decisions apply, or NULL: its own */
	int decisions_line;
	char *config_base;	/* tinyconfig, defconfig, or a file; default defconfig */
	int config_base_is_file;	/* config_base is a file relative to the kit, not a make target */
	char **fragments;	/* relative to the kit */
	size_t nr_fragments;
	struct kernel_boot boot;
	struct kernel_build build;
	int is_default;		/* part of --all and `make run`; default 1 */
	struct kernel_variant *variants;	/* in file order */
	size_t nr_variants;
	struct kit_claim *claims;	/* checked on the kit cell */
	size_t nr_claims;
	double threshold_pct;	/* `verdicts: { threshold: N% }`; 0 when the file sets none */
	struct kit_cost *costs;	/* `costs:`, in file order, one per metric at most */
	size_t nr_costs;
	int line;
};

struct kit {
	char *dir;		/* absolute path of the kit directory */
	char *id;		/* kit_id(): "<dir name>-<8 hex>", never NULL after kit_load() */
	struct kit_series *series;
	size_t nr_series;
	struct kernel_branch *branches;	/* sorted by version */
	size_t nr_branches;
	double threshold_pct;	/* series.yaml `verdicts: { threshold: N% }`; 0 when unset */
	/* The series that have an id, sorted by id, then in file order: kit_find_series()'s index. */
	struct kit_series **by_id;
	size_t nr_by_id;
};

#define KIT_INIT { 0 }

/*
 * Load series.yaml and kernels/ *.yaml from `dir`. Every problem found is
 * printed as "FILE:LINE: message" (FILE relative to the current directory
 * as the user named it); loading goes on after an error to report as many
 * as it can. Returns 0, or MKS_ECONFIG after printing, with the kit
 * released. Fixups' `fixes` are resolved and checked for cycles.
 */
int kit_load(struct kit *kit, const char *dir);
/*
 * The kit's branches only (kernels/), its series.yaml not read: for
 * what must work while series.yaml is broken (backport --abort).
 */
int kit_load_kernels(struct kit *kit, const char *dir);
void kit_release(struct kit *kit);

struct kit_series *kit_find_series(const struct kit *kit, const char *id);

/*
 * What keeps two kits apart in one repository. The default repository
 * under the cache directory is shared by every kit on the machine, and
 * two kits (or two checkouts of one kit) may both have a branch "7.2":
 * refs and work directories keyed by the branch alone would clobber each
 * other. The id is the kit directory's name, made safe for a ref (only
 * letters, digits, '_' and '-'; anything else becomes '-'), then '-' and
 * the first 8 hex digits of the git blob id of the directory's real path
 * (`printf %s "$(pwd -P)" | git hash-object --stdin`). It is stable for a
 * kit across runs and differs between checkouts; a kit that is moved or
 * renamed gets a new id, so its branches are applied and built again
 * (nothing is lost: the old refs and work directories stay as they were).
 * A `kit:` key in series.yaml was not chosen: two checkouts of one kit
 * carry the same file and would still share names.
 */
const char *kit_id(const struct kit *kit);

/*
 * The one place that names the refs apply writes for kit on branch b:
 * refs/heads/mkseries/<kit id>/<branch> for the kit itself (variant NULL
 * or "kit"), refs/heads/mkseries-variants/<kit id>/<branch>/<variant>
 * for a declared variant. Caller frees. Work directories are named by
 * branch_workdir() from the same id.
 */
char *kit_refname(const struct kit *kit, const struct kernel_branch *b, const char *variant);
struct kernel_branch *kit_find_branch(const struct kit *kit, const char *name);
/*
 * A path the kit names: `rel` itself when absolute (or without a kit
 * directory), else under the kit's directory. Caller frees.
 */
char *kit_file(const struct kit *kit, const char *rel);
/*
 * Whether b's source can be used: for a git source, that its repository
 * is named (its variable set) and exists. Returns 0, or MKS_ECONFIG
 * after printing "kernels/B.yaml:LINE: ..." saying what is missing and
 * how to name it.
 */
int kernel_source_check(const struct kernel_branch *b);

/* The branch whose series.yaml decisions apply to b ("6.12" for 6.12-arm64): never NULL. */
const char *branch_decisions(const struct kernel_branch *b);
/*
 * The name under which `mkseries bisect` builds and boots its probes in a
 * branch's work directory: a scratch cell, never one of the branch's
 * results, so no kernels file may declare a variant of that name.
 */
#define VARIANT_BISECT "bisect"
/* Whether a variant may not be declared under `name`: base, kit and VARIANT_BISECT. */
int variant_name_taken(const char *name);

/* Free an array of nr costs and what they own. */
void costs_free(struct kit_cost *c, size_t nr);

/* The declared variant `name` of b, or NULL ("base" and "kit" are never declared). */
const struct kernel_variant *branch_find_variant(const struct kernel_branch *b, const char *name);
/* Whether v expects mm-regress case `name` to fail. */
int variant_expects_fail(const struct kernel_variant *v, const char *name);
/*
 * What v leaves out, for messages: each entry's upstream id, else its
 * label, joined with ", " ("0b5be138ce00, 04d1c9d60c6e"). Caller frees.
 */
char *variant_without_text(const struct kernel_variant *v);
/*
 * What v changes against the kit, for messages: "without 0b5be138ce00",
 * "with move-pte-nr 3/3", or both joined with "; ". Caller frees.
 */
char *variant_change_text(const struct kernel_variant *v);
/*
 * Find a patch or fixup by upstream id (an abbreviation of 8 or more hex
 * digits, either way round) or by file name. Returns NULL when none, and
 * sets *ambiguous when more than one matches.
 */
struct kit_patch *kit_find_patch(const struct kit *kit, const char *what, int *ambiguous);

/* The decision a series (or patch) names for `branch`, or NULL. */
const struct decision *series_decision(const struct kit_series *s, const char *branch);
const struct decision *patch_decision(const struct kit_patch *p, const char *branch);

/*
 * The threshold a performance change must reach on branch b: its
 * kernel file's, else series.yaml's; 0 when neither sets one (the
 * verdicts' default applies).
 */
double kit_threshold_pct(const struct kit *kit, const struct kernel_branch *b);

/* The cost b declares on metric case_name.metric, or NULL. */
const struct kit_cost *branch_find_cost(const struct kit_cost *costs, size_t nr,
					const char *case_name, const char *metric);

/* What the patch file an entry applies says of itself, for kit_policy_takes(). */
enum {
	POLICY_FIXES_TRAILER = 1 << 0,	/* a Fixes: trailer */
	POLICY_CC_STABLE = 1 << 1,	/* a Cc: to stable@vger.kernel.org (or stable@kernel.org) */
	POLICY_STABLE_DEP = 1 << 2,	/* a Stable-dep-of: trailer: the prerequisite of a fix */
};

/*
 * The policy rule (patches/NOTES.md, "Policy"): whether branch b, as its
 * `kind` says, takes entry p when the plan applies it; `flags` are what
 * its patch file's trailers say (POLICY_*). A fix is a fixup of the kit
 * (its `fixes:`), or a patch whose file carries a Fixes: or a Cc: to
 * stable; stable also takes the prerequisite of a fix (a Stable-dep-of:
 * trailer) and an entry whose `stable:` key states its reason. *rule gets a static sentence naming the rule followed.
 * Returns 1 when it is taken, 0 when the branch's kind would refuse it
 * (a stable branch and work that is no fix; a distro branch and
 * performance work no claim shows there), -1 when b states no kind.
 */
int kit_policy_takes(const struct kit *kit, const struct kernel_branch *b,
		     const struct kit_patch *p, unsigned flags, const char **rule);

/*
 * "realloc_rate.calls_per_sec better by 20% than base", "x.y above
 * 1000": what a claim says, without its `why`. Caller frees.
 */
char *kit_claim_text(const struct kit_claim *c);

/* "better", "worse", "above", "below"; "?" / -1 when unknown. */
const char *claim_kind_name(enum claim_kind k);
int claim_kind_parse(const char *name);

/*
 * "mremap-pte-batch 2/2" or "mremap-pte-batch fixup 1/2" into buf (size
 * bytes, cut to fit); returns buf.
 */
#define KIT_PATCH_LABEL_SIZE 256
const char *kit_patch_label_to(char *buf, size_t size, const struct kit_patch *p);
/*
 * The same into a buffer of the calling block's own (a compound literal):
 * valid until that block ends, however many labels one printf() holds.
 */
#define kit_patch_label(p) \
	kit_patch_label_to((char[KIT_PATCH_LABEL_SIZE]){ 0 }, KIT_PATCH_LABEL_SIZE, (p))

#endif

/* run/record.h: the steps of a run, the keys that decide each one, and whether a step is up to date. */
#ifndef MKSERIES_RUNSTATE_H
#define MKSERIES_RUNSTATE_H

#include <git2.h>

#include "lib/state.h"
#include "kit/model.h"
#include "apply/plan.h"
#include "lib/util.h"

/*
 * A run is import, apply (the kit and its declared variants, one step),
 * then build and test per variant. Each step's
 * outcome is recorded in <workdir>/state/run.<step> (run.import,
 * run.apply, run.<variant>.build, run.<variant>.test) with the key of
 * what determined it, written atomically once the step has finished:
 * a step that was interrupted left nothing, and is done again.
 */
enum run_step {
	STEP_IMPORT,
	STEP_APPLY,
	STEP_BUILD,
	STEP_TEST,
	STEP_NONE,	/* past the last step: nothing forced */
};

const char *run_step_name(enum run_step s);
/* "import", "apply", "build" or "test"; MKS_ECONFIG with a message otherwise. */
int run_step_parse(enum run_step *out, const char *name);

/* <workdir>/state/run.<name>; caller frees. */
char *runstate_path(const char *workdir, const char *name);

/*
 * A key: "name value" lines naming everything a step's result depends
 * on; its SHA-1 is what is recorded. Two keys are equal exactly when
 * their lines are.
 */
struct step_key {
	struct strbuf text;
};
#define STEP_KEY_INIT { STRBUF_INIT }

void step_key_add(struct step_key *k, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add the SHA-1 of a file's content (or "missing") under `name`. */
void step_key_add_file(struct step_key *k, const char *name, const char *path);
/* The hex SHA-1 of the key's text; caller frees. */
char *step_key_hash(const struct step_key *k);
void step_key_release(struct step_key *k);

/* The git-style SHA-1 of a file's content, hex; MKS_ENOTFOUND when it cannot be read. */
int file_hash(char **out, const char *path);
/* Of the mm-regress carried inside this mkseries. Caller frees. */
char *mm_regress_hash(const char *machine);

/*
 * The apply key: the base commit, the backporter, the SHA-1 of this
 * mkseries executable (any other build of it applies again), and for
 * each of the nr plans (the kit's, then its variants') its variant and
 * every item (action, patch, squash target) with the content of the
 * file it applies. Caller frees.
 */
char *apply_key(const struct plan *const *plans, size_t nr, const git_oid *base,
		const char *backporter);

/*
 * The build key of b at `commit`: its tree id and build_inputs_key()
 * (what `mkseries build` checks too). Returns 0, or -1 (printed) when
 * the commit cannot be read, MKS_ECONFIG (printed) when the kit's
 * config files cannot be.
 */
int build_key(char **out, git_repository *repo, const git_oid *commit, const struct kit *kit,
	      const struct kernel_branch *b);

/* What a cell's test step depends on. */
struct test_inputs {
	const char *bzimage_hash;	/* the image booted */
	const char *regress_hash;	/* the mm-regress inside the initramfs */
	/* QEMU's exact command line, accelerator settled (vm_boot_argv()); NULL: not known */
	const struct strvec *qemu_argv;
	const char *qemu_version;	/* the first line of `QEMU --version` */
	const char *accel;		/* what was asked for: auto, kvm or tcg */
	int full;
	unsigned repeat;		/* samples a metric */
	unsigned boots;			/* boots of the cell */
	const struct kernel_boot *boot;	/* the kernels file's boot settings */
	const struct kernel_variant *variant;	/* a declared variant, or NULL */
};

/*
 * The test key of `in`: changing any of it (the console, QEMU or its
 * version, a boot setting, the accelerator that would run) makes
 * another. NULL when in->qemu_argv is: only a boot can settle the
 * accelerator, so the step runs. Caller frees.
 */
char *test_key(const struct test_inputs *in);

/*
 * Whether recorded state `st` says its step finished under `key`: the
 * key matches and the status is one of the outcomes (ok, failed,
 * conflict), not an error of mkseries itself, which is always retried.
 */
int runstate_current(const struct state *st, const char *key);

#endif

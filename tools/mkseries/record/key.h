/* record/key.h: the keys that decide whether a step of a run is redone, made from what runs. */
#ifndef MKSERIES_RECORD_KEY_H
#define MKSERIES_RECORD_KEY_H

#include <git2.h>

#include "record/record.h"
#include "kit/model.h"
#include "apply/plan.h"
#include "lib/util.h"

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

/*
 * The apply key, added to k: the base commit, the backporter, the SHA-1
 * of this mkseries executable (any other build of it applies again), and
 * for each of the nr plans (the kit's, then its variants') its variant
 * and every item (action, patch, squash target) with the content of the
 * file it applies.
 */
void apply_key(struct step_key *k, const struct plan *const *plans, size_t nr,
	       const git_oid *base, const char *backporter);

/*
 * The build key of `commit`, added to k: its tree id and `inputs`, the
 * hash of the build's other inputs (build/ makes it). Returns 0, or
 * -1 (printed) when the commit cannot be read.
 */
int build_key(struct step_key *k, git_repository *repo, const git_oid *commit,
	      const char *inputs);

/* What a cell's test step depends on. */
struct test_inputs {
	const char *bzimage_hash;	/* the image booted */
	const char *regress_hash;	/* the mm-regress inside the initramfs */
	const char *plugin_hash;	/* the tcg-cache plugin, when boot.tcg-clock is modelled; else NULL */
	/* QEMU's exact command line, accelerator settled (vm_boot_argv()); NULL: not known */
	const struct strvec *qemu_argv;
	const char *qemu_version;	/* the first line of `QEMU --version` */
	const char *qemu_binary;	/* vm_qemu_binary_hash() */
	const char *accel;		/* what was asked for: auto, kvm or tcg */
	int full;
	unsigned repeat;		/* samples a metric */
	unsigned boots;			/* boots of the cell */
	const struct kernel_boot *boot;	/* the kernels file's boot settings */
	const struct kernel_variant *variant;	/* a declared variant, or NULL */
};

/*
 * The part of a test key the kit's files decide, added to k: the kernels
 * file's boot settings as written and what a declared variant (or NULL)
 * leaves out and expects; the last lines test_key() adds, named as it
 * names them. A reader of results compares them (record_changed()).
 */
void test_key_settings(struct step_key *k, const struct kernel_boot *boot,
		       const struct kernel_variant *variant);

/*
 * The test key of `in`, added to k: changing any of it (the console,
 * QEMU or its version, a boot setting, the accelerator that would run)
 * makes another. Returns -1 with k left alone when in->qemu_argv is
 * NULL: only a boot can settle the accelerator, so the step runs.
 */
int test_key(struct step_key *k, const struct test_inputs *in);

#endif

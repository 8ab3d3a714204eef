/* doctor/doctor.h: what the machine needs before the long steps: tools, identity, QEMU, disk, network. */
#ifndef MKSERIES_DOCTOR_H
#define MKSERIES_DOCTOR_H

#include <stdio.h>

#include "kit/model.h"
#include "lib/util.h"

/* What a command is about to do: the checks it needs to pass. */
enum doctor_need {
	NEED_IDENTITY = 1 << 0,	/* apply: commits signed off in the user's name */
	NEED_BUILD = 1 << 1,	/* make, the compilers, disk for the trees and builds */
	NEED_BOOT = 1 << 2,	/* QEMU for each branch's arch */
	NEED_IMPORT = 1 << 3,	/* trees not imported yet: their source reachable, disk */
	NEED_PLAN = 1 << 4,	/* plan: a git source's repository, ref and release; the tree to check against */
};
#define NEED_ALL (NEED_IDENTITY | NEED_BUILD | NEED_BOOT | NEED_IMPORT | NEED_PLAN)

enum doctor_status {
	DOCTOR_OK,
	DOCTOR_MISSING,		/* needed and absent: the command cannot do its job */
	DOCTOR_NOTE,		/* absent but not needed, or worth knowing (TCG, no ccache) */
};

struct doctor_check {
	enum doctor_status status;
	char *name;		/* "qemu-system-x86_64 (6.12)" */
	char *detail;		/* what was found, or what to install or set */
	int config;		/* missing because of what the kit says: exit 2 */
};

struct doctor {
	struct doctor_check *checks;
	size_t nr, alloc;
};
#define DOCTOR_INIT { NULL, 0, 0 }
void doctor_release(struct doctor *d);

/* Where the branches' trees and builds go: the options their commands take. */
struct doctor_opts {
	const char *repo;	/* --repo, or NULL */
	const char *workdir;	/* --workdir, or NULL */
	const struct strvec *given;	/* --variant names; NULL or empty: every variant */
	unsigned need;		/* enum doctor_need */
	int versions;		/* ask each tool found for its version (doctor's listing) */
	/*
	 * Probe KVM when no probe is recorded for this host kernel and QEMU:
	 * boot a kernel a selected branch of the host's arch has built, as
	 * the first boot of a run would (vm_probe_kvm()). doctor does; a
	 * preflight leaves it to the run's first boot.
	 */
	int probe_kvm;
};

/*
 * Run the checks `opts->need` asks for, for the `nr` branches `sel` of
 * kit: each needed check that fails is DOCTOR_MISSING with what to
 * install or set. Nothing is printed. kit NULL (nr 0): outside a kit,
 * the machine's own checks only (the host's compiler and QEMU).
 */
void doctor_run(struct doctor *d, const struct kit *kit, struct kernel_branch *const *sel,
		size_t nr, const struct doctor_opts *opts);

/* Add a check of the caller's own. */
void doctor_note(struct doctor *d, enum doctor_status status, const char *name,
		 const char *detail);

/* The number of needed checks that failed. */
size_t doctor_failures(const struct doctor *d);

/* Every check, one line each: "ok      make: GNU Make 4.3". */
void doctor_print(const struct doctor *d, FILE *f);

/*
 * The check at the start of run, build and test: run the checks `need`
 * asks for and, when one fails, print each as an error, say that `cmd`
 * stopped before its long steps, and return MKS_ECONFIG when one is the
 * kit's (a cross compiler it names), else -1. 0 when all passed.
 */
int doctor_preflight(const char *cmd, const struct kit *kit, struct kernel_branch *const *sel,
		     size_t nr, const struct doctor_opts *opts);

/*
 * The disk a branch's tree and builds take, measured on x86_64 with the
 * kit's config: the Debian package, the import's objects, the source
 * tree written out and one build directory. MiB.
 */
struct tree_cost {
	const char *branch;	/* "6.12": the tree it was measured on */
	unsigned deb, objects, src, out;
};

#endif

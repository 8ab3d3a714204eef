/* vm.h: boot a built kernel in QEMU with mm-regress as /init, and judge its console. */
#ifndef MKSERIES_VM_H
#define MKSERIES_VM_H

#include "model.h"

enum vm_status {
	VM_OK = 1,	/* mm-regress ran to its done marker, nothing failed, no splat */
	VM_FAILED,
};

struct vm_result {
	enum vm_status status;
	char *accel;		/* what ran: "kvm" or "tcg" */
	char *accel_note;	/* why KVM was not used (auto mode), or NULL */
	double seconds;		/* QEMU's wall time, boot included */
	size_t nr_pass, nr_fail, nr_skip;	/* nr_fail: failures not expected */
	size_t nr_xfail;	/* cases of the variant's expect-fail that failed, as expected */
	char *expected;		/* what the expected failures showed ("x failed as expected: ..."), or NULL */
	char *failure;		/* one line: what went wrong, or NULL */
	char *console_log;	/* absolute path */
};
void vm_result_release(struct vm_result *r);

struct vm_opts {
	const char *accel;	/* "auto", "kvm" or "tcg"; NULL: the branch's boot.accel */
	int full;		/* the full run instead of mm-regress --quick */
	int progress;		/* a progress line on stderr */
	const char *label;	/* "6.12 base" */
	unsigned probe_timeout;	/* seconds a first KVM boot may stay silent; 0: 15 */
	const struct kernel_variant *variant;	/* a declared variant (its expect-fail), or NULL */
};

/*
 * The QEMU accelerator to use when `want` is "auto": "kvm" when /dev/kvm
 * opens and an earlier probe on this host kernel found that a KVM guest
 * really runs, "tcg" when either fails, or NULL when no probe has been
 * made yet (the next KVM boot is the probe). The answer is cached in
 * <cache>/kvm-probe with the host's kernel release. *note (caller frees)
 * says why KVM is not used. "kvm" and "tcg" are returned as they are.
 */
const char *vm_pick_accel(const char *want, const char *cache_dir, char **note);

/* Record a probe's outcome for this host kernel ("kvm" or "tcg" with a reason). */
int vm_record_probe(const char *cache_dir, const char *accel, const char *note);

/*
 * The QEMU command line for one boot: the branch's boot settings, the
 * accelerator, `bzimage`, `initramfs` and the kernel command line
 * "console=ttyS0 panic=-1 oops=panic mm_regress=... <boot.cmdline>".
 */
void vm_qemu_argv(struct strvec *argv, const struct kernel_boot *boot, const char *accel,
		  const char *bzimage, const char *initramfs, int full);

/*
 * Boot `bzimage` of branch b with the embedded mm-regress as /init;
 * the console goes to <workdir>/logs/<variant>-console.log, the outcome
 * to <workdir>/state/<variant>.test. boot_timeout runs until "KTAP
 * version" appears, run_timeout from there to the done marker; a hang
 * is killed and reported as "timeout (boot)" or "timeout (run)". Then
 * the console is read: a splat, a failed case, or a run that never
 * reached the done marker fails the variant (res->failure). A case the
 * variant expects to fail (opts->variant) fails it only by passing, or
 * by missing from a complete run (see struct expectations); a splat
 * fails it always.
 * Returns 0 with res filled, or -1 after printing when QEMU could not
 * be started at all or the work directory is unusable.
 */
int vm_test_variant(struct vm_result *res, const struct kernel_branch *b, const char *bzimage,
		    const char *workdir, const char *variant, const struct vm_opts *opts);

#endif

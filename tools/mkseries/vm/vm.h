/* vm/vm.h: boot a built kernel in QEMU with mm-regress as /init, and judge its console. */
#ifndef MKSERIES_VM_H
#define MKSERIES_VM_H

#include "kit/model.h"

enum vm_status {
	VM_OK = 1,	/* mm-regress ran to its done marker, nothing failed, no splat */
	VM_FAILED,
};

struct vm_result {
	enum vm_status status;
	char *accel;		/* what ran: "kvm" or "tcg" */
	char *accel_note;	/* why KVM was not used (auto mode), or NULL */
	const char *timing;	/* "hardware", "instructions" or "emulated" (static) */
	int started;		/* every boot reached mm-regress's KTAP header */
	unsigned boots;		/* boots made */
	double seconds;		/* QEMU's wall time of every boot, boot included */
	size_t nr_pass, nr_fail, nr_skip;	/* nr_fail: failures not expected */
	size_t nr_xfail;	/* cases of the variant's expect-fail that failed, as expected */
	char *expected;		/* what the expected failures showed ("x failed as expected: ..."), or NULL */
	char *failure;		/* one line: what went wrong, or NULL */
	char *console_log;	/* absolute path */
	struct strvec argv;	/* the QEMU command line the boots ran, accelerator settled */
};
void vm_result_release(struct vm_result *r);
/* "tcg, instruction-paced, 2 boots": how a result was measured, for one line. Caller frees. */
char *vm_result_how(const struct vm_result *r);

struct test_inputs;

struct vm_opts {
	const char *accel;	/* "auto", "kvm" or "tcg"; NULL: the branch's boot.accel */
	int full;		/* the full run instead of mm-regress --quick */
	int progress;		/* a progress line on stderr */
	const char *label;	/* "6.12 base" */
	unsigned probe_timeout;	/* seconds a probe boot under KVM has to reach mm-regress; 0: 20 */
	int probe_only;		/* stop the boot once mm-regress starts: vm_probe_kvm()'s */
	unsigned boots;		/* boots of the variant; 0: the branch's boot.boots */
	const struct kernel_variant *variant;	/* a declared variant (its expect-fail), or NULL */
	const char *cmdline;	/* more kernel command line, after boot.cmdline, or NULL */
	/*
	 * What the test's key is made of but QEMU's command line, which the
	 * boots settle: the record keeps the key of what ran, for the next
	 * run to judge. NULL (`mkseries test`): no key is recorded.
	 */
	struct test_inputs *key;
};

/* The KVM device: MKSERIES_KVM_DEVICE (tests point it at a file of their own), else /dev/kvm. */
const char *vm_kvm_device(void);

/* What the last KVM probe recorded in <cache>/kvm-probe: the one reader of that file. */
struct vm_probe {
	char *path;		/* the file */
	char *accel;		/* "kvm" or "tcg" */
	char *host;		/* the host kernel's release it ran on */
	char *qemu_version;	/* vm_qemu_version() of the QEMU it ran */
	char *note;		/* why not KVM, or NULL */
	char *when;		/* "2026-12-06 05:00 UTC", or NULL */
};

/* 0 with p set, or -1 when no probe is recorded (p->path set all the same when cache_dir is). */
int vm_probe_read(struct vm_probe *p, const char *cache_dir);
void vm_probe_release(struct vm_probe *p);

/* Record a probe's outcome for this host kernel and QEMU ("kvm", or "tcg" with a reason). */
int vm_record_probe(const char *cache_dir, const char *qemu, const char *accel, const char *note);

/*
 * Probe KVM now, as the first boot of a run under it would: boot
 * `bzimage` (a built kernel of b, of the host's arch) under KVM with
 * mm-regress as /init, in a temporary directory, until mm-regress starts
 * or `probe_timeout` seconds (0: 20) pass, and record what it found in
 * <cache>/kvm-probe as that boot records it (vm_probe_read() reads it).
 * Returns 0 when the probe ran; 1, doing nothing, when none is needed or
 * possible (b is of another arch, no cache directory, the device does
 * not open, or a probe is recorded for this host kernel and QEMU);
 * -1 (kept) when the boot could not be made at all.
 */
int vm_probe_kvm(const struct kernel_branch *b, const char *bzimage, unsigned probe_timeout);

/* The first line of `QEMU --version` (the kit's boot.qemu), or "unknown". Caller frees. */
char *vm_qemu_version(const char *qemu);
/*
 * The git blob id of the QEMU executable that runs (found as the boot
 * does, on PATH for a bare name): another build at the same path and
 * version is another QEMU. "missing" when there is none. Caller frees.
 */
char *vm_qemu_binary_hash(const char *qemu);

/* The tcg-cache plugin's file name, written next to the initramfs for modelled time. */
#define VM_PLUGIN_NAME "tcg-cache.so"

/*
 * The QEMU command line for one boot: the branch's boot settings, the
 * accelerator, `bzimage`, `initramfs` and the kernel command line
 * "console=<boot.console> panic=-1 oops=panic mm_regress=... <boot.cmdline> <extra>";
 * -smp is 1 under instruction-paced and modelled time, else boot.cpus up
 * to `max_cpus` (the arch's limit, 0 for none); modelled time adds
 * -plugin vm_plugin_path(initramfs).
 */
void vm_qemu_argv(struct strvec *argv, const struct kernel_boot *boot, const char *accel,
		  const char *bzimage, const char *initramfs, int full, const char *extra,
		  unsigned max_cpus);

/*
 * The QEMU command line vm_test_variant() would run now for `bzimage`
 * of b in `workdir` with opts, the accelerator settled as it would
 * settle it. Returns 0, or -1 (nothing printed) when only a boot can
 * tell: KVM has not been probed yet, or the accelerator asked for is
 * unknown or cannot run this arch (vm_test_variant() says why).
 */
int vm_boot_argv(struct strvec *argv, const struct kernel_branch *b, const char *bzimage,
		 const char *workdir, const struct vm_opts *opts);

/*
 * The checks `mkseries test` and `mkseries run` make of their boot
 * options: --quick with --full, the --accel name, --boots up to 100.
 * Returns 0, or -1 after printing what is wrong.
 */
int vm_check_options(int quick, int full, const char *accel, unsigned boots);
/* The KVM probe's timeout from MKSERIES_KVM_PROBE_TIMEOUT, else 0 (the default). */
unsigned vm_probe_timeout_env(void);

/*
 * Boot `bzimage` of branch b with the embedded mm-regress as /init,
 * boot.boots times (opts->boots overrides); the consoles go to
 * <workdir>/logs/<variant>-console.log, then -console.2.log ..., the
 * outcome to <workdir>/state/<variant>.test (status, accel, timing,
 * boots, started, console, console.2 ..., the image's hash and, given
 * opts->key, the test's key: the one record of the step). The first boot settles the
 * accelerator (see vm_pick_accel(); in auto mode a KVM boot that never
 * reaches mm-regress is redone under TCG, and res->accel_note says so).
 * A boot that never reaches mm-regress ends the cell there
 * (res->started is 0): it is not a result, and a rerun tries again. boot_timeout runs until "KTAP
 * version" appears, run_timeout from there to the done marker; a hang
 * is killed and reported as "timeout (boot)" or "timeout (run)". Then
 * the console is read: a splat, a failed case, or a run that never
 * reached the done marker fails the variant (res->failure). A case the
 * variant expects to fail (opts->variant) fails it only by passing, or
 * by missing from a complete run (see struct expectations); a splat
 * fails it always.
 * Returns 0 with res filled, or -1 after printing when QEMU could not
 * be started at all or the work directory is unusable: then what it
 * printed is res->failure and the record's (status error).
 */
int vm_test_variant(struct vm_result *res, const struct kernel_branch *b, const char *bzimage,
		    const char *workdir, const char *variant, const struct vm_opts *opts);

#endif

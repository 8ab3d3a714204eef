/* vm/vm.c: boot a variant's bzImage in QEMU with mm-regress as /init, capture and judge the console. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "kit/arch.h"
#include "lib/progress.h"
#include "console/console.h"
#include "vm/initramfs.h"
#include "console/ktap.h"
#include "vm/regress.h"
#include "lib/state.h"
#include "record/key.h"
#include "record/record.h"
#include "vm/vm.h"
#include "tree/workdir.h"

/* Seconds QEMU gets to exit by itself after the done marker (mm-regress reboots). */
#define DONE_GRACE 30

void vm_result_release(struct vm_result *r)
{
	free(r->accel);
	free(r->accel_note);
	free(r->failure);
	free(r->expected);
	free(r->console_log);
	strvec_clear(&r->argv);
	memset(r, 0, sizeof(*r));
}

/* ------------------------------------------------------------------ */
/* Choosing the accelerator */

static char *host_release(void)
{
	struct utsname u;

	return xstrdup(uname(&u) ? "unknown" : u.release);
}

char *vm_qemu_version(const char *qemu)
{
	return program_version(qemu, "unknown");
}

char *vm_qemu_binary_hash(const char *qemu)
{
	char *path = program_path(qemu), *hash = NULL;

	if (!path || file_hash(&hash, path))
		hash = xstrdup("missing");
	free(path);
	return hash;
}

const char *vm_kvm_device(void)
{
	const char *dev = getenv("MKSERIES_KVM_DEVICE");

	return dev && *dev ? dev : "/dev/kvm";
}

/* The probe file's keys: vm_record_probe() writes them, vm_probe_read() reads them. */
#define PROBE_FILE "kvm-probe"
#define PROBE_HOST "host"
#define PROBE_QEMU "qemu"
#define PROBE_ACCEL "accel"
#define PROBE_NOTE "note"
#define PROBE_WHEN "when"

int vm_probe_read(struct vm_probe *p, const char *cache_dir)
{
	struct state st = STATE_INIT;
	const char *v;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!cache_dir)
		return -1;
	p->path = path_join(cache_dir, PROBE_FILE);
	if (!state_read(&st, p->path) && (v = state_get(&st, PROBE_ACCEL))) {
		p->accel = xstrdup(v);
		p->host = (v = state_get(&st, PROBE_HOST)) ? xstrdup(v) : NULL;
		p->qemu_version = (v = state_get(&st, PROBE_QEMU)) ? xstrdup(v) : NULL;
		p->note = (v = state_get(&st, PROBE_NOTE)) && *v ? xstrdup(v) : NULL;
		p->when = (v = state_get(&st, PROBE_WHEN)) ? xstrdup(v) : NULL;
		ret = 0;
	}
	state_release(&st);
	return ret;
}

void vm_probe_release(struct vm_probe *p)
{
	free(p->path);
	free(p->accel);
	free(p->host);
	free(p->qemu_version);
	free(p->note);
	free(p->when);
	memset(p, 0, sizeof(*p));
}

/*
 * The QEMU accelerator to use when `want` is "auto": "kvm" when /dev/kvm
 * (or $MKSERIES_KVM_DEVICE) opens and an earlier probe with this host
 * kernel and this QEMU found that a KVM guest really reaches mm-regress,
 * "tcg" when either fails, or NULL when no probe has been made yet (the
 * next KVM boot is the probe: a real boot, whose mm-regress must print
 * its KTAP header in time). The answer is cached in <cache>/kvm-probe
 * with the host's kernel release and `qemu --version`. *note (caller
 * frees) says why KVM is not used. "kvm" and "tcg" are returned as they
 * are.
 */
static const char *vm_pick_accel(const char *want, const char *cache_dir, const char *qemu, char **note)
{
	struct vm_probe probe;
	char *release = NULL, *version = NULL;
	const char *ret = NULL, *dev = vm_kvm_device();
	int fd;

	*note = NULL;
	if (want && !strcmp(want, "kvm"))
		return "kvm";
	if (want && !strcmp(want, "tcg"))
		return "tcg";
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		*note = xstrfmt("%s: %s", dev, strerror(errno));
		return "tcg";
	}
	close(fd);
	/* No cache directory: no probe is kept, each boot probes. */
	if (!cache_dir)
		return NULL;
	release = host_release();
	version = vm_qemu_version(qemu);
	if (!vm_probe_read(&probe, cache_dir) && probe.host && !strcmp(probe.host, release) &&
	    probe.qemu_version && !strcmp(probe.qemu_version, version)) {
		ret = !strcmp(probe.accel, "kvm") ? "kvm" : "tcg";
		if (!strcmp(ret, "tcg"))
			*note = xstrfmt("%s (probed %s; remove %s to probe again)",
					probe.note ? probe.note : "a KVM guest did not run",
					probe.when ? probe.when : "earlier", probe.path);
	}
	vm_probe_release(&probe);
	free(version);
	free(release);
	return ret;
}

int vm_record_probe(const char *cache_dir, const char *qemu, const char *accel, const char *note)
{
	struct state st = STATE_INIT;
	char *path, *release, *version;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	if (!cache_dir)
		return 0;
	path = path_join(cache_dir, PROBE_FILE);
	release = host_release();
	version = vm_qemu_version(qemu);
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	state_set(&st, PROBE_HOST, release);
	state_set(&st, PROBE_QEMU, version);
	state_set(&st, PROBE_ACCEL, accel);
	state_set(&st, PROBE_NOTE, note ? note : "");
	state_set(&st, PROBE_WHEN, when);
	ret = state_write(&st, path);
	state_release(&st);
	free(version);
	free(release);
	free(path);
	return ret;
}

/*
 * What kind of time a boot under `accel` measures: "hardware" (KVM),
 * "instructions" (TCG with boot.tcg-clock instructions: QEMU's icount),
 * "modelled" (icount, and QEMU loads our tcg-cache plugin, which counts
 * modelled cycles and misses) or "emulated" (TCG on the host's clock).
 * A static string.
 */
static const char *vm_timing(const char *accel, const struct kernel_boot *boot)
{
	if (!strcmp(accel, "kvm"))
		return "hardware";
	if (boot->tcg_clock && !strcmp(boot->tcg_clock, "host"))
		return "emulated";
	if (boot->tcg_clock && !strcmp(boot->tcg_clock, "modelled"))
		return "modelled";
	return "instructions";
}

/* Whether the guest's clock follows its instructions (QEMU's icount): instruction-paced and modelled time. */
static int instruction_paced(const char *accel, const struct kernel_boot *boot)
{
	const char *t = vm_timing(accel, boot);

	return !strcmp(t, "instructions") || !strcmp(t, "modelled");
}

/* Where the plugin goes for a boot with this initramfs: its directory. Caller frees. */
static char *vm_plugin_path(const char *initramfs)
{
	const char *slash = strrchr(initramfs, '/');

	if (!slash)
		return xstrdup(VM_PLUGIN_NAME);
	return xstrfmt("%.*s/%s", (int)(slash - initramfs), initramfs, VM_PLUGIN_NAME);
}

char *vm_result_how(const struct vm_result *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, r->accel ? r->accel : "?");
	if (r->timing && !strcmp(r->timing, "instructions"))
		strbuf_addstr(&sb, ", instruction-paced");
	else if (r->timing && !strcmp(r->timing, "modelled"))
		strbuf_addstr(&sb, ", instruction-paced, modelled cycles");
	else if (r->timing && !strcmp(r->timing, "emulated"))
		strbuf_addstr(&sb, ", host clock");
	if (r->boots > 1)
		strbuf_addf(&sb, ", %u boots", r->boots);
	return strbuf_detach(&sb, NULL);
}

/* ------------------------------------------------------------------ */
/* One QEMU run */

void vm_qemu_argv(struct strvec *argv, const struct kernel_boot *boot, const char *accel,
		  const char *bzimage, const char *initramfs, int full, const char *extra,
		  unsigned max_cpus)
{
	struct strbuf cmdline = STRBUF_INIT;
	const char *cpu = boot->cpu;
	unsigned cpus = boot->cpus;

	strvec_push(argv, boot->qemu);
	if (boot->machine && *boot->machine)
		strvec_pushl(argv, "-machine", boot->machine, NULL);
	strvec_pushl(argv, "-accel", accel, NULL);
	/*
	 * Instruction-paced time: one nanosecond of guest time per
	 * instruction (shift=0, a 1 GHz guest), and no sleeping through idle
	 * time, so a boot's timings follow the work it did, not the host.
	 */
	if (instruction_paced(accel, boot))
		strvec_pushl(argv, "-icount", "shift=0,sleep=off", NULL);
	/*
	 * Modelled cycles: our tcg-cache plugin, written next to the
	 * initramfs; its lines go to QEMU's stderr, and so to the console.
	 */
	if (!strcmp(vm_timing(accel, boot), "modelled")) {
		char *plugin = vm_plugin_path(initramfs);

		/* The kernels file's model settings, if any, follow the path as QEMU wants them. */
		strvec_push(argv, "-plugin");
		strvec_pushf(argv, "%s%s%s", plugin, boot->tcg_cache ? "," : "",
			     boot->tcg_cache ? boot->tcg_cache : "");
		free(plugin);
	}
	/* Under KVM the host's CPU model; under TCG QEMU's default unless the kit names one. */
	if (!cpu && !strcmp(accel, "kvm"))
		cpu = "host";
	if (cpu && *cpu)
		strvec_pushl(argv, "-cpu", cpu, NULL);
	/* A machine that boots only so many CPUs (sun4u: one) gets no more. */
	if (max_cpus && cpus > max_cpus)
		cpus = max_cpus;
	strvec_push(argv, "-m");
	strvec_pushf(argv, "%u", boot->memory_mb);
	/*
	 * Instruction-paced time runs every vCPU in turn on one host thread:
	 * a second one adds no parallelism, only an interleaving that moves
	 * the numbers, and 5.10 hangs bringing it up under icount. One CPU.
	 */
	strvec_push(argv, "-smp");
	if (instruction_paced(accel, boot))
		strvec_push(argv, "1");
	else
		strvec_pushf(argv, "%u", cpus);
	strvec_pushl(argv, "-kernel", bzimage, "-initrd", initramfs, NULL);
	/*
	 * panic=-1 reboots at once on a panic and -no-reboot turns that into
	 * QEMU exiting; oops=panic makes an oops end the run the same way
	 * instead of leaving a half-dead machine to run into the timeout.
	 */
	strbuf_addf(&cmdline, "console=%s panic=-1 oops=panic",
		    boot->console && *boot->console ? boot->console : "ttyS0");
	if (!full)
		strbuf_addstr(&cmdline, " mm_regress=--quick");
	if (boot->cmdline && *boot->cmdline)
		strbuf_addf(&cmdline, " %s", boot->cmdline);
	if (extra && *extra)
		strbuf_addf(&cmdline, " %s", extra);
	strvec_pushl(argv, "-append", cmdline.buf, NULL);
	strvec_pushl(argv, "-nodefaults", "-display", "none", "-serial", "stdio", "-monitor", "none",
		     "-no-reboot", NULL);
	strbuf_release(&cmdline);
}

enum phase { PHASE_BOOT, PHASE_RUN, PHASE_DONE };

enum boot_end {
	END_EXITED,		/* QEMU exited by itself */
	END_TIMEOUT_BOOT,
	END_TIMEOUT_RUN,
	END_PROBE,		/* a KVM probe boot did not reach mm-regress in time */
	END_DONE_HUNG,		/* done marker seen, QEMU did not exit: fine, it was killed */
};

struct watch {
	enum phase phase;
	double start, deadline;
	unsigned boot_timeout, run_timeout;
	unsigned probe_timeout;	/* a probe boot: seconds until the KTAP header, else 0 */
	int probe_only;		/* end the boot at the KTAP header: all a probe needs */
	enum boot_end end;
	/* progress */
	struct progress line;
	const char *label, *accel;
	char last[120];
	unsigned results;
};

static void watch_draw(struct watch *w)
{
	char results[48] = "";

	if (w->phase != PHASE_BOOT)
		snprintf(results, sizeof(results), "  %u result%s", w->results,
			 w->results == 1 ? "" : "s");
	progress_show(&w->line, 0, "%s: %s (%s) %s%s%s%s", w->label,
		      w->phase == PHASE_BOOT ? "booting" : "running", w->accel,
		      format_duration(mono_seconds() - w->start), results, w->last[0] ? "  " : "",
		      w->last);
}

static void watch_on_line(void *data, const char *line)
{
	struct watch *w = data;
	const char *p = line;

	if (!*line)
		return;
	/* A printk prefix may stand before mm-regress's text when both write at once. */
	if (*p == '[') {
		const char *close = strchr(p, ']');

		if (close)
			p = close + 1 + (close[1] == ' ');
	}
	if (w->phase == PHASE_BOOT && (starts_with(p, "KTAP version") || strstr(line, "KTAP version "))) {
		w->phase = PHASE_RUN;
		w->deadline = mono_seconds() + w->run_timeout;
	} else if (w->phase == PHASE_RUN && strstr(line, "# " KTAP_DONE_MARKER)) {
		w->phase = PHASE_DONE;
		w->deadline = mono_seconds() + DONE_GRACE;
	} else if (w->phase == PHASE_RUN &&
		   (starts_with(p, "ok ") || starts_with(p, "not ok "))) {
		w->results++;
		snprintf(w->last, sizeof(w->last), "%s", p);
	} else if (w->phase == PHASE_RUN && starts_with(p, "# ") && !strchr(p, ':')) {
		snprintf(w->last, sizeof(w->last), "%s", p);
	}
}

static int watch_on_tick(void *data)
{
	struct watch *w = data;
	double now = mono_seconds();

	watch_draw(w);
	if (w->probe_timeout && w->phase == PHASE_BOOT && now - w->start > w->probe_timeout) {
		w->end = END_PROBE;
		return 1;
	}
	if (w->probe_only && w->phase != PHASE_BOOT) {
		w->end = END_DONE_HUNG;
		return 1;
	}
	if (now < w->deadline)
		return 0;
	w->end = w->phase == PHASE_BOOT ? END_TIMEOUT_BOOT :
		 w->phase == PHASE_RUN ? END_TIMEOUT_RUN : END_DONE_HUNG;
	return 1;
}

/*
 * Boot once; *end says how it ended, *status is QEMU's exit status,
 * *started whether mm-regress's KTAP header appeared.
 */
static int boot_once(enum boot_end *end, int *status, int *started, double *seconds,
		     const struct kernel_branch *b, const char *accel, const char *bzimage,
		     const char *initramfs, const char *console_log, const struct vm_opts *opts,
		     unsigned probe_timeout)
{
	struct child c = CHILD_INIT;
	struct watch w;
	FILE *f;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.start = mono_seconds();
	w.boot_timeout = b->boot.boot_timeout;
	w.run_timeout = b->boot.run_timeout;
	w.deadline = w.start + w.boot_timeout;
	w.probe_timeout = probe_timeout;
	w.probe_only = opts->probe_only;
	w.end = END_EXITED;
	progress_init(&w.line, opts->progress, 0.2);
	w.label = opts->label ? opts->label : "";
	w.accel = accel;

	vm_qemu_argv(&c.argv, &b->boot, accel, bzimage, initramfs, opts->full, opts->cmdline,
		     branch_arch(b)->max_cpus);
	f = fopen(console_log, "w");
	if (!f) {
		child_release(&c);
		return error("cannot write '%s': %s", console_log, strerror(errno));
	}
	fputs("# mkseries:", f);
	for (i = 0; i < c.argv.nr; i++)
		fprintf(f, strchr(c.argv.v[i], ' ') ? " '%s'" : " %s", c.argv.v[i]);
	fputc('\n', f);
	fclose(f);
	c.log_path = console_log;
	c.err_to_out = 1;
	c.on_line = watch_on_line;
	c.on_tick = watch_on_tick;
	c.data = &w;
	*status = child_run(&c);
	*seconds = mono_seconds() - w.start;
	progress_clear(&w.line);
	child_release(&c);
	if (*status < 0)
		return -1;
	*end = c.killed ? w.end : END_EXITED;
	*started = w.phase != PHASE_BOOT;
	return 0;
}

/* The last line of the console that is not our own header, for "QEMU exited" messages. */
static char *last_line(const char *log)
{
	const char *end = log + strlen(log), *p;

	while (end > log && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	p = end;
	while (p > log && p[-1] != '\n')
		p--;
	if (p == end || starts_with(p, "# mkseries:"))
		return NULL;
	return xstrndup(p, end - p);
}

/*
 * Read the console and decide, by console_judge()'s rules (the report
 * reads the console back by the same ones); the sentence for the first
 * rule broken says what the boot itself saw too: a timeout, QEMU's exit.
 */
static void judge(struct vm_result *res, enum boot_end end, int status, const char *console,
		  const struct kernel_branch *b, const struct kernel_variant *v)
{
	const struct arch_info *a = branch_arch(b);
	struct console_rules rules = {
		.machine = a->machine,
		.expect_fail = v ? v->expect_fail : NULL,
		.nr_expect_fail = v ? v->nr_expect_fail : 0,
	};
	struct console_verdict cv;
	size_t len = strlen(console);
	struct strbuf why = STRBUF_INIT, note = STRBUF_INIT;
	char *without = v ? variant_without_text(v) : NULL;
	const struct ktap_result *k = &cv.k;
	size_t i;

	rules.without = without;
	console_judge(&cv, &console, &len, 1, &rules);
	res->nr_pass = k->nr_pass + k->nr_todo;
	res->nr_fail = cv.e.nr_fail;
	res->nr_xfail = cv.e.xfail.nr;
	res->nr_skip = k->nr_skip;
	expectations_describe(&note, &cv.e, without);
	if (note.len)
		res->expected = strbuf_detach(&note, NULL);

	switch (cv.rule) {
	case CONSOLE_OK:
		/* Killed just after the done marker: still not a run that ended by itself. */
		if (end == END_TIMEOUT_BOOT)
			strbuf_addf(&why, "timeout (boot): no 'KTAP version' in %us",
				    b->boot.boot_timeout);
		else if (end == END_TIMEOUT_RUN)
			strbuf_addf(&why, "timeout (run): mm-regress did not finish in %us",
				    b->boot.run_timeout);
		break;
	case CONSOLE_SPLAT:
		strbuf_addf(&why, "%s (console line %zu)", cv.splat.text ? cv.splat.text : "splat",
			    cv.splat.line);
		break;
	case CONSOLE_NOT_STARTED:
		if (end == END_TIMEOUT_BOOT) {
			strbuf_addf(&why, "timeout (boot): no 'KTAP version' in %us",
				    b->boot.boot_timeout);
		} else {
			char *last = last_line(console);

			strbuf_addf(&why, "mm-regress never started: QEMU exited with status %d", status);
			if (last)
				strbuf_addf(&why, " after '%s'", last);
			free(last);
		}
		break;
	case CONSOLE_WRONG_MACHINE:
		if (!cv.machine)
			strbuf_addf(&why, "mm-regress did not say which machine it ran on (no '# machine:' line); branch '%s' is %s",
				    b->name, a->name);
		else
			strbuf_addf(&why, "mm-regress ran on machine '%s', but branch '%s' is %s ('%s')",
				    cv.machine, b->name, a->name, a->machine);
		break;
	case CONSOLE_CASE_FAILED:
		strbuf_addf(&why, "%zu case%s failed:", cv.e.nr_fail, cv.e.nr_fail > 1 ? "s" : "");
		for (i = 0; i < k->nr_cases; i++)
			if (k->cases[i].status == KTAP_FAIL && !variant_expects_fail(v, k->cases[i].name))
				strbuf_addf(&why, " %s", k->cases[i].name);
		break;
	case CONSOLE_CUT_SHORT:
		if (end == END_TIMEOUT_BOOT)
			/* The header came as QEMU was being killed. */
			strbuf_addf(&why, "timeout (boot): no 'KTAP version' in %us; %s",
				    b->boot.boot_timeout, cv.problems.v[0]);
		else if (end == END_TIMEOUT_RUN)
			strbuf_addf(&why, "timeout (run): mm-regress did not finish in %us; %s",
				    b->boot.run_timeout, cv.problems.v[0]);
		else
			strbuf_addf(&why, "mm-regress did not finish: %s", cv.problems.v[0]);
		break;
	case CONSOLE_MISSED:
		expectations_missed(&why, &cv.e, without);
		break;
	}
	if (why.len) {
		res->status = VM_FAILED;
		res->failure = strbuf_detach(&why, NULL);
	} else {
		res->status = VM_OK;
	}
	strbuf_release(&why);
	strbuf_release(&note);
	console_verdict_release(&cv);
	free(without);
}

/* QEMU's program name without its directory: the prefix of its own messages. */
static const char *qemu_name(const struct kernel_boot *boot)
{
	const char *q = boot->qemu;

	return strrchr(q, '/') ? strrchr(q, '/') + 1 : q;
}

/*
 * Why a boot never reached mm-regress, in one line: QEMU's own first
 * message when it printed one ("qemu-system-x86_64: failed to set MSR
 * ..."), else the console's last line.
 */
static char *why_not_started(enum boot_end end, int status, const char *console_log,
			     const struct kernel_boot *boot, unsigned probe_timeout)
{
	struct strbuf log = STRBUF_INIT, why = STRBUF_INIT;
	const char *name = qemu_name(boot), *p;
	char *said = NULL, *last;

	strbuf_read_file(&log, console_log);
	for (p = log.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (starts_with(p, name) && p[strlen(name)] == ':') {
			said = xstrndup(p, strcspn(p, "\r\n"));
			break;
		}
	}
	last = last_line(log.buf);
	if (end == END_PROBE)
		strbuf_addf(&why, "no mm-regress in %us", probe_timeout);
	else if (end == END_TIMEOUT_BOOT)
		strbuf_addf(&why, "no mm-regress in %us", boot->boot_timeout);
	else
		strbuf_addf(&why, "QEMU exited with status %d", status);
	if (said)
		strbuf_addf(&why, ": '%s'", said);
	else if (last)
		strbuf_addf(&why, " after '%s'", last);
	else
		strbuf_addstr(&why, ", the guest printed nothing");
	free(said);
	free(last);
	strbuf_release(&log);
	return strbuf_detach(&why, NULL);
}

/* The work directory's console log of the first boot; <log minus .log>.<n>.log for the others. */
static char *console_path(const char *workdir, const char *variant, unsigned nth)
{
	char *first = workdir_path(workdir, WD_CONSOLE_LOG, variant), *path;

	if (nth <= 1)
		return first;
	path = xstrfmt("%.*s.%u.log", (int)(strlen(first) - strlen(".log")), first, nth);
	free(first);
	return path;
}

/*
 * The first boot of a cell, where the accelerator is settled. In auto
 * mode a KVM boot that does not reach mm-regress (QEMU aborts, exits,
 * or the guest stays silent) is not a result: KVM is marked unusable
 * for this host kernel and QEMU, the KVM console is kept beside the
 * cell's as <variant>-kvm-console.log, and the cell boots again under
 * TCG, with *note saying why.
 */
static int first_boot(enum boot_end *end, int *status, int *started, double *seconds,
		      const char **accel, char **note, const struct kernel_branch *b,
		      const char *bzimage, const char *initramfs, const char *console_log,
		      const char *want, const char *cache, const struct vm_opts *opts)
{
	unsigned probe = opts->probe_timeout ? opts->probe_timeout : 20;
	const char *qemu = b->boot.qemu;
	char *why = NULL, *kept = NULL;
	int probing = !*accel, ret;

	if (probing)
		*accel = "kvm";
	ret = boot_once(end, status, started, seconds, b, *accel, bzimage, initramfs, console_log,
			opts, probing ? probe : 0);
	if (ret || strcmp(*accel, "kvm") || strcmp(want, "auto"))
		return ret;
	if (*started) {
		if (probing)
			vm_record_probe(cache, qemu, "kvm", NULL);
		return 0;
	}
	why = why_not_started(*end, *status, console_log, &b->boot, probe);
	vm_record_probe(cache, qemu, "tcg", why);
	kept = xstrfmt("%.*s-kvm-console.log", (int)(strlen(console_log) - strlen("-console.log")),
		       console_log);
	if (rename(console_log, kept))
		free(kept), kept = NULL;
	free(*note);
	*note = xstrfmt("%s under KVM: %s%s%s; booted again under TCG",
			probing ? "the probe boot failed" : "the guest never reached mm-regress",
			why, kept ? "; its console: " : "", kept ? kept : "");
	*accel = "tcg";
	ret = boot_once(end, status, started, seconds, b, *accel, bzimage, initramfs, console_log,
			opts, 0);
	free(why);
	free(kept);
	return ret;
}

/* Merge a later boot's verdict into the cell's: the first failure is the cell's. */
static void merge_boot(struct vm_result *res, struct vm_result *more, unsigned nth)
{
	if (more->status == VM_FAILED && res->status != VM_FAILED) {
		res->status = VM_FAILED;
		free(res->failure);
		res->failure = xstrfmt("boot %u: %s", nth, more->failure ? more->failure : "failed");
	}
	res->seconds += more->seconds;
}

static int accel_name_ok(const char *accel)
{
	return !strcmp(accel, "auto") || !strcmp(accel, "kvm") || !strcmp(accel, "tcg");
}

int vm_check_options(int quick, int full, const char *accel, unsigned boots)
{
	if (quick && full)
		return error("--quick and --full cannot be used together");
	if (accel && !accel_name_ok(accel))
		return error("unknown accelerator '%s' (auto, kvm or tcg)", accel);
	if (boots > 100)
		return error("--boots must be between 1 and 100, not %u", boots);
	return 0;
}

unsigned vm_probe_timeout_env(void)
{
	const char *v = getenv("MKSERIES_KVM_PROBE_TIMEOUT");

	return v ? strtoul(v, NULL, 10) : 0;
}

/* Write to `path` an initramfs whose /init is the mm-regress that runs on b's arch. */
static int write_initramfs(const char *path, const struct kernel_branch *b)
{
	const struct arch_info *arch = branch_arch(b);
	const char *image, *image_why = NULL;
	struct strbuf why = STRBUF_INIT;
	size_t image_len = 0;
	int ret;

	/* A cross-built kernel of another arch cannot run the host's mm-regress, and must not. */
	image = mm_regress_image_for(arch->machine, &image_len, &image_why);
	if (!image_len)
		return error_code(MKS_ECONFIG,
				  "%s:%d: this mkseries carries no %s mm-regress for arch %s: %.*s; install %s (make deps), then rebuild mkseries (make)",
				  b->path, b->line, arch->machine, arch->name,
				  (int)strcspn(image_why, "\n"), image_why, arch->cross_packages);
	if (arch_check_program(arch, image, image_len, &why))
		ret = error("%s:%d: %s", b->path, b->line, why.buf);
	else
		ret = initramfs_write(path, image, image_len);
	strbuf_release(&why);
	return ret;
}

/*
 * The initramfs, and for modelled time the tcg-cache plugin beside it
 * (written whatever the accelerator: a KVM probe that fails goes on
 * under TCG).
 */
static int write_boot_files(const char *initramfs, const struct kernel_branch *b)
{
	char *plugin;
	int ret;

	if ((ret = write_initramfs(initramfs, b)))
		return ret;
	if (!b->boot.tcg_clock || strcmp(b->boot.tcg_clock, "modelled"))
		return 0;
	plugin = vm_plugin_path(initramfs);
	ret = tcg_cache_write(plugin);
	free(plugin);
	return ret;
}

int vm_probe_kvm(const struct kernel_branch *b, const char *bzimage, unsigned probe_timeout)
{
	struct vm_opts opts = { .label = "KVM probe", .probe_only = 1 };
	char *cache = mks_cache_dir(), *note = NULL, *dir = NULL, *initramfs = NULL, *log = NULL;
	char *why = NULL;
	const char *tmp = getenv("TMPDIR");
	unsigned probe = probe_timeout ? probe_timeout : 20;
	enum boot_end end = END_EXITED;
	int status = 0, started = 0, ret = 1;
	double seconds = 0;

	/* Settled already (a probe of this host kernel and QEMU, or no device): nothing to do. */
	if (!cache || !arch_is_host(branch_arch(b)) ||
	    vm_pick_accel("auto", cache, b->boot.qemu, &note))
		goto cleanup;
	dir = xstrfmt("%s/mkseries-kvm-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		ret = error("cannot create '%s': %s", dir, strerror(errno));
		free(dir), dir = NULL;
		goto cleanup;
	}
	temp_path_add(dir);
	initramfs = path_join(dir, "initramfs.cpio");
	log = path_join(dir, "console.log");
	if (write_boot_files(initramfs, b) ||
	    boot_once(&end, &status, &started, &seconds, b, "kvm", bzimage, initramfs, log, &opts,
		      probe)) {
		ret = -1;
		goto cleanup;
	}
	if (started) {
		ret = vm_record_probe(cache, b->boot.qemu, "kvm", NULL);
	} else {
		why = why_not_started(end, status, log, &b->boot, probe);
		ret = vm_record_probe(cache, b->boot.qemu, "tcg", why);
	}
	if (ret)
		ret = error("cannot record the KVM probe in '%s': %s", cache, strerror(errno));
cleanup:
	if (dir) {
		remove_tree(dir);
		temp_path_done(dir);
	}
	free(why);
	free(log);
	free(initramfs);
	free(dir);
	free(note);
	free(cache);
	return ret;
}

/* The accelerator asked for: the option, else the branch's boot.accel (the loader's default: auto). */
static const char *wanted_accel(const struct kernel_branch *b, const struct vm_opts *opts)
{
	return opts->accel ? opts->accel : b->boot.accel;
}

/*
 * The accelerator to boot b with when `want` (auto, kvm or tcg) was
 * asked for, and in *note (caller frees) why it is not the one asked for.
 * *accel is NULL when the first boot must probe KVM; it is an error
 * (printed) to ask for KVM for a guest of another arch.
 */
static int choose_accel(const char **accel, char **note, const struct kernel_branch *b,
			const char *want, const char *cache)
{
	const struct arch_info *arch = branch_arch(b);

	if (arch_is_host(arch)) {
		*accel = vm_pick_accel(want, cache, b->boot.qemu, note);
		return 0;
	}
	/* KVM runs only guests of the host's own arch. */
	if (!strcmp(want, "kvm"))
		return error_code(MKS_ECONFIG,
				  "%s:%d: accel kvm cannot run %s guests on this %s host: KVM runs only the host's own arch (use auto or tcg)",
				  b->path, b->line, arch->name,
				  arch_host() ? arch_host()->name : "unknown");
	*accel = "tcg";
	*note = xstrfmt("%s guest on %s host: KVM runs only the host's own arch", arch->name,
			arch_host() ? arch_host()->name : "another");
	return 0;
}

int vm_boot_argv(struct strvec *argv, const struct kernel_branch *b, const char *bzimage,
		 const char *workdir, const struct vm_opts *opts)
{
	const char *want = wanted_accel(b, opts), *accel = NULL;
	char *cache, *note = NULL, *initramfs;

	if (!accel_name_ok(want))
		return -1;
	/* Settled as choose_accel() settles it, without its error. */
	if (!arch_is_host(branch_arch(b))) {
		accel = strcmp(want, "kvm") ? "tcg" : NULL;
	} else {
		cache = mks_cache_dir();
		accel = vm_pick_accel(want, cache, b->boot.qemu, &note);
		free(note);
		free(cache);
	}
	if (!accel)
		return -1;
	initramfs = workdir_path(workdir, WD_INITRAMFS, NULL);
	vm_qemu_argv(argv, &b->boot, accel, bzimage, initramfs, opts->full, opts->cmdline,
		     branch_arch(b)->max_cpus);
	free(initramfs);
	return 0;
}

/* Record in st how the test of bzimage went (res), and what it expected. */
static void record_test(struct step_record *st, const struct vm_result *res,
			const struct kernel_branch *b, const char *bzimage,
			const struct vm_opts *opts)
{
	record_set(st, RF_BRANCH, b->name);
	record_set_status(st, res->status == VM_OK ? RS_OK : RS_FAILED);
	record_set(st, RF_ACCEL, res->accel);
	record_set(st, RF_TIMING, res->timing);
	record_setf(st, RF_BOOTS, "%u", res->boots);
	record_set(st, RF_STARTED, res->started ? "1" : "0");
	if (res->accel_note)
		record_set(st, RF_ACCEL_NOTE, res->accel_note);
	record_set(st, RF_MODE, opts->full ? "full" : "quick");
	record_setf(st, RF_SECONDS, "%.1f", res->seconds);
	record_setf(st, RF_PASS, "%zu", res->nr_pass);
	record_setf(st, RF_FAIL, "%zu", res->nr_fail);
	record_setf(st, RF_SKIP, "%zu", res->nr_skip);
	if (opts->variant) {
		struct strbuf list = STRBUF_INIT;
		char *without = variant_without_text(opts->variant);
		size_t i;

		for (i = 0; i < opts->variant->nr_expect_fail; i++)
			strbuf_addf(&list, "%s%s", i ? " " : "", opts->variant->expect_fail[i]);
		record_set(st, RF_EXPECT_FAIL, list.buf);
		record_set(st, RF_WITHOUT, without);
		record_setf(st, RF_XFAIL, "%zu", res->nr_xfail);
		strbuf_release(&list);
		free(without);
	}
	if (res->expected)
		record_set(st, RF_EXPECTED, res->expected);
	record_set(st, RF_BZIMAGE, bzimage);
	if (res->failure)
		record_set(st, RF_FAILURE, res->failure);
}

/*
 * Record in st what identifies the test that ran: the hash of the image
 * booted and, for a run (opts->key), the key of exactly what ran and
 * how many samples a case took. Returns 0, or -1 (printed).
 */
static int record_test_key(struct step_record *st, const struct vm_result *res,
			   const char *bzimage, const struct vm_opts *opts)
{
	struct step_key key = STEP_KEY_INIT;
	char *hash = NULL;

	if (opts->key) {
		opts->key->qemu_argv = &res->argv;
		if (!test_key(&key, opts->key))
			record_set_key(st, &key);
		record_setf(st, RF_REPEAT, "%u", opts->key->repeat);
		step_key_release(&key);
		if (opts->key->bzimage_hash) {
			record_set(st, RF_BZIMAGE_HASH, opts->key->bzimage_hash);
			return 0;
		}
	}
	if (file_hash(&hash, bzimage))
		return error("cannot read '%s': %s", bzimage, strerror(errno));
	record_set(st, RF_BZIMAGE_HASH, hash);
	free(hash);
	return 0;
}

static int test_run(struct vm_result *res, const struct kernel_branch *b, const char *bzimage,
		    const char *workdir, const char *variant, const struct vm_opts *opts)
{
	struct step_record st = STEP_RECORD_INIT;
	struct strbuf console = STRBUF_INIT;
	char *cache = mks_cache_dir(), *note = NULL, *initramfs = NULL;
	char *logdir = workdir_path(workdir, WD_LOGS, NULL), *log = NULL;
	const char *want = wanted_accel(b, opts), *accel = NULL;
	unsigned boots = opts->boots ? opts->boots : b->boot.boots, nth;
	enum boot_end end = END_EXITED;
	int ret = 0, status = 0, started = 0, all_started = 1;
	double seconds = 0;

	memset(res, 0, sizeof(*res));
	res->console_log = console_path(workdir, variant, 1);
	if (!accel_name_ok(want)) {
		ret = error_code(MKS_ECONFIG, "unknown accelerator '%s' (auto, kvm or tcg)", want);
		goto cleanup;
	}
	if (mkdir_p(logdir, 0755)) {
		ret = error("cannot create '%s': %s", logdir, strerror(errno));
		goto cleanup;
	}
	initramfs = workdir_path(workdir, WD_INITRAMFS, NULL);
	if ((ret = write_boot_files(initramfs, b)) ||
	    (ret = choose_accel(&accel, &note, b, want, cache)))
		goto cleanup;
	record_set(&st, RF_VARIANT, variant);
	for (nth = 1; nth <= boots; nth++) {
		struct vm_result one;
		/* Its progress line says which boot of how many: "6.12 kit: boot 2/3: running". */
		struct vm_opts this = *opts;
		char *label = xstrfmt("%s%sboot %u/%u", opts->label ? opts->label : "",
				      opts->label ? ": " : "", nth, boots);

		this.label = label;
		memset(&one, 0, sizeof(one));
		free(log);
		log = console_path(workdir, variant, nth);
		if (nth == 1)
			ret = first_boot(&end, &status, &started, &seconds, &accel, &note, b, bzimage,
					 initramfs, log, want, cache, &this);
		else
			ret = boot_once(&end, &status, &started, &seconds, b, accel, bzimage,
					initramfs, log, &this, 0);
		free(label);
		if (ret)
			goto cleanup;
		strbuf_reset(&console);
		if (strbuf_read_file(&console, log)) {
			ret = error("cannot read '%s': %s", log, strerror(errno));
			goto cleanup;
		}
		all_started &= started;
		if (nth == 1) {
			judge(res, end, status, console.buf, b, opts->variant);
			res->seconds = seconds;
			record_set(&st, RF_CONSOLE, log);
		} else {
			judge(&one, end, status, console.buf, b, opts->variant);
			one.seconds = seconds;
			merge_boot(res, &one, nth);
			record_item_setn(&st, RI_CONSOLE, nth, log);
			vm_result_release(&one);
		}
		/*
		 * A failed boot decides the cell; and a guest that never
		 * started will not start the next time either.
		 */
		if (res->status != VM_OK || !started)
			break;
	}
	res->accel = xstrdup(accel);
	res->accel_note = note;
	note = NULL;
	res->timing = vm_timing(accel, &b->boot);
	res->started = all_started;
	res->boots = nth > boots ? boots : nth;
	/* What every boot ran, the accelerator settled: the test's key is made from it. */
	vm_qemu_argv(&res->argv, &b->boot, accel, bzimage, initramfs, opts->full, opts->cmdline,
		     branch_arch(b)->max_cpus);

	record_test(&st, res, b, bzimage, opts);
	if (!(ret = record_test_key(&st, res, bzimage, opts)))
		ret = record_write(&st, workdir, STEP_TEST, variant);
cleanup:
	strbuf_release(&console);
	record_release(&st);
	free(initramfs);
	free(logdir);
	free(log);
	free(note);
	free(cache);
	return ret;
}

int vm_test_variant(struct vm_result *res, const struct kernel_branch *b, const char *bzimage,
		    const char *workdir, const char *variant, const struct vm_opts *opts)
{
	size_t mark = error_mark();
	int ret;

	ret = test_run(res, b, bzimage, workdir, variant, opts);
	if (ret) {
		/* Why it could not run, in its record and for the caller (the errors stay kept). */
		free(res->failure);
		res->failure = error_since(mark);
		if (!res->failure)
			res->failure = xstrdup("no error was given");
		record_module_error(workdir, STEP_TEST, b->name, variant, res->failure);
	}
	return ret;
}

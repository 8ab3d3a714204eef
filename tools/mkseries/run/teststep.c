/* run/teststep.c: the test step of one cell: freshness, the boot, its record, its line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/teststep.h"
#include "kit/arch.h"
#include "lib/progress.h"
#include "record/key.h"
#include "vm/regress.h"

/* What the test of a cell depends on, but QEMU's command line. */
static void test_inputs_of(struct test_inputs *in, const struct kernel_branch *b,
			   const struct kernel_variant *declared, const struct test_step_opts *o)
{
	in->accel = o->accel ? o->accel : b->boot.accel;
	in->full = o->full;
	in->repeat = o->repeat;
	in->boots = o->boots ? o->boots : b->boot.boots;
	in->boot = &b->boot;
	in->variant = declared;
}

/* Whether the recorded test ts is current for key: what it recorded is this test's. */
static int test_fresh(const struct step_record *ts, const struct step_key *key, int forced,
		      struct strbuf *why)
{
	if (!record_fresh(ts, key, forced, why))
		return 0;
	/* A guest that never reached mm-regress gave no result: try again. */
	if (record_ll(ts, RF_STARTED) != 1)
		strbuf_addstr(why, "mm-regress never started");
	return !why->len;
}

int test_step_run(struct test_step *t, const struct kernel_branch *b, const char *variant,
		  const char *bzimage, const char *workdir, const struct test_step_opts *o)
{
	const struct kernel_variant *declared = branch_find_variant(b, variant);
	struct step_key key = STEP_KEY_INIT;
	size_t mark = error_mark();
	struct vm_opts opts = { 0 };
	struct strvec argv = STRVEC_INIT;
	struct test_inputs in = { 0 };
	char *image_hash = NULL, *cmdline = NULL, *regress_hash = NULL, *plugin_hash = NULL;
	char *qemu_version = NULL, *qemu_binary = NULL, *errors;
	int err, known, ret = 0;

	/* mm-regress takes its options from the kernel command line (mm_regress=A,B). */
	cmdline = xstrfmt("mm_regress=--repeat,%u", o->repeat);
	opts.accel = o->accel;
	opts.full = o->full;
	opts.progress = progress_wanted();
	opts.label = o->label;
	opts.variant = declared;
	opts.boots = o->boots;
	opts.probe_timeout = o->probe_timeout;
	opts.cmdline = cmdline;

	regress_hash = mm_regress_hash(branch_arch(b)->machine);
	if (file_hash(&image_hash, bzimage)) {
		error("cannot read '%s': %s", bzimage, strerror(errno));
		goto error;
	}
	qemu_version = vm_qemu_version(b->boot.qemu);
	qemu_binary = vm_qemu_binary_hash(b->boot.qemu);
	test_inputs_of(&in, b, declared, o);
	in.qemu_binary = qemu_binary;
	in.bzimage_hash = image_hash;
	in.regress_hash = regress_hash;
	in.qemu_version = qemu_version;
	if (b->boot.tcg_clock && !strcmp(b->boot.tcg_clock, "modelled"))
		in.plugin_hash = plugin_hash = tcg_cache_hash();
	in.qemu_argv = vm_boot_argv(&argv, b, bzimage, workdir, &opts) ? NULL : &argv;
	known = !test_key(&key, &in);
	if (record_read(&t->rec, workdir, STEP_TEST, variant))
		goto error;
	if (test_fresh(&t->rec, known ? &key : NULL, o->force, &t->why)) {
		t->uptodate = 1;
		goto cleanup;
	}
	/* vm/ records the key of what ran: the accelerator is settled then, even by a probe. */
	opts.key = &in;
	if (o->starting)
		o->starting(t->why.buf, o->data);
	err = vm_test_variant(&t->res, b, bzimage, workdir, variant, &opts);
	if (err) {
		ret = err == MKS_ECONFIG ? MKS_ECONFIG : -1;
		strbuf_reset(&t->why);
		strbuf_addf(&t->why, "%s: %s", ret == MKS_ECONFIG ?
			    "the kit's boot settings are invalid" : "the boot could not run",
			    shown(t->res.failure));
		goto cleanup;
	}
	t->ran = 1;
	goto cleanup;
error:
	/* vm/ never ran: the record says why, and the next run tries again. */
	strbuf_reset(&t->why);
	errors = error_since(mark);
	strbuf_addf(&t->why, "the boot could not run: %s", errors ? errors : "no error was given");
	free(errors);
	record_module_error(workdir, STEP_TEST, b->name, variant, t->why.buf);
	ret = -1;
cleanup:
	error_flush();
	step_key_release(&key);
	strvec_clear(&argv);
	free(qemu_version);
	free(qemu_binary);
	free(regress_hash);
	free(plugin_hash);
	free(image_hash);
	free(cmdline);
	return ret;
}

void test_step_release(struct test_step *t)
{
	record_release(&t->rec);
	vm_result_release(&t->res);
	strbuf_release(&t->why);
}

void test_step_say(struct strbuf *out, const char *label, const char *step,
		   const struct test_step *t, const struct kernel_variant *declared)
{
	const struct vm_result *res = &t->res;
	char *how = vm_result_how(res);

	if (res->status == VM_OK) {
		strbuf_addf(out, "%s: %sbooted (%s) %zu ok, %zu skip, %zu fail", label, step, how,
			    res->nr_pass, res->nr_skip, res->nr_fail);
		if (declared && declared->nr_expect_fail)
			strbuf_addf(out, ", %zu xfail", res->nr_xfail);
		strbuf_addf(out, " in %s\n", format_duration(res->seconds));
	} else {
		strbuf_addf(out, "%s: %sFAILED (%s) %s\n", label, step, how,
			    res->failure ? shown(res->failure) : "");
		strbuf_addf(out, "    console: %s\n", res->console_log);
	}
	if (res->expected)
		strbuf_addf(out, "    XFAIL %s\n", shown(res->expected));
	free(how);
}

void test_step_say_uptodate(struct strbuf *out, const char *label, const struct test_step *t,
			    const struct kernel_variant *declared)
{
	const struct step_record *ts = &t->rec;
	const char *pass = record_get(ts, RF_PASS) ? record_get(ts, RF_PASS) : "?";

	if (record_status(ts) != RS_OK)
		strbuf_addf(out, "%s: test: up to date (FAILED %s)\n", label,
			    record_get(ts, RF_FAILURE) ? record_get(ts, RF_FAILURE) : "");
	else if (declared && declared->nr_expect_fail)
		strbuf_addf(out, "%s: test: up to date (%s passed, %s xfail)\n", label, pass,
			    record_get(ts, RF_XFAIL) ? record_get(ts, RF_XFAIL) : "?");
	else
		strbuf_addf(out, "%s: test: up to date (%s passed)\n", label, pass);
}

/* record/key.c: the freshness keys of the apply, build and test steps, made from what runs (import has its tree tag). */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/gitutil.h"
#include "record/key.h"
#include "record/record.h"

void step_key_add(struct step_key *k, const char *name, const char *fmt, ...)
{
	va_list ap;
	size_t start;

	strbuf_addf(&k->text, "%s ", name);
	start = k->text.len;
	va_start(ap, fmt);
	strbuf_vaddf(&k->text, fmt, ap);
	va_end(ap);
	/* A value is one line, so no value can pose as another line. */
	for (; start < k->text.len; start++)
		if (k->text.buf[start] == '\n')
			k->text.buf[start] = ' ';
	strbuf_addch(&k->text, '\n');
}

int file_hash(char **out, const char *path)
{
	git_oid oid;

	*out = NULL;
	if (git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) < 0)
		return MKS_ENOTFOUND;
	*out = xstrdup(git_oid_tostr_s(&oid));
	return 0;
}

void step_key_add_file(struct step_key *k, const char *name, const char *path)
{
	char *h = NULL;

	if (file_hash(&h, path))
		step_key_add(k, name, "missing");
	else
		step_key_add(k, name, "%s", h);
	free(h);
}

char *step_key_hash(const struct step_key *k)
{
	return blob_hash_hex(k->text.buf, k->text.len);
}

void step_key_release(struct step_key *k)
{
	strbuf_release(&k->text);
}

/* Every item of one plan, with the content of the file it applies. */
static void apply_key_plan(struct step_key *k, const struct plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nr; i++) {
		const struct plan_item *it = &plan->items[i];

		step_key_add(k, "item", "%s %s %s %zu", plan_action_name(it->action),
			     kit_patch_label(it->patch),
			     it->patch->upstream ? it->patch->upstream : "-",
			     it->action == PLAN_SQUASH ? it->squash_into : (size_t)0);
		if (it->source && (it->action == PLAN_APPLY || it->action == PLAN_SQUASH)) {
			char *path = kit_file(plan->kit, it->source);

			step_key_add_file(k, it->source, path);
			free(path);
		}
	}
}

/*
 * The SHA-1 of the running mkseries executable, read once; NULL when it
 * cannot be read. How a kit is applied and its states recorded is this
 * program's code: any other build of it redoes the apply step.
 */
static const char *self_hash(void)
{
	static char *hash;
	static int done;

	if (!done && file_hash(&hash, "/proc/self/exe"))
		hash = NULL;
	done = 1;
	return hash;
}

void apply_key(struct step_key *k, const struct plan *const *plans, size_t nr,
	       const git_oid *base, const char *backporter)
{
	size_t j;

	step_key_add(k, "step", "apply");
	if (self_hash())
		step_key_add(k, "mkseries", "%s", self_hash());
	else
		/* Unknown code: a key that matches no recorded one, so the step is redone. */
		step_key_add(k, "mkseries", "unreadable %lld %d", (long long)time(NULL), (int)getpid());
	step_key_add(k, "base", "%s", git_oid_tostr_s(base));
	step_key_add(k, "backporter", "%s", backporter ? backporter : "");
	for (j = 0; j < nr; j++) {
		/* The kit's lines are what they were before variants existed. */
		if (plans[j]->variant)
			step_key_add(k, "variant", "%s", plans[j]->variant->name);
		apply_key_plan(k, plans[j]);
	}
}

int build_key(struct step_key *k, git_repository *repo, const git_oid *commit,
	      const char *inputs)
{
	git_commit *c = NULL;
	int err;

	err = git_commit_lookup(&c, repo, commit);
	if (err < 0)
		return gitutil_error(err, "cannot read commit %s", oid_short(commit));
	step_key_add(k, "step", "build");
	step_key_add(k, "tree", "%s", git_oid_tostr_s(git_commit_tree_id(c)));
	git_commit_free(c);
	step_key_add(k, "inputs", "%s", inputs);
	return 0;
}

void test_key_settings(struct step_key *k, const struct kernel_boot *boot,
		       const struct kernel_variant *variant)
{
	size_t i;

	step_key_add(k, "qemu", "%s", boot->qemu ? boot->qemu : "");
	step_key_add(k, "machine", "%s", boot->machine ? boot->machine : "");
	step_key_add(k, "cpu", "%s", boot->cpu ? boot->cpu : "");
	step_key_add(k, "console", "%s", boot->console ? boot->console : "");
	step_key_add(k, "memory", "%u", boot->memory_mb);
	step_key_add(k, "cpus", "%u", boot->cpus);
	step_key_add(k, "cmdline", "%s", boot->cmdline ? boot->cmdline : "");
	step_key_add(k, "timeouts", "%u %u", boot->boot_timeout, boot->run_timeout);
	step_key_add(k, "boot-accel", "%s", boot->accel ? boot->accel : "");
	step_key_add(k, "tcg-clock", "%s", boot->tcg_clock ? boot->tcg_clock : "");
	step_key_add(k, "tcg-model", "%s", boot->tcg_cache ? boot->tcg_cache : "");
	step_key_add(k, "boot-boots", "%u", boot->boots);
	if (variant) {
		const struct kernel_variant *v = variant;
		char *without = variant_without_text(v);

		step_key_add(k, "without", "%s", without);
		for (i = 0; i < v->nr_with; i++)
			step_key_add(k, "with", "%s", kit_patch_label(v->with_patch[i]));
		for (i = 0; i < v->nr_expect_fail; i++)
			step_key_add(k, "expect-fail", "%s", v->expect_fail[i]);
		free(without);
	}
}

int test_key(struct step_key *k, const struct test_inputs *in)
{
	const struct kernel_boot *boot = in->boot;
	size_t i;

	if (!in->qemu_argv)
		return -1;
	step_key_add(k, "step", "test");
	step_key_add(k, "bzimage", "%s", in->bzimage_hash ? in->bzimage_hash : "missing");
	step_key_add(k, "mm-regress", "%s", in->regress_hash ? in->regress_hash : "missing");
	/* The model that counts modelled cycles is part of what ran. */
	if (in->plugin_hash)
		step_key_add(k, "tcg-cache", "%s", in->plugin_hash);
	/* What runs: every word of QEMU's command line, and which QEMU it is. */
	for (i = 0; i < in->qemu_argv->nr; i++)
		step_key_add(k, "argv", "%s", in->qemu_argv->v[i]);
	step_key_add(k, "qemu-version", "%s", in->qemu_version ? in->qemu_version : "unknown");
	step_key_add(k, "qemu-binary", "%s", in->qemu_binary ? in->qemu_binary : "missing");
	/* How it is judged and repeated, and the kernels file's boot settings as written. */
	if (!in->accel)
		BUG("test inputs without the accelerator asked for (the loader defaults it)");
	step_key_add(k, "accel", "%s", in->accel);
	step_key_add(k, "mode", "%s", in->full ? "full" : "quick");
	step_key_add(k, "repeat", "%u", in->repeat);
	step_key_add(k, "boots", "%u", in->boots);
	test_key_settings(k, boot, in->variant);
	return 0;
}


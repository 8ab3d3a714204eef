/* run/record.c: keys for the steps of a run (import, apply, build, test) and their recorded outcomes. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build/build.h"
#include "lib/gitutil.h"
#include "vm/regress.h"
#include "run/record.h"
#include "lib/state.h"

static const char *const step_names[] = {
	[STEP_IMPORT] = "import",
	[STEP_APPLY] = "apply",
	[STEP_BUILD] = "build",
	[STEP_TEST] = "test",
	[STEP_NONE] = "none",
};

const char *run_step_name(enum run_step s)
{
	return (size_t)s < ARRAY_SIZE(step_names) ? step_names[s] : "?";
}

int run_step_parse(enum run_step *out, const char *name)
{
	size_t i;

	for (i = 0; i < STEP_NONE; i++)
		if (!strcmp(name, step_names[i])) {
			*out = i;
			return 0;
		}
	return error_code(MKS_ECONFIG, "unknown step '%s' for --force (import, apply, build or test)",
			  name);
}

char *runstate_path(const char *workdir, const char *name)
{
	return xstrfmt("%s/state/run.%s", workdir, name);
}

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

char *mm_regress_hash(const char *machine)
{
	size_t len = 0;
	const char *why, *image = mm_regress_image_for(machine, &len, &why);

	return blob_hash_hex(image ? image : "", len);
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

char *apply_key(const struct plan *const *plans, size_t nr, const git_oid *base,
		const char *backporter)
{
	struct step_key k = STEP_KEY_INIT;
	char *ret;
	size_t j;

	step_key_add(&k, "step", "apply");
	if (self_hash())
		step_key_add(&k, "mkseries", "%s", self_hash());
	else
		/* Unknown code: a key that matches no recorded one, so the step is redone. */
		step_key_add(&k, "mkseries", "unreadable %lld %d", (long long)time(NULL), (int)getpid());
	step_key_add(&k, "base", "%s", git_oid_tostr_s(base));
	step_key_add(&k, "backporter", "%s", backporter ? backporter : "");
	for (j = 0; j < nr; j++) {
		/* The kit's lines are what they were before variants existed. */
		if (plans[j]->variant)
			step_key_add(&k, "variant", "%s", plans[j]->variant->name);
		apply_key_plan(&k, plans[j]);
	}
	ret = step_key_hash(&k);
	step_key_release(&k);
	return ret;
}

int build_key(char **out, git_repository *repo, const git_oid *commit, const struct kit *kit,
	      const struct kernel_branch *b)
{
	struct step_key k = STEP_KEY_INIT;
	git_commit *c = NULL;
	char *inputs = NULL;
	int err;

	*out = NULL;
	err = git_commit_lookup(&c, repo, commit);
	if (err < 0)
		return gitutil_error(err, "cannot read commit %s", oid_short(commit));
	err = build_inputs_key(&inputs, kit, b);
	if (err) {
		git_commit_free(c);
		return err;
	}
	step_key_add(&k, "step", "build");
	step_key_add(&k, "tree", "%s", git_oid_tostr_s(git_commit_tree_id(c)));
	git_commit_free(c);
	step_key_add(&k, "inputs", "%s", inputs);
	*out = step_key_hash(&k);
	step_key_release(&k);
	free(inputs);
	return 0;
}

char *test_key(const struct test_inputs *in)
{
	const struct kernel_boot *boot = in->boot;
	struct step_key k = STEP_KEY_INIT;
	char *ret;
	size_t i;

	if (!in->qemu_argv)
		return NULL;
	step_key_add(&k, "step", "test");
	step_key_add(&k, "bzimage", "%s", in->bzimage_hash ? in->bzimage_hash : "missing");
	step_key_add(&k, "mm-regress", "%s", in->regress_hash ? in->regress_hash : "missing");
	/* The model that counts modelled cycles is part of what ran. */
	if (boot->tcg_clock && !strcmp(boot->tcg_clock, "modelled")) {
		char *plugin = blob_hash_hex(tcg_cache_start, (size_t)(tcg_cache_end - tcg_cache_start));

		step_key_add(&k, "tcg-cache", "%s", plugin);
		free(plugin);
	}
	/* What runs: every word of QEMU's command line, and which QEMU it is. */
	for (i = 0; i < in->qemu_argv->nr; i++)
		step_key_add(&k, "argv", "%s", in->qemu_argv->v[i]);
	step_key_add(&k, "qemu-version", "%s", in->qemu_version ? in->qemu_version : "unknown");
	/* How it is judged and repeated, and the kernels file's boot settings as written. */
	step_key_add(&k, "accel", "%s", in->accel ? in->accel : "auto");
	step_key_add(&k, "mode", "%s", in->full ? "full" : "quick");
	step_key_add(&k, "repeat", "%u", in->repeat);
	step_key_add(&k, "boots", "%u", in->boots);
	step_key_add(&k, "qemu", "%s", boot->qemu ? boot->qemu : "");
	step_key_add(&k, "machine", "%s", boot->machine ? boot->machine : "");
	step_key_add(&k, "cpu", "%s", boot->cpu ? boot->cpu : "");
	step_key_add(&k, "console", "%s", boot->console ? boot->console : "");
	step_key_add(&k, "memory", "%u", boot->memory_mb);
	step_key_add(&k, "cpus", "%u", boot->cpus);
	step_key_add(&k, "cmdline", "%s", boot->cmdline ? boot->cmdline : "");
	step_key_add(&k, "timeouts", "%u %u", boot->boot_timeout, boot->run_timeout);
	step_key_add(&k, "boot-accel", "%s", boot->accel ? boot->accel : "");
	step_key_add(&k, "tcg-clock", "%s", boot->tcg_clock ? boot->tcg_clock : "");
	step_key_add(&k, "boot-boots", "%u", boot->boots);
	if (in->variant) {
		const struct kernel_variant *v = in->variant;
		char *without = variant_without_text(v);

		step_key_add(&k, "without", "%s", without);
		for (i = 0; i < v->nr_with; i++)
			step_key_add(&k, "with", "%s", kit_patch_label(v->with_patch[i]));
		for (i = 0; i < v->nr_expect_fail; i++)
			step_key_add(&k, "expect-fail", "%s", v->expect_fail[i]);
		free(without);
	}
	ret = step_key_hash(&k);
	step_key_release(&k);
	return ret;
}

int runstate_current(const struct state *st, const char *key)
{
	const char *k = state_get(st, "key"), *status = state_get(st, "status");

	if (!k || !key || strcmp(k, key) || !status)
		return 0;
	return !strcmp(status, "ok") || !strcmp(status, "failed") || !strcmp(status, "conflict");
}

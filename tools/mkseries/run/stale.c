/* run/stale.c: a recorded result compared with what the kit, QEMU and mkseries would run now. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apply/plan.h"
#include "build/build.h"
#include "kit/arch.h"
#include "record/key.h"
#include "record/record.h"
#include "run/stale.h"
#include "vm/regress.h"
#include "vm/vm.h"

/* The names of a step's key parts as a maintainer knows them. */
static void add_shown(struct strvec *out, const char *name, const struct kernel_branch *kb)
{
	static const char *const boot[] = {
		"qemu", "machine", "cpu", "console", "memory", "cpus", "cmdline", "timeouts",
		"boot-accel", "tcg-clock", "tcg-model", "boot-boots",
	};
	char *shown = NULL;
	size_t i;

	if (!*name || !strcmp(name, "step"))
		return;
	if (!strcmp(name, "item") || !strcmp(name, "variant"))
		shown = xstrfmt("series.yaml's entries for %s", kb->name);
	else if (!strcmp(name, "mkseries"))
		shown = xstrdup("the mkseries binary");
	else if (!strcmp(name, "base"))
		shown = xstrdup("the imported tree");
	else if (!strcmp(name, "qemu-version"))
		shown = xstrdup("QEMU's version");
	else if (!strcmp(name, "bzimage"))
		shown = xstrdup("the kernel image (built again since it was booted)");
	else if (!strcmp(name, "qemu-binary"))
		shown = xstrfmt("the QEMU executable (%s)", kb->boot.qemu);
	else if (!strcmp(name, "without") || !strcmp(name, "with") || !strcmp(name, "expect-fail"))
		shown = xstrfmt("%s (the variant's %s)", kb->path, name);
	for (i = 0; !shown && i < ARRAY_SIZE(boot); i++)
		if (!strcmp(name, boot[i]))
			shown = xstrfmt("%s (boot: %s)", kb->path, name);
	if (!shown)
		shown = xstrdup(name);
	for (i = 0; i < out->nr && strcmp(out->v[i], shown); i++)
		;
	if (i == out->nr)
		strvec_push(out, shown);
	free(shown);
}

/* "A, B changed since the run of 2026-12-06 05:00" into sb, when names has any. */
static void say_changed(struct strbuf *sb, const struct strvec *names, const struct step_record *r,
			const struct kernel_branch *kb)
{
	struct strvec shown = STRVEC_INIT;
	time_t at = (time_t)record_ll(r, RF_AT);
	char when[32] = "";
	struct tm tm;
	size_t i;

	for (i = 0; i < names->nr; i++)
		add_shown(&shown, names->v[i], kb);
	if (!shown.nr)
		return;
	if (at && gmtime_r(&at, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	for (i = 0; i < shown.nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : sb->len ? "; " : "", shown.v[i]);
	strbuf_addf(sb, " changed since the run of %s", *when ? when : "an unknown date");
	strvec_clear(&shown);
}

/* What changed of the apply step, for every cell but base. */
static void apply_changes(struct strbuf *out, const struct kit *kit, const struct kernel_branch *kb,
			  const char *workdir)
{
	struct step_record ar = STEP_RECORD_INIT, ir = STEP_RECORD_INIT;
	struct step_key key = STEP_KEY_INIT;
	struct strvec names = STRVEC_INIT, found = STRVEC_INIT;
	struct plan *plans = xcalloc(kb->nr_variants + 1, sizeof(*plans));
	const struct plan **ptrs = xcalloc(kb->nr_variants + 1, sizeof(*ptrs));
	size_t i, nr = 0;
	git_oid base;

	if (record_read(&ar, workdir, STEP_APPLY, NULL) || record_read(&ir, workdir, STEP_IMPORT, NULL) ||
	    !record_get(&ar, RF_KEY) || !record_get(&ir, RF_BASE) ||
	    git_oid_fromstr(&base, record_get(&ir, RF_BASE)))
		goto cleanup;
	if (plan_build(&plans[nr++], kit, kb)) {
		strvec_push(&names, "item");
		goto say;
	}
	for (i = 0; i < kb->nr_variants; i++)
		if (plan_build_variant(&plans[nr++], kit, kb, &kb->variants[i])) {
			strvec_push(&names, "variant");
			goto say;
		}
	for (i = 0; i < nr; i++)
		ptrs[i] = &plans[i];
	apply_key(&key, ptrs, nr, &base, NULL);
	record_changed(&found, &ar, &key, 0);
	/*
	 * Who signs off is no input of the tree: the same files applied by
	 * another backporter are what the run built and booted.
	 */
	for (i = 0; i < found.nr; i++)
		if (strcmp(found.v[i], "backporter"))
			strvec_push(&names, found.v[i]);
say:
	say_changed(out, &names, &ar, kb);
cleanup:
	for (i = 0; i < nr; i++)
		plan_release(&plans[i]);
	free(plans);
	free(ptrs);
	step_key_release(&key);
	strvec_clear(&names);
	strvec_clear(&found);
	record_release(&ar);
	record_release(&ir);
}

/*
 * Which of the build's inputs changed, by the parts its record kept: the
 * config base, a config fragment, the build tools. A record from before
 * they were kept names them together.
 */
static void build_changes(struct strvec *names, const struct step_record *br,
			  const struct kernel_branch *kb, const char *input_parts)
{
	struct strvec parts = STRVEC_INIT;
	const char *old = record_get(br, RF_INPUT_PARTS);
	size_t i;

	if (old && input_parts)
		record_parts_changed(&parts, old, input_parts);
	for (i = 0; i < parts.nr; i++) {
		char *shown = build_input_part_shown(parts.v[i], kb);

		strvec_push(names, shown);
		free(shown);
	}
	if (!parts.nr)
		strvec_pushf(names, "%s's config or the build tools (compiler, make, ccache)",
			     kb->path);
	strvec_clear(&parts);
}

/* What the kit, QEMU and mkseries would give now, for a branch's cells. */
struct stale_now {
	char *inputs, *input_parts, *qemu_version, *qemu_binary, *regress;
};

static void stale_now_init(struct stale_now *n, const struct kit *kit, const struct kernel_branch *kb)
{
	n->input_parts = NULL;
	n->inputs = build_inputs_hash(kit, kb, &n->input_parts);
	n->qemu_version = vm_qemu_version(kb->boot.qemu);
	n->qemu_binary = vm_qemu_binary_hash(kb->boot.qemu);
	n->regress = mm_regress_hash(branch_arch(kb)->machine);
}

static void stale_now_release(struct stale_now *n)
{
	free(n->inputs);
	free(n->input_parts);
	free(n->qemu_version);
	free(n->qemu_binary);
	free(n->regress);
}

/* What changed of a build recorded as br, added to out. */
static void build_part(struct strbuf *out, const struct step_record *br,
		       const struct kernel_branch *kb, const struct stale_now *n)
{
	struct strvec names = STRVEC_INIT;
	const char *recorded = record_get(br, RF_INPUTS);

	if (recorded && n->inputs && strcmp(recorded, n->inputs)) {
		build_changes(&names, br, kb, n->input_parts);
		say_changed(out, &names, br, kb);
	}
	strvec_clear(&names);
}

/* What changed of the test recorded as tr (of the build br) of cell `variant`, added to out. */
static void test_part(struct strbuf *out, const struct step_record *br, const struct step_record *tr,
		      const struct kernel_branch *kb, const char *variant, int reused,
		      const struct stale_now *n)
{
	struct step_key key = STEP_KEY_INIT;
	struct strvec names = STRVEC_INIT;
	const char *recorded;

	if (!record_get(tr, RF_KEY))
		return;
	/* The image booted: a build since (forced, or by hand) made another. */
	if ((recorded = record_get(br, RF_BZIMAGE)))
		step_key_add_file(&key, "bzimage", recorded);
	step_key_add(&key, "qemu-version", "%s", n->qemu_version ? n->qemu_version : "unknown");
	step_key_add(&key, "qemu-binary", "%s", n->qemu_binary);
	step_key_add(&key, "mm-regress", "%s", n->regress ? n->regress : "missing");
	/* A cell that took base's results ran under base's settings. */
	test_key_settings(&key, &kb->boot, reused ? NULL : branch_find_variant(kb, variant));
	record_changed(&names, tr, &key, 1);
	say_changed(out, &names, tr, kb);
	step_key_release(&key);
	strvec_clear(&names);
}

void results_mark_stale(struct branch_result *b, const struct kit *kit,
			const struct kernel_branch *kb, const char *workdir)
{
	struct strbuf applied = STRBUF_INIT, sb = STRBUF_INIT;
	struct stale_now n;
	size_t i;

	stale_now_init(&n, kit, kb);
	apply_changes(&applied, kit, kb, workdir);
	for (i = 0; i < b->nr_cells; i++) {
		struct cell_result *c = &b->cells[i];
		struct step_record br = STEP_RECORD_INIT, tr = STEP_RECORD_INIT;

		strbuf_reset(&sb);
		if (strcmp(c->variant, "base"))
			strbuf_add(&sb, applied.buf, applied.len);
		if (!record_read(&br, workdir, STEP_BUILD, c->variant))
			build_part(&sb, &br, kb, &n);
		if (!record_read(&tr, workdir, STEP_TEST, c->variant))
			test_part(&sb, &br, &tr, kb, c->variant, c->reused != NULL, &n);
		free(c->stale);
		c->stale = sb.len ? xstrdup(sb.buf) : NULL;
		record_release(&br);
		record_release(&tr);
	}
	stale_now_release(&n);
	strbuf_release(&applied);
	strbuf_release(&sb);
}

unsigned branch_stale_steps(unsigned *cells, const struct kit *kit, const struct kernel_branch *kb,
			    const char *workdir, const struct strvec *variants)
{
	struct strbuf applied = STRBUF_INIT, sb = STRBUF_INIT;
	struct stale_now n;
	size_t i;

	stale_now_init(&n, kit, kb);
	apply_changes(&applied, kit, kb, workdir);
	for (i = 0; i < variants->nr; i++) {
		struct step_record br = STEP_RECORD_INIT, tr = STEP_RECORD_INIT;
		const char *v = variants->v[i];

		cells[i] = 0;
		strbuf_reset(&sb);
		if (!record_read(&br, workdir, STEP_BUILD, v))
			build_part(&sb, &br, kb, &n);
		if (sb.len)
			cells[i] |= 1u << STEP_BUILD;
		strbuf_reset(&sb);
		if (!record_read(&tr, workdir, STEP_TEST, v))
			test_part(&sb, &br, &tr, kb, v, record_get(&tr, RF_REUSED) != NULL, &n);
		if (sb.len)
			cells[i] |= 1u << STEP_TEST;
		record_release(&br);
		record_release(&tr);
	}
	stale_now_release(&n);
	strbuf_release(&sb);
	i = applied.len != 0;
	strbuf_release(&applied);
	return i ? 1u << STEP_APPLY : 0;
}

const struct cell_result *branch_first_stale(const struct branch_result *b, const char *variant)
{
	const struct cell_result *c = branch_find_cell(b, variant ? variant : "kit");
	size_t i;

	if (c && c->stale)
		return c;
	for (i = 0; i < b->nr_cells; i++)
		if (b->cells[i].stale)
			return &b->cells[i];
	return NULL;
}

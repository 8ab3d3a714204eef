/* builtin/plan.c: `mkseries plan`: what apply will do on each branch, and why. */
#include <string.h>

#include "builtin/builtin.h"
#include "lib/options.h"
#include "apply/plan.h"
#include "report/report.h"
#include "kit/arch.h"
#include "kit/select.h"
#include "lib/util.h"

static const char *color(enum plan_action a)
{
	if (!mks_use_color())
		return "";
	switch (a) {
	case PLAN_APPLY:
	case PLAN_SQUASH:
		return "\033[32m";
	case PLAN_PRESENT:
		return "\033[36m";
	case PLAN_SKIP:
		return "\033[33m";
	case PLAN_PARTIAL:
		return "\033[31m";
	}
	return "";
}

static const char *reset(void)
{
	return mks_use_color() ? "\033[m" : "";
}

static void describe_source(const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;

	switch (s->kind) {
	case SOURCE_DEBIAN:
		printf("debian %s (%s)", shown(s->package), shown(s->suite));
		break;
	case SOURCE_GIT:
		printf("git %s %s", shown(s->repo), shown(s->ref));
		break;
	case SOURCE_TARBALL:
		printf("tarball %s", shown(s->tarball));
		break;
	}
}

static void print_plan(const struct plan *plan)
{
	const struct kit_series *cur = NULL;
	const char *last_reason = NULL;
	size_t i;

	printf("%s: ", plan->branch->name);
	describe_source(plan->branch);
	/* x86_64 with its own decisions says nothing, as before architectures. */
	if (plan->branch->arch && strcmp(plan->branch->arch, ARCH_DEFAULT))
		printf(", %s", plan->branch->arch);
	if (plan->branch->decisions)
		printf(", %s's decisions", plan->branch->decisions);
	if (plan->branch->kind)
		printf(", %s", branch_kind_name(plan->branch->kind));
	printf("  [%s]\n", shown(plan->branch->path));
	for (i = 0; i < plan->nr; i++) {
		const struct plan_item *it = &plan->items[i];
		const struct kit_patch *p = it->patch;

		if (p->series != cur) {
			cur = p->series;
			last_reason = NULL;
			printf("  %s: %s\n", cur->id, shown(cur->title));
		}
		printf("    %s%-8s%s %-28s %-12s %s\n", color(it->action),
		       plan_action_name(it->action), reset(), kit_patch_label(p),
		       p->upstream ? p->upstream : "-", it->subject ? shown(it->subject) : "");
		/* A series-wide reason is said once, under the first of its patches. */
		if (last_reason && !strcmp(last_reason, it->reason) && !it->source)
			continue;
		last_reason = it->reason;
		printf("             %s", shown(it->reason));
		if (it->action == PLAN_SQUASH)
			printf(" (into %s)", kit_patch_label(plan->items[it->squash_into].patch));
		if (it->source && (it->action == PLAN_APPLY || it->action == PLAN_SQUASH))
			printf("\n             from %s", shown(it->source));
		if (it->policy >= 0)
			printf("\n             %s: %s", it->policy ? "policy" : "policy refuses",
			       it->policy_rule);
		if (it->policy > 0 && it->patch->stable && strstr(it->policy_rule, "its stable: key"))
			printf(": \"%s\"", shown(it->patch->stable));
		if (it->policy_note)
			printf("\n             policy note: %s", it->policy_note);
		putchar('\n');
	}
	printf("%s: %zu to apply, %zu squashed, %zu present, %zu skipped", plan->branch->name,
	       plan_count(plan, PLAN_APPLY), plan_count(plan, PLAN_SQUASH),
	       plan_count(plan, PLAN_PRESENT), plan_count(plan, PLAN_SKIP));
	/* said only when there is one, so that plans without stay as they were */
	if (plan_count(plan, PLAN_PARTIAL))
		printf(", %zu partial: apply refuses until series.yaml decides",
		       plan_count(plan, PLAN_PARTIAL));
	putchar('\n');
	if (plan_count_refused(plan))
		printf("%s: %zu the %s policy refuses (see 'policy refuses' above)\n", plan->branch->name,
		       plan_count_refused(plan), branch_kind_name(plan->branch->kind));
	for (i = 0; i < plan->nr; i++)
		if (plan->items[i].policy_note)
			warning("%s: %s: %s", plan->branch->name,
				kit_patch_label(plan->items[i].patch), plan->items[i].policy_note);
}

/* One line per entry whose action in variant plan `vp` differs from the kit's. */
static void print_variant(const struct plan *kit_plan, const struct plan *vp)
{
	const struct kernel_variant *v = vp->variant;
	size_t i, n = 0;

	for (i = 0; i < vp->nr; i++) {
		const struct plan_item *it = &vp->items[i];
		const struct plan_item *k = plan_find(kit_plan, it->patch);
		const struct kit_patch *p = it->patch;

		if (k && k->action == it->action)
			continue;
		n++;
		printf("variant %s: %s %s", v->name, it->left_out ? "without" : plan_action_name(it->action),
		       kit_patch_label(p));
		if (p->upstream)
			printf(" (%s)", p->upstream);
		if (!it->left_out)
			printf(": %s", shown(it->reason));
		putchar('\n');
	}
	if (!n)
		printf("variant %s: the same as the kit\n", v->name);
	for (i = 0; i < v->nr_expect_fail; i++)
		printf("variant %s: expects %s to fail\n", v->name, shown(v->expect_fail[i]));
}

/* Each --branch in the order given (once each), else as select_branches() chooses. */
static int select_plan_branches(struct kernel_branch ***sel, size_t *nr, const struct kit *kit,
				const struct strvec *names, int all)
{
	size_t i, j;

	if (names->nr <= 1)
		return select_branches(sel, nr, kit, names->nr ? names->v[0] : NULL, all, 1);
	if (all)
		return print_error_code(MKS_ECONFIG, "--branch and --all cannot be used together");
	*sel = xcalloc(names->nr, sizeof(**sel));
	*nr = 0;
	for (i = 0; i < names->nr; i++) {
		struct kernel_branch *b = kit_find_branch(kit, names->v[i]);

		if (!b) {
			free(*sel);
			*sel = NULL;
			*nr = 0;
			return kit_unknown_branch(kit, names->v[i]);
		}
		for (j = 0; j < *nr && (*sel)[j] != b; j++)
			;
		if (j == *nr)
			(*sel)[(*nr)++] = b;
	}
	return 0;
}

int cmd_plan(int argc, const char **argv)
{
	const char *format = "text";
	struct strvec branches = STRVEC_INIT;
	int all = 0, ret = 0;
	const struct option opts[] = {
		OPT_LIST("branch", 'b', &branches, "B", "plan this branch (repeatable)"),
		OPT_BOOL("all", 0, &all, "plan every default branch (the default)"),
		OPT_STRING("format", 0, &format, "text|json",
		  "json: the plans and the independent cells a CI system can fan out"),
		OPT_END(),
	};
	const char *usage = "mkseries plan [--branch B... | --all] [--format text|json]";
	struct kernel_branch **sel = NULL;
	struct plan *plans = NULL;
	const struct plan **ptrs = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0, nr_plans = 0, i;
	int json;

	parse_options_only(argc, argv, opts, usage);
	json = !strcmp(format, "json");
	if (!json && strcmp(format, "text")) {
		print_error("unknown format '%s' (text or json)", format);
		usage_with_options(usage, opts, 2);
	}
	if (kit_open(&kit)) {
		strvec_clear(&branches);
		return 2;
	}
	if (select_plan_branches(&sel, &nr, &kit, &branches, all)) {
		kit_release(&kit);
		strvec_clear(&branches);
		return 2;
	}
	/* Each branch's plan, followed by the plans of its variants. */
	if (plan_build_selection(&plans, &nr_plans, &kit, sel, nr))
		ret = 2;
	ptrs = xcalloc(nr_plans ? nr_plans : 1, sizeof(*ptrs));
	for (i = 0; i < nr_plans; i++)
		ptrs[i] = &plans[i];
	if (!ret && json) {
		plan_print_json(ptrs, nr_plans, stdout);
	} else if (!ret) {
		const struct plan *kit_plan = NULL;

		for (i = 0; i < nr_plans; i++) {
			if (plans[i].variant) {
				print_variant(kit_plan, &plans[i]);
				continue;
			}
			if (i)
				putchar('\n');
			kit_plan = &plans[i];
			print_plan(kit_plan);
		}
	}
	for (i = 0; i < nr_plans; i++)
		plan_release(&plans[i]);
	free(plans);
	free(ptrs);
	free(sel);
	kit_release(&kit);
	strvec_clear(&branches);
	return ret;
}

/* results/series.c: the series of a branch, from its plan and the apply outcome. */
#include <stdlib.h>
#include <string.h>

#include "apply/plan.h"
#include "results/results.h"

struct series_count {
	size_t apply, squash, present, skip;	/* from the plan */
	size_t commits, squashed, found;	/* from the apply */
};

static void describe_counts(struct strbuf *sb, const struct series_count *n)
{
	const char *sep = "";

	if (n->commits) {
		strbuf_addf(sb, "%zu commit%s", n->commits, n->commits > 1 ? "s" : "");
		sep = ", ";
	}
	if (n->squashed) {
		strbuf_addf(sb, "%s%zu squashed", sep, n->squashed);
		sep = ", ";
	}
	if (n->found) {
		strbuf_addf(sb, "%s%zu already in the tree", sep, n->found);
		sep = ", ";
	}
	if (n->present) {
		strbuf_addf(sb, "%s%zu present", sep, n->present);
		sep = ", ";
	}
	if (n->skip)
		strbuf_addf(sb, "%s%zu skipped", sep, n->skip);
}

void branch_series_from_plan(struct branch_result *b, const struct plan *plan,
			     const enum applied_state *applied, size_t failed)
{
	size_t i, j;

	for (i = 0; i < plan->nr; i++) {
		const struct kit_series *ks = plan->items[i].patch->series;
		const struct decision *d = series_decision(ks, branch_decisions(plan->branch));
		struct series_count n;
		struct series_result *s;
		struct strbuf sb = STRBUF_INIT;
		int seen = 0, conflict = 0;

		for (j = 0; j < i && !seen; j++)
			seen = plan->items[j].patch->series == ks;
		if (seen)
			continue;
		memset(&n, 0, sizeof(n));
		for (j = i; j < plan->nr; j++) {
			const struct plan_item *it = &plan->items[j];

			if (it->patch->series != ks)
				continue;
			if (j == failed)
				conflict = 1;
			switch (it->action) {
			case PLAN_APPLY:
			case PLAN_PARTIAL:	/* apply refuses it: counted where a conflict is */
				n.apply++;
				break;
			case PLAN_SQUASH:
				n.squash++;
				break;
			case PLAN_PRESENT:
				n.present++;
				break;
			case PLAN_SKIP:
				n.skip++;
				break;
			}
			if (applied && failed == (size_t)-1) {
				if (applied[j] == APPLIED_COMMIT)
					n.commits++;
				else if (applied[j] == APPLIED_SQUASHED)
					n.squashed++;
				else if (applied[j] == APPLIED_FOUND)
					n.found++;
			}
		}
		s = branch_add_series(b, ks->id, ks->title);
		if (conflict) {
			s->state = SERIES_CONFLICT;
			strbuf_addf(&sb, "%s does not apply", kit_patch_label(plan->items[failed].patch));
		} else if (!n.apply && !n.squash && n.present && n.skip) {
			s->state = SERIES_PARTIAL;
			strbuf_addf(&sb, "%zu present, %zu skipped", n.present, n.skip);
			if (d && d->reason && (d->kind == DECISION_SKIP || d->kind == DECISION_PRESENT))
				strbuf_addf(&sb, ": %s", d->reason);
		} else if (!n.apply && !n.squash) {
			s->state = n.present ? SERIES_PRESENT : SERIES_SKIPPED;
			if (d && d->reason && (d->kind == DECISION_SKIP || d->kind == DECISION_PRESENT))
				strbuf_addstr(&sb, d->reason);
			else
				describe_counts(&sb, &n);
		} else if (failed != (size_t)-1) {
			s->state = SERIES_BLOCKED;
			strbuf_addf(&sb, "not applied: %s does not apply",
				    kit_patch_label(plan->items[failed].patch));
		} else if (!applied) {
			s->state = SERIES_PLANNED;
			strbuf_addf(&sb, "%zu to apply", n.apply);
			if (n.squash)
				strbuf_addf(&sb, ", %zu to squash", n.squash);
		} else {
			s->state = n.commits || n.squashed ? SERIES_APPLIED : SERIES_PRESENT;
			describe_counts(&sb, &n);
		}
		s->detail = sb.len ? strbuf_detach(&sb, NULL) : NULL;
		strbuf_release(&sb);
	}
}

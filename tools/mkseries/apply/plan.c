/* apply/plan.c: turn the kit's decisions into the ordered list of what apply does on one branch. */
#define _GNU_SOURCE
#include <dirent.h>
#include <unistd.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/gitutil.h"
#include "patches/mail.h"
#include "apply/plan.h"
#include "patches/stable.h"
#include "diff/present.h"
#include "tree/tree.h"
#include "lib/util.h"

static void plan_index_free(struct plan_index *ix);

const char *plan_action_name(enum plan_action a)
{
	switch (a) {
	case PLAN_APPLY:
		return "apply";
	case PLAN_SQUASH:
		return "squash";
	case PLAN_PRESENT:
		return "present";
	case PLAN_SKIP:
		return "skip";
	case PLAN_PARTIAL:
		return "partial";
	}
	return "?";
}

size_t plan_count(const struct plan *plan, enum plan_action a)
{
	size_t i, n = 0;

	for (i = 0; i < plan->nr; i++)
		n += plan->items[i].action == a;
	return n;
}

void plan_release(struct plan *plan)
{
	size_t i;

	for (i = 0; i < plan->nr; i++) {
		free(plan->items[i].reason);
		free(plan->items[i].source);
		free(plan->items[i].subject);
		free(plan->items[i].stable_commit);
		free(plan->items[i].policy_note);
		if (plan->items[i].presence) {
			presence_release(plan->items[i].presence);
			free(plan->items[i].presence);
		}
	}
	free(plan->items);
	plan_index_free(plan->index);
	memset(plan, 0, sizeof(*plan));
}

int plan_build_selection(struct plan **plans, size_t *nr, const struct kit *kit,
			 struct kernel_branch *const *sel, size_t nr_sel)
{
	size_t i, j, n = 0;
	int ret = 0;

	for (i = 0; i < nr_sel; i++)
		n += 1 + sel[i]->nr_variants;
	*plans = xcalloc(n ? n : 1, sizeof(**plans));
	for (i = 0, n = 0; i < nr_sel; i++) {
		int failed = plan_build(&(*plans)[n++], kit, sel[i]) != 0;

		if (failed)
			ret = MKS_ECONFIG;
		for (j = 0; j < sel[i]->nr_variants; j++, n++)
			if (!failed && plan_build_variant(&(*plans)[n], kit, sel[i], &sel[i]->variants[j]))
				ret = MKS_ECONFIG;
	}
	*nr = n;
	return ret;
}

/* One file of a branch backport directory, and the kit entry it stands for. */
struct backport {
	char *path;			/* relative to the kit */
	const struct kit_patch *patch;
};

struct backports {
	struct backport *v;
	size_t nr, alloc;
};

static void backports_release(struct backports *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++)
		free(b->v[i].path);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static int ids_match(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return 0;
	la = strlen(a);
	lb = strlen(b);
	if (la < 8 || lb < 8)
		return 0;
	return !strncasecmp(a, b, la < lb ? la : lb);
}

static int is_patch_name(const char *name)
{
	return name[0] != '.' && (ends_with(name, ".patch") || ends_with(name, ".diff") ||
				  ends_with(name, ".mbox") || ends_with(name, ".eml"));
}

/* Which entry of series `s` does this mail stand for: upstream id first, then subject. */
static const struct kit_patch *match_entry(const struct kit_series *s, const struct mail_patch *m)
{
	const struct kit_patch *lists[2] = { s->patches, s->fixups };
	size_t nrs[2] = { s->nr_patches, s->nr_fixups };
	int pass, l;
	size_t i;

	for (pass = 0; pass < 2; pass++)
		for (l = 0; l < 2; l++)
			for (i = 0; i < nrs[l]; i++) {
				const struct kit_patch *p = &lists[l][i];

				if (!pass && m->upstream && ids_match(p->upstream, m->upstream))
					return p;
				if (pass && p->subject && m->subject && !strcmp(p->subject, m->subject))
					return p;
			}
	return NULL;
}

/*
 * Read a branch backport directory: every *.patch, *.diff, *.mbox or
 * *.eml in it, in file-name order, each matched to one entry of `s`.
 */
static int read_backports(struct backports *out, const struct kit *kit, const struct kit_series *s,
			  const struct decision *d)
{
	char *dir = path_join(kit->dir, d->path);
	char **names = NULL;
	size_t nr = 0, alloc = 0, i, j;
	struct dirent *de;
	DIR *dh;
	int ret = 0;

	dh = opendir(dir);
	if (!dh) {
		ret = error("series.yaml:%d: cannot read backport directory '%s': %s", d->line,
			    d->path, strerror(errno));
		goto cleanup;
	}
	while ((de = readdir(dh)))
		if (is_patch_name(de->d_name)) {
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = xstrdup(de->d_name);
		}
	closedir(dh);
	qsort(names, nr, sizeof(*names), strp_cmp);
	for (i = 0; i < nr; i++) {
		char *rel = path_join(d->path, names[i]);
		char *abs = path_join(kit->dir, rel);
		struct mail_patch *mails = NULL;
		size_t nr_mails = 0;
		const struct kit_patch *p = NULL;

		if (mail_parse_file(&mails, &nr_mails, abs) < 0) {
			ret = -1;
		} else if (nr_mails != 1) {
			ret = error("%s: holds %zu patches; a branch backport directory takes one "
				    "patch per file", rel, nr_mails);
		} else if (!(p = match_entry(s, &mails[0]))) {
			ret = error("%s: matches no patch of series '%s' (say 'commit <id> upstream.' "
				    "in its message, or use the kit's subject)", rel, s->id);
		} else {
			for (j = 0; j < out->nr; j++)
				if (out->v[j].patch == p)
					break;
			if (j < out->nr) {
				ret = error("%s: stands for %s, like %s", rel, kit_patch_label(p),
					    out->v[j].path);
				p = NULL;
			}
		}
		if (p) {
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			out->v[out->nr].path = rel;
			out->v[out->nr++].patch = p;
			rel = NULL;
		}
		mail_patches_free(mails, nr_mails);
		free(rel);
		free(abs);
	}
cleanup:
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(dir);
	return ret;
}

static const char *backport_for(const struct backports *b, const struct kit_patch *p)
{
	size_t i;

	for (i = 0; i < b->nr; i++)
		if (b->v[i].patch == p)
			return b->v[i].path;
	return NULL;
}

static void heap_push(size_t *h, size_t *n, size_t x)
{
	size_t i = (*n)++;

	for (; i && h[(i - 1) / 2] > x; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = x;
}

static size_t heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], x = h[--*n], i = 0, c;

	while ((c = 2 * i + 1) < *n) {
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (x <= h[c])
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

/*
 * Series in `requires` order; among independent ones, the file's order:
 * each step takes the earliest series whose requirements are all placed
 * (Kahn's algorithm with the ready series in a min-heap by file index,
 * so a kit of 100,000 series does not rescan the list at every step).
 */
static int order_series(const struct kit_series ***out, const struct kit *kit)
{
	size_t nr = kit->nr_series, i, r, n = 0, nr_ready = 0, nr_edges = 0;
	const struct kit_series **v = xcalloc(nr ? nr : 1, sizeof(*v));
	size_t *waiting = xcalloc(nr + 1, sizeof(*waiting));	/* requirements not placed yet */
	size_t *first = xcalloc(nr + 2, sizeof(*first));	/* dependents of q: dep[first[q]..first[q + 1]) */
	size_t *dep, *ready = xcalloc(nr + 1, sizeof(*ready));

	for (i = 0; i < nr; i++)
		for (r = 0; r < kit->series[i].nr_requires; r++) {
			const struct kit_series *q = kit_find_series(kit, kit->series[i].requires[r]);

			if (q) {
				first[q - kit->series + 2]++;
				nr_edges++;
			}
		}
	for (i = 2; i < nr + 2; i++)
		first[i] += first[i - 1];
	dep = xcalloc(nr_edges + 1, sizeof(*dep));
	for (i = 0; i < nr; i++)
		for (r = 0; r < kit->series[i].nr_requires; r++) {
			const struct kit_series *q = kit_find_series(kit, kit->series[i].requires[r]);

			if (q) {
				dep[first[q - kit->series + 1]++] = i;
				waiting[i]++;
			}
		}
	for (i = 0; i < nr; i++)
		if (!waiting[i])
			heap_push(ready, &nr_ready, i);
	while (nr_ready) {
		size_t s = heap_pop(ready, &nr_ready), k;

		v[n++] = &kit->series[s];
		for (k = first[s]; k < first[s + 1]; k++)
			if (!--waiting[dep[k]])
				heap_push(ready, &nr_ready, dep[k]);
	}
	free(waiting);
	free(first);
	free(dep);
	free(ready);
	if (n < nr) {
		free(v);
		return error("series.yaml: the series' requires form a cycle");
	}
	*out = v;
	return 0;
}

/*
 * Open addressing from kit entry to item index: planning looks up the
 * target of every fixup, and a scan of the plan for each made a large
 * kit quadratic. Sized once for every entry of the kit, never grown.
 */
struct plan_index {
	const struct kit_patch **keys;
	size_t *pos;
	size_t mask;
	/*
	 * While plan_build() works: items are appended to plan->items and
	 * chained in plan order through next[] (SIZE_MAX ends the chain),
	 * so placing a fixup moves nothing; items are put in order at the end.
	 */
	size_t *next;
	size_t head, tail;
};

#define NO_ITEM ((size_t)-1)

static size_t patch_hash(const struct kit_patch *p)
{
	uint64_t x = (uintptr_t)p;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static struct plan_index *plan_index_new(size_t nr)
{
	struct plan_index *ix = xcalloc(1, sizeof(*ix));
	size_t cap = 16;

	while (cap < 2 * nr + 1)
		cap <<= 1;
	ix->keys = xcalloc(cap, sizeof(*ix->keys));
	ix->pos = xcalloc(cap, sizeof(*ix->pos));
	ix->mask = cap - 1;
	ix->head = ix->tail = NO_ITEM;
	return ix;
}

static void plan_index_free(struct plan_index *ix)
{
	if (!ix)
		return;
	free(ix->keys);
	free(ix->pos);
	free(ix->next);
	free(ix);
}

/* The first item added for p keeps the slot, as the scan it replaces found. */
static void plan_index_add(struct plan_index *ix, const struct kit_patch *p, size_t pos)
{
	size_t h = patch_hash(p) & ix->mask;

	while (ix->keys[h]) {
		if (ix->keys[h] == p)
			return;
		h = (h + 1) & ix->mask;
	}
	ix->keys[h] = p;
	ix->pos[h] = pos;
}

static int find_item(const struct plan *plan, const struct kit_patch *p)
{
	const struct plan_index *ix = plan->index;
	size_t i;

	if (!ix) {
		for (i = 0; i < plan->nr; i++)
			if (plan->items[i].patch == p)
				return (int)i;
		return -1;
	}
	for (i = patch_hash(p) & ix->mask; ix->keys[i]; i = (i + 1) & ix->mask)
		if (ix->keys[i] == p)
			return (int)ix->pos[i];
	return -1;
}

/* Whether fixup `f` fixes `target`, directly or through other fixups. */
static int fixes_chain_has(const struct kit_patch *f, const struct kit_patch *target)
{
	int hops = 0;

	while (f && f->is_fixup && hops++ < 1000) {
		if (f->fixes_patch == target)
			return 1;
		f = f->fixes_patch;
	}
	return 0;
}

/*
 * A new item for p, chained after item `after` (NO_ITEM: at the end of
 * the plan). The array only grows at its end while planning.
 */
static struct plan_item *add_item(struct plan *plan, const struct kit_patch *p, size_t after)
{
	struct plan_index *ix = plan->index;
	size_t n = plan->nr;

	ALLOC_GROW(plan->items, n + 1, plan->alloc);
	ix->next = xrealloc(ix->next, plan->alloc * sizeof(*ix->next));
	plan->nr++;
	memset(&plan->items[n], 0, sizeof(plan->items[n]));
	plan->items[n].patch = p;
	plan_index_add(ix, p, n);
	if (after == NO_ITEM)
		after = ix->tail;
	if (after == NO_ITEM) {
		ix->next[n] = ix->head;
		ix->head = n;
	} else {
		ix->next[n] = ix->next[after];
		ix->next[after] = n;
	}
	if (ix->next[n] == NO_ITEM)
		ix->tail = n;
	return &plan->items[n];
}

/*
 * Put plan->items in the order of the chain, and index the result for
 * plan_find(). The items move; what they own does not.
 */
static void plan_put_in_order(struct plan *plan)
{
	struct plan_index *old = plan->index, *ix = plan_index_new(plan->nr);
	struct plan_item *items = xcalloc(plan->nr ? plan->nr : 1, sizeof(*items));
	size_t i, n = 0;

	for (i = old->head; i != NO_ITEM; i = old->next[i]) {
		items[n] = plan->items[i];
		plan_index_add(ix, items[n].patch, n);
		n++;
	}
	if (n != plan->nr)
		BUG("plan chain holds %zu of %zu items", n, plan->nr);
	free(plan->items);
	plan->items = items;
	plan->alloc = plan->nr;
	plan_index_free(old);
	plan->index = ix;
}

/* The file that carries `p` on this branch, or NULL; sets *backport. */
static const char *pick_source(const struct kit_patch *p, const struct decision *own,
			       const struct backports *bp, int *backport)
{
	const char *path;

	*backport = 1;
	if (own && own->kind == DECISION_FILE)
		return own->path;
	if ((path = backport_for(bp, p)))
		return path;
	*backport = 0;
	return p->file;
}

static int set_apply(struct plan_item *it, const struct kit_patch *p, const struct decision *own,
		     const struct backports *bp, const char *branch, char *reason)
{
	const char *src = pick_source(p, own, bp, &it->branch_backport);

	it->reason = reason;
	/* none: said once for the whole series, by say_no_files() */
	it->source = src ? xstrdup(src) : NULL;
	return 0;
}

/*
 * The entries of series s (items from `first` on) that the plan applies
 * and no file carries on branch `branch`: one error for the series, with
 * the one line of series.yaml that unblocks it. -1 when there are any.
 */
static int say_no_files(const struct plan *plan, size_t first, const struct kit_series *s,
			const char *branch)
{
	struct strbuf which = STRBUF_INIT;
	size_t i, n = 0;

	for (i = first; i < plan->nr; i++) {
		const struct plan_item *it = &plan->items[i];

		if (it->source || (it->action != PLAN_APPLY && it->action != PLAN_SQUASH))
			continue;
		if (n++ < 3) {
			const char *label = kit_patch_label(it->patch);
			size_t len = strlen(s->id);

			/* "1/5", "fixup 2/4": the series is named once */
			if (!strncmp(label, s->id, len) && label[len] == ' ')
				label += len + 1;
			strbuf_addf(&which, "%s%s", n > 1 ? ", " : "", label);
		}
	}
	if (!n)
		return 0;
	if (n > 3)
		strbuf_addf(&which, " and %zu more", n - 3);
	error("series.yaml:%d: series '%s' has no patch file for '%s' (%s): decide for the "
	      "branch in one line under the series' branches: \"%s\": { present: \"why\" } when "
	      "its tree has the series, { skip: \"why\" } to leave it out, or { patches: DIR } "
	      "with a backport of each patch; or fetch the series' own patches: mkseries fetch %s",
	      s->line, s->id, branch, which.buf, branch, s->id);
	strbuf_release(&which);
	return -1;
}

static char *decision_reason(const char *what, const struct decision *d)
{
	return d->reason && *d->reason ? xstrfmt("%s: %s", what, d->reason) : xstrdup(what);
}

static int in_variant_without(const struct plan *plan, const struct kit_patch *p)
{
	size_t i;

	for (i = 0; plan->variant && i < plan->variant->nr_without; i++)
		if (plan->variant->without_patch[i] == p)
			return 1;
	return 0;
}

/*
 * In a variant's plan, an entry its `without` names is skipped; it may
 * be skipped already, as a fixup of another entry left out.
 */
static void leave_out(struct plan *plan, struct plan_item *it)
{
	if (!in_variant_without(plan, it->patch))
		return;
	if (it->action != PLAN_APPLY && it->action != PLAN_SQUASH && it->action != PLAN_SKIP)
		return;
	free(it->reason);
	free(it->source);
	it->source = NULL;
	it->branch_backport = 0;
	it->action = PLAN_SKIP;
	it->left_out = 1;
	it->reason = xstrfmt("left out of variant '%s'", plan->variant->name);
}

static int in_variant_with(const struct plan *plan, const struct kit_patch *p)
{
	size_t i;

	for (i = 0; plan->variant && i < plan->variant->nr_with; i++)
		if (plan->variant->with_patch[i] == p)
			return 1;
	return 0;
}

static int plan_patch_kit(struct plan *plan, const struct kit_patch *p, const struct decision *sd,
			  const struct backports *bp)
{
	const char *bname = branch_decisions(plan->branch);
	const struct decision *own = patch_decision(p, bname);
	const struct decision *d = own ? own : sd;
	struct plan_item *it = add_item(plan, p, NO_ITEM);

	if (own && own->kind == DECISION_SKIP && in_variant_with(plan, p)) {
		/* plan_build_variant() checked that the kit skips it by this decision */
		it->action = PLAN_APPLY;
		return set_apply(it, p, NULL, bp, bname,
				 xstrfmt("added by variant '%s' (the kit skips it: %s)",
					 plan->variant->name, own->reason ? own->reason : "no reason"));
	}
	if (d && d->kind == DECISION_SKIP) {
		it->action = PLAN_SKIP;
		it->reason = decision_reason(own ? "skipped" : "series skipped", d);
		return 0;
	}
	if (d && d->kind == DECISION_PRESENT) {
		it->action = PLAN_PRESENT;
		it->reason = decision_reason(own ? "present" : "series present", d);
		return 0;
	}
	it->action = PLAN_APPLY;
	if (own && own->kind == DECISION_FILE)
		return set_apply(it, p, own, bp, bname, xstrfmt("%s backport", bname));
	if (d && d->kind == DECISION_APPLY && d->reason)
		return set_apply(it, p, own, bp, bname, xstrdup(d->reason));
	if (backport_for(bp, p))
		return set_apply(it, p, own, bp, bname, xstrfmt("%s backport", bname));
	return set_apply(it, p, own, bp, bname, xstrdup("the series' patch"));
}

/*
 * What the branch's tree has of item it's change, checked in memory
 * against plan->base as apply checks it; NULL when the plan has no tree
 * or the item's file cannot be read (apply will say why).
 */
static struct presence *item_presence(struct plan *plan, const struct plan_item *it)
{
	struct mail_patch *mails = NULL;
	struct presence *pr = NULL;
	size_t nr = 0;
	char *path;
	size_t mark;
	int err;

	if (!plan->repo || !it->source)
		return NULL;
	path = path_join(plan->kit->dir, it->source);
	/* a broken file is said once, by the subject's reading or by apply */
	mark = error_mark();
	err = mail_parse_file(&mails, &nr, path);
	error_drop(mark);
	if (!err && nr == 1 && mails[0].diff) {
		pr = xcalloc(1, sizeof(*pr));
		if (presence_check(pr, plan->repo, &plan->base, mails[0].diff, mails[0].diff_len,
				   NULL)) {
			free(pr);
			pr = NULL;
		}
	}
	mail_patches_free(mails, nr);
	free(path);
	return pr;
}

static void set_present(struct plan_item *it, char *reason)
{
	it->action = PLAN_PRESENT;
	free(it->source);
	it->source = NULL;
	it->branch_backport = 0;
	free(it->reason);
	it->reason = reason;
}

/*
 * An item about to be applied is present when the branch's tree has its
 * whole change (and the plan names the stable commit that says it is
 * that upstream commit, when one does). A stable commit that says so
 * while the tree has only part of the change makes it partial, unless
 * the entry's own decision for the branch says to apply it. Without a
 * tree to look at, the stable commit's word decides, as it did before
 * the content was checked.
 */
static void check_present(struct plan *plan, struct plan_item *it)
{
	const struct stable_log *log = plan->stable;
	const char *up = it->patch->upstream;
	const struct stable_backport *bp = NULL;
	const struct decision *own;
	struct strbuf sb = STRBUF_INIT;
	struct presence *pr;
	char hex[GIT_OID_HEXSZ + 1];
	char *stable = NULL;
	size_t nr_files = 0, i;

	if (it->action != PLAN_APPLY && it->action != PLAN_SQUASH)
		return;
	if (log && up)
		bp = stable_log_find(log, up);
	if (bp && !bp->reverted) {
		git_oid_tostr(hex, sizeof(hex), &bp->oid);
		stable = xstrfmt("%.12s (\"%s\")%s%s says it is upstream commit %s", hex,
				 bp->subject, bp->tag ? " in " : "", bp->tag ? bp->tag : "",
				 bp->upstream);
	}
	pr = it->presence = item_presence(plan, it);
	if (pr && pr->state == PRESENCE_IN) {
		for (i = 0; i < pr->nr; i++)
			nr_files += !i || strcmp(pr->v[i].path, pr->v[i - 1].path);
		if (stable)
			strbuf_addf(&sb, "backported to stable%s%s: %.12s (\"%s\") says it is upstream commit %s (%s..%s); its change is in the tree",
				    bp->tag ? " in " : "", bp->tag ? bp->tag : "", hex, bp->subject,
				    bp->upstream, log->since, log->ref);
		else
			strbuf_addf(&sb, "already in the tree: every change of %s is there (%zu part%s, %zu file%s)",
				    it->source, pr->nr, pr->nr == 1 ? "" : "s", nr_files,
				    nr_files == 1 ? "" : "s");
		set_present(it, strbuf_detach(&sb, NULL));
		it->found_in_tree = 1;
		if (stable)
			it->stable_commit = xstrdup(hex);
		goto cleanup;
	}
	if (stable && !pr) {
		/* no tree to look at: the stable commit's word */
		set_present(it, xstrfmt("backported to stable%s%s: %.12s (\"%s\") says it is upstream commit %s (%s..%s)",
					bp->tag ? " in " : "", bp->tag ? bp->tag : "", hex,
					bp->subject, bp->upstream, log->since, log->ref));
		it->stable_commit = xstrdup(hex);
		goto cleanup;
	}
	if (stable) {
		own = patch_decision(it->patch, branch_decisions(plan->branch));
		if (own && (own->kind == DECISION_APPLY || own->kind == DECISION_FILE))
			strbuf_addf(&sb, "%s; ", it->reason);
		strbuf_addf(&sb, "stable commit %s (%s..%s), but the tree has %zu of the %zu hunks of %s; missing: ",
			    stable, log->since, log->ref, pr->nr_in, pr->nr, it->source);
		presence_describe(&sb, pr, 0);
		if (own && (own->kind == DECISION_APPLY || own->kind == DECISION_FILE)) {
			strbuf_addstr(&sb, "; applied as series.yaml decides for this branch");
		} else {
			it->action = PLAN_PARTIAL;
			it->stable_commit = xstrdup(hex);
		}
		free(it->reason);
		it->reason = strbuf_detach(&sb, NULL);
		goto cleanup;
	}
	if (bp)
		strbuf_addf(&sb, "%s; its stable backport %s (\"%s\") is reverted by %.12s in %s..%s",
			    it->reason, oid_short(&bp->oid), bp->subject,
			    git_oid_tostr(hex, sizeof(hex), &bp->reverted_by), log->since, log->ref);
	else if (log && up)
		strbuf_addf(&sb, "%s; no stable backport of %s in %s..%s (%zu commits)", it->reason,
			    up, log->since, log->ref, log->walked);
	if (sb.len) {
		free(it->reason);
		it->reason = strbuf_detach(&sb, NULL);
	}
cleanup:
	strbuf_release(&sb);
	free(stable);
}

static int plan_patch(struct plan *plan, const struct kit_patch *p, const struct decision *sd,
		      const struct backports *bp)
{
	int ret = plan_patch_kit(plan, p, sd, bp);

	check_present(plan, &plan->items[plan->nr - 1]);
	leave_out(plan, &plan->items[plan->nr - 1]);
	return ret;
}

static int plan_fixup(struct plan *plan, const struct kit_patch *f, const struct decision *sd,
		      const struct backports *bp)
{
	const char *bname = branch_decisions(plan->branch);
	const struct decision *own = patch_decision(f, bname);
	const struct kit_patch *t = f->fixes_patch;
	int ti = find_item(plan, t);
	enum plan_action ta;
	struct plan_item *it;
	char *target;
	size_t pos, after;
	int squash = f->squash, ret = 0;

	if (ti < 0)
		BUG("fixup placed before its target");
	ta = plan->items[ti].action;
	target = t->upstream ? xstrfmt("%s (%s)", kit_patch_label(t), t->upstream)
			     : xstrdup(kit_patch_label(t));
	if (own && own->kind == DECISION_SKIP)
		squash = 0;
	else if (!own && sd && (sd->kind == DECISION_SKIP || sd->kind == DECISION_PRESENT))
		squash = 0;
	else if (ta != PLAN_APPLY && ta != PLAN_SQUASH)
		squash = 0;
	/* Right after the target, behind fixups already there (squashed ones first). */
	after = ti;
	pos = plan->index->next[ti];
	/* Or, asked for upstream order, after the whole series (a squash still folds in). */
	if (f->series->fixups_upstream_order && !squash)
		after = pos = NO_ITEM;
	for (; pos != NO_ITEM; pos = plan->index->next[pos]) {
		if (!plan->items[pos].patch->is_fixup ||
		    !fixes_chain_has(plan->items[pos].patch, t) ||
		    (squash && plan->items[pos].action != PLAN_SQUASH))
			break;
		after = pos;
	}
	it = add_item(plan, f, after);
	if (own && own->kind == DECISION_SKIP) {
		it->action = PLAN_SKIP;
		it->reason = decision_reason("skipped", own);
	} else if (own && own->kind == DECISION_PRESENT) {
		it->action = PLAN_PRESENT;
		it->reason = decision_reason("present", own);
	} else if (!own && sd && sd->kind == DECISION_SKIP) {
		it->action = PLAN_SKIP;
		it->reason = decision_reason("series skipped", sd);
	} else if (!own && sd && sd->kind == DECISION_PRESENT) {
		it->action = PLAN_PRESENT;
		it->reason = decision_reason("series present", sd);
	} else if (ta == PLAN_APPLY || ta == PLAN_SQUASH) {
		it->action = squash ? PLAN_SQUASH : PLAN_APPLY;
		ret = set_apply(it, f, own, bp, bname,
				xstrfmt("fixes %s, applied on %s%s", target, bname,
					squash ? "; squashed into its commit" : ""));
	} else if (ta == PLAN_PRESENT && own) {
		/* An explicit decision: the fixed patch is in the tree, its fix is not. */
		it->action = PLAN_APPLY;
		ret = set_apply(it, f, own, bp, bname,
				own->reason ? xstrdup(own->reason)
					    : xstrfmt("fixes %s, present on %s", target, bname));
	} else if (ta == PLAN_PRESENT && plan->items[ti].stable_commit) {
		/*
		 * The kit would apply the fixed patch here and stable has
		 * backported it already: its fix still travels with it.
		 */
		it->action = PLAN_APPLY;
		ret = set_apply(it, f, own, bp, bname,
				xstrfmt("fixes %s, whose stable backport %.12s is on %s", target,
					plan->items[ti].stable_commit, bname));
	} else if (ta == PLAN_PRESENT && plan->items[ti].found_in_tree) {
		/* the same when the tree has it by content alone */
		it->action = PLAN_APPLY;
		ret = set_apply(it, f, own, bp, bname,
				xstrfmt("fixes %s, whose change is already in the tree of %s",
					target, bname));
	} else {
		it->action = PLAN_SKIP;
		if (plan->items[ti].left_out)
			it->reason = xstrfmt("fixes %s, which is left out of variant '%s'", target,
					     plan->variant->name);
		else
			it->reason = xstrfmt("fixes %s, which is %s on %s", target,
					     ta == PLAN_PRESENT ? "present" :
					     ta == PLAN_PARTIAL ? "only partly in the tree" : "not applied",
					     bname);
	}
	check_present(plan, it);
	leave_out(plan, it);
	free(target);
	return ret;
}

/* Fixups may fix fixups listed after them: place each once its target is placed. */
static int plan_fixups(struct plan *plan, const struct kit_series *s, const struct decision *sd,
		       const struct backports *bp)
{
	char *placed = xcalloc(s->nr_fixups ? s->nr_fixups : 1, 1);
	size_t left = s->nr_fixups, i;
	int ret = 0;

	while (left) {
		size_t before = left;

		for (i = 0; i < s->nr_fixups; i++) {
			const struct kit_patch *f = &s->fixups[i];

			if (placed[i] || find_item(plan, f->fixes_patch) < 0)
				continue;
			if (plan_fixup(plan, f, sd, bp))
				ret = -1;
			placed[i] = 1;
			left--;
		}
		if (left == before) {
			ret = error("series.yaml:%d: fixups of '%s' cannot be placed (a target "
				    "comes later, or in a series this one does not require)",
				    s->line, s->id);
			break;
		}
	}
	free(placed);
	return ret;
}

const struct plan_item *plan_find(const struct plan *plan, const struct kit_patch *p)
{
	int i = find_item(plan, p);

	return i < 0 ? NULL : &plan->items[i];
}

/*
 * The policy flags of the trailer block of one message, body[0..len):
 * its last paragraph, as git interpret-trailers reads it, so that a
 * "Fixes:" in the text or in a note of the kit's counts for nothing. The
 * first Stable-dep-of:'s commit goes to *dep_of (when none is there yet).
 */
static unsigned trailer_block_flags(const char *body, size_t len, char **dep_of)
{
	const char *end = body + len, *p, *eol;
	unsigned flags = 0;

	while (end > body && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (p = end; p > body && !(p[-1] == '\n' && p - 1 > body && p[-2] == '\n'); p--)
		;
	for (; p < end; p = eol + 1) {
		size_t n;

		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		n = eol - p;
		if (n > 6 && !strncasecmp(p, "Fixes:", 6)) {
			flags |= POLICY_FIXES_TRAILER;
		} else if (n > 3 && !strncasecmp(p, "Cc:", 3) &&
			   (memmem(p, n, "stable@vger.kernel.org", 22) ||
			    memmem(p, n, "stable@kernel.org", 17))) {
			flags |= POLICY_CC_STABLE;
		} else if (n > 14 && !strncasecmp(p, "Stable-dep-of:", 14)) {
			const char *id = p + 14;

			flags |= POLICY_STABLE_DEP;
			while (id < eol && (*id == ' ' || *id == '\t'))
				id++;
			if (!*dep_of)
				*dep_of = xstrndup(id, strspn(id, "0123456789abcdefABCDEF"));
		}
	}
	return flags;
}

/*
 * What a stable reviewer looks for in a patch file's messages: a Fixes:
 * line, a Cc: to stable, a Stable-dep-of:, in each message's trailer
 * block. Read as text, line by line: mail headers up to the first blank
 * line, the message up to "---" (the mail parser would report a broken
 * file a second time: that is apply's to say).
 */
static unsigned file_policy_flags(const char *path, char **dep_of)
{
	enum { HEADERS, MESSAGE, DIFF } at = MESSAGE;
	struct strbuf sb = STRBUF_INIT;
	const char *p, *end, *eol, *msg;
	unsigned flags = 0;

	if (strbuf_read_file(&sb, path) < 0)
		return 0;
	msg = sb.buf;
	for (p = sb.buf, end = sb.buf + sb.len; p < end; p = eol + 1) {
		size_t n;

		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		n = eol - p;
		if (n >= 5 && !memcmp(p, "From ", 5) && at != MESSAGE) {
			at = HEADERS;
		} else if (at == HEADERS && !n) {
			at = MESSAGE;
			msg = eol + 1;
		} else if (at == MESSAGE && n >= 5 && !memcmp(p, "From ", 5) && p == sb.buf) {
			at = HEADERS;
		} else if (at == MESSAGE && n == 3 && !memcmp(p, "---", 3)) {
			flags |= trailer_block_flags(msg, p - msg, dep_of);
			at = DIFF;
		}
	}
	strbuf_release(&sb);
	return flags;
}

/*
 * The subject shown for `it` (the kit's, else its patch file's), and into
 * *flags what the file tells the policy; *bad set when its patch file is
 * there, is needed for the subject and does not parse (printed).
 */
static char *item_facts(const struct kit *kit, const struct plan_item *it, unsigned *flags,
			char **dep_of, int *bad)
{
	const char *rel = it->source ? it->source : it->patch->file;
	struct mail_patch *mails = NULL;
	size_t nr = 0;
	char *path, *ret = NULL;

	*flags = 0;
	if (!rel)
		return it->patch->subject ? xstrdup(it->patch->subject) : NULL;
	path = path_join(kit->dir, rel);
	if (!access(path, R_OK))
		*flags = file_policy_flags(path, dep_of);
	if (it->patch->subject) {
		ret = xstrdup(it->patch->subject);
	} else if (!access(path, R_OK)) {
		if (mail_parse_file(&mails, &nr, path) < 0)
			*bad = 1;
		else if (nr && mails[0].subject)
			ret = xstrdup(mails[0].subject);
	}
	mail_patches_free(mails, nr);
	free(path);
	return ret;
}

/* Whether the plan applies a fix whose upstream id is `id`: a fixup, or a patch with Fixes:/Cc: stable. */
static int plan_applies_fix(const struct plan *plan, const unsigned *flags, const char *id)
{
	size_t j;

	for (j = 0; j < plan->nr; j++) {
		const struct plan_item *it = &plan->items[j];

		if ((it->action == PLAN_APPLY || it->action == PLAN_SQUASH) &&
		    ids_match(it->patch->upstream, id) &&
		    (it->patch->is_fixup || (flags[j] & (POLICY_FIXES_TRAILER | POLICY_CC_STABLE))))
			return 1;
	}
	return 0;
}

/*
 * Each item's subject and policy (kit_policy_takes()). A Stable-dep-of:
 * counts only when it names a fix the plan applies; an entry a stable
 * branch takes on the kit's own `stable:` reason alone gets a note that
 * review decides. -1 when a patch file needed for a subject does not parse.
 */
static int plan_policy(struct plan *plan, const struct kit *kit, const struct kernel_branch *b)
{
	unsigned *flags = xcalloc(plan->nr + 1, sizeof(*flags));
	char **deps = xcalloc(plan->nr + 1, sizeof(*deps));
	size_t i;
	int ret = 0, bad;

	for (i = 0; i < plan->nr; i++) {
		bad = 0;
		plan->items[i].subject = item_facts(kit, &plan->items[i], &flags[i], &deps[i], &bad);
		if (bad)
			ret = -1;
	}
	for (i = 0; i < plan->nr; i++) {
		struct plan_item *it = &plan->items[i];
		const unsigned fix = POLICY_FIXES_TRAILER | POLICY_CC_STABLE | POLICY_STABLE_DEP;

		it->policy = -1;
		if (it->action != PLAN_APPLY && it->action != PLAN_SQUASH)
			continue;
		if (b->kind == BRANCH_STABLE && (flags[i] & POLICY_STABLE_DEP) &&
		    !plan_applies_fix(plan, flags, deps[i])) {
			flags[i] &= ~POLICY_STABLE_DEP;
			it->policy_note = xstrfmt("its Stable-dep-of: %s names no fix this plan "
						  "applies: it is no prerequisite here", deps[i]);
		}
		it->policy = kit_policy_takes(kit, b, it->patch, flags[i], &it->policy_rule);
		if (it->policy > 0 && b->kind == BRANCH_STABLE && it->patch->stable &&
		    !it->patch->is_fixup && !(flags[i] & fix))
			it->policy_note = xstrdup("taken on the kit's own stated reason (stable:), "
						  "with no upstream trailer behind it: stable review "
						  "decides");
	}
	for (i = 0; i < plan->nr; i++)
		free(deps[i]);
	free(deps);
	free(flags);
	return ret;
}

static int build_plan(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		      const struct kernel_variant *v, git_repository *repo, const git_oid *base)
{
	const struct kit_series **order = NULL;
	struct stable_log log = STABLE_LOG_INIT;
	size_t i, j;
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	plan->kit = kit;
	plan->branch = b;
	plan->variant = v;
	if (order_series(&order, kit))
		return MKS_ECONFIG;
	for (i = 0, j = 0; i < kit->nr_series; i++)
		j += kit->series[i].nr_patches + kit->series[i].nr_fixups;
	plan->index = plan_index_new(j);
	if (repo) {
		plan->repo = repo;
		git_oid_cpy(&plan->base, base);
		plan->tree_checked = 1;
	}
	if (b->source.kind == SOURCE_GIT && b->source.release) {
		ret = stable_log_read(&log, b);
		if (ret) {
			free(order);
			plan_release(plan);
			return MKS_ECONFIG;
		}
		plan->stable = &log;
	}
	for (i = 0; i < kit->nr_series; i++) {
		const struct kit_series *s = order[i];
		const struct decision *sd = series_decision(s, branch_decisions(b));
		struct backports bp = { 0 };
		size_t first = plan->nr;

		if (sd && sd->kind == DECISION_PATCHES && read_backports(&bp, kit, s, sd))
			ret = -1;
		for (j = 0; j < s->nr_patches; j++)
			if (plan_patch(plan, &s->patches[j], sd, &bp))
				ret = -1;
		if (plan_fixups(plan, s, sd, &bp))
			ret = -1;
		if (say_no_files(plan, first, s, branch_decisions(b)))
			ret = -1;
		backports_release(&bp);
	}
	free(order);
	plan->stable = NULL;
	plan->repo = NULL;
	stable_log_release(&log);
	plan_put_in_order(plan);
	if (plan_policy(plan, kit, b))
		ret = -1;
	for (i = 0; i < plan->nr; i++) {
		if (plan->items[i].action != PLAN_SQUASH)
			continue;
		for (j = i; j-- > 0;)
			if (plan->items[j].action == PLAN_APPLY)
				break;
		if (j == (size_t)-1)
			BUG("squash without a commit before it");
		plan->items[i].squash_into = j;
	}
	if (ret) {
		plan_release(plan);
		return MKS_ECONFIG;
	}
	return 0;
}

/* Build with the tree apply would start from, when it is known without importing. */
static int build_peeking(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
			 const struct kernel_variant *v)
{
	git_repository *repo = NULL;
	git_oid base;
	int ret;

	if (tree_base_peek(&repo, &base, kit, b))
		return build_plan(plan, kit, b, v, NULL, NULL);
	ret = build_plan(plan, kit, b, v, repo, &base);
	git_repository_free(repo);
	return ret;
}

int plan_build(struct plan *plan, const struct kit *kit, const struct kernel_branch *b)
{
	return build_peeking(plan, kit, b, NULL);
}

int plan_build_at(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		  git_repository *repo, const git_oid *base)
{
	return build_plan(plan, kit, b, NULL, repo, base);
}

int plan_build_variant(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		       const struct kernel_variant *v)
{
	struct plan kit_plan = PLAN_INIT;
	size_t i;
	int ret = 0;

	memset(plan, 0, sizeof(*plan));
	if (build_peeking(&kit_plan, kit, b, NULL))
		return MKS_ECONFIG;
	for (i = 0; i < v->nr_without; i++) {
		const struct plan_item *it = plan_find(&kit_plan, v->without_patch[i]);

		if (it && (it->action == PLAN_APPLY || it->action == PLAN_SQUASH))
			continue;
		ret = error("%s:%d: variant '%s' leaves out '%s', which the kit does not apply on %s (%s: %s)",
			    b->path, v->without_line[i], v->name, kit_patch_label(v->without_patch[i]),
			    b->name, it ? plan_action_name(it->action) : "?", it ? it->reason : "");
	}
	for (i = 0; i < v->nr_with; i++) {
		const struct kit_patch *p = v->with_patch[i];
		const struct decision *own = patch_decision(p, branch_decisions(b));
		const struct decision *sd = series_decision(p->series, branch_decisions(b));

		if (own && own->kind == DECISION_SKIP && (!sd || sd->kind == DECISION_APPLY ||
							  sd->kind == DECISION_PATCHES))
			continue;
		ret = error("%s:%d: variant '%s' adds '%s', which is not a patch the kit skips on %s by "
			    "its own decision (give it `branches: { \"%s\": { skip: ... } }` in "
			    "series.yaml, in a series applied there)",
			    b->path, v->with_line[i], v->name, kit_patch_label(p), b->name, b->name);
	}
	plan_release(&kit_plan);
	if (ret)
		return MKS_ECONFIG;
	return build_peeking(plan, kit, b, v);
}

size_t plan_count_refused(const struct plan *plan)
{
	size_t i, n = 0;

	for (i = 0; i < plan->nr; i++)
		if ((plan->items[i].action == PLAN_APPLY || plan->items[i].action == PLAN_SQUASH) &&
		    !plan->items[i].policy)
			n++;
	return n;
}

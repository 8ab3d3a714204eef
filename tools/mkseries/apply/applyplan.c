/* apply/applyplan.c: apply a branch's plan in memory and write one stable-style commit per patch. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff/apply.h"
#include "apply/applyplan.h"
#include "diff/present.h"
#include "apply/backport.h"
#include "lib/gitutil.h"
#include "lib/watchdog.h"

void apply_outcome_init(struct apply_outcome *o)
{
	memset(o, 0, sizeof(*o));
	strbuf_init(&o->report, 0);
}

void apply_outcome_release(struct apply_outcome *o)
{
	size_t i;

	for (i = 0; o->replayed && i < o->nr_items; i++)
		free(o->replayed[i]);
	free(o->replayed);
	free(o->refname);
	free(o->logmsg);
	free(o->state);
	free(o->commit);
	strbuf_release(&o->report);
	apply_outcome_init(o);
}

/* Length of a leading "commit X upstream." or "[ Upstream commit X ]" paragraph, or 0. */
static size_t upstream_paragraph(const char *msg)
{
	const char *p = msg, *end;

	while (*p == '\n')
		p++;
	if (!strncmp(p, "commit ", 7) || !strncasecmp(p, "[ Upstream commit ", 18)) {
		end = strchr(p, '\n');
		if (!end)
			return strlen(msg);
		while (*end == '\n')
			end++;
		return end - msg;
	}
	return 0;
}

static int is_backporter_signoff(const char *value, const git_signature *who)
{
	const char *lt = strchr(value, '<'), *gt;

	if (!lt || !(gt = strchr(lt, '>')))
		return 0;
	return (size_t)(gt - lt - 1) == strlen(who->email) &&
	       !strncasecmp(lt + 1, who->email, gt - lt - 1);
}

/*
 * The upstream id to name in full: the mail's own when it gives 40 hex
 * digits, else the commit git format-patch wrote the mail from when it
 * starts with the id the kit gives (the kit may abbreviate), else the
 * shorter id as it is.
 */
static const char *full_upstream(const struct mail_patch *m, const struct kit_patch *p)
{
	const char *id = m->upstream ? m->upstream : p->upstream;

	if (!id || strlen(id) >= GIT_OID_HEXSZ || !m->source_commit)
		return id;
	if (!strncasecmp(m->source_commit, id, strlen(id)))
		return m->source_commit;
	return id;
}

void stable_add_signoff(struct strbuf *msg, const git_signature *who)
{
	struct trailer *t = NULL;
	const char *last_sob = NULL;
	size_t nr, i;

	nr = trailers_parse(&t, msg->buf, NULL);
	for (i = 0; i < nr; i++)
		if (!strcasecmp(t[i].key, "Signed-off-by"))
			last_sob = t[i].value;
	if (!last_sob || !is_backporter_signoff(last_sob, who)) {
		strbuf_rtrim(msg);
		/* a trailer of its own block when the message has none yet */
		strbuf_addstr(msg, nr ? "\n" : "\n\n");
		strbuf_addf(msg, "Signed-off-by: %s <%s>\n", who->name, who->email);
	}
	trailers_free(t, nr);
}

/*
 * The trailer block is kept as written, not rebuilt from the parsed
 * trailers: continuation lines, spacing and the bracketed notes a
 * backporter puts between the upstream trailers and their own
 * Signed-off-by (the stable style) all survive.
 */
char *stable_message(const struct mail_patch *m, const struct kit_patch *p,
		     const struct mail_patch *const *squashed, const struct kit_patch *const *sq_patches,
		     size_t nr_squashed, const git_signature *backporter)
{
	struct strbuf sb = STRBUF_INIT, body = STRBUF_INIT, block = STRBUF_INIT;
	const char *id = full_upstream(m, p);
	const char *msg = m->message ? m->message : "";
	size_t body_len = m->message ? m->message_body_len : 0, skip, i;

	strbuf_addstr(&sb, m->subject && *m->subject ? m->subject : p->subject);
	strbuf_addstr(&sb, "\n\n");
	if (!id && !nr_squashed) {
		/* The user's own patch: its message is theirs, byte for byte. */
		strbuf_addstr(&sb, msg);
		strbuf_rtrim(&sb);
		strbuf_addch(&sb, '\n');
		return strbuf_detach(&sb, NULL);
	}
	if (id)
		strbuf_addf(&sb, "commit %s upstream.\n\n", id);
	skip = upstream_paragraph(msg);
	if (skip > body_len)
		skip = body_len;
	strbuf_add(&body, msg + skip, body_len - skip);
	strbuf_rtrim(&body);
	if (body.len)
		strbuf_addf(&sb, "%s\n\n", body.buf);
	for (i = 0; i < nr_squashed; i++) {
		const char *sid = squashed[i]->upstream ? squashed[i]->upstream
							: sq_patches[i]->upstream;
		const char *subj = squashed[i]->subject ? squashed[i]->subject
							: sq_patches[i]->subject;

		if (sid)
			strbuf_addf(&sb, "[ Squashed in: commit %s upstream (\"%s\") ]\n", sid, subj);
		else
			strbuf_addf(&sb, "[ Squashed in: \"%s\" ]\n", subj);
	}
	if (nr_squashed)
		strbuf_addch(&sb, '\n');
	if (m->nr_trailers && body_len < strlen(msg)) {
		strbuf_addstr(&block, msg + body_len);
		strbuf_rtrim(&block);
		strbuf_addf(&sb, "%s\n", block.buf);
	}
	stable_add_signoff(&sb, backporter);
	strbuf_release(&body);
	strbuf_release(&block);
	return strbuf_detach(&sb, NULL);
}

/* The first-parent commits from base (exclusive) to tip, oldest first. */
static int existing_chain(git_oid **out, size_t *nr, git_repository *repo, const git_oid *base,
			  const git_oid *tip)
{
	git_oid *v = NULL, cur = *tip;
	size_t n = 0, alloc = 0;

	*out = NULL;
	*nr = 0;
	while (!git_oid_equal(&cur, base)) {
		git_commit *c = NULL;

		if (n > 100000 || git_commit_lookup(&c, repo, &cur) < 0 ||
		    git_commit_parentcount(c) != 1) {
			/* Not built on this base: nothing to reuse. */
			git_commit_free(c);
			free(v);
			return 0;
		}
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = cur;
		cur = *git_commit_parent_id(c, 0);
		git_commit_free(c);
	}
	for (size_t i = 0; i < n / 2; i++) {
		git_oid t = v[i];

		v[i] = v[n - 1 - i];
		v[n - 1 - i] = t;
	}
	*out = v;
	*nr = n;
	return 0;
}

static int same_commit(git_repository *repo, const git_oid *id, const git_oid *parent,
		       const git_oid *tree, const git_signature *author, const char *message)
{
	git_commit *c = NULL;
	const git_signature *a;
	int same = 0;

	if (git_commit_lookup(&c, repo, id) < 0)
		return 0;
	a = git_commit_author(c);
	same = git_commit_parentcount(c) == 1 && git_oid_equal(git_commit_parent_id(c, 0), parent) &&
	       git_oid_equal(git_commit_tree_id(c), tree) && !strcmp(a->name, author->name) &&
	       !strcmp(a->email, author->email) && a->when.time == author->when.time &&
	       !strcmp(git_commit_message(c), message);
	git_commit_free(c);
	return same;
}

/* A commit being assembled: its mail, then any squashed fixups. */
struct pending {
	int open;
	size_t item;
	struct mail_patch *mail;
	const struct mail_patch **sq;
	const struct kit_patch **sq_patches;
	size_t nr_sq, alloc_sq;
	git_oid tree;
};

/* Commits that may be reused: the `reuse` branch's, then the branch's own. */
struct chains {
	git_oid *shared, *own;
	size_t nr_shared, nr_own;
};

static int write_pending(struct apply_outcome *o, git_repository *repo, const struct plan *plan,
			 struct pending *pd, git_oid *parent, const struct chains *ch,
			 const git_signature *backporter)
{
	const struct kit_patch *p;
	const struct mail_patch *m = pd->mail;
	git_signature *author = NULL;
	git_commit *parent_c = NULL;
	git_tree *tree = NULL;
	char *message = NULL;
	git_oid id;
	int err, ret = -1;
	size_t i;

	/* Nothing pending (an empty plan has no items to look at). */
	if (!pd->open)
		return 0;
	p = plan->items[pd->item].patch;
	message = stable_message(m, p, pd->sq, pd->sq_patches, pd->nr_sq, backporter);
	if (m->author_name && m->author_email)
		err = git_signature_new(&author, m->author_name, m->author_email, m->date,
					m->tz_offset);
	else
		err = git_signature_dup(&author, backporter);
	if (err < 0) {
		gitutil_error(err, "bad author in '%s'", plan->items[pd->item].source);
		goto cleanup;
	}
	if (o->nr_commits < ch->nr_shared &&
	    same_commit(repo, &ch->shared[o->nr_commits], parent, &pd->tree, author, message)) {
		id = ch->shared[o->nr_commits];
		o->nr_reused++;
		o->nr_shared++;
	} else if (o->nr_commits < ch->nr_own &&
		   same_commit(repo, &ch->own[o->nr_commits], parent, &pd->tree, author, message)) {
		id = ch->own[o->nr_commits];
		o->nr_reused++;
	} else {
		if ((err = git_commit_lookup(&parent_c, repo, parent)) < 0 ||
		    (err = git_tree_lookup(&tree, repo, &pd->tree)) < 0 ||
		    (err = git_commit_create(&id, repo, NULL, author, backporter, NULL, message,
					     tree, 1, (const git_commit **)&parent_c)) < 0) {
			gitutil_error(err, "cannot write the commit of %s", kit_patch_label(p));
			goto cleanup;
		}
	}
	o->nr_commits++;
	o->commit[pd->item] = id;
	for (i = pd->item + 1; i < plan->nr; i++)
		if (o->state[i] == APPLIED_SQUASHED && plan->items[i].squash_into == pd->item)
			o->commit[i] = id;
	*parent = id;
	pd->open = 0;
	ret = 0;
cleanup:
	git_tree_free(tree);
	git_commit_free(parent_c);
	git_signature_free(author);
	free(message);
	return ret;
}

static void describe_item(struct strbuf *sb, const struct plan *plan, size_t i)
{
	const struct kit_patch *p = plan->items[i].patch;
	const char *subject = plan->items[i].subject;

	strbuf_addf(sb, "'%s'", kit_patch_label(p));
	if (p->upstream || subject)
		strbuf_addf(sb, " (%s%s%s)", p->upstream ? p->upstream : "",
			    p->upstream && subject ? " " : "", subject ? shown(subject) : "");
}

/*
 * Item `failed` does not apply, so the branch gets none of the commits
 * written for the items before it: they must not be shown as applied
 * (with an id no ref holds, or none yet). Items found in the tree stay.
 */
static void forget_applied(struct apply_outcome *o, size_t failed)
{
	size_t i, n = 0;

	for (i = 0; i < failed; i++) {
		if (o->state[i] != APPLIED_COMMIT && o->state[i] != APPLIED_SQUASHED)
			continue;
		o->state[i] = APPLIED_NONE;
		memset(&o->commit[i], 0, sizeof(o->commit[i]));
		n++;
	}
	o->nr_commits = o->nr_squashed = o->nr_reused = o->nr_shared = 0;
	if (n)
		strbuf_addf(&o->report, "  the %zu %s before it %s, but a branch is applied whole "
			    "or not at all: nothing was committed\n", n, n == 1 ? "entry" : "entries",
			    n == 1 ? "applies" : "apply");
}

/* Longest that one patch's in-memory apply may take: libgit2 cannot be interrupted. */
#define APPLY_TIMEOUT_DEFAULT 300

/*
 * Arm the watchdog around the apply of item i: a libgit2 call that never
 * returns (a hang in zlib under git_apply_to_tree()) must not hold the
 * repository lock for ever. Nothing but objects is written before the
 * branch ref moves at the very end (branch_apply()), so ending the
 * process there leaves every ref as it was.
 */
static void arm_apply_watchdog(const struct plan *plan, size_t i)
{
	unsigned secs = watchdog_seconds("MKSERIES_APPLY_TIMEOUT", APPLY_TIMEOUT_DEFAULT);
	char *msg = xstrfmt("error: applying '%s' onto '%s' took more than %u s: stopped; "
			    "no ref was moved, the repository is unchanged "
			    "(MKSERIES_APPLY_TIMEOUT sets the limit)\n",
			    shown(plan->items[i].source), plan->branch->name, secs);

	watchdog_arm(secs, msg, 1);
	free(msg);
}

/*
 * Test-only: MKSERIES_TEST_APPLY_STALL=TEXT makes the apply of every
 * patch file whose kit path contains TEXT wait 20 s first, standing in
 * for a libgit2 call that hangs (tests/t0300). Bounded, so that without
 * the watchdog the test fails instead of hanging.
 */
static void test_stall(const struct plan_item *it)
{
	const char *stall = getenv("MKSERIES_TEST_APPLY_STALL");
	unsigned left = 20;

	if (stall && *stall && strstr(it->source, stall))
		while (left)
			left = sleep(left);
}

/* The one mail of item i's patch file, into mails[i]. */
static int read_item_mail(struct mail_patch **mails, size_t *nr_mails, const struct plan *plan,
			  size_t i)
{
	const struct plan_item *it = &plan->items[i];
	char *path = path_join(plan->kit->dir, it->source);
	int err = mail_parse_file(&mails[i], &nr_mails[i], path);

	free(path);
	if (err < 0)
		return -1;
	if (nr_mails[i] != 1)
		return error("'%s' holds %zu patches; the kit names one patch per file",
			     it->source, nr_mails[i]);
	if (!mails[i][0].diff)
		return error("'%s' has no diff", it->source);
	return 0;
}

/* Item i is a recorded branch backport the base moved under: merge it from its own tree. */
static int replay_item(git_oid *next, struct apply_outcome *o, git_repository *repo,
		       const git_oid *tree, const struct mail_patch *m, size_t i)
{
	struct strbuf files = STRBUF_INIT;
	int r = backport_replay(next, repo, tree, m->diff, m->diff_len, &files);

	if (r == 0) {
		o->replayed[i] = strbuf_detach(&files, NULL);
		o->nr_replayed++;
	}
	strbuf_release(&files);
	return r;
}

/*
 * Apply item i's mail `m` onto `tree`, under the watchdog: 0 with *next
 * set, 1 when its change is in the tree already, MKS_EAPPLYFAIL or
 * MKS_EUNSAFE with the reason in `why`, or -1 (printed).
 */
static int apply_item(git_oid *next, struct apply_outcome *o, git_repository *repo,
		      const struct plan *plan, size_t i, const struct mail_patch *m,
		      const git_oid *tree, struct strbuf *why)
{
	int err, r;

	arm_apply_watchdog(plan, i);
	test_stall(&plan->items[i]);
	err = apply_diff(next, repo, tree, m->diff, m->diff_len, why);
	if (err == MKS_EAPPLYFAIL && apply_is_present(repo, tree, m->diff, m->diff_len) == 1) {
		err = 1;
	} else if (err == MKS_EAPPLYFAIL && plan->items[i].branch_backport) {
		r = replay_item(next, o, repo, tree, m, i);
		if (r == 0)
			err = 0;
		else if (r != MKS_EAPPLYFAIL)
			err = -1;
	}
	watchdog_disarm();
	return err;
}

/* Say why item i stopped the branch, and drop what was applied before it. */
static void report_failure(struct apply_outcome *o, const struct plan *plan, size_t i, int err,
			   const struct strbuf *why)
{
	strbuf_addstr(&o->report, err == MKS_EUNSAFE ? "refusing " : "cannot apply ");
	describe_item(&o->report, plan, i);
	strbuf_addf(&o->report, " onto '%s'", plan->branch->name);
	if (plan->variant)
		strbuf_addf(&o->report, " (variant '%s')", plan->variant->name);
	strbuf_addf(&o->report, "\n  from %s\n", shown(plan->items[i].source));
	strbuf_add_indented(&o->report, why->buf, "  ");
	forget_applied(o, i);
	o->failed = i;
}

/*
 * Item i is partial: a stable commit says it is its upstream commit and
 * the tree has only part of the change. Neither skipping it (the rest
 * would be lost) nor applying it (over the part already there) is safe
 * to do unasked: say what is missing and how series.yaml decides.
 */
static void refuse_partial(struct apply_outcome *o, const struct plan *plan, size_t i)
{
	const struct plan_item *it = &plan->items[i];
	const char *bname = branch_decisions(plan->branch);

	strbuf_addstr(&o->report, "refusing to apply ");
	describe_item(&o->report, plan, i);
	strbuf_addf(&o->report, " onto '%s'", plan->branch->name);
	if (plan->variant)
		strbuf_addf(&o->report, " (variant '%s')", plan->variant->name);
	strbuf_addf(&o->report, ": a stable commit names it, but the tree lacks part of its change\n  %s\n", shown(it->reason));
	strbuf_addf(&o->report,
		    "  decide in series.yaml, under the entry's branches: \"%s\": { present: \"why\" } "
		    "when the stable backport is all this branch needs, or \"%s\": { file: PATCH } "
		    "with a backport of the missing part (or { apply: \"why\" } to apply the "
		    "kit's patch as it is)\n", bname, bname);
	o->failed = i;
}

/* What plan_apply() works with besides the outcome. */
struct apply_run {
	git_repository *repo;
	const struct plan *plan;
	const git_signature *backporter;
	struct mail_patch **mails;
	size_t *nr_mails;
	struct pending pd;
	struct chains ch;
	git_oid parent, tree;
};

/*
 * Item i applied, giving r->tree: fold it into the open commit (a squash
 * with a host), else close that commit and open one for i.
 */
static int take_applied(struct apply_outcome *o, struct apply_run *r, size_t i)
{
	const struct plan_item *it = &r->plan->items[i];
	struct pending *pd = &r->pd;

	if (it->action == PLAN_SQUASH && pd->open) {
		ALLOC_GROW(pd->sq, pd->nr_sq + 1, pd->alloc_sq);
		ALLOC_GROW(pd->sq_patches, pd->nr_sq + 1, pd->alloc_sq);
		pd->sq_patches[pd->nr_sq] = it->patch;
		pd->sq[pd->nr_sq++] = &r->mails[i][0];
		pd->tree = r->tree;
		o->state[i] = APPLIED_SQUASHED;
		o->nr_squashed++;
		return 0;
	}
	/* A squash whose host was found already present becomes a commit of its own. */
	if (write_pending(o, r->repo, r->plan, pd, &r->parent, &r->ch, r->backporter))
		return -1;
	pd->open = 1;
	pd->item = i;
	pd->mail = &r->mails[i][0];
	pd->nr_sq = 0;
	pd->tree = r->tree;
	o->state[i] = APPLIED_COMMIT;
	return 0;
}

/*
 * Item i, a fixup placed right after the patch it fixes, does not apply
 * there. When it applies on top of the rest of its series (the series'
 * patches after it applied first), it was written on the whole series,
 * as upstream applied it: say so in the report, and how the kit asks for
 * that order. Nothing of the trial is kept.
 */
static void say_if_order(struct apply_outcome *o, struct apply_run *r, size_t i)
{
	const struct plan *plan = r->plan;
	const struct kit_patch *f = plan->items[i].patch, *last = NULL;
	struct strbuf why = STRBUF_INIT;
	size_t j, mark = error_mark();
	git_oid tree = r->tree, next;
	int fails = 0;

	if (!f->is_fixup || f->series->fixups_upstream_order)
		return;
	for (j = i + 1; !fails && j < plan->nr && plan->items[j].patch->series == f->series; j++) {
		const struct plan_item *it = &plan->items[j];

		if (it->patch->is_fixup || (it->action != PLAN_APPLY && it->action != PLAN_SQUASH))
			continue;
		fails = read_item_mail(r->mails, r->nr_mails, plan, j) ||
			apply_diff(&next, r->repo, &tree, r->mails[j][0].diff,
				   r->mails[j][0].diff_len, &why);
		tree = next;
		last = it->patch;
	}
	if (!fails && last &&
	    !apply_diff(&next, r->repo, &tree, r->mails[i][0].diff, r->mails[i][0].diff_len, &why))
		strbuf_addf(&o->report, "  order: it applies after the whole series (after %s), as "
			    "upstream applied a fix written on top of it; mkseries puts a fixup "
			    "right after the patch it fixes (%s): ask for upstream order with "
			    "`fixup-order: upstream` under series '%s' in series.yaml\n",
			    kit_patch_label(last), kit_patch_label(f->fixes_patch), f->series->id);
	error_drop(mark);
	strbuf_release(&why);
}

/* One APPLY or SQUASH item: 0 to go on, else what plan_apply() returns. */
static int plan_apply_item(struct apply_outcome *o, struct apply_run *r, size_t i)
{
	struct strbuf why = STRBUF_INIT;
	git_oid next;
	int err;

	if (read_item_mail(r->mails, r->nr_mails, r->plan, i))
		return -1;
	err = apply_item(&next, o, r->repo, r->plan, i, &r->mails[i][0], &r->tree, &why);
	if (err == MKS_EAPPLYFAIL || err == MKS_EUNSAFE)
		report_failure(o, r->plan, i, err, &why);
	if (err == MKS_EAPPLYFAIL)
		say_if_order(o, r, i);
	strbuf_release(&why);
	if (err == 1) {
		o->state[i] = APPLIED_FOUND;
		o->nr_found++;
		/* What follows must not fold into an unrelated earlier commit. */
		if (r->plan->items[i].action == PLAN_APPLY &&
		    write_pending(o, r->repo, r->plan, &r->pd, &r->parent, &r->ch, r->backporter))
			return -1;
		return 0;
	}
	if (err == MKS_EAPPLYFAIL || err == MKS_EUNSAFE)
		return err;
	r->tree = next;
	if (err || take_applied(o, r, i)) {
		/* the message above is libgit2's or the system's (a disk full): say where */
		const struct plan_item *it = &r->plan->items[i];

		return error("stopped at %s onto '%s' (from %s); no ref was moved",
			     kit_patch_label(it->patch), r->plan->branch->name,
			     it->source ? shown(it->source) : "?");
	}
	return 0;
}

static void *alloc_per_item(const struct plan *plan, size_t size)
{
	return xcalloc(plan->nr ? plan->nr : 1, size);
}

int plan_apply(struct apply_outcome *o, git_repository *repo, const struct plan *plan,
	       const git_oid *base, const git_oid *old_tip, const git_oid *reuse,
	       const git_signature *backporter)
{
	struct apply_run r;
	git_commit *base_c = NULL;
	size_t i;
	int ret = 0, err;

	memset(&r, 0, sizeof(r));
	r.repo = repo;
	r.plan = plan;
	r.backporter = backporter;
	r.mails = alloc_per_item(plan, sizeof(*r.mails));
	r.nr_mails = alloc_per_item(plan, sizeof(*r.nr_mails));
	r.parent = *base;
	o->state = alloc_per_item(plan, sizeof(*o->state));
	o->replayed = alloc_per_item(plan, sizeof(*o->replayed));
	o->nr_items = plan->nr;
	o->commit = alloc_per_item(plan, sizeof(*o->commit));
	if ((err = git_commit_lookup(&base_c, repo, base)) < 0) {
		ret = gitutil_error(err, "cannot read base commit %s", oid_short(base));
		goto cleanup;
	}
	r.tree = *git_commit_tree_id(base_c);
	if (old_tip && existing_chain(&r.ch.own, &r.ch.nr_own, repo, base, old_tip))
		goto cleanup;
	if (reuse && existing_chain(&r.ch.shared, &r.ch.nr_shared, repo, base, reuse))
		goto cleanup;

	for (i = 0; i < plan->nr; i++)
		if (plan->items[i].action == PLAN_PARTIAL) {
			refuse_partial(o, plan, i);
			ret = MKS_EAPPLYFAIL;
			goto cleanup;
		}
	for (i = 0; !ret && i < plan->nr; i++)
		if (plan->items[i].action == PLAN_APPLY || plan->items[i].action == PLAN_SQUASH)
			ret = plan_apply_item(o, &r, i);
	if (ret)
		goto cleanup;
	if (write_pending(o, repo, plan, &r.pd, &r.parent, &r.ch, backporter))
		ret = -1;
	o->tip = r.parent;
cleanup:
	for (i = 0; i < plan->nr; i++)
		mail_patches_free(r.mails[i], r.nr_mails[i]);
	free(r.mails);
	free(r.nr_mails);
	free(r.pd.sq);
	free(r.pd.sq_patches);
	free(r.ch.own);
	free(r.ch.shared);
	git_commit_free(base_c);
	return ret;
}

char *branch_refname(const struct plan *plan)
{
	return kit_refname(plan->kit, plan->branch, plan->variant ? plan->variant->name : NULL);
}

/* Moving a branch that a working tree has checked out would dirty that tree. */
static int check_not_checked_out(git_repository *repo, const char *refname)
{
	git_reference *ref = NULL;
	int ret = 0;

	if (git_reference_lookup(&ref, repo, refname) == 0 && git_branch_is_checked_out(ref) == 1)
		ret = error("'%s' is checked out in a working tree of '%s'; mkseries does not "
			    "move a checked-out branch (check out another branch first)",
			    refname, git_repository_path(repo));
	git_reference_free(ref);
	return ret;
}

int branch_apply(struct apply_outcome *o, git_repository *repo, const struct plan *plan,
		 const git_oid *base, const git_oid *reuse, const git_signature *backporter,
		 const char *log_prefix)
{
	char *refname = branch_refname(plan), *logmsg = NULL;
	int ret;

	ret = check_not_checked_out(repo, refname);
	if (ret)
		goto cleanup;
	o->have_old = git_reference_name_to_id(&o->old_tip, repo, refname) == 0;
	ret = plan_apply(o, repo, plan, base, o->have_old ? &o->old_tip : NULL, reuse, backporter);
	if (ret)
		goto cleanup;
	if (o->have_old && git_oid_equal(&o->old_tip, &o->tip))
		goto cleanup;
	logmsg = xstrfmt("%s: %zu commits onto %s", log_prefix, o->nr_commits, oid_short(base));
	if (o->defer) {
		o->pending = 1;
		o->refname = refname;
		o->logmsg = logmsg;
		refname = logmsg = NULL;
		goto cleanup;
	}
	ret = ref_update(repo, refname, &o->tip, o->have_old ? &o->old_tip : NULL, 0, logmsg);
	o->moved = !ret;
cleanup:
	free(logmsg);
	free(refname);
	return ret;
}

static int lock_file_there(git_repository *repo, const char *refname)
{
	char *lock = xstrfmt("%s%s.lock", git_repository_commondir(repo), refname);
	int there = file_exists(lock);

	free(lock);
	return there;
}

int branch_refs_move(git_repository *repo, struct apply_outcome *const *o, size_t n)
{
	git_transaction *tx = NULL;
	const char *at = NULL;
	size_t i, nr = 0;
	int err = 0, ret = 0;

	for (i = 0; i < n; i++)
		nr += o[i] && o[i]->pending;
	if (!nr)
		return 0;
	if ((err = git_transaction_new(&tx, repo)) < 0)
		goto fail;
	/* locked first, then checked: nobody moves a ref between the look and the write */
	for (i = 0; i < n && !err; i++) {
		git_oid now;
		int have;

		if (!o[i] || !o[i]->pending)
			continue;
		at = o[i]->refname;
		if ((err = git_transaction_lock_ref(tx, at)) < 0)
			break;
		have = git_reference_name_to_id(&now, repo, at) == 0;
		git_error_clear();
		if (have != o[i]->have_old || (have && !git_oid_equal(&now, &o[i]->old_tip))) {
			ret = error("cannot update '%s': it was changed by someone else meanwhile; "
				    "no ref was moved", at);
			goto cleanup;
		}
		err = git_transaction_set_target(tx, at, &o[i]->tip, NULL, o[i]->logmsg);
	}
	if (err)
		goto fail;
	at = NULL;
	err = git_transaction_commit(tx);
	if (!err) {
		for (i = 0; i < n; i++)
			if (o[i] && o[i]->pending) {
				o[i]->moved = 1;
				o[i]->pending = 0;
			}
		goto cleanup;
	}
fail:
	if (at && (err == GIT_ELOCKED || lock_file_there(repo, at)))
		ret = ref_locked_error(repo, at);
	else {
		struct strbuf names = STRBUF_INIT;

		for (i = 0; i < n; i++)
			if (o[i] && o[i]->pending && (!at || !strcmp(at, o[i]->refname)))
				strbuf_addf(&names, "%s'%s'", names.len ? ", " : "", o[i]->refname);
		ret = gitutil_error(err, "cannot move %s; no ref was moved", names.buf);
		strbuf_release(&names);
	}
cleanup:
	git_transaction_free(tx);
	return ret;
}

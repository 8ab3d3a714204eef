/* builtin/bisect.c: `mkseries bisect`: the first applied patch of a branch where a failure appears. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apply/plan.h"
#include "apply/variant.h"
#include "build/build.h"
#include "builtin/builtin.h"
#include "tree/workdir.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/util.h"
#include "patches/fixref.h"
#include "results/verdict.h"
#include "run/cells.h"
#include "console/ktap.h"
#include "vm/vm.h"

enum bisect_mode { BISECT_BUILD, BISECT_BOOT, BISECT_CASE, BISECT_CLAIM };

struct bisect_args {
	enum bisect_mode mode;
	const char *what;	/* the case, or the metric CASE.NAME */
	unsigned jobs;
	const char *accel;
	struct ktap_result base;	/* --claim: base's recorded run */
	double threshold;	/* --claim: per cent */
};

enum verdict { V_GOOD, V_BAD, V_SKIP };

/* What a commit showed: its verdict and the evidence for it. */
struct probe {
	enum verdict v;
	struct strbuf why;
	char *log;		/* the build log or console that shows it */
};

/* The applied commits above the base, oldest first; 0 or -1 (printed). */
static int list_commits(git_oid **out, size_t *nr, git_repository *repo, const git_oid *base,
			const git_oid *tip, const char *refname)
{
	git_commit *c = NULL;
	git_oid cur = *tip;
	size_t alloc = 0, i;

	*out = NULL;
	*nr = 0;
	while (!git_oid_equal(&cur, base)) {
		if (git_commit_lookup(&c, repo, &cur) || !git_commit_parentcount(c)) {
			git_commit_free(c);
			return print_error("%s does not grow from the branch's base %s: apply it again",
				     refname, git_oid_tostr_s(base));
		}
		ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[(*nr)++] = cur;
		cur = *git_commit_parent_id(c, 0);
		git_commit_free(c);
		c = NULL;
	}
	for (i = 0; i < *nr / 2; i++) {
		git_oid t = (*out)[i];

		(*out)[i] = (*out)[*nr - 1 - i];
		(*out)[*nr - 1 - i] = t;
	}
	return 0;
}

static char *commit_subject(git_repository *repo, const git_oid *oid)
{
	git_commit *c = NULL;
	char *s;

	if (git_commit_lookup(&c, repo, oid))
		return xstrdup("?");
	s = xstrdup(git_commit_summary(c) ? git_commit_summary(c) : "");
	git_commit_free(c);
	return s;
}

/*
 * What a maintainer reports a culprit by: the upstream commit the kit
 * commit `oid` says it is ("commit <id> upstream."), in full when the
 * repository knows it, and the kit's file of its entry (the branch's own
 * backport when the plan applies one), found as export finds them: by
 * the upstream id, else, for the kit's own patch, by the subject. Each
 * is left NULL when it cannot be told. Callers free both.
 */
static void culprit_entry(char **upstream, char **file, const struct cell *c, const git_oid *base,
			  const git_oid *oid)
{
	struct fixref_scanner *sc = NULL;
	struct plan plan = PLAN_INIT;
	git_commit *commit = NULL;
	git_object *obj = NULL;
	const char *msg, *summary;
	char hex[GIT_OID_HEXSZ + 1];
	size_t mark = error_mark(), i;
	int have = 0;

	*upstream = *file = NULL;
	if (git_commit_lookup(&commit, c->repo, oid))
		return;
	msg = git_commit_message(commit) ? git_commit_message(commit) : "";
	summary = git_commit_summary(commit) ? git_commit_summary(commit) : "";
	if (!fixref_scanner_new(&sc))
		have = fixref_upstream(sc, msg, strlen(msg), hex);
	if (have) {
		*upstream = xstrdup(hex);
		/* An abbreviation the repository can complete (it holds the upstream history). */
		if (strlen(hex) < GIT_OID_HEXSZ) {
			git_oid full;

			if (!git_oid_fromstrn(&full, hex, strlen(hex)) &&
			    !git_object_lookup_prefix(&obj, c->repo, &full, strlen(hex), GIT_OBJECT_COMMIT)) {
				free(*upstream);
				*upstream = xstrdup(git_oid_tostr_s(git_object_id(obj)));
			}
		}
	}
	/* The plan only names the files: what it says of a problem is not this command's. */
	if (!plan_build_at(&plan, c->kit, c->b, c->repo, base)) {
		for (i = 0; i < plan.nr && !*file; i++) {
			const struct plan_item *it = &plan.items[i];
			const struct kit_patch *p = it->patch;

			if (it->action != PLAN_APPLY && it->action != PLAN_SQUASH)
				continue;
			if (have ? p->upstream && hexid_match(p->upstream, hex) :
			    !p->upstream && it->subject && !strcmp(it->subject, summary))
				*file = xstrdup(it->source ? it->source : p->file ? p->file : "");
		}
	}
	error_drop(mark);
	plan_release(&plan);
	git_object_free(obj);
	fixref_scanner_free(sc);
	git_commit_free(commit);
}

/* "130.5 us ± 0.5% (5 samples)": a mean with its spread, or "(1 sample)" when there is none. */
static void add_value(struct strbuf *sb, const struct ktap_metric *m)
{
	strbuf_addf(sb, "%g %s", m->value, m->unit ? m->unit : "");
	if (m->n > 1 && m->value)
		strbuf_addf(sb, " ± %.1f%% (%u samples)", 100.0 * m->stddev / fabs(m->value), m->n);
	else
		strbuf_addstr(sb, " (1 sample)");
}

/*
 * The diagnostic that says why a case failed: its last line but those
 * that only give the case's time ("pte_batch_wrbit: 0.031 s").
 */
static const char *telling_diag(const struct strvec *diag)
{
	size_t i;

	for (i = diag->nr; i > 0; i--) {
		const char *d = diag->v[i - 1], *colon = strstr(d, ": ");
		char *end;

		if (!colon || strchr(colon + 2, ' ') != strrchr(colon + 2, ' ') ||
		    (strtod(colon + 2, &end), strcmp(end, " s")))
			return d;
	}
	return diag->v[diag->nr - 1];
}

/* --case and --claim: the case's outcome, or the metric against base's, in the console of a boot. */
static void judge_console(struct probe *p, const struct bisect_args *a, const char *console,
			  const char *timing)
{
	struct strbuf log = STRBUF_INIT;
	struct ktap_result k;
	const struct ktap_case *kc;
	const struct ktap_metric *m, *bm;
	char *dot;

	ktap_result_init(&k);
	if (strbuf_read_file(&log, console) || ktap_parse(&k, log.buf, log.len)) {
		p->v = V_SKIP;
		strbuf_addstr(&p->why, "no mm-regress output to read");
		goto out;
	}
	if (a->mode == BISECT_CASE) {
		kc = ktap_find_case(&k, a->what);
		if (!kc || kc->status == KTAP_SKIP) {
			p->v = V_SKIP;
			strbuf_addf(&p->why, "case %s %s", a->what, kc ? "skipped" : "did not run");
		} else {
			p->v = kc->status == KTAP_FAIL ? V_BAD : V_GOOD;
			strbuf_addf(&p->why, "%s %u %s", kc->status == KTAP_FAIL ? "not ok" : "ok",
				    kc->number, kc->name);
			if (kc->status == KTAP_FAIL && kc->diag.nr)
				strbuf_addf(&p->why, ": %s", telling_diag(&kc->diag));
		}
		goto out;
	}
	dot = strchr(a->what, '.');
	{
		char *case_name = xstrndup(a->what, dot - a->what);

		m = ktap_find_metric(&k, case_name, dot + 1);
		bm = ktap_find_metric(&a->base, case_name, dot + 1);
		free(case_name);
	}
	if (!m || !bm || !bm->value) {
		p->v = V_SKIP;
		strbuf_addf(&p->why, "%s not measured", a->what);
	} else if (timing && !strcmp(timing, "emulated")) {
		p->v = V_SKIP;
		strbuf_addstr(&p->why, "emulated time (TCG on the host's clock) is shown, never judged");
	} else {
		double change = 100.0 * (m->value - bm->value) / fabs(bm->value);
		double worse = m->direction == KTAP_LOWER_IS_BETTER ? change : -change;

		p->v = worse > a->threshold ? V_BAD : V_GOOD;
		strbuf_addf(&p->why, "%s %+.1f%% against base (", a->what, change);
		add_value(&p->why, m);
		strbuf_addstr(&p->why, " against ");
		add_value(&p->why, bm);
		strbuf_addf(&p->why, "; %s time), %s than %.0f%% worse", timing ? timing : "unknown",
			    p->v == V_BAD ? "more" : "no more", a->threshold);
	}
out:
	ktap_release(&k);
	strbuf_release(&log);
}

/* Build (and for all but --build, boot) one commit as the "bisect" variant, and judge it. */
static void probe_commit(struct probe *p, const struct cell *c, const struct bisect_args *a,
			 const git_oid *oid)
{
	struct build_result br;
	struct build_opts bo = { 0 };
	struct vm_result vr;
	struct vm_opts vo = { 0 };
	char *label = xstrfmt("%s bisect", c->b->name);

	memset(&br, 0, sizeof(br));
	memset(&vr, 0, sizeof(vr));
	bo.workdir = c->workdir;
	bo.jobs = a->jobs;
	bo.progress = mks_isatty_stderr();
	bo.label = label;
	if (build_variant(&br, c->repo, c->kit, c->b, VARIANT_BISECT, oid, &bo)) {
		p->v = V_SKIP;
		strbuf_addf(&p->why, "could not be built: %s", br.failure);
		goto out;
	}
	if (br.status == BUILD_FAILED) {
		p->v = a->mode == BISECT_BUILD ? V_BAD : V_SKIP;
		strbuf_addf(&p->why, "%s%s", a->mode == BISECT_BUILD ? "" : "does not build: ",
			    br.failure ? br.failure : "the build failed");
		p->log = xstrdup(br.log);
		goto out;
	}
	if (a->mode == BISECT_BUILD) {
		p->v = V_GOOD;
		strbuf_addstr(&p->why, "builds");
		goto out;
	}
	vo.accel = a->accel;
	vo.progress = bo.progress;
	vo.label = label;
	vo.boots = 1;
	/* a metric is judged on as many samples as mkseries run takes */
	vo.cmdline = a->mode == BISECT_CLAIM ? "mm_regress=--repeat,5" : NULL;
	if (vm_test_variant(&vr, c->b, br.bzimage, c->workdir, VARIANT_BISECT, &vo)) {
		p->v = V_SKIP;
		strbuf_addf(&p->why, "could not be booted: %s", vr.failure);
		goto out;
	}
	p->log = xstrdup(vr.console_log);
	if (a->mode == BISECT_BOOT) {
		/* a failed case is not a boot failure: a splat, a timeout or no mm-regress is */
		int bad = !vr.started || (vr.status == VM_FAILED && !vr.nr_fail);

		p->v = bad ? V_BAD : V_GOOD;
		strbuf_addstr(&p->why, bad ? (vr.failure ? vr.failure : "did not boot") : "boots");
	} else if (!vr.started) {
		p->v = V_SKIP;
		strbuf_addf(&p->why, "mm-regress never started: %s", vr.failure ? vr.failure : "");
	} else {
		judge_console(p, a, vr.console_log, vr.timing);
	}
out:
	build_result_release(&br);
	vm_result_release(&vr);
	free(label);
}

static const char *verdict_name(enum verdict v)
{
	return v == V_BAD ? "bad" : v == V_GOOD ? "good" : "cannot tell";
}

/*
 * A culprit as one reports it: "3/5 commit <upstream> upstream,
 * <kit file>: <subject>", then the kit commit that carries it. `indent`
 * "" for the first bad commit's line, which the branch and variant open.
 */
static void say_culprit(const struct cell *c, const git_oid *base, const git_oid *commits,
			size_t i, size_t n, const char *indent, const char *refname)
{
	char *upstream, *file, *subject = commit_subject(c->repo, &commits[i]);

	culprit_entry(&upstream, &file, c, base, &commits[i]);
	if (*indent)
		printf("%s%zu/%zu ", indent, i + 1, n);
	else
		printf("%s %s: first bad commit: %zu/%zu ", c->b->name, c->variant, i + 1, n);
	if (upstream)
		printf("commit %s upstream, ", upstream);
	printf("%s%s%s\n", file && *file ? file : "", file && *file ? ": " : "", shown(subject));
	printf("%s    kit commit: %s on %s\n", indent, git_oid_tostr_s(&commits[i]), refname);
	free(upstream);
	free(file);
	free(subject);
}

static void show_probe(git_repository *repo, const char *what, size_t i, size_t n,
		       const git_oid *oid, const struct probe *p)
{
	char *subject = commit_subject(repo, oid);

	printf("  %-8s %zu/%zu %.12s %s: %s (%s)\n", what, i + 1, n, git_oid_tostr_s(oid),
	       shown(subject), verdict_name(p->v), shown(p->why.buf));
	fflush(stdout);
	free(subject);
}

/*
 * Binary search: every commit below `good` (an index, -1 for the base)
 * is good, `bad` is bad. A commit that cannot be judged is stepped over,
 * as git bisect skip does. Returns the first bad commit's index, and in
 * *goodp the last good one's: when they are not next to each other, the
 * commits between could not be judged and any of them may be the first.
 */
static size_t search(const struct cell *c, const struct bisect_args *a, const git_oid *commits,
		     size_t n, long *goodp, size_t bad, struct probe *bad_probe)
{
	char *skipped = xcalloc(n, 1);
	unsigned step = 0;
	long good = *goodp;

	while ((long)bad - good > 1) {
		long lo = good + 1, hi = (long)bad - 1, mid = (good + (long)bad) / 2, pick = -1, d;
		struct probe p = { V_SKIP, STRBUF_INIT, NULL };
		char what[32];

		for (d = 0; pick < 0 && (mid - d >= lo || mid + d <= hi); d++) {
			if (mid - d >= lo && !skipped[mid - d])
				pick = mid - d;
			else if (mid + d <= hi && !skipped[mid + d])
				pick = mid + d;
		}
		if (pick < 0)
			break;
		probe_commit(&p, c, a, &commits[pick]);
		snprintf(what, sizeof(what), "step %u", ++step);
		show_probe(c->repo, what, (size_t)pick, n, &commits[pick], &p);
		if (p.v == V_SKIP) {
			skipped[pick] = 1;
		} else if (p.v == V_GOOD) {
			good = pick;
		} else {
			bad = (size_t)pick;
			strbuf_reset(&bad_probe->why);
			strbuf_add(&bad_probe->why, p.why.buf, p.why.len);
			free(bad_probe->log);
			bad_probe->log = p.log;
			p.log = NULL;
		}
		strbuf_release(&p.why);
		free(p.log);
	}
	*goodp = good;
	free(skipped);
	return bad;
}

static int bisect_cell(const struct cell *c, void *data)
{
	struct bisect_args *a = data;
	struct strbuf why = STRBUF_INIT;
	struct probe tip = { V_SKIP, STRBUF_INIT, NULL };
	git_oid base, head, *commits = NULL;
	char *refname = NULL, *base_ref = NULL;
	size_t n = 0, first;
	long good = -1;
	int ret = 1;

	if (variant_resolve(&base, &base_ref, &why, c->repo, c->kit, c->b, "base") ||
	    variant_resolve(&head, &refname, &why, c->repo, c->kit, c->b, c->variant)) {
		if (why.len)
			print_error("%s %s: %s", c->b->name, c->variant, why.buf);
		goto out;
	}
	if (list_commits(&commits, &n, c->repo, &base, &head, refname))
		goto out;
	if (!n) {
		print_error("%s %s: nothing is applied on the base: nothing to bisect", c->b->name, c->variant);
		goto out;
	}
	printf("%s %s: bisecting the %zu commit%s of %s above base %.12s\n", c->b->name, c->variant,
	       n, n == 1 ? "" : "s", refname, git_oid_tostr_s(&base));
	fflush(stdout);
	probe_commit(&tip, c, a, &commits[n - 1]);
	show_probe(c->repo, "tip", n - 1, n, &commits[n - 1], &tip);
	if (tip.v != V_BAD) {
		printf("%s %s: the tip is %s: nothing to bisect\n", c->b->name, c->variant,
		       verdict_name(tip.v));
		goto out;
	}
	first = search(c, a, commits, n, &good, n - 1, &tip);
	if ((long)first - good > 1) {
		size_t i;

		printf("%s %s: the first bad commit is one of these (those before %zu/%zu could not be judged):\n",
		       c->b->name, c->variant, first + 1, n);
		for (i = (size_t)(good + 1); i <= first; i++)
			say_culprit(c, &base, commits, i, n, "    ", refname);
	} else {
		say_culprit(c, &base, commits, first, n, "", refname);
	}
	printf("    evidence%s: %s\n", (long)first - good > 1 ? " at the first judged bad" : "",
	       shown(tip.why.buf));
	if (tip.log)
		printf("    log: %s\n", tip.log);
	printf("    base %.12s is taken as good: it is what the patches go on\n",
	       git_oid_tostr_s(&base));
	ret = (long)first - good > 1 ? 1 : 0;
out:
	strbuf_release(&why);
	strbuf_release(&tip.why);
	free(tip.log);
	free(commits);
	free(refname);
	free(base_ref);
	return ret;
}

/* --claim: base's recorded run, the one its metric is compared with. */
static int read_base(const struct cell *c, const struct strvec *variants, void *data)
{
	struct bisect_args *a = data;
	struct strbuf log = STRBUF_INIT;
	char *path;
	int ret = 0;

	if (a->mode != BISECT_CLAIM)
		return 0;
	a->threshold = kit_threshold_pct(c->kit, c->b);
	if (a->threshold <= 0)
		a->threshold = VERDICT_MIN_CHANGE_PCT;
	path = workdir_path(c->workdir, WD_CONSOLE_LOG, "base");
	if (strbuf_read_file(&log, path) || ktap_parse(&a->base, log.buf, log.len))
		ret = print_error_code(1, "%s: --claim compares with base's last boot, and there is none "
				    "in %s: run mkseries test --branch %s --variant base first",
				 c->b->name, path, c->b->name);
	strbuf_release(&log);
	free(path);
	return ret;
}

/* A case name as mm-regress has them: not empty, letters, digits and '_'. */
static int case_name_ok(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return p > name;
}

int cmd_bisect(int argc, const char **argv)
{
	const char *branch = NULL, *variant = "kit", *kase = NULL, *claim = NULL, *workdir = NULL;
	const char *repo = NULL;
	int boot = 0, build = 0, ret;
	struct bisect_args args = { 0 };
	const struct option opts[] = {
		OPT_STRING("branch", 'b', &branch, "B", "the branch whose applied commits are searched"),
		OPT_STRING("variant", 0, &variant, "V", "the kit (default) or a declared variant"),
		OPT_STRING("case", 0, &kase, "NAME", "the failure: mm-regress case NAME fails"),
		OPT_STRING("claim", 0, &claim, "METRIC",
		  "the failure: CASE.NAME is worse than base's by more than the threshold"),
		OPT_BOOL("boot", 0, &boot, "the failure: a splat, a hang, or no mm-regress"),
		OPT_BOOL("build", 0, &build, "the failure: the build fails"),
		OPT_STRING("accel", 0, &args.accel, "A", "auto, kvm or tcg (default: the branch's boot.accel)"),
		OPT_JOBS(&args.jobs),
		OPT_WORKDIR(&workdir),
		OPT_REPO(&repo),
		OPT_END(),
	};
	const char *usage = "mkseries bisect --branch B [--variant V] "
			    "(--case NAME | --claim METRIC | --boot | --build)";
	struct strvec given = STRVEC_INIT;
	struct cell_loop loop = { 0 };

	if (parse_options(argc, argv, opts, usage))
		usage_with_options(usage, opts, 2);
	if (!branch || (!!kase + !!claim + boot + build) != 1) {
		print_error(!branch ? "which branch? name it with --branch"
			      : "say what fails: one of --case NAME, --claim METRIC, --boot, --build");
		usage_with_options(usage, opts, 2);
	}
	if (!strcmp(variant, "base")) {
		print_error("--variant base: the base has no applied commits to search");
		return 2;
	}
	if (kase && !case_name_ok(kase)) {
		print_error("--case '%s': name a case of mm-regress as it prints it, letters, digits "
		      "and '_' (mkseries regress --list shows them)", shown(kase));
		return 2;
	}
	if (claim && (!strchr(claim, '.') || claim[0] == '.' || !strchr(claim, '.')[1])) {
		print_error("--claim '%s': a metric is CASE.NAME, as mm-regress prints it", shown(claim));
		return 2;
	}
	args.mode = build ? BISECT_BUILD : boot ? BISECT_BOOT : kase ? BISECT_CASE : BISECT_CLAIM;
	args.what = kase ? kase : claim;
	ktap_result_init(&args.base);
	strvec_push(&given, variant);
	loop.branch = branch;
	loop.given = &given;
	loop.workdir = workdir;
	loop.repo = repo;
	loop.branch_fn = read_base;
	loop.cell_fn = bisect_cell;
	loop.data = &args;
	ret = for_each_cell(&loop);
	ktap_release(&args.base);
	strvec_clear(&given);
	return ret;
}

/* builtin/export.c: `mkseries export`: an applied, verified branch as stable mails, a Debian quilt series or RPM patches. */
#include <string.h>
#include <time.h>

#include "apply/plan.h"
#include "builtin/builtin.h"
#include "export/export.h"
#include "kit/select.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "report/report.h"
#include "results/collect.h"
#include "run/stale.h"
#include "tree/tree.h"
#include "tree/workdir.h"

struct export_args {
	const char *variant, *output, *prefix, *workdir, *repo;
	enum export_format fmt;
	int force, all, all_patches;
	int stable;		/* --stable: the stable rule, whatever the branch's kind */
	const char *mainline;	/* --mainline DIR: upstream's messages from this clone */
	int include_unmerged;	/* --include-unmerged: entries with no upstream commit too */
	int replace;		/* --replace: an earlier export of the branch in the directory */
	unsigned start_number;	/* --start-number: 1 unless given */
};

/*
 * A stable branch, or an export for a stable release (--stable), ships
 * what the stable rule takes: leave out of s what the plan of b (its
 * variant), read as a stable branch, says that rule refuses. 0, or 1
 * (printed).
 */
static int stable_filter(struct export_series *s, git_repository *repo, const struct kit *kit,
			 const struct kernel_branch *kb, const char *variant, int force)
{
	struct kernel_branch as_stable = *kb, *b = &as_stable;
	struct plan plan = PLAN_INIT;
	size_t i;
	int ret = 1;

	as_stable.kind = BRANCH_STABLE;
	if (!variant) {
		if (plan_build(&plan, kit, b))
			goto cleanup;
	} else {
		for (i = 0; i < b->nr_variants && strcmp(b->variants[i].name, variant); i++)
			;
		if (i == b->nr_variants ||
		    plan_build_variant(&plan, kit, b, &b->variants[i]))
			goto cleanup;
	}
	if (export_stable_filter(s, repo, &plan, force))
		goto cleanup;
	if (!s->nr) {
		print_error("'%s': the stable rule leaves out every patch applied: nothing to "
			    "export (export them anyway: --all-patches)", b->name);
		goto cleanup;
	}
	ret = 0;
cleanup:
	plan_release(&plan);
	return ret;
}

/*
 * Entries with no upstream commit (the kit's own work under review, a
 * patch upstream did not take) are not for a stable release or a
 * distribution's kernel unless asked: name each and refuse. 0, or 1.
 */
static int refuse_unmerged(const struct export_series *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr; i++)
		if (!s->v[i].upstream && ++n)
			print_error("%s: '%s' is no upstream commit (the kit's own work, not "
				    "merged upstream)", s->branch, shown(s->v[i].subject));
	if (n)
		print_error("%s: %zu patch%s not upstream: not exported (export %s as %s "
			    "with --include-unmerged)", s->branch, n, n > 1 ? "es" : "",
			    n > 1 ? "them" : "it", n > 1 ? "they are" : "it is");
	return n ? 1 : 0;
}

/* The cover letter's subject: the series applied, as the run recorded them. */
static char *cover_title(const struct branch_result *b, const char *prefix)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = 0;
	const char *ver = strchr(prefix, ' ');

	for (i = 0; b && i < b->nr_series; i++)
		if (b->series[i].state == SERIES_APPLIED)
			n++;
	if (n == 1) {
		for (i = 0; i < b->nr_series; i++)
			if (b->series[i].state == SERIES_APPLIED)
				strbuf_addstr(&sb, b->series[i].title ? b->series[i].title :
						   b->series[i].id);
		return strbuf_detach(&sb, NULL);
	}
	strbuf_addf(&sb, "backports for %s", ver ? ver + 1 : prefix);
	for (i = 0, n = 0; b && i < b->nr_series; i++)
		if (b->series[i].state == SERIES_APPLIED)
			strbuf_addf(&sb, "%s%s", n++ ? ", " : ": ", b->series[i].id);
	return strbuf_detach(&sb, NULL);
}

/* What the cover letter says of the run: the markdown report of this branch. */
static char *verdict_text(const struct branch_result *b, int recorded, const char *exporter,
			  int verified)
{
	struct run_results one;
	struct strbuf sb = STRBUF_INIT;

	if (!recorded) {
		strbuf_addf(&sb, "Not verified: mkseries has no run of %s recorded; exported "
			    "with --force.\n", b->name);
		return strbuf_detach(&sb, NULL);
	}
	if (!verified)
		strbuf_addstr(&sb, "Exported with --force: the last run below does not vouch "
				   "for this series.\n\n");
	results_init(&one);
	one.tester = xstrdup(exporter);
	/* Borrowed: the branch is only read, and taken back before release. */
	one.branches = (struct branch_result *)b;
	one.nr_branches = 1;
	report_render(&sb, &one, REPORT_MARKDOWN, &(struct report_opts){ 0 });
	one.branches = NULL;
	one.nr_branches = 0;
	results_release(&one);
	return strbuf_detach(&sb, NULL);
}

/*
 * The export's header line: "Verified tree <tree> (t kit at <commit>):
 * mkseries run of 2026-12-06 05:00 UTC", or, exported with --force,
 * "NOT verified (exported with --force): <why>".
 */
static char *header_text(git_repository *repo, const struct branch_result *b, const char *variant,
			 const git_oid *tip, int verified, const char *why)
{
	const struct cell_result *c = branch_find_cell(b, variant ? variant : "kit");
	git_commit *commit = NULL;
	char when[32] = "an unknown date";
	char *ret;
	time_t at;
	struct tm tm;

	if (!verified)
		return xstrfmt("NOT verified (exported with --force): %s", why);
	at = c ? (time_t)c->tested_at : 0;
	if (at && gmtime_r(&at, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	if (git_commit_lookup(&commit, repo, tip))
		git_error_clear();
	ret = xstrfmt("Verified tree %.12s (%s %s at %.12s): mkseries run of %s",
		      commit ? git_oid_tostr_s(git_commit_tree_id(commit)) : "unknown", b->name,
		      variant ? variant : "kit", git_oid_tostr_s(tip), when);
	git_commit_free(commit);
	return ret;
}

static char *default_output(const struct kernel_branch *b, const struct export_args *a,
			    int several)
{
	char *leaf = a->variant ? xstrfmt("%s-%s", b->name, a->variant) : xstrdup(b->name), *ret;

	size_t len;

	if (a->output && several)
		ret = path_join(a->output, leaf);
	else if (a->output)
		ret = xstrdup(a->output);
	else
		ret = xstrfmt("%s-%s", leaf, export_format_name(a->fmt));
	free(leaf);
	/* "out/" is "out": the export is written beside it, then renamed. */
	for (len = strlen(ret); len > 1 && ret[len - 1] == '/'; len--)
		ret[len - 1] = '\0';
	return ret;
}

/* The ref of b (its variant) in repo; 0, or 1 after saying it is not applied. */
static int applied_tip(git_oid *tip, git_oid *base, git_repository *repo,
		       const struct kernel_branch *b, const char *refname, const char *variant,
		       int quiet)
{
	int err = git_reference_name_to_id(tip, repo, refname);

	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		if (!quiet)
			print_error("'%s'%s%s is not applied: no '%s' in '%s' (apply it: mkseries apply "
			      "--branch %s)", b->name, variant ? " variant " : "",
			      variant ? variant : "", refname, git_repository_path(repo), b->name);
		return 1;
	}
	if (err < 0) {
		gitutil_error(err, "cannot read '%s'", refname);
		return 1;
	}
	err = tree_base(base, repo, b);
	if (err == MKS_ENOTFOUND) {
		if (!quiet)
			print_error("'%s' is not applied: it was never imported (apply it: mkseries apply "
			      "--branch %s)", b->name, b->name);
		return 1;
	}
	if (err)
		return 1;
	if (!git_oid_equal(tip, base) && git_graph_descendant_of(repo, tip, base) != 1) {
		print_error("'%s' does not grow from the base of '%s' (%s): the base was imported again "
		      "since (apply again: mkseries apply --branch %s)", refname, b->name,
		      oid_short(base), b->name);
		return 1;
	}
	return 0;
}

/* What was written where, on stdout. */
static void say_written(const struct export_series *s, int verified, const char *dir,
			const struct strvec *files)
{
	size_t i;

	printf("%s: %zu patch%s from %s (%s)", s->branch, s->nr, s->nr == 1 ? "" : "es",
	       s->refname, oid_short(&s->tip));
	if (s->nr_left)
		printf(", %zu left out by the stable policy,", s->nr_left);
	printf(" onto %s, %s, in %s/\n", oid_short(&s->base),
	       verified ? "verified by its last run" : "NOT verified", dir);
	for (i = 0; i < files->nr; i++)
		printf("  %s\n", files->v[i]);
}

/*
 * What the last run of b recorded in workdir, read as report reads it
 * (the kit's claims, what changed since): into res, its one branch.
 * 1 when anything was recorded, 0 when nothing, -1 on a read error.
 */
static int last_run(struct run_results *res, const struct kit *kit, const struct kernel_branch *b,
		    const char *workdir)
{
	struct branch_result *br = results_branch(res, b->name);
	int recorded = results_collect_branch(br, workdir, NULL);

	if (recorded < 0)
		return -1;
	results_use_kit(res, kit);
	results_mark_stale(&res->branches[0], kit, b, workdir);
	return recorded;
}

/* A branch's applied tip and its last run's verdict on it, as export needs them. */
struct export_source {
	git_repository *repo;
	git_repository *clone;	/* a git source's clone, read for its release tags */
	git_repository *mainline;	/* --mainline DIR, read for upstream's messages */
	git_signature *me;
	char *refname, *workdir;
	git_oid tip, base;
	struct run_results res;
	struct strbuf why;	/* why it is not verified */
	int recorded, verified;
};

static void export_source_release(struct export_source *x)
{
	free(x->workdir);
	free(x->refname);
	strbuf_release(&x->why);
	results_release(&x->res);
	git_signature_free(x->me);
	git_repository_free(x->clone);
	git_repository_free(x->mainline);
	git_repository_free(x->repo);
}

/*
 * Open b's repository, find what is applied and whether its last run
 * verified it. Returns an exit status; with several branches, one with
 * nothing to export is skipped (*skipped counts it) and gives 0 with
 * x->repo NULL.
 */
static int export_source_open(struct export_source *x, const struct kit *kit,
			      const struct kernel_branch *b, const struct export_args *a,
			      int several, int *skipped)
{
	int err;

	if (several && !a->repo && b->source.kind == SOURCE_GIT && !b->source.repo) {
		/* Its repository is named by a variable not set here: nothing applied to see. */
		*skipped += 1;
		return 0;
	}
	err = kernel_repo_open(&x->repo, kit, b, a->repo, 0);
	if (err)
		return mks_exit_status(err);
	x->refname = kit_refname(kit, b, a->variant);
	if (applied_tip(&x->tip, &x->base, x->repo, b, x->refname, a->variant, several)) {
		if (several)
			*skipped += 1;
		git_repository_free(x->repo);
		x->repo = NULL;
		return several ? 0 : 1;
	}
	if (backporter_signature(&x->me, x->repo))
		return 2;
	if ((err = kernel_clone_open(&x->clone, kit, b, a->repo)))
		return mks_exit_status(err);
	/* What the last run recorded, read as report reads it. */
	x->workdir = branch_workdir(kit, a->workdir, b);
	if (!x->workdir)
		return 2;
	if ((x->recorded = last_run(&x->res, kit, b, x->workdir)) < 0)
		return 1;
	x->verified = x->recorded &&
		      export_verified(&x->why, x->repo, &x->res.branches[0], a->variant, &x->tip);
	if (!x->recorded)
		strbuf_addf(&x->why, "'%s' was never run: nothing verifies it", b->name);
	if (!x->verified && !a->force) {
		print_error("%s; not exported (verify it: mkseries run --branch %s; or export it "
			    "unverified with --force)", x->why.buf, b->name);
		return 1;
	}
	if (!x->verified)
		warning("%s; exported anyway (--force)", x->why.buf);
	return 0;
}

/*
 * Where upstream's messages come from: --mainline DIR, else the clone a
 * git source names; neither: the kit's messages stay, and the cover
 * letter says so. 0, or 1 when DIR is no repository (printed).
 */
static int messages_from(struct export_series *s, struct export_source *x,
			 const struct export_args *a, const struct kernel_branch *b)
{
	if (a->mainline) {
		int err = git_repository_open_ext(&x->mainline, a->mainline,
						  GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);

		if (err) {
			gitutil_error(err, "--mainline '%s': no git repository there", a->mainline);
			return 1;
		}
		s->messages = x->mainline;
		s->messages_from = a->mainline;
	} else if (x->clone) {
		s->messages = x->clone;
		s->messages_from = b->source.repo ? b->source.repo : "the branch's clone";
	}
	return 0;
}

/* Which backports carry the kit's words, not upstream's, on the terminal as in the cover letter. */
static void say_kit_words(const struct export_series *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (export_say_messages(&sb, s))
		fputs(sb.buf, stdout);
	strbuf_release(&sb);
}

static int export_branch(const struct kit *kit, const struct kernel_branch *b,
			 const struct export_args *a, int several, int *skipped,
			 struct strvec *written)
{
	struct export_source x = { .why = STRBUF_INIT };
	struct export_series s = EXPORT_SERIES_INIT;
	struct strvec files = STRVEC_INIT;
	struct export_cover cover = { NULL, NULL, NULL };
	const struct branch_result *br;
	char *dir = NULL, *title = NULL, *verdict = NULL, *header = NULL;
	int ret;

	results_init(&x.res);
	ret = export_source_open(&x, kit, b, a, several, skipped);
	if (ret || !x.repo)
		goto cleanup;
	ret = 1;
	br = &x.res.branches[0];
	s.branch = xstrdup(b->name);
	s.variant = a->variant ? xstrdup(a->variant) : NULL;
	s.refname = xstrdup(x.refname);
	s.prefix = a->prefix ? xstrdup(a->prefix) : export_default_prefix(b->name);
	s.first = a->start_number;
	if (messages_from(&s, &x, a, b))
		goto cleanup;
	if (export_series_read(&s, x.repo, x.clone, &x.base, &x.tip, x.me))
		goto cleanup;
	if (!s.nr) {
		print_error("'%s' has nothing applied: '%s' is its base %s", b->name, x.refname,
			    oid_short(&x.base));
		goto cleanup;
	}
	if ((b->kind == BRANCH_STABLE || a->stable) && !a->all_patches &&
	    stable_filter(&s, x.repo, kit, b, a->variant, a->force))
		goto cleanup;
	if (!a->include_unmerged && refuse_unmerged(&s))
		goto cleanup;
	cover.title = title = cover_title(x.recorded ? br : NULL, s.prefix);
	cover.verdict = verdict = verdict_text(br, x.recorded, s.exporter, x.verified);
	cover.header = header = header_text(x.repo, br, a->variant, &x.tip, x.verified, x.why.buf);
	dir = default_output(b, a, several);
	if (export_write(&s, a->fmt, dir, &cover, a->replace, &files))
		goto cleanup;
	say_written(&s, x.verified, dir, &files);
	say_kit_words(&s);
	strvec_pushf(written, "%s in %s/", b->name, dir);
	ret = 0;
cleanup:
	free(title);
	free(verdict);
	free(header);
	free(dir);
	strvec_clear(&files);
	export_series_release(&s);
	export_source_release(&x);
	return ret;
}

/*
 * --all writes into every branch's directory or into none: each is
 * checked before the first is written. 0, or 1 after naming each one
 * that is not new or empty.
 */
static int check_all_targets(const struct kit *kit, const struct export_args *a)
{
	size_t i, bad = 0;

	for (i = 0; i < kit->nr_branches; i++) {
		char *dir = default_output(&kit->branches[i], a, 1);

		bad += !export_dir_free(dir, kit->branches[i].name, a->fmt, a->replace);
		free(dir);
	}
	if (!bad)
		return 0;
	print_error("--all exports every branch or none: %zu of its %zu directories %s not new or empty%s; "
	      "empty or remove %s, or export elsewhere with --output", bad, kit->nr_branches,
	      bad == 1 ? "is" : "are", a->replace ? " nor an earlier export" : "",
	      bad == 1 ? "it" : "them");
	return 1;
}

/* After --all, when a branch failed: what was written and what was not, exactly. */
static void say_partial(const struct strvec *written, const struct strvec *failed)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < written->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", written->v[i]);
	if (!written->nr)
		strbuf_addstr(&sb, "nothing");
	strbuf_addstr(&sb, "; not exported: ");
	for (i = 0; i < failed->nr; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", failed->v[i]);
	print_error("--all exported %s (see above)", sb.buf);
	strbuf_release(&sb);
}

/* The variant must be one b declares ("kit" is the kit itself). */
static int check_variant(const struct kernel_branch *b, const char *variant)
{
	struct strbuf known = STRBUF_INIT;
	size_t i;

	for (i = 0; i < b->nr_variants; i++)
		if (!strcmp(b->variants[i].name, variant))
			return 0;
	for (i = 0; i < b->nr_variants; i++)
		strbuf_addf(&known, ", %s", b->variants[i].name);
	print_error("'%s' has no variant '%s' (it has: kit%s)", b->name, shown(variant), known.buf);
	strbuf_release(&known);
	return MKS_ECONFIG;
}

/* The command line's sense, after parsing: 0, or 2 (printed; a usage error exits). */
static int check_args(struct export_args *a, const char *branch, const char *format,
		      const char *usage, const struct option *opts)
{
	if (!a->start_number) {
		print_error("--start-number 0: patch files are numbered from 1 up");
		return 2;
	}
	if (!format) {
		print_error("say which format: --format mbox, quilt or rpm");
		usage_with_options(usage, opts, 2);
	}
	if (export_format_parse(&a->fmt, format))
		return 2;
	if (!branch == !a->all) {
		print_error(branch ? "--branch and --all cannot be used together" :
			       "name a branch with --branch B, or use --all");
		usage_with_options(usage, opts, 2);
	}
	if (a->variant && !strcmp(a->variant, "kit"))
		a->variant = NULL;
	if (a->variant && !strcmp(a->variant, "base")) {
		print_error("variant 'base' is the branch without the kit: there is nothing to export");
		return 2;
	}
	return 0;
}

int cmd_export(int argc, const char **argv)
{
	struct export_args a = { .start_number = 1 };
	struct kit kit = KIT_INIT;
	const char *branch = NULL, *format = NULL;
	struct strvec written = STRVEC_INIT, failed = STRVEC_INIT;
	int ret = 0, skipped = 0, done = 0;
	size_t i;
	const struct option opts[] = {
		OPT_STRING("branch", 'b', &branch, "B", "export this branch's applied kit"),
		OPT_BOOL("all", 0, &a.all, "export every branch where the kit is applied"),
		OPT_STRING("variant", 0, &a.variant, "V", "a declared variant instead of the kit"),
		OPT_STRING("format", 0, &format, "F", "mbox (stable mails), quilt (Debian) or rpm"),
		OPT_STRING("output", 'o', &a.output, "DIR",
		  "write into DIR, new or empty (default <branch>-<format>; with --all DIR/<branch>)"),
		OPT_STRING("subject-prefix", 0, &a.prefix, "P",
		  "mail subjects \"[P N/M]\" (default \"PATCH 6.12.y\" for branch 6.12)"),
		OPT_UINT("start-number", 0, &a.start_number, "N",
		  "number the patch files of mbox and rpm from N, not 1 (as git format-patch)"),
		OPT_BOOL("force", 0, &a.force,
		  "export a branch its last run did not verify (the cover letter says so), "
		  "or a stable series that no longer applies once what stable refuses is left out"),
		OPT_BOOL("replace", 0, &a.replace,
		  "DIR may hold an earlier export of the branch in this format, and nothing else: replace it"),
		OPT_BOOL("all-patches", 0, &a.all_patches,
		  "on a stable branch (or with --stable), also export what the stable rule leaves out"),
		OPT_BOOL("stable", 0, &a.stable,
		  "for a stable release (Debian stable, an LTS, stable@): fixes and their "
		  "prerequisites only, whatever the branch's kind"),
		OPT_STRING("mainline", 0, &a.mainline, "DIR",
		  "take upstream's messages, author dates and merge trailers from this mainline or "
		  "stable clone (default: the clone a git-source branch names)"),
		OPT_BOOL("include-unmerged", 0, &a.include_unmerged,
		  "also export patches with no upstream commit (the kit's own work)"),
		OPT_WORKDIR(&a.workdir),
		OPT_REPO(&a.repo),
		OPT_END(),
	};
	const char *usage = "mkseries export (--branch B | --all) [--variant V] --format mbox|quilt|rpm "
			    "[--output DIR] [--replace] [--subject-prefix P] [--start-number N] "
			    "[--force] [--all-patches] [--stable] [--include-unmerged] [--mainline DIR]";

	parse_options_only(argc, argv, opts, usage);
	if (check_args(&a, branch, format, usage, opts))
		return 2;
	if (kit_open(&kit))
		return 2;
	if (a.all && check_all_targets(&kit, &a)) {
		kit_release(&kit);
		return 1;
	}
	for (i = 0; i < kit.nr_branches; i++) {
		const struct kernel_branch *b = &kit.branches[i];
		int r;

		if (branch && strcmp(b->name, branch))
			continue;
		done++;
		if (a.variant && check_variant(b, a.variant)) {
			if (!a.all) {
				ret = 2;
				break;
			}
			continue;
		}
		r = export_branch(&kit, b, &a, a.all, &skipped, &written);
		if (r)
			strvec_push(&failed, b->name);
		if (r > ret)
			ret = r;
	}
	if (a.all && failed.nr)
		say_partial(&written, &failed);
	if (branch && !done) {
		struct kernel_branch **sel = NULL;
		size_t nr = 0;

		select_branches(&sel, &nr, &kit, branch, 0, 0);	/* says which the kit has */
		free(sel);
		ret = 2;
	} else if (a.all && !ret && skipped == done) {
		print_error("the kit is applied on no branch (apply it: mkseries apply --all)");
		ret = 1;
	}
	strvec_clear(&written);
	strvec_clear(&failed);
	kit_release(&kit);
	return ret;
}

/* builtin/backport.c: `mkseries backport`: apply the kit, and resolve each patch that does not apply into the branch's backport. */
#include <stdio.h>

#include "apply/backportseq.h"
#include "builtin/builtin.h"
#include "kit/select.h"
#include "lib/fs.h"
#include "lib/options.h"
#include "lib/util.h"

/* How each file of the patch came into the work tree. */
static void print_files(const struct backport_result *r, const char *tree)
{
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct backport_file *f = &r->files[i];

		printf("  %-9s %s", backport_how_name(f->how), shown(f->path));
		if (f->how == BACKPORT_CONFLICT)
			printf(" (conflict markers: <<<<<<< tree / >>>>>>> upstream patch)");
		else if (f->how == BACKPORT_PARTIAL)
			printf(" (%zu of %zu hunks in %s, why in %s.why)", f->rejected,
			       f->hunks, shown(f->rej), shown(f->rej));
		if (f->moved)
			printf(" (applied elsewhere than the patch says: %s)", f->moved);
		else if (f->how == BACKPORT_MERGED)
			printf(" (three-way merge, clean)");
		putchar('\n');
	}
}

/* The loop stops at a patch: what the backporter does next. */
static void print_next_steps(const struct backport_loop *l)
{
	error_flush();
	printf("resolve it in %s (edit, build, test), then:\n"
	       "  mkseries backport --branch %s --continue [-e]   record it as the %s backport and go on\n"
	       "  mkseries backport --branch %s --skip -m \"why\"   record a skip decision instead\n"
	       "  mkseries backport --branch %s --abort           drop the loop; the kit as it was\n",
	       l->paths.tree, l->b->name, branch_decisions(l->b), l->b->name, l->b->name);
}

/* The patch that does not apply, the tree checked out for it, and how each file went. */
static void print_checked_out(const struct backport_loop *l, const struct plan_item *it,
			      const struct apply_outcome *before, const struct backport_result *r)
{
	error_flush();
	printf("%s: %s does not apply; the tree it goes on (%s: the base", l->b->name,
	       kit_patch_label(it->patch), oid_short(&before->tip));
	if (before->nr_commits)
		printf(" and the %zu %s before it", before->nr_commits,
		       before->nr_commits == 1 ? "commit" : "commits");
	printf(") is checked out in %s:\n", l->paths.tree);
	print_files(r, l->paths.tree);
}

/* The files whose conflict markers --accept-markers took as meant. */
static void print_accepted(const struct state *st)
{
	struct strvec acc = STRVEC_INIT;
	size_t i;

	loop_state_list(&acc, st, LK_ACCEPTED);
	for (i = 0; i < acc.nr; i++)
		printf("  accepted  %s (its conflict markers are meant: --accept-markers)\n",
		       shown(acc.v[i]));
	strvec_clear(&acc);
}

/* --status: where the loop stands; the exit status says whether anything is left to resolve. */
static int cmd_status(struct backport_loop *l)
{
	struct state st = STATE_INIT;
	struct backport_result r = { 0 };
	struct strbuf left = STRBUF_INIT;
	const char *v;
	int nleft;

	if (state_read(&st, l->paths.patch))
		return 2;
	if (backport_journal_status(&l->paths, l->repo, l->b->name, &st, &left)) {
		fputs(left.buf, stdout);
		strbuf_release(&left);
		state_release(&st);
		return 0;	/* nothing to resolve: --continue finishes the step */
	}
	fputs(left.buf, stdout);
	strbuf_reset(&left);
	if (!(v = loop_state_get(&st, LK_LABEL))) {
		int between = file_exists(l->paths.loop);

		if (between)
			printf("backport loop on '%s': between two patches (interrupted); "
			       "--continue goes on, --abort drops it\n", l->b->name);
		else
			printf("no backport loop in progress on '%s'%s\n", l->b->name,
			       dir_exists(l->paths.starting) ? " (a start was killed: the next "
			       "--continue, --abort or start removes what it wrote)" : "");
		strbuf_release(&left);
		state_release(&st);
		return 0;	/* nothing to resolve either way */
	}
	backport_result_from_state(&r, &st);
	printf("backport loop on '%s'\n", l->b->name);
	printf("  series:  %s\n", shown(loop_state_get(&st, LK_SERIES)));
	printf("  patch:   %s %s %s\n", shown(v), shown(loop_state_get(&st, LK_UPSTREAM)),
	       shown(loop_state_get(&st, LK_SUBJECT)));
	printf("  from:    %s\n", shown(loop_state_get(&st, LK_SOURCE)));
	printf("  tree:    %s (at %.12s)\n", shown(loop_state_get(&st, LK_TREE)),
	       loop_state_get(&st, LK_ONTO) ? loop_state_get(&st, LK_ONTO) : "?");
	print_files(&r, l->paths.tree);
	print_accepted(&st);
	if (!loop_state_get(&st, LK_RECORDED) && !backport_loop_tree_there(l)) {
		printf("the work tree %s is gone; --continue checks the patch out again, "
		       "--abort drops the loop\n", l->paths.tree);
		nleft = 1;
	} else if (loop_state_get(&st, LK_RECORDED)) {
		/* a --continue was killed after the patch was written: what is left is its own */
		printf("recorded as %s; %s\n", shown(loop_state_get(&st, LK_RECORDED)),
		       loop_state_get(&st, LK_DECIDED) ?
		       "--continue removes the work tree and goes on" :
		       "--continue adds its decision to series.yaml and goes on");
		nleft = 0;
	} else if ((nleft = backport_loop_leftovers(&left, l, &st, &r)) > 0) {
		printf("left to do:\n%s", left.buf);
	} else if (!nleft) {
		printf("nothing left to resolve: --continue records it\n");
	}
	strbuf_release(&left);
	backport_result_release(&r);
	state_release(&st);
	return nleft < 0 ? 2 : nleft ? 1 : 0;
}

/* The loop's progress goes to stdout, as it comes, after the errors it kept. */
static void say(const struct backport_loop *l, const char *text)
{
	(void)l;
	error_flush();
	fputs(text, stdout);
}

/* Why a patch does not apply goes to stderr, after the errors kept before it. */
static void report(const struct backport_loop *l, const char *text)
{
	(void)l;
	error_flush();
	fputs(text, stderr);
}

static const struct backport_loop_ops print_ops = {
	.say = say,
	.report = report,
	.checked_out = print_checked_out,
	.stopped = print_next_steps,
};

enum bp_mode { BP_START, BP_CONTINUE, BP_SKIP, BP_ABORT, BP_STATUS };

/* The loop set up, do what `mode` asks (--skip's reason: skip_msg); the exit status. */
static int run_mode(struct backport_loop *l, enum bp_mode mode, const char *skip_msg)
{
	int ret;

	if (mode == BP_STATUS) {
		/* read only: no lock, the repository only when there is a tree to look at */
		if ((file_exists(l->paths.patch) || file_exists(l->paths.journal)) &&
		    backport_loop_open(l, 0))
			return 2;
		return cmd_status(l);
	}
	if ((ret = backport_loop_open(l, KERNEL_REPO_CREATE | KERNEL_REPO_LOCK)))
		return mks_exit_status(ret);
	if (mode != BP_START && backport_loop_check_kit(l))
		return 2;
	if (backport_loop_recover(l, mode == BP_ABORT))
		return 1;
	if (mode == BP_ABORT)
		return mks_exit_status(backport_loop_abort(l));
	if (mode == BP_CONTINUE || mode == BP_SKIP)
		return mks_exit_status(backport_loop_resume(l, mode == BP_SKIP ? skip_msg : NULL));
	return mks_exit_status(backport_loop_start(l));
}

int cmd_backport(int argc, const char **argv)
{
	const char *branch = NULL, *workdir = NULL, *skip_msg = NULL;
	int cont = 0, skip = 0, abort_ = 0, status = 0, modes, nr, ret;
	struct backport_loop_opts lo = { 0 };
	const struct option opts[] = {
		OPT_STRING("branch", 'b', &branch, "B", "the branch to backport to"),
		OPT_BOOL("continue", 0, &cont, "record the resolved tree and go on"),
		OPT_BOOL("skip", 0, &skip, "record a skip decision (-m why) and go on"),
		OPT_BOOL("abort", 0, &abort_, "drop the loop; the kit as it was before it"),
		OPT_BOOL("status", 0, &status, "show where the loop stands"),
		OPT_STRING("message", 'm', &skip_msg, "WHY", "--skip: the reason recorded"),
		OPT_BOOL("edit", 'e', &lo.edit, "--continue: edit the message first"),
		OPT_LIST("accept-markers", 0, &lo.accept, "PATH",
			 "--continue: the conflict markers in PATH are meant to be there"),
		OPT_REPO(&lo.repo),
		OPT_WORKDIR(&workdir),
		OPT_END(),
	};
	const char *usage = "mkseries backport --branch B [SERIES] | --continue [-e] "
			    "[--accept-markers PATH]... | --skip -m WHY | --abort | --status";
	struct kit kit = KIT_INIT;
	struct backport_loop l = BACKPORT_LOOP_INIT;

	strvec_init(&lo.accept);
	nr = parse_options(argc, argv, opts, usage);
	modes = cont + skip + abort_ + status;
	/* parse_options() leaves the arguments from argv[0]: SERIES is argv[0]. */
	if (nr < 0 || modes > 1 || (!branch && !modes) || (nr > 0 && modes) || nr > 1 ||
	    (skip_msg && !skip) || (lo.accept.nr && !cont))
		usage_with_options(usage, opts, 2);
	if (skip && (!skip_msg || !*skip_msg)) {
		print_error("--skip needs the reason it records in series.yaml: --skip -m \"why\"");
		return 2;
	}
	lo.series = nr == 1 ? argv[0] : NULL;
	if (kit_open(&kit)) {
		/* the loop's own edits may be what broke it: --abort still takes them out */
		if (!abort_ || kit_load_kernels(&kit, kit_dir()))
			return 2;
		warning("series.yaml does not load; --abort takes the loop's changes out all the same");
	}
	if (!branch && (ret = backport_loop_find_branch(&branch, &kit, workdir)) != 1) {
		if (!ret && status)
			printf("no backport loop in progress in this kit\n");
		else if (!ret)
			print_error("no backport loop in progress in this kit (start one with "
			      "mkseries backport --branch B)");
		kit_release(&kit);
		strvec_clear(&lo.accept);
		return !ret && status ? 0 : 2;
	}
	if ((ret = backport_loop_setup(&l, &kit, &lo, &print_ops, branch, workdir))) {
		ret = mks_exit_status(ret);
		goto cleanup;
	}
	branch = NULL;	/* it may point into the kit, which backport_loop_decide() reloads */
	ret = run_mode(&l, status ? BP_STATUS : abort_ ? BP_ABORT : cont ? BP_CONTINUE :
		       skip ? BP_SKIP : BP_START, skip_msg);
cleanup:
	backport_loop_release(&l);
	kit_release(&kit);
	strvec_clear(&lo.accept);
	return ret;
}

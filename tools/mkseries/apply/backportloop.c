/* apply/backportloop.c: the backport loop's state directory, and the journal that lets a killed step be finished or rolled back. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/backport.h"
#include "apply/backportloop.h"
#include "lib/fs.h"
#include "tree/workdir.h"

int backport_paths_init(struct backport_paths *lp, const struct kit *kit, const char *workdir_opt,
			const struct kernel_branch *b)
{
	char *workdir = branch_workdir(kit, workdir_opt, b);
	char *p;

	memset(lp, 0, sizeof(*lp));
	if (!workdir)
		return -1;

	lp->dir = path_join(workdir, "backport");
	lp->ended = path_join(workdir, "backport.ended");
	lp->loop = path_join(lp->dir, "loop");
	lp->patch = path_join(lp->dir, "patch");
	lp->journal = path_join(lp->dir, "journal");
	lp->yaml_orig = path_join(lp->dir, "series.yaml.orig");
	lp->tree = path_join(lp->dir, "tree");
	lp->backup = path_join(lp->dir, "replaced");
	/* Per kit, as kit_refname(): two kits' loops on one branch stay apart. */
	lp->keep_prefix = xstrfmt("refs/mkseries-backports/%s/%s/", kit_id(kit), b->name);
	lp->wt_name = xstrfmt("mkseries-backport-%s-%s", kit_id(kit), b->name);
	for (p = lp->wt_name; *p; p++)
		if (*p == '/')
			*p = '-';
	lp->refname = xstrfmt("refs/heads/mkseries-backport/%s/%s", kit_id(kit), b->name);
	free(workdir);
	return 0;
}

void backport_paths_release(struct backport_paths *lp)
{
	free(lp->dir);
	free(lp->ended);
	free(lp->loop);
	free(lp->patch);
	free(lp->journal);
	free(lp->yaml_orig);
	free(lp->tree);
	free(lp->backup);
	free(lp->keep_prefix);
	free(lp->wt_name);
	free(lp->refname);
}

int backport_loop_remove(const struct backport_paths *lp)
{
	if (remove_tree(lp->ended) && errno != ENOENT)
		return error("cannot remove '%s': %s", lp->ended, strerror(errno));
	if (rename(lp->dir, lp->ended)) {
		if (errno == ENOENT)
			return 0;
		return error("cannot rename '%s' to '%s': %s", lp->dir, lp->ended, strerror(errno));
	}
	/* the loop is over; what is left in lp->ended is nobody's */
	test_crash_point("ended");
	if (remove_tree(lp->ended) && errno != ENOENT)
		return error("cannot remove '%s': %s", lp->ended, strerror(errno));
	return 0;
}

int backport_journal_begin(const struct backport_paths *lp, const char *step, const char *label,
			   const char *file)
{
	struct state j = STATE_INIT;
	int ret;

	state_set(&j, "step", step);
	state_set(&j, "label", label ? label : "");
	state_setf(&j, "pid", "%ld", (long)getpid());
	state_setf(&j, "time", "%lld", (long long)time(NULL));
	if (file)
		state_set(&j, "file", file);
	ret = state_write(&j, lp->journal);
	state_release(&j);
	return ret;
}

int backport_journal_done(const struct backport_paths *lp)
{
	if (unlink(lp->journal) && errno != ENOENT)
		return error("cannot remove '%s': %s", lp->journal, strerror(errno));
	return 0;
}

/* What step `step` of the journal was doing, for messages. */
static const char *step_name(const char *step)
{
	if (!step)
		return "an unknown step";
	if (!strcmp(step, "checkout"))
		return "checking out the work tree";
	if (!strcmp(step, "record"))
		return "writing the recorded patch";
	if (!strcmp(step, "decide"))
		return "writing the decision into series.yaml";
	if (!strcmp(step, "finish"))
		return "removing the work tree and the loop's branch";
	if (!strcmp(step, "abort"))
		return "dropping the loop (--abort)";
	return "an unknown step";
}

/* "mkseries pid 123, no longer running[, 5 s ago]" for the journal `j`. */
static void journal_who(struct strbuf *sb, const struct state *j, int when)
{
	const char *pid = state_get(j, "pid"), *t = state_get(j, "time");

	strbuf_addf(sb, "mkseries pid %s", pid ? pid : "?");
	if (pid && kill((pid_t)atol(pid), 0) && errno == ESRCH)
		strbuf_addstr(sb, ", no longer running");
	if (t && when)
		strbuf_addf(sb, ", %lld s ago", (long long)(time(NULL) - atoll(t)));
}

/*
 * The lock a killed step left on the loop's branch: named, with the
 * process the journal says held it, its age and what to do. 0 when
 * there is none, -1 (printed) when there is.
 */
static int journal_ref_lock(const struct backport_paths *lp, git_repository *repo,
			    const struct state *j)
{
	char *lock = xstrfmt("%s%s.lock", git_repository_commondir(repo), lp->refname);
	struct strbuf who = STRBUF_INIT;
	struct stat st;
	int ret = 0;

	if (!lstat(lock, &st)) {
		journal_who(&who, j, 0);
		ret = error("the loop's branch '%s' is locked: '%s' is there, %lld s old, left by "
			    "%s, killed while %s of %s\n"
			    "hint: only the loop writes that branch, and this mkseries holds the "
			    "repository's lock: remove '%s' and run the same command again",
			    lp->refname, lock, (long long)(time(NULL) - st.st_mtime), who.buf,
			    step_name(state_get(j, "step")), shown(state_get(j, "label")), lock);
	}
	strbuf_release(&who);
	free(lock);
	return ret;
}

int backport_journal_recover(const struct backport_paths *lp, git_repository *repo,
			     const char *kit_dir, int aborting, struct strbuf *said)
{
	struct state j = STATE_INIT, st = STATE_INIT;
	struct strbuf who = STRBUF_INIT;
	const char *step, *file;
	int ret = -1;

	if (!file_exists(lp->journal))
		return 0;
	if (state_read(&j, lp->journal))
		goto cleanup;
	step = state_get(&j, "step") ? state_get(&j, "step") : "";
	file = state_get(&j, "file");
	journal_who(&who, &j, 1);
	if (!strcmp(step, "abort")) {
		/* half the kit may be put back already: going on would build on that */
		if (aborting)
			strbuf_addf(said, "an --abort of this loop was killed (%s): "
				    "doing it again\n", who.buf);
		else
			error("an --abort of this loop was killed (%s): the kit may be half put "
			      "back; run mkseries backport --abort again to finish it", who.buf);
		ret = aborting ? 0 : -1;
		goto cleanup;
	}
	strbuf_addf(said, "the loop was killed while %s of %s (%s)\n", step_name(step),
		    shown(state_get(&j, "label")), who.buf);
	if (!strcmp(step, "checkout") || !strcmp(step, "finish")) {
		int tree_kept;

		if (state_read(&st, lp->patch))
			goto cleanup;
		/* the `patch` state written: the checkout was done */
		tree_kept = !strcmp(step, "checkout") && state_get(&st, "label");
		if (!tree_kept) {
			if (journal_ref_lock(lp, repo, &j) ||
			    backport_worktree_remove(repo, lp->wt_name, lp->tree, lp->refname))
				goto cleanup;
			if (!strcmp(step, "finish") && unlink(lp->patch) && errno != ENOENT) {
				error("cannot remove '%s': %s", lp->patch, strerror(errno));
				goto cleanup;
			}
		}
		strbuf_addf(said, "%s\n", tree_kept ? "the work tree was checked out before that" :
			    !strcmp(step, "finish") ?
			    "removed what was left of its work tree and branch" :
			    "removed the half checked-out work tree");
	} else if (!strcmp(step, "record") || !strcmp(step, "decide")) {
		if (file)
			backport_remove_temp_files(kit_dir, file, said);
	} else {
		error("'%s' names a step this mkseries does not know: '%s'", lp->journal,
		      shown(step));
		goto cleanup;
	}
	ret = backport_journal_done(lp);
cleanup:
	strbuf_release(&who);
	state_release(&st);
	state_release(&j);
	return ret;
}

int backport_journal_status(const struct backport_paths *lp, git_repository *repo,
			    const char *branch, const struct state *patch, struct strbuf *said)
{
	struct state j = STATE_INIT;
	struct strbuf who = STRBUF_INIT;
	const char *step;
	int ret = 0;

	if (!file_exists(lp->journal) || state_read(&j, lp->journal))
		goto cleanup;
	step = state_get(&j, "step") ? state_get(&j, "step") : "";
	journal_who(&who, &j, 1);
	if (!strcmp(step, "abort")) {
		strbuf_addf(said, "backport loop on '%s': interrupted: its --abort was killed (%s)\n"
			    "  the kit may be half put back; --abort finishes it\n", branch, who.buf);
		ret = 1;
		goto cleanup;
	}
	strbuf_addf(said, "backport loop on '%s': interrupted: killed while %s of %s (%s)\n",
		    branch, step_name(step), shown(state_get(&j, "label")), who.buf);
	if (repo)
		journal_ref_lock(lp, repo, &j);
	if (!strcmp(step, "finish")) {
		strbuf_addf(said, "  it is %s; --continue removes what is left of its work tree "
			    "and goes on,\n  --abort drops the loop\n",
			    state_get(patch, "recorded") ? "recorded" : "recorded or skipped");
		ret = 1;
	} else if (!strcmp(step, "checkout") && !state_get(patch, "label")) {
		strbuf_addstr(said, "  --continue removes the half checked-out tree and checks it "
			      "out again,\n  --abort drops the loop\n");
		ret = 1;
	} else if (state_get(&j, "file")) {
		strbuf_addf(said, "  --continue removes the temporary file it left beside %s and "
			    "does the step again; --abort drops the loop\n",
			    shown(state_get(&j, "file")));
	}
cleanup:
	strbuf_release(&who);
	state_release(&j);
	return ret;
}

void backport_remove_temp_files(const char *kit_dir, const char *rel, struct strbuf *said)
{
	char *abs = path_join(kit_dir, rel), *slash = strrchr(abs, '/');
	const char *base = slash ? slash + 1 : abs;
	const char *rs = strrchr(rel, '/');
	char *prefix = xstrfmt("%s.tmp.", base);
	struct dirent *de;
	DIR *d;

	if (slash)
		*slash = '\0';
	d = opendir(slash ? abs : ".");
	while (d && (de = readdir(d))) {
		struct strbuf why = STRBUF_INIT;
		char *trel;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		trel = rs ? xstrfmt("%.*s/%s", (int)(rs - rel), rel, de->d_name) :
			    xstrdup(de->d_name);
		if (!fs_unlink_beneath(kit_dir, trel, &why))
			strbuf_addf(said, "removed %s (left by a mkseries that was killed)\n",
				    shown(trel));
		strbuf_release(&why);
		free(trel);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(abs);
}

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
#include "lib/gitutil.h"
#include "tree/workdir.h"

int backport_paths_init(struct backport_paths *lp, const struct kit *kit, const char *workdir_opt,
			const struct kernel_branch *b)
{
	char *workdir = branch_workdir(kit, workdir_opt, b);
	char *p;

	memset(lp, 0, sizeof(*lp));
	if (!workdir)
		return -1;

	lp->dir = workdir_path(workdir, WD_BACKPORT, NULL);
	/* beside it: a loop that ended, and one being started */
	lp->ended = xstrfmt("%s.ended", lp->dir);
	lp->starting = xstrfmt("%s.new", lp->dir);
	lp->loop = path_join(lp->dir, "loop");
	lp->patch = path_join(lp->dir, "patch");
	lp->journal = path_join(lp->dir, "journal");
	lp->yaml_orig = path_join(lp->dir, "series.yaml.orig");
	lp->tree = path_join(lp->dir, "tree");
	lp->backup = path_join(lp->dir, "replaced");
	lp->index_writer = path_join(lp->dir, "index.writer");
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
	free(lp->starting);
	free(lp->loop);
	free(lp->patch);
	free(lp->journal);
	free(lp->yaml_orig);
	free(lp->tree);
	free(lp->backup);
	free(lp->index_writer);
	free(lp->keep_prefix);
	free(lp->wt_name);
	free(lp->refname);
}

int backport_loop_begin(const struct backport_paths *lp, const char *yaml, size_t len,
			const struct state *loop)
{
	char *orig = path_join(lp->starting, "series.yaml.orig");
	char *state = path_join(lp->starting, "loop");
	int ret = 0;

	if ((remove_tree(lp->starting) && errno != ENOENT) || mkdir_p(lp->starting, 0755) ||
	    write_file_atomic(orig, yaml, len) || state_write(loop, state)) {
		ret = error("cannot write the loop's state in '%s': %s", lp->starting,
			    strerror(errno));
	} else {
		test_crash_point("starting");
		if (rename(lp->starting, lp->dir))
			ret = error("cannot rename '%s' to '%s': %s", lp->starting, lp->dir,
				    strerror(errno));
	}
	free(state);
	free(orig);
	return ret;
}

int backport_loop_remove(const struct backport_paths *lp)
{
	if (remove_tree(lp->ended) && errno != ENOENT)
		return error("cannot remove '%s': %s", lp->ended, strerror(errno));
	if (remove_tree(lp->starting) && errno != ENOENT)
		return error("cannot remove '%s': %s", lp->starting, strerror(errno));
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
	if (!strcmp(step, "index"))
		return "writing the work tree's index";
	if (!strcmp(step, "keep"))
		return "writing the ref that keeps the recorded backport";
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

/* Whether the process `pid` (a decimal string) is gone. */
static int pid_gone(const char *pid)
{
	long n = pid ? atol(pid) : 0;

	return n > 0 && kill((pid_t)n, 0) && errno == ESRCH;
}

/*
 * The lock file `lock` (of `what`: "the loop's branch 'refs/...'"), when
 * it is there. A lock no older than the step journal `j` shows killed,
 * whose mkseries is gone, is the loop's own: removed (`status`: only
 * said) and named in `said`. Any other is named with its age, who may
 * hold it and what to do: -1 (printed). 0 when there is none, or it is
 * gone now.
 */
static int journal_unlock(const char *lock, const char *what, const struct state *j, int status,
			  struct strbuf *said)
{
	const char *t = state_get(j, "time"), *pid = state_get(j, "pid");
	struct strbuf who = STRBUF_INIT;
	struct stat st;
	long long age;
	int ours, ret = 0;

	if (lstat(lock, &st))
		return 0;
	age = (long long)(time(NULL) - st.st_mtime);
	/* a second's slack: the file system's clock may round down */
	ours = pid_gone(pid) && t && (long long)st.st_mtime + 1 >= atoll(t);
	journal_who(&who, j, 0);
	if (ours && status) {
		strbuf_addf(said, "  %s is locked: '%s' (%lld s old) was left by %s, killed while "
			    "%s; --continue or --abort removes it\n", what, lock, age, who.buf,
			    step_name(state_get(j, "step")));
	} else if (ours && !unlink(lock)) {
		strbuf_addf(said, "removed the lock '%s' on %s (%lld s old), left by %s\n", lock,
			    what, age, who.buf);
	} else if (ours) {
		ret = error("cannot remove the lock '%s' on %s: %s", lock, what, strerror(errno));
	} else {
		ret = error("%s is locked: '%s' is there, %lld s old, %s\n"
			    "hint: if no git or mkseries runs on this repository, remove '%s' and "
			    "run the same command again", what, lock, age,
			    !pid ? "and no step of the loop was writing it (not the loop's own)" :
			    !pid_gone(pid) ? "and the mkseries that was under way (pid of the journal) "
			    "still runs" :
			    "older than the step a killed mkseries left (not the loop's own)", lock);
	}
	strbuf_release(&who);
	return ret;
}

/*
 * The locks a step killed at journal `j` may have left: on the loop's
 * branch (checking out, finishing, --abort) and on the refs that keep
 * the recorded backports (recording); each the loop's own is removed,
 * or only named when `status`, in `said`. -1 (printed) when one is not
 * the loop's own.
 */
static int journal_unlock_refs(const struct backport_paths *lp, git_repository *repo,
			       const struct state *j, int status, struct strbuf *said)
{
	const char *common = git_repository_commondir(repo);
	char *lock = xstrfmt("%s%s.lock", common, lp->refname);
	char *what = xstrfmt("the loop's branch '%s'", lp->refname);
	char *keep = xstrfmt("%s%s", common, lp->keep_prefix);
	struct dirent *de;
	DIR *d;
	int ret = journal_unlock(lock, what, j, status, said);

	d = opendir(keep);
	while (d && (de = readdir(d))) {
		if (!ends_with(de->d_name, ".lock"))
			continue;
		free(lock);
		free(what);
		lock = path_join(keep, de->d_name);
		what = xstrfmt("the ref '%s%.*s' that keeps a recorded backport", lp->keep_prefix,
			       (int)(strlen(de->d_name) - 5), de->d_name);
		if (journal_unlock(lock, what, j, status, said))
			ret = -1;
	}
	if (d)
		closedir(d);
	free(keep);
	free(what);
	free(lock);
	return ret;
}

int backport_index_begin(const struct backport_paths *lp)
{
	struct state w = STATE_INIT;
	int ret;

	state_set(&w, "step", "index");
	state_setf(&w, "pid", "%ld", (long)getpid());
	state_setf(&w, "time", "%lld", (long long)time(NULL));
	ret = state_write(&w, lp->index_writer);
	state_release(&w);
	return ret;
}

void backport_index_done(const struct backport_paths *lp)
{
	/* a note left behind is harmless: its process is gone, no lock is younger than it */
	unlink(lp->index_writer);
}

int backport_index_unlock(const struct backport_paths *lp, git_repository *repo,
			  struct strbuf *said)
{
	struct state w = STATE_INIT;
	char *lock = xstrfmt("%sworktrees/%s/index.lock", git_repository_commondir(repo),
			     lp->wt_name);
	int ret = state_read(&w, lp->index_writer) ? -1 :
		  journal_unlock(lock, "the work tree's index", &w, 0, said);

	state_release(&w);
	free(lock);
	return ret;
}

/*
 * The temporary files ("<name>.tmp.<pid>") a killed mkseries left in
 * the loop's directory while it wrote one of its states: removed when
 * that mkseries is gone, and named in `said`.
 */
static void remove_dead_temps(const struct backport_paths *lp, struct strbuf *said)
{
	struct dirent *de;
	DIR *d = opendir(lp->dir);

	while (d && (de = readdir(d))) {
		const char *t = strstr(de->d_name, ".tmp."), *pid;
		char *abs;

		if (!t || !*(pid = t + 5) || strspn(pid, "0123456789") != strlen(pid) ||
		    !pid_gone(pid))
			continue;
		abs = path_join(lp->dir, de->d_name);
		if (!unlink(abs))
			strbuf_addf(said, "removed %s (left by mkseries pid %s, killed while it "
				    "wrote the loop's state)\n", abs, pid);
		free(abs);
	}
	if (d)
		closedir(d);
}

int backport_journal_recover(const struct backport_paths *lp, git_repository *repo,
			     const char *kit_dir, int aborting, struct strbuf *said)
{
	struct state j = STATE_INIT, st = STATE_INIT;
	struct strbuf who = STRBUF_INIT;
	const char *step, *file;
	int ret = -1;

	remove_dead_temps(lp, said);
	if (!file_exists(lp->journal))
		return 0;
	if (state_read(&j, lp->journal))
		goto cleanup;
	step = state_get(&j, "step") ? state_get(&j, "step") : "";
	file = state_get(&j, "file");
	journal_who(&who, &j, 1);
	if (!strcmp(step, "abort")) {
		/* half the kit may be put back already: going on would build on that */
		if (aborting) {
			strbuf_addf(said, "an --abort of this loop was killed (%s): "
				    "doing it again\n", who.buf);
			ret = journal_unlock_refs(lp, repo, &j, 0, said);
			goto cleanup;
		} else
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
			if (journal_unlock_refs(lp, repo, &j, 0, said) ||
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
	} else if (!strcmp(step, "keep")) {
		/* the commit is written, its keep ref maybe not: the rerun writes both again */
		if (journal_unlock_refs(lp, repo, &j, 0, said))
			goto cleanup;
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
		if (repo)
			journal_unlock_refs(lp, repo, &j, 1, said);
		ret = 1;
		goto cleanup;
	}
	strbuf_addf(said, "backport loop on '%s': interrupted: killed while %s of %s (%s)\n",
		    branch, step_name(step), shown(state_get(&j, "label")), who.buf);
	if (repo)
		journal_unlock_refs(lp, repo, &j, 1, said);
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

/* The number under key "<key>.<i>" of the state, 0 when absent. */
static size_t state_size(const struct state *st, const char *key, size_t i)
{
	char *k = xstrfmt("%s.%zu", key, i);
	const char *v = state_get(st, k);

	free(k);
	return v ? (size_t)strtoul(v, NULL, 10) : 0;
}

/* The value under key "<key>.<i>" of the state, or NULL. */
static const char *state_at(const struct state *st, const char *key, size_t i)
{
	char *k = xstrfmt("%s.%zu", key, i);
	const char *v = state_get(st, k);

	free(k);
	return v;
}

void backport_result_from_state(struct backport_result *r, const struct state *st)
{
	size_t i;

	for (i = 0;; i++) {
		const char *path = state_at(st, "file", i), *how = state_at(st, "how", i), *v;
		struct backport_file *f;

		if (!path || !how)
			break;
		ALLOC_GROW(r->files, r->nr + 1, r->alloc);
		f = &r->files[r->nr++];
		memset(f, 0, sizeof(*f));
		f->path = xstrdup(path);
		f->how = (enum backport_how)atoi(how);
		f->hunks = state_size(st, "hunks", i);
		f->rejected = state_size(st, "rejected", i);
		f->markers = (unsigned)state_size(st, "markers", i);
		if ((v = state_at(st, "moved", i)) && *v)
			f->moved = xstrdup(v);
		/* a loop an older mkseries started named it <path>.rej */
		v = state_at(st, "rej", i);
		f->rej = v && *v ? xstrdup(v) : xstrfmt("%s.rej", path);
		/* a loop an older mkseries started has none: what it wrote is not known */
		if ((v = state_at(st, "wrote", i)) && !git_oid_fromstr(&f->wrote, v))
			f->wrote_known = 1;
	}
}

/* state_set() of "<key>.<i>". */
static void state_set_at(struct state *st, const char *key, size_t i, const char *v)
{
	char *k = xstrfmt("%s.%zu", key, i);

	state_set(st, k, v);
	free(k);
}

void backport_result_to_state(struct state *st, const struct backport_result *r)
{
	char num[32];
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct backport_file *f = &r->files[i];

		state_set_at(st, "file", i, f->path);
		snprintf(num, sizeof(num), "%d", (int)f->how);
		state_set_at(st, "how", i, num);
		snprintf(num, sizeof(num), "%zu", f->hunks);
		state_set_at(st, "hunks", i, num);
		snprintf(num, sizeof(num), "%zu", f->rejected);
		state_set_at(st, "rejected", i, num);
		state_set_at(st, "moved", i, f->moved ? f->moved : "");
		state_set_at(st, "rej", i, f->rej);
		snprintf(num, sizeof(num), "%u", f->markers);
		state_set_at(st, "markers", i, num);
		if (f->wrote_known)
			state_set_at(st, "wrote", i, git_oid_tostr_s(&f->wrote));
	}
}

void backport_state_list(struct strvec *out, const struct state *st, const char *key)
{
	size_t i;
	const char *v;

	for (i = 0; (v = state_at(st, key, i)); i++)
		strvec_push(out, v);
}

/* Delete ref `name` when it is there; its lock is named. */
static int delete_ref(git_repository *repo, const char *name, struct strbuf *said)
{
	git_reference *ref = NULL;
	int err = git_reference_lookup(&ref, repo, name);

	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (err >= 0)
		err = git_reference_delete(ref);
	git_reference_free(ref);
	if (err == GIT_ELOCKED)
		return ref_locked_error(repo, name);
	if (err < 0)
		return gitutil_error(err, "cannot delete '%s'", name);
	strbuf_addf(said, "deleted %s\n", name);
	return 0;
}

int backport_abort_refs(git_repository *repo, const struct state *loop, const char *kit_ref,
			struct strbuf *said)
{
	struct strvec keep = STRVEC_INIT;
	const char *was = state_get(loop, "kit_ref");
	git_oid old, now;
	size_t i;
	int ret = 0;

	backport_state_list(&keep, loop, "keep");
	for (i = 0; i < keep.nr; i++)
		if (delete_ref(repo, keep.v[i], said))
			ret = -1;
	strvec_clear(&keep);
	if (!was)
		return ret;	/* a loop an older mkseries started: not known */
	if (!*was)
		return delete_ref(repo, kit_ref, said) ? -1 : ret;
	if (git_oid_fromstr(&old, was))
		return error("the loop's state names no valid commit for '%s': '%s'", kit_ref,
			     shown(was));
	if (!git_reference_name_to_id(&now, repo, kit_ref) && git_oid_equal(&now, &old))
		return ret;
	git_error_clear();
	if (ref_update(repo, kit_ref, &old, NULL, 1, "mkseries backport --abort: as before the loop"))
		return -1;
	strbuf_addf(said, "put back %s at %s, where it was before the loop\n", kit_ref,
		    oid_short(&old));
	return ret;
}

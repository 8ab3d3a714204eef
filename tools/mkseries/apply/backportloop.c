/* apply/backportloop.c: the backport loop's state directory, and the journal that lets a killed step be finished or rolled back. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/backport.h"
#include "apply/backportloop.h"
#include "lib/fs.h"
#include "lib/gitutil.h"
#include "tree/workdir.h"

static const char *const loop_key_names[LK__NR] = {
	[LK_BRANCH] = "branch",
	[LK_KIT] = "kit",
	[LK_KIT_REF] = "kit_ref",
	[LK_KEEP] = "keep",
	[LK_CREATED] = "created",
	[LK_REPLACED] = "replaced",
	[LK_BACKUP] = "backup",
	[LK_SERIES] = "series",
	[LK_LIST] = "list",
	[LK_INDEX] = "index",
	[LK_LABEL] = "label",
	[LK_UPSTREAM] = "upstream",
	[LK_SUBJECT] = "subject",
	[LK_SOURCE] = "source",
	[LK_REPLACES] = "replaces",
	[LK_ONTO] = "onto",
	[LK_TREE] = "tree",
	[LK_TARGET] = "target",
	[LK_RECORDED] = "recorded",
	[LK_DECIDED] = "decided",
	[LK_ACCEPTED] = "accepted",
	[LK_FILE] = "file",
	[LK_HOW] = "how",
	[LK_HUNKS] = "hunks",
	[LK_REJECTED] = "rejected",
	[LK_MOVED] = "moved",
	[LK_REJ] = "rej",
	[LK_MARKERS] = "markers",
	[LK_WROTE] = "wrote",
	[LK_STEP] = "step",
	[LK_PID] = "pid",
	[LK_TIME] = "time",
};

const char *loop_key_name(enum loop_key k)
{
	if ((size_t)k >= LK__NR || !loop_key_names[k])
		BUG("loop state key %d has no name", (int)k);
	return loop_key_names[k];
}

const char *loop_state_get(const struct state *st, enum loop_key k)
{
	return state_get(st, loop_key_name(k));
}

void loop_state_set(struct state *st, enum loop_key k, const char *value)
{
	state_set(st, loop_key_name(k), value);
}

void loop_state_setf(struct state *st, enum loop_key k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	state_vsetf(st, loop_key_name(k), fmt, ap);
	va_end(ap);
}

/* "<key>.<i>": the name of item i of indexed key k. Caller frees. */
static char *loop_key_at(enum loop_key k, size_t i)
{
	return xstrfmt("%s.%zu", loop_key_name(k), i);
}

const char *loop_state_get_at(const struct state *st, enum loop_key k, size_t i)
{
	char *key = loop_key_at(k, i);
	const char *v = state_get(st, key);

	free(key);
	return v;
}

void loop_state_set_at(struct state *st, enum loop_key k, size_t i, const char *value)
{
	char *key = loop_key_at(k, i);

	state_set(st, key, value);
	free(key);
}

size_t loop_state_append(struct state *st, enum loop_key k, const char *value)
{
	size_t i = 0;

	while (loop_state_get_at(st, k, i))
		i++;
	loop_state_set_at(st, k, i, value);
	return i;
}

void loop_state_list(struct strvec *out, const struct state *st, enum loop_key k)
{
	size_t i;
	const char *v;

	for (i = 0; (v = loop_state_get_at(st, k, i)); i++)
		strvec_push(out, v);
}

/* lp's files in the work directory `workdir` of b, whose loop it is. */
static void paths_in(struct backport_paths *lp, const struct kit *kit, const char *workdir,
		     const struct kernel_branch *b)
{
	char *p;

	memset(lp, 0, sizeof(*lp));
	lp->dir = workdir_path(workdir, WD_BACKPORT, NULL);
	/* beside it: a loop that ended, and one being started */
	lp->ended = xstrfmt("%s.ended", lp->dir);
	lp->starting = xstrfmt("%s.new", lp->dir);
	lp->loop = path_join(lp->dir, "loop");
	lp->patch = path_join(lp->dir, "patch");
	lp->journal = path_join(lp->dir, "journal");
	lp->yaml_orig = path_join(lp->dir, "series.yaml.orig");
	lp->yaml_loop = path_join(lp->dir, "series.yaml.loop");
	lp->yaml_next = xstrfmt("%s.next", lp->yaml_loop);
	lp->message = path_join(lp->dir, "MESSAGE");
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
}

int backport_paths_init(struct backport_paths *lp, const struct kit *kit, const char *workdir_opt,
			const struct kernel_branch *b)
{
	char *workdir = branch_workdir(kit, workdir_opt, b);

	if (!workdir) {
		memset(lp, 0, sizeof(*lp));
		return -1;
	}
	paths_in(lp, kit, workdir, b);
	free(workdir);
	return 0;
}

int backport_loop_in_progress(const struct kit *kit, const struct kernel_branch *b,
			      const char *workdir)
{
	struct backport_paths lp;
	int ret;

	paths_in(&lp, kit, workdir, b);
	ret = file_exists(lp.loop) || file_exists(lp.patch);
	backport_paths_release(&lp);
	return ret;
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
	free(lp->yaml_loop);
	free(lp->yaml_next);
	free(lp->message);
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

int backport_loop_note(const struct backport_paths *lp, enum loop_key key, const char *rel)
{
	struct state st = STATE_INIT;
	int ret = -1;

	if (!state_read(&st, lp->loop)) {
		loop_state_append(&st, key, rel);
		ret = state_write(&st, lp->loop);
	}
	state_release(&st);
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

/* Each step's name in the journal, and what it was doing, for messages. */
static const struct {
	const char *name, *doing;
} steps[BS__NR] = {
	[BS_CHECKOUT] = { "checkout", "checking out the work tree" },
	[BS_RECORD] = { "record", "writing the recorded patch" },
	[BS_DECIDE] = { "decide", "writing the decision into series.yaml" },
	[BS_FINISH] = { "finish", "removing the work tree and the loop's branch" },
	[BS_KEEP] = { "keep", "writing the ref that keeps the recorded backport" },
	[BS_ABORT] = { "abort", "dropping the loop (--abort)" },
	[BS_INDEX] = { "index", "writing the work tree's index" },
};

/* The step journal `j` names; BS__NR for none this mkseries knows. */
static enum backport_step journal_step(const struct state *j)
{
	const char *step = loop_state_get(j, LK_STEP);
	int i;

	for (i = 0; step && i < BS__NR; i++)
		if (!strcmp(step, steps[i].name))
			return (enum backport_step)i;
	return BS__NR;
}

/* What step `s` was doing, for messages. */
static const char *step_doing(enum backport_step s)
{
	return s < BS__NR ? steps[s].doing : "an unknown step";
}

int backport_journal_begin(const struct backport_paths *lp, enum backport_step step,
			   const char *label, const char *file)
{
	struct state j = STATE_INIT;
	int ret;

	if ((size_t)step >= BS__NR)
		BUG("journal step %d", (int)step);
	loop_state_set(&j, LK_STEP, steps[step].name);
	loop_state_set(&j, LK_LABEL, label ? label : "");
	loop_state_setf(&j, LK_PID, "%ld", (long)getpid());
	loop_state_setf(&j, LK_TIME, "%lld", (long long)time(NULL));
	if (file)
		loop_state_set(&j, LK_FILE, file);
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

/* "mkseries pid 123, no longer running[, 5 s ago]" for the journal `j`. */
static void journal_who(struct strbuf *sb, const struct state *j, int when)
{
	const char *pid = loop_state_get(j, LK_PID), *t = loop_state_get(j, LK_TIME);

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
	const char *t = loop_state_get(j, LK_TIME), *pid = loop_state_get(j, LK_PID);
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
			    step_doing(journal_step(j)));
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

	loop_state_set(&w, LK_STEP, steps[BS_INDEX].name);
	loop_state_setf(&w, LK_PID, "%ld", (long)getpid());
	loop_state_setf(&w, LK_TIME, "%lld", (long long)time(NULL));
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
	enum backport_step bs;
	int ret = -1;

	remove_dead_temps(lp, said);
	if (!file_exists(lp->journal))
		return 0;
	if (state_read(&j, lp->journal))
		goto cleanup;
	step = loop_state_get(&j, LK_STEP) ? loop_state_get(&j, LK_STEP) : "";
	bs = journal_step(&j);
	file = loop_state_get(&j, LK_FILE);
	journal_who(&who, &j, 1);
	if (bs == BS_ABORT) {
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
	strbuf_addf(said, "the loop was killed while %s of %s (%s)\n", step_doing(bs),
		    shown(loop_state_get(&j, LK_LABEL)), who.buf);
	if (bs == BS_CHECKOUT || bs == BS_FINISH) {
		int tree_kept;

		if (state_read(&st, lp->patch))
			goto cleanup;
		/* the `patch` state written: the checkout was done */
		tree_kept = bs == BS_CHECKOUT && loop_state_get(&st, LK_LABEL);
		if (!tree_kept) {
			if (journal_unlock_refs(lp, repo, &j, 0, said) ||
			    backport_worktree_remove(repo, lp->wt_name, lp->tree, lp->refname))
				goto cleanup;
			if (bs == BS_FINISH && unlink(lp->patch) && errno != ENOENT) {
				error("cannot remove '%s': %s", lp->patch, strerror(errno));
				goto cleanup;
			}
		}
		strbuf_addf(said, "%s\n", tree_kept ? "the work tree was checked out before that" :
			    bs == BS_FINISH ?
			    "removed what was left of its work tree and branch" :
			    "removed the half checked-out work tree");
	} else if (bs == BS_RECORD || bs == BS_DECIDE) {
		if (file)
			backport_remove_temp_files(kit_dir, file, said);
	} else if (bs == BS_KEEP) {
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
	enum backport_step bs;
	int ret = 0;

	if (!file_exists(lp->journal) || state_read(&j, lp->journal))
		goto cleanup;
	bs = journal_step(&j);
	journal_who(&who, &j, 1);
	if (bs == BS_ABORT) {
		strbuf_addf(said, "backport loop on '%s': interrupted: its --abort was killed (%s)\n"
			    "  the kit may be half put back; --abort finishes it\n", branch, who.buf);
		if (repo)
			journal_unlock_refs(lp, repo, &j, 1, said);
		ret = 1;
		goto cleanup;
	}
	strbuf_addf(said, "backport loop on '%s': interrupted: killed while %s of %s (%s)\n",
		    branch, step_doing(bs), shown(loop_state_get(&j, LK_LABEL)), who.buf);
	if (repo)
		journal_unlock_refs(lp, repo, &j, 1, said);
	if (bs == BS_FINISH) {
		strbuf_addf(said, "  it is %s; --continue removes what is left of its work tree "
			    "and goes on,\n  --abort drops the loop\n",
			    loop_state_get(patch, LK_RECORDED) ? "recorded" : "recorded or skipped");
		ret = 1;
	} else if (bs == BS_CHECKOUT && !loop_state_get(patch, LK_LABEL)) {
		strbuf_addstr(said, "  --continue removes the half checked-out tree and checks it "
			      "out again,\n  --abort drops the loop\n");
		ret = 1;
	} else if (loop_state_get(&j, LK_FILE)) {
		strbuf_addf(said, "  --continue removes the temporary file it left beside %s and "
			    "does the step again; --abort drops the loop\n",
			    shown(loop_state_get(&j, LK_FILE)));
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
static size_t state_size(const struct state *st, enum loop_key k, size_t i)
{
	const char *v = loop_state_get_at(st, k, i);

	return v ? (size_t)strtoul(v, NULL, 10) : 0;
}

void backport_result_from_state(struct backport_result *r, const struct state *st)
{
	size_t i;

	for (i = 0;; i++) {
		const char *path = loop_state_get_at(st, LK_FILE, i), *how = loop_state_get_at(st, LK_HOW, i), *v;
		struct backport_file *f;

		if (!path || !how)
			break;
		ALLOC_GROW(r->files, r->nr + 1, r->alloc);
		f = &r->files[r->nr++];
		memset(f, 0, sizeof(*f));
		f->path = xstrdup(path);
		f->how = (enum backport_how)atoi(how);
		f->hunks = state_size(st, LK_HUNKS, i);
		f->rejected = state_size(st, LK_REJECTED, i);
		f->markers = (unsigned)state_size(st, LK_MARKERS, i);
		if ((v = loop_state_get_at(st, LK_MOVED, i)) && *v)
			f->moved = xstrdup(v);
		/* a loop an older mkseries started named it <path>.rej */
		v = loop_state_get_at(st, LK_REJ, i);
		f->rej = v && *v ? xstrdup(v) : xstrfmt("%s.rej", path);
		/* a loop an older mkseries started has none: what it wrote is not known */
		if ((v = loop_state_get_at(st, LK_WROTE, i)) && !git_oid_fromstr(&f->wrote, v))
			f->wrote_known = 1;
	}
}

void backport_result_to_state(struct state *st, const struct backport_result *r)
{
	char num[32];
	size_t i;

	for (i = 0; i < r->nr; i++) {
		const struct backport_file *f = &r->files[i];

		loop_state_set_at(st, LK_FILE, i, f->path);
		snprintf(num, sizeof(num), "%d", (int)f->how);
		loop_state_set_at(st, LK_HOW, i, num);
		snprintf(num, sizeof(num), "%zu", f->hunks);
		loop_state_set_at(st, LK_HUNKS, i, num);
		snprintf(num, sizeof(num), "%zu", f->rejected);
		loop_state_set_at(st, LK_REJECTED, i, num);
		loop_state_set_at(st, LK_MOVED, i, f->moved ? f->moved : "");
		loop_state_set_at(st, LK_REJ, i, f->rej);
		snprintf(num, sizeof(num), "%u", f->markers);
		loop_state_set_at(st, LK_MARKERS, i, num);
		if (f->wrote_known)
			loop_state_set_at(st, LK_WROTE, i, git_oid_tostr_s(&f->wrote));
	}
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
	const char *was = loop_state_get(loop, LK_KIT_REF);
	git_oid old, now;
	size_t i;
	int ret = 0;

	loop_state_list(&keep, loop, LK_KEEP);
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

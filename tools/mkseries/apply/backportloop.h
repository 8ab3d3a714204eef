/* apply/backportloop.h: where the backport loop keeps its state, and its journal of the step under way, so that a killed run is finished or rolled back by the next. */
#ifndef MKSERIES_BACKPORTLOOP_H
#define MKSERIES_BACKPORTLOOP_H

#include <git2.h>

#include "apply/backport.h"
#include "kit/model.h"
#include "lib/state.h"
#include "lib/util.h"

/*
 * The keys of the loop's state files (`loop`, `patch`, the journal and
 * index.writer), each spelled once, in backportloop.c's table. An
 * indexed key holds one value per item, under "<key>.0", "<key>.1", ...
 * The names are the files' format: a loop an older mkseries started
 * reads the same.
 */
enum loop_key {
	/* `loop`: the loop as a whole */
	LK_BRANCH,	/* the branch (also in `patch`) */
	LK_KIT,		/* the kit's directory: the loop is that kit's */
	LK_KIT_REF,	/* the kit's ref before the loop, "" when there was none */
	LK_KEEP,	/* indexed: the refs that keep the recorded backports */
	LK_CREATED,	/* indexed: the kit files the loop wrote */
	LK_REPLACED,	/* indexed: the kit files it rewrote... */
	LK_BACKUP,	/* ...and, at the same index, the copy of each as it was */
	/* `patch`: the patch worked on */
	LK_SERIES, LK_LIST, LK_INDEX,	/* its entry: series id, "patches"/"fixups", index */
	LK_LABEL,	/* kit_patch_label() (also the journal's) */
	LK_UPSTREAM, LK_SUBJECT, LK_SOURCE,
	LK_REPLACES,	/* the branch's recorded backport it rewrites, "" when none */
	LK_ONTO,	/* the commit the work tree was checked out from */
	LK_TREE,	/* the work tree's path */
	LK_TARGET,	/* the kit file the backport goes to, once chosen */
	LK_RECORDED,	/* that file, once written */
	LK_DECIDED,	/* "1" once its decision is in series.yaml */
	LK_ACCEPTED,	/* indexed: the files --accept-markers took as meant */
	/* `patch`, indexed: each file of backport_result */
	LK_FILE,	/* its path (and the journal's kit file, not indexed) */
	LK_HOW, LK_HUNKS, LK_REJECTED, LK_MOVED, LK_REJ, LK_MARKERS, LK_WROTE,
	/* the journal and index.writer */
	LK_STEP, LK_PID, LK_TIME,
	LK__NR
};

/*
 * Where the loop of branch b keeps its state: <workdir>/backport/, with
 * `loop` (what the loop wrote to the kit, for --abort), `patch` (the
 * patch being worked on), `journal` (the step under way, see below),
 * series.yaml.orig, series.yaml.loop, and tree/, the git worktree. The
 * one place that names the loop's directory, its files, worktree and
 * branch. Every string owned.
 */
struct backport_paths {
	char *dir, *loop, *patch, *journal, *yaml_orig, *backup, *tree, *wt_name, *refname;
	/*
	 * series.yaml.loop: the kit's series.yaml as it was with the loop's
	 * decisions only, and yaml_next (".next") that copy with the decision
	 * being written, until series.yaml has it; --abort's merge base
	 */
	char *yaml_loop, *yaml_next;
	char *message;	/* the commit message --continue -e edits */
	char *ended;	/* beside dir: where backport_loop_remove() puts it to remove it */
	char *starting;	/* beside dir: where backport_loop_begin() writes it before it is there */
	char *keep_prefix;	/* refs that keep each recorded backport's commit (and its trees) */
	char *index_writer;	/* while the loop writes the work tree's index: who (pid, time) */
};

/*
 * Whether a backport loop of b is in progress in b's work directory
 * `workdir` (started and not yet ended or aborted), as apply and run
 * say next to a conflict.
 */
int backport_loop_in_progress(const struct kit *kit, const struct kernel_branch *b,
			      const char *workdir);

/* 0, or -1 when there is no work directory to put the loop in (kept). */
int backport_paths_init(struct backport_paths *lp, const struct kit *kit, const char *workdir_opt,
			const struct kernel_branch *b);

/*
 * Around each write of the work tree's index (libgit2 takes its
 * index.lock in the repository's worktrees/<wt_name>/): begin notes this process in
 * lp->index_writer, done removes the note. A lock found with the note
 * of a process that is gone, and no older than it, is what a kill left
 * while libgit2 held it: backport_index_unlock() removes it and says so
 * in `said`. Any other lock (a git in the work tree, `git add`) is
 * named with its age and who may hold it: -1 (printed).
 */
int backport_index_begin(const struct backport_paths *lp);
void backport_index_done(const struct backport_paths *lp);
int backport_index_unlock(const struct backport_paths *lp, git_repository *repo,
			  struct strbuf *said);
void backport_paths_release(struct backport_paths *lp);

/*
 * Begin the loop: its directory comes as one piece, with `yaml` (the
 * kit's series.yaml as it is) in series.yaml.orig and `loop` in the
 * `loop` state, written in lp->starting and renamed to lp->dir. A kill
 * leaves a whole loop or none (lp->starting, which the next loop
 * command removes). Returns 0, or -1 (printed).
 */
int backport_loop_begin(const struct backport_paths *lp, const char *yaml, size_t len,
			const struct state *loop);

/*
 * Note in the `loop` state that the loop wrote kit file `rel`
 * (LK_CREATED), replaced it (LK_REPLACED, with its copy in LK_BACKUP)
 * or made a ref (LK_KEEP), for --abort. Returns 0 or -1.
 */
int backport_loop_note(const struct backport_paths *lp, enum loop_key key, const char *rel);

/*
 * End the loop, finished or dropped: its directory goes as one piece
 * (renamed to lp->ended, then removed), so that a kill leaves either
 * the whole loop, for --continue and --abort, or none of it; never a
 * loop without the records --abort restores the kit from. What an
 * earlier kill left in lp->ended or lp->starting goes first. Returns 0,
 * or -1 (printed).
 */
int backport_loop_remove(const struct backport_paths *lp);

/*
 * The loop's journal: before a step that changes the work tree, the
 * loop's branch or a file of the kit, the loop writes what it is about
 * to do (`step`, the patch's `label`, its own `pid`, the `time`, and the
 * kit file it writes, `file`, which may be NULL) and removes the
 * journal once the step is done and marked in the `patch` state. A
 * journal found on the next run is a step a killed mkseries left half
 * done: backport_journal_recover() finishes it or rolls it back before
 * anything else, and --status names it.
 *
 * The steps, and what a half-done one needs:
 *   checkout  the work tree for a patch: rolled back (the next run
 *             checks out again); done once the `patch` state is written
 *   record    the recorded patch `file` written: its temporary file goes,
 *             the state's "target" makes the rewrite the same file
 *   decide    series.yaml written: its temporary file goes; the decision,
 *             when there, is the loop's own
 *   finish    the work tree, the loop's branch and the `patch` state
 *             removed: done again
 *   keep      the ref that keeps a recorded backport's commit written:
 *             its lock goes; the rerun writes commit and ref again
 *   abort     --abort under way: only --abort goes on (it does it all
 *             again); the loop's directory goes last, the journal with it
 */
enum backport_step {
	BS_CHECKOUT, BS_RECORD, BS_DECIDE, BS_FINISH, BS_KEEP, BS_ABORT,
	BS_INDEX,	/* index.writer's: the work tree's index being written */
	BS__NR
};
int backport_journal_begin(const struct backport_paths *lp, enum backport_step step,
			   const char *label, const char *file);
int backport_journal_done(const struct backport_paths *lp);

/*
 * Finish or roll back the step the journal shows half done, in the
 * kernel repository `repo` (whose lock the caller holds) and the kit at
 * `kit_dir`; what was done is appended to `said`, one line each. A ref
 * lock the killed step left (on the loop's branch, on a keep ref) is
 * the loop's own when it is no older than the step and the journal's
 * pid is gone: it is removed and named (path, age, pid). Any other lock
 * is named with its age and the command to run, and stops it. A killed
 * --abort is left to `aborting` (the caller is --abort; its locks are
 * removed as above) and refused otherwise. Returns 0 (nothing to do,
 * or done) or -1 (printed), the journal then kept.
 */
int backport_journal_recover(const struct backport_paths *lp, git_repository *repo,
			     const char *kit_dir, int aborting, struct strbuf *said);

/*
 * What --status says of a half-done step of branch `branch`'s loop
 * (its `patch` state is `patch`), appended to `said`; the ref locks it
 * left are named when `repo` is not NULL, with what removes them. Returns
 * 1 when that is all there is to say (there is no work tree to look
 * at), 0 when the rest of the status follows (or there is no journal).
 */
int backport_journal_status(const struct backport_paths *lp, git_repository *repo,
			    const char *branch, const struct state *patch, struct strbuf *said);

/*
 * Remove the temporary files a killed mkseries left beside kit file
 * `rel` ("<name>.tmp.<pid>", written then renamed over it), beneath
 * `kit_dir` only; each is named in `said`.
 */
void backport_remove_temp_files(const char *kit_dir, const char *rel, struct strbuf *said);

/*
 * --abort: the refs the loop moved or made, as they were before it: the
 * kit's ref `kit_ref` back where the `loop` state's "kit_ref" says it
 * was (deleted when it was not there; left alone when the state does
 * not say), and the refs that keep the backports it recorded ("keep.N")
 * deleted. What is done is said in `said`. Returns 0 or -1 (printed).
 */
int backport_abort_refs(git_repository *repo, const struct state *loop, const char *kit_ref,
			struct strbuf *said);

/*
 * The `patch` state's record of how each file of a patch came into the
 * work tree (backport_result): keys "<field>.<i>" per file. The one
 * place that names them.
 */
void backport_result_to_state(struct state *st, const struct backport_result *r);
void backport_result_from_state(struct backport_result *r, const struct state *st);

/* The key's name in the files. */
const char *loop_key_name(enum loop_key k);
/* As state_get()/state_set(), of key k. */
const char *loop_state_get(const struct state *st, enum loop_key k);
void loop_state_set(struct state *st, enum loop_key k, const char *value);
void loop_state_setf(struct state *st, enum loop_key k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Of indexed key k: the value of item i ("<key>.<i>"), or NULL; set it. */
const char *loop_state_get_at(const struct state *st, enum loop_key k, size_t i);
void loop_state_set_at(struct state *st, enum loop_key k, size_t i, const char *value);
/* Of indexed key k: `value` set as the item after the last; returns its index. */
size_t loop_state_append(struct state *st, enum loop_key k, const char *value);
/* The items of indexed key k, in order, pushed to `out`. */
void loop_state_list(struct strvec *out, const struct state *st, enum loop_key k);

#endif

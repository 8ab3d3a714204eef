/* patches/b4.h: running `b4 am` for a thread, with what went wrong said in words. */
#ifndef MKSERIES_B4_H
#define MKSERIES_B4_H

#include "lib/util.h"

/*
 * Run `b4 am` on thread `msgid` (without <>), from lore, or from the
 * local `mbox` when set (then offline; msgid may be NULL: the mbox's
 * thread). *mbx gets the patches b4 wrote (an mbox ready for git am),
 * *cover its cover letter (empty when there is none). Returns 0, or -1
 * after one message that says what to do: b4 is not installed, lore is
 * not reachable (use an mbox, or `hint`), no series for that message id,
 * no patches in the mbox. Never b4's Python traceback.
 */
int b4_am(struct strbuf *mbx, struct strbuf *cover, const char *msgid, const char *mbox,
	  const char *hint);

/*
 * The argument vector b4_am() runs, appended to `argv`: b4 am writing
 * into `dir`, offline from `mbox` when set, and `msgid` (may be NULL)
 * after "--", so that an id beginning with '-' is never an option.
 */
void b4_am_argv(struct strvec *argv, const char *dir, const char *msgid, const char *mbox);

#endif

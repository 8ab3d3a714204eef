/* patches/b4.c: `b4 am` for a thread, into a temporary directory, its failures worded for people. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/runcmd.h"
#include "lib/util.h"
#include "patches/b4.h"

/* b4's last line that is not Python's traceback machinery, for a message. */
static const char *last_words(struct strbuf *out)
{
	char *last;

	strbuf_rtrim(out);
	if (strstr(out->buf, "Traceback (most recent call last)"))
		return "";
	last = strrchr(out->buf, '\n');
	return last ? last + 1 : out->buf;
}

static int b4_failed(struct strbuf *out, const char *msgid, const char *mbox, const char *hint)
{
	const char *last;

	if (strstr(out->buf, "ConnectionError") || strstr(out->buf, "Max retries") ||
	    strstr(out->buf, "Temporary failure in name resolution"))
		return error("lore is not reachable: b4 could not fetch <%s>\nhint: save the thread "
			     "as an mbox elsewhere and use it here%s%s", msgid, hint ? ", or " : "",
			     hint ? hint : "");
	last = last_words(out);
	if (mbox && msgid)
		return error("b4 found no series for <%s> in '%s'%s%s", msgid, mbox, *last ? ": " : "",
			     *last ? last : "");
	if (mbox)
		return error("b4 found no patches in '%s' (not an mbox of patch mails?)", mbox);
	return error("b4 found no series for <%s>%s%s", msgid, *last ? ": " : "", last);
}

void b4_am_argv(struct strvec *argv, const char *dir, const char *msgid, const char *mbox)
{
	/* from an mbox nothing needs the network: b4 is told so */
	strvec_push(argv, "b4");
	if (mbox)
		strvec_push(argv, "--offline-mode");
	strvec_pushl(argv, "am", "-o", dir, "-n", "series", NULL);
	if (mbox)
		strvec_pushl(argv, "-m", mbox, NULL);
	/* after "--": a message id may start with '-' and must not read as an option */
	if (msgid)
		strvec_pushl(argv, "--", msgid, NULL);
}

int b4_am(struct strbuf *mbx, struct strbuf *cover, const char *msgid, const char *mbox,
	  const char *hint)
{
	char tmpl[] = "/tmp/mkseries-b4-XXXXXX";
	struct child cmd = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	char *path;
	int ret = 0;

	strbuf_reset(mbx);
	strbuf_reset(cover);
	if (!mkdtemp(tmpl))
		return error("cannot make a temporary directory: %s", strerror(errno));
	temp_path_add(tmpl);
	b4_am_argv(&cmd.argv, tmpl, msgid, mbox);
	cmd.out = &out;
	cmd.err = &out;
	cmd.silent_exec_failure = 1;
	/* b4 0.12 may exit non-zero after writing the patches (a cover letter trips it): what it wrote decides */
	if (child_run(&cmd) && cmd.exec_errno) {
		ret = error("cannot run b4: %s%s", strerror(cmd.exec_errno),
			    cmd.exec_errno == ENOENT ? " (b4 is not installed: install it, "
						      "apt-get install b4)" : "");
		goto cleanup;
	}
	path = path_join(tmpl, "series.mbx");
	if (strbuf_read_file(mbx, path) || !mbx->len)
		ret = b4_failed(&out, msgid, mbox, hint);
	free(path);
	path = path_join(tmpl, "series.cover");
	if (!ret && strbuf_read_file(cover, path))
		strbuf_reset(cover);
	free(path);
cleanup:
	remove_tree(tmpl);
	temp_path_done(tmpl);
	child_release(&cmd);
	strbuf_release(&out);
	return ret;
}

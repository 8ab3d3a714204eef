/* test-progress.c: unit tests for lib/progress.c, the one progress drawer on stderr. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/progress.h"
#include "tap.h"
#include "lib/util.h"

/* What the calls since the last capture_start() wrote to stderr. */
static int saved_fd = -1;
static char capture_path[] = "/tmp/test-progress-XXXXXX";

static void capture_start(void)
{
	int fd = mkstemp(capture_path);

	fflush(stderr);
	saved_fd = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	struct strbuf sb = STRBUF_INIT;

	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	strbuf_read_file(&sb, capture_path);
	unlink(capture_path);
	snprintf(capture_path, sizeof(capture_path), "/tmp/test-progress-XXXXXX");
	return strbuf_detach(&sb, NULL);
}

static void test_progress(void)
{
	struct progress p = PROGRESS_INIT;
	char *got;
	int drawn;

	progress_init(&p, 0, 0);
	capture_start();
	drawn = progress_show(&p, 1, "hidden");
	progress_done(&p, "hidden too");
	progress_clear(&p);
	got = capture_end();
	ok(!drawn && !*got, "disabled: nothing drawn, even forced");
	free(got);

	/* The redrawn line, as on a terminal: stderr is a file here. */
	mks_progress = PROGRESS_ALWAYS;
	progress_init(&p, 1, 3600);
	capture_start();
	progress_show(&p, 0, "6.12 base: building %s", "1m02s");
	drawn = progress_show(&p, 0, "too soon");
	got = capture_end();
	is_str(got, "\r\033[K6.12 base: building 1m02s", "drawn from the start of the line, erased first");
	ok(!drawn, "a redraw within the interval is skipped");
	free(got);

	capture_start();
	progress_show(&p, 1, "file \033[2Jevil\rname");
	progress_clear(&p);
	progress_clear(&p);
	got = capture_end();
	is_str(got, "\r\033[Kfile \\x1b[2Jevil\\rname\r\033[K",
	       "forced: drawn; its text escaped; cleared once");
	free(got);

	capture_start();
	progress_done(&p, "reading commits: %d, done.", 3);
	got = capture_end();
	is_str(got, "\r\033[Kreading commits: 3, done.\n", "done: the last line stays, with a newline");
	free(got);
}

/* Off a terminal: whole lines at the pace set, the cell first; -q and never: none. */
static void test_log(void)
{
	struct progress p = PROGRESS_INIT;
	char *got;

	mks_progress = PROGRESS_AUTO;
	setenv("MKSERIES_PROGRESS_INTERVAL", "0.2", 1);
	ok(progress_log_interval() == 0.2, "the pace from MKSERIES_PROGRESS_INTERVAL");
	capture_start();
	ok(progress_mode_now() == PROGRESS_LOG, "auto, stderr not a terminal: status lines");
	progress_init(&p, 1, 0);
	progress_show(&p, 1, "too soon, even forced");
	progress_done(&p, "no done line: nothing was said before");
	progress_cells(2, 16);
	progress_cell_next();
	progress_init(&p, 1, 0);
	usleep(250 * 1000);
	progress_show(&p, 0, "6.12 kit: building %s", "4s");
	progress_show(&p, 1, "within the pace again");
	progress_clear(&p);
	progress_done(&p, "6.12 kit: done");
	progress_cells(0, 0);
	got = capture_end();
	is_str(got, "[cell 3/16] 6.12 kit: building 4s\n[cell 3/16] 6.12 kit: done\n",
	       "one line a pace, whole, with its cell; the done line after one");
	free(got);

	mks_verbose = 0;
	ok(progress_mode_now() == PROGRESS_OFF && !progress_wanted(), "-q: no progress");
	mks_progress = PROGRESS_ALWAYS;
	ok(progress_mode_now() == PROGRESS_REDRAW, "-q with --progress=always: the line");
	mks_verbose = 1;
	mks_progress = PROGRESS_NEVER;
	ok(progress_mode_now() == PROGRESS_OFF, "--progress=never: none");
	mks_progress = PROGRESS_AUTO;
	unsetenv("MKSERIES_PROGRESS_INTERVAL");
	ok(progress_log_interval() == 30, "30 s unless set");
}

int main(void)
{
	test_progress();
	test_log();
	return tap_done();
}

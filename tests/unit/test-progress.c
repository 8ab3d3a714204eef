/* test-progress.c: unit tests for lib/progress.c, the one progress line on stderr. */
#include <fcntl.h>
#include <stdio.h>
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

int main(void)
{
	test_progress();
	return tap_done();
}

/* test-console.c: real consoles recorded from mkseries boots, read by the KTAP parser and the splat finder. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "fixture.h"
#include "tap.h"
#include "util.h"

/* The line `n` (1-based) of text without its line end, into a static buffer. */
static const char *line_of(const char *text, size_t n)
{
	static char buf[512];
	const char *p = text, *eol;

	while (--n && (p = strchr(p, '\n')))
		p++;
	if (!p)
		return "";
	eol = strchrnul(p, '\n');
	if (eol > p && eol[-1] == '\r')
		eol--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(eol - p), p);
	return buf;
}

static void test_clean(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "clean-6.12.log")) {
		ok(0, "clean-6.12.log is there");
		return;
	}
	is_int(ktap_parse(&k, sb.buf, sb.len), 0, "a clean 6.12 boot has KTAP");
	ok(ktap_all_good(&k), "every case ok or skipped, plan complete, done marker seen");
	is_int(k.nr_fail, 0, "no failure");
	ok(k.nr_pass >= 10, "at least ten cases passed (%zu)", k.nr_pass);
	ok(k.done, "the done marker is there");
	is_int(console_find_splat(&splat, sb.buf, sb.len), 0, "no splat on a clean boot");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

static void test_warning(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "warning-6.12.log")) {
		ok(0, "warning-6.12.log is there");
		return;
	}
	is_int(console_find_splat(&splat, sb.buf, sb.len), 1, "the kit's WARN_ON_ONCE is found");
	is_int(splat.kind, SPLAT_WARNING, "as a warning");
	ok(splat.text && strstr(splat.text, "WARNING: CPU:") && strstr(splat.text, "mm/mremap.c"),
	   "its line names mm/mremap.c: %s", splat.text ? splat.text : "(none)");
	is_str(line_of(sb.buf, splat.line), splat.text, "the line number points at that line");
	ktap_parse(&k, sb.buf, sb.len);
	ok(k.done, "the run still finished: a WARN does not stop the machine");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

static void test_panic(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "panic-no-init-6.12.log")) {
		ok(0, "panic-no-init-6.12.log is there");
		return;
	}
	is_int(console_find_splat(&splat, sb.buf, sb.len), 1, "a kernel without an init panics");
	is_int(splat.kind, SPLAT_PANIC, "as a panic");
	ok(splat.text && strstr(splat.text, "Kernel panic - not syncing"), "its line: %s",
	   splat.text ? splat.text : "(none)");
	is_int(ktap_parse(&k, sb.buf, sb.len), MKS_ENOTFOUND, "and mm-regress never started");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

int main(int argc, char **argv)
{
	find_data_dir(argv[0], "MKSERIES_CONSOLE_DATA", "console");
	test_clean();
	test_warning();
	test_panic();
	return tap_done();
}

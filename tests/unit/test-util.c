/* test-util.c: unit tests for util.c's helpers that treat input as hostile. */
#include "kit/arch.h"
#include "lib/gitutil.h"
#include "kit/model.h"
#include "tap.h"
#include "lib/util.h"

/* `in` is a string literal: its length is known, NUL bytes included. */
#define check_shown(in, flags, want, what) check_shown_n(in, sizeof(in) - 1, flags, want, what)

static void check_shown_n(const char *in, size_t len, unsigned flags, const char *want,
			  const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_add_shown(&sb, in, len, flags);
	is_str(sb.buf, want, "shown: %s", what);
	strbuf_release(&sb);
}

static void test_shown(void)
{
	const char *plain = "mm: batch ptes";
	const char *a, *b;

	check_shown("mm: evil\033[2K\rmm: ok", 0, "mm: evil\\x1b[2K\\rmm: ok",
		    "ESC and CR are escaped");
	check_shown("a\tb\x7f\x01", 0, "a\tb\\x7f\\x01", "tab kept, DEL and C0 escaped");
	check_shown("one\ntwo", 0, "one\\ntwo", "a newline in a one-line field is escaped");
	check_shown("one\ntwo\n", SHOWN_LINES, "one\ntwo\n", "SHOWN_LINES keeps newlines");
	check_shown("a\0b", 0, "a\\x00b", "a NUL byte is escaped");
	check_shown("caf\xc3\xa9 \xe2\x9c\x93", 0, "caf\xc3\xa9 \xe2\x9c\x93",
		    "valid UTF-8 is kept");
	check_shown("x\xc2\x9b" "31m", 0, "x\\u009b31m", "a C1 control (8-bit CSI) is escaped");
	check_shown("x\x9b" "2J\xff\xc3", 0, "x\\x9b2J\\xff\\xc3",
		    "bytes that are not UTF-8 are escaped, a cut sequence too");
	check_shown("\xed\xa0\x80", 0, "\\xed\\xa0\\x80", "a UTF-16 surrogate is not UTF-8");
	check_shown("back\\slash", 0, "back\\slash", "a backslash is kept");
	check_shown("invoice\xe2\x80\xaetxt.exe", 0, "invoice\\u202etxt.exe",
		    "a right-to-left override (U+202E) is escaped");
	check_shown("a\xe2\x81\xa6" "b\xe2\x80\x8b" "c\xef\xbb\xbf", 0, "a\\u2066b\\u200bc\\ufeff",
		    "an isolate, a zero-width space and a BOM are escaped");
	check_shown("\xe2\x80\x94 \xe2\x80\x99", 0, "\xe2\x80\x94 \xe2\x80\x99",
		    "an em dash and a quote beside them are kept");

	ok(shown(plain) == plain, "shown: text with nothing to escape is returned as is");
	ok(shown(NULL) == NULL, "shown: NULL stays NULL");
	a = shown("a\033");
	b = shown("b\r");
	is_str(a, "a\\x1b", "shown: an escaped copy");
	is_str(b, "b\\r", "shown: a second copy leaves the first alone");
}

static void test_small_helpers(void)
{
	struct strbuf sb = STRBUF_INIT;
	const char *names[] = { "tree", "apply", "model" };

	strbuf_addch(&sb, 'x');
	strbuf_addchars(&sb, ' ', 3);
	strbuf_addchars(&sb, '-', 0);
	is_str(sb.buf, "x   ", "strbuf_addchars: three spaces after x, none for n = 0");
	strbuf_release(&sb);
	qsort(names, 3, sizeof(*names), strp_cmp);
	ok(!strcmp(names[0], "apply") && !strcmp(names[1], "model") && !strcmp(names[2], "tree"),
	   "strp_cmp sorts an array of strings");
}

/* Helpers that used to hand out static buffers: several in one call must not share one. */
static void test_own_buffers(void)
{
	struct kit_series series = { .id = "mremap", .nr_patches = 5 };
	struct kit_patch p[5];
	git_oid a, b;
	char line[512];
	size_t i;

	memset(p, 0, sizeof(p));
	for (i = 0; i < 5; i++) {
		p[i].series = &series;
		p[i].index = (int)i + 1;
	}
	snprintf(line, sizeof(line), "%s, %s, %s, %s, %s", kit_patch_label(&p[0]),
		 kit_patch_label(&p[1]), kit_patch_label(&p[2]), kit_patch_label(&p[3]),
		 kit_patch_label(&p[4]));
	is_str(line, "mremap 1/5, mremap 2/5, mremap 3/5, mremap 4/5, mremap 5/5",
	       "five patch labels in one call");
	git_oid_fromstr(&a, "1111111111111111111111111111111111111111");
	git_oid_fromstr(&b, "2222222222222222222222222222222222222222");
	snprintf(line, sizeof(line), "%s..%s", oid_short(&a), oid_short(&b));
	is_str(line, "111111111111..222222222222", "two short ids in one call");
	snprintf(line, sizeof(line), "%s, not %s", elf_machine_name(1234), elf_machine_name(4321));
	is_str(line, "EM_1234, not EM_4321", "two unknown machines in one call");
}

/* libgit2 cannot say what its switches are: gitutil remembers, so nested changes unwind. */
static void test_git_opts(void)
{
	int outer, inner;

	gitutil_init();
	outer = gitutil_set_opt(GITUTIL_CACHING, 0);
	inner = gitutil_set_opt(GITUTIL_CACHING, 0);
	is_int(outer, 1, "libgit2 caches objects by default");
	is_int(inner, 0, "a second caller finds caching off");
	is_int(gitutil_set_opt(GITUTIL_CACHING, inner), 0, "its restore leaves it off");
	is_int(gitutil_set_opt(GITUTIL_CACHING, outer), 0, "until the first caller's restore");
	is_int(gitutil_set_opt(GITUTIL_CACHING, 1), 1, "which turns it back on");
}

int main(void)
{
	test_shown();
	test_small_helpers();
	test_own_buffers();
	test_git_opts();
	return tap_done();
}

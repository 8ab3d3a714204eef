/* test-config.c: config fragments: parsing, applying to a .config, and the check that they took. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/build.h"
#include "build/kconfig.h"
#include "lib/state.h"
#include "tap.h"
#include "lib/util.h"

static const char fragment[] =
	"# what mm-regress needs\n"
	"\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_SERIAL_8250=m\n"
	"# CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS is not set\n"
	"CONFIG_CMDLINE=\"console=ttyS0 mm_regress=--quick\"\n"
	"CONFIG_LOG_BUF_SHIFT=17\n"
	"  CONFIG_NR_CPUS=0x8  \n"
	"# CONFIG_GONE is not set\n"
	"CONFIG_NOT_IN_TREE=y\n";

static void test_parse(void)
{
	struct kconfig_frag f = KCONFIG_FRAG_INIT;

	is_int(kconfig_frag_parse(&f, "mm.config", fragment, strlen(fragment)), 0,
	       "a valid fragment parses");
	is_int(f.nr, 8, "eight options");
	is_str(f.opts[0].name, "64BIT", "names lose CONFIG_");
	is_str(f.opts[0].value, "y", "y value");
	is_int(f.opts[0].line, 3, "line numbers count comments and blanks");
	is_str(f.opts[1].value, "m", "m value");
	is_str(f.opts[2].name, "TRANSPARENT_HUGEPAGE_ALWAYS", "'is not set' line");
	is_str(f.opts[2].value, "n", "'is not set' reads as n");
	is_str(f.opts[3].value, "\"console=ttyS0 mm_regress=--quick\"", "string kept with its quotes");
	is_str(f.opts[5].name, "NR_CPUS", "surrounding blanks are ignored");
	is_str(f.opts[5].value, "0x8", "hex value kept as written");
	is_str(f.opts[0].file, "mm.config", "the file is recorded");
	kconfig_frag_release(&f);

	/* A later line for the same option wins, as merge_config.sh has it. */
	is_int(kconfig_frag_parse(&f, "a", "CONFIG_X=y\n", 11), 0, "first fragment");
	is_int(kconfig_frag_parse(&f, "b", "# CONFIG_X is not set\n", 22), 0, "second fragment");
	is_int(f.nr, 1, "one option after an override");
	is_str(f.opts[0].value, "n", "the later value wins");
	is_str(f.opts[0].file, "b", "and names its own file");
	kconfig_frag_release(&f);
}

static void test_parse_errors(void)
{
	static const char *bad[] = {
		"CONFIG_X\n",			/* no value */
		"CONFIG_X=\n",			/* empty value */
		"X=y\n",			/* no CONFIG_ prefix */
		"CONFIG_S=\"unterminated\n",	/* broken string */
		"CONFIG_X y\n",			/* no '=' */
	};
	struct kconfig_frag f = KCONFIG_FRAG_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		is_int(kconfig_frag_parse(&f, "bad.config", bad[i], strlen(bad[i])), MKS_ECONFIG,
		       "rejected: %.*s", (int)strlen(bad[i]) - 1, bad[i]);
		kconfig_frag_release(&f);
	}
	is_int(kconfig_frag_parse(&f, "ok.config", "# CONFIG_X is set\n# free text\n", 30), 0,
	       "comments that merely look like options are comments");
	is_int(f.nr, 0, "and set nothing");
	kconfig_frag_release(&f);
	is_int(kconfig_frag_load(&f, "/nonexistent/mm.config", "kernels/mm.config"), MKS_ECONFIG,
	       "a missing fragment file is a configuration error");
}

static const char dotconfig[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_SERIAL_8250=y\n"
	"CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y\n"
	"CONFIG_CMDLINE=\"console=ttyS0 mm_regress=--quick\"\n"
	"CONFIG_LOG_BUF_SHIFT=14\n"
	"# CONFIG_NR_CPUS is not set\n";

static int defined_all_but(void *data, const char *name)
{
	return strcmp(name, (const char *)data);
}

static void test_apply(void)
{
	struct kconfig_frag f = KCONFIG_FRAG_INIT;
	struct strbuf out = STRBUF_INIT;

	kconfig_frag_parse(&f, "mm.config", fragment, strlen(fragment));
	kconfig_apply(&out, dotconfig, &f);
	ok(strstr(out.buf, "\nCONFIG_SERIAL_8250=m\n") && !strstr(out.buf, "SERIAL_8250=y"),
	   "an existing line is replaced in place");
	ok(strstr(out.buf, "\n# CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS is not set\n") &&
	   !strstr(out.buf, "HUGEPAGE_ALWAYS=y"), "y turned into 'is not set'");
	ok(strstr(out.buf, "\nCONFIG_NR_CPUS=0x8\n") && !strstr(out.buf, "NR_CPUS is not set"),
	   "'is not set' turned into a value");
	ok(strstr(out.buf, "\nCONFIG_NOT_IN_TREE=y\n"), "a new option is appended");
	ok(starts_with(out.buf, "#\n# Automatically generated"), "other lines are kept");
	is_int(kconfig_check(NULL, NULL, out.buf, &f, NULL, NULL), 0,
	       "the applied text meets the fragment");
	strbuf_release(&out);
	kconfig_frag_release(&f);
}

static void test_check(void)
{
	struct kconfig_frag f = KCONFIG_FRAG_INIT;
	struct strvec missing = STRVEC_INIT, absent = STRVEC_INIT;
	size_t n;

	kconfig_frag_parse(&f, "mm.config", fragment, strlen(fragment));
	n = kconfig_check(&missing, &absent, dotconfig, &f, defined_all_but, "NOT_IN_TREE");
	/* SERIAL_8250 y!=m, HUGEPAGE_ALWAYS y!=n, LOG_BUF_SHIFT 14!=17, NR_CPUS unset. */
	is_int(n, 4, "four options did not stick");
	is_int(missing.nr, 4, "each is described");
	if (missing.nr == 4) {
		is_str(missing.v[0], "CONFIG_SERIAL_8250=m (mm.config:4): is y", "wrong value");
		is_str(missing.v[1],
		       "# CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS is not set (mm.config:5): is y",
		       "an option that should be off but is on");
		is_str(missing.v[2], "CONFIG_LOG_BUF_SHIFT=17 (mm.config:7): is 14", "number");
		is_str(missing.v[3], "CONFIG_NR_CPUS=0x8 (mm.config:8): is not set", "unset option");
	}
	is_int(absent.nr, 1, "an option the tree does not define is set aside");
	if (absent.nr)
		is_str(absent.v[0], "CONFIG_NOT_IN_TREE (mm.config:10)", "and named with its line");
	ok(!strstr(dotconfig, "GONE"), "an 'is not set' option absent from .config ...");
	n = 0;
	for (size_t i = 0; i < missing.nr; i++)
		n += !!strstr(missing.v[i], "GONE");
	is_int(n, 0, "... counts as met");
	strvec_clear(&missing);
	strvec_clear(&absent);

	/* A string must match exactly, quotes and all. */
	kconfig_frag_release(&f);
	kconfig_frag_parse(&f, "s.config", "CONFIG_CMDLINE=\"console=ttyS1\"\n", 31);
	n = kconfig_check(&missing, NULL, dotconfig, &f, NULL, NULL);
	is_int(n, 1, "a different string does not stick");
	if (missing.nr)
		is_str(missing.v[0],
		       "CONFIG_CMDLINE=\"console=ttyS1\" (s.config:1): is \"console=ttyS0 mm_regress=--quick\"",
		       "and shows both strings");
	strvec_clear(&missing);

	/* Without a Kconfig lookup, every miss counts. */
	kconfig_frag_release(&f);
	kconfig_frag_parse(&f, "mm.config", fragment, strlen(fragment));
	is_int(kconfig_check(NULL, NULL, dotconfig, &f, NULL, NULL), 5,
	       "with no Kconfig lookup, the absent symbol counts too");
	kconfig_frag_release(&f);
}

static void test_first_error(void)
{
	static const char log[] =
		"$ make -C /w/src O=/w/out bzImage\n"
		"  CC      mm/mmap.o\n"
		"/w/src/mm/mremap.c: In function 'move_ptes':\n"
		"/w/src/mm/mremap.c:252:9: warning: unused variable 'x' [-Wunused-variable]\n"
		"/w/src/mm/mremap.c:260:3: error: 'foo' undeclared (first use in this function)\n"
		"/w/src/mm/mremap.c:270:3: error: second\n"
		"make[3]: *** [scripts/Makefile.build:229: mm/mremap.o] Error 1\n";
	static const char fatal[] =
		"In file included from mm/x.c:3:\n"
		"include/linux/y.h:1:10: fatal error: z.h: No such file or directory\n";
	static const char link[] =
		"  LD      vmlinux.o\n"
		"ld: mm/mremap.o: in function `move_ptes':\n"
		"mremap.c:(.text+0x1a): undefined reference to `foo'\n"
		"make[2]: *** [Makefile:1156: vmlinux] Error 1\n";
	static const char onlymake[] = "make: *** No rule to make target 'bzImage'.  Stop.\n";
	char *e;

	e = build_first_error(log, "/w/src");
	is_str(e, "mm/mremap.c:260:3: error: 'foo' undeclared (first use in this function)",
	       "the first error, not the warning, with the source dir stripped");
	free(e);
	e = build_first_error(fatal, "/w/src");
	is_str(e, "include/linux/y.h:1:10: fatal error: z.h: No such file or directory",
	       "a fatal error counts");
	free(e);
	e = build_first_error(link, "/w/src");
	is_str(e, "mremap.c:(.text+0x1a): undefined reference to `foo'", "a link error");
	free(e);
	e = build_first_error(onlymake, NULL);
	is_str(e, "make: *** No rule to make target 'bzImage'.  Stop.", "make's own complaint");
	free(e);
	e = build_first_error("all fine\n", NULL);
	ok(!e, "no error line: NULL");
	free(e);
}

static void test_state(void)
{
	char dir[] = "/tmp/test-config.XXXXXX";
	struct state s = STATE_INIT, back = STATE_INIT;
	char *path;

	if (!mkdtemp(dir))
		return;
	path = xstrfmt("%s/state/base.build", dir);
	state_set(&s, "status", "ok");
	state_set(&s, "failure", "line one\nline two");
	state_setf(&s, "seconds", "%.1f", 12.25);
	state_set(&s, "status", "failed");
	is_int(state_write(&s, path), 0, "state written (directory created)");
	is_int(state_read(&back, path), 0, "state read back");
	is_str(state_get(&back, "status"), "failed", "a key set twice keeps the last value");
	is_str(state_get(&back, "failure"), "line one line two", "newlines flattened");
	is_str(state_get(&back, "seconds"), "12.2", "formatted value");
	ok(!state_get(&back, "nothing"), "unknown key: NULL");
	state_release(&back);
	is_int(state_read(&back, "/nonexistent/state"), 0, "a missing state file reads as empty");
	is_int(back.kv.nr, 0, "and is empty");
	state_release(&back);
	state_release(&s);
	unlink(path);
	free(path);
	path = xstrfmt("%s/state", dir);
	rmdir(path);
	rmdir(dir);
	free(path);
	is_str(format_duration(41.2), "41s", "seconds");
	is_str(format_duration(182), "3m02s", "minutes");
	is_str(format_duration(3723), "1h02m03s", "hours");
}

int main(void)
{
	test_parse();
	test_parse_errors();
	test_apply();
	test_check();
	test_first_error();
	test_state();
	return tap_done();
}

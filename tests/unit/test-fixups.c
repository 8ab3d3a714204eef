/* test-fixups.c: unit tests for Fixes:/revert/Stable-dep-of matching, tag order and series.yaml editing. */
#include <stdlib.h>
#include <string.h>

#include "patches/fixups.h"
#include "tap.h"
#include "lib/util.h"
#include "kit/yamledit.h"

static struct fixref_scanner *sc;

/* The references of msg as "kind:hex kind:hex ...". */
static char *scan(const char *msg)
{
	struct fixref *refs = NULL;
	size_t nr = 0, alloc = 0, i;
	struct strbuf sb = STRBUF_INIT;

	fixref_scan(sc, msg, strlen(msg), &refs, &nr, &alloc);
	for (i = 0; i < nr; i++)
		strbuf_addf(&sb, "%s%s:%s", i ? " " : "", fixref_kind_name(refs[i].kind), refs[i].hex);
	free(refs);
	return strbuf_detach(&sb, NULL);
}

static void check_scan(const char *msg, const char *want, const char *what)
{
	char *got = scan(msg);

	is_str(got, want, "%s", what);
	free(got);
}

static void test_scan(void)
{
	const char *full = "0123456789abcdef0123456789abcdef01234567";

	check_scan("mm: fix\n\nFixes: f822a9a81a31 (\"mm: optimize mremap() by PTE batching\")\n"
		   "Signed-off-by: A <a@b>\n", "fixes:f822a9a81a31", "a Fixes: trailer with the subject");
	check_scan("x\n\nFixes: f822a9a81a31\n", "fixes:f822a9a81a31", "without the subject");
	check_scan("x\n\nfixes: F822A9A8\n", "fixes:f822a9a8", "lower case key, upper case id, 8 digits");
	check_scan("x\n\nFIXES : f822a9a81a31\n", "fixes:f822a9a81a31", "upper case and a space before the colon");
	check_scan("x\n\nFixes:\tf822a9a81a31b\n", "fixes:f822a9a81a31b", "a tab, 13 digits");
	check_scan("x\n\nFixes: commit f822a9a81a31 (\"y\")\n", "fixes:f822a9a81a31", "'Fixes: commit <id>'");
	check_scan("x\r\n\r\nFixes: f822a9a81a31\r\n", "fixes:f822a9a81a31", "CRLF lines");
	check_scan("x\n\nFixes: f822a9a (\"short\")\n", "", "7 digits are too short");
	check_scan("x\n\nFixes: f822a9a81a31zz\n", "", "an id running into letters is no id");
	check_scan("x\n\nFixes: https://bugzilla.kernel.org/1234\n", "", "a Fixes: URL");
	check_scan("x\n\nThis was broken by commit f822a9a81a31 (\"y\").\n", "", "an id in prose");
	check_scan("x\n\nThe bug fixes: f822a9a81a31 was wrong\n", "", "'fixes:' inside a sentence");
	check_scan("x\n\n    Fixes: f822a9a81a31\n", "", "an indented (quoted) Fixes: line");
	check_scan("x\n\nStable-dep-of: 0b5be138ce00 (\"z\")\n", "stable-dep-of:0b5be138ce00", "Stable-dep-of:");
	check_scan("x\n\nstable-dep-of : 0b5be138\n", "stable-dep-of:0b5be138", "stable-dep-of, odd spacing");
	{
		char *msg = xstrfmt("Revert \"y\"\n\nThis reverts commit %s.\n", full);
		char *want = xstrfmt("reverts:%s", full);

		check_scan(msg, want, "a revert");
		free(msg);
		msg = xstrfmt("Revert \"y\"\n\nThis reverts\ncommit %s.\n", full);
		check_scan(msg, want, "a revert sentence wrapped");
		free(msg);
		free(want);
	}
	check_scan("Revert \"y\"\n\nThis reverts commit f822a9a81a31.\n", "",
		   "a revert names 40 digits, not an abbreviation");
	check_scan("x\n\nFixes: 1111111111aa (\"a\")\nFixes: 2222222222bb (\"b\")\n"
		   "Stable-dep-of: 3333333333cc\n",
		   "fixes:1111111111aa fixes:2222222222bb stable-dep-of:3333333333cc", "several trailers");
	check_scan("x\n\nFixes: ", "", "a message ending in 'Fixes: '");
	check_scan("", "", "an empty message");
}

static void check_stable(const char *msg, int want, const char *want_comment, const char *what)
{
	char *comment = NULL;
	int got = fixref_stable(sc, msg, strlen(msg), &comment);

	is_int(got, want, "%s", what);
	is_str(comment, want_comment, "%s: comment", what);
	free(comment);
}

static void test_stable(void)
{
	check_stable("x\n\nCc: stable@vger.kernel.org # 6.17+\n", 1, "6.17+", "Cc: stable with a comment");
	check_stable("x\n\nCc: stable@vger.kernel.org\n", 1, NULL, "Cc: stable");
	check_stable("x\n\nCc: <stable@kernel.org>\n", 1, NULL, "Cc: <stable@kernel.org>");
	check_stable("x\n\ncc: <stable@vger.kernel.org> # v5.10+\n", 1, "v5.10+", "lower case cc");
	check_stable("x\n\nCc: stable@example.org\n", 0, NULL, "another stable@ address");
	check_stable("x\n\nPlease Cc: stable@vger.kernel.org\n", 0, NULL, "Cc: stable in prose");
	check_stable("x\n\nSigned-off-by: A <a@b>\n", 0, NULL, "no Cc");
}

static void test_hexid(void)
{
	ok(hexid_match("f822a9a81a31", "f822a9a81a31aaaa"), "a prefix matches");
	ok(hexid_match("F822A9A81A31AAAA", "f822a9a8"), "either way round, any case");
	ok(!hexid_match("f822a9a81a31", "f822a9a81a32"), "different ids do not");
	ok(!hexid_match("f822a9a", "f822a9a81a31"), "7 digits never match");
	ok(!hexid_match("patches/x.patch", "f822a9a81a31"), "a file name never matches");
}

static void test_tags(void)
{
	ok(tag_version_cmp("v2.9", "v2.10") < 0, "v2.9 < v2.10");
	ok(tag_version_cmp("v2.10-rc1", "v2.10") < 0, "v2.10-rc1 < v2.10");
	ok(tag_version_cmp("v2.10-rc2", "v2.10-rc10") < 0, "v2.10-rc2 < v2.10-rc10");
	ok(tag_version_cmp("v2.10", "v2.10.1") < 0, "v2.10 < v2.10.1");
	ok(tag_version_cmp("v2.9.3", "v2.10-rc1") < 0, "v2.9.3 < v2.10-rc1");
	ok(tag_version_cmp("v1.2", "v1.2") == 0, "equal");
	ok(tag_version_cmp("v6.18-rc6", "v6.17") > 0, "v6.18-rc6 > v6.17");
}

static void check_quote(const char *in, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	yaml_quote(&sb, in);
	is_str(sb.buf, want, "%s", what);
	strbuf_release(&sb);
}

static void check_scalar(const char *in, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	yaml_scalar(&sb, in);
	is_str(sb.buf, want, "%s", what);
	strbuf_release(&sb);
}

static void test_quote(void)
{
	check_quote("mm: fix \"x\" and \\y", "\"mm: fix \\\"x\\\" and \\\\y\"", "quotes and backslashes");
	check_quote("tab\there", "\"tab\\there\"", "a tab");
	check_quote("caf\xc3\xa9", "\"caf\xc3\xa9\"", "UTF-8 kept");
	check_quote("caf\xe9", "\"caf\\xe9\"", "a Latin-1 byte escaped");
	check_quote("a\xe2\x80\xa8" "b", "\"a\\Lb\"", "a line separator escaped");
	check_quote("bell\a", "\"bell\\x07\"", "a control character");
	check_scalar("f822a9a81a31", "f822a9a81a31", "an id stays plain");
	check_scalar("123456789012", "\"123456789012\"", "an all-digit id is quoted");
	check_scalar("1234e5678", "\"1234e5678\"", "a float-looking id is quoted");
	check_scalar("patches/a/0001-x.patch", "patches/a/0001-x.patch", "a path stays plain");
	check_scalar("yes", "\"yes\"", "a boolean word is quoted");
	check_scalar("#x", "\"#x\"", "a comment sign is quoted");
}

static const char kit_yaml[] =
	"# the kit\n"
	"series:\n"
	"  - id: alpha   # first\n"
	"    title: \"a\"\n"
	"    patches:\n"
	"      - upstream: aaaaaaaaaaaa\n"
	"        subject: \"a 1\"\n"
	"\n"
	"    # fixups follow\n"
	"    fixups:\n"
	"      - upstream: bbbbbbbbbbbb\n"
	"        fixes: aaaaaaaaaaaa   # the first\n"
	"\n"
	"  # beta has none yet\n"
	"  - id: beta\n"
	"    title: b\n"
	"    patches:\n"
	"    - upstream: cccccccccccc\n"
	"      subject: |\n"
	"        c 1\n"
	"  - id: gamma\n"
	"    title: g\n"
	"    patches: [ { upstream: dddddddddddd } ]\n"
	"    fixups: []   # none\n"
	"  - id: delta\n"
	"    title: d\n"
	"    patches:\n"
	"      - { upstream: eeeeeeeeeeee }\n"
	"    fixups: [ { upstream: ffffffffffff, fixes: eeeeeeeeeeee } ]\n";

static void test_yamledit(void)
{
	struct strbuf t = STRBUF_INIT;
	struct yaml_fixup_entry e[] = {
		{ NULL, "111111111111", "mm: fix \"it\"", "aaaaaaaaaaaa" },
		{ NULL, "222222222222", "mm: fix the fix", "111111111111" },
	};
	const char *want_alpha =
		"    fixups:\n"
		"      - upstream: bbbbbbbbbbbb\n"
		"        fixes: aaaaaaaaaaaa   # the first\n"
		"      - upstream: \"111111111111\"\n"
		"        subject: \"mm: fix \\\"it\\\"\"\n"
		"        fixes: aaaaaaaaaaaa\n"
		"      - upstream: \"222222222222\"\n"
		"        subject: \"mm: fix the fix\"\n"
		"        fixes: \"111111111111\"\n"
		"\n"
		"  # beta has none yet\n";

	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_fixups(&t, "series.yaml", "alpha", e, 2), 0, "add to an existing list");
	ok(strstr(t.buf, want_alpha) != NULL, "appended after the last entry, comments kept");
	if (!strstr(t.buf, want_alpha))
		printf("# %s\n", t.buf);

	strbuf_reset(&t);
	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_fixups(&t, "series.yaml", "beta", e, 1), 0, "add a fixups key");
	ok(strstr(t.buf, "      c 1\n"
			 "    fixups:\n"
			 "    - upstream: \"111111111111\"\n"
			 "      subject: \"mm: fix \\\"it\\\"\"\n"
			 "      fixes: aaaaaaaaaaaa\n"
			 "  - id: gamma\n") != NULL,
	   "the key follows the block scalar, with the patches' indentation");
	if (!strstr(t.buf, "    fixups:\n    - upstream"))
		printf("# %s\n", t.buf);

	strbuf_reset(&t);
	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_fixups(&t, "series.yaml", "gamma", e, 1), 0, "replace 'fixups: []'");
	ok(strstr(t.buf, "    fixups:   # none\n"
			 "      - upstream: \"111111111111\"\n") != NULL,
	   "the empty list is replaced, the comment kept");
	if (!strstr(t.buf, "    fixups:   # none\n"))
		printf("# %s\n", t.buf);

	strbuf_reset(&t);
	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_fixups(&t, "series.yaml", "delta", e, 1), -1, "a flow list is refused");
	is_str(t.buf, kit_yaml, "and the text is left alone");
	is_int(yamledit_add_fixups(&t, "series.yaml", "omega", e, 1), -1, "an unknown series is refused");

	strbuf_reset(&t);
	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_entry_key(&t, "series.yaml", "alpha", "patches", 0, "file", "patches/a/0001-a.patch"), 0,
	       "add file: to a block patch");
	ok(strstr(t.buf, "        subject: \"a 1\"\n        file: patches/a/0001-a.patch\n\n") != NULL,
	   "file: goes after the patch's last key");
	is_int(yamledit_add_entry_key(&t, "series.yaml", "alpha", "patches", 0, "file", "x"), 1,
	       "a patch that has file: already is left alone");
	is_int(yamledit_add_entry_key(&t, "series.yaml", "delta", "patches", 0, "file", "p/e.patch"), 0,
	       "add file: to a flow patch");
	ok(strstr(t.buf, "      - { upstream: eeeeeeeeeeee, file: p/e.patch }\n") != NULL,
	   "inside the braces");
	is_int(yamledit_add_entry_key(&t, "series.yaml", "alpha", "patches", 5, "file", "x"), -1,
	       "no such patch");

	is_int(yamledit_add_entry_key(&t, "series.yaml", "alpha", "fixups", 0, "file", "p/b.patch"), 0,
	       "add file: to a fixup");
	ok(strstr(t.buf, "        fixes: aaaaaaaaaaaa   # the first\n        file: p/b.patch\n") != NULL,
	   "after its trailing comment");
	{
		struct yaml_fixup_entry f = { "p/x.patch", "333333333333", "x", "aaaaaaaaaaaa" };

		is_int(yamledit_add_fixups(&t, "series.yaml", "alpha", &f, 1), 0, "a fixup with a file");
		ok(strstr(t.buf, "      - file: p/x.patch\n        upstream: \"333333333333\"\n") != NULL,
		   "file: comes first");
	}

	strbuf_reset(&t);
	strbuf_addstr(&t, "series:\n  - id: x\n    title: \"caf\xc3\xa9 \xc3\xa9\xc3\xa9\"\n"
			  "    patches:\n      - upstream: aaaaaaaaaaaa");
	is_int(yamledit_add_fixups(&t, "s.yaml", "x", e, 1), 0, "UTF-8 before, no final newline");
	is_str(t.buf, "series:\n  - id: x\n    title: \"caf\xc3\xa9 \xc3\xa9\xc3\xa9\"\n"
		      "    patches:\n      - upstream: aaaaaaaaaaaa\n"
		      "    fixups:\n      - upstream: \"111111111111\"\n"
		      "        subject: \"mm: fix \\\"it\\\"\"\n        fixes: aaaaaaaaaaaa\n",
	       "the key lands at the end, on a line of its own");

	strbuf_reset(&t);
	strbuf_addstr(&t, "series: [\n");
	is_int(yamledit_add_fixups(&t, "bad.yaml", "x", e, 1), -1, "invalid YAML is refused");
	strbuf_release(&t);
}

static void check_upstream(const char *msg, const char *want, const char *what)
{
	char hex[GIT_OID_HEXSZ + 1];
	int got = fixref_upstream(sc, msg, strlen(msg), hex);

	if (!want) {
		is_int(got, 0, "%s: no upstream id", what);
		return;
	}
	is_int(got, 1, "%s: an upstream id", what);
	is_str(hex, want, "%s: the id", what);
}

static void test_upstream(void)
{
	const char *full = "04d1c9d60c6ec4c0003d433572eaa45f8b217788";

	check_upstream("mm/mremap: honour writable bit\n\ncommit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 upstream.\n\nText.\n",
		       full, "Greg's style");
	check_upstream("x\n\n[ Upstream commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 ]\n\nText.\n",
		       full, "Sasha's style");
	check_upstream("x\n\n[Upstream commit 04D1C9D60C6EC4C0003D433572EAA45F8B217788]\n", full,
		       "no spaces inside the brackets, upper case");
	check_upstream("x\n\ncommit 04d1c9d60c6e upstream\n", "04d1c9d60c6e",
		       "abbreviated, without the full stop");
	check_upstream("x\n\n  commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 upstream.\r\n", full,
		       "indented, CRLF");
	check_upstream("x\n\n[ commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 upstream ]\n", full,
		       "bracketed Greg's style");
	check_upstream("x\n\nFixes: 04d1c9d60c6e (\"mm/mremap: honour writable bit\")\n", NULL,
		       "a Fixes: trailer is not the upstream id");
	check_upstream("x\n\n(cherry picked from commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788)\n",
		       NULL, "a cherry-pick line is not the stable style");
	check_upstream("x\n\nThis is like commit 04d1c9d60c6e upstream, but different.\n", NULL,
		       "an id in prose");
	check_upstream("x\n\ncommit 04d1c9d upstream.\n", NULL, "seven digits are too few");
	check_upstream("x\n\ncommit 04d1c9d60c6ezz upstream.\n", NULL, "not hex to the end");
	check_upstream("x\n\ncommit 04d1c9d60c6e upstream. And more text\n", NULL,
		       "more text on the line");
	check_upstream("x\n\nUpstream commit 1111111111111111111111111111111111111111\n"
		       "commit 2222222222222222222222222222222222222222 upstream.\n",
		       "1111111111111111111111111111111111111111", "the first of two");
	check_upstream("", NULL, "an empty message");
}

int main(void)
{
	fixref_scanner_new(&sc);
	test_scan();
	test_stable();
	test_upstream();
	test_hexid();
	test_tags();
	test_quote();
	test_yamledit();
	fixref_scanner_free(sc);
	return tap_done();
}

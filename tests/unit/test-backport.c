/* test-backport.c: unit tests for the backporter's loop: the note in a message, branch decisions added to series.yaml. */
#include "apply/backport.h"
#include "tap.h"
#include "lib/util.h"
#include "kit/yamledit.h"

static void test_note(void)
{
	char *m;

	m = backport_add_note("mm: x\n\ncommit abc upstream.\n\nWhy.\n\n"
			      "Signed-off-by: A <a@x>\nSigned-off-by: B <b@x>\n", "[ B: note ]", "b@x");
	is_str(m, "mm: x\n\ncommit abc upstream.\n\nWhy.\n\n"
		  "Signed-off-by: A <a@x>\n[ B: note ]\nSigned-off-by: B <b@x>\n",
	       "the note goes just before the backporter's sign-off");
	free(m);
	m = backport_add_note("mm: x\n\nWhy.\n\nSigned-off-by: B <b@x>\nLink: l\n"
			      "Signed-off-by: A <a@x>\n", "[ B: note ]", "b@x");
	is_str(m, "mm: x\n\nWhy.\n\n[ B: note ]\nSigned-off-by: B <b@x>\nLink: l\n"
		  "Signed-off-by: A <a@x>\n", "before the backporter's last sign-off, not the last one");
	free(m);
	m = backport_add_note("mm: x\n\ncommit abc upstream.\n\nWhy.\n\n"
			      "Signed-off-by: A <a@x>\n", "[ B: note ]", "b@x");
	is_str(m, "mm: x\n\ncommit abc upstream.\n\nWhy.\n\n[ B: note ]\n\n"
		  "Signed-off-by: A <a@x>\n",
	       "without the backporter's sign-off, a paragraph before the trailer block");
	free(m);
	m = backport_add_note("mm: x", "[ B: note ]", "b@x");
	is_str(m, "mm: x\n\n[ B: note ]\n", "a message of one line gets the note after it");
	free(m);
}

static void test_markers(void)
{
	static const char rst[] = "Summary\n=======\n\ntext\n";
	static const char triple[] = "a\n<<<<<<<\nmine\n=======\ntheirs\n>>>>>>>\nb\n";
	static const char labelled[] = "a\n<<<<<<< mine\nx\n|||||||\ny\n=======\nz\n>>>>>>> theirs\n";
	static const char loop_left[] = "a\n>>>>>>> upstream patch\nb\n";
	static const char longer[] = "<<<<<<<<\nx\n========\ny\n>>>>>>>>\n";
	static const unsigned char only_b[] = { 0, 0, 0, 0, 0, 0, 0, 1 };
	static const unsigned char sep_added[] = { 0, 0, 0, 0, 1, 0, 0, 0 };

	ok(backport_marker_at(rst, strlen(rst), 7, NULL, 0, 0) == 0,
	   "an reST underline of seven = is no conflict marker");
	ok(backport_marker_at(rst, strlen(rst), 7, NULL, 0, 7) == 0,
	   "nor in a file the loop wrote markers into");
	ok(backport_marker_at(triple, strlen(triple), 7, NULL, 0, 0) == 2,
	   "a complete triple without labels, at its first line");
	ok(backport_marker_at(labelled, strlen(labelled), 7, NULL, 0, 0) == 2,
	   "a triple with labels and a base section");
	ok(backport_marker_at(triple, strlen(triple), 7, only_b, 7, 0) == 0,
	   "a triple the tree had before is not held against the loop");
	ok(backport_marker_at(triple, strlen(triple), 7, sep_added, 7, 0) == 2,
	   "a triple with one new line of it is");
	ok(backport_marker_at(loop_left, strlen(loop_left), 7, NULL, 0, 7) == 2,
	   "a lone marker of the loop's own, in a file it marked");
	ok(backport_marker_at(loop_left, strlen(loop_left), 7, NULL, 0, 0) == 0,
	   "a lone marker in a file the loop did not mark is not a triple");
	ok(backport_marker_at(longer, strlen(longer), 7, NULL, 0, 0) == 0,
	   "eight-character lines are no markers at size 7");
	ok(backport_marker_at(longer, strlen(longer), 8, NULL, 0, 0) == 1,
	   "they are at conflict-marker-size 8");
	ok(backport_marker_at(triple, strlen(triple), 8, NULL, 0, 0) == 0,
	   "and seven-character ones are not");
}

static const char kit_yaml[] =
	"# the kit\n"
	"series:\n"
	"  - id: alpha\n"
	"    patches:\n"
	"      - upstream: aaaaaaaaaaaa\n"
	"        subject: \"a 1\"   # first\n"
	"      - upstream: bbbbbbbbbbbb\n"
	"        branches:\n"
	"          \"5.10\": { skip: \"old\" }\n"
	"      - upstream: cccccccccccc\n"
	"        branches: { \"5.10\": { present: \"since 5.9\" } }\n"
	"      - { upstream: dddddddddddd }\n"
	"    branches:\n"
	"      \"6.1\": { skip: \"none\" }\n";

static void test_decision(void)
{
	struct strbuf t = STRBUF_INIT;

	strbuf_addstr(&t, kit_yaml);
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 0, "6.1",
					    "{ file: p/6.1/0001-a.patch }"), 0,
	       "an entry without branches gets the key");
	ok(strstr(t.buf, "        subject: \"a 1\"   # first\n        branches:\n"
			 "          \"6.1\": { file: p/6.1/0001-a.patch }\n      - upstream: bbbb") != NULL,
	   "branches: after the entry's last key, the decision under it");
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 1, "6.1",
					    "{ skip: \"x\" }"), 0, "a block branches: mapping");
	ok(strstr(t.buf, "          \"5.10\": { skip: \"old\" }\n          \"6.1\": { skip: \"x\" }\n") != NULL,
	   "a line of its own, lined up with the others");
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 2, "6.1",
					    "{ skip: \"y\" }"), 0, "a flow branches: mapping");
	ok(strstr(t.buf, "branches: { \"5.10\": { present: \"since 5.9\" }, \"6.1\": { skip: \"y\" } }\n") != NULL,
	   "inside its braces");
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 1, "6.1",
					    "{ skip: \"z\" }"), -1, "a second decision for a branch is refused");
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 3, "6.1",
					    "{ skip: \"z\" }"), -1, "a flow entry is refused");
	is_int(yamledit_add_branch_decision(&t, "series.yaml", "alpha", "patches", 9, "6.1",
					    "{ skip: \"z\" }"), -1, "no such entry");
	ok(strstr(t.buf, "# the kit\n") == t.buf, "comments survive");
	strbuf_release(&t);
}

int main(void)
{
	test_note();
	test_markers();
	test_decision();
	return tap_done();
}

#!/bin/sh
# t0830-backport-ignored.sh: mkseries backport in a tree whose .gitignore hides every new file, as Debian's linux-source does (`/*`): the loop's files are recorded, the backporter's hidden new files are named before anything is recorded.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# kit_new NAME: a copy of kit k whose branch t is the Debian-like tree.
kit_new() {
	cp -R kit "$1"
}

test_expect_success 'setup: a tree ignoring its top level, and a patch creating a file that conflicts there' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b feat v1.0 &&
	sed -i "s/move_ptes/move_pteps/" linux/mm/mremap.c &&
	printf "int newfile(void)\n{\n\treturn 1;\n}\n" >linux/mm/newfile.c &&
	git -C linux add mm/newfile.c &&
	git -C linux commit -q -a -m "mm: add newfile" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
	NEW=$(git -C linux rev-parse HEAD) &&
	git -C linux checkout -q -b deb v1.0 &&
	printf "/*\n!/debian/\n*.o\n" >linux/.gitignore &&
	git -C linux add -f .gitignore &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "debian: ignore the top level; move_ptes returns long" &&
	git -C linux checkout -q master &&
	rm -rf kit/patches/alpha kit/patches/beta &&
	mkdir -p kit/patches/new &&
	git -C linux format-patch -q -o "$PWD/kit/patches/new" v1.0..feat &&
	sed -i "s/ref: v1.0 }/ref: deb }/" kit/kernels/t.yaml &&
	cat >kit/series.yaml <<-EOF_SERIES &&
	# the test kit
	series:
	  - id: new
	    title: "mm: add newfile"
	    patches:
	      - file: patches/new/0001-mm-add-newfile.patch
	        upstream: ${NEW%${NEW#????????????}}
	        subject: "mm: add newfile"
	EOF_SERIES
	ID=$(echo "$NEW" | cut -c1-12) &&
	git -C linux show deb:.gitignore >gi &&
	test_grep "^/\*\$" gi
'

test_expect_success 'the new file the conflicting patch creates is recorded, though .gitignore hides it' '
	kit_new k1 &&
	(cd k1 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd1" >../out 2>../err) &&
	cat out &&
	test_grep "conflict  mm/mremap.c" out &&
	tree=wd1/t/backport/tree &&
	test_grep "return 1;" $tree/mm/newfile.c &&
	git -C $tree check-ignore -q mm/newfile.c &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >$tree/mm/mremap.c &&
	(cd k1 && mkseries backport --branch t --workdir "$PWD/../wd1" --status >../out 2>../err) &&
	test_grep "nothing left to resolve" out &&
	(cd k1 && mkseries backport --branch t --workdir "$PWD/../wd1" --continue >../out 2>../err) &&
	cat out &&
	f=k1/patches/new/t/0001-$ID-mm-add-newfile.patch &&
	test_grep "^+++ b/mm/newfile.c" $f &&
	test_grep "^new file mode 100644" $f &&
	test_grep "^+int newfile(void)" $f &&
	test_grep "^+static long move_pteps" $f &&
	mk_git linux show $(kit_ref k1 t):mm/newfile.c >applied.c &&
	printf "int newfile(void)\n{\n\treturn 1;\n}\n" >applied.expect &&
	test_cmp applied.expect applied.c &&
	mk_git linux show $(kit_ref k1 t):mm/mremap.c >mremap.c &&
	test_grep "static long move_pteps" mremap.c
'

test_expect_success 'a new file the backporter made that .gitignore hides with its directory stops --continue, named; *.o does not' '
	kit_new k2 &&
	(cd k2 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd2" >../out 2>../err) &&
	tree=wd2/t/backport/tree &&
	printf "static long move_pteps(void)\n{\n\treturn helper();\n}\n" >$tree/mm/mremap.c &&
	printf "static inline long helper(void) { return 0; }\n" >$tree/mm/helper.h &&
	mkdir $tree/mm/scratch &&
	echo notes >$tree/mm/scratch/notes.txt &&
	mkdir $tree/debian &&
	echo "not hidden" >$tree/debian/note.txt &&
	echo "object" >$tree/debian/rules.o &&
	cp k2/series.yaml yaml.before &&
	(cd k2 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd2" --status >../out 2>../err) &&
	cat out &&
	test_grep "^mm/helper.h: a new file .gitignore hides, not recorded\$" out &&
	test_grep "^mm/scratch/notes.txt: a new file .gitignore hides, not recorded\$" out &&
	! test_grep "newfile.c: a new file" out &&
	! test_grep "debian/" out &&
	(cd k2 && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd2" --continue >../out 2>../err) &&
	cat err &&
	test_grep "^error: not resolved yet in .*wd2/t/backport/tree:" err &&
	test_grep "^mm/helper.h: a new file .gitignore hides, not recorded\$" err &&
	test_grep "^mm/scratch/notes.txt: a new file .gitignore hides, not recorded\$" err &&
	test_grep "^hint: .git -C .*wd2/t/backport/tree add -f <file>. records a file .gitignore hides" err &&
	! ls k2/patches/new/t 2>/dev/null &&
	test_cmp yaml.before k2/series.yaml &&
	git -C $tree add -f mm/helper.h &&
	git -C $tree clean -q -fdX &&
	! test -e $tree/mm/scratch &&
	echo "object" >$tree/debian/rules.o &&
	test -f $tree/mm/newfile.c &&
	(cd k2 && mkseries backport --branch t --workdir "$PWD/../wd2" --continue >../out 2>../err) &&
	cat out &&
	f=k2/patches/new/t/0001-$ID-mm-add-newfile.patch &&
	test_grep "^+++ b/mm/helper.h" $f &&
	test_grep "^+++ b/mm/newfile.c" $f &&
	! test_grep "notes.txt" $f &&
	mk_git linux show $(kit_ref k2 t):mm/helper.h >helper.h &&
	test_grep "return 0;" helper.h &&
	mk_git linux ls-tree -r --name-only $(kit_ref k2 t) >files &&
	! test_grep "scratch" files &&
	# not hidden: recorded as git add -A would; hidden by its own pattern
	# in a directory that is not: left out as git add -A leaves it
	test_grep "^debian/note.txt\$" files &&
	! test_grep "rules.o" files
'

test_expect_success 'without the blobs: the .rej files are named once; the file the patch names is recorded when made by hand' '
	kit_new k4 &&
	sed -i "/^index /d" k4/patches/new/0001-mm-add-newfile.patch &&
	(cd k4 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd4" >../out 2>../err) &&
	cat out &&
	test_grep "rejected  mm/mremap.c" out &&
	test_grep "rejected  mm/newfile.c" out &&
	tree=wd4/t/backport/tree &&
	! test -e $tree/mm/newfile.c &&
	git -C $tree check-ignore -q mm/mremap.c.rej &&
	(cd k4 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd4" --status >../out 2>../err) &&
	cat out &&
	test_grep "^mm/mremap.c.rej: still there\$" out &&
	test_grep "^mm/newfile.c.rej.why: still there\$" out &&
	! test_grep "hides" out &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >$tree/mm/mremap.c &&
	sed -n "s/^+//p" $tree/mm/newfile.c.rej >$tree/mm/newfile.c &&
	test_grep "int newfile" $tree/mm/newfile.c &&
	rm $tree/mm/*.rej $tree/mm/*.rej.why &&
	(cd k4 && mkseries backport --branch t --workdir "$PWD/../wd4" --continue >../out 2>../err) &&
	f=k4/patches/new/t/0001-$ID-mm-add-newfile.patch &&
	test_grep "^+++ b/mm/newfile.c" $f &&
	test_grep "^+static long move_pteps" $f &&
	mk_git linux show $(kit_ref k4 t):mm/newfile.c >applied.c &&
	printf "int newfile(void)\n{\n\treturn 1;\n}\n" >applied.expect &&
	test_cmp applied.expect applied.c
'

test_expect_success 'more than ten hidden files: ten named, the rest counted' '
	kit_new k3 &&
	(cd k3 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd3" >../out 2>../err) &&
	tree=wd3/t/backport/tree &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >$tree/mm/mremap.c &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12
	do
		echo $i >$tree/mm/built$i.o || return 1
	done &&
	(cd k3 && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd3" --continue >../out 2>../err) &&
	cat err &&
	grep "a new file .gitignore hides, not recorded" err >named &&
	test $(wc -l <named) = 10 &&
	test_grep "^\.\.\. and 2 more new files .gitignore hides\$" err &&
	(cd k3 && mkseries backport --branch t --workdir "$PWD/../wd3" --abort >../out 2>../err) &&
	! test -d wd3/t/backport/tree
'

test_done

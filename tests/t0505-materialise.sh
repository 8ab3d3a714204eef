#!/bin/sh
# t0505-materialise.sh: a full write of a tree large enough to be shared out between threads.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: a tree of 3,000 files, a kit that builds it' '
	mkdir linux &&
	(
		cd linux &&
		git init -q &&
		printf ".RECIPEPREFIX := >\nO ?= .\ntinyconfig:\n> echo CONFIG_64BIT=y >\$(O)/.config\nolddefconfig:\n> @:\nvmlinux:\n> cd \$(CURDIR) && ld -r -b binary -o \$(O)/vmlinux d7/f7.c\nbzImage:\n> mkdir -p \$(O)/arch/x86/boot\n> cp \$(O)/vmlinux \$(O)/arch/x86/boot/bzImage\n.PHONY: tinyconfig olddefconfig vmlinux bzImage\n" >Makefile &&
		for d in $(seq 0 29); do
			mkdir -p d$d/sub &&
			for f in $(seq 0 49); do
				printf "int f%s_%s;\n" $d $f >d$d/f$f.c &&
				printf "/* %s %s */\n" $d $f >d$d/sub/h$f.h || return 1
			done || return 1
		done &&
		: >empty &&
		printf "#!/bin/sh\necho hi\n" >d3/run.sh && chmod +x d3/run.sh &&
		ln -s d3/run.sh link &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0
	) &&
	plain_kit kit "$PWD/linux"
'

WORK=$(kit_workdir kit t)

test_expect_success 'every file, mode and symlink of the tree is written' '
	(cd kit && mkseries build --branch t --variant base -v >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	test_grep "source: full write, 3004 written, 0 removed, 0 repaired" out &&
	mkdir expect &&
	git -C linux archive v1.0 | tar -x -C expect &&
	diff -r --no-dereference expect "$WORK/src" &&
	test -x "$WORK/src/d3/run.sh" &&
	test "$(readlink "$WORK/src/link")" = d3/run.sh &&
	test "$(find "$WORK/src" -type f -perm -u+x | wc -l)" = 1 &&
	test "$(($(wc -l <"$WORK/src.manifest") - 1))" = 3004 &&
	! test -e "$WORK/src.manifest.dirty"
'

test_expect_success 'the manifest of a full write serves the next, incremental one' '
	rm "$WORK/src/d9/f9.c" &&
	echo junk >>"$WORK/src/d20/sub/h3.h" &&
	(cd kit && mkseries build --branch t --variant base --force -v >../out 2>../err) &&
	cat out err &&
	test_grep "source: changes only, 2 written, 0 removed, 2 repaired" out &&
	diff -r --no-dereference expect "$WORK/src"
'

test_done

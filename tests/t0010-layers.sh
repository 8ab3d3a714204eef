#!/bin/sh
# t0010-layers.sh: tests/check-layers.sh fails on a use against the ranks, an object in no folder and a cycle.
. "$(dirname "$0")/lib.sh"

OBJDIR=$(dirname "$MKSERIES_BIN")/obj/mkseries
CHECK="$TEST_DIRECTORY/check-layers.sh"

# plant DIR/REL.o from C source on stdin, into a copy of the objects in DIR.
plant() {
	mkdir -p "$(dirname "$1/$2")" &&
	cat >planted.c &&
	cc -c -o "$1/$2.o" planted.c
}

test_expect_success 'setup: a copy of the objects mkseries is linked from' '
	test -d "$OBJDIR" &&
	cp -R "$OBJDIR" objs &&
	nm -P --defined-only objs/report/report.o | awk "\$2 == \"T\" { print \$1; exit }" >report.sym &&
	nm -P --defined-only objs/kit/model.o | awk "\$2 == \"T\" { print \$1; exit }" >kit.sym &&
	test -s report.sym &&
	test -s kit.sym
'

test_expect_success 'the objects as built pass, ranks named' '
	"$CHECK" objs /nonexistent >out &&
	test_grep "every use goes down the ranks (lib kit patches tree apply record build vm doctor results run report export, then builtin)" out
'

test_expect_success 'a lib file calling into report fails, naming the file, the symbol and the ranks' '
	cp -R objs o1 &&
	sym=$(cat report.sym) &&
	printf "void %s(void);\nvoid planted(void) { %s(); }\n" "$sym" "$sym" | plant o1 lib/planted &&
	test_expect_code 1 "$CHECK" o1 /nonexistent >out 2>err &&
	test_grep "^rank: lib/planted.o uses $sym, defined in report/report.o: lib (rank 1) may not use report (rank 12)" out &&
	test_grep "1 use(s) against the ranks" err
'

test_expect_success 'a library file calling a builtin fails too' '
	cp -R objs o2 &&
	printf "int cmd_apply(int, const char **);\nint planted(void) { return cmd_apply(0, 0); }\n" |
		plant o2 run/planted &&
	test_expect_code 1 "$CHECK" o2 /nonexistent >out 2>err &&
	test_grep "^rank: run/planted.o uses cmd_apply, defined in builtin/apply.o: run (rank 11) may not use builtin (rank 14)" out
'

test_expect_success 'a call down the ranks passes; an object in no folder does not' '
	cp -R objs o3 &&
	sym=$(cat kit.sym) &&
	printf "void %s(void);\nvoid planted(void) { %s(); }\n" "$sym" "$sym" | plant o3 report/planted &&
	"$CHECK" o3 /nonexistent >out &&
	printf "int planted_top(void) { return 0; }\n" | plant o3 stray &&
	test_expect_code 1 "$CHECK" o3 /nonexistent >out 2>err &&
	test_grep "^rank: stray.o is in no folder of the layers" out
'

test_expect_success 'two files of one folder that use each other are a cycle' '
	cp -R objs o4 &&
	printf "void cyc_b(void);\nvoid cyc_a(void) { cyc_b(); }\n" | plant o4 kit/cyc_a &&
	printf "void cyc_a(void);\nvoid cyc_b(void) { cyc_a(); }\n" | plant o4 kit/cyc_b &&
	test_expect_code 1 "$CHECK" o4 /nonexistent >out 2>err &&
	test_grep "^cycle:" out &&
	test_grep "kit/cyc_a.o -> kit/cyc_b.o (cyc_b)" out
'

test_expect_success 'LAYERS names the ranks: with kit put below lib, kit using lib is wrong' '
	test_expect_code 1 env LAYERS="kit lib patches tree apply build vm results run report" \
		"$CHECK" objs /nonexistent >out 2>err &&
	test_grep "^rank: kit/model.o uses .*, defined in lib/.*: kit (rank 1) may not use lib (rank 2)" out
'

test_expect_success 'a function over 100 lines, or a file over 1500, fails the size check, named' '
	mkdir -p src/kit &&
	{
		echo "int long_one(void)" &&
		echo "{" &&
		echo "	int n = 0;" &&
		for i in $(seq 1 98); do echo "	n++;"; done &&
		echo "	return n;" &&
		echo "}"
	} >src/kit/long.c &&
	test_expect_code 1 "$CHECK" objs src >out 2>err &&
	test_grep "^size: src/kit/long.c:1: long_one() has 103 lines (over 100)$" out &&
	test_grep "0 cycle(s), 0 use(s) against the ranks, 1 over the sizes" err &&
	sed -i "/^	n++;$/d" src/kit/long.c &&
	"$CHECK" objs src >out &&
	for i in $(seq 1 1501); do echo "/* line */"; done >src/kit/big.c &&
	test_expect_code 1 "$CHECK" objs src >out 2>err &&
	test_grep "^size: src/kit/big.c has 1501 lines (over 1500)$" out
'

test_done

#!/bin/sh
# t0010-layers.sh: tests/check-layers.sh fails on a use or #include tools/mkseries/LAYERS does not name, an object in no folder, a cycle and an oversize function.
. "$(dirname "$0")/lib.sh"

OBJDIR=$(dirname "$MKSERIES_BIN")/obj/mkseries
CHECK="$TEST_DIRECTORY/check-layers.sh"
SRC="$TEST_DIRECTORY/../tools/mkseries"

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

test_expect_success 'the objects as built pass, the folder graph printed' '
	"$CHECK" objs /nonexistent >out &&
	test_grep "every use and #include is one .*LAYERS names, no cycle" out &&
	test_grep "^  results: lib console kit apply record$" out &&
	test_grep "^  lib:$" out
'

test_expect_success 'a lib file calling into report fails, naming the file, the symbol and the ranks' '
	cp -R objs o1 &&
	sym=$(cat report.sym) &&
	printf "void %s(void);\nvoid planted(void) { %s(); }\n" "$sym" "$sym" | plant o1 lib/planted &&
	test_expect_code 1 "$CHECK" o1 /nonexistent >out 2>err &&
	test_grep "^uses: lib/planted.o uses $sym, defined in report/report.o: lib may use only itself$" out &&
	test_grep "0 cycle(s), 1 use(s) against .*LAYERS, 0 fault(s) in it, 0 error(s) printed or kept on the wrong side, 0 over the sizes" err
'

test_expect_success 'a library file calling a builtin fails too' '
	cp -R objs o2 &&
	printf "int cmd_apply(int, const char **);\nint planted(void) { return cmd_apply(0, 0); }\n" |
		plant o2 run/planted &&
	test_expect_code 1 "$CHECK" o2 /nonexistent >out 2>err &&
	test_grep "^uses: run/planted.o uses cmd_apply, defined in builtin/apply.o: run may use only lib kit tree apply record results build vm doctor$" out
'

test_expect_success 'a call LAYERS names passes; an object in no folder does not' '
	cp -R objs o3 &&
	sym=$(cat kit.sym) &&
	printf "void %s(void);\nvoid planted(void) { %s(); }\n" "$sym" "$sym" | plant o3 report/planted &&
	"$CHECK" o3 /nonexistent >out &&
	printf "int planted_top(void) { return 0; }\n" | plant o3 stray &&
	test_expect_code 1 "$CHECK" o3 /nonexistent >out 2>err &&
	test_grep "^uses: stray.o is in no folder of .*LAYERS$" out
'

test_expect_success 'two files of one folder that use each other are a cycle' '
	cp -R objs o4 &&
	printf "void cyc_b(void);\nvoid cyc_a(void) { cyc_b(); }\n" | plant o4 kit/cyc_a &&
	printf "void cyc_a(void);\nvoid cyc_b(void) { cyc_a(); }\n" | plant o4 kit/cyc_b &&
	test_expect_code 1 "$CHECK" o4 /nonexistent >out 2>err &&
	test_grep "^cycle:" out &&
	test_grep "kit/cyc_a.o -> kit/cyc_b.o (cyc_b)" out
'

test_expect_success 'LAYERS says what each folder uses: kit without lib is wrong' '
	sed "s/^kit: lib$/kit:/" "$SRC/LAYERS" >layers.kit &&
	! cmp "$SRC/LAYERS" layers.kit &&
	test_expect_code 1 env LAYERS_FILE=layers.kit "$CHECK" objs /nonexistent >out 2>err &&
	test_grep "^uses: kit/model.o uses .*, defined in lib/.*: kit may use only itself$" out
'

test_expect_success 'a folder may name only folders above its line in LAYERS' '
	sed "s/^lib:$/lib: kit/" "$SRC/LAYERS" >layers.order &&
	test_expect_code 1 env LAYERS_FILE=layers.order "$CHECK" objs /nonexistent >out 2>err &&
	test_grep "^layers: layers.order:[0-9]*: lib may use only folders above its line, not kit$" out &&
	test_grep "1 fault(s) in it" err
'

test_expect_success 'a use LAYERS names that no file makes fails: the file is the graph' '
	sed "s/^report: \(.*\)$/report: \1 vm/" "$SRC/LAYERS" >layers.more &&
	test_expect_code 1 env LAYERS_FILE=layers.more "$CHECK" objs "$SRC" >out 2>err &&
	test_grep "^uses: layers.more names vm, but no file of report uses one of vm (take it off the line)$" out
'

test_expect_success 'an #include of a folder LAYERS does not name fails, with its line' '
	mkdir -p inc/lib inc/report &&
	printf "/* planted */\n#include \"lib/util.h\"\n#include \"report/report.h\"\n" >inc/lib/planted.c &&
	printf "#include \"kit/model.h\"\n" >inc/report/planted.h &&
	test_expect_code 1 "$CHECK" objs inc >out 2>err &&
	test_grep "^uses: lib/planted.c:3 includes a header of report/: lib may use only itself$" out &&
	test_grep ! "planted.h" out &&
	test_grep "1 use(s) against" err
'

test_expect_success 'below run/ an error is kept, not printed; a builtin prints, not keeps' '
	cp -R objs o5 &&
	printf "int print_error(const char *, ...);\nint planted(void) { return print_error(\"x\"); }\n" |
		plant o5 build/planted &&
	printf "int error(const char *, ...);\nint planted_cmd(void) { return error(\"x\"); }\n" |
		plant o5 builtin/planted &&
	printf "int print_error(const char *, ...);\nint planted_run(void) { return print_error(\"x\"); }\n" |
		plant o5 run/planted &&
	test_expect_code 1 "$CHECK" o5 /nonexistent >out 2>err &&
	test_grep "^errors: build/planted.o uses print_error(): below the folders that print, an error is kept (error()) and returned$" out &&
	test_grep "^errors: builtin/planted.o uses error(): a builtin prints its errors (print_error)$" out &&
	test_grep ! "run/planted" out &&
	test_grep "2 error(s) printed or kept on the wrong side" err
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
	test_grep "0 cycle(s), 0 use(s) against .*, 0 fault(s) in it, 0 error(s) .*, 1 over the sizes" err &&
	sed -i "/^	n++;$/d" src/kit/long.c &&
	"$CHECK" objs src >out &&
	for i in $(seq 1 1501); do echo "/* line */"; done >src/kit/big.c &&
	test_expect_code 1 "$CHECK" objs src >out 2>err &&
	test_grep "^size: src/kit/big.c has 1501 lines (over 1500)$" out
'

test_expect_success 'more than 10 locals or 2 labels is noted, not failed' '
	mkdir -p src2/kit &&
	{
		echo "static int many(int x)" &&
		echo "{" &&
		echo "	static const char *const words[] = {" &&
		echo "		\"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\", \"j\", \"k\"," &&
		echo "	};" &&
		echo "	int a = 0, b = 1, c = f(1, 2), d;" &&
		echo "	struct strbuf e = STRBUF_INIT, g = { 0, 1 };" &&
		echo "	const char *h, *i," &&
		echo "		*j;" &&
		echo "	size_t k;" &&
		echo "" &&
		echo "	a = b;" &&
		echo "	int late;" &&
		echo "	return words[x] != 0;" &&
		echo "}" &&
		echo "static int labels(int x)" &&
		echo "{" &&
		echo "	if (x) goto one;" &&
		echo "one:" &&
		echo "two:" &&
		echo "three:" &&
		echo "	return 0;" &&
		echo "}"
	} >src2/kit/many.c &&
	"$CHECK" objs src2 >out &&
	test_grep "^note: src2/kit/many.c:1: many() has 11 locals and 0 label(s)$" out &&
	test_grep "^note: src2/kit/many.c:16: labels() has 0 locals and 3 label(s)$" out &&
	sed -i "/size_t k;/d" src2/kit/many.c &&
	"$CHECK" objs src2 >out &&
	test_grep ! "many()" out
'

test_done

#!/bin/sh
# t0710-report.sh: mkseries report: the recorded results in every format, and JSON reports merged.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

DATA="$TEST_DIRECTORY/data/results"

# widest FILE: the widest line in characters (not bytes: "±" is one).
widest() {
	python3 -c "import sys; print(max(len(l.rstrip(\"\\n\")) for l in open(sys.argv[1], encoding=\"utf-8\")))" "$1"
}

test_expect_success 'setup: a kit run once, with the fake kbuild and QEMU' '
	setup_fake_run kit &&
	(cd kit && mkseries run --branch t --workdir ../work >../run.out)
'

test_expect_success 'report shows the recorded results without running anything' '
	(cd kit && mkseries report --workdir ../work >../out) &&
	test_grep "^alpha  *applied" out &&
	test_grep "^t kit   ok     ok     ok tcg  3 ok   none    no change" out &&
	test_grep "^2 cells: 2 ok; 0 regressions" out &&
	test_grep ! "up to date" out &&
	test_grep ! "built" out
'

test_expect_success 'report --format json: the documented schema, valid JSON' '
	(cd kit && mkseries report --workdir ../work --format json >../r.json) &&
	json_ok r.json &&
	test_grep "^  \"schema\": 1,$" r.json &&
	test_grep "\"status\": \"ok\"" r.json &&
	test_grep "\"emulated\": false" r.json &&
	test_grep "\"timing\": \"instructions\"" r.json &&
	test_grep "\"samples\": \[" r.json &&
	test_grep "\"tester\": \"Back Porter <backporter@example.com>\"" r.json
'

test_expect_success 'report --format junit: a testsuite per cell, well-formed' '
	(cd kit && mkseries report --workdir ../work --format junit >../r.xml) &&
	xml_ok r.xml &&
	test $(grep -c "<testsuite " r.xml) = 2 &&
	test_grep "<testsuite name=\"t/kit\" tests=\"10\" failures=\"0\"" r.xml &&
	test_grep "<testcase classname=\"t/kit/mm-regress\" name=\"steady\"" r.xml &&
	test_grep "<testcase classname=\"t/kit/perf\" name=\"perf_loop.us_per_iteration\"" r.xml
'

test_expect_success 'report --format markdown: 72 columns, a Tested-by line' '
	(cd kit && mkseries report --workdir ../work --format markdown >../r.md) &&
	test $(widest r.md) -le 72 &&
	test_grep "^| series | t       |$" r.md &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # t$" r.md
'

test_expect_success 'report --output writes the file' '
	(cd kit && mkseries report --workdir ../work --format json --output ../o.json >../out) &&
	test ! -s out &&
	test_cmp_json=$(sed "/\"generated\"/d" o.json | md5sum) &&
	test "$test_cmp_json" = "$(sed "/\"generated\"/d" r.json | md5sum)"
'

test_expect_success 'report --variant with a name no branch has is a usage error' '
	(cd kit && test_expect_code 2 mkseries report --workdir ../work --variant nosuch 2>../err) &&
	test_grep "unknown variant .nosuch." err
'

test_expect_success 'report --variant kit shows that cell only' '
	(cd kit && mkseries report --workdir ../work --variant kit >../out) &&
	test_grep "^t kit " out &&
	test_grep ! "^t base " out
'

test_expect_success 'a failure recorded makes report exit 1' '
	(cd kit && FAKE_QEMU_FAIL=1 test_must_fail mkseries run --branch t --workdir ../work \
		--force=test >/dev/null) &&
	(cd kit && test_must_fail mkseries report --workdir ../work >../out) &&
	test_grep "^  t kit: tests: not ok 3 steady" out &&
	(cd kit && mkseries run --branch t --workdir ../work --force=test >/dev/null) &&
	(cd kit && mkseries report --workdir ../work >/dev/null)
'

test_expect_success 'cells run by separate jobs merge into the same report' '
	(cd kit && mkseries run --branch t --variant base --workdir ../j1 --format json \
		--output ../base.json >/dev/null) &&
	(cd kit && mkseries run --branch t --variant kit --workdir ../j2 --format json \
		--output ../kit.json >/dev/null) &&
	mkseries report --merge base.json kit.json >merged &&
	(cd kit && mkseries report --workdir ../work >../whole) &&
	grep "^t " merged >m.cells &&
	grep "^t " whole >w.cells &&
	test_cmp w.cells m.cells &&
	test_grep "^alpha  *applied" merged &&
	mkseries report --merge base.json kit.json --format junit >merged.xml &&
	xml_ok merged.xml
'

test_expect_success 'merge fixture reports: verdicts recomputed, exit 1 on failures' '
	test_must_fail mkseries report --merge "$DATA/three-branches.json" >out &&
	test_grep "^mremap-pte-batch  skipped  conflict  applied" out &&
	test_grep "^  6.1 kit: apply: cannot apply .mremap-pte-batch 2/2." out &&
	test_grep "^  5.10 base: splats: console line 312: " out &&
	test_grep "+23.8% .*perf_loop.us_per_iteration (us)  (worse)" out &&
	test_grep "^6 cells: 3 ok, 2 failed, 1 conflict; 1 regression, 1 improvement" out &&
	mkseries report --merge "$DATA/all-good.json" --format markdown >md &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # 6.17$" md &&
	test $(widest md) -le 72
'

test_expect_success 'the fan-out pieces of a fixture merge' '
	test_must_fail mkseries report --merge "$DATA/cell-6.12-base.json" \
		"$DATA/cell-6.12-kit.json" >out 2>err &&
	test_grep "^6.12 base " out &&
	test_grep "^6.12 kit " out &&
	# the other called change is an improvement, and says so
	test_grep "^6.12 kit .*+23.8% perf_loop.us_per_iteration (worse) +1 better\$" out &&
	test_must_be_empty err
'

test_expect_success 'report --merge refuses a cell found in two reports, naming both' '
	cp "$DATA/cell-6.12-kit.json" kit-again.json &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-base.json" \
		"$DATA/cell-6.12-kit.json" kit-again.json >out 2>err &&
	cat err &&
	test_must_be_empty out &&
	test_grep "^error: cell .6.12 kit. is in two reports: .$DATA/cell-6.12-kit.json. and .kit-again.json.$" err &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-kit.json" \
		"$DATA/cell-6.12-base.json" "$DATA/cell-6.12-kit.json" --format json >out 2>err &&
	test_must_be_empty out &&
	test_grep "^error: report .$DATA/cell-6.12-kit.json. is given twice$" err
'

test_expect_success 'report --merge --cells: the reports hold exactly the cells listed, each once' '
	test_expect_code 1 mkseries report --merge "$DATA/cell-6.12-base.json" \
		"$DATA/cell-6.12-kit.json" --cells "6.12/base 6.12/kit" >out 2>err &&
	test_must_be_empty err &&
	test_grep "^2 cells: " out &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-base.json" \
		--cells "6.12/base 6.12/kit 6.12/no-fixes" >out 2>err &&
	cat err &&
	test_must_be_empty out &&
	test_grep "^error: cell .6.12/kit. of the plan is in no report$" err &&
	test_grep "^error: cell .6.12/no-fixes. of the plan is in no report$" err &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-base.json" \
		"$DATA/cell-6.12-kit.json" --cells "6.12/base" >out 2>err &&
	test_grep "^error: cell .6.12/kit. (in .$DATA/cell-6.12-kit.json.) is not one of the plan.s$" err &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-base.json" \
		--cells "6.12/base 6.12/base" >out 2>err &&
	test_grep "^error: --cells names cell .6.12/base. twice$" err &&
	test_expect_code 2 mkseries report --merge "$DATA/cell-6.12-base.json" \
		--cells "6.12-base" >out 2>err &&
	test_grep "^error: --cells: .6.12-base. is not BRANCH/VARIANT$" err &&
	(cd kit && test_expect_code 2 mkseries report --workdir ../work --cells t/kit 2>../err) &&
	test_grep "^error: --cells checks the reports --merge reads: it needs --merge$" err
'

test_expect_success 'report --merge refuses a key twice in one object and bytes that are not UTF-8' '
	sed "s/^  \"schema\": 1,$/  \"schema\": 1,\n  \"schema\": 1,/" \
		"$DATA/cell-6.12-base.json" >twice.json &&
	test_expect_code 2 mkseries report --merge twice.json >out 2>err &&
	test_must_be_empty out &&
	test_grep "^error: twice.json:3: key .schema. appears twice in one object (first on line 2)$" err &&
	sed "0,/\"variant\": \"kit\",/s//\"variant\": \"kit\", \"variant\": \"base\",/" \
		"$DATA/cell-6.12-kit.json" >variant-twice.json &&
	test_expect_code 2 mkseries report --merge variant-twice.json >out 2>err &&
	test_grep "^error: variant-twice.json:[0-9]*: key .variant. appears twice in one object" err &&
	printf "{\"schema\": 1,\n \"tester\": \"a\\u0062\", \"tes\\u0074er\": \"c\",\n \"branches\": []}" >escaped.json &&
	test_expect_code 2 mkseries report --merge escaped.json >out 2>err &&
	test_grep "^error: escaped.json:2: key .tester. appears twice in one object (first on line 2)$" err &&
	sed "s/\"tester\": \"CI /\"tester\": \"C\xff\xfeI /" "$DATA/cell-6.12-base.json" >latin.json &&
	test_expect_code 2 mkseries report --merge latin.json >out 2>err &&
	test_must_be_empty out &&
	test_grep "^error: latin.json:5: not valid UTF-8 (byte 0xff)$" err &&
	printf "{\"schema\": 1, \"branches\": [], \"tester\": \"\355\240\200\"}" >surrogate.json &&
	test_expect_code 2 mkseries report --merge surrogate.json >out 2>err &&
	test_grep "^error: surrogate.json:1: not valid UTF-8 (byte 0xed)$" err &&
	printf "{\"schema\": 1, \"branches\": [], \"tester\": \"B\303\274rger\"}" >good.json &&
	mkseries report --merge good.json >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'console text cannot reach the terminal' '
	test_must_fail mkseries report --merge "$DATA/hostile.json" >out &&
	test_grep -F "\\x1b[2J\\x1b[31mred" out &&
	! grep -q "$(printf "\033")" out
'

test_expect_success 'bad reports are refused with FILE:LINE, exit 2' '
	printf "{\n  \"schema\": 1,\n  \"branches\": [\n    {\"name\": 3}\n  ]\n}\n" >bad.json &&
	test_expect_code 2 mkseries report --merge bad.json 2>err &&
	test_grep "^error: bad.json:4: .name. must be a string, not a number$" err &&
	printf "{\"schema\": 1, \"branches\": [" >trunc.json &&
	test_expect_code 2 mkseries report --merge trunc.json 2>err &&
	test_grep "^error: trunc.json:1: expected a value, found the end of the file$" err &&
	printf "{\"schema\": 7, \"branches\": []}" >new.json &&
	test_expect_code 2 mkseries report --merge new.json 2>err &&
	test_grep "report schema 7 is not one this mkseries reads (1)" err &&
	test_expect_code 2 mkseries report --merge missing.json 2>err &&
	test_grep "cannot read report .missing.json." err &&
	printf "{\"schema\": 1, \"branches\": []}" >empty.json &&
	printf "\000" >>empty.json &&
	test_expect_code 2 mkseries report --merge empty.json 2>err &&
	test_grep "not a JSON report (it holds NUL bytes)" err
'

test_expect_success 'setup: the kit with two variants of t, run once' '
	cp -r kit kitv &&
	add_variants kitv t &&
	sed -i "s|qemu: .*|qemu: $TRASH_DIRECTORY/fake-qemu-v|" kitv/kernels/t.yaml &&
	write_variant_qemu fake-qemu-v &&
	(cd kitv && mkseries run --branch t --workdir ../wv >../run.out) &&
	F1s=$(echo $F1 | cut -c1-12)
'

test_expect_success 'report: the variants are rows of the matrix, XFAILs are listed' '
	(cd kitv && mkseries report --workdir ../wv >../out) &&
	cat out &&
	grep "^t [a-z-]* " out | awk "{print \$2}" >rows &&
	printf "%s\n" base kit no-fix no-beta >rows.expect &&
	test_cmp rows.expect rows &&
	test_grep "^t no-fix   ok     ok     ok tcg  2 ok, 1 xfail  none    -30.0% realloc.calls_per_sec (worse)$" out &&
	test_grep "^  t no-fix: steady failed as expected: shows $F1s matters$" out &&
	test_grep "^4 cells: 4 ok; 0 regressions, 0 improvements (variants: 1 worse, 0 better); 1 expected failure$" out
'

test_expect_success 'report: base, then kit and each variant side by side, per metric' '
	(cd kitv && mkseries report --workdir ../wv >../out) &&
	sed -n "/^t: kit, no-fix, no-beta against base/,/^\$/p" out >perf &&
	cat perf &&
	sed -n 2p perf >names &&
	echo "        base                         kit                      no-fix                     no-beta" >names.expect &&
	test_cmp names.expect names &&
	test_grep "^---------------- --------------------------- --------------------------- ---------------------------$" perf &&
	test_grep "^      1001 ±  0%      +0.0%       1001 ±  0%     -30.0%        700 ±  0%      +0.0%       1001 ±  0%  realloc.calls_per_sec (calls/s)  (no-fix worse)$" perf
'

test_expect_success 'report --format markdown: two compared columns a table, in 72 columns' '
	(cd kitv && mkseries report --workdir ../wv --format markdown >../r.md) &&
	cat r.md &&
	test $(widest r.md) -le 72 &&
	test_grep "^### t: kit, no-fix, no-beta against base$" r.md &&
	test $(grep -c "^    --------------- ------------------------" r.md) = 2 &&
	test_grep "^    --------------- ------------------------ ------------------------$" r.md &&
	test_grep "^           base                      kit                   no-fix$" r.md &&
	test_grep "^    realloc.calls_per_sec (calls/s) (no-fix worse)$" r.md &&
	test_grep "^| t no-fix  | ok    | ok    | ok   | 2 ok, 1 xfail | 1 worse   |$" r.md &&
	test_grep "^Expected failures:$" r.md &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # t$" r.md
'

test_expect_success 'report --format json: the variant cells, their expectations, every comparison' '
	(cd kitv && mkseries report --workdir ../wv --format json >../v.json) &&
	json_ok v.json &&
	test_grep "^  \"schema\": 1,$" v.json &&
	jq -r ".status, .summary.variant_regressions, .summary.xfail, .summary.regressions" v.json >sum &&
	printf "%s\n" ok 1 1 0 >sum.expect &&
	test_cmp sum.expect sum &&
	jq -r ".branches[0].comparisons[] | [.variant, .regressions] | join(\" \")" v.json >cmp &&
	printf "%s\n" "kit 0" "no-fix 1" "no-beta 0" >cmp.expect &&
	test_cmp cmp.expect cmp &&
	jq -r ".branches[0].comparison.variant // \"none\"" v.json >old &&
	echo none >old.expect &&
	test_cmp old.expect old &&
	jq -r ".branches[0].cells[2] | [.variant, .without, (.expect_fail | join(\",\")), .xfail, (.cases[] | select(.expected_fail) | .name + \":\" + .status)] | join(\" \")" \
		v.json >cell &&
	echo "no-fix $F1s steady 1 steady:fail" >cell.expect &&
	test_cmp cell.expect cell
'

test_expect_success 'report --format junit: an expected failure is a passing testcase' '
	(cd kitv && mkseries report --workdir ../wv --format junit >../v.xml) &&
	xml_ok v.xml &&
	test_grep "<testsuite name=\"t/no-fix\" tests=\"[0-9]*\" failures=\"0\"" v.xml &&
	test_grep "<testcase classname=\"t/no-fix/mm-regress\" name=\"steady\" time=\"0.000\"/>" v.xml
'

test_expect_success 'report --variant no-fix, and the variants of separate jobs merged' '
	(cd kitv && mkseries report --workdir ../wv --variant no-fix >../out) &&
	test_grep "^t no-fix " out &&
	test_grep ! "^t base " out &&
	(cd kitv && mkseries run --branch t --variant base --workdir ../jb --format json \
		--output ../vb.json >/dev/null) &&
	(cd kitv && mkseries run --branch t --variant no-fix --workdir ../jf --format json \
		--output ../vf.json >/dev/null) &&
	mkseries report --merge vb.json vf.json >merged &&
	cat merged &&
	test_grep "^t no-fix  ok     ok     ok tcg  2 ok, 1 xfail  none    -30.0% realloc.calls_per_sec (worse)$" merged &&
	test_grep "^t: no-fix against base, " merged &&
	test_grep "^  t no-fix: steady failed as expected: shows $F1s matters$" merged
'

test_expect_success 'usage errors exit 2; a branch never run exits 1' '
	test_expect_code 2 mkseries report --merge 2>err &&
	test_grep "merge needs the JSON reports" err &&
	(cd kit && test_expect_code 2 mkseries report base.json 2>../err) &&
	test_grep "unexpected argument .base.json." err &&
	(cd kit && test_expect_code 2 mkseries report --format yaml 2>../err) &&
	test_grep "unknown report format .yaml." err &&
	test_expect_code 2 mkseries report --merge --branch t base.json 2>err &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../nowhere 2>../err) &&
	# said once, with the command that records them
	grep "no results" err >said &&
	echo "error: no results recorded for '"'"'t'"'"' (run: mkseries run --branch t)" >said.expect &&
	test_cmp said.expect said &&
	# two branches: each named, then the error
	rm -rf kit2 &&
	cp -R kit kit2 &&
	sed "s/^name: t\$/name: u/" kit2/kernels/t.yaml >kit2/kernels/u.yaml &&
	(cd kit2 && test_expect_code 1 mkseries report --all --workdir ../nowhere 2>../err) &&
	cat >said.expect <<-\EOF &&
	t: no results recorded (run: mkseries run --branch t)
	u: no results recorded (run: mkseries run --branch u)
	error: no results recorded for any of the 2 branches
	EOF
	grep "no results" err >said &&
	test_cmp said.expect said
'

test_done

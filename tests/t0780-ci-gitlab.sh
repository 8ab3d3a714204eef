#!/bin/sh
# t0780-ci-gitlab.sh: mkseries ci gitlab: the plan's cells as a GitLab CI pipeline, run for real by gitlab-ci-local.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# gitlab-ci-local, pinned with all its dependencies in
# tests/gitlab-ci-local/package-lock.json; `make deps` installs it there
# (npm ci). Without it these tests are skipped, saying so, except in CI
# (CI set), where they fail: CI runs make deps first.
GCL="$TEST_DIRECTORY/gitlab-ci-local/node_modules/.bin/gitlab-ci-local"
test_lazy_prereq GITLAB_CI_LOCAL 'test -x "$GCL" || test -n "${CI:-}"'

# gcl [-C KIT] OUT [OPTIONS]: gitlab-ci-local on the pipeline of KIT
# (default kit), its shell executor with each job in a copy of the
# repository of its own (as a runner's checkout is), jobs finding
# mkseries on PATH; its output in OUT, its exit status in $gcl_status.
# Its earlier runs are cleaned away (-ff: the jobs' copies of the
# repository are repositories too).
gcl() {
	_kit=kit &&
	if [ "$1" = -C ]; then _kit=$2 && shift 2; fi &&
	_out=$1 &&
	shift &&
	git -C "$_kit" clean -q -ff -d -x &&
	{ (cd "$_kit" && "$GCL" --shell-isolation --no-color "$@") >"$_out" 2>&1; gcl_status=$?; } &&
	cat "$_out"
}

# cells_of_plan: "BRANCH VARIANT" of each cell `plan --format json` lists.
cells_of_plan() {
	(cd kit && mkseries plan --format json >../plan.json) &&
	python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["cells"]:
    print(c["branch"], c["variant"])' plan.json
}

test_expect_success GITLAB_CI_LOCAL 'the pinned gitlab-ci-local is installed (make deps)' '
	test -x "$GCL" &&
	"$GCL" --version >version &&
	echo 4.62.0 >version.expect &&
	test_cmp version.expect version
'

test_expect_success 'setup: a kit in git with branch t, its two variants, and a branch 1.10' '
	setup_fake_run kit &&
	add_variants kit t &&
	sed -i "s|qemu: .*|qemu: $TRASH_DIRECTORY/fake-qemu-v|" kit/kernels/t.yaml &&
	write_variant_qemu fake-qemu-v &&
	kernel_yaml kit 1.10 v1.0-mk &&
	git -C kit init -q &&
	git -C kit add -A &&
	git -C kit commit -q -m "the kit"
'

test_expect_success 'ci gitlab: a job per cell of the plan, in its order, and a merge job' '
	(cd kit && mkseries ci gitlab --output .gitlab-ci.yml >../out 2>../err) &&
	test_must_be_empty out &&
	test_must_be_empty err &&
	cat kit/.gitlab-ci.yml &&
	cells_of_plan >cells.expect &&
	sed -n "s/^\"\(.*\) \(.*\)\":$/\1 \2/p" kit/.gitlab-ci.yml >cells &&
	test_cmp cells.expect cells &&
	test $(wc -l <cells) = 6 &&
	test_grep "^merge:$" kit/.gitlab-ci.yml &&
	test_grep "^    MKSERIES_REPORTS: \"mkseries-1.10+base.json mkseries-1.10+kit.json mkseries-t+base.json mkseries-t+kit.json mkseries-t+no-fix.json mkseries-t+no-beta.json\"$" kit/.gitlab-ci.yml &&
	test_grep "^    MKSERIES_CELLS: \"1.10/base 1.10/kit t/base t/kit t/no-fix t/no-beta\"$" kit/.gitlab-ci.yml &&
	test_grep "^      junit: \"mkseries-junit.xml\"$" kit/.gitlab-ci.yml &&
	for v in MKSERIES MKSERIES_RUNNER_TAG MKSERIES_CACHE_URL MKSERIES_JOBS MKSERIES_RUN_OPTIONS
	do
		test_grep "^  $v: \"" kit/.gitlab-ci.yml || return 1
	done &&
	(cd kit && mkseries ci gitlab --branch 1.10 >../one.yml) &&
	sed -n "s/^\"\(.*\)\":$/\1/p" one.yml >one &&
	printf "1.10 base\n1.10 kit\n" >one.expect &&
	test_cmp one.expect one
'

test_expect_success 'the kit reaches the YAML as quoted values only, never in a script line' '
	test_grep "^    MKSERIES_BRANCH: \"1.10\"$" kit/.gitlab-ci.yml &&
	test_grep "^    MKSERIES_VARIANT: \"no-fix\"$" kit/.gitlab-ci.yml &&
	test_grep "^    - \"mkseries-work/1.10/logs/\"$" kit/.gitlab-ci.yml &&
	grep "^  - " kit/.gitlab-ci.yml | sort -u >scripts &&
	cat scripts &&
	test $(wc -l <scripts) = 9 &&
	test_grep "^  - .export CCACHE_BASEDIR=\"\${CCACHE_BASEDIR:-\$PWD}\".$" scripts &&
	test_grep ! "1\.10\|no-fix\|no-beta\|\"t\"" scripts &&
	(cd kit && mkseries ci gitlab --branch t >../t.yml) &&
	grep "^  - " t.yml | sort -u >t.scripts &&
	test_cmp scripts t.scripts
'

test_expect_success 'a kit whose names are not plain writes no pipeline' '
	cp -r kit kit-evil &&
	sed "s/^name: 1.10$/name: \"x; touch pwned\"/" kit/kernels/1.10.yaml \
		>"kit-evil/kernels/x; touch pwned.yaml" &&
	(cd kit-evil && test_expect_code 2 mkseries ci gitlab --output p.yml 2>../err) &&
	cat err &&
	test_grep "kernels/x; touch pwned.yaml:1: invalid branch name .x; touch pwned." err &&
	test ! -e kit-evil/p.yml &&
	rm "kit-evil/kernels/x; touch pwned.yaml" &&
	sed -i "s/^  no-beta:$/  \"no\$(touch pwned)\":/" kit-evil/kernels/t.yaml &&
	(cd kit-evil && test_expect_code 2 mkseries ci gitlab --output p.yml 2>../err) &&
	cat err &&
	test_grep "kernels/t.yaml:[0-9]*: invalid variant name .no\$(touch pwned)." err &&
	test ! -e kit-evil/p.yml &&
	test ! -e pwned && test ! -e kit-evil/pwned
'

test_expect_success 'ci gitlab: bad usage and an unwritable output' '
	(cd kit && test_expect_code 2 mkseries ci 2>../err) &&
	test_grep "which CI system? (gitlab)" err &&
	(cd kit && test_expect_code 2 mkseries ci jenkins 2>../err) &&
	test_grep "unknown CI system .jenkins. (gitlab)" err &&
	(cd kit && test_expect_code 2 mkseries ci gitlab --branch nope 2>../err) &&
	test_grep "unknown branch .nope." err &&
	(cd kit && test_expect_code 2 mkseries ci gitlab --all --branch t 2>../err) &&
	test_grep "give one of them" err &&
	(cd kit && test_expect_code 1 mkseries ci gitlab --output no/such/dir/p.yml 2>../err) &&
	test_grep "cannot write .no/such/dir/p.yml." err
'

test_expect_success GITLAB_CI_LOCAL 'gitlab-ci-local runs every cell job, then the merge job on their artifacts' '
	git -C kit add .gitlab-ci.yml &&
	git -C kit commit -q -m "the pipeline" &&
	gcl gcl.out --json-schema-validation &&
	test $gcl_status = 0 &&
	while read b v
	do
		test_grep "^ PASS  $b $v *$" gcl.out &&
		test_grep "^$b $v *> $b $v: test: booted (tcg" gcl.out &&
		test_grep "^$b $v *> report: mkseries-$b+$v.json$" gcl.out &&
		test -s kit/.gitlab-ci-local/artifacts/*/mkseries-work/$b/logs/$v-console.log || return 1
	done <cells &&
	test_grep "^ PASS  merge *$" gcl.out &&
	test_grep "^merge *> 6 cells: 6 ok; 0 regressions, 0 improvements (variants: 1 worse, 0 better); 1 expected failure$" gcl.out &&
	test_grep "^merge *> t no-fix   ok     ok     ok tcg  2 ok, 1 xfail  none    -30.0% realloc.calls_per_sec (worse)$" gcl.out &&
	a=kit/.gitlab-ci-local/artifacts/merge &&
	xml_ok $a/mkseries-junit.xml &&
	grep -o "<testsuite name=\"[^\"]*\"" $a/mkseries-junit.xml >suites &&
	sed "s|^\(.*\) \(.*\)$|<testsuite name=\"\1/\2\"|" cells >suites.expect &&
	test_cmp suites.expect suites &&
	test_grep ! "<failure" $a/mkseries-junit.xml &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # 1.10, t$" $a/mkseries-reply.md &&
	test_grep "^6 cells: 6 ok" $a/mkseries-report.txt &&
	json_ok $a/mkseries-merged.json &&
	test_grep "<!DOCTYPE html>" $a/mkseries-report.html &&
	git -C kit tag green
'

test_expect_success GITLAB_CI_LOCAL 'a cell that fails fails its job, the merge job and the pipeline' '
	sed -i "/expect-fail: \[steady\]/d" kit/kernels/t.yaml &&
	git -C kit commit -q -a -m "no-fix no longer expects steady to fail" &&
	gcl red.out --no-json-schema-validation &&
	test $gcl_status = 1 &&
	test_grep "^ FAIL  t no-fix *$" red.out &&
	test_grep "^t no-fix *> t no-fix: test: FAILED (tcg, instruction-paced) 1 case failed: steady" red.out &&
	for c in "1.10 base" "1.10 kit" "t base" "t kit" "t no-beta"
	do
		test_grep "^ PASS  $c *$" red.out || return 1
	done &&
	test_grep "^ FAIL  merge *$" red.out &&
	test_grep "^merge *> 6 cells: 5 ok, 1 failed" red.out &&
	a=kit/.gitlab-ci-local/artifacts/merge &&
	xml_ok $a/mkseries-junit.xml &&
	test_grep "<testcase .*name=\"steady\"" $a/mkseries-junit.xml &&
	test $(grep -c "<failure" $a/mkseries-junit.xml) = 1 &&
	test_grep "^6 cells: 5 ok, 1 failed" $a/mkseries-report.txt &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # 1.10$" $a/mkseries-reply.md
'

test_expect_success GITLAB_CI_LOCAL 'as a child pipeline: a job writes it, a trigger includes that artifact' '
	git -C kit reset -q --hard green &&
	cat >kit/parent.yml <<-\EOF &&
	stages: [generate, matrix]
	generate:
	  stage: generate
	  script:
	    - mkseries ci gitlab --all --output mkseries-pipeline.yml
	  artifacts:
	    paths: [mkseries-pipeline.yml]
	matrix:
	  stage: matrix
	  trigger:
	    include:
	      - artifact: mkseries-pipeline.yml
	        job: generate
	    strategy: depend
	EOF
	git -C kit add parent.yml &&
	git -C kit commit -q -m "a parent pipeline" &&
	gcl child.out --file parent.yml --no-json-schema-validation &&
	test $gcl_status = 0 &&
	test_grep "^ PASS  generate *$" child.out &&
	while read b v
	do
		test_grep "^ PASS  \[matrix\] -> $b $v *$" child.out || return 1
	done <cells &&
	test_grep "\[matrix\] -> merge *> 6 cells: 6 ok;" child.out &&
	test_grep "^ PASS  \[matrix\] -> merge *$" child.out &&
	test_grep "^ PASS  matrix *$" child.out &&
	test -s kit/.gitlab-ci-local/artifacts/merge/mkseries-junit.xml
'

# The pairs whose cells wrote one report, mkseries-<branch>-<variant>.json,
# before the names said which part is which.
NAME_PAIRS="a:b-c a-b:c 6.12:arm64-x 6.12-arm64:x"

test_expect_success 'setup: a kit whose branch and variant names join alike (a + b-c, a-b + c)' '
	mkdir names &&
	cp -R kit/series.yaml kit/patches names/ &&
	b1=$(git -C linux rev-parse --short=12 HEAD) &&
	for bv in $NAME_PAIRS
	do
		kernel_yaml names "${bv%%:*}" v1.0-mk &&
		printf "variants:\n  %s:\n    without: [%s]\n" "${bv#*:}" "$b1" \
			>>"names/kernels/${bv%%:*}.yaml" || return 1
	done &&
	git -C names init -q &&
	git -C names add -A &&
	git -C names commit -q -m "a kit of names that join alike" &&
	(cd names && mkseries ci gitlab --output .gitlab-ci.yml) &&
	git -C names add .gitlab-ci.yml &&
	git -C names commit -q -m "the pipeline" &&
	git -C names tag pipeline
'

test_expect_success 'ci gitlab: every cell its own report name, the merge the list of cells' '
	sed -n "s/^    MKSERIES_REPORT: \"\(.*\)\"$/\1/p" names/.gitlab-ci.yml >reports &&
	cat reports &&
	test $(wc -l <reports) = 12 &&
	test $(sort -u reports | wc -l) = 12 &&
	for bv in $NAME_PAIRS
	do
		b=${bv%%:*} v=${bv#*:} &&
		for c in base kit $v
		do
			test_grep "^mkseries-$b+$c.json$" reports || return 1
		done
	done &&
	sed -n "s/^    MKSERIES_REPORTS: \"\(.*\)\"$/\1/p" names/.gitlab-ci.yml | tr " " "\n" >merged &&
	test_cmp reports merged &&
	sed -n "s/^    MKSERIES_CELLS: \"\(.*\)\"$/\1/p" names/.gitlab-ci.yml | tr " " "\n" >cells.names &&
	sed -n "s/^\"\(.*\) \(.*\)\":$/\1\/\2/p" names/.gitlab-ci.yml >cells.expect &&
	test_cmp cells.expect cells.names &&
	test_grep "^a/b-c$" cells.names &&
	test_grep "^a-b/c$" cells.names &&
	(cd names && mkseries plan --format json >../names-plan.json) &&
	python3 -c "
import json, sys
p = json.load(open(sys.argv[1]))
ids = [c[\"id\"] for c in p[\"cells\"]]
reports = [c[\"report\"] for c in p[\"cells\"]]
assert len(set(ids)) == len(ids) == 12, ids
assert len(set(reports)) == len(reports) == 12, reports
m = p[\"merge\"]
assert m[3:-2] == reports and m[-2:] == [\"--cells\", \" \".join(ids)], m
" names-plan.json
'

test_expect_success GITLAB_CI_LOCAL 'gitlab-ci-local: the twelve reports reach the merge, which finds each cell once' '
	gcl -C names names.out --no-json-schema-validation &&
	test $gcl_status = 0 &&
	while read c
	do
		test_grep "^ PASS  ${c%/*} ${c#*/} *$" names.out || return 1
	done <cells.names &&
	test_grep "^ PASS  merge *$" names.out &&
	test_grep "^merge *> 12 cells: 12 ok;" names.out &&
	a=names/.gitlab-ci-local/artifacts/merge &&
	python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
got = sorted(b[\"name\"] + \"/\" + c[\"variant\"] for b in m[\"branches\"] for c in b[\"cells\"])
want = sorted(open(sys.argv[2]).read().split())
assert got == want, (got, want)
" $a/mkseries-merged.json cells.names &&
	grep -o "<testsuite name=\"[^\"]*\"" $a/mkseries-junit.xml | sort >suites &&
	sed "s|^|<testsuite name=\"|; s|$|\"|" cells.names | sort >suites.expect &&
	test_cmp suites.expect suites
'

test_expect_success GITLAB_CI_LOCAL 'a merge with a cell report missing fails, naming the report and the cell' '
	git -C names reset -q --hard pipeline &&
	awk "/^\"6.12-arm64 x\":\$/ { skip = 1; next } skip && /^[^ ]/ { skip = 0 } !skip" \
		names/.gitlab-ci.yml >p.yml &&
	mv p.yml names/.gitlab-ci.yml &&
	test_grep ! "^\"6.12-arm64 x\":" names/.gitlab-ci.yml &&
	git -C names commit -q -a -m "one cell job fewer" &&
	gcl -C names lost.out --no-json-schema-validation &&
	test $gcl_status = 1 &&
	test_grep "^ PASS  6.12-arm64 base *$" lost.out &&
	test_grep "^ FAIL  merge *$" lost.out &&
	test_grep "^merge *> error: cannot read report .mkseries-6.12-arm64+x.json.: No such file or directory$" lost.out &&
	test_grep "^merge *> error: cell .6.12-arm64/x. of the plan is in no report$" lost.out &&
	sed -i "s/ mkseries-6.12-arm64+x.json//" names/.gitlab-ci.yml &&
	git -C names commit -q -a -m "and its report not even listed" &&
	gcl -C names unlisted.out --no-json-schema-validation &&
	test $gcl_status = 1 &&
	test_grep "^ FAIL  merge *$" unlisted.out &&
	test_grep ! "cannot read report" unlisted.out &&
	test_grep "^merge *> error: cell .6.12-arm64/x. of the plan is in no report$" unlisted.out
'

test_expect_success GITLAB_CI_LOCAL 'two cells writing one report, as the old names did, fail the merge naming the cell lost' '
	git -C names reset -q --hard pipeline &&
	sed -i -e "/^\"a-b c\":$/,/^[^ ]/s/mkseries-a-b+c.json/mkseries-a+b-c.json/" \
		-e "s/ mkseries-a-b+c.json//" names/.gitlab-ci.yml &&
	test $(grep -c "^    MKSERIES_REPORT: \"mkseries-a+b-c.json\"$" names/.gitlab-ci.yml) = 2 &&
	git -C names commit -q -a -m "a-b c writes the report of a b-c" &&
	gcl -C names shared.out --no-json-schema-validation &&
	test $gcl_status = 1 &&
	test_grep "^ PASS  a-b c *$" shared.out &&
	test_grep "^ PASS  a b-c *$" shared.out &&
	test_grep "^ FAIL  merge *$" shared.out &&
	grep -E "^merge *> error: cell .(a/b-c|a-b/c). of the plan is in no report$" shared.out &&
	test_grep ! "^merge *> 1[12] cells" shared.out
'

test_done

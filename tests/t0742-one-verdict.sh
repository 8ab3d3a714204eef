#!/bin/sh
# t0742-one-verdict.sh: run, report (its exit status and its JSON status) and the export gate
# give one verdict on a branch, at the edges too: no cells, an expected failure, a regression,
# a failed build.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# verdicts KIT RUN_RC: the branch t of KIT as each reader judges it, in
# the file verdicts: "run RC" (RUN_RC, what the run exited with),
# "report RC", "json STATUS" and "export RC" (an mbox export of t).
verdicts() {
	rm -rf mbox &&
	(
		cd "$1" &&
		{ mkseries report --workdir ../work >../report.out; echo "report $?" >../rc.report; } &&
		{ mkseries report --workdir ../work --format json >../r.json; true; } &&
		{
			mkseries export --branch t --format mbox --workdir ../work -o ../mbox \
				>../export.out 2>../export.err
			echo "export $?" >../rc.export
		}
	) &&
	{
		echo "run $2" &&
		cat rc.report &&
		echo "json $(sed -n "s/^  \"status\": \"\(.*\)\",$/\1/p" r.json)" &&
		cat rc.export
	} >verdicts
}

# expect_verdict PASS|FAIL: what verdicts wrote is that one verdict throughout.
expect_verdict() {
	if test "$1" = PASS
	then
		printf "run 0\nreport 0\njson ok\nexport 0\n" >expect
	else
		printf "run 1\nreport 1\njson failed\nexport 1\n" >expect
	fi &&
	test_cmp expect verdicts
}

test_expect_success 'setup: a kit run once, green' '
	setup_fake_run kit &&
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	verdicts kit 0 &&
	expect_verdict PASS &&
	test_grep "verified by its last run" export.out
'

test_expect_success 'a regression in instruction-paced time: every reader fails the branch' '
	(cd kit && FAKE_QEMU_SLOWER=1 test_expect_code 1 mkseries run --branch t --workdir ../work \
		--force=test >../out) &&
	verdicts kit 1 &&
	expect_verdict FAIL &&
	test_grep "did not pass its last run" export.err
'

test_expect_success 'a failed build: every reader fails the branch' '
	(cd kit && FAKE_BREAK_KIT=1 test_expect_code 1 mkseries run --branch t --workdir ../work \
		--force=build >../out) &&
	verdicts kit 1 &&
	expect_verdict FAIL &&
	test_grep "did not pass its last run: t kit: build" export.err
'

test_expect_success 'an expected failure of a declared variant: every reader passes the branch' '
	add_variants kit t &&
	sed -i "s|qemu: .*|qemu: $TRASH_DIRECTORY/fake-qemu-v|" kit/kernels/t.yaml &&
	write_variant_qemu fake-qemu-v &&
	(cd kit && mkseries run --branch t --workdir ../work --force=build >../out) &&
	test_grep "XFAIL" out &&
	verdicts kit 0 &&
	expect_verdict PASS &&
	test_grep "t no-fix .*ok" report.out
'

test_expect_success 'a branch with no cells passes no reader: report fails it, export has nothing to ship' '
	cat >empty.json <<-\EOF &&
	{
	  "schema": 1,
	  "generator": "mkseries 0.1",
	  "generated": "2026-12-06T05:00:00Z",
	  "branches": [
	    {
	      "name": "t",
	      "import": { "status": "ok", "evidence": null },
	      "apply": { "status": "ok", "evidence": null },
	      "cells": []
	    }
	  ]
	}
	EOF
	test_expect_code 1 mkseries report --merge empty.json >out &&
	test_expect_code 1 mkseries report --merge empty.json --format json >r.json &&
	test_grep "^  \"status\": \"failed\",$" r.json &&
	test_expect_code 1 mkseries report --merge empty.json --format markdown >md &&
	test_grep "^No branch passed every check: no Tested-by.$" md &&
	rm -rf kit/work2 &&
	(cd kit && mkseries apply --branch t >/dev/null) &&
	(cd kit && test_expect_code 1 mkseries export --branch t --format mbox --workdir ../work2 \
		-o ../mbox2 2>../err) &&
	test_grep "was never run: nothing verifies it" err
'

test_done

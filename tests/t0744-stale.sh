#!/bin/sh
# t0744-stale.sh: a result whose inputs changed since its run is shown stale by report in every
# format, and export refuses its branch, naming what changed, unless --force (which says so).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

PATCH=patches/alpha/0002-mm-batch-ptes.patch

test_expect_success 'setup: a kit run once, green; report and export take it as it is' '
	setup_fake_run kit &&
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	(cd kit && mkseries report --workdir ../work >../out) &&
	test_grep ! "stale" out &&
	(cd kit && mkseries export --branch t --format mbox --workdir ../work -o ../fresh >../out) &&
	test_grep "verified by its last run" out &&
	test_grep "^Verified tree [0-9a-f]\{12\} (t kit at [0-9a-f]\{12\}): mkseries run of 20[0-9-]* [0-9:]* UTC$" \
		fresh/0000-cover-letter.patch
'

test_expect_success 'a patch edited after the run: report shows kit stale, naming the file and the run' '
	sed -i "s/return 1;/return 7;/" kit/$PATCH &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work >../out) &&
	test_grep "^t kit (stale) " out &&
	test_grep "^  t kit: stale: $PATCH changed since the run of 20[0-9-]* [0-9:]*" out &&
	test_grep ! "t base: stale" out &&
	test_grep "^2 cells: 1 ok, 1 stale (run again)" out
'

test_expect_success 'report: stale in JSON, JUnit, markdown and HTML too' '
	(cd kit && test_expect_code 1 mkseries report --workdir ../work --format json >../r.json) &&
	json_ok r.json &&
	test_grep "^  \"status\": \"failed\",$" r.json &&
	test_grep "\"status\": \"stale\"," r.json &&
	test_grep "\"stale\": \"$PATCH changed since the run of " r.json &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work --format junit >../r.xml) &&
	test_grep "<testcase classname=\"t/kit\" name=\"stale\"" r.xml &&
	test_grep "$PATCH changed since the run of" r.xml &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work --format markdown >../r.md) &&
	test_grep "t kit: stale: $PATCH changed" r.md &&
	test_grep "^No branch passed every check: no Tested-by.$" r.md &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work --format html >../r.html) &&
	test_grep "t kit: stale: $PATCH changed" r.html
'

test_expect_success 'export refuses the stale branch, naming the file and the command that verifies it' '
	(cd kit && test_expect_code 1 mkseries export --branch t --format mbox --workdir ../work \
		-o ../x 2>../err) &&
	test_grep "error: .t. is not what its last run verified: t kit: $PATCH changed since the run of .*; not exported (verify it: mkseries run --branch t; or export it unverified with --force)" err &&
	! test -e x
'

test_expect_success 'export --force exports it and says so in the cover letter and the quilt series' '
	(cd kit && mkseries export --branch t --format mbox --workdir ../work -o ../x --force \
		>../out 2>../err) &&
	test_grep "warning: .t. is not what its last run verified: .*; exported anyway (--force)" err &&
	test_grep "NOT verified" out &&
	test_grep "^NOT verified (exported with --force): .t. is not what its last run verified: t kit: $PATCH changed" \
		x/0000-cover-letter.patch &&
	(cd kit && mkseries export --branch t --format quilt --workdir ../work -o ../q --force \
		>../out 2>../err) &&
	test_grep "^# NOT verified (exported with --force): .*$PATCH changed" q/series
'

test_expect_success 'a boot setting changed in the kernels file makes every cell stale, naming it' '
	sed -i "s/return 7;/return 1;/" kit/$PATCH &&
	(cd kit && mkseries report --workdir ../work >../out) &&
	kernel_yaml kit t v1.0-mk "  console: ttyS1" &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work >../out) &&
	test_grep "^  t base: stale: kernels/t.yaml (boot: console) changed since the run of" out &&
	test_grep "^  t kit: stale: kernels/t.yaml (boot: console) changed since the run of" out
'

test_expect_success 'run again: nothing stale, and export ships it' '
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	(cd kit && mkseries report --workdir ../work >../out) &&
	test_grep ! "stale" out &&
	(cd kit && mkseries export --branch t --format mbox --workdir ../work -o ../y >../out) &&
	test_grep "verified by its last run" out
'

test_expect_success 'another QEMU at the same path, of the same version: every cell stale, naming it' '
	echo "# another build" >>fake-qemu &&
	(cd kit && test_expect_code 1 mkseries report --workdir ../work >../out) &&
	test_grep "^  t base: stale: the QEMU executable ($TRASH_DIRECTORY/fake-qemu) changed since the run of" out &&
	test_grep "^  t kit: stale: the QEMU executable ($TRASH_DIRECTORY/fake-qemu) changed since the run of" out &&
	(cd kit && mkseries run --branch t --workdir ../work >../out) &&
	test_grep "^t kit: test: again: qemu-binary changed" out &&
	(cd kit && mkseries report --workdir ../work >../out) &&
	test_grep ! "stale" out
'

test_done

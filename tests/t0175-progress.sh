#!/bin/sh
# t0175-progress.sh: progress while a long step runs: status lines at a steady pace off a terminal, -q, --progress.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# A kernel tree whose image takes a few seconds: eight objects, each a
# kbuild "CC" line and a pause, as a real build prints them.
make_slow_tree() {
	fake_tree "$1" <<-\EOF_MAKE &&
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n' >$(O)/.config
	olddefconfig:
	> true
	vmlinux:
	> @for i in 1 2 3 4 5 6 7 8; do echo "  CC      mm/file$$i.o"; sleep $${SLOW_PAUSE:-0.4}; done
	> cd $(CURDIR) && ld -r -b binary -o $(O)/vmlinux Kconfig
	bzImage:
	> mkdir -p $(O)/arch/x86/boot
	> "$$MKBZIMAGE" $(O)/vmlinux $(O)/arch/x86/boot/bzImage
	.PHONY: tinyconfig olddefconfig vmlinux bzImage
	EOF_MAKE
	fake_tree_release "$1"
}

test_expect_success 'setup: a slow fake kernel tree and a kit' '
	make_slow_tree linux &&
	plain_kit kit "$PWD/linux"
'

# A status line of the slow build, as it is printed off a terminal.
STATUS='^\[cell 1/1\] t base: building [0-9]+s, [0-9] objects  CC mm/file[0-9]\.o$'

test_expect_success 'piped, a build prints a status line at the pace set' '
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in " out &&
	grep -E "$STATUS" err >lines &&
	test $(wc -l <lines) -ge 2 &&
	! grep -q "$(printf "\r")" err &&
	! grep -q "$(printf "\033")" err
'

# A build without a vmlinux in its output directory is a full one: make
# builds every object again.
test_expect_success 'the next full build shows how far it is against the last one' '
	rm "$(kit_workdir kit t)/out-base/vmlinux" &&
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat err &&
	test_grep -E "^\[cell 1/1\] t base: building [0-9]+s, [0-9] of 8 objects \([0-9]+%\)  CC mm/file[0-9]\.o$" err &&
	test_grep "^objects_full=8$" "$(kit_workdir kit t)/state/base.build"
'

test_expect_success 'with a slower pace, the estimate of the time left' '
	rm "$(kit_workdir kit t)/out-base/vmlinux" &&
	(cd kit && SLOW_PAUSE=1 MKSERIES_PROGRESS_INTERVAL=1 mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat err &&
	test_grep -E "^\[cell 1/1\] t base: building [0-9]+s, [5-7] of 8 objects \([0-9]+%, about [0-9]+s left\)  CC mm/file[0-9]\.o$" err
'

test_expect_success '-q silences the status lines, before or after the command' '
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries build -q --branch t --variant base --force >../out 2>../err) &&
	test_grep "^t base: built in " out &&
	test_must_be_empty err &&
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries -q build --branch t --variant base --force >../out 2>../err) &&
	test_grep "^t base: built in " out &&
	test_must_be_empty err
'

test_expect_success '--progress=never silences them too' '
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries build --progress=never --branch t --variant base --force >../out 2>../err) &&
	test_grep "^t base: built in " out &&
	test_must_be_empty err
'

test_expect_success '--progress=always draws the line in place even off a terminal' '
	(cd kit && mkseries --progress=always build --branch t --variant base --force >../out 2>../err) &&
	test_grep "^t base: built in " out &&
	test_grep "$(printf "\033")\[K\[cell 1/1\] t base: building 0s  writing the source tree" err
'

test_expect_success 'each cell is counted across the variants' '
	(cd kit && mkseries apply --branch t >../out) &&
	(cd kit && MKSERIES_PROGRESS_INTERVAL=1 mkseries build --branch t --force >../out 2>../err) &&
	cat out err &&
	test_grep -E "^\[cell 1/2\] t base: building " err &&
	test_grep -E "^\[cell 2/2\] t kit: building " err &&
	! grep -E "^\[cell [03]/" err
'

test_expect_success 'run: the build and the boot of each cell show their status lines' '
	plain_kit kitr "$PWD/linux" &&
	git_yaml kitr t "$PWD/linux" v1.0 "boot:
  qemu: $TEST_DIRECTORY/data/results/fake-qemu
  accel: tcg
  boot-timeout: 20
  run-timeout: 20" &&
	(cd kitr && FAKE_QEMU_SLEEP=3 MKSERIES_PROGRESS_INTERVAL=1 \
		mkseries run --branch t --repeat 1 --boots 1 >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: test: booted (tcg, instruction-paced) 3 ok" out &&
	# The cell lines of a run carry its clock: the time so far and what is left.
	test_grep -E "^\[cell 1/2, [0-9]+s in, about [0-9hms]+ left\] t base: building [0-9]+s, [0-9] objects  CC mm/file[0-9]\.o$" err &&
	test_grep -E "^\[cell 1/2, [0-9]+s in, about [0-9hms]+ left\] t base: boot 1/1: booting \(tcg\) [0-9]+s" err &&
	(cd kitr && FAKE_QEMU_SLEEP=3 MKSERIES_PROGRESS_INTERVAL=1 \
		mkseries run -q --branch t --repeat 1 --boots 1 --force=test >../out 2>../err) &&
	test_grep "^t base: test: booted " out &&
	! grep "^\[cell" err
'

test_expect_success 'a bad --progress value is a usage error' '
	(cd kit && test_expect_code 2 mkseries build --progress=sometimes --branch t >../out 2>../err) &&
	test_grep "^error: option .--progress. takes auto, always or never, not .sometimes.$" err &&
	test_grep "^usage: mkseries build .* \[-q | -v\] \[--progress=auto|always|never\]$" err &&
	test_expect_code 2 mkseries --progress=sometimes plan 2>err &&
	test_grep "^error: option .--progress. takes auto, always or never, not .sometimes.$" err
'

test_expect_success '-q and -v are on every command and in its usage' '
	for cmd in import plan apply backport fixups fetch build test regress report export run doctor gc bisect ci; do
		mkseries $cmd -h >help &&
		grep -q "^usage: mkseries $cmd" help &&
		{
			grep -q " \[-q | -v\] \[--progress=auto|always|never\]$" help ||
			{ echo "$cmd: no -q | -v in its usage" && cat help && false; }
		} &&
		grep -q "^    -q, --quiet " help &&
		grep -q "^    -v, --verbose " help || return 1
	done &&
	(cd kit && mkseries plan -v --branch t >../out) &&
	(cd kit && mkseries -v plan --branch t >../out2) &&
	test_cmp out out2
'

test_done

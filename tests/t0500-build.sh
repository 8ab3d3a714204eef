#!/bin/sh
# t0500-build.sh: mkseries build and test on a fake kernel tree with a fake QEMU.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# A stand-in for a kernel tree: just the make targets mkseries runs. Its
# olddefconfig drops what a real one would (an option whose dependency
# is missing, an option its Kconfig does not know).
make_fake_tree() {
	fake_tree "$1" 'config 64BIT\n\tbool\n\nconfig NEEDS_DEP\n\tbool "needs BROKEN"\n\tdepends on BROKEN\n' <<-\EOF_MAKE &&
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n# CONFIG_NEEDS_DEP is not set\n' >$(O)/.config
	olddefconfig:
	> sed -i -e '/^CONFIG_NEEDS_DEP=/d' -e '/^CONFIG_NOT_HERE=/d' $(O)/.config
	vmlinux:
	> @echo "  CC      main.o"
	> $(CC) -c -o $(O)/main.o $(CURDIR)/main.c
	> cp $(O)/main.o $(O)/vmlinux
	bzImage:
	> mkdir -p $(O)/arch/x86/boot
	> cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
	.PHONY: tinyconfig olddefconfig vmlinux bzImage
	EOF_MAKE
	(
		cd "$1" &&
		mkdir scripts &&
		printf 'int main(void)\n{\n\treturn 0;\n}\n' >main.c &&
		printf 'int other(void)\n{\n\treturn 1;\n}\n' >other.c &&
		printf 'int gone;\n' >gone.c &&
		printf '#!/bin/sh\necho tool\n' >scripts/tool.sh &&
		chmod +x scripts/tool.sh &&
		ln -s main.c link.c &&
		fake_tree_release . &&
		git checkout -q -b breaker &&
		sed -i "s/return 0;/return undeclared_thing;/" main.c &&
		printf 'int new;\n' >new.c &&
		git rm -q gone.c &&
		git add -A &&
		git commit -q -m "mm: break the build" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		git checkout -q master
	)
}

# A QEMU that prints what $FAKE_CONSOLE says: a file to print, or
# "silent-kvm FILE" (nothing under -accel kvm: a nested KVM that hangs),
# "abort-kvm FILE" (under -accel kvm, QEMU's own MSR error and an
# assertion, then SIGABRT: status 134, as nested KVM does on some hosts),
# "hang", "ktap-hang" or "done-hang FILE" (FILE, then no exit). `--version`
# answers as QEMU does.
write_fake_qemu() {
	cat >"$1" <<-\EOF_QEMU &&
	#!/bin/sh
	if [ "$1" = --version ]; then
		echo "QEMU emulator version 7.2.99 (fake)"
		exit 0
	fi
	echo "$*" >>"$FAKE_QEMU_LOG"
	case " $* " in
	*" -accel kvm "*)
		case "$FAKE_CONSOLE" in
		silent-kvm*)
			echo "${0##*/}: warning: host does not support a feature" >&2
			sleep 60
			exit 0 ;;
		abort-kvm*)
			echo "${0##*/}: error: failed to set MSR 0x10a to 0x69" >&2
			echo "${0##*/}: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion \`ret == cpu->kvm_msr_buf->nmsrs' failed." >&2
			kill -s ABRT $$
			exit 1 ;;
		esac ;;
	esac
	case "$FAKE_CONSOLE" in
	hang) sleep 60 ;;
	ktap-hang) printf 'Linux version 6.12\nKTAP version 1\n1..3\nok 1 a\n'; sleep 60 ;;
	done-hang*) cat "${FAKE_CONSOLE#done-hang }"; sleep 60 ;;
	silent-kvm*) cat "${FAKE_CONSOLE#silent-kvm }" ;;
	abort-kvm*) cat "${FAKE_CONSOLE#abort-kvm }" ;;
	*) cat "$FAKE_CONSOLE" ;;
	esac
	EOF_QEMU
	chmod +x "$1"
}

CONSOLE_DATA="$TEST_DIRECTORY/data/console"

test_expect_success 'setup: a fake kernel tree and a kit whose patch breaks it' '
	make_fake_tree linux &&
	mkdir -p kit/kernels kit/patches &&
	git -C linux format-patch -q -o "$PWD/kit/patches" master..breaker &&
	write_fake_qemu "$PWD/fake-qemu" &&
	printf "CONFIG_64BIT=y\nCONFIG_NOT_HERE=y\n" >kit/kernels/t.config &&
	git_yaml kit t "$PWD/linux" v1.0 "  fragments: [kernels/t.config]
boot:
  qemu: $PWD/fake-qemu
  accel: tcg
  boot-timeout: 3
  run-timeout: 3" &&
	cat >kit/series.yaml <<-EOF
	series:
	  - id: breaker
	    title: "mm: break the build"
	    patches:
	      - file: patches/0001-mm-break-the-build.patch
	        upstream: $(git -C linux rev-parse --short=12 breaker)
	        subject: "mm: break the build"
	EOF
'

WORK=$(kit_workdir kit t)

test_expect_success 'build will not import while another mkseries holds the repository lock' '
	while_locked mkseries build --branch t --variant base &&
	cat out err &&
	echo 1 >code.expect &&
	test_cmp code.expect code &&
	test_grep "$(mk_repo linux)/. is locked by another mkseries (pid .*); wait for it to finish" err &&
	! mk_git linux rev-parse -q --verify refs/tags/mkseries/base/t &&
	! test -e "$WORK/out-base"
'

test_expect_success 'build base: built, with a note for the option the tree does not know' '
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in [0-9]*s ($WORK/out-base/arch/x86/boot/bzImage)" out &&
	test_grep "note: not in this tree.s Kconfig, skipped: CONFIG_NOT_HERE (kernels/t.config:2)" out &&
	test -f "$WORK/out-base/arch/x86/boot/bzImage" &&
	test_grep "^status=ok" "$WORK/state/base.build" &&
	test_grep "^config_hash=[0-9a-f]\{40\}" "$WORK/state/base.build" &&
	test_grep "CC      main.o" "$WORK/logs/base-build.log" &&
	test_grep "^CONFIG_64BIT=y" "$WORK/out-base/.config"
'

test_expect_success 'the source tree is the base tree: modes, symlinks, content' '
	test -x "$WORK/src/scripts/tool.sh" &&
	test "$(readlink "$WORK/src/link.c")" = main.c &&
	test_cmp linux/other.c "$WORK/src/other.c" &&
	test -f "$WORK/src/gone.c" &&
	test -f "$WORK/src.manifest" &&
	! test -e "$WORK/src.manifest.dirty"
'

test_expect_success 'before apply: the kit variant says so, the base is up to date, exit 1' '
	(cd kit && test_expect_code 1 mkseries build --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: up to date" out &&
	test_grep "^t kit: no applied branch $(kit_ref kit t): run mkseries apply --branch t$" out
'

test_expect_success 'a failed kit build reports the first compiler error and exits 1' '
	stat -c %y "$WORK/src/other.c" >mtime.before &&
	(cd kit && mkseries apply --branch t >/dev/null) &&
	(cd kit && test_expect_code 1 mkseries build --branch t --variant kit >../out 2>../err) &&
	cat out err &&
	test_grep "^t kit: FAILED main.c:3:[0-9]*: error: .undeclared_thing. undeclared" out &&
	test_grep "^    log: $WORK/logs/kit-build.log" out &&
	test_grep "error: .undeclared_thing. undeclared" "$WORK/logs/kit-build.log" &&
	test_grep "^status=failed" "$WORK/state/kit.build" &&
	test_grep "^failure=main.c:3" "$WORK/state/kit.build" &&
	(cd kit && test_expect_code 1 mkseries build --branch t --variant kit >../out 2>../err) &&
	test_grep "^t kit: up to date (FAILED main.c:3:[0-9]*: error: .undeclared_thing. undeclared (first use in this function))$" out
'

test_expect_success 'a first kit build starts from a copy of the base out directory' '
	test_grep "^seeded=out-base$" "$WORK/state/kit.build" &&
	test -f "$WORK/out-kit/.config"
'

test_expect_success 'switching base -> kit touched only what the series changed' '
	stat -c %y "$WORK/src/other.c" >mtime.after &&
	test_cmp mtime.before mtime.after &&
	test_grep undeclared_thing "$WORK/src/main.c" &&
	test -f "$WORK/src/new.c" &&
	! test -e "$WORK/src/gone.c" &&
	test -x "$WORK/src/scripts/tool.sh"
'

test_expect_success 'a file changed by hand is put back on the next build' '
	echo "int junk;" >>"$WORK/src/other.c" &&
	(cd kit && mkseries build --branch t --variant base --force -v >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	test_grep "changes only, 3 written, 1 removed, 1 repaired" out &&
	test_cmp linux/other.c "$WORK/src/other.c" &&
	test_cmp linux/main.c "$WORK/src/main.c" &&
	! test -e "$WORK/src/new.c" &&
	test -f "$WORK/src/gone.c"
'

test_expect_success 'an option that does not stick fails the build, naming it' '
	printf "CONFIG_NEEDS_DEP=y\n" >kit/kernels/dep.config &&
	sed -i "s|fragments: \[kernels/t.config\]|fragments: [kernels/t.config, kernels/dep.config]|" kit/kernels/t.yaml &&
	(cd kit && test_expect_code 1 mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED 1 config option did not stick: CONFIG_NEEDS_DEP=y (kernels/dep.config:1): is not set" out &&
	test_grep "^status=failed" "$WORK/state/base.build"
'

test_expect_success 'a broken fragment is a configuration error (exit 2)' '
	printf "CONFIG_64BIT=y\nCONFIG_X\n" >kit/kernels/dep.config &&
	(cd kit && test_expect_code 2 mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "kernels/dep.config:2: not a config line: .CONFIG_X." err &&
	sed -i "s|, kernels/dep.config||" kit/kernels/t.yaml &&
	rm kit/kernels/dep.config
'

test_expect_success 'usage errors exit 2' '
	(cd kit && test_expect_code 2 mkseries build --branch t --variant foo 2>../err) &&
	test_grep "unknown variant .foo." err &&
	(cd kit && test_expect_code 2 mkseries build 2>../err) &&
	test_grep "name a branch with --branch B, or use --all" err &&
	(cd kit && test_expect_code 2 mkseries test --branch t --accel xen 2>../err) &&
	test_grep "unknown accelerator .xen." err &&
	(cd kit && test_expect_code 2 mkseries test --branch t --quick --full 2>../err) &&
	test_grep "cannot be used together" err &&
	(cd kit && test_expect_code 2 mkseries test --branch t --boots 101 2>../err) &&
	test_grep "boots must be between 1 and 100, not 101" err
'

test_expect_success 'a --workdir puts the branch under DIR/<branch>' '
	(cd kit && mkseries build --branch t --variant base --workdir ../wd >../out 2>../err) &&
	test_grep "^t base: built in .*($TRASH_DIRECTORY/wd/t/out-base/arch/x86/boot/bzImage)" out
'

export FAKE_QEMU_LOG="$TRASH_DIRECTORY/qemu.log"

test_expect_success 'test: a clean console is a pass; the kit, whose build failed, is not tested' '
	(cd kit && mkseries build --branch t --variant base >/dev/null) &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		test_expect_code 1 mkseries test --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: booted (tcg, instruction-paced, 2 boots) [0-9]* ok, [0-9]* skip, 0 fail in [0-9]*s$" out &&
	test_grep "^t kit: not tested: its build failed (main.c:3" out &&
	test_grep "^status=ok" "$WORK/state/base.test" &&
	test_grep "^accel=tcg" "$WORK/state/base.test" &&
	test_grep "mm-regress: done" "$WORK/logs/base-console.log" &&
	test_grep "console=ttyS0 panic=-1 oops=panic mm_regress=--quick" qemu.log &&
	test_grep -- "-initrd $WORK/initramfs.cpio" qemu.log &&
	test_grep -- "-no-reboot" qemu.log
'

test_expect_success 'test --full leaves mm-regress its full run' '
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base --full >../out 2>../err) &&
	test_grep ! "mm_regress=--quick" qemu.log
'

test_expect_success 'a fragment edited after the build, or another image since the boot: report names it' '
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	cp kit/kernels/t.config t.config.orig &&
	printf "# CONFIG_64BIT is wanted\n" >>kit/kernels/t.config &&
	(cd kit && test_expect_code 1 mkseries report --branch t --variant base >../out 2>../err) &&
	cat out &&
	test_grep "^  t base: stale: kernels/t.config (a config fragment of kernels/t.yaml) changed since the run of 20[0-9-]* [0-9:]* (run again: mkseries run --branch t)$" out &&
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	test_grep "^t base: built in" out &&
	test_grep "^input_parts=tools:[0-9a-f]\{40\} config-base:[0-9a-f]\{40\} fragment%20kernels/t.config:[0-9a-f]\{40\}$" \
		"$WORK/state/base.build" &&
	(cd kit && mkseries report --branch t --variant base >../out 2>../err) &&
	test_grep ! "stale" out &&
	echo another >>"$WORK/out-base/arch/x86/boot/bzImage" &&
	(cd kit && test_expect_code 1 mkseries report --branch t --variant base >../out 2>../err) &&
	test_grep "^  t base: stale: the kernel image (built again since it was booted) changed since" out &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	(cd kit && mkseries report --branch t --variant base >../out 2>../err) &&
	test_grep ! "stale" out &&
	cp t.config.orig kit/kernels/t.config &&
	(cd kit && mkseries build --branch t --variant base >../out 2>../err)
'

test_expect_success 'a kernel panic on the console fails the variant with its line' '
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/panic-no-init-6.12.log" \
		test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) Kernel panic - not syncing: .* (console line [0-9]*)$" out &&
	test_grep "^    console: $WORK/logs/base-console.log" out &&
	test_grep "^status=failed" "$WORK/state/base.test"
'

test_expect_success 'a warning in the middle of a run fails it too' '
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/warning-6.12.log" \
		test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) WARNING: CPU: [0-9]* PID: [0-9]* at mm/mremap.c:[0-9]* move_page_tables+0x[0-9a-f]*/0x[0-9a-f]* (console line [0-9]*)$" out
'

test_expect_success 'a hang before KTAP is a boot timeout' '
	(cd kit && FAKE_CONSOLE=hang test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) timeout (boot): no .KTAP version. in 3s" out
'

test_expect_success 'a hang during the run is a run timeout' '
	(cd kit && FAKE_CONSOLE=ktap-hang test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) timeout (run): mm-regress did not finish in 3s; plan says 3 results, got 1" out
'

test_expect_success 'a complete run whose QEMU does not exit after it is a pass' '
	(cd kit && FAKE_CONSOLE="done-hang $CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: booted (tcg, instruction-paced" out
'

test_expect_success 'a run that stops before the done marker fails' '
	head -n 150 "$CONSOLE_DATA/clean-6.12.log" >cut.log &&
	(cd kit && FAKE_CONSOLE="$TRASH_DIRECTORY/cut.log" \
		test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) mm-regress did not finish: plan says" out
'

test_expect_success 'a QEMU that is not there is said before anything boots' '
	sed -i "s|qemu: .*|qemu: /nonexistent/qemu|" kit/kernels/t.yaml &&
	test_when_finished "sed -i \"s|qemu: .*|qemu: $TRASH_DIRECTORY/fake-qemu|\" kit/kernels/t.yaml" &&
	(cd kit && test_expect_code 2 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_must_be_empty out &&
	test_grep "^error: /nonexistent/qemu (t): ./nonexistent/qemu. is not an executable file: fix boot.qemu in .*kernels/t.yaml$" err &&
	test_grep "^error: mkseries test stopped before its long steps" err
'

test_expect_success 'setup: variants without the breaking patch, each expecting a case to fail' '
	id=$(git -C linux rev-parse --short=12 breaker) &&
	cat >>kit/kernels/t.yaml <<-EOF &&
	variants:
	  no-breaker:
	    without: [$id]
	    expect-fail: [pte_batch_cow]
	  no-run:
	    without: [$id]
	    expect-fail: pte_batch_wrbit
	EOF
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	cat out &&
	test_grep "^t no-breaker: $(kit_ref kit t no-breaker) -> [0-9a-f]* (0 commits" out &&
	# The recorded console has CRLF line ends: no "$" anchors.
	sed "s/^ok 9 pte_batch_cow/# pte_batch_cow: the child saw a write of its parent\nnot ok 9 pte_batch_cow/" \
		"$CONSOLE_DATA/clean-6.12.log" >xfail.log &&
	test_grep "^not ok 9 pte_batch_cow" xfail.log &&
	sed "s/^ok 1 mremap_pte/not ok 1 mremap_pte/" xfail.log >xfail-and-fail.log &&
	sed "s/^ok 8 pte_batch_mprotect/[   12.000000] WARNING: CPU: 0 PID: 1 at mm\/mremap.c:300 move_ptes+0x1\/0x2\nok 8 pte_batch_mprotect/" \
		xfail.log >xfail-splat.log
'

test_expect_success 'build: a declared variant has its own out-<variant>/' '
	(cd kit && mkseries build --branch t --variant no-breaker >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-breaker: built in [0-9]*s ($WORK/out-no-breaker/arch/x86/boot/bzImage)" out &&
	test_grep "^status=ok" "$WORK/state/no-breaker.build" &&
	test_grep "^variant=no-breaker" "$WORK/state/no-breaker.build" &&
	test_grep "^commit=$(git -C linux rev-parse v1.0)" "$WORK/state/no-breaker.build"
'

test_expect_success 'build without --variant: base, kit, then the declared ones in file order' '
	(cd kit && test_expect_code 1 mkseries build --branch t >../out 2>../err) &&
	cat out err &&
	sed "s/:.*//" out | grep "^t " >order &&
	printf "%s\n" "t base" "t kit" "t no-breaker" "t no-run" >order.expect &&
	test_cmp order.expect order &&
	test_grep "^t kit: up to date (FAILED main.c:3" out &&
	test_grep "^t no-breaker: up to date" out &&
	test_grep "^t no-run: built in" out
'

test_expect_success 'test: the expected failure is an XFAIL that shows what was left out' '
	(cd kit && FAKE_CONSOLE="$TRASH_DIRECTORY/xfail.log" \
		mkseries test --branch t --variant no-breaker >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-breaker: booted (tcg, instruction-paced, 2 boots) 10 ok, 1 skip, 0 fail, 1 xfail in [0-9]*s$" out &&
	test_grep "^    XFAIL pte_batch_cow failed as expected: shows $id matters$" out &&
	test_grep "^status=ok" "$WORK/state/no-breaker.test" &&
	test_grep "^expect_fail=pte_batch_cow$" "$WORK/state/no-breaker.test" &&
	test_grep "^xfail=1$" "$WORK/state/no-breaker.test" &&
	test_grep "^without=$id$" "$WORK/state/no-breaker.test"
'

test_expect_success 'test: an expected failure that passes fails the variant (unexpected pass)' '
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		test_expect_code 1 mkseries test --branch t --variant no-breaker >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-breaker: FAILED (tcg, instruction-paced) unexpected pass: pte_batch_cow was expected to fail without $id (the demonstration did not work)$" out &&
	test_grep "^status=failed" "$WORK/state/no-breaker.test"
'

test_expect_success 'test: an expected failure that never ran fails the variant' '
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		test_expect_code 1 mkseries test --branch t --variant no-run >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-run: FAILED (tcg, instruction-paced) pte_batch_wrbit was expected to fail without $id but did not run$" out
'

test_expect_success 'test: a splat fails a variant, expected failure or not' '
	(cd kit && FAKE_CONSOLE="$TRASH_DIRECTORY/xfail-splat.log" \
		test_expect_code 1 mkseries test --branch t --variant no-breaker >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-breaker: FAILED (tcg, instruction-paced) \[   12.000000\] WARNING: CPU: 0 PID: 1 at mm/mremap.c:300 move_ptes+0x1/0x2 (console line [0-9]*)$" out
'

test_expect_success 'test: a case failing that was not expected to fails the variant' '
	(cd kit && FAKE_CONSOLE="$TRASH_DIRECTORY/xfail-and-fail.log" \
		test_expect_code 1 mkseries test --branch t --variant no-breaker >../out 2>../err) &&
	cat out err &&
	test_grep "^t no-breaker: FAILED (tcg, instruction-paced) 1 case failed: mremap_pte$" out &&
	test_grep "^    XFAIL pte_batch_cow failed as expected" out
'

test_expect_success 'test: base and kit know nothing of the variants expectations' '
	(cd kit && FAKE_CONSOLE="$TRASH_DIRECTORY/xfail.log" \
		test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (tcg, instruction-paced) 1 case failed: pte_batch_cow$" out &&
	test_grep ! "XFAIL" out
'

test_expect_success 'a variant the branch does not declare is a usage error naming the known ones' '
	(cd kit && test_expect_code 2 mkseries build --branch t --variant no-such 2>../err) &&
	test_grep "unknown variant .no-such. (known: base, kit, no-breaker, no-run)" err &&
	(cd kit && test_expect_code 2 mkseries test --branch t --variant No_Such 2>../err) &&
	test_grep "unknown variant .No_Such." err
'

test_expect_success 'test refuses a build older than the variant' '
	mk_git linux tag -f mkseries/base/t $(git -C linux rev-parse breaker) >/dev/null &&
	(cd kit && test_expect_code 1 mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: the build is out of date (refs/tags/mkseries/base/t moved since): run mkseries build --branch t" out
'

# KVM on this machine may be missing, working, hanging or aborting: the
# tests below bring their own device (a file mkseries can open) and a
# fake QEMU that behaves like each broken nested KVM seen in the field.
test_expect_success 'setup: auto accelerator, a KVM device of our own' '
	mk_git linux tag -f mkseries/base/t $(git -C linux rev-parse v1.0) >/dev/null &&
	sed -i "s|accel: tcg|accel: auto|" kit/kernels/t.yaml &&
	(cd kit && mkseries build --branch t --variant base >/dev/null) &&
	: >kvm-device
'
export MKSERIES_KVM_DEVICE="$TRASH_DIRECTORY/kvm-device"

test_expect_success 'auto: a QEMU that aborts under KVM (status 134) is a failed probe; TCG runs, once' '
	rm -f .cache/mkseries/kvm-probe &&
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="abort-kvm $CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^note: using tcg: the probe boot failed under KVM: QEMU exited with status 134: .fake-qemu: error: failed to set MSR 0x10a to 0x69.; its console: $WORK/logs/base-kvm-console.log; booted again under TCG$" err &&
	test_grep "^t base: booted (tcg, instruction-paced, 2 boots) [0-9]* ok, [0-9]* skip, 0 fail in [0-9]*s$" out &&
	test_grep "kvm_buf_set_msrs: Assertion" "$WORK/logs/base-kvm-console.log" &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe &&
	test_grep "^qemu=QEMU emulator version 7.2.99 (fake)$" .cache/mkseries/kvm-probe &&
	test_grep "^host=$(uname -r)$" .cache/mkseries/kvm-probe &&
	test_grep "^note=QEMU exited with status 134: .fake-qemu: error: failed to set MSR" .cache/mkseries/kvm-probe &&
	test_grep "^timing=instructions$" "$WORK/state/base.test" &&
	test_grep "^accel=tcg$" "$WORK/state/base.test" &&
	test $(grep -c "accel kvm" qemu.log) = 1 &&
	test $(grep -c "accel tcg -icount shift=0,sleep=off" qemu.log) = 2 &&
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="abort-kvm $CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^note: using tcg: QEMU exited with status 134: .* (probed .*; remove .*kvm-probe to probe again)$" err &&
	test_grep ! "accel kvm" qemu.log
'

test_expect_success 'auto: a KVM guest that stays silent is a failed probe too' '
	rm -f .cache/mkseries/kvm-probe &&
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="silent-kvm $CONSOLE_DATA/clean-6.12.log" MKSERIES_KVM_PROBE_TIMEOUT=2 \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^note: using tcg: the probe boot failed under KVM: no mm-regress in 2s: .fake-qemu: warning: host does not support a feature.; its console: .*; booted again under TCG$" err &&
	test_grep "^t base: booted (tcg, instruction-paced, 2 boots)" out &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe &&
	test $(grep -c "accel kvm" qemu.log) = 1
'

test_expect_success 'auto: a KVM that passed its probe but then dies is retried under TCG, saying so' '
	cat >.cache/mkseries/kvm-probe <<-EOF &&
	host=$(uname -r)
	qemu=QEMU emulator version 7.2.99 (fake)
	accel=kvm
	note=
	when=2026-11-30 06:58 UTC
	EOF
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="abort-kvm $CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^note: using tcg: the guest never reached mm-regress under KVM: QEMU exited with status 134: .*; booted again under TCG$" err &&
	test_grep "^t base: booted (tcg, instruction-paced, 2 boots)" out &&
	test_grep "^accel_note=the guest never reached mm-regress under KVM" "$WORK/state/base.test" &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe &&
	test $(grep -c "accel kvm" qemu.log) = 1
'

test_expect_success 'auto: a probe made with another QEMU is made again' '
	sed -i "s/^qemu=.*/qemu=QEMU emulator version 5.2.0/; s/^accel=.*/accel=kvm/" .cache/mkseries/kvm-probe &&
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: booted (kvm, 2 boots)" out &&
	test_grep "^timing=hardware$" "$WORK/state/base.test" &&
	test_grep "^qemu=QEMU emulator version 7.2.99 (fake)$" .cache/mkseries/kvm-probe &&
	test_grep "^accel=kvm$" .cache/mkseries/kvm-probe &&
	test_grep ! "icount" qemu.log
'

test_expect_success 'a forced --accel kvm that aborts is a failure, not retried' '
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="abort-kvm $CONSOLE_DATA/clean-6.12.log" \
		test_expect_code 1 mkseries test --branch t --variant base --accel kvm >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: FAILED (kvm) mm-regress never started: QEMU exited with status 134" out &&
	test_grep "^started=0$" "$WORK/state/base.test" &&
	test $(grep -c "accel" qemu.log) = 1
'

test_expect_success 'boot.tcg-clock host: TCG on the host clock, labelled so; --boots' '
	sed -i "s|accel: auto|accel: tcg\n  tcg-clock: host|" kit/kernels/t.yaml &&
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/clean-6.12.log" \
		mkseries test --branch t --variant base --boots 3 >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: booted (tcg, host clock, 3 boots)" out &&
	test_grep "^timing=emulated$" "$WORK/state/base.test" &&
	test_grep "^boots=3$" "$WORK/state/base.test" &&
	test_grep "^console.3=$WORK/logs/base-console.3.log$" "$WORK/state/base.test" &&
	test -s "$WORK/logs/base-console.3.log" &&
	test_grep ! "icount" qemu.log &&
	test $(wc -l <qemu.log) = 3
'

test_expect_success 'a bad tcg-clock or boots is a FILE:LINE error' '
	sed -i "s|tcg-clock: host|tcg-clock: fast\n  boots: 0|" kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries test --branch t --variant base >../out 2>../err) &&
	cat err &&
	test_grep "kernels/t.yaml:[0-9]*: .tcg-clock. must be instructions, modelled or host, not .fast." err &&
	test_grep "kernels/t.yaml:[0-9]*: .boots." err &&
	sed -i "/tcg-clock: fast/d; /boots: 0/d" kit/kernels/t.yaml
'

# modelled_boot: mkseries test of t's base, the fake QEMU playing a
# modelled console; its command lines in qemu.log, its output in out and err.
modelled_boot() {
	: >qemu.log &&
	(cd kit && FAKE_CONSOLE="$CONSOLE_DATA/modelled-6.12.log" \
		mkseries test --branch t --variant base >../out 2>../err) &&
	cat out err qemu.log
}

test_expect_success 'boot.tcg-clock modelled: icount, one CPU and the tcg-cache plugin, labelled so' '
	sed -i "s|accel: tcg|accel: tcg\n  tcg-clock: modelled|" kit/kernels/t.yaml &&
	modelled_boot &&
	test_grep "^t base: booted (tcg, instruction-paced, modelled cycles, 2 boots)" out &&
	test_grep "^timing=modelled$" "$WORK/state/base.test" &&
	test $(grep -c -- "-accel tcg -icount shift=0,sleep=off -plugin $WORK/tcg-cache.so -m [0-9]* -smp 1 " qemu.log) = 2 &&
	cmp "$WORK/tcg-cache.so" "$(dirname "$MKSERIES_BIN")/tcg-cache.so"
'

test_expect_success 'boot.tcg-cache: the model settings follow the plugin path' '
	sed -i "s|tcg-clock: modelled|tcg-clock: modelled\n  tcg-cache: \"mem_latency=1000,stores=stall\"|" kit/kernels/t.yaml &&
	modelled_boot &&
	test $(grep -c -- "-plugin $WORK/tcg-cache.so,mem_latency=1000,stores=stall -m " qemu.log) = 2
'

test_expect_success 'boot.tcg-cache: an unknown key, a value with a comma or space, out=, or no modelled clock is a FILE:LINE error' '
	cp kit/kernels/t.yaml t.yaml.good &&
	test_when_finished "cp t.yaml.good kit/kernels/t.yaml" &&
	for bad in "l3_size=8M" "out=/tmp/counts" "mem_latency=" "stores=stall,,rep=line" "mem_latency=1 000"
	do
		sed "s|tcg-cache: .*|tcg-cache: \"$bad\"|" t.yaml.good >kit/kernels/t.yaml &&
		(cd kit && test_expect_code 2 mkseries test --branch t --variant base >../out 2>../err) &&
		test_grep "kernels/t.yaml:[0-9]*: .tcg-cache. takes KEY=VALUE,... of the plugin.s model" err || return 1
	done &&
	sed "s|tcg-clock: modelled|tcg-clock: instructions|" t.yaml.good >kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries test --branch t --variant base >../out 2>../err) &&
	test_grep "kernels/t.yaml:[0-9]*: .tcg-cache. sets the model of .tcg-clock: modelled." err
'

# The console is a kit boot of kernels/6.12-modelled.yaml (3 December
# 2026): five realloc_rate regions, 66,055.46 then 63,780.09, 63,826.76,
# 63,977.34 and 63,983.71 cycles a call; the fake QEMU plays it twice.
test_expect_success 'the modelled metrics of those boots are in its report, one sample a region' '
	# exit 1: the kit of this file does not build
	(cd kit && test_expect_code 1 mkseries report --branch t --format json >../report.json) &&
	jq -e ".branches[0].cells[0].timing == \"modelled\"" report.json >/dev/null &&
	jq -r ".branches[0].cells[0].metrics[] | select(.case == \"realloc_rate\" and .name == \"modelled_cycles\") | \"\(.mean) \(.unit) \(.n) \(.stddev)\"" report.json >got &&
	echo "64324.67312 cycles/call 10 916.1517875" >expect &&
	test_cmp expect got
'

# The real thing (6.12 from Debian, base, kit and variants built and booted)
# is tests/t0930-run-612.sh.

test_done

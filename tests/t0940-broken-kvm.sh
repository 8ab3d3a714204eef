#!/bin/sh
# t0940-broken-kvm.sh: the real 6.12 kernel booted through a KVM that aborts, and one that hangs: TCG runs, saying why.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# t0930 built the kit's 6.12 base here. The probe record must not land in
# that shared cache (it would tell later runs that this host's real QEMU
# cannot run KVM), so this test keeps its own cache and names the shared
# work directory and repository explicitly.
REAL="$REAL_CACHE/mkseries"
export XDG_CACHE_HOME="$TRASH_DIRECTORY/.cache"

test_lazy_prereq BUILT_612 '
	test -f "$REAL/work/$(kit_id "$SRC_DIR")/6.12/state/base.build" &&
	grep -q "^status=ok" "$REAL/work/$(kit_id "$SRC_DIR")/6.12/state/base.build"
'

# A stand-in qemu-system-x86_64 first on PATH: under -accel kvm it does
# what a broken nested KVM does ($BROKEN_KVM: "abort" prints QEMU's MSR
# error and assertion and dies of SIGABRT, status 134; "hang" prints
# nothing and never exits); otherwise it is the real QEMU.
test_expect_success REAL_TREES,BUILT_612 'setup: a stand-in QEMU on PATH and a KVM device of our own' '
	real_qemu=$(command -v qemu-system-x86_64) &&
	mkdir -p bin &&
	cat >bin/qemu-system-x86_64 <<-EOF &&
	#!/bin/sh
	case " \$* " in
	*" -accel kvm "*)
		case "\$BROKEN_KVM" in
		abort)
			echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69" >&2
			echo "qemu-system-x86_64: ../../target/i386/kvm/kvm.c:3183: kvm_buf_set_msrs: Assertion failed." >&2
			kill -s ABRT \$\$ ;;
		hang)
			exec sleep 600 ;;
		esac ;;
	esac
	exec $real_qemu "\$@"
	EOF
	chmod +x bin/qemu-system-x86_64 &&
	: >kvm-device
'
export PATH="$TRASH_DIRECTORY/bin:$PATH"
export MKSERIES_KVM_DEVICE="$TRASH_DIRECTORY/kvm-device"

boot_612() {
	mkseries --kit "$SRC_DIR" test --branch 6.12 --variant base --boots 1 \
		--workdir "$TRASH_DIRECTORY/work" --repo "$REAL/linux.git" >out 2>err
}

test_expect_success REAL_TREES,BUILT_612 'setup: a work directory holding the built 6.12 base' '
	mkdir -p work/6.12/state work/6.12/logs &&
	sed "s|^bzimage=.*|bzimage=$REAL/work/$(kit_id "$SRC_DIR")/6.12/out-base/arch/x86/boot/bzImage|" \
		"$REAL/work/$(kit_id "$SRC_DIR")/6.12/state/base.build" >work/6.12/state/base.build &&
	test_grep "^commit=" work/6.12/state/base.build
'

test_expect_success REAL_TREES,BUILT_612 'a QEMU that aborts under KVM: the probe fails, 6.12 boots under TCG and says why' '
	BROKEN_KVM=abort boot_612 &&
	cat out err &&
	test_grep "^note: using tcg: the probe boot failed under KVM: QEMU exited with status 134: .qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69.; its console: .*; booted again under TCG$" err &&
	test_grep "^6.12 base: booted (tcg, instruction-paced) 1[0-9] ok, [0-9]* skip, 0 fail in " out &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe &&
	test_grep "^# clocksource: tsc" work/6.12/logs/base-console.log &&
	test_grep "kvm_buf_set_msrs: Assertion" work/6.12/logs/base-kvm-console.log
'

test_expect_success REAL_TREES,BUILT_612 'a KVM guest that hangs silently: the probe gives up, 6.12 boots under TCG' '
	rm .cache/mkseries/kvm-probe &&
	BROKEN_KVM=hang MKSERIES_KVM_PROBE_TIMEOUT=5 boot_612 &&
	cat out err &&
	test_grep "^note: using tcg: the probe boot failed under KVM: no mm-regress in 5s, the guest printed nothing; its console: .*; booted again under TCG$" err &&
	test_grep "^6.12 base: booted (tcg, instruction-paced) 1[0-9] ok, [0-9]* skip, 0 fail in " out &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe
'

test_done

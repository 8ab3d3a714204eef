#!/bin/sh
# t0170-doctor.sh: mkseries doctor, and the same checks before run, build and test start.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# bin/: the tools a build and a boot use, as links; a test removes one
# and runs with PATH=bin, so that tool is missing and nothing else.
make_bin() {
	rm -rf bin && mkdir bin &&
	for t in mkseries git make gcc cc flex bison bc ccache qemu-system-x86_64 \
		sh cat sed rm mkdir cp head sleep printf true ln env mv ls tar gzip xz; do
		p=$(command -v $t) && ln -s "$p" bin/$t || return 1
	done
}

test_expect_success 'setup: a kit on a small tree, a fake /etc naming a local mirror' '
	make_upstream up &&
	make_kit kit up &&
	mkdir -p root/etc/apt mirror/dists/bookworm &&
	echo VERSION_CODENAME=bookworm >root/etc/os-release &&
	echo "deb file://$PWD/mirror bookworm main" >root/etc/apt/sources.list &&
	echo "signed" >mirror/dists/bookworm/InRelease &&
	mkdir -p kitd/kernels kitd/patches &&
	printf "series: []\n" >kitd/series.yaml &&
	printf "name: d\nsource:\n  debian: { package: linux-source-6.12, suite: bookworm }\n" >kitd/kernels/d.yaml &&
	make_bin
'

test_expect_success 'doctor: every check ok' '
	(cd kit && mkseries doctor >../out 2>../err) &&
	cat out err &&
	test_must_be_empty err &&
	test_grep "^ok       git identity: Back Porter <backporter@example.com>$" out &&
	test_grep "^ok       make: GNU Make " out &&
	test_grep "^ok       gcc (t): gcc " out &&
	test_grep "^ok       qemu-system-x86_64 (t): QEMU emulator version " out &&
	test_grep "^note     kvm: " out &&
	test_grep "^ok       plan (t): v1.0 in $TRASH_DIRECTORY/up$" out &&
	# no figures for a git tree: no ok for a sum that leaves it out
	test_grep "^note     disk: .* free; cannot tell what the selected branches need (no figures for t.s tree)$" out &&
	! grep "^missing" out
'

test_expect_success 'outside a kit: the machine'"'"'s own checks, exit 0' '
	mkdir nokit &&
	(cd nokit && MKSERIES_CEILING_DIRECTORY=$TRASH_DIRECTORY mkseries doctor >../out 2>../err) &&
	cat out err &&
	test_must_be_empty err &&
	test_grep "^note     kit: not in a kit: the machine.s own checks only" out &&
	test_grep "^ok       gcc: gcc " out &&
	test_grep "^ok       qemu-system-x86_64: QEMU emulator version " out &&
	test_grep "^note     kvm: " out &&
	! grep "^[a-z]* *\(plan\|disk\|debian\)" out &&
	(cd nokit && MKSERIES_CEILING_DIRECTORY=$TRASH_DIRECTORY \
		test_expect_code 2 mkseries doctor --branch t >../out 2>../err) &&
	test_grep "^error: not in a kit" err
'

test_expect_success 'boot.qemu a directory, or a QEMU that never answers --version: missing, the wait bounded' '
	mkdir qemu-dir &&
	printf "#!/bin/sh\nexec sleep 60\n" >qemu-hangs &&
	chmod +x qemu-hangs &&
	printf "name: q\nsource:\n  git: { repo: $PWD/up, ref: v1.0 }\nboot:\n  qemu: $PWD/qemu-dir\n" >kit/kernels/q.yaml &&
	test_when_finished "rm kit/kernels/q.yaml" &&
	(cd kit && test_expect_code 1 mkseries doctor --branch q >../out 2>../err) &&
	cat out err &&
	test_grep "^missing  $TRASH_DIRECTORY/qemu-dir (q): .$TRASH_DIRECTORY/qemu-dir. is a directory, not a program: fix boot.qemu in kernels/q.yaml$" out &&
	sed -i "s|qemu-dir|qemu-hangs|" kit/kernels/q.yaml &&
	start=$(date +%s) &&
	(cd kit && test_expect_code 1 mkseries doctor --branch q >../out 2>../err) &&
	test $(($(date +%s) - start)) -lt 30 &&
	cat out &&
	test_grep "^missing  $TRASH_DIRECTORY/qemu-hangs (q): .$TRASH_DIRECTORY/qemu-hangs --version. did not answer in 3s (killed): no QEMU a boot can use; fix boot.qemu in kernels/q.yaml$" out
'

test_expect_success 'plan'"'"'s needs: a branch from $MKSERIES_LINUX_STABLE (as 6.17), its ref and release there' '
	printf "name: s\nsource:\n  git: { repo: \$MKSERIES_LINUX_STABLE, ref: v1.0, release: v1.0 }\n" >kit/kernels/s.yaml &&
	test_when_finished "rm kit/kernels/s.yaml" &&
	(unset MKSERIES_LINUX_STABLE && cd kit && test_expect_code 1 mkseries doctor --branch s >../out 2>../err) &&
	cat out err &&
	test_grep "^missing  plan (s): kernels/s.yaml:3: branch .s. takes its tree from the git repository \$MKSERIES_LINUX_STABLE names, and \$MKSERIES_LINUX_STABLE is not set" out &&
	(cd kit && MKSERIES_LINUX_STABLE=$TRASH_DIRECTORY/nowhere test_expect_code 1 mkseries doctor --branch s >../out 2>../err) &&
	test_grep "^missing  plan (s): kernels/s.yaml:3: branch .s.: no git repository at .$TRASH_DIRECTORY/nowhere. (from \$MKSERIES_LINUX_STABLE)$" out &&
	(cd kit && MKSERIES_LINUX_STABLE=$TRASH_DIRECTORY/up mkseries doctor --branch s >../out 2>../err) &&
	test_grep "^ok       plan (s): v1.0 and v1.0 in $TRASH_DIRECTORY/up$" out &&
	sed -i "s/release: v1.0/release: v0.9/" kit/kernels/s.yaml &&
	(cd kit && MKSERIES_LINUX_STABLE=$TRASH_DIRECTORY/up test_expect_code 1 mkseries doctor --branch s >../out 2>../err) &&
	test_grep "^missing  plan (s): .$TRASH_DIRECTORY/up. has no .v0.9., where plan finds what stable backported already: fetch it" out
'

test_expect_success 'doctor: no QEMU on PATH: what to install, exit 1; test stops before booting' '
	rm bin/qemu-system-x86_64 &&
	test_when_finished "make_bin" &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries doctor >../out 2>../err) &&
	cat out &&
	test_grep "^missing  qemu-system-x86_64 (t): not on PATH to boot arch x86_64: apt-get install qemu-system-x86$" out &&
	test_grep "^ok       make: " out &&
	test_grep "^note     b4: not on PATH: .mkseries series add. and .mkseries fetch. need it to take a series from lore by its message id: apt-get install b4$" out &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries test --branch t >../out 2>../err) &&
	cat out err &&
	test_must_be_empty out &&
	test_grep "^error: qemu-system-x86_64 (t): not on PATH to boot arch x86_64: apt-get install qemu-system-x86$" err &&
	test_grep "^error: mkseries test stopped before its long steps; .mkseries doctor. shows every check$" err
'

test_expect_success 'no make: build stops before importing anything' '
	rm bin/make &&
	test_when_finished "make_bin" &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries build --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^error: make: not on PATH: apt-get install make$" err &&
	test_grep "^error: mkseries build stopped before its long steps" err &&
	! mk_git up rev-parse -q --verify refs/tags/mkseries/base/t &&
	! test -e "$(kit_workdir kit t)/src"
'

test_expect_success 'no flex, bison or ccache: the first two are needed, ccache only noted' '
	rm bin/flex bin/bison bin/ccache &&
	test_when_finished "make_bin" &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries doctor >../out 2>../err) &&
	test_grep "^missing  flex: not on PATH: apt-get install flex$" out &&
	test_grep "^missing  bison: not on PATH: apt-get install bison$" out &&
	test_grep "^note     ccache: not on PATH: every build compiles everything again: apt-get install ccache$" out
'

test_expect_success 'a cross compiler missing for an arm64 branch' '
	printf "name: a\narch: arm64\nsource:\n  git: { repo: $PWD/up, ref: v1.0 }\n" >kit/kernels/a.yaml &&
	test_when_finished "rm kit/kernels/a.yaml" &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries doctor --branch a >../out 2>../err) &&
	cat out err &&
	test_grep "^missing  aarch64-linux-gnu-gcc (a): kernels/a.yaml:1: cannot build arch arm64: no .aarch64-linux-gnu-gcc. on PATH (Debian.s cross compiler: make deps, or apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)$" out &&
	test_grep "^missing  qemu-system-aarch64 (a): not on PATH to boot arch arm64: apt-get install qemu-system-arm$" out &&
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 2 mkseries build --branch a >../out 2>../err) &&
	test_grep "^error: aarch64-linux-gnu-gcc (a): kernels/a.yaml:1: cannot build arch arm64: no .aarch64-linux-gnu-gcc. on PATH" err &&
	test_grep "^error: mkseries build stopped before its long steps" err
'

test_expect_success 'no git identity: doctor says how to set it; run stops before importing' '
	mkdir nobody &&
	(cd kit && HOME=$TRASH_DIRECTORY/nobody test_expect_code 1 mkseries doctor >../out 2>../err) &&
	test_grep "^missing  git identity: no user.name: mkseries signs off backports in your name: git config --global user.name .Your Name. && git config --global user.email you@example.org$" out &&
	(cd kit && HOME=$TRASH_DIRECTORY/nobody test_expect_code 1 mkseries run --branch t >../out 2>../err) &&
	cat out err &&
	test_must_be_empty out &&
	test_grep "^error: git identity: no user.name: " err &&
	test_grep "^error: mkseries run stopped before its long steps" err &&
	! mk_git up rev-parse -q --verify refs/tags/mkseries/base/t
'

test_expect_success 'an identity git reads from GIT_CONFIG_GLOBAL but libgit2 does not' '
	printf "[user]\n\tname = Glo Bal\n\temail = global@example.org\n" >global.cfg &&
	(cd kit && HOME=$TRASH_DIRECTORY/nobody GIT_CONFIG_GLOBAL=$TRASH_DIRECTORY/global.cfg \
		test_expect_code 1 mkseries doctor >../out 2>../err) &&
	cat out &&
	test_grep "^missing  git identity: git sees Glo Bal <global@example.org> but libgit2, which mkseries commits with, sees no user.name (it does not read GIT_CONFIG_GLOBAL): set it in ~/.gitconfig: " out
'

test_expect_success 'the last KVM probe is shown, and is no failure' '
	mkdir -p .cache/mkseries &&
	printf "host=6.1.0\nqemu=QEMU emulator version 7.2.0\naccel=tcg\nnote=no mm-regress in 20s\nwhen=2026-12-02 10:13 UTC\n" >.cache/mkseries/kvm-probe &&
	(cd kit && mkseries doctor >../out 2>../err) &&
	test_grep "^note     kvm: last probe 2026-12-02 10:13 UTC: TCG: no mm-regress in 20s$" out
'

test_expect_success 'with no probe, doctor looks at the KVM device the boots use (MKSERIES_KVM_DEVICE)' '
	rm -f .cache/mkseries/kvm-probe &&
	(cd kit && MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/no-kvm mkseries doctor >../out 2>../err) &&
	test_grep "^note     kvm: no usable $TRASH_DIRECTORY/no-kvm: guests run under TCG" out &&
	: >rw-kvm &&
	(cd kit && MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/rw-kvm mkseries doctor >../out 2>../err) &&
	test_grep "^note     kvm: not probed yet: no selected branch of the host.s arch is built, nothing to boot (build one and run doctor again; or the first boot under KVM is the probe)$" out
'

test_expect_success 'a built kernel: doctor probes KVM with a short boot, recorded as a run records it' '
	setup_fake_run fk &&
	(cd fk && mkseries build --branch t --variant base >../out 2>&1) &&
	rm -f .cache/mkseries/kvm-probe &&
	(cd fk && MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/rw-kvm mkseries doctor --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "^ok       kvm: probed now, booting .*/out-base/arch/x86/boot/bzImage: KVM works$" out &&
	test_grep "^accel=kvm$" .cache/mkseries/kvm-probe &&
	test_grep "^qemu=QEMU emulator version 7.2.99 (fake)$" .cache/mkseries/kvm-probe &&
	# recorded: no second boot
	(cd fk && FAKE_QEMU_ABORT=1 MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/rw-kvm mkseries doctor --branch t >../out 2>../err) &&
	test_grep "^ok       kvm: last probe [0-9-]* [0-9:]* UTC: KVM works$" out &&
	rm .cache/mkseries/kvm-probe &&
	(cd fk && FAKE_QEMU_ABORT=1 MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/rw-kvm mkseries doctor --branch t >../out 2>../err) &&
	cat out &&
	test_grep "^note     kvm: probed now, booting .*: TCG: QEMU exited with status 134: .fake-qemu: kvm_buf_set_msrs: Assertion failed..$" out &&
	test_grep "^accel=tcg$" .cache/mkseries/kvm-probe &&
	rm .cache/mkseries/kvm-probe &&
	(cd fk && FAKE_QEMU_SLEEP=30 MKSERIES_KVM_PROBE_TIMEOUT=1 MKSERIES_KVM_DEVICE=$TRASH_DIRECTORY/rw-kvm \
		mkseries doctor --branch t >../out 2>../err) &&
	test_grep "^note     kvm: probed now, booting .*: TCG: no mm-regress in 1s after .\[    0.000000\] Linux version 1.0-fake.$" out
'

test_expect_success 'a Debian tree to import: its suite reachable, and the disk it needs' '
	(cd kitd && MKSERIES_APT_ROOT=$TRASH_DIRECTORY/root mkseries doctor >../out 2>../err) &&
	cat out err &&
	test_grep "^ok       debian bookworm: file://$TRASH_DIRECTORY/mirror answers for bookworm$" out &&
	test_grep "^ok       disk: .* free, the selected branches need about 2.4 GiB (d 2.4 GiB)$" out
'

test_expect_success 'a mirror that does not answer: run stops before importing' '
	echo "deb http://127.0.0.1:9/debian bookworm main" >root/etc/apt/sources.list &&
	(cd kitd && MKSERIES_APT_ROOT=$TRASH_DIRECTORY/root test_expect_code 1 mkseries doctor >../out 2>../err) &&
	cat out &&
	test_grep "^missing  debian bookworm: http://127.0.0.1:9/debian does not answer for bookworm (Failed to fetch http://127.0.0.1:9/debian/dists/bookworm/InRelease .*): d cannot be imported; check the network or the mirror in /etc/apt$" out &&
	(cd kitd && MKSERIES_APT_ROOT=$TRASH_DIRECTORY/root test_expect_code 1 mkseries run --branch d --variant base >../out 2>../err) &&
	cat err &&
	test_grep "^error: debian bookworm: http://127.0.0.1:9/debian does not answer" err &&
	test_grep "^error: mkseries run stopped before its long steps" err &&
	! test -e .cache/mkseries/linux.git
'

test_expect_success 'too little disk for the trees and builds: what it needs and has' '
	(cd kitd && MKSERIES_APT_ROOT=$TRASH_DIRECTORY/root MKSERIES_TEST_FREE_MB=1000 \
		test_expect_code 1 mkseries build --branch d >../out 2>../err) &&
	cat err &&
	test_grep "^error: disk: 1000 MiB free in .*/d, the selected branches need about 2.4 GiB (d 2.4 GiB): free some space, or point XDG_CACHE_HOME (or --workdir) at a larger disk$" err
'

test_done

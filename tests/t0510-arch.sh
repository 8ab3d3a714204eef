#!/bin/sh
# t0510-arch.sh: an arm64 branch built and booted from an x86_64 host, with stand-ins, and nothing falls back to x86.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# What a silent fallback would look like: make building for the host
# (ARCH= or CROSS_COMPILE= ignored), an x86 mm-regress packed for an
# arm64 guest, an x86 machine booted in place of qemu-system-aarch64.
# Each must fail the cell with a message that says so.

test_lazy_prereq X86_HOST 'test "$(uname -m)" = x86_64'
test_lazy_prereq AARCH64_REGRESS 'test -s "$(dirname "$MKSERIES_BIN")/mm-regress-aarch64"'
test_lazy_prereq CPIO 'command -v cpio'

# A kernel tree whose make writes an arm64 Image (header magic "ARM\x64",
# that is "ARMd", at offset 56; the raw contents of its vmlinux, as
# objcopy -O binary makes it) when it is given ARCH=arm64 and a
# CROSS_COMPILE, and records what it was given. FAKE_IGNORE_ARCH=1 makes
# it build for the host instead: an x86 bzImage under the arm64 name.
make_arch_tree() {
	fake_tree "$1" <<-\EOF_MAKE &&
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n' >$(O)/.config
	olddefconfig:
	> @echo "olddefconfig ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE)"
	vmlinux:
	> { head -c 56 /dev/zero && printf "ARMd" && cat $(CURDIR)/Kconfig; } >$(O)/head.bin
	> cd $(O) && ld -r -b binary -o vmlinux head.bin
	Image:
	> @echo "make Image ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) CC=$(CC)" >>$(O)/make.log
	> @$(CC) --version >/dev/null
	> mkdir -p $(O)/arch/arm64/boot
	> if [ "$(ARCH)" = arm64 ] && [ -n "$(CROSS_COMPILE)" ] && [ -z "$$FAKE_IGNORE_ARCH" ]; then \
	>	objcopy -O binary $(O)/vmlinux $(O)/arch/arm64/boot/Image; \
	> else \
	>	head -c 514 /dev/zero >$(O)/arch/arm64/boot/Image && printf 'HdrS' >>$(O)/arch/arm64/boot/Image; \
	> fi
	.PHONY: tinyconfig olddefconfig vmlinux Image
	EOF_MAKE
	mkdir -p "$1/arch/arm64" &&
	printf 'config ARM64\n\tdef_bool y\n' >"$1/arch/arm64/Kconfig" &&
	fake_tree_release "$1"
}

# Debian's cross compiler, as far as the build asks it anything.
write_fake_cross_gcc() {
	cat >"$1" <<-\EOF_GCC &&
	#!/bin/sh
	echo "$0 $*" >>"$FAKE_GCC_LOG"
	if [ "$1" = --version ]; then
		echo "aarch64-linux-gnu-gcc (Debian 12.2.0-14) 12.2.0 (fake)"
		exit 0
	fi
	exit 1
	EOF_GCC
	chmod +x "$1"
}

# A QEMU for a foreign arch as far as mkseries can tell: it boots only a
# kernel whose bytes KOFF..KOFF+3 (hex) are KMAGIC, and its guest says the
# machine its /init was built for (an /init whose ELF e_machine bytes,
# hex, are not INITEM does not run: the kernel panics as a real one does).
# FAKE_MACHINE stands for a guest that is not of that arch at all.
# write_arch_qemu FILE KOFF KMAGIC INITEM MACHINE CASE
write_arch_qemu() {
	cat >"$1" <<-EOF_QEMU &&
	#!/bin/sh
	if [ "\$1" = --version ]; then
		echo "QEMU emulator version 7.2.99 (fake $5)"
		exit 0
	fi
	echo "\${0##*/} \$*" >>"\$FAKE_QEMU_LOG"
	kernel= initrd=
	while [ \$# -gt 0 ]; do
		case \$1 in
		-kernel) kernel=\$2; shift ;;
		-initrd) initrd=\$2; shift ;;
		esac
		shift
	done
	if [ "\$(od -An -tx1 -j$2 -N4 "\$kernel" | tr -d " ")" != $3 ]; then
		echo "\${0##*/}: fake: '\$kernel' is no $5 kernel" >&2
		exit 1
	fi
	dir=\$(mktemp -d) &&
	(cd "\$dir" && cpio -id --quiet init <"\$initrd") &&
	em=\$(od -An -tx1 -j18 -N2 "\$dir/init" | tr -d " ") &&
	rm -rf "\$dir"
	echo "Run /init as init process"
	if [ "\$em" != $4 ]; then
		echo "Kernel panic - not syncing: No working init found."
		exit 0
	fi
	echo "KTAP version 1"
	echo "1..1"
	echo "# machine: \${FAKE_MACHINE:-$5}"
	echo "ok 1 $6"
	echo "# mm-regress: done"
	EOF_QEMU
	chmod +x "$1"
}

# qemu-system-aarch64: an arm64 Image ("ARM\x64" at 56), an AArch64 /init (183, little-endian).
write_fake_aarch64_qemu() {
	write_arch_qemu "$1" 56 41524d64 b700 aarch64 pte_batch_wrbit
}

test_expect_success 'setup: an arm64 branch, stand-ins for its compiler and QEMU first on PATH' '
	make_arch_tree linux &&
	mkdir -p bin kit/kernels &&
	write_fake_cross_gcc bin/aarch64-linux-gnu-gcc &&
	write_fake_aarch64_qemu bin/qemu-system-aarch64 &&
	git_yaml kit a "$PWD/linux" v1.0 "arch: arm64
boot:
  boot-timeout: 10
  run-timeout: 10" &&
	printf "series: []\n" >kit/series.yaml &&
	FAKE_GCC_LOG=$PWD/gcc.log && export FAKE_GCC_LOG &&
	FAKE_QEMU_LOG=$PWD/qemu.log && export FAKE_QEMU_LOG &&
	PATH=$PWD/bin:$PATH && export PATH
'

WORK=$(kit_workdir kit a)

test_expect_success 'the cross build gets ARCH=arm64 and the Debian prefix, and makes Image' '
	(cd kit && mkseries build --branch a --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^a base: built in [0-9]*s ($WORK/out-base/arch/arm64/boot/Image)" out &&
	test_grep "^make Image ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=.*aarch64-linux-gnu-gcc$" "$WORK/out-base/make.log" &&
	test_grep "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" "$WORK/logs/base-build.log"
'

test_expect_success 'a build that made an x86 image under the arm64 name fails, saying so' '
	(cd kit && FAKE_IGNORE_ARCH=1 test_expect_code 1 mkseries build --branch a --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "^a base: FAILED .$WORK/out-base/arch/arm64/boot/Image. is not a kernel image for arm64: it is an x86 bzImage (make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)" out &&
	(cd kit && mkseries build --branch a --variant base --force >../out 2>../err)
'

test_expect_success X86_HOST,AARCH64_REGRESS,CPIO 'the boot: qemu-system-aarch64 virt, cortex-a57, ttyAMA0, TCG even with a KVM device' '
	: >kvm && MKSERIES_KVM_DEVICE=$PWD/kvm && export MKSERIES_KVM_DEVICE &&
	(cd kit && mkseries test --branch a --variant base >../out 2>../err) &&
	cat out err qemu.log &&
	test_grep "^a base: booted (tcg, instruction-paced, 2 boots) 1 ok, 0 skip, 0 fail" out &&
	test_grep "^note: using tcg: arm64 guest on x86_64 host: KVM runs only the host.s own arch" err &&
	test_grep "^qemu-system-aarch64 -machine virt -accel tcg .*-cpu cortex-a57 " qemu.log &&
	test_grep "console=ttyAMA0 " qemu.log &&
	test_grep "^# machine: aarch64" "$WORK/logs/base-console.log"
'

test_expect_success X86_HOST,AARCH64_REGRESS,CPIO 'accel kvm for an arm64 guest on this host is a configuration error' '
	(cd kit && test_expect_code 2 mkseries test --branch a --variant base --accel kvm >../out 2>../err) &&
	cat out err &&
	test_grep "kernels/a.yaml:1: accel kvm cannot run arm64 guests on this x86_64 host" err
'

test_expect_success X86_HOST,AARCH64_REGRESS,CPIO 'a guest that says it is x86_64 fails the arm64 cell' '
	(cd kit && FAKE_MACHINE=x86_64 test_expect_code 1 mkseries test --branch a --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^a base: FAILED (tcg.*) mm-regress ran on machine .x86_64., but branch .a. is arm64 (.aarch64.)" out
'

test_expect_success 'no cross compiler: the build names the compiler and the Debian packages' '
	sed "s/^arch: arm64/arch: arm64\ncross: nowhere-linux-gnu-/" kit/kernels/a.yaml >kit/kernels/b.yaml &&
	sed -i "s/^name: a/name: b/" kit/kernels/b.yaml &&
	(cd kit && test_expect_code 2 mkseries build --branch b --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "kernels/b.yaml:1: cannot build arch arm64: no .nowhere-linux-gnu-gcc. on PATH (the kit.s cross: prefix: make deps, or apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)" err &&
	rm kit/kernels/b.yaml
'

test_expect_success 'the model: unknown arch, a bad cross prefix, a bad image path, a bad console' '
	mkdir -p bad/kernels &&
	printf "series: []\n" >bad/series.yaml &&
	cat >bad/kernels/x.yaml <<-EOF &&
	name: x
	source:
	  git: { repo: $PWD/linux, ref: v1.0 }
	arch: riscv64
	cross: "aarch64 -linux"
	image: ../vmlinux
	boot:
	  console: "ttyS0 init=/bin/sh"
	EOF
	test_expect_code 2 mkseries --kit bad plan >out 2>err &&
	test_grep "^error: bad/kernels/x.yaml:4: unknown arch .riscv64. (known: x86_64, arm64, sparc64)" err &&
	test_grep "^error: bad/kernels/x.yaml:5: .cross. must be a compiler prefix ending in .-." err &&
	test_grep "^error: bad/kernels/x.yaml:6: .image. must be a path inside the build directory" err &&
	test_grep "^error: bad/kernels/x.yaml:8: .console. must be a device name" err
'

test_expect_success 'decisions: another branch.s, shown by plan; naming the borrower in series.yaml is an error' '
	mkdir -p dk/kernels &&
	for n in 6.12 6.12-arm64; do
		printf "name: \"%s\"\nsource:\n  git: { repo: $PWD/linux, ref: v1.0 }\n" $n >dk/kernels/$n.yaml || return 1
	done &&
	printf "arch: arm64\ndecisions: \"6.12\"\n" >>dk/kernels/6.12-arm64.yaml &&
	cat >dk/series.yaml <<-\EOF &&
	series:
	  - id: s
	    title: "a series"
	    patches:
	      - upstream: 0123456789ab
	        subject: "mm: one"
	    branches:
	      "6.12": { skip: "not for 6.12" }
	EOF
	mkseries --kit dk plan --all >out 2>err &&
	cat out err &&
	test_grep "^6.12-arm64: git .* v1.0, arm64, 6.12.s decisions  \[kernels/6.12-arm64.yaml\]$" out &&
	test_grep "^6.12: git .* v1.0  \[kernels/6.12.yaml\]$" out &&
	grep -A3 "^6.12-arm64: " out >arm &&
	test_grep "series skipped: not for 6.12" arm &&
	mkseries --kit dk plan --all --format json >plan.json &&
	jq -r ".branches[] | [.name, .arch, .decisions] | join(\" \")" plan.json >branches &&
	printf "6.12 x86_64 6.12\n6.12-arm64 arm64 6.12\n" >branches.expect &&
	test_cmp branches.expect branches &&
	jq -r ".cells[] | [.id, .arch] | join(\" \")" plan.json >cells &&
	printf "6.12/base x86_64\n6.12/kit x86_64\n6.12-arm64/base arm64\n6.12-arm64/kit arm64\n" >cells.expect &&
	test_cmp cells.expect cells &&
	sed -i "s/^      \"6.12\": .*/&\n      \"6.12-arm64\": { skip: \"no\" }/" dk/series.yaml &&
	test_expect_code 2 mkseries --kit dk plan --all >out 2>err &&
	test_grep "^error: dk/series.yaml:9: branch .6.12-arm64. takes its decisions from .6.12. (dk/kernels/6.12-arm64.yaml:5): decide there" err &&
	sed -i "/6.12-arm64/d" dk/series.yaml &&
	printf "name: \"6.1\"\nsource:\n  git: { repo: $PWD/linux, ref: v1.0 }\ndecisions: \"6.0\"\n" >dk/kernels/6.1.yaml &&
	test_expect_code 2 mkseries --kit dk plan --all >out 2>err &&
	test_grep "^error: dk/kernels/6.1.yaml:4: decisions: unknown branch .6.0. (no dk/kernels/6.0.yaml)" err
'

# sparc64: the same checks for a big-endian ELF image and guest.
test_lazy_prereq SPARC64_REGRESS 'test -s "$(dirname "$MKSERIES_BIN")/mm-regress-sparc64"'

# A kernel tree for ARCH=sparc: its image is an ELF file, SPARC V9
# (e_machine 43, big-endian) when make is given ARCH=sparc and a
# CROSS_COMPILE, an x86-64 one (62, little-endian) when FAKE_IGNORE_ARCH
# makes it build for the host.
make_sparc_tree() {
	fake_tree "$1" <<-\EOF_MAKE &&
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n' >$(O)/.config
	olddefconfig:
	> @true
	vmlinux:
	> cd $(CURDIR) && $(CROSS_COMPILE)ld -b binary -o $(O)/vmlinux Kconfig
	image:
	> @echo "make image ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) CC=$(CC)" >>$(O)/make.log
	> mkdir -p $(O)/arch/sparc/boot
	> if [ "$(ARCH)" = sparc ] && [ -n "$(CROSS_COMPILE)" ] && [ -z "$$FAKE_IGNORE_ARCH" ]; then \
	>	cp $(O)/vmlinux $(O)/arch/sparc/boot/image; \
	> else \
	>	printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\076\000' >$(O)/arch/sparc/boot/image; \
	> fi
	.PHONY: tinyconfig olddefconfig vmlinux image
	EOF_MAKE
	mkdir -p "$1/arch/sparc" &&
	printf 'config SPARC\n\tdef_bool y\n' >"$1/arch/sparc/Kconfig" &&
	fake_tree_release "$1"
}

# qemu-system-sparc64: a SPARC V9 ELF image and /init (e_machine 43,
# big-endian: bytes 18-19 of the image are 00 2b, read with 16-17).
write_fake_sparc64_qemu() {
	write_arch_qemu "$1" 16 0002002b 002b sparc64 cache_colour
}

test_expect_success 'setup: a sparc64 branch, stand-ins for its compiler and QEMU' '
	make_sparc_tree slinux &&
	write_fake_cross_gcc bin/sparc64-linux-gnu-gcc &&
	write_fake_sparc64_qemu bin/qemu-system-sparc64 &&
	git_yaml kit s "$PWD/slinux" v1.0 "arch: sparc64
boot:
  boot-timeout: 10
  run-timeout: 10"
'

WORK_S=$(kit_workdir kit s)

test_expect_success 'sparc64: the cross build gets ARCH=sparc and the Debian prefix, and makes image' '
	(cd kit && mkseries build --branch s --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^s base: built in [0-9]*s ($WORK_S/out-base/arch/sparc/boot/image)" out &&
	test_grep "^make image ARCH=sparc CROSS_COMPILE=sparc64-linux-gnu- CC=.*sparc64-linux-gnu-gcc$" "$WORK_S/out-base/make.log"
'

test_expect_success 'sparc64: an x86 ELF under the image name fails the build, saying so' '
	(cd kit && FAKE_IGNORE_ARCH=1 test_expect_code 1 mkseries build --branch s --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "^s base: FAILED .$WORK_S/out-base/arch/sparc/boot/image. is not a kernel image for sparc64: it is an ELF file for x86-64" out &&
	(cd kit && mkseries build --branch s --variant base --force >../out 2>../err)
'

test_expect_success X86_HOST,SPARC64_REGRESS,CPIO 'sparc64: the boot is qemu-system-sparc64 sun4u, one CPU, ttyS0, TCG, with a sparc64 /init' '
	(cd kit && mkseries test --branch s --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^s base: booted (tcg, instruction-paced, 2 boots) 1 ok, 0 skip, 0 fail" out &&
	test_grep "^qemu-system-sparc64 -machine sun4u -accel tcg .*-smp 1 " qemu.log &&
	test_grep "console=ttyS0 " qemu.log &&
	test_grep "^# machine: sparc64" "$WORK_S/logs/base-console.log"
'

test_expect_success X86_HOST,SPARC64_REGRESS,CPIO 'sparc64: a guest that says it is x86_64 fails the cell' '
	(cd kit && FAKE_MACHINE=x86_64 test_expect_code 1 mkseries test --branch s --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^s base: FAILED (tcg.*) mm-regress ran on machine .x86_64., but branch .s. is sparc64 (.sparc64.)" out
'

test_done

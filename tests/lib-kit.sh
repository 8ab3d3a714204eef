# tests/lib-kit.sh: build a small synthetic "mainline" repository and a kit around it.
#
# make_upstream DIR: a repository with a base commit tagged v1.0 (the
# stable branch's tree) and, on top, the upstream commits the kit carries:
#   A1 "mm: rename ptes"            series alpha, patch 1
#   A2 "mm: batch ptes"             series alpha, patch 2
#   F1 "mm: fix batch ptes"         fixup of A2
#   F2 "mm: fix the fix"            fixup of F1
#   B1 "madvise: split locking"     series beta, patch 1
# Their ids are in $A1 $A2 $F1 $F2 $B1 after the call.
make_upstream() {
	mkdir -p "$1" &&
	(
		cd "$1" &&
		git init -q &&
		mkdir -p mm scripts &&
		printf 'static int move_ptes(void)\n{\n\treturn 0;\n}\n' >mm/mremap.c &&
		printf 'line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n' >mm/madvise.c &&
		printf '#!/bin/sh\necho ok\n' >scripts/run.sh &&
		chmod +x scripts/run.sh &&
		ln -s mremap.c mm/link.c &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		sed -i 's/move_ptes/move_pteps/' mm/mremap.c &&
		git commit -q -a -m "mm: rename ptes" -m "Call them pteps." \
			-m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		printf 'int batch(void)\n{\n\treturn 1;\n}\n' >>mm/mremap.c &&
		git commit -q -a -m "mm: batch ptes" -m "Batch them." \
			-m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		sed -i 's/return 1;/return 2;/' mm/mremap.c &&
		git commit -q -a -m "mm: fix batch ptes" -m "Fixes: $(git rev-parse --short=12 HEAD) (\"mm: batch ptes\")" \
			-m "Signed-off-by: Fix Er <fixer@example.org>" &&
		sed -i 's/return 2;/return 3;/' mm/mremap.c &&
		git commit -q -a -m "mm: fix the fix" -m "Fixes: $(git rev-parse --short=12 HEAD) (\"mm: fix batch ptes\")" \
			-m "Signed-off-by: Fix Er <fixer@example.org>" &&
		sed -i 's/line 4/line four/' mm/madvise.c &&
		git commit -q -a -m "madvise: split locking" \
			-m "Signed-off-by: Se Park <sj@example.org>"
	) &&
	B1=$(git -C "$1" rev-parse HEAD) &&
	F2=$(git -C "$1" rev-parse HEAD~1) &&
	F1=$(git -C "$1" rev-parse HEAD~2) &&
	A2=$(git -C "$1" rev-parse HEAD~3) &&
	A1=$(git -C "$1" rev-parse HEAD~4)
}

# make_kit DIR UPSTREAM: a kit whose branch "t" is UPSTREAM at v1.0, with the
# patches of make_upstream as format-patch files under patches/.
make_kit() {
	mkdir -p "$1/kernels" "$1/patches/alpha" "$1/patches/beta" &&
	git -C "$2" format-patch -q -o "$PWD/$1/patches/alpha" v1.0..HEAD~3 &&
	git -C "$2" format-patch -q --start-number 3 -o "$PWD/$1/patches/alpha" HEAD~3..HEAD~1 &&
	git -C "$2" format-patch -q -o "$PWD/$1/patches/beta" HEAD~1..HEAD &&
	cat >"$1/kernels/t.yaml" <<-EOF_KERNEL &&
	name: t
	source:
	  git: { repo: $PWD/$2, ref: v1.0 }
	config:
	  base: tinyconfig
	EOF_KERNEL
	cat >"$1/series.yaml" <<-EOF_SERIES
	# the test kit
	series:
	  - id: alpha
	    title: "mm: batch ptes"
	    patches:
	      - file: patches/alpha/0001-mm-rename-ptes.patch
	        upstream: ${A1%${A1#????????????}}
	        subject: "mm: rename ptes"
	      - file: patches/alpha/0002-mm-batch-ptes.patch
	        upstream: ${A2%${A2#????????????}}
	        subject: "mm: batch ptes"
	    fixups:
	      - file: patches/alpha/0003-mm-fix-batch-ptes.patch
	        upstream: ${F1%${F1#????????????}}
	        subject: "mm: fix batch ptes"
	        fixes: ${A2%${A2#????????????}}
	      - file: patches/alpha/0004-mm-fix-the-fix.patch
	        upstream: ${F2%${F2#????????????}}
	        subject: "mm: fix the fix"
	        fixes: ${F1%${F1#????????????}}
	  - id: beta
	    title: "madvise: split locking"
	    patches:
	      - file: patches/beta/0001-madvise-split-locking.patch
	        upstream: ${B1%${B1#????????????}}
	        subject: "madvise: split locking"
	EOF_SERIES
}

# write_variant_qemu FILE: a QEMU for the kits of tests/t07*.sh whose
# declared variants leave out fixup F1: it runs the fake-qemu next to
# FILE, and for a kernel without the fix (its mm/mremap.c still says
# "return 1;") case 3 "steady" fails and realloc is 30% slower, unless
# FAKE_QEMU_FIXED is set.
write_variant_qemu() {
	cat >"$1" <<-\EOF_QEMU &&
	#!/bin/sh
	kernel= prev=
	for arg; do [ "$prev" = -kernel ] && kernel=$arg; prev=$arg; done
	if grep -q "return 1;" "$kernel" && [ -z "${FAKE_QEMU_FIXED:-}" ]; then
		"$(dirname "$0")/fake-qemu" "$@" | awk '
			/^# sample: realloc calls_per_sec / { $6 = $6 * 0.7 }
			/^# metric: realloc calls_per_sec / { $5 = $5 * 0.7 }
			/^ok 3 steady/ { print "# steady: the child saw a write of its parent"; print "not ok 3 steady"; next }
			{ print }'
	else
		exec "$(dirname "$0")/fake-qemu" "$@"
	fi
	EOF_QEMU
	chmod +x "$1"
}

# add_variants KIT BRANCH: declare on BRANCH the variants no-fix (without
# F1, so without F2 too; expects "steady" to fail) and no-beta (without B1).
add_variants() {
	cat >>"$1/kernels/$2.yaml" <<-EOF_VARIANTS
	variants:
	  no-fix:
	    without: [${F1%${F1#????????????}}]
	    note: "the kit without the fix (and so without the fix of the fix)"
	    expect-fail: [steady]
	  no-beta:
	    without: [${B1%${B1#????????????}}]
	EOF_VARIANTS
}

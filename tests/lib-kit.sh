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

# make_stable DIR: a repository shaped like linux-stable's 6.17.y, for
# kernels/6.17.yaml. Its mm/mremap.c has 6.17's mremap_folio_pte_batch()
# (with 0b5be138ce00's pte_batch_hint() check). Tags:
#   v6.17    "Linux 6.17"
#   v6.17.8  two stable backports of other commits on top ("commit <id>
#            upstream." and "[ Upstream commit <id> ]")
#   v6.17.9  the stable backport of 04d1c9d60c6e: the batch respects the
#            writable bit (folio_pte_batch_flags(..., FPB_RESPECT_WRITE))
# $STABLE_FIX is the id of that backport after the call.
make_stable() {
	mkdir -p "$1" &&
	(
		cd "$1" &&
		git init -q &&
		mkdir -p mm &&
		{
			printf '// SPDX-License-Identifier: GPL-2.0\n/*\n *\tmm/mremap.c\n */\n\n' &&
			printf '#include <linux/mm.h>\n#include "internal.h"\n\n' &&
			printf 'static int mremap_folio_pte_batch(struct vm_area_struct *vma, unsigned long addr,\n' &&
			printf '\t\tpte_t *ptep, pte_t pte, int max_nr)\n{\n\tstruct folio *folio;\n\n' &&
			printf '\tif (max_nr == 1)\n\t\treturn 1;\n\n' &&
			printf '\t/* Avoid expensive folio lookup if we stand no chance of benefit. */\n' &&
			printf '\tif (pte_batch_hint(ptep, pte) == 1)\n\t\treturn 1;\n\n' &&
			printf '\tfolio = vm_normal_folio(vma, addr, pte);\n' &&
			printf '\tif (!folio || !folio_test_large(folio))\n\t\treturn 1;\n\n' &&
			printf '\treturn folio_pte_batch(folio, ptep, pte, max_nr);\n}\n\n' &&
			printf 'static int move_ptes(struct pagetable_move_control *pmc,\n' &&
			printf '\t\tunsigned long extent, pmd_t *old_pmd, pmd_t *new_pmd)\n{\n\treturn 0;\n}\n'
		} >mm/mremap.c &&
		printf 'int madvise(void)\n{\n\treturn 0;\n}\n' >mm/madvise.c &&
		printf 'VERSION = 6\nPATCHLEVEL = 17\nSUBLEVEL = 0\n' >Makefile &&
		git add -A && git commit -q -m "Linux 6.17" && git tag v6.17 &&
		printf '/* a fix */\n' >>mm/madvise.c &&
		git commit -q -a -m "mm/madvise: an unrelated fix" \
			-m "commit 1111111111111111111111111111111111111111 upstream." \
			-m "Signed-off-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>" &&
		printf '/* another fix */\n' >>mm/madvise.c &&
		git commit -q -a -m "mm/madvise: another unrelated fix" \
			-m "[ Upstream commit 2222222222222222222222222222222222222222 ]" \
			-m "Signed-off-by: Sasha Levin <sashal@kernel.org>" &&
		sed -i 's/^SUBLEVEL = 0/SUBLEVEL = 8/' Makefile &&
		git commit -q -a -m "Linux 6.17.8" && git tag v6.17.8 &&
		sed -i 's/return folio_pte_batch(folio, ptep, pte, max_nr);/return folio_pte_batch_flags(folio, NULL, ptep, \&pte, max_nr, FPB_RESPECT_WRITE);/' mm/mremap.c &&
		grep -q FPB_RESPECT_WRITE mm/mremap.c &&
		GIT_AUTHOR_NAME="Dev Jain" GIT_AUTHOR_EMAIL=dev.jain@arm.com \
		git commit -q -a -m "mm/mremap: honour writable bit in mremap pte batching" \
			-m "commit 04d1c9d60c6ec4c0003d433572eaa45f8b217788 upstream." \
			-m "Make the batch respect the writable bit." \
			-m "Fixes: f822a9a81a31 (\"mm: optimize mremap() by PTE batching\")
Signed-off-by: Dev Jain <dev.jain@arm.com>
Signed-off-by: Greg Kroah-Hartman <gregkh@linuxfoundation.org>" &&
		sed -i 's/^SUBLEVEL = 8/SUBLEVEL = 9/' Makefile &&
		git commit -q -a -m "Linux 6.17.9" && git tag v6.17.9
	) &&
	STABLE_FIX=$(git -C "$1" rev-parse v6.17.9~1)
}

# kit_id DIR: the id mkseries keys DIR's refs and default work directories
# by (kit_id() in model.h): DIR's name made safe for a ref, '-', and the
# first 8 hex digits of the blob id of DIR's real path.
kit_id() {
	(
		cd "$1" &&
		d=$(pwd -P) &&
		n=$(basename "$d" | tr -c "A-Za-z0-9_\n-" "-" | cut -c1-40) &&
		h=$(printf %s "$d" | git hash-object --stdin | cut -c1-8) &&
		printf "%s-%s\n" "$n" "$h"
	)
}

# kit_ref DIR BRANCH [VARIANT]: the ref apply writes for kit DIR's BRANCH
# (or its VARIANT), as kit_refname() names it.
kit_ref() {
	if test $# -gt 2
	then
		echo "refs/heads/mkseries-variants/$(kit_id "$1")/$2/$3"
	else
		echo "refs/heads/mkseries/$(kit_id "$1")/$2"
	fi
}

# mk_repo CLONE: mkseries' own repository for a git source's CLONE
# (tree/clone.h): $XDG_CACHE_HOME/mkseries/clones/<name>-<hash>.git,
# <name> the clone's directory made safe and <hash> the first 8 hex
# digits of the blob id of the real path of its git directory.
mk_repo() {
	(
		cd "$1" &&
		d=$(cd "$(git rev-parse --git-common-dir)" && pwd -P) &&
		n=${d%/.git} && n=${n##*/} && n=${n%.git} &&
		n=$(printf %s "$n" | tr -c "A-Za-z0-9_\n-" "-" | cut -c1-40) &&
		h=$(printf %s "$d" | git hash-object --stdin | cut -c1-8) &&
		printf "%s/mkseries/clones/%s-%s.git\n" "$XDG_CACHE_HOME" "$n" "$h"
	)
}

# mk_git CLONE ARGS...: git in mkseries' repository for CLONE: its refs
# (the kits' branches, base tags, the backport loop's) and, through its
# alternate, the clone's objects; the clone's own refs are not there.
mk_git() {
	_mk=$(mk_repo "$1") &&
	shift &&
	git --git-dir "$_mk" "$@"
}

# kit_workdir DIR BRANCH: the default work directory of kit DIR's BRANCH.
kit_workdir() {
	echo "$XDG_CACHE_HOME/mkseries/work/$(kit_id "$1")/$2"
}

# git_yaml KIT NAME REPO REF [MORE]: KIT/kernels/NAME.yaml, a branch
# named NAME of the git repository REPO at REF, configured from
# tinyconfig. REF is the rest of the source's braces after "ref: ", so
# "v1.0.1, release: v1.0" adds a release tag. MORE, if given, is appended
# as it is (top-level keys, or settings of "config:" indented by two).
git_yaml() {
	mkdir -p "$1/kernels" &&
	cat >"$1/kernels/$2.yaml" <<-EOF_KERNEL &&
	name: $2
	source:
	  git: { repo: $3, ref: $4 }
	config:
	  base: tinyconfig
	EOF_KERNEL
	if [ $# -gt 4 ]; then
		printf '%s\n' "$5" >>"$1/kernels/$2.yaml"
	fi
}

# follow_up_ref REF: kit/kernels/t.yaml, branch t following REF of the
# repository up (in the trash directory), its stable history read from v1.0.
follow_up_ref() {
	git_yaml kit t "$TRASH_DIRECTORY/up" "$1, release: v1.0"
}

# plain_kit KIT REPO: a kit with no series whose one branch t is REPO at
# v1.0, configured from tinyconfig.
plain_kit() {
	git_yaml "$1" t "$2" v1.0 &&
	printf "series: []\n" >"$1/series.yaml"
}

# fake_tree DIR [KCONFIG]: a git repository DIR that stands in for a
# kernel tree: a Makefile of ".RECIPEPREFIX := >" and "O ?= ." followed by
# the rules read from stdin (recipe lines start with ">"), and a Kconfig
# of KCONFIG (printf format; by default one option, 64BIT). The caller adds
# what else the tree holds and then calls fake_tree_release DIR.
fake_tree() {
	mkdir -p "$1" &&
	git init -q "$1" &&
	{
		printf '.RECIPEPREFIX := >\nO ?= .\n' &&
		cat
	} >"$1/Makefile" &&
	printf "${2:-config 64BIT\n\tbool\n}" >"$1/Kconfig"
}

# fake_tree_release DIR: commit all of DIR as "Linux 1.0", tagged v1.0.
fake_tree_release() {
	git -C "$1" add -A &&
	git -C "$1" commit -q -m "Linux 1.0" &&
	git -C "$1" tag v1.0
}

# alpha_kit DIR [HEAD]: a kit in DIR (kernels/ left empty) whose
# series.yaml carries one series, alpha, of tests/data/results/kit's one
# patch (upstream 1a356dad81e2, "mm: rename ptes"), copied to
# DIR/patches. HEAD, if given, is the file's first line (a top-level key
# such as verdicts:). The file ends with alpha's patch: append to it
# alpha's fixups or claims (indented by four) or more series (by two).
alpha_kit() {
	mkdir -p "$1/kernels" "$1/patches" &&
	cp "$TEST_DIRECTORY/data/results/kit/patches/0001-mm-rename-ptes.patch" "$1/patches/" &&
	if [ $# -gt 1 ]; then
		printf '%s\n' "$2" >"$1/series.yaml"
	else
		: >"$1/series.yaml"
	fi &&
	cat >>"$1/series.yaml" <<-\EOF_SERIES
	series:
	  - id: alpha
	    title: "mm: rename ptes"
	    patches:
	      - file: patches/0001-mm-rename-ptes.patch
	        upstream: 1a356dad81e2
	        subject: "mm: rename ptes"
	EOF_SERIES
}

# kernel_yaml KIT NAME REF [MORE]: KIT/kernels/NAME.yaml, a branch of the
# synthetic tree at REF, built by the fake kbuild (tinyconfig) and booted
# under TCG in $TRASH_DIRECTORY/fake-qemu; MORE, if given, is appended as
# it is (more boot settings go after "  accel: tcg", indented by two).
kernel_yaml() {
	git_yaml "$1" "$2" "$TRASH_DIRECTORY/linux" "$3" "boot:
  qemu: $TRASH_DIRECTORY/fake-qemu
  accel: tcg${4+
$4}"
}

# while_locked CMD...: CMD, in kit/, while another process holds the
# repository lock of $LOCKED_REPO (a git directory; mkseries' repository
# for the clone linux/ when unset); its output in out and err, its exit
# code in code. mkseries' repository is made bare first when missing, as
# mkseries makes it (mkseries then names the clone's objects in it), so
# that there is a lock to hold before any mkseries ran.
while_locked() {
	if test -z "${LOCKED_REPO:-}" && ! test -d "$(mk_repo linux)"
	then
		git init -q --bare "$(mk_repo linux)"
	fi &&
	flock "${LOCKED_REPO:-$(mk_repo linux)}/mkseries.lock" \
		sh -c 'cd kit && "$@" >../out 2>../err; echo $? >../code' while_locked "$@"
}

# setup_fake_run KIT: the synthetic upstream in linux/ and a kit in KIT whose
# branch t (v1.0 with the fake kbuild, tagged v1.0-mk) builds with
# tests/data/results/fake-kbuild.mk and boots in the fake QEMU.
setup_fake_run() {
	make_upstream linux &&
	make_kit "$1" linux &&
	cp "$TEST_DIRECTORY/data/results/fake-qemu" fake-qemu &&
	git -C linux checkout -q -b stable v1.0 &&
	cp "$TEST_DIRECTORY/data/results/fake-kbuild.mk" linux/Makefile &&
	git -C linux add Makefile &&
	git -C linux commit -q -m "fake kbuild" &&
	git -C linux tag v1.0-mk &&
	git -C linux checkout -q master &&
	kernel_yaml "$1" t v1.0-mk
}

# write_new_gcc DIR: DIR/gcc, the host's gcc under another --version
# ("gcc (stand-in) 99.1.0"): a new compiler, for PATH="DIR:$PATH".
write_new_gcc() {
	mkdir -p "$1" &&
	cat >"$1/gcc" <<-\EOF_GCC &&
	#!/bin/sh
	if [ "$1" = --version ]; then
		echo "gcc (stand-in) 99.1.0"
		exit 0
	fi
	exec /usr/bin/gcc "$@"
	EOF_GCC
	chmod +x "$1/gcc"
}

# bp_in KIT WD ARGS...: mkseries backport on KIT's branch t, with the
# work directory $TRASH_DIRECTORY/WD; its output in out, its errors in err.
bp_in() {
	k=$1 wd=$2 &&
	shift 2 &&
	(cd "$k" && mkseries backport --branch t --workdir "$TRASH_DIRECTORY/$wd" "$@" >../out 2>../err)
}

# bp KIT ARGS...: bp_in with the work directory wd-KIT.
bp() {
	k=$1 &&
	shift &&
	bp_in "$k" "wd-$k" "$@"
}

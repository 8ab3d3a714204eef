# tests/lib-mainline.sh: grow make_upstream's repository (lib-kit.sh) into a "mainline" with fixups to find.
#
# make_mainline DIR: on top of make_upstream DIR (after make_kit, which
# reads HEAD-relative ranges), add these commits, oldest first:
#   M1  Fixes: <A2, 12 digits> ("mm: batch ptes"), Cc: stable # 1.0+  missing, alpha
#   O1  an unrelated commit, outside the kit
#   M2  a revert of B1 ("This reverts commit <B1, 40 digits>.")       missing, beta
#   X1  names A1 in prose only                                        not a fixup
#   X2  Fixes: <O1>                                                   not: outside the kit
#   X3  Fixes: <A1, 7 digits>                                         not: too short
#   -- tag v1.1 (annotated)
#   M3  "fixes :  <M1, 10 digits>" (a fix of a fix)                  missing, alpha
#   M4  "FIXES: <F2, 40 upper case digits>", Cc: <stable@kernel.org>   missing, alpha (fixes a kit fixup)
#   M5  Stable-dep-of: <B1, 12 digits>                                missing, beta
#   -- tag v1.2 (lightweight)
#   M6  Fixes: <A1, 40 digits> with no subject                       missing, alpha; in no tag
# Their full ids are in $M1 .. $M6, $O1, $X1 .. $X3 afterwards.
make_mainline() {
	(
		cd "$1" &&
		a1=$(git rev-parse "$A1") && a2=$(git rev-parse "$A2") && b1=$(git rev-parse "$B1") &&
		mm_commit() { # FILE MESSAGE
			echo "$(git rev-list --count HEAD)" >>"$1" &&
			git add "$1" &&
			git commit -q -m "$2"
		} &&
		mm_commit mm/mremap.c "mm: fix batch ptes again

The batch was one off.

Fixes: $(prefix $a2 12) (\"mm: batch ptes\")
Cc: stable@vger.kernel.org # 1.0+
Signed-off-by: Fix Er <fixer@example.org>" &&
		mm_commit net.c "net: unrelated change

Signed-off-by: Net Dev <net@example.org>" &&
		o1=$(git rev-parse HEAD) &&
		mm_commit mm/madvise.c "Revert \"madvise: split locking\"

This reverts commit $b1.

It deadlocks.

Signed-off-by: Re Verter <revert@example.org>" &&
		mm_commit mm/mremap.c "mm: tidy pteps

This was made possible by commit $(prefix $a1 12) (\"mm: rename ptes\"),
and Fixes: $(prefix $a1 12) in prose is not a trailer either.

Signed-off-by: Ti Dy <tidy@example.org>" &&
		mm_commit net.c "net: fix the unrelated change

Fixes: $(prefix $o1 12) (\"net: unrelated change\")
Signed-off-by: Net Dev <net@example.org>" &&
		mm_commit mm/mremap.c "mm: too short a reference

Fixes: $(prefix $a1 7) (\"mm: rename ptes\")
Signed-off-by: Ti Dy <tidy@example.org>" &&
		git tag -a -m "Linux 1.1" v1.1 &&
		m1=$(git rev-parse HEAD~5) &&
		mm_commit mm/mremap.c "mm: fix the batch fix

fixes :  $(prefix $m1 10)
Signed-off-by: Fix Er <fixer@example.org>" &&
		mm_commit mm/mremap.c "mm: fix the fix of the fix

FIXES: $(git rev-parse "$F2" | tr a-f A-F) (\"mm: fix the fix\")
Cc: <stable@kernel.org>
Signed-off-by: Fix Er <fixer@example.org>" &&
		mm_commit mm/madvise.c "madvise: add a helper

Stable-dep-of: $(prefix $b1 12) (\"madvise: split locking\")
Signed-off-by: Se Park <sj@example.org>" &&
		git tag v1.2 &&
		mm_commit mm/mremap.c "mm: one more fix

Fixes: $a1
Signed-off-by: Fix Er <fixer@example.org>"
	) &&
	M6=$(git -C "$1" rev-parse HEAD) &&
	M5=$(git -C "$1" rev-parse HEAD~1) &&
	M4=$(git -C "$1" rev-parse HEAD~2) &&
	M3=$(git -C "$1" rev-parse HEAD~3) &&
	X3=$(git -C "$1" rev-parse HEAD~4) &&
	X2=$(git -C "$1" rev-parse HEAD~5) &&
	X1=$(git -C "$1" rev-parse HEAD~6) &&
	M2=$(git -C "$1" rev-parse HEAD~7) &&
	O1=$(git -C "$1" rev-parse HEAD~8) &&
	M1=$(git -C "$1" rev-parse HEAD~9)
}

# prefix ID N: the first N digits of ID.
prefix() {
	echo "$1" | cut -c1-"$2"
}

#!/bin/bash
# bench/backport.sh: each step of the backport loop against git's own command, on the real 6.12 tree, as ratios.
#
# A one-patch kit for branch 6.12 whose patch (mm/mremap.c, context that
# upstream renamed) does not apply on Debian's 6.12. Then, BENCH_RUNS
# times (default 3), on the same repository and the same tree:
#   start:      mkseries backport --branch 6.12 (checks out 86,691 files)
#               against  git worktree add --detach <dir> mkseries/base/6.12
#   --abort:    mkseries backport --abort (the tree removed, the kit put back)
#               against  git worktree remove --force <dir>
#   --continue: after an edit to mm/mremap.c and a deleted file:
#               mkseries backport --continue (reads the tree, records the
#               patch and series.yaml, removes the tree, applies the kit)
#               against  git status, and git add -A + git write-tree +
#               git worktree remove --force (what --continue does of git's)
# Prints each run and the median, min and max of each step, and the
# ratios of the medians (mkseries / git: below 1 is faster than git).
# Real trees: run it alone (no kernel build at the same time); the cache is
# BENCH_CACHE (default build/real-cache), imported on the first run.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
runs=${BENCH_RUNS:-3}
work=${BENCH_DIR:-$top/build/bench/backport}
export XDG_CACHE_HOME=${BENCH_CACHE:-$top/build/real-cache}
repo=$XDG_CACHE_HOME/mkseries/linux.git
base=refs/tags/mkseries/base/6.12

mkdir -p "$work"
cd "$work"
test -d gitwt && git -C "$repo" worktree remove --force "$work/gitwt"
if test -d wd; then (cd kit && "$mks" backport --branch 6.12 --workdir "$work/wd" --abort) || :; fi
rm -rf kit wd gitwt
git -C "$repo" worktree prune
mkdir -p kit/kernels kit/patches/b
cat >kit/kernels/6.12.yaml <<'EOT'
name: "6.12"
source:
  debian: { package: linux-source-6.12, suite: bookworm }
EOT
cat >kit/series.yaml <<'EOT'
series:
  - id: b
    title: "a patch that does not apply on 6.12"
    patches:
      - file: patches/b/0001-mm-mremap-bench.patch
        upstream: 1111111111111111111111111111111111111111
EOT
# Upstream renamed pgd first: the context does not match 6.12.
cat >kit/patches/b/0001-mm-mremap-bench.patch <<'EOT'
From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001
From: A U Thor <author@example.com>
Date: Mon, 1 Dec 2025 10:00:00 +0000
Subject: [PATCH] mm/mremap: say why get_old_pud gives up

Signed-off-by: A U Thor <author@example.com>
---
 mm/mremap.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/mremap.c b/mm/mremap.c
index 1111111..2222222 100644
--- a/mm/mremap.c
+++ b/mm/mremap.c
@@ -36,9 +36,10 @@ static pud_t *get_old_pud(struct mm_struct *mm, unsigned long addr)
 {
-	pgd_t *pgd_old;
+	pgd_t *pgdp;
 	p4d_t *p4d;
 	pud_t *pud;
 
-	pgd = pgd_offset(mm, addr);
-	if (pgd_none_or_clear_bad(pgd))
+	pgdp = pgd_offset(mm, addr);
+	/* nothing mapped at this level */
+	if (pgd_none_or_clear_bad(pgdp))
 		return NULL;
 
-- 
2.39.5
EOT
git -C kit init -q && git -C kit add -A && git -C kit -c user.name=bench -c user.email=bench@invalid commit -q -m kit
echo "# importing 6.12 (cached after the first run)"
(cd kit && "$mks" import --branch 6.12 >/dev/null)

now() { date +%s.%N; }
# step NAME CMD...: run CMD, add its wall time to NAME's list; its output to NAME.out.
step() {
	local name=$1 s e rc=0
	shift
	s=$(now)
	"$@" >"$name.out" 2>&1 || rc=$?
	e=$(now)
	echo "$e - $s" | bc >>"$name.times"
	printf '  %-12s %8.2f s (exit %d)\n' "$name" "$(tail -n 1 "$name.times")" "$rc"
}
# The edits a backporter makes: the conflict resolved, a file deleted. (A
# new file is not among them: Debian's .gitignore ignores all but debian/
# at the top level, so git add -A leaves new files out, and so does the loop.)
resolve() {
	rm -f "$1/mm/mremap.c.rej" "$1/mm/mremap.c.rej.why"
	echo "/* bench: resolved */" >>"$1/mm/mremap.c"
	rm "$1/mm/mmzone.c"
}
mks_loop() { (cd kit && "$mks" backport --branch 6.12 --workdir "$work/wd" "$@"); }
git_status() { git -C gitwt status --porcelain; }
git_record() { git -C gitwt add -A && git -C gitwt write-tree && git -C "$repo" worktree remove --force "$work/gitwt"; }

rm -f ./*.times
for r in $(seq 1 "$runs"); do
	# In pairs, git's then mkseries's, each step on a tree of the same
	# age (a tree removed just after it was written costs the file system
	# less than one whose blocks went to disk), each checkout just after
	# a whole tree was removed.
	echo "# run $r"
	step git-add git -C "$repo" worktree add -q --detach "$work/gitwt" "$base"
	step git-remove git -C "$repo" worktree remove --force "$work/gitwt"
	step mks-start mks_loop
	grep -q "rejected  mm/mremap.c" mks-start.out || { cat mks-start.out; exit 1; }
	step mks-abort mks_loop --abort
	git -C "$repo" worktree add -q --detach "$work/gitwt" "$base"
	resolve gitwt
	step git-status git_status
	grep -q "^ D mm/mmzone.c" git-status.out || { cat git-status.out; exit 1; }
	step git-record git_record
	mks_loop >/dev/null 2>&1 || :
	resolve wd/6.12/backport/tree
	step mks-continue mks_loop --continue
	grep -q "^recorded patches/b/6.12/" mks-continue.out || { cat mks-continue.out; exit 1; }
	# the recorded tree has both edits
	kitref=$(sed -n 's/^6.12: \(refs[^ ]*\) .*/\1/p' mks-continue.out)
	git -C "$repo" show "$kitref:mm/mremap.c" | grep -q "bench: resolved"
	if git -C "$repo" cat-file -e "$kitref:mm/mmzone.c" 2>/dev/null; then
		echo "mm/mmzone.c was deleted in the work tree but is in the recorded tree" >&2
		exit 1
	fi
	(cd kit && git checkout -q -- . && git clean -qfdx)
	git -C "$repo" update-ref -d "$kitref"
	# and the ref the loop keeps the recorded commit under
	git -C "$repo" for-each-ref --format="%(refname)" "refs/mkseries-backports/$(echo "$kitref" | cut -d/ -f4)/" |
	while read -r ref; do git -C "$repo" update-ref -d "$ref"; done
done

# median min max of a step's times
stats() { sort -g "$1.times" | awk '{ v[NR] = $1 } END { printf "%.2f %.2f %.2f", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
med() { stats "$1" | cut -d" " -f1; }
echo
echo "# $runs runs: median (min-max) seconds"
printf '%-34s %-22s %-34s %-22s %s\n' step mkseries git git ratio
row() {
	set -- "$1" "$2" "$3" $(stats "$2") $(stats "$3")
	printf '%-34s %6s (%s-%s)%4s %-34s %6s (%s-%s)%4s %.2f\n' "$1" "$4" "$5" "$6" "" \
		"$3" "$7" "$8" "$9" "" "$(echo "$4 / $7" | bc -l)"
}
row start mks-start git-add
row --abort mks-abort git-remove
row --continue mks-continue git-record
echo "(--continue against git status alone: $(med mks-continue) s / $(med git-status) s)"

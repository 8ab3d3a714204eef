#!/bin/bash
# bench/backport.sh: each stop of the backport loop against git am's, on the real 6.12 tree, as ratios.
#
# A two-patch kit for branch 6.12 (b 1/2 on mm/mremap.c, b 2/2 on
# mm/madvise.c), each hunk's context changed as upstream would have
# changed it, so that neither applies on Debian's 6.12 (86,691 files)
# and the index lines name no blob (git am -3 cannot fall back either).
# Then, BENCH_RUNS times (default 2), on the same repository, git's
# then mkseries's, each step on a tree of the same age:
#   start:      git worktree add --detach <dir> base + git am -3 (stops at 1/2)
#               against  mkseries backport --branch 6.12 (stops at b 1/2)
#   --continue: after the same edit to mm/mremap.c:
#               git add -u + git am --continue (stops at 2/2)
#               against  mkseries backport --continue (records b 1/2, stops at b 2/2)
#   --status:   git status against mkseries backport --status, stopped at 2/2
# Prints each run, the median of each step and the ratio of the medians
# (mkseries / git: below 1 is faster than git), and how many files of
# the loop's work tree its --continue wrote. The loop's tree and git's are
# removed after each run (not timed); the repository's refs are left as
# they were. Real trees: run it alone, with no kernel build beside it.
# The cache is BENCH_CACHE (default ~/.cache, where mkseries keeps its
# kernel repository), with 6.12 imported (the kit imports it if not).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
runs=${BENCH_RUNS:-2}
work=${BENCH_DIR:-$top/build/bench/backport}
export XDG_CACHE_HOME=${BENCH_CACHE:-$HOME/.cache}
repo=$XDG_CACHE_HOME/mkseries/linux.git
base=refs/tags/mkseries/base/6.12

mkdir -p "$work"
cd "$work"
mks_loop() { (cd kit && "$mks" backport --branch 6.12 --workdir "$work/wd" "$@"); }
cleanup() {
	if test -d gitwt; then
		git -C gitwt am --abort >/dev/null 2>&1 || :
		git -C "$repo" worktree remove --force "$work/gitwt"
	fi
	if test -d kit && test -d wd; then mks_loop --abort >/dev/null 2>&1 || :; fi
	rm -rf gitwt wd
	git -C "$repo" worktree prune
}
cleanup
rm -rf kit
mkdir -p kit/kernels kit/patches/b
cat >kit/kernels/6.12.yaml <<'EOT'
name: "6.12"
source:
  debian: { package: linux-source-6.12, suite: bookworm }
EOT
cat >kit/series.yaml <<'EOT'
series:
  - id: b
    title: "two patches that do not apply on 6.12"
    patches:
      - file: patches/b/0001-mm-mremap-bench.patch
        upstream: 1111111111111111111111111111111111111111
      - file: patches/b/0002-mm-madvise-bench.patch
        upstream: 2222222222222222222222222222222222222222
EOT
# mkpatch ID FILE LINE SUBJECT: a patch adding a comment after line
# LINE+3 of FILE, whose second context line is not 6.12's (upstream
# changed it): it applies nowhere in 6.12's FILE.
mkpatch() {
	local id=$1 file=$2 at=$3 i
	printf 'From %s Mon Sep 17 00:00:00 2001\nFrom: A U Thor <author@example.com>\n' "$id"
	printf 'Date: Mon, 1 Dec 2025 10:00:00 +0000\nSubject: [PATCH] %s\n\n' "$4"
	printf 'Signed-off-by: A U Thor <author@example.com>\n---\n'
	printf 'diff --git a/%s b/%s\nindex 1111111..2222222 100644\n--- a/%s\n+++ b/%s\n' \
		"$file" "$file" "$file" "$file"
	printf '@@ -%d,6 +%d,7 @@\n' "$at" "$at"
	git -C "$repo" show "$base:$file" | sed -n "${at},$((at + 5))p" | {
		i=0
		while IFS= read -r line; do
			i=$((i + 1))
			if test $i = 2; then line="$line /* upstream */"; fi
			printf ' %s\n' "$line"
			if test $i = 3; then printf '+/* bench: %s */\n' "$id"; fi
		done
	}
	printf -- '-- \n2.39.5\n'
}
mkpatch 1111111111111111111111111111111111111111 mm/mremap.c 36 "mm/mremap: bench one" \
	>kit/patches/b/0001-mm-mremap-bench.patch
mkpatch 2222222222222222222222222222222222222222 mm/madvise.c 40 "mm/madvise: bench two" \
	>kit/patches/b/0002-mm-madvise-bench.patch
git -C kit init -q && git -C kit add -A && git -C kit -c user.name=bench -c user.email=bench@invalid commit -q -m kit
echo "# importing 6.12 (nothing to do when it is there)"
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
	printf '  %-14s %8.2f s (exit %d)\n' "$name" "$(tail -n 1 "$name.times")" "$rc"
}
# The backporter's resolution of 1/2, the same in both trees.
resolve() { echo "/* bench: resolved */" >>"$1/mm/mremap.c"; }
git_start() {
	git -C "$repo" worktree add -q --detach "$work/gitwt" "$base" &&
	git -C gitwt -c user.name=bench -c user.email=bench@invalid am -3 "$work"/kit/patches/b/*.patch
}
git_continue() {
	git -C gitwt add -u &&
	git -C gitwt -c user.name=bench -c user.email=bench@invalid am --continue
}
mtree=wd/6.12/backport/tree

rm -f ./*.times written
for r in $(seq 1 "$runs"); do
	echo "# run $r"
	step git-start git_start
	grep -q "Patch failed at 0001" git-start.out || { cat git-start.out; exit 1; }
	step mks-start mks_loop
	grep -q "b 1/2 does not apply" mks-start.out || { cat mks-start.out; exit 1; }
	resolve gitwt
	resolve $mtree
	rm -f $mtree/mm/mremap.c.rej $mtree/mm/mremap.c.rej.why
	step git-continue git_continue
	grep -q "Patch failed at 0002" git-continue.out || { cat git-continue.out; exit 1; }
	touch stamp
	step mks-continue mks_loop --continue
	grep -q "b 2/2 does not apply" mks-continue.out || { cat mks-continue.out; exit 1; }
	find "$mtree" -path "$mtree/.git" -prune -o -newer stamp -type f -print | wc -l >>written
	echo "  (--continue wrote $(tail -n 1 written) files of the loop's work tree)"
	step git-status git -C gitwt status
	step mks-status mks_loop --status
	grep -q "b 2/2" mks-status.out || { cat mks-status.out; exit 1; }
	cleanup
done
(cd kit && git checkout -q -- . && git clean -qfdx)

# median of a step's times (the mean of the middle two for an even number of runs)
med() {
	sort -g "$1.times" |
	awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); printf "%.2f", NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2 }'
}
echo
echo "# $runs runs, median seconds (libgit2 $(pkg-config --modversion libgit2 2>/dev/null || echo ?), $(git --version))"
printf '%-12s %-10s %-10s %s\n' step mkseries git ratio
for s in start continue status; do
	printf '%-12s %-10s %-10s %.2f\n' "$s" "$(med mks-$s)" "$(med git-$s)" \
		"$(echo "$(med mks-$s) / $(med git-$s)" | bc -l)"
done
echo "(git: worktree add + am -3; add -u + am --continue; status)"

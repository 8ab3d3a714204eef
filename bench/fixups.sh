#!/bin/bash
# bench/fixups.sh: time `mkseries fixups --mainline` against `git log --grep` on a synthetic 1M-commit history.
#
# The history is made once with git fast-import (bench/fixups-gen.awk writes
# the stream) under build/bench/fixups/ and reused afterwards; delete that
# directory to make it again. A commit-graph is written for it (as `git gc`
# does), and everything is timed twice: with it, and with it moved aside.
# BENCH_COMMITS sets the size of the bulk (default 1,050,000 commits in
# all), BENCH_RUNS how many runs are timed (the best is kept), MKSERIES the
# binary (default build/mkseries). `bench/fixups.sh --prepare` only makes
# the history and its commit-graph.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
MKSERIES=${MKSERIES:-$SRC/build/mkseries}
WORK=$SRC/build/bench/fixups
REPO=$WORK/mainline.git
KIT=$WORK/kit
TOTAL=${BENCH_COMMITS:-1050000}
RUNS=${BENCH_RUNS:-3}
GEN=$SRC/bench/fixups-gen.awk
export LC_ALL=C TZ=UTC GIT_CONFIG_NOSYSTEM=1


# The bulk before the kit's commits, and after them.
N1=$((TOTAL * 4 / 7))
N2=$((TOTAL - N1 - 3000))

gen() { # COUNT GSTART SEED ROOT INJECT MAP
	awk -v count="$1" -v gstart="$2" -v seed="$3" -v root="$4" -v markbase=0 \
		-v inject="$5" -v map="$6" -f "$GEN"
}

# id_of NAME MAPFILE MARKSFILE: the commit id fast-import gave NAME's mark.
id_of() {
	local mark
	mark=$(awk -v n="$1" '$1 == n { print $2 }' "$2")
	awk -v m="$mark" '$1 == m { print $2 }' "$3"
}

make_history() {
	rm -rf "$WORK"
	mkdir -p "$WORK"
	git init -q --bare "$REPO"
	echo "making a synthetic history of $TOTAL commits in $REPO ..."
	local t0=$(date +%s)

	# 1. the bulk up to the kit's patches
	: >"$WORK/empty"
	gen "$N1" 0 1 1 "$WORK/empty" "$WORK/map-a" | git -C "$REPO" fast-import --quiet

	# 2. the kit's five patches
	cat >"$WORK/inject-b" <<-'EOF'
	@@ 0 alpha1
	mm: call pointers to ptes as ptep

	Rename the variables so the next patch reads well.

	Signed-off-by: Dev Jain <dev.jain@arm.com>
	@@ 1 alpha2
	mm: optimize mremap() by PTE batching

	Use folio_pte_batch() to move runs of PTEs at once.

	Signed-off-by: Dev Jain <dev.jain@arm.com>
	@@ 2 beta1
	mm/madvise: split out mmap locking operations for madvise()

	Signed-off-by: SeongJae Park <sj@kernel.org>
	@@ 3 gamma1
	mm: speedup mremap on 1GB or larger regions

	Signed-off-by: Kalesh Singh <kaleshsingh@google.com>
	@@ 4 gamma2
	x86: mremap speedup - Enable HAVE_MOVE_PUD

	Signed-off-by: Kalesh Singh <kaleshsingh@google.com>
	EOF
	gen 5 "$N1" 2 0 "$WORK/inject-b" "$WORK/map-b" |
		git -C "$REPO" fast-import --quiet --export-marks="$WORK/marks-b"
	local a1 a2 b1 g1 g2 outside
	a1=$(id_of alpha1 "$WORK/map-b" "$WORK/marks-b")
	a2=$(id_of alpha2 "$WORK/map-b" "$WORK/marks-b")
	b1=$(id_of beta1 "$WORK/map-b" "$WORK/marks-b")
	g1=$(id_of gamma1 "$WORK/map-b" "$WORK/marks-b")
	g2=$(id_of gamma2 "$WORK/map-b" "$WORK/marks-b")
	outside=$(git -C "$REPO" rev-parse master~1000)

	# 3. the bulk after them, carrying fixups of the kit and false alarms
	cat >"$WORK/inject-c" <<-EOF
	@@ 1000 fix1
	mm/mremap: honour writable bit in mremap pte batching

	The batch carried the writable bit across PTEs that were not writable.

	Fixes: ${a2:0:12} ("mm: optimize mremap() by PTE batching")
	Cc: stable@vger.kernel.org # 2.51+
	Signed-off-by: Dev Jain <dev.jain@arm.com>
	@@ 50000 revert1
	Revert "mm/madvise: split out mmap locking operations for madvise()"

	This reverts commit $b1.

	Signed-off-by: Andrew Morton <akpm@linux-foundation.org>
	@@ 200000 fix2
	mm/mremap: hold the rmap lock in write mode when moving page table entries.

	fixes : ${g1:0:8}
	Signed-off-by: Kalesh Singh <kaleshsingh@google.com>
	@@ 300000 prose
	mm: tidy mremap

	This was made possible by commit ${a1:0:12} ("mm: call pointers to ptes as ptep").

	Signed-off-by: Dev Jain <dev.jain@arm.com>
	@@ 400000 dep1
	x86/mm: add the pud helpers

	Stable-dep-of: ${g2:0:12} ("x86: mremap speedup - Enable HAVE_MOVE_PUD")
	Signed-off-by: Kalesh Singh <kaleshsingh@google.com>
	@@ 420000 outside
	net: fix an unrelated leak

	Fixes: ${outside:0:12} ("something else")
	Signed-off-by: David Hildenbrand <david@redhat.com>
	EOF
	gen "$N2" $((N1 + 5)) 3 0 "$WORK/inject-c" "$WORK/map-c" |
		git -C "$REPO" fast-import --quiet --export-marks="$WORK/marks-c"
	local f1
	f1=$(id_of fix1 "$WORK/map-c" "$WORK/marks-c")

	# 4. a fix of a fix, and the newest commits
	cat >"$WORK/inject-d" <<-EOF
	@@ 100 fixfix
	mm/mremap: fix the writable bit fix

	Fixes: ${f1:0:12} ("mm/mremap: honour writable bit in mremap pte batching")
	Signed-off-by: Lorenzo Stoakes <lorenzo.stoakes@oracle.com>
	EOF
	gen 3000 $((N1 + 5 + N2)) 4 0 "$WORK/inject-d" "$WORK/map-d" |
		git -C "$REPO" fast-import --quiet --export-marks="$WORK/marks-d"
	git -C "$REPO" update-ref -d refs/heads/topic
	git -C "$REPO" symbolic-ref HEAD refs/heads/master
	# one pack in recency order, as a clone has (no deltas: they would take long to find)
	git -C "$REPO" repack -a -d -q --window=0

	mkdir -p "$KIT"
	cat >"$KIT/series.yaml" <<-EOF
	# the benchmark's kit
	series:
	  - id: pte-batch
	    title: "mm: optimize mremap() by PTE batching"
	    patches:
	      - upstream: ${a1:0:12}
	        subject: "mm: call pointers to ptes as ptep"
	      - upstream: ${a2:0:12}
	        subject: "mm: optimize mremap() by PTE batching"
	  - id: madvise-lock
	    title: "mm/madvise: mmap_lock"
	    patches:
	      - upstream: ${b1:0:12}
	        subject: "mm/madvise: split out mmap locking operations for madvise()"
	  - id: pmd-pud
	    title: "Speed up mremap on large regions"
	    patches:
	      - upstream: ${g1:0:12}
	        subject: "mm: speedup mremap on 1GB or larger regions"
	      - upstream: ${g2:0:12}
	        subject: "x86: mremap speedup - Enable HAVE_MOVE_PUD"
	EOF
	for n in fix1 revert1 fix2 dep1; do id_of $n "$WORK/map-c" "$WORK/marks-c"; done >"$WORK/expected"
	id_of fixfix "$WORK/map-d" "$WORK/marks-d" >>"$WORK/expected"
	echo "$a1 $a2 $b1 $g1 $g2" >"$WORK/kit-ids"
	echo "made in $(($(date +%s) - t0)) s: $(git -C "$REPO" rev-list --count HEAD) commits," \
		"$(du -sh "$REPO" | cut -f1)"
}

# best_of CMD...: run CMD $RUNS times (stdout to $WORK/out), print the best
# wall time and the best CPU time (user + system) in seconds, "WALL CPU".
best_of() {
	local bw= bc= i w c
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%e %U %S' -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || [ $? -eq 1 ]
		w=$(awk 'END { print $1 }' "$WORK/time")
		c=$(awk 'END { print $2 + $3 }' "$WORK/time")
		if [ -z "$bw" ] || [ "$(echo "$w < $bw" | bc)" = 1 ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$(echo "$c < $bc" | bc)" = 1 ]; then bc=$c; fi
	done
	echo "$bw $bc"
}

# The commit-graph git gc would write; made once, kept with the history.
GRAPH=$REPO/objects/info/commit-graph
GRAPH_OFF=$WORK/commit-graph.off
make_graph() {
	[ -f "$GRAPH_OFF" ] && mv "$GRAPH_OFF" "$GRAPH"
	[ -f "$GRAPH" ] && return 0
	echo "writing a commit-graph (git commit-graph write --reachable) ..."
	local t0=$(date +%s)
	git -C "$REPO" commit-graph write --reachable --no-progress
	echo "written in $(($(date +%s) - t0)) s: $(du -h "$GRAPH" | cut -f1)"
}
graph_aside() { mv "$GRAPH" "$GRAPH_OFF"; }
graph_back() { [ ! -f "$GRAPH_OFF" ] || mv "$GRAPH_OFF" "$GRAPH"; }

[ -f "$WORK/expected" ] || make_history
make_graph
[ "${1:-}" = --prepare ] && exit 0
[ -x "$MKSERIES" ] || { echo "bench/fixups.sh: $MKSERIES is not built (run make)" >&2; exit 2; }
trap graph_back EXIT

commits=$(git -C "$REPO" rev-list --count HEAD)
echo "history: $commits commits, $(git -C "$REPO" tag | wc -l) tags, $(du -sh "$REPO" | cut -f1)"

# Check the answer before timing it, with the commit-graph and without.
check() {
	MKSERIES_KIT=$KIT "$MKSERIES" fixups --mainline "$REPO" >"$WORK/report" 2>"$WORK/err" || [ $? -eq 1 ]
	found=$(grep -o 'missing [0-9a-f]\{12\} ' "$WORK/report" | cut -d' ' -f2 | sort)
	want=$(cut -c1-12 "$WORK/expected" | sort)
	if [ "$found" != "$want" ] || [ -s "$WORK/err" ]; then
		echo "wrong answer ($1): expected"; echo "$want"; echo "got:"; cat "$WORK/report" "$WORK/err"
		exit 1
	fi
}
check "with the commit-graph"
cp "$WORK/report" "$WORK/report.graph"
graph_aside
check "without the commit-graph"
graph_back
cmp -s "$WORK/report" "$WORK/report.graph" || { echo "the reports differ with and without the commit-graph"; exit 1; }
cat "$WORK/report"

ids=$(tr ' ' '\n' <"$WORK/kit-ids" | cut -c1-12 | paste -sd'|')
ntags=$(git -C "$REPO" tag | wc -l)
since=$(git -C "$REPO" tag | sort -V | sed -n "$((ntags / 2))p")

ratio() { echo "scale=2; $1 / $2" | bc | sed 's/^\./0./'; }
row() { # LABEL "WALL CPU" ["WALL CPU" of mkseries to compare with]
	set -- "$1" $2 ${3:-}
	if [ $# -eq 5 ]; then
		printf '%-52s %7s %7s %9s %9s\n' "$1" "$2" "$3" "$(ratio "$4" "$2")" "$(ratio "$5" "$3")"
	else
		printf '%-52s %7s %7s\n' "$1" "$2" "$3"
	fi
}

# table TITLE: time mkseries and git log over the whole history and from $since.
table() {
	local t_mks t_grep t_grepe t_mks_s t_grep_s
	t_mks=$(MKSERIES_KIT=$KIT best_of "$MKSERIES" fixups --mainline "$REPO")
	t_grep=$(best_of git -C "$REPO" log --grep='Fixes:' --format=%H HEAD)
	t_grepe=$(best_of git -C "$REPO" log -E --grep="$ids" --format=%H HEAD)
	t_mks_s=$(MKSERIES_KIT=$KIT best_of "$MKSERIES" fixups --mainline "$REPO" --since "$since")
	t_grep_s=$(best_of git -C "$REPO" log --grep='Fixes:' --format=%H "$since..HEAD")
	printf '\n%-52s %7s %7s %9s %9s\n' "$1, best of $RUNS" wall cpu "mks/git" "(cpu)"
	row "mkseries fixups --mainline" "$t_mks"
	row "git log --grep='Fixes:' --format=%H" "$t_grep" "$t_mks"
	row "git log -E --grep='<kit ids>' --format=%H" "$t_grepe" "$t_mks"
	row "mkseries fixups --mainline --since $since" "$t_mks_s"
	row "git log --grep='Fixes:' --format=%H $since..HEAD" "$t_grep_s" "$t_mks_s"
}

echo "$(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
table "$commits commits, commit-graph"
graph_aside
table "$commits commits, no commit-graph"
graph_back

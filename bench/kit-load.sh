#!/bin/bash
# bench/kit-load.sh: how loading and planning a kit grows with its size (10,000 vs 100,000 series).
#
# Generates two kits of N and 10*N series (default N=10000), each series
# with two patches and a fixup by upstream id, every tenth one requiring the
# series before it, and a branch decision; then times `mkseries plan --branch
# t` on each (best of BENCH_RUNS, default 3). Linear work shows a ratio
# near 10; the pairwise checks this replaced showed about 100 (a 40,000-series
# kit took 19 s, a 100,000-series one minutes).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
n=${BENCH_SERIES:-10000}
runs=${BENCH_RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make_kit DIR N
make_kit() {
	mkdir -p "$1/kernels"
	printf 'name: t\nsource:\n  git: { repo: %s, ref: HEAD }\n' "$tmp" >"$1/kernels/t.yaml"
	awk -v n="$2" 'BEGIN {
		print "series:"
		for (i = 0; i < n; i++) {
			printf "  - id: s%d\n    title: \"series %d\"\n", i, i
			if (i % 10 == 9)
				printf "    requires: [s%d]\n", i - 1
			printf "    patches:\n"
			printf "      - { upstream: %010x01, subject: \"mm: one %d\" }\n", i, i
			printf "      - { upstream: %010x02, subject: \"mm: two %d\" }\n", i, i
			printf "    fixups:\n"
			printf "      - { upstream: %010x03, fixes: %010x02, subject: \"mm: fix %d\" }\n", i, i, i
			printf "    branches:\n      \"t\": { skip: \"not for this branch\" }\n"
		}
	}' >"$1/series.yaml"
}

best_time() {
	local best= t
	for _ in $(seq "$runs"); do
		/usr/bin/time -o "$tmp/time" -f %e "$mks" --kit "$1" plan --branch t >/dev/null 2>"$tmp/err" ||
			{ echo "mkseries plan failed on $1:" >&2; head -n 5 "$tmp/err" >&2; exit 1; }
		t=$(tail -n 1 "$tmp/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

make_kit "$tmp/small" "$n"
make_kit "$tmp/large" $((n * 10))
small=$(best_time "$tmp/small")
large=$(best_time "$tmp/large")
printf "%d series: %ss\n%d series: %ss\nratio: %.1f (linear: 10)\n" "$n" "$small" $((n * 10)) "$large" \
	"$(echo "$large / ($small + 0.001)" | bc -l)"

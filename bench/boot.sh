#!/bin/bash
# bench/boot.sh: one boot + quick mm-regress under instruction-paced TCG against plain TCG, as a ratio.
#
# On a branch of the kit whose base is built (`mkseries build --branch B
# --variant base`, cached under build/real-cache/), boots the same bzImage
# with `mkseries test --variant base --accel tcg --boots 1`, alternating:
#   icount: the kit as it is (boot.tcg-clock: instructions, the default):
#           QEMU -icount shift=0,sleep=off, the guest's clock follows the
#           instructions it runs;
#   plain:  a copy of the kit whose branch says boot.tcg-clock: host: TCG
#           on the host's clock, what mkseries did before.
# BENCH_RUNS (default 3) boots of each; prints every wall time, the median
# of each and their ratio, and for each mode the spread of one metric
# across its boots, read from the consoles (how repeatable the numbers are).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
b=${BENCH_BRANCH:-6.12}
runs=${BENCH_RUNS:-3}
metric=${BENCH_METRIC:-mremap_pte_loop us_per_iteration}
export XDG_CACHE_HOME=${BENCH_CACHE:-$top/build/real-cache}
# kit_workdir: the default work directory of this kit's branch (the ids of
# kit_id() in model.h).
. "$top/tests/lib-kit.sh"
work=$(kit_workdir "$top" "$b")

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The plain-TCG kit: the same files, the branch's boot section told to use the host clock.
plain=$(mktemp -d "$top/build/bench-boot.XXXXXX")
trap 'rm -rf "$plain"' EXIT
cp -r "$top/series.yaml" "$top/kernels" "$top/patches" "$plain/"
sed -i "s/^boot:$/boot:\n  tcg-clock: host/" "$plain/kernels/$b.yaml"
grep -q "tcg-clock: host" "$plain/kernels/$b.yaml"

"$mks" --kit "$top" build --branch "$b" --variant base >/dev/null

: >"$plain/icount.times"
: >"$plain/plain.times"
for i in $(seq "$runs"); do
	for mode in icount plain; do
		kit=$top
		[ $mode = plain ] && kit=$plain
		start=$(now)
		"$mks" --kit "$kit" test --branch "$b" --variant base --accel tcg --boots 1 >"$plain/out"
		t=$(echo "$(now) - $start" | bc)
		grep -q "booted (tcg" "$plain/out" || { cat "$plain/out"; exit 1; }
		echo "$t" >>"$plain/$mode.times"
		# The metric's mean in this boot: "# metric: CASE NAME VALUE ...".
		awk -v c="${metric% *}" -v n="${metric#* }" \
			'$2 == "metric:" && $3 == c && $4 == n { print $5 }' \
			"$work/logs/base-console.log" >>"$plain/$mode.metric"
		printf '%-6s boot %d: %6.1f s  %s\n' "$mode" "$i" "$t" "$(tail -n 1 "$plain/$mode.metric")"
	done
done

t_icount=$(median <"$plain/icount.times")
t_plain=$(median <"$plain/plain.times")
spread() {
	awk '{ v[NR] = $1; s += $1 }
	END {
		m = s / NR
		for (i = 1; i <= NR; i++) { d = v[i] - m; q += d * d }
		sd = (NR > 1) ? 100 * sqrt(q / (NR - 1)) / m : 0
		printf "mean %.6g, stddev %.3f%% over %d boots", m, sd, NR
	}' "$1"
}
printf '\nbranch %s, %d boots of each, median wall time of one boot + quick mm-regress\n' "$b" "$runs"
printf 'plain TCG (host clock):          %8.1f s   %s: %s\n' "$t_plain" "$metric" "$(spread "$plain/plain.metric")"
printf 'instruction-paced TCG (icount):  %8.1f s   %s: %s\n' "$t_icount" "$metric" "$(spread "$plain/icount.metric")"
printf 'ratio icount / plain:            %8.2fx\n' "$(echo "$t_icount / $t_plain" | bc -l)"

#!/bin/bash
# bench/cache-sweep.sh: tcg-cache's modelled cycles against this machine's own, for a pointer chase and a strided walk from 16 KiB to 256 MiB.
#
# bench/cache-sweep.c is built static, checked (--check: each chase visits
# every line once), run natively BENCH_RUNS times (default 5) with 4 KiB
# pages and as often with transparent huge pages, then once under
# qemu-x86_64 with build/tcg-cache.so set to this machine's cache geometry
# (sysfs) and the plugin's default latencies, and once more with
# latencies derived from the native huge-page chase (so fitted to this
# very measurement, not a check of anything). It prints a Markdown table:
# native ns and cycles per access (the lowest of the runs' medians, and
# the runs' spread), modelled cycles per access and the error of each.
#
# Cycles are ns times the core's clock, measured by `cache-sweep --clock`
# (a chain of dependent adds) unless BENCH_GHZ gives it: a VM's "cpu MHz"
# is its TSC's rate, not the clock the core runs at.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
plugin=${TCG_CACHE_PLUGIN:-$top/build/tcg-cache.so}
qemu=${QEMU_USER:-qemu-x86_64}
runs=${BENCH_RUNS:-5}
accesses=${BENCH_ACCESSES:-2097152}
work=${BENCH_DIR:-$top/build/bench/cache-sweep}
cache=/sys/devices/system/cpu/cpu0/cache
CC=${CC:-cc}

die() {
	echo "cache-sweep: $*" >&2
	exit 1
}

test "$(uname -m)" = x86_64 || die "the sweep and its markers are x86-64 only, not $(uname -m)"
command -v "$qemu" >/dev/null || die "'$qemu' not found: install qemu-user (Debian: apt-get install qemu-user)"
test -f "$plugin" || die "no plugin at '$plugin': run 'make' first (or set TCG_CACHE_PLUGIN)"
test -d "$cache/index0" || die "no cache geometry under '$cache'"

mkdir -p "$work"
cd "$work"
rm -f clocks native-* model.*
"$CC" -O2 -std=gnu11 -Wall -static -I"$top/tools/tcg-cache" -o cache-sweep "$top/bench/cache-sweep.c"
./cache-sweep --check >check.out || die "the chase check failed"
test "$(grep -c '^ok chase ' check.out)" = 15 || die "the chase check did not cover 15 sizes: $(cat check.out)"

# The geometry: l1d, l2 and llc from sysfs, as the plugin's arguments. A
# level whose size is not a whole number of 64-byte-line sets is rounded
# down to one, and said so.
declare -A name=([1]=l1d [2]=l2 [3]=llc) bytes_of
plugin_args=()
geometry=
for d in "$cache"/index*; do
	type=$(cat "$d/type")
	level=$(cat "$d/level")
	test "$type" != Instruction || continue
	test -n "${name[$level]:-}" || continue
	size=$(cat "$d/size")
	ways=$(cat "$d/ways_of_associativity")
	line=$(cat "$d/coherency_line_size")
	[[ $size =~ ^[0-9]+[KM]?$ && $ways =~ ^[1-9][0-9]*$ && $line =~ ^[0-9]+$ ]] ||
		die "$d: unexpected size '$size', ways '$ways' or line '$line'"
	case $size in
	*K) bytes=$((${size%K} << 10)) ;;
	*M) bytes=$((${size%M} << 20)) ;;
	*) bytes=$size ;;
	esac
	test "$line" = 64 || echo "# note: L$level's line is $line bytes; the plugin's is 64" >&2
	whole=$((bytes / (64 * ways) * 64 * ways))
	test "$whole" = "$bytes" ||
		echo "# note: L$level's $bytes bytes are not whole $ways-way sets of 64-byte lines: rounded to $whole" >&2
	plugin_args+=("${name[$level]}_size=$whole" "${name[$level]}_assoc=$ways")
	bytes_of[${name[$level]}]=$whole
	geometry="$geometry ${name[$level]}=$size/$ways"
done
test "${#plugin_args[@]}" = 6 || die "expected an L1d, an L2 and an L3 under '$cache', found:$geometry"

# Native runs, each with the load it started under and the clock just
# before it (a VM's clock moves with what else the host runs).
for mode in 4k huge; do
	flag=()
	test "$mode" = 4k || flag=(--huge)
	for r in $(seq 1 "$runs"); do
		clock=$(./cache-sweep --clock | sed -n 's/^clock_ghz=//p')
		echo "$clock" >>clocks
		echo "# native $mode run $r: load $(cut -d' ' -f1-3 /proc/loadavg), clock $clock GHz"
		./cache-sweep "${flag[@]}" --accesses "$accesses" >"native-$mode.run$r"
	done
done
echo "# native runs done: load $(cut -d' ' -f1-3 /proc/loadavg)"

mhz=$(sed -n 's/^cpu MHz[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
clocks=$(sort -n clocks | awk '{ v[NR] = $1 } END { printf "%.2f to %.2f GHz, median %.3f", v[1], v[NR], v[int((NR + 1) / 2)] }')
if [ -n "${BENCH_GHZ:-}" ]; then
	ghz=$BENCH_GHZ
	how="BENCH_GHZ; the dependent-add chain said $clocks"
else
	ghz=$(sort -n clocks | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	how="the median of a dependent-add chain before each run: $clocks"
fi
echo "# $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1),$geometry, clock $ghz GHz ($how; /proc/cpuinfo says $mhz MHz)"

# The emulated runs: the machine's geometry with the plugin's default
# latencies, then with latencies from the native huge-page chase.
emulate() {
	local out=$1 start end
	shift
	start=$(date +%s.%N)
	"$qemu" -plugin "$(IFS=,; echo "$plugin,out=$work/$out,$*")" ./cache-sweep --accesses "$accesses" >"$out.stdout" ||
		die "$qemu failed; see $work/$out"
	end=$(date +%s.%N)
	grep -q "unmatched_ends=0 " "$out" || die "$out: a region did not close"
	test "$(grep -c '^mkseries-cycles: region=' "$out")" = "$(wc -l <"$out.stdout")" ||
		die "$out: not one region per line of output"
	echo "# emulated ($*): $(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.0f", e - s }') s"
}
emulate model.default "${plugin_args[@]}"

# Median-chunk ns of each line: the lowest over the runs, and the runs' spread.
summarise() {
	awk '{ k = $1 " " $2; sub("ns_per_access=", "", $4); v = $4 + 0
	       if (!(k in lo) || v < lo[k]) lo[k] = v; if (!(k in hi) || v > hi[k]) hi[k] = v
	       if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
	     END { for (i = 1; i <= n; i++) print order[i], lo[order[i]], hi[order[i]] }' "$@"
}
summarise native-4k.run* >native-4k.sum
summarise native-huge.run* >native-huge.sum

# Derived latencies: the chase's cycles on the L1, L2, LLC and memory
# plateaus (16 KiB, half the L2, a sixteenth of the LLC, 256 MiB; a VM
# shares its LLC with other guests, so it gets less of it than sysfs
# says), each level's the step from the one above, as the model adds them.
derived=$(awk -v g="$ghz" -v l2="$((bytes_of[l2] / 2))" -v llc="$((bytes_of[llc] / 16))" '
	$1 == "chase" { c[$2] = $3 * g }
	END { l1 = c[16384]; a = c[l2]; b = c[llc]; m = c[268435456]
	      printf "l2_latency=%d llc_latency=%d mem_latency=%d", a - l1 + 0.5, b - a + 0.5, m - b + 0.5 }' native-huge.sum)
read -r -a derived_args <<<"$derived"
emulate model.derived "${plugin_args[@]}" "${derived_args[@]}"

# The table.
modelled() {
	sed -n 's/^mkseries-cycles: region=\([0-9]*\) .* cycles=\([0-9]*\)$/\2/p' "$1"
}
modelled model.default >model.default.cycles
modelled model.derived >model.derived.cycles
echo
echo "| size | kernel | native ns/access (spread) | native cycles | modelled, default latencies | error | native ns, 2 MiB pages (spread) | modelled, derived latencies ($derived) | error |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
paste -d' ' native-4k.sum native-huge.sum model.default.cycles model.derived.cycles |
	awk -v g="$ghz" -v n="$accesses" '
	function size(b) { return b >= 1048576 ? b / 1048576 " MiB" : b / 1024 " KiB" }
	function spread(lo, hi) { return sprintf("%.0f%%", (hi - lo) / lo * 100) }
	{ native = $3 * g; md = $9 / n; mv = $10 / n
	  printf "| %s | %s | %.2f (%s) | %.1f | %.1f | %+.0f%% | %.2f (%s) | %.1f | %+.0f%% |\n",
		size($2), $1, $3, spread($3, $4), native, md, (md - native) / native * 100,
		$7, spread($7, $8), mv, (mv - native) / native * 100 }'

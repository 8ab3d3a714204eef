#!/bin/bash
# bench/build.sh: the kit variant's rebuild after base against a clean build, and boot + quick run under TCG.
#
# On the kit's 6.12 branch (imported and applied through mkseries, cached
# under build/real-cache/):
#   clean:    a plain `make O=<empty dir> bzImage` of the kit's source with
#             the same .config, ccache off: what a maintainer does today
#   mkseries: `mkseries build --variant kit` right after the base variant was
#             built, its out directory removed first (source switched by diff,
#             only what the series touched recompiled)
#   boot:     `mkseries test --variant kit --accel tcg --force` (QEMU boot and
#             a quick mm-regress run)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
b=${BENCH_BRANCH:-6.12}
export XDG_CACHE_HOME=${BENCH_CACHE:-$top/build/real-cache}
# kit_workdir: the default work directory of this kit's branch (the ids of
# kit_id() in model.h).
. "$top/tests/lib-kit.sh"
work=$(kit_workdir "$top" "$b")
jobs=$(nproc)

now() { date +%s.%N; }
cd "$top"
"$mks" apply --branch "$b" -q
"$mks" build --branch "$b" --variant base
rm -rf "$work/out-kit" "$work/state/kit.build"
start=$(now)
"$mks" build --branch "$b" --variant kit
t_kit=$(echo "$(now) - $start" | bc)

# A clean build of the very same source and .config, without ccache.
clean=$(mktemp -d "$top/build/bench-clean.XXXXXX")
cp "$work/out-kit/.config" "$clean/.config"
start=$(now)
CCACHE_DISABLE=1 make -s -C "$work/src" O="$clean" -j"$jobs" olddefconfig >/dev/null
CCACHE_DISABLE=1 make -s -C "$work/src" O="$clean" -j"$jobs" bzImage >"$clean.log" 2>&1
t_clean=$(echo "$(now) - $start" | bc)
rm -rf "$clean" "$clean.log"

start=$(now)
"$mks" test --branch "$b" --variant kit --accel tcg
t_boot=$(echo "$(now) - $start" | bc)

printf 'branch %s, %d jobs\n' "$b" "$jobs"
printf 'clean build (plain make):            %8.1f s\n' "$t_clean"
printf 'kit rebuild after base (mkseries):   %8.1f s\n' "$t_kit"
printf 'ratio:                               %8.1fx\n' "$(echo "$t_clean / $t_kit" | bc -l)"
printf 'boot + quick mm-regress under TCG:   %8.1f s\n' "$t_boot"

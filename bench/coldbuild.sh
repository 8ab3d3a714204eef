#!/bin/bash
# bench/coldbuild.sh: mkseries's cold base build against plain make on the same tree and .config, then a second machine's build from Redis.
#
# On the kit's 6.12 branch (its base imported under $XDG_CACHE_HOME, by
# default build/real-cache/), with a Redis of its own on a free loopback
# port:
#   mkseries:  `mkseries build --variant base --force` into an empty work
#              directory with an empty CCACHE_DIR, the Redis as ccache's
#              remote storage: writing the tree, the config steps, make
#   plain:     `make -jN olddefconfig bzImage` of that same source tree into
#              an empty O= with that build's .config, plain gcc (no ccache)
#   second:    what a second machine does: the work directory removed and
#              built again at the same path (ccache hashes absolute paths:
#              runners share when their work directories match), another
#              empty CCACHE_DIR, the same Redis; its wall time and ccache's
#              remote hit rate
#   with BENCH_PREPROCESSOR=1, also the cold build with ccache's preprocessor
#   mode (CCACHE_NODEPEND=1), as mkseries built before depend mode.
# Real kernel builds: run it under flock /work/locks/kernel.lock on a shared
# machine. Everything it writes goes in $BENCH_DIR (build/bench-cold).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
b=${BENCH_BRANCH:-6.12}
kit=${BENCH_KIT:-$top}
export XDG_CACHE_HOME=${BENCH_CACHE:-$top/build/real-cache}
bench=${BENCH_DIR:-$top/build/bench-cold}
jobs=$(nproc)
# The user's own ccache and distcc settings would change what is measured.
unset $(env | sed -n 's/^\(CCACHE_[A-Z_]*\)=.*/\1/p') DISTCC_HOSTS
export LC_ALL=C

rm -rf "$bench"
mkdir -p "$bench/redis"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --dir "$bench/redis" --save '' --appendonly no \
	--logfile "$bench/redis/redis.log" &
redis_pid=$!
trap 'kill $redis_pid 2>/dev/null || :' EXIT
for _ in $(seq 50); do
	redis-cli -p "$port" ping >/dev/null 2>&1 && break
	sleep 0.1
done
remote=redis://127.0.0.1:$port

now() { date +%s.%N; }
stat_of() { CCACHE_DIR=$1 ccache --print-stats | awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }'; }
state_of() { sed -n "s/^$2=//p" "$bench/$1.state"; }

# One cold mkseries build in an empty $bench/work: $1 names it; the rest is its environment.
mks_build() {
	local name=$1 start
	shift
	rm -rf "$bench/work"
	mkdir -p "$bench/ccache-$name"
	start=$(now)
	(cd "$kit" && env CCACHE_DIR="$bench/ccache-$name" "$@" \
		"$mks" build --branch "$b" --variant base --workdir "$bench/work" --force)
	echo "$(now) - $start" | bc >"$bench/$name.seconds"
	cp "$bench/work/$b/state/base.build" "$bench/$name.state"
	cp "$bench/work/$b/logs/base-build.log" "$bench/$name-build.log"
	grep '^# ccache' "$bench/$name-build.log"
}

cd "$top"
row() { printf '%-58s %8.1f s %s\n' "$1" "$2" "${3:-}"; }
mat_seconds() { state_of "$1" materialise | sed 's/.* in \([0-9.]*\)s$/\1/'; }
echo "branch $b, make -j$jobs, $(gcc --version | head -1), $(ccache --version | head -1)"

mks_build cold CCACHE_REMOTE_STORAGE="$remote"
t_cold=$(cat "$bench/cold.seconds")
row "mkseries cold base build (depend mode, Redis attached)" "$t_cold"
row "  of which: writing the source tree" "$(mat_seconds cold)"
row "  of which: config (tinyconfig, fragments, olddefconfig)" "$(state_of cold config_seconds)"
row "  of which: make bzImage" "$(state_of cold make_seconds)"
echo "  ccache: $(stat_of "$bench/ccache-cold" cache_miss) misses, $(stat_of "$bench/ccache-cold" remote_storage_write) remote writes"

mkdir -p "$bench/plain"
cp "$bench/work/$b/out-base/.config" "$bench/plain/.config"
start=$(now)
make -s -C "$bench/work/$b/src" O="$bench/plain" ARCH=x86_64 -j"$jobs" olddefconfig bzImage \
	>"$bench/plain.log" 2>&1
t_plain=$(echo "$(now) - $start" | bc)
cmp "$bench/plain/.config" "$bench/work/$b/out-base/.config"
row "plain make olddefconfig bzImage (same tree, same .config)" "$t_plain"
printf '%-58s %8.3f\n' "mkseries cold / plain make" "$(echo "scale=3; $t_cold / $t_plain" | bc)"
printf '%-58s %8.3f\n' "(mkseries cold - writing the tree) / plain make" \
	"$(echo "scale=3; ($t_cold - $(mat_seconds cold)) / $t_plain" | bc)"

mks_build second CCACHE_REMOTE_STORAGE="$remote"
t_second=$(cat "$bench/second.seconds")
hits=$(stat_of "$bench/ccache-second" remote_storage_hit)
misses=$(stat_of "$bench/ccache-second" remote_storage_miss)
row "second machine: mkseries base build from Redis" "$t_second" \
	"($(echo "scale=2; $t_second / $t_cold" | bc)x the cold build)"
row "  of which: writing the source tree" "$(mat_seconds second)"
row "  of which: make bzImage" "$(state_of second make_seconds)"
echo "  remote hits: $hits of $((hits + misses)) ($(echo "scale=1; 100 * $hits / ($hits + $misses)" | bc)%), local misses: $(stat_of "$bench/ccache-second" cache_miss)"

if [ -n "${BENCH_PREPROCESSOR:-}" ]; then
	mks_build preproc CCACHE_NODEPEND=1
	t_pre=$(cat "$bench/preproc.seconds")
	row "mkseries cold base build (preprocessor mode, no Redis)" "$t_pre" \
		"($(echo "scale=2; $t_pre / $t_plain" | bc)x plain)"
	row "  of which: make bzImage" "$(state_of preproc make_seconds)"
fi

#!/bin/bash
# bench/apply.sh: `mkseries apply --all` against checkout + `git am`, on real Debian trees, as a ratio.
#
# For each branch (6.1 and 6.12 by default) a series of N small patches is
# made against that branch's tree (each patch changes one file under mm/ or
# kernel/), and recorded in a kit as the branch's backports. Then, on the
# same repository and the same patches:
#   today:    for each branch: git checkout -f <base>; git am <patches>
#   mkseries: mkseries apply --all
# Both are timed in this one run; the ratio is printed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mks=${MKSERIES_BIN:-$top/build/mkseries}
branches=${BENCH_BRANCHES:-"6.1 6.12"}
n=${BENCH_PATCHES:-20}
work=${BENCH_DIR:-$top/build/bench/apply}
export XDG_CACHE_HOME=${BENCH_CACHE:-$top/build/real-cache}

mkdir -p "$work"
cd "$work"
rm -rf kit am.git
mkdir -p kit/kernels kit/patches
declare -A pkg=( [5.10]=linux-source-5.10 [6.1]=linux-source-6.1 [6.12]=linux-source-6.12 [7.2]=linux-source-7.2 )
declare -A suite=( [5.10]=bullseye [6.1]=bookworm [6.12]=bookworm [7.2]=sid )
for b in $branches; do
	cat >kit/kernels/$b.yaml <<EOT
name: "$b"
source:
  debian: { package: ${pkg[$b]}, suite: ${suite[$b]} }
EOT
done
echo "series: []" >kit/series.yaml
repo=$XDG_CACHE_HOME/mkseries/linux.git
echo "# importing $branches (cached after the first run)"
(cd kit && "$mks" import --all)

# Make the patches: commits on a scratch worktree, then format-patch.
rm -rf scratch
git -C "$repo" worktree prune
{
	echo "series:"
	echo "  - id: bench"
	echo "    title: \"bench series\""
	echo "    patches:"
	for i in $(seq 1 "$n"); do
		echo "      - subject: \"bench: patch $i\""
		echo "        upstream: $(printf '%012x' $((0xbe0000000000 + i)))"
	done
	echo "    branches:"
	for b in $branches; do echo "      \"$b\": { patches: patches/$b/ }"; done
} >kit/series.yaml
for b in $branches; do
	git -C "$repo" worktree add -q --detach "$work/scratch" "mkseries/base/$b"
	files=$(cd scratch && ls mm/*.c kernel/*.c | head -n "$n")
	i=0
	for f in $files; do
		i=$((i + 1))
		sed -i '3a /* bench: a line added by patch '"$i"' */' "scratch/$f"
		git -C scratch commit -q -a -m "bench: patch $i" -m "commit $(printf '%012x' $((0xbe0000000000 + i))) upstream." \
			-m "Signed-off-by: Bench Mark <bench@example.org>"
	done
	mkdir -p kit/patches/$b
	git -C scratch format-patch -q -o "$work/kit/patches/$b" "mkseries/base/$b..HEAD"
	git -C "$repo" worktree remove --force "$work/scratch"
done

# Today's way: a non-bare clone sharing the objects, checkout each base, git am.
git clone -q --shared --no-checkout "$repo" am.git
git -C am.git config user.name "Bench Mark"
git -C am.git config user.email bench@example.org
git -C am.git checkout -q -f "refs/tags/mkseries/base/${branches%% *}"
start=$(date +%s.%N)
for b in $branches; do
	git -C am.git checkout -q -f "refs/tags/mkseries/base/$b"
	git -C am.git am -q "$work/kit/patches/$b"/*.patch
done
end=$(date +%s.%N)
t_am=$(echo "$end - $start" | bc)

start=$(date +%s.%N)
(cd kit && "$mks" apply --all -q >/dev/null)
end=$(date +%s.%N)
t_mks=$(echo "$end - $start" | bc)

files=$(git -C "$repo" ls-tree -r --name-only "refs/tags/mkseries/base/${branches##* }" | wc -l)
printf 'branches: %s, %d patches each, %d files in the %s tree\n' "$branches" "$n" "$files" "${branches##* }"
printf 'checkout + git am:      %8.3f s\n' "$t_am"
printf 'mkseries apply --all:   %8.3f s\n' "$t_mks"
printf 'ratio:                  %8.1fx\n' "$(echo "$t_am / $t_mks" | bc -l)"

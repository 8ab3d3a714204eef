#!/bin/sh
# check-layers.sh: the folders of tools/mkseries are layers: each uses its
# own files and those of lower rank only; no call graph cycle between files.
#
# Usage: tests/check-layers.sh [OBJDIR [SRCDIR]]
#   OBJDIR  the objects of tools/mkseries (default build/obj/mkseries)
#   SRCDIR  their sources (default tools/mkseries), for the report below
#   LAYERS  (environment) the folders, lowest rank first; default the
#           Makefile's MKS_LAYERS. main.o and builtin/ rank above them all.
#
# From `nm` of each object: which object defines each global symbol and
# which objects use it. A file "uses" another when it refers to a symbol
# the other defines. A use of a file in a folder of higher rank fails the
# check ("rank: ..."), naming both files and the symbol, as does an
# object in no known folder. Two or more files that reach each other
# through those uses form a cycle: each is listed, and the check fails.
#
# It also fails on a function over 100 lines (unless one of the three
# lines above its head says why it "must be long") and on a source file
# over 1500 lines: split by job, not by size.
set -eu

OBJDIR=${1:-build/obj/mkseries}
SRCDIR=${2:-tools/mkseries}
NM=${NM:-nm}
LAYERS=${LAYERS:-$(sed -n 's/^MKS_LAYERS = //p' "$(dirname "$0")/../Makefile")}
[ -n "$LAYERS" ] || { echo "check-layers: no LAYERS and no MKS_LAYERS in the Makefile" >&2; exit 2; }

[ -d "$OBJDIR" ] || { echo "check-layers: no '$OBJDIR' (run make first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "def OBJ SYM" and "use OBJ SYM" lines; OBJ relative to OBJDIR.
find "$OBJDIR" -name '*.o' | sort | while read -r obj; do
	rel=${obj#"$OBJDIR"/}
	# An object left behind by a source since removed is no part of the program.
	[ ! -d "$SRCDIR" ] || [ -f "$SRCDIR/${rel%.o}.c" ] || continue
	"$NM" -P --defined-only "$obj" |
		awk -v o="$rel" '$2 ~ /^[TDBRVWGS]$/ { print "def", o, $1 }'
	"$NM" -P --undefined-only "$obj" | awk -v o="$rel" '{ print "use", o, $1 }'
done >"$tmp/syms"

awk -v layers="$LAYERS" '
BEGIN {
	nl = split(layers, l, " ")
	for (i = 1; i <= nl; i++)
		rank[l[i]] = i
	rank["builtin"] = nl + 1
}
# The folder of an object; main.o sits with the builtins.
function folder(o) {
	if (o == "main.o")
		return "builtin"
	if (o !~ /\//)
		return ""
	sub(/\/.*/, "", o)
	return o
}
$1 == "def" || $1 == "use" {
	f = folder($2)
	if (!(f in rank) && !(($2) in told)) {
		printf "rank: %s is in no folder of the layers (%s)\n", $2, layers
		told[$2]
	}
}
$1 == "def" { def[$3] = $2; next }
$1 == "use" { use[++n] = $2 SUBSEP $3 }
END {
	for (i = 1; i <= n; i++) {
		split(use[i], u, SUBSEP)
		from = u[1]; sym = u[2]
		if (!(sym in def) || def[sym] == from)
			continue
		to = def[sym]
		if (!((from, to) in edge)) {
			edge[from, to] = sym
			succ[from] = succ[from] " " to
			nodes[from]; nodes[to]
		}
		ff = folder(from); ft = folder(to)
		if ((ff in rank) && (ft in rank) && rank[ff] < rank[ft])
			printf "rank: %s uses %s, defined in %s: %s (rank %d) may not use %s (rank %d)\n",
			       from, sym, to, ff, rank[ff], ft, rank[ft]
	}
	for (v in nodes)
		if (!(v in index_of))
			strongconnect(v)
}

# Tarjan: every strongly connected component of two or more objects is a cycle.
function strongconnect(v,    w, list, k, nk, comp, path, a, b) {
	index_of[v] = low[v] = ++counter
	stack[++sp] = v
	on[v] = 1
	nk = split(succ[v], list, " ")
	for (k = 1; k <= nk; k++) {
		w = list[k]
		if (!(w in index_of)) {
			strongconnect(w)
			if (low[w] < low[v])
				low[v] = low[w]
		} else if (on[w] && index_of[w] < low[v]) {
			low[v] = index_of[w]
		}
	}
	if (low[v] != index_of[v])
		return
	comp = ""
	do {
		w = stack[sp--]
		on[w] = 0
		comp = comp " " w
		members[w] = v
	} while (w != v)
	if (split(comp, a, " ") < 2)
		return
	printf "cycle:%s\n", comp
	# One use per edge inside the cycle, so it can be cut where it is wrong.
	for (k in a)
		for (path in a)
			if ((a[k], a[path]) in edge)
				printf "  %s -> %s (%s)\n", a[k], a[path], edge[a[k], a[path]]
}
' "$tmp/syms" >"$tmp/problems"

# Sizes: a file over 1500 lines, a function over 100 without its reason.
for f in "$SRCDIR"/*.c "$SRCDIR"/*/*.c; do
	[ -f "$f" ] || continue
	awk -v f="$f" '
	END { if (NR > 1500) printf "size: %s has %d lines (over 1500)\n", f, NR }
	{ l3 = l2; l2 = l1; l1 = prev; prev = $0 }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { head = $0; start = FNR; why = (l1 l2 l3) ~ /must be long/ }
	/^\{/ { body = FNR }
	/^\}/ && body {
		if (FNR - start + 1 > 100 && !why) {
			name = head
			sub(/\(.*/, "", name)
			sub(/.*[ *]/, "", name)
			printf "size: %s:%d: %s() has %d lines (over 100)\n", f, start, name, FNR - start + 1
		}
		body = 0
	}' "$f"
done >>"$tmp/problems"

if [ -s "$tmp/problems" ]; then
	cat "$tmp/problems"
	echo "check-layers: $(grep -c '^cycle:' "$tmp/problems" || :) cycle(s), $(grep -c '^rank:' "$tmp/problems" || :) use(s) against the ranks, $(grep -c '^size:' "$tmp/problems" || :) over the sizes" >&2
	exit 1
fi
echo "check-layers: in $OBJDIR, every use goes down the ranks ($LAYERS, then builtin), no cycle; in $SRCDIR, no function over 100 lines or file over 1500"

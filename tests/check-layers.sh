#!/bin/sh
# check-layers.sh: the call graph between mkseries's object files has no
# cycles, and no library object calls into a builtin.
#
# Usage: tests/check-layers.sh [OBJDIR [SRCDIR]]
#   OBJDIR  the objects of tools/mkseries (default build/obj/mkseries)
#   SRCDIR  their sources (default tools/mkseries), for the report below
#
# From `nm` of each object: which object defines each global symbol and
# which objects use it. A file "uses" another when it refers to a symbol
# the other defines. Two or more files that reach each other through
# those uses form a cycle: each is listed, and the check fails. An object
# outside builtin/ (and not main.o) that uses a symbol a builtin/*.o
# defines fails it too: the builtins sit on the library, not under it.
#
# It also fails on a function over 100 lines (unless one of the three
# lines above its head says why it "must be long") and on a source file
# over 1500 lines: split by job, not by size.
set -eu

OBJDIR=${1:-build/obj/mkseries}
SRCDIR=${2:-tools/mkseries}
NM=${NM:-nm}

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

awk '
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
		if (to ~ /^builtin\// && from !~ /^builtin\// && from != "main.o")
			printf "layer: %s uses %s, defined in %s: library code must not call a builtin\n",
			       from, sym, to
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
	echo "check-layers: $(grep -c '^cycle:' "$tmp/problems" || :) cycle(s), $(grep -c '^layer:' "$tmp/problems" || :) library call(s) into builtins, $(grep -c '^size:' "$tmp/problems" || :) over the sizes" >&2
	exit 1
fi
echo "check-layers: no cycle between the objects of $OBJDIR, no library call into a builtin, no function over 100 lines or file over 1500 in $SRCDIR"

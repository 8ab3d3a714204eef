#!/bin/sh
# check-layers.sh: the folders of tools/mkseries are layers, and
# tools/mkseries/LAYERS says what each may use: every call between files
# and every #include goes to the file's own folder or one its line names;
# no call graph cycle between files.
#
# Usage: tests/check-layers.sh [OBJDIR [SRCDIR]]
#   OBJDIR       the objects of tools/mkseries (default build/obj/mkseries)
#   SRCDIR       their sources (default tools/mkseries), for the #include
#                and size checks; a directory that does not exist skips them
#   LAYERS_FILE  (environment) the folders and their uses; default
#                tools/mkseries/LAYERS beside this script. main.o and
#                builtin/ sit above them all and may use any folder.
#
# From `nm` of each object: which object defines each global symbol and
# which objects use it. A use of a file in a folder the user's LAYERS line
# does not name fails ("uses: ..."), naming both files and the symbol, as
# does an #include of such a folder's header, an object in no known folder,
# a LAYERS line naming a folder below it or unknown, an error printed
# where it should be kept (print_error() outside builtin/ and the folders
# LAYERS' "prints errors:" line names) or kept where it should be printed
# (error() in builtin/), and a use LAYERS names
# that nothing makes (the file is the graph, printed on success; checked
# only on a whole tree of sources, as a header may give types alone). Two or
# more files that reach each other through calls form a cycle: each is
# listed, and the check fails.
#
# It also fails on a function over 100 lines (unless one of the three
# lines above its head says why it "must be long") and on a source file
# over 1500 lines: split by job, not by size. Functions with more than 10
# locals or 2 labels are listed ("note: ..."), without failing: they are
# the next to split by meaning.
set -eu

OBJDIR=${1:-build/obj/mkseries}
SRCDIR=${2:-tools/mkseries}
NM=${NM:-nm}
LAYERS_FILE=${LAYERS_FILE:-$(dirname "$0")/../tools/mkseries/LAYERS}
[ -f "$LAYERS_FILE" ] || { echo "check-layers: no '$LAYERS_FILE'" >&2; exit 2; }

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

# "inc FILE FOLDER LINE" for every #include "FOLDER/..." of a source.
if [ -d "$SRCDIR" ]; then
	for f in "$SRCDIR"/*.[ch] "$SRCDIR"/*/*.[ch]; do
		[ -f "$f" ] || continue
		awk -v f="${f#"$SRCDIR"/}" '
		/^#[ \t]*include[ \t]*"[A-Za-z0-9_]+\// {
			h = $0
			sub(/^[^"]*"/, "", h)
			sub(/\/.*/, "", h)
			print "inc", f, h, FNR
		}' "$f"
	done
fi >"$tmp/incs"

# Whether SRCDIR is a whole tree: a folder for every line of LAYERS.
sources=1
for l in $(sed -n 's/^\([a-z0-9_]*\):.*/\1/p' "$LAYERS_FILE"); do
	[ -d "$SRCDIR/$l" ] || sources=0
done
awk -v lf="$LAYERS_FILE" -v graph="$tmp/graph" -v sources=$sources '
# LAYERS: "folder: uses...", lowest first; # starts a comment.
FILENAME == lf {
	sub(/#.*/, "")
	if (!NF)
		next
	if ($1 == "prints" && $2 == "errors:") {
		for (i = 3; i <= NF; i++)
			printer[$i] = 1
		next
	}
	if ($1 !~ /^[a-z0-9_]+:$/) {
		printf "layers: %s:%d: not \"folder: uses...\": %s\n", FILENAME, FNR, $0
		next
	}
	f = substr($1, 1, length($1) - 1)
	rank[f] = ++nl
	order[nl] = f
	for (i = 2; i <= NF; i++) {
		if (!($i in rank))
			printf "layers: %s:%d: %s may use only folders above its line, not %s\n",
			       FILENAME, FNR, f, $i
		allowed[f, $i] = 1
		listed[f] = listed[f] " " $i
	}
	next
}
# The folder of an object or source; main.o sits with the builtins.
function folder(o) {
	if (o == "main.o" || o == "main.c")
		return "builtin"
	if (o !~ /\//)
		return ""
	sub(/\/.*/, "", o)
	return o
}
function may(from, to) {
	return from == to || from == "builtin" || ((from, to) in allowed)
}
$1 == "def" || $1 == "use" {
	f = folder($2)
	if (!(f in rank) && f != "builtin" && !(($2) in told)) {
		printf "uses: %s is in no folder of %s\n", $2, lf
		told[$2]
	}
}
$1 == "def" { def[$3] = $2; next }
$1 == "use" {
	use[++n] = $2 SUBSEP $3
	f = folder($2)
	if (f == "builtin" && ($3 == "error" || $3 == "error_code"))
		printf "errors: %s uses %s(): a builtin prints its errors (print_error)\n", $2, $3
	if (f != "builtin" && !(f in printer) && ($3 == "print_error" || $3 == "print_error_code"))
		printf "errors: %s uses %s(): below the folders that print, an error is kept (error()) and returned\n", $2, $3
	next
}
$1 == "inc" {
	ff = folder($2)
	if (!(($3) in rank) && $3 != "builtin")
		next
	made[ff, $3] = 1
	if ((ff in rank || ff == "builtin") && !may(ff, $3))
		printf "uses: %s:%d includes a header of %s/: %s may use only%s\n", $2, $4, $3, ff,
		       (ff in listed) ? listed[ff] : " itself"
}
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
		made[ff, ft] = 1
		if ((ff in rank || ff == "builtin") && (ft in rank || ft == "builtin") && !may(ff, ft))
			printf "uses: %s uses %s, defined in %s: %s may use only%s\n",
			       from, sym, to, ff, (ff in listed) ? listed[ff] : " itself"
	}
	# Some uses are of the types of a header alone: unknown without the sources.
	for (k = 1; sources && k <= nl; k++) {
		nw = split(listed[order[k]], w, " ")
		for (j = 1; j <= nw; j++)
			if (!((order[k], w[j]) in made))
				printf "uses: %s names %s, but no file of %s uses one of %s (take it off the line)\n",
				       lf, w[j], order[k], w[j]
	}
	for (v in nodes)
		if (!(v in index_of))
			strongconnect(v)
	for (k = 1; k <= nl; k++)
		printf "%s:%s\n", order[k], listed[order[k]] >graph
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
' "$LAYERS_FILE" "$tmp/syms" "$tmp/incs" >"$tmp/problems"

# Sizes: a file over 1500 lines, a function over 100 without its reason;
# and, as notes, a function with more than 10 locals (the names declared
# at the head of its body) or 2 labels.
for f in "$SRCDIR"/*.c "$SRCDIR"/*/*.c; do
	[ -f "$f" ] || continue
	awk -v f="$f" '
	# Names a declaration line adds: its commas outside brackets, plus one
	# on its first line; "depth" carries an initialiser over lines.
	function names(s, first,    i, c, k) {
		k = first
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "(" || c == "{" || c == "[")
				depth++
			else if (c == ")" || c == "}" || c == "]")
				depth--
			else if (c == "," && !depth)
				k++
		}
		return k
	}
	END { if (NR > 1500) printf "size: %s has %d lines (over 1500)\n", f, NR }
	{ l3 = l2; l2 = l1; l1 = prev; prev = $0 }
	/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { head = $0; start = FNR; why = (l1 l2 l3) ~ /must be long/ }
	/^\{/ { body = FNR; decl = 1; more = 0; depth = 0; locals = 0; labels = 0; next }
	/^\}/ && body {
		name = head
		sub(/\(.*/, "", name)
		sub(/.*[ *]/, "", name)
		if (FNR - start + 1 > 100 && !why)
			printf "size: %s:%d: %s() has %d lines (over 100)\n", f, start, name, FNR - start + 1
		if (locals > 10 || labels > 2)
			printf "note: %s:%d: %s() has %d locals and %d label(s)\n", f, start, name, locals, labels
		body = 0
		next
	}
	body && /^[a-z_][a-z_0-9]*:/ { labels++ }
	body && decl {
		if (more) {
			locals += names($0, 0)
			more = $0 !~ /;[ \t]*$/
		} else if ($0 ~ /^\t[A-Za-z_]/ && $0 !~ /^\t(return|if|for|while|do|switch|goto|break|continue|case|default)[ (;:]/ &&
			   $0 !~ /^\t[A-Za-z_][A-Za-z_0-9]*( *\(|->|\.|\[| *[-+*\/|&]?=[^=]|\+\+|--|;)/) {
			locals += names($0, 1)
			more = $0 !~ /;[ \t]*$/
		} else {
			decl = 0
		}
	}' "$f"
done >>"$tmp/problems"

grep '^note:' "$tmp/problems" || :
if grep -qv '^note:' "$tmp/problems"; then
	grep -v '^note:' "$tmp/problems"
	echo "check-layers: $(grep -c '^cycle:' "$tmp/problems" || :) cycle(s), $(grep -c '^uses:' "$tmp/problems" || :) use(s) against $LAYERS_FILE, $(grep -c '^layers:' "$tmp/problems" || :) fault(s) in it, $(grep -c '^errors:' "$tmp/problems" || :) error(s) printed or kept on the wrong side, $(grep -c '^size:' "$tmp/problems" || :) over the sizes" >&2
	exit 1
fi
echo "check-layers: in $OBJDIR and $SRCDIR, every use and #include is one $LAYERS_FILE names, no cycle, no function over 100 lines or file over 1500; the folders use:"
sed 's/^/  /' "$tmp/graph"

#!/bin/sh
# t0600-fixups.sh: `mkseries fixups`: declared fixups, missing ones found in a mainline, --write.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"
. "$TEST_DIRECTORY/lib-mainline.sh"

test_expect_success 'setup: a kit and a mainline with fixups of it' '
	make_upstream up &&
	make_kit kit up &&
	make_mainline up &&
	for v in A1 A2 F1 F2 B1 M1 M2 M3 M4 M5 M6 O1 X1 X2 X3; do
		eval "echo $v=\$$v"
	done >ids &&
	cp kit/series.yaml series.orig
'
. ./ids

test_expect_success 'without --mainline: the declared fixups and what each fixes' '
	(cd kit && mkseries fixups >../out) &&
	cat >expect <<-EOF &&
	alpha fixup 1/2  $(short $F1)  mm: fix batch ptes
	    fixes alpha 2/2 $(short $A2); goes right after it
	alpha fixup 2/2  $(short $F2)  mm: fix the fix
	    fixes alpha fixup 1/2 $(short $F1); goes right after it
	EOF
	test_cmp expect out
'

test_expect_success 'without --mainline, as JSON' '
	(cd kit && mkseries fixups --format json >../out.json) &&
	python3 -c "import json,sys; d=json.load(open(\"out.json\")); \
		assert [f[\"label\"] for f in d[\"fixups\"]] == [\"alpha fixup 1/2\", \"alpha fixup 2/2\"]; \
		assert d[\"fixups\"][1][\"fixes\"][\"label\"] == \"alpha fixup 1/2\""
'

test_expect_success 'with --mainline: exactly the missing fixups, exit 1' '
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up >../out) &&
	grep -o "missing [0-9a-f]\{12\} " out | cut -d" " -f2 | sort >found &&
	for c in $M1 $M2 $M3 $M4 $M5 $M6; do short $c; done | sort >expect &&
	test_cmp expect found
'

test_expect_success 'each line says what it fixes, the first tag, and Cc: stable' '
	test_grep -x "alpha: missing $(short $M1) mm: fix batch ptes again (fixes $(short $A2) alpha 2/2, v1.1, Cc: stable # 1.0+)" out &&
	test_grep -x "beta: missing $(short $M2) Revert \"madvise: split locking\" (reverts $(short $B1) beta 1/1, v1.1)" out &&
	test_grep -x "alpha: missing $(short $M3) mm: fix the batch fix (fixes $(short $M1), itself missing, v1.2)" out &&
	test_grep -x "alpha: missing $(short $M4) mm: fix the fix of the fix (fixes $(short $F2) alpha fixup 2/2, v1.2, Cc: stable)" out &&
	test_grep -x "beta: missing $(short $M5) madvise: add a helper (stable-dep-of $(short $B1) beta 1/1, v1.2)" out &&
	test_grep -x "alpha: missing $(short $M6) mm: one more fix (fixes $(short $A1) alpha 1/2, in no tag)" out &&
	test_grep -x "fixups: 6 missing among 16 commits read (9 of them name another commit by Fixes:, Stable-dep-of: or a revert)" out
'

test_expect_success 'prose, commits outside the kit, short ids and the kit itself are not reported' '
	for c in $X1 $X2 $X3 $O1 $F1 $F2 $A1 $A2 $B1; do
		test_grep ! "$(short $c) [^(]*(" out || return 1
	done
'

test_expect_success 'a fix of a fix comes after the fix it fixes' '
	grep -n "missing $(short $M1)" out | cut -d: -f1 >l1 &&
	grep -n "missing $(short $M3)" out | cut -d: -f1 >l3 &&
	test "$(cat l1)" -lt "$(cat l3)"
'

test_expect_success '--ref bounds the walk from the top' '
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --ref v1.1 >../out) &&
	grep -o "missing [0-9a-f]\{12\} " out | cut -d" " -f2 | sort >found &&
	for c in $M1 $M2; do short $c; done | sort >expect &&
	test_cmp expect found
'

test_expect_success '--since bounds it from below' '
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --since v1.1 >../out) &&
	grep -o "missing [0-9a-f]\{12\} " out | cut -d" " -f2 | sort >found &&
	for c in $M4 $M5 $M6; do short $c; done | sort >expect &&
	test_cmp expect found &&
	test_grep "among 4 commits read" out
'

test_expect_success 'nothing missing: exit 0' '
	(cd kit && mkseries fixups --mainline ../up --ref v1.0 >../out) &&
	test_grep -x "fixups: 0 missing among 1 commits read (0 of them name another commit by Fixes:, Stable-dep-of: or a revert)" out
'

test_expect_success '--format json' '
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --format json >../out.json) &&
	python3 - "$M3" "$M1" "$A2" <<-\EOF
	import json, sys
	d = json.load(open("out.json"))
	m = {x["id"]: x for x in d["missing"]}
	assert len(m) == 6, m
	m3 = m[sys.argv[1]]
	assert m3["target"] == {"id": sys.argv[2], "label": None, "missing": True}, m3
	assert m3["depth"] == 2 and m3["tag"] == "v1.2" and m3["series"] == "alpha", m3
	m1 = m[sys.argv[2]]
	assert m1["target"]["label"] == "alpha 2/2" and m1["target"]["id"] == sys.argv[3][:12], m1
	assert m1["stable"] is True and m1["stable_comment"] == "1.0+", m1
	EOF
'

test_expect_success '--format json cleans what is not UTF-8: a tag, a control character' '
	git clone -q up up-bytes &&
	printf "mm: fix \\033[2J the screen\\n\\nFixes: %s\\n" "$A1" >msg &&
	echo more >>up-bytes/mm/mremap.c &&
	git -C up-bytes commit -q -a -F ../msg &&
	git -C up-bytes tag "v9.$(printf "\\377")" &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up-bytes --format json >../bytes.json) &&
	python3 - <<-\EOF
	import json
	d = json.loads(open("bytes.json", "rb").read().decode("utf-8"))
	m = [m for m in d["missing"] if m["subject"].endswith(" the screen")]
	assert len(m) == 1, d["missing"]
	assert m[0]["tag"] == "v9.\\xff", m[0]
	assert m[0]["subject"] == "mm: fix \\x1b[2J the screen", m[0]
	EOF
'

test_expect_success '--write adds them to series.yaml; comments and layout survive' '
	sed -i -e "s/^series:/# the series\n\nseries:   # all of them/" \
		-e "s/^  - id: beta/\n  # beta: the madvise one\n  - id: beta/" kit/series.yaml &&
	cp kit/series.yaml before.yaml &&
	(cd kit && mkseries fixups --mainline ../up --write >../out) &&
	test_grep -c "^added " out >n && test "$(cat n)" = 6 &&
	diff --old-line-format= --new-line-format= --unchanged-line-format=%L \
		before.yaml kit/series.yaml >rest || test $? = 1 &&
	test_cmp before.yaml rest &&
	diff --old-line-format= --new-line-format=%L --unchanged-line-format= \
		before.yaml kit/series.yaml >added || test $? = 1 &&
	test $(wc -l <added) = 25 &&
	test_grep -x "      - file: patches/alpha/0005-mm-fix-batch-ptes-again.patch" added &&
	# an id of digits and at most one e is quoted, as YAML would read it as a number
	test_grep -x "        upstream: \"\{0,1\}$(short $M1)\"\{0,1\}" added &&
	test_grep -x "        fixes: \"\{0,1\}$(short $M1)\"\{0,1\}" added &&
	test_grep -x "        subject: \"Revert \\\\\"madvise: split locking\\\\\"\"" added &&
	test_grep -x "    fixups:" added &&
	test_grep "^From $M1 " kit/patches/alpha/0005-mm-fix-batch-ptes-again.patch
'

test_expect_success 'after --write the kit loads, plans the new fixups, and nothing is missing' '
	(cd kit && mkseries plan >../plan) &&
	for c in $M1 $M2 $M3 $M4 $M5 $M6; do
		test_grep "$(short $c)" plan || return 1
	done &&
	(cd kit && mkseries fixups --mainline ../up >../out) &&
	test_grep "fixups: 0 missing" out
'

test_expect_success '--write refuses a fixups list it cannot extend, and leaves the file alone' '
	cp series.orig kit/series.yaml &&
	sed -i "s/^    title: \"madvise: split locking\"/&\n    fixups: [ ]/" kit/series.yaml &&
	sed -i "s/^    fixups: \[ \]/    fixups: [ { upstream: $(short $M2), subject: r, fixes: $(short $B1) } ]/" kit/series.yaml &&
	ls kit/patches/beta >files.before &&
	cp kit/series.yaml before.yaml &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --write >../out 2>../err) &&
	test_grep "is not a block list; cannot add to it" err &&
	test_cmp before.yaml kit/series.yaml &&
	ls kit/patches/beta >files.after &&
	test_cmp files.before files.after
'

test_expect_success 'errors: not a repository, unknown revision, options' '
	cp series.orig kit/series.yaml &&
	(cd kit && test_expect_code 2 mkseries fixups --mainline ../nowhere 2>../err) &&
	test_grep "../nowhere" err &&
	mkdir plain &&
	(cd kit && test_expect_code 2 mkseries fixups --mainline ../plain 2>../err) &&
	test_grep "error: .../plain. is not a git repository" err &&
	(cd kit && test_expect_code 2 mkseries fixups --mainline ../up --ref nosuch 2>../err) &&
	test_grep "unknown revision .nosuch." err &&
	(cd kit && test_expect_code 2 mkseries fixups --mainline ../up --since nosuch 2>../err) &&
	test_grep "unknown revision .nosuch." err &&
	(cd kit && test_expect_code 2 mkseries fixups --write 2>../err) &&
	test_grep "need --mainline" err &&
	(cd kit && test_expect_code 2 mkseries fixups --format xml 2>../err) &&
	test_grep "unknown format .xml." err
'

# reports DIR: the fixups of the kit in up, whole and bounded, into DIR (stderr in DIR/err).
reports() {
	mkdir -p "$1" &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up >../"$1"/all 2>../"$1"/err) &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --since v1.1 >../"$1"/since 2>>../"$1"/err) &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --since v1.2 >../"$1"/since2 2>>../"$1"/err) &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --ref v1.1 >../"$1"/ref 2>>../"$1"/err) &&
	(cd kit && test_expect_code 1 mkseries fixups --mainline ../up --format json >../"$1"/json 2>>../"$1"/err)
}

# same_reports DIR: DIR has the reports made without a commit-graph.
same_reports() {
	for f in all since since2 ref json; do
		test_cmp plain/$f "$1"/$f || return 1
	done
}

# patch_graph FILE COMMIT date|parent [TO]: make the commit-graph FILE lie about COMMIT:
# its date one second off, or its first parent TO (default: a position outside the graph).
patch_graph() {
	chmod u+w "$1" &&
	python3 - "$@" <<-\EOF
	import struct, sys
	path, commit, what = sys.argv[1:4]
	b = bytearray(open(path, "rb").read())
	chunks = {}
	for i in range(b[6]):
	    e = 8 + 12 * i
	    chunks[bytes(b[e:e + 4])] = struct.unpack(">Q", b[e + 4:e + 12])[0]
	oidf, oidl, cdat = chunks[b"OIDF"], chunks[b"OIDL"], chunks[b"CDAT"]
	n = struct.unpack(">I", b[oidf + 1020:oidf + 1024])[0]
	ids = [b[oidl + 20 * i:oidl + 20 * i + 20].hex() for i in range(n)]
	e = cdat + 36 * ids.index(commit)
	if what == "date":
	    b[e + 35] ^= 1
	else:
	    to = ids.index(sys.argv[4]) if len(sys.argv) > 4 else 0x6fffffff
	    b[e + 20:e + 24] = struct.pack(">I", to)
	open(path, "wb").write(b)
	EOF
}

GRAPH=up/.git/objects/info/commit-graph
CHAIN=up/.git/objects/info/commit-graphs/commit-graph-chain

test_expect_success 'setup: the reports without a commit-graph' '
	cp series.orig kit/series.yaml &&
	test ! -e $GRAPH && test ! -e $CHAIN &&
	reports plain &&
	test_grep -x "fixups: 6 missing among 16 commits read (9 of them name another commit by Fixes:, Stable-dep-of: or a revert)" plain/all &&
	test_grep -x "fixups: 1 missing among 1 commits read (1 of them name another commit by Fixes:, Stable-dep-of: or a revert)" plain/since2 &&
	{ grep -v "^hint: to add them to series.yaml: " plain/err >plain/err.other || :; } &&
	test ! -s plain/err.other
'

test_expect_success 'a commit-graph gives the same reports' '
	git -C up commit-graph write --reachable &&
	test -f $GRAPH &&
	reports graph &&
	same_reports graph &&
	{ grep -v "^hint: to add them to series.yaml: " graph/err >graph/err.other || :; } &&
	test ! -s graph/err.other
'

test_expect_success 'a stale commit-graph: the commits after it are read, the rest comes from it' '
	rm $GRAPH &&
	git -C up rev-parse HEAD~3 >tips &&
	git -C up commit-graph write --stdin-commits <tips &&
	test -f $GRAPH &&
	reports stale &&
	same_reports stale &&
	{ grep -v "^hint: to add them to series.yaml: " stale/err >stale/err.other || :; } &&
	test ! -s stale/err.other
'

test_expect_success 'a split commit-graph chain gives the same reports' '
	rm $GRAPH &&
	git -C up rev-parse HEAD~5 >tips &&
	git -C up commit-graph write --split --stdin-commits <tips &&
	git -C up commit-graph write --reachable --split=no-merge &&
	test ! -e $GRAPH &&
	test $(wc -l <$CHAIN) = 2 &&
	reports split &&
	same_reports split &&
	{ grep -v "^hint: to add them to series.yaml: " split/err >split/err.other || :; } &&
	test ! -s split/err.other
'

test_expect_success 'an unusable commit-graph is ignored, with a warning' '
	rm -r up/.git/objects/info/commit-graphs &&
	printf "%064d" 0 >$GRAPH &&
	reports junk &&
	same_reports junk &&
	test_grep "^warning: ignoring the commit-graph: .*/info/commit-graph: not a commit-graph$" junk/err
'

test_expect_success 'a commit-graph that lies about a date is caught and not used' '
	rm $GRAPH &&
	git -C up commit-graph write --reachable &&
	patch_graph $GRAPH $M3 date &&
	reports date &&
	same_reports date &&
	test_grep "^warning: the commit-graph of .* does not match commit $M3; reading the commits instead$" date/err
'

test_expect_success 'a commit-graph that lies about a parent is caught and not used' '
	rm $GRAPH &&
	git -C up commit-graph write --reachable &&
	patch_graph $GRAPH $X1 parent $M5 &&
	reports parent &&
	same_reports parent &&
	test_grep "does not match commit $X1; reading the commits instead$" parent/err
'

test_expect_success 'a commit-graph naming a parent outside itself is not used' '
	rm $GRAPH &&
	git -C up commit-graph write --reachable &&
	patch_graph $GRAPH $O1 parent &&
	reports outside &&
	same_reports outside &&
	test_grep "does not match commit $O1; reading the commits instead$" outside/err &&
	rm $GRAPH
'

test_done

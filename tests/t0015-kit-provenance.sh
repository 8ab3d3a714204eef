#!/bin/sh
# t0015-kit-provenance.sh: every backport in patches/*/*/*.patch says what the kit changed in a bracketed note after the upstream trailers and is then signed off by the kit's backporter (the identity patches/NOTES.md names); no patch carries a template identity.
. "$(dirname "$0")/lib.sh"

KIT_BACKPORTER="Seed fbf771f9 maintainers <maintainers@users.noreply.a-seed-fbf771f9.example>"

# check_patch FILE: prints what is wrong with FILE, nothing when it is right.
# A backport is a patch whose message starts `commit <40 hex> upstream.`;
# every one of the kit's is modified (its message is in the kit's words, its
# code often too), so it must end in a note `[ <name>: ... ]` (indented
# continuation lines) right after the upstream trailers, followed by one
# line, the backporter's Signed-off-by, and then `---`. Any patch with such
# a note must be signed off after it. "Backport notes" paragraphs in the
# body (the older form) no longer count as a note.
check_patch() {
	awk -v kit="Signed-off-by: $KIT_BACKPORTER" -v f="$1" '
	/^---$/ && !done { done = 1; end = NR; next }
	done { next }
	{ line[NR] = $0 }
	/^commit [0-9a-f]+ upstream\.$/ && length($2) == 40 { backport = 1 }
	/^\[ [^]:]+: / { note = NR }
	/^Backport notes/ { old = NR }
	END {
		if (!end) { print f ": no --- line"; exit }
		last = end - 1
		if (old) print f ":" old ": a \"Backport notes\" paragraph; the note goes in brackets after the trailers"
		if (backport && !note) print f ": a backport without a bracketed backporter note"
		if (!note) exit
		if (line[last] != kit) print f ":" last ": the last line before --- is not the kit backporter sign-off: " line[last]
		for (i = note + 1; i < last; i++)
			if (line[i] !~ /^  /) { print f ":" i ": not a continuation of the note: " line[i]; break }
		if (line[last - 1] !~ / \]$/) print f ":" last - 1 ": the note does not end right before the sign-off"
	}' "$1"
}

test_expect_success 'NOTES.md names the kit backporter, and the patches are there to check' '
	test_grep -F "$KIT_BACKPORTER" "$SRC_DIR/patches/NOTES.md" &&
	ls "$SRC_DIR"/patches/*/*/*.patch >patches &&
	test $(wc -l <patches) -ge 19 &&
	xargs grep -l "^commit [0-9a-f]\{40\} upstream\.\$" <patches >backports &&
	test $(wc -l <backports) -ge 16
'

test_expect_success 'every backport: a bracketed note after the trailers, then the kit backporter sign-off' '
	while read f
	do
		check_patch "$f" || return 1
	done <patches >problems &&
	test_must_be_empty problems
'

test_expect_success 'no patch carries a template identity' '
	test_must_fail xargs grep -n -i -E "your name|you@example|a u thor|author@example|backporter@example|@example\.(com|org|net)|root@localhost|john doe" <patches
'

test_expect_success 'a backport whose sign-off is dropped, or whose note is an old paragraph, fails' '
	f=$(grep /process-madvise-lock/6.12/0001- patches) &&
	sed "/^Signed-off-by: Seed fbf771f9/d" "$f" >no-sob.patch &&
	check_patch no-sob.patch >out &&
	test_grep "no-sob.patch:[0-9]*: the last line before --- is not the kit backporter sign-off: " out &&
	sed "/^\[ Seed fbf771f9 maintainers:/,/ \]\$/d" "$f" >no-note.patch &&
	check_patch no-note.patch >out &&
	test_grep "no-note.patch: a backport without a bracketed backporter note" out &&
	sed "s/^commit \([0-9a-f]*\) upstream\.\$/&\n\nBackport notes for 6.12: changed./" "$f" >old.patch &&
	check_patch old.patch >out &&
	test_grep "old.patch:[0-9]*: a \"Backport notes\" paragraph" out &&
	sed "s/^Signed-off-by: Seed fbf771f9.*/Signed-off-by: Back Porter <backporter@example.com>/" "$f" >template.patch &&
	echo "$TRASH_DIRECTORY/template.patch" | xargs grep -c -i -E "backporter@example" >count &&
	echo 1 >count.expect &&
	test_cmp count.expect count
'

test_done

#!/bin/sh
# t0810-backport-series.sh: the backport loop over a series of five patches and a fixup, with conflicts at the first, the third, the fixup and the last patch, with and without the patches' preimage blobs in the repository.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# make_up5 DIR: files lib/f1.c..f5.c of twelve lines at v1.0; upstream
# commits P1..P5 each change line 5 of their file, then X (a fixup of
# P3) changes line 6 of f3.c. Branch "stable" changes line 5 of f1.c,
# f3.c and f5.c: P1, P3 and P5 conflict there, and X with how P3 was
# resolved. Ids in $P1..$P5 and $X.
make_up5() {
	mkdir -p "$1/lib" &&
	(
		cd "$1" &&
		git init -q &&
		for i in 1 2 3 4 5
		do
			seq 1 12 | sed "s/^/f$i line /" >lib/f$i.c || return 1
		done &&
		mkdir doc &&
		printf "Title\n=======\n\nText.\n" >doc/t.rst &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		for i in 1 2 3 4 5
		do
			sed -i "s/^f$i line 5\$/f$i line 5 upstream/" lib/f$i.c &&
			git commit -q -a -m "lib: change f$i" -m "Patch $i of five." \
				-m "Link: https://lore.example.org/p$i
Signed-off-by: Dev Eloper <dev@example.org>" || return 1
		done &&
		sed -i "s/^f3 line 6\$/f3 line 6 fixed/" lib/f3.c &&
		git commit -q -a -m "lib: fix f3" \
			-m "Fixes: $(git rev-parse --short=12 HEAD~2) (\"lib: change f3\")" \
			-m "Signed-off-by: Fix Er <fixer@example.org>" &&
		git checkout -q -b stable v1.0 &&
		sed -i -e "s/^f1 line 5\$/f1 line 5 stable/" lib/f1.c &&
		sed -i -e "s/^f3 line 5\$/f3 line 5 stable/" lib/f3.c &&
		sed -i -e "s/^f5 line 5\$/f5 line 5 stable/" lib/f5.c &&
		git commit -q -a -m "stable: line 5 of three files" &&
		git checkout -q master
	) &&
	X=$(git -C "$1" rev-parse master) &&
	P5=$(git -C "$1" rev-parse master~1) &&
	P4=$(git -C "$1" rev-parse master~2) &&
	P3=$(git -C "$1" rev-parse master~3) &&
	P2=$(git -C "$1" rev-parse master~4) &&
	P1=$(git -C "$1" rev-parse master~5)
}

# make_kit5 DIR UPSTREAM: a kit of one series, P1..P5 and the fixup X, on
# branch t (UPSTREAM's "stable").
make_kit5() {
	mkdir -p "$1/kernels" "$1/patches/s" &&
	git -C "$2" format-patch -q -o "$PWD/$1/patches/s" v1.0..master &&
	cat >"$1/kernels/t.yaml" <<-EOF_KERNEL &&
	name: t
	source:
	  git: { repo: $PWD/$2, ref: stable }
	config:
	  base: tinyconfig
	EOF_KERNEL
	{
		printf "series:\n  - id: s\n    title: \"lib: five changes\"\n    patches:\n" &&
		for i in 1 2 3 4 5
		do
			eval id=\$P$i &&
			printf "      - file: patches/s/000%s-lib-change-f%s.patch\n        upstream: %s\n        subject: \"lib: change f%s\"\n" \
				$i $i $(echo $id | cut -c1-12) $i || return 1
		done &&
		printf "    fixups:\n      - file: patches/s/0006-lib-fix-f3.patch\n        upstream: %s\n        subject: \"lib: fix f3\"\n        fixes: %s\n" \
			$(echo $X | cut -c1-12) $(echo $P3 | cut -c1-12)
	} >"$1/series.yaml" &&
	ls "$1"/patches/s/0006-lib-fix-f3.patch
}

test_expect_success 'setup: five patches and a fixup, a stable tree with three of their lines changed' '
	make_up5 up5 &&
	make_kit5 k-blobs up5 &&
	(cd k-blobs && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "cannot apply .s 1/5." err &&
	cp -R k-blobs k-noblobs &&
	for f in k-noblobs/patches/s/*.patch
	do
		sed -i "s/^index [0-9a-f]*\.\.[0-9a-f]*/index 1234567..89abcde/" $f || return 1
	done &&
	test_grep "^index 1234567..89abcde" k-noblobs/patches/s/0003-lib-change-f3.patch &&
	cp -R k-noblobs k-nb0 &&
	cp -R k-blobs k-b0 &&
	cp k-blobs/series.yaml yaml.orig &&
	ID_P1=$(echo $P1 | cut -c1-12) && ID_P3=$(echo $P3 | cut -c1-12) && ID_X=$(echo $X | cut -c1-12)
'

test_expect_success 'with the blobs: the first patch conflicts' '
	test_expect_code 1 bp_in k-blobs wd-b &&
	cat out &&
	test_grep "s 1/5 does not apply" out &&
	test_grep "conflict  lib/f1.c" out &&
	tree=wd-b/t/backport/tree &&
	test_grep "^<<<<<<< tree" $tree/lib/f1.c &&
	test_grep "^f1 line 5 stable\$" $tree/lib/f1.c &&
	test_grep "^f1 line 5 upstream\$" $tree/lib/f1.c
'

test_expect_success 'with the blobs: resolved, the third patch conflicts on the first one'"'"'s backport' '
	tree=wd-b/t/backport/tree &&
	seq 1 12 | sed -e "s/^/f1 line /" -e "s/^f1 line 5\$/f1 line 5 stable upstream/" >$tree/lib/f1.c &&
	test_expect_code 1 bp_in k-blobs wd-b --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0001-$ID_P1-lib-change-f1.patch" out &&
	test_grep "s 3/5 does not apply" out &&
	test_grep "the base and the 2 commits before it" out &&
	test_grep "conflict  lib/f3.c" out &&
	test_grep "^f3 line 5 stable\$" $tree/lib/f3.c &&
	test_grep "^f1 line 5 stable upstream\$" $tree/lib/f1.c &&
	test_grep "^f2 line 5 upstream\$" $tree/lib/f2.c
'

test_expect_success 'with the blobs: the fixup after the resolved third patch conflicts with its resolution' '
	tree=wd-b/t/backport/tree &&
	seq 1 12 | sed -e "s/^/f3 line /" -e "s/^f3 line 5\$/f3 line 5 stable upstream/" >$tree/lib/f3.c &&
	test_expect_code 1 bp_in k-blobs wd-b --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0002-$ID_P3-lib-change-f3.patch" out &&
	test_grep "s fixup 1/1 does not apply" out &&
	test_grep "the base and the 3 commits before it" out &&
	test_grep "lib/f3.c" out &&
	test_grep "^f3 line 5 stable upstream\$" $tree/lib/f3.c
'

test_expect_success 'with the blobs: the fixup resolved, the last patch conflicts; --skip ends the loop' '
	tree=wd-b/t/backport/tree &&
	seq 1 12 | sed -e "s/^/f3 line /" -e "s/^f3 line 5\$/f3 line 5 stable upstream/" \
		-e "s/^f3 line 6\$/f3 line 6 fixed/" >$tree/lib/f3.c &&
	rm -f $tree/lib/f3.c.rej $tree/lib/f3.c.rej.why &&
	test_expect_code 1 bp_in k-blobs wd-b --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0003-$ID_X-lib-fix-f3.patch" out &&
	test_grep "s 5/5 does not apply" out &&
	test_grep "conflict  lib/f5.c" out &&
	bp_in k-blobs wd-b --skip -m "f5 keeps the stable line" &&
	cat out err &&
	test_grep "t: refs/heads/mkseries/.* -> " out &&
	test_grep "\"t\": { skip: \"f5 keeps the stable line\" }" k-blobs/series.yaml &&
	ref=$(kit_ref k-blobs t) &&
	mk_git up5 show $ref:lib/f1.c >f1 && test_grep "^f1 line 5 stable upstream\$" f1 &&
	mk_git up5 show $ref:lib/f3.c >f3 && test_grep "^f3 line 6 fixed\$" f3 &&
	test_grep "^f3 line 5 stable upstream\$" f3 &&
	mk_git up5 show $ref:lib/f4.c >f4 && test_grep "^f4 line 5 upstream\$" f4 &&
	mk_git up5 show $ref:lib/f5.c >f5 && test_grep "^f5 line 5 stable\$" f5 &&
	mk_git up5 log --format=%s $(git -C up5 rev-parse stable)..$ref >log &&
	printf "%s\n" "lib: change f4" "lib: fix f3" "lib: change f3" "lib: change f2" "lib: change f1" >log.expect &&
	test_cmp log.expect log &&
	! test -d wd-b/t/backport
'

test_expect_success 'the recorded patch: the full upstream id, the upstream trailers, the note before the sign-off' '
	f=k-blobs/patches/s/t/0002-$ID_P3-lib-change-f3.patch &&
	sed -n "/^Subject:/,/^---\$/p" $f >message &&
	printf "%s\n" "Subject: [PATCH] lib: change f3" "" "commit $P3 upstream." "" "Patch 3 of five." "" \
		"Link: https://lore.example.org/p3" \
		"Signed-off-by: Dev Eloper <dev@example.org>" \
		"[ Back Porter: backported to t; lib/f3.c (conflict resolved) ]" \
		"Signed-off-by: Back Porter <backporter@example.com>" "---" >message.expect &&
	test_cmp message.expect message &&
	! test_grep "^libgit2 " $f &&
	tail -n 3 $f >tail &&
	test_grep "^ f3 line 8\$" tail
'

test_expect_success 'with the blobs: plain apply takes the recorded backports' '
	ref=$(kit_ref k-blobs t) &&
	mk_git up5 rev-parse $ref^{tree} >tree.loop &&
	mk_git up5 update-ref -d $ref &&
	(cd k-blobs && mkseries apply --branch t >../out 2>../err) &&
	mk_git up5 rev-parse $ref^{tree} >tree.apply &&
	test_cmp tree.loop tree.apply
'

test_expect_success 'without the blobs: the first patch is left in a .rej' '
	test_expect_code 1 bp_in k-noblobs wd-n &&
	cat out &&
	test_grep "s 1/5 does not apply" out &&
	test_grep "rejected  lib/f1.c (1 of 1 hunks in lib/f1.c.rej" out &&
	test_grep "^+f1 line 5 upstream" wd-n/t/backport/tree/lib/f1.c.rej
'

test_expect_success 'without the blobs: the third patch, with two entries applied before it' '
	tree=wd-n/t/backport/tree &&
	sed -i "s/^f1 line 5 stable\$/f1 line 5 stable upstream/" $tree/lib/f1.c &&
	rm $tree/lib/f1.c.rej $tree/lib/f1.c.rej.why &&
	test_expect_code 1 bp_in k-noblobs wd-n --continue &&
	cat out err &&
	! test_grep "cannot read tree" err &&
	test_grep "recorded patches/s/t/0001-$ID_P1-lib-change-f1.patch" out &&
	test_grep "s 3/5 does not apply" out &&
	test_grep "rejected  lib/f3.c (1 of 1 hunks" out &&
	test_grep "^f2 line 5 upstream\$" $tree/lib/f2.c
'

test_expect_success 'without the blobs: --status, then the fixup after the resolved patch' '
	tree=wd-n/t/backport/tree &&
	sed -i "s/^f3 line 5 stable\$/f3 line 5 stable upstream/" $tree/lib/f3.c &&
	rm $tree/lib/f3.c.rej $tree/lib/f3.c.rej.why &&
	bp_in k-noblobs wd-n --status &&
	test_grep "nothing left to resolve" out &&
	test_expect_code 1 bp_in k-noblobs wd-n --continue &&
	cat out err &&
	! test_grep "cannot read tree" err &&
	test_grep "recorded patches/s/t/0002-$ID_P3-lib-change-f3.patch" out &&
	test_grep "s fixup 1/1 does not apply" out &&
	test_grep "rejected  lib/f3.c (1 of 1 hunks" out &&
	test_grep "^+f3 line 6 fixed" $tree/lib/f3.c.rej
'

test_expect_success 'without the blobs: the fixup resolved, the last patch is rejected too' '
	tree=wd-n/t/backport/tree &&
	sed -i "s/^f3 line 6\$/f3 line 6 fixed/" $tree/lib/f3.c &&
	rm $tree/lib/f3.c.rej $tree/lib/f3.c.rej.why &&
	test_expect_code 1 bp_in k-noblobs wd-n --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0003-$ID_X-lib-fix-f3.patch" out &&
	test_grep "s 5/5 does not apply" out &&
	test_grep "rejected  lib/f5.c (1 of 1 hunks" out &&
	ls k-noblobs/patches/s/t >recorded &&
	test $(wc -l <recorded) = 3
'

test_expect_success 'without the blobs: --abort after three resolutions leaves the kit as it was' '
	bp_in k-noblobs wd-n --abort &&
	cat out err &&
	test_grep "removed patches/s/t/0001-$ID_P1-lib-change-f1.patch" out &&
	test_grep "aborted" out &&
	test_cmp yaml.orig k-noblobs/series.yaml &&
	! test -e k-noblobs/patches/s/t &&
	! test -d wd-n/t/backport &&
	mk_git up5 worktree list >wt &&
	! test_grep mkseries-backport wt
'

test_expect_success 'without the blobs: --skip at the first patch, then the loop runs again to the end' '
	test_expect_code 1 bp_in k-noblobs wd-n &&
	test_grep "s 1/5 does not apply" out &&
	test_expect_code 1 bp_in k-noblobs wd-n --skip -m "f1 stays" &&
	cat out err &&
	test_grep "s 3/5 does not apply" out &&
	test_expect_code 1 bp_in k-noblobs wd-n --skip -m "f3 stays" &&
	cat out err &&
	test_grep "s 5/5 does not apply" out &&
	(cd k-noblobs && mkseries plan --branch t >../plan) &&
	test_grep "which is not applied on t" plan &&
	bp_in k-noblobs wd-n --skip -m "f5 stays" &&
	cat out err &&
	mk_git up5 log --format=%s $(git -C up5 rev-parse stable)..$(kit_ref k-noblobs t) >log &&
	printf "%s\n" "lib: change f4" "lib: change f2" >log.expect &&
	test_cmp log.expect log
'

# kit_copy NAME FROM: a fresh copy of the pristine kit FROM (k-b0 or k-nb0).
kit_copy() {
	rm -rf "$1" && cp -R "$2" "$1"
}

test_expect_success '--continue refuses a marker triple in a file the loop did not merge, not a lone marker or an underline' '
	kit_copy k-mark k-b0 &&
	test_expect_code 1 bp_in k-mark wd-mark &&
	tree=wd-mark/t/backport/tree &&
	seq 1 12 | sed -e "s/^/f1 line /" -e "s/^f1 line 5\$/f1 line 5 stable upstream/" >$tree/lib/f1.c &&
	printf "<<<<<<<\nmine\n=======\ntheirs\n>>>>>>>\n" >>$tree/lib/f2.c &&
	printf "<<<<<<< only one\n" >>$tree/lib/f4.c &&
	printf "More\n=======\n" >>$tree/doc/t.rst &&
	printf "New\n=======\n\nText.\n" >$tree/doc/new.rst &&
	test_expect_code 1 bp_in k-mark wd-mark --continue &&
	cat err &&
	test_grep "not resolved yet" err &&
	test_grep "^lib/f2.c:13: conflict marker left$" err &&
	test_grep "^hint: if the markers in lib/f2.c are meant to be there: mkseries backport --branch t --continue --accept-markers lib/f2.c$" err &&
	! test_grep "doc/" err &&
	! test_grep "lib/f1.c" err &&
	! test_grep "lib/f4.c" err &&
	! test -d k-mark/patches/s/t &&
	sed -i "/^<<<<<<<\$/,/^>>>>>>>\$/d" $tree/lib/f2.c &&
	test_expect_code 1 bp_in k-mark wd-mark --continue &&
	test_grep "recorded patches/s/t/0001-" out &&
	test_grep "s 3/5 does not apply" out
'

test_expect_success 'the loop.s own markers count alone; --accept-markers takes a file.s markers as meant, and is kept' '
	kit_copy k-acc k-b0 &&
	test_expect_code 1 bp_in k-acc wd-acc &&
	tree=wd-acc/t/backport/tree &&
	test_grep "^<<<<<<< tree$" $tree/lib/f1.c &&
	sed -i "/^<<<<<<< tree\$/d" $tree/lib/f1.c &&
	test_expect_code 1 bp_in k-acc wd-acc --continue &&
	test_grep "^lib/f1.c:[0-9]*: conflict marker left$" err &&
	test_expect_code 2 bp_in k-acc wd-acc --accept-markers lib/f1.c &&
	test_expect_code 1 bp_in k-acc wd-acc --continue --accept-markers lib/nosuch.c &&
	test_grep "^error: --accept-markers .lib/nosuch.c.: not a file of the work tree .*wd-acc/t/backport/tree. (a path as --status shows it, e.g. mm/mremap.c)$" err &&
	echo left >$tree/lib/f1.c.rej &&
	test_expect_code 1 bp_in k-acc wd-acc --continue --accept-markers lib/f1.c &&
	test_grep "^the conflict markers in lib/f1.c are taken as meant$" out &&
	test_grep "^lib/f1.c.rej: still there$" err &&
	! test_grep "conflict marker" err &&
	test_expect_code 1 bp_in k-acc wd-acc --status &&
	test_grep "^  accepted  lib/f1.c (its conflict markers are meant: --accept-markers)$" out &&
	rm $tree/lib/f1.c.rej &&
	test_expect_code 1 bp_in k-acc wd-acc --continue &&
	test_grep "recorded patches/s/t/0001-" out &&
	grep -c "^+>>>>>>> upstream patch$" k-acc/patches/s/t/0001-*.patch >n &&
	echo 1 >n.expect &&
	test_cmp n.expect n
'

test_expect_success 'the conflict-marker-size attribute of the work tree is honoured' '
	kit_copy k-size k-b0 &&
	test_expect_code 1 bp_in k-size wd-size &&
	tree=wd-size/t/backport/tree &&
	seq 1 12 | sed -e "s/^/f1 line /" -e "s/^f1 line 5\$/f1 line 5 stable upstream/" >$tree/lib/f1.c &&
	printf "%s\n" "lib/f2.c conflict-marker-size=9" "lib/f4.c conflict-marker-size=9" >$tree/.gitattributes &&
	printf "<<<<<<<\nmine\n=======\ntheirs\n>>>>>>>\n" >>$tree/lib/f2.c &&
	printf "<<<<<<<<< a\nmine\n=========\ntheirs\n>>>>>>>>> b\n" >>$tree/lib/f4.c &&
	test_expect_code 1 bp_in k-size wd-size --continue &&
	test_grep "^lib/f4.c:13: conflict marker left$" err &&
	! test_grep "lib/f2.c" err &&
	sed -i "/^<<<<<<<<< a\$/d" $tree/lib/f4.c &&
	test_expect_code 1 bp_in k-size wd-size --continue &&
	test_grep "recorded patches/s/t/0001-" out
'

test_expect_success 'the note says what the resolution did to each file: dropped, redone, added' '
	kit_copy k-note k-nb0 &&
	test_expect_code 1 bp_in k-note wd-note &&
	tree=wd-note/t/backport/tree &&
	rm $tree/lib/f1.c.rej $tree/lib/f1.c.rej.why &&
	sed -i "s/^f2 line 9\$/f2 line 9 for t/" $tree/lib/f2.c &&
	test_expect_code 1 bp_in k-note wd-note --continue &&
	grep "^\[ Back Porter" k-note/patches/s/t/0001-*.patch >note &&
	echo "[ Back Porter: backported to t; lib/f1.c (dropped) lib/f2.c (added: not in the patch) ]" >note.expect &&
	test_cmp note.expect note &&
	test_grep "s 3/5 does not apply" out &&
	sed -i "s/^f3 line 5 stable\$/f3 line 5 stable upstream/" $tree/lib/f3.c &&
	rm $tree/lib/f3.c.rej $tree/lib/f3.c.rej.why &&
	test_expect_code 1 bp_in k-note wd-note --continue &&
	grep "^\[ Back Porter" k-note/patches/s/t/0002-*.patch >note &&
	echo "[ Back Porter: backported to t; lib/f3.c (rejected hunks redone) ]" >note.expect &&
	test_cmp note.expect note
'

test_expect_success '--status counts the hunks of the .rej and exits 0 only when nothing is left' '
	kit_copy k-st k-nb0 &&
	test_expect_code 1 bp_in k-st wd-st &&
	test_expect_code 1 bp_in k-st wd-st --status &&
	cat out &&
	test_grep "rejected  lib/f1.c (1 of 1 hunks in lib/f1.c.rej" out &&
	test_grep "^lib/f1.c.rej: still there" out &&
	rm wd-st/t/backport/tree/lib/f1.c.rej wd-st/t/backport/tree/lib/f1.c.rej.why &&
	bp_in k-st wd-st --status &&
	test_grep "nothing left to resolve: --continue records it" out
'

test_expect_success 'the loop is found without --branch; with two loops, each is named' '
	(cd k-st && mkseries backport --workdir "$TRASH_DIRECTORY/wd-st" --status >../out 2>../err) &&
	test_grep "^backport loop on .t." out &&
	sed "s/^name: t\$/name: u/" k-st/kernels/t.yaml >k-st/kernels/u.yaml &&
	(cd k-st && test_expect_code 1 mkseries backport --branch u --workdir "$TRASH_DIRECTORY/wd-st" >../out 2>../err) &&
	test_grep "^u: s 1/5 does not apply" out &&
	(cd k-st && test_expect_code 2 mkseries backport --workdir "$TRASH_DIRECTORY/wd-st" --continue >../out 2>../err) &&
	cat err &&
	test_grep "backport loops are in progress on 2 branches; name one" err &&
	test_grep "mkseries backport --branch t" err &&
	test_grep "mkseries backport --branch u" err &&
	(cd k-st && mkseries backport --branch u --workdir "$TRASH_DIRECTORY/wd-st" --abort >../out 2>../err) &&
	(cd k-st && mkseries backport --workdir "$TRASH_DIRECTORY/wd-st" --abort >../out 2>../err) &&
	test_grep "backport loop on .t. aborted" out &&
	(cd k-st && mkseries backport --workdir "$TRASH_DIRECTORY/wd-st" --status >../out 2>../err) &&
	test_grep "no backport loop in progress in this kit" out &&
	(cd k-st && test_expect_code 2 mkseries backport --workdir "$TRASH_DIRECTORY/wd-st" --continue >../out 2>../err) &&
	test_grep "no backport loop in progress in this kit" err
'

test_expect_success '--skip without -m says that it needs a reason' '
	kit_copy k-sk k-nb0 &&
	test_expect_code 1 bp_in k-sk wd-sk &&
	test_expect_code 2 bp_in k-sk wd-sk --skip &&
	test_grep "error: --skip needs the reason it records in series.yaml: --skip -m \"why\"" err &&
	test_expect_code 1 bp_in k-sk wd-sk --status
'

test_expect_success '--abort keeps the edits made to series.yaml during the loop' '
	kit_copy k-ed k-nb0 &&
	test_expect_code 1 bp_in k-ed wd-ed &&
	tree=wd-ed/t/backport/tree &&
	sed -i "s/^f1 line 5 stable\$/f1 line 5 stable upstream/" $tree/lib/f1.c &&
	rm $tree/lib/f1.c.rej $tree/lib/f1.c.rej.why &&
	test_expect_code 1 bp_in k-ed wd-ed --continue &&
	test_grep "\"t\": { file: patches/s/t/0001-" k-ed/series.yaml &&
	sed -i "s/title: \"lib: five changes\"/title: \"lib: five changes, edited\"/" k-ed/series.yaml &&
	bp_in k-ed wd-ed --abort &&
	cat out &&
	test_grep "series.yaml: the loop.s decisions taken out, the edits made meanwhile kept" out &&
	sed "s/title: \"lib: five changes\"/title: \"lib: five changes, edited\"/" yaml.orig >yaml.expect &&
	test_cmp yaml.expect k-ed/series.yaml &&
	! test -d wd-ed/t/backport
'

test_expect_success '--abort works on a series.yaml that no longer loads' '
	kit_copy k-br k-nb0 &&
	test_expect_code 1 bp_in k-br wd-br &&
	test_expect_code 1 bp_in k-br wd-br --skip -m "f1 stays" &&
	test_grep "\"t\": { skip: \"f1 stays\" }" k-br/series.yaml &&
	echo "  - id: [broken" >>k-br/series.yaml &&
	(cd k-br && test_must_fail mkseries plan --branch t >../out 2>../err) &&
	bp_in k-br wd-br --abort &&
	cat err out &&
	test_grep "warning: series.yaml does not load; --abort takes the loop.s changes out all the same" err &&
	test_grep "aborted" out &&
	{ cat yaml.orig && echo "  - id: [broken"; } >yaml.expect &&
	test_cmp yaml.expect k-br/series.yaml &&
	! test -d wd-br/t/backport
'

test_expect_success 'a hunk that does not apply is shown where its context is in the tree' '
	mkdir -p up6/lib &&
	(
		cd up6 &&
		git init -q &&
		seq 1 40 | sed "s/^/g line /" >lib/g.c &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		sed -i "s/^g line 30\$/g line thirty/" lib/g.c &&
		git commit -q -a -m "lib: spell g line 30" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		git checkout -q -b stable v1.0 &&
		sed -i -e "1i top 1" -e "1i top 2" -e "1i top 3" -e "1i top 4" -e "1i top 5" \
			-e "1i top 6" -e "1i top 7" -e "1i top 8" -e "1i top 9" -e "1i top 10" lib/g.c &&
		sed -i "s/^g line 30\$/g line 30 (stable)/" lib/g.c &&
		git commit -q -a -m "stable: ten lines on top, line 30" &&
		git checkout -q master
	) &&
	mkdir -p k-ctx/kernels k-ctx/patches/g &&
	git -C up6 format-patch -q -o "$PWD/k-ctx/patches/g" v1.0..master &&
	sed "s|up5, ref: stable|up6, ref: stable|" k-b0/kernels/t.yaml >k-ctx/kernels/t.yaml &&
	printf "series:\n  - id: g\n    title: g\n    patches:\n      - file: patches/g/0001-lib-spell-g-line-30.patch\n        upstream: %s\n" \
		$(git -C up6 rev-parse --short=12 master) >k-ctx/series.yaml &&
	(cd k-ctx && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "the patch expects at lines 27-33:" err &&
	test_grep "the tree has at lines 34-46 (where the hunk.s context is now):" err &&
	test_grep "^ *40 !g line 30 (stable)\$" err
'

test_done

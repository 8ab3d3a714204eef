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

# bp KIT WD ARGS...: mkseries backport on KIT's branch t, out and err kept.
bp() {
	k=$1 wd=$2 &&
	shift 2 &&
	(cd "$k" && mkseries backport --branch t --workdir "$TRASH_DIRECTORY/$wd" "$@" >../out 2>../err)
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
	cp k-blobs/series.yaml yaml.orig &&
	ID_P1=$(echo $P1 | cut -c1-12) && ID_P3=$(echo $P3 | cut -c1-12) && ID_X=$(echo $X | cut -c1-12)
'

test_expect_success 'with the blobs: the first patch conflicts' '
	test_expect_code 1 bp k-blobs wd-b &&
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
	test_expect_code 1 bp k-blobs wd-b --continue &&
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
	test_expect_code 1 bp k-blobs wd-b --continue &&
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
	test_expect_code 1 bp k-blobs wd-b --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0003-$ID_X-lib-fix-f3.patch" out &&
	test_grep "s 5/5 does not apply" out &&
	test_grep "conflict  lib/f5.c" out &&
	bp k-blobs wd-b --skip -m "f5 keeps the stable line" &&
	cat out err &&
	test_grep "t: refs/heads/mkseries/.* -> " out &&
	test_grep "\"t\": { skip: \"f5 keeps the stable line\" }" k-blobs/series.yaml &&
	ref=$(kit_ref k-blobs t) &&
	git -C up5 show $ref:lib/f1.c >f1 && test_grep "^f1 line 5 stable upstream\$" f1 &&
	git -C up5 show $ref:lib/f3.c >f3 && test_grep "^f3 line 6 fixed\$" f3 &&
	test_grep "^f3 line 5 stable upstream\$" f3 &&
	git -C up5 show $ref:lib/f4.c >f4 && test_grep "^f4 line 5 upstream\$" f4 &&
	git -C up5 show $ref:lib/f5.c >f5 && test_grep "^f5 line 5 stable\$" f5 &&
	git -C up5 log --format=%s stable..$ref >log &&
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
	git -C up5 rev-parse $ref^{tree} >tree.loop &&
	git -C up5 update-ref -d $ref &&
	(cd k-blobs && mkseries apply --branch t >../out 2>../err) &&
	git -C up5 rev-parse $ref^{tree} >tree.apply &&
	test_cmp tree.loop tree.apply
'

test_expect_success 'without the blobs: the first patch is left in a .rej' '
	test_expect_code 1 bp k-noblobs wd-n &&
	cat out &&
	test_grep "s 1/5 does not apply" out &&
	test_grep "rejected  lib/f1.c (1 of 1 hunks in lib/f1.c.rej" out &&
	test_grep "^+f1 line 5 upstream" wd-n/t/backport/tree/lib/f1.c.rej
'

test_expect_success 'without the blobs: the third patch, with two entries applied before it' '
	tree=wd-n/t/backport/tree &&
	sed -i "s/^f1 line 5 stable\$/f1 line 5 stable upstream/" $tree/lib/f1.c &&
	rm $tree/lib/f1.c.rej $tree/lib/f1.c.rej.why &&
	test_expect_code 1 bp k-noblobs wd-n --continue &&
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
	bp k-noblobs wd-n --status &&
	test_grep "nothing left to resolve" out &&
	test_expect_code 1 bp k-noblobs wd-n --continue &&
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
	test_expect_code 1 bp k-noblobs wd-n --continue &&
	cat out err &&
	test_grep "recorded patches/s/t/0003-$ID_X-lib-fix-f3.patch" out &&
	test_grep "s 5/5 does not apply" out &&
	test_grep "rejected  lib/f5.c (1 of 1 hunks" out &&
	ls k-noblobs/patches/s/t >recorded &&
	test $(wc -l <recorded) = 3
'

test_expect_success 'without the blobs: --abort after three resolutions leaves the kit as it was' '
	bp k-noblobs wd-n --abort &&
	cat out err &&
	test_grep "removed patches/s/t/0001-$ID_P1-lib-change-f1.patch" out &&
	test_grep "aborted" out &&
	test_cmp yaml.orig k-noblobs/series.yaml &&
	ls k-noblobs/patches/s/t >left &&
	test_must_be_empty left &&
	! test -d wd-n/t/backport &&
	git -C up5 worktree list >wt &&
	! test_grep mkseries-backport wt
'

test_expect_success 'without the blobs: --skip at the first patch, then the loop runs again to the end' '
	test_expect_code 1 bp k-noblobs wd-n &&
	test_grep "s 1/5 does not apply" out &&
	test_expect_code 1 bp k-noblobs wd-n --skip -m "f1 stays" &&
	cat out err &&
	test_grep "s 3/5 does not apply" out &&
	test_expect_code 1 bp k-noblobs wd-n --skip -m "f3 stays" &&
	cat out err &&
	test_grep "s 5/5 does not apply" out &&
	(cd k-noblobs && mkseries plan --branch t >../plan) &&
	test_grep "which is not applied on t" plan &&
	bp k-noblobs wd-n --skip -m "f5 stays" &&
	cat out err &&
	git -C up5 log --format=%s stable..$(kit_ref k-noblobs t) >log &&
	printf "%s\n" "lib: change f4" "lib: change f2" >log.expect &&
	test_cmp log.expect log
'

test_done

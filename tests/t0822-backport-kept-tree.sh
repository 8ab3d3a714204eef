#!/bin/sh
# t0822-backport-kept-tree.sh: the loop's work tree is kept from one stop to the next, as git am keeps its tree: only the paths the last resolution and the next patch change are written; what the stop before left (edits, new files, .rej) never reaches the next patch.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# make_up3 DIR: lib/a.c, lib/b.c, lib/c.c of twelve lines and twenty
# files in drivers/ no patch touches, with a .gitignore that hides *.o
# and *.rej as the kernel's does; upstream commits P1..P3 change line 5
# of a.c, b.c and c.c. Branch "stable" changes line 5 of all three, so
# that each patch conflicts there.
make_up3() {
	mkdir -p "$1/lib" "$1/drivers" &&
	(
		cd "$1" &&
		git init -q &&
		for f in a b c
		do
			seq 1 12 | sed "s/^/$f line /" >lib/$f.c || return 1
		done &&
		for i in $(seq 1 20)
		do
			echo "driver $i" >drivers/d$i.c || return 1
		done &&
		printf "*.o\n*.rej\n" >.gitignore &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		for f in a b c
		do
			sed -i "s/^$f line 5\$/$f line 5 upstream/" lib/$f.c &&
			git commit -q -a -m "lib: change $f" -m "Signed-off-by: Dev Eloper <dev@example.org>" ||
			return 1
		done &&
		git checkout -q -b stable v1.0 &&
		sed -i "s/line 5\$/line 5 stable/" lib/a.c lib/b.c lib/c.c &&
		git commit -q -a -m "stable: line 5 of three files" &&
		git checkout -q master
	)
}

# make_kit3 DIR UPSTREAM: a kit of one series, P1..P3, on branch t
# (UPSTREAM's "stable"); without the preimage blobs (index lines made
# up), so each patch's hunk goes to a .rej.
make_kit3() {
	mkdir -p "$1/kernels" "$1/patches/s" &&
	git -C "$2" format-patch -q -o "$PWD/$1/patches/s" v1.0..master &&
	sed -i "s/^index [0-9a-f]*\.\.[0-9a-f]*/index 1234567..89abcde/" "$1"/patches/s/*.patch &&
	cat >"$1/kernels/t.yaml" <<-EOF_KERNEL &&
	name: t
	source:
	  git: { repo: $PWD/$2, ref: stable }
	config:
	  base: tinyconfig
	EOF_KERNEL
	{
		printf "series:\n  - id: s\n    title: \"lib: three changes\"\n    patches:\n" &&
		for f in a b c
		do
			printf "      - file: %s\n" $(cd "$1" && ls patches/s/*-change-$f.patch) || return 1
		done
	} >"$1/series.yaml"
}

# id FILE: the inode and modification time (to the nanosecond) of FILE.
id() {
	stat -c "%i %y" "$1"
}

# resolve TREE F: line 5 of lib/F.c as the backporter writes it, the .rej gone.
resolve() {
	seq 1 12 | sed -e "s/^/$2 line /" -e "s/^$2 line 5\$/$2 line 5 stable upstream/" >"$1/lib/$2.c" &&
	rm -f "$1/lib/$2.c.rej" "$1/lib/$2.c.rej.why"
}

test_expect_success 'setup: three patches that each leave a .rej on the stable tree' '
	make_up3 up &&
	make_kit3 kit up &&
	cp -R kit k &&
	tree=wd-k/t/backport/tree &&
	test_expect_code 1 bp k &&
	cat out &&
	test_grep "s 1/3 does not apply" out &&
	test -f $tree/lib/a.c.rej &&
	echo object >$tree/drivers/d1.o &&
	id $tree/drivers/d1.c >d1.before &&
	id $tree/drivers/d1.o >d1o.before &&
	id $tree/lib/c.c >c.before
'

test_expect_success '--continue that stops at the next patch writes only what changes: untouched files keep inode and mtime' '
	resolve $tree a &&
	test_expect_code 1 bp k --continue &&
	cat out err &&
	test_grep "s 2/3 does not apply" out &&
	test -f $tree/lib/b.c.rej &&
	id $tree/drivers/d1.c >d1.after &&
	test_cmp d1.before d1.after &&
	id $tree/lib/c.c >c.after &&
	test_cmp c.before c.after &&
	id $tree/drivers/d1.o >d1o.after &&
	test_cmp d1o.before d1o.after &&
	test_grep "^a line 5 stable upstream\$" $tree/lib/a.c &&
	git -C $tree status --porcelain --untracked-files=all >status &&
	echo "?? lib/b.c.rej.why" >status.expect &&
	test_cmp status.expect status &&
	git -C $tree diff --cached --quiet &&
	git -C $tree log -1 --format=%s >head &&
	echo "lib: change a" >head.expect &&
	test_cmp head.expect head
'

test_expect_success '--skip after a mess: edits, a new file and the .rej are gone at the next stop; the rest stays' '
	echo "edited" >>$tree/drivers/d2.c &&
	echo "new" >$tree/lib/new.c &&
	rm $tree/drivers/d3.c &&
	test_expect_code 1 bp k --skip -m "t does not need it" &&
	cat out err &&
	test_grep "s 3/3 does not apply" out &&
	git -C $tree status --porcelain --untracked-files=all >status &&
	echo "?? lib/c.c.rej.why" >status.expect &&
	test_cmp status.expect status &&
	! test -e $tree/lib/b.c.rej &&
	! test -e $tree/lib/b.c.rej.why &&
	! test -e $tree/lib/new.c &&
	echo "driver 2" >d2.expect &&
	test_cmp d2.expect $tree/drivers/d2.c &&
	test -f $tree/drivers/d3.c &&
	test_grep "^b line 5 stable\$" $tree/lib/b.c &&
	id $tree/drivers/d1.c >d1.after &&
	test_cmp d1.before d1.after &&
	test -f $tree/drivers/d1.o
'

test_expect_success 'each recorded patch is the diff of its resolution only' '
	resolve $tree c &&
	bp k --continue &&
	cat out err &&
	test_grep "^t: .* -> " out &&
	! test -d wd-k/t/backport &&
	for f in a c
	do
		p=$(ls k/patches/s/t/*-change-$f.patch) &&
		grep "^diff --git" $p >files &&
		echo "diff --git a/lib/$f.c b/lib/$f.c" >files.expect &&
		test_cmp files.expect files || return 1
	done &&
	test_grep "\"t\": { skip: \"t does not need it\" }" k/series.yaml &&
	mk_git up worktree list >wt &&
	! test_grep mkseries-backport wt
'

test_expect_success 'killed while it brings the kept tree to the next patch: --status says so, --continue checks out again' '
	rm -rf k2 wd-k2 && cp -R kit k2 &&
	tree=wd-k2/t/backport/tree &&
	test_expect_code 1 bp k2 &&
	echo "edited" >>$tree/drivers/d2.c &&
	MKSERIES_TEST_BACKPORT_CRASH=resetting test_expect_code 137 bp k2 --skip -m "t does not need it" &&
	bp k2 --status &&
	cat out &&
	test_grep "interrupted: killed while checking out the work tree of s 2/3" out &&
	test_expect_code 1 bp k2 --continue &&
	cat out &&
	test_grep "removed the half checked-out work tree" out &&
	test_grep "s 2/3 does not apply" out &&
	git -C $tree status --porcelain --untracked-files=all >status &&
	echo "?? lib/b.c.rej.why" >status.expect &&
	test_cmp status.expect status &&
	bp k2 --abort &&
	test_cmp kit/series.yaml k2/series.yaml &&
	! test -d wd-k2/t/backport
'

test_done

#!/bin/sh
# t0730-export.sh: mkseries export: stable mails, a Debian quilt series and RPM patches, each round-tripped to the applied tree.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

DATA="$TEST_DIRECTORY/data/results"

# tree_of DIR: the tree id of DIR's files as they are (quilt's .pc left out).
tree_of() {
	(
		cd "$1" &&
		rm -rf .pc &&
		git init -q &&
		git add -A &&
		git write-tree
	)
}

# kernel NAME QEMU: kernels/NAME.yaml, the fake kbuild tree, booted by QEMU.
kernel() {
	cat >kit/kernels/$1.yaml <<-EOF
	name: "$1"
	source:
	  git: { repo: $TRASH_DIRECTORY/linux, ref: v1.0-mk }
	config:
	  base: tinyconfig
	boot:
	  qemu: $2
	  accel: tcg
	EOF
}

test_expect_success 'setup: a kit with a rich upstream commit and a patch of our own, run on 1.0' '
	make_upstream linux &&
	make_kit kit linux &&
	(
		cd linux &&
		printf "int gamma(void)\n{\n\treturn 0;\n}\n" >mm/gamma.c &&
		git add mm/gamma.c &&
		GIT_AUTHOR_NAME="Zoë Ünïcode" GIT_AUTHOR_EMAIL=zoe@example.org \
		GIT_AUTHOR_DATE="1700000000 -0800" \
		git commit -q -m "mm: add gamma, for \"quoted\" reasons" \
			-m "Gamma keeps the count right when the batch ends early." \
			-m "Fixes: $(git rev-parse --short=12 HEAD~3) (\"mm: batch ptes\")
Closes: https://bugzilla.example.org/show_bug.cgi?id=42
Link: https://lore.kernel.org/r/20250101-gamma-v2-1@example.org
Reviewed-by: Re Viewer <rv@example.org>
Acked-by: Ac Ker <ack@example.org>
Cc: <stable@vger.kernel.org>
Signed-off-by: Zoë Ünïcode <zoe@example.org>
Signed-off-by: Mm Maintainer <akpm@example.org>" &&
		git tag v1.1 &&
		git checkout -q -b stable v1.0 &&
		cp "$DATA/fake-kbuild.mk" Makefile &&
		git add Makefile &&
		git commit -q -m "fake kbuild" &&
		git tag v1.0-mk &&
		git checkout -q master
	) &&
	G1=$(git -C linux rev-parse v1.1) &&
	mkdir -p kit/patches/gamma kit/patches/own &&
	git -C linux format-patch -q -o "$PWD/kit/patches/gamma" -1 $G1 &&
	# the backporter s note after the upstream trailers, where stable puts it
	sed -i "s/^Signed-off-by: Se Park <sj@example.org>\$/&\n[ Back Porter: the locking is split the same way on 1.0 ]/" \
		kit/patches/beta/0001-madvise-split-locking.patch &&
	git init -q own &&
	(
		cd own &&
		echo "own" >file &&
		git add file &&
		git commit -q -m base &&
		mkdir -p mm &&
		printf "/* tuned */\n" >mm/own.c &&
		git add mm/own.c &&
		git commit -q -F - <<-\EOF &&
		mm: a tuning of our own

		Written for this kit;   its spacing   stays as it is.
		Tested-by:    Some One <one@example.org>
		EOF
		git log -1 --format=%B >../own.msg &&
		git format-patch -q -1 -o ../kit/patches/own
	) &&
	cat >>kit/series.yaml <<-EOF &&
	  - id: gamma
	    title: "mm: gamma"
	    patches:
	      - file: patches/gamma/0001-mm-add-gamma-for-quoted-reasons.patch
	        upstream: $G1
	        subject: "mm: add gamma, for \"quoted\" reasons"
	  - id: own
	    title: "our own tuning"
	    patches:
	      - file: patches/own/0001-mm-a-tuning-of-our-own.patch
	        subject: "mm: a tuning of our own"
	EOF
	cp "$DATA/fake-qemu" fake-qemu &&
	printf "#!/bin/sh\necho no boot for you >&2\nexit 1\n" >broken-qemu &&
	chmod +x broken-qemu &&
	rm kit/kernels/t.yaml &&
	kernel 1.0 "$TRASH_DIRECTORY/fake-qemu" &&
	printf "claims:\n  - { metric: steady.ns_per_op, below: 60 }\n" >>kit/kernels/1.0.yaml &&
	kernel 2.0 "$TRASH_DIRECTORY/fake-qemu" &&
	kernel 3.0 "$TRASH_DIRECTORY/broken-qemu" &&
	(cd kit && mkseries run --branch 1.0 --workdir ../work >../run.out 2>&1) &&
	REF=$(kit_ref kit 1.0) &&
	BASE=$(mk_git linux rev-parse "refs/tags/mkseries/base/1.0^{commit}") &&
	mk_git linux rev-parse $REF^{tree} >applied.tree &&
	test $(mk_git linux rev-list --count $BASE..$REF) = 7
'

test_expect_success 'mbox: numbered mails with [PATCH 1.0.y N/M] subjects and a cover letter' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../mbox >../out) &&
	test_grep "^1.0: 7 patches from $REF .* verified by its last run, in ../mbox/" out &&
	ls mbox >files &&
	printf "%s\n" 0000-cover-letter.patch 0001-mm-rename-ptes.patch 0002-mm-batch-ptes.patch \
		0003-mm-fix-batch-ptes.patch 0004-mm-fix-the-fix.patch \
		0005-madvise-split-locking.patch 0006-mm-add-gamma-for-quoted-reasons.patch \
		0007-mm-a-tuning-of-our-own.patch >files.expect &&
	test_cmp files.expect files &&
	test_grep "^Subject: \[PATCH 1.0.y 2/7\] mm: batch ptes\$" mbox/0002-mm-batch-ptes.patch &&
	test_grep "^Subject: \[PATCH 1.0.y 0/7\] backports for 1.0.y: alpha, beta, gamma, own\$" mbox/0000-cover-letter.patch &&
	test_grep "^From $(mk_git linux rev-parse $REF~5) Mon Sep 17 00:00:00 2001\$" \
		mbox/0002-mm-batch-ptes.patch &&
	test_grep "^From: =?UTF-8?q?Zo=C3=AB_=C3=9Cn=C3=AFcode?= <zoe@example.org>\$" \
		mbox/0006-mm-add-gamma-for-quoted-reasons.patch &&
	test_grep "^Date: Tue, 14 Nov 2023 14:13:20 -0800\$" mbox/0006-mm-add-gamma-for-quoted-reasons.patch &&
	test_grep "^Content-Type: text/plain; charset=UTF-8\$" mbox/0006-mm-add-gamma-for-quoted-reasons.patch &&
	! grep -l libgit2 mbox/*
'

test_expect_success 'mbox: git am onto the base gives exactly the applied tree' '
	git clone -q linux am &&
	git -C am checkout -q --detach $BASE &&
	git -C am am -q $(ls -d "$PWD"/mbox/* | grep -v 0000-cover) &&
	git -C am rev-parse HEAD^{tree} >am.tree &&
	test_cmp applied.tree am.tree
'

test_expect_success 'mbox: upstream message, trailers, author and date survive byte for byte' '
	{
		echo "commit $G1 upstream." &&
		echo &&
		git -C linux log -1 --format=%b $G1 | sed "\$d" &&
		echo "Signed-off-by: Back Porter <backporter@example.com>" &&
		echo
	} >gamma.expect &&
	git -C am log -1 --format=%b HEAD~1 >gamma.got &&
	test_cmp gamma.expect gamma.got &&
	git -C linux log -1 --format="%an <%ae> %ad %s" --date=raw $G1 >who.expect &&
	git -C am log -1 --format="%an <%ae> %ad %s" --date=raw HEAD~1 >who.got &&
	test_cmp who.expect who.got &&
	git -C am log -1 --format="%an <%ae> %ad" --date=raw HEAD~6 >a1.got &&
	git -C linux log -1 --format="%an <%ae> %ad" --date=raw $A1 >a1.expect &&
	test_cmp a1.expect a1.got &&
	git -C am log -1 --format=%B HEAD~6 >a1.msg &&
	sed -n 3p a1.msg >a1.line &&
	echo "commit $A1 upstream." >a1.line.expect &&
	test_cmp a1.line.expect a1.line
'

test_expect_success 'mbox: the backporter note sits between the upstream trailers and the sign-off' '
	git -C am log -1 --format=%b HEAD~2 >beta.got &&
	printf "%s\n" "commit $B1 upstream." "" "Signed-off-by: Se Park <sj@example.org>" \
		"[ Back Porter: the locking is split the same way on 1.0 ]" \
		"Signed-off-by: Back Porter <backporter@example.com>" "" >beta.expect &&
	test_cmp beta.expect beta.got
'

test_expect_success 'mbox: our own patch keeps its message byte for byte' '
	git -C am log -1 --format=%B HEAD >own.got &&
	test_cmp own.msg own.got &&
	test_grep "^Tested-by:    Some One <one@example.org>\$" mbox/0007-mm-a-tuning-of-our-own.patch &&
	test_grep ! "Signed-off-by" mbox/0007-mm-a-tuning-of-our-own.patch
'

test_expect_success 'mbox: the cover letter has the verdict in the report words and a Tested-by' '
	c=mbox/0000-cover-letter.patch &&
	test_grep "^From: Back Porter <backporter@example.com>\$" $c &&
	test_grep "^  6/7 mm: add gamma, for \"quoted\" reasons\$" $c &&
	test_grep "^      commit $G1 upstream, in v1.1\$" $c &&
	test_grep "^      no upstream commit: the kit.s own patch\$" $c &&
	test_grep "^## mkseries results\$" $c &&
	test_grep "^2 cells: 2 ok; 0 regressions" $c &&
	test_grep "^| gamma  *| applied" $c &&
	test_grep "^Claims:\$" $c &&
	test_grep "^    1.0 kit: branch 1.0: steady.ns_per_op .*60.*: held" $c &&
	test_grep "^Tested-by: Back Porter <backporter@example.com> # 1.0\$" $c
'

test_expect_success 'mbox: git send-email --dry-run takes the directory as it is' '
	git send-email --dry-run --confirm=never --to=stable@vger.kernel.org mbox </dev/null >send.out 2>&1 &&
	test $(grep -c "^Dry-OK. Log says:" send.out) = 8 &&
	test_grep "^Subject: \[PATCH 1.0.y 7/7\] mm: a tuning of our own" send.out
'

test_expect_success '--subject-prefix changes the prefix' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../rfc/ \
		--subject-prefix "RFC PATCH 1.0.y" >../out) &&
	test_grep "in ../rfc/\$" out &&
	test_grep "^Subject: \[RFC PATCH 1.0.y 1/7\] mm: rename ptes\$" rfc/0001-mm-rename-ptes.patch &&
	test_grep "^Subject: \[RFC PATCH 1.0.y 0/7\] " rfc/0000-cover-letter.patch
'

test_expect_success 'quilt: series and DEP-3 headers, named as Debian files backports' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work -o ../debian-patches >../out) &&
	grep -v "^#" debian-patches/series >series &&
	printf "%s\n" features/all/mm-rename-ptes.patch features/all/mm-batch-ptes.patch \
		bugfix/all/mm-fix-batch-ptes.patch bugfix/all/mm-fix-the-fix.patch \
		features/all/madvise-split-locking.patch bugfix/all/mm-add-gamma-for-quoted-reasons.patch \
		features/all/mm-a-tuning-of-our-own.patch >series.expect &&
	test_cmp series.expect series &&
	p=debian-patches/bugfix/all/mm-add-gamma-for-quoted-reasons.patch &&
	test_grep "^Description: mm: add gamma, for \"quoted\" reasons\$" $p &&
	test_grep "^ Gamma keeps the count right when the batch ends early.\$" $p &&
	test_grep "^Author: Zoë Ünïcode <zoe@example.org>\$" $p &&
	test_grep "^Origin: upstream, https://git.kernel.org/linus/$G1\$" $p &&
	test_grep "^Applied-Upstream: v1.1, https://git.kernel.org/linus/$G1\$" $p &&
	test_grep "^Bug: https://bugzilla.example.org/show_bug.cgi?id=42\$" $p &&
	test_grep "^Link: https://lore.kernel.org/r/20250101-gamma-v2-1@example.org\$" $p &&
	test_grep "^Forwarded: not-needed\$" $p &&
	test_grep "^Last-Update: [0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\$" $p &&
	test_grep "^Origin: vendor\$" debian-patches/features/all/mm-a-tuning-of-our-own.patch &&
	test_grep "^Forwarded: no\$" debian-patches/features/all/mm-a-tuning-of-our-own.patch
'

test_expect_success 'quilt: quilt push -a on the base gives the applied tree' '
	mkdir q &&
	git -C linux archive $BASE | tar -x -C q &&
	(cd q && QUILT_PATCHES="$TRASH_DIRECTORY/debian-patches" quilt push -a -q >../quilt.out) &&
	test_grep "^Now at patch .*/features/all/mm-a-tuning-of-our-own.patch\$" quilt.out &&
	tree_of q >quilt.tree &&
	test_cmp applied.tree quilt.tree
'

test_expect_success 'quilt: the README recipe adds them to a package that has patches of its own' '
	mkdir -p pkg/debian/patches/debian &&
	printf "%s\n" "--- a/OWN" "+++ b/OWN" "@@ -0,0 +1 @@" "+ours" \
		>pkg/debian/patches/debian/own.patch &&
	echo debian/own.patch >pkg/debian/patches/series &&
	git -C linux archive $BASE | tar -x -C pkg &&
	(cd pkg && cp -r ../debian-patches/*/ debian/patches/ &&
	 cat ../debian-patches/series >>debian/patches/series &&
	 QUILT_PATCHES=debian/patches quilt push -a -q >../quilt.out) &&
	test_grep "^Now at patch debian/patches/features/all/mm-a-tuning-of-our-own.patch\$" quilt.out &&
	echo ours >own.expect &&
	test_cmp own.expect pkg/OWN &&
	rm -rf pkg/debian pkg/.pc pkg/OWN &&
	tree_of pkg >pkg.tree &&
	test_cmp applied.tree pkg.tree
'

test_expect_success 'rpm: patch files and PatchNNNN lines; rpmbuild -bp gives the applied tree' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format rpm --workdir ../work -o ../rpm/SOURCES >../out) &&
	grep "^Patch" rpm/SOURCES/patches.spec >lines &&
	printf "%s\n" "Patch0001: 0001-mm-rename-ptes.patch" "Patch0002: 0002-mm-batch-ptes.patch" \
		"Patch0003: 0003-mm-fix-batch-ptes.patch" "Patch0004: 0004-mm-fix-the-fix.patch" \
		"Patch0005: 0005-madvise-split-locking.patch" \
		"Patch0006: 0006-mm-add-gamma-for-quoted-reasons.patch" \
		"Patch0007: 0007-mm-a-tuning-of-our-own.patch" >lines.expect &&
	test_cmp lines.expect lines &&
	test_grep "^Subject: \[PATCH\] mm: rename ptes\$" rpm/SOURCES/0001-mm-rename-ptes.patch &&
	git -C linux archive --prefix=linux-1.0/ -o "$TRASH_DIRECTORY/rpm/SOURCES/linux-1.0.tar.gz" $BASE &&
	mkdir -p rpm/SPECS &&
	cat >rpm/SPECS/linux.spec <<-\EOF &&
	Name: linux-test
	Version: 1.0
	Release: 1
	Summary: the base tree with the exported backports
	License: GPL-2.0-only
	Source0: linux-1.0.tar.gz
	%include %{_sourcedir}/patches.spec

	%description
	The base tree with the exported backports.

	%prep
	%autosetup -p1 -n linux-1.0
	EOF
	rpmbuild -bp --nodeps --define "_topdir $TRASH_DIRECTORY/rpm" rpm/SPECS/linux.spec >rpm.out 2>&1 &&
	tree_of rpm/BUILD/linux-1.0 >rpm.tree &&
	test_cmp applied.tree rpm.tree
'

test_expect_success 'rpm: --start-number N puts them after a spec'"'"'s own patches; rpmbuild -bp applies all' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format rpm --start-number 40 --workdir ../work \
		-o ../rpm40/SOURCES >../out) &&
	grep "^Patch" rpm40/SOURCES/patches.spec >lines &&
	printf "%s\n" "Patch0040: 0040-mm-rename-ptes.patch" "Patch0041: 0041-mm-batch-ptes.patch" \
		"Patch0042: 0042-mm-fix-batch-ptes.patch" "Patch0043: 0043-mm-fix-the-fix.patch" \
		"Patch0044: 0044-madvise-split-locking.patch" \
		"Patch0045: 0045-mm-add-gamma-for-quoted-reasons.patch" \
		"Patch0046: 0046-mm-a-tuning-of-our-own.patch" >lines.expect &&
	test_cmp lines.expect lines &&
	test -s rpm40/SOURCES/0040-mm-rename-ptes.patch &&
	! test -e rpm40/SOURCES/0001-mm-rename-ptes.patch &&
	printf "%s\n" "--- a/OWN" "+++ b/OWN" "@@ -0,0 +1 @@" "+ours" >rpm40/SOURCES/own.patch &&
	cp rpm/SOURCES/linux-1.0.tar.gz rpm40/SOURCES/ &&
	mkdir -p rpm40/SPECS &&
	sed "s/^Source0: .*/&\nPatch0001: own.patch/" rpm/SPECS/linux.spec >rpm40/SPECS/linux.spec &&
	rpmbuild -bp --nodeps --define "_topdir $TRASH_DIRECTORY/rpm40" rpm40/SPECS/linux.spec \
		>rpm40.out 2>&1 &&
	echo ours >own.expect &&
	test_cmp own.expect rpm40/BUILD/linux-1.0/OWN &&
	rm rpm40/BUILD/linux-1.0/OWN &&
	tree_of rpm40/BUILD/linux-1.0 >rpm40.tree &&
	test_cmp applied.tree rpm40.tree
'

test_expect_success 'mbox: --start-number N numbers the mails'"'"' files from N; 0 is refused' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --start-number 7 --workdir ../work \
		-o ../mbox7 >../out) &&
	test -s mbox7/0000-cover-letter.patch &&
	test -s mbox7/0007-mm-rename-ptes.patch &&
	test_grep "^Subject: \[PATCH 1.0.y 1/7\] mm: rename ptes\$" mbox7/0007-mm-rename-ptes.patch &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --format mbox --start-number 0 \
		--workdir ../work -o ../mbox0 2>../err) &&
	test_grep "^error: --start-number 0: patch files are numbered from 1 up\$" err &&
	! test -e mbox0
'

test_expect_success 'refused: a bad format, branch or variant (exit 2)' '
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --format tar --workdir ../work 2>../err) &&
	test_grep "unknown export format .tar. (mbox, quilt or rpm)" err &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 9.9 --format mbox 2>../err) &&
	test_grep "unknown branch .9.9. (the kit has: 1.0, 2.0, 3.0)" err &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --variant nope --format mbox 2>../err) &&
	test_grep "1.0. has no variant .nope. (it has: kit)" err &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 2>../err) &&
	test_grep "say which format: --format mbox, quilt or rpm" err &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --all --format mbox 2>../err) &&
	test_grep "error: --branch and --all cannot be used together" err &&
	(cd kit && test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --variant base --format mbox 2>../err) &&
	test_grep "error: variant .base. is the branch without the kit: there is nothing to export" err
'

test_expect_success 'refused: a branch that is not applied (exit 1, even with --force)' '
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 2.0 --format mbox --force -o ../x 2>../err) &&
	test_grep "error: .2.0. is not applied: no .$(kit_ref kit 2.0). in .* (apply it: mkseries apply --branch 2.0)" err &&
	! test -e x
'

test_expect_success 'refused: a branch never run, unless --force; the cover says so' '
	(cd kit && mkseries apply --branch 2.0 >../out) &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 2.0 --format mbox --workdir ../work -o ../x 2>../err) &&
	test_grep "error: .2.0. was never run: nothing verifies it; not exported (verify it: mkseries run --branch 2.0; or export it unverified with --force)" err &&
	! test -e x &&
	(cd kit && mkseries export --include-unmerged --branch 2.0 --format mbox --workdir ../work -o ../x --force >../out 2>../err) &&
	test_grep "warning: .2.0. was never run: nothing verifies it; exported anyway (--force)" err &&
	test_grep "NOT verified, in ../x/" out &&
	test_grep "^Not verified: mkseries has no run of 2.0 recorded; exported with --force.\$" x/0000-cover-letter.patch &&
	test_grep ! "Tested-by" x/0000-cover-letter.patch
'

test_expect_success 'refused: a branch whose last run failed, unless --force' '
	(cd kit && test_expect_code 1 mkseries run --branch 3.0 --workdir ../work >../out 2>&1) &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 3.0 --format quilt --workdir ../work -o ../y 2>../err) &&
	test_grep "error: .3.0. did not pass its last run: 3.0 base: boot: .*; not exported (verify it: mkseries run --branch 3.0; or export it unverified with --force)" err &&
	! test -e y &&
	(cd kit && mkseries export --include-unmerged --branch 3.0 --format mbox --workdir ../work -o ../y --force >../out 2>&1) &&
	test_grep "^Exported with --force: the last run below does not vouch for this series.\$" y/0000-cover-letter.patch &&
	test_grep "^No branch passed every check: no Tested-by.\$" y/0000-cover-letter.patch
'

test_expect_success 'refused: a branch that moved since its last run' '
	mk_git linux update-ref $REF $REF~1 &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../z 2>../err) &&
	mk_git linux update-ref $REF $REF@{1} &&
	test_grep "error: .1.0. moved since its last run: the run tested [0-9a-f]\{12\}, the branch is at [0-9a-f]\{12\}; not exported" err &&
	! test -e z
'

test_expect_success 'refused: an output directory that is not empty; no identity' '
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../mbox 2>../err) &&
	test_grep "^error: .../mbox. holds an earlier mbox export of 1.0: replace it with --replace, or export elsewhere (nothing was written)$" err &&
	mkdir nohome &&
	(cd kit && HOME=$TRASH_DIRECTORY/nohome XDG_CONFIG_HOME=$TRASH_DIRECTORY/nohome \
		test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../w 2>../err) &&
	test_grep "^error: no user.name: mkseries signs off backports in your name: git config --global user.name .Your Name. && git config --global user.email you@example.org$" err &&
	! test -e w &&
	# a name and no address: the address is what is missing
	printf "[user]\n\tname = Only Name\n" >nohome/.gitconfig &&
	(cd kit && HOME=$TRASH_DIRECTORY/nohome XDG_CONFIG_HOME=$TRASH_DIRECTORY/nohome \
		test_expect_code 2 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../w 2>../err) &&
	test_grep "^error: no user.email: mkseries signs off backports in your name" err &&
	! test -e w
'

test_expect_success '--replace: an earlier export of the branch is replaced, whole' '
	cp -r mbox old-mbox &&
	# a mail the earlier export wrote that this one does not: it goes too
	sed "1s/^From [0-9a-f]* /From 1111111111111111111111111111111111111111 /" \
		mbox/0001-*.patch >old-mbox/0099-gone.patch &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../old-mbox \
		--replace >../out 2>../err) &&
	test_grep ! "^error" err &&
	ls mbox >expect &&
	ls old-mbox >actual &&
	test_cmp expect actual &&
	! ls old-mbox.mkseries-* &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work -o ../qr >../out 2>&1) &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work -o ../qr --replace \
		>../out 2>../err) &&
	test_grep "^1.0: [0-9]* patches .* in ../qr/" out &&
	test -f qr/series &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format rpm --workdir ../work -o ../rr >../out 2>&1) &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format rpm --workdir ../work -o ../rr --replace \
		>../out 2>../err) &&
	test -f rr/patches.spec
'

test_expect_success '--replace refuses a directory holding anything an export did not write' '
	echo mine >old-mbox/notes.txt &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work \
		-o ../old-mbox --replace 2>../err) &&
	test_grep "^error: .../old-mbox. holds an earlier mbox export of 1.0, and .notes.txt., which that export did not write: --replace replaces only an export; remove it, or export elsewhere (nothing was written)$" err &&
	echo mine >expect &&
	test_cmp expect old-mbox/notes.txt &&
	rm old-mbox/notes.txt &&
	mkdir qr/extra && echo mine >qr/extra/file &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work \
		-o ../qr --replace 2>../err) &&
	test_grep "holds an earlier quilt export of 1.0, and .extra/file., which that export did not write" err &&
	rm -r qr/extra &&
	# another format, another branch: no earlier export of this one
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work \
		-o ../old-mbox --replace 2>../err) &&
	test_grep "^error: .../old-mbox. is not empty: export into a new or empty directory; --replace replaces only an earlier quilt export of 1.0, and this is none (nothing was written)$" err &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 2.0 --format mbox --workdir ../work \
		-o ../old-mbox --replace --force 2>../err) &&
	test_grep "^error: .../old-mbox. is not empty: export into a new or empty directory; --replace replaces only an earlier mbox export of 2.0, and this is none" err &&
	ls mbox >expect &&
	ls old-mbox >actual &&
	test_cmp expect actual
'

test_expect_success 'another exporter signs off after the backporter; our own patch stays as it is' '
	mkdir other &&
	printf "[user]\n\tname = Ex Porter\n\temail = exporter@example.org\n" >other/.gitconfig &&
	(cd kit && HOME=$TRASH_DIRECTORY/other XDG_CONFIG_HOME=$TRASH_DIRECTORY/other \
		mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../other-mbox >../out) &&
	sed -n "/^Signed-off-by: Zo/,/^---\$/p" other-mbox/0006-*.patch >sobs &&
	printf "%s\n" "Signed-off-by: Zoë Ünïcode <zoe@example.org>" \
		"Signed-off-by: Mm Maintainer <akpm@example.org>" \
		"Signed-off-by: Back Porter <backporter@example.com>" \
		"Signed-off-by: Ex Porter <exporter@example.org>" "---" >sobs.expect &&
	test_cmp sobs.expect sobs &&
	test_grep "^From: Ex Porter <exporter@example.org>\$" other-mbox/0000-cover-letter.patch &&
	test_cmp mbox/0007-mm-a-tuning-of-our-own.patch other-mbox/0007-mm-a-tuning-of-our-own.patch
'

test_expect_success 'applied again with the same files (another backporter): the run vouches for it' '
	(cd kit && HOME=$TRASH_DIRECTORY/other XDG_CONFIG_HOME=$TRASH_DIRECTORY/other \
		mkseries run --branch 1.0 --workdir ../work >../out 2>&1) &&
	test_grep "^1.0: apply: again: .*backporter changed" out &&
	test_grep "^1.0 kit: build: up to date" out &&
	test_grep "^1.0 kit: test: up to date" out &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../again >../out 2>../err) &&
	test_grep "verified by its last run" out &&
	test_grep "^Signed-off-by: Ex Porter <exporter@example.org>\$" again/0006-*.patch &&
	(cd kit && mkseries run --branch 1.0 --workdir ../work >../out 2>&1) &&
	test_grep "^1.0: apply: again: .*backporter changed" out
'

test_expect_success '--all exports every branch where the kit is applied, one directory each' '
	(cd kit && mkseries export --include-unmerged --all --force --format quilt --workdir ../work -o ../all >../out 2>../err) &&
	test -f all/1.0/series &&
	test -f all/2.0/series &&
	test -f all/3.0/series &&
	test_grep "^1.0: 7 patches .* verified by its last run, in ../all/1.0/" out
'

test_expect_success '--all with one directory not empty writes none, naming it' '
	mkdir -p all2/2.0 &&
	echo mine >all2/2.0/keep &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --all --force --format quilt --workdir ../work \
		-o ../all2 >../out 2>../err) &&
	cat err &&
	test_grep "^error: .../all2/2.0. is not empty: export into a new or empty directory; --replace replaces only an earlier quilt export of 2.0, and this is none (nothing was written)\$" err &&
	test_grep "^error: --all exports every branch or none: 1 of its [0-9]* directories is not new or empty; empty or remove it, or export elsewhere with --output\$" err &&
	test_grep ! "nothing was written.*1.0\|1.0.*nothing was written" err &&
	test_must_be_empty out &&
	ls all2 >dirs &&
	echo 2.0 >dirs.expect &&
	test_cmp dirs.expect dirs &&
	echo mine >keep.expect &&
	test_cmp keep.expect all2/2.0/keep
'

test_expect_success '--all --replace replaces every branch'"'"'s earlier export' '
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --all --force --format quilt --workdir ../work \
		-o ../all >../out 2>../err) &&
	test_grep "^error: .../all/1.0. holds an earlier quilt export of 1.0: replace it with --replace" err &&
	(cd kit && mkseries export --include-unmerged --all --force --replace --format quilt --workdir ../work \
		-o ../all >../out 2>../err) &&
	test_grep "^1.0: [0-9]* patches .* in ../all/1.0/" out &&
	test -f all/2.0/series
'

test_expect_success '--all where one branch fails: says which were written and which not' '
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --all --format quilt --workdir ../work \
		-o ../all3 >../out 2>../err) &&
	cat err &&
	test_grep "^error: --all exported 1.0 in ../all3/1.0/; not exported: " err &&
	test -f all3/1.0/series
'

test_expect_success 'an export killed before its rename: the empty directory stays; the next export removes what it left' '
	mkdir empty &&
	(cd kit && MKSERIES_TEST_BACKPORT_CRASH=export-rename test_expect_code 137 \
		mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../empty >../out 2>../err) &&
	ls -A empty >list &&
	test_must_be_empty list &&
	stale=$(echo empty.mkseries-*) &&
	test -f "$stale/0000-cover-letter.patch" &&
	pid=${stale#empty.mkseries-} &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../empty >../out 2>../err) &&
	cat err &&
	test_grep "^warning: removed .\.\./$stale., left by an export that was killed (pid $pid) before it was renamed into place\$" err &&
	! test -e "$stale" &&
	test -f empty/0000-cover-letter.patch
'

test_expect_success '--variant: the variant ref, refused until it is run, then forced' '
	cat >>kit/kernels/1.0.yaml <<-EOF &&
	variants:
	  no-beta:
	    without: [${B1%${B1#????????????}}]
	EOF
	(cd kit && mkseries apply --branch 1.0 >../out) &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --variant no-beta --format mbox \
		--workdir ../work -o ../v 2>../err) &&
	test_grep "error: .1.0. variant no-beta was never run: nothing verifies it; not exported" err &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --variant no-beta --format mbox --workdir ../work \
		-o ../v --force >../out 2>../err) &&
	test_grep "^1.0: 6 patches from $(kit_ref kit 1.0 no-beta) " out &&
	test_grep ! "madvise" v/0005-*.patch &&
	git clone -q linux amv &&
	git -C amv checkout -q --detach $BASE &&
	git -C amv am -q $(ls -d "$PWD"/v/* | grep -v 0000-cover) &&
	git -C amv rev-parse HEAD^{tree} >amv.tree &&
	mk_git linux rev-parse $(kit_ref kit 1.0 no-beta)^{tree} >variant.tree &&
	test_cmp variant.tree amv.tree
'

test_expect_success 'a stable branch: what its policy refuses is left out, named, and the rest renumbered' '
	sed -i "/^name: /a kind: stable" kit/kernels/1.0.yaml &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work \
		-o ../st 2>../err) &&
	test_grep "error: .1.0. is not what its last run verified: 1.0 kit: series.yaml.s entries for 1.0" err &&
	(cd kit && mkseries run --branch 1.0 --workdir ../work >../out) &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../st >../out 2>../err) &&
	test_grep "^1.0: 1 patch from $REF ([0-9a-f]*), 6 left out by the stable policy, onto .* verified by its last run, in ../st/\$" out &&
	test_grep "^1.0: left out .mm: rename ptes. (commit $A1 upstream): stable takes fixes only (a Fixes:, a Cc: stable, the kit.s fixes:, a Stable-dep-of: or a stated stable: reason): this entry is none, stable review would bounce it\$" err &&
	test_grep "^1.0: left out .mm: fix batch ptes. (commit [0-9a-f]* upstream): a fixup of .mm: batch ptes., which is left out, goes with it\$" err &&
	test_grep "^1.0: left out .mm: fix the fix. (commit [0-9a-f]* upstream): a fixup of .mm: fix batch ptes., which is left out, goes with it\$" err &&
	test_grep "^1.0: left out .mm: a tuning of our own.: stable takes fixes only" err &&
	test $(grep -c "left out" err) = 6 &&
	ls st >files &&
	printf "%s\n" 0000-cover-letter.patch 0001-mm-add-gamma-for-quoted-reasons.patch >files.expect &&
	test_cmp files.expect files &&
	test_grep "^Subject: \[PATCH 1.0.y 1/1\] mm: add gamma, for \"quoted\" reasons\$" st/0001-*.patch &&
	c=st/0000-cover-letter.patch &&
	test_grep "^Subject: \[PATCH 1.0.y 0/1\] " $c &&
	test_grep "^  1/1 mm: add gamma, for \"quoted\" reasons\$" $c &&
	test_grep "^Left out, as stable takes fixes only (a Fixes:, a Cc: stable, the kit.s fixes:, a Stable-dep-of: or a stated stable: reason):\$" $c &&
	test_grep "^  - madvise: split locking\$" $c &&
	test_grep "^      commit $B1 upstream\$" $c &&
	test_grep "^  - mm: fix the fix\$" $c &&
	test_grep "^ mm/gamma.c | 4 ++++\$" $c &&
	test_grep "^ 1 file changed, 4 insertions(+)\$" $c
'

test_expect_success 'a stable branch: git am of what is kept gives the base plus the kept patch' '
	git clone -q linux ams &&
	git -C ams checkout -q --detach $BASE &&
	git -C ams am -q "$PWD"/st/0001-*.patch &&
	git -C ams rev-parse HEAD^{tree} >ams.tree &&
	GIT_INDEX_FILE="$PWD/expect.index" git -C linux read-tree $BASE &&
	GIT_INDEX_FILE="$PWD/expect.index" git -C linux update-index --add \
		--cacheinfo 100644,$(mk_git linux rev-parse $REF:mm/gamma.c),mm/gamma.c &&
	GIT_INDEX_FILE="$PWD/expect.index" git -C linux write-tree >ams.expect &&
	test_cmp ams.expect ams.tree
'

test_expect_success 'a stable branch: --all-patches exports everything, as a distro branch does' '
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../st-all \
		--all-patches >../out 2>../err) &&
	test_grep "^1.0: 7 patches from $REF .* verified by its last run" out &&
	test_grep ! "left out" err &&
	test_grep ! "Left out" st-all/0000-cover-letter.patch &&
	sed 1d mbox/0002-mm-batch-ptes.patch >expect.0002 &&
	sed 1d st-all/0002-mm-batch-ptes.patch >got.0002 &&
	test_cmp expect.0002 got.0002 &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --variant no-beta --format mbox --workdir ../work \
		-o ../st-v --force >../out 2>../err) &&
	test_grep "^1.0: 1 patch from $(kit_ref kit 1.0 no-beta) ([0-9a-f]*), 5 left out by the stable policy, " out &&
	test_grep ! "madvise" err &&
	test_grep "^Subject: \[PATCH 1.0.y 1/1\] mm: add gamma" st-v/0001-mm-add-gamma-for-quoted-reasons.patch &&
	sed -i "s/^kind: stable/kind: distro/" kit/kernels/1.0.yaml &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format quilt --workdir ../work -o ../distro \
		>../out 2>../err) &&
	test_grep "^1.0: 7 patches from $REF .* verified by its last run" out &&
	test_grep ! "left out" err &&
	test $(grep -c "^[a-z]" distro/series) = 7
'

test_expect_success 'a distro branch: no patch that is not upstream unless asked; --stable ships fixes only' '
	(cd kit && test_expect_code 1 mkseries export --branch 1.0 --format quilt --workdir ../work \
		-o ../unmerged >../out 2>../err) &&
	test_grep "^error: 1.0: .mm: a tuning of our own. is no upstream commit (the kit.s own work, not merged upstream)$" err &&
	test_grep "^error: 1.0: 1 patch not upstream: not exported (export it as it is with --include-unmerged)$" err &&
	! test -e unmerged &&
	(cd kit && mkseries export --branch 1.0 --format quilt --stable --workdir ../work \
		-o ../for-stable >../out 2>../err) &&
	test_grep "^1.0: 1 patch from $REF .*, 6 left out by the stable policy, " out &&
	test_grep "^1.0: left out .mm: rename ptes. (commit $A1 upstream): stable takes fixes only" err &&
	test_grep "^1.0: left out .mm: a tuning of our own.: stable takes fixes only" err &&
	test $(grep -c "^[a-z]" for-stable/series) = 1
'

test_expect_success 'a stable branch: a kept fix that needs a left-out patch stops the export, unless --force' '
	(
		cd own &&
		printf "/* tuned, and fixed */\n" >mm/own.c &&
		git commit -q -a -m "mm: fix our own tuning" \
			-m "Fixes: $(git rev-parse --short=12 HEAD) (\"mm: a tuning of our own\")" &&
		git format-patch -q -1 -o ../kit/patches/own
	) &&
	cat >>kit/series.yaml <<-EOF &&
	      - file: patches/own/0001-mm-fix-our-own-tuning.patch
	        subject: "mm: fix our own tuning"
	EOF
	sed -i "s/^kind: distro/kind: stable/" kit/kernels/1.0.yaml &&
	(cd kit && mkseries run --branch 1.0 --workdir ../work >../run2.out 2>&1) &&
	(cd kit && test_expect_code 1 mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work \
		-o ../dep 2>../err) &&
	test_grep "^error: .mm: fix our own tuning. depends on .mm: a tuning of our own., which the stable policy leaves out: without it .mm: fix our own tuning. does not apply; not exported (export every patch: --all-patches; or without the one it needs: --force)\$" err &&
	! test -e dep &&
	(cd kit && mkseries export --include-unmerged --branch 1.0 --format mbox --workdir ../work -o ../dep --force \
		>../out 2>../err) &&
	test_grep "^warning: .mm: fix our own tuning. depends on .mm: a tuning of our own., which the stable policy leaves out: the series does not apply; exported anyway (--force)\$" err &&
	test_grep "^Subject: \[PATCH 1.0.y 2/2\] mm: fix our own tuning\$" dep/0002-mm-fix-our-own-tuning.patch
'

test_done

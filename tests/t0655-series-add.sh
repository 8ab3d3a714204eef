#!/bin/sh
# t0655-series-add.sh: `mkseries series add`: a series started from an mbox (b4, offline) or a message id, upstream ids from a mainline, its fixups.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"
. "$TEST_DIRECTORY/lib-mainline.sh"

# a kit over $PWD/up at v1.0 with one series of its own, commented
write_kit() {
	mkdir -p "$1/kernels" "$1/patches/beta" &&
	git -C up format-patch -q -o "$PWD/$1/patches/beta" -1 $B1 &&
	git_yaml "$1" t "$PWD/up" v1.0 &&
	cat >"$1/series.yaml" <<-\EOF_SERIES
	# a kit

	series:
	  - id: beta    # madvise
	    title: "madvise: split locking"
	    patches:
	      - subject: "madvise: split locking"
	        file: patches/beta/0001-madvise-split-locking.patch

	# the end
	EOF_SERIES
}

test_expect_success B4 'setup: a mainline, a kit, and the alpha series mailed as git sends it' '
	make_upstream up &&
	write_kit kit &&
	cp kit/series.yaml series.orig &&
	git -C up format-patch -q --thread --cover-letter -o "$PWD/mails" v1.0..$A2 &&
	sed -i -e "s/\*\*\* SUBJECT HERE \*\*\*/mm: batch ptes in mremap()/" \
	       -e "s/\*\*\* BLURB HERE \*\*\*/Move them in batches./" mails/0000-cover-letter.patch &&
	cat mails/*.patch >alpha.mbox &&
	msgid=$(sed -n "s/^Message-I[dD]: <\(.*\)>\$/\1/p" mails/0000-cover-letter.patch) &&
	test -n "$msgid" && echo "msgid=$msgid" >vars
'
. ./vars 2>/dev/null

test_expect_success B4 'series add MBOX: patches under patches/<id>/, the series appended, layout kept' '
	(cd kit && mkseries series add ../alpha.mbox >../out 2>../err) &&
	cat out &&
	test_grep "^series .mm-batch-ptes-in-mremap.: mm: batch ptes in mremap()$" out &&
	test_grep "^  1/2 (no id) *mm: rename ptes$" out &&
	test_grep "link: https://lore.kernel.org/r/$msgid" out &&
	head -n 8 kit/series.yaml >head && head -n 8 series.orig >expect && test_cmp expect head &&
	cat >expect <<-EOF &&
	  - id: mm-batch-ptes-in-mremap
	    title: "mm: batch ptes in mremap()"
	    message-id: "$msgid"
	    link: "https://lore.kernel.org/r/$msgid"
	    patches:
	      - subject: "mm: rename ptes"
	        file: patches/mm-batch-ptes-in-mremap/0001-mm-rename-ptes.patch
	      - subject: "mm: batch ptes"
	        file: patches/mm-batch-ptes-in-mremap/0002-mm-batch-ptes.patch

	# the end
	EOF
	tail -n +9 kit/series.yaml >tail && test_cmp expect tail &&
	test_grep -x "+int batch(void)" kit/patches/mm-batch-ptes-in-mremap/0002-mm-batch-ptes.patch &&
	test_grep "^Subject: \[PATCH 1/2\] mm: rename ptes" kit/patches/mm-batch-ptes-in-mremap/0001-mm-rename-ptes.patch
'

test_expect_success B4 'the new series applies: the tree has what upstream has' '
	(cd kit && mkseries apply --branch t >../out 2>&1) &&
	ref=$(kit_ref kit t) &&
	test "$(mk_git up rev-parse $ref:mm/mremap.c)" = "$(git -C up rev-parse $A2:mm/mremap.c)" &&
	test "$(mk_git up log --format=%s -1 $ref)" = "mm: batch ptes"
'

test_expect_success B4 'a second add of the same thread is refused; files there are kept without --force' '
	cp kit/series.yaml before &&
	(cd kit && test_expect_code 2 mkseries series add ../alpha.mbox 2>../err) &&
	test_grep "the kit has a series .mm-batch-ptes-in-mremap. already: give another with --id" err &&
	test_cmp before kit/series.yaml &&
	mkdir kit/patches/again && echo "local edit" >kit/patches/again/0001-mm-rename-ptes.patch &&
	(cd kit && test_expect_code 1 mkseries series add ../alpha.mbox --id again 2>../err) &&
	test_grep "error: patches/again/0001-mm-rename-ptes.patch exists; use --force to overwrite" err &&
	test_cmp before kit/series.yaml &&
	test_grep -x "local edit" kit/patches/again/0001-mm-rename-ptes.patch &&
	(cd kit && mkseries series add ../alpha.mbox --id again --force >../out) &&
	test_grep "^  - id: again$" kit/series.yaml &&
	test_grep "^Subject: \[PATCH 1/2\] mm: rename ptes" kit/patches/again/0001-mm-rename-ptes.patch &&
	cp before kit/series.yaml && rm -r kit/patches/again
'

test_expect_success B4 '--mainline: upstream ids by subject, then the fixes that must travel with it' '
	make_mainline up &&
	write_kit kit2 &&
	(cd kit2 && test_expect_code 1 mkseries series add ../alpha.mbox --id alpha --mainline ../up >../out 2>../err) &&
	cat out &&
	test_grep "^  1/2 $(short $A1) *mm: rename ptes$" out &&
	test_grep "^  2/2 $(short $A2) *mm: batch ptes$" out &&
	test_grep "        upstream: $(git -C up rev-parse $A2)$" kit2/series.yaml &&
	test_grep "^hint: to add them to series.yaml: mkseries fixups --mainline ../up --write$" err &&
	test_grep "^hint: series .alpha. is added all the same: exit status 1 says that fixes it needs are missing from the kit$" err &&
	test_grep "^fixups: [0-9]* missing among [0-9]* commits read ([0-9]* of them name another commit by Fixes:, Stable-dep-of: or a revert)$" out &&
	test_grep "^fixups of the kit, the new series with them:$" out &&
	test_grep "^alpha: missing $(short $M1) mm: fix batch ptes again (fixes $(short $A2) alpha 2/2" out &&
	test_grep ! "beta: missing" out ||
	{ cat err; false; }
'

test_expect_success B4 'export of a series added with --mainline: commit <all 40 digits> upstream.' '
	(cd kit2 && mkseries apply --branch t >../out 2>&1 &&
	 mkseries export --branch t --format mbox --force --include-unmerged -o ../alpha-export >../out 2>&1) &&
	cat alpha-export/*-mm-batch-ptes.patch >exported &&
	test_grep -x "commit $(git -C up rev-parse $A2) upstream." exported &&
	cat alpha-export/*-mm-rename-ptes.patch >exported &&
	test_grep -x "commit $(git -C up rev-parse $A1) upstream." exported
'

test_expect_success B4 'a git format-patch file without Message-Id: taken as it is, no b4, no lore link' '
	git -C up format-patch -q -o "$PWD/plain" -1 $A2 &&
	git -C up format-patch -q --cover-letter -o "$PWD/plainc" v1.0..$A2 &&
	test_grep ! -i "^Message-Id:" plain/0001-mm-batch-ptes.patch plainc/*.patch &&
	sed -i -e "s/\*\*\* SUBJECT HERE \*\*\*/mm: batch ptes, unposted/" plainc/0000-cover-letter.patch &&
	cat plainc/*.patch >plainc.mbox &&
	write_kit kit4 &&
	mkdir nob4plain && ln -s "$(command -v git)" nob4plain/git &&
	(cd kit4 && PATH=$TRASH_DIRECTORY/nob4plain && export PATH &&
	 "$MKSERIES_BIN" series add ../plain/0001-mm-batch-ptes.patch --id one >../out 2>../err &&
	 "$MKSERIES_BIN" series add ../plainc.mbox >../out2 2>>../err) &&
	test_grep "^series .one.: mm: batch ptes$" out &&
	test_grep "^series .mm-batch-ptes-unposted.: mm: batch ptes, unposted$" out2 &&
	test_grep ! "link:" out out2 &&
	test_grep ! "lore.kernel.org" kit4/series.yaml &&
	test_grep ! "message-id:" kit4/series.yaml &&
	test_grep "^  2/2 (no id) *mm: batch ptes$" out2 &&
	test_cmp plain/0001-mm-batch-ptes.patch kit4/patches/one/0001-mm-batch-ptes.patch &&
	test_cmp plainc/0002-mm-batch-ptes.patch kit4/patches/mm-batch-ptes-unposted/0002-mm-batch-ptes.patch &&
	test_must_fail test -e kit4/patches/mm-batch-ptes-unposted/0000-cover-letter.patch &&
	test ! -s err &&
	(cd kit4 && mkseries plan --branch t >../out) &&
	test_grep "apply *one 1/1" out &&
	test_grep "apply *mm-batch-ptes-unposted 2/2" out
'

test_expect_success B4 'an encoded ESC and DEL in a subject: written as shown, the kit loads' '
	sed -e "s/^Subject: \[PATCH 2\/2\] mm: batch ptes\$/Subject: [PATCH 2\/2] =?UTF-8?Q?mm:_batch=1B[31m_ptes=7F?=/" \
		alpha.mbox >esc.mbox &&
	test_grep "=1B\[31m_ptes=7F" esc.mbox &&
	write_kit kit5 &&
	(cd kit5 && mkseries series add ../esc.mbox --id esc >../out 2>../err) &&
	test_grep "^  2/2 (no id) *mm: batch\\\\x1b\[31m ptes\\\\x7f$" out &&
	test_grep ! "$(printf "\033")" out err &&
	test_grep "^      - subject: \"mm: batch\\\\\\\\x1b\[31m ptes\\\\\\\\x7f\"$" kit5/series.yaml &&
	test_grep "^Subject: \[PATCH 2/2\] mm: batch.\[31m ptes" kit5/patches/esc/0002-mm-batch-31m-ptes.patch &&
	(cd kit5 && mkseries plan --branch t >../out) &&
	test_grep "apply *esc 2/2" out
'

test_expect_success B4 'a failed add is all or nothing: no patch file left, series.yaml as it was' '
	write_kit kit6 &&
	cp kit6/series.yaml before &&
	mv kit6/series.yaml kit6/real.yaml && ln -s real.yaml kit6/series.yaml &&
	(cd kit6 && test_expect_code 1 mkseries series add ../alpha.mbox --id gone 2>../err) &&
	test_grep "series.yaml.: it is a symbolic link" err &&
	test_cmp before kit6/real.yaml &&
	test_must_fail test -e kit6/patches/gone &&
	rm kit6/series.yaml && mv kit6/real.yaml kit6/series.yaml &&
	mkdir kit6/patches/kept &&
	echo "local edit" >kit6/patches/kept/0001-mm-rename-ptes.patch &&
	ln -s ../../../alpha.mbox kit6/patches/kept/0002-mm-batch-ptes.patch &&
	(cd kit6 && test_expect_code 1 mkseries series add ../alpha.mbox --id kept --force 2>../err) &&
	test_grep "cannot write .patches/kept/0002-mm-batch-ptes.patch.: it is a symbolic link" err &&
	test_grep -x "local edit" kit6/patches/kept/0001-mm-rename-ptes.patch &&
	test -L kit6/patches/kept/0002-mm-batch-ptes.patch &&
	test_cmp before kit6/series.yaml
'

test_expect_success B4 'bad input: neither file nor message id, a bad --id, --ref alone' '
	(cd kit && test_expect_code 2 mkseries series add no-such-thing 2>../err) &&
	test_grep "is neither a file nor a message id" err &&
	(cd kit && test_expect_code 2 mkseries series add ../alpha.mbox --id Bad_Id 2>../err) &&
	test_grep "a series id is \[a-z0-9\]\[a-z0-9._-\]\*" err &&
	(cd kit && test_expect_code 2 mkseries series add ../alpha.mbox --ref HEAD 2>../err) &&
	test_grep "\-\-ref needs --mainline" err &&
	(cd kit && test_expect_code 2 mkseries series 2>../err) &&
	test_grep "which .series. subcommand" err &&
	echo "not a mail" >junk.mbox &&
	(cd kit && test_expect_code 1 mkseries series add ../junk.mbox 2>../err) &&
	test_grep "^error: .../junk.mbox.: no patch found (not a git format-patch file or mbox?)$" err
'

test_expect_success B4 'a message id while lore is not reachable: said so, no traceback' '
	git config --global b4.midmask "http://127.0.0.1:9/all/%s" &&
	test_when_finished "git config --global --unset b4.midmask" &&
	cp kit/series.yaml before &&
	(cd kit && test_expect_code 1 mkseries series add "<$msgid>" 2>../err) &&
	test_grep "lore is not reachable: b4 could not fetch <$msgid>" err &&
	test_grep ! "Traceback" err &&
	test_cmp before kit/series.yaml &&
	(cd kit && test_expect_code 1 mkseries series add "<-h@example.org>" 2>../err) &&
	test_grep "lore is not reachable: b4 could not fetch <-h@example.org>" err &&
	test_cmp before kit/series.yaml
'

test_expect_success B4 'a kit with no series yet: series: [] becomes the list' '
	mkdir -p kit3/kernels && cp kit/kernels/t.yaml kit3/kernels/ &&
	printf "# new kit\nseries: []   # none yet\nverdicts: { threshold: 5%% }\n" >kit3/series.yaml &&
	(cd kit3 && mkseries series add ../alpha.mbox --id alpha >../out) &&
	head -n 4 kit3/series.yaml >got &&
	printf "# new kit\nseries:   # none yet\n  - id: alpha\n    title: \"mm: batch ptes in mremap()\"\n" >expect &&
	test_cmp expect got &&
	test_grep "^verdicts: { threshold: 5% }$" kit3/series.yaml &&
	(cd kit3 && mkseries plan --branch t >../out) &&
	test_grep "alpha" out
'

test_expect_success 'without b4: install b4' '
	mkdir nob4 && ln -s "$(command -v git)" nob4/git &&
	(cd kit && PATH=$TRASH_DIRECTORY/nob4 && export PATH &&
	 test_expect_code 1 "$MKSERIES_BIN" series add ../alpha.mbox --id x 2>../err) &&
	test_grep "b4 is not installed: install it" err
'

test_done

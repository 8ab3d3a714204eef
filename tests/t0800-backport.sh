#!/bin/sh
# t0800-backport.sh: mkseries backport: a patch that does not apply, worked out in a git worktree and recorded as the branch's backport.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# kit_at NAME REF: a copy of the test kit whose branch t is linux at REF.
kit_at() {
	cp -R kit "$1" &&
	sed -i "s/ref: v1.0 }/ref: $2 }/" "$1/kernels/t.yaml" &&
	grep -q "ref: $2" "$1/kernels/t.yaml"
}

# A resolution of the alpha 1/2 conflict on stable-conflict: its name, the upstream's rename.
resolve_alpha1() {
	printf 'static long move_pteps(void)\n{\n\treturn 0;\n}\n' >"$1/mm/mremap.c"
}

test_expect_success 'setup: upstream, kit, and stable trees the kit no longer applies to' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b stable-clean v1.0 &&
	sed -i "s|return 0;|return 0; /* stable */|" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: note in move_ptes" &&
	git -C linux checkout -q -b stable-conflict v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns long" &&
	git -C linux checkout -q -b stable-two stable-conflict &&
	sed -i "s|return 0;|return 0; /* stable */|" linux/mm/mremap.c &&
	sed -i "s/line 4/line 4 (stable)/" linux/mm/madvise.c &&
	git -C linux commit -q -a -m "stable: two more changes" &&
	git -C linux checkout -q master &&
	git -C linux rev-parse HEAD >head.before &&
	git -C linux status --porcelain >status.before &&
	ID_A1=$(echo "$A1" | cut -c1-12) &&
	ID_A2=$(echo "$A2" | cut -c1-12)
'

test_expect_success 'plain apply stops at the first patch on each stable tree, naming the next step' '
	kit_at k-apply stable-conflict &&
	(cd k-apply && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "cannot apply .alpha 1/2." err &&
	test_grep "^t: CONFLICT: nothing applied" out &&
	test_grep "^  backport it: mkseries backport --branch t (the patch merged in a work tree as far as it goes, for you to finish)$" out &&
	test_grep ! "in progress" out
'

test_expect_success 'a clean three-way merge is recorded and the loop goes on' '
	kit_at k-clean stable-clean &&
	(cd k-clean && mkseries backport --branch t --workdir "$PWD/../wd-clean" >../out 2>../err) &&
	cat out &&
	test_grep "merged    mm/mremap.c (three-way merge, clean)" out &&
	# nothing that reads like a failure when the merge is clean
	test_grep ! "cannot apply" err &&
	test_grep ! "^error:" err &&
	test_grep "recorded patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch" out &&
	test_grep "recorded patches/alpha/t/0002-$ID_A2-mm-batch-ptes.patch" out &&
	test_grep "t: $(kit_ref k-clean t) -> " out &&
	mk_git linux show $(kit_ref k-clean t):mm/mremap.c >tree.c &&
	test_grep "move_pteps" tree.c &&
	test_grep "stable" tree.c &&
	test_grep "return 3;" tree.c &&
	! test -d wd-clean/t/backport
'

test_expect_success 'the recorded backport is in the kit style' '
	f=k-clean/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	test_grep "^Subject: \[PATCH\] mm: rename ptes" $f &&
	test_grep "^From: A U Thor <author@example.com>" $f &&
	test_grep "^commit $A1 upstream.\$" $f &&
	sed -n "/^Call them pteps/,/^---\$/p" $f >after-note &&
	printf "%s\n" "Call them pteps." "" \
		"Signed-off-by: Dev Eloper <dev@example.org>" \
		"[ Back Porter: backported to t; mm/mremap.c (merged three-way) ]" \
		"Signed-off-by: Back Porter <backporter@example.com>" "---" >after-note.expect &&
	test_cmp after-note.expect after-note &&
	! test_grep "libgit2" $f &&
	test_grep "\"t\": { file: patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch }" k-clean/series.yaml &&
	test_grep "# the test kit" k-clean/series.yaml
'

test_expect_success 'plain apply applies the recorded backports' '
	ref=$(kit_ref k-clean t) &&
	mk_git linux log --format="%T %an %at%n%B" $(git -C linux rev-parse v1.0)..$ref >log.backport &&
	mk_git linux update-ref -d $ref &&
	(cd k-clean && mkseries apply --branch t >../out 2>../err) &&
	mk_git linux log --format="%T %an %at%n%B" $(git -C linux rev-parse v1.0)..$ref >log.apply &&
	test_cmp log.backport log.apply &&
	test_grep "^\[ Back Porter: backported to t" log.apply
'

test_expect_success 'setup: two new point releases under the recorded backports' '
	git -C linux checkout -q -b stable-clean2 stable-clean &&
	sed -i "s|/\* stable \*/|/* stable, v2 */|" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: a second note" &&
	git -C linux checkout -q -b stable-clean3 stable-clean &&
	sed -i "s/static int move_ptes/static unsigned move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns unsigned" &&
	git -C linux checkout -q master &&
	cp -R k-clean k-replay &&
	sed -i "s/ref: stable-clean }/ref: stable-clean2 }/" k-replay/kernels/t.yaml &&
	cp -R k-clean k-replay2 &&
	sed -i "s/ref: stable-clean }/ref: stable-clean3 }/" k-replay2/kernels/t.yaml &&
	test_grep "stable-clean3" k-replay2/kernels/t.yaml
'

test_expect_success 'apply replays a recorded backport three-way onto a moved base, and says so' '
	(cd k-replay && mkseries apply --branch t >../out 2>../err) &&
	cat out &&
	test_grep "replayed: t no longer takes patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch as written; merged three-way" out &&
	test_grep "replayed: t no longer takes patches/alpha/t/0002-$ID_A2-mm-batch-ptes.patch" out &&
	mk_git linux show $(kit_ref k-replay t):mm/mremap.c >tree.c &&
	test_grep "static int move_pteps" tree.c &&
	test_grep "stable, v2" tree.c &&
	test_grep "return 3;" tree.c &&
	mk_git linux for-each-ref refs/mkseries-backports/$(kit_id k-clean)/t/ >keep &&
	test $(wc -l <keep) -ge 2
'

test_expect_success 'a replay that conflicts enters the loop with both sides shown' '
	(cd k-replay2 && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "cannot apply .alpha 1/2." err &&
	cp k-replay2/series.yaml yaml.before &&
	(cd k-replay2 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-replay" >../out 2>../err) &&
	cat out &&
	test_grep "conflict  mm/mremap.c" out &&
	tree=wd-replay/t/backport/tree &&
	test_grep "static unsigned move_ptes" $tree/mm/mremap.c &&
	test_grep "static int move_pteps" $tree/mm/mremap.c &&
	test_grep "^<<<<<<< " $tree/mm/mremap.c &&
	printf "static unsigned move_pteps(void)\n{\n\treturn 0; /* stable */\n}\n" >$tree/mm/mremap.c &&
	(cd k-replay2 && mkseries backport --branch t --workdir "$PWD/../wd-replay" --continue >../out 2>../err) &&
	cat out &&
	ls k-replay2/patches/alpha/t >files &&
	test $(wc -l <files) = 2 &&
	test_cmp yaml.before k-replay2/series.yaml &&
	test_grep "^+static unsigned move_pteps" k-replay2/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	(cd k-replay2 && mkseries apply --branch t >../out 2>../err) &&
	mk_git linux show $(kit_ref k-replay2 t):mm/mremap.c >tree.c &&
	test_grep "static unsigned move_pteps" tree.c
'

test_expect_success '--abort puts back a recorded backport the loop rewrote' '
	git -C linux checkout -q -b stable-clean4 stable-clean3 &&
	sed -i "s/line 4/line 4 (stable)/" linux/mm/madvise.c &&
	git -C linux commit -q -a -m "stable: madvise line 4" &&
	git -C linux checkout -q master &&
	cp -R k-clean k-replay3 &&
	sed -i "s/ref: stable-clean }/ref: stable-clean4 }/" k-replay3/kernels/t.yaml &&
	f=patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	(cd k-replay3 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-replay3" >../out 2>../err) &&
	test_grep "conflict  mm/mremap.c" out &&
	printf "static unsigned move_pteps(void)\n{\n\treturn 0; /* stable */\n}\n" \
		>wd-replay3/t/backport/tree/mm/mremap.c &&
	(cd k-replay3 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-replay3" --continue >../out 2>../err) &&
	cat out &&
	test_grep "recorded $f" out &&
	test_grep "beta 1/1 does not apply" out &&
	! cmp -s k-clean/$f k-replay3/$f &&
	(cd k-replay3 && mkseries backport --branch t --workdir "$PWD/../wd-replay3" --abort >../out 2>../err) &&
	cat out &&
	test_grep "put back $f" out &&
	cmp k-clean/$f k-replay3/$f &&
	cmp k-clean/series.yaml k-replay3/series.yaml
'

test_expect_success 'import --log keeps every base the branch was imported at' '
	(cd k-replay2 && mkseries import --log --branch t >../out) &&
	cat out &&
	c3=$(git -C linux rev-parse --short=12 "stable-clean3^{commit}") &&
	c1=$(git -C linux rev-parse --short=12 "stable-clean^{commit}") &&
	sed -n 2p out >top &&
	test_grep "^5 $(git -C linux rev-parse --short=12 "stable-clean4^{commit}") git .* stable-clean4 .* (current)\$" top &&
	test_grep "^4 $c3 git .* stable-clean3 " out &&
	test_grep "^2 $c1 git .* stable-clean " out &&
	mk_git linux rev-parse --verify -q "refs/mkseries-imports/t/2^{commit}" >old &&
	git -C linux rev-parse "stable-clean^{commit}" >old.expect &&
	test_cmp old.expect old
'

test_expect_success 'a conflict stops the loop with markers in the work tree' '
	kit_at k-conf stable-conflict &&
	cp k-conf/series.yaml yaml.before &&
	(cd k-conf && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-conf" >../out 2>../err) &&
	cat out &&
	test_grep "conflict  mm/mremap.c" out &&
	test_grep "mkseries backport --branch t --continue" out &&
	test_grep "cannot apply .alpha 1/2." err &&
	tree=wd-conf/t/backport/tree &&
	test_grep "^<<<<<<< tree" $tree/mm/mremap.c &&
	test_grep "^>>>>>>> upstream patch" $tree/mm/mremap.c &&
	test_grep "static long move_ptes" $tree/mm/mremap.c &&
	test_grep "static int move_pteps" $tree/mm/mremap.c &&
	test_cmp yaml.before k-conf/series.yaml
'

test_expect_success '--status shows the series, the patch and the files in conflict' '
	(cd k-conf && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-conf" --status >../out) &&
	cat out &&
	test_grep "series:  alpha" out &&
	test_grep "patch:   alpha 1/2 $ID_A1 mm: rename ptes" out &&
	test_grep "^mm/mremap.c:1: conflict marker left" out
'

test_expect_success 'apply and run, with a loop in progress, say so at the conflict' '
	(cd k-conf && test_must_fail mkseries apply --branch t --workdir "$PWD/../wd-conf" >../out 2>../err) &&
	cat out &&
	test_grep "^  a backport loop is in progress on t: mkseries backport --branch t --status shows where; --continue or --abort it$" out &&
	test_grep ! "backport it:" out &&
	(cd k-conf && test_must_fail mkseries run --branch t --workdir "$PWD/../wd-conf" >../out 2>../err) &&
	cat out &&
	test_grep "^  a backport loop is in progress on t: " out
'

test_expect_success '--continue refuses while conflict markers are left' '
	(cd k-conf && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-conf" --continue >../out 2>../err) &&
	test_grep "not resolved yet" err &&
	test_grep "^mm/mremap.c:1: conflict marker left" err &&
	! test -d k-conf/patches/alpha/t
'

test_expect_success 'resolved by an edit, --continue records it and finishes the branch' '
	resolve_alpha1 wd-conf/t/backport/tree &&
	cat >editor <<-\EOF &&
	#!/bin/sh
	# The message as given, then a note of our own; stdin is what we were started with.
	cp "$1" "$HOME/message.given" &&
	read -r word && echo "[ edited: $word ]" >>"$1"
	EOF
	chmod +x editor &&
	(cd k-conf && echo from-the-terminal | GIT_EDITOR="$TRASH_DIRECTORY/editor" \
		mkseries backport --branch t --workdir "$PWD/../wd-conf" --continue -e >../out 2>../err) &&
	cat out &&
	test_grep "^commit $A1 upstream.\$" message.given &&
	f=k-conf/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	test_grep "edited: from-the-terminal" $f &&
	test_grep "mm/mremap.c (conflict resolved)" $f &&
	test_grep "^+static long move_pteps(void)" $f &&
	mk_git linux show $(kit_ref k-conf t):mm/mremap.c >tree.c &&
	test_grep "static long move_pteps" tree.c &&
	test_grep "return 3;" tree.c &&
	! test -d wd-conf/t/backport &&
	(cd k-conf && mkseries backport --branch t --workdir "$PWD/../wd-conf" --status >../out) &&
	test_grep "no backport loop in progress" out
'

test_expect_success 'the work tree was a worktree of its own: the user checkout is untouched' '
	git -C linux rev-parse HEAD >head.after &&
	test_cmp head.before head.after &&
	git -C linux status --porcelain >status.after &&
	test_cmp status.before status.after &&
	mk_git linux worktree list >wt &&
	! test_grep "mkseries-backport" wt &&
	test_must_fail mk_git linux rev-parse --verify -q refs/heads/mkseries-backport/$(kit_id k-conf)/t
'

test_expect_success 'a loop interrupted while recording resumes with --continue' '
	kit_at k-crash stable-conflict &&
	(cd k-crash && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-crash" >../out 2>../err) &&
	resolve_alpha1 wd-crash/t/backport/tree &&
	(cd k-crash && MKSERIES_TEST_BACKPORT_CRASH=recorded test_expect_code 137 mkseries backport --branch t --workdir "$PWD/../wd-crash" --continue >../out 2>../err) &&
	ls k-crash/patches/alpha/t >files &&
	test $(wc -l <files) = 1 &&
	! test_grep "\"t\":" k-crash/series.yaml &&
	(cd k-crash && mkseries backport --branch t --workdir "$PWD/../wd-crash" --status >../out) &&
	test_grep "patch:   alpha 1/2" out &&
	(cd k-crash && mkseries backport --branch t --workdir "$PWD/../wd-crash" --continue >../out 2>../err) &&
	cat out &&
	ls k-crash/patches/alpha/t >files &&
	test $(wc -l <files) = 1 &&
	test_grep "\"t\": { file: patches/alpha/t/0001-" k-crash/series.yaml &&
	(cd k-crash && mkseries apply --branch t >../out 2>../err)
'

test_expect_success '--skip records a skip decision with its reason and goes on' '
	kit_at k-skip stable-conflict &&
	(cd k-skip && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-skip" >../out 2>../err) &&
	(cd k-skip && test_expect_code 2 mkseries backport --branch t --workdir "$PWD/../wd-skip" --skip >../out 2>../err) &&
	(cd k-skip && mkseries backport --branch t --workdir "$PWD/../wd-skip" --skip -m "t keeps its own name" >../out 2>../err) &&
	cat out &&
	test_grep "\"t\": { skip: \"t keeps its own name\" }" k-skip/series.yaml &&
	! test -d k-skip/patches/alpha/t &&
	(cd k-skip && mkseries plan --branch t >../plan) &&
	test_grep "t keeps its own name" plan &&
	! test -d wd-skip/t/backport
'

test_expect_success '--abort after two recorded patches leaves the kit as it was' '
	kit_at k-abort stable-two &&
	cp k-abort/series.yaml yaml.before &&
	(cd k-abort && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-abort" >../out 2>../err) &&
	resolve_alpha1 wd-abort/t/backport/tree &&
	sed -i "s|return 0;|return 0; /* stable */|" wd-abort/t/backport/tree/mm/mremap.c &&
	(cd k-abort && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-abort" --continue >../out 2>../err) &&
	cat out &&
	test_grep "recorded patches/alpha/t/0002-" out &&
	test_grep "beta 1/1 does not apply" out &&
	test_grep "conflict  mm/madvise.c" out &&
	(cd k-abort && mkseries backport --branch t --workdir "$PWD/../wd-abort" --abort >../out 2>../err) &&
	cat out &&
	test_cmp yaml.before k-abort/series.yaml &&
	! test -e k-abort/patches/alpha/t &&
	! test -d wd-abort/t/backport &&
	mk_git linux worktree list >wt &&
	! test_grep "mkseries-backport" wt &&
	(cd k-abort && test_expect_code 2 mkseries backport --branch t --workdir "$PWD/../wd-abort" --abort >../out 2>../err)
'

test_expect_success 'a second loop on the same branch is refused while one is in progress' '
	kit_at k-twice stable-conflict &&
	(cd k-twice && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-twice" >../out 2>../err) &&
	(cd k-twice && test_expect_code 2 mkseries backport --branch t --workdir "$PWD/../wd-twice" >../out 2>../err) &&
	test_grep "in progress" err &&
	(cd k-skip && test_expect_code 2 mkseries backport --branch t --workdir "$PWD/../wd-twice" --abort >../out 2>../err) &&
	test_grep "was started in the kit .*k-twice., not here" err &&
	test -d wd-twice/t/backport/tree &&
	(cd k-twice && mkseries backport --branch t --workdir "$PWD/../wd-twice" --abort >../out 2>../err)
'

test_expect_success 'a second mkseries on the repository is refused, naming the holder' '
	kit_at k-locked stable-conflict &&
	cp k-locked/series.yaml yaml.before &&
	flock $(mk_repo linux)/mkseries.lock sh -c "echo 4242 >$(mk_repo linux)/mkseries.lock &&
		cd k-locked && mkseries backport --branch t --workdir \"\$PWD/../wd-locked\" \
		>../out 2>../err; echo \$? >../code" &&
	echo 1 >code.expect &&
	test_cmp code.expect code &&
	test_grep "^error: .*$(mk_repo linux)/. is locked by another mkseries (pid 4242); wait for it to finish$" err &&
	! test -e wd-locked/t/backport/tree &&
	test_cmp yaml.before k-locked/series.yaml
'

# A patch of two hunks whose blobs the repository does not have: no
# three-way merge, so hunk by hunk. The stable tree has three more lines
# on top (hunk 1 applies 3 lines further down) and line 17 changed
# (hunk 2 does not apply).
test_expect_success 'setup: a two-hunk patch without its blobs' '
	mkdir -p up2/lib &&
	(
		cd up2 &&
		git init -q &&
		seq 1 20 | sed "s/^/line /" >lib/list.c &&
		git add -A && git commit -q -m "Linux 2.0" && git tag v2.0 &&
		sed -i -e "s/^line 5\$/line five/" -e "s/^line 18\$/line eighteen/" lib/list.c &&
		git commit -q -a -m "lib: spell two lines out" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		git checkout -q -b stable v2.0 &&
		sed -i "s/^line 17\$/line 17 (stable)/" lib/list.c &&
		sed -i -e "1i stable 1" -e "1i stable 2" -e "1i stable 3" lib/list.c &&
		git commit -q -a -m "stable: three lines on top, line 17" &&
		git checkout -q master
	) &&
	G1=$(git -C up2 rev-parse master) &&
	mkdir -p k-rej/kernels k-rej/patches/gamma &&
	git -C up2 format-patch -q -o "$PWD/k-rej/patches/gamma" v2.0..master &&
	sed -i "s/^index [0-9a-f]*\.\.[0-9a-f]*/index 1234567..89abcde/" k-rej/patches/gamma/0001-*.patch &&
	test_grep "^index 1234567..89abcde" k-rej/patches/gamma/0001-*.patch &&
	cat >k-rej/kernels/t.yaml <<-EOF &&
	name: t
	source:
	  git: { repo: $PWD/up2, ref: stable }
	config:
	  base: tinyconfig
	EOF
	cat >k-rej/series.yaml <<-EOF
	series:
	  - id: gamma
	    title: "lib: spelling"
	    patches:
	      - file: patches/gamma/0001-lib-spell-two-lines-out.patch
	        upstream: $(echo $G1 | cut -c1-12)
	        subject: "lib: spell two lines out"
	EOF
'

test_expect_success 'without the blobs, the hunks that apply are applied and the rest left in .rej' '
	(cd k-rej && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-rej" >../out 2>../err) &&
	cat out &&
	test_grep "rejected  lib/list.c (1 of 2 hunks in lib/list.c.rej" out &&
	test_grep "(applied elsewhere than the patch says: hunk 1 at offset +3 lines)" out &&
	tree=wd-rej/t/backport/tree &&
	test_grep "^line five\$" $tree/lib/list.c &&
	test_grep "^line 18\$" $tree/lib/list.c &&
	test_grep "^+line eighteen" $tree/lib/list.c.rej &&
	! test_grep "line five" $tree/lib/list.c.rej &&
	test_grep "hunk 2 of 2" $tree/lib/list.c.rej.why &&
	test_grep "the patch expects" $tree/lib/list.c.rej.why &&
	test_grep "the tree has" $tree/lib/list.c.rej.why &&
	cat $tree/lib/list.c.rej.why &&
	test_grep ! "hunk 1 of 1" $tree/lib/list.c.rej.why &&
	test_grep "^  lib/list.c: hunk (@@ .* @@.*) does not apply\$" $tree/lib/list.c.rej.why &&
	test "$(grep -c "^ *[0-9]* !" $tree/lib/list.c.rej.why)" = 1 &&
	test_grep "^ *20 !line 17 (stable)\$" $tree/lib/list.c.rej.why
'

test_expect_success '--continue refuses while .rej files are left, then records the redone hunk' '
	tree=wd-rej/t/backport/tree &&
	(cd k-rej && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-rej" --continue >../out 2>../err) &&
	test_grep "lib/list.c.rej: still there" err &&
	sed -i "s/^line 18\$/line eighteen/" $tree/lib/list.c &&
	rm $tree/lib/list.c.rej $tree/lib/list.c.rej.why &&
	(cd k-rej && mkseries backport --branch t --workdir "$PWD/../wd-rej" --continue >../out 2>../err) &&
	cat out &&
	test_grep ! "^warning:" err &&
	f=$(ls k-rej/patches/gamma/t/*.patch) &&
	test_grep "lib/list.c (rejected hunks redone)" $f &&
	mk_git up2 show $(kit_ref k-rej t):lib/list.c >list.c &&
	test_grep "^line five\$" list.c &&
	test_grep "^line 17 (stable)\$" list.c &&
	test_grep "^line eighteen\$" list.c
'

test_expect_success 'a tracked X.rej is kept: the rejected hunks go to X.mkseries.rej' '
	git -C up2 checkout -q -b stable-rej stable &&
	echo "the kernel keeps this" >up2/lib/list.c.rej &&
	git -C up2 add lib/list.c.rej &&
	git -C up2 commit -q -m "a tracked file named like a reject" &&
	git -C up2 checkout -q master &&
	rm -rf k-rej2 && cp -R k-rej k-rej2 && rm -rf k-rej2/patches/gamma/t &&
	sed -i "s/ref: stable }/ref: stable-rej }/" k-rej2/kernels/t.yaml && test_grep "ref: stable-rej" k-rej2/kernels/t.yaml &&
	sed -i "/^ *branches:/,\$d" k-rej2/series.yaml &&
	(cd k-rej2 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-rej2" >../out 2>../err) &&
	test_grep "rejected  lib/list.c (1 of 2 hunks in lib/list.c.mkseries.rej, why in lib/list.c.mkseries.rej.why)" out &&
	tree=wd-rej2/t/backport/tree &&
	echo "the kernel keeps this" >expect &&
	test_cmp expect $tree/lib/list.c.rej &&
	test_grep "^+line eighteen" $tree/lib/list.c.mkseries.rej &&
	test_grep "hunk 2 of 2" $tree/lib/list.c.mkseries.rej.why &&
	(cd k-rej2 && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-rej2" --continue >../out 2>../err) &&
	test_grep "lib/list.c.mkseries.rej: still there" err &&
	test_grep ! "lib/list.c.rej: still there" err &&
	sed -i "s/^line 18\$/line eighteen/" $tree/lib/list.c &&
	rm $tree/lib/list.c.mkseries.rej $tree/lib/list.c.mkseries.rej.why &&
	(cd k-rej2 && mkseries backport --branch t --workdir "$PWD/../wd-rej2" --continue >../out 2>../err) &&
	mk_git up2 show $(kit_ref k-rej2 t):lib/list.c.rej >kept &&
	test_cmp expect kept &&
	mk_git up2 show $(kit_ref k-rej2 t):lib/list.c >list.c &&
	test_grep "^line eighteen\$" list.c
'

test_expect_success 'an abbreviated upstream id or a short Fixes: id is recorded with a warning' '
	rm -rf k-short && cp -R k-rej k-short && rm -rf k-short/patches/gamma/t &&
	sed -i -e "/^ *branches:/,\$d" -e "s/upstream: .*/upstream: 0123456789ab/" k-short/series.yaml &&
	sed -i "s/^Signed-off-by: Dev Eloper/Fixes: 1234567 (\"lib: the list\")\n&/" k-short/patches/gamma/0001-*.patch &&
	test_grep "^Fixes: 1234567" k-short/patches/gamma/0001-*.patch &&
	(cd k-short && test_expect_code 1 mkseries backport --branch t --workdir "$PWD/../wd-short" >../out 2>../err) &&
	tree=wd-short/t/backport/tree &&
	sed -i "s/^line 18\$/line eighteen/" $tree/lib/list.c &&
	rm $tree/lib/list.c.rej $tree/lib/list.c.rej.why &&
	(cd k-short && mkseries backport --branch t --workdir "$PWD/../wd-short" --continue >../out 2>../err) &&
	test_grep "^warning: patches/gamma/0001-lib-spell-two-lines-out.patch: the upstream id .0123456789ab. is abbreviated and no commit of the repository starts with it" err &&
	test_grep "^warning: patches/gamma/0001-lib-spell-two-lines-out.patch: .Fixes: 1234567 (\"lib: the list\"). gives 7 digits of the commit id; the kernel.s rule is at least 12" err &&
	test_grep "recorded patches/gamma/t/" out
'

test_done

#!/bin/sh
# t0820-backport-crash.sh: the backport loop killed (SIGKILL) at each step that changes state: --status says so, a rerun finishes, --abort puts the kit back, and the kit loads whatever was cut.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_expect_success 'setup: a kit whose first patch conflicts on the stable tree' '
	make_upstream linux &&
	make_kit kit linux &&
	git -C linux checkout -q -b stable v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns long" &&
	git -C linux checkout -q master &&
	sed -i "s/ref: v1.0 }/ref: stable }/" kit/kernels/t.yaml &&
	ID_A1=$(echo "$A1" | cut -c1-12)
'

# loads NAME: the kit NAME loads and plans (a decision naming a file
# that is gone would stop it).
loads() {
	(cd "$1" && mkseries plan --branch t >../plan.out 2>../plan.err) || {
		cat plan.err
		return 1
	}
}

# loop_at NAME: a fresh copy of the kit as NAME with its loop stopped at
# alpha 1/2 and the conflict resolved in the work tree wd-NAME.
loop_at() {
	rm -rf "$1" "wd-$1" && cp -R kit "$1" &&
	(cd "$1" && test_expect_code 1 mkseries backport --branch t --workdir "$TRASH_DIRECTORY/wd-$1" >../out 2>../err) &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >"wd-$1/t/backport/tree/mm/mremap.c"
}

# no_leftovers NAME: no temporary file in kit NAME, no worktree
# registration, work tree or ref lock of its loop in the repository.
no_leftovers() {
	id=$(kit_id "$1") &&
	find "$1" -name "*.tmp.*" >tmps &&
	test_must_be_empty tmps &&
	! test -e "$(mk_repo linux)/worktrees/mkseries-backport-$id-t" &&
	mk_git linux worktree list >wt &&
	! test_grep "mkseries-backport/$id/" wt &&
	find "$(mk_repo linux)" -name "*.lock" -path "*$id*" >locks &&
	test_must_be_empty locks &&
	! test -e "wd-$1/t/backport/journal"
}

# safe STEP: STEP as a part of a directory name.
safe() {
	echo "$1" | tr -c "A-Za-z0-9\n-" "-"
}

# finished NAME: the loop of NAME ended with one recorded file, one decision, the branch applied.
finished() {
	no_leftovers "$1" &&
	loads "$1" &&
	ls "$1/patches/alpha/t" >files &&
	echo "0001-$ID_A1-mm-rename-ptes.patch" >files.expect &&
	test_cmp files.expect files &&
	test $(grep -c "\"t\": { file: patches/alpha/t/0001-" "$1/series.yaml") = 1 &&
	! test -d "wd-$1/t/backport" &&
	(cd "$1" && mkseries apply --branch t >../out 2>../err) &&
	mk_git linux show "$(kit_ref "$1" t):mm/mremap.c" >tree.c &&
	test_grep "static long move_pteps" tree.c
}

# restored NAME: the kit NAME is as it was before its loop: series.yaml
# and every file of patches/ byte for byte, and it loads.
restored() {
	no_leftovers "$1" &&
	test_cmp kit/series.yaml "$1/series.yaml" &&
	! test -e "$1/patches/alpha/t" &&
	diff -r kit/patches "$1/patches" &&
	loads "$1" &&
	! test -d "wd-$1/t/backport" &&
	! test -d "wd-$1/t/backport.ended" &&
	mk_git linux for-each-ref "refs/heads/mkseries-backport/$(kit_id "$1")/" \
		"refs/mkseries-backports/$(kit_id "$1")/" "$(kit_ref "$1" t)" >refs &&
	test_must_be_empty refs
}

# The steps of --continue where a kill leaves something half done, in
# order, and what --status says after each.
continue_steps="target tmp:*.patch written recorded tmp:series.yaml.loop.next tmp:series.yaml decided removing finished applied"

# The steps after the last patch applied, where the loop's directory
# goes: a kill there leaves the loop whole or no loop at all. rm:NAME is
# right after that file of the directory was removed.
ending_steps="rm:series.yaml.loop rm:series.yaml.orig rm:loop ended"
status_after() {
	case "$1" in
	target) echo "nothing left to resolve: --continue records it" ;;
	tmp:*.patch|written) echo "interrupted: killed while writing the recorded patch of alpha 1/2 (mkseries pid [0-9]*, no longer running" ;;
	recorded) echo "recorded as patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch; --continue adds its decision" ;;
	tmp:series.yaml*|decided) echo "interrupted: killed while writing the decision into series.yaml of alpha 1/2" ;;
	removing) echo "interrupted: killed while removing the work tree and the loop.s branch of alpha 1/2" ;;
	finished|applied) echo "between two patches (interrupted)" ;;
	esac
}

for step in $continue_steps
do
	test_expect_success "--continue killed at '$step': --status says so, run again, it finishes" '
		k=k-c-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --continue &&
		bp $k --status &&
		cat out &&
		test_grep "$(status_after "$step")" out &&
		bp $k --continue &&
		cat out &&
		finished $k
	'

	test_expect_success "--continue killed at '$step': --abort puts the kit back" '
		k=k-a-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --continue &&
		bp $k --abort &&
		cat out &&
		restored $k
	'
done

# skipped NAME: the loop of NAME ended with alpha 1/2 skipped on t, no file recorded.
skipped() {
	no_leftovers "$1" &&
	test $(grep -c "\"t\": { skip: \"t keeps it\" }" "$1/series.yaml") = 1 &&
	{ ! test -e "$1/patches/alpha/t" || { ls "$1/patches/alpha/t" >left && test_must_be_empty left; }; } &&
	! test -d "wd-$1/t/backport" &&
	loads "$1"
}

# Killed while the loop's directory goes, the loop is over: --continue,
# --skip and --abort find none, and the kit is as recorded.
for step in $ending_steps
do
	for how in continue skip
	do
		test_expect_success "--$how killed at '$step' as the loop ends: it is over, recorded" '
			k=k-e$how-$(safe "$step") &&
			loop_at $k &&
			if test $how = continue
			then
				MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --continue &&
				test_expect_code 2 bp $k --continue
			else
				MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --skip -m "t keeps it" &&
				test_expect_code 2 bp $k --skip -m "t keeps it"
			fi &&
			test_grep "no backport loop in progress on .t." err &&
			bp $k --status &&
			test_grep "no backport loop in progress on .t." out &&
			if test $how = continue
			then
				finished $k
			else
				skipped $k
			fi
		'

		test_expect_success "--$how killed at '$step' as the loop ends: --abort finds no loop, the kit stays as recorded" '
			k=k-ea$how-$(safe "$step") &&
			loop_at $k &&
			if test $how = continue
			then
				MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --continue
			else
				MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --skip -m "t keeps it"
			fi &&
			test_expect_code 2 bp $k --abort &&
			test_grep "no backport loop in progress on .t." err &&
			if test $how = continue
			then
				finished $k
			else
				skipped $k
			fi
		'
	done
done

test_expect_success 'what a loop killed as it ended left goes with the next loop' '
	k=k-enew &&
	loop_at $k &&
	MKSERIES_TEST_BACKPORT_CRASH=ended test_expect_code 137 bp $k --continue &&
	test -f wd-$k/t/backport.ended/loop &&
	bp $k &&
	test_grep "t: $(kit_ref $k t) up to date" out &&
	! test -e wd-$k/t/backport.ended &&
	finished $k
'

test_expect_success '--continue killed while it wrote the recorded patch: the temporary file goes, the number stays' '
	loop_at k-tmpw &&
	MKSERIES_TEST_BACKPORT_CRASH="tmp:*.patch" test_expect_code 137 bp k-tmpw --continue &&
	ls k-tmpw/patches/alpha/t >files &&
	test_grep "^0001-$ID_A1-mm-rename-ptes.patch.tmp.[0-9]*$" files &&
	bp k-tmpw --continue &&
	test_grep "killed while writing the recorded patch of alpha 1/2" out &&
	test_grep "removed patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch.tmp.[0-9]* (left by a mkseries that was killed)" out &&
	test_grep "recorded patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch" out &&
	finished k-tmpw
'

test_expect_success '--continue killed between the two writes of the decision: --abort leaves no decision, a rerun goes through without an error' '
	loop_at k-half &&
	MKSERIES_TEST_BACKPORT_CRASH="tmp:series.yaml" test_expect_code 137 bp k-half --continue &&
	test_grep "\"t\": { file:" wd-k-half/t/backport/series.yaml.loop.next &&
	! test_grep "\"t\": { file:" k-half/series.yaml &&
	bp k-half --abort &&
	restored k-half &&
	loop_at k-half2 &&
	MKSERIES_TEST_BACKPORT_CRASH="tmp:series.yaml" test_expect_code 137 bp k-half2 --continue &&
	bp k-half2 --continue &&
	! test_grep "error" err &&
	finished k-half2
'

test_expect_success '--continue killed while deleting the loop branch: --status names the lock, --continue removes it' '
	loop_at k-bl &&
	MKSERIES_TEST_BACKPORT_CRASH=branch-locked test_expect_code 137 bp k-bl --continue &&
	ref=refs/heads/mkseries-backport/$(kit_id k-bl)/t &&
	test -f $(mk_repo linux)/$ref.lock &&
	bp k-bl --status &&
	cat out err &&
	test_grep "interrupted: killed while removing the work tree and the loop.s branch of alpha 1/2 (mkseries pid [0-9]*, no longer running, [0-9]* s ago)" out &&
	test_grep "^  the loop.s branch .$ref. is locked: .*$(mk_repo linux)/$ref.lock. ([0-9]* s old) was left by mkseries pid [0-9]*, no longer running, killed while removing the work tree and the loop.s branch; --continue or --abort removes it$" out &&
	test_must_be_empty err &&
	test -f $(mk_repo linux)/$ref.lock &&
	bp k-bl --continue &&
	cat out &&
	test_grep "^removed the lock .*$(mk_repo linux)/$ref.lock. on the loop.s branch .$ref. ([0-9]* s old), left by mkseries pid [0-9]*, no longer running$" out &&
	finished k-bl
'

test_expect_success '--continue killed while deleting the loop branch: --abort removes the lock and restores' '
	loop_at k-bla &&
	MKSERIES_TEST_BACKPORT_CRASH=branch-locked test_expect_code 137 bp k-bla --continue &&
	bp k-bla --abort &&
	test_grep "^removed the lock .*/refs/heads/mkseries-backport/$(kit_id k-bla)/t.lock. on the loop.s branch" out &&
	restored k-bla
'

test_expect_success '--abort killed while deleting the loop branch: --status says so, --abort removes the lock' '
	loop_at k-abl &&
	MKSERIES_TEST_BACKPORT_CRASH=branch-locked test_expect_code 137 bp k-abl --abort &&
	bp k-abl --status &&
	test_grep "interrupted: its --abort was killed" out &&
	test_grep "^  the loop.s branch .* is locked: .* was left by mkseries pid [0-9]*, no longer running, killed while dropping the loop (--abort); --continue or --abort removes it$" out &&
	bp k-abl --abort &&
	test_grep "^removed the lock .*t.lock. on the loop.s branch" out &&
	restored k-abl
'

test_expect_success '--continue killed while writing the ref that keeps the backport: the lock goes, a rerun records' '
	loop_at k-kl &&
	MKSERIES_TEST_BACKPORT_CRASH=keep-locked test_expect_code 137 bp k-kl --continue &&
	find $(mk_repo linux)/refs/mkseries-backports -name "*.lock" >locks &&
	test $(wc -l <locks) = 1 &&
	bp k-kl --status &&
	test_grep "interrupted: killed while writing the ref that keeps the recorded backport of alpha 1/2" out &&
	test_grep "^  the ref .refs/mkseries-backports/$(kit_id k-kl)/t/[0-9a-f]*. that keeps a recorded backport is locked: .* --continue or --abort removes it$" out &&
	bp k-kl --continue &&
	test_grep "^removed the lock .*/refs/mkseries-backports/$(kit_id k-kl)/t/[0-9a-f]*.lock. on the ref" out &&
	finished k-kl
'

test_expect_success 'a ref lock older than the killed step, or whose mkseries still runs, is named, not removed' '
	loop_at k-old &&
	ref=refs/heads/mkseries-backport/$(kit_id k-old)/t &&
	MKSERIES_TEST_BACKPORT_CRASH=branch-locked test_expect_code 137 bp k-old --continue &&
	touch -d "2001-01-01" $(mk_repo linux)/$ref.lock &&
	test_expect_code 1 bp k-old --continue &&
	test_grep "^error: the loop.s branch .$ref. is locked: .*$ref.lock. is there, [0-9]* s old, older than the step a killed mkseries left (not the loop.s own)$" err &&
	test_grep "^hint: if no git or mkseries runs on this repository, remove .*$ref.lock. and run the same command again$" err &&
	test -f $(mk_repo linux)/$ref.lock &&
	touch $(mk_repo linux)/$ref.lock &&
	sed -i "s/^pid=.*/pid=$$/" wd-k-old/t/backport/journal &&
	test_expect_code 1 bp k-old --continue &&
	test_grep "is there, [0-9]* s old, and the mkseries that was under way (pid of the journal) still runs$" err &&
	rm $(mk_repo linux)/$ref.lock &&
	bp k-old --continue &&
	finished k-old
'

test_expect_success 'killed while libgit2 held the work tree.s index.lock: --status and --continue remove it' '
	loop_at k-il &&
	MKSERIES_TEST_BACKPORT_CRASH=index-writing test_expect_code 137 bp k-il --continue &&
	lock=$(mk_repo linux)/worktrees/mkseries-backport-$(kit_id k-il)-t/index.lock &&
	touch $lock &&
	bp k-il --status &&
	test_grep "^removed the lock .*$lock. on the work tree.s index ([0-9]* s old), left by mkseries pid [0-9]*, no longer running$" out &&
	test_grep "nothing left to resolve: --continue records it" out &&
	! test -e $lock &&
	MKSERIES_TEST_BACKPORT_CRASH=index-writing test_expect_code 137 bp k-il --continue &&
	touch $lock &&
	bp k-il --continue &&
	test_grep "^removed the lock .*$lock. on the work tree.s index" out &&
	finished k-il
'

test_expect_success 'an index.lock of a git in the work tree is named with its age and the command' '
	loop_at k-gl &&
	lock=$(mk_repo linux)/worktrees/mkseries-backport-$(kit_id k-gl)-t/index.lock &&
	touch $lock &&
	test_expect_code 1 bp k-gl --continue &&
	test_grep "^error: the work tree.s index is locked: .*$lock. is there, [0-9]* s old, and no step of the loop was writing it (not the loop.s own)$" err &&
	test_grep "^hint: if no git or mkseries runs on this repository, remove .*$lock. and run the same command again$" err &&
	rm $lock &&
	bp k-gl --continue &&
	finished k-gl
'

for step in skipped tmp:series.yaml finished applied
do
	test_expect_success "--skip killed at '$step': run again, it finishes" '
		k=k-s-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --skip -m "t keeps it" &&
		bp $k --skip -m "t keeps it" &&
		cat out err &&
		skipped $k
	'

	test_expect_success "--skip killed at '$step': --abort puts the kit back" '
		k=k-sa-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --skip -m "t keeps it" &&
		bp $k --abort &&
		restored $k
	'
done

for step in checking-out checked-out
do
	test_expect_success "the start killed at '$step': --status says so, --continue checks out again" '
		rm -rf k-st-$step wd-k-st-$step && cp -R kit k-st-$step &&
		MKSERIES_TEST_BACKPORT_CRASH=$step test_expect_code 137 bp k-st-$step &&
		bp k-st-$step --status &&
		cat out &&
		test_grep "interrupted: killed while checking out the work tree of alpha 1/2" out &&
		test_grep "continue removes the half checked-out tree and checks it out again" out &&
		test_expect_code 1 bp k-st-$step --continue &&
		test_grep "removed the half checked-out work tree" out &&
		test_grep "alpha 1/2 does not apply" out &&
		printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >wd-k-st-$step/t/backport/tree/mm/mremap.c &&
		bp k-st-$step --continue &&
		finished k-st-$step
	'

	test_expect_success "the start killed at '$step': --abort restores" '
		rm -rf k-sta-$step wd-k-sta-$step && cp -R kit k-sta-$step &&
		MKSERIES_TEST_BACKPORT_CRASH=$step test_expect_code 137 bp k-sta-$step &&
		bp k-sta-$step --abort &&
		restored k-sta-$step
	'
done

# A start killed before its loop is whole (series.yaml.orig and the
# loop state are written in backport.new, renamed to backport/ once both
# are there): no loop, and the next command removes what it wrote.
for step in tmp:series.yaml.orig tmp:loop starting
do
	test_expect_success "the start killed at '$step', before its loop is there: no loop, nothing left" '
		k=k-sb-$(safe "$step") &&
		rm -rf $k wd-$k && cp -R kit $k &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k &&
		! test -e wd-$k/t/backport &&
		test -d wd-$k/t/backport.new &&
		bp $k --status &&
		test_grep "no backport loop in progress on .t. (a start was killed: the next --continue, --abort or start removes what it wrote)" out &&
		test_expect_code 2 bp $k --abort &&
		! test -e wd-$k/t/backport.new &&
		restored $k &&
		test_expect_code 1 bp $k &&
		test_grep "alpha 1/2 does not apply" out &&
		bp $k --abort &&
		restored $k
	'
done

test_expect_success '--continue killed while it wrote the loop state: the next step removes the temporary file' '
	k=k-tl &&
	loop_at $k &&
	MKSERIES_TEST_BACKPORT_CRASH=tmp:loop test_expect_code 137 bp $k --continue &&
	ls wd-$k/t/backport/loop.tmp.* &&
	bp $k --continue &&
	test_grep "removed .*/loop.tmp.[0-9]* (left by mkseries pid [0-9]*, killed while it wrote the loop.s state)" out &&
	finished $k
'

# The steps of --abort, in order: the work tree, series.yaml, the
# files the loop replaced and wrote, the loop's directory. A kill at any
# leaves a kit that loads; a rerun of --abort finishes, a --continue
# refuses to build on a half put back kit.
abort_steps="removing tmp:series.yaml yaml-restored put-back removed-file rm:loop ended"
abort_ended() {
	case "$1" in rm:*|ended) return 0 ;; esac
	return 1
}

for step in $abort_steps
do
	test_expect_success "--abort killed at '$step': the kit loads, run again, the kit is back" '
		k=k-ab-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH=decided test_expect_code 137 bp $k --continue &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --abort &&
		loads $k &&
		if abort_ended "$step"
		then
			test_expect_code 2 bp $k --abort
		else
			bp $k --status &&
			test_grep "interrupted: its --abort was killed (mkseries pid [0-9]*, no longer running" out &&
			bp $k --abort &&
			test_grep "an --abort of this loop was killed" out
		fi &&
		restored $k
	'

	test_expect_success "--abort killed at '$step': --continue refuses, --abort finishes" '
		k=k-abc-$(safe "$step") &&
		loop_at $k &&
		MKSERIES_TEST_BACKPORT_CRASH=decided test_expect_code 137 bp $k --continue &&
		MKSERIES_TEST_BACKPORT_CRASH="$step" test_expect_code 137 bp $k --abort &&
		if abort_ended "$step"
		then
			test_expect_code 2 bp $k --continue &&
			test_grep "no backport loop in progress on .t." err
		else
			test_expect_code 1 bp $k --continue &&
			test_grep "an --abort of this loop was killed (mkseries pid [0-9]*, no longer running, [0-9]* s ago): the kit may be half put back; run mkseries backport --abort again" err &&
			loads $k &&
			bp $k --abort
		fi &&
		restored $k
	'
done

# start_killed NAME: the start of kit NAME's loop killed from outside
# (kill -9) while it writes the files of zz/; 0 when the kill came in
# the checkout, 1 when the start was done before it came.
start_killed() {
	rm -rf "$1" "wd-$1" && cp -R kit-big "$1" &&
	(cd "$1" && exec mkseries backport --branch t --workdir "$TRASH_DIRECTORY/wd-$1" >../out 2>../err) &
	pid=$! &&
	while ! test -d "wd-$1/t/backport/tree/zz" && kill -0 $pid 2>/dev/null
	do
		:
	done
	kill -9 $pid 2>/dev/null
	wait $pid
	code=$? &&
	echo "start exited $code; $(ls "wd-$1/t/backport/tree/zz" 2>/dev/null | wc -l) of 30000 files of zz/ written" &&
	test $code = 137 &&
	! test -f "$(mk_repo linux)/worktrees/mkseries-backport-$(kit_id "$1")-t/index"
}

test_expect_success 'a kill -9 from outside while the start checks out 30000 files: --continue checks out again, --abort restores' '
	blob=$(git -C linux hash-object -w --stdin </dev/null) &&
	seq 1 30000 | sed "s|^|100644 $blob	zz/f|" >zz.info &&
	GIT_INDEX_FILE="$TRASH_DIRECTORY/big.index" git -C linux read-tree stable &&
	GIT_INDEX_FILE="$TRASH_DIRECTORY/big.index" git -C linux update-index --index-info <zz.info &&
	tree=$(GIT_INDEX_FILE="$TRASH_DIRECTORY/big.index" git -C linux write-tree) &&
	commit=$(git -C linux commit-tree -p stable -m "many files" $tree) &&
	git -C linux update-ref refs/heads/big $commit &&
	rm -rf kit-big && cp -R kit kit-big &&
	sed -i "s/ref: stable }/ref: big }/" kit-big/kernels/t.yaml &&
	for try in 1 2 3 4 5
	do
		start_killed k-big && break ||
		test $try != 5 || return 1
	done &&
	bp k-big --status &&
	cat out &&
	test_grep "interrupted: killed while checking out the work tree of alpha 1/2" out &&
	test_expect_code 1 bp k-big --continue &&
	test_grep "removed the half checked-out work tree" out &&
	ls wd-k-big/t/backport/tree/zz >files &&
	test $(wc -l <files) = 30000 &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >wd-k-big/t/backport/tree/mm/mremap.c &&
	bp k-big --continue &&
	no_leftovers k-big &&
	ls k-big/patches/alpha/t >files &&
	echo "0001-$ID_A1-mm-rename-ptes.patch" >files.expect &&
	test_cmp files.expect files &&
	for try in 1 2 3 4 5
	do
		start_killed k-big2 && break ||
		test $try != 5 || return 1
	done &&
	bp k-big2 --abort &&
	no_leftovers k-big2 &&
	test_cmp kit-big/series.yaml k-big2/series.yaml &&
	! test -d wd-k-big2/t/backport
'

test_expect_success 'a temporary file a killed write left: the file keeps its number, --abort removes it' '
	loop_at k-tmp &&
	mkdir -p k-tmp/patches/alpha/t &&
	echo half >k-tmp/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch.tmp.99999 &&
	echo half >k-tmp/series.yaml.tmp.99998 &&
	MKSERIES_TEST_BACKPORT_CRASH=recorded test_expect_code 137 bp k-tmp --continue &&
	test -f k-tmp/patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch &&
	bp k-tmp --abort &&
	cat out &&
	test_grep "removed patches/alpha/t/0001-$ID_A1-mm-rename-ptes.patch.tmp.99999 (left by a mkseries that was killed)" out &&
	test_grep "removed series.yaml.tmp.99998" out &&
	! test -e k-tmp/series.yaml.tmp.99998 &&
	restored k-tmp
'

test_expect_success 'a work tree half removed, its registration left: --abort and a new loop go through' '
	loop_at k-wt &&
	name=mkseries-backport-$(kit_id k-wt)-t &&
	test -d $(mk_repo linux)/worktrees/$name &&
	rm -rf wd-k-wt/t/backport/tree &&
	rm -f $(mk_repo linux)/worktrees/$name/gitdir &&
	bp k-wt --abort &&
	! test -e $(mk_repo linux)/worktrees/$name &&
	loop_at k-wt &&
	bp k-wt --continue &&
	finished k-wt
'

test_expect_success 'a work tree gone from under the loop: --status says so, --continue checks it out again' '
	loop_at k-gone &&
	rm -rf wd-k-gone/t/backport/tree &&
	test_expect_code 1 bp k-gone --status &&
	test_grep "^the work tree .*wd-k-gone/t/backport/tree is gone; --continue checks the patch out again, --abort drops the loop$" out &&
	test_must_be_empty err &&
	test_expect_code 1 bp k-gone --continue &&
	test_grep "^the work tree .*wd-k-gone/t/backport/tree is gone: checking alpha 1/2 out again$" out &&
	test_grep "alpha 1/2 does not apply" out &&
	printf "static long move_pteps(void)\n{\n\treturn 0;\n}\n" >wd-k-gone/t/backport/tree/mm/mremap.c &&
	bp k-gone --continue &&
	finished k-gone
'

test_expect_success 'a lock left on the loop branch is named; removed, --abort goes through' '
	loop_at k-lock &&
	ref=refs/heads/mkseries-backport/$(kit_id k-lock)/t &&
	touch $(mk_repo linux)/$ref.lock &&
	test_expect_code 1 bp k-lock --abort &&
	cat err &&
	test_grep "cannot update\\|cannot delete\\|its lock .*$ref.lock. is there" err &&
	test_grep "$ref.lock" err &&
	rm $(mk_repo linux)/$ref.lock &&
	bp k-lock --abort &&
	restored k-lock
'

test_done

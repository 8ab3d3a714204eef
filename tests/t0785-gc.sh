#!/bin/sh
# t0780-gc.sh: `mkseries gc`: what the cache holds per kit and branch, and what --prune drops (kits gone, variants and branches no longer declared, packages no tag names).
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

CACHE=$XDG_CACHE_HOME/mkseries

test_expect_success 'setup: a kit built, a second kit built and then deleted, leftovers' '
	setup_fake_run kit &&
	(cd kit && mkseries apply --branch t >../out 2>&1 && mkseries build --branch t >../out 2>&1) &&
	id=$(kit_id kit) &&
	test -d "$CACHE/work/$id/t/out-base" &&
	printf "%s\n" "$(cd kit && pwd -P)" >expect && test_cmp expect "$CACHE/work/$id/kit" &&
	cp -r kit kit2 &&
	(cd kit2 && mkseries build --branch t --variant base >../out 2>&1) &&
	id2=$(kit_id kit2) &&
	test -d "$CACHE/work/$id2/t/out-base" &&
	rm -r kit2 &&
	mkdir -p "$CACHE/work/old-12345678/t" && echo x >"$CACHE/work/old-12345678/t/f" &&
	mkdir "$CACHE/work/$id/t/out-was-a-variant" && echo x >"$CACHE/work/$id/t/out-was-a-variant/vmlinux" &&
	mkdir "$CACHE/work/$id/gone-branch" && echo x >"$CACHE/work/$id/gone-branch/f" &&
	git init -q --bare "$CACHE/linux.git" &&
	c=$(git -C linux rev-parse v1.0) &&
	git -C linux push -q "$CACHE/linux.git" "$c:refs/heads/mkseries/$id2/t" "$c:refs/heads/mkseries-variants/$id2/t/v" \
		"$c:refs/heads/mkseries/old-12345678/t" "$c:refs/heads/mkseries/$id/t" &&
	git -C "$CACHE/linux.git" tag -a -m "mkseries base for branch t

source: debian linux-source-9.9 9.9.1-1 bookworm" mkseries/base/t $c &&
	mkdir "$CACHE/debs" &&
	echo new >"$CACHE/debs/linux-source-9.9_9.9.1-1_all.deb" &&
	echo old >"$CACHE/debs/linux-source-9.9_9.9.0-1_all.deb" &&
	printf "id=%s\nid2=%s\n" "$id" "$id2" >ids
'
. ./ids

test_expect_success 'gc says what the cache holds and what it can drop, and drops nothing' '
	mk=$(mk_repo linux) &&
	(cd kit && mkseries gc >../out) &&
	cat out &&
	test_grep "^cache: $CACHE, .* in these parts$" out &&
	test_grep "^  linux.git  .* the kernel repository" out &&
	test_grep "^  clones  .* mkseries. repositories for git sources. clones" out &&
	test_grep "^  ${mk#$CACHE/}  .* $TRASH_DIRECTORY/linux$" out &&
	test_grep "^  debs  .* Debian" out &&
	test_grep "^this kit ($id, $(cd kit && pwd -P)): " out &&
	test_grep "^  t  .*src .*out-base .*out-kit " out &&
	test_grep "^  gone-branch .* no such branch in the kit$" out &&
	test_grep "^  $id2 .* 2 refs  $TRASH_DIRECTORY/kit2: gone: moved or deleted (dropped)$" out &&
	test_grep "^  old-12345678 .* 1 ref  kit unknown: its work directory predates the note of its kit$" out &&
	test_grep "^can drop:$" out &&
	test_grep "^  work/$id/gone-branch  *a branch the kit no longer has$" out &&
	test_grep "^  work/$id/t/out-was-a-variant  *the build of a variant the branch no longer declares$" out &&
	test_grep "^  work/$id2  *its kit is gone$" out &&
	test_grep "^  debs/linux-source-9.9_9.9.0-1_all.deb  *a package no base tag names" out &&
	test_grep ! "debs/linux-source-9.9_9.9.1-1" out &&
	test_grep "^  2 refs of the kits dropped above, in mkseries. repositories$" out &&
	test_grep "in all: .mkseries gc --prune. drops it$" out &&
	test -d "$CACHE/work/$id2" && test -f "$CACHE/debs/linux-source-9.9_9.9.0-1_all.deb" &&
	git -C "$CACHE/linux.git" rev-parse -q --verify "refs/heads/mkseries/$id2/t"
'

test_expect_success 'gc --prune drops exactly that' '
	(cd kit && mkseries gc --prune >../out) &&
	test_grep "^dropped:$" out &&
	test_grep "freed; the objects only those refs used stay until .git --git-dir $CACHE/linux.git gc --prune=now. (and the same in $CACHE/clones/\*.git)$" out &&
	! test -e "$CACHE/work/$id2" &&
	! test -e "$CACHE/work/$id/gone-branch" &&
	! test -e "$CACHE/work/$id/t/out-was-a-variant" &&
	! test -e "$CACHE/debs/linux-source-9.9_9.9.0-1_all.deb" &&
	test -f "$CACHE/debs/linux-source-9.9_9.9.1-1_all.deb" &&
	test -f "$CACHE/work/$id/t/out-base/arch/x86/boot/bzImage" &&
	test -d "$CACHE/work/$id/t/src" &&
	test -f "$CACHE/work/old-12345678/t/f" &&
	git -C "$CACHE/linux.git" for-each-ref --format="%(refname)" >refs &&
	printf "%s\n" "refs/heads/mkseries/$id/t" "refs/heads/mkseries/old-12345678/t" "refs/tags/mkseries/base/t" >expect &&
	test_cmp expect refs &&
	(cd kit && mkseries gc >../out) &&
	test_grep "^nothing to drop$" out
'

test_expect_success 'gc --drop ID drops a kit it cannot judge; this kit and unknown ids are refused' '
	(cd kit && test_expect_code 2 mkseries gc --drop "$id" 2>../err) &&
	test_grep "error: --drop $id: that is this kit" err &&
	(cd kit && test_expect_code 2 mkseries gc --drop nosuch-00000000 2>../err) &&
	test_grep "error: --drop nosuch-00000000: the cache holds no such kit" err &&
	(cd kit && mkseries gc --drop old-12345678 >../out) &&
	test -d "$CACHE/work/old-12345678" &&
	test_grep "^  work/old-12345678  *named with --drop$" out &&
	(cd kit && mkseries gc --drop old-12345678 --prune >../out) &&
	! test -e "$CACHE/work/old-12345678" &&
	test_must_fail git -C "$CACHE/linux.git" rev-parse -q --verify refs/heads/mkseries/old-12345678/t &&
	git -C "$CACHE/linux.git" rev-parse -q --verify "refs/heads/mkseries/$id/t"
'

test_expect_success 'outside a kit, gc reports every kit as another' '
	mkdir elsewhere && (cd elsewhere && mkseries gc >../out) &&
	test_grep ! "^this kit" out &&
	test_grep "^  $id .*: there$" out &&
	test_grep "^nothing to drop$" out
'

test_done

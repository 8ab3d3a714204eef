#!/bin/sh
# t0200-import.sh: mkseries import brings a branch's tree (tarball or git) into the kernel repository and tags it.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

REPO="$XDG_CACHE_HOME/mkseries/linux.git"
TAG=refs/tags/mkseries/base/t
SQ="'"

test_expect_success 'setup: a source tree, its tarball and a kit' '
	mkdir -p src/linux-1.0/scripts src/linux-1.0/mm/deep/er src/linux-1.0/empty-dir &&
	printf "/*\n" >src/linux-1.0/.gitignore &&
	printf "all:\n\t@echo built\n" >src/linux-1.0/Makefile &&
	printf "#!/bin/sh\necho ok\n" >src/linux-1.0/scripts/run.sh &&
	chmod 755 src/linux-1.0/scripts/run.sh &&
	printf "#!/bin/sh\n" >src/linux-1.0/scripts/owner-only &&
	chmod 744 src/linux-1.0/scripts/owner-only &&
	printf "int mremap;\n" >src/linux-1.0/mm/mremap.c &&
	printf "deep\n" >src/linux-1.0/mm/deep/er/file.c &&
	: >src/linux-1.0/mm/empty.c &&
	printf "spaced\n" >"src/linux-1.0/with space.txt" &&
	ln -s mremap.c src/linux-1.0/mm/link.c &&
	ln -s ../../etc/passwd src/linux-1.0/mm/outside &&
	ln src/linux-1.0/mm/mremap.c src/linux-1.0/mm/hard.c &&
	tar -C src -czf linux-1.0.tar.gz linux-1.0 &&
	mkdir -p kit/kernels &&
	printf "series: []\n" >kit/series.yaml &&
	cat >kit/kernels/t.yaml <<-EOF
	name: t
	source:
	  tarball: $PWD/linux-1.0.tar.gz
	EOF
'

test_expect_success 'import tags the tarball tree and says what it did' '
	mkseries --kit kit import --branch t >out &&
	cat out &&
	grep -E "^t: imported linux-1.0.tar.gz as [0-9a-f]{12} \(11 files, [0-9]+\.[0-9] s\)$" out &&
	git -C "$REPO" cat-file -t $TAG >type &&
	echo tag >expect && test_cmp expect type &&
	commit=$(git -C "$REPO" rev-parse $TAG^{commit}) &&
	test_grep "as $(echo $commit | cut -c1-12) " out
'

test_expect_success 'every file is there with its mode, .gitignore notwithstanding' '
	git -C "$REPO" ls-tree -r --format="%(objectmode) %(path)" $TAG >actual &&
	cat >expect <<-\EOF &&
	100644 .gitignore
	100644 Makefile
	100644 mm/deep/er/file.c
	100644 mm/empty.c
	100644 mm/hard.c
	120000 mm/link.c
	100644 mm/mremap.c
	120000 mm/outside
	100755 scripts/owner-only
	100755 scripts/run.sh
	100644 with space.txt
	EOF
	test_cmp expect actual &&
	git -C "$REPO" cat-file -p $TAG:mm/link.c >link && printf "mremap.c" >expect && test_cmp expect link &&
	git -C "$REPO" cat-file -p $TAG:mm/hard.c >hard && test_cmp src/linux-1.0/mm/mremap.c hard &&
	git -C "$REPO" cat-file -p "$TAG:with space.txt" >sp && test_cmp "src/linux-1.0/with space.txt" sp
'

test_expect_success 'the tree is the one git makes of the unpacked directory' '
	rm -rf unpacked && mkdir unpacked && tar -C unpacked -xzf linux-1.0.tar.gz &&
	(cd unpacked/linux-1.0 && git init -q && git add -f -A . && git write-tree >../../want) &&
	git -C "$REPO" rev-parse $TAG^{tree} >got &&
	test_cmp want got
'

test_expect_success 'the commit and tag record the source' '
	git -C "$REPO" cat-file commit $TAG^{commit} >commit &&
	test_grep "^author mkseries <mkseries@invalid> " commit &&
	test_grep "^Import linux-1.0.tar.gz$" commit &&
	test_grep "^source: tarball $PWD/linux-1.0.tar.gz$" commit &&
	git -C "$REPO" cat-file tag $TAG >tag &&
	test_grep "^source: tarball $PWD/linux-1.0.tar.gz size [0-9]* mtime [0-9]*$" tag
'

# "At once": no file of the tarball is read again and no object written
# (how long that takes is bench/'s to measure, not a test's).
test_expect_success 'a second import is up to date, at once' '
	git -C "$REPO" rev-parse $TAG^{commit} >before &&
	git -C "$REPO" count-objects -v >objects.before &&
	mkseries --kit kit import --branch t >out &&
	cat out &&
	echo "t: up to date ($(cut -c1-12 before))" >expect &&
	test_cmp expect out &&
	git -C "$REPO" count-objects -v >objects.after &&
	test_cmp objects.before objects.after
'

test_expect_success '--force imports again, to the same commit' '
	git -C "$REPO" rev-parse $TAG^{commit} >before &&
	mkseries --kit kit import --branch t --force >out &&
	cat out &&
	test_grep "^t: imported linux-1.0.tar.gz as $(cut -c1-12 before) " out &&
	git -C "$REPO" rev-parse $TAG^{commit} >after &&
	test_cmp before after
'

test_expect_success 'a changed tarball is imported again and the tag moves' '
	git -C "$REPO" rev-parse $TAG^{commit} >before &&
	printf "new\n" >src/linux-1.0/NEW &&
	tar -C src -czf linux-1.0.tar.gz linux-1.0 &&
	mkseries --kit kit import --branch t >out &&
	test_grep "^t: imported linux-1.0.tar.gz as .* (12 files, " out &&
	git -C "$REPO" rev-parse $TAG^{commit} >after &&
	! test_cmp before after &&
	git -C "$REPO" cat-file -p $TAG:NEW >new && echo new >expect && test_cmp expect new
'

test_expect_success 'xz, bzip2 and plain tar give the same tree' '
	git -C "$REPO" rev-parse $TAG^{tree} >want &&
	tar -C src -cJf linux.tar.xz linux-1.0 &&
	tar -C src -cjf linux.tar.bz2 linux-1.0 &&
	tar -C src -cf linux.tar linux-1.0 &&
	for f in linux.tar.xz linux.tar.bz2 linux.tar; do
		sed "s|tarball: .*|tarball: $PWD/$f|" kit/kernels/t.yaml >kit/kernels/t.yaml.new &&
		mv kit/kernels/t.yaml.new kit/kernels/t.yaml &&
		mkseries --kit kit import --branch t >out &&
		test_grep "^t: imported $f as " out &&
		git -C "$REPO" rev-parse $TAG^{tree} >got &&
		test_cmp want got || return 1
	done
'

test_expect_success 'a relative tarball path is relative to the kit' '
	cp linux.tar kit/rel.tar &&
	sed "s|tarball: .*|tarball: rel.tar|" kit/kernels/t.yaml >kit/kernels/t.yaml.new &&
	mv kit/kernels/t.yaml.new kit/kernels/t.yaml &&
	mkseries --kit kit import --branch t >out &&
	test_grep "^t: imported rel.tar as " out &&
	git -C "$REPO" cat-file tag $TAG >tag &&
	test_grep "^source: tarball $PWD/kit/rel.tar size " tag
'

test_expect_success '--repo puts the tree in another repository, made on first use' '
	mkseries --kit kit import --branch t --repo other.git >out &&
	test_grep "^t: imported rel.tar as " out &&
	git -C other.git rev-parse --verify -q $TAG >/dev/null &&
	test "$(git -C other.git config core.bare)" = true
'

test_expect_success 'a missing tarball is an error; nothing is tagged' '
	mkdir -p kit2/kernels && printf "series: []\n" >kit2/series.yaml &&
	cat >kit2/kernels/m.yaml <<-EOF &&
	name: m
	source:
	  tarball: $PWD/no-such.tar.xz
	EOF
	test_expect_code 1 mkseries --kit kit2 import --branch m >out 2>err &&
	cat err &&
	test_grep "tarball .*no-such.tar.xz. does not exist" err &&
	test_grep "m: nothing imported" err &&
	! git -C "$REPO" rev-parse -q --verify refs/tags/mkseries/base/m
'

# refused_source SOURCE TAGREPO GREP-ARGS...: importing branch m of kit2
# from SOURCE (the value of source:) fails (exit 1), stderr matches
# GREP-ARGS, and nothing is tagged in TAGREPO.
refused_source() {
	printf "name: m\nsource:\n  %s\n" "$1" >kit2/kernels/m.yaml &&
	tagrepo=$2 &&
	shift 2 &&
	test_expect_code 1 mkseries --kit kit2 import --branch m >out 2>err &&
	cat err &&
	test_grep "$@" err &&
	! git -C "$tagrepo" rev-parse -q --verify refs/tags/mkseries/base/m
}

# import_refused TARBALL GREP-ARGS...: so for a tarball, into the default repository.
import_refused() {
	tarball=$1 &&
	shift &&
	refused_source "tarball: $PWD/$tarball" "$REPO" "$@"
}

test_expect_success 'a broken archive is an error; nothing is tagged' '
	head -c 300 linux-1.0.tar.gz >broken.tar.gz &&
	import_refused broken.tar.gz "broken.tar.gz" &&
	echo "not an archive at all" >junk.tar &&
	import_refused junk.tar "junk.tar"
'

# hostile_tar FILE NAME [CONTENT [symlink]]: a tarball of h/ok and h/NAME (UTF-8) holding CONTENT.
hostile_tar() {
	python3 - "$@" <<-\EOF_PY
	import io, sys, tarfile
	out, name = sys.argv[1], sys.argv[2]
	content = sys.argv[3].encode() if len(sys.argv) > 3 else b"x\n"
	with tarfile.open(out, "w", format=tarfile.PAX_FORMAT, encoding="utf-8") as t:
	    for n, data in (("h/ok", b"ok\n"), ("h/" + name, content)):
	        info = tarfile.TarInfo(n)
	        if len(sys.argv) > 4 and n != "h/ok":
	            info.type = tarfile.SYMTYPE
	            info.linkname = sys.argv[3]
	            data = b""
	        info.size = len(data)
	        t.addfile(info, io.BytesIO(data))
	EOF_PY
}

test_expect_success 'a hostile tarball reaching outside its tree is refused' '
	hostile_tar hostile.tar ../../x pwned &&
	import_refused hostile.tar "refusing entry .h/\.\./\.\./x.: .\.\.. leads outside the tree"
'

test_expect_success 'a .gitmodules that git fsck rejects is refused, naming archive and entry' '
	hostile_tar gitmodules.tar .gitmodules "$(printf "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n")" &&
	import_refused gitmodules.tar -F "error: ${SQ}$PWD/gitmodules.tar${SQ}: refusing entry ${SQ}h/.gitmodules${SQ}: .gitmodules line 3: disallowed submodule url ${SQ}--upload-pack=touch /tmp/pwned${SQ}: it could be taken for an option"
'

test_expect_success 'a .gitmodules that is a symbolic link is refused' '
	hostile_tar gitmodules-link.tar .gitmodules ok symlink &&
	import_refused gitmodules-link.tar "refusing entry .h/.gitmodules.: a .gitmodules that is a symbolic link"
'

test_expect_success 'a .git spelled with an HFS+ ignorable code point is refused' '
	hostile_tar dotgit.tar "$(printf ".g\342\200\214it/config")" &&
	import_refused dotgit.tar "refusing entry .h/.g.*it/config.: path reaches into .git"
'

test_expect_success 'a .gitmodules git fsck accepts is imported' '
	hostile_tar fine.tar .gitmodules "$(printf "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.org/lib.git\n")" &&
	printf "name: m\nsource:\n  tarball: $PWD/fine.tar\n" >kit2/kernels/m.yaml &&
	mkseries --kit kit2 import --branch m >out &&
	cat out &&
	git -C "$REPO" rev-parse -q --verify refs/tags/mkseries/base/m &&
	git -C "$REPO" fsck --strict
'

# git_source_refused REPO GREP-ARGS...: so for REPO's HEAD, tagged in
# mkseries' repository for REPO if at all (a git source's base tag goes
# there, never into the clone).
git_source_refused() {
	src=$1 &&
	shift &&
	refused_source "git: { repo: $PWD/$src, ref: HEAD }" "$(mk_repo "$src")" "$@"
}

test_expect_success 'a git source whose .gitmodules git fsck rejects is refused, naming repository, ref and entry' '
	git init -q evil-modules &&
	mkdir evil-modules/sub &&
	printf "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwned\n" >evil-modules/sub/.gitmodules &&
	echo ok >evil-modules/ok &&
	git -C evil-modules add . &&
	git -C evil-modules commit -q -m evil &&
	git_source_refused evil-modules -F "error: ${SQ}$PWD/evil-modules HEAD${SQ}: refusing entry ${SQ}sub/.gitmodules${SQ}: .gitmodules line 3: disallowed submodule url ${SQ}--upload-pack=touch /tmp/pwned${SQ}: it could be taken for an option"
'

# tree_repo DIR NAME MODE CONTENT: a repository whose one commit holds one
# entry NAME (MODE 100644 or 120000) made with git mktree, which takes
# names git add refuses.
tree_repo() {
	git init -q "$1" &&
	blob=$(printf "%s" "$4" | git -C "$1" hash-object -w --stdin) &&
	tree=$(printf "%s blob %s\t%s\n" "$3" "$blob" "$2" | git -C "$1" mktree) &&
	commit=$(echo evil | git -C "$1" commit-tree "$tree") &&
	git -C "$1" update-ref HEAD "$commit"
}

test_expect_success 'a git source whose .gitmodules is a symbolic link is refused' '
	tree_repo evil-link .gitmodules 120000 ok &&
	git_source_refused evil-link "refusing entry .\.gitmodules.: a .gitmodules that is a symbolic link"
'

test_expect_success 'a git source with .git spelled with an HFS+ ignorable code point is refused' '
	tree_repo evil-dotgit "$(printf ".g\342\200\214it")" 100644 "[core]" &&
	git_source_refused evil-dotgit "refusing entry .\.g.*it.: path reaches into .git"
'

test_expect_success 'a git source with a .gitmodules git fsck accepts is imported' '
	git init -q fine-modules &&
	printf "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.org/lib.git\n" >fine-modules/.gitmodules &&
	git -C fine-modules add . &&
	git -C fine-modules commit -q -m fine &&
	printf "name: m\nsource:\n  git: { repo: $PWD/fine-modules, ref: HEAD }\n" >kit2/kernels/m.yaml &&
	mkseries --kit kit2 import --branch m >out &&
	test_grep "^m: imported HEAD of $PWD/fine-modules" out &&
	mk_git fine-modules rev-parse -q --verify refs/tags/mkseries/base/m
'

# A sanitizer build reserves terabytes of address space: it cannot run under ulimit -v.
test_lazy_prereq ULIMIT_V '(ulimit -v 150000 && mkseries --version)'

test_expect_success ULIMIT_V 'a large entry is streamed: 128 MiB of zeros under a 150 MB address-space limit' '
	mkdir -p large/linux-5.0 &&
	echo hi >large/linux-5.0/README &&
	head -c 134217728 /dev/zero >large/linux-5.0/zero.bin &&
	tar -C large -czf large.tar.gz linux-5.0 &&
	want=$(git hash-object large/linux-5.0/zero.bin) &&
	rm -r large &&
	printf "name: m\nsource:\n  tarball: $PWD/large.tar.gz\n" >kit2/kernels/m.yaml &&
	# one malloc arena: glibc reserves 64 MiB of address space for each
	# thread arena, which the writer threads may or may not get by the
	# time the stream starts; the test is about the stream, not them
	(ulimit -v 150000 && MALLOC_ARENA_MAX=1 mkseries --kit kit2 import --branch m >out 2>err) &&
	cat out err &&
	test_grep "^m: imported large.tar.gz as .* (2 files" out &&
	test "$(git -C "$REPO" rev-parse refs/tags/mkseries/base/m:zero.bin)" = "$want"
'

test_expect_success 'sparse entries keep their holes, trailing ones too, streamed or not' '
	mkdir -p sparse/linux-6.0 &&
	echo head >sparse/linux-6.0/small.img &&
	truncate -s 1M sparse/linux-6.0/small.img &&
	echo head >sparse/linux-6.0/large.img &&
	truncate -s 20M sparse/linux-6.0/large.img &&
	truncate -s 1M sparse/linux-6.0/hole.img &&
	truncate -s 20M sparse/linux-6.0/large-hole.img &&
	tar --sparse -C sparse -czf sparse.tar.gz linux-6.0 &&
	printf "name: m\nsource:\n  tarball: $PWD/sparse.tar.gz\n" >kit2/kernels/m.yaml &&
	mkseries --kit kit2 import --branch m >out &&
	cat out &&
	for f in small.img large.img hole.img large-hole.img; do
		test "$(git -C "$REPO" rev-parse refs/tags/mkseries/base/m:$f)" = \
			"$(git hash-object sparse/linux-6.0/$f)" || return 1
	done
'

test_expect_success 'a Debian package or suite name that could be an option is refused' '
	printf "name: d\nsource:\n  debian: { package: -oAPT::Evil=1, suite: bookworm }\n" >kit2/kernels/d.yaml &&
	test_must_fail mkseries --kit kit2 import --branch d 2>err &&
	cat err &&
	test_grep -E "(invalid package name|is not a Debian package name) .-oAPT::Evil=1.|.-oAPT::Evil=1. is not a Debian package name" err &&
	printf "name: d\nsource:\n  debian: { package: linux-source-6.12, suite: ../../tmp }\n" >kit2/kernels/d.yaml &&
	test_expect_code 1 mkseries --kit kit2 import --branch d 2>err &&
	cat err &&
	test_grep "branch .d.: .\.\./\.\./tmp. is not a Debian suite name" err &&
	rm kit2/kernels/d.yaml
'

test_expect_success 'an unknown branch is a usage error' '
	test_expect_code 2 mkseries --kit kit import --branch nope 2>err &&
	test_grep "unknown branch .nope. (the kit has: t)" err
'

test_expect_success '--branch and --all together, or neither, are usage errors' '
	test_expect_code 2 mkseries --kit kit import --branch t --all 2>err &&
	test_grep "cannot be used together" err &&
	test_expect_code 2 mkseries --kit kit import 2>err &&
	test_grep "name a branch with --branch B, or use --all" err &&
	test_expect_code 2 mkseries --kit kit import stray 2>err &&
	test_grep "takes no arguments" err
'

test_expect_success '--help describes the options' '
	mkseries import --help >out &&
	test_grep "usage: mkseries import" out &&
	test_grep -- "--force" out && test_grep -- "--repo DIR" out
'

test_lazy_prereq FLOCK 'command -v flock'

# hold_repo_lock WHEN TEXT: in the background, hold the repository's lock
# as another mkseries does, TEXT (printf %b) written into it at once (WHEN
# "now") or once the file go appears ("late"), until the file release
# appears. It returns once the lock is held, the file holding made. A
# test waiting for a message of the mkseries it starts in the background
# empties err first: what an earlier test left there is no answer.
hold_repo_lock() {
	rm -f holding go release &&
	: >"$REPO/mkseries.lock" &&
	{ flock "$REPO/mkseries.lock" sh -c '
		if [ "$1" = now ]; then printf "%b" "$2" >"$3"; fi
		touch holding
		if [ "$1" = late ]; then
			while ! test -e go && ! test -e release; do sleep 0.1; done
			printf "%b" "$2" >"$3"
		fi
		while ! test -e release; do sleep 0.1; done' hold_repo_lock "$1" "$2" "$REPO/mkseries.lock" & } &&
	while ! test -e holding; do sleep 0.1; done
}

test_expect_success FLOCK 'the repository is locked during an import' '
	LOCKED_REPO=$REPO &&
	while_locked mkseries import --branch t --force &&
	cat err &&
	echo 1 >code.expect &&
	test_cmp code.expect code &&
	test_grep "is locked by another mkseries (.*); wait for it to finish$" err
'

test_expect_success FLOCK 'a holder that writes its pid after locking is named once it has' '
	test_when_finished "touch release && wait" &&
	hold_repo_lock late "4242\nmkseries backport --branch t\n" &&
	: >err &&
	{ MKSERIES_LOCK_TIMEOUT= mkseries --kit kit import --branch t --force >out 2>err & } &&
	mks=$! &&
	wait_for err "waiting for another mkseries (pid unknown)" &&
	touch go &&
	wait_for err "(pid 4242: " &&
	touch release &&
	wait $mks &&
	cat err &&
	test_grep "^waiting for another mkseries (pid unknown) to finish with .*; Ctrl-C stops waiting\$" err &&
	test_grep "^waiting for another mkseries (pid 4242: mkseries backport --branch t) to finish with .*; Ctrl-C stops waiting\$" err &&
	test_grep "^t: " out
'

test_expect_success FLOCK 'the holder writes its pid and command line into the lock' '
	mkseries --kit kit import --branch t >out &&
	sed -n 2p "$REPO/mkseries.lock" >holder &&
	echo "mkseries --kit kit import --branch t" >holder.expect &&
	test_cmp holder.expect holder
'

test_expect_success FLOCK 'a second mkseries waits for the holder, naming it, then runs' '
	test_when_finished "touch release && wait" &&
	hold_repo_lock now "4242\nmkseries backport --branch t\n" &&
	: >err &&
	{ MKSERIES_LOCK_TIMEOUT= mkseries --kit kit import --branch t --force >out 2>err & } &&
	mks=$! &&
	wait_for err "waiting for another mkseries" &&
	touch release &&
	wait $mks &&
	cat err &&
	test_grep "^waiting for another mkseries (pid 4242: mkseries backport --branch t) to finish with .*; Ctrl-C stops waiting\$" err &&
	test $(grep -c "^waiting" err) = 1 &&
	test_grep "^t: " out
'

test_expect_success FLOCK 'MKSERIES_LOCK_TIMEOUT bounds the wait' '
	test_when_finished "touch release && wait" &&
	hold_repo_lock now "" &&
	test_expect_code 1 env MKSERIES_LOCK_TIMEOUT=1 mkseries --kit kit import --branch t --force 2>err &&
	cat err &&
	test_grep "^waiting for another mkseries (pid unknown) to finish with " err &&
	test_grep "is locked by another mkseries (pid unknown); waited MKSERIES_LOCK_TIMEOUT seconds for it\$" err
'

test_expect_success 'temporary objects an interrupted write left are removed under the lock' '
	: >"$REPO/objects/tmp_object_git2_stale" &&
	touch -d "1 hour ago" "$REPO/objects/tmp_object_git2_stale" &&
	: >"$REPO/objects/tmp_object_git2_fresh" &&
	mkseries --kit kit import --branch t >out &&
	! test -e "$REPO/objects/tmp_object_git2_stale" &&
	test -e "$REPO/objects/tmp_object_git2_fresh" &&
	rm "$REPO/objects/tmp_object_git2_fresh"
'

test_expect_success 'setup: a git kernel repository with an annotated tag' '
	git init -q linux &&
	(
		cd linux &&
		mkdir -p mm scripts &&
		printf "int mremap;\n" >mm/mremap.c &&
		printf "#!/bin/sh\n" >scripts/run.sh && chmod +x scripts/run.sh &&
		git add -A && git commit -q -m "Linux 1.0" && git tag -a -m "Linux 1.0" v1.0 &&
		printf "later\n" >later && git add later && git commit -q -m later
	) &&
	cat >kit/kernels/g.yaml <<-EOF
	name: g
	source:
	  git: { repo: $PWD/linux, ref: v1.0 }
	EOF
'

test_expect_success 'a git source is tagged in its own repository, the tag peeled' '
	mkseries --kit kit import --branch g >out &&
	cat out &&
	want=$(git -C linux rev-parse "v1.0^{commit}") &&
	grep -E "^g: imported v1.0 of $PWD/linux as $(echo $want | cut -c1-12) \(2 files, " out &&
	test "$(mk_git linux rev-parse refs/tags/mkseries/base/g^{commit})" = "$want" &&
	mk_git linux cat-file tag refs/tags/mkseries/base/g >tag &&
	test_grep "^source: git $PWD/linux v1.0 $want$" tag &&
	mkseries --kit kit import --branch g >out &&
	echo "g: up to date ($(echo $want | cut -c1-12))" >expect &&
	test_cmp expect out
'

test_expect_success 'a git source is fetched into another kernel repository' '
	want=$(git -C linux rev-parse "v1.0^{commit}") &&
	mkseries --kit kit import --branch g --repo kernel.git >out &&
	cat out &&
	test_grep "^g: imported v1.0 of $PWD/linux as " out &&
	test "$(git -C kernel.git rev-parse refs/tags/mkseries/base/g^{commit})" = "$want" &&
	git -C kernel.git ls-tree -r --format="%(objectmode) %(path)" refs/tags/mkseries/base/g >actual &&
	printf "100644 mm/mremap.c\n100755 scripts/run.sh\n" >expect &&
	test_cmp expect actual &&
	git -C kernel.git for-each-ref --format="%(refname)" >refs &&
	printf "%s\n" refs/mkseries-imports/g/1 refs/tags/mkseries/base/g >expect &&
	test_cmp expect refs &&
	mkseries --kit kit import --branch g --repo kernel.git >out &&
	test_grep "^g: up to date " out
'

test_expect_success 'a git ref that moves is imported again' '
	git -C linux tag -f -a -m "Linux 1.0 again" v1.0 HEAD &&
	mkseries --kit kit import --branch g --repo kernel.git >out &&
	test_grep "^g: imported v1.0 " out &&
	test "$(git -C kernel.git rev-parse refs/tags/mkseries/base/g^{commit})" = \
		"$(git -C linux rev-parse HEAD)"
'

test_expect_success 'a git ref may be a commit id or an expression, fetched by id' '
	want=$(git -C linux rev-parse HEAD~1) &&
	printf "name: s\nsource:\n  git: { repo: $PWD/linux, ref: $want }\n" >kit/kernels/s.yaml &&
	mkseries --kit kit import --branch s --repo by-id.git >out &&
	cat out &&
	test "$(git -C by-id.git rev-parse refs/tags/mkseries/base/s^{commit})" = "$want" &&
	printf "name: s\nsource:\n  git: { repo: $PWD/linux, ref: master~1 }\n" >kit/kernels/s.yaml &&
	mkseries --kit kit import --branch s --repo by-expr.git >out &&
	cat out &&
	test_grep "^s: imported master~1 of $PWD/linux as " out &&
	test "$(git -C by-expr.git rev-parse refs/tags/mkseries/base/s^{commit})" = "$want" &&
	rm kit/kernels/s.yaml
'

test_expect_success 'an unknown git ref is an error; nothing is tagged' '
	printf "name: h\nsource:\n  git: { repo: $PWD/linux, ref: v9.9 }\n" >kit/kernels/h.yaml &&
	test_expect_code 1 mkseries --kit kit import --branch h 2>err &&
	cat err &&
	test_grep "branch .h.: no commit .v9.9. in .$PWD/linux." err &&
	! mk_git linux rev-parse -q --verify refs/tags/mkseries/base/h &&
	rm kit/kernels/h.yaml
'

test_expect_success '--all imports every default branch' '
	mkseries --kit kit import --all >out &&
	cat out &&
	test_grep "^g: imported v1.0 of $PWD/linux as " out &&
	test_grep "^t: up to date " out &&
	mkseries --kit kit import --all >out &&
	test_grep "^g: up to date " out &&
	test_grep "^t: up to date " out
'

test_expect_success 'the default repository logs mkseries ref updates in the reflog' '
	mkseries --kit kit apply --branch t >out &&
	cat out &&
	test "$(git --git-dir="$REPO" config core.logAllRefUpdates)" = always &&
	git --git-dir="$REPO" reflog show $(kit_ref kit t) >log &&
	cat log &&
	test_grep "mkseries apply: 0 commits onto" log
'

test_expect_success 'a default repository made before the reflog setting gets it' '
	git --git-dir="$REPO" config --unset core.logAllRefUpdates &&
	git --git-dir="$REPO" update-ref -d $(kit_ref kit t) &&
	rm -rf "$REPO/logs" &&
	mkseries --kit kit apply --branch t >out &&
	test "$(git --git-dir="$REPO" config core.logAllRefUpdates)" = always &&
	git --git-dir="$REPO" reflog show $(kit_ref kit t) >log &&
	cat log &&
	test_grep "mkseries apply: 0 commits onto" log
'

test_expect_success 'a repository given with --repo keeps its own configuration' '
	mkseries --kit kit apply --branch t --repo other.git >out &&
	cat out &&
	test_must_fail git --git-dir=other.git config core.logAllRefUpdates
'

test_done

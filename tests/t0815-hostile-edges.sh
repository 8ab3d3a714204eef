#!/bin/sh
# t0815-hostile-edges.sh: the edges a hostile run found: each refused or handled with a message naming the file, patch or path.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# with_bytes FILE PYTHON-BYTES-FROM PYTHON-BYTES-TO: replace the first
# occurrence in FILE (NUL bytes and the like are awkward in sed).
with_bytes() {
	python3 - "$@" <<-\EOF_PY
	import sys
	path, old, new = sys.argv[1], eval(sys.argv[2]), eval(sys.argv[3])
	data = open(path, "rb").read()
	assert old in data, (path, old)
	open(path, "wb").write(data.replace(old, new, 1))
	EOF_PY
}

test_expect_success 'setup: upstream and kit' '
	make_upstream linux &&
	make_kit kit linux
'

test_expect_success 'a git source whose repo: does not exist is refused, and nothing is created' '
	cp -R kit k-norepo &&
	sed -i "s|repo: $TRASH_DIRECTORY/linux|repo: $TRASH_DIRECTORY/gone/linux|" k-norepo/kernels/t.yaml &&
	test_grep "gone/linux" k-norepo/kernels/t.yaml &&
	(cd k-norepo && test_expect_code 2 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "error: kernels/t.yaml: the git source.s repository .$TRASH_DIRECTORY/gone/linux. does not exist (repo: names a clone that has .v1.0.); nothing was created" err &&
	! test -e gone &&
	(cd k-norepo && test_expect_code 2 mkseries backport --branch t >../out 2>../err) &&
	test_grep "does not exist" err &&
	! test -e gone
'

test_expect_success 'a git source whose repo: is an empty directory is refused, and it stays empty' '
	cp -R kit k-emptyrepo &&
	mkdir -p empty/linux &&
	sed -i "s|repo: $TRASH_DIRECTORY/linux|repo: $TRASH_DIRECTORY/empty/linux|" k-emptyrepo/kernels/t.yaml &&
	test_grep "empty/linux" k-emptyrepo/kernels/t.yaml &&
	(cd k-emptyrepo && test_expect_code 2 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "^error: kernels/t.yaml: the git source.s repository .$TRASH_DIRECTORY/empty/linux. is a directory but no git repository (repo: names a clone that has .v1.0.); nothing was created\$" err &&
	ls -A empty/linux >list &&
	test_must_be_empty list &&
	(cd k-emptyrepo && test_expect_code 2 mkseries backport --branch t >../out 2>../err) &&
	test_grep "is a directory but no git repository" err &&
	ls -A empty/linux >list &&
	test_must_be_empty list
'

test_expect_success 'a NUL byte in From or in an encoded Subject is refused, naming the file' '
	cp -R kit k-nul &&
	f=k-nul/patches/beta/0001-madvise-split-locking.patch &&
	with_bytes $f "b\"From: A U Thor <\"" "b\"From: Evil\\x00 <\"" &&
	(cd k-nul && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "patches/beta/0001-madvise-split-locking.patch: mail 1: NUL byte in the From header" err &&
	cp kit/patches/beta/0001-madvise-split-locking.patch $f &&
	with_bytes $f "b\"Subject: [PATCH] madvise: split locking\"" "b\"Subject: =?utf-8?q?madvise=3A_split=00_locking?=\"" &&
	(cd k-nul && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	test_grep "patches/beta/0001-madvise-split-locking.patch: mail 1: NUL byte in the Subject header" err &&
	cp kit/patches/beta/0001-madvise-split-locking.patch $f &&
	with_bytes $f "b\"Subject: [PATCH] madvise: split locking\"" "b\"Subject: =?utf-8?b?\" + __import__(\"base64\").b64encode(b\"evil\\x00\") + b\"?=\"" &&
	(cd k-nul && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	test_grep "mail 1: NUL byte in the Subject header" err
'

test_expect_success 'plan says a broken patch file once, and fails' '
	cp -R k-nul k-plan &&
	add_variants k-plan t &&
	sed -i "/subject: \"madvise: split locking\"/d" k-plan/series.yaml &&
	(cd k-plan && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	cat err &&
	test_grep "NUL byte in the Subject header" err &&
	test $(wc -l <err) = 1
'

test_expect_success 'a right-to-left override in a subject is escaped like the other controls' '
	cp -R kit k-rlo &&
	with_bytes k-rlo/series.yaml "b\"subject: \\\"madvise: split locking\\\"\"" "b\"subject: \\\"madvise: \\xe2\\x80\\xaekcol tilps\\\"\"" &&
	(cd k-rlo && mkseries plan --branch t >../out 2>../err) &&
	test_grep -F "madvise: \\u202ekcol tilps" out &&
	! grep -q "$(printf "\342\200\256")" out
'

test_expect_success 'a YAML tag or an anchor in series.yaml is reported' '
	cp -R kit k-tag &&
	sed -i "s/title: \"madvise: split locking\"/title: !!python\\/object\\/apply:os.system [\"true\"]/" k-tag/series.yaml &&
	(cd k-tag && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	cat err &&
	test_grep "error: series.yaml:[0-9]*: YAML tags are not supported (.tag:yaml.org,2002:python/object/apply:os.system.): a kit is plain data" err &&
	cp kit/series.yaml k-tag/series.yaml &&
	sed -i "s/title: \"madvise: split locking\"/title: \\&unused \"madvise: split locking\"/" k-tag/series.yaml &&
	(cd k-tag && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	test_grep "error: series.yaml:[0-9]*: YAML anchors are not supported (.&unused.)" err
'

test_expect_success 'report reads regular files under a size cap only' '
	test_expect_code 2 mkseries report --merge /dev/zero >out 2>err &&
	test_grep "cannot read report ./dev/zero.: not a regular file" err &&
	truncate -s 300M big.json &&
	test_expect_code 2 mkseries report --merge big.json >out 2>err &&
	test_grep "cannot read report .big.json.: 314572800 bytes, more than the 256 MiB a report reads" err &&
	rm big.json
'

# Without a cap these read for ever: a limit turns that into a failure.
# A sanitizer build reserves terabytes of address space: it cannot run under ulimit -v.
test_lazy_prereq ULIMIT_V '(ulimit -v 1000000 && mkseries --version)'

test_expect_success ULIMIT_V 'a state file that is a device, a link to one or too big is refused, naming it' '
	cp -R kit k-state &&
	(cd k-state && mkseries apply --branch t >../out 2>../err) &&
	st="$(kit_workdir k-state t)/state" &&
	mv "$st/run.apply" run.apply.saved &&
	ln -s /dev/zero "$st/run.apply" &&
	(ulimit -v 1000000 && cd k-state && test_expect_code 1 timeout 60 mkseries report >../out 2>../err) &&
	cat err &&
	test_grep "error: cannot read state file .$st/run.apply.: not a regular file (a symbolic link to a character device); mkseries writes its state files itself, as regular files of a few KiB: move this one away" err &&
	rm "$st/run.apply" &&
	mkfifo "$st/run.apply" &&
	(ulimit -v 1000000 && cd k-state && test_expect_code 1 timeout 60 mkseries report >../out 2>../err) &&
	test_grep "error: cannot read state file .$st/run.apply.: not a regular file (a FIFO)" err &&
	rm "$st/run.apply" &&
	truncate -s 3G "$st/run.apply" &&
	(ulimit -v 1000000 && cd k-state && test_expect_code 1 timeout 60 mkseries report >../out 2>../err) &&
	test_grep "error: cannot read state file .$st/run.apply.: 3221225472 bytes, more than the 8 MiB a state file may hold; mkseries writes" err &&
	mv run.apply.saved "$st/run.apply" &&
	(cd k-state && test_expect_code 1 mkseries report >../out 2>../err) &&
	test_grep "^alpha *applied" out
'

test_expect_success 'mkseries.lock that is a symbolic link is not written through' '
	echo precious >target &&
	rm -f $(mk_repo linux)/mkseries.lock &&
	ln -s "$TRASH_DIRECTORY/target" $(mk_repo linux)/mkseries.lock &&
	(cd kit && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "cannot use lock .*mkseries.lock.: it is a symbolic link; remove it" err &&
	echo precious >target.expect &&
	test_cmp target.expect target &&
	rm $(mk_repo linux)/mkseries.lock &&
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	test -f $(mk_repo linux)/mkseries.lock && ! test -h $(mk_repo linux)/mkseries.lock
'

test_expect_success 'a symbolic link replaced by a directory, a directory by a file: applied as git am does' '
	(
		cd linux &&
		git checkout -q -b df v1.0 &&
		rm mm/link.c && mkdir mm/link.c && echo inside >mm/link.c/f &&
		git add -A && git commit -q -m "mm: link.c becomes a directory" &&
		git rm -rq scripts && echo file >scripts && git add scripts &&
		git commit -q -m "scripts: a file now" &&
		git checkout -q master
	) &&
	mkdir -p k-df/kernels k-df/patches/d &&
	git -C linux format-patch -q -o "$PWD/k-df/patches/d" v1.0..df &&
	cp kit/kernels/t.yaml k-df/kernels/t.yaml &&
	printf "series:\n  - id: d\n    title: d\n    patches:\n      - file: patches/d/%s\n      - file: patches/d/%s\n" \
		0001-mm-link.c-becomes-a-directory.patch 0002-scripts-a-file-now.patch >k-df/series.yaml &&
	(cd k-df && mkseries apply --branch t >../out 2>../err) &&
	cat out err &&
	git -C linux rev-parse "df^{tree}" >tree.expect &&
	mk_git linux rev-parse "$(kit_ref k-df t)^{tree}" >tree.got &&
	test_cmp tree.expect tree.got
'

test_expect_success 'the backport loop takes such a patch too, with a file that conflicts' '
	(
		cd linux &&
		git checkout -q -b df3 v1.0 &&
		rm mm/link.c && mkdir mm/link.c && echo inside >mm/link.c/f &&
		git rm -rq scripts && echo file >scripts &&
		sed -i "s/line 4/line four/" mm/madvise.c &&
		git add -A && git commit -q -m "mm: link.c a directory, scripts a file, line four" &&
		git checkout -q -b df3-stable v1.0 &&
		sed -i "s/line 4/line 4 (stable)/" mm/madvise.c &&
		git commit -q -a -m "stable: line 4" &&
		git checkout -q master
	) &&
	mkdir -p k-df3/kernels k-df3/patches/d &&
	git -C linux format-patch -q -o "$PWD/k-df3/patches/d" v1.0..df3 &&
	sed "s/ref: v1.0/ref: df3-stable/" kit/kernels/t.yaml >k-df3/kernels/t.yaml &&
	printf "series:\n  - id: d\n    title: d\n    patches:\n      - file: patches/d/%s\n" \
		0001-mm-link.c-a-directory-scripts-a-file-line-four.patch >k-df3/series.yaml &&
	(cd k-df3 && test_expect_code 1 mkseries backport --branch t --workdir ../wd-df3 >../out 2>../err) &&
	cat out err &&
	test_grep "conflict  mm/madvise.c" out &&
	tree=wd-df3/t/backport/tree &&
	test_grep "^inside\$" $tree/mm/link.c/f &&
	test_grep "^file\$" $tree/scripts &&
	test -f $tree/scripts &&
	sed -i -e "/^<<<<<<< /d" -e "/^=======/d" -e "/^>>>>>>> /d" -e "/^line 4 (stable)\$/d" $tree/mm/madvise.c &&
	(cd k-df3 && mkseries backport --branch t --workdir ../wd-df3 --continue >../out 2>../err) &&
	cat out &&
	mk_git linux ls-tree -r --name-only "$(kit_ref k-df3 t)" >files &&
	test_grep "^mm/link.c/f\$" files &&
	test_grep "^scripts\$" files &&
	! test_grep "^scripts/run.sh\$" files &&
	mk_git linux show "$(kit_ref k-df3 t):mm/madvise.c" >madvise.c &&
	test_grep "^line four\$" madvise.c
'

test_expect_success 'a file where a directory keeps other files is still refused, naming it' '
	(
		cd linux &&
		git checkout -q -b df2 v1.0 &&
		git rm -q mm/madvise.c && echo file >mm.new && git add mm.new &&
		git commit -q -m "mm: madvise goes" &&
		git checkout -q master
	) &&
	mkdir -p k-df2/kernels k-df2/patches/d &&
	git -C linux format-patch -q -o "$PWD/k-df2/patches/d" v1.0..df2 &&
	sed -i -e "s|mm.new|mm|g" k-df2/patches/d/0001-*.patch &&
	cp kit/kernels/t.yaml k-df2/kernels/t.yaml &&
	printf "series:\n  - id: d\n    title: d\n    patches:\n      - file: patches/d/0001-mm-madvise-goes.patch\n" >k-df2/series.yaml &&
	(cd k-df2 && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "cannot apply .d 1/1." err &&
	test_grep "  mm: the patch creates it but the tree has a directory there" err
'

test_expect_success 'a binary delta made for another preimage: the patch, the branch and the file are named' '
	mkdir -p up-bin &&
	(
		cd up-bin &&
		git init -q &&
		python3 -c "import random; random.seed(1); open(\"blob.bin\", \"wb\").write(bytes(random.getrandbits(8) for _ in range(4000)))" &&
		git add -A && git commit -q -m base && git tag v1.0 &&
		python3 -c "d = bytearray(open(\"blob.bin\", \"rb\").read()); d[100:110] = b\"x\" * 10; open(\"blob.bin\", \"wb\").write(bytes(d))" &&
		git commit -q -a -m "blob: change" &&
		git checkout -q -b stable v1.0 &&
		printf more >>blob.bin && git commit -q -a -m "stable: the blob grows" &&
		git checkout -q master
	) &&
	mkdir -p k-bin/kernels k-bin/patches/b &&
	git -C up-bin format-patch -q --binary -o "$PWD/k-bin/patches/b" v1.0..master &&
	test_grep "^delta " k-bin/patches/b/0001-blob-change.patch &&
	sed -e "s|$TRASH_DIRECTORY/linux|$TRASH_DIRECTORY/up-bin|" -e "s/ref: v1.0/ref: stable/" kit/kernels/t.yaml >k-bin/kernels/t.yaml &&
	printf "series:\n  - id: b\n    title: b\n    patches:\n      - file: patches/b/0001-blob-change.patch\n" >k-bin/series.yaml &&
	(cd k-bin && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "^error: cannot apply .b 1/1. (blob: change) onto .t.\$" err &&
	test_grep "^  blob.bin: the patch does not apply: failed to apply delta: base size does not match given data" err
'

test_expect_success 'a ref lock left behind is named, with its age and what to do' '
	ref=$(kit_ref k-df t) &&
	mk_git linux update-ref -d $ref &&
	mkdir -p $(mk_repo linux)/$(dirname $ref) &&
	touch -d "-2 hours" $(mk_repo linux)/$ref.lock &&
	(cd k-df && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "cannot update .$ref.: its lock .$(mk_repo linux)/$ref.lock. is there, 7[0-9][0-9][0-9] s old" err &&
	test_grep "if none runs on this repository, remove the lock and run again" err &&
	rm $(mk_repo linux)/$ref.lock &&
	(cd k-df && mkseries apply --branch t >../out 2>../err)
'

test_expect_success 'the kit and its variants move in one transaction: a locked variant ref moves none' '
	cp -R kit k-tx &&
	add_variants k-tx t &&
	vref=$(kit_ref k-tx t no-beta) &&
	mkdir -p $(mk_repo linux)/$(dirname $vref) &&
	touch $(mk_repo linux)/$vref.lock &&
	(cd k-tx && test_expect_code 1 mkseries apply --branch t >../out 2>../err) &&
	cat out err &&
	test_grep "cannot update .$vref.: its lock .*$vref.lock. is there" err &&
	test_must_fail mk_git linux rev-parse --verify -q $(kit_ref k-tx t) &&
	test_must_fail mk_git linux rev-parse --verify -q $(kit_ref k-tx t no-fix) &&
	rm $(mk_repo linux)/$vref.lock &&
	(cd k-tx && mkseries apply --branch t >../out 2>../err) &&
	cat out &&
	test_grep "^t: $(kit_ref k-tx t) -> " out &&
	test_grep "^t no-fix: $(kit_ref k-tx t no-fix) -> " out &&
	test_grep "^t no-beta: $vref -> " out &&
	mk_git linux rev-parse --verify -q $vref
'

test_expect_success 'run moves the kit and its variants in one transaction: a locked variant ref moves none' '
	cp -R kit k-rtx &&
	add_variants k-rtx t &&
	(cd k-rtx && mkseries apply --branch t >../out 2>../err) &&
	kref=$(kit_ref k-rtx t) && fref=$(kit_ref k-rtx t no-fix) && vref=$(kit_ref k-rtx t no-beta) &&
	mk_git linux rev-parse $kref $fref $vref >tips.before &&
	sed -i "s/^Date: .*/Date: Tue, 2 Jan 2024 00:00:00 +0000/" \
		k-rtx/patches/alpha/0001-mm-rename-ptes.patch &&
	touch $(mk_repo linux)/$vref.lock &&
	(cd k-rtx && test_expect_code 1 mkseries run --branch t --workdir ../wd-rtx >../out 2>../err) &&
	cat out err &&
	test_grep "cannot update .$vref.: its lock .*$vref.lock. is there" err &&
	test_grep "apply: FAILED" out &&
	! test_grep "apply: $kref -> " out &&
	mk_git linux rev-parse $kref $fref $vref >tips.after &&
	test_cmp tips.before tips.after &&
	rm $(mk_repo linux)/$vref.lock &&
	# the build that follows fails (the tree has no kbuild): the refs are what counts
	(cd k-rtx && mkseries run --branch t --workdir ../wd-rtx >../out 2>../err; echo $? >../rc) &&
	cat out &&
	test_grep "^[01]$" rc &&
	test_grep "apply: $kref -> " out &&
	test_grep "no-beta: apply: $vref -> " out &&
	mk_git linux rev-parse $kref $fref $vref >tips.moved &&
	! grep -F -x -f tips.before tips.moved
'

test_expect_success 'a work directory lock that is a symbolic link is not written through' '
	mkdir -p wl/t &&
	echo precious >wl-target &&
	ln -s "$TRASH_DIRECTORY/wl-target" wl/t/lock &&
	(cd kit && test_must_fail mkseries run --branch t --workdir ../wl >../out 2>../err) &&
	cat err &&
	test_grep "error: cannot use lock .$TRASH_DIRECTORY/wl/t/lock.: it is a symbolic link; remove it" err &&
	cat out &&
	test_grep "t: import: its work directory: cannot use lock .$TRASH_DIRECTORY/wl/t/lock.: it is a symbolic link; remove it" out &&
	! test_grep "in use by another mkseries" out &&
	echo precious >wl-target.expect &&
	test_cmp wl-target.expect wl-target
'

test_expect_success 'a write that fails (a disk full) names the ref, and none moves' '
	cp -R kit k-full &&
	(cd k-full && mkseries apply --branch t >../out 2>../err) &&
	ref=$(kit_ref k-full t) &&
	mk_git linux rev-parse $ref >tip.before &&
	sed -i "s/^Signed-off-by: Se Park/Reviewed-by: Some One <one@example.org>\nSigned-off-by: Se Park/" \
		k-full/patches/beta/0001-madvise-split-locking.patch &&
	# no file can grow under ulimit -f 0, ours neither: the messages go
	# through a pipe to a cat outside the limit, the exit code to rc
	{
		(
			trap "" XFSZ &&
			ulimit -f 0 &&
			cd k-full && exec mkseries apply --branch t
		) 2>&1
		echo $? >rc
	} | cat >err &&
	cat err &&
	echo 1 >rc.expect &&
	test_cmp rc.expect rc &&
	test_grep "^error: cannot move .$ref.; no ref was moved: could not write to .*File too large" err &&
	mk_git linux rev-parse $ref >tip.after &&
	test_cmp tip.before tip.after
'

test_done

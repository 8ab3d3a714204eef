#!/bin/sh
# t0805-backport-beneath.sh: the backport loop writes nothing beyond a symbolic link: not the patch's files, not .rej files, not the kit's.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# blob_abbrev TEXT: the abbreviated id of a blob holding TEXT (no newline added).
blob_abbrev() {
	printf "%s" "$1" | git hash-object --stdin | cut -c1-7
}

# evil_kit DIR REF PATCH...: a kit with one series "evil" whose patches are PATCH..., on linux at REF.
evil_kit() {
	dir=$1 ref=$2 &&
	shift 2 &&
	mkdir -p "$dir/kernels" "$dir/patches/evil" &&
	cat >"$dir/kernels/t.yaml" <<-EOF_KERNEL &&
	name: t
	source:
	  git: { repo: $PWD/linux, ref: $ref }
	config:
	  base: tinyconfig
	EOF_KERNEL
	printf "series:\n  - id: evil\n    title: evil\n    patches:\n" >"$dir/series.yaml" &&
	for p; do
		cp "$p" "$dir/patches/evil/" &&
		printf "      - file: patches/evil/%s\n        subject: \"%s\"\n" "$p" "$p" >>"$dir/series.yaml" ||
		return 1
	done
}

# mail_head SUBJECT: the head of a format-patch mail.
mail_head() {
	printf "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n" &&
	printf "From: Evil Doer <evil@example.org>\nDate: Tue, 1 Jan 2030 00:00:00 +0000\n" &&
	printf "Subject: [PATCH] %s\n\nSigned-off-by: Evil Doer <evil@example.org>\n---\n" "$1"
}

# The mm/mremap.c hunk that conflicts on stable-conflict (move_ptes returns long there).
conflicting_hunk() {
	printf "diff --git a/mm/mremap.c b/mm/mremap.c\n" &&
	printf "index %s..0000001 100644\n" "$(git -C linux rev-parse --short=7 v1.0:mm/mremap.c)" &&
	printf -- "--- a/mm/mremap.c\n+++ b/mm/mremap.c\n@@ -1,4 +1,4 @@\n" &&
	printf -- "-static int move_ptes(void)\n+static int move_evil(void)\n {\n \treturn 0;\n }\n"
}

# A new symbolic link mm/out to $1.
new_link() {
	printf "diff --git a/mm/out b/mm/out\nnew file mode 120000\n" &&
	printf "index 0000000..%s\n--- /dev/null\n+++ b/mm/out\n@@ -0,0 +1 @@\n+%s\n" \
		"$(blob_abbrev "$1")" "$1" &&
	printf "\\\\ No newline at end of file\n"
}

# A new file mm/out/pwned.
new_pwned() {
	printf "diff --git a/mm/out/pwned b/mm/out/pwned\nnew file mode 100644\n" &&
	printf "index 0000000..%s\n--- /dev/null\n+++ b/mm/out/pwned\n@@ -0,0 +1 @@\n+pwned\n" \
		"$(blob_abbrev "pwned
")"
}

test_expect_success 'setup: a stable tree the patches conflict with, and a directory outside' '
	make_upstream linux &&
	git -C linux checkout -q -b stable-conflict v1.0 &&
	sed -i "s/static int move_ptes/static long move_ptes/" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: move_ptes returns long" &&
	git -C linux checkout -q master &&
	mkdir outside &&
	outside=$(pwd -P)/outside &&
	{ mail_head "mm: link and write through it" && conflicting_hunk && new_link "$outside" &&
	  new_pwned; } >0001-one.patch &&
	{ mail_head "mm: a link" && new_link "$outside"; } >0001-link.patch &&
	{ mail_head "mm: write through the link" && conflicting_hunk && new_pwned; } >0002-through.patch
'

test_expect_success 'plain apply refuses a patch that writes beyond its own link' '
	evil_kit k-apply v1.0 0001-one.patch &&
	(cd k-apply && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "beyond a symbolic link" err
'

test_expect_success 'the loop refuses it too, naming the patch and the path, and writes nothing outside' '
	evil_kit k-one stable-conflict 0001-one.patch &&
	cp k-one/series.yaml yaml.before &&
	(cd k-one && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd-one" >../out 2>../err) &&
	cat out err &&
	test_grep "refusing evil 1/1 onto .t. in the backport loop" err &&
	test_grep "from patches/evil/0001-one.patch" err &&
	test_grep "mm/out/pwned.*mm/out. is a symbolic link" err &&
	ls -A outside >listing &&
	test_must_be_empty listing &&
	test_cmp yaml.before k-one/series.yaml &&
	(cd k-one && mkseries backport --branch t --workdir "$PWD/../wd-one" --abort >../out 2>../err) &&
	ls -A outside >listing &&
	test_must_be_empty listing &&
	test_cmp yaml.before k-one/series.yaml
'

test_expect_success 'a link made by an earlier clean patch: no .rej or .rej.why goes through it' '
	evil_kit k-two stable-conflict 0001-link.patch 0002-through.patch &&
	cp k-two/series.yaml yaml.before &&
	(cd k-two && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "cannot apply .evil 2/2." err &&
	(cd k-two && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd-two" >../out 2>../err) &&
	cat out err &&
	test_grep "refusing evil 2/2 onto .t. in the backport loop" err &&
	test_grep "mm/out/pwned.rej.*mm/out. is a symbolic link" err &&
	ls -A outside >listing &&
	test_must_be_empty listing &&
	(cd k-two && mkseries backport --branch t --workdir "$PWD/../wd-two" --abort >../out 2>../err) &&
	ls -A outside >listing &&
	test_must_be_empty listing &&
	test_cmp yaml.before k-two/series.yaml &&
	! test -e k-two/patches/evil/t
'

test_expect_success 'the loop records nothing through a link in the kit: patches/<series>/<branch> a link' '
	git -C linux checkout -q -b stable-clean v1.0 &&
	sed -i "s|return 0;|return 0; /* stable */|" linux/mm/mremap.c &&
	git -C linux commit -q -a -m "stable: note in move_ptes" &&
	git -C linux checkout -q master &&
	make_kit k-kit linux &&
	sed -i "s/ref: v1.0 }/ref: stable-clean }/" k-kit/kernels/t.yaml &&
	ln -s "$outside" k-kit/patches/alpha/t &&
	cp k-kit/series.yaml yaml.before &&
	(cd k-kit && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd-kit" >../out 2>../err) &&
	cat out err &&
	test_grep "cannot write .patches/alpha/t/0001-.*: .patches/alpha/t. is a symbolic link" err &&
	ls -A outside >listing &&
	test_must_be_empty listing &&
	test_cmp yaml.before k-kit/series.yaml &&
	(cd k-kit && mkseries backport --branch t --workdir "$PWD/../wd-kit" --abort >../out 2>../err) &&
	test_grep "left patches/alpha/t/0001-.* alone: .patches/alpha/t. is a symbolic link" out &&
	test_cmp yaml.before k-kit/series.yaml &&
	ls -A outside >listing &&
	test_must_be_empty listing
'

test_expect_success 'series.yaml a link: the loop does not write through it' '
	make_kit k-yaml linux &&
	sed -i "s/ref: v1.0 }/ref: stable-clean }/" k-yaml/kernels/t.yaml &&
	mv k-yaml/series.yaml outside-series.yaml &&
	ln -s "$(pwd -P)/outside-series.yaml" k-yaml/series.yaml &&
	cp outside-series.yaml yaml.before &&
	(cd k-yaml && test_must_fail mkseries backport --branch t --workdir "$PWD/../wd-yaml" >../out 2>../err) &&
	cat out err &&
	test_grep "cannot write .*k-yaml/series.yaml.: it is a symbolic link" err &&
	test_cmp yaml.before outside-series.yaml
'

test_done

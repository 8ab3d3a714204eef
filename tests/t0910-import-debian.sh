#!/bin/sh
# t0910-import-debian.sh: mkseries import of a real Debian linux-source package (needs the Debian mirror; REAL_TREES).
. "$(dirname "$0")/lib.sh"

REPO="$XDG_CACHE_HOME/mkseries/linux.git"
TAG=refs/tags/mkseries/base/6.12

test_expect_success REAL_TREES 'setup: a kit whose 6.12 comes from bookworm' '
	mkdir -p kit/kernels &&
	printf "series: []\n" >kit/series.yaml &&
	cat >kit/kernels/6.12.yaml <<-\EOF
	name: "6.12"
	source:
	  debian: { package: linux-source-6.12, suite: bookworm }
	EOF
'

test_expect_success REAL_TREES 'import downloads the package and tags its tree' '
	mkseries --kit kit import --branch 6.12 >out &&
	cat out &&
	grep -E "^6\.12: imported linux-source-6\.12 6\.12\.[0-9]+-[^ ]+ as [0-9a-f]{12} \([0-9]{2},[0-9]{3} files, [0-9.]+ s\)$" out &&
	ls "$XDG_CACHE_HOME"/mkseries/debs/linux-source-6.12_*_all.deb &&
	git -C "$REPO" cat-file -t $TAG >type && echo tag >expect && test_cmp expect type &&
	git -C "$REPO" cat-file tag $TAG >tag &&
	test_grep "^source: debian linux-source-6.12 6.12.[0-9]*-[^ ]* bookworm$" tag
'

test_expect_success REAL_TREES 'the tree is a kernel tree, .gitignore and exec bits included' '
	git -C "$REPO" ls-tree -r --format="%(objectmode) %(path)" $TAG >files &&
	test_grep "^100644 Makefile$" files &&
	test_grep "^100644 mm/mremap.c$" files &&
	test_grep "^100644 \.gitignore$" files &&
	test_grep "^100755 scripts/checkpatch.pl$" files &&
	test_grep "^100755 scripts/config$" files &&
	test "$(grep -c "^100755 scripts/" files)" -gt 50 &&
	test "$(wc -l <files)" -gt 80000 &&
	git -C "$REPO" cat-file -p $TAG:.gitignore >gi &&
	test_grep "^/\*" gi &&
	git -C "$REPO" cat-file -p $TAG:Makefile >mk &&
	test_grep "^VERSION = 6$" mk && test_grep "^PATCHLEVEL = 12$" mk
'

test_expect_success REAL_TREES 'the import commit is fixed by its input' '
	git -C "$REPO" cat-file commit $TAG^{commit} >commit &&
	cat commit &&
	test_grep "^author mkseries <mkseries@invalid> " commit &&
	test_grep "^committer mkseries <mkseries@invalid> " commit &&
	test_grep "^Import linux-source-6.12 6.12" commit &&
	test_grep "^source: debian linux-source-6.12 6.12.* bookworm$" commit &&
	! grep "^parent " commit
'

test_expect_success REAL_TREES 'a second import is up to date' '
	git -C "$REPO" rev-parse $TAG^{commit} >before &&
	mkseries --kit kit import --branch 6.12 >out &&
	echo "6.12: up to date ($(cut -c1-12 before))" >expect &&
	test_cmp expect out
'

test_expect_success REAL_TREES '--force reads the cached package again, to the same commit' '
	git -C "$REPO" rev-parse $TAG^{commit} >before &&
	deb=$(ls "$XDG_CACHE_HOME"/mkseries/debs/linux-source-6.12_*_all.deb) &&
	touch -d @1000000000 "$deb" &&
	mkseries --kit kit import --branch 6.12 --force >out &&
	cat out &&
	test_grep "^6.12: imported linux-source-6.12 .* as $(cut -c1-12 before) " out &&
	test "$(stat -c %Y "$deb")" = 1000000000 &&
	git -C "$REPO" rev-parse $TAG^{commit} >after &&
	test_cmp before after
'

# linux-source-6.12 installed on this machine at the version imported above
# (read from the tag when the test asks, after the tests that made it).
test_lazy_prereq SAME_VERSION_INSTALLED '
	version=$(git -C "$REPO" cat-file tag $TAG | sed -n "s/^source: debian linux-source-6.12 \([^ ]*\) .*/\1/p") &&
	installed=$(dpkg-query -W -f="\${Version}" linux-source-6.12 2>/dev/null || :) &&
	if test -z "$version" || test "$installed" != "$version" ||
	   ! test -f /usr/src/linux-source-6.12.tar.xz; then
		echo "installed linux-source-6.12 is ${installed:-absent}, imported ${version:-nothing}"
		false
	fi
'

test_expect_success REAL_TREES,SAME_VERSION_INSTALLED 'the installed tarball of the same version gives the same tree' '
	cat >kit/kernels/tb.yaml <<-\EOF &&
	name: tb
	source:
	  tarball: /usr/src/linux-source-6.12.tar.xz
	EOF
	mkseries --kit kit import --branch tb >out &&
	cat out &&
	test "$(git -C "$REPO" rev-parse refs/tags/mkseries/base/tb^{tree})" = \
		"$(git -C "$REPO" rev-parse $TAG^{tree})" &&
	rm kit/kernels/tb.yaml
'

test_expect_success REAL_TREES 'a package the suite does not have is an error naming where it looked' '
	cat >kit/kernels/9.9.yaml <<-\EOF &&
	name: "9.9"
	source:
	  debian: { package: linux-source-9.9, suite: bookworm }
	EOF
	test_expect_code 1 mkseries --kit kit import --branch 9.9 >out 2>err &&
	cat err &&
	test_grep "package .linux-source-9.9. not found in suite .bookworm. (looked in: http[^ ]* bookworm" err &&
	test_grep "9.9: nothing imported" err &&
	! git -C "$REPO" rev-parse -q --verify refs/tags/mkseries/base/9.9 &&
	rm kit/kernels/9.9.yaml
'

test_expect_success REAL_TREES 'a suite that does not exist finds nothing' '
	cat >kit/kernels/nx.yaml <<-\EOF &&
	name: nx
	source:
	  debian: { package: linux-source-6.12, suite: no-such-suite }
	EOF
	test_expect_code 1 mkseries --kit kit import --branch nx >out 2>err &&
	cat err &&
	test_grep "not found in suite .no-such-suite." err &&
	test_grep "no-such-suite" err &&
	rm kit/kernels/nx.yaml
'

test_done

#!/bin/sh
# t0735-export-mainline.sh: export takes upstream's message, author date and merge-time trailers from a mainline clone, keeps the kit's note and sign-offs, and says whose words each message is.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# mainline: v1.0, then P1 as merged: its author's date, and the trailers
# the merge added (Link:, the maintainer's Signed-off-by). stable: v1.0
# alone, the branch's clone. The kit's patch file says it in its own words.
test_expect_success 'setup: a mainline with merge-time trailers, a stable clone without the commit, a reworded kit' '
	git init -q mainline &&
	(
		cd mainline &&
		mkdir mm &&
		printf "a 1\na 2\na 3\n" >mm/f.c &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		sed -i "s/^a 2$/b 2/" mm/f.c &&
		GIT_AUTHOR_DATE="2025-02-06 10:11:12 +0100" git commit -q -a -m "mm: two" \
			-m "Upstream explains why two matters, in its own words." \
			-m "Signed-off-by: Dev Eloper <dev@example.org>
Reviewed-by: Re Viewer <rev@example.org>
Link: https://lkml.kernel.org/r/20250206-two@example.org
Signed-off-by: Andrew Morton <akpm@example.org>"
	) &&
	P1=$(git -C mainline rev-parse HEAD) &&
	git init -q stable &&
	git -C stable fetch -q ../mainline refs/tags/v1.0:refs/tags/v1.0 &&
	mkdir -p kit/kernels kit/patches/s &&
	git -C mainline format-patch -q -o "$PWD/kit/patches/s" v1.0..HEAD &&
	f=kit/patches/s/0001-mm-two.patch &&
	sed -i -e "s/^Upstream explains why two matters, in its own words.$/What it does, in the kit.s words./" \
		-e "/^Link: /d" -e "/^Reviewed-by: /d" -e "/^Signed-off-by: Andrew Morton/d" $f &&
	test_grep "in the kit.s words" $f &&
	git_yaml kit t "$PWD/stable" v1.0 &&
	cat >kit/series.yaml <<-EOF &&
	series:
	  - id: s
	    title: "mm: two"
	    patches:
	      - file: patches/s/0001-mm-two.patch
	        upstream: $P1
	EOF
	echo $P1 >p1 &&
	(cd kit && mkseries apply --branch t >../out 2>../err)
'

test_expect_success 'with --mainline: upstream message and trailers byte for byte, its date, then our sign-off' '
	(cd kit && mkseries export --branch t --format mbox --force --mainline ../mainline \
		-o ../up >../out 2>../err) &&
	m=up/0001-mm-two.patch &&
	sed -n "/^commit /,/^---$/p" $m >msg &&
	{
		echo "commit $(cat p1) upstream." &&
		echo &&
		echo "Upstream explains why two matters, in its own words." &&
		echo &&
		echo "Signed-off-by: Dev Eloper <dev@example.org>" &&
		echo "Reviewed-by: Re Viewer <rev@example.org>" &&
		echo "Link: https://lkml.kernel.org/r/20250206-two@example.org" &&
		echo "Signed-off-by: Andrew Morton <akpm@example.org>" &&
		echo "Signed-off-by: Back Porter <backporter@example.com>" &&
		echo "---"
	} >msg.expect &&
	test_cmp msg.expect msg &&
	test_grep "^Date: Thu, 6 Feb 2025 10:11:12 +0100$" $m &&
	test_grep "^Messages: upstream.s, with their author dates and merge-time trailers, from ../mainline; the kit.s note and sign-offs after each.$" up/0000-cover-letter.patch
'

test_expect_success 'the branch.s clone without the commit: the kit.s words, named in the cover letter' '
	(cd kit && mkseries export --branch t --format mbox --force -o ../clone >../out 2>../err) &&
	test_grep "in the kit.s words" clone/0001-mm-two.patch &&
	test_grep ! "akpm" clone/0001-mm-two.patch &&
	test_grep "^Messages: upstream.s, from $PWD/stable, but for 1 not found there, whose messages are the kit.s own words:$" clone/0000-cover-letter.patch &&
	test_grep "^  - mm: two (commit $(cut -c1-12 p1))$" clone/0000-cover-letter.patch &&
	test_grep "^Messages: upstream.s, from .*, but for 1 not found there" out &&
	(cd kit && mkseries export --branch t --format quilt --force -o ../q >../out 2>../err) &&
	test_grep "^  - mm: two (commit $(cut -c1-12 p1))$" out
'

test_expect_success 'no clone at all (--repo): the kit.s words, and how to take upstream.s' '
	repo=$(mk_repo stable) &&
	test -d "$repo" &&
	(cd kit && mkseries export --branch t --format mbox --force --repo "$repo" \
		-o ../norepo >../out 2>../err) &&
	test_grep "^Messages: the kit.s own words, not upstream.s (upstream.s text, author date and merge-time trailers come with --mainline DIR, a mainline or stable clone):$" norepo/0000-cover-letter.patch &&
	test_grep "^  - mm: two (commit " norepo/0000-cover-letter.patch
'

test_expect_success '--mainline that is no repository is refused' '
	(cd kit && test_expect_code 1 mkseries export --branch t --format mbox --force \
		--mainline ../nowhere -o ../bad >../out 2>../err) &&
	test_grep "^error: --mainline .../nowhere.: no git repository there" err &&
	! test -e bad
'

test_done

#!/bin/sh
# t0305-fixup-order.sh: a fixup written on top of its whole series: the conflict says ordering is the cause, and `fixup-order: upstream` applies it where upstream did.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# Upstream: P1 changes line 1, P2 line 5; the fix of P1, F, was written
# after P2 and touches lines 1 to 5, so it applies after P2, not right
# after P1.
test_expect_success 'setup: a series whose fix was written on top of it' '
	mkdir up &&
	(
		cd up &&
		git init -q &&
		mkdir mm &&
		printf "a 1\na 2\na 3\na 4\na 5\na 6\na 7\na 8\n" >mm/f.c &&
		git add -A && git commit -q -m "Linux 1.0" && git tag v1.0 &&
		sed -i "s/^a 1$/b 1/" mm/f.c &&
		git commit -q -a -m "mm: one" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		sed -i "s/^a 5$/b 5/" mm/f.c &&
		git commit -q -a -m "mm: five" -m "Signed-off-by: Dev Eloper <dev@example.org>" &&
		sed -i "s/^a 3$/c 3/" mm/f.c &&
		git commit -q -a -m "mm: fix one" \
			-m "Fixes: $(git rev-parse --short=12 HEAD~1) (\"mm: one\")" \
			-m "Signed-off-by: Fix Er <fixer@example.org>"
	) &&
	P1=$(git -C up rev-parse HEAD~2) && P2=$(git -C up rev-parse HEAD~1) &&
	F=$(git -C up rev-parse HEAD) &&
	mkdir -p kit/kernels kit/patches/s &&
	git -C up format-patch -q -o "$PWD/kit/patches/s" v1.0..HEAD &&
	git_yaml kit t "$PWD/up" v1.0 &&
	cat >kit/series.yaml <<-EOF &&
	series:
	  - id: s
	    title: "mm: one and five"
	    patches:
	      - file: patches/s/0001-mm-one.patch
	        upstream: $P1
	      - file: patches/s/0002-mm-five.patch
	        upstream: $P2
	    fixups:
	      - file: patches/s/0003-mm-fix-one.patch
	        upstream: $F
	        fixes: $P1
	EOF
	echo "$P1 $P2 $F" >ids
'

test_expect_success 'right after the patch it fixes, the fix conflicts, and the report says ordering is why' '
	(cd kit && mkseries plan --branch t >../plan) &&
	sed -n "s/^ *apply *\(s \(fixup \)\{0,1\}[0-9]*\/[0-9]*\) .*/\1/p" plan >order &&
	printf "s 1/2\ns fixup 1/1\ns 2/2\n" >order.expect &&
	test_cmp order.expect order &&
	(cd kit && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	cat err &&
	test_grep "cannot apply .s fixup 1/1." err &&
	test_grep "^  order: it applies after the whole series (after s 2/2), as upstream applied a fix written on top of it; mkseries puts a fixup right after the patch it fixes (s 1/2): ask for upstream order with .fixup-order: upstream. under series .s. in series.yaml$" err
'

test_expect_success 'a conflict that order does not explain says nothing of order' '
	cp -R kit kit-bad &&
	sed -i "s/^-a 3$/-a 33/; s/^ a 2$/ a 22/" kit-bad/patches/s/0003-mm-fix-one.patch &&
	(cd kit-bad && test_must_fail mkseries apply --branch t >../out 2>../err) &&
	test_grep "cannot apply .s fixup 1/1." err &&
	test_grep ! "order:" err
'

test_expect_success 'fixup-order: upstream puts the fix after the whole series, and it applies' '
	sed -i "s/^    title: \"mm: one and five\"$/&\n    fixup-order: upstream/" kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../plan) &&
	sed -n "s/^ *apply *\(s \(fixup \)\{0,1\}[0-9]*\/[0-9]*\) .*/\1/p" plan >order &&
	printf "s 1/2\ns 2/2\ns fixup 1/1\n" >order.expect &&
	test_cmp order.expect order &&
	(cd kit && mkseries apply --branch t >../out 2>../err) &&
	git -C up rev-parse HEAD^{tree} >tree.up &&
	mk_git up rev-parse "$(kit_ref kit t)^{tree}" >tree.kit &&
	test_cmp tree.up tree.kit
'

test_expect_success 'fixup-order takes upstream or after-fixed, and names the line otherwise' '
	sed -i "s/fixup-order: upstream/fixup-order: sideways/" kit/series.yaml &&
	(cd kit && test_expect_code 2 mkseries plan --branch t >../out 2>../err) &&
	test_grep "^error: series.yaml:4: .fixup-order. is upstream (after the whole series) or after-fixed (right after the patch each fixes, the default), not .sideways.$" err &&
	sed -i "s/fixup-order: sideways/fixup-order: after-fixed/" kit/series.yaml &&
	(cd kit && mkseries plan --branch t >../plan) &&
	test_grep "s fixup 1/1" plan
'

test_done

#!/bin/sh
# t0651-fetch-lore.sh: mkseries fetch through b4 when b4 is not installed or lore cannot be reached.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

test_lazy_prereq B4 'command -v b4 >/dev/null'

test_expect_success 'setup: a kit whose series names its thread on lore' '
	make_upstream up &&
	make_kit kit up &&
	sed -i "s|^    title: \"mm: batch ptes\"|&\n    link: https://lore.kernel.org/r/20250610163008.1416519-1-dev.jain@arm.com|" kit/series.yaml &&
	test_grep "link: https://lore.kernel.org/r/20250610163008" kit/series.yaml &&
	mkdir bin &&
	for t in git sh; do ln -s "$(command -v $t)" bin/$t || return 1; done &&
	ln -s "$(command -v mkseries)" bin/mkseries
'

test_expect_success 'b4 not installed: say to install it, or what else to fetch from' '
	(cd kit && PATH=$TRASH_DIRECTORY/bin test_expect_code 1 mkseries fetch alpha --force >../out 2>../err) &&
	cat err &&
	test_grep "^error: b4 is not installed: install b4 (apt-get install b4), or fetch from a mainline repository with --mainline DIR$" err
'

test_expect_success B4 'lore not reachable: one line, no Python traceback' '
	(cd kit && https_proxy=http://127.0.0.1:9 http_proxy=http://127.0.0.1:9 \
		test_expect_code 1 mkseries fetch alpha --force >../out 2>../err) &&
	cat err &&
	test_grep "^error: lore is not reachable (b4: requests.exceptions.[A-Za-z]*Error: .*lore.kernel.org.*): use --mbox FILE or --mainline DIR$" err &&
	! grep -e "Traceback" -e "File \"" err &&
	test $(wc -l <err) = 1
'

test_done

#!/bin/sh
# t0750-report-html.sh: mkseries report --format html: one self-contained page, checked in headless Chromium.
. "$(dirname "$0")/lib.sh"

DATA="$TEST_DIRECTORY/data/results"

test_lazy_prereq CHROMIUM '
	command -v chromium || {
		echo "chromium is not installed (make deps installs it)" &&
		false
	}
'

# browse ARGS...: Debian's Chromium, headless, with a new empty profile and
# nothing that reaches the network; what it prints on stdout is kept.
browse() {
	rm -rf profile &&
	mkdir profile &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$PWD/profile" "$@" 2>browser.err
}

test_expect_success 'setup: recorded results with a variant, claims and hostile text' '
	jq ".branches[2].cells += [.branches[2].cells[1] | .variant = \"no-fix\"
			| .metrics[0].samples = [14.1, 14.3, 14.6, 14.2, 14.4]
			| .metrics[0].mean = 14.32 | .metrics[0].stddev = 0.19]
	    | .branches[2].claims = [
		{ origin: \"series\", owner: \"mremap-pte-batch\", metric: \"mremap_pud_timing.move_1g_pud_aligned\",
		  kind: \"better\", value: 50, than: \"base\", why: \"<script>alert(1)</script> & \\\"quoted\\\"\" },
		{ origin: \"series\", owner: \"mremap-pte-batch\", metric: \"perf_loop.us_per_iteration\",
		  kind: \"better\", value: 10, than: \"base\", why: \"the cover letter\" } ]" \
		"$DATA/three-branches.json" >results.json &&
	jq -e ".branches[2].cells | length == 3" results.json
'

test_expect_success 'the page: matrices, claims, a chart per metric, all escaped' '
	test_expect_code 1 mkseries report --merge results.json --format html --output page.html &&
	test_grep "^<!DOCTYPE html>" page.html &&
	test_grep "<table id=\"series\">" page.html &&
	test_grep "<th scope=\"row\">mremap-pte-batch</th><td class=\"warn\">skipped</td><td class=\"bad\">conflict</td><td class=\"ok\">applied</td>" page.html &&
	test_grep "<th scope=\"row\">6.12 kit</th>.*+23.8% perf_loop.us_per_iteration (worse) +1 better" page.html &&
	test_grep "<th scope=\"row\">6.12 no-fix</th>" page.html &&
	test_grep "<li>5.10 kit: build: mm/mremap.c:312:17: error: implicit declaration" page.html &&
	test_grep "<span class=\"word ok\">held</span>6.12 kit: series mremap-pte-batch: mremap_pud_timing.move_1g_pud_aligned better by 50% than base (&quot;&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;&quot;): held: -92.5% against base (kit 61.40, base 817 us)" page.html &&
	test_grep "<span class=\"word bad\">DID NOT HOLD</span>6.12 kit: series mremap-pte-batch: perf_loop.us_per_iteration better by 10% than base" page.html &&
	# 3 metrics on 6.12 (base, kit, no-fix); none on 6.1, whose kit did
	# not apply: its base alone has numbers, and nothing to compare them with.
	test "$(grep -c "<svg " page.html)" = 3 &&
	sed -n "/<h2>6.1: performance/,/<\/section>/p" page.html >61 &&
	! grep "<svg " 61 &&
	test_grep "<p class=\"time\">No chart: the kit did not apply on 6.1 (conflict), so only base has numbers and there is nothing to compare them with.</p>" 61 &&
	test_grep "The numbers are hardware time (KVM)." page.html &&
	test_grep "<figcaption>perf_loop.us_per_iteration (us) <span class=\"time\">lower is better; hardware time</span></figcaption>" page.html &&
	test_grep "<p class=\"claimnote\"><span class=\"word bad\">DID NOT HOLD</span>kit: series mremap-pte-batch: perf_loop.us_per_iteration better by 10% than base</p>" page.html &&
	sed -n "/<h2>6.12: performance/,/<\/section>/p" page.html >612 &&
	test "$(grep -c "<g class=\"kit worse\">" 612)" = 1 &&
	test "$(grep -c "<g class=\"kit better\">" 612)" = 1 &&
	test "$(grep -c "<g class=\"variant" 612)" = 3 &&
	test_grep "<text x=\"340\" y=\"[0-9.]*\">12.50 ±1% n=5 +23.8% worse</text>" 612 &&
	test_grep "<title>no-fix: mean 14.32, stddev 0.192, 5 samples, min 14.10, max 14.60</title>" 612 &&
	test "$(grep -o "<circle class=\"sample\"" 612 | wc -l)" = 45 &&
	test_grep "^     10.10 ±  2%     +23.8%      12.50 ±  1%     +41.8%      14.32 ±  1%  perf_loop.us_per_iteration (us)  (kit worse, no-fix worse)$" 612 &&
	# Nothing from outside the page: no script, no link, no request.
	! grep -i "<script" page.html &&
	! grep -E "(src|href)=" page.html &&
	test "$(grep -o "http[s]*://[^\"]*" page.html | sort -u)" = "http://www.w3.org/2000/svg"
'

test_expect_success 'an unknown format and an unwritable output are errors' '
	test_expect_code 2 mkseries report --merge results.json --format htm 2>err &&
	test_grep "unknown report format .htm. (text, json, junit, markdown or html)" err &&
	test_expect_code 1 mkseries report --merge results.json --format html --output no/such/dir/p.html 2>err &&
	test_grep "cannot write .no/such/dir/p.html." err &&
	! test -e no
'

test_expect_success 'the markdown reply links each branch'"'"'s charts in the page' '
	test_expect_code 1 mkseries report --merge results.json --format markdown \
		--html-url "https://ci.example.org/run/7/report.html" >reply.md &&
	test_grep "^Charts of 6.12: <https://ci.example.org/run/7/report.html#perf-6.12>$" reply.md &&
	! grep "Charts of 6.1:" reply.md &&
	! grep "Charts of 5.10" reply.md &&
	test_grep "<section class=\"branch\" id=\"perf-6.12\">" page.html &&
	test_grep "<section class=\"branch\" id=\"perf-6.1\">" page.html &&
	! grep "id=\"perf-5.10\"" page.html &&
	test_expect_code 2 mkseries report --merge results.json --html-url x 2>err &&
	test_grep "error: --html-url links charts from the markdown report: it needs --format markdown" err
'

test_expect_success 'cells in different kinds of time: each row says which' '
	jq ".branches[2].cells[2].accel = \"tcg\" | .branches[2].cells[2].timing = \"emulated\"" \
		results.json >mixed.json &&
	test_expect_code 1 mkseries report --merge mixed.json --format html --output mixed.html &&
	sed -n "/<h2>6.12: performance/,/<\/section>/p" mixed.html >612 &&
	test_grep "different kinds of time: each bar says which" 612 &&
	test "$(grep -o "n=5</text><text class=\"time\" x=\"340\" y=\"[0-9.]*\">emulated time</text>" 612 | wc -l)" = 3 &&
	test "$(grep -o "n=5[^<]*</text><text class=\"time\" x=\"340\" y=\"[0-9.]*\">hardware time</text>" 612 | wc -l)" = 6 &&
	! grep "lower is better; " 612
'

test_expect_success 'no results: a page that says so' '
	printf "{\"schema\": 1, \"branches\": []}\n" >empty.json &&
	mkseries report --merge empty.json --format html --output empty.html &&
	test_grep "<p id=\"summary\">no results</p>" empty.html &&
	test_grep "</html>" empty.html
'

# One crafted artifact of many metrics once stalled a CI merge job: the
# page compared every metric with every other (40,000 took minutes). Sorted
# once, it takes seconds; the CPU limit stops a regression long before the
# minutes, and leaves room for a sanitizer build.
test_expect_success 'a report of 40,000 metrics: a chart each, in the order given, within a CPU limit' '
	jq -c --argjson n 40000 ".branches |= [.[2]] | .branches[0].claims = []
		| .branches[0].cells |= (.[0:2] | map(.metrics = [range(\$n) as \$i | .metrics[0]
			| .name = \"m\(\$i)\" | .samples = [.mean] | .n = 1 | .stddev = 0]))" \
		"$DATA/three-branches.json" >many.json &&
	(ulimit -t 30 && mkseries report --merge many.json --format html --output many.html) &&
	test "$(grep -c "<svg " many.html)" = 40000 &&
	grep -o "<figcaption>perf_loop.m[0-9]* " many.html >captions &&
	sed -n "1p;2p;40000p" captions >actual &&
	printf "<figcaption>perf_loop.m%s \n" 0 1 39999 >expect &&
	test_cmp expect actual &&
	(ulimit -t 30 && mkseries report --merge many.json >many.txt) &&
	test_grep "^ *[0-9.]* *[-+0-9.]*% *[0-9.]* *perf_loop.m39999 (us)" many.txt
'

test_expect_success CHROMIUM 'headless Chromium reads the page: its DOM has the matrices, charts and claims' '
	browse --dump-dom "file://$PWD/page.html" >dom.html &&
	test_grep "<table id=\"cells\">" dom.html &&
	test_grep "<th scope=\"row\">6.12 no-fix</th>" dom.html &&
	test "$(grep -o "<svg " dom.html | wc -l)" = 3 &&
	test "$(grep -o "<circle class=\"sample\"" dom.html | wc -l)" = 45 &&
	test_grep "<ul class=\"lines\" id=\"claims\">" dom.html &&
	test_grep "DID NOT HOLD</span>6.12 kit" dom.html &&
	# The hostile text is text in the browser too: no element came from it.
	test_grep "&lt;script&gt;alert(1)&lt;/script&gt;" dom.html &&
	! grep -i "<script" dom.html
'

test_expect_success CHROMIUM 'headless Chromium draws it: a PNG screenshot' '
	browse --screenshot="$PWD/page.png" --window-size=1200,2000 "file://$PWD/page.html" &&
	test -s page.png &&
	test "$(head -c 8 page.png | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
	test "$(wc -c <page.png)" -gt 20000
'

test_done

#!/bin/sh
# t0770-docs.sh: manual pages (built, one a command, every option of --help in its page), `mkseries help`, --list, the bash completion, make install.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

MAN_SRC="$SRC_DIR/docs/man"
MAN_OUT="$(dirname "$MKSERIES_BIN")/man"
COMPLETION="$SRC_DIR/contrib/completion/mkseries.bash"

test_expect_success 'scdoc and man are installed (make deps)' '
	command -v scdoc && command -v man
'

test_expect_success 'every command has a page, built next to the binary' '
	mkseries --list=cmds >cmds &&
	test_grep "^export$" cmds &&
	test_grep "^help$" cmds &&
	grep -v "^help$" cmds >pages &&
	test $(wc -l <pages) -ge 12 &&
	while read -r cmd; do
		test -f "$MAN_SRC/mkseries-$cmd.1.scd" &&
		test -s "$MAN_OUT/man1/mkseries-$cmd.1" ||
		{ echo "no manual page for $cmd"; return 1; }
	done <pages &&
	test -s "$MAN_OUT/man1/mkseries.1" &&
	test -s "$MAN_OUT/man5/mkseries-kit.5" &&
	# a tree man(1) reads as it is
	MANPATH="$MAN_OUT" MANPAGER=cat MANWIDTH=80 man mkseries-kit >kit.man &&
	test_grep "series.yaml" kit.man
'

test_expect_success 'every page builds with scdoc, no warning' '
	for f in "$MAN_SRC"/*.scd; do
		scdoc <"$f" >page 2>err && test_must_be_empty err && test -s page ||
		{ echo "$f does not build"; return 1; }
	done
'

# missing_options DIR: each CMD:OPTION that `mkseries CMD --help` lists
# and DIR/mkseries-CMD.1.scd does not describe in its OPTIONS (a line
# starting *--option* or *-o*, *--option*), one a line.
missing_options() {
	while read -r cmd; do
		mkseries "$cmd" --help >help.out &&
		sed -n -e "s/^ *\(-[a-zA-Z]\), \(--[a-z][a-z-]*\).*/\1\n\2/p" \
		       -e "s/^ *\(--[a-z][a-z-]*\).*/\1/p" help.out >opts &&
		test -s opts &&
		while read -r opt; do
			case $opt in
			--*) re="^(\*-[a-zA-Z]\*, )?\*$opt\*" ;;
			*) re="^\*$opt\*, \*--" ;;
			esac &&
			grep -q -E -e "$re" "$1/mkseries-$cmd.1.scd" || echo "$cmd:$opt"
		done <opts || return 1
	done <pages
}

test_expect_success 'every option of each command'"'"'s --help is in its page' '
	missing_options "$MAN_SRC" >missing &&
	test_must_be_empty missing
'

test_expect_success '-m means one thing in every command: backport'"'"'s --message' '
	grep -v "^help\$" pages >cmds.m &&
	while read -r cmd; do
		{ mkseries $cmd --help >help.m 2>&1 || :; } &&
		sed -n "s/^ *-m, \(--[a-z-]*\).*/$cmd \1/p" help.m || return 1
	done <cmds.m >m &&
	echo "backport --message" >expect &&
	test_cmp expect m
'

test_expect_success 'the check finds an option left out of a page' '
	cp -r "$MAN_SRC" pages.d &&
	sed -i "/^\*--all\*\$/,+2d" pages.d/mkseries-apply.1.scd &&
	sed -i "s/^\*-q\*, \*--quiet\*\$/*--quiet*/" pages.d/mkseries-apply.1.scd &&
	missing_options pages.d >missing &&
	printf "apply:--all\napply:-q\n" >expect &&
	test_cmp expect missing
'

test_expect_success 'mkseries help CMD shows the command'"'"'s page' '
	MANPAGER=cat MANWIDTH=80 mkseries help apply >out &&
	test_grep "^NAME" out &&
	test_grep "mkseries-apply - apply the kit onto a branch" out &&
	test_grep "^ *-q, --quiet" out &&
	MANPAGER=cat MANWIDTH=80 mkseries help kit >out &&
	test_grep "mkseries-kit - the files of a mkseries kit" out &&
	test_grep "^KERNELS/<BRANCH>.YAML" out
'

test_expect_success 'mkseries help alone lists the commands; a wrong one is refused' '
	mkseries help >out &&
	test_grep "^    export  *ship an applied" out &&
	test_grep "mkseries help <command>" out &&
	test_expect_code 2 mkseries help aply 2>err &&
	test_grep "'"'"'aply'"'"' is not a mkseries command" err &&
	test_grep "^	apply$" err &&
	test_expect_code 2 mkseries help apply plan 2>err &&
	test_grep "one command at a time" err
'

test_expect_success 'without man, help says so and names --help' '
	mkdir nobin && ln -s "$(command -v scdoc)" nobin/scdoc &&
	(PATH=$PWD/nobin && export PATH && test_expect_code 1 "$MKSERIES_BIN" help apply 2>err) &&
	test_grep "cannot run man to show mkseries-apply(1)" err &&
	test_grep "'"'"'mkseries apply --help'"'"' lists its options" err
'

# check_doc_refs DIR: each `docs/NAME.md, "Title"` or `README.md, "Title"`
# written in DIR's files names a file of the checkout with a heading that
# starts with Title (a title may go on past a line's end); the ones that
# do not are printed, and the check fails.
check_doc_refs() {
	grep -rhoE '(docs/[a-z-]+[.]md|README[.]md), \\?"[^"\\]+' "$1" |
	sed -E 's/, \\?"/|/' | sort -u >doc-refs &&
	test -s doc-refs &&
	bad=0 &&
	while IFS="|" read -r file title; do
		if ! test -f "$SRC_DIR/$file" ||
		   ! sed -n "s/^#* //p" "$SRC_DIR/$file" |
		     awk -v t="$title" "index(\$0, t) == 1 { found = 1 } END { exit !found }"; then
			echo "no section \"$title\" in $file" &&
			bad=1
		fi
	done <doc-refs &&
	test $bad = 0
}

test_expect_success 'every section of the docs the sources point to is there' '
	check_doc_refs "$SRC_DIR/tools/mkseries" >missing &&
	test_must_be_empty missing &&
	test_grep "docs/kit.md|The kit: series.yaml" doc-refs &&
	test_grep "docs/gitlab-ci.md|The matrix on GitLab CI" doc-refs
'

test_expect_success 'the check finds a pointer to a section that moved' '
	mkdir -p moved &&
	printf "/* see README.md, \"The kit: series.yaml\" */\n" >moved/a.c &&
	test_must_fail check_doc_refs moved >missing &&
	test_grep "no section \"The kit: series.yaml\" in README.md" missing
'

test_expect_success 'setup: a kit with two branches, variants and series' '
	alpha_kit kit &&
	cat >>kit/series.yaml <<-\EOF &&
	  - id: beta-two
	    title: "mm: beta"
	    patches:
	      - file: patches/0001-mm-rename-ptes.patch
	        upstream: 2b356dad81e2
	        subject: "mm: rename ptes again"
	    branches:
	      "u": { skip: "not there" }
	      "t": { skip: "not there" }
	EOF
	printf "name: t\nsource: { tarball: /nonexistent/t.tar.xz }\nvariants:\n  no-alpha:\n    without: [1a356dad81e2]\n" >kit/kernels/t.yaml &&
	printf "name: u\nsource: { tarball: /nonexistent/u.tar.xz }\n" >kit/kernels/u.yaml &&
	(cd kit && mkseries --list=branches >../out) &&
	printf "t\nu\n" >expect && test_cmp expect out &&
	(cd kit && mkseries --list=variants >../out) &&
	printf "t/base\nt/kit\nt/no-alpha\nu/base\nu/kit\n" >expect && test_cmp expect out &&
	mkseries --kit kit --list=series >out &&
	printf "alpha\nbeta-two\n" >expect && test_cmp expect out
'

test_expect_success '--list refuses what it does not know, and a broken kit' '
	test_expect_code 2 mkseries --kit kit --list=patches 2>err &&
	test_grep "not one of cmds, branches, variants, series" err &&
	mkdir broken && echo "series: [" >broken/series.yaml &&
	test_expect_code 2 mkseries --kit broken --list=series 2>err &&
	test_grep "series.yaml" err
'

# complete WORDS...: what the completion offers for the last word.
complete_words() {
	bash -c '. "$1" && shift && COMP_WORDS=("$@") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) &&
		{ _mkseries; printf "%s\n" "${COMPREPLY[@]}" | sort; }' complete "$COMPLETION" "$@"
}

test_expect_success 'completion: commands, and options from --help' '
	complete_words mkseries ex >out &&
	echo export >expect && test_cmp expect out &&
	complete_words mkseries "" >out &&
	test_grep "^backport$" out && test_grep "^help$" out &&
	complete_words mkseries export --f >out &&
	printf "%s\n" --force --format >expect && test_cmp expect out &&
	complete_words mkseries apply -q --b >out &&
	echo --branch >expect && test_cmp expect out
'

test_expect_success 'completion: values after "=" of --progress and run --force' '
	complete_words mkseries build --progress=a >out &&
	printf "%s\n" --progress=always --progress=auto >expect && test_cmp expect out &&
	complete_words mkseries run --force=b >out &&
	echo --force=build >expect && test_cmp expect out &&
	complete_words mkseries build --force=b >out &&
	! grep . out &&
	complete_words mkseries build --no-p >out &&
	echo --no-progress >expect && test_cmp expect out &&
	complete_words mkseries --no >out &&
	echo --no-progress >expect && test_cmp expect out
'

test_expect_success 'completion: branches, variants of the branch, series, formats' '
	(cd kit && complete_words mkseries build --branch "" >../out) &&
	printf "t\nu\n" >expect && test_cmp expect out &&
	complete_words mkseries --kit kit build --branch t --variant "" >out &&
	printf "base\nkit\nno-alpha\n" >expect && test_cmp expect out &&
	complete_words mkseries --kit kit build --branch u --variant "" >out &&
	printf "base\nkit\n" >expect && test_cmp expect out &&
	complete_words mkseries --kit kit fetch b >out &&
	echo beta-two >expect && test_cmp expect out &&
	complete_words mkseries export --format "" >out &&
	printf "mbox\nquilt\nrpm\n" >expect && test_cmp expect out &&
	complete_words mkseries help k >out &&
	echo kit >expect && test_cmp expect out
'

test_expect_success 'completion: subcommands, mm-regress cases, claimed metrics, other kits' '
	complete_words mkseries series "" >out &&
	echo add >expect && test_cmp expect out &&
	complete_words mkseries ci "" >out &&
	echo gitlab >expect && test_cmp expect out &&
	complete_words mkseries bisect --branch t --case mremap_pu >out &&
	printf "mremap_pud\nmremap_pud_time\n" >expect && test_cmp expect out &&
	# the kit of this repository makes claims
	complete_words mkseries --kit "$SRC_DIR" bisect --branch 6.12 --claim "" >out &&
	mkseries --kit "$SRC_DIR" --list=claims >claims &&
	test_grep "^realloc_rate.calls_per_sec\$" claims &&
	sort claims >expect &&
	test_cmp expect out &&
	mkdir -p cache/mkseries/work/kit-00000000 &&
	(cd kit && XDG_CACHE_HOME=$TRASH_DIRECTORY/cache \
		complete_words mkseries gc --drop "" >../out) &&
	echo kit-00000000 >expect && test_cmp expect out
'

test_expect_success 'make install: the binary, the pages and the completion' '
	make -s -C "$SRC_DIR" install DESTDIR="$PWD/stage" PREFIX=/usr >make.out 2>&1 &&
	test -x stage/usr/bin/mkseries &&
	test -s stage/usr/share/man/man1/mkseries-export.1 &&
	test -s stage/usr/share/man/man5/mkseries-kit.5 &&
	test -s stage/usr/share/bash-completion/completions/mkseries &&
	ls stage/usr/share/man/man1 >installed &&
	test $(grep -c "^mkseries" installed) -ge 13 &&
	MANPAGER=cat MANWIDTH=80 man -M stage/usr/share/man mkseries-run >out &&
	test_grep "mkseries-run - the whole job" out
'

test_done

#!/bin/sh
# t0160-signals.sh: SIGTERM and Ctrl-C to mkseries reach its children; none outlives it, and the next command runs.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# A tree whose `make tinyconfig` hangs while the file $HANG exists: a
# shell that records its pid in $HANG.sh and a grandchild `sleep` whose
# pid goes to $HANG.sleep, all in make's process group, not mkseries's.
test_expect_success 'setup: a tree whose tinyconfig can hang, a kit around it' '
	fake_tree linux <<-\EOF_MAKE &&
	tinyconfig:
	> sh $(CURDIR)/hang.sh
	> printf "CONFIG_64BIT=y\n" >$(O)/.config
	olddefconfig:
	> true
	vmlinux:
	> cp /bin/true $(O)/vmlinux
	bzImage:
	> mkdir -p $(O)/arch/x86/boot
	> cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
	.PHONY: tinyconfig olddefconfig vmlinux bzImage
	EOF_MAKE
	cat >linux/hang.sh <<-\EOF_HANG &&
	test -n "${HANG:-}" && test -e "$HANG" || exit 0
	echo $$ >"$HANG.sh"
	sleep 60 &
	echo $! >"$HANG.sleep"
	wait
	EOF_HANG
	fake_tree_release linux &&
	plain_kit kit "$PWD/linux" &&
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	test_grep "^t base: built" out
'

# gone PID: up to 5 s for it to go (a zombie nobody reaps counts as gone).
gone() {
	i=0 &&
	while kill -0 "$1" 2>/dev/null && ! grep -q "^[0-9]* ([^)]*) Z" /proc/"$1"/stat 2>/dev/null; do
		test $i -lt 50 || { echo "process $1 is still there" && return 1; }
		sleep 0.1
		i=$((i + 1))
	done
}

# The stand-ins record their pids beside $HANG; b4's is found on PATH.
export HANG="$TRASH_DIRECTORY/hang"
export PATH="$TRASH_DIRECTORY/bin:$PATH"

# start_hung DIR [--setpgrp] COMMAND...: COMMAND in the background in DIR,
# its pid in $pid, once a stand-in hangs. With --setpgrp it leads a
# process group of its own with SIGINT at its default, as a foreground
# job under a terminal does.
start_hung() {
	_dir=$1 && shift &&
	rm -f hang.sh hang.sleep &&
	if test "$1" = --setpgrp; then
		shift
		(cd "$_dir" && exec perl -e '$SIG{INT} = "DEFAULT"; setpgrp(0, 0); exec @ARGV or die "exec: $!"' \
			"$@" >../out 2>../err) &
	else
		(cd "$_dir" && exec "$@" >../out 2>../err) &
	fi
	pid=$! &&
	wait_for hang.sleep "^[0-9]" &&
	wait_for hang.sh "^[0-9]"
}

# signal_ends_all SIGNAL TARGET STATUS: kill -SIGNAL TARGET; mkseries ($pid)
# must exit STATUS, and the stand-in's shell and sleep be gone.
signal_ends_all() {
	kill -$1 $2 &&
	status=0 &&
	{ wait $pid || status=$?; } &&
	cat out err &&
	test $status = $3 &&
	gone $(cat hang.sleep) &&
	gone $(cat hang.sh)
}

test_lazy_prereq PERL 'command -v perl'

test_expect_success 'SIGTERM: mkseries dies of it (143) and takes make, its shell and sleep along' '
	touch hang &&
	start_hung kit mkseries build --branch t --variant base --force &&
	signal_ends_all TERM $pid 143
'

test_expect_success 'after SIGTERM: the work directory is not locked, the next build runs' '
	rm -f hang &&
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built" out &&
	test_grep ! "locked\|another mkseries" err
'

test_expect_success PERL 'Ctrl-C: the terminal signals the group of mkseries alone; it passes SIGINT on, exits 130' '
	touch hang &&
	start_hung kit --setpgrp mkseries build --branch t --variant base --force &&
	test "$(ps -o pgid= -p $(cat hang.sleep))" != "$(ps -o pgid= -p $pid)" &&
	signal_ends_all INT -$pid 130
'

test_expect_success 'after Ctrl-C: the next build runs' '
	rm -f hang &&
	(cd kit && mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built" out
'

# SIGHUP at its default for mkseries, whatever the test itself inherited
# (under nohup it is ignored, and mkseries keeps it so, as it should).
test_expect_success PERL 'SIGHUP (the terminal closing): the same, 129' '
	touch hang &&
	start_hung kit perl -e '\''$SIG{HUP} = "DEFAULT"; exec @ARGV or die "exec: $!"'\'' \
		mkseries build --branch t --variant base --force &&
	signal_ends_all HUP $pid 129
'

# The same through `mkseries fetch` and a stand-in b4 first on PATH that
# hangs: fetch runs b4 as apt-get, cp and git are run, captured.
test_expect_success 'setup: a kit whose series comes from lore, a b4 that hangs' '
	mkdir -p bin kb/kernels &&
	cp kit/kernels/t.yaml kb/kernels/ &&
	cat >kb/series.yaml <<-\EOF &&
	series:
	  - id: s
	    title: "mm: something"
	    link: https://lore.kernel.org/r/1@example.org
	    patches:
	      - upstream: 0123456789ab
	        subject: "mm: something"
	EOF
	cat >bin/b4 <<-\EOF_B4 &&
	#!/bin/sh
	# b4 am -o DIR ...: DIR is the temporary directory mkseries made.
	echo "$3" >"$HANG.dir"
	echo $$ >"$HANG.sh"
	sleep 60 &
	echo $! >"$HANG.sleep"
	wait
	EOF_B4
	chmod +x bin/b4
'

test_expect_success 'SIGTERM during b4: 143, and no b4, sleep or temporary directory left' '
	start_hung kb mkseries fetch s &&
	test -d "$(cat hang.dir)" &&
	signal_ends_all TERM $pid 143 &&
	! test -e "$(cat hang.dir)"
'

test_expect_success PERL 'Ctrl-C during b4: 130, and no b4 or sleep left' '
	start_hung kb --setpgrp mkseries fetch s &&
	test -d "$(cat hang.dir)" &&
	signal_ends_all INT -$pid 130 &&
	! test -e "$(cat hang.dir)"
'

test_done

#!/bin/sh
# t0520-ccache.sh: the build's ccache settings: the user's first, a Redis shared between two machines' caches, distcc hosts.
. "$(dirname "$0")/lib.sh"
. "$TEST_DIRECTORY/lib-kit.sh"

# A stand-in for a kernel tree whose vmlinux compiles six files as kbuild
# does: in the O= directory, from absolute source paths, the dependency
# file written by -Wp,-MMD, and a header every file includes. Tag v1.1
# breaks lib/f3.c.
make_c_tree() {
	fake_tree "$1" <<-\EOF_MAKE &&
	SRCS := $(sort $(wildcard $(CURDIR)/lib/*.c))
	OBJS := $(patsubst $(CURDIR)/lib/%.c,$(O)/lib/%.o,$(SRCS))
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n' >$(O)/.config
	olddefconfig:
	> @:
	$(O)/lib/%.o: $(CURDIR)/lib/%.c
	> @mkdir -p $(dir $@)
	> @echo "  CC      lib/$*.o"
	> cd $(O) && $(CC) -I$(CURDIR)/include -O2 -Wp,-MMD,lib/.$*.o.d -c -o lib/$*.o $<
	vmlinux: $(OBJS)
	> ld -r -o $(O)/vmlinux $(OBJS)
	bzImage: vmlinux
	> mkdir -p $(O)/arch/x86/boot
	> cp $(O)/vmlinux $(O)/arch/x86/boot/bzImage
	.PHONY: tinyconfig olddefconfig vmlinux bzImage
	EOF_MAKE
	(
		cd "$1" &&
		mkdir lib include &&
		printf '#define SCALE 3\nint step(int x);\n' >include/common.h &&
		for i in 1 2 3 4 5 6; do
			printf '#include "common.h"\nint f%s(int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += i * SCALE + %s;\n\treturn s;\n}\n' \
				$i $i >lib/f$i.c || return 1
		done &&
		fake_tree_release . &&
		sed -i "s/return s;/return t;/" lib/f3.c &&
		git commit -q -a -m "Linux 1.1" && git tag v1.1
	)
}

# A free TCP port on the loopback interface.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ccache --print-stats's value for KEY in cache directory DIR (0 when absent).
ccache_stat() {
	CCACHE_DIR=$1 ccache --print-stats | awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }'
}

test_expect_success 'setup: a C tree and a kit that builds it' '
	make_c_tree linux &&
	plain_kit kit "$PWD/linux"
'

WORK=$(kit_workdir kit t)

test_expect_success 'no ccache setting of the user: mkseries uses its own cache, in depend mode' '
	(cd kit && mkseries build --branch t --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: cache_dir $XDG_CACHE_HOME/mkseries/ccache (mkseries.s own: no ccache setting of yours)$" "$log" &&
	test_grep "^# ccache: depend_mode true (mkseries" "$log" &&
	test_grep ! "base_dir" "$log" &&
	test_grep "^# make -j[0-9]" "$log" &&
	test_grep "CCACHE_DIR=$XDG_CACHE_HOME/mkseries/ccache CCACHE_DEPEND=1 make" "$log" &&
	test "$(ccache_stat "$XDG_CACHE_HOME/mkseries/ccache" cache_miss)" = 6 &&
	test_grep ! "remote_storage" "$log"
'

test_expect_success 'CCACHE_DIR is the user.s, and so is the rest of their environment' '
	rm -r "$WORK/out-base" &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/mine" CCACHE_NODEPEND=1 \
		mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: cache_dir $TRASH_DIRECTORY/mine (yours: CCACHE_DIR)$" "$log" &&
	test_grep "^# ccache: depend_mode false (yours: CCACHE_(NO)DEPEND)$" "$log" &&
	test_grep ! "CCACHE_DIR=\|CCACHE_DEPEND=" "$log" &&
	test "$(ccache_stat "$TRASH_DIRECTORY/mine" cache_miss)" = 6 &&
	test "$(ccache_stat "$TRASH_DIRECTORY/mine" preprocessed_cache_miss)" = 6 &&
	test "$(ccache_stat "$XDG_CACHE_HOME/mkseries/ccache" cache_miss)" = 6
'

test_expect_success 'a ccache.conf of the user.s: ccache.s own cache directory, their settings kept' '
	mkdir -p .config/ccache &&
	printf "max_size = 1G\nbase_dir = /nowhere\n" >.config/ccache/ccache.conf &&
	test_when_finished "rm -r .config/ccache" &&
	rm -r "$WORK/out-base" &&
	(cd kit && mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: cache_dir $XDG_CACHE_HOME/ccache (ccache.s default: $HOME/.config/ccache/ccache.conf sets ccache up)$" "$log" &&
	test_grep "^# ccache: base_dir /nowhere (yours: $HOME/.config/ccache/ccache.conf)$" "$log" &&
	test_grep "^# ccache: depend_mode true (mkseries" "$log" &&
	test_grep ! "CCACHE_DIR=" "$log" &&
	test "$(ccache_stat "$XDG_CACHE_HOME/ccache" cache_miss)" = 6
'

# The second machine builds in a work directory of the same path (the
# same XDG_CACHE_HOME and kit path on every runner): ccache hashes the
# compiler's absolute paths.
test_expect_success 'two machines, one Redis: the second build takes every object from it' '
	port=$(free_port) &&
	mkdir redis &&
	{ redis-server --bind 127.0.0.1 --port "$port" --dir "$PWD/redis" --save "" \
		--appendonly no --logfile "$PWD/redis/redis.log" & } &&
	redis_pid=$! &&
	test_when_finished "kill $redis_pid && wait $redis_pid" &&
	for i in $(seq 50); do
		redis-cli -p "$port" ping >/dev/null 2>&1 && break ||
		sleep 0.1
	done &&
	test "$(redis-cli -p "$port" dbsize)" = 0 &&
	sed -i "/^build:/,\$d" kit/kernels/t.yaml &&
	printf "build:\n  ccache-remote: redis://127.0.0.1:%s\n" "$port" >>kit/kernels/t.yaml &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/one" \
		mkseries build --branch t --variant base --workdir ../runner >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	test_grep "^# ccache: remote_storage redis://127.0.0.1:$port (kernels/t.yaml:7)$" runner/t/logs/base-build.log &&
	test "$(ccache_stat one cache_miss)" = 6 &&
	test "$(ccache_stat one remote_storage_hit)" = 0 &&
	test "$(redis-cli -p "$port" dbsize)" -ge 6 &&
	mv runner/t/out-base/arch/x86/boot/bzImage bzImage.one &&
	rm -r runner &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/two" \
		mkseries build --branch t --variant base --workdir ../runner >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	test "$(ccache_stat two remote_storage_hit)" = 6 &&
	test "$(ccache_stat two direct_cache_hit)" = 6 &&
	test "$(ccache_stat two cache_miss)" = 0 &&
	test "$(ccache_stat two remote_storage_miss)" = 0 &&
	cmp bzImage.one runner/t/out-base/arch/x86/boot/bzImage
'

test_expect_success 'a compiler error still names the file from the top of the tree' '
	sed "s/name: t/name: bad/; s/ref: v1.0/ref: v1.1/" kit/kernels/t.yaml >kit/kernels/bad.yaml &&
	test_when_finished "rm kit/kernels/bad.yaml" &&
	(cd kit && test_expect_code 1 mkseries build --branch bad --variant base >../out 2>../err) &&
	cat out err &&
	test_grep "^bad base: FAILED lib/f3.c:7:16: error: .t. undeclared" out
'

test_expect_success 'CCACHE_REMOTE_STORAGE comes before the kit.s, its password never in the log' '
	rm -r "$WORK/out-base" &&
	(cd kit && CCACHE_REMOTE_STORAGE="redis://:s3cret@127.0.0.1:1" CCACHE_DIR="$TRASH_DIRECTORY/three" \
		mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: remote_storage redis://\*\*\*@127.0.0.1:1 (yours: CCACHE_REMOTE_STORAGE)$" "$log" &&
	test_grep ! "s3cret" "$log" &&
	test "$(ccache_stat three cache_miss)" = 6
'

test_expect_success 'a kit.s remote store with a password is redacted in the log too' '
	sed -i "s|ccache-remote: .*|ccache-remote: redis://:hunter2@127.0.0.1:1|" kit/kernels/t.yaml &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/four" \
		mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: remote_storage redis://\*\*\*@127.0.0.1:1 (kernels/t.yaml:7)$" "$log" &&
	test_grep "CCACHE_REMOTE_STORAGE=redis://\*\*\*@127.0.0.1:1 " "$log" &&
	test_grep ! "hunter2" "$log"
'

test_expect_success 'settings ccache rejects stop the build before it starts (exit 2)' '
	(cd kit && CCACHE_DEPEND=false test_expect_code 2 mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "^error: ccache will not run with these settings: ccache: error: CCACHE_DEPEND: invalid boolean environment variable value \"false\"" err &&
	test_grep "^t base: FAILED the kit.s build settings are invalid: ccache will not run with these settings: ccache: error: CCACHE_DEPEND" out
'

test_expect_success 'a build section that is not right is a FILE:LINE error (exit 2)' '
	sed -i "/^build:/,\$d" kit/kernels/t.yaml &&
	printf "build:\n  ccache-remote: my-redis\n  distcc: [\"a b\", 10.0.0.1/4]\n  icecc: yes\n" >>kit/kernels/t.yaml &&
	(cd kit && test_expect_code 2 mkseries build --branch t --variant base >../out 2>../err) &&
	cat err &&
	test_grep "kernels/t.yaml:7: .ccache-remote. must be a ccache remote storage URL such as redis://HOST:PORT, not .my-redis." err &&
	test_grep "kernels/t.yaml:8: a distcc host must be one host specification such as 10.0.0.2/8 or 10.0.0.2:3632/8, not .a b." err &&
	test_grep "kernels/t.yaml:9: .*icecc" err &&
	sed -i "/^build:/,\$d" kit/kernels/t.yaml
'

test_expect_success 'distcc hosts without distcc installed: a configuration error naming them' '
	mkdir bin &&
	for f in /usr/bin/* /bin/*; do
		case "${f##*/}" in distcc*) ;; *) ln -sf "$f" bin/ ;; esac
	done &&
	printf "build:\n  distcc: [127.0.0.1:1/2]\n" >>kit/kernels/t.yaml &&
	(cd kit && PATH="$TRASH_DIRECTORY/bin" test_expect_code 2 "$MKSERIES_BIN" build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "kernels/t.yaml:7 names distcc hosts .127.0.0.1:1/2., but distcc is not installed (apt-get install distcc)" err &&
	(cd kit && DISTCC_HOSTS=10.9.9.9 PATH="$TRASH_DIRECTORY/bin" test_expect_code 2 "$MKSERIES_BIN" build --branch t --variant base --force >../out 2>../err) &&
	test_grep "DISTCC_HOSTS names distcc hosts .10.9.9.9., but distcc is not installed" err
'

# distccd, as root, runs as the distccd user, who may not reach the trash
# directory (under /root, mode 0700, on a fresh Debian): it logs to the
# stderr the shell opened for it, and works in /tmp.
start_distccd() {
	mkdir -p "$1" &&
	{ TMPDIR=/tmp distccd --daemon --no-detach --allow 127.0.0.1 --listen 127.0.0.1 --port "$2" \
		--log-stderr --log-level info 2>"$1/log" & } &&
	echo $! >"$1.pid"
}

test_expect_success 'distcc: compiles go to both hosts, ccache in front, make -j to match' '
	p1=$(free_port) && p2=$(free_port) &&
	start_distccd d1 "$p1" &&
	test_when_finished "kill $(cat d1.pid) && { wait $(cat d1.pid) || :; }" &&
	start_distccd d2 "$p2" &&
	test_when_finished "kill $(cat d2.pid) && { wait $(cat d2.pid) || :; }" &&
	for i in $(seq 50); do
		grep -q "started" d1/log d2/log 2>/dev/null &&
		test $(grep -l "started" d1/log d2/log | wc -l) = 2 && break ||
		sleep 0.1
	done &&
	sed -i "/^build:/,\$d" kit/kernels/t.yaml &&
	printf "build:\n  distcc: [127.0.0.1:%s/1, 127.0.0.1:%s/1]\n" "$p1" "$p2" >>kit/kernels/t.yaml &&
	rm -r "$WORK/out-base" &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/five" \
		mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	test_grep "^t base: built in" out &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: prefix_command distcc, hosts .127.0.0.1:$p1/1 127.0.0.1:$p2/1. (kernels/t.yaml:7), 2 jobs$" "$log" &&
	test_grep "^# make -j2$" "$log" &&
	test_grep "CCACHE_PREFIX=distcc .DISTCC_HOSTS=127.0.0.1:$p1/1 127.0.0.1:$p2/1. make" "$log" &&
	n1=$(grep -c "COMPILE_OK.*/lib/f[0-9].c" d1/log) &&
	n2=$(grep -c "COMPILE_OK.*/lib/f[0-9].c" d2/log) &&
	echo "host 1: $n1 compiles, host 2: $n2" &&
	test "$n1" -ge 1 && test "$n2" -ge 1 &&
	test $((n1 + n2)) = 6 &&
	test "$(ccache_stat five cache_miss)" = 6
'

test_expect_success 'DISTCC_HOSTS comes before the kit.s hosts; a CCACHE_PREFIX of the user.s is kept' '
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/six" DISTCC_HOSTS="127.0.0.1:1/3 127.0.0.1:2/5" CCACHE_PREFIX=env \
		mkseries build --branch t --variant base --force >../out 2>../err) &&
	cat out err &&
	log="$WORK/logs/base-build.log" &&
	test_grep "^# ccache: prefix_command env (yours: CCACHE_PREFIX); distcc hosts named by DISTCC_HOSTS left to it$" "$log" &&
	test_grep ! "CCACHE_PREFIX=distcc" "$log" &&
	(cd kit && CCACHE_DIR="$TRASH_DIRECTORY/six" DISTCC_HOSTS="127.0.0.1:1/3 127.0.0.1:2/5" \
		mkseries build --branch t --variant base --force --jobs 1 >../out 2>../err) &&
	test_grep "^# ccache: prefix_command distcc, hosts .127.0.0.1:1/3 127.0.0.1:2/5. (DISTCC_HOSTS), 8 jobs$" "$log" &&
	test_grep "^# make -j1$" "$log"
'

# A tree whose boot image is made as x86's is: piggy.S only .incbins the
# kernel (by a path relative to the build directory), compiled through
# $(CC) with kbuild's -MMD, then the section is wrapped in a setup header
# with an xz payload. ccache in depend mode (mkseries's default) hashes
# piggy.S and the headers the dependency file names, not the kernel it
# includes: two kernels of one size share one cached piggy.o. (In its
# preprocessor mode ccache sees the .incbin and does not cache.) FAKE_PIGGY_CACHE=F makes the
# image step keep piggy.o in F and take it from there, as a cache that
# looked at nothing but the source would.
make_piggy_tree() {
	fake_tree "$1" <<-\EOF_MAKE &&
	tinyconfig:
	> printf 'CONFIG_64BIT=y\n' >$(O)/.config
	olddefconfig:
	> @:
	vmlinux:
	> cd $(CURDIR) && ld -r -b binary -o $(O)/vmlinux mm/mremap.c
	bzImage: vmlinux
	> mkdir -p $(O)/arch/x86/boot
	> printf '.section .piggy, "a"\n.incbin "vmlinux"\n' >$(O)/piggy.S
	> if [ -n "$${FAKE_PIGGY_CACHE:-}" ] && [ -f "$$FAKE_PIGGY_CACHE" ]; then cp "$$FAKE_PIGGY_CACHE" $(O)/piggy.o; \
	> else cd $(O) && $(CC) -Wp,-MMD,.piggy.o.d -c -o piggy.o piggy.S; fi
	> if [ -n "$${FAKE_PIGGY_CACHE:-}" ]; then cp $(O)/piggy.o "$$FAKE_PIGGY_CACHE"; fi
	> objcopy -O binary -j .piggy $(O)/piggy.o $(O)/piggy.bin
	> "$$MKBZIMAGE" --xz $(O)/piggy.bin $(O)/arch/x86/boot/bzImage
	.PHONY: tinyconfig olddefconfig vmlinux bzImage
	EOF_MAKE
	mkdir "$1/mm" &&
	printf 'static int move_ptes(void)\n{\n\treturn 1;\n}\n' >"$1/mm/mremap.c" &&
	fake_tree_release "$1" &&
	git -C "$1" checkout -q -b upstream &&
	sed -i "s/return 1;/return 7;/" "$1/mm/mremap.c" &&
	git -C "$1" commit -q -a -m "mm: return 7" &&
	git -C "$1" checkout -q master
}

# bzimage_kernel IMAGE OUT: the kernel in a bzImage of tests/data/mkbzimage
# --xz, taken out by hand: after the 1024 bytes of setup, less the size.
bzimage_kernel() {
	size=$(stat -c %s "$1") &&
	tail -c +1025 "$1" | head -c $((size - 1024 - 4)) | xz -dc >"$2"
}

test_expect_success 'setup: a tree whose image .incbins the kernel, a kit whose patch keeps its size' '
	make_piggy_tree piggy &&
	mkdir -p pkit/patches &&
	git -C piggy format-patch -q -1 upstream -o "$PWD/pkit/patches" &&
	git_yaml pkit p "$PWD/piggy" v1.0 &&
	cat >pkit/series.yaml <<-EOF &&
	series:
	  - id: seven
	    title: "mm: return 7"
	    patches:
	      - file: patches/0001-mm-return-7.patch
	        upstream: $(git -C piggy rev-parse --short=12 upstream)
	        subject: "mm: return 7"
	EOF
	(cd pkit && mkseries apply --branch p >../out 2>../err) &&
	test_grep "^p: refs/heads/mkseries/.* (1 commits, " out
'

test_expect_success 'the hazard is real: through ccache, the two kernels get one image' '
	for r in v1.0 upstream; do
		mkdir "hand-$r" &&
		mkdir "hand-$r/out" &&
		git -C piggy archive "$r" | tar -x -C "hand-$r" &&
		CCACHE_DIR="$TRASH_DIRECTORY/hand-cache" CCACHE_DEPEND=1 make -s -C "hand-$r" O="$TRASH_DIRECTORY/hand-$r/out" \
			CC="ccache gcc" tinyconfig bzImage || return 1
	done &&
	test "$(stat -c %s hand-v1.0/out/vmlinux)" = "$(stat -c %s hand-upstream/out/vmlinux)" &&
	! cmp -s hand-v1.0/out/vmlinux hand-upstream/out/vmlinux &&
	cmp hand-v1.0/out/arch/x86/boot/bzImage hand-upstream/out/arch/x86/boot/bzImage &&
	test "$(ccache_stat hand-cache direct_cache_hit)" = 1
'

PWORK=$(kit_workdir pkit p)

test_expect_success 'mkseries builds each kernel.s own image: the image step never comes from ccache' '
	(cd pkit && mkseries build --branch p >../out 2>../err) &&
	cat out err &&
	test_grep "^p base: built in" out &&
	test_grep "^p kit: built in" out &&
	! cmp -s "$PWORK/out-base/vmlinux" "$PWORK/out-kit/vmlinux" &&
	for v in base kit; do
		bzimage_kernel "$PWORK/out-$v/arch/x86/boot/bzImage" "kernel-$v" &&
		cmp "kernel-$v" "$PWORK/out-$v/vmlinux" || return 1
	done &&
	test_grep "CCACHE_DISABLE=1 make .* bzImage$" "$PWORK/logs/kit-build.log" &&
	test_grep ! "CCACHE_DISABLE=1 make .* vmlinux$" "$PWORK/logs/kit-build.log"
'

test_expect_success 'an image that holds another variant.s kernel fails the build, saying so' '
	rm -r "$PWORK/out-base" "$PWORK/out-kit" &&
	(cd pkit && FAKE_PIGGY_CACHE="$TRASH_DIRECTORY/piggy.o" \
		test_expect_code 1 mkseries build --branch p --force >../out 2>../err) &&
	cat out err &&
	test_grep "^p base: built in" out &&
	test_grep "^p kit: FAILED .$PWORK/out-kit/arch/x86/boot/bzImage. does not hold the kernel just built (.$PWORK/out-kit/vmlinux.): its kernel.s .data differs$" out
'

test_done
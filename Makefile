# Makefile for mkseries: `make` builds build/mkseries; `make run`, `make test`, `make install`.
#
# As in git's Makefile, the flags the code needs (ALL_CFLAGS) are kept apart
# from the user's CFLAGS, so `make CFLAGS=-O0` changes the optimisation and
# nothing else. `make DEVELOPER=1` adds -Werror and extra warnings (CI builds
# that way); `make SANITIZE=address,undefined` builds with those sanitizers
# (CI runs the unit and synthetic tests so, in build-sanitize/).
PREFIX ?= /usr/local
CC ?= cc
PKGS = libgit2 yaml-0.1 libpcre2-8 gmime-3.0 libarchive libelf
CFLAGS ?= -O2 -g
LDFLAGS ?=

BASIC_CFLAGS = -DMKSERIES_VERSION=\"0.1\" -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
	-Wno-sign-compare -Werror=implicit-function-declaration -Werror=format-security
DEVELOPER_CFLAGS = -Werror -Wvla -Wshadow=local -Wmissing-prototypes -Wstrict-prototypes \
	-Wold-style-definition -Wpointer-arith -Wformat=2 -Wno-format-nonliteral
ifdef DEVELOPER
BASIC_CFLAGS += $(DEVELOPER_CFLAGS)
endif
ifdef SANITIZE
BASIC_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
BASIC_LDFLAGS += -fsanitize=$(SANITIZE)
B ?= build-sanitize
endif

# pkg-config's failures are errors, not silently empty flags. Not for the
# goals that install the packages first and then run make again (deps,
# test-deps, test, run, ci-checks, fuzz): on a fresh machine pkg-config is not there yet.
ifeq ($(filter deps test-deps clean test run ci-checks fuzz,$(MAKECMDGOALS)),)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null || echo PKG_CONFIG_FAILED)
PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo PKG_CONFIG_FAILED)
ifneq ($(findstring PKG_CONFIG_FAILED,$(PKG_CFLAGS) $(PKG_LIBS)),)
$(error pkg-config cannot find all of: $(PKGS) ($(shell pkg-config --cflags $(PKGS) 2>&1 | head -n 1)); run `make deps` first)
endif
endif
ALL_CFLAGS = $(BASIC_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(BASIC_LDFLAGS) $(LDFLAGS)

# Debian packages `make run` needs: the build, kernel builds (and ccache,
# the arm64 and sparc64 cross compilers) and QEMU boots, the manual pages.
RUN_DEPS = build-essential pkg-config libgit2-dev libyaml-dev libpcre2-dev \
	libgmime-3.0-dev libarchive-dev git b4 perl python3 \
	flex bison bc libelf-dev libssl-dev cpio xz-utils kmod ccache apt-utils \
	qemu-system-x86 qemu-system-arm qemu-system-sparc \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-sparc64-linux-gnu libc6-dev-sparc64-cross \
	scdoc man-db

# What only the tests need besides: the tools mkseries hands its output to
# (quilt, rpm, git send-email, headless Chromium, gitlab-ci-local on
# nodejs), qemu-user for the tcg-cache plugin, the fuzzers' clang, the
# ccache back ends the tests start on loopback ports (redis-server,
# distcc), which tools/install-deps.sh leaves disabled, and strace, by
# which t0422 counts the system calls glibc makes for bigheap.
TEST_DEPS = qemu-user libxml2-utils jq chromium clang libclang-rt-14-dev \
	quilt rpm git-email libmailtools-perl bash-completion \
	redis-server redis-tools distcc nodejs rsync strace

# gitlab-ci-local runs the pipeline of `mkseries ci gitlab` in
# tests/t0780-ci-gitlab.sh: its version and every dependency's are pinned
# in tests/gitlab-ci-local/package-lock.json, chosen so that Debian 12's
# node 18 and npm 9 run it (newer versions need node 20 or 22), and
# installed there by `npm ci`. It needs git, rsync and bash. npm is a
# package of its own on Debian; other builds of nodejs carry their own.
GCL_DIR = tests/gitlab-ci-local

B ?= build
# tools/mkseries: main.c and builtin/ on top of folders that are the
# layers. tools/mkseries/LAYERS names them, lowest first, and what each
# may use (tests/check-layers.sh holds the code to it); each builds into
# an archive. Includes name the folder: #include "kit/model.h".
MKS_LAYERS := $(shell sed -n 's/^\([a-z0-9_]*\):.*/\1/p' tools/mkseries/LAYERS)
MKS_INCLUDES = -Itools/mkseries
layer_objs = $(patsubst tools/%.c,$(B)/obj/%.o,$(wildcard tools/mkseries/$(1)/*.c))
LAYER_LIBS = $(patsubst %,$(B)/lib/libmks-%.a,$(MKS_LAYERS))
# highest rank first, so that one pass of the linker resolves every use
LINK_LIBS = $(foreach l,$(shell echo $(MKS_LAYERS) | tr ' ' '\n' | tac),$(B)/lib/libmks-$(l).a)
MKS_SRC = $(wildcard tools/mkseries/*.c tools/mkseries/*/*.c)
MKS_OBJ = $(patsubst tools/%.c,$(B)/obj/%.o,$(MKS_SRC))
CMD_OBJ = $(patsubst tools/%.c,$(B)/obj/%.o,$(wildcard tools/mkseries/main.c tools/mkseries/builtin/*.c))
REGRESS_SRC = $(wildcard tools/mm-regress/*.c)
UNIT_SRC = $(wildcard tests/unit/test-*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
# Test helpers (tests/helper/, as git's t/helper/): programs the shell tests
# call, built with the units but no unit test themselves.
HELPER_SRC = $(wildcard tests/helper/*.c)
HELPER_BIN = $(patsubst tests/helper/%.c,$(B)/tests/helper/%,$(HELPER_SRC))
DEPS = $(MKS_OBJ:.o=.d) $(patsubst tests/unit/%.c,$(B)/obj/tests/%.d,$(UNIT_SRC)) \
	$(patsubst tests/helper/%.c,$(B)/obj/tests/helper/%.d,$(HELPER_SRC))

# Manual pages: docs/man/<page>.<section>.scd, built with scdoc into
# $(B)/man/man<section>/ (a tree man(1) reads: MANPATH=build/man), where
# `mkseries help` finds them next to the binary. `make` builds them when
# scdoc is installed (make deps installs it); `make man` and `make
# install` require it.
MAN_SRC = $(wildcard docs/man/*.scd)
MAN_PAGES = $(foreach s,$(MAN_SRC),$(B)/man/man$(subst .,,$(suffix $(basename $(s))))/$(notdir $(basename $(s))))
SCDOC := $(shell command -v scdoc 2>/dev/null)

all: $(B)/mkseries $(B)/tcg-cache.so $(if $(SCDOC),$(MAN_PAGES))

man: $(MAN_PAGES)

define MAN_RULE
$(B)/man/man$(1)/%: docs/man/%.scd
	@test -n "$$(SCDOC)" || { echo "scdoc is not installed: run make deps (or apt-get install scdoc)" >&2; exit 1; }
	@mkdir -p $$(dir $$@)
	scdoc <$$< >$$@+ && mv $$@+ $$@
endef
$(foreach n,1 5,$(eval $(call MAN_RULE,$(n))))

$(B)/obj/%.o: tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -MMD -MP $(MKS_INCLUDES) -c -o $@ $<

define layer_archive
$(B)/lib/libmks-$(1).a: $(call layer_objs,$(1)) $(if $(filter vm,$(1)),$(B)/obj/mkseries/vm/embed.o)
	@mkdir -p $$(dir $$@)
	rm -f $$@ && $$(AR) rcs $$@ $$^
endef
$(foreach l,$(MKS_LAYERS),$(eval $(call layer_archive,$(l))))

# mm-regress is a static program carried inside mkseries (see embed.S).
# One mm-regress per architecture a kernel file can name (arch.c), by the
# machine name uname -m gives inside its guests. The host's is a copy of
# $(B)/mm-regress; the others come from Debian's cross compilers
# (`make deps`). A missing or failing cross compiler does not stop the
# build: the binary is left empty and $@.why says what was missing, which
# mkseries reports when a branch of that arch is booted.
REGRESS_MACHINES = x86_64 aarch64 sparc64
HOST_MACHINE := $(shell uname -m)
REGRESS_BINS = $(patsubst %,$(B)/mm-regress-%,$(REGRESS_MACHINES))
REGRESS_FLAGS = -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(if $(DEVELOPER),-Werror) \
	-static

$(B)/mm-regress: $(REGRESS_SRC) $(wildcard tools/mm-regress/*.h) tools/tcg-cache/marker.h
	@mkdir -p $(B)
	$(CC) $(REGRESS_FLAGS) -o $@ $(REGRESS_SRC) -lm

$(B)/mm-regress-%: $(REGRESS_SRC) $(wildcard tools/mm-regress/*.h) tools/tcg-cache/marker.h $(B)/mm-regress
	@if [ "$*" = "$(HOST_MACHINE)" ]; then \
		cp $(B)/mm-regress $@ && : >$@.why; \
	elif ! command -v $*-linux-gnu-gcc >/dev/null 2>&1; then \
		echo "warning: no $*-linux-gnu-gcc: mkseries will carry no $* mm-regress (make deps)" >&2; \
		: >$@ && echo "no $*-linux-gnu-gcc on PATH when this mkseries was built" >$@.why; \
	else \
		echo "$*-linux-gnu-gcc $(REGRESS_FLAGS) -o $@ ... -lm"; \
		if $*-linux-gnu-gcc $(REGRESS_FLAGS) -o $@ $(REGRESS_SRC) -lm 2>$@.err; then \
			cat $@.err >&2; : >$@.why; \
		else \
			cat $@.err >&2; \
			echo "warning: $*-linux-gnu-gcc failed: mkseries will carry no $* mm-regress" >&2; \
			: >$@ && echo "$*-linux-gnu-gcc failed: $$(grep -m1 -E 'error|cannot find' $@.err)" >$@.why; \
		fi; \
		rm -f $@.err; \
	fi

$(B)/obj/mkseries/vm/embed.o: tools/mkseries/vm/embed.S $(B)/mm-regress $(REGRESS_BINS) $(B)/tcg-cache.so
	@mkdir -p $(dir $@)
	$(CC) -c -DMM_REGRESS_PATH='"$(B)/mm-regress"' -DTCG_CACHE_PATH='"$(B)/tcg-cache.so"' \
		$(foreach m,$(REGRESS_MACHINES),-DMM_REGRESS_$(shell echo $(m) | tr a-z A-Z)='"$(B)/mm-regress-$(m)"' \
		-DMM_REGRESS_$(shell echo $(m) | tr a-z A-Z)_WHY='"$(B)/mm-regress-$(m).why"') \
		-o $@ $<

# tcg-cache.so: our QEMU TCG plugin (tools/tcg-cache/), loaded by QEMU, not
# by mkseries: built without the sanitizers (QEMU is not built with them),
# with only the symbols the plugin API asks for visible.
PLUGIN_SRC = tools/tcg-cache/tcg-cache.c
PLUGIN_FLAGS = -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(if $(DEVELOPER),-Werror) \
	-fPIC -shared -fvisibility=hidden

$(B)/tcg-cache.so: $(PLUGIN_SRC) $(wildcard tools/tcg-cache/*.h)
	@mkdir -p $(B)
	$(CC) $(PLUGIN_FLAGS) -o $@ $(PLUGIN_SRC)

$(B)/mkseries: $(CMD_OBJ) $(LAYER_LIBS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -pthread -o $@ $(CMD_OBJ) $(LINK_LIBS) $(PKG_LIBS) -lm

$(B)/tests/%: tests/unit/%.c $(LAYER_LIBS)
	@mkdir -p $(dir $@) $(B)/obj/tests
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(PKG_CFLAGS) -MMD -MP -MF $(B)/obj/tests/$*.d $(MKS_INCLUDES) -Itests/unit -o $@ $< \
		$(LINK_LIBS) $(PKG_LIBS) -lm

$(B)/tests/helper/%: tests/helper/%.c $(LAYER_LIBS)
	@mkdir -p $(dir $@) $(B)/obj/tests/helper
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(PKG_CFLAGS) -MMD -MP -MF $(B)/obj/tests/helper/$*.d $(MKS_INCLUDES) -o $@ $< \
		$(LINK_LIBS) $(PKG_LIBS) -lm

-include $(DEPS)

# `make deps`: what `make run` needs; `make test-deps`: that and what the
# tests need. Each installs only what is missing and leaves no daemon
# enabled or running (tools/install-deps.sh).
deps:
	@sh tools/install-deps.sh "run" $(RUN_DEPS)

test-deps: deps
	@sh tools/install-deps.sh "tests" $(TEST_DEPS)
	@# Debian's nodejs wants its npm package; a nodejs from elsewhere carries its own
	@command -v npm >/dev/null || sh tools/install-deps.sh "tests" npm
	@if [ ! $(GCL_DIR)/node_modules/.package-lock.json -nt $(GCL_DIR)/package-lock.json ]; then \
		echo "installing: gitlab-ci-local into $(GCL_DIR) (npm ci)"; \
		cd $(GCL_DIR) && npm ci --no-audit --no-fund; \
	fi

units: $(UNIT_BIN) $(HELPER_BIN)

# The whole suite: C unit tests, then the shell tests, under prove.
test: test-deps
	$(MAKE) all units
	prove -j1 --exec '' $(UNIT_BIN)
	prove -j1 tests/t[0-9]*.sh

# What CI runs before the whole suite: a -Werror build, then the unit and
# synthetic tests (not the real kernel trees) under ASan and UBSan.
ci-checks: test-deps
	$(MAKE) DEVELOPER=1 all units
	tests/check-layers.sh $(B)/obj/mkseries tools/mkseries
	tests/chainlint.pl tests/t*.sh
	$(MAKE) SANITIZE=address,undefined all units
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		prove -j1 --exec '' $(patsubst $(B)/%,build-sanitize/%,$(UNIT_BIN))
	MKSERIES_BIN=$(CURDIR)/build-sanitize/mkseries MKSERIES_SKIP_REAL=1 \
		ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
		prove -j1 tests/t0[0-8]*.sh
	$(MAKE) fuzz FUZZ_SECONDS=20

# Fuzzing: one libFuzzer target per parser of hostile input (tests/fuzz/
# fuzz-<target>.c), built with clang under ASan and UBSan in build-fuzz/,
# each run for FUZZ_SECONDS from its seed corpus tests/fuzz/<target>/
# (read only) and what earlier runs found (build-fuzz/corpus/<target>/).
# A finding stops make; its input is build-fuzz/crash-<target>-*: add it
# to tests/fuzz/<target>/ with the fix. The targets' stderr (mkseries'
# own error messages) is closed; libFuzzer's report still shows. The
# targets' scratch files go to build-fuzz/tmp/, made anew for each.
FUZZ_TARGETS = mail kit console tarball diff binary apply json
FUZZ_SECONDS ?= 60
FUZZ_MAX_LEN ?= 65536
FUZZ_BIN = $(patsubst %,$(B)/fuzz/fuzz-%,$(FUZZ_TARGETS))

$(B)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz-common.h $(LAYER_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(PKG_CFLAGS) -fsanitize=fuzzer $(MKS_INCLUDES) -o $@ $< \
		$(LINK_LIBS) $(ALL_LDFLAGS) -fsanitize=fuzzer -pthread $(PKG_LIBS) -lm

fuzz-targets: $(FUZZ_BIN)

fuzz: test-deps
	$(MAKE) B=build-fuzz CC=clang SANITIZE=fuzzer-no-link,address,undefined fuzz-targets
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p build-fuzz/corpus/$$t && rm -rf build-fuzz/tmp && mkdir build-fuzz/tmp && \
		echo "fuzz-$$t: $(FUZZ_SECONDS)s" && \
		TMPDIR=$(CURDIR)/build-fuzz/tmp UBSAN_OPTIONS=print_stacktrace=1 build-fuzz/fuzz/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) \
			-max_len=$(FUZZ_MAX_LEN) -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1 \
			-artifact_prefix=build-fuzz/crash-$$t- build-fuzz/corpus/$$t tests/fuzz/$$t \
			2>build-fuzz/fuzz-$$t.log || { tail -n 60 build-fuzz/fuzz-$$t.log; exit 1; }; \
		grep -E '^(stat::number_of_executed_units|Done)' build-fuzz/fuzz-$$t.log; \
	done

# No call cycle between the objects, no library call into a builtin, no
# function over 100 lines or source file over 1,500 (tests/check-layers.sh).
check-layers: all
	tests/check-layers.sh $(B)/obj/mkseries tools/mkseries

# The main job on the kit's default branches.
run: deps
	$(MAKE) all
	./$(B)/mkseries run --all

# The benchmarks that need no real tree; bench/README.md has the others.
# cache-sweep needs qemu-user (TEST_DEPS) and an x86-64 machine.
bench: all
	bench/fixups.sh
	bench/cache-sweep.sh

# The binary (mm-regress is inside it), the manual pages and the bash
# completion. `make install PREFIX=/usr/local DESTDIR=/tmp/stage`.
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(B)/mkseries $(DESTDIR)$(PREFIX)/bin/mkseries
	install -m 644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(filter %.5,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 contrib/completion/mkseries.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/mkseries

clean:
	rm -rf build/obj build/lib build/tests build/man build/mkseries build/mm-regress build/mm-regress-* build/tcg-cache.so build-sanitize build-fuzz

.PHONY: all man deps test-deps units test ci-checks check-layers run bench install clean fuzz fuzz-targets

# Makefile for mkseries: `make` builds build/mkseries; `make run`, `make test`, `make install`.
PREFIX ?= /usr/local
CC ?= cc
PKGS = libgit2 yaml-0.1 libpcre2-8 gmime-3.0 libarchive
CFLAGS ?= -O2 -g
CFLAGS += -DMKSERIES_VERSION=\"0.1\" -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Werror=implicit-function-declaration -Werror=format-security
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# Debian packages the build, the tests, kernel builds and QEMU boots need.
DEB_DEPS = build-essential pkg-config libgit2-dev libyaml-dev libpcre2-dev \
	libgmime-3.0-dev libarchive-dev git b4 perl \
	flex bison bc libelf-dev libssl-dev cpio xz-utils kmod ccache \
	qemu-system-x86 apt-utils python3 libxml2-utils jq

B = build
MKS_SRC = $(wildcard tools/mkseries/*.c tools/mkseries/builtin/*.c)
MKS_OBJ = $(patsubst tools/%.c,$(B)/obj/%.o,$(MKS_SRC))
LIB_OBJ = $(filter-out $(B)/obj/mkseries/main.o,$(MKS_OBJ))
REGRESS_SRC = $(wildcard tools/mm-regress/*.c)
UNIT_SRC = $(wildcard tests/unit/test-*.c)
UNIT_BIN = $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
HDRS = $(wildcard tools/mkseries/*.h tools/mm-regress/*.h tests/unit/*.h)

all: $(B)/mkseries

$(B)/obj/%.o: tools/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itools/mkseries -c -o $@ $<

# mm-regress is a static program carried inside mkseries (see embed.S).
$(B)/mm-regress: $(REGRESS_SRC) $(wildcard tools/mm-regress/*.h)
	@mkdir -p $(B)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-parameter -static -o $@ $(REGRESS_SRC) -lm

$(B)/obj/embed.o: tools/mkseries/embed.S $(B)/mm-regress
	@mkdir -p $(dir $@)
	$(CC) -c -DMM_REGRESS_PATH='"$(B)/mm-regress"' -o $@ $<

$(B)/mkseries: $(MKS_OBJ) $(B)/obj/embed.o
	$(CC) $(CFLAGS) -pthread -o $@ $^ $(PKG_LIBS) -lm

$(B)/tests/%: tests/unit/%.c $(LIB_OBJ) $(B)/obj/embed.o $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itools/mkseries -Itests/unit -o $@ $< $(LIB_OBJ) $(B)/obj/embed.o $(PKG_LIBS) -lm

deps:
	@missing=$$(for p in $(DEB_DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -q && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

units: $(UNIT_BIN)

# The whole suite: C unit tests, then the shell tests, under prove.
test: deps
	$(MAKE) all units
	prove -j1 --exec '' $(UNIT_BIN)
	prove -j1 tests/t[0-9]*.sh

# The main job on the kit's default branches.
run: deps
	$(MAKE) all
	./$(B)/mkseries run --all

bench: all
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(B)/mkseries $(DESTDIR)$(PREFIX)/bin/mkseries

clean:
	rm -rf $(B)

.PHONY: all deps units test run bench install clean

# Build of the haproxy-compatible proxy. Targets: all (./haproxy), run, test, unit, asan,
# integration, fuzz, fuzz-replay, bench, bench-lua, bench-cache, bench-comp, bench-tcp,
# bench-tls, install, uninstall, clean.
# Options: USE_PCRE2, USE_PCRE2_JIT, USE_LUA, USE_ZLIB, USE_LIBCRYPT (1 by default, 0 to
# drop), CC, CPU, ARCH, DEBUG; USE_OPENSSL must stay 1 (TLS is built in).

ifeq ($(origin CC),default)
CC := gcc
endif
CPU     ?= generic
ARCH    ?=
PREFIX  ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
DOCDIR  ?= $(PREFIX)/share/doc/haproxy
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
VERSION := $(shell cat VERSION)

USE_OPENSSL   ?= 1
USE_PCRE2     ?= 1
USE_PCRE2_JIT ?= 1
USE_LUA       ?= 1
USE_ZLIB      ?= 1
USE_LIBCRYPT  ?= 1

OPT_CFLAGS ?= -O2 -g
WARN_CFLAGS := -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wstrict-prototypes
STD_CFLAGS  := -std=c11 -D_GNU_SOURCE -fwrapv -fno-strict-aliasing
ARCH_CFLAGS :=
ifeq ($(CPU),armv81)
ARCH_CFLAGS += -march=armv8.1-a
endif
ifneq ($(ARCH),)
ARCH_CFLAGS += -march=$(ARCH)
endif

OPTIONS :=
LIBS    := -lpthread
ifneq ($(USE_OPENSSL),1)
$(error USE_OPENSSL=$(USE_OPENSSL): TLS is part of the proxy and needs OpenSSL 3 (USE_OPENSSL=1))
endif
OPTIONS += USE_OPENSSL=1
LIBS    += -lssl -lcrypto
ifeq ($(USE_PCRE2),1)
OPTIONS += USE_PCRE2=1
LIBS    += -lpcre2-8
ifeq ($(USE_PCRE2_JIT),1)
OPTIONS += USE_PCRE2_JIT=1
endif
endif
ifeq ($(USE_LUA),1)
OPTIONS += USE_LUA=1
LUA_INC ?= /usr/include/lua5.4
LIBS    += -llua5.4
endif
ifeq ($(USE_ZLIB),1)
OPTIONS += USE_ZLIB=1
LIBS    += -lz
endif
ifeq ($(USE_LIBCRYPT),1)
OPTIONS += USE_LIBCRYPT=1
LIBS    += -lcrypt
endif
LIBS += -lm -ldl

OPT_DEFS := $(foreach o,$(OPTIONS),-D$(o))
INC_CFLAGS := -Iinclude $(if $(filter 1,$(USE_LUA)),-I$(LUA_INC))
CFLAGS_ALL = $(STD_CFLAGS) $(OPT_CFLAGS) $(WARN_CFLAGS) $(ARCH_CFLAGS) $(INC_CFLAGS) $(OPT_DEFS) \
	-DBUILD_VERSION='"$(VERSION)"' -DBUILD_CC='"$(CC)"' \
	-DBUILD_CFLAGS='"$(strip $(OPT_CFLAGS) $(ARCH_CFLAGS))"' -DBUILD_OPTIONS='"$(strip $(OPTIONS))"' \
	-DBUILD_CPU='"$(CPU)"' $(EXTRA_CFLAGS)

SRCS      := $(sort $(wildcard src/*/*.c))
# Without Lua only src/lua/hlua_none.c is built (it refuses the Lua keywords); with Lua,
# everything but it.
ifeq ($(USE_LUA),1)
SRCS      := $(filter-out src/lua/hlua_none.c,$(SRCS))
else
SRCS      := $(filter-out src/lua/%,$(SRCS)) src/lua/hlua_none.c
endif
MAIN_SRC  := src/proc/main.c
LIB_SRCS  := $(filter-out $(MAIN_SRC),$(SRCS))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c tests/unit/*/*.c))

# Objects built with a library left out (USE_X=0) go to a tree of their own, so that an
# object compiled for one set of options is never linked with another; build/options
# records the set ./haproxy and the unit-test runner were last linked with, so that a
# change of options relinks them.
off_if_not_1 = $(if $(filter 1,$(1)),,$(2))
OFF_LIBS := $(call off_if_not_1,$(USE_PCRE2),-nopcre2)$(call off_if_not_1,$(USE_PCRE2_JIT),-nojit)
OFF_LIBS := $(OFF_LIBS)$(call off_if_not_1,$(USE_LUA),-nolua)$(call off_if_not_1,$(USE_ZLIB),-nozlib)
OFF_LIBS := $(OFF_LIBS)$(call off_if_not_1,$(USE_LIBCRYPT),-nocrypt)
BUILD ?= build/default$(OFF_LIBS)
OPTS_STAMP := build/options
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
MAIN_OBJ  := $(MAIN_SRC:%.c=$(BUILD)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/%.o)

.PHONY: all run test deps unit asan unit-asan integration integration-asan fuzz fuzz-replay bench bench-pick install uninstall clean \
	format-check examples-check

all: haproxy

haproxy: $(LIB_OBJS) $(MAIN_OBJ) $(OPTS_STAMP)
	$(CC) $(OPT_CFLAGS) $(ARCH_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)

# rewritten (so newer than the binaries) only when the options differ from the last link
.PHONY: FORCE
$(OPTS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(OPTIONS)' | cmp -s - $@ || echo '$(OPTIONS)' >$@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

UNIT_BIN ?= tests/unit/run
$(UNIT_BIN): $(LIB_OBJS) $(UNIT_OBJS) $(OPTS_STAMP)
	$(CC) $(OPT_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $(filter %.o,$^) $(LIBS)

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJ:.o=.d) $(UNIT_OBJS:.o=.d) $(BUILD)/bench/lb_pick.d \
	$(BUILD)/bench/tcpload.d

deps:
	@scripts/install-deps.sh

run: deps haproxy
	./haproxy -f examples/quickstart.cfg

unit: $(UNIT_BIN)
	./$(UNIT_BIN)

# Unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, in their own build tree.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
unit-asan:
	$(MAKE) BUILD=build/asan EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" \
		OPT_CFLAGS="-O1 -g" UNIT_BIN=tests/unit/run-asan tests/unit/run-asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./tests/unit/run-asan

asan: unit-asan
	$(MAKE) BUILD=build/asan EXTRA_CFLAGS="$(SAN_FLAGS)" EXTRA_LDFLAGS="$(SAN_FLAGS)" \
		OPT_CFLAGS="-O1 -g" haproxy-asan

haproxy-asan: $(LIB_OBJS) $(MAIN_OBJ)
	$(CC) $(OPT_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LIBS)

# Issue 3 checks: aarch64 cross build with LSE atomics checked in the disassembly and the unit
# tests run under qemu; ThreadSanitizer build ./haproxy-tsan and a threaded load under it.
.PHONY: check-arm64 tsan tsan-check
check-arm64:
	@scripts/check-arm64.sh

TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer
tsan:	# -Wno-tsan: gcc warns that TSan does not model HA_BARRIER's fence
	$(MAKE) BUILD=build/tsan EXTRA_CFLAGS="$(TSAN_FLAGS) -Wno-tsan" EXTRA_LDFLAGS="$(TSAN_FLAGS)" \
		OPT_CFLAGS="-O1 -g" haproxy-tsan

haproxy-tsan: $(LIB_OBJS) $(MAIN_OBJ)
	$(CC) $(OPT_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LIBS)

tsan-check: tsan
	@scripts/tsan-check.sh

# Debian's python3 with its pytest and pytest-xdist (scripts/install-deps.sh): the tests wait
# on sockets and timers far more than they compute, so PYTEST_JOBS processes share the cores
# (each test picks free ports of its own).
PYTEST ?= /usr/bin/python3 -m pytest -p no:cacheprovider
PYTEST_JOBS ?= 3
integration: haproxy
	$(PYTEST) -q -x -n $(PYTEST_JOBS) tests/integration

# The network attacks, and stops and reloads under load, against the ASan+UBSan binary (leaks
# checked at exit).
integration-asan: asan
	HAPROXY_BIN=$(CURDIR)/haproxy-asan ASAN_OPTIONS=detect_leaks=1 \
		$(PYTEST) -q -x -n 2 tests/integration/test_robustness.py tests/integration/test_reload.py

# quickstart.cfg must be valid; the users' configs may only be refused for known
# HAProxy keywords not implemented yet ("not supported yet"), each alert naming file:line.
examples-check: haproxy
	@scripts/examples-check.sh

format-check:
	@scripts/format-check.sh

# libFuzzer targets: `make fuzz` runs each for FUZZ_SECONDS; `fuzz-replay` replays the corpus.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
fuzz fuzz-replay:
	@scripts/fuzz.sh $@ $(FUZZ_SECONDS) $(FUZZ_TARGETS)

test: deps
	$(MAKE) haproxy
	$(MAKE) unit
	$(MAKE) unit-asan
	$(MAKE) fuzz-replay
	$(MAKE) format-check
	$(MAKE) examples-check
	$(MAKE) integration
	$(MAKE) integration-asan
	$(MAKE) check-arm64
	$(MAKE) tsan-check

bench: deps haproxy bench/lb_pick $(BUILD)/bench/tcpload
	@TCPLOAD=$(BUILD)/bench/tcpload bench/run.sh

# ns per server pick of each algorithm with 4, 64 and 1,000 servers (also run by make bench).
bench/lb_pick: $(LIB_OBJS) $(BUILD)/bench/lb_pick.o
	$(CC) $(OPT_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^ $(LIBS)

bench-pick: bench/lb_pick
	./bench/lb_pick

# only the Lua rows of make bench (BENCH_LUA=0 make bench skips them there): a trivial
# http-request lua.NAME action and a hello-world Lua service, instructions per request over
# no Lua and req/s, ours vs haproxy with the same script.
.PHONY: bench-lua
bench-lua: deps haproxy
	@bench/lua.sh

# only the cache rows of make bench (BENCH_CACHE=0 make bench skips them there): a cache
# hit, instructions per request ours vs haproxy (target <= 0.5) and req/s.
.PHONY: bench-cache
bench-cache: deps haproxy
	@bench/cache.sh

# only the compression rows of make bench (BENCH_COMP=0 make bench skips them there): a
# 100 KB HTML page through "compression algo gzip", ours vs haproxy (libslz): compressed
# sizes, req/s and CPU per response.
.PHONY: bench-comp
bench-comp: deps haproxy
	@bench/comp.sh

# only the TLS rows of make bench (BENCH_TLS=0 make bench skips them there)
.PHONY: bench-tls
bench-tls: deps haproxy
	@bench/tls.sh

# only the mode tcp rows of make bench (BENCH_TCP=0 make bench skips them there): 1 GiB
# through a listen section, with and without splice, and 64-byte echo exchanges.
.PHONY: bench-tcp
bench-tcp: deps haproxy $(BUILD)/bench/tcpload
	@TCPLOAD=$(BUILD)/bench/tcpload bench/tcp.sh

# the load generator and backend of bench/tcp.sh (C, epoll; links nothing of the proxy)
$(BUILD)/bench/tcpload: $(BUILD)/bench/tcpload.o
	$(CC) $(OPT_CFLAGS) $(EXTRA_LDFLAGS) -o $@ $^

# The binary, the documentation (no man page: doc/*.md) with the example configurations, and
# the systemd unit with the binary's and the documentation's installed paths substituted.
install: haproxy
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(DOCDIR)/internals $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 haproxy $(DESTDIR)$(SBINDIR)/haproxy
	install -m 0644 README doc/*.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 doc/internals/*.md $(DESTDIR)$(DOCDIR)/internals/
	install -m 0644 examples/*.cfg examples/haproxy.service $(DESTDIR)$(DOCDIR)/examples/
	sed -e 's|/usr/sbin/haproxy|$(SBINDIR)/haproxy|g' -e 's|/usr/share/doc/haproxy|$(DOCDIR)|g' \
		examples/haproxy.service > $(DESTDIR)$(SYSTEMDUNITDIR)/haproxy.service.tmp
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/haproxy.service.tmp
	mv -f $(DESTDIR)$(SYSTEMDUNITDIR)/haproxy.service.tmp $(DESTDIR)$(SYSTEMDUNITDIR)/haproxy.service

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/haproxy $(DESTDIR)$(SYSTEMDUNITDIR)/haproxy.service
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build haproxy haproxy-asan haproxy-tsan bench/lb_pick tests/unit/run tests/unit/run-asan tests/fuzz/bin

# libetl - read, write and decode Windows ETW .etl files on any OS.
#
#   make            build everything into build/: build/lib/libetl.{a,so},
#                   the tools in build/bin/ (etldump, etlconvert) and the
#                   tracing-runtime programs in build/programs/ (trace-demo, ...)
#   make run        install missing dependencies, build, run the tools on samples
#   make check      install missing dependencies, build, run every test
#   make help       list the targets
#
# Sanitizer build: make check SANITIZE=address,undefined (everything then goes
# to build-san/, leaving the normal build alone). O=DIR picks another build
# folder. V=1 shows the commands.

PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
MANDIR      ?= $(PREFIX)/share/man
PKGCONFIGDIR?= $(LIBDIR)/pkgconfig
INSTALL     ?= install
PKG_CONFIG  ?= pkg-config
CC          ?= cc
CLANG       ?= clang
ETL_CORPUS  ?= ../shared/corpus
export ETL_CORPUS

Q = $(if $(filter 1,$(V) $(VERBOSE)),,@)
comma := ,
# A make that `make run` / `make check` start prints nothing when there is
# nothing to build (no "Nothing to be done" lines), unless V=1.
# make run and make check build with every processor unless -j was given.
JOBS = $(if $(findstring j,$(filter-out --%,$(MAKEFLAGS))),,-j$(shell nproc 2>/dev/null || echo 1))
SUBMAKE = $(MAKE) $(JOBS) --no-print-directory $(if $(Q),-s)

VERSION := 0.1.0
SOVERSION := 0

DEPS_PKGS := zlib liblz4 libxml-2.0 hivex
# libxml2 is compiled against but not linked: lib/decode/xml_lib.c loads it
# with dlopen() on the first manifest (linking it costs every process the
# start-up of ICU, libstdc++ and liblzma). It is dlopen()ed by the SONAME of
# the libxml2 found here (Debian's newer libxml2 has another one).
LINK_PKGS := $(filter-out libxml-2.0,$(DEPS_PKGS))
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(DEPS_PKGS) 2>/dev/null)
# dlopen() is in libc from glibc 2.34; older ones need -ldl.
DL_LIBS := $(shell printf '\043include <dlfcn.h>\nint main(void) { return dlopen("", 0) != 0; }\n' | \
	$(CC) -x c -o /dev/null - 2>/dev/null || echo -ldl)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(LINK_PKGS) 2>/dev/null) $(DL_LIBS)
XML_LIBS   := $(shell $(PKG_CONFIG) --libs libxml-2.0 2>/dev/null)
XML_SONAME := $(shell readelf -d "$$($(PKG_CONFIG) --variable=libdir libxml-2.0 2>/dev/null)/libxml2.so" 2>/dev/null | \
	sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
XML_SONAME := $(or $(XML_SONAME),libxml2.so.2)
XML_DEFS   := -DETL_XML_SONAME='"$(XML_SONAME)"'
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

OPT ?= -O2
# The library itself: -O3, unless OPT is given (make OPT=-O0 for a debugger
# gets it everywhere). Its hot loops (rendering, decoding) run about 4 %
# fewer instructions than at -O2; bench/README.md has the figures.
LIB_OPT ?= $(if $(filter command line environment,$(origin OPT)),$(OPT),-O3)
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# Sources include public headers by name (include/) and internal headers by
# their path from the top of the tree ("lib/read/read_internal.h").
INCLUDES := -Iinclude -I.
BASE_CFLAGS := -std=c11 $(OPT) -g $(WARN) -D_DEFAULT_SOURCE -fPIC -fvisibility=hidden -pthread $(INCLUDES) $(PKG_CFLAGS)
ifneq ($(SANITIZE),)
O ?= build-san
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
# GCC warns that ThreadSanitizer does not model atomic_thread_fence; the
# runtime's fences pair with atomic accesses it does model.
ifneq ($(filter thread,$(subst $(comma), ,$(SANITIZE))),)
ifeq ($(shell $(CC) -Wno-tsan -x c -c -o /dev/null /dev/null 2>/dev/null && echo y),y)
SAN_FLAGS += -Wno-tsan
endif
endif
LTO ?= 0
else
O ?= build
SAN_FLAGS :=
# On by default where the compiler has fat LTO objects (GCC; clang has not).
LTO ?= $(shell $(CC) -Werror -flto=auto -ffat-lto-objects -x c -c -o /dev/null /dev/null 2>/dev/null && echo 1 || echo 0)
endif
# Link-time optimisation: the library is split into small files by subsystem,
# and the hot paths cross them (reader -> header codecs, decoder -> source
# decoders, output -> renderers). Library objects carry both LTO bytecode and
# ordinary code (-ffat-lto-objects): the tools, libetl.so and the benchmarks
# are linked with -flto and get the cross-file inlining; the test, fuzz
# replay and example programs link the ordinary code (-fno-lto: without it
# GCC's linker plugin optimises any link that holds LTO bytecode, some 9 s
# per test program), which keeps their builds fast. LTO=0 turns it off
# (sanitizer builds do).
ifeq ($(LTO),1)
LTO_CFLAGS := -flto=auto -ffat-lto-objects
LTO_LDFLAGS := -flto=auto $(LIB_OPT)
NO_LTO_LDFLAGS := -fno-lto
else
LTO_CFLAGS :=
LTO_LDFLAGS :=
NO_LTO_LDFLAGS :=
endif
ALL_CFLAGS := $(BASE_CFLAGS) $(SAN_FLAGS) $(CFLAGS)
# The tracing runtime (lib/trace/) runs a logger thread per session.
ALL_LDFLAGS := -pthread $(SAN_FLAGS) $(LDFLAGS)

OBJ := $(O)/obj
LIB_SRCS := $(sort $(shell find lib formats -name '*.c'))
LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(LIB_SRCS))
LIB_A    := $(O)/lib/libetl.a
LIB_SO   := $(O)/lib/libetl.so
PUBLIC_HEADERS := $(sort $(wildcard include/*.h))

CLI_TOOLS := $(patsubst cli/%.c,%,$(shell grep -l '^int main' cli/*.c 2>/dev/null))
CLI_SHARED := $(filter-out $(addprefix cli/,$(addsuffix .c,$(CLI_TOOLS))),$(wildcard cli/*.c))
CLI_SHARED_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(CLI_SHARED))
CLI_BINS := $(addprefix $(O)/bin/,$(CLI_TOOLS))

PROG_SRCS := $(wildcard testdata/programs/*.c)
PROG_BINS := $(patsubst testdata/programs/%.c,$(O)/programs/%,$(PROG_SRCS))

TEST_SRCS := $(wildcard tests/check_*.c)
TEST_BINS := $(patsubst tests/%.c,$(O)/tests/%,$(TEST_SRCS))
TEST_SHARED := $(filter-out $(TEST_SRCS),$(wildcard tests/*.c))
TEST_SHARED_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(TEST_SHARED))
# Tests that parse the renderers' XML with libxml2 themselves link it.
TEST_XML_BINS := $(patsubst tests/%.c,$(O)/tests/%,$(shell grep -l '<libxml/' $(TEST_SRCS) 2>/dev/null))
# LD_PRELOAD shims the CLI tests use (tests/shim/*.c), built without
# sanitizers: they are loaded before the sanitizers' runtimes.
SHIM_SRCS := $(wildcard tests/shim/*.c)
SHIM_LIBS := $(patsubst tests/shim/%.c,$(O)/tests/shim/%.so,$(SHIM_SRCS))

FUZZ_SRCS := $(wildcard fuzz/*_fuzzer.c)
FUZZ_NAMES := $(patsubst fuzz/%_fuzzer.c,%,$(FUZZ_SRCS))
FUZZ_REPLAY_BINS := $(patsubst %,$(O)/fuzz/%_replay,$(FUZZ_NAMES))
FUZZ_BINS := $(patsubst %,build-fuzz/%_fuzzer,$(FUZZ_NAMES))

BENCH_SRCS := $(wildcard bench/*_bench.c)
BENCH_BINS := $(patsubst bench/%.c,$(O)/bench/%,$(BENCH_SRCS))

# Intermediate objects stay, so a second make has nothing to rebuild.
.SECONDARY:

SAMPLE := testdata/sample/wsl-lxcore-tracelogging.etl
# The capture of Windows' scenarios (testdata/programs/sem-trace.c) make run replays through the SEM.
SEM_SAMPLE := testdata/sample/windows-scenarios.etl

.PHONY: all lib cli programs deps run check test-build fuzz bench install \
        install-lib install-headers install-pc install-man install-bin uninstall clean help

## all: build the library (static and shared), the command-line tools and test programs
all: lib cli programs

## lib: build build/lib/libetl.a and build/lib/libetl.so
lib: $(LIB_A) $(LIB_SO)

## cli: build the command-line tools into build/bin/
cli: $(CLI_BINS)

# Library objects see the internal headers and mark exports (include/etl_export.h).
$(LIB_OBJS): LIB_DEFS := -DETL_BUILDING_LIB=1 $(LIB_OPT) $(LTO_CFLAGS)
$(OBJ)/lib/decode/xml_lib.o: LIB_DEFS += $(XML_DEFS)

# Every object is rebuilt when the compiler or its flags change (OPT,
# LIB_OPT, CFLAGS, LTO): $(FLAGS_STAMP) holds the last ones and is rewritten
# only when they differ, so an unchanged build stays up to date.
FLAGS_STAMP := $(O)/compile-flags
FLAGS_NOW := $(CC) $(ALL_CFLAGS) $(LIB_OPT) $(LTO_CFLAGS) $(LTO_LDFLAGS) $(XML_DEFS) $(CHECK_CFLAGS)
ifneq ($(strip $(FLAGS_NOW)),$(strip $(file <$(FLAGS_STAMP))))
$(FLAGS_STAMP): FORCE
endif
# (Not under make -n, which expands recipes too but must change nothing.)
$(FLAGS_STAMP):
	$(if $(findstring n,$(firstword -$(MAKEFLAGS))),,$(shell mkdir -p $(@D))$(file >$@,$(FLAGS_NOW)))
FORCE:
.PHONY: FORCE

$(OBJ)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LIB_DEFS) -MMD -MP -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared -Wl,-soname,libetl.so.$(SOVERSION) $(ALL_LDFLAGS) $(LTO_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(O)/bin/%: $(OBJ)/cli/%.o $(CLI_SHARED_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(LTO_LDFLAGS) -o $@ $< $(CLI_SHARED_OBJS) $(LIB_A) $(PKG_LIBS) -lm

## programs: build the tracing-runtime programs testdata/programs/*.c into build/programs/
programs: $(PROG_BINS)

$(O)/programs/%: $(OBJ)/testdata/programs/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(NO_LTO_LDFLAGS) -o $@ $< $(LIB_A) $(PKG_LIBS) -lm

## deps: install missing build and test dependencies (Debian: apt-get)
deps:
	$(Q)sh .ci/install-deps

## run: install dependencies, build, and run the tools on bundled samples
run: deps
	+$(Q)$(SUBMAKE) all
	$(Q)echo "== etldump --header $(SAMPLE)"
	$(Q)./$(O)/bin/etldump --header $(SAMPLE)
	$(Q)echo "== etldump $(SAMPLE)"
	$(Q)./$(O)/bin/etldump $(SAMPLE)
	$(Q)echo "== etldump --summary $(SAMPLE)"
	$(Q)./$(O)/bin/etldump --summary $(SAMPLE)
	$(Q)echo "== trace-demo $(O)/trace-demo.etl (the tracing runtime: every write kind, two threads)"
	$(Q)./$(O)/programs/trace-demo $(O)/trace-demo.etl
	$(Q)./$(O)/bin/etldump --summary $(O)/trace-demo.etl
	$(Q)echo "== etlconvert -f text with the demo's manifest, TMF and MOF (every kind of event)"
	$(Q)./$(O)/bin/etlconvert -q -f text --manifest testdata/programs/trace-demo.man \
		--tmf testdata/programs/trace-demo.tmf --mof testdata/programs/trace-demo.mof \
		$(O)/trace-demo.etl -o $(O)/trace-demo.txt
	$(Q)sed -n '3,8p' $(O)/trace-demo.txt
	$(Q)echo "== $$(($$(wc -l < $(O)/trace-demo.txt) - 1)) records besides the header in $(O)/trace-demo.txt," \
		"$$(grep -c 'no schema' $(O)/trace-demo.txt || true) without a schema"
	$(Q)echo "== sem-demo $(O)/sem-demo (the Scenario Event Mapper: boot, logon, standby/resume, shutdown)"
	$(Q)./$(O)/programs/sem-demo $(O)/sem-demo
	$(Q)echo "== etldump --summary $(O)/sem-demo/DiagLog.etl (providers and events)"
	$(Q)./$(O)/bin/etldump --summary $(O)/sem-demo/DiagLog.etl | sed -n '/^providers/,/^$$/p;/^events/,/^$$/p'
	$(Q)echo "== etldump --summary $(O)/sem-demo/WdiContextLog.etl (providers)"
	$(Q)./$(O)/bin/etldump --summary $(O)/sem-demo/WdiContextLog.etl | sed -n '/^providers/,/^$$/p'
	$(Q)echo "== the SEM's status events in DiagLog, decoded with testdata/manifests/kernel-wdi.man"
	$(Q)./$(O)/bin/etlconvert -q -f jsonl --manifest testdata/manifests/kernel-wdi.man \
		$(O)/sem-demo/DiagLog.etl | sed -n 's/.*"TimeCreated":"\([^"]*\)".*"Message":"\([^"]*\)".*"EventName":"\(SEM_[^"]*\)".*/\1 \3: \2/p'
	$(Q)echo "== etlreplay $(SEM_SAMPLE) --config testdata/wdi/windows-default.reg (a captured trace through the SEM)"
	$(Q)rm -rf $(O)/sem-replay && mkdir -p $(O)/sem-replay
	$(Q)./$(O)/bin/etlreplay -q $(SEM_SAMPLE) -o $(O)/sem-replay/replayed.etl \
		--config testdata/wdi/windows-default.reg --report $(O)/sem-replay/report.json

$(OBJ)/tests/%.o: tests/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -MMD -MP -c $< -o $@

$(O)/tests/check_%: $(OBJ)/tests/check_%.o $(TEST_SHARED_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(NO_LTO_LDFLAGS) -o $@ $< $(TEST_SHARED_OBJS) $(LIB_A) $(CHECK_LIBS) $(PKG_LIBS) $(TEST_XML_LIBS) -lm

$(TEST_XML_BINS): TEST_XML_LIBS := $(XML_LIBS)

$(O)/tests/shim/%.so: tests/shim/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 $(OPT) $(WARN) -fPIC -shared $(CFLAGS) -o $@ $< $(DL_LIBS)

# Harnesses define only LLVMFuzzerTestOneInput, which libFuzzer declares.
$(OBJ)/fuzz/%.o: fuzz/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -MMD -MP -c $< -o $@

$(O)/fuzz/%_replay: $(OBJ)/fuzz/%_fuzzer.o $(OBJ)/fuzz/standalone_main.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(NO_LTO_LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(O)/bench/%: $(OBJ)/bench/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) $(LTO_LDFLAGS) -o $@ $< $(LIB_A) $(PKG_LIBS) -lm

## check: install dependencies, build, run the unit/corpus/CLI tests and replay the fuzz corpora
check: deps
	+$(Q)$(SUBMAKE) all test-build
	$(Q)CC="$(CC)" CXX="$(CXX)" ETL_SANITIZE="$(SANITIZE)" ETL_SAN_FLAGS="$(SAN_FLAGS)" \
		sh tests/run.sh $(O)

test-build: $(TEST_BINS) $(SHIM_LIBS) $(FUZZ_REPLAY_BINS) $(CLI_BINS) $(PROG_BINS)

## fuzz: build the libFuzzer harnesses with clang into build-fuzz/
fuzz: $(FUZZ_BINS)

# The library is compiled once with the fuzzing instrumentation (coverage
# without libFuzzer's main: fuzzer-no-link) into build-fuzz/libetl-fuzz.a,
# and each harness links against it.
FUZZ_SAN := address,undefined
FUZZ_CFLAGS := -std=c11 -O1 -g -D_DEFAULT_SOURCE -pthread $(INCLUDES) $(PKG_CFLAGS) -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(patsubst %.c,build-fuzz/obj/%.o,$(LIB_SRCS))
FUZZ_LIB := build-fuzz/libetl-fuzz.a

build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -DETL_BUILDING_LIB=1 $(FUZZ_DEFS) -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -MMD -MP -c $< -o $@

build-fuzz/obj/lib/decode/xml_lib.o: FUZZ_DEFS := $(XML_DEFS)

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

build-fuzz/%_fuzzer: fuzz/%_fuzzer.c $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -MMD -MP -o $@ $< $(FUZZ_LIB) $(PKG_LIBS) -lm

## bench: reading (bench/read), conversion (bench/convert), tracing-runtime (bench/runtime), compression (bench/compress) and replay (bench/replay) figures
bench: all $(BENCH_BINS)
	$(Q)BENCH_DIR=$(O)/bench sh bench/read && BENCH_DIR=$(O)/bench sh bench/convert && \
		BENCH_DIR=$(O)/bench sh bench/runtime && BENCH_DIR=$(O)/bench sh bench/compress && \
		BENCH_DIR=$(O)/bench sh bench/replay

## install: install library, headers, tools, man pages and libetl.pc under $(DESTDIR)$(PREFIX)
install: install-lib install-headers install-pc install-man install-bin

install-lib: lib
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libetl.a
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libetl.so.$(VERSION)
	ln -sf libetl.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libetl.so.$(SOVERSION)
	ln -sf libetl.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libetl.so

install-headers:
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/libetl
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/libetl/

install-pc: lib/libetl.pc.in
	$(INSTALL) -d $(DESTDIR)$(PKGCONFIGDIR)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's| *@DL_LIBS@|$(if $(DL_LIBS), $(strip $(DL_LIBS)))|' \
	    lib/libetl.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/libetl.pc

install-man:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	for f in man/*.1; do [ -f "$$f" ] && $(INSTALL) -m 644 $$f $(DESTDIR)$(MANDIR)/man1/; done; true
	for f in man/*.3; do [ -f "$$f" ] && $(INSTALL) -m 644 $$f $(DESTDIR)$(MANDIR)/man3/; done; true

install-bin: cli
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 755 $(CLI_BINS) $(DESTDIR)$(BINDIR)/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libetl.a $(DESTDIR)$(LIBDIR)/libetl.so*
	rm -rf $(DESTDIR)$(INCLUDEDIR)/libetl
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/libetl.pc
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(CLI_TOOLS))

## clean: remove everything the build made
clean:
	rm -rf build build-san build-fuzz

## help: list the targets
help:
	@grep -E '^## ' Makefile | sed 's/^## /  /'

-include $(shell find $(OBJ) build-fuzz -name '*.d' 2>/dev/null)

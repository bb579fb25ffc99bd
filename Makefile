# jevmon - build for Linux x86-64, Windows x64 and Windows x86 (MinGW-w64).
#
#   make deps    install what the project needs (apt, Check for MinGW, a Wine prefix)
#   make         build every target            make check   build and run every test
#   make demo    profile a sample workload     make bench   overhead against no agent
#   make install the Linux SDK under $(DESTDIR)$(PREFIX) (default /usr/local); make uninstall
#   make dist    build/dist/jevmon-win64.zip and jevmon-win32.zip, laid out like the old SDK
#   make fuzz    the libFuzzer targets, FUZZ_SECONDS each (default 60)
#   make sweep   the rewriter's full verification sweep over /usr/share/java and the JDKs
#
# Sources are found by where they live, so adding a file needs no edit here:
#   src/platform/posix*.c, src/platform/win32*.c   the platform layer of each system
#   src/common/*.c                                 what every system shares (GUIDs, .reg files, the log)
#   src/sdk/*.c                                    libjevsdk: what monitors link (every IID, self-registration)
#   src/cmd/*.c                                    Linux commands, one program per file
#   src/**/*.c (the rest)                          the JVMTI agent
#   jevprof/*.c                                    jevprof, the reference monitor
#   samples/<name>/*.c|*.cpp                       one legacy-style monitor per directory
#   tests/unit/test_*.c                            Check suites for every target; tests/D/test_X.c
#                                                  also links tests/D/X/*.c, tests/D/support/*.c
#                                                  and tests/support/*.c
#   tests/posix/test_*.c, tests/win/test_*.c       Check suites for Linux only, for Windows only
#   tests/jvm/test_*.c, tests/jvm/*.java           end-to-end suites on real JVMs (Linux)
#   tests/fixtures/<name>.c                        in-process COM servers the tests load
# A directory that holds <name>.def exports what it lists from its Windows DLL.

SHELL := /bin/bash
BUILD := build
DEPS_STAMP := $(BUILD)/deps/done.stamp

.PHONY: all check demo bench fuzz sweep install dist uninstall deps clean
# The sub-make builds on every core; tests still run one suite at a time (tools/run-tests.sh).
all check demo bench fuzz sweep install dist: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory -j$(shell nproc) -f Makefile _$@

# Removes what the manifest of the last make install under $(DESTDIR)$(PREFIX) lists.
uninstall:
	@bash tools/install.sh uninstall

deps $(DEPS_STAMP): tools/deps.sh
	@bash tools/deps.sh

clean:
	rm -rf $(BUILD)/linux $(BUILD)/win64 $(BUILD)/win32

# ---- Everything below runs in a sub-make, after deps are in place ------------------------
ifneq ($(filter-out all check demo bench fuzz sweep install dist uninstall deps clean,$(MAKECMDGOALS)),)

JDK_INC := $(shell d=$$(dirname $$(dirname $$(readlink -f $$(command -v javac)))); echo $$d/include)
SRC_ALL := $(shell find src -name '*.c' | sort)
PLAT_COMMON := $(wildcard src/common/*.c)
SDK_SRC := $(wildcard src/sdk/*.c)
CMD_SRC := $(wildcard src/cmd/*.c)
AGENT_SRC := $(filter-out src/platform/% src/common/% src/sdk/% src/cmd/%,$(SRC_ALL))
# jevprof's flame graph page is an HTML file of its own, made C data at build time (tools/embed.py).
JEVPROF_GEN := $(BUILD)/gen/jevprof/flame_page.c
JEVPROF_SRC := $(wildcard jevprof/*.c) $(JEVPROF_GEN)
$(JEVPROF_GEN): jevprof/flame.html tools/embed.py
	@mkdir -p $(dir $@)
	python3 tools/embed.py $< $@ jp_flame_page
SAMPLE_DIRS := $(patsubst %/,%,$(dir $(wildcard samples/*/*.c samples/*/*.cpp)))
SAMPLES := $(sort $(notdir $(SAMPLE_DIRS)))
FIXTURES := $(basename $(notdir $(wildcard tests/fixtures/*.c)))

WARN := -Wall -Wextra -Werror
COMMON_CFLAGS := -std=c11 $(WARN) -DCOBJMACROS -O2 -g -Iinclude -Isrc -I$(JDK_INC)
COMMON_CXXFLAGS := -std=c++11 $(WARN) -O2 -g -Iinclude

# ---- Per-target settings ----------------------------------------------------------------
linux_CC := gcc
linux_CXX := g++
# Hidden by default: a module exports only its entry points (Agent_OnLoad, STDAPI), so an agent and
# the monitors it loads never bind to each other's copies of the platform layer.  Thread-locals use
# the initial-exec model: the default for -fPIC calls __tls_get_addr on every access, a third of the
# instrumented method-call path's cost; the few hundred bytes fit glibc's static TLS reserve for dlopen.
linux_CFLAGS := $(COMMON_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -pthread -D_GNU_SOURCE -Iinclude/posix -I$(JDK_INC)/linux
linux_CXXFLAGS := $(COMMON_CXXFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -Iinclude/posix
linux_PLAT := $(PLAT_COMMON) $(wildcard src/platform/posix*.c)
linux_SYSLIBS := -ldl -pthread -lm
# jevprof gzips its pprof files with the system's zlib (src/platform/posix_gzip.c); the Windows
# targets have none and write stored blocks (win32_gzip.c), so only Linux links it.
linux_JEVPROF_LIBS := -lz
linux_SO := .so
linux_EXE :=
linux_AGENT := libjevmon.so
linux_CHECK_CFLAGS = $(shell pkg-config --cflags check)
linux_CHECK_LIBS = $(shell pkg-config --libs check)
linux_TESTDIRS := tests/unit tests/posix tests/jvm

win64_CC := x86_64-w64-mingw32-gcc
win64_CXX := x86_64-w64-mingw32-g++
win32_CC := i686-w64-mingw32-gcc
win32_CXX := i686-w64-mingw32-g++
WIN_CFLAGS := $(COMMON_CFLAGS) -Isrc/platform/jni_win32 -D_WIN32_WINNT=0x0601 -DCONST_VTABLE
WIN_SYSLIBS := -lole32 -loleaut32 -luuid -ladvapi32 -lshlwapi
WIN_LDFLAGS := -static-libgcc -Wl,--enable-stdcall-fixup
$(foreach t,win64 win32,$(eval $(t)_CFLAGS := $(WIN_CFLAGS)) \
  $(eval $(t)_CXXFLAGS := $(COMMON_CXXFLAGS) -static-libstdc++) \
  $(eval $(t)_PLAT := $(PLAT_COMMON) $(wildcard src/platform/win32*.c)) \
  $(eval $(t)_SYSLIBS := $(WIN_SYSLIBS)) $(eval $(t)_SO := .dll) $(eval $(t)_EXE := .exe) \
  $(eval $(t)_AGENT := jevmon.dll) \
  $(eval $(t)_CHECK_CFLAGS := -I$(BUILD)/deps/check-$(t)/include) \
  $(eval $(t)_CHECK_LIBS := -L$(BUILD)/deps/check-$(t)/lib -lcheck -static -lpthread) \
  $(eval $(t)_TESTDIRS := tests/unit tests/win) \
  $(eval $(t)_TEST_CFLAGS := -Wno-format))
# (Check's assertion macros print with C99 formats, which GCC checks against msvcrt's printf on MinGW.)

WHOLE := -Wl,--whole-archive
NO_WHOLE := -Wl,--no-whole-archive
NO_FLAGS :=
# Linux libraries are optimized across files at link time: the method-call path crosses a dozen
# small files (about 12% of the instrumented path).  Objects stay fat, so programs linked
# without LTO can use them too.
LTO := -flto=auto -O2
linux_PRODUCT_FLAGS := $(LTO) -ffat-lto-objects
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

# $(call def_of,dir): the .def file a Windows DLL built from dir exports, if there is one.
def_of = $(wildcard $(1)/*.def)

# ---- Rules for one target: $(1) = linux | win64 | win32, $(2) = output dir, $(3) = name of a variable of extra flags
define target_rules
$(2)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$$($(1)_CC) $$($(1)_CFLAGS) $$($(3)) $$($(1)_CHECK_CFLAGS) $$(TEST_CFLAGS) -MMD -MP -c $$< -o $$@
$(2)/obj/%.o: %.cpp
	@mkdir -p $$(@D)
	$$($(1)_CXX) $$($(1)_CXXFLAGS) $$($(3)) -MMD -MP -c $$< -o $$@

$(2)/obj/tests/%.o: TEST_CFLAGS := $$($(1)_TEST_CFLAGS)

$(2)/libjevplat.a: $$(patsubst %.c,$(2)/obj/%.o,$$($(1)_PLAT))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_CC:gcc=ar) rcs $$@ $$^
$(2)/libjevsdk.a: $$(patsubst %.c,$(2)/obj/%.o,$$(SDK_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_CC:gcc=ar) rcs $$@ $$^
$(2)/libjevagent.a: $$(patsubst %.c,$(2)/obj/%.o,$$(AGENT_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_CC:gcc=ar) rcs $$@ $$^
$(2)/libjevprof.a: $$(patsubst %.c,$(2)/obj/%.o,$$(JEVPROF_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_CC:gcc=ar) rcs $$@ $$^
-include $$(shell find $(2)/obj -name '*.d' 2>/dev/null)
endef

# Shared-library link: $(1) target, $(2) output, $(3) objects/libs, $(4) .def (Windows)
link_so = $($(1)_CC) -shared $(if $(filter linux,$(1)),$(LTO),$(WIN_LDFLAGS) $(4)) -o $(2) $(3) $($(1)_SYSLIBS)

define product_rules
$(eval $(call target_rules,$(1),$(BUILD)/$(1),$(1)_PRODUCT_FLAGS))

$(BUILD)/$(1)/$($(1)_AGENT): $(BUILD)/$(1)/libjevagent.a $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$(call link_so,$(1),$$@,$$(WHOLE) $(BUILD)/$(1)/libjevagent.a $$(NO_WHOLE) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a,)

$(BUILD)/$(1)/$(if $(filter linux,$(1)),libjevprof.so,jevprof.dll): $(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$(JEVPROF_SRC)) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$(call link_so,$(1),$$@,$$(filter %.o,$$^) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a $($(1)_JEVPROF_LIBS),$(call def_of,jevprof))

$(foreach s,$(SAMPLES),$(eval $(call sample_rules,$(1),$(s))))
$(foreach f,$(FIXTURES),$(eval $(call fixture_rules,$(1),$(f))))
$(foreach c,$(CMD_SRC),$(if $(filter linux,$(1)),$(eval $(call cmd_rules,$(1),$(c)))))

$(1)_PRODUCTS := $(BUILD)/$(1)/$($(1)_AGENT) \
  $(if $(JEVPROF_SRC),$(BUILD)/$(1)/$(if $(filter linux,$(1)),libjevprof.so,jevprof.dll)) \
  $(foreach s,$(SAMPLES),$(BUILD)/$(1)/samples/$(s)$($(1)_SO)) \
  $(if $(filter linux,$(1)),$(foreach c,$(CMD_SRC),$(BUILD)/$(1)/$(basename $(notdir $(c)))))
endef

define sample_rules
$(2)_SRC := $(wildcard samples/$(2)/*.c samples/$(2)/*.cpp)
$(BUILD)/$(1)/samples/$(2)$($(1)_SO): $$(patsubst %,$(BUILD)/$(1)/obj/%.o,$$(basename $$($(2)_SRC))) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	@mkdir -p $$(@D)
	$$(if $$(filter %.cpp,$$($(2)_SRC)),$$($(1)_CXX) -shared $$($(1)_CXXFLAGS),$$($(1)_CC) -shared) \
	  $(if $(filter linux,$(1)),,$(WIN_LDFLAGS) $(call def_of,samples/$(2))) -o $$@ $$(filter %.o,$$^) \
	  $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a $($(1)_SYSLIBS)
endef

define fixture_rules
$(BUILD)/$(1)/fixtures/$(2)$($(1)_SO): $(BUILD)/$(1)/obj/tests/fixtures/$(2).o $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	@mkdir -p $$(@D)
	$$(call link_so,$(1),$$@,$$(filter %.o,$$^) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a,$(wildcard tests/fixtures/$(2).def))
endef

define cmd_rules
$(BUILD)/$(1)/$(basename $(notdir $(2))): $(BUILD)/$(1)/obj/$(basename $(2)).o $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$($(1)_CC) -o $$@ $$^ $($(1)_SYSLIBS)
endef

# $(call jevprof_lib,test source,output dir): jevprof's objects, for its own suites (test_jevprof_*).
jevprof_lib = $(if $(filter test_jevprof_%,$(basename $(notdir $(1)))),$(2)/libjevprof.a)
# Test suites: $(1) target, $(2) output dir of that build, $(3) extra flags; one program per file
define test_rule
$(2)/tests/$(basename $(notdir $(4)))$($(1)_EXE): $(2)/obj/$(basename $(4)).o \
    $(patsubst %.c,$(2)/obj/%.o,$(wildcard $(dir $(4))$(patsubst test_%,%,$(basename $(notdir $(4))))/*.c)) \
    $(patsubst %.c,$(2)/obj/%.o,$(wildcard $(dir $(4))support/*.c tests/support/*.c)) \
    $(call jevprof_lib,$(4),$(2)) $(2)/libjevagent.a $(2)/libjevsdk.a $(2)/libjevplat.a
	@mkdir -p $$(@D)
	$$($(1)_CC) $$($(3)) -o $$@ $$(filter %.o,$$^) $(call jevprof_lib,$(4),$(2)) $(2)/libjevagent.a $(2)/libjevsdk.a $(2)/libjevplat.a \
	  $$($(1)_CHECK_LIBS) $(if $(call jevprof_lib,$(4),$(2)),$$($(1)_JEVPROF_LIBS)) $$($(1)_SYSLIBS)
endef
define test_rules
$(1)_TEST_SRC := $(wildcard $(addsuffix /test_*.c,$($(1)_TESTDIRS)))
$(1)_TESTS := $$(foreach s,$$($(1)_TEST_SRC),$(2)/tests/$$(basename $$(notdir $$(s)))$($(1)_EXE))
$$(foreach s,$$($(1)_TEST_SRC),$$(eval $$(call test_rule,$(1),$(2),$(3),$$(s))))
endef

$(foreach t,linux win64 win32,$(eval $(call product_rules,$(t))))

# idl/jevmon.idl through each Windows target's widl, a product of that target; the
# companions of tests/win/test_idl_agreement include the header to compare it with jevmon.h.
# unknwn.idl and what it imports come with Wine's development files (libwine-dev).
WIDL_IMPORTS := $(firstword $(wildcard /usr/include/wine/wine/windows /usr/include/wine/windows))
IDL_COMPANIONS := $(wildcard tests/win/idl_agreement/*.c)
define idl_rules
$(BUILD)/$(1)/idl/jevmon_idl.h: idl/jevmon.idl
	@mkdir -p $$(@D)
	$($(1)_CC:gcc=widl) -I$$(or $$(WIDL_IMPORTS),$$(error no unknwn.idl for widl: install libwine-dev)) -h -o $$@ $$<
$(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$(IDL_COMPANIONS)): $(BUILD)/$(1)/idl/jevmon_idl.h
$(BUILD)/$(1)/obj/tests/win/idl_agreement/%.o: $(1)_CFLAGS += -I$(BUILD)/$(1)/idl
$(1)_PRODUCTS += $(BUILD)/$(1)/idl/jevmon_idl.h
endef
$(foreach t,win64 win32,$(eval $(call idl_rules,$(t))))
$(eval $(call target_rules,linux,$(BUILD)/linux/asan,SAN))
$(eval $(call test_rules,linux,$(BUILD)/linux/asan,SAN))

# The agent, jevprof and the test monitors built with the sanitizers, laid out as build/linux is
# (java/ is build/linux's), for the JVM suites tools/run-tests.sh runs again inside sanitized JVMs.
ASAN_DIR := $(BUILD)/linux/asan
san_link = $(linux_CC) -shared $(SAN) -o $(1) $(2) $(linux_SYSLIBS)
$(ASAN_DIR)/libjevmon.so: $(ASAN_DIR)/libjevagent.a $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a
	$(call san_link,$@,$(WHOLE) $(ASAN_DIR)/libjevagent.a $(NO_WHOLE) $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a)
$(ASAN_DIR)/libjevprof.so: $(patsubst %.c,$(ASAN_DIR)/obj/%.o,$(JEVPROF_SRC)) $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a
	$(call san_link,$@,$(filter %.o,$^) $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a $(linux_JEVPROF_LIBS))
$(foreach f,$(FIXTURES),$(ASAN_DIR)/fixtures/$(f).so): $(ASAN_DIR)/fixtures/%.so: $(ASAN_DIR)/obj/tests/fixtures/%.o $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a
	@mkdir -p $(@D)
	$(call san_link,$@,$< $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a)
$(ASAN_DIR)/java:
	@mkdir -p $(@D)
	ln -sfn ../java $@
SANITIZED_JVM_FILES := $(ASAN_DIR)/libjevmon.so $(ASAN_DIR)/libjevprof.so $(ASAN_DIR)/java \
  $(foreach f,$(FIXTURES),$(ASAN_DIR)/fixtures/$(f).so)
$(eval $(call test_rules,win64,$(BUILD)/win64,NO_FLAGS))
$(eval $(call test_rules,win32,$(BUILD)/win32,NO_FLAGS))

# The unit suites once more with x87 math (-mfpmath=387 on x86-64: FLT_EVAL_METHOD 2, the excess
# precision of MinGW on x86), so that a comparison only x86 would fail fails on machines that cannot
# run the win32 suites too.  Linux's settings otherwise, without sanitizers or LTO, to build quickly.
X87 := -mfpmath=387
$(foreach v,CC CXX CFLAGS CXXFLAGS PLAT SYSLIBS JEVPROF_LIBS EXE CHECK_CFLAGS CHECK_LIBS,$(eval x87_$(v) = $$(linux_$(v))))
x87_TESTDIRS := tests/unit
$(eval $(call target_rules,x87,$(BUILD)/linux/x87,X87))
$(eval $(call test_rules,x87,$(BUILD)/linux/x87,X87))

# Java workloads of the end-to-end tests and the samples, compiled once for every JDK >= 17.
# SpecWorkload$Gone is deleted: its program loads a class that is not there.
JAVA_SRC := $(wildcard tests/jvm/workloads/*.java samples/java/*.java)
$(BUILD)/linux/java/classes.stamp: $(JAVA_SRC)
	@mkdir -p $(@D)
	javac --release 17 -d $(@D) $^
	rm -f '$(@D)/jevmon/test/SpecWorkload$$Gone.class'
	@touch $@

# The API header compiled the ways a monitor's source may use it: C89 and C++98, every target;
# then linked as monitors link, every symbol resolved: header_c89.c (no <initguid.h>) with
# libjevsdk, header_cxx.cpp (<initguid.h>) alone, and both with every member of libjevsdk.
API_HEADERS := include/jevmon.h include/jevmon_cobj.h include/jevmon_compat.h tests/api/static_checks.h
api_link = $($(1)_CXX) -shared $(if $(filter linux,$(1)),-Wl$(comma)--no-undefined,$(WIN_LDFLAGS) -static-libstdc++) -o $(2) $(3) $($(1)_SYSLIBS)
comma := ,
define api_check_rules
$(BUILD)/$(1)/api/header_c89.o: tests/api/header_c89.c $(API_HEADERS)
	@mkdir -p $$(@D)
	$$($(1)_CC) -std=c89 -pedantic $(WARN) -Iinclude $(if $(filter linux,$(1)),-Iinclude/posix -fPIC) -c $$< -o $$@
$(BUILD)/$(1)/api/header_cxx.o: tests/api/header_cxx.cpp $(API_HEADERS)
	@mkdir -p $$(@D)
	$$($(1)_CXX) -std=c++98 $(WARN) -Iinclude $(if $(filter linux,$(1)),-Iinclude/posix -fPIC) -c $$< -o $$@
$(BUILD)/$(1)/api/iids_from_sdk$($(1)_SO): $(BUILD)/$(1)/api/header_c89.o $(BUILD)/$(1)/libjevsdk.a
	$$(call api_link,$(1),$$@,$$^)
$(BUILD)/$(1)/api/iids_from_initguid$($(1)_SO): $(BUILD)/$(1)/api/header_cxx.o
	$$(call api_link,$(1),$$@,$$^)
$(BUILD)/$(1)/api/iids_from_both$($(1)_SO): $(BUILD)/$(1)/api/header_c89.o $(BUILD)/$(1)/api/header_cxx.o $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$(call api_link,$(1),$$@,$$(filter %.o,$$^) $$(WHOLE) $(BUILD)/$(1)/libjevsdk.a $$(NO_WHOLE) $(BUILD)/$(1)/libjevplat.a)
$(1)_PRODUCTS += $(foreach f,iids_from_sdk iids_from_initguid iids_from_both,$(BUILD)/$(1)/api/$(f)$($(1)_SO))
endef
$(foreach t,linux win64 win32,$(eval $(call api_check_rules,$(t))))

FIXTURE_FILES = $(foreach t,linux win64 win32,$(foreach f,$(FIXTURES),$(BUILD)/$(t)/fixtures/$(f)$($(t)_SO)))

.PHONY: _all _check _demo _bench _fuzz _sweep _install _dist
_all: $(linux_PRODUCTS) $(win64_PRODUCTS) $(win32_PRODUCTS)
	@python3 tools/gen-cobj.py --check

_check: _all $(FIXTURE_FILES) $(SANITIZED_JVM_FILES) $(BUILD)/linux/java/classes.stamp $(linux_TESTS) $(x87_TESTS) $(win64_TESTS) $(win32_TESTS)
	@bash tools/run-tests.sh

_demo: _all $(BUILD)/linux/java/classes.stamp
	@bash tools/demo.sh

# Every class of every jar under /usr/share/java and of the JDK loaded and linked with and without
# the agent in calls mode, on every JDK (tools/link-sweep.sh; `make check` runs a fixed sample).
_sweep: $(BUILD)/linux/libjevmon.so $(BUILD)/linux/libjevprof.so $(BUILD)/linux/java/classes.stamp
	@status=0; for jdk in $$(for d in /usr/lib/jvm/*/; do [ -x $$d/bin/java ] && readlink -f $$d; done | sort -u); do 	  bash tools/link-sweep.sh $$jdk $(BUILD)/sweep/$$(basename $$jdk) full || status=1; done; exit $$status

# PREFIX and DESTDIR reach tools/install.sh through the environment (make exports command-line variables).
_install _dist: _all
	@bash tools/install.sh $(@:_%=%)

# libFuzzer targets (clang): tests/fuzz/fuzz_NAME.c over the oracles of tests/posix/fuzz_oracles/,
# which test_fuzz_oracles replays in `make check`; the sources each target parses with.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=c11 $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DCOBJMACROS -D_GNU_SOURCE -Iinclude -Iinclude/posix -Isrc -Itests/posix/fuzz_oracles
FUZZ_TARGETS := regfile classfile
regfile_FUZZ_SRC := src/common/regfile.c src/common/guid.c src/common/log.c
classfile_FUZZ_SRC := $(wildcard src/classfile/*.c) src/common/log.c
define fuzz_rule
$(BUILD)/linux/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c tests/posix/fuzz_oracles/$(1).c $($(1)_FUZZ_SRC)
	@mkdir -p $$(@D)
	clang $(FUZZ_CFLAGS) -o $$@ $$^
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

_fuzz: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/linux/fuzz/fuzz_$(t))
	@bash tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

_bench: _all $(BUILD)/linux/fixtures/fx_heapmon.so $(BUILD)/linux/fixtures/fx_sampler.so $(BUILD)/linux/fixtures/fx_silent.so $(BUILD)/linux/fixtures/fx_vthreads.so $(BUILD)/linux/java/classes.stamp
	@bash tools/bench.sh

endif

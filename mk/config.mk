# mk/config.mk - what is built from where, and each target's tools and flags: linux, win64, win32 (and x87, in tests.mk).
# (included by the Makefile's sub-make, in the order it lists)

JDK_INC := $(shell d=$$(dirname $$(dirname $$(readlink -f $$(command -v javac)))); echo $$d/include)
SRC_ALL := $(shell find src -name '*.c' | sort)
PLAT_COMMON := $(wildcard src/common/*.c)
SDK_SRC := $(wildcard src/sdk/*.c)
CMD_SRC := $(wildcard src/cmd/*.c)
CMD_SCRIPTS := $(wildcard src/cmd/*.sh)
AGENT_SRC := $(filter-out src/platform/% src/common/% src/sdk/% src/cmd/%,$(SRC_ALL))
# jevprof's flame graph page is an HTML file of its own, made C data at build time (tools/embed.py).
JEVPROF_GEN := $(BUILD)/gen/jevprof/flame_page.c
JEVPROF_SRC := $(wildcard monitor/*.c) $(JEVPROF_GEN)
$(JEVPROF_GEN): monitor/flame.html tools/embed.py
	@mkdir -p $(dir $@)
	python3 tools/embed.py $< $@ jp_flame_page
SAMPLE_DIRS := $(patsubst %/,%,$(dir $(wildcard samples/*/*.c samples/*/*.cpp)))
SAMPLES := $(sort $(notdir $(SAMPLE_DIRS)))
# Test monitors and COM servers: tests/<subject>/fx_<name>.c, each a library of its own.
FIXTURE_SRC := $(wildcard tests/*/fx_*.c)
FIXTURES := $(basename $(notdir $(FIXTURE_SRC)))
fixture_src = $(filter %/$(1).c,$(FIXTURE_SRC))
# Test code finds tests/support/ as "support/..." and the fixtures' shared headers by name.
TEST_INCLUDES := -Itests -Itests/support

WARN := -Wall -Wextra -Werror
COMMON_CFLAGS := -std=c11 $(WARN) -DCOBJMACROS -O2 -g -Iinclude -Isrc -I$(JDK_INC)
COMMON_CXXFLAGS := -std=c++11 $(WARN) -O2 -g -Iinclude

# ---- Per-target settings ----------------------------------------------------------------
linux_CC := gcc
linux_CXX := g++
linux_AR := ar
# Hidden by default: a module exports only its entry points (Agent_OnLoad, STDAPI), so an agent and
# the monitors it loads never bind to each other's copies of the platform layer.  Thread-locals use
# the initial-exec model: the default for -fPIC calls __tls_get_addr on every access, a third of the
# instrumented method-call path's cost; the few hundred bytes fit glibc's static TLS reserve for dlopen.
linux_CFLAGS := $(COMMON_CFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -pthread -D_GNU_SOURCE -Iinclude/posix -I$(JDK_INC)/linux
linux_CXXFLAGS := $(COMMON_CXXFLAGS) -fPIC -fvisibility=hidden -ftls-model=initial-exec -Iinclude/posix
linux_PLAT := $(PLAT_COMMON) $(wildcard src/platform/posix*.c)
# libdw, for native frames' call frame information, is loaded at the first rule asked for
# (src/platform/posix_cfi.c); their C++ names are demangled by libstdc++, loaded when the first is
# named (src/platform/posix_symbols.c).
linux_SYSLIBS := -ldl -pthread -lm
# jevprof gzips its pprof files with the system's zlib (src/platform/posix_gzip.c); the Windows
# targets have none and write stored blocks (win32_gzip.c), so only Linux links it.
linux_JEVPROF_LIBS := -lz
linux_SO := .so
linux_EXE :=
linux_AGENT := libjevmon.so
linux_CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
linux_CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)
linux_TAGS := unit posix jvm

win64_CC := x86_64-w64-mingw32-gcc
win64_CXX := x86_64-w64-mingw32-g++
win64_AR := x86_64-w64-mingw32-ar
win64_WIDL := x86_64-w64-mingw32-widl
win32_CC := i686-w64-mingw32-gcc
win32_CXX := i686-w64-mingw32-g++
win32_AR := i686-w64-mingw32-ar
win32_WIDL := i686-w64-mingw32-widl
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
  $(eval $(t)_TAGS := unit win) \
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

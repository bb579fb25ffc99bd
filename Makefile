# jevmon - build for Linux x86-64, Windows x64 and Windows x86 (MinGW-w64).
#
#   make deps    install what the project needs (apt, Check for MinGW, a Wine prefix)
#   make         build every target            make check   build and run every test
#   make demo    profile a sample workload     make bench   overhead against no agent
#   make test T=<subject>   one subject's suites (tests/<subject>/) on Linux against one JDK;
#                TARGETS='linux x87 win64 win32 sanitized' picks where, JDK=/usr/lib/jvm/... which JDK
#   make install the Linux SDK under $(DESTDIR)$(PREFIX) (default /usr/local); make uninstall
#   make dist    build/dist/jevmon-win64.zip and jevmon-win32.zip, laid out like the old SDK
#   make fuzz    the libFuzzer targets, FUZZ_SECONDS each (default 60)
#   make sweep   the rewriter's full verification sweep over /usr/share/java and the JDKs
#
# Sources are found by where they live, so adding a file needs no edit here:
#   src/platform/posix*.c, src/platform/win32*.c   the platform layer of each system
#   src/common/*.c                                 what every system shares (GUIDs, .reg files, the log,
#                                                  the chunked array)
#   src/sdk/*.c                                    libjevsdk: what monitors link (every IID, self-registration)
#   src/cmd/*.c, *.sh                              Linux commands, one program per file
#   src/**/*.c (the rest)                          the JVMTI agent
#   monitor/*.c                                    jevprof, the reference monitor
#   samples/<name>/*.c|*.cpp                       one legacy-style monitor per directory
#   tests/<subject>/test_*.c                       Check suites, one program per file; where each runs
#                                                  (every target, Linux, Windows, real JVMs) is its
#                                                  tag in mk/tests.mk, which a new suite needs
#   tests/<subject>/fx_*.c                         in-process COM servers and monitors the tests load
#   tests/<subject>/*.java                         the Java workloads of the end-to-end suites
#   tests/support/                                 what the suites share (testkit, JVMs, fixtures' parts)
#   bench/                                         make bench: bench.sh, its probes and workloads
# A directory that holds <name>.def exports what it lists from its Windows DLL.
#
# The rules live in mk/ by concern: config.mk (sources, each target's tools and flags),
# products.mk, tests.mk, fuzz.mk; the goals stay here.

SHELL := /bin/bash
BUILD := build
DEPS_STAMP := $(BUILD)/deps/done.stamp
DEMO_DEPS_STAMP := $(BUILD)/deps/demo.stamp

.PHONY: all check demo bench fuzz sweep install dist test uninstall deps clean
# The sub-make builds on every core; tests still run one suite at a time (tools/run-tests.sh).
all check bench fuzz sweep install dist test: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory -j$(shell nproc) -f Makefile _$@
# The Linux demo waits only for the Linux build's packages: no MinGW, Wine, Check or Chromium.
demo: $(DEMO_DEPS_STAMP)
	@$(MAKE) --no-print-directory -j$(shell nproc) -f Makefile _$@

# Removes what the manifest of the last make install under $(DESTDIR)$(PREFIX) lists.
uninstall:
	@bash tools/install.sh uninstall

deps $(DEPS_STAMP): tools/deps.sh
	@bash tools/deps.sh
$(DEMO_DEPS_STAMP): tools/deps.sh
	@bash tools/deps.sh demo

clean:
	rm -rf $(BUILD)/linux $(BUILD)/win64 $(BUILD)/win32

# ---- Everything below runs in a sub-make, after deps are in place ------------------------
ifneq ($(filter-out all check demo bench fuzz sweep install dist test uninstall deps clean,$(MAKECMDGOALS)),)

include mk/config.mk mk/products.mk mk/tests.mk mk/fuzz.mk

.PHONY: _all _check _demo _bench _fuzz _sweep _install _dist _test
_all: $(linux_PRODUCTS) $(win64_PRODUCTS) $(win32_PRODUCTS)
	@python3 tools/gen-cobj.py --check

_check: _all $(FIXTURE_FILES) $(SANITIZED_JVM_FILES) $(BUILD)/linux/java/classes.stamp $(linux_TESTS) $(x87_TESTS) $(win64_TESTS) $(win32_TESTS)
	@bash tools/run-tests.sh

# What bin/jevprof runs, and the workload: nothing of the Windows targets.
_demo: $(BUILD)/linux/libjevmon.so $(BUILD)/linux/libjevprof.so $(BUILD)/linux/jevprof $(BUILD)/linux/jevprof-pid \
  $(BUILD)/linux/jevprof-attach $(BUILD)/linux/java/classes.stamp
	@bash tools/demo.sh

# One subject's suites (mk/tests.mk), each target's programs and what they load, then only those run.
_test: $(foreach t,$(TARGETS),$(T_NEEDS_$(t)))
	@echo "make test: $(T) ($(T_SUITES)) on $(TARGETS)$(if $(filter linux,$(TARGETS)), with $(JDK))"
	@JEVMON_TESTS='$(T_FILTER)' JEVMON_TEST_JDK=$(JDK) bash tools/run-tests.sh

# Every class of every jar under /usr/share/java and of the JDK loaded and linked with and without
# the agent in calls mode, on every JDK (tools/link-sweep.sh; `make check` runs a fixed sample).
_sweep: $(BUILD)/linux/libjevmon.so $(BUILD)/linux/libjevprof.so $(BUILD)/linux/java/classes.stamp
	@status=0; for jdk in $$(for d in /usr/lib/jvm/*/; do [ -x $$d/bin/java ] && readlink -f $$d; done | sort -u); do 	  bash tools/link-sweep.sh $$jdk $(BUILD)/sweep/$$(basename $$jdk) full || status=1; done; exit $$status

# PREFIX and DESTDIR reach tools/install.sh through the environment (make exports command-line variables).
_install _dist: _all
	@bash tools/install.sh $(@:_%=%)

_bench: _all $(BUILD)/linux/fixtures/fx_heapmon.so $(BUILD)/linux/fixtures/fx_sampler.so $(BUILD)/linux/fixtures/fx_silent.so $(BUILD)/linux/fixtures/fx_vthreads.so $(BUILD)/linux/java/classes.stamp
	@bash bench/bench.sh

endif

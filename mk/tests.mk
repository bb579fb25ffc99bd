# mk/tests.mk - the Check suites of each target (and sanitized, and with x87 math), the sanitized agent for the JVM suites, and the Java workloads.
# (included by the Makefile's sub-make, in the order it lists)

# What a suite links besides its own file, tests/support/*.c, its folder's support/*.c and the
# agent's libraries, named here suite by suite: <suite>_SOURCES, its companion sources; and
# jevprof's library for the suites in JEVPROF_SUITES.
test_classfile_SOURCES := $(wildcard tests/unit/classfile/*.c)
test_samples_SOURCES := $(wildcard tests/jvm/samples/*.c)
test_fuzz_oracles_SOURCES := $(wildcard tests/fuzz/oracles/*.c)
test_idl_agreement_SOURCES := $(IDL_COMPANIONS)
JEVPROF_SUITES := test_jevprof_callstack test_jevprof_config test_jevprof_pprof test_jevprof_tree \
  test_jevprof_writers test_jevprof_cli test_jevprof_files
# $(call jevprof_lib,test source,output dir): jevprof's library, for the suites that link it.
jevprof_lib = $(if $(filter $(JEVPROF_SUITES),$(basename $(notdir $(1)))),$(2)/libjevprof.a)
# Test suites: $(1) target, $(2) output dir of that build, $(3) extra flags; one program per file
define test_rule
$(2)/tests/$(basename $(notdir $(4)))$($(1)_EXE): $(2)/obj/$(basename $(4)).o \
    $(patsubst %.c,$(2)/obj/%.o,$($(basename $(notdir $(4)))_SOURCES)) \
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
# bin/jevprof's attach client, beside them (JEVPROF_LIBDIR names the directory).
$(ASAN_DIR)/jevprof-attach: $(ASAN_DIR)/obj/src/cmd/jevprof-attach.o
	$(linux_CC) $(SAN) -o $@ $<
SANITIZED_JVM_FILES := $(ASAN_DIR)/libjevmon.so $(ASAN_DIR)/libjevprof.so $(ASAN_DIR)/jevprof-attach $(ASAN_DIR)/java \
  $(foreach f,$(FIXTURES),$(ASAN_DIR)/fixtures/$(f).so)
$(eval $(call test_rules,win64,$(BUILD)/win64,NO_FLAGS))
$(eval $(call test_rules,win32,$(BUILD)/win32,NO_FLAGS))

# The unit suites once more with x87 math (-mfpmath=387 on x86-64: FLT_EVAL_METHOD 2, the excess
# precision of MinGW on x86), so that a comparison only x86 would fail fails on machines that cannot
# run the win32 suites too.  Linux's settings otherwise, without sanitizers or LTO, to build quickly.
X87 := -mfpmath=387
$(foreach v,CC CXX AR CFLAGS CXXFLAGS PLAT SYSLIBS JEVPROF_LIBS EXE CHECK_CFLAGS CHECK_LIBS,$(eval x87_$(v) = $$(linux_$(v))))
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

# NativeWorkload's JNI library (test_native_frames), built with frame pointers.
$(BUILD)/linux/java/libjevnative.so: tests/jvm/workloads/jni/jevnative.c
	@mkdir -p $(@D)
	$(linux_CC) -std=c11 $(WARN) -O2 -fno-omit-frame-pointer -fPIC -shared -I$(JDK_INC) -I$(JDK_INC)/linux -o $@ $<
SANITIZED_JVM_FILES += $(BUILD)/linux/java/libjevnative.so

FIXTURE_FILES = $(foreach t,linux win64 win32,$(foreach f,$(FIXTURES),$(BUILD)/$(t)/fixtures/$(f)$($(t)_SO)))

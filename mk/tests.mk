# mk/tests.mk - the Check suites of each target (and sanitized, and with x87 math), the sanitized agent for the JVM suites, the Java workloads, and `make test`.
# (included by the Makefile's sub-make, in the order it lists)

# A suite is tests/<subject>/test_<name>.c: its folder is the subject it tests (tests/README.md).
# Where it runs is its tag, one list per tag; a suite has exactly one of the first four:
#   unit       every target: Linux (ASan+UBSan), again with x87 math, Windows x64 and x86 under Wine
#   posix      Linux only
#   win        Windows x64 and x86, under Wine
#   jvm        Linux, on real JVMs: every JDK under /usr/lib/jvm (JEVMON_TEST_JDK picks one)
#   sanitized  jvm suites that run once more inside sanitized JVMs (tools/run-tests.sh)
TAG_unit := test_capabilities test_chunked_array test_classfile test_classfile_branches test_codemap test_guid \
  test_jevprof_callstack test_jevprof_config test_jevprof_pprof test_jevprof_tree test_jevprof_writers \
  test_lifecycle test_output_files test_regfile test_regfile_errors test_register test_thread_events test_thread_sample
TAG_posix := test_activation test_docs test_docs_style test_fuzz_oracles test_kernel_symbols test_layers test_native_walk \
  test_posix test_registry test_registry_trust test_sample_timeout
TAG_win := test_activation_win test_idl_agreement test_platform_win test_samples_win
TAG_jvm := test_attach test_attach_client test_attach_jevprof test_attach_server test_bridge test_bridge_calls \
  test_call_batches test_classfile_jdk test_dist test_first_calls \
  test_heap test_idinfo test_install test_jevprof test_jevprof_alloc test_jevprof_calls test_jevprof_cli \
  test_jevprof_files test_jevprof_jfr test_jevprof_output test_jevprof_users \
  test_lock_truth test_mask_changes test_native_frames test_original_style test_profile_truth \
  test_rewrite_sweep test_samples test_sampling test_spec test_tls_churn test_unattached test_vthreads test_watch
TAG_sanitized := test_bridge test_bridge_calls test_call_batches test_jevprof test_jevprof_alloc test_jevprof_calls test_attach test_heap \
  test_sampling test_attach_client test_attach_jevprof
TAGS := unit posix win jvm
TEST_SRC := $(wildcard tests/*/test_*.c)
SUBJECTS := $(sort $(patsubst tests/%/,%,$(dir $(TEST_SRC))))
# $(call suite_src,name): its source; $(call suite_tag,name): its tag of the four.
suite_src = $(filter %/$(1).c,$(TEST_SRC))
suite_tag = $(strip $(foreach t,$(TAGS),$(if $(filter $(1),$(TAG_$(t))),$(t))))
$(foreach s,$(TEST_SRC),$(if $(filter 1,$(words $(call suite_tag,$(basename $(notdir $(s)))))),,\
  $(error $(s): list it under exactly one of TAG_unit, TAG_posix, TAG_win, TAG_jvm in mk/tests.mk)))
$(foreach n,$(foreach t,$(TAGS) sanitized,$(TAG_$(t))),$(if $(filter 1,$(words $(call suite_src,$(n)))),,\
  $(error mk/tests.mk tags $(n): there must be one tests/*/$(n).c, there are: $(or $(call suite_src,$(n)),none))))

# What a suite links besides its own file and the agent's libraries: tests/support/testkit.c, the
# support of its tag (SUPPORT_<tag>), its companion sources (<suite>_SOURCES), and jevprof's
# library for the suites in JEVPROF_SUITES.
SUPPORT_posix := tests/support/as_nobody.c
SUPPORT_jvm := tests/support/jvmrun.c
test_samples_SOURCES := $(wildcard tests/sdk/samples/*.c)
test_classfile_SOURCES := tests/classfile/classfile_build.c
test_classfile_branches_SOURCES := tests/classfile/classfile_build.c
test_regfile_SOURCES := tests/registry/regfile_parse.c
test_regfile_errors_SOURCES := tests/registry/regfile_parse.c
test_registry_SOURCES := tests/registry/registry_files.c
test_registry_trust_SOURCES := tests/registry/registry_files.c
test_docs_SOURCES := tests/tree/docs_pages.c
test_docs_style_SOURCES := tests/tree/docs_pages.c
test_attach_SOURCES := tests/attach/attach_run.c
test_attach_client_SOURCES := tests/attach/attach_run.c
test_attach_jevprof_SOURCES := tests/attach/attach_run.c
test_attach_server_SOURCES := tests/attach/attach_run.c
test_bridge_SOURCES := tests/bridge/bridge_run.c
test_bridge_calls_SOURCES := tests/bridge/bridge_run.c
test_call_batches_SOURCES := tests/bridge/bridge_run.c
test_jevprof_SOURCES := tests/monitor/jevprof_run.c
test_jevprof_alloc_SOURCES := tests/monitor/jevprof_run.c
test_jevprof_calls_SOURCES := tests/monitor/jevprof_run.c
test_jevprof_files_SOURCES := tests/monitor/jevprof_dirs.c
test_jevprof_output_SOURCES := tests/monitor/jevprof_dirs.c
test_jevprof_cli_SOURCES := tests/monitor/scratch.c
test_jevprof_users_SOURCES := tests/monitor/scratch.c
test_fuzz_oracles_SOURCES := $(wildcard tests/fuzz/oracles/*.c)
test_idl_agreement_SOURCES := $(IDL_COMPANIONS)
JEVPROF_SUITES := test_jevprof_callstack test_jevprof_config test_jevprof_pprof test_jevprof_tree \
  test_jevprof_writers
# $(call jevprof_lib,test source,output dir): jevprof's library, for the suites that link it.
jevprof_lib = $(if $(filter $(JEVPROF_SUITES),$(basename $(notdir $(1)))),$(2)/libjevprof.a)
# $(call suite_links,test source): the sources it links besides its own.
suite_links = tests/support/testkit.c $(SUPPORT_$(call suite_tag,$(basename $(notdir $(1))))) $($(basename $(notdir $(1)))_SOURCES)
# Test suites: $(1) target, $(2) output dir of that build, $(3) extra flags; one program per file
define test_rule
$(2)/tests/$(basename $(notdir $(4)))$($(1)_EXE): $(2)/obj/$(basename $(4)).o \
    $(patsubst %.c,$(2)/obj/%.o,$(call suite_links,$(4))) \
    $(call jevprof_lib,$(4),$(2)) $(2)/libjevagent.a $(2)/libjevsdk.a $(2)/libjevplat.a
	@mkdir -p $$(@D)
	$$($(1)_CC) $$($(3)) -o $$@ $$(filter %.o,$$^) $(call jevprof_lib,$(4),$(2)) $(2)/libjevagent.a $(2)/libjevsdk.a $(2)/libjevplat.a \
	  $$($(1)_CHECK_LIBS) $(if $(call jevprof_lib,$(4),$(2)),$$($(1)_JEVPROF_LIBS)) $$($(1)_SYSLIBS)
endef
# A target's suites are those of its tags ($(1)_TAGS).
define test_rules
$(1)_TEST_SRC := $(foreach t,$($(1)_TAGS),$(foreach n,$(TAG_$(t)),$(call suite_src,$(n))))
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
define san_fixture_rule
$(ASAN_DIR)/fixtures/$(1).so: $(ASAN_DIR)/obj/$(basename $(call fixture_src,$(1))).o $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a
	@mkdir -p $$(@D)
	$$(call san_link,$$@,$$< $(ASAN_DIR)/libjevsdk.a $(ASAN_DIR)/libjevplat.a)
endef
$(foreach f,$(FIXTURES),$(eval $(call san_fixture_rule,$(f))))
$(ASAN_DIR)/java:
	@mkdir -p $(@D)
	ln -sfn ../java $@
# bin/jevprof's attach client, beside them (JEVPROF_LIBDIR names the directory).
$(ASAN_DIR)/jevprof-attach: $(ASAN_DIR)/obj/src/cmd/jevprof-attach.o
	$(linux_CC) $(SAN) -o $@ $<
# The names of the suites tagged sanitized, for tools/run-tests.sh.
$(ASAN_DIR)/sanitized-suites: mk/tests.mk
	@mkdir -p $(@D)
	echo $(TAG_sanitized) >$@
SANITIZED_JVM_FILES := $(ASAN_DIR)/libjevmon.so $(ASAN_DIR)/libjevprof.so $(ASAN_DIR)/jevprof-attach $(ASAN_DIR)/java \
  $(foreach f,$(FIXTURES),$(ASAN_DIR)/fixtures/$(f).so) $(ASAN_DIR)/sanitized-suites
$(eval $(call test_rules,win64,$(BUILD)/win64,NO_FLAGS))
$(eval $(call test_rules,win32,$(BUILD)/win32,NO_FLAGS))

# The unit suites once more with x87 math (-mfpmath=387 on x86-64: FLT_EVAL_METHOD 2, the excess
# precision of MinGW on x86), so that a comparison only x86 would fail fails on machines that cannot
# run the win32 suites too.  Linux's settings otherwise, without sanitizers or LTO, to build quickly.
X87 := -mfpmath=387
$(foreach v,CC CXX AR CFLAGS CXXFLAGS PLAT SYSLIBS JEVPROF_LIBS EXE CHECK_CFLAGS CHECK_LIBS,$(eval x87_$(v) = $$(linux_$(v))))
x87_TAGS := unit
$(eval $(call target_rules,x87,$(BUILD)/linux/x87,X87))
$(eval $(call test_rules,x87,$(BUILD)/linux/x87,X87))

# Java workloads of the end-to-end tests, the samples and the benchmarks, compiled once for every JDK >= 17.
# SpecWorkload$Gone is deleted: its program loads a class that is not there.
JAVA_SRC := $(wildcard tests/*/*.java samples/java/*.java bench/workloads/*.java)
$(BUILD)/linux/java/classes.stamp: $(JAVA_SRC)
	@mkdir -p $(@D)
	javac --release 17 -d $(@D) $^
	rm -f '$(@D)/jevmon/test/SpecWorkload$$Gone.class'
	@touch $@

# NativeWorkload's JNI library (test_native_frames), built with frame pointers.
$(BUILD)/linux/java/libjevnative.so: tests/sampling/jni/jevnative.c
	@mkdir -p $(@D)
	$(linux_CC) -std=c11 $(WARN) -O2 -fno-omit-frame-pointer -fPIC -shared -I$(JDK_INC) -I$(JDK_INC)/linux -o $@ $<
# libjevtls.so, the library with thread-locals that test_tls_churn's workload loads and unloads,
# of the model of a library loaded at run time (global-dynamic), as the JVM's is.
$(BUILD)/linux/java/libjevtls.so: tests/sampling/jni/jevtls.c
	@mkdir -p $(@D)
	$(linux_CC) -std=c11 $(WARN) -O2 -fPIC -ftls-model=global-dynamic -shared -o $@ $<
# libjevdlwatch.so, preloaded by test_profile_truth: says when the loader is called in a SIGPROF handler.
$(BUILD)/linux/java/libjevdlwatch.so: tests/sampling/jni/jevdlwatch.c
	@mkdir -p $(@D)
	$(linux_CC) -std=c11 $(WARN) -O2 -fPIC -shared -o $@ $< -ldl
TEST_JNI_LIBS := $(BUILD)/linux/java/libjevnative.so $(BUILD)/linux/java/libjevtls.so $(BUILD)/linux/java/libjevdlwatch.so
SANITIZED_JVM_FILES += $(TEST_JNI_LIBS)

FIXTURE_FILES = $(foreach t,linux win64 win32,$(foreach f,$(FIXTURES),$(BUILD)/$(t)/fixtures/$(f)$($(t)_SO)))

# ---- make test T=<subject>: one subject's suites, built alone and run ---------------------------
# By default on Linux (ASan+UBSan) against one JDK, javac's; TARGETS picks others among linux, x87,
# win64, win32 and sanitized; JDK another JDK (a directory under /usr/lib/jvm).
TARGETS ?= linux
JDK ?= $(patsubst %/bin/java,%,$(shell readlink -f "$$(command -v java)"))
T_SUITES := $(basename $(notdir $(filter tests/$(T)/%,$(TEST_SRC))))
# $(call t_programs,target): the subject's programs of that target's build.
t_programs = $(foreach n,$(T_SUITES),$(filter %/$(n)$($(1)_EXE),$($(1)_TESTS)))
fixtures_of = $(foreach f,$(FIXTURES),$(BUILD)/$(1)/fixtures/$(f)$($(1)_SO))
T_JVM := $(if $(filter $(TAG_jvm),$(T_SUITES)),$(linux_PRODUCTS) $(BUILD)/linux/java/classes.stamp $(TEST_JNI_LIBS))
T_NEEDS_linux = $(call t_programs,linux) $(call fixtures_of,linux) $(T_JVM)
T_NEEDS_x87 = $(call t_programs,x87) $(call fixtures_of,linux)
T_NEEDS_win64 = $(call t_programs,win64) $(call fixtures_of,win64) $(win64_PRODUCTS)
T_NEEDS_win32 = $(call t_programs,win32) $(call fixtures_of,win32) $(win32_PRODUCTS)
T_NEEDS_sanitized = $(filter $(addprefix %/,$(TAG_sanitized)),$(call t_programs,linux)) $(SANITIZED_JVM_FILES) $(T_JVM)
ifneq ($(filter _test,$(MAKECMDGOALS)),)
ifeq ($(filter $(T),$(SUBJECTS)),)
$(error make test T=<subject>, one of: $(SUBJECTS) (tests/README.md says what each holds))
endif
ifneq ($(filter-out linux x87 win64 win32 sanitized,$(TARGETS)),)
$(error make test TARGETS='$(TARGETS)': each one of linux, x87, win64, win32, sanitized)
endif
endif
T_FILTER = ^($(subst $(eval) ,|,$(strip $(TARGETS))))/($(subst $(eval) ,|,$(strip $(T_SUITES))))$$

# mk/products.mk - the products of each target: the libraries, the agent, jevprof, the samples, the test fixtures, the Linux commands, the IDL header, and the API header's compile-and-link checks.
# (included by the Makefile's sub-make, in the order it lists)

# ---- Rules for one target: $(1) = linux | win64 | win32, $(2) = output dir, $(3) = name of a variable of extra flags
define target_rules
$(2)/obj/%.o: %.c
	@mkdir -p $$(@D)
	$$($(1)_CC) $$($(1)_CFLAGS) $$($(3)) $$($(1)_CHECK_CFLAGS) $$(TEST_CFLAGS) -MMD -MP -c $$< -o $$@
$(2)/obj/%.o: %.cpp
	@mkdir -p $$(@D)
	$$($(1)_CXX) $$($(1)_CXXFLAGS) $$($(3)) -MMD -MP -c $$< -o $$@

$(2)/obj/tests/%.o: TEST_CFLAGS := $$($(1)_TEST_CFLAGS) $$(TEST_INCLUDES)

$(2)/libjevplat.a: $$(patsubst %.c,$(2)/obj/%.o,$$($(1)_PLAT))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_AR) rcs $$@ $$^
$(2)/libjevsdk.a: $$(patsubst %.c,$(2)/obj/%.o,$$(SDK_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_AR) rcs $$@ $$^
$(2)/libjevagent.a: $$(patsubst %.c,$(2)/obj/%.o,$$(AGENT_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_AR) rcs $$@ $$^
$(2)/libjevprof.a: $$(patsubst %.c,$(2)/obj/%.o,$$(JEVPROF_SRC))
	@mkdir -p $$(@D); rm -f $$@; $$($(1)_AR) rcs $$@ $$^
-include $$(shell find $(2)/obj -name '*.d' 2>/dev/null)
endef

# Shared-library link: $(1) target, $(2) output, $(3) objects/libs, $(4) .def (Windows)
link_so = $($(1)_CC) -shared $(if $(filter linux,$(1)),$(LTO),$(WIN_LDFLAGS) $(4)) -o $(2) $(3) $($(1)_SYSLIBS)

define product_rules
$(eval $(call target_rules,$(1),$(BUILD)/$(1),$(1)_PRODUCT_FLAGS))

$(BUILD)/$(1)/$($(1)_AGENT): $(BUILD)/$(1)/libjevagent.a $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$(call link_so,$(1),$$@,$$(WHOLE) $(BUILD)/$(1)/libjevagent.a $$(NO_WHOLE) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a,)

$(BUILD)/$(1)/$(if $(filter linux,$(1)),libjevprof.so,jevprof.dll): $(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$(JEVPROF_SRC)) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$(call link_so,$(1),$$@,$$(filter %.o,$$^) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a $($(1)_JEVPROF_LIBS),$(call def_of,monitor))

$(foreach s,$(SAMPLES),$(eval $(call sample_rules,$(1),$(s))))
$(foreach f,$(FIXTURES),$(eval $(call fixture_rules,$(1),$(f))))
$(foreach c,$(CMD_SRC),$(if $(filter linux,$(1)),$(eval $(call cmd_rules,$(1),$(c)))))

$(1)_PRODUCTS := $(BUILD)/$(1)/$($(1)_AGENT) \
  $(if $(JEVPROF_SRC),$(BUILD)/$(1)/$(if $(filter linux,$(1)),libjevprof.so,jevprof.dll)) \
  $(foreach s,$(SAMPLES),$(BUILD)/$(1)/samples/$(s)$($(1)_SO)) \
  $(if $(filter linux,$(1)),$(foreach c,$(CMD_SRC) $(CMD_SCRIPTS),$(BUILD)/$(1)/$(basename $(notdir $(c)))))
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
$(BUILD)/$(1)/fixtures/$(2)$($(1)_SO): $(BUILD)/$(1)/obj/$(basename $(call fixture_src,$(2))).o $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	@mkdir -p $$(@D)
	$$(call link_so,$(1),$$@,$$(filter %.o,$$^) $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a,$(wildcard $(basename $(call fixture_src,$(2))).def))
endef

# A command's script (src/cmd/*.sh), beside the commands without its extension.
$(BUILD)/linux/%: src/cmd/%.sh
	install -D -m 755 $< $@

define cmd_rules
$(BUILD)/$(1)/$(basename $(notdir $(2))): $(BUILD)/$(1)/obj/$(basename $(2)).o $(BUILD)/$(1)/libjevsdk.a $(BUILD)/$(1)/libjevplat.a
	$$($(1)_CC) -o $$@ $$^ $($(1)_SYSLIBS)
endef

$(foreach t,linux win64 win32,$(eval $(call product_rules,$(t))))

# idl/jevmon.idl through each Windows target's widl, a product of that target; the
# companions of tests/api/test_idl_agreement include the header to compare it with jevmon.h.
# unknwn.idl and what it imports come with Wine's development files (libwine-dev).
WIDL_IMPORTS := $(firstword $(wildcard /usr/include/wine/wine/windows /usr/include/wine/windows))
IDL_COMPANIONS := $(wildcard tests/api/idl_agreement/*.c)
define idl_rules
$(BUILD)/$(1)/idl/jevmon_idl.h: idl/jevmon.idl
	@mkdir -p $$(@D)
	$($(1)_WIDL) -I$$(or $$(WIDL_IMPORTS),$$(error no unknwn.idl for widl: install libwine-dev)) -h -o $$@ $$<
$(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$(IDL_COMPANIONS)): $(BUILD)/$(1)/idl/jevmon_idl.h
$(BUILD)/$(1)/obj/tests/api/idl_agreement/%.o: $(1)_CFLAGS += -I$(BUILD)/$(1)/idl
$(1)_PRODUCTS += $(BUILD)/$(1)/idl/jevmon_idl.h
endef
$(foreach t,win64 win32,$(eval $(call idl_rules,$(t))))
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

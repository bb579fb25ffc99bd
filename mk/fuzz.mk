# mk/fuzz.mk - the libFuzzer targets (clang) over the oracles test_fuzz_oracles replays.
# (included by the Makefile's sub-make, in the order it lists)

# libFuzzer targets (clang): tests/fuzz/fuzz_NAME.c over the oracles of tests/fuzz/oracles/,
# which test_fuzz_oracles replays in `make check`; the sources each target parses with.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=c11 $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DCOBJMACROS -D_GNU_SOURCE -Iinclude -Iinclude/posix -Isrc -Itests/fuzz/oracles
FUZZ_TARGETS := regfile classfile
regfile_FUZZ_SRC := $(wildcard src/common/regfile*.c) src/common/guid.c src/common/log.c
classfile_FUZZ_SRC := $(wildcard src/classfile/*.c) src/common/log.c
define fuzz_rule
$(BUILD)/linux/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c tests/fuzz/oracles/$(1).c $($(1)_FUZZ_SRC)
	@mkdir -p $$(@D)
	clang $(FUZZ_CFLAGS) -o $$@ $$^
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

_fuzz: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/linux/fuzz/fuzz_$(t))
	@bash tools/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

/*
 * oracles.h - what must hold for any input of the parsers jevmon feeds untrusted bytes to,
 * checked by the libFuzzer targets (tests/fuzz/, `make fuzz`) and by test_fuzz_oracles,
 * which replays their corpus and every input that ever failed (`make check`).
 *
 * Each returns NULL when the input passes, or a description of what went wrong (a static
 * string); a crash, leak or hang under the sanitizers is a failure too.
 */
#ifndef JEVMON_TEST_FUZZ_ORACLES_H
#define JEVMON_TEST_FUZZ_ORACLES_H

#include <stddef.h>
#include <stdint.h>

/* The registry parser (src/common/regfile_parse.c): parse the bytes as a .reg file, then for each
 * hive write -> parse -> write: the second parse has no error and both writes are equal. */
const char *fuzz_regfile_check(const uint8_t *data, size_t size);

/* The class-file reader and rewriter (src/classfile/): parse -> write gives the input back;
 * parse -> instrument -> write gives a class file that parses and writes back unchanged. */
const char *fuzz_classfile_check(const uint8_t *data, size_t size);

#endif

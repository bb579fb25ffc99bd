/*
 * regfile_parse.h - what the .reg suites share (test_regfile, test_regfile_errors): a fresh tree
 * for each test, .reg text parsed into it, and its values read back.
 */
#ifndef JEVMON_TEST_REGFILE_PARSE_H
#define JEVMON_TEST_REGFILE_PARSE_H

#include <stddef.h>

#include "common/regfile.h"

#define V5 "Windows Registry Editor Version 5.00\n\n"
#define FILE_NAME "test.reg"

/* The tree of the running test: made by setup, freed by teardown (Check's checked fixture),
 * which also capture and release the jevmon: lines (tk_capture_log). */
extern jv_reg_tree *tree;
void setup(void);
void teardown(void);
/* text parsed as FILE_NAME into t, or into tree; the number of values and keys it set. */
unsigned parse_into(jv_reg_tree *t, const char *text);
unsigned parse(const char *text);
/* The string value, or NULL when it is not a readable string; kept until the next call. */
const char *string_of(plat_hive hive, const char *key, const char *name);
/* The value, or NULL. */
const jv_reg_value *value_of(plat_hive hive, const char *key, const char *name);
/* UTF-8 text as a UTF-16LE file with a byte order mark, as regedit exports (malloc'ed). */
unsigned char *utf16le_file(const char *text, size_t *size);

#endif

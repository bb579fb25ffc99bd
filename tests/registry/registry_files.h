/*
 * registry_files.h - what the POSIX registry suites share (test_registry, test_registry_trust):
 * each test's own directory holding the hive files the environment names, files written with a
 * mode, and values read back through platform.h.
 */
#ifndef JEVMON_TEST_REGISTRY_FILES_H
#define JEVMON_TEST_REGISTRY_FILES_H

#include <stddef.h>
#include <sys/types.h>

#include "platform/platform.h"

#define V5 "Windows Registry Editor Version 5.00\n\n"
#define JAVA_VM JEVMON_JAVA_VM_KEY

/* The test's directory, and the machine and user hive files in it (JEVMON_REGISTRY_SYSTEM,
 * JEVMON_REGISTRY_USER): made by setup, removed by teardown (Check's checked fixture), which
 * also capture and release the jevmon: lines (tk_capture_log). */
extern char dir[256], system_path[300], user_path[300];
void setup(void);
void teardown(void);
/* dir/name into out. */
void in_dir(char *out, size_t size, const char *name);
/* path holding text, with mode. */
void write_file(const char *path, const char *text, mode_t mode);
/* The whole file, or NULL when it cannot be read; free() it. */
char *read_file(const char *path);
/* The test fails unless the string value reads as expected. */
void assert_string(plat_hive hive, const char *key, const char *name, const char *expected);
/* What reading a string value answers. */
plat_reg_status status_of(plat_hive hive, const char *key, const char *name);

#endif

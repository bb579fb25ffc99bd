/*
 * scratch.c - a test's scratch directories under the build (scratch.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "../support/testkit.h"
#include "scratch.h"
#include "support/jvmrun.h"

void make_directory(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "%s", jvmrun_build_path(name));
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

void remove_directory(const char *dir)
{
    char command[1400];
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

char *read_file(const char *dir, const char *name)
{
    char path[1400];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return tk_read_file(path);
}

/*
 * registry_files.c - a registry of two hive files in a fresh directory per test, and reading it
 * back (registry_files.h).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "registry_files.h"

char dir[256], system_path[300], user_path[300];
void in_dir(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", dir, name);
}

void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
    ck_assert_int_eq(chmod(path, mode), 0);
}

char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = calloc(1, 65536);
    size_t n = fread(text, 1, 65535, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/jevmon-test-registry-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    in_dir(system_path, sizeof(system_path), "system.reg");
    in_dir(user_path, sizeof(user_path), "home/config/user.reg"); /* its directories do not exist yet */
    setenv("JEVMON_REGISTRY_SYSTEM", system_path, 1);
    setenv("JEVMON_REGISTRY_USER", user_path, 1);
    unsetenv("JEVMON_REGISTRY_FILES");
    tk_capture_log();
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char child[1024];
        snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
        remove_tree(child);
    }
    closedir(d);
    rmdir(path);
}

void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    remove_tree(dir);
}

static char *get_string(plat_hive hive, const char *key, const char *name)
{
    char *value = NULL;
    plat_reg_status status = plat_reg_get_string(hive, key, name, &value);
    ck_assert_msg(status == PLAT_REG_OK, "%s\\%s: status %d", key, name ? name : "@", status);
    return value;
}

void assert_string(plat_hive hive, const char *key, const char *name, const char *expected)
{
    char *value = get_string(hive, key, name);
    ck_assert_str_eq(value, expected);
    free(value);
}

plat_reg_status status_of(plat_hive hive, const char *key, const char *name)
{
    char *value = NULL;
    plat_reg_status status = plat_reg_get_string(hive, key, name, &value);
    free(value);
    return status;
}

/*
 * test_fuzz_oracles.c - the fuzz targets' corpus and every input that once failed, replayed
 * through their oracles (tests/fuzz/oracles/oracles.h) under ASan and UBSan: tests/fuzz/corpus/<target>/
 * and tests/fuzz/crashes/<target>/, found through JEVMON_SRC or from this program's place
 * (<src>/build/linux/asan/tests/).  `make fuzz` grows the corpus; a new finding goes into
 * crashes/ with its fix.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fuzz/oracles/oracles.h"
#include "platform/platform.h"
#include "../support/testkit.h"

static char src_dir[1024];

static void find_src_dir(void)
{
    char *env = plat_getenv("JEVMON_SRC");
    if (env) {
        snprintf(src_dir, sizeof(src_dir), "%s", env);
        free(env);
        return;
    }
    char *self = plat_module_path((const void *)find_src_dir);
    ck_assert_ptr_nonnull(self);
    snprintf(src_dir, sizeof(src_dir), "%s", self);
    free(self);
    for (int i = 0; i < 5; i++) /* <src>/build/linux/asan/tests/test_fuzz_oracles */
        *strrchr(src_dir, '/') = '\0';
}

/* Replays every file of <src>/tests/fuzz/<kind>/<target>; returns how many there were. */
static unsigned replay(const char *kind, const char *target, const char *(*check)(const uint8_t *, size_t))
{
    char dir_path[1200];
    unsigned count = 0;
    snprintf(dir_path, sizeof(dir_path), "%s/tests/fuzz/%s/%s", src_dir, kind, target);
    DIR *dir = opendir(dir_path);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        char path[1500];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir_path, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        char *bytes = tk_read_file(path);
        ck_assert_ptr_nonnull(bytes);
        const char *failure = check((const uint8_t *)bytes, (size_t)st.st_size);
        ck_assert_msg(!failure, "%s: %s", path, failure);
        free(bytes);
        count++;
    }
    if (dir)
        closedir(dir);
    return count;
}

START_TEST(registry_parser_corpus)
{
    find_src_dir();
    unsigned corpus = replay("corpus", "regfile", fuzz_regfile_check);
    unsigned crashes = replay("crashes", "regfile", fuzz_regfile_check);
    printf("regfile: %u corpus inputs, %u past failures replayed\n", corpus, crashes);
    ck_assert_uint_gt(corpus, 10);
}
END_TEST

START_TEST(class_file_corpus)
{
    find_src_dir();
    unsigned corpus = replay("corpus", "classfile", fuzz_classfile_check);
    unsigned crashes = replay("crashes", "classfile", fuzz_classfile_check);
    printf("classfile: %u corpus inputs, %u past failures replayed\n", corpus, crashes);
    ck_assert_uint_gt(corpus, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fuzz_oracles");
    TCase *tc = tcase_create("replay");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, registry_parser_corpus);
    tcase_add_test(tc, class_file_corpus);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

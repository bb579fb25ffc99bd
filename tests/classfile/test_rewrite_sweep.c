/*
 * test_rewrite_sweep.c - the class-file rewriter against the class files of real libraries, on
 * every JDK under /usr/lib/jvm, each time with and without the agent in instrumented calls mode
 * (jevprof --mode calls):
 *   - tools/link-sweep.sh's fixed sample (Groovy, Scala's library, Kotlin's stdlib and reflect,
 *     commons-collections3, xalan, the JDK's own modules, and the classes that once failed) loads
 *     and links with the same outcome for every class and no class failing over to the old
 *     verifier that does not without the agent; "skipped:" when the libraries are not installed;
 *   - a class whose field descriptor is "L" gets the JVM's own ClassFormatError with the agent
 *     too, the class left as it is with one jevmon: line naming it.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

static char jdks[JVMRUN_MAX_JDKS][512];
static int jdk_count;

static char *fresh_dir(const char *name)
{
    char *dir = strdup(jvmrun_build_path(name));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

static void remove_dir(const char *dir)
{
    char command[4200];
    snprintf(command, sizeof(command), "rm -rf '%s'", dir);
    ck_assert_int_eq(system(command), 0);
}

START_TEST(libraries_link_the_same_with_the_agent)
{
    char *dir = fresh_dir("rewrite-sweep.XXXXXX");
    char *out = NULL, *err = NULL;
    int status = jvmrun_shell(dir, &out, &err, "'%s/tools/link-sweep.sh' '%s' '%s/files' sample", jvmrun_source_dir(),
                              jdks[_i], dir);
    printf("%s", out);
    ck_assert_msg(status == 0, "%s%s", out, err);
    ck_assert_msg(strstr(out, "skipped: ") || strstr(out, ", 0 differing, "), "%s", out);
    free(out), free(err);
    remove_dir(dir);
    free(dir);
}
END_TEST

/* The bytes of Bad.class with "Ljava/lang/Thread;" (its field's descriptor) replaced by "L". */
static void write_malformed_class(const char *jdk, const char *dir)
{
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL,
                                  "mkdir -p src bad && printf 'public class Bad {\\n    Thread owner;\\n"
                                  "    Thread owner() { return owner; }\\n}\\n' >src/Bad.java && "
                                  "'%s/bin/javac' --release 8 -d src src/Bad.java 2>/dev/null",
                                  jdk),
                     0);
    char path[4200];
    snprintf(path, sizeof(path), "%s/src/Bad.class", dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char bytes[4096];
    size_t size = fread(bytes, 1, sizeof(bytes), f);
    fclose(f);
    static const char utf8[] = "\x01\x00\x12Ljava/lang/Thread;";
    unsigned char *at = memmem(bytes, size, utf8, sizeof(utf8) - 1);
    ck_assert_ptr_nonnull(at);
    size_t tail = size - (size_t)(at - bytes) - (sizeof(utf8) - 1);
    memmove(at + 4, at + sizeof(utf8) - 1, tail);
    memcpy(at, "\x01\x00\x01L", 4);
    snprintf(path, sizeof(path), "%s/bad/Bad.class", dir);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, size - (sizeof(utf8) - 1) + 4, f), size - (sizeof(utf8) - 1) + 4);
    fclose(f);
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "cd bad && '%s/bin/jar' cf ../bad.jar Bad.class", jdk), 0);
}

START_TEST(malformed_descriptor_is_left_to_the_jvm)
{
    const char *jdk = jdks[_i];
    char *dir = fresh_dir("rewrite-malformed.XXXXXX");
    write_malformed_class(jdk, dir);
    char *plain = NULL, *out = NULL, *err = NULL;
    ck_assert_int_eq(jvmrun_shell(dir, &plain, NULL, "'%s/bin/java' -cp '%s' LinkSweep 0 bad.jar", jdk,
                                  jvmrun_build_path("java")),
                     0);
    ck_assert_msg(strstr(plain, "Bad java.lang.ClassFormatError: "), "%s", plain);
    ck_assert_int_eq(jvmrun_shell(dir, &out, &err,
                                  "'%s/bin/jevprof' --mode calls --out jevprof '%s/bin/java' -cp '%s' "
                                  "LinkSweep 0 bad.jar",
                                  jvmrun_source_dir(), jdk, jvmrun_build_path("java")),
                     0);
    ck_assert_str_eq(out, plain);
    ck_assert_msg(strstr(err, "jevmon: method calls via bytecode instrumentation"), "%s", err);
    ck_assert_int_eq(jvmrun_count(err, "jevmon: class Bad keeps its code"), 1);
    ck_assert_int_eq(jvmrun_count(err, "malformed field descriptor"), 1);
    free(plain), free(out), free(err);
    remove_dir(dir);
    free(dir);
}
END_TEST

int main(void)
{
    if (!(jdk_count = jvmrun_suite_jdks(jdks)))
        return EXIT_SUCCESS;
    for (int i = 0; i < jdk_count; i++) /* <home>/bin/java -> <home> */
        *strstr(jdks[i], "/bin/java") = '\0';
    Suite *s = suite_create("rewrite_sweep");
    TCase *tc = tcase_create("sweep");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, libraries_link_the_same_with_the_agent, 0, jdk_count);
    tcase_add_loop_test(tc, malformed_descriptor_is_left_to_the_jvm, 0, jdk_count);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

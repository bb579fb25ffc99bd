/*
 * test_classfile_jdk.c - the class-file rewriter against real JVMs: for every JDK under
 * /usr/lib/jvm,
 *   - every class of its java.base module goes through parse -> write (byte-identical)
 *     and parse -> instrument -> write; the instrumented module is patched into the JDK
 *     with a counting bridge and every class is loaded and linked with -Xverify:all
 *     (VerifyAll.java), which a deliberately broken class proves really verifies; then
 *     the patched JDK runs with every instrumented method enabled;
 *   - tests/classfile/java/Jumps.java at class-file versions 49, 50, 52 and 61 verifies
 *     and runs the same instrumented, with as many exits as entries;
 *   - a generated method whose if jumps over 1500 instrumented returns (split around a
 *     goto_w) verifies and runs the same;
 *   - tests/classfile/java/Sample.java (records, sealed types, nest mates, lambdas,
 *     invokedynamic concatenation, exits by exception), compiled with --release 17,
 *     prints the same before and after instrumentation, and the bridge counts the
 *     expected entries and exits per method.
 * Source files are found under $JEVMON_SRC (default: the working directory).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classfile/classfile.h"

#define MAX_JDKS 8
#define MAX_IDS 4096

static char jdks[MAX_JDKS][PATH_MAX];
static int jdk_count;
static char src_dir[PATH_MAX], work_dir[PATH_MAX];

/* ---- Files and commands ------------------------------------------------------------- */

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t capacity = 65536, n = 0, got;
    char *data = malloc(capacity + 1);
    while (data && (got = fread(data + n, 1, capacity - n, f)) > 0) {
        n += got;
        if (n == capacity) {
            char *grown = realloc(data, (capacity *= 2) + 1);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    fclose(f);
    if (data) {
        data[n] = '\0';
        if (size)
            *size = n;
    }
    return data;
}

static int write_all(const char *path, const void *data, size_t size)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* Runs a shell command; what it writes to stdout and stderr comes back in *out, *err. */
static int vrun(char **out, char **err, const char *fmt, va_list ap)
{
    char command[8192], full[8192 + 2 * PATH_MAX + 32], path[PATH_MAX + 8];
    vsnprintf(command, sizeof(command), fmt, ap);
    snprintf(full, sizeof(full), "(%s) >%s/out 2>%s/err", command, work_dir, work_dir);
    int status = system(full);
    snprintf(path, sizeof(path), "%s/out", work_dir);
    *out = read_all(path, NULL);
    snprintf(path, sizeof(path), "%s/err", work_dir);
    *err = read_all(path, NULL);
    ck_assert_ptr_nonnull(*out);
    ck_assert_ptr_nonnull(*err);
    return status;
}

static int run(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(char **out, char **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int status = vrun(out, err, fmt, ap);
    va_end(ap);
    return status;
}

/* Runs a command that must succeed. */
static void run_ok(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_ok(const char *what, const char *fmt, ...)
{
    char *out, *err;
    va_list ap;
    va_start(ap, fmt);
    int status = vrun(&out, &err, fmt, ap);
    va_end(ap);
    ck_assert_msg(status == 0, "%s failed: %s%s", what, out, err);
    free(out);
    free(err);
}

/* ---- Instrumenting a directory tree ---------------------------------------------------- */

typedef struct tree_run {
    const char *only_prefix; /* instrument classes whose name starts with this; NULL: all */
    int32_t next_id;
    char *names[MAX_IDS]; /* "Class.method descriptor" by id, when fewer than MAX_IDS */
    unsigned classes, changed, roundtrip_mismatches;
    cf_instrument_stats stats;
} tree_run;

static int32_t assign_id(void *context, const cf_method_info *m)
{
    tree_run *t = context;
    if (t->only_prefix && strncmp(m->class_name, t->only_prefix, strlen(t->only_prefix)) != 0)
        return CF_SKIP_METHOD;
    if (t->next_id < MAX_IDS) {
        char name[1024];
        snprintf(name, sizeof(name), "%s.%s %s", m->class_name, m->name, m->descriptor);
        t->names[t->next_id] = strdup(name);
    }
    return t->next_id++;
}

/* Every class listed in list (paths relative to in) is checked to round-trip, then
 * instrumented into out (unchanged when nothing was rewritten). */
static void instrument_tree(tree_run *t, const char *in, const char *out, const char *list)
{
    /* the agent's own configuration (instrument.c): flags, and the handler calling unwind */
    cf_hooks hooks = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", "on", "[B", assign_id, NULL, t,
                      "unwind", "(I)V", NULL};
    char *names = read_all(list, NULL);
    ck_assert_ptr_nonnull(names);
    char error[512], in_path[PATH_MAX], out_path[PATH_MAX];
    for (char *line = strtok(names, "\n"); line; line = strtok(NULL, "\n")) {
        snprintf(in_path, sizeof(in_path), "%s/%s", in, line);
        snprintf(out_path, sizeof(out_path), "%s/%s", out, line);
        size_t size, out_size;
        uint8_t *data = (uint8_t *)read_all(in_path, &size), *written = NULL;
        ck_assert_msg(data != NULL, "cannot read %s", in_path);
        t->classes++;

        cf_class *cls = cf_parse(data, size, error, sizeof(error));
        ck_assert_msg(cls != NULL, "%s: %s", line, error);
        ck_assert_msg(cf_write(cls, &written, &out_size, error, sizeof(error)) == 0, "%s: %s", line, error);
        t->roundtrip_mismatches += out_size != size || memcmp(written, data, size) != 0;
        cf_free(cls);
        free(written);

        cf_instrument_stats stats;
        int result = cf_instrument_class(data, size, &hooks, &written, &out_size, &stats, error, sizeof(error));
        ck_assert_msg(result >= 0, "%s: %s", line, error);
        t->changed += result > 0;
        t->stats.instrumented += stats.instrumented;
        t->stats.skipped += stats.skipped;
        t->stats.no_bytecode += stats.no_bytecode;
        t->stats.empty_finalizer += stats.empty_finalizer;
        t->stats.too_long += stats.too_long;
        t->stats.unsupported += stats.unsupported;
        ck_assert_int_eq(write_all(out_path, result > 0 ? written : data, result > 0 ? out_size : size), 0);
        free(written);
        free(data);
    }
    free(names);
}

static void free_names(tree_run *t)
{
    for (int32_t i = 0; i < t->next_id && i < MAX_IDS; i++)
        free(t->names[i]);
}

/* ---- java.base -------------------------------------------------------------------------- */

static const char *jdk_tmp(int index, const char *name)
{
    static char path[4][PATH_MAX + 64];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof(path[0]), "%s/jdk%d/%s", work_dir, index, name);
    return p;
}

START_TEST(java_base_verifies_and_runs)
{
    const char *jdk = jdks[_i];
    char *out, *err;
    char extracted[PATH_MAX], patch[PATH_MAX], tools[PATH_MAX], list[PATH_MAX], names[PATH_MAX];
    snprintf(extracted, sizeof(extracted), "%s", jdk_tmp(_i, "extracted"));
    snprintf(patch, sizeof(patch), "%s", jdk_tmp(_i, "patch"));
    snprintf(tools, sizeof(tools), "%s", jdk_tmp(_i, "tools"));
    snprintf(list, sizeof(list), "%s", jdk_tmp(_i, "classes.list"));
    snprintf(names, sizeof(names), "%s", jdk_tmp(_i, "classes.names"));
    run_ok("jimage", "mkdir -p %s && %s/bin/jimage extract --dir %s --include 'regex:/java.base/.*' %s/lib/modules",
           extracted, jdk, extracted, jdk);
    run_ok("listing", "cd %s/java.base && find . -name '*.class' | sed 's|^\\./||' | sort >%s", extracted, list);

    tree_run t = {0};
    char base[PATH_MAX + 16];
    snprintf(base, sizeof(base), "%s/java.base", extracted);
    instrument_tree(&t, base, patch, list);
    printf("%s: java.base classes %u, byte-identical round trips %u, instrumented classes %u, methods "
           "instrumented %u, no bytecode %u, empty finalizers %u, too long %u, unsupported %u\n",
           jdk, t.classes, t.classes - t.roundtrip_mismatches, t.changed, t.stats.instrumented,
           t.stats.no_bytecode, t.stats.empty_finalizer, t.stats.too_long, t.stats.unsupported);
    ck_assert_int_gt(t.classes, 5000);
    ck_assert_int_eq(t.roundtrip_mismatches, 0);
    ck_assert_int_gt(t.stats.instrumented, 50000);
    ck_assert_uint_le(t.stats.unsupported, 1); /* java.lang.Object.<init> */
    free_names(&t);

    /* The bridge joins java.base; a module-info may not be patched. */
    run_ok("javac", "%s/bin/javac --release 17 -d %s %s/tests/classfile/java/Bridge.java", jdk, patch, src_dir);
    run_ok("javac", "%s/bin/javac --release 17 -d %s %s/tests/classfile/java/VerifyAll.java", jdk, tools, src_dir);
    run_ok("names", "rm -f %s/module-info.class && grep -v '^module-info' %s | sed -e 's|/|.|g' -e 's|\\.class$||' >%s",
           patch, list, names);

    char expected[64];
    snprintf(expected, sizeof(expected), "linked %u failed 0\n", t.classes - 1);
    run(&out, &err, "%s/bin/java -Xverify:all --patch-module java.base=%s -cp %s VerifyAll %s", jdk, patch, tools,
        names);
    ck_assert_msg(strstr(out, expected), "%s: expected %s, got:\n%.4000s\n%.2000s", jdk, expected, out, err);
    free(out);
    free(err);

    /* Negative control: a class without its StackMapTable must fail the same run. */
    char victim[PATH_MAX + 64], saved[PATH_MAX + 96];
    snprintf(victim, sizeof(victim), "%s/java/util/concurrent/Exchanger.class", patch);
    snprintf(saved, sizeof(saved), "%s.saved", victim);
    size_t size;
    char *bytes = read_all(victim, &size);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_int_eq(write_all(saved, bytes, size), 0);
    char *name = memmem(bytes, size, "StackMapTable", 13);
    ck_assert_ptr_nonnull(name);
    name[12] = 'X'; /* an unknown attribute now: the verifier finds no frames */
    ck_assert_int_eq(write_all(victim, bytes, size), 0);
    free(bytes);
    snprintf(expected, sizeof(expected), "linked %u failed 1\n", t.classes - 2);
    run(&out, &err, "%s/bin/java -Xverify:all --patch-module java.base=%s -cp %s VerifyAll %s", jdk, patch, tools,
        names);
    ck_assert_msg(strstr(out, expected) && strstr(out, "FAIL java.util.concurrent.Exchanger: java.lang.VerifyError"),
                  "%s: the broken class was not rejected:\n%.4000s", jdk, out);
    free(out);
    free(err);
    ck_assert_int_eq(rename(saved, victim), 0);

    /* Every instrumented method enabled: the JDK still runs and the bridge counts. */
    snprintf(expected, sizeof(expected), "linked %u failed 0\n", t.classes - 1);
    run(&out, &err, "%s/bin/java --patch-module java.base=%s --add-exports java.base/jevmon=ALL-UNNAMED -cp %s "
                    "VerifyAll %s count", jdk, patch, tools, names);
    long long enters = -1, exits = -1;
    const char *totals = strstr(out, "enters ");
    ck_assert_msg(strstr(out, expected) && totals && sscanf(totals, "enters %lld exits %lld", &enters, &exits) == 2,
                  "%s:\n%.4000s\n%.2000s", jdk, out, err);
    printf("%s: with every method enabled, %lld entries and %lld exits\n", jdk, enters, exits);
    ck_assert_int_gt(enters, 100000);
    /* Not equal: frames active when enableAll ran exit without having counted their
     * entry, frames still active at the end entered without exiting, and the bridge's
     * counters are not atomic across threads. */
    ck_assert_int_lt(llabs(enters - exits), 2000);
    free(out);
    free(err);
}
END_TEST

/* ---- Sample.java ------------------------------------------------------------------------- */

/* "Class.method descriptor enters exits" for every method Sample runs. */
static const char *const expected_counts[] = {
    "Sample$Base.<init> (I)V 2 2",
    /* child("a"): super() throws, and no handler may cover that call: no exit */
    "Sample$Child.<init> (Ljava/lang/String;)V 3 2",
    "Sample$Circle.<init> (D)V 2 2",
    "Sample$Circle.toString ()Ljava/lang/String; 1 1",
    "Sample$Circle.r ()D 2 2",
    "Sample$Inner.<init> (LSample;)V 1 1",
    "Sample$Inner.peek ()I 1 1",
    "Sample$Square.<init> (D)V 1 1",
    "Sample$Square.side ()D 2 2",
    "Sample.<init> ()V 1 1",
    "Sample.<init> (I)V 1 1",
    "Sample.area (LSample$Shape;)D 2 2",
    "Sample.fib (I)I 177 177",
    "Sample.thrower (I)I 3 3",
    "Sample.catcher (I)I 2 2",
    "Sample.lookup (I)I 4 4",
    "Sample.table (I)I 1 1",
    "Sample.mix (JDI)J 1 1",
    "Sample.child (Ljava/lang/String;)Ljava/lang/String; 3 3",
    "Sample.main ([Ljava/lang/String;)V 1 1",
    "Sample.lambda$main$0 (I)I 1 1",
};

START_TEST(sample_runs_the_same_and_counts)
{
    const char *jdk = jdks[_i];
    char orig[PATH_MAX], inst[PATH_MAX], list[PATH_MAX];
    snprintf(orig, sizeof(orig), "%s", jdk_tmp(_i, "sample-orig"));
    snprintf(inst, sizeof(inst), "%s", jdk_tmp(_i, "sample-inst"));
    snprintf(list, sizeof(list), "%s", jdk_tmp(_i, "sample.list"));
    run_ok("javac", "%s/bin/javac --release 17 -d %s %s/tests/classfile/java/Sample.java "
           "%s/tests/classfile/java/Report.java %s/tests/classfile/java/Bridge.java",
           jdk, orig, src_dir, src_dir, src_dir);
    run_ok("listing", "cd %s && find . -name '*.class' | sed 's|^\\./||' | sort >%s", orig, list);
    char *out, *err;

    tree_run t = {.only_prefix = "Sample"};
    instrument_tree(&t, orig, inst, list);
    ck_assert_int_eq(t.changed, 6); /* Sample and its nested classes but the interface Shape */

    char *plain_out, *plain_err;
    ck_assert_int_eq(run(&plain_out, &plain_err, "%s/bin/java -cp %s Report off", jdk, orig), 0);
    ck_assert_msg(strstr(plain_out, "fib 55"), "%s", plain_out);
    ck_assert_str_eq(plain_err, "");

    ck_assert_int_eq(run(&out, &err, "%s/bin/java -cp %s Report off", jdk, inst), 0);
    ck_assert_str_eq(out, plain_out);
    ck_assert_str_eq(err, ""); /* disabled: the bridge is never called */
    free(out);
    free(err);

    ck_assert_int_eq(run(&out, &err, "%s/bin/java -Xverify:all -cp %s Report", jdk, inst), 0);
    ck_assert_str_eq(out, plain_out);
    char counted[MAX_IDS][1100];
    int count = 0;
    for (char *line = strtok(err, "\n"); line && count < MAX_IDS; line = strtok(NULL, "\n")) {
        int id;
        long long enters, exits;
        ck_assert_msg(sscanf(line, "%d %lld %lld", &id, &enters, &exits) == 3, "%s", line);
        ck_assert(id >= 0 && id < t.next_id);
        snprintf(counted[count++], sizeof(counted[0]), "%s %lld %lld", t.names[id], enters, exits);
    }
    size_t expected_count = sizeof(expected_counts) / sizeof(expected_counts[0]);
    ck_assert_int_eq(count, (int)expected_count);
    for (size_t i = 0; i < expected_count; i++) {
        int found = 0;
        for (int j = 0; j < count; j++)
            found |= strcmp(counted[j], expected_counts[i]) == 0;
        ck_assert_msg(found, "%s: expected \"%s\"", jdk, expected_counts[i]);
    }
    free(out);
    free(err);
    free(plain_out);
    free(plain_err);
    free_names(&t);
}
END_TEST

/* ---- Class-file versions ------------------------------------------------------------------- */

/* Copies the class at from to to as class-file version major; below 50 without the
 * StackMapTables the old verifier would not read (javac 8 emits no jsr, so the code
 * itself is valid at any version). */
static void write_as_version(const char *from, const char *to, unsigned major)
{
    size_t size, out_size;
    char error[256];
    uint8_t *data = (uint8_t *)read_all(from, &size), *out;
    ck_assert_ptr_nonnull(data);
    cf_class *cls = cf_parse(data, size, error, sizeof(error));
    ck_assert_msg(cls != NULL, "%s", error);
    cls->major_version = (uint16_t)major;
    for (unsigned i = 0; i < cls->method_count && major < 50; i++) {
        cf_code *code = cls->methods[i].code;
        unsigned kept = 0;
        char attr[32];
        for (unsigned a = 0; code && a < code->attr_count; a++)
            if (strcmp(cf_utf8(cls, code->attrs[a].name, attr, sizeof(attr)), "StackMapTable") != 0)
                code->attrs[kept++] = code->attrs[a];
        if (code)
            code->attr_count = (uint16_t)kept;
    }
    ck_assert_int_eq(cf_write(cls, &out, &out_size, error, sizeof(error)), 0);
    ck_assert_int_eq(write_all(to, out, out_size), 0);
    free(out);
    cf_free(cls);
    free(data);
}

/* tests/classfile/java/Jumps.java at versions 49 (no stack maps: the old verifier), 50
 * (stack maps, failover allowed), 52 and 61 is instrumented, verified and run. */
START_TEST(class_versions_verify_and_run)
{
    const char *jdk = jdks[_i];
    char base[PATH_MAX], plain_path[PATH_MAX + 64], from[PATH_MAX + 64];
    snprintf(base, sizeof(base), "%s", jdk_tmp(_i, "jumps"));
    run_ok("javac", "%s/bin/javac --release 8 -Xlint:none -d %s %s/tests/classfile/java/Jumps.java "
           "%s/tests/classfile/java/RunJumps.java %s/tests/classfile/java/Bridge.java", jdk, base, src_dir, src_dir,
           src_dir);
    char *plain_out, *plain_err;
    ck_assert_int_eq(run(&plain_out, &plain_err, "%s/bin/java -cp %s RunJumps", jdk, base), 0);
    ck_assert_msg(strstr(plain_err, "enters 0 exits 0"), "%s", plain_err);

    const unsigned versions[] = {49, 50, 52, 61};
    for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
        char dir[PATH_MAX], name[32];
        snprintf(name, sizeof(name), "jumps-%u", versions[v]);
        snprintf(dir, sizeof(dir), "%s", jdk_tmp(_i, name));
        if (versions[v] == 61) /* as javac 17 compiled it, committed for the unit suite */
            snprintf(from, sizeof(from), "%s/tests/classfile/java/Jumps.class", src_dir);
        else
            snprintf(from, sizeof(from), "%s/Jumps.class", base);
        snprintf(plain_path, sizeof(plain_path), "%s/plain/Jumps.class", dir);
        write_as_version(from, plain_path, versions[v]);
        char list[PATH_MAX + 16], plain_dir[PATH_MAX + 16], inst_dir[PATH_MAX + 16];
        snprintf(list, sizeof(list), "%s/list", dir);
        snprintf(plain_dir, sizeof(plain_dir), "%s/plain", dir);
        snprintf(inst_dir, sizeof(inst_dir), "%s/inst", dir);
        ck_assert_int_eq(write_all(list, "Jumps.class\n", 12), 0);
        tree_run t = {0};
        instrument_tree(&t, plain_dir, inst_dir, list);
        ck_assert_int_eq(t.changed, 1);
        ck_assert_int_eq(t.stats.instrumented, 12);
        free_names(&t);

        char *out, *err;
        ck_assert_int_eq(run(&out, &err, "%s/bin/java -Xverify:all -cp %s:%s RunJumps", jdk, inst_dir, base), 0);
        ck_assert_str_eq(out, plain_out);
        long long enters = -1, exits = -2;
        const char *totals = strstr(err, "enters ");
        ck_assert_msg(totals && sscanf(totals, "enters %lld exits %lld", &enters, &exits) == 2, "%s", err);
        ck_assert_msg(enters == exits && enters >= 15, "version %u: %s", versions[v], err);
        free(out);
        free(err);
    }
    free(plain_out);
    free(plain_err);
}
END_TEST

/* ---- Branches beyond 32 KiB ------------------------------------------------------------------ */

/* A method whose outer if jumps over 1500 returns: their exit calls push the jump out
 * of 16-bit reach, so it is split around a goto_w with a new frame after it. */
START_TEST(split_branch_verifies_and_runs)
{
    const char *jdk = jdks[_i];
    char dir[PATH_MAX], source[PATH_MAX + 32], plain[PATH_MAX + 32], inst[PATH_MAX + 32], list[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s", jdk_tmp(_i, "big"));
    snprintf(source, sizeof(source), "%s/Big.java", dir);
    snprintf(plain, sizeof(plain), "%s/plain", dir);
    snprintf(inst, sizeof(inst), "%s/inst", dir);
    snprintf(list, sizeof(list), "%s/list", dir);
    size_t capacity = 1 << 16, n = 0;
    char *text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    n += (size_t)snprintf(text + n, capacity - n,
                          "public class Big {\n"
                          "    static int big(int x, long l, String s) {\n"
                          "        if (x >= 0) {\n");
    for (int i = 0; i < 1500; i++) {
        if (capacity - n < 100) {
            text = realloc(text, capacity *= 2);
            ck_assert_ptr_nonnull(text);
        }
        n += (size_t)snprintf(text + n, capacity - n, "            if (x == %d) return %d;\n", i, i);
    }
    n += (size_t)snprintf(text + n, capacity - n,
                          "        }\n"
                          "        return s.length() + (int) l;\n"
                          "    }\n"
                          "    public static void main(String[] args) {\n"
                          "        jevmon.Bridge.enableAll();\n"
                          "        System.out.println(big(0, 1, \"ab\") + \" \" + big(77, 1, \"ab\") + \" \"\n"
                          "            + big(1499, 1, \"ab\") + \" \" + big(-5, 1, \"abc\")\n"
                          "            + \" \" + big(5000, 2, \"x\"));\n"
                          "        long enters = 0, exits = 0;\n"
                          "        for (int i = 0; i < jevmon.Bridge.enters.length; i++) {\n"
                          "            enters += jevmon.Bridge.enters[i];\n"
                          "            exits += jevmon.Bridge.exits[i];\n"
                          "        }\n"
                          "        System.err.println(\"enters \" + enters + \" exits \" + exits);\n"
                          "    }\n"
                          "}\n");
    ck_assert_int_eq(write_all(source, text, n), 0);
    free(text);
    run_ok("javac", "%s/bin/javac --release 17 -d %s %s %s/tests/classfile/java/Bridge.java", jdk, plain, source,
           src_dir);
    ck_assert_int_eq(write_all(list, "Big.class\n", 10), 0);
    tree_run t = {.only_prefix = "Big"};
    instrument_tree(&t, plain, inst, list);
    ck_assert_int_eq(t.changed, 1);
    ck_assert_int_eq(t.stats.instrumented, 3); /* <init>, big, main */
    ck_assert_int_eq(t.stats.unsupported, 0);
    free_names(&t);

    char *plain_out, *plain_err, *out, *err;
    ck_assert_int_eq(run(&plain_out, &plain_err, "%s/bin/java -cp %s Big", jdk, plain), 0);
    ck_assert_str_eq(plain_out, "0 77 1499 4 3\n");
    ck_assert_msg(strstr(plain_err, "enters 0 exits 0"), "%s", plain_err);
    ck_assert_int_eq(run(&out, &err, "%s/bin/java -Xverify:all -cp %s:%s Big", jdk, inst, plain), 0);
    ck_assert_str_eq(out, plain_out);
    /* big five times; main enabled the bridge after its own entry and counts before its exit */
    ck_assert_msg(strstr(err, "enters 5 exits 5"), "%s", err);
    free(plain_out);
    free(plain_err);
    free(out);
    free(err);
}
END_TEST

/* ---- Suite --------------------------------------------------------------------------------- */

/* Every JDK under /usr/lib/jvm with java, javac and jimage, each once (links point to others). */
static void find_jdks(void)
{
    DIR *dir = opendir("/usr/lib/jvm");
    struct dirent *e;
    while (dir && (e = readdir(dir)) && jdk_count < MAX_JDKS) {
        char path[PATH_MAX], real[PATH_MAX], probe[PATH_MAX + 32];
        snprintf(path, sizeof(path), "/usr/lib/jvm/%s", e->d_name);
        if (e->d_name[0] == '.' || !realpath(path, real))
            continue;
        snprintf(probe, sizeof(probe), "%s/bin/jimage", real);
        if (access(probe, X_OK) != 0)
            continue;
        snprintf(probe, sizeof(probe), "%s/bin/javac", real);
        if (access(probe, X_OK) != 0)
            continue;
        int seen = 0;
        for (int i = 0; i < jdk_count; i++)
            seen |= strcmp(jdks[i], real) == 0;
        if (!seen)
            snprintf(jdks[jdk_count++], sizeof(jdks[0]), "%s", real);
    }
    if (dir)
        closedir(dir);
}

int main(void)
{
    const char *src = getenv("JEVMON_SRC");
    if (!src || !realpath(src, src_dir))
        ck_assert_ptr_nonnull(getcwd(src_dir, sizeof(src_dir)));
    snprintf(work_dir, sizeof(work_dir), "/tmp/jevmon-classfile-XXXXXX");
    if (!mkdtemp(work_dir))
        return 2;
    find_jdks();
    Suite *s = suite_create("classfile_jdk");
    TCase *tc = tcase_create("jdk");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, java_base_verifies_and_runs, 0, jdk_count);
    tcase_add_loop_test(tc, sample_runs_the_same_and_counts, 0, jdk_count);
    tcase_add_loop_test(tc, class_versions_verify_and_run, 0, jdk_count);
    tcase_add_loop_test(tc, split_branch_verifies_and_runs, 0, jdk_count);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cleanup[PATH_MAX + 16];
    snprintf(cleanup, sizeof(cleanup), "rm -rf %s", work_dir);
    if (system(cleanup) != 0)
        fprintf(stderr, "could not remove %s\n", work_dir);
    return jdk_count > 0 && failed == 0 ? 0 : 1;
}

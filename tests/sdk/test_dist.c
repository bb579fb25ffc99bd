/*
 * test_dist.c - the dist archives as a porter gets them: make dist, each archive
 * (jevmon-win64.zip, jevmon-win32.zip) extracted into a temporary directory, a C monitor
 * (sdk_monitor/countmon.c) and a C++ one (samples/callcount/callcount.cpp) copied out of the
 * tree and built with exactly the commands of the archive's README.txt, then, under Wine in
 * the target's prefix: registered with regsvr32, their registry keys read back with reg,
 * created with CoCreateInstance (sdk_monitor/cocreate.c, built from the archive's headers and
 * libraries), unregistered, and the keys found gone.  x86 monitors are registered where
 * 32-bit Wine runs; elsewhere they are only built, and one line says `skipped:`.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/testkit.h"
#include "support/jvmrun.h"

enum { WIN64, WIN32, TARGETS };

static const struct dist_target {
    const char *name;    /* of the archive: jevmon-<name>.zip */
    const char *loader;  /* its variable in build/deps/wine.env */
    const char *prefix;  /* the prefix's variable there */
    const char *server;  /* the wineserver of the loader's package (Debian's wine64, wine32) */
    const char *triplet; /* of the MinGW-w64 compilers */
} targets[TARGETS] = {
    {"win64", "JEVMON_WINE64", "JEVMON_WINEPREFIX64", "wineserver64", "x86_64-w64-mingw32"},
    {"win32", "JEVMON_WINE32", "JEVMON_WINEPREFIX32", "wineserver32", "i686-w64-mingw32"},
};

/* The monitors, as README.txt's lines name their sources: "  C:    ... monitor.c ...". */
static const struct dist_monitor {
    const char *language; /* README.txt's label of the line */
    const char *source;   /* in the source tree */
    const char *copy;     /* the name README.txt's line builds */
    const char *clsid, *key_name;
} monitors[] = {
    {"C", "tests/sdk/sdk_monitor/countmon.c", "monitor.c", "{6B3E2D41-9C57-4F08-A1D2-3E8F7B6C5A94}", "countmon"},
    {"C++", "samples/callcount/callcount.cpp", "monitor.cpp", "{0A2F6C9B-77EC-4D2A-8084-DCAFBC265070}", "callcount"},
};
#define MONITORS (sizeof(monitors) / sizeof(monitors[0]))

static char tmp[256];            /* jevmon-win64/ and jevmon-win32/, extracted */
static char wine[TARGETS][1200]; /* the command prefix that runs a program under the target's Wine; "" if none */
static char server[TARGETS][1100]; /* "WINEPREFIX=... wineserver" of that prefix */
static int server_started[TARGETS];

/* The value of NAME=value in the text of wine.env, malloc'd; "" when it is not there. */
static char *wine_env_value(const char *env, const char *name)
{
    size_t length = strlen(name);
    for (const char *line = env; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, name, length) == 0 && line[length] == '=')
            return strndup(line + length + 1, strcspn(line + length + 1, "\n"));
    return strdup("");
}

/* A prefix's wineserver stays up for the whole suite: one left alone quits a few seconds after
 * its last client, and a program starting in those seconds fails (as tools/run-tests.sh says).
 * One already running that does not quit within 15 s belongs to another run and is left to it. */
static void start_server(int t)
{
    char *out;
    ck_assert_int_eq(jvmrun_shell(tmp, &out, NULL, "if %s -p 2>/dev/null || { timeout 15 %s -w; %s -p 2>/dev/null; }; "
                                  "then echo started; fi", server[t], server[t], server[t]), 0);
    server_started[t] = strstr(out, "started") != NULL;
    free(out);
}

/* Once for the suite: make dist, each archive extracted, cocreate.exe built from it, the Wine of each target. */
static void extract_archives(void)
{
    snprintf(tmp, sizeof(tmp), "/tmp/jevmon-dist-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "make -C '%s' dist", jvmrun_source_dir()), 0);
    char *env = tk_read_file(jvmrun_build_path("../deps/wine.env"));
    for (int t = 0; t < TARGETS; t++) {
        const struct dist_target *d = &targets[t];
        ck_assert_int_eq(jvmrun_shell(tmp, NULL, NULL, "unzip -q '%s/build/dist/jevmon-%s.zip' && cd jevmon-%s && "
                                      "cp '%s/tests/sdk/sdk_monitor/cocreate.c' . && %s-gcc -static -Iinclude cocreate.c "
                                      "-o cocreate.exe -Llib -ljevsdk -ljevplat -lole32 -loleaut32 -luuid -ladvapi32 -lshlwapi",
                                      jvmrun_source_dir(), d->name, d->name, jvmrun_source_dir(), d->triplet), 0);
        char *loader = wine_env_value(env, d->loader), *prefix = wine_env_value(env, d->prefix);
        wine[t][0] = server[t][0] = '\0';
        if (loader[0] && prefix[0] && access(loader, X_OK) == 0) {
            /* the server binary beside the loader: Debian's wine64 and wine32 packages each have theirs */
            const char *dir_end = strrchr(loader, '/');
            int dir_length = (int)(dir_end - loader);
            snprintf(server[t], sizeof(server[t]), "WINEPREFIX='%s' '%.*s/%s'", prefix, dir_length, loader, d->server);
            snprintf(wine[t], sizeof(wine[t]),
                     "env -u DISPLAY -u WAYLAND_DISPLAY WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml=' WINEPREFIX='%s' "
                     "WINESERVER='%.*s/%s' '%s'", prefix, dir_length, loader, d->server, loader);
            start_server(t);
        }
        free(loader);
        free(prefix);
    }
    free(env);
}

static void remove_tmp(void)
{
    for (int t = 0; t < TARGETS; t++)
        if (server_started[t])
            jvmrun_shell(tmp, NULL, NULL, "%s -k", server[t]);
    jvmrun_remove_shell_dir(tmp, "jevmon-win64 jevmon-win32");
}

/* Runs a program under the target's Wine in dir: its exit status, what it printed on either
 * stream in *out (malloc'd).  A Wine program that failed without printing a byte never ran (a
 * loader giving up, as tools/run-tests.sh says of whole suites; twice a full check saw it here):
 * it is run once more, and a line says so.  One that printed anything is taken at its word. */
static int run_wine(int t, const char *dir, char **out, const char *format, ...)
{
    char command[2048];
    va_list ap;
    va_start(ap, format);
    vsnprintf(command, sizeof(command), format, ap);
    va_end(ap);
    int status = 0;
    for (int attempt = 1; attempt <= 2; attempt++) {
        status = jvmrun_shell(dir, out, NULL, "%s %s 2>&1", wine[t], command);
        if (status == 0 || (*out)[strspn(*out, " \t\r\n")] || attempt == 2)
            break;
        printf("note: %s under Wine printed nothing and exited with status %d; running it again\n", command, status);
        free(*out);
    }
    return status;
}

/* reg query of a key (a value of it: "/ve", "/v CLSID") under the target's Wine: its exit
 * status (0 found, 1 not), what it printed in *out (malloc'd). */
static int reg_query(int t, const char *key, const char *value, char **out)
{
    return run_wine(t, tmp, out, "reg query '%s' %s", key, value);
}

/* Loop over every target and monitor: built from README.txt's line; registered, read back,
 * created and unregistered where the target's Wine runs. */
START_TEST(monitor_built_as_the_readme_says_registers_and_loads)
{
    int t = _i / (int)MONITORS;
    const struct dist_target *d = &targets[t];
    const struct dist_monitor *m = &monitors[_i % (int)MONITORS];
    char dir[300], dll[400];
    snprintf(dir, sizeof(dir), "%s/jevmon-%s", tmp, d->name);

    /* exactly README.txt's line for the language, run in the archive's directory */
    char *line;
    ck_assert_int_eq(jvmrun_shell(dir, &line, NULL, "tr -d '\\r' <README.txt | sed -n 's/^  %s: *//p'", m->language), 0);
    ck_assert_msg(strstr(line, m->copy) && strstr(line, "monitor.dll"), "README.txt of jevmon-%s has no %s line for %s: '%s'",
                  d->name, m->language, m->copy, line);
    if (t == WIN64) { /* docs/porting.md shows the same lines, x64's */
        char readme_path[600];
        snprintf(readme_path, sizeof(readme_path), "%s/docs/porting.md", jvmrun_source_dir());
        char *readme = tk_read_file(readme_path);
        ck_assert_msg(strstr(readme, line) != NULL, "docs/porting.md does not show README.txt's line: %s", line);
        free(readme);
    }
    free(line);
    ck_assert_int_eq(jvmrun_shell(dir, NULL, NULL, "rm -f monitor.dll && cp '%s/%s' %s && "
                                  "eval \"$(tr -d '\\r' <README.txt | sed -n 's/^  %s: *//p')\"",
                                  jvmrun_source_dir(), m->source, m->copy, m->language), 0);
    if (!wine[t][0]) {
        printf("skipped: jevmon-%s %s monitor built but not registered: no %s Wine here (build/deps/wine.env)\n",
               d->name, m->language, d->name);
        return;
    }

    /* regsvr32 wants a Windows path: every prefix maps Z: to / */
    snprintf(dll, sizeof(dll), "Z:%s/monitor.dll", dir);
    for (char *c = dll; *c; c++)
        *c = *c == '/' ? '\\' : *c;
    char class_key[128], monitor_key[128], *out;
    snprintf(class_key, sizeof(class_key), "HKCR\\CLSID\\%s\\InprocServer32", m->clsid);
    snprintf(monitor_key, sizeof(monitor_key), "HKLM\\Software\\Microsoft\\Java VM\\Monitors\\%s", m->key_name);
    /* without /s, so that regsvr32 says what it did */
    int status = run_wine(t, dir, &out, "regsvr32 '%s'", dll);
    ck_assert_msg(status == 0 && strstr(out, "Successfully registered"),
                  "regsvr32 (%s) did not register the %s monitor built by README.txt's line (status %d):\n%s", d->name,
                  m->language, status, out);
    free(out);
    status = reg_query(t, class_key, "/ve", &out);
    ck_assert_msg(status == 0 && strstr(out, dll), "%s does not name %s (reg: status %d):\n%s", class_key, dll, status, out);
    free(out);
    status = reg_query(t, monitor_key, "/v CLSID", &out);
    ck_assert_msg(status == 0 && strstr(out, m->clsid), "%s has no CLSID %s (reg: status %d):\n%s", monitor_key, m->clsid,
                  status, out);
    free(out);

    status = run_wine(t, dir, &out, "cocreate.exe '%s'", m->clsid);
    ck_assert_msg(status == 0 && strstr(out, "created"), "cocreate (status %d) said: %s", status, out);
    free(out);

    status = run_wine(t, dir, &out, "regsvr32 /u '%s'", dll);
    ck_assert_msg(status == 0 && strstr(out, "Successfully unregistered"), "regsvr32 /u (status %d):\n%s", status, out);
    free(out);
    ck_assert_msg(reg_query(t, class_key, "/ve", &out) != 0, "%s is still there after regsvr32 /u:\n%s", class_key, out);
    free(out);
    ck_assert_msg(reg_query(t, monitor_key, "", &out) != 0, "%s is still there after regsvr32 /u:\n%s", monitor_key, out);
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("dist");
    tcase_set_timeout(tc, 600);
    tcase_add_unchecked_fixture(tc, extract_archives, remove_tmp);
    tcase_add_loop_test(tc, monitor_built_as_the_readme_says_registers_and_loads, 0, TARGETS * (int)MONITORS);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

/* jvmrun.c - starts JVMs under the agent for the end-to-end suites (see jvmrun.h). */
#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jvmrun.h"
#include "testkit.h"

/* The test monitors' classes, each with the fixture that serves it. */
#define FX_CLASSES {"{63DAD816-1308-449B-AC11-1E702EB2D15F}", "fx_monitor"}, \
    {"{8A05A603-576C-454C-A8A9-8A406868B147}", "fx_monitor"}, {"{E846DFC8-41E2-4840-921D-4768E1719E7F}", "fx_idinfo"}, \
    {"{5B0C3E51-7D1A-4E8F-9C2B-614AD03F8712}", "fx_heapmon"}, \
    {"{821E1225-5E6E-41E1-87BE-6280CCB05DAD}", "fx_sampler"}, {"{2F7C95E4-0B1D-4C6A-9E38-5A7D13C4B8F1}", "fx_original"}, \
    {"{3C1E7A52-96B4-4D0F-A17E-5B22C9804F61}", "fx_vthreads"}, \
    {"{D90F8947-5159-428E-9FA8-E9A83B220B7C}", "fx_attach"}, {"{5C0E9F3A-2B71-4D8E-9A43-6F15E27BC094}", "fx_silent"}, \
    {"{6E2B4D17-0A93-4C58-B721-3D9E4F801A65}", "fx_maskflip"}, {"{BD3CFA34-DC97-41CB-B5A5-BE48428D8CEF}", "fx_batches"}

int jvmrun_find_jdks(char jdks[JVMRUN_MAX_JDKS][512])
{
    int n = 0;
    DIR *dir = opendir("/usr/lib/jvm");
    struct dirent *e;
    while (dir && (e = readdir(dir)) && n < JVMRUN_MAX_JDKS) {
        char path[600], real[PATH_MAX];
        real[0] = '\0';
        snprintf(path, sizeof(path), "/usr/lib/jvm/%s/bin/java", e->d_name);
        if (e->d_name[0] == '.' || access(path, X_OK) != 0 || !realpath(path, real))
            continue;
        const char *only = getenv("JEVMON_TEST_JDK"); /* run-tests.sh's sanitized runs take one JDK */
        if (only && *only && !strstr(real, only))
            continue;
        int seen = 0;
        for (int i = 0; i < n; i++)
            seen |= strcmp(jdks[i], real) == 0;
        if (!seen)
            snprintf(jdks[n++], 512, "%.511s", real);
    }
    if (dir)
        closedir(dir);
    return n;
}

int jvmrun_suite_jdks(char jdks[JVMRUN_MAX_JDKS][512])
{
    int n = jvmrun_find_jdks(jdks);
    if (!n)
        printf("skipped: no JDK under /usr/lib/jvm\n");
    for (int i = 0; i < n; i++)
        printf("JDK %d: %s\n", i, jdks[i]);
    return n;
}

int jvmrun_jdk_release(const char *java)
{
    char dir[600], path[700], line[256];
    snprintf(dir, sizeof(dir), "%s", java);
    snprintf(path, sizeof(path), "%s/release", dirname(dirname(dir)));
    FILE *f = fopen(path, "r");
    int release = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "JAVA_VERSION=\"%d", &release) == 1)
            break;
    if (f)
        fclose(f);
    return release;
}

int jvmrun_sanitized(void)
{
    const char *preload = getenv("LD_PRELOAD");
    return preload && strstr(preload, "libasan") != NULL;
}

/* <build>/<name> into path (2 * PATH_MAX bytes). */
static void build_path(char *path, const char *name)
{
    const char *env = getenv("JEVMON_BUILD");
    if (env)
        snprintf(path, 2 * PATH_MAX, "%.*s/%s", PATH_MAX, env, name);
    else {
        char self[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
        self[len > 0 ? len : 0] = '\0';
        char *cut = strstr(self, "/asan/tests/");
        if (cut)
            *cut = '\0';
        snprintf(path, 2 * PATH_MAX, "%.*s/%s", PATH_MAX, self, name);
    }
}

const char *jvmrun_build_path(const char *name)
{
    static char path[2 * PATH_MAX];
    build_path(path, name);
    return path;
}

const char *jvmrun_source_dir(void)
{
    static char dir[2 * PATH_MAX];
    const char *env = getenv("JEVMON_SRC");
    if (env)
        snprintf(dir, sizeof(dir), "%.*s", PATH_MAX, env);
    else
        build_path(dir, "../..");
    return dir;
}

/* The text of dir's file name, malloc'd; NULL when there is no such file. */
static char *read_output(const char *dir, const char *name)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX - 1, dir, name);
    return access(path, R_OK) == 0 ? tk_read_file(path) : NULL;
}

int jvmrun_shell(const char *dir, char **out, char **err, const char *format, ...)
{
    char command[8192], line[8192 + PATH_MAX + 128];
    va_list ap;
    va_start(ap, format);
    vsnprintf(command, sizeof(command), format, ap);
    va_end(ap);
    snprintf(line, sizeof(line), "unset MAKEFLAGS MFLAGS MAKELEVEL; cd '%.*s' && ( %s ) >out.txt 2>err.txt",
             PATH_MAX - 1, dir, command);
    int status = system(line);
    status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    char *out_text = read_output(dir, "out.txt"), *err_text = read_output(dir, "err.txt");
    ck_assert_msg(out_text && err_text, "no output files of: %s", line);
    if (status != 0)
        fprintf(stderr, "command failed (%d): %s\n%s%s\n", status, command, out_text, err_text);
    if (out)
        *out = out_text;
    else
        free(out_text);
    if (err)
        *err = err_text;
    else
        free(err_text);
    return status;
}

void jvmrun_remove_shell_dir(const char *dir, const char *contents)
{
    jvmrun_shell(dir, NULL, NULL, "rm -rf %s", contents);
    static const char *const outputs[] = {"out.txt", "err.txt"}; /* jvmrun_shell's own */
    for (size_t i = 0; i < 2; i++) {
        char path[PATH_MAX + 16];
        snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX - 1, dir, outputs[i]);
        unlink(path);
    }
    rmdir(dir);
}

int jvmrun_jevprof_script(const char *arguments)
{
    char command[2 * PATH_MAX + 2048];
    snprintf(command, sizeof(command), "'%s/bin/jevprof' %s >&2", jvmrun_source_dir(), arguments);
    int status = system(command);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void jvmrun_write_jevprof_registry(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fprintf(f, "Windows Registry Editor Version 5.00\n\n"
               "[HKEY_LOCAL_MACHINE\\Software\\Classes\\CLSID\\" JVMRUN_JEVPROF_CLSID "\\InprocServer32]\n"
               "@=\"%s\"\n\"ThreadingModel\"=\"Both\"\n",
            jvmrun_build_path("libjevprof.so"));
    fclose(f);
}

/* A registry file that registers the test monitor's classes. */
static void write_registry(const char *path)
{
    static const struct { const char *clsid, *fixture; } classes[] = {FX_CLASSES};
    FILE *f = fopen(path, "w");
    fprintf(f, "Windows Registry Editor Version 5.00\n\n");
    for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++) {
        char fixture[64];
        snprintf(fixture, sizeof(fixture), "fixtures/%s.so", classes[i].fixture);
        fprintf(f, "[HKEY_CLASSES_ROOT\\CLSID\\%s\\InprocServer32]\n@=\"%s\"\n\"ThreadingModel\"=\"Both\"\n\n",
                classes[i].clsid, jvmrun_build_path(fixture));
    }
    fclose(f);
    chmod(path, 0644);
}

void jvmrun(const char *jdk, const char *agent_options, const char *const *env, const char *const *args,
            jvmrun_result *r)
{
    jvmrun_main(jdk, "BridgeWorkload", agent_options, env, args, r);
}

/* A file of the run's directory. */
static const char *run_file(const jvmrun_process *p, const char *name)
{
    static char path[2][4096 + 32];
    static int turn;
    turn ^= 1;
    snprintf(path[turn], sizeof(path[turn]), "%s/%s", p->dir, name);
    return path[turn];
}

void jvmrun_start(jvmrun_process *p, const char *jdk, const char *main_class, const char *agent_options,
                  const char *const *env, const char *const *args)
{
    char agent[2 * PATH_MAX + 64], classpath[2 * PATH_MAX], out_path[4200], err_path[4200];
    int pipe_fds[2];
    snprintf(p->dir, sizeof(p->dir), "%.*s", PATH_MAX - 1, jvmrun_build_path("jvmrun.XXXXXX"));
    if (!mkdtemp(p->dir) || pipe(pipe_fds) != 0)
        abort();
    write_registry(run_file(p, "system.reg"));
    snprintf(agent, sizeof(agent), "-agentpath:%s%s%s", jvmrun_build_path("libjevmon.so"),
             agent_options && agent_options[0] ? "=" : "", agent_options ? agent_options : "");
    snprintf(classpath, sizeof(classpath), "%s", jvmrun_build_path("java"));
    snprintf(out_path, sizeof(out_path), "%s", run_file(p, "out"));
    snprintf(err_path, sizeof(err_path), "%s", run_file(p, "err"));

    pid_t pid = fork();
    if (pid == 0) {
        setenv("JEVMON_REGISTRY_SYSTEM", run_file(p, "system.reg"), 1);
        setenv("JEVMON_REGISTRY_USER", run_file(p, "user.reg"), 1);
        setenv("FXMON_LOG", run_file(p, "monitor.log"), 1);
        unsetenv("JEVMON_REGISTRY_FILES");
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(pipe_fds[0], 0);
        dup2(out, 1);
        dup2(err, 2);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        const char *argv[64];
        int argc = 0;
        argv[argc++] = jdk;
        argv[argc++] = "-Xshare:auto";
        if (agent_options)
            argv[argc++] = agent;
        argv[argc++] = "-cp";
        argv[argc++] = classpath;
        argv[argc++] = main_class;
        for (const char *const *a = args; *a && argc < 62; a++)
            argv[argc++] = *a;
        argv[argc] = NULL;
        execv(jdk, (char *const *)argv);
        _exit(127);
    }
    close(pipe_fds[0]);
    p->pid = (int)pid;
    p->input = pipe_fds[1];
}

void jvmrun_send(jvmrun_process *p, const char *line)
{
    size_t len = strlen(line);
    if (p->input < 0 || write(p->input, line, len) != (ssize_t)len || write(p->input, "\n", 1) != 1)
        fprintf(stderr, "could not write \"%s\" to the program\n", line);
}

int jvmrun_wait_output(jvmrun_process *p, const char *what, int count, int timeout_ms)
{
    for (int waited = 0;; waited += 20) {
        char *out = tk_read_file(run_file(p, "out"));
        int found = out && tk_count(out, what) >= count;
        free(out);
        if (found)
            return 1;
        if (waited >= timeout_ms || waitpid(p->pid, NULL, WNOHANG) == p->pid)
            return 0;
        usleep(20000);
    }
}

void jvmrun_finish(jvmrun_process *p, jvmrun_result *r)
{
    static const char *const files[] = {"out", "err", "monitor.log", "system.reg", "user.reg"};
    if (p->input >= 0)
        close(p->input);
    p->input = -1;
    int status = 0;
    waitpid(p->pid, &status, 0);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->out = tk_read_file(run_file(p, "out"));
    r->err = tk_read_file(run_file(p, "err"));
    r->log = tk_read_file(run_file(p, "monitor.log"));
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
        unlink(run_file(p, files[i]));
    rmdir(p->dir);
}

void jvmrun_main(const char *jdk, const char *main_class, const char *agent_options, const char *const *env,
                 const char *const *args, jvmrun_result *r)
{
    jvmrun_process p;
    jvmrun_start(&p, jdk, main_class, agent_options, env, args);
    jvmrun_finish(&p, r);
}

void jvmrun_free(jvmrun_result *r)
{
    free(r->out);
    free(r->err);
    free(r->log);
}

int jvmrun_count(const char *text, const char *what)
{
    return tk_count(text, what);
}

long long jvmrun_field(const char *text, const char *line_start, const char *key)
{
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t length = end ? (size_t)(end - p) : strlen(p);
        if (!strncmp(p, line_start, strlen(line_start))) {
            char copy[8192];
            snprintf(copy, sizeof(copy), "%.*s", (int)length, p);
            const char *at = strstr(copy, key);
            return at ? atoll(at + strlen(key)) : -1;
        }
        p = end ? end + 1 : NULL;
    }
    return -1;
}

int jvmrun_check_flame_graph(const char *dir, const char *frame, const char *kind)
{
    char command[16384];
    if (system("command -v node >/dev/null && command -v ${CHROMIUM:-chromium} >/dev/null") != 0) {
        fprintf(stderr, "note: no node or chromium: the flame graph is not tried in a browser\n");
        return 0;
    }
    /* Without a sanitizer runtime the sanitized runs preload: the browser is not built for it. */
    snprintf(command, sizeof(command), "env -u LD_PRELOAD node '%s/tools/flamegraph-check.js' '%s/jevprof-flame.html' '%s'%s%s%s >&2",
             jvmrun_source_dir(), dir, frame, kind ? " '" : "", kind ? kind : "", kind ? "'" : "");
    int status = system(command);
    if (status != 0)
        fprintf(stderr, "%s failed\n", command);
    return status;
}

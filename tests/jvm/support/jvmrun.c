/* jvmrun.c - starts JVMs under the agent for the end-to-end suites (see jvmrun.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jvmrun.h"
#include "../../support/testkit.h"

/* The test monitors' classes, each with the fixture that serves it. */
#define FX_CLASSES {"{63DAD816-1308-449B-AC11-1E702EB2D15F}", "fx_monitor"}, \
    {"{8A05A603-576C-454C-A8A9-8A406868B147}", "fx_monitor"}, {"{E846DFC8-41E2-4840-921D-4768E1719E7F}", "fx_idinfo"}, \
    {"{5B0C3E51-7D1A-4E8F-9C2B-614AD03F8712}", "fx_heapmon"}, \
    {"{821E1225-5E6E-41E1-87BE-6280CCB05DAD}", "fx_sampler"}, {"{2F7C95E4-0B1D-4C6A-9E38-5A7D13C4B8F1}", "fx_original"}, \
    {"{3C1E7A52-96B4-4D0F-A17E-5B22C9804F61}", "fx_vthreads"}

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

const char *jvmrun_build_path(const char *name)
{
    static char path[2 * PATH_MAX];
    const char *env = getenv("JEVMON_BUILD");
    if (env)
        snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX, env, name);
    else {
        char self[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
        self[len > 0 ? len : 0] = '\0';
        char *cut = strstr(self, "/asan/tests/");
        if (cut)
            *cut = '\0';
        snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX, self, name);
    }
    return path;
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

void jvmrun_main(const char *jdk, const char *main_class, const char *agent_options, const char *const *env,
                 const char *const *args, jvmrun_result *r)
{
    char dir[PATH_MAX], out_path[PATH_MAX + 16], err_path[PATH_MAX + 16], log_path[PATH_MAX + 16],
        reg_path[PATH_MAX + 16], agent[2 * PATH_MAX + 64], classpath[2 * PATH_MAX];
    snprintf(dir, sizeof(dir), "%.*s", PATH_MAX - 1, jvmrun_build_path("jvmrun.XXXXXX"));
    if (!mkdtemp(dir))
        abort();
    snprintf(out_path, sizeof(out_path), "%s/out", dir);
    snprintf(err_path, sizeof(err_path), "%s/err", dir);
    snprintf(log_path, sizeof(log_path), "%s/monitor.log", dir);
    snprintf(reg_path, sizeof(reg_path), "%s/system.reg", dir);
    write_registry(reg_path);
    snprintf(agent, sizeof(agent), "-agentpath:%s%s%s", jvmrun_build_path("libjevmon.so"),
             agent_options && agent_options[0] ? "=" : "", agent_options ? agent_options : "");
    snprintf(classpath, sizeof(classpath), "%s", jvmrun_build_path("java"));

    pid_t pid = fork();
    if (pid == 0) {
        setenv("JEVMON_REGISTRY_SYSTEM", reg_path, 1);
        char user_reg[PATH_MAX + 16];
        snprintf(user_reg, sizeof(user_reg), "%s/user.reg", dir);
        setenv("JEVMON_REGISTRY_USER", user_reg, 1);
        setenv("FXMON_LOG", log_path, 1);
        unsetenv("JEVMON_REGISTRY_FILES");
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(err, 2);
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
    int status = 0;
    waitpid(pid, &status, 0);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->out = tk_read_file(out_path);
    r->err = tk_read_file(err_path);
    r->log = tk_read_file(log_path);
    unlink(out_path);
    unlink(err_path);
    unlink(log_path);
    unlink(reg_path);
    char user_reg[PATH_MAX + 16];
    snprintf(user_reg, sizeof(user_reg), "%s/user.reg", dir);
    unlink(user_reg);
    rmdir(dir);
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

/* samplerun.c - runs SampleWorkload under the agent with the sample monitors (see samplerun.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/jvmrun.h"
#include "samplerun.h"
#include "../../support/testkit.h"

/* dir/name, in a buffer of the caller's. */
static void in_dir(const samplerun *s, const char *name, char *path, size_t size)
{
    snprintf(path, size, "%.*s/%.60s", PATH_MAX - 64, s->dir, name);
}

void samplerun_begin(samplerun *s)
{
    memset(s, 0, sizeof(*s));
    snprintf(s->dir, sizeof(s->dir), "%.*s", PATH_MAX - 1, jvmrun_build_path("samplerun.XXXXXX"));
    if (!mkdtemp(s->dir))
        abort();
}

void samplerun_end(samplerun *s)
{
    DIR *dir = opendir(s->dir);
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        char path[PATH_MAX];
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            in_dir(s, e->d_name, path, sizeof(path));
            unlink(path);
        }
    }
    if (dir)
        closedir(dir);
    rmdir(s->dir);
}

const char *samplerun_src_path(const char *name)
{
    static char path[2 * PATH_MAX];
    const char *env = getenv("JEVMON_SRC");
    if (env)
        snprintf(path, sizeof(path), "%.*s/%s", PATH_MAX, env, name);
    else
        snprintf(path, sizeof(path), "%.*s../../%s", PATH_MAX, jvmrun_build_path(""), name);
    return path;
}

const char *samplerun_sample_path(const char *sample)
{
    char name[256];
    snprintf(name, sizeof(name), "samples/%.200s.so", sample);
    return jvmrun_build_path(name);
}

/* The class key goes into system.reg, as the platform layer writes HKCR there. */
void samplerun_register_class(samplerun *s, const char *clsid, const char *sample)
{
    char path[PATH_MAX];
    in_dir(s, "system.reg", path, sizeof(path));
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fprintf(f, "Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\%s\\InprocServer32]\n@=\"%s\"\n"
               "\"ThreadingModel\"=\"Both\"\n",
            clsid, samplerun_sample_path(sample));
    fclose(f);
}

void samplerun_add_reg_file(samplerun *s, const char *repo_relative)
{
    if (s->file_count == SAMPLERUN_MAX_FILES)
        abort();
    snprintf(s->files[s->file_count++], PATH_MAX, "%.*s", PATH_MAX - 1, samplerun_src_path(repo_relative));
}

void samplerun_write_reg_file(samplerun *s, const char *name, const char *text)
{
    if (s->file_count == SAMPLERUN_MAX_FILES)
        abort();
    char path[PATH_MAX];
    in_dir(s, name, path, sizeof(path));
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0)
        abort();
    fclose(f);
    memcpy(s->files[s->file_count++], path, sizeof(path));
}

/* In a child about to exec: the run's registry, and nothing inherited that would change what runs. */
static void use_registry(const samplerun *s)
{
    char path[PATH_MAX], files[SAMPLERUN_MAX_FILES * PATH_MAX] = "";
    in_dir(s, "system.reg", path, sizeof(path));
    setenv("JEVMON_REGISTRY_SYSTEM", path, 1);
    in_dir(s, "user.reg", path, sizeof(path));
    setenv("JEVMON_REGISTRY_USER", path, 1);
    for (int i = 0; i < s->file_count; i++) {
        if (i)
            strcat(files, ":");
        strcat(files, s->files[i]);
    }
    if (s->file_count)
        setenv("JEVMON_REGISTRY_FILES", files, 1);
    else
        unsetenv("JEVMON_REGISTRY_FILES");
    unsetenv("MSJAVA_EVENT_MONITORS");
    unsetenv("MSJAVA_ENABLE_MONITORS");
    unsetenv("LOGMON_EVENTS");
}

/* Runs argv with stdout and stderr into the run's files out and err; the exit code. */
static int run(const samplerun *s, const char *const *argv, const char *const *env)
{
    pid_t pid = fork();
    if (pid == 0) {
        char path[PATH_MAX];
        use_registry(s);
        for (const char *const *e = env; e && *e; e++)
            putenv((char *)*e);
        in_dir(s, "out", path, sizeof(path));
        int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        in_dir(s, "err", path, sizeof(path));
        int err = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(out, 1);
        dup2(err, 2);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int samplerun_regsvr(samplerun *s, const char *sample)
{
    char regsvr[PATH_MAX], so[PATH_MAX];
    snprintf(regsvr, sizeof(regsvr), "%s", jvmrun_build_path("jevmon-regsvr"));
    snprintf(so, sizeof(so), "%s", samplerun_sample_path(sample));
    const char *argv[] = {regsvr, so, NULL};
    return run(s, argv, NULL);
}

char *samplerun_system_reg(samplerun *s)
{
    char path[PATH_MAX];
    in_dir(s, "system.reg", path, sizeof(path));
    return tk_read_file(path);
}

void samplerun_java(samplerun *s, const char *jdk, int with_agent, const char *const *env, const char *const *args,
                    samplerun_result *r)
{
    char agent[PATH_MAX + 16], classpath[PATH_MAX], logmon[PATH_MAX + 16], callcount[PATH_MAX + 16],
        path[PATH_MAX];
    snprintf(agent, sizeof(agent), "-agentpath:%s", jvmrun_build_path("libjevmon.so"));
    snprintf(classpath, sizeof(classpath), "%s", jvmrun_build_path("java"));
    snprintf(logmon, sizeof(logmon), "LOGMON_FILE=%.*s/logmon.log", PATH_MAX - 64, s->dir);
    snprintf(callcount, sizeof(callcount), "CALLCOUNT_FILE=%.*s/callcount.txt", PATH_MAX - 64, s->dir);

    const char *argv[32];
    int argc = 0;
    argv[argc++] = jdk;
    argv[argc++] = "-Xshare:auto";
    if (with_agent)
        argv[argc++] = agent;
    argv[argc++] = "-cp";
    argv[argc++] = classpath;
    argv[argc++] = "SampleWorkload";
    for (const char *const *a = args; a && *a && argc < 31; a++)
        argv[argc++] = *a;
    argv[argc] = NULL;

    const char *full_env[32];
    int envc = 0;
    full_env[envc++] = logmon;
    full_env[envc++] = callcount;
    if (with_agent)
        full_env[envc++] = "MSJAVA_ENABLE_MONITORS=1";
    for (const char *const *e = env; e && *e && envc < 31; e++)
        full_env[envc++] = *e;
    full_env[envc] = NULL;

    /* Both files are removed first: the samples append to or replace them, and each run starts clean. */
    in_dir(s, "logmon.log", path, sizeof(path));
    unlink(path);
    in_dir(s, "callcount.txt", path, sizeof(path));
    unlink(path);

    r->exit_code = run(s, argv, full_env);
    in_dir(s, "out", path, sizeof(path));
    r->out = tk_read_file(path);
    in_dir(s, "err", path, sizeof(path));
    r->err = tk_read_file(path);
    in_dir(s, "logmon.log", path, sizeof(path));
    r->logmon = tk_read_file(path);
    in_dir(s, "callcount.txt", path, sizeof(path));
    r->callcount = tk_read_file(path);
}

void samplerun_free(samplerun_result *r)
{
    free(r->out);
    free(r->err);
    free(r->logmon);
    free(r->callcount);
}

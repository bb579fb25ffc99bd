/*
 * samplerun.h - running SampleWorkload under the agent with the sample monitors
 * (samples/logmon, samples/callcount) for tests/sdk/test_samples.c.
 *
 * Each run gets a private registry in a temporary directory: its own system.reg and
 * user.reg (JEVMON_REGISTRY_SYSTEM / _USER) and a list of extra read-only .reg files
 * (JEVMON_REGISTRY_FILES), so a test registers a sample the way a user would: with
 * jevmon-regsvr, or with the COM class key plus one of the repository's registry/ .reg files.
 */
#ifndef JEVMON_TEST_SAMPLERUN_H
#define JEVMON_TEST_SAMPLERUN_H

#include <limits.h>

#define SAMPLERUN_MAX_FILES 4

typedef struct samplerun {
    char dir[PATH_MAX];                               /* the run's temporary directory */
    char files[SAMPLERUN_MAX_FILES][PATH_MAX];        /* extra .reg files, read-only */
    int file_count;
} samplerun;

typedef struct samplerun_result {
    int exit_code;
    char *out;       /* the program's stdout */
    char *err;       /* its stderr */
    char *logmon;    /* what logmon wrote to LOGMON_FILE ("" if nothing) */
    char *callcount; /* what callcount wrote to CALLCOUNT_FILE ("" if nothing) */
} samplerun_result;

/* A fresh temporary directory with an empty registry. */
void samplerun_begin(samplerun *s);
/* Removes the directory and everything in it. */
void samplerun_end(samplerun *s);

/* <repo>/<name>: the repository is JEVMON_SRC, or the parent of the build directory's parent. */
const char *samplerun_src_path(const char *name);
/* <build>/samples/<sample>.so */
const char *samplerun_sample_path(const char *sample);

/* Writes HKCR\CLSID\<clsid>\InprocServer32 for the sample into the run's system.reg. */
void samplerun_register_class(samplerun *s, const char *clsid, const char *sample);
/* Adds a .reg file (path relative to the repository) to the run's read-only files. */
void samplerun_add_reg_file(samplerun *s, const char *repo_relative);
/* Writes a .reg file of the given text into the run's directory and adds it to the read-only files. */
void samplerun_write_reg_file(samplerun *s, const char *name, const char *text);
/* Runs `<build>/jevmon-regsvr <sample .so>` against the run's registry; its exit code. */
int samplerun_regsvr(samplerun *s, const char *sample);
/* The run's system.reg as text ("" if there is none); free() it. */
char *samplerun_system_reg(samplerun *s);

/*
 * Runs `<jdk> [-agentpath:<build>/libjevmon.so] -cp <build>/java SampleWorkload <args>` with
 * MSJAVA_ENABLE_MONITORS=1 (when with_agent), LOGMON_FILE and CALLCOUNT_FILE in the run's
 * directory, and env ("NAME=value" strings, NULL-terminated, may be NULL) on top.
 */
void samplerun_java(samplerun *s, const char *jdk, int with_agent, const char *const *env, const char *const *args,
                    samplerun_result *r);
void samplerun_free(samplerun_result *r);

#endif

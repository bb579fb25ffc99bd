/*
 * commands.c - jevprof's IJevmonCommands (see profiler.h): the commands a running program takes
 * through a second load of the agent (`jcmd <pid> JVMTI.agent_load <agent> dump`): status, dump
 * (the outputs so far, recording goes on), stop (the outputs, as at SHUTDOWN), start (a new
 * profile after a stop, with other settings when the command gives them).  The start the bridge
 * hands it before Initialize (the agent option command=) brings the settings of that load.
 */
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "profiler.h"

static inline jp_monitor *impl_from_IJevmonCommands(IJevmonCommands *iface)
{
    return (jp_monitor *)((char *)iface - offsetof(jp_monitor, IJevmonCommands_iface));
}

static HRESULT STDMETHODCALLTYPE commands_QueryInterface(IJevmonCommands *iface, REFIID riid, void **ppv)
{
    return IJavaEventMonitor2_QueryInterface(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface, riid, ppv);
}

static ULONG STDMETHODCALLTYPE commands_AddRef(IJevmonCommands *iface)
{
    return IJavaEventMonitor2_AddRef(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface);
}

static ULONG STDMETHODCALLTYPE commands_Release(IJevmonCommands *iface)
{
    return IJavaEventMonitor2_Release(&impl_from_IJevmonCommands(iface)->IJavaEventMonitor2_iface);
}

/* The lines one thread keeps (jp_capture_begin); at most CAPTURE_BYTES, then a line says what was cut. */
#define CAPTURE_BYTES 65536
typedef struct capture {
    char *text;
    size_t used, size;
    int echo, cut;
} capture;
static _Thread_local capture *kept;

static void write_stderr(const char *line)
{
    char text[1100];
    int n = snprintf(text, sizeof(text), "%s\n", line);
    fwrite(text, 1, n < 0 ? 0 : (size_t)n >= sizeof(text) ? sizeof(text) - 1 : (size_t)n, stderr);
    fflush(stderr); /* one write, so lines from several threads do not interleave */
}

static void log_line(const char *line, void *context)
{
    capture *c = kept;
    (void)context;
    if (!c || c->echo)
        write_stderr(line);
    if (!c || c->cut)
        return;
    if (strncmp(line, "jevmon: ", 8) == 0)
        line += 8; /* the bridge prefixes each line of an answer */
    size_t len = strlen(line) + 1;
    if (c->used + len + 1 > c->size) {
        size_t size = c->size ? 2 * c->size : 1024;
        char *text = size <= CAPTURE_BYTES ? realloc(c->text, size) : NULL;
        if (!text) {
            c->cut = 1;
            if (!c->echo)
                write_stderr("jevmon: jevprof: more lines than an answer holds; the rest are lost");
            return;
        }
        c->text = text, c->size = size;
    }
    memcpy(c->text + c->used, line, len - 1);
    c->text[c->used + len - 1] = '\n';
    c->used += len;
    c->text[c->used] = '\0';
}

void jp_log_install(void)
{
    static atomic_flag installed = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&installed))
        jv_log_set_sink(log_line, NULL);
}

void jp_capture_begin(int echo)
{
    if (!kept && (kept = calloc(1, sizeof(*kept))) != NULL)
        kept->echo = echo;
}

char *jp_capture_end(void)
{
    capture *c = kept;
    char *text = c ? c->text : NULL;
    kept = NULL;
    free(c);
    return text;
}

/* Appends a formatted piece to the text in out (of size bytes), cut short where it is full. */
static void append(char *out, size_t size, const char *format, ...)
{
    size_t used = strlen(out);
    va_list pieces;
    va_start(pieces, format);
    vsnprintf(out + used, size - used, format, pieces);
    va_end(pieces);
}

/* Where the files go: the file= paths when given (only those are written), else the output
 * directory and the prefix. */
static void describe_files(const jp_config *config, char *out, size_t size)
{
    out[0] = '\0';
    if (!config->file_count) {
        snprintf(out, size, "%s/%s*", config->output_dir, config->file_prefix);
        return;
    }
    for (unsigned i = 0; i < config->file_count; i++)
        append(out, size, "%s%s", i ? ", " : "", config->files[i].path);
}

/* The status command's answer: what is recorded, for how long, where the files go. */
static void describe_status(jp_monitor *m, char *out, size_t size)
{
    char counts[160] = "", files[JP_OUTPUT_LIST_BYTES];
    const char *mode = jp_mode_name(m->config.mode);
    describe_files(&m->config, files, sizeof(files));
    if (atomic_load(&m->finished)) {
        snprintf(out, size, "jevprof: stopped after %.3f s of %s; its files are %s", m->stopped_seconds, mode, files);
        return;
    }
    if (m->sampling) {
        jp_sampler_wait_armed(&m->sampler); /* a busy machine may keep a new thread from a processor */
        uint64_t timed = jp_sampler_timed_threads(&m->sampler);
        plat_mutex_lock(m->sampler.lock);
        append(counts, sizeof(counts), ", %llu thread samples", (unsigned long long)m->sampler.counts.samples);
        plat_mutex_unlock(m->sampler.lock);
        if (timed)
            append(counts, sizeof(counts), ", %llu threads timed", (unsigned long long)timed);
    }
    if (m->recording_allocations) {
        plat_mutex_lock(m->allocations.lock);
        append(counts, sizeof(counts), ", %llu allocations reported",
               (unsigned long long)m->allocations.counts.recorded);
        plat_mutex_unlock(m->allocations.lock);
    }
    snprintf(out, size, "jevprof: recording %s for %.3f s%s; files go to %s (dump writes them now)", mode,
             (double)(plat_now_ns() - m->started_ns) / 1e9, counts, files);
}

/* Before Initialize: "start" and settings, kept for Initialize (no answer: at start-up the
 * program's output stays its own). */
static HRESULT take_settings(jp_monitor *m, const char *settings)
{
    char *copy = strdup(settings);
    if (!copy)
        return E_OUTOFMEMORY;
    free(m->settings);
    m->settings = copy;
    return S_OK;
}

/* The answer: the lines Initialize logged when this thread ran it (an attach's first answer), those
 * the command logged, then its own words; CoTaskMemAlloc'd, NULL when out of memory. */
static LPSTR compose_answer(jp_monitor *m, const char *words)
{
    char *logged = jp_capture_end(), *startup = m->startup_lines;
    m->startup_lines = NULL; /* commands come one at a time (the bridge's loads are serialized) */
    if (startup && m->startup_thread != plat_os_thread_id()) {
        free(startup); /* a JVM started with jevprof: those lines were on its standard error long ago */
        startup = NULL;
    }
    size_t before = startup ? strlen(startup) : 0, during = logged ? strlen(logged) : 0, size = strlen(words) + 1;
    LPSTR answer = CoTaskMemAlloc(before + during + size);
    if (answer) {
        memcpy(answer, startup ? startup : "", before);
        memcpy(answer + before, logged ? logged : "", during);
        memcpy(answer + before + during, words, size);
    }
    free(startup);
    free(logged);
    return answer;
}

/* start (with settings, config.h), stop, dump, status (spaces around the word are ignored; only
 * start takes more); anything else is not jevprof's. */
static HRESULT STDMETHODCALLTYPE commands_Command(IJevmonCommands *iface, LPCSTR command, LPSTR *panswer)
{
    jp_monitor *m = impl_from_IJevmonCommands(iface);
    char word[16] = "", answer[JP_OUTPUT_LIST_BYTES + 128], written[JP_OUTPUT_LIST_BYTES];
    HRESULT hr = S_OK;
    if (!command || !panswer)
        return E_POINTER;
    *panswer = NULL;
    size_t start = strspn(command, " \t"), length = strcspn(command + start, " \t");
    const char *rest = command + start + length;
    if (length >= sizeof(word))
        return S_FALSE;
    memcpy(word, command + start, length);
    if (rest[strspn(rest, " \t")] != '\0' && strcmp(word, "start") != 0)
        return S_FALSE; /* only start takes settings */
    if (!m->info && strcmp(word, "start") == 0)
        return take_settings(m, rest);
    jp_capture_begin(0); /* what it logs while it runs is part of the answer */
    if (!m->info) {
        snprintf(answer, sizeof(answer), "jevprof: %s: not initialized by the VM", word);
        hr = E_UNEXPECTED;
    } else if (strcmp(word, "status") == 0) {
        describe_status(m, answer, sizeof(answer));
    } else if (strcmp(word, "dump") == 0) {
        int failed = jp_session_dump(m, written, sizeof(written));
        if (failed == -1)
            snprintf(answer, sizeof(answer), "jevprof: dump: stopped already; the stop wrote the files");
        else if (failed)
            snprintf(answer, sizeof(answer), "jevprof: dump: out of memory; nothing written");
        else
            snprintf(answer, sizeof(answer), "jevprof: dumped the profile so far, recording goes on: %s", written);
        hr = failed ? E_FAIL : S_OK;
    } else if (strcmp(word, "stop") == 0) {
        if (jp_session_finish(m, written, sizeof(written)))
            snprintf(answer, sizeof(answer), "jevprof: stop: stopped already");
        else
            snprintf(answer, sizeof(answer), "jevprof: stopped after %.3f s: %s", m->stopped_seconds, written);
    } else if (strcmp(word, "start") == 0) {
        /* Recording starts with the VM's Initialize (also when the agent is attached); after a
         * stop, start begins a new profile. */
        char status[JP_OUTPUT_LIST_BYTES];
        int started = jp_session_restart(m, rest, answer, sizeof(answer));
        describe_status(m, status, sizeof(status));
        if (started >= 0)
            snprintf(answer, sizeof(answer), "%s%s", started ? "jevprof: started a new profile; " : "",
                     started ? status + strlen("jevprof: ") : status);
        if (started < 0 || (!started && rest[strspn(rest, " \t")])) /* settings not taken */
            hr = E_FAIL;
        if (!started && hr == E_FAIL)
            snprintf(answer + strlen(answer), sizeof(answer) - strlen(answer),
                     "\njevprof: start: the settings are not taken while it records: stop it first");
    } else {
        free(jp_capture_end());
        return S_FALSE;
    }
    *panswer = compose_answer(m, answer);
    return hr;
}

const IJevmonCommandsVtbl jp_commands_vtbl = {
    commands_QueryInterface,
    commands_AddRef,
    commands_Release,
    commands_Command,
};


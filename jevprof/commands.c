/*
 * commands.c - jevprof's IJevmonCommands (see profiler.h): the commands a running program takes
 * through a second load of the agent (`jcmd <pid> JVMTI.agent_load <agent> dump`): status, dump
 * (the outputs so far, recording goes on), stop (the outputs, as at SHUTDOWN), start (a new
 * profile after a stop, with other settings when the command gives them).  The start the bridge
 * hands it before Initialize (the agent option command=) brings the settings of that load.
 */
#include <stddef.h>
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

/* The status command's answer: what is recorded, for how long, where the files go. */
static void describe_status(jp_monitor *m, char *out, size_t size)
{
    char counts[160] = "";
    const char *mode = jp_mode_name(m->config.mode);
    if (atomic_load(&m->finished)) {
        snprintf(out, size, "jevprof: stopped after %.3f s of %s; its files are %s/%s*", m->stopped_seconds, mode,
                 m->config.output_dir, m->config.file_prefix);
        return;
    }
    if (m->sampling) {
        plat_mutex_lock(m->sampler.lock);
        snprintf(counts, sizeof(counts), ", %llu thread samples", (unsigned long long)m->sampler.counts.samples);
        plat_mutex_unlock(m->sampler.lock);
    }
    if (m->recording_allocations) {
        size_t used = strlen(counts);
        plat_mutex_lock(m->allocations.lock);
        snprintf(counts + used, sizeof(counts) - used, ", %llu allocations reported",
                 (unsigned long long)m->allocations.counts.recorded);
        plat_mutex_unlock(m->allocations.lock);
    }
    snprintf(out, size, "jevprof: recording %s for %.3f s%s; files go to %s/%s* (dump writes them now)", mode,
             (double)(plat_now_ns() - m->started_ns) / 1e9, counts, m->config.output_dir, m->config.file_prefix);
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
    } else
        return S_FALSE;
    size_t size = strlen(answer) + 1;
    if ((*panswer = CoTaskMemAlloc(size)) != NULL)
        memcpy(*panswer, answer, size);
    return hr;
}

const IJevmonCommandsVtbl jp_commands_vtbl = {
    commands_QueryInterface,
    commands_AddRef,
    commands_Release,
    commands_Command,
};


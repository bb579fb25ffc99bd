/* command.c - commands for the running bridge's monitors through IJevmonCommands (see command.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/command.h"
#include "dispatch/dispatch.h"
#include "lifecycle/monitors.h"
#include "platform/platform.h"
#include "vm/options.h"

/* The reply file of the load this thread runs, while it runs (reply=); NULL: none. */
static _Thread_local FILE *reply;

static void log_line(const char *line, void *context)
{
    char text[1100];
    FILE *to = reply ? reply : stderr;
    int n = snprintf(text, sizeof(text), "%s\n", line);
    (void)context;
    fwrite(text, 1, n < 0 ? 0 : (size_t)n >= sizeof(text) ? sizeof(text) - 1 : (size_t)n, to);
    fflush(to); /* one write, so lines from several threads do not interleave */
}

void jv_command_log_install(void)
{
    jv_log_set_sink(log_line, NULL);
}

int jv_reply_begin(const char *path, size_t len)
{
    if (!path)
        return 1;
    char *name = malloc(len + 1);
    if (!name) {
        jv_log("out of memory: no reply file; the load is refused");
        return 0;
    }
    memcpy(name, path, len);
    name[len] = '\0';
    reply = fopen(name, "wx"); /* created here, so not a link or a file planted before */
    if (!reply)
        jv_log("agent option reply=%s: cannot create the reply file: %s; the load is refused", name,
               strerror(errno));
    free(name);
    return reply != NULL;
}

void jv_reply_end(void)
{
    if (reply)
        fclose(reply);
    reply = NULL;
}

/* The answer to the reply file, else standard output, each line prefixed, in one write so that other
 * output does not split it. */
static void print_answer(const char *answer)
{
    size_t lines = 1;
    for (const char *p = answer; *p; p++)
        lines += *p == '\n';
    size_t size = strlen(answer) + lines * (sizeof("jevmon: ") - 1) + 2;
    char *text = malloc(size), *out = text;
    if (!text) {
        jv_log("out of memory: a monitor's answer to a command is lost");
        return;
    }
    for (const char *line = answer; *line;) {
        size_t len = strcspn(line, "\n");
        out += sprintf(out, "jevmon: %.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
    FILE *to = reply ? reply : stdout;
    fwrite(text, 1, (size_t)(out - text), to);
    fflush(to);
    free(text);
}

/* One monitor's part, when it is in phase; counts what it made of the command. */
static void offer(jv_monitor *m, int phase, const char *text, unsigned *takers, unsigned *taken, unsigned *failed)
{
    IJevmonCommands *commands = NULL;
    if (atomic_load(&m->phase) != phase ||
        FAILED(IJavaEventMonitor_QueryInterface(m->mon, &IID_IJevmonCommands, (void **)&commands)) || !commands)
        return;
    (*takers)++;
    LPSTR answer = NULL;
    HRESULT hr = IJevmonCommands_Command(commands, text, &answer);
    if (answer) {
        print_answer(answer);
        CoTaskMemFree(answer);
    }
    if (FAILED(hr)) {
        (*failed)++;
        jv_log("%s: command \"%s\" failed (hr=0x%08x)", m->source, text, (unsigned)hr);
    } else if (hr == S_OK)
        (*taken)++;
    IJevmonCommands_Release(commands);
}

void jv_command_settings(const char *text)
{
    unsigned takers = 0, taken = 0, failed = 0;
    for (size_t i = 0; i < jv_monitors.count; i++)
        offer(jv_monitors.items[i], JV_PHASE_CREATED, text, &takers, &taken, &failed);
    if (!taken && !failed)
        jv_log("no monitor takes the agent option command=%s (%u of %u monitors take commands)", text, takers,
               (unsigned)jv_monitors.count);
}

/* The running monitors' answers to text. */
static void offer_running(const char *text, unsigned *takers, unsigned *taken, unsigned *failed)
{
    jv_dispatch d;
    jv_dispatch_begin(&d, jv_jni()); /* shutdown waits for it, as for a callback */
    for (size_t i = 0; i < jv_monitors.count; i++)
        offer(jv_monitors.items[i], JV_PHASE_RUNNING, text, takers, taken, failed);
    jv_dispatch_end(&d);
}

void jv_command_describe(void)
{
    unsigned takers = 0, taken = 0, failed = 0;
    offer_running("status", &takers, &taken, &failed);
}

/* Offers text, a command, to the running monitors; a jv_attach_code. */
static int run_command(const char *text)
{
    if (!text || !*text) {
        jv_log("the bridge already runs in this JVM: a later load's options are a command for its monitors, "
               "and this load gave none");
        return JV_COMMAND_NOT_TAKEN;
    }
    unsigned takers = 0, taken = 0, failed = 0;
    offer_running(text, &takers, &taken, &failed);
    if (failed)
        return JV_COMMAND_FAILED;
    if (!taken) {
        jv_log("no monitor takes the command \"%s\" (%u of %u running monitors take commands)", text, takers,
               (unsigned)jv_monitors.count);
        return JV_COMMAND_NOT_TAKEN;
    }
    return JV_ATTACH_OK;
}

/* A command's load: its reply file, if it names one, while the command runs. */
int jv_command(const char *text)
{
    const char *command = text ? jv_options_command(text) : NULL;
    jv_options opts = {0};
    if (command)
        jv_options_parse(text, &opts);
    if (!jv_reply_begin(opts.reply, opts.reply_len))
        return JV_ATTACH_NO_REPLY;
    int code = run_command(command ? command : text);
    jv_reply_end();
    return code;
}

/*
 * bridge_run.c - the fixture monitor run on a real JVM, and its log's method events read back
 * (bridge_run.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge_run.h"

void run_fx_options(const char *jdk, const char *request, const char *options, const char *extra_env,
                    const char *const *args, jvmrun_result *r)
{
    static char request_env[64], options_env[64];
    snprintf(request_env, sizeof(request_env), "FXMON_REQUEST=%s", request);
    snprintf(options_env, sizeof(options_env), "FXMON_OPTIONS=%s", options ? options : "0");
    const char *env[] = {"MSJAVA_ENABLE_MONITORS=1", "MSJAVA_EVENT_MONITORS=" FX, request_env, options_env,
                         extra_env, NULL};
    jvmrun(jdk, "", env, args, r);
}

void run_fx(const char *jdk, const char *request, const char *const *args, jvmrun_result *r)
{
    run_fx_options(jdk, request, NULL, NULL, args, r);
}

static int thread_slot(replay *r, unsigned long t)
{
    for (int i = 0; i < r->threads; i++)
        if (r->thread[i] == t)
            return i;
    ck_assert_int_lt(r->threads, REPLAY_MAX_THREADS);
    r->thread[r->threads] = t;
    r->stack[r->threads] = calloc(REPLAY_MAX_DEPTH, sizeof(unsigned long));
    r->recursing[r->threads] = calloc(REPLAY_MAX_DEPTH, 1);
    ck_assert(r->stack[r->threads] && r->recursing[r->threads]);
    return r->threads++;
}

/* A method event of one log line: its thread, StackID, name (entries) and caller MethodID (exits). */
typedef struct method_event {
    unsigned long thread, stack, caller;
    char name[512];
} method_event;

/* 'e' for a MethodEntry line, 'x' for a MethodExit2 line, 0 for any other. */
static int parse_method_event(const char *line, method_event *e)
{
    /* sscanf reads the line from a copy: on the log itself it measured the whole rest of the log
     * for every line, which made a long log's replay take minutes (the 16 threads' on a loaded machine) */
    char copy[1024];
    size_t length = strcspn(line, "\n");
    if (length >= sizeof(copy))
        return 0;
    memcpy(copy, line, length);
    copy[length] = '\0';
    const char *body = strchr(copy, ' ');
    if (body && sscanf(body + 1, "MethodEntry t=%lx %511s s=%lx", &e->thread, e->name, &e->stack) == 3)
        return 'e';
    if (body && sscanf(body + 1, "MethodExit2 t=%lx m=%lx s=%lx", &e->thread, &e->caller, &e->stack) == 3)
        return 'x';
    return 0;
}

/* The next line of a log, NULL after the last. */
static const char *next_line(const char *line)
{
    line = strchr(line, '\n');
    return line && line[1] ? line + 1 : NULL;
}

void replay_log(const char *log, replay *r, int gaps)
{
    memset(r, 0, sizeof(*r));
    method_event e;
    for (const char *line = *log ? log : NULL; line; line = next_line(line)) {
        int kind = parse_method_event(line, &e);
        if (kind == 'e') {
            int i = thread_slot(r, e.thread);
            while (gaps && r->depth[i] > 0 && r->stack[i][r->depth[i] - 1] >= e.stack)
                r->depth[i]--;
            ck_assert_int_lt(r->depth[i], REPLAY_MAX_DEPTH);
            int recursing = strcmp(e.name, "BridgeWorkload.recurse(I)I") == 0;
            r->recursing[i][r->depth[i]] = (char)recursing;
            r->stack[i][r->depth[i]++] = e.stack;
            r->entries++;
            r->recurse_entries[i] += recursing;
        } else if (kind == 'x') {
            int i = thread_slot(r, e.thread);
            while (gaps && r->depth[i] > 1 && r->stack[i][r->depth[i] - 2] > e.stack)
                r->depth[i]--;
            r->exits++;
            if (r->depth[i] > 0)
                r->recurse_exits[i] += r->recursing[i][r->depth[i] - 1];
            if (r->depth[i] > 0 && --r->depth[i] > 0 && r->stack[i][r->depth[i] - 1] != e.stack)
                r->mismatches++;
        }
    }
}

void replay_free(replay *r)
{
    for (int i = 0; i < r->threads; i++) {
        free(r->stack[i]);
        free(r->recursing[i]);
    }
}

char *call_sequence(const char *log)
{
    size_t size = strlen(log) + 1, used = 0;
    char *out = calloc(1, size);
    ck_assert_ptr_nonnull(out);
    method_event e;
    for (const char *line = *log ? log : NULL; line; line = next_line(line)) {
        int kind = parse_method_event(line, &e);
        if (kind == 'e')
            used += (size_t)snprintf(out + used, size - used, "entry %s s=%lx\n", e.name, e.stack);
        else if (kind == 'x')
            used += (size_t)snprintf(out + used, size - used, "exit s=%lx\n", e.stack);
    }
    return out;
}

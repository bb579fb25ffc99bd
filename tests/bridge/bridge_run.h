/*
 * bridge_run.h - what the bridge's end-to-end suites share (test_bridge, test_bridge_calls,
 * test_call_batches): the fixture monitor (fx_monitor.c) run on a real JVM, and the method events
 * of its log read back.
 */
#ifndef JEVMON_TEST_BRIDGE_RUN_H
#define JEVMON_TEST_BRIDGE_RUN_H

#include "support/jvmrun.h"

/* The fixture monitor's COM classes: IJavaEventMonitor2, and the first interface alone. */
#define FX "{63DAD816-1308-449B-AC11-1E702EB2D15F}"
#define FX_V1 "{8A05A603-576C-454C-A8A9-8A406868B147}"

/* The line the bridge prints for the method-call mechanism it chose. */
#define VIA_JVMTI "jevmon: method calls via JVMTI events\n"
#define VIA_BYTECODE "jevmon: method calls via bytecode instrumentation\n"

/* BridgeWorkload with args under the fixture monitor, which asks for the events of request (hex,
 * FXMON_REQUEST); options: FXMON_OPTIONS (hex initialization options the monitor asks for), NULL
 * for none; extra_env: one more variable, or NULL. */
void run_fx_options(const char *jdk, const char *request, const char *options, const char *extra_env,
                    const char *const *args, jvmrun_result *r);

/* The same with no options and no more variables. */
void run_fx(const char *jdk, const char *request, const char *const *args, jvmrun_result *r);

#define REPLAY_MAX_THREADS 64
#define REPLAY_MAX_DEPTH 4096

/* A log's method events replayed thread by thread (replay_log); recurse_entries: each thread's
 * entries into BridgeWorkload.recurse, recurse_exits: the exits that left one of those frames. */
typedef struct replay {
    unsigned long thread[REPLAY_MAX_THREADS];
    unsigned long *stack[REPLAY_MAX_THREADS];
    char *recursing[REPLAY_MAX_THREADS]; /* per frame of stack: entered into recurse */
    int depth[REPLAY_MAX_THREADS];
    int recurse_entries[REPLAY_MAX_THREADS], recurse_exits[REPLAY_MAX_THREADS];
    int threads;
    int entries, exits, mismatches;
} replay;

/*
 * Replays the method events of a log thread by thread: an entry pushes its StackID, an
 * exit pops it and must name the StackID now on top, its caller's (frames entered before
 * events were on are not in the replay, so an exit that empties it is not checked).
 * With gaps (method calls switched off for a while), frames at or below the depth of an
 * event are dropped first: they returned unseen.  StackIDs of one thread grow with depth.
 */
void replay_log(const char *log, replay *r, int gaps);

void replay_free(replay *r);

/* The method events of a log, one per line: "entry <name> s=<StackID>" or "exit s=<StackID>"
 * (malloc'ed). */
char *call_sequence(const char *log);

#endif

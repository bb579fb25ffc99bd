/*
 * profiler.h - the jevprof object inside: its state, shared by the files that implement it.
 * monitor.c is the COM object the VM creates and routes events to the recorders; session.c is
 * the profile (its parts started, its periods, its end, a restart, a dump, the outputs);
 * commands.c is IJevmonCommands, the commands a running program takes.
 */
#ifndef JEVPROF_PROFILER_H
#define JEVPROF_PROFILER_H

#include <stdatomic.h>
#include <time.h>

#include "allocations.h"
#include "calls.h"
#include "classframes.h"
#include "config.h"
#include "jevprof.h"
#include "locks.h"
#include "names.h"
#include "sampler.h"
#include "summary.h"

typedef struct jp_monitor {
    IJavaEventMonitor2 IJavaEventMonitor2_iface;
    IObjectAllocationCallback IObjectAllocationCallback_iface; /* alloc mode's callback */
    IJevmonCommands IJevmonCommands_iface;                     /* commands while the program runs */
    IJevmonLockWaitCallback IJevmonLockWaitCallback_iface;     /* lock mode's callback */
    IJevmonCallBatchCallback IJevmonCallBatchCallback_iface;   /* calls mode's callback */
    LONG ref;
    plat_mutex *writing; /* one dump or stop at a time, and SHUTDOWN after them */
    double stopped_seconds; /* after a stop: how long it recorded */
    int looping;            /* continuous mode (JEVPROF_LOOP): files are per period, time-stamped */
    plat_thread *loop;      /* the thread that ends each period and the duration; NULL once joined */
    atomic_int loop_stop;
    uint64_t period_started_ns;
    time_t period_started;  /* the period's time stamp, in its files' names */
    uint64_t period_started_unix_ns; /* the same to the nanosecond, since 1970 */
    jp_tree calls_before;   /* calls mode: the calls up to the period's start (jp_calls_take_period) */
    jp_config config;
    char *settings;         /* the settings given before Initialize (the first load's command=); NULL: none */
    char *startup_lines;    /* the lines logged by Initialize, for the next command on its thread; NULL: none */
    DWORD startup_thread;   /* the thread that ran Initialize */
    char *program;
    IJavaEventMonitorIDInfo *info;   /* from Initialize, AddRef'd */
    IJavaEventMonitorIDInfo2 *info2; /* NULL when the VM has no IDInfo2 */
    DWORD categories;
    uint64_t started_ns;
    uint64_t started_unix_ns;
    jp_names names;
    jp_summary summary;
    jp_sampler sampler;
    jp_calls calls;
    jp_class_frames classes; /* the classes at the ends of the allocations' and the lock waits' stacks */
    jp_allocations allocations;
    jp_locks locks;
    int sampling, recording_calls, recording_allocations, recording_locks; /* the parts of the mode running */
    atomic_int finished;           /* the outputs have been written */
} jp_monitor;


/* The settings of a start: defaults, registry, environment, then settings (NULL: none), expanded. */
void jp_session_configure(jp_config *config, const char *settings);
/* At Initialize: starts the parts of the configured mode that this VM allows, and the thread of
 * the periods and the duration when the settings have them; m->categories says what runs. */
void jp_session_start(jp_monitor *m);
/* SHUTDOWN or the stop command: stop recording, then write everything (once); 0, or -1 when
 * it had been done.  written gets the list of files. */
int jp_session_finish(jp_monitor *m, char *written, size_t size);
/* The dump command: the outputs of what was recorded so far, while recording goes on.  0; -1
 * when recording had stopped; -2 out of memory. */
int jp_session_dump(jp_monitor *m, char *written, size_t size);
/* The start command after a stop (see session.c).  1 started; 0 it was recording already; -1
 * the settings need parts of a mode this jevprof did not set up (refusal says which). */
int jp_session_restart(jp_monitor *m, const char *settings, char *refusal, size_t size);
/* Released without SHUTDOWN: the periods' thread must not outlive the object. */
void jp_session_stop_loop(jp_monitor *m);

/* Lines jevprof logs (jv_log) on a thread that captures them go into that thread's next answer to a
 * command, so that the caller who sent it reads them (a terminal, through the bridge's reply file).
 * jp_log_install makes jevprof's log lines pass through here; call it before any thread of
 * jevprof's runs.  jp_capture_begin(echo): this thread's lines are kept, and with echo also
 * written to standard error as usual; jp_capture_end: what was kept (malloc'd, NULL: nothing). */
void jp_log_install(void);
void jp_capture_begin(int echo);
char *jp_capture_end(void);

/* IJevmonCommands' methods (commands.c), in the object's third interface. */
extern const IJevmonCommandsVtbl jp_commands_vtbl;

#endif

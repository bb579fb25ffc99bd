/*
 * fake_vm.h - a stand-in for the VM's IJavaEventMonitorIDInfo4, enough to drive a jevprof
 * monitor without a JVM: a few classes and methods with names, one exception object,
 * per-thread stacks that GetStackTrace reports back through the monitor's NotifyEvent2,
 * and switches that make SampleThreadLocation or every call fail.
 */
#ifndef FAKE_VM_H
#define FAKE_VM_H

#include <stdatomic.h>

#include "jevmon.h"

#define FAKE_MAX_THREADS 4
#define FAKE_MAX_FRAMES 8

typedef struct fake_thread_stack {
    ThreadID thread;
    MethodID frames[FAKE_MAX_FRAMES]; /* outermost first */
    int count;
    int blocking; /* SampleThreadLocation says JVM_LOCATION_BLOCKING */
} fake_thread_stack;

typedef struct fake_vm {
    IJavaEventMonitorIDInfo4 IJavaEventMonitorIDInfo4_iface;
    atomic_long ref;
    IJavaEventMonitor2 *monitor;   /* receives GetStackTrace's frames; not owned */
    int fail_everything;           /* every method returns E_FAIL */
    int sample_location;           /* SampleThreadLocation works (otherwise E_NOTIMPL) */
    int stack_trace_fails;         /* GetStackTrace returns E_FAIL */
    int unloaded_class;            /* class 2000 is gone: its MethodIDs are refused */
    DWORD options;                 /* the last SetMonitorInitializationOptions */
    fake_thread_stack stacks[FAKE_MAX_THREADS];
    atomic_int stack_traces;       /* GetStackTrace calls, each counted once it has reported its frames */
} fake_vm;

/* Methods 1-4 are demo/Main's (main, work, hot, cold); 5 is demo/Gone.run of class 2000.
 * Object 77 is an exception of class 1000, demo.Oops. */
enum { FAKE_MAIN = 1, FAKE_WORK, FAKE_HOT, FAKE_COLD, FAKE_GONE_RUN };
#define FAKE_EXCEPTION_OBJECT 77
#define FAKE_GONE_CLASS 2000

void fake_vm_init(fake_vm *vm);
/* What GetCurrentThread answers on the calling thread. */
void fake_vm_set_current_thread(ThreadID thread);

#endif /* FAKE_VM_H */

/*
 * win32_interrupt.c - taking another thread's registers (platform.h): SuspendThread,
 * GetThreadContext, ResumeThread.  Nothing runs on the sampled thread, so the hook never
 * does, and the caller must not take a lock the suspended thread may hold meanwhile:
 * this file takes none.  Windows has no timer on a thread's processor time: no processor-time
 * timers here (the caller samples on a timer thread and reads GetThreadTimes instead).
 */
#include <string.h>

#include <windows.h>

#include "platform/platform.h"

int plat_sample_init(void)
{
    return 1;
}

int plat_sample_thread(DWORD os_tid, unsigned timeout_ms, plat_sample_hook hook, void *arg, plat_registers *regs)
{
    (void)timeout_ms, (void)hook, (void)arg; /* suspending does not wait for the thread to run */
    if (!os_tid || os_tid == GetCurrentThreadId())
        return 0; /* a thread cannot suspend itself and go on */
    HANDLE thread = OpenThread(THREAD_SUSPEND_RESUME | THREAD_GET_CONTEXT, FALSE, os_tid);
    if (!thread)
        return 0; /* gone, or not ours to touch */
    int taken = 0;
    if (SuspendThread(thread) != (DWORD)-1) {
        CONTEXT context;
        memset(&context, 0, sizeof(context));
        context.ContextFlags = CONTEXT_CONTROL;
        if (GetThreadContext(thread, &context)) {
#ifdef _WIN64
            regs->ip = context.Rip;
            regs->sp = context.Rsp;
#else
            regs->ip = context.Eip;
            regs->sp = context.Esp;
#endif
            regs->hooked = 0;
            taken = 1;
        }
        ResumeThread(thread);
    }
    CloseHandle(thread);
    return taken;
}

int plat_jvm_thread_key_find(const void *env, size_t span)
{
    (void)env, (void)span;
    return 0;
}

void *plat_jvm_thread_env(void)
{
    return NULL;
}

int plat_cpu_timers_init(plat_cpu_tick_hook hook)
{
    (void)hook;
    return 0;
}

void plat_cpu_timers_prepare(void)
{
}

plat_cpu_timer *plat_cpu_timer_start(DWORD os_tid, uint64_t period_ns)
{
    (void)os_tid, (void)period_ns;
    return NULL;
}

void plat_cpu_timer_stop(plat_cpu_timer *timer)
{
    (void)timer;
}

int plat_cpu_timers_kernel(int want)
{
    return want ? JEVMON_KERNEL_FRAMES_NO_TIMERS : JEVMON_KERNEL_FRAMES_NOT_ASKED;
}

int plat_cpu_timer_kernel(const plat_cpu_timer *timer)
{
    (void)timer;
    return JEVMON_KERNEL_FRAMES_NO_TIMERS;
}

uint64_t plat_kernel_records_skipped(void)
{
    return 0;
}

int plat_kernel_symbol(uint64_t address, char *name, size_t size)
{
    (void)address, (void)name, (void)size;
    return 0;
}

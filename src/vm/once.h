/*
 * once.h - initializing a module's state on its first use, for the tables that agent.c
 * does not set up at load time (field.c, handles.c): the first caller runs the
 * initializer, callers racing with it wait until it is done.
 */
#ifndef JEVMON_ONCE_H
#define JEVMON_ONCE_H

#include <stdatomic.h>

#include "platform/platform.h"

enum { JV_ONCE_NOT_RUN = 0, JV_ONCE_RUNNING = 1, JV_ONCE_DONE = 2 };

static inline void jv_once(atomic_int *state, void (*init)(void))
{
    int expected = JV_ONCE_NOT_RUN;
    if (atomic_load_explicit(state, memory_order_acquire) == JV_ONCE_DONE)
        return;
    if (atomic_compare_exchange_strong(state, &expected, JV_ONCE_RUNNING)) {
        init();
        atomic_store_explicit(state, JV_ONCE_DONE, memory_order_release);
        return;
    }
    while (atomic_load_explicit(state, memory_order_acquire) != JV_ONCE_DONE)
        plat_sleep_ms(1);
}

#endif

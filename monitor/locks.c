/* locks.c - lock mode's recorder (see locks.h). */
#include <string.h>

#include "locks.h"

int jp_locks_init(jp_locks *l, IJavaEventMonitorIDInfo2 *info, jp_class_frames *classes,
                  unsigned long long threshold_ns)
{
    memset(l, 0, sizeof(*l));
    l->threshold_ns = threshold_ns;
    return jp_allocations_init(&l->waits, info, classes, NULL);
}

void jp_locks_free(jp_locks *l)
{
    jp_allocations_free(&l->waits);
}

void jp_locks_record(jp_locks *l, DWORD kind, ClassID lock_class, ULONGLONG waited_ns)
{
    atomic_fetch_add_explicit(kind == JEVMON_LOCK_WAIT_PARK ? &l->parks : &l->monitors, 1, memory_order_relaxed);
    jp_allocations_record_weights(&l->waits, lock_class, 1, waited_ns);
}

/* eventlog.c - the threads and times of a recorder's events (see eventlog.h). */
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"

int jp_event_log_init(jp_event_log *log, IJavaEventMonitorIDInfo2 *info)
{
    memset(log, 0, sizeof(*log));
    log->stride = 1;
    if (!(log->lock = plat_mutex_create()))
        return -1;
    if (info && FAILED(IJavaEventMonitorIDInfo2_QueryInterface(info, &IID_IJevmonNativeSampling, (void **)&log->namer)))
        log->namer = NULL; /* an agent without thread names: threads are told by their OS ids */
    return 0;
}

static void free_threads(jp_event_log *log)
{
    for (size_t i = 0; i < log->thread_count; i++)
        free(log->threads[i].name);
    free(log->threads);
    jp_idmap_free(&log->thread_index);
}

void jp_event_log_free(jp_event_log *log)
{
    free(log->events);
    free_threads(log);
    if (log->namer)
        IJevmonNativeSampling_Release(log->namer);
    if (log->lock)
        plat_mutex_destroy(log->lock);
    memset(log, 0, sizeof(*log));
}

/* The OS's name for a thread of the process (malloc'd), or NULL. */
static char *os_thread_name(jp_event_log *log, DWORD os_thread)
{
    LPSTR name = NULL;
    char *copy = NULL;
    if (log->namer && SUCCEEDED(IJevmonNativeSampling_GetOsThreadName(log->namer, os_thread, &name)) && name)
        copy = strdup(name);
    CoTaskMemFree(name);
    return copy;
}

/* The index of os_thread, added with name (taken over) when new; JP_LOG_NO_THREAD when it cannot be
 * added.  Called with the lock held. */
static uint32_t thread_index(jp_event_log *log, DWORD os_thread, char **name)
{
    jp_idmap_entry *e = jp_idmap_insert(&log->thread_index, os_thread);
    if (!e)
        return JP_LOG_NO_THREAD;
    if (!e->value) {
        if (log->thread_count == log->thread_capacity) {
            size_t capacity = log->thread_capacity ? 2 * log->thread_capacity : 64;
            jp_log_thread *grown = realloc(log->threads, capacity * sizeof(*grown));
            if (!grown) {
                jp_idmap_remove(&log->thread_index, os_thread);
                return JP_LOG_NO_THREAD;
            }
            log->threads = grown;
            log->thread_capacity = capacity;
        }
        log->threads[log->thread_count] = (jp_log_thread){os_thread, *name};
        *name = NULL;
        e->value = ++log->thread_count;
    }
    return (uint32_t)(e->value - 1);
}

/* Full: every other entry is kept, and from now on every other event of those logged until now. */
static void thin_out(jp_event_log *log)
{
    for (size_t i = 0; 2 * i < log->count; i++)
        log->events[i] = log->events[2 * i];
    log->count = (log->count + 1) / 2;
    log->stride *= 2;
}

void jp_event_log_add(jp_event_log *log, DWORD os_thread, uint32_t node, uint64_t weight, uint64_t second)
{
    uint64_t now = plat_now_ns();
    char *name = NULL;
    if (!log->lock)
        return;
    plat_mutex_lock(log->lock);
    if (++log->since_logged < log->stride) {
        plat_mutex_unlock(log->lock);
        return;
    }
    log->since_logged = 0;
    if (os_thread && !jp_idmap_find(&log->thread_index, os_thread)) {
        plat_mutex_unlock(log->lock); /* named with no lock held: the VM reads it from the system */
        name = os_thread_name(log, os_thread);
        plat_mutex_lock(log->lock);
    }
    uint32_t thread = os_thread ? thread_index(log, os_thread, &name) : JP_LOG_NO_THREAD;
    free(name); /* named meanwhile by another event of the thread */
    if (log->count == JP_EVENT_LOG_MAX)
        thin_out(log);
    if (log->count == log->capacity) {
        size_t capacity = log->capacity ? 2 * log->capacity : 1024;
        jp_logged_event *grown = realloc(log->events, capacity * sizeof(*grown));
        if (grown) {
            log->events = grown;
            log->capacity = capacity;
        }
    }
    if (log->count < log->capacity) /* else out of memory: the event keeps its weight, not its thread */
        log->events[log->count++] = (jp_logged_event){now, weight, second, thread, node};
    plat_mutex_unlock(log->lock);
}

int jp_event_log_copy(jp_event_log *into, jp_event_log *from, int from_empty)
{
    memset(into, 0, sizeof(*into));
    if (!from->lock)
        return 0;
    plat_mutex_lock(from->lock);
    into->stride = from->stride;
    into->events = from->count ? malloc(from->count * sizeof(*into->events)) : NULL;
    into->threads = from->thread_count ? calloc(from->thread_count, sizeof(*into->threads)) : NULL;
    int failed = (from->count && !into->events) || (from->thread_count && !into->threads);
    for (size_t i = 0; !failed && i < from->thread_count; i++) {
        into->threads[i].os_thread = from->threads[i].os_thread;
        failed = from->threads[i].name && !(into->threads[i].name = strdup(from->threads[i].name));
        into->thread_count = i + 1;
    }
    if (!failed) {
        if (from->count)
            memcpy(into->events, from->events, from->count * sizeof(*into->events));
        into->count = into->capacity = from->count;
        if (from_empty) {
            from->count = 0;
            from->stride = 1;
            from->since_logged = 0;
        }
    }
    plat_mutex_unlock(from->lock);
    if (failed) {
        free(into->events);
        free_threads(into);
        memset(into, 0, sizeof(*into));
        return -1;
    }
    return 0;
}

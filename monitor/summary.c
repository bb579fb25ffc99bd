/* summary.c - the counters every jevprof mode keeps (see summary.h). */
#include <stdlib.h>
#include <string.h>

#include "summary.h"

int jp_summary_init(jp_summary *s)
{
    memset(s, 0, sizeof(*s));
    s->lock = plat_mutex_create();
    return s->lock ? 0 : -1;
}

void jp_summary_free(jp_summary *s)
{
    for (size_t i = 0; i < s->exception_classes; i++)
        free(s->exceptions[i].class_name);
    free(s->exceptions);
    if (s->lock)
        plat_mutex_destroy(s->lock);
    memset(s, 0, sizeof(*s));
}

void jp_summary_gc_started(jp_summary *s, uint64_t now_ns)
{
    atomic_store(&s->gc_started_ns, now_ns);
}

void jp_summary_gc_finished(jp_summary *s, uint64_t now_ns)
{
    uint64_t started = atomic_exchange(&s->gc_started_ns, 0);
    atomic_fetch_add(&s->gc_count, 1);
    if (started && now_ns > started)
        atomic_fetch_add(&s->gc_ns, now_ns - started);
}

void jp_summary_thread_created(jp_summary *s)
{
    atomic_fetch_add(&s->threads_created, 1);
    long long live = atomic_fetch_add(&s->threads_live, 1) + 1;
    long long max = atomic_load(&s->threads_max_live);
    while (live > max && !atomic_compare_exchange_weak(&s->threads_max_live, &max, live))
        ;
}

void jp_summary_thread_destroyed(jp_summary *s)
{
    atomic_fetch_add(&s->threads_destroyed, 1);
    atomic_fetch_sub(&s->threads_live, 1);
}

void jp_summary_exception(jp_summary *s, const char *class_name)
{
    const char *name = class_name ? class_name : "<unknown class>";
    atomic_fetch_add(&s->exceptions_thrown, 1);
    plat_mutex_lock(s->lock);
    size_t i = 0;
    while (i < s->exception_classes && strcmp(s->exceptions[i].class_name, name) != 0)
        i++;
    if (i == s->exception_classes) {
        if (i == s->exception_capacity) {
            size_t capacity = s->exception_capacity ? s->exception_capacity * 2 : 16;
            jp_exception_count *grown = realloc(s->exceptions, capacity * sizeof(*grown));
            if (grown) {
                s->exceptions = grown;
                s->exception_capacity = capacity;
            }
        }
        char *copy = i < s->exception_capacity ? strdup(name) : NULL;
        if (copy) {
            s->exceptions[i].class_name = copy;
            s->exceptions[i].count = 0;
            s->exception_classes++;
        }
    }
    if (i < s->exception_classes)
        s->exceptions[i].count++;
    plat_mutex_unlock(s->lock);
}

static int by_count_descending(const void *a, const void *b)
{
    const jp_exception_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->class_name, y->class_name);
}

void jp_summary_sort_exceptions(jp_summary *s)
{
    plat_mutex_lock(s->lock);
    if (s->exception_classes > 1)
        qsort(s->exceptions, s->exception_classes, sizeof(*s->exceptions), by_count_descending);
    plat_mutex_unlock(s->lock);
}

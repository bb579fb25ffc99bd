/*
 * registrations.c - the heap monitor's registrations (see heap.h): each monitor's allocation and
 * heap-dump callbacks, the object-age capability, and the JVMTI capabilities and
 * environment allocation tracking and dumps need.
 *
 * Callbacks are read on hot paths (every reported allocation) without a lock or an
 * AddRef: one that is replaced or unregistered is kept, referenced, until shutdown, so a
 * thread still calling it never calls a released object.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "dispatch/dispatch.h"
#include "dispatch/event_switch.h"
#include "heap/heap.h"
#include "platform/platform.h"

#define HEAP_MAX_MONITORS 64

static _Atomic(IObjectAllocationCallback *) allocation_callbacks[HEAP_MAX_MONITORS];
static _Atomic(IHeapInfoCallback *) dump_callbacks[HEAP_MAX_MONITORS];
static atomic_int allocation_count, dump_count; /* monitors with one registered */
static atomic_int ages_kept;

/* Replaced callbacks, released at shutdown. */
static IUnknown **retired;
static size_t retired_count, retired_capacity;
static plat_mutex *registry_lock;

static jvmtiEnv *heap_env, *mark_env, *age_env;
static int dumps_live, dumps_over; /* between VMInit and VMDeath; under the registry lock */
static int allocations_possible = 1; /* cleared when every monitor promised not to need them */
static int counts_kept;              /* some monitor was not granted DONT_NEED_ALLOCATION_COUNTS */

static void retire(IUnknown *old)
{
    if (!old)
        return;
    if (retired_count == retired_capacity) {
        size_t grown = retired_capacity ? retired_capacity * 2 : 8;
        IUnknown **bigger = realloc(retired, grown * sizeof(*bigger));
        if (!bigger) {
            IUnknown_Release(old); /* cannot keep it: a racing call is less likely than a leak matters */
            return;
        }
        retired = bigger;
        retired_capacity = grown;
    }
    retired[retired_count++] = old;
}


static int lock_registry(void)
{
    if (!registry_lock)
        return 0;
    plat_mutex_lock(registry_lock);
    return 1;
}

/* Installs callback (AddRef'd) in slot, retiring the old one; counts monitors with one. */
static void install(void *_Atomic *slot, IUnknown *callback, atomic_int *count)
{
    if (callback)
        IUnknown_AddRef(callback);
    IUnknown *old = atomic_exchange(slot, (void *)callback);
    atomic_fetch_add(count, (callback != NULL) - (old != NULL));
    retire(old);
}

HRESULT jv_heap_set_allocation_callback(jv_monitor *m, IObjectAllocationCallback *callback)
{
    DWORD promised = m->requested_options | m->granted_options;
    if (callback && ((promised & JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK) || !allocations_possible))
        return E_FAIL; /* the monitor promised not to ask, or the JVM cannot report allocations */
    if (m->index >= HEAP_MAX_MONITORS || !lock_registry())
        return E_FAIL;
    install((void *_Atomic *)&allocation_callbacks[m->index], (IUnknown *)callback, &allocation_count);
    plat_mutex_unlock(registry_lock);
    jv_switch_update();
    return S_OK;
}

HRESULT jv_heap_set_dump_callback(jv_monitor *m, IHeapInfoCallback *callback)
{
    if (m->index >= HEAP_MAX_MONITORS || !lock_registry())
        return E_FAIL;
    install((void *_Atomic *)&dump_callbacks[m->index], (IUnknown *)callback, &dump_count);
    if (callback && dumps_live && !dumps_over)
        jv_heap_dumper_start();
    plat_mutex_unlock(registry_lock);
    jv_switch_update();
    return S_OK;
}

IObjectAllocationCallback *jv_heap_allocation_callback(const jv_monitor *m)
{
    return m->index < HEAP_MAX_MONITORS ? atomic_load_explicit(&allocation_callbacks[m->index], memory_order_acquire)
                                   : NULL;
}

IHeapInfoCallback *jv_heap_dump_callback(const jv_monitor *m)
{
    return m->index < HEAP_MAX_MONITORS ? atomic_load_explicit(&dump_callbacks[m->index], memory_order_acquire) : NULL;
}

int jv_heap_allocations_wanted(void)
{
    return atomic_load_explicit(&allocation_count, memory_order_relaxed) > 0;
}

int jv_heap_allocations_tracked(void)
{
    return allocations_possible && (counts_kept || jv_heap_allocations_wanted());
}

int jv_heap_dumps_wanted(void)
{
    return atomic_load_explicit(&dump_count, memory_order_relaxed) > 0;
}

int jv_heap_ages_kept(void)
{
    return atomic_load_explicit(&ages_kept, memory_order_relaxed);
}

HRESULT jv_heap_modify_capabilities(jv_monitor *m, DWORD capabilities, BOOL enable, DWORD *enabled)
{
    if (capabilities & ~(DWORD)JVM_HEAPMON_OBJECT_AGE)
        return E_FAIL; /* the only capability there is */
    if (capabilities) {
        /* Ages must be counted from the start: only during Initialize, as the reference says. */
        if (atomic_load(&m->phase) != JV_PHASE_INITIALIZING)
            return E_FAIL;
        if (enable)
            atomic_store(&ages_kept, 1);
    }
    if (enabled)
        *enabled = jv_heap_ages_kept() ? JVM_HEAPMON_OBJECT_AGE : 0;
    return S_OK;
}

void jv_heap_release_callbacks(void)
{
    if (!lock_registry())
        return;
    for (unsigned i = 0; i < HEAP_MAX_MONITORS; i++) {
        install((void *_Atomic *)&allocation_callbacks[i], NULL, &allocation_count);
        install((void *_Atomic *)&dump_callbacks[i], NULL, &dump_count);
    }
    for (size_t i = 0; i < retired_count; i++) /* none runs: the caller waited for them */
        IUnknown_Release(retired[i]);
    free(retired);
    retired = NULL;
    retired_count = retired_capacity = 0;
    plat_mutex_unlock(registry_lock);
    jv_switch_update();
}

/* The dump thread waits for dumps in 10 ms naps: a run nobody asks to dump starts none, and
 * does not wait for its last nap at VMDeath. */
void jv_heap_start(void)
{
    if (!lock_registry())
        return;
    dumps_live = 1;
    if (jv_heap_dumps_wanted())
        jv_heap_dumper_start();
    plat_mutex_unlock(registry_lock);
}

void jv_heap_stop(void)
{
    if (!lock_registry())
        return;
    dumps_over = 1; /* no thread starts after this */
    plat_mutex_unlock(registry_lock);
    jv_heap_dumper_stop();
}

jvmtiEnv *jv_heap_env(void)
{
    return heap_env;
}

jvmtiEnv *jv_heap_age_env(void)
{
    return age_env;
}

jvmtiEnv *jv_heap_mark_env(void)
{
    return mark_env;
}

/* A JVMTI environment of our own that may tag objects; NULL when the JVM offers none. */
static jvmtiEnv *tagging_env(JavaVM *vm)
{
    jvmtiEnv *env = NULL;
    jvmtiCapabilities tagging = {0};
    tagging.can_tag_objects = 1;
    if ((*vm)->GetEnv(vm, (void **)&env, JVMTI_VERSION_1_2) != JNI_OK)
        return NULL;
    if ((*env)->AddCapabilities(env, &tagging) != JVMTI_ERROR_NONE) {
        (*env)->DisposeEnvironment(env);
        return NULL;
    }
    return env;
}

static int gc_finish_needed(void)
{
    return jv_heap_dumps_wanted() || jv_heap_ages_kept();
}

void jv_heap_init(JavaVM *vm)
{
    registry_lock = plat_mutex_create();
    jv_switch_also_when(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, gc_finish_needed);
    jv_switch_also_when(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, jv_heap_allocations_tracked);
    if (!(heap_env = tagging_env(vm)) || !(mark_env = tagging_env(vm)) || !(age_env = tagging_env(vm)))
        jv_log("no JVMTI environment that can tag objects; GetHeapInfo callbacks get no dumps, GetObjectAge fails");
}

void jv_heap_load(void)
{
    const DWORD both = JVM_INIT_OPT_DONT_NEED_ALLOCATION_CALLBACK | JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS;
    int needed = 0, counts = 0;
    for (size_t i = 0; i < jv_monitors.count; i++) {
        DWORD granted = jv_monitors.items[i]->granted_options;
        needed |= (granted & both) != both;
        counts |= !(granted & JVM_INIT_OPT_DONT_NEED_ALLOCATION_COUNTS);
    }
    jvmtiCapabilities caps = {0};
    caps.can_generate_garbage_collection_events = 1; /* dumps after GCs, object ages */
    caps.can_generate_sampled_object_alloc_events = needed;
    if ((*jv_jvmti)->AddCapabilities(jv_jvmti, &caps) != JVMTI_ERROR_NONE) {
        caps.can_generate_sampled_object_alloc_events = 0;
        if (needed)
            jv_log("the JVM cannot report allocations; NotifyOnObjectAllocations fails");
        (*jv_jvmti)->AddCapabilities(jv_jvmti, &caps);
        needed = 0;
    }
    allocations_possible = needed;
    counts_kept = needed && counts;
    if (needed && (*jv_jvmti)->SetHeapSamplingInterval(jv_jvmti, jv_heap_sampling_interval()) != JVMTI_ERROR_NONE)
        jv_log("the JVM refused allocation sampling interval %d", (int)jv_heap_sampling_interval());
}

/*
 * object.c - ObjectID slots (see object.h) and the IDInfo method ObjectInformation.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/object.h"
#include "ids/table.h"

#define GENERATION_BITS (sizeof(UniqueID) == 8 ? 24 : 6)
#define INDEX_BITS (sizeof(UniqueID) * 8 - 4 - GENERATION_BITS)

typedef struct object_slot {
    jweak ref;
    _Atomic unsigned generation; /* odd while the slot is in use */
    uint32_t next_free;
} object_slot;

static jv_table slots;
static plat_mutex *slot_lock; /* the free list, and every slot's reference and generation */
static uint32_t free_head = UINT32_MAX;

/*
 * The slots this thread took, most recent last, so a callback's slots can be released.  Most
 * callbacks take a few: those live in taken_inline, and only more grow an array on the heap
 * (freed when the count falls back to 0), so a callback costs no malloc.
 */
#define TAKEN_INLINE 16
static _Thread_local uint32_t taken_inline[TAKEN_INLINE];
static _Thread_local uint32_t *taken_heap; /* NULL while taken_inline serves */
_Thread_local unsigned jv_objects_taken;
_Thread_local unsigned jv_objects_scopes;
static _Thread_local unsigned taken_capacity;

static uint32_t *taken(void)
{
    return taken_heap ? taken_heap : taken_inline;
}

/* Room for one more taken slot; 0 when memory ran out. */
static int taken_room(void)
{
    unsigned capacity = taken_heap ? taken_capacity : TAKEN_INLINE;
    if (jv_objects_taken < capacity)
        return 1;
    uint32_t *bigger = realloc(taken_heap, 2 * capacity * sizeof(*bigger));
    if (!bigger)
        return 0;
    if (!taken_heap)
        memcpy(bigger, taken_inline, sizeof(taken_inline));
    taken_heap = bigger;
    taken_capacity = 2 * capacity;
    return 1;
}

void jv_objects_init(void)
{
    jv_table_init(&slots, sizeof(object_slot));
    slot_lock = plat_mutex_create();
}

void jv_objects_destroy(void)
{
    jv_table_destroy(&slots);
    plat_mutex_destroy(slot_lock);
    free_head = UINT32_MAX;
}

static ObjectID make_id(uint32_t index, unsigned generation)
{
    UniqueID gen = (UniqueID)(generation & ((1u << GENERATION_BITS) - 1));
    return ((((UniqueID)index + 1) << GENERATION_BITS | gen) << 4) | 5 /* JV_ID_OBJECT */;
}

static object_slot *slot_of(ObjectID id)
{
    if ((id & 0xF) != 5)
        return NULL;
    UniqueID payload = id >> 4;
    UniqueID index_plus_one = payload >> GENERATION_BITS;
    if (!index_plus_one || index_plus_one > UINT32_MAX)
        return NULL;
    object_slot *s = jv_table_get(&slots, (uint32_t)(index_plus_one - 1));
    if (!s)
        return NULL;
    unsigned gen = atomic_load(&s->generation);
    if (!(gen & 1) || (UniqueID)(gen & ((1u << GENERATION_BITS) - 1)) != (payload & ((1u << GENERATION_BITS) - 1)))
        return NULL;
    return s;
}

static void slot_init(void *element, void *arg)
{
    (void)arg;
    ((object_slot *)element)->next_free = UINT32_MAX;
}

ObjectID jv_object_id(JNIEnv *env, jobject obj)
{
    if (!obj || !env)
        return 0;
    if (!jv_objects_scopes && jv_objects_taken >= JV_OBJECTS_OUTSIDE_CALLBACKS)
        jv_objects_release_scope(env, 0);
    if (!taken_room())
        return 0;
    jweak ref = (*env)->NewWeakGlobalRef(env, obj);
    if (!ref)
        return 0;
    plat_mutex_lock(slot_lock);
    uint32_t index = free_head;
    if (index != UINT32_MAX)
        free_head = ((object_slot *)jv_table_get(&slots, index))->next_free;
    plat_mutex_unlock(slot_lock);
    if (index == UINT32_MAX && (index = jv_table_add(&slots, slot_init, NULL)) == UINT32_MAX) {
        (*env)->DeleteWeakGlobalRef(env, ref);
        return 0;
    }
    object_slot *s = jv_table_get(&slots, index);
    plat_mutex_lock(slot_lock);
    s->ref = ref;
    unsigned gen = atomic_fetch_add(&s->generation, 1) + 1; /* now odd: in use */
    plat_mutex_unlock(slot_lock);
    taken()[jv_objects_taken++] = index;
    return make_id(index, gen);
}

jobject jv_object_local(JNIEnv *env, ObjectID id)
{
    if (!env)
        return NULL;
    plat_mutex_lock(slot_lock);
    object_slot *s = slot_of(id);
    jobject local = s ? (*env)->NewLocalRef(env, s->ref) : NULL;
    plat_mutex_unlock(slot_lock);
    return local;
}

void jv_objects_release_scope(JNIEnv *env, unsigned mark)
{
    while (jv_objects_taken > mark) {
        uint32_t index = taken()[--jv_objects_taken];
        object_slot *s = jv_table_get(&slots, index);
        plat_mutex_lock(slot_lock);
        atomic_fetch_add(&s->generation, 1); /* now even: free, and old IDs are stale */
        if (env)
            (*env)->DeleteWeakGlobalRef(env, s->ref);
        s->ref = NULL;
        s->next_free = free_head;
        free_head = index;
        plat_mutex_unlock(slot_lock);
    }
    if (!jv_objects_taken && taken_heap) {
        free(taken_heap);
        taken_heap = NULL;
        taken_capacity = 0;
    }
}

HRESULT STDMETHODCALLTYPE idinfo_ObjectInformation(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id,
                                                   ClassID *pclass_id)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    jobject obj = jv_object_local(env, object_id);
    if (!obj || !pclass_id) {
        if (obj)
            (*env)->DeleteLocalRef(env, obj);
        return E_FAIL;
    }
    jclass klass = (*env)->GetObjectClass(env, obj);
    *pclass_id = jv_class_id(env, klass);
    (*env)->DeleteLocalRef(env, klass);
    (*env)->DeleteLocalRef(env, obj);
    return *pclass_id ? S_OK : E_FAIL;
}

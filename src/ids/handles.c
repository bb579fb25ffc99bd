/*
 * handles.c - ObjectHandleIDs, the long-lived names of objects, and the IDInfo methods
 * GetHandlesToObjects, GetObjectsFromHandles, FreeHandlesToObjects.
 *
 * A handle is a slot holding a JNI weak global reference: it survives garbage collections
 * (which move objects and expire ObjectIDs) without keeping its object alive.  Handles
 * are freed by the monitor, or by GetObjectsFromHandles once their object is collected.
 *
 * The ID is made as ids.h makes IDs, kind JV_ID_HANDLE, with an index whose low bits
 * name the slot and whose high bits the slot's generation, bumped when the slot is freed:
 * a freed handle stays invalid after its slot is reused, until the generation wraps.
 * Freed slots are reused oldest first, which makes that as late as possible.
 *
 * The calls are rare next to events, so one lock serializes them: a handle cannot be
 * freed on one thread while another reads its reference.
 */
#include "ids/ids.h"
#include "ids/object.h"
#include "ids/table.h"
#include "vm/once.h"

#define SLOT_BITS 22 /* the table's capacity, 4M slots */
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
/* The index must fit the ID's payload (index + 1 at most 2^28 - 1 on 32 bits) and a uint32_t. */
#define INDEX_BITS (sizeof(UniqueID) == 8 ? 31 : 27)
#define GENERATION_MASK ((1u << (INDEX_BITS - SLOT_BITS)) - 1)
#define NO_SLOT UINT32_MAX

typedef struct handle_slot {
    jweak ref;         /* NULL while the slot is free */
    uint32_t generation;
    uint32_t next_free;
} handle_slot;

static atomic_int initialized;
static jv_table slots;
static plat_mutex *lock;
static uint32_t free_head = NO_SLOT, free_tail = NO_SLOT; /* oldest freed first */

static void handles_init(void)
{
    jv_table_init(&slots, sizeof(handle_slot));
    lock = plat_mutex_create();
}

static void slot_init(void *element, void *arg)
{
    (void)arg;
    ((handle_slot *)element)->next_free = NO_SLOT;
}

static ObjectHandleID handle_id(uint32_t slot, const handle_slot *s)
{
    return jv_id_make(JV_ID_HANDLE, (s->generation & GENERATION_MASK) << SLOT_BITS | slot);
}

/* The slot a handle names while it is in use, or NULL.  Under the lock. */
static handle_slot *slot_of(ObjectHandleID handle, uint32_t *slot)
{
    uint32_t index;
    if (!jv_id_index(handle, JV_ID_HANDLE, &index))
        return NULL;
    *slot = index & SLOT_MASK;
    handle_slot *s = jv_table_get(&slots, *slot);
    return s && s->ref && (s->generation & GENERATION_MASK) == index >> SLOT_BITS ? s : NULL;
}

/* A new handle to obj; 0 when out of slots.  Under the lock. */
static ObjectHandleID new_handle(JNIEnv *env, jobject obj)
{
    uint32_t slot = free_head;
    if (slot != NO_SLOT) {
        free_head = ((handle_slot *)jv_table_get(&slots, slot))->next_free;
        if (free_head == NO_SLOT)
            free_tail = NO_SLOT;
    } else if ((slot = jv_table_add(&slots, slot_init, NULL)) == UINT32_MAX)
        return 0;
    handle_slot *s = jv_table_get(&slots, slot);
    s->next_free = NO_SLOT;
    if (!(s->ref = (*env)->NewWeakGlobalRef(env, obj))) {
        s->next_free = free_head; /* back where it came from */
        free_head = slot;
        if (free_tail == NO_SLOT)
            free_tail = slot;
        return 0;
    }
    return handle_id(slot, s);
}

/* Frees a slot in use.  Under the lock. */
static void free_slot(JNIEnv *env, uint32_t slot, handle_slot *s)
{
    (*env)->DeleteWeakGlobalRef(env, s->ref);
    s->ref = NULL;
    s->generation++;
    s->next_free = NO_SLOT;
    if (free_tail == NO_SLOT)
        free_head = slot;
    else
        ((handle_slot *)jv_table_get(&slots, free_tail))->next_free = slot;
    free_tail = slot;
}

/*
 * A NULL ObjectID gets a NULL handle.  Any other invalid or stale ObjectID fails the
 * whole call: no handle is made and every entry of pobject_handles is set to NULL.
 */
HRESULT STDMETHODCALLTYPE idinfo_GetHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned nobjects,
                                                     ObjectID *pobject_ids, ObjectHandleID *pobject_handles)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    if (!env || (nobjects && (!pobject_ids || !pobject_handles)))
        return E_FAIL;
    jv_once(&initialized, handles_init);
    HRESULT hr = S_OK;
    unsigned made;
    plat_mutex_lock(lock);
    for (made = 0; made < nobjects; made++) {
        jobject obj = jv_object_local(env, pobject_ids[made]);
        pobject_handles[made] = obj ? new_handle(env, obj) : 0;
        if (obj)
            (*env)->DeleteLocalRef(env, obj);
        if (pobject_ids[made] && !pobject_handles[made]) {
            hr = obj ? E_OUTOFMEMORY : E_FAIL;
            break;
        }
    }
    if (FAILED(hr)) {
        uint32_t slot;
        for (unsigned i = 0; i < made; i++) {
            handle_slot *s = slot_of(pobject_handles[i], &slot);
            if (s)
                free_slot(env, slot, s);
        }
        for (unsigned i = 0; i < nobjects; i++)
            pobject_handles[i] = 0;
    }
    plat_mutex_unlock(lock);
    return hr;
}

/*
 * NULL handles give NULL ObjectIDs.  A handle whose object was collected gives a NULL
 * ObjectID and is freed and set to NULL.  Any other invalid handle fails the whole call
 * before anything changes: the ObjectIDs are all NULL and no handle is freed.
 */
HRESULT STDMETHODCALLTYPE idinfo_GetObjectsFromHandles(IJavaEventMonitorIDInfo4 *iface, unsigned nhandles,
                                                       ObjectHandleID *pobject_handles, ObjectID *pobject_ids)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    if (!env || (nhandles && (!pobject_handles || !pobject_ids)))
        return E_FAIL;
    jv_once(&initialized, handles_init);
    uint32_t slot;
    int valid = 1;
    plat_mutex_lock(lock);
    for (unsigned i = 0; i < nhandles; i++) {
        pobject_ids[i] = 0;
        valid = valid && (!pobject_handles[i] || slot_of(pobject_handles[i], &slot));
    }
    for (unsigned i = 0; valid && i < nhandles; i++) {
        handle_slot *s = pobject_handles[i] ? slot_of(pobject_handles[i], &slot) : NULL;
        jobject obj = s ? (*env)->NewLocalRef(env, s->ref) : NULL;
        if (obj) {
            pobject_ids[i] = jv_object_id(env, obj);
            (*env)->DeleteLocalRef(env, obj);
        } else if (s) {
            free_slot(env, slot, s); /* the object was collected */
            pobject_handles[i] = 0;
        }
    }
    plat_mutex_unlock(lock);
    return valid ? S_OK : E_FAIL;
}

/* NULL entries are ignored; so are invalid ones, but then the result is E_FAIL. */
HRESULT STDMETHODCALLTYPE idinfo_FreeHandlesToObjects(IJavaEventMonitorIDInfo4 *iface, unsigned int nhandles,
                                                      ObjectHandleID *pobject_handles)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    if (!env || (nhandles && !pobject_handles))
        return E_FAIL;
    jv_once(&initialized, handles_init);
    HRESULT hr = S_OK;
    uint32_t slot;
    plat_mutex_lock(lock);
    for (unsigned i = 0; i < nhandles; i++) {
        handle_slot *s = pobject_handles[i] ? slot_of(pobject_handles[i], &slot) : NULL;
        if (s)
            free_slot(env, slot, s);
        else if (pobject_handles[i])
            hr = E_FAIL;
    }
    plat_mutex_unlock(lock);
    return hr;
}

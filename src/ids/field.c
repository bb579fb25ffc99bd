/*
 * field.c - the field table (see field.h) and the IDInfo methods about fields:
 * FieldInformation, GetClassFields, GetObjectField, StaticClassInformation.
 */
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/field.h"
#include "ids/ids.h"
#include "ids/object.h"
#include "ids/table.h"
#include "ids/value.h"
#include "vm/once.h"

/*
 * StaticClassInformation's sizes follow HotSpot's layout with its defaults on a 64-bit
 * VM (compressed oops and class pointers: 12-byte object header, 4-byte references)
 * and on a 32-bit VM (8-byte header, 4-byte references): the header plus every field,
 * rounded up to 8 bytes.  HotSpot packs fields into gaps, so the sum matches it except
 * where a superclass's padding cannot be filled; VMs started with other options
 * (-XX:-UseCompressedOops, compact headers) differ.
 */
#define REFERENCE_SIZE 4u
#define OBJECT_HEADER_SIZE (sizeof(void *) == 8 ? 12u : 8u)
#define OBJECT_ALIGNMENT 8u

/* The FieldIDs of one class: consecutive, from first; listed is 0 until they are registered. */
typedef struct class_fields {
    uint32_t first, count;
    int listed;
} class_fields;

static atomic_int initialized;
static jv_table fields;
static plat_mutex *listing;  /* guards by_class and registration */
static class_fields *by_class; /* indexed by the ClassID's index */
static uint32_t by_class_length;

static void fields_init(void)
{
    jv_table_init(&fields, sizeof(jv_field));
    listing = plat_mutex_create();
}

static void field_init(void *element, void *arg)
{
    *(jv_field *)element = *(jv_field *)arg;
}

jv_field *jv_field_get(FieldID id)
{
    uint32_t index;
    if (!jv_id_index(id, JV_ID_FIELD, &index) || atomic_load(&initialized) != JV_ONCE_DONE)
        return NULL;
    jv_field *f = jv_table_get(&fields, index);
    return f && jv_class_get(f->class_id) ? f : NULL;
}

/* Adds one field of klass to the table; 0 on failure. */
static int register_field(jclass klass, jfieldID jfield, ClassID class_id)
{
    char *name = NULL, *signature = NULL;
    jint modifiers = 0;
    if ((*jv_jvmti)->GetFieldName(jv_jvmti, klass, jfield, &name, &signature, NULL) != JVMTI_ERROR_NONE)
        return 0;
    jv_field f = {jfield, class_id, strdup(name), signature[0], 0};
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    if (!f.name || (*jv_jvmti)->GetFieldModifiers(jv_jvmti, klass, jfield, &modifiers) != JVMTI_ERROR_NONE) {
        free(f.name);
        return 0;
    }
    f.is_static = (modifiers & 0x0008 /* ACC_STATIC */) != 0;
    if (jv_table_add(&fields, field_init, &f) == UINT32_MAX) {
        free(f.name);
        return 0;
    }
    return 1;
}

/* The class's entry in by_class, growing it; NULL when out of memory.  Under listing. */
static class_fields *class_entry(uint32_t class_index)
{
    if (class_index >= by_class_length) {
        uint32_t length = by_class_length ? by_class_length : 256;
        while (length <= class_index)
            length *= 2;
        class_fields *grown = realloc(by_class, length * sizeof(*grown));
        if (!grown)
            return NULL;
        memset(grown + by_class_length, 0, (length - by_class_length) * sizeof(*grown));
        by_class = grown;
        by_class_length = length;
    }
    return &by_class[class_index];
}

/* The class's FieldIDs (first and count), registering them on first use; 0 on failure. */
static int class_field_range(JNIEnv *env, ClassID class_id, jv_class *c, uint32_t *first, uint32_t *count)
{
    uint32_t class_index;
    if (!jv_id_index(class_id, JV_ID_CLASS, &class_index))
        return 0;
    jv_once(&initialized, fields_init);
    plat_mutex_lock(listing);
    class_fields *entry = class_entry(class_index);
    jclass klass = entry && !entry->listed ? jv_class_local(env, c) : NULL;
    if (klass) {
        jint n = 0;
        jfieldID *jfields = NULL;
        if ((*jv_jvmti)->GetClassFields(jv_jvmti, klass, &n, &jfields) == JVMTI_ERROR_NONE) {
            uint32_t start = jv_table_count(&fields);
            jint added = 0;
            while (added < n && register_field(klass, jfields[added], class_id))
                added++;
            (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)jfields);
            /* A field that could not be registered leaves the class unlisted; its entries are never named. */
            if (added == n) {
                entry->first = start;
                entry->count = (uint32_t)n;
                entry->listed = 1;
            }
        }
        (*env)->DeleteLocalRef(env, klass);
    }
    int ok = entry && entry->listed;
    if (ok) {
        *first = entry->first;
        *count = entry->count;
    }
    plat_mutex_unlock(listing);
    return ok;
}

HRESULT STDMETHODCALLTYPE idinfo_FieldInformation(IJavaEventMonitorIDInfo4 *iface, FieldID field_id, LPSTR *pname,
                                                  DWORD *pflags)
{
    (void)iface;
    jv_field *f = jv_field_get(field_id);
    if (!f || !pname || !pflags)
        return E_FAIL;
    if (!(*pname = jv_cotask_strdup(f->name)))
        return E_OUTOFMEMORY;
    *pflags = (f->is_static ? JVM_FIELD_STATIC : 0) | (jv_type_is_reference(f->type) ? JVM_FIELD_OBJECTREF : 0);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_GetClassFields(IJavaEventMonitorIDInfo4 *iface, ClassID class_id, unsigned *pnfields,
                                                FieldID **ppfield_ids)
{
    (void)iface;
    jv_class *c = jv_class_get(class_id);
    JNIEnv *env = jv_jni();
    uint32_t first, count;
    if (!c || !env || !pnfields || !ppfield_ids || !class_field_range(env, class_id, c, &first, &count))
        return E_FAIL;
    *pnfields = 0;
    *ppfield_ids = NULL; /* a class without fields gets no array */
    if (!count)
        return S_OK;
    if (!(*ppfield_ids = CoTaskMemAlloc(count * sizeof(FieldID))))
        return E_OUTOFMEMORY;
    for (uint32_t i = 0; i < count; i++)
        (*ppfield_ids)[i] = jv_id_make(JV_ID_FIELD, first + i);
    *pnfields = count;
    return S_OK;
}

/* Reads the field of obj (or, for a static field, of klass). */
static jvalue read_field(JNIEnv *env, const jv_field *f, jobject obj, jclass klass)
{
    jvalue v;
    jfieldID id = f->jfield;
    int s = f->is_static;
    memset(&v, 0, sizeof(v));
    switch (f->type) {
    case 'Z': v.z = s ? (*env)->GetStaticBooleanField(env, klass, id) : (*env)->GetBooleanField(env, obj, id); break;
    case 'B': v.b = s ? (*env)->GetStaticByteField(env, klass, id) : (*env)->GetByteField(env, obj, id); break;
    case 'C': v.c = s ? (*env)->GetStaticCharField(env, klass, id) : (*env)->GetCharField(env, obj, id); break;
    case 'S': v.s = s ? (*env)->GetStaticShortField(env, klass, id) : (*env)->GetShortField(env, obj, id); break;
    case 'I': v.i = s ? (*env)->GetStaticIntField(env, klass, id) : (*env)->GetIntField(env, obj, id); break;
    case 'J': v.j = s ? (*env)->GetStaticLongField(env, klass, id) : (*env)->GetLongField(env, obj, id); break;
    case 'F': v.f = s ? (*env)->GetStaticFloatField(env, klass, id) : (*env)->GetFloatField(env, obj, id); break;
    case 'D': v.d = s ? (*env)->GetStaticDoubleField(env, klass, id) : (*env)->GetDoubleField(env, obj, id); break;
    default: v.l = s ? (*env)->GetStaticObjectField(env, klass, id) : (*env)->GetObjectField(env, obj, id); break;
    }
    return v;
}

/*
 * A static field is read with object_id 0 or with any valid ObjectID, which is then
 * ignored (as java.lang.reflect.Field.get ignores its argument for static fields); an
 * instance field needs the ObjectID of an instance of its declaring class.
 */
HRESULT STDMETHODCALLTYPE idinfo_GetObjectField(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, FieldID field_id,
                                                __int64 *pvalue)
{
    (void)iface;
    jv_field *f = jv_field_get(field_id);
    jv_class *c = f ? jv_class_get(f->class_id) : NULL;
    JNIEnv *env = jv_jni();
    if (!c || !env || !pvalue)
        return E_FAIL;
    jobject obj = object_id ? jv_object_local(env, object_id) : NULL;
    if (object_id && !obj)
        return E_FAIL; /* stale or garbage ObjectID */
    jclass klass = jv_class_local(env, c);
    HRESULT hr = E_FAIL;
    if (klass && (f->is_static || (obj && (*env)->IsInstanceOf(env, obj, klass)))) {
        jvalue v = read_field(env, f, obj, klass);
        *pvalue = jv_value_widen(env, f->type, v);
        if (jv_type_is_reference(f->type) && v.l)
            (*env)->DeleteLocalRef(env, v.l);
        hr = S_OK;
    }
    if (klass)
        (*env)->DeleteLocalRef(env, klass);
    if (obj)
        (*env)->DeleteLocalRef(env, obj);
    return hr;
}

static DWORD field_size(char type)
{
    switch (type) {
    case 'Z':
    case 'B':
        return 1;
    case 'C':
    case 'S':
        return 2;
    case 'I':
    case 'F':
        return 4;
    case 'J':
    case 'D':
        return 8;
    default:
        return REFERENCE_SIZE;
    }
}

/* Adds the sizes of the class's own static and instance fields; 0 on failure. */
static int add_field_sizes(JNIEnv *env, jclass klass, DWORD *static_size, DWORD *instance_size)
{
    ClassID id = jv_class_id(env, klass);
    jv_class *c = jv_class_get(id);
    uint32_t first, count;
    if (!c || !class_field_range(env, id, c, &first, &count))
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        jv_field *f = jv_table_get(&fields, first + i);
        if (static_size && f->is_static)
            *static_size += field_size(f->type);
        else if (!f->is_static)
            *instance_size += field_size(f->type);
    }
    return 1;
}

HRESULT STDMETHODCALLTYPE idinfo_StaticClassInformation(IJavaEventMonitorIDInfo4 *iface, ClassID class_id,
                                                        DWORD *pStaticDataSize, DWORD *pInstanceSize)
{
    (void)iface;
    jv_class *c = jv_class_get(class_id);
    JNIEnv *env = jv_jni();
    if (!c || !env || !pStaticDataSize || !pInstanceSize)
        return E_FAIL;
    jclass klass = jv_class_local(env, c);
    DWORD static_size = 0, instance_size = OBJECT_HEADER_SIZE;
    int ok = klass != NULL;
    /* Instances hold the fields of every superclass too; the static data is the class's own. */
    DWORD *own_statics = &static_size;
    for (jclass k = klass, super; k; k = super, own_statics = NULL) {
        ok = ok && add_field_sizes(env, k, own_statics, &instance_size);
        super = (*env)->GetSuperclass(env, k);
        (*env)->DeleteLocalRef(env, k);
    }
    if (!ok)
        return E_FAIL;
    *pStaticDataSize = static_size;
    *pInstanceSize = (instance_size + OBJECT_ALIGNMENT - 1) / OBJECT_ALIGNMENT * OBJECT_ALIGNMENT;
    return S_OK;
}

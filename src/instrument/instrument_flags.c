/*
 * instrument_flags.c - the flag array of the instrumented method-call path: the static
 * byte[] jevmon.Bridge.on, indexed by method int (instrument.c).  Injected code calls the
 * bridge only while its method's byte is non-zero, so a method nobody wants costs one
 * array load and test.
 *
 * A byte set means "ask the bridge": every new method int starts set, and the bridge
 * clears the byte the first time it finds that no monitor wants the method
 * (jv_instrument_flag_clear).  EnableMethodCallEvents sets it again (jv_instrument_flag_raise).
 * When method ints outgrow the array, a bigger one, all set, replaces it: methods that were
 * cleared then ask once more, which is cheaper than copying under a lock on every growth.
 *
 * Counting: while some thread runs a method enabled for SPECIFIC_METHOD_CALLS, every method's
 * calls must reach the bridge so that its shadow stack counts the frames between enabled
 * ones (instrument.c).  A second array, every byte set, is kept beside the one above (the
 * sparse array) and put in the field instead: switching costs one field store, whatever
 * the number of methods, and the sparse array keeps its cleared bytes for afterwards.
 *
 * The arrays are replaced and written only under flags_lock, with JNI, so the injected code
 * (which reads the field afresh on every call) sees either array whole.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/instrument.h"
#include "platform/platform.h"

#define FIRST_CAPACITY (1 << 16)

static plat_mutex *flags_lock;
static jclass bridge_class; /* global ref, kept while the VM lives */
static jfieldID flags_field;
static jbyteArray flags;    /* global ref to the sparse array */
static jbyteArray all_set;  /* global ref to the array with every byte set */
static int counting;        /* all_set is the one in the field */
static atomic_int counting_now; /* the same, for reading without the lock */
static uint32_t capacity;

/* A fresh array of size entries, every byte set, as a global ref; NULL when out of memory. */
static jbyteArray new_all_set(JNIEnv *env, uint32_t size)
{
    jbyteArray fresh = (*env)->NewByteArray(env, (jsize)size);
    if (!fresh) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, fresh, NULL);
    if (bytes) {
        memset(bytes, 1, size);
        (*env)->ReleasePrimitiveArrayCritical(env, fresh, bytes, 0);
    }
    jbyteArray global = bytes ? (*env)->NewGlobalRef(env, fresh) : NULL;
    (*env)->DeleteLocalRef(env, fresh);
    return global;
}

/* Replaces both arrays with fresh all-set ones of size entries; under flags_lock. */
static int install(JNIEnv *env, uint32_t size)
{
    jbyteArray sparse = new_all_set(env, size), every = sparse ? new_all_set(env, size) : NULL;
    if (!every) {
        if (sparse)
            (*env)->DeleteGlobalRef(env, sparse);
        return 0;
    }
    (*env)->SetStaticObjectField(env, bridge_class, flags_field, counting ? every : sparse);
    if (flags)
        (*env)->DeleteGlobalRef(env, flags);
    if (all_set)
        (*env)->DeleteGlobalRef(env, all_set);
    flags = sparse;
    all_set = every;
    capacity = size;
    return 1;
}

int jv_instrument_flags_start(JNIEnv *env, jclass bridge, const char *name, const char *descriptor)
{
    flags_field = (*env)->GetStaticFieldID(env, bridge, name, descriptor);
    if (!flags_field || !(flags_lock = plat_mutex_create())) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    bridge_class = (*env)->NewGlobalRef(env, bridge);
    plat_mutex_lock(flags_lock);
    int ok = bridge_class && install(env, FIRST_CAPACITY);
    plat_mutex_unlock(flags_lock);
    return ok;
}

int jv_instrument_flags_cover(JNIEnv *env, uint32_t count)
{
    if (!flags_lock || !env)
        return 0;
    plat_mutex_lock(flags_lock);
    int ok = count <= capacity;
    if (!ok && count <= 0x40000000u) {
        uint32_t size = capacity;
        while (size < count)
            size *= 2;
        ok = install(env, size);
    }
    plat_mutex_unlock(flags_lock);
    return ok;
}

static void set_flag(JNIEnv *env, uint32_t n, jbyte value)
{
    if (!flags_lock || !env)
        return;
    plat_mutex_lock(flags_lock);
    if (flags && n < capacity)
        (*env)->SetByteArrayRegion(env, flags, (jsize)n, 1, &value);
    plat_mutex_unlock(flags_lock);
}

void jv_instrument_flag_clear(JNIEnv *env, uint32_t n)
{
    set_flag(env, n, 0);
}

void jv_instrument_flag_raise(JNIEnv *env, uint32_t n)
{
    set_flag(env, n, 1);
}

/* The all-set array is in the field while regions > 0; under flags_lock. */
static void count_regions(JNIEnv *env, int change)
{
    static uint32_t regions;
    if (!flags_lock || !env)
        return;
    plat_mutex_lock(flags_lock);
    regions += (uint32_t)change;
    if (flags && all_set && counting != (regions > 0)) {
        counting = regions > 0;
        atomic_store(&counting_now, counting);
        (*env)->SetStaticObjectField(env, bridge_class, flags_field, counting ? all_set : flags);
    }
    plat_mutex_unlock(flags_lock);
}

void jv_instrument_flags_region_begin(JNIEnv *env)
{
    count_regions(env, 1);
}

void jv_instrument_flags_region_end(JNIEnv *env)
{
    count_regions(env, -1);
}

int jv_instrument_flags_counting(void)
{
    return atomic_load_explicit(&counting_now, memory_order_relaxed);
}

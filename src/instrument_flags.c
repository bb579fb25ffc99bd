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
 * The array is replaced and written only under flags_lock, with JNI, so the injected code
 * (which reads the field afresh on every call) sees either array whole.
 */
#include <stdlib.h>
#include <string.h>

#include "instrument.h"
#include "platform/platform.h"

#define FIRST_CAPACITY (1 << 16)

static plat_mutex *flags_lock;
static jclass bridge_class; /* global ref, kept while the VM lives */
static jfieldID flags_field;
static jbyteArray flags;    /* global ref to the array in the field */
static uint32_t capacity;

/* Puts a fresh all-set array of size entries into the field; under flags_lock. */
static int install(JNIEnv *env, uint32_t size)
{
    jbyteArray fresh = (*env)->NewByteArray(env, (jsize)size);
    if (!fresh) {
        (*env)->ExceptionClear(env);
        return 0;
    }
    jbyte *bytes = (*env)->GetPrimitiveArrayCritical(env, fresh, NULL);
    if (bytes) {
        memset(bytes, 1, size);
        (*env)->ReleasePrimitiveArrayCritical(env, fresh, bytes, 0);
    }
    jbyteArray global = bytes ? (*env)->NewGlobalRef(env, fresh) : NULL;
    (*env)->DeleteLocalRef(env, fresh);
    if (!global)
        return 0;
    (*env)->SetStaticObjectField(env, bridge_class, flags_field, global);
    if (flags)
        (*env)->DeleteGlobalRef(env, flags);
    flags = global;
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

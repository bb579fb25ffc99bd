/*
 * instrument.c - method calls by bytecode instrumentation (see instrument.h).
 *
 * Method ints: the class-file hook hands out a fresh int for every method it rewrites
 * (a class loaded twice, or retransformed, gets new ones).  The int indexes a table of
 * MethodIDs filled on the method's first call: the bridge's enter is then one frame above
 * the method, whose jmethodID GetStackTrace gives; afterwards enter and exit find the
 * MethodID with one load.  The table is chunked so it grows without moving and without a
 * lock on the reading side.
 *
 * Reentrancy: a monitor called from enter or exit may run Java code, itself instrumented;
 * a thread-local flag makes those calls return at once, so they are neither seen nor
 * counted, like the bridge's own work.
 *
 * Return values are not seen on this path: GetMethodExitReturnValue returns E_FAIL.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "events.h"
#include "instrument.h"
#include "method.h"
#include "monitors.h"
#include "platform/platform.h"

#define BRIDGE_CLASS "jevmon/Bridge"
#define CHUNK_BITS 16
#define CHUNK_SIZE ((uint32_t)1 << CHUNK_BITS)
#define CHUNKS 32768 /* 2^31 method ints in all */

/*
 * The bridge class, hand-assembled (JVMS 4):
 *   public final class jevmon.Bridge { public static native void enter(int); public static native void exit(int); }
 * Version 49.0: no StackMapTable needed, and there is no code anyway.
 */
static const unsigned char bridge_class_bytes[] = {
    0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x31, /* magic, minor 0, major 49 */
    0x00, 0x08,                                     /* constant pool count: entries 1..7 */
    0x01, 0x00, 0x0D, 'j', 'e', 'v', 'm', 'o', 'n', '/', 'B', 'r', 'i', 'd', 'g', 'e', /* 1 Utf8 */
    0x07, 0x00, 0x01,                                                                 /* 2 Class #1 */
    0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't', /* 3 */
    0x07, 0x00, 0x03,                                /* 4 Class #3 */
    0x01, 0x00, 0x05, 'e', 'n', 't', 'e', 'r',       /* 5 Utf8 */
    0x01, 0x00, 0x04, '(', 'I', ')', 'V',            /* 6 Utf8 */
    0x01, 0x00, 0x04, 'e', 'x', 'i', 't',            /* 7 Utf8 */
    0x00, 0x31,                                      /* ACC_PUBLIC | ACC_FINAL | ACC_SUPER */
    0x00, 0x02, 0x00, 0x04,                          /* this #2, super #4 */
    0x00, 0x00, 0x00, 0x00,                          /* no interfaces, no fields */
    0x00, 0x02,                                      /* two methods */
    0x01, 0x09, 0x00, 0x05, 0x00, 0x06, 0x00, 0x00,  /* public static native enter (I)V */
    0x01, 0x09, 0x00, 0x07, 0x00, 0x06, 0x00, 0x00,  /* public static native exit (I)V */
    0x00, 0x00                                       /* no attributes */
};

static _Atomic(_Atomic MethodID *) chunks[CHUNKS];
static atomic_uint next_int;
static atomic_int active;
static _Thread_local int in_bridge;

void jv_instrument_capabilities(jvmtiCapabilities *caps)
{
    caps->can_generate_all_class_hook_events = 1;
    caps->can_retransform_classes = 1;
}

int jv_instrument_possible(const jvmtiCapabilities *caps)
{
    return caps->can_generate_all_class_hook_events && caps->can_retransform_classes;
}

int jv_instrument_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}

/* The slot of a method int, its chunk allocated when create is set; NULL when out of range or memory. */
static _Atomic MethodID *slot_of(uint32_t n, int create)
{
    if (n >= (uint32_t)CHUNKS * CHUNK_SIZE)
        return NULL;
    _Atomic MethodID *chunk = atomic_load_explicit(&chunks[n >> CHUNK_BITS], memory_order_acquire);
    if (!chunk && create) {
        _Atomic MethodID *fresh = calloc(CHUNK_SIZE, sizeof(*fresh));
        if (!fresh)
            return NULL;
        if (atomic_compare_exchange_strong(&chunks[n >> CHUNK_BITS], &chunk, fresh))
            chunk = fresh;
        else
            free(fresh); /* another thread allocated it first: chunk holds its chunk */
    }
    return chunk ? &chunk[n & (CHUNK_SIZE - 1)] : NULL;
}

static int32_t method_int(void *context, const cf_method_info *method)
{
    (void)context;
    /* The rewriter cannot handle it (the VM treats it specially) and would say so for every run. */
    if (!strcmp(method->class_name, "java/lang/Object") && !strcmp(method->name, "<init>"))
        return CF_SKIP_METHOD;
    uint32_t n = atomic_fetch_add(&next_int, 1);
    return slot_of(n, 1) ? (int32_t)n : CF_SKIP_METHOD;
}

/* The MethodID behind a method int; the first call reads it off the stack (frame 1: the method). */
static MethodID resolve(JNIEnv *env, jint n)
{
    _Atomic MethodID *slot = slot_of((uint32_t)n, 0);
    if (!slot)
        return 0;
    MethodID id = atomic_load_explicit(slot, memory_order_relaxed);
    if (id)
        return id;
    jvmtiFrameInfo frame;
    jint got = 0;
    if ((*jv_jvmti)->GetStackTrace(jv_jvmti, NULL, 1, 1, &frame, &got) != JVMTI_ERROR_NONE || got != 1)
        return 0;
    id = jv_method_id(env, frame.method);
    atomic_store_explicit(slot, id, memory_order_relaxed);
    return id;
}

static void JNICALL bridge_enter(JNIEnv *env, jclass bridge, jint n)
{
    (void)bridge;
    if (in_bridge || !jv_vm_live())
        return;
    in_bridge = 1;
    MethodID id = resolve(env, n);
    if (id)
        jv_method_calls_enter(env, NULL, id, NULL, 2); /* above the shadow: enter and the method */
    in_bridge = 0;
}

static void JNICALL bridge_exit(JNIEnv *env, jclass bridge, jint n)
{
    (void)bridge;
    if (in_bridge || !jv_vm_live())
        return;
    in_bridge = 1;
    MethodID id = resolve(env, n);
    if (id) /* normal or exceptional: the injected handler calls exit too, and rethrows */
        jv_method_calls_exit(env, NULL, NULL, id, 1, JNI_FALSE, NULL);
    in_bridge = 0;
}

void jv_instrument_class_file(const char *name, jint length, const unsigned char *data, jint *new_length,
                              unsigned char **new_data)
{
    if (!data || length <= 0 || (name && !strcmp(name, BRIDGE_CLASS)))
        return;
    cf_hooks hooks = {.bridge_class = BRIDGE_CLASS,
                      .enter_name = "enter", .enter_descriptor = "(I)V",
                      .exit_name = "exit", .exit_descriptor = "(I)V",
                      .method_id = method_int};
    uint8_t *out = NULL;
    size_t out_size = 0;
    char error[256];
    int r = cf_instrument_class(data, (size_t)length, &hooks, &out, &out_size, NULL, error, sizeof(error));
    if (r < 0) {
        jv_log("class %s keeps its code, its method calls unseen: %s", name ? name : "(unnamed)", error);
        return;
    }
    if (r == 0 || !out)
        return;
    unsigned char *copy = NULL;
    if (out_size <= 0x7fffffff && (*jv_jvmti)->Allocate(jv_jvmti, (jlong)out_size, &copy) == JVMTI_ERROR_NONE) {
        memcpy(copy, out, out_size);
        *new_data = copy;
        *new_length = (jint)out_size;
    }
    free(out);
}

/* Lets every named module read the bridge's (the boot loader's unnamed) module. */
static void add_reads(JNIEnv *env, jclass bridge)
{
    jobject module = (*env)->GetModule(env, bridge);
    jint count = 0;
    jobject *modules = NULL;
    if (!module || (*jv_jvmti)->GetAllModules(jv_jvmti, &count, &modules) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < count; i++) {
        (*jv_jvmti)->AddModuleReads(jv_jvmti, modules[i], module);
        (*env)->DeleteLocalRef(env, modules[i]);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)modules);
    (*env)->DeleteLocalRef(env, module);
}

/* Retransforms every modifiable class loaded so far except the bridge; one by one if the batch fails. */
static void retransform_loaded(JNIEnv *env, jclass bridge)
{
    jint count = 0, kept = 0;
    jclass *loaded = NULL;
    if ((*jv_jvmti)->GetLoadedClasses(jv_jvmti, &count, &loaded) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < count; i++) {
        jboolean modifiable = JNI_FALSE;
        if ((*jv_jvmti)->IsModifiableClass(jv_jvmti, loaded[i], &modifiable) == JVMTI_ERROR_NONE && modifiable &&
            !(*env)->IsSameObject(env, loaded[i], bridge))
            loaded[kept++] = loaded[i];
        else
            (*env)->DeleteLocalRef(env, loaded[i]);
    }
    if (kept && (*jv_jvmti)->RetransformClasses(jv_jvmti, kept, loaded) != JVMTI_ERROR_NONE) {
        unsigned failed = 0;
        for (jint i = 0; i < kept; i++)
            failed += (*jv_jvmti)->RetransformClasses(jv_jvmti, 1, &loaded[i]) != JVMTI_ERROR_NONE;
        if (failed)
            jv_log("%u classes loaded before the bridge could not be instrumented; their method calls are unseen",
                   failed);
    }
    for (jint i = 0; i < kept; i++)
        (*env)->DeleteLocalRef(env, loaded[i]);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)loaded);
}

int jv_instrument_start(JNIEnv *env)
{
    jclass bridge = (*env)->DefineClass(env, BRIDGE_CLASS, NULL, (const jbyte *)bridge_class_bytes,
                                        (jsize)sizeof(bridge_class_bytes));
    if (!bridge) {
        (*env)->ExceptionClear(env);
        jv_log("could not define the bridge class %s; method calls are not delivered", BRIDGE_CLASS);
        return 0;
    }
    JNINativeMethod natives[] = {{(char *)"enter", (char *)"(I)V", (void *)bridge_enter},
                                 {(char *)"exit", (char *)"(I)V", (void *)bridge_exit}};
    if ((*env)->RegisterNatives(env, bridge, natives, 2) != 0) {
        (*env)->ExceptionClear(env);
        jv_log("could not bind the natives of %s; method calls are not delivered", BRIDGE_CLASS);
        return 0;
    }
    add_reads(env, bridge);
    atomic_store(&active, 1);
    jv_events_update(); /* the class-file hook goes on */
    retransform_loaded(env, bridge);
    (*env)->DeleteLocalRef(env, bridge);
    return 1;
}

int jv_instrument_is_handler(jmethodID method, jlocation location)
{
    jint length = 0;
    unsigned char *code = NULL;
    if (!jv_instrument_active() || !method || location < 0 ||
        (*jv_jvmti)->GetBytecodes(jv_jvmti, method, &length, &code) != JVMTI_ERROR_NONE)
        return 0;
    /* The injected handler (classfile.h, without a flag array): push N; invokestatic exit; athrow.
     * javac never starts a handler so: the caught exception would stay under the int. */
    jlong at = location, push = 0;
    if (at < length) {
        unsigned char op = code[at];
        push = op >= 0x02 && op <= 0x08 ? 1 : op == 0x10 || op == 0x12 ? 2 : op == 0x11 || op == 0x13 ? 3 : 0;
    }
    int handler = push && at + push + 3 < length && code[at + push] == 0xb8 /* invokestatic */ &&
                  code[at + push + 3] == 0xbf /* athrow */;
    (*jv_jvmti)->Deallocate(jv_jvmti, code);
    return handler;
}

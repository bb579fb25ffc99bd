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
 * the thread's bridge flag (dispatch.h) makes those calls return at once, so they are
 * neither seen nor counted, like the bridge's own work.  A thread that could get no
 * dispatch slot of its own (memory exhausted) has no flag, and its calls are not delivered.
 *
 * Return values are not seen on this path: GetMethodExitReturnValue returns E_FAIL.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/event_switch.h"
#include "dispatch/method_calls.h"
#include "dispatch/monitor_table.h"
#include "events/call_batch.h"
#include "events/events.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/original_code.h"
#include "ids/thread.h"
#include "classfile/classfile.h"
#include "common/chunked_array.h"
#include "instrument/instrument.h"
#include "platform/platform.h"

#define BRIDGE_CLASS "jevmon/Bridge"
#define FLAGS_FIELD "on"
#define FLAGS_DESCRIPTOR "[B"

/*
 * The bridge class, hand-assembled (JVMS 4):
 *   public final class jevmon.Bridge {
 *       public static volatile byte[] on;  // the flag array (instrument_flags.c)
 *       public static native void enter(int);
 *       public static native void exit(int);
 *       public static native void unwind(int);  // called by the injected handler
 *   }
 * Version 49.0: no StackMapTable needed, and there is no code anyway.  The field is
 * volatile so compiled code never keeps an array that was replaced.
 */
static const unsigned char bridge_class_bytes[] = {
    0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x31, /* magic, minor 0, major 49 */
    0x00, 0x0B,                                     /* constant pool count: entries 1..10 */
    0x01, 0x00, 0x0D, 'j', 'e', 'v', 'm', 'o', 'n', '/', 'B', 'r', 'i', 'd', 'g', 'e', /* 1 Utf8 */
    0x07, 0x00, 0x01,                                                                 /* 2 Class #1 */
    0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't', /* 3 */
    0x07, 0x00, 0x03,                                /* 4 Class #3 */
    0x01, 0x00, 0x05, 'e', 'n', 't', 'e', 'r',       /* 5 Utf8 */
    0x01, 0x00, 0x04, '(', 'I', ')', 'V',            /* 6 Utf8 */
    0x01, 0x00, 0x04, 'e', 'x', 'i', 't',            /* 7 Utf8 */
    0x01, 0x00, 0x02, 'o', 'n',                      /* 8 Utf8 */
    0x01, 0x00, 0x02, '[', 'B',                      /* 9 Utf8 */
    0x01, 0x00, 0x06, 'u', 'n', 'w', 'i', 'n', 'd',  /* 10 Utf8 */
    0x00, 0x31,                                      /* ACC_PUBLIC | ACC_FINAL | ACC_SUPER */
    0x00, 0x02, 0x00, 0x04,                          /* this #2, super #4 */
    0x00, 0x00,                                      /* no interfaces */
    0x00, 0x01,                                      /* one field */
    0x00, 0x49, 0x00, 0x08, 0x00, 0x09, 0x00, 0x00,  /* public static volatile on [B */
    0x00, 0x03,                                      /* three methods */
    0x01, 0x09, 0x00, 0x05, 0x00, 0x06, 0x00, 0x00,  /* public static native enter (I)V */
    0x01, 0x09, 0x00, 0x07, 0x00, 0x06, 0x00, 0x00,  /* public static native exit (I)V */
    0x01, 0x09, 0x00, 0x0A, 0x00, 0x06, 0x00, 0x00,  /* public static native unwind (I)V */
    0x00, 0x00                                       /* no attributes */
};

/* The MethodID of each method int, 2^16 a chunk, in up to 32768 chunks: 2^31 method ints in all. */
static void *_Atomic method_id_chunks[32768];
static const jv_chunked_array method_ids = JV_CHUNKED_ARRAY(method_id_chunks, 16, sizeof(_Atomic MethodID));
static atomic_uint next_int;
static atomic_int active;
static int flagless; /* every call is wanted for the whole run: the injected calls skip the flag */

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
    return create ? jv_chunked_array_make(&method_ids, n) : jv_chunked_array_get(&method_ids, n);
}

static int32_t method_int(void *context, const cf_method_info *method)
{
    (void)context;
    /* The rewriter cannot handle it (the VM treats it specially) and would say so for every run. */
    if (!strcmp(method->class_name, "java/lang/Object") && !strcmp(method->name, "<init>"))
        return CF_SKIP_METHOD;
    /* Their calls would land on one thread's shadow stack and return on another's; JVMTI posts no
     * method events for them either (thread.h). */
    if (jv_thread_mount_transition_class(method->class_name))
        return CF_SKIP_METHOD;
    uint32_t n = atomic_fetch_add(&next_int, 1);
    return slot_of(n, 1) ? (int32_t)n : CF_SKIP_METHOD;
}

/* The MethodID behind a method int once its first call recorded it; 0 before. */
static inline MethodID recorded_id(jint n)
{
    _Atomic MethodID *slot = jv_chunked_array_get(&method_ids, (uint32_t)n);
    return slot ? atomic_load_explicit(slot, memory_order_relaxed) : 0;
}

/*
 * The first call of a method int reads its MethodID off the stack (frame 1: the method)
 * and records the int with the method, for EnableMethodCallEvents to raise its flag.
 */
static MethodID resolve(JNIEnv *env, jint n)
{
    _Atomic MethodID *slot = slot_of((uint32_t)n, 0);
    if (!slot)
        return 0;
    jvmtiFrameInfo frame;
    jint got = 0;
    if ((*jv_jvmti)->GetStackTrace(jv_jvmti, NULL, 1, 1, &frame, &got) != JVMTI_ERROR_NONE || got != 1)
        return 0;
    MethodID id = jv_method_id(env, frame.method);
    jv_method *m = jv_method_entry(id);
    if (m)
        atomic_store(&m->bridge_int, (uint32_t)n + 1);
    atomic_store_explicit(slot, id, memory_order_relaxed);
    return id;
}

/*
 * SPECIFIC_METHOD_CALLS alone: regions.  Only the methods some monitor enabled need their
 * calls delivered, but a StackID is a true depth, so the frames between two enabled ones
 * must be counted.  A region opens on a thread when an enabled method is entered there
 * with none of its frames below: the stack is read from the JVM once (the frames below),
 * and from then on, until that frame exits, every method's calls reach the bridge
 * (instrument_flags.c's all-set array), each pushed on and popped off the shadow stack as
 * when every method is wanted, and delivered only when enabled.  Outside regions the
 * sparse array is in the field and a method nobody wants stops at its flag, cleared the
 * first time it is found so (the second look catches an EnableMethodCallEvents that raised
 * it in between).  An enabled method's exit outside a region (its frame was entered before
 * it was enabled) re-reads the stack.
 */
static void region_begin(JNIEnv *env, jv_thread *t, MethodID id)
{
    jv_instrument_flags_region_begin(env); /* before the read: every later call is counted */
    jv_method_calls_enter(env, NULL, id, NULL, 2, 1); /* above the shadow: enter and the method */
    t->region_base = t->depth ? t->depth : 1;
}

static inline void region_end_if_left(JNIEnv *env, jv_thread *t)
{
    if (t->region_base && t->depth < t->region_base) {
        t->region_base = 0;
        jv_instrument_flags_region_end(env);
    }
}

static void not_wanted(JNIEnv *env, jint n, MethodID id)
{
    if (jv_instrument_flags_counting())
        return; /* the all-set array is in the field: the sparse one is cleared when it is back */
    jv_instrument_flag_clear(env, (uint32_t)n);
    if (jv_method_calls_wanted(id))
        jv_instrument_flag_raise(env, (uint32_t)n);
}

typedef enum bridge_call { CALL_ENTER, CALL_EXIT, CALL_UNWIND } bridge_call;

/*
 * The common case in as few steps as possible: the MethodID recorded, the thread announced and
 * its shadow stack current, every call counted (some monitor wanting every method, so no flag is ever
 * cleared, or the thread inside a region), and for an exit, the exiting method on top of the
 * shadow; each monitor gets only the calls it wants.  0: take the general path.  Inside the
 * bridge's bracket, so the monitors' masks are read after it, as shutdown requires.
 */
static const DWORD call_kinds[] = {JEVMON_CALL_ENTERED, JEVMON_CALL_RETURNED, JEVMON_CALL_UNWOUND}; /* by bridge_call */

/*
 * Only monitors that take calls in batches want them: the record alone, no shadow stack, which is
 * re-read should anyone need it again, and no ObjectID scope.  An unwind's EXCEPTION_UNWIND has its
 * StackID from the shadow stack: the general path then, as for a thread not yet announced (its
 * THREAD_CREATE comes first: jv_events_thread_announce).  0: the other paths.
 */
static inline int batch_call(MethodID id, bridge_call call)
{
    jv_thread *t = jv_thread_self;
    if (!id || !t || !atomic_load_explicit(&t->announced, memory_order_relaxed) ||
        (call == CALL_UNWIND && (jv_monitors_mask_union() & JVM_MONITOR_EXCEPTION_UNWIND)))
        return 0;
    jv_call_batch_store(t, id, call_kinds[call]);
    unsigned epoch = jv_threads_epoch();
    if (t->sync_epoch == epoch)
        t->sync_epoch = epoch - 1;
    return 1;
}

static inline __attribute__((always_inline)) int fast_call(JNIEnv *env, MethodID id, bridge_call call,
                                                          jv_call_batching batching)
{
    jv_thread *t = jv_thread_self;
    /* flagless: some monitor keeps METHOD_CALLS until shutdown, whose masks the delivery re-reads */
    if (!id || !t || t->sync_epoch != jv_threads_epoch() ||
        !atomic_load_explicit(&t->announced, memory_order_relaxed) ||
        !(flagless || t->region_base || (jv_monitors_mask_union() & JVM_MONITOR_METHOD_CALLS)))
        return 0;
    if (call == CALL_UNWIND || (call == CALL_EXIT && (!t->depth || t->frames[t->depth - 1] != id)))
        return 0;
    uint32_t depth = t->depth; /* read once: the shadow stack's stores could alias it */
    if (call == CALL_ENTER) {
        if (jv_thread_push(t, id)) {
            uint32_t given = jv_method_call_receivers(id);
            t->given[depth] = given;
            jv_deliver_method_entry(given, id, jv_stack_id(t->index, depth + 1));
        }
    } else {
        t->depth = --depth;
        jv_deliver_method_exit(t->given[depth], depth ? t->frames[depth - 1] : 0, jv_stack_id(t->index, depth));
        region_end_if_left(env, t);
    }
    if (batching != JV_NO_BATCHES) /* a monitor one by one, another in batches */
        jv_call_batch_store(t, id, call_kinds[call]);
    return 1;
}

/*
 * Everything else.  unwind is the injected handler's call, before it rethrows: as on the
 * JVMTI path, EXCEPTION_UNWIND comes before the exit; the handler is not behind the flag,
 * so a method whose calls nobody wants still reports its unwind.  Out of line: inlined, its
 * calls made the common path save and restore every register the compiler may use.
 */
static __attribute__((noinline)) void general_call(JNIEnv *env, jint n, MethodID id, bridge_call call)
{
    if (!id)
        id = resolve(env, n);
    jv_thread *t = id ? jv_thread_current(env, NULL) : NULL;
    int every = (jv_monitors_mask_union() & JVM_MONITOR_METHOD_CALLS) != 0;
    if (t && (every || t->region_base)) {
        if (call == CALL_ENTER)
            jv_method_calls_enter(env, NULL, id, NULL, 2, 0);
        else
            jv_method_calls_exit(env, NULL, NULL, id, 1, 0, call == CALL_UNWIND, NULL);
        region_end_if_left(env, t);
    } else if (t && jv_method_calls_wanted(id)) {
        if (call == CALL_ENTER)
            region_begin(env, t, id);
        else
            jv_method_calls_exit(env, NULL, NULL, id, 1, 1, call == CALL_UNWIND, NULL);
    } else {
        if (id)
            not_wanted(env, n, id);
        if (call == CALL_UNWIND && (jv_monitors_mask_union() & JVM_MONITOR_EXCEPTION_UNWIND))
            jv_method_calls_unwind(env, 1);
    }
}

/* What the three natives share, compiled into each for its kind of call (twice per Java call:
 * each branch on the kind, each register saved, costs on every call). */
static inline __attribute__((always_inline)) void on_bridge_call(JNIEnv *env, jint n, bridge_call call)
{
    jv_dispatch_slot *slot = jv_dispatch_own();
    if (!slot || jv_dispatch_in_bridge(slot) || !jv_vm_live())
        return;
    jv_dispatch_bridge_begin(slot);
    MethodID id = recorded_id(n);
    jv_call_batching batching = jv_method_call_batching();
    if (batching != JV_ONLY_BATCHES || !batch_call(id, call)) {
        unsigned object_mark = jv_objects_scope();
        if (!fast_call(env, id, call, batching))
            general_call(env, n, id, call);
        jv_objects_end_scope(env, object_mark);
    }
    jv_dispatch_bridge_end(slot);
}

static void JNICALL bridge_enter(JNIEnv *env, jclass bridge, jint n)
{
    (void)bridge;
    on_bridge_call(env, n, CALL_ENTER);
}

static void JNICALL bridge_exit(JNIEnv *env, jclass bridge, jint n)
{
    (void)bridge;
    on_bridge_call(env, n, CALL_EXIT);
}

static void JNICALL bridge_unwind(JNIEnv *env, jclass bridge, jint n)
{
    (void)bridge;
    on_bridge_call(env, n, CALL_UNWIND);
}

/* cf_hooks.rewritten: where the rewritten method's code went, so monitors are shown the class
 * file's (ids/original_code.h). */
static void record_rewrite(void *context, const cf_method_info *method, int32_t id, const cf_offset_map *map)
{
    (void)context, (void)id;
    jv_rewrite_record(method->class_name, method->name, method->descriptor, map);
}

void jv_instrument_class_file(JNIEnv *env, const char *name, jint length, const unsigned char *data, jint *new_length,
                              unsigned char **new_data)
{
    if (!data || length <= 0 || (name && !strcmp(name, BRIDGE_CLASS)))
        return;
    cf_hooks hooks = {.bridge_class = BRIDGE_CLASS,
                      .enter_name = "enter", .enter_descriptor = "(I)V",
                      .exit_name = "exit", .exit_descriptor = "(I)V",
                      .flags_name = flagless ? NULL : FLAGS_FIELD, .flags_descriptor = FLAGS_DESCRIPTOR,
                      .unwind_name = "unwind", .unwind_descriptor = "(I)V",
                      .method_id = method_int, .rewritten = record_rewrite};
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
    if (!jv_instrument_flags_cover(env, atomic_load(&next_int))) {
        jv_log("class %s keeps its code, its method calls unseen: no room in the flag array", name ? name : "(unnamed)");
        free(out);
        return;
    }
    jv_instrument_hand_over(out, out_size, new_length, new_data);
}

void jv_instrument_hand_over(uint8_t *out, size_t out_size, jint *new_length, unsigned char **new_data)
{
    unsigned char *copy = NULL;
    if (out_size <= 0x7fffffff && (*jv_jvmti)->Allocate(jv_jvmti, (jlong)out_size, &copy) == JVMTI_ERROR_NONE) {
        memcpy(copy, out, out_size);
        *new_data = copy;
        *new_length = (jint)out_size;
    }
    free(out);
}

/* Lets the modules that will call the bridge read its module (the boot loader's unnamed one): each
 * AddModuleReads is a call into Java, about 10 us, so a bridge only java.base calls (the watch's)
 * names it, one class of it, as reader; NULL: every named module. */
static void add_reads(JNIEnv *env, jclass bridge, const char *name, const char *reader)
{
    jobject module = (*env)->GetModule(env, bridge);
    jint count = 0;
    jobject *modules = NULL;
    if (!module)
        return;
    if (reader) {
        jclass reading = (*env)->FindClass(env, reader);
        jobject reading_module = reading ? (*env)->GetModule(env, reading) : NULL;
        jvmtiError e = reading_module ? (*jv_jvmti)->AddModuleReads(jv_jvmti, reading_module, module)
                                      : JVMTI_ERROR_INVALID_MODULE;
        (*env)->ExceptionClear(env); /* FindClass's, if it failed */
        if (e != JVMTI_ERROR_NONE)
            jv_log("the module of %s could not be made to read %s (JVMTI error %d): its calls to it will fail", reader,
                   name, (int)e);
        if (reading_module)
            (*env)->DeleteLocalRef(env, reading_module);
        if (reading)
            (*env)->DeleteLocalRef(env, reading);
    } else if ((*jv_jvmti)->GetAllModules(jv_jvmti, &count, &modules) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            (*jv_jvmti)->AddModuleReads(jv_jvmti, modules[i], module);
            (*env)->DeleteLocalRef(env, modules[i]);
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)modules);
    }
    (*env)->DeleteLocalRef(env, module);
}

/* Has the class a method with bytecode?  An interface of abstract methods has nothing to rewrite. */
static int has_bytecode(jclass klass)
{
    jint count = 0;
    jmethodID *methods = NULL;
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE)
        return 1; /* let the retransformation tell */
    int found = 0;
    for (jint i = 0; i < count && !found; i++) {
        jint modifiers = 0;
        found = (*jv_jvmti)->GetMethodModifiers(jv_jvmti, methods[i], &modifiers) != JVMTI_ERROR_NONE ||
                !(modifiers & (0x0400 /* ACC_ABSTRACT */ | 0x0100 /* ACC_NATIVE */));
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    return found;
}

/*
 * Retransforms every modifiable class loaded so far that has bytecode, except the bridge;
 * one by one if the batch fails.  Each costs HotSpot far more than its rewriting (the class
 * file rebuilt from the loaded class, parsed again, its constant pool merged), so the
 * classes with nothing to rewrite (about one in nine of the JDK's at VMInit) are left out.
 */
static void retransform_loaded(JNIEnv *env, jclass bridge)
{
    jint count = 0, kept = 0;
    jclass *loaded = NULL;
    if ((*jv_jvmti)->GetLoadedClasses(jv_jvmti, &count, &loaded) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < count; i++) {
        jboolean modifiable = JNI_FALSE;
        if ((*jv_jvmti)->IsModifiableClass(jv_jvmti, loaded[i], &modifiable) == JVMTI_ERROR_NONE && modifiable &&
            !(*env)->IsSameObject(env, loaded[i], bridge) && has_bytecode(loaded[i]))
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

/*
 * Does some monitor want every method's calls for the whole run?  METHOD_CALLS in its mask
 * stays there when it was granted WONT_TOGGLE_METHOD_CALL_EVENTS (SetEventMask refuses to
 * change it), so every call goes to the bridge and a flag check would only cost time.
 */
static int every_call_wanted(void)
{
    for (size_t i = 0; i < jv_monitors.count; i++) {
        const jv_monitor *m = jv_monitors.items[i];
        if ((atomic_load(&m->mask) & JVM_MONITOR_METHOD_CALLS) &&
            (m->granted_options & JVM_INIT_OPT_WONT_TOGGLE_METHOD_CALL_EVENTS))
            return 1;
    }
    return 0;
}

jclass jv_instrument_define_bridge(JNIEnv *env, const char *name, const unsigned char *bytes, size_t size,
                                   const JNINativeMethod *natives, jint count, const char *reader, const char *lost)
{
    jclass bridge = (*env)->DefineClass(env, name, NULL, (const jbyte *)bytes, (jsize)size);
    if (!bridge) {
        (*env)->ExceptionClear(env);
        jv_log("could not define the bridge class %s; %s", name, lost);
        return NULL;
    }
    if ((*env)->RegisterNatives(env, bridge, natives, count) != 0) {
        (*env)->ExceptionClear(env);
        jv_log("could not bind the natives of %s; %s", name, lost);
        (*env)->DeleteLocalRef(env, bridge);
        return NULL;
    }
    add_reads(env, bridge, name, reader);
    for (jint i = 0; i < count; i++)
        jv_rewrite_hide_bridge_method((*env)->GetStaticMethodID(env, bridge, natives[i].name, natives[i].signature));
    return bridge;
}

int jv_instrument_start(JNIEnv *env)
{
    flagless = every_call_wanted();
    JNINativeMethod natives[] = {{(char *)"enter", (char *)"(I)V", (void *)bridge_enter},
                                 {(char *)"exit", (char *)"(I)V", (void *)bridge_exit},
                                 {(char *)"unwind", (char *)"(I)V", (void *)bridge_unwind}};
    jclass bridge = jv_instrument_define_bridge(env, BRIDGE_CLASS, bridge_class_bytes, sizeof(bridge_class_bytes),
                                                natives, 3, NULL, "method calls are not delivered");
    if (!bridge)
        return 0;
    if (!jv_instrument_flags_start(env, bridge, FLAGS_FIELD, FLAGS_DESCRIPTOR)) {
        jv_log("could not set up the flag array of %s; method calls are not delivered", BRIDGE_CLASS);
        return 0;
    }
    atomic_store(&active, 1);
    jv_switch_also_when(JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, jv_instrument_active);
    jv_switch_update(); /* the class-file hook goes on */
    retransform_loaded(env, bridge);
    (*env)->DeleteLocalRef(env, bridge);
    return 1;
}

int jv_instrument_is_handler(jmethodID method, jlocation location)
{
    return jv_instrument_active() && jv_instrument_handler_at(method, location);
}

int jv_instrument_handler_at(jmethodID method, jlocation location)
{
    jint length = 0;
    unsigned char *code = NULL;
    if (!method || location < 0 || (*jv_jvmti)->GetBytecodes(jv_jvmti, method, &length, &code) != JVMTI_ERROR_NONE)
        return 0;
    /* The injected handler (classfile.h, not behind the flag): push N; invokestatic unwind; athrow.
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

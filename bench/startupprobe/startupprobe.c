/*
 * startupprobe.c - what the instrumented path's mechanism costs alone, without the bridge or a
 * monitor: at start-up (`BENCH_ONLY=startup` in bench/bench.sh) and per call, on a server's request
 * throughput (`BENCH_ONLY=tomcat`).  A JVMTI agent whose natives only count, each thread on its own
 * (a shared counter would make every call of every thread contend for one cache line); STARTUP_PROBE
 * picks how the classes loaded before VMInit get their calls:
 *   hook         an early ClassFileLoadHook that changes nothing: what the early hook alone costs
 *                (HotSpot turns CDS off when an early class hook is enabled at start)
 *   retransform  the bridge's way: jevmon/Bridge defined at VMInit, read by every module, the hook
 *                on, every modifiable class with bytecode retransformed in one batch
 *   parallel     the same, the batch split between the VMInit thread and a second attached thread
 *   early        every class rewritten as it loads, from the primordial phase on (early class hook
 *                and early VMStart), calling java/lang/JevmonBridge, defined at the early VMStart
 *                in a package of java.base that every module reads and java.base exports (the
 *                boot loader cannot load a class of another package before the module system is
 *                up, and classes of other modules must be able to reach it without AddModuleReads,
 *                which only the live phase allows)
 *   early-flagged  the same with the bridge's flag array (byte[] on): every flag clear until VMInit,
 *                so the JDK's start-up code tests a flag instead of calling a native, then every
 *                flag set (as for a monitor wanting every call)
 * The rewriting is src/classfile/'s, as the bridge does it (without the flag array).
 * STARTUP_PROBE_BRIDGE=java makes enter and exit empty Java methods instead of natives: the code
 * the rewriter injects then costs only what HotSpot makes of it once the JIT inlines the empty
 * calls, the ceiling of any per-call path that does not leave Java; java-clock has them read
 * System.nanoTime, the cheapest clock Java code has, as a per-call path timing calls in Java must;
 * native-clock has the natives read the processor's tick counter, as jevprof's calls mode does.
 * STARTUP_PROBE_LOOKUP=1 leaves the natives to HotSpot's lookup of Java_ names in agent libraries.
 * STARTUP_PROBE_PRINT=1 prints the counts and the time spent in VMInit on standard error.
 * Not part of the product: a measuring tool; the early mode prints HotSpot's warning about
 * natives of a java.* class registered from outside the boot loader's libraries.
 */
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classfile/classfile.h"
#include "platform/platform.h"

enum mode { HOOK, RETRANSFORM, PARALLEL, EARLY, EARLY_FLAGGED };

#define FLAGS (1 << 20) /* method ints a flagged run may hand out */

static jvmtiEnv *jvmti;
static JavaVM *vm;
static enum mode mode;
static int print;
static _Atomic(const char *) bridge_name; /* set: the hook rewrites class files to call it */
static atomic_long enters, exits;
static _Thread_local long thread_enters, thread_exits; /* added to enters and exits every COUNT_BATCH */
#define COUNT_BATCH 1024
static atomic_int next_int, rewritten, failed, hooked;
static jclass *second_half;
static jint second_count;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* STARTUP_PROBE_BRIDGE: enter and exit are natives that count (unset), natives that also read the
 * processor's tick counter as jevprof's calls mode does at each entry and exit (native-clock),
 * empty Java methods (java), or Java methods reading System.nanoTime (java-clock). */
static enum { NATIVE, NATIVE_CLOCK, JAVA_EMPTY, JAVA_CLOCK } bridge_code;
static _Thread_local uint64_t thread_ticks; /* NATIVE_CLOCK: what the reads sum to, so they are kept */

/* One call of the kind whose thread-local count is count and whole-run total is total. */
static void count_call(long *count, atomic_long *total)
{
    if (bridge_code == NATIVE_CLOCK)
        thread_ticks += plat_ticks();
    if (++*count == COUNT_BATCH) {
        atomic_fetch_add_explicit(total, COUNT_BATCH, memory_order_relaxed);
        *count = 0;
    }
}

static void JNICALL bridge_enter(JNIEnv *env, jclass bridge, jint n)
{
    (void)env, (void)bridge, (void)n;
    count_call(&thread_enters, &enters);
}

static void JNICALL bridge_exit(JNIEnv *env, jclass bridge, jint n)
{
    (void)env, (void)bridge, (void)n;
    count_call(&thread_exits, &exits);
}

/* STARTUP_PROBE_LOOKUP=1: the natives are left to HotSpot's lookup of Java_ names, which searches
 * the -agentpath libraries after libjava and ClassLoader.findNative: no RegisterNatives. */
static int by_lookup;
JNIEXPORT void JNICALL Java_jevmon_Bridge_enter(JNIEnv *env, jclass bridge, jint n);
JNIEXPORT void JNICALL Java_jevmon_Bridge_exit(JNIEnv *env, jclass bridge, jint n);
JNIEXPORT void JNICALL Java_java_lang_JevmonBridge_enter(JNIEnv *env, jclass bridge, jint n);
JNIEXPORT void JNICALL Java_java_lang_JevmonBridge_exit(JNIEnv *env, jclass bridge, jint n);
JNIEXPORT void JNICALL Java_jevmon_Bridge_enter(JNIEnv *env, jclass bridge, jint n)
{
    bridge_enter(env, bridge, n);
}
JNIEXPORT void JNICALL Java_jevmon_Bridge_exit(JNIEnv *env, jclass bridge, jint n)
{
    bridge_exit(env, bridge, n);
}
JNIEXPORT void JNICALL Java_java_lang_JevmonBridge_enter(JNIEnv *env, jclass bridge, jint n)
{
    bridge_enter(env, bridge, n);
}
JNIEXPORT void JNICALL Java_java_lang_JevmonBridge_exit(JNIEnv *env, jclass bridge, jint n)
{
    bridge_exit(env, bridge, n);
}

static int32_t method_int(void *context, const cf_method_info *method)
{
    (void)context;
    if (!strcmp(method->class_name, "java/lang/Object") && !strcmp(method->name, "<init>"))
        return CF_SKIP_METHOD;
    int n = atomic_fetch_add(&next_int, 1);
    return mode == EARLY_FLAGGED && n >= FLAGS ? CF_SKIP_METHOD : n;
}

static void JNICALL on_class_file(jvmtiEnv *env, JNIEnv *jni, jclass redefined, jobject loader, const char *name,
                                  jobject domain, jint length, const unsigned char *data, jint *new_length,
                                  unsigned char **new_data)
{
    (void)jni, (void)redefined, (void)loader, (void)domain;
    atomic_fetch_add(&hooked, 1);
    const char *bridge = atomic_load(&bridge_name);
    if (!bridge || !data || length <= 0 || (name && !strcmp(name, bridge)))
        return;
    cf_hooks hooks = {.bridge_class = bridge, .enter_name = "enter", .enter_descriptor = "(I)V",
                      .exit_name = "exit", .exit_descriptor = "(I)V",
                      .unwind_name = "exit", .unwind_descriptor = "(I)V", .method_id = method_int,
                      .flags_name = mode == EARLY_FLAGGED ? "on" : NULL, .flags_descriptor = "[B"};
    uint8_t *out = NULL;
    size_t size = 0;
    char error[256];
    int r = cf_instrument_class(data, (size_t)length, &hooks, &out, &size, NULL, error, sizeof(error));
    if (r < 0)
        atomic_fetch_add(&failed, 1);
    if (r <= 0 || !out)
        return;
    unsigned char *copy = NULL;
    if ((*env)->Allocate(env, (jlong)size, &copy) == JVMTI_ERROR_NONE) {
        memcpy(copy, out, size);
        *new_data = copy;
        *new_length = (jint)size;
        atomic_fetch_add(&rewritten, 1);
    }
    free(out);
}

/* The bridge class (as src/instrument/instrument.c's), named name; the flag field `on` too when
 * flagged.  Its enter and exit are natives, or Java methods (bridge_code) whose code is
 * `return`, or `System.nanoTime(); return` (what a per-call path in Java pays for its two
 * time stamps, before it records anything). */
static size_t bridge_bytes(const char *name, int flagged, unsigned char *b, size_t room)
{
    static const unsigned char head[] = {0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x31, 0x00, 0x11};
    static const unsigned char pool[] = {
        0x07, 0x00, 0x01,                                                                    /* 2 Class #1 */
        0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't',
        0x07, 0x00, 0x03,                                                                    /* 4 Class #3 */
        0x01, 0x00, 0x05, 'e', 'n', 't', 'e', 'r',                                           /* 5 */
        0x01, 0x00, 0x04, '(', 'I', ')', 'V',                                                /* 6 */
        0x01, 0x00, 0x04, 'e', 'x', 'i', 't',                                                /* 7 */
        0x01, 0x00, 0x02, 'o', 'n',                                                          /* 8 */
        0x01, 0x00, 0x02, '[', 'B',                                                          /* 9 */
        0x01, 0x00, 0x04, 'C', 'o', 'd', 'e',                                                /* 10 */
        0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'S', 'y', 's', 't', 'e', 'm',
        0x07, 0x00, 0x0B,                                                                    /* 12 Class #11 */
        0x01, 0x00, 0x08, 'n', 'a', 'n', 'o', 'T', 'i', 'm', 'e',                            /* 13 */
        0x01, 0x00, 0x03, '(', ')', 'J',                                                     /* 14 */
        0x0C, 0x00, 0x0D, 0x00, 0x0E,                                        /* 15 NameAndType #13 #14 */
        0x0A, 0x00, 0x0C, 0x00, 0x0F,                                          /* 16 Methodref #12 #15 */
        0x00, 0x31, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00};  /* public final super; this, super; no interfaces */
    static const unsigned char field[] = {0x00, 0x01, 0x00, 0x49, 0x00, 0x08, 0x00, 0x09, 0x00, 0x00};
    static const unsigned char native_method[] = {0x01, 0x09, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00}; /* public static native (I)V */
    static const unsigned char empty_method[] = {
        0x00, 0x09, 0x00, 0x00, 0x00, 0x06, 0x00, 0x01, /* public static (I)V, one attribute: */
        0x00, 0x0A, 0x00, 0x00, 0x00, 0x0D,             /*   Code, 13 bytes: */
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, /*   max_stack 0, max_locals 1, 1 byte of code: */
        0xB1, 0x00, 0x00, 0x00, 0x00};                  /*   return; no handlers, no attributes */
    static const unsigned char clock_method[] = {
        0x00, 0x09, 0x00, 0x00, 0x00, 0x06, 0x00, 0x01, /* public static (I)V, one attribute: */
        0x00, 0x0A, 0x00, 0x00, 0x00, 0x11,             /*   Code, 17 bytes: */
        0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, /*   max_stack 2, max_locals 1, 5 bytes of code: */
        0xB8, 0x00, 0x10, 0x58, 0xB1,                   /*   invokestatic System.nanoTime; pop2; return */
        0x00, 0x00, 0x00, 0x00};                        /*   no handlers, no attributes */
    static const struct {
        const unsigned char *bytes;
        size_t size;
    } methods[] = {[NATIVE] = {native_method, sizeof(native_method)},
                   [NATIVE_CLOCK] = {native_method, sizeof(native_method)},
                   [JAVA_EMPTY] = {empty_method, sizeof(empty_method)},
                   [JAVA_CLOCK] = {clock_method, sizeof(clock_method)}};
    const unsigned char *method = methods[bridge_code].bytes;
    size_t method_size = methods[bridge_code].size;
    size_t length = strlen(name);
    if (sizeof(head) + 3 + length + sizeof(pool) + sizeof(field) + 4 + 2 * method_size > room)
        return 0;
    memcpy(b, head, sizeof(head));
    size_t at = sizeof(head);
    b[at++] = 0x01, b[at++] = 0x00, b[at++] = (unsigned char)length;                         /* 1 Utf8 */
    memcpy(b + at, name, length);
    at += length;
    memcpy(b + at, pool, sizeof(pool));
    at += sizeof(pool);
    if (flagged) { /* public static volatile byte[] on */
        memcpy(b + at, field, sizeof(field));
        at += sizeof(field);
    } else {
        b[at++] = 0x00, b[at++] = 0x00; /* no fields */
    }
    b[at++] = 0x00, b[at++] = 0x02; /* two methods: enter (#5) and exit (#7) */
    for (unsigned char name_index = 5; name_index <= 7; name_index += 2) {
        memcpy(b + at, method, method_size);
        b[at + 3] = name_index;
        at += method_size;
    }
    b[at++] = 0x00, b[at++] = 0x00; /* no attributes */
    return at;
}

static jclass define_bridge(JNIEnv *env, const char *name)
{
    unsigned char bytes[320];
    size_t size = bridge_bytes(name, mode == EARLY_FLAGGED, bytes, sizeof(bytes));
    jclass bridge = size ? (*env)->DefineClass(env, name, NULL, (const jbyte *)bytes, (jsize)size) : NULL;
    JNINativeMethod natives[] = {{(char *)"enter", (char *)"(I)V", (void *)bridge_enter},
                                 {(char *)"exit", (char *)"(I)V", (void *)bridge_exit}};
    int natives_bound = bridge_code == NATIVE || bridge_code == NATIVE_CLOCK;
    if (!bridge || (!by_lookup && natives_bound && (*env)->RegisterNatives(env, bridge, natives, 2) != 0)) {
        fprintf(stderr, "startupprobe: could not define %s\n", name);
        exit(3);
    }
    return bridge;
}

static int has_bytecode(jclass klass)
{
    jint count = 0;
    jmethodID *methods = NULL;
    if ((*jvmti)->GetClassMethods(jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE)
        return 1;
    int found = 0;
    for (jint i = 0; i < count && !found; i++) {
        jint modifiers = 0;
        found = (*jvmti)->GetMethodModifiers(jvmti, methods[i], &modifiers) != JVMTI_ERROR_NONE ||
                !(modifiers & (0x0400 | 0x0100));
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)methods);
    return found;
}

static void *retransform_second_half(void *arg)
{
    (void)arg;
    JNIEnv *env = NULL;
    if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK)
        return NULL;
    if (second_count && (*jvmti)->RetransformClasses(jvmti, second_count, second_half) != JVMTI_ERROR_NONE)
        fprintf(stderr, "startupprobe: the second thread's retransformation failed\n");
    (*vm)->DetachCurrentThread(vm);
    return NULL;
}

static jclass early_bridge;

/* EARLY_FLAGGED: the flag array, every flag clear until VMInit (set: which value every flag takes). */
static void set_flags(JNIEnv *jni, int set)
{
    jbyteArray flags = (*jni)->NewByteArray(jni, FLAGS);
    jfieldID field = flags ? (*jni)->GetStaticFieldID(jni, early_bridge, "on", "[B") : NULL;
    if (!field) {
        fprintf(stderr, "startupprobe: no flag array\n");
        exit(3);
    }
    if (set) {
        jbyte *bytes = (*jni)->GetPrimitiveArrayCritical(jni, flags, NULL);
        memset(bytes, 1, FLAGS);
        (*jni)->ReleasePrimitiveArrayCritical(jni, flags, bytes, 0);
    }
    (*jni)->SetStaticObjectField(jni, early_bridge, field, flags);
}

static void JNICALL on_vm_start(jvmtiEnv *env, JNIEnv *jni)
{
    (void)env;
    if (mode == EARLY || mode == EARLY_FLAGGED)
        early_bridge = (*jni)->NewGlobalRef(jni, define_bridge(jni, "java/lang/JevmonBridge"));
    if (mode == EARLY_FLAGGED)
        set_flags(jni, 0);
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    (void)env, (void)thread;
    double start = now_ms();
    int before = atomic_load(&rewritten);
    jint count = 0, kept = 0;
    if (mode == EARLY_FLAGGED)
        set_flags(jni, 1);
    if (mode == RETRANSFORM || mode == PARALLEL) {
        jclass bridge = define_bridge(jni, "jevmon/Bridge");
        jobject module = (*jni)->GetModule(jni, bridge);
        jobject *modules = NULL;
        jint module_count = 0;
        if ((*jvmti)->GetAllModules(jvmti, &module_count, &modules) == JVMTI_ERROR_NONE)
            for (jint i = 0; i < module_count; i++)
                (*jvmti)->AddModuleReads(jvmti, modules[i], module);
        atomic_store(&bridge_name, "jevmon/Bridge");
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
        jclass *loaded = NULL;
        (*jvmti)->GetLoadedClasses(jvmti, &count, &loaded);
        for (jint i = 0; i < count; i++) {
            jboolean modifiable = JNI_FALSE;
            if ((*jvmti)->IsModifiableClass(jvmti, loaded[i], &modifiable) == JVMTI_ERROR_NONE && modifiable &&
                !(*jni)->IsSameObject(jni, loaded[i], bridge) && has_bytecode(loaded[i]))
                loaded[kept++] = loaded[i];
        }
        jint first = mode == PARALLEL ? kept / 2 : kept;
        pthread_t second;
        int started = 0;
        if (mode == PARALLEL) {
            second_half = loaded + first;
            second_count = kept - first;
            started = pthread_create(&second, NULL, retransform_second_half, NULL) == 0;
            if (!started)
                first = kept;
        }
        if (first && (*jvmti)->RetransformClasses(jvmti, first, loaded) != JVMTI_ERROR_NONE)
            fprintf(stderr, "startupprobe: the retransformation failed\n");
        if (started)
            pthread_join(second, NULL);
    }
    if (print)
        fprintf(stderr, "startupprobe: %d class files hooked before VMInit, %d rewritten; %d retransformed; VMInit %.1f ms\n",
                mode == EARLY || mode == EARLY_FLAGGED ? atomic_load(&hooked) : 0, before, kept, now_ms() - start);
}

static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni)
{
    (void)env, (void)jni;
    if (print)
        fprintf(stderr, "startupprobe: %ld entries, %ld exits (counted by the %d; 0 for a Java bridge); %d class files rewritten in all, %d not rewritable\n",
                atomic_load(&enters), atomic_load(&exits), COUNT_BATCH, atomic_load(&rewritten), atomic_load(&failed));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *jvm, char *options, void *reserved)
{
    (void)options, (void)reserved;
    const char *name = getenv("STARTUP_PROBE");
    vm = jvm;
    mode = !name || !strcmp(name, "retransform") ? RETRANSFORM : !strcmp(name, "parallel") ? PARALLEL
         : !strcmp(name, "early") ? EARLY : !strcmp(name, "early-flagged") ? EARLY_FLAGGED
         : !strcmp(name, "hook") ? HOOK : RETRANSFORM;
    print = getenv("STARTUP_PROBE_PRINT") != NULL;
    by_lookup = getenv("STARTUP_PROBE_LOOKUP") != NULL;
    const char *bridge_kind = getenv("STARTUP_PROBE_BRIDGE");
    bridge_code = !bridge_kind ? NATIVE : !strcmp(bridge_kind, "native-clock") ? NATIVE_CLOCK
                : !strcmp(bridge_kind, "java") ? JAVA_EMPTY : !strcmp(bridge_kind, "java-clock") ? JAVA_CLOCK : NATIVE;
    if ((*jvm)->GetEnv(jvm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK)
        return 1;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_all_class_hook_events = 1;
    caps.can_retransform_classes = mode == RETRANSFORM || mode == PARALLEL;
    caps.can_generate_early_class_hook_events = mode == EARLY || mode == EARLY_FLAGGED || mode == HOOK;
    caps.can_generate_early_vmstart = mode == EARLY || mode == EARLY_FLAGGED;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        fprintf(stderr, "startupprobe: capabilities refused\n");
        return 1;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.ClassFileLoadHook = on_class_file;
    callbacks.VMStart = on_vm_start;
    callbacks.VMInit = on_vm_init;
    callbacks.VMDeath = on_vm_death;
    (*jvmti)->SetEventCallbacks(jvmti, &callbacks, (jint)sizeof(callbacks));
    if (mode == EARLY || mode == EARLY_FLAGGED)
        atomic_store(&bridge_name, "java/lang/JevmonBridge");
    if (mode == EARLY || mode == EARLY_FLAGGED || mode == HOOK)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_START, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
    return 0;
}

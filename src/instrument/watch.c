/*
 * watch.c - Thread.setName and the failures' constructors rewritten to call jevmon/Watch (see
 * watch.h): the class, its natives, the class-file pass and the retransformation at start.
 */
#include <stdatomic.h>
#include <string.h>

#include "classfile/classfile.h"
#include "dispatch/event_switch.h"
#include "events/class_failure.h"
#include "events/lock_wait.h"
#include "events/thread_name.h"
#include "ids/original_code.h"
#include "instrument/instrument.h"
#include "instrument/watch.h"
#include "platform/platform.h"

#define WATCH_CLASS "jevmon/Watch"
/* Method ids: a failure's constructor has its jv_class_failure_kind, setName the one after. */
#define SET_NAME_ID ((int32_t)JV_NOT_A_CLASS_FAILURE)
#define PARK_ID (SET_NAME_ID + 1)
/* In the entry native: frame 0 is the native, 1 the constructor, 2 its caller. */
#define CONSTRUCTOR_CALLER_DEPTH 2

/*
 * The class, hand-assembled (JVMS 4):
 *   public final class jevmon.Watch {
 *       public static native void enter(Object argument, int id);
 *       public static native void exit(int id);
 *   }
 * Version 49.0: no StackMapTable needed, and there is no code anyway.
 */
static const unsigned char watch_class_bytes[] = {
    0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x31, /* magic, minor 0, major 49 */
    0x00, 0x09,                                     /* constant pool count: entries 1..8 */
    0x01, 0x00, 0x0C, 'j', 'e', 'v', 'm', 'o', 'n', '/', 'W', 'a', 't', 'c', 'h', /* 1 Utf8 */
    0x07, 0x00, 0x01,                                                            /* 2 Class #1 */
    0x01, 0x00, 0x10, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't', /* 3 */
    0x07, 0x00, 0x03,                          /* 4 Class #3 */
    0x01, 0x00, 0x05, 'e', 'n', 't', 'e', 'r', /* 5 Utf8 */
    0x01, 0x00, 0x16, '(', 'L', 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'O', 'b', 'j', 'e', 'c', 't',
    ';', 'I', ')', 'V',                        /* 6 Utf8 */
    0x01, 0x00, 0x04, 'e', 'x', 'i', 't',      /* 7 Utf8 */
    0x01, 0x00, 0x04, '(', 'I', ')', 'V',      /* 8 Utf8 */
    0x00, 0x31,                                /* ACC_PUBLIC | ACC_FINAL | ACC_SUPER */
    0x00, 0x02, 0x00, 0x04,                    /* this #2, super #4 */
    0x00, 0x00,                                /* no interfaces */
    0x00, 0x00,                                /* no fields */
    0x00, 0x02,                                /* two methods */
    0x01, 0x09, 0x00, 0x05, 0x00, 0x06, 0x00, 0x00, /* public static native enter (Ljava/lang/Object;I)V */
    0x01, 0x09, 0x00, 0x07, 0x00, 0x08, 0x00, 0x00, /* public static native exit (I)V */
    0x00, 0x00                                      /* no attributes */
};

/* The classes rewritten, what each serves, and whether its rewrite has been handed to the JVM. */
static const struct {
    const char *name;
    jv_watched serves;
} watched_classes[] = {{"java/lang/Thread", JV_WATCH_THREAD_NAMES},
                       {"java/lang/ClassNotFoundException", JV_WATCH_CLASS_FAILURES},
                       {"java/lang/NoClassDefFoundError", JV_WATCH_CLASS_FAILURES},
                       {"java/util/concurrent/locks/LockSupport", JV_WATCH_PARKS}};
#define WATCHED_CLASSES (sizeof(watched_classes) / sizeof(*watched_classes))
static atomic_uint watching;         /* jv_watched bits the class-file pass serves */
static atomic_uint rewritten_classes; /* bit i: watched_classes[i] has been rewritten */
static int defined;
/* The methods rewritten (the catches of their injected handlers are none), set at start. */
static jmethodID watched_methods[16];
static atomic_size_t watched_method_count; /* read by ExceptionCatch on any thread */
static atomic_int retransforming;

int jv_watch_possible(const jvmtiCapabilities *caps)
{
    return caps->can_retransform_classes;
}

void jv_watch_capabilities(jvmtiCapabilities *caps)
{
    caps->can_retransform_classes = 1;
}

static void JNICALL watch_enter(JNIEnv *env, jclass watch, jobject argument, jint id)
{
    (void)watch;
    if (id == PARK_ID)
        jv_lock_wait_park_started(env, argument);
    else if (id >= 0 && id < SET_NAME_ID && jv_vm_live())
        jv_class_failure_constructed(env, NULL, (jv_class_failure_kind)id, argument, CONSTRUCTOR_CALLER_DEPTH);
}

static void JNICALL watch_exit(JNIEnv *env, jclass watch, jint id)
{
    (void)watch;
    jthread self = NULL;
    if (id == PARK_ID)
        jv_lock_wait_park_ended(env);
    if (id != SET_NAME_ID || !jv_vm_live() || (*jv_jvmti)->GetCurrentThread(jv_jvmti, &self) != JVMTI_ERROR_NONE)
        return;
    jv_thread_names_compare(env, self);
    (*env)->DeleteLocalRef(env, self);
}

/* LockSupport's parks that take a blocker: park(Object), parkNanos(Object, long), parkUntil(Object, long). */
static int is_park_with_blocker(const cf_method_info *method)
{
    return (!strcmp(method->name, "park") && !strcmp(method->descriptor, "(Ljava/lang/Object;)V")) ||
           ((!strcmp(method->name, "parkNanos") || !strcmp(method->name, "parkUntil")) &&
            !strcmp(method->descriptor, "(Ljava/lang/Object;J)V"));
}

static int32_t watched_method(void *context, const cf_method_info *method)
{
    (void)context;
    if (!strcmp(method->class_name, "java/util/concurrent/locks/LockSupport"))
        return is_park_with_blocker(method) ? PARK_ID : CF_SKIP_METHOD;
    if (!strcmp(method->class_name, "java/lang/Thread"))
        return !strcmp(method->name, "setName") && !strcmp(method->descriptor, "(Ljava/lang/String;)V")
                   ? SET_NAME_ID
                   : CF_SKIP_METHOD;
    jv_class_failure_kind kind = jv_class_failure_kind_of(method->class_name);
    return kind != JV_NOT_A_CLASS_FAILURE && !strcmp(method->name, "<init>") &&
                   jv_class_failure_takes_message(method->descriptor)
               ? (int32_t)kind
               : CF_SKIP_METHOD;
}

/* Monitors are shown the class file's code: through the method-call rewrite too when it ran first. */
static void record_rewrite(void *context, const cf_method_info *method, int32_t id, const cf_offset_map *map)
{
    (void)context, (void)id;
    jv_rewrite_record_again(method->class_name, method->name, method->descriptor, map);
}

void jv_watch_class_file(JNIEnv *env, const char *name, jint length, const unsigned char *data, jint *new_length,
                         unsigned char **new_data)
{
    (void)env;
    size_t c = 0;
    while (name && c < WATCHED_CLASSES && strcmp(name, watched_classes[c].name))
        c++;
    if (!name || c == WATCHED_CLASSES || !(atomic_load(&watching) & watched_classes[c].serves))
        return;
    unsigned char *earlier = *new_data; /* an earlier part's rewrite: rewritten further */
    cf_hooks hooks = {.bridge_class = WATCH_CLASS,
                      /* a reference first: enter gets the method's first parameter (name, message, blocker) */
                      .enter_name = "enter", .enter_descriptor = "(Ljava/lang/Object;I)V",
                      .exit_name = "exit", .exit_descriptor = "(I)V",
                      .method_id = watched_method,
                      .rewritten = record_rewrite};
    uint8_t *out = NULL;
    size_t out_size = 0;
    char error[256];
    int r = cf_instrument_class(earlier ? earlier : data, (size_t)(earlier ? *new_length : length), &hooks, &out,
                                &out_size, NULL, error, sizeof(error));
    if (r < 0)
        jv_log("class %s could not be rewritten to watch it: %s", name, error);
    if (r <= 0 || !out)
        return;
    jv_instrument_hand_over(out, out_size, new_length, new_data);
    if (*new_data != earlier) {
        if (earlier)
            (*jv_jvmti)->Deallocate(jv_jvmti, earlier);
        atomic_fetch_or(&rewritten_classes, 1u << c);
    }
}

/* Notes the methods of the class k that watched_method chooses. */
static void note_watched_methods(jclass k, const char *class_name)
{
    jint count = 0;
    jmethodID *methods = NULL;
    if ((*jv_jvmti)->GetClassMethods(jv_jvmti, k, &count, &methods) != JVMTI_ERROR_NONE)
        return;
    size_t noted = atomic_load(&watched_method_count);
    for (jint i = 0; i < count && noted < sizeof(watched_methods) / sizeof(*watched_methods); i++) {
        char *name = NULL, *descriptor = NULL;
        if ((*jv_jvmti)->GetMethodName(jv_jvmti, methods[i], &name, &descriptor, NULL) != JVMTI_ERROR_NONE)
            continue;
        cf_method_info info = {class_name, name, descriptor, 0};
        if (watched_method(NULL, &info) != CF_SKIP_METHOD)
            watched_methods[noted++] = methods[i];
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)methods);
    atomic_store(&watched_method_count, noted);
}

int jv_watch_is_handler(jmethodID method, jlocation location)
{
    size_t i = 0, count = atomic_load(&watched_method_count);
    while (i < count && watched_methods[i] != method)
        i++;
    return i < count && jv_instrument_handler_at(method, location);
}

/* Is the class-file hook needed for the watch?  While the classes are retransformed: HotSpot posts
 * it to every thread or none. */
static int hook_needed(void)
{
    return atomic_load(&retransforming);
}

/* Retransforms the loaded classes that serve what, with the class-file hook on meanwhile. */
static void retransform(JNIEnv *env, unsigned what)
{
    jclass classes[WATCHED_CLASSES];
    jint count = 0;
    for (size_t c = 0; c < WATCHED_CLASSES; c++) {
        if (!(watched_classes[c].serves & what))
            continue;
        if ((classes[count] = (*env)->FindClass(env, watched_classes[c].name)))
            note_watched_methods(classes[count++], watched_classes[c].name);
        else
            (*env)->ExceptionClear(env);
    }
    if (count) {
        atomic_store(&retransforming, 1);
        jv_switch_update(); /* the class-file hook goes on */
        jvmtiError e = (*jv_jvmti)->RetransformClasses(jv_jvmti, count, classes);
        if (e != JVMTI_ERROR_NONE)
            jv_log("the JVM refused to retransform the classes watched (JVMTI error %d)", (int)e);
        atomic_store(&retransforming, 0);
        jv_switch_update(); /* and off, unless the instrumentation keeps it */
    }
    for (jint i = 0; i < count; i++)
        (*env)->DeleteLocalRef(env, classes[i]);
}

unsigned jv_watch_start(JNIEnv *env, unsigned what)
{
    if (!defined) {
        JNINativeMethod natives[] = {{(char *)"enter", (char *)"(Ljava/lang/Object;I)V", (void *)watch_enter},
                                     {(char *)"exit", (char *)"(I)V", (void *)watch_exit}};
        jclass watch = jv_instrument_define_bridge(env, WATCH_CLASS, watch_class_bytes, sizeof(watch_class_bytes),
                                                   natives, 2, "java/lang/Thread", /* its callers: java.base's */
                                                   "THREAD_SET_NAME, CLASS_LOAD_FAILED and parks will not be sent");
        if (!watch)
            return 0;
        (*env)->DeleteLocalRef(env, watch);
        jv_switch_also_when(JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, hook_needed);
        defined = 1;
    }
    atomic_fetch_or(&watching, what);
    retransform(env, what);
    unsigned done = 0;
    for (size_t c = 0; c < WATCHED_CLASSES; c++) {
        if (!(watched_classes[c].serves & what))
            continue;
        if (atomic_load(&rewritten_classes) & (1u << c))
            done |= watched_classes[c].serves;
        else
            jv_log("could not rewrite %s to watch it; %s", watched_classes[c].name,
                   watched_classes[c].serves == JV_WATCH_THREAD_NAMES  ? "THREAD_SET_NAME will not be sent for it"
                   : watched_classes[c].serves == JV_WATCH_PARKS ? "its parks are not told as lock waits"
                                                                 : "CLASS_LOAD_FAILED will not be sent for it");
    }
    return done;
}

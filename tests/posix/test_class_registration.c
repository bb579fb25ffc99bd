/*
 * test_class_registration.c - a class registered on one thread while another asks for one of
 * its methods (ids/class.c, ids/method.c), without a JVM: a small fake JVMTI holds the first
 * thread inside GetClassMethods.  The second thread's jv_method_id must wait for the
 * registration and answer the method's MethodID, not 0: it found the class's tag and looked the
 * method up while its methods were not indexed yet, and the instrumented path dropped the
 * entry of a method's first call that way but delivered its exit (an orphan exit on a loaded
 * machine, tests/jvm/test_vthreads.c).
 */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/method.h"
#include "platform/platform.h"
#include "vm/vm.h"
#include "../support/testkit.h"

#define CLASS_OBJECT ((jclass)(uintptr_t)0x1000)
#define METHOD_COUNT 3
static jmethodID method_at(int i)
{
    return (jmethodID)(uintptr_t)(0x2000 + 16 * i);
}

static _Atomic jlong class_tag;
static plat_event *inside_get_methods, *may_return;
static atomic_int get_methods_calls;

static jvmtiError JNICALL fake_allocate_copy(const char *text, char **out)
{
    *out = strdup(text);
    return *out ? JVMTI_ERROR_NONE : JVMTI_ERROR_OUT_OF_MEMORY;
}

static jvmtiError JNICALL fake_deallocate(jvmtiEnv *env, unsigned char *mem)
{
    (void)env;
    free(mem);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_tag(jvmtiEnv *env, jobject object, jlong *tag)
{
    (void)env;
    *tag = object == CLASS_OBJECT ? atomic_load(&class_tag) : 0;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_set_tag(jvmtiEnv *env, jobject object, jlong tag)
{
    (void)env;
    if (object == CLASS_OBJECT)
        atomic_store(&class_tag, tag);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_class_signature(jvmtiEnv *env, jclass klass, char **signature, char **generic)
{
    (void)env, (void)klass;
    if (generic)
        *generic = NULL;
    return signature ? fake_allocate_copy("LRegistered;", signature) : JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_source_file_name(jvmtiEnv *env, jclass klass, char **name)
{
    (void)env, (void)klass;
    return fake_allocate_copy("Registered.java", name);
}

/* The first call (the registration) waits here until the test lets it go on. */
static jvmtiError JNICALL fake_get_class_methods(jvmtiEnv *env, jclass klass, jint *count, jmethodID **methods)
{
    (void)env, (void)klass;
    if (atomic_fetch_add(&get_methods_calls, 1) == 0) {
        plat_event_set(inside_get_methods);
        plat_event_wait_ms(may_return, 10000);
    }
    *methods = malloc(METHOD_COUNT * sizeof(**methods));
    for (int i = 0; i < METHOD_COUNT; i++)
        (*methods)[i] = method_at(i);
    *count = METHOD_COUNT;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_method_name(jvmtiEnv *env, jmethodID method, char **name, char **signature,
                                               char **generic)
{
    (void)env, (void)method;
    if (generic)
        *generic = NULL;
    if (signature)
        fake_allocate_copy("()V", signature);
    return name ? fake_allocate_copy("run", name) : JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_method_declaring_class(jvmtiEnv *env, jmethodID method, jclass *klass)
{
    (void)env, (void)method;
    *klass = CLASS_OBJECT;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_method_modifiers(jvmtiEnv *env, jmethodID method, jint *modifiers)
{
    (void)env, (void)method;
    *modifiers = 0x0009; /* public static */
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_line_number_table(jvmtiEnv *env, jmethodID method, jint *count,
                                                     jvmtiLineNumberEntry **table)
{
    (void)env, (void)method;
    *count = 0;
    *table = NULL;
    return JVMTI_ERROR_ABSENT_INFORMATION;
}

static jweak JNICALL fake_new_weak_global_ref(JNIEnv *env, jobject object)
{
    (void)env;
    return object;
}

static void JNICALL fake_delete_ref(JNIEnv *env, jobject object)
{
    (void)env, (void)object;
}

static struct jvmtiInterface_1_ jvmti_functions;
static jvmtiEnv fake_jvmti = &jvmti_functions;
static struct JNINativeInterface_ jni_functions;
static JNIEnv fake_env = &jni_functions;

static void setup(void)
{
    jvmti_functions.Deallocate = fake_deallocate;
    jvmti_functions.GetTag = fake_get_tag;
    jvmti_functions.SetTag = fake_set_tag;
    jvmti_functions.GetClassSignature = fake_get_class_signature;
    jvmti_functions.GetSourceFileName = fake_get_source_file_name;
    jvmti_functions.GetClassMethods = fake_get_class_methods;
    jvmti_functions.GetMethodName = fake_get_method_name;
    jvmti_functions.GetMethodDeclaringClass = fake_get_method_declaring_class;
    jvmti_functions.GetMethodModifiers = fake_get_method_modifiers;
    jvmti_functions.GetLineNumberTable = fake_get_line_number_table;
    jni_functions.NewWeakGlobalRef = fake_new_weak_global_ref;
    jni_functions.DeleteLocalRef = fake_delete_ref;
    jni_functions.DeleteWeakGlobalRef = fake_delete_ref;
    jv_jvmti = &fake_jvmti;
    jv_classes_init();
    jv_methods_init();
    inside_get_methods = plat_event_create();
    may_return = plat_event_create();
}

static void registering_thread(void *arg)
{
    *(ClassID *)arg = jv_class_id(&fake_env, CLASS_OBJECT);
}

static void asking_thread(void *arg)
{
    *(MethodID *)arg = jv_method_id(&fake_env, method_at(METHOD_COUNT - 1));
}

START_TEST(method_id_asked_during_its_class_registration_waits_for_it)
{
    setup();
    ClassID class_id = 0;
    MethodID asked = 0;
    plat_thread *registrar = plat_thread_start(registering_thread, &class_id);
    ck_assert_ptr_nonnull(registrar);
    ck_assert_int_ne(plat_event_wait_ms(inside_get_methods, 10000), 0);
    plat_thread *asker = plat_thread_start(asking_thread, &asked);
    ck_assert_ptr_nonnull(asker);
    plat_sleep_ms(100); /* time enough for the asker to find a tag and look its method up */
    plat_event_set(may_return);
    plat_thread_join(registrar);
    plat_thread_join(asker);
    ck_assert_uint_ne(class_id, 0);
    ck_assert_int_eq(atomic_load(&get_methods_calls), 1); /* registered once */
    ck_assert_msg(asked != 0, "jv_method_id answered 0 while the method's class was being registered");
    ck_assert_uint_eq(asked, jv_method_id(&fake_env, method_at(METHOD_COUNT - 1)));
    jv_method *m = jv_method_get(asked);
    ck_assert_ptr_nonnull(m);
    ck_assert_uint_eq(m->class_id, class_id);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("class_registration");
    TCase *tc = tcase_create("class_registration");
    tcase_add_test(tc, method_id_asked_during_its_class_registration_waits_for_it);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

/*
 * describe.c - the classes whose instances DescribeObject can describe, and the IDInfo
 * methods about them: DescribeObject, GetSpecialClassProperties.
 *
 * Descriptions are made with JNI and JVMTI alone, never by running Java code (toString,
 * getName): a monitor may call DescribeObject from any callback, where Java code would
 * raise events of its own or block on a lock the thread being profiled holds.
 *
 *   java.lang.Class                       the class's name as ClassInformation gives it
 *   java.lang.reflect.Method/Constructor  the method as MethodInformation names it,
 *                                         e.g. "java/lang/String.indexOf(I)I"
 *   java.lang.reflect.Field               "<class with slashes>.<name>:<signature>"
 *   java.lang.String                      its text
 *   java.lang.StringBuffer/StringBuilder  its text, read from AbstractStringBuilder's fields
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/method.h"
#include "ids/object.h"

/* Each describer returns the description as a new local String, or NULL. */
typedef jstring (*describer)(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj);

typedef struct special_class {
    const char *name; /* internal form, as FindClass takes it */
    DWORD flags;
    describer describe;
} special_class;

/* A String made from a UTF-8 text in CoTaskMem, which it frees. */
static jstring string_from_cotask(JNIEnv *env, char *text)
{
    jstring s = text ? (*env)->NewStringUTF(env, text) : NULL;
    CoTaskMemFree(text);
    return s;
}

static jstring describe_class(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj)
{
    LPSTR name = NULL;
    ClassID id = jv_class_id(env, (jclass)obj);
    if (!id || FAILED(idinfo_ClassInformation(iface, id, &name, NULL, NULL, NULL, NULL)))
        return NULL;
    return string_from_cotask(env, name);
}

static jstring describe_method(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj)
{
    LPSTR name = NULL;
    jmethodID jmethod = (*env)->FromReflectedMethod(env, obj);
    MethodID id = jmethod ? jv_method_id(env, jmethod) : 0;
    if (!id || FAILED(idinfo_MethodInformation(iface, id, &name, NULL, NULL, NULL, NULL)))
        return NULL;
    return string_from_cotask(env, name);
}

/* The field of klass itself named name, found through JVMTI (JNI's GetFieldID would throw when it is missing). */
static jfieldID declared_field(jclass klass, const char *name, char *type)
{
    jint count = 0;
    jfieldID *ids = NULL, found = NULL;
    if ((*jv_jvmti)->GetClassFields(jv_jvmti, klass, &count, &ids) != JVMTI_ERROR_NONE)
        return NULL;
    for (jint i = 0; i < count && !found; i++) {
        char *field_name = NULL, *signature = NULL;
        if ((*jv_jvmti)->GetFieldName(jv_jvmti, klass, ids[i], &field_name, &signature, NULL) != JVMTI_ERROR_NONE)
            continue;
        if (strcmp(field_name, name) == 0) {
            found = ids[i];
            if (type)
                *type = signature[1]; /* the element type of an array field, as the callers want */
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)field_name);
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)ids);
    return found;
}

static jstring describe_field(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj)
{
    (void)iface;
    jclass field_class = (*env)->GetObjectClass(env, obj);
    jfieldID clazz = declared_field(field_class, "clazz", NULL);
    jclass declaring = clazz ? (*env)->GetObjectField(env, obj, clazz) : NULL;
    jfieldID jfield = (*env)->FromReflectedField(env, obj);
    jv_class *c = declaring ? jv_class_get(jv_class_id(env, declaring)) : NULL;
    char *name = NULL, *signature = NULL;
    jstring description = NULL;
    if (c && jfield &&
        (*jv_jvmti)->GetFieldName(jv_jvmti, declaring, jfield, &name, &signature, NULL) == JVMTI_ERROR_NONE) {
        const char *cls = c->signature + 1; /* "Lpkg/Name;" without the L and the ; */
        size_t length = strlen(cls) - 1 + 1 + strlen(name) + 1 + strlen(signature) + 1;
        char *text = malloc(length);
        if (text) {
            snprintf(text, length, "%.*s.%s:%s", (int)strlen(cls) - 1, cls, name, signature);
            description = (*env)->NewStringUTF(env, text);
            free(text);
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    }
    if (declaring)
        (*env)->DeleteLocalRef(env, declaring);
    (*env)->DeleteLocalRef(env, field_class);
    return description;
}

static jstring describe_string(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj)
{
    (void)iface;
    return (*env)->NewLocalRef(env, obj);
}

/*
 * AbstractStringBuilder keeps `count` characters in `value`: a char[] up to JDK 8; since
 * JDK 9 a byte[] holding Latin-1 (coder 0) or UTF-16 in the platform's byte order (coder 1).
 * Another thread may be changing the builder: the count is clamped to the array read.
 */
static jstring describe_builder(IJavaEventMonitorIDInfo4 *iface, JNIEnv *env, jobject obj)
{
    (void)iface;
    jclass klass = (*env)->GetObjectClass(env, obj);
    jclass base = (*env)->GetSuperclass(env, klass); /* AbstractStringBuilder */
    char value_type = 0;
    jfieldID value_id = base ? declared_field(base, "value", &value_type) : NULL;
    jfieldID count_id = base ? declared_field(base, "count", NULL) : NULL;
    jfieldID coder_id = base ? declared_field(base, "coder", NULL) : NULL;
    jarray value = value_id && count_id ? (*env)->GetObjectField(env, obj, value_id) : NULL;
    jstring description = NULL;
    if (value) {
        jint count = (*env)->GetIntField(env, obj, count_id), length = (*env)->GetArrayLength(env, value);
        int utf16_bytes = value_type == 'B' && coder_id && (*env)->GetByteField(env, obj, coder_id) == 1;
        jint units = utf16_bytes ? length / 2 : length;
        count = count < 0 ? 0 : count > units ? units : count;
        jchar *chars = malloc(((size_t)count + 1) * sizeof(jchar));
        if (chars && value_type == 'C')
            (*env)->GetCharArrayRegion(env, value, 0, count, chars);
        else if (chars && utf16_bytes)
            (*env)->GetByteArrayRegion(env, value, 0, count * 2, (jbyte *)chars);
        else if (chars) {
            jbyte *latin1 = (jbyte *)chars + count; /* the upper half; widened from the front */
            (*env)->GetByteArrayRegion(env, value, 0, count, latin1);
            for (jint i = 0; i < count; i++)
                chars[i] = (jchar)(unsigned char)latin1[i];
        }
        if (chars)
            description = (*env)->NewString(env, chars, count);
        free(chars);
        (*env)->DeleteLocalRef(env, value);
    }
    if (base)
        (*env)->DeleteLocalRef(env, base);
    (*env)->DeleteLocalRef(env, klass);
    return description;
}

static const special_class special_classes[] = {
    /* A Class object also holds its class's static fields, so mirrors differ in size. */
    {"java/lang/Class", JVM_CLS_HAS_DESCRIPTION | JVM_CLS_VARIABLE_SIZE, describe_class},
    {"java/lang/reflect/Method", JVM_CLS_HAS_DESCRIPTION, describe_method},
    {"java/lang/reflect/Constructor", JVM_CLS_HAS_DESCRIPTION, describe_method},
    {"java/lang/reflect/Field", JVM_CLS_HAS_DESCRIPTION, describe_field},
    {"java/lang/String", JVM_CLS_HAS_DESCRIPTION, describe_string},
    {"java/lang/StringBuffer", JVM_CLS_HAS_DESCRIPTION, describe_builder},
    {"java/lang/StringBuilder", JVM_CLS_HAS_DESCRIPTION, describe_builder},
};
#define SPECIAL_COUNT (sizeof(special_classes) / sizeof(*special_classes))

/* Does the JVM signature "Lname;" name this internal name?  (All special classes are final.) */
static int signature_names(const char *signature, const char *name)
{
    size_t length = strlen(name);
    return signature[0] == 'L' && strncmp(signature + 1, name, length) == 0 && strcmp(signature + 1 + length, ";") == 0;
}

/* The description as a NUL-terminated UTF-16 string in CoTaskMem. */
static LPWSTR cotask_wide(JNIEnv *env, jstring s)
{
    jsize length = (*env)->GetStringLength(env, s);
    LPWSTR text = CoTaskMemAlloc(((size_t)length + 1) * sizeof(WCHAR));
    if (text) {
        (*env)->GetStringRegion(env, s, 0, length, (jchar *)text);
        text[length] = 0;
    }
    return text;
}

HRESULT STDMETHODCALLTYPE idinfo_DescribeObject(IJavaEventMonitorIDInfo4 *iface, ObjectID object_id, LPWSTR *pdescr)
{
    JNIEnv *env = jv_jni();
    if (env && (*env)->ExceptionCheck(env))
        return E_FAIL; /* JNI cannot run with a Java exception pending, and it is not ours to clear */
    jobject obj = jv_object_local(env, object_id);
    if (!obj || !pdescr) {
        if (obj)
            (*env)->DeleteLocalRef(env, obj);
        return E_FAIL;
    }
    jclass klass = (*env)->GetObjectClass(env, obj);
    jv_class *c = jv_class_get(jv_class_id(env, klass));
    jstring description = NULL;
    for (size_t i = 0; c && i < SPECIAL_COUNT && !description; i++)
        if (signature_names(c->signature, special_classes[i].name))
            description = special_classes[i].describe(iface, env, obj);
    HRESULT hr = E_FAIL; /* not an instance of a special class, or it could not be read */
    if ((*env)->ExceptionCheck(env)) /* thrown by a JNI call of ours, e.g. out of memory */
        (*env)->ExceptionClear(env);
    else if (description)
        hr = (*pdescr = cotask_wide(env, description)) ? S_OK : E_OUTOFMEMORY;
    if (description)
        (*env)->DeleteLocalRef(env, description);
    (*env)->DeleteLocalRef(env, klass);
    (*env)->DeleteLocalRef(env, obj);
    return hr;
}

/* Appends one class to the parallel CoTaskMem arrays, growing them by doubling. */
static int append_class(ClassID **ids, DWORD **flags, unsigned *count, unsigned *capacity, ClassID id, DWORD flag)
{
    if (*count == *capacity) {
        unsigned grown = *capacity ? *capacity * 2 : 64;
        ClassID *bigger_ids = CoTaskMemRealloc(*ids, grown * sizeof(ClassID));
        if (bigger_ids)
            *ids = bigger_ids;
        DWORD *bigger_flags = CoTaskMemRealloc(*flags, grown * sizeof(DWORD));
        if (bigger_flags)
            *flags = bigger_flags;
        if (!bigger_ids || !bigger_flags)
            return 0;
        *capacity = grown;
    }
    (*ids)[*count] = id;
    (*flags)[(*count)++] = flag;
    return 1;
}

/*
 * The special classes, then every array class loaded at the time of the call, flagged
 * JVM_CLS_VARIABLE_SIZE: arrays of one class differ in length.  Array classes loaded
 * later are not in the list; a profiler can recognise them by the '[' their names start with.
 */
HRESULT STDMETHODCALLTYPE idinfo_GetSpecialClassProperties(IJavaEventMonitorIDInfo4 *iface,
                                                           unsigned *pnspecial_classes, ClassID **ppclass_ids,
                                                           DWORD **ppclass_flags)
{
    (void)iface;
    JNIEnv *env = jv_jni();
    if (!env || (*env)->ExceptionCheck(env) || !pnspecial_classes || !ppclass_ids || !ppclass_flags)
        return E_FAIL; /* as in DescribeObject, a pending exception is not ours to clear */
    ClassID *ids = NULL;
    DWORD *flags = NULL;
    unsigned count = 0, capacity = 0;
    int ok = 1;
    for (size_t i = 0; ok && i < SPECIAL_COUNT; i++) {
        jclass klass = (*env)->FindClass(env, special_classes[i].name);
        ClassID id = klass ? jv_class_id(env, klass) : 0;
        ok = id && append_class(&ids, &flags, &count, &capacity, id, special_classes[i].flags);
        if (klass)
            (*env)->DeleteLocalRef(env, klass);
    }
    jint loaded_count = 0;
    jclass *loaded = NULL;
    if (ok && (*jv_jvmti)->GetLoadedClasses(jv_jvmti, &loaded_count, &loaded) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < loaded_count; i++) {
            char *signature = NULL;
            if (ok && (*jv_jvmti)->GetClassSignature(jv_jvmti, loaded[i], &signature, NULL) == JVMTI_ERROR_NONE) {
                if (signature[0] == '[') {
                    ClassID id = jv_class_id(env, loaded[i]);
                    ok = id && append_class(&ids, &flags, &count, &capacity, id, JVM_CLS_VARIABLE_SIZE);
                }
                (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
            }
            (*env)->DeleteLocalRef(env, loaded[i]);
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)loaded);
    } else
        ok = 0;
    if ((*env)->ExceptionCheck(env)) /* a FindClass of ours failed */
        (*env)->ExceptionClear(env);
    if (!ok) {
        CoTaskMemFree(ids);
        CoTaskMemFree(flags);
        return E_FAIL;
    }
    *pnspecial_classes = count;
    *ppclass_ids = ids;
    *ppclass_flags = flags;
    return S_OK;
}

/* jnifloor.c - the empty natives of JniFloor.java: what a JNI call costs with nothing behind it. */
#include <jni.h>

JNIEXPORT void JNICALL Java_JniFloor_enter(JNIEnv *env, jclass klass, jint id);
JNIEXPORT void JNICALL Java_JniFloor_exit(JNIEnv *env, jclass klass, jint id);

JNIEXPORT void JNICALL Java_JniFloor_enter(JNIEnv *env, jclass klass, jint id)
{
    (void)env, (void)klass, (void)id;
}

JNIEXPORT void JNICALL Java_JniFloor_exit(JNIEnv *env, jclass klass, jint id)
{
    (void)env, (void)klass, (void)id;
}

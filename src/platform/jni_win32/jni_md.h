/*
 * jni_md.h for building the agent with MinGW: the Windows definitions of the
 * machine-dependent JNI types, which the Linux JDK's include directory lacks.
 */
#ifndef JEVMON_JNI_MD_WIN32_H
#define JEVMON_JNI_MD_WIN32_H

#define JNIEXPORT __declspec(dllexport)
#define JNIIMPORT __declspec(dllimport)
#define JNICALL __stdcall

typedef int jint;
typedef long long jlong;
typedef signed char jbyte;

#endif

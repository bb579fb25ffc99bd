/*
 * jevnative.c - NativeWorkload's JNI library (libjevnative.so): a known C function that spins for
 * a given processor time, for test_native_frames.  Built with frame pointers, as a JNI library
 * whose native frames a profiler should name.
 */
#define _POSIX_C_SOURCE 200809L
#include <jni.h>
#include <time.h>

static long long thread_cpu_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Spins until the thread has used cpu_ns more processor time; the clock is read every 20000 steps. */
__attribute__((noinline, visibility("default"))) unsigned long long jevnative_spin(long long cpu_ns)
{
    long long until = thread_cpu_ns() + cpu_ns;
    unsigned long long x = 1;
    do {
        for (int i = 0; i < 20000; i++)
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        __asm__ volatile("" : "+r"(x));
    } while (thread_cpu_ns() < until);
    return x;
}

JNIEXPORT jlong JNICALL Java_NativeWorkload_spinNative(JNIEnv *env, jclass klass, jlong cpu_ns)
{
    (void)env, (void)klass;
    return (jlong)jevnative_spin(cpu_ns);
}

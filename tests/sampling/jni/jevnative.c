/*
 * jevnative.c - NativeWorkload's JNI library (libjevnative.so), for test_native_frames: a known C
 * function that spins for a given processor time, the same work done under the C library's qsort
 * (which Debian builds without frame pointers: it keeps data in the frame-pointer register), and
 * threads of its own that the JVM never knows, allocating and freeing memory.  Built with frame
 * pointers, as a JNI library whose native frames a profiler should name.
 */
#define _GNU_SOURCE
#include <jni.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
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

/* Spins steps steps, with a frame of its own under jevnative_compare. */
__attribute__((noinline, visibility("default"))) unsigned long long jevnative_steps(int steps)
{
    unsigned long long x = 1;
    for (int i = 0; i < steps; i++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    __asm__ volatile("" : "+r"(x));
    return x;
}

static volatile unsigned long long compared;

/* qsort's comparator, some microseconds of work each. */
__attribute__((noinline, visibility("default"))) int jevnative_compare(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    compared += jevnative_steps(2000);
    return (x > y) - (x < y);
}

/* Sorts 64 numbers again and again with qsort until the thread has used cpu_ns more processor
 * time: nearly all of it in jevnative_compare, called by the C library's sort. */
JNIEXPORT jlong JNICALL Java_NativeWorkload_sortNative(JNIEnv *env, jclass klass, jlong cpu_ns)
{
    (void)env, (void)klass;
    int numbers[64];
    unsigned seed = 1;
    long long until = thread_cpu_ns() + cpu_ns;
    do {
        for (int i = 0; i < 64; i++)
            numbers[i] = (int)((seed = seed * 1103515245u + 12345u) >> 8);
        qsort(numbers, 64, sizeof(*numbers), jevnative_compare);
    } while (thread_cpu_ns() < until);
    return numbers[0];
}

/* Big enough to take the allocator's lock, not big enough to be its own mapping. */
#define ALLOCATION_BYTES (96 * 1024)

/* A thread of the library's own: malloc and free until it has used *(long long *)arg more
 * processor time, where a profiler's signal would find it inside the allocator most of the time. */
__attribute__((noinline, visibility("default"))) void *jevnative_allocate(void *arg)
{
    long long until = thread_cpu_ns() + *(const long long *)arg;
    pthread_setname_np(pthread_self(), "jevnative-alloc");
    do {
        for (int i = 0; i < 1000; i++) {
            void *block = malloc(ALLOCATION_BYTES);
            __asm__ volatile("" : : "r"(block) : "memory");
            free(block);
        }
    } while (thread_cpu_ns() < until);
    return NULL;
}

/* Runs count threads of the library's own (never attached to the JVM) for cpu_ns of processor
 * time each, and waits for them; the number that ran. */
JNIEXPORT jint JNICALL Java_NativeWorkload_allocateOffJvm(JNIEnv *env, jclass klass, jint count, jlong cpu_ns)
{
    (void)env, (void)klass;
    pthread_t threads[64];
    long long each = cpu_ns;
    int started = 0;
    while (started < count && started < 64 && pthread_create(&threads[started], NULL, jevnative_allocate, &each) == 0)
        started++;
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    return started;
}

/*
 * jevnative.c - NativeWorkload's JNI library (libjevnative.so), for test_native_frames: a known C
 * function that spins for a given processor time, the same work done under the C library's qsort
 * (which Debian builds without frame pointers: it keeps data in the frame-pointer register), and
 * threads of its own that the JVM never knows, allocating and freeing memory.  Built with frame
 * pointers, as a JNI library whose native frames a profiler should name.  For test_tls_churn, a
 * Java thread loading and unloading a library with thread-locals (libjevtls.so) in a loop.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
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

/*
 * Loads the library at module (libjevtls.so), touches its thread-locals and unloads it, then
 * allocates and frees 64 KiB blocks, again and again until the thread has used cpu_ns more
 * processor time; the rounds done, or -1 when the library cannot be loaded.  After each unload
 * the thread's table of thread-locals (its DTV) is behind the process's generation and still holds
 * the block the unloaded library's thread-locals had here: the thread's next __tls_get_addr, in
 * any library, frees that block.  Its allocations take the allocator's lock, so a signal handler
 * that reads a thread-local of another library loaded at run time (the JVM's, through GetEnv) here
 * frees the block with the lock held by the code it interrupted (a deadlock), or, landing inside
 * the C library's own update of the table, frees it twice.  The thread is named "jevtls-churn"
 * while it does so (test_tls_churn watches its processor time), "jevtls-done" after.  stopTls
 * ends every churnTls sooner.
 */
static atomic_int churn_stopped;

JNIEXPORT void JNICALL Java_NativeWorkload_stopTls(JNIEnv *env, jclass klass)
{
    (void)env, (void)klass;
    atomic_store(&churn_stopped, 1);
}

JNIEXPORT jlong JNICALL Java_NativeWorkload_churnTls(JNIEnv *env, jclass klass, jstring module, jlong cpu_ns)
{
    (void)klass;
    const char *path = (*env)->GetStringUTFChars(env, module, NULL);
    if (!path)
        return -1;
    long long until = thread_cpu_ns() + cpu_ns;
    jlong rounds = 0;
    pthread_setname_np(pthread_self(), "jevtls-churn");
    do {
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        unsigned (*touch)(unsigned) = library ? (unsigned (*)(unsigned))dlsym(library, "jevtls_touch") : NULL;
        if (!touch) {
            if (library)
                dlclose(library);
            rounds = -1;
            break;
        }
        touch((unsigned)rounds);
        dlclose(library);
        for (int i = 0; i < 50; i++) {
            void *block = malloc(64 * 1024);
            __asm__ volatile("" : : "r"(block) : "memory");
            free(block);
        }
        rounds++;
    } while (thread_cpu_ns() < until && !atomic_load(&churn_stopped));
    pthread_setname_np(pthread_self(), "jevtls-done");
    (*env)->ReleaseStringUTFChars(env, module, path);
    return rounds;
}

/*
 * NativeWorkload - the truth of jevprof's native frames and the JVM's own threads
 * (test_native_frames).
 *
 *   jni CPU-SECONDS [TRUTH-FILE]: the main thread runs rounds of 2 ms of processor time in the JNI
 *     library libjevnative.so (jevnative_spin, called by spinNative) and 8 ms in Java (javaSpin):
 *     20% of its processor time in native code, once warm has compiled javaSpin, in measured until
 *     it has used CPU-SECONDS.  The share it measured (the thread's processor time around each
 *     call) is printed, and written to TRUTH-FILE.  The library is loaded from java.library.path.
 *   sort CPU-SECONDS: the main thread calls sortNative, whose qsort (the C library's, built without
 *     frame pointers) calls back into the library's jevnative_compare, in rounds of 2 ms until it
 *     has used CPU-SECONDS of processor time.
 *   stubs CPU-SECONDS: calls through an interface with eight implementations, again and again (a
 *     megamorphic call: compiled code dispatches it through the VM's "itable stub"), until the
 *     main thread has used CPU-SECONDS of processor time.
 *   gc CPU-SECONDS: a live set of two million small arrays, then System.gc() again and again until
 *     the process has used CPU-SECONDS of processor time: the collector's threads do nearly all the
 *     work.
 *   syscall CPU-SECONDS [TRUTH-FILE]: the main thread runs rounds of 2 ms of processor time reading
 *     /dev/zero into a direct buffer of 1 MiB (readZero: FileChannel.read, a read(2) straight into
 *     the buffer, the kernel clearing it) and 2 ms in Java (javaSpin), in measured until it has used
 *     CPU-SECONDS.  The share of its processor time in readZero (the thread's processor time
 *     around each call) is printed, and written to TRUTH-FILE.
 *   offjvm THREADS CPU-SECONDS: THREADS threads of libjevnative.so's own, which the JVM never
 *     knows ("jevnative-alloc"), each allocating and freeing memory in C for CPU-SECONDS of
 *     processor time; the main thread waits in allocateOffJvm.
 *   tls THREADS CPU-SECONDS DIR [input]: THREADS Java threads, each loading and unloading DIR's
 *     libjevtls.so (a library with thread-locals) and allocating memory in C, in churnTls (DIR's
 *     libjevnative.so), until it has used CPU-SECONDS of processor time, or with input until the
 *     standard input ends; each prints its rounds.
 */
public class NativeWorkload {
    static volatile long sink;

    static native long spinNative(long cpuNanos);
    static native int allocateOffJvm(int threads, long cpuNanos);
    static native long sortNative(long cpuNanos);
    static native long churnTls(String module, long cpuNanos);
    static native void stopTls();

    /* Until the thread has used cpuNanos more processor time; the clock is read every 20000 steps. */
    static long javaSpin(java.lang.management.ThreadMXBean bean, long cpuNanos) {
        long until = bean.getCurrentThreadCpuTime() + cpuNanos, x = 1;
        do {
            for (int i = 0; i < 20000; i++)
                x = x * 6364136223846793005L + 1442695040888963407L;
        } while (bean.getCurrentThreadCpuTime() < until);
        return x;
    }

    interface Step { long step(long x); }
    static final class Step0 implements Step { public long step(long x) { return x + 1; } }
    static final class Step1 implements Step { public long step(long x) { return x ^ 3; } }
    static final class Step2 implements Step { public long step(long x) { return x * 5; } }
    static final class Step3 implements Step { public long step(long x) { return x - 7; } }
    static final class Step4 implements Step { public long step(long x) { return x + 11; } }
    static final class Step5 implements Step { public long step(long x) { return x ^ 13; } }
    static final class Step6 implements Step { public long step(long x) { return x * 17; } }
    static final class Step7 implements Step { public long step(long x) { return x - 19; } }

    static long dispatch(Step[] steps, long x) {
        for (int i = 0; i < 1_000_000; i++)
            x = steps[i & 7].step(x);
        return x;
    }

    static void stubs(String seconds) {
        Step[] steps = {new Step0(), new Step1(), new Step2(), new Step3(), new Step4(), new Step5(), new Step6(), new Step7()};
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = bean.getCurrentThreadCpuTime() + (long) (Double.parseDouble(seconds) * 1e9);
        while (bean.getCurrentThreadCpuTime() < until)
            sink += dispatch(steps, sink);
    }

    static long nativeNanos, allNanos; /* the processor time the measured rounds used, and their part's */

    /* What a round does besides Java for the processor time asked (spinNative, readZero). */
    interface Part { long run(long cpuNanos) throws java.io.IOException; }

    /* Rounds of part for partNanos and javaSpin for javaNanos of processor time until until. */
    static long rounds(java.lang.management.ThreadMXBean bean, long until, Part part, long partNanos, long javaNanos)
            throws java.io.IOException {
        long rounds = 0, start = bean.getCurrentThreadCpuTime(), now = start;
        nativeNanos = 0;
        while (now < until) {
            sink += part.run(partNanos);
            long spun = bean.getCurrentThreadCpuTime();
            nativeNanos += spun - now;
            sink += javaSpin(bean, javaNanos);
            now = bean.getCurrentThreadCpuTime();
            rounds++;
        }
        allNanos = now - start;
        return rounds;
    }

    static long warm(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException {
        return rounds(bean, until, NativeWorkload::spinNative, 2_000_000, 8_000_000);
    }

    static long measured(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException {
        return rounds(bean, until, NativeWorkload::spinNative, 2_000_000, 8_000_000);
    }

    /* Rounds until a thread's processor time reaches until (warm, measured, ...). */
    interface Rounds { long run(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException; }

    /* Half a second of warm rounds, then CPU-SECONDS of measured ones; the share of the measured
     * rounds' processor time in their part is printed, and written to truthFile. */
    static void truth(String mode, String part, String seconds, String truthFile, Rounds warm, Rounds measured)
            throws java.io.IOException {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        warm.run(bean, bean.getCurrentThreadCpuTime() + 500_000_000L);
        long rounds = measured.run(bean, bean.getCurrentThreadCpuTime() + (long) (Double.parseDouble(seconds) * 1e9));
        System.out.println(mode + " rounds " + rounds + ", " + (100.0 * nativeNanos / allNanos) + "% in " + part);
        if (truthFile != null)
            java.nio.file.Files.writeString(java.nio.file.Path.of(truthFile), (100.0 * nativeNanos / allNanos) + "\n");
    }

    /* Reads /dev/zero until the thread has used cpuNanos more processor time. */
    static long readZero(java.lang.management.ThreadMXBean bean, java.nio.channels.FileChannel zero,
                         java.nio.ByteBuffer buffer, long cpuNanos) throws java.io.IOException {
        long until = bean.getCurrentThreadCpuTime() + cpuNanos, read = 0;
        do {
            buffer.clear();
            read += zero.read(buffer);
        } while (bean.getCurrentThreadCpuTime() < until);
        return read;
    }

    static long syscallRounds(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException {
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(1 << 20);
        try (java.nio.channels.FileChannel zero = java.nio.channels.FileChannel.open(java.nio.file.Path.of("/dev/zero"))) {
            return rounds(bean, until, nanos -> readZero(bean, zero, buffer, nanos), 2_000_000, 2_000_000);
        }
    }

    static long syscallWarm(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException {
        return syscallRounds(bean, until);
    }

    static long syscallMeasured(java.lang.management.ThreadMXBean bean, long until) throws java.io.IOException {
        return syscallRounds(bean, until);
    }

    static void gc(String seconds) {
        Object[] live = new Object[2_000_000];
        for (int i = 0; i < live.length; i++)
            live[i] = new long[2];
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        long end = os.getProcessCpuTime() + (long) (Double.parseDouble(seconds) * 1e9), collections = 0;
        while (os.getProcessCpuTime() < end) {
            System.gc();
            collections++;
        }
        System.out.println("gc collections " + collections + " of " + live.length);
    }

    static void tls(int count, long cpuNanos, String dir, boolean untilInput)
            throws java.io.IOException, InterruptedException {
        System.load(dir + "/libjevnative.so");
        Thread[] threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            threads[i] = new Thread(() -> System.out.println("tls rounds " + churnTls(dir + "/libjevtls.so", cpuNanos)));
            threads[i].start();
        }
        if (untilInput) {
            System.in.transferTo(java.io.OutputStream.nullOutputStream());
            stopTls();
        }
        for (Thread thread : threads)
            thread.join();
    }

    public static void main(String[] args) throws java.io.IOException, InterruptedException {
        switch (args[0]) {
            case "jni":
                System.loadLibrary("jevnative");
                truth("jni", "spinNative", args[1], args.length > 2 ? args[2] : null, NativeWorkload::warm,
                      NativeWorkload::measured);
                break;
            case "gc": gc(args[1]); break;
            case "stubs": stubs(args[1]); break;
            case "syscall":
                truth("syscall", "readZero", args[1], args.length > 2 ? args[2] : null, NativeWorkload::syscallWarm,
                      NativeWorkload::syscallMeasured);
                break;
            case "sort": {
                System.loadLibrary("jevnative");
                java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
                long until = bean.getCurrentThreadCpuTime() + (long) (Double.parseDouble(args[1]) * 1e9);
                while (bean.getCurrentThreadCpuTime() < until)
                    sink += sortNative(2_000_000);
                break;
            }
            case "offjvm":
                System.loadLibrary("jevnative");
                System.out.println("offjvm threads " + allocateOffJvm(Integer.parseInt(args[1]),
                                                                      (long) (Double.parseDouble(args[2]) * 1e9)));
                break;
            case "tls":
                tls(Integer.parseInt(args[1]), (long) (Double.parseDouble(args[2]) * 1e9), args[3],
                    args.length > 4 && args[4].equals("input"));
                break;
            default: throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        String maps = System.getProperty("native.maps"); /* the libraries this process has mapped, at its end */
        if (maps != null)
            java.nio.file.Files.copy(java.nio.file.Paths.get("/proc/self/maps"), java.nio.file.Paths.get(maps),
                                     java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
}

/**
 * The program the sampling suite profiles (tests/sampling/test_sampling.c) and `make bench` runs:
 *
 *   shares CPU-SECONDS  the main thread spends known shares of its time in three methods (and says how many rounds):
 *                       a, b and c run the same loop body 6, 3 and 1 million times a round
 *   sleep-gc SECONDS    thread "sleeper" sleeps; thread "collector" calls System.gc() in a loop
 *   threads N SECONDS   N threads, thread i spinning in its own method t<i>
 *   fibs N K            N threads each computing fib(K): a fixed amount of work, for `make bench`
 *   define SECONDS      the main thread defines a class over and over, each time in a new class loader
 *   stacks CPU-SECONDS  thread "parked" parks in parkedA > parkedB > parkedC while thread "spinning" runs
 *                       CPU-SECONDS in spinA > spinB > spinC: two stacks that stay the same for the whole run
 *
 * Each mode prints what it did when done.  (truth, periodic: below spinC, their own comments.)
 */
public class SamplingWorkload {
    static volatile long sink;

    static long a(long n) { long x = 1; for (long k = 0; k < n; k++) x = x * 31 + k; return x; }
    static long b(long n) { long x = 2; for (long k = 0; k < n; k++) x = x * 31 + k; return x; }
    static long c(long n) { long x = 3; for (long k = 0; k < n; k++) x = x * 31 + k; return x; }

    static long t0(long n) { long x = 0; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 0); return x; }
    static long t1(long n) { long x = 1; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 1); return x; }
    static long t2(long n) { long x = 2; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 2); return x; }
    static long t3(long n) { long x = 3; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 3); return x; }
    static long t4(long n) { long x = 4; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 4); return x; }
    static long t5(long n) { long x = 5; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 5); return x; }
    static long t6(long n) { long x = 6; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 6); return x; }
    static long t7(long n) { long x = 7; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 7); return x; }
    static long t8(long n) { long x = 8; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 8); return x; }
    static long t9(long n) { long x = 9; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 9); return x; }
    static long t10(long n) { long x = 10; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 10); return x; }
    static long t11(long n) { long x = 11; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 11); return x; }
    static long t12(long n) { long x = 12; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 12); return x; }
    static long t13(long n) { long x = 13; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 13); return x; }
    static long t14(long n) { long x = 14; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 14); return x; }
    static long t15(long n) { long x = 15; for (long k = 0; k < n; k++) x = x * 31 + (k ^ 15); return x; }

    static long spin(int i, long n) {
        switch (i) {
            case 0: return t0(n);
            case 1: return t1(n);
            case 2: return t2(n);
            case 3: return t3(n);
            case 4: return t4(n);
            case 5: return t5(n);
            case 6: return t6(n);
            case 7: return t7(n);
            case 8: return t8(n);
            case 9: return t9(n);
            case 10: return t10(n);
            case 11: return t11(n);
            case 12: return t12(n);
            case 13: return t13(n);
            case 14: return t14(n);
            case 15: return t15(n);
            default: throw new IllegalArgumentException("no method t" + i);
        }
    }

    static long deadline(String seconds) {
        return System.nanoTime() + (long) (Double.parseDouble(seconds) * 1e9);
    }

    static void shares(String seconds) { /* rounds in this thread's processor time from here; the process's meanwhile */
        long end = threadCpuAfter(seconds), rounds = 0, process = processCpuNs();
        while (THREAD_CPU.getCurrentThreadCpuTime() < end) {
            sink += a(6_000_000);
            sink += b(3_000_000);
            sink += c(1_000_000);
            rounds++;
        }
        System.out.println("shares rounds " + rounds + " process-ms " + (processCpuNs() - process) / 1_000_000);
    }

    static void sleepAndCollect(String seconds) throws InterruptedException {
        long end = deadline(seconds);
        Thread sleeper = new Thread(() -> {
            try {
                while (System.nanoTime() < end)
                    Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, "sleeper");
        long[] collections = new long[1];
        Thread collector = new Thread(() -> {
            while (System.nanoTime() < end) {
                sink += new byte[1 << 16].length;
                System.gc();
                collections[0]++;
            }
        }, "collector");
        sleeper.start();
        collector.start();
        sleeper.join();
        collector.join();
        System.out.println("collections " + collections[0]);
    }

    static void threads(int count, String seconds) throws InterruptedException {
        long end = deadline(seconds), before = ThreadWakeUps.of("jevprof sampler"), started = System.nanoTime();
        Thread[] all = new Thread[count];
        for (int i = 0; i < count; i++) {
            int which = i;
            all[i] = new Thread(() -> {
                while (System.nanoTime() < end)
                    sink += spin(which, 100_000);
            }, "spinner-" + i);
            all[i].start();
        }
        for (Thread t : all)
            t.join();
        System.out.println("threads " + count + " done; " + ThreadWakeUps.since("jevprof sampler", before, started));
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void fibs(int count, int n) throws InterruptedException {
        Thread[] all = new Thread[count];
        for (int i = 0; i < count; i++) {
            all[i] = new Thread(() -> sink += fib(n), "fib-" + i);
            all[i].start();
        }
        for (Thread t : all)
            t.join();
        System.out.println("fibs " + count + " x fib(" + n + ") done");
    }

    /** Defined again and again by define(). */
    static class Defined {
        int value() {
            return 42;
        }
    }

    static class OneClassLoader extends ClassLoader {
        Class<?> define(byte[] bytes) {
            return defineClass(Defined.class.getName(), bytes, 0, bytes.length);
        }
    }

    static void define(String seconds) throws java.io.IOException {
        byte[] bytes;
        try (java.io.InputStream in = SamplingWorkload.class.getResourceAsStream("SamplingWorkload$Defined.class")) {
            bytes = in.readAllBytes();
        }
        long end = deadline(seconds), defined = 0;
        while (System.nanoTime() < end) {
            sink += new OneClassLoader().define(bytes).getName().length();
            defined++;
        }
        System.out.println("defined " + defined);
    }

    static void parkedC(long end) {
        while (!spinningDone) /* test_sampling and test_jevprof know these lines: keep them where they are */
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
    }
    static void parkedB(long end) { parkedC(end); }
    static void parkedA(long end) { parkedB(end); }

    static long spinC(long rounds) {
        long x = 0;
        for (long r = 0; r < rounds; r++) /* a count, no clock: a call out of Java here is a safepoint */
            for (int k = 0; k < 100_000; k++)
                x = x * 31 + k;
        return x;
    }
    static long spinB(long rounds) { return spinC(rounds); }
    static long spinA(long rounds) { return spinB(rounds); }

    static volatile boolean spinningDone;
    static final java.lang.management.ThreadMXBean THREAD_CPU = java.lang.management.ManagementFactory.getThreadMXBean();

    static void stacks(String cpuSeconds) throws InterruptedException {
        /* rounds of 100,000 iterations for the spinning thread's CPU-SECONDS, timed before it starts */
        long rounds = Math.round(Double.parseDouble(cpuSeconds) * 1e9 * iterationsPerNs(THREAD_CPU) / 100_000);
        Thread parked = new Thread(() -> parkedA(0), "parked");
        Thread spinning = new Thread(() -> sink += spinA(rounds), "spinning");
        parked.start();
        spinning.start();
        spinning.join();
        spinningDone = true;
        parked.join();
        System.out.println("stacks done");
    }

    /*
     * truth CPU-SECONDS: the known truth of cpu and wall modes.  The main thread runs rounds of a, b
     * and c (60/30/10% of its processor time once compiled: warm first warms them up) in measured
     * until it has used CPU-SECONDS of processor time, however loaded the machine, while thread
     * "acceptor" blocks in accept (on loopback), "waiter" in Object.wait and "sleeper" in
     * Thread.sleep, in two places by turns.
     */
    /* Short rounds: no sampling period lines up with them. */
    static long rounds(java.lang.management.ThreadMXBean bean, long until) {
        long rounds = 0;
        while (bean.getCurrentThreadCpuTime() < until) {
            sink += a(600_000);
            sink += b(300_000);
            sink += c(100_000);
            rounds++;
        }
        return rounds;
    }

    static long warm(java.lang.management.ThreadMXBean bean, long until) { return rounds(bean, until); }
    static long measured(java.lang.management.ThreadMXBean bean, long until) { return rounds(bean, until); }

    static void acceptor(java.net.ServerSocket server) {
        try {
            server.accept().close();
        } catch (java.io.IOException e) {
            // closed at the end
        }
    }

    static void waiter(Object lock) {
        synchronized (lock) {
            try {
                lock.wait();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }
    }

    /* Sleeps by turns in two places, 50 ms in each: a wall profile has half its samples in each. */
    static void sleeper() {
        try {
            while (true) {
                sleepHere();
                sleepThere();
            }
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void sleepHere() throws InterruptedException { Thread.sleep(50); }

    static void sleepThere() throws InterruptedException { Thread.sleep(50); }

    /* The three threads that wait, each its own way (daemons): acceptor in accept on the returned
     * socket (closed by the caller when done), waiter in Object.wait, sleeper in Thread.sleep. */
    static java.net.ServerSocket startIdleThreads() throws java.io.IOException {
        java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        Object lock = new Object();
        Thread[] idle = {new Thread(() -> acceptor(server), "acceptor"), new Thread(() -> waiter(lock), "waiter"),
                         new Thread(SamplingWorkload::sleeper, "sleeper")};
        for (Thread t : idle) {
            t.setDaemon(true);
            t.start();
        }
        return server;
    }

    static void truth(String seconds) throws java.io.IOException {
        java.net.ServerSocket server = startIdleThreads();
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpu = bean.getCurrentThreadCpuTime();
        warm(bean, cpu + 500_000_000L);
        long rounds = measured(bean, bean.getCurrentThreadCpuTime() + (long) (Double.parseDouble(seconds) * 1e9));
        server.close();
        System.out.println("truth rounds " + rounds);
    }

    /*
     * periodic INTERVAL-MS CPU-SECONDS: a program with a period, the worst case of a sampler with a
     * fixed one.  Threads "period-one", "period-half" and "period-double" (methods periodOne,
     * periodHalf, periodDouble) each run rounds of periodicA, periodicB and periodicC lasting about
     * INTERVAL-MS of processor time, half of it and twice it, CPU-SECONDS of processor time each,
     * while the idle threads of truth wait.  The truth is counts: a round calls work, the loop of
     * all three, with 6, 3 and 1 units of iterations, so a, b and c hold 60%, 30% and 10% of each
     * thread's processor time.  work is one compiled body for the three (the test keeps it from being
     * inlined: -XX:CompileCommand=dontinline), so an iteration costs the same in each.  The unit
     * comes from timing work before the rounds start; no clock is read during them.  Each thread
     * prints the processor time it used ("period-one: N us of processor time") when done.
     */
    static long work(long n) { long x = 1; for (long k = 0; k < n; k++) x = x * 31 + k; return x; }
    static long periodicA(long unit) { return work(6 * unit); }
    static long periodicB(long unit) { return work(3 * unit); }
    static long periodicC(long unit) { return work(unit); }

    static void periodicRounds(long unit, long rounds) {
        for (long r = 0; r < rounds; r++) {
            sink += periodicA(unit);
            sink += periodicB(unit);
            sink += periodicC(unit);
        }
    }

    static void periodOne(long unit, long rounds) { periodicRounds(unit, rounds); }
    static void periodHalf(long unit, long rounds) { periodicRounds(unit, rounds); }
    static void periodDouble(long unit, long rounds) { periodicRounds(unit, rounds); }

    /** Iterations of work per nanosecond of processor time in rounds, once compiled: the mean over 0.2 s. */
    static double iterationsPerNs(java.lang.management.ThreadMXBean bean) {
        periodicRounds(1_000, 20_000); /* compiled */
        long before = bean.getCurrentThreadCpuTime();
        periodicRounds(100_000, 200);
        return 200.0 * 10 * 100_000 / Math.max(bean.getCurrentThreadCpuTime() - before, 1);
    }

    static void periodic(String intervalMs, String cpuSeconds) throws Exception {
        java.net.ServerSocket server = startIdleThreads();
        double perNs = iterationsPerNs(java.lang.management.ManagementFactory.getThreadMXBean());
        double interval = Double.parseDouble(intervalMs) * 1e6, cpu = Double.parseDouble(cpuSeconds) * 1e9;
        double[] lengths = {interval, interval / 2, interval * 2}; /* ns of a round */
        String[] names = {"period-one", "period-half", "period-double"};
        Thread[] threads = new Thread[3];
        for (int i = 0; i < 3; i++) {
            long unit = Math.max(1, Math.round(lengths[i] * perNs / 10)), rounds = Math.round(cpu / lengths[i]);
            int which = i;
            threads[i] = new Thread(() -> {
                switch (which) {
                    case 0: periodOne(unit, rounds); break;
                    case 1: periodHalf(unit, rounds); break;
                    default: periodDouble(unit, rounds); break;
                }
                System.out.printf("%s: %d us of processor time%n", names[which],
                                  THREAD_CPU.getCurrentThreadCpuTime() / 1000);
            }, names[i]);
        }
        for (Thread t : threads) { /* one at a time: alone on a processor, no preemption to shake the phase */
            t.start();
            t.join();
        }
        server.close();
        System.out.printf("periodic: %.3f iterations per ns%n", perNs);
    }

    /* short N: N threads one after the other, each running work for about a quarter of a
     * millisecond of processor time and ending: most end before a 1 ms interval is over. */
    static void shortLived(int count) throws InterruptedException {
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(() -> sink += work(300_000), "short-" + i);
            t.start();
            t.join();
        }
        System.out.println("short " + count + " done");
    }

    /* blocked LIBRARY CPU-SECONDS: the main thread runs rounds of 1 ms in work and
     * 5 ms in spinBlocked, a native method of LIBRARY (test_profile_truth builds it) that holds SIGPROF
     * blocked while it spins, until it has used CPU-SECONDS. */
    static native void spinBlocked(long cpuNanos);

    static void blocked(String library, String cpuSeconds) {
        System.load(library);
        long end = THREAD_CPU.getCurrentThreadCpuTime() + (long) (Double.parseDouble(cpuSeconds) * 1e9), rounds = 0;
        long unit = Math.max(1, Math.round(1e6 * iterationsPerNs(THREAD_CPU)));
        while (THREAD_CPU.getCurrentThreadCpuTime() < end) {
            sink += work(unit);
            spinBlocked(5_000_000L);
            rounds++;
        }
        System.out.println("blocked rounds " + rounds);
    }

    /*
     * edges CPU-SECONDS: a compiled caller calling a small compiled callee (the test keeps it from
     * being inlined) in a loop, for CPU-SECONDS of processor time: much of the callee's time is its
     * frame being set up and taken down, where AsyncGetCallTrace cannot walk from.
     */
    static long edgeCallee(long x) { return x * 31 + 7; }
    static long edgeCaller(long n) { long s = 0; for (long i = 0; i < n; i++) s += edgeCallee(i ^ s); return s; }

    static void edges(String seconds) {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        long end = bean.getCurrentThreadCpuTime() + (long) (Double.parseDouble(seconds) * 1e9);
        while (bean.getCurrentThreadCpuTime() < end)
            sink += edgeCaller(1_000_000);
    }

    public static void main(String[] args) throws Exception {
        String flag = System.getProperty("jevmon.test.flag"); /* a VM flag the test asks about, as it starts */
        if (flag != null)
            System.out.println("flag " + flag + " " + java.lang.management.ManagementFactory
                .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption(flag).getValue());
        switch (args[0]) {
            case "shares": shares(args[1]); break;
            case "sleep-gc": sleepAndCollect(args[1]); break;
            case "threads": threads(Integer.parseInt(args[1]), args[2]); break;
            case "fibs": fibs(Integer.parseInt(args[1]), Integer.parseInt(args[2])); break;
            case "define": define(args[1]); break;
            case "stacks": stacks(args[1]); break;
            case "truth": truth(args[1]); break;
            case "periodic": periodic(args[1], args[2]); break;
            case "short": shortLived(Integer.parseInt(args[1])); break;
            case "blocked": blocked(args[1], args[2]); break;
            case "edges": edges(args[1]); break;
            default: throw new IllegalArgumentException("unknown mode " + args[0]);
        }
        if (Boolean.getBoolean("jevmon.test.service"))
            System.out.println("service-thread-wakeups " + serviceThreadWakeups());
    }

    /* How often HotSpot's service thread went to sleep and was woken (it posts deferred JVMTI
     * events, CompiledMethodLoad among them, one wake-up per batch): its voluntary context switches. */
    static long serviceThreadWakeups() throws java.io.IOException {
        for (java.io.File task : new java.io.File("/proc/self/task").listFiles()) {
            java.nio.file.Path dir = task.toPath();
            if (!java.nio.file.Files.readString(dir.resolve("comm")).trim().equals("Service Thread"))
                continue;
            for (String line : java.nio.file.Files.readAllLines(dir.resolve("status")))
                if (line.startsWith("voluntary_ctxt_switches:"))
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
        }
        return -1;
    }

    /* This thread's processor time when it has used seconds more. */
    static long threadCpuAfter(String seconds) {
        return THREAD_CPU.getCurrentThreadCpuTime() + (long) (Double.parseDouble(seconds) * 1e9);
    }

    /* The process's processor time: `make bench` tells a profiler's cost by it and by shares' rounds. */
    static long processCpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }
}

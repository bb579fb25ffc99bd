/**
 * jevprof's calls mode on a program whose truth is known (test_jevprof.c):
 *   - a thread that waits (Object.wait, 2 s in all, in CallsWorkload.idle) while the main thread
 *     computes (CallsWorkload.spin, a fixed amount of arithmetic): processor time must rank spin
 *     first and idle near nothing, wall time the other way round;
 *   - overloads: work(int) and work(long), called 1000 and 2000 times, which a report must not
 *     merge into one "CallsWorkload.work".
 * Prints a checksum, the same with or without a profiler.
 */
public class CallsWorkload {
    static final Object lock = new Object();

    static void idle() throws InterruptedException {
        synchronized (lock) {
            for (int i = 0; i < 20; i++)
                lock.wait(100);
        }
    }

    static long spin(long x) {
        for (int i = 0; i < 100_000_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long work(int x) {
        return x * 3L;
    }

    static long work(long x) {
        return x * 5L;
    }

    public static void main(String[] args) throws Exception {
        Thread waiter = new Thread(() -> {
            try {
                idle();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "waiter");
        waiter.start();
        long sum = spin(args.length > 0 ? Long.parseLong(args[0]) : 1);
        for (int i = 0; i < 1000; i++)
            sum += work(i);
        for (long i = 0; i < 2000; i++)
            sum += work(i);
        waiter.join();
        System.out.println("checksum " + Long.toHexString(sum));
    }
}

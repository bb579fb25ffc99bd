import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Contended and uncontended locks with a known truth, for jevprof's lock mode.
 *
 *   monitor N HOLD_MS    N threads contend once each for one synchronized LockWorkload$TruthMonitor
 *                        that main holds until all N are blocked on it and HOLD_MS more
 *   reentrant N HOLD_MS  the same with one ReentrantLock (its sync is the blocker of their parks)
 *   virtual N HOLD_MS    the same with one ReentrantLock, from N virtual threads (JDK 21+)
 *   uncontended SECONDS  one thread taking a monitor and a ReentrantLock over and over, never waiting
 *   counter N OPS        N threads each incrementing one counter OPS times under one synchronized lock
 *                        (the bench)
 *   chm N OPS            N threads each merging OPS counts into a ConcurrentHashMap of 64 keys (the bench)
 *   looping N HOLD_MS    N threads (2 at least) until killed: half taking one synchronized TruthMonitor, half
 *                        one ReentrantLock, each holding it HOLD_MS, then sleeping 1 ms; "ready" once all
 *                        run (test_lock_truth's attach)
 *
 * The truth runs print "waits=<N> waited_ns=<sum of each thread's wait, by System.nanoTime>":
 * each thread reads the clock before it asks for the lock and after it has it, so its measured
 * wait holds the profiler's (which starts once the JVM has found the lock held and ends when it
 * has it).  Each thread releases the lock at once, so each waits once.
 */
public class LockWorkload {
    static final class TruthMonitor {}

    static volatile long sink;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "monitor": contend(args, false, false); break;
            case "reentrant": contend(args, true, false); break;
            case "virtual": contend(args, true, true); break;
            case "uncontended": uncontended(Long.parseLong(args[1])); break;
            case "counter": counter(Integer.parseInt(args[1]), Long.parseLong(args[2])); break;
            case "chm": chm(Integer.parseInt(args[1]), Long.parseLong(args[2])); break;
            case "looping": looping(Integer.parseInt(args[1]), Long.parseLong(args[2])); break;
            default: throw new IllegalArgumentException(args[0]);
        }
    }

    /** A thread waiting for the lock: state BLOCKED on the monitor, or parked on the lock's sync. */
    static boolean waiting(Thread t, boolean parks) {
        return parks ? t.getState() == Thread.State.WAITING && LockSupport.getBlocker(t) != null
                     : t.getState() == Thread.State.BLOCKED;
    }

    /** A virtual thread running r (JDK 21+: Thread.ofVirtual(), found by reflection: built for 17). */
    static Thread virtualThread(Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> of = Class.forName("java.lang.Thread$Builder");
        return (Thread) of.getMethod("unstarted", Runnable.class).invoke(builder, r);
    }

    static void contend(String[] args, boolean reentrant, boolean virtual) throws Exception {
        int n = Integer.parseInt(args[1]);
        long holdMs = Long.parseLong(args[2]);
        TruthMonitor monitor = new TruthMonitor();
        ReentrantLock lock = new ReentrantLock();
        long[] waited = new long[n];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int index = i;
            Runnable r = () -> {
                long start = System.nanoTime();
                if (reentrant) {
                    lock.lock();
                    waited[index] = System.nanoTime() - start;
                    lock.unlock();
                } else {
                    synchronized (monitor) {
                        waited[index] = System.nanoTime() - start;
                    }
                }
            };
            threads[i] = virtual ? virtualThread(r) : new Thread(r, "contender-" + i);
        }
        if (reentrant)
            lock.lock();
        synchronized (monitor) {
            for (Thread t : threads)
                t.start();
            for (Thread t : threads)
                while (!waiting(t, reentrant))
                    Thread.sleep(1);
            Thread.sleep(holdMs);
            if (reentrant)
                lock.unlock();
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            threads[i].join();
            sum += waited[i];
        }
        System.out.println("waits=" + n + " waited_ns=" + sum);
    }

    static void uncontended(long seconds) {
        Object monitor = new TruthMonitor();
        ReentrantLock lock = new ReentrantLock();
        long end = System.nanoTime() + seconds * 1_000_000_000L, count = 0;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10000; i++) {
                synchronized (monitor) {
                    count++;
                }
                lock.lock();
                try {
                    count++;
                } finally {
                    lock.unlock();
                }
            }
        }
        sink = count;
        System.out.println("operations=" + count);
    }

    static long counted;

    static void counter(int n, long ops) throws Exception {
        Object monitor = new Object();
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            threads[i] = new Thread(() -> {
                for (long k = 0; k < ops; k++)
                    synchronized (monitor) {
                        counted++;
                    }
            });
            threads[i].start();
        }
        for (Thread t : threads)
            t.join();
        System.out.println("operations=" + counted);
    }

    static void chm(int n, long ops) throws Exception {
        ConcurrentHashMap<Integer, Long> map = new ConcurrentHashMap<>();
        long[] done = new long[n];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int index = i;
            threads[i] = new Thread(() -> {
                long count = 0;
                for (; count < ops; count++)
                    map.merge((int) (count & 63), 1L, Long::sum);
                done[index] = count;
            });
            threads[i].start();
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            threads[i].join();
            sum += done[i];
        }
        System.out.println("operations=" + sum);
    }

    static void looping(int n, long holdMs) {
        TruthMonitor monitor = new TruthMonitor();
        ReentrantLock lock = new ReentrantLock();
        for (int i = 0; i < n; i++) {
            boolean parks = i % 2 == 1;
            new Thread(() -> {
                while (true) {
                    if (parks) {
                        lock.lock();
                        try { hold(holdMs); } finally { lock.unlock(); }
                    } else {
                        synchronized (monitor) { hold(holdMs); }
                    }
                    hold(1); /* outside: a waiter takes the lock, else its holder takes it back at once */
                }
            }, "looping-" + i).start();
        }
        System.out.println("ready");
    }

    static void hold(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }
}

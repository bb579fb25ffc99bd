/**
 * A deterministic workload for profiling jevprof end to end: 8 worker threads, each running
 * the same fixed amount of work, with
 *   - a hot method that does 4/5 of the arithmetic (hot: 4,000 steps per round; cold: 1,000),
 *     so a profiler should find Workload.hot at about 80% of the workers' self time;
 *   - recursion of a known shape (fib(15) once per 100 rounds);
 *   - exceptions: every 100th round throws an IllegalStateException three frames down and
 *     catches it in the round (rarely enough that creating them costs little of the time);
 *   - after the workers, on the main thread, allocations of a known count: Workload.allocate
 *     makes ALLOCATED Workload$Allocated objects and the one array that keeps them (main
 *     makes one of each before, so that loading the classes happens there).
 * It prints the same lines with or without a profiler (a checksum over every thread's
 * result, the number of exceptions caught), and nothing else.
 *
 * Usage: java Workload [rounds per thread, default 20000] [seconds at least]
 * With seconds, each worker spreads its rounds over at least that long, sleeping when ahead
 * (for a test of periods, which must see work in each however fast the machine); the same
 * calls are made of every method above, with Thread.sleep and System.nanoTime besides.
 */
public class Workload {
    static final int THREADS = 8;

    /** 4,000 steps of xorshift64 (no JIT folds a run of these into a formula): the hot method. */
    static long hot(long x) {
        for (int i = 0; i < 4000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** 1,000 steps: a quarter of hot's work. */
    static long cold(long x) {
        for (int i = 0; i < 1000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** Recursion: fib(n) makes fib(n+1)*2-1 calls. */
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static void thrower(int depth, long value) {
        if (depth == 0) {
            throw new IllegalStateException("round " + value);
        }
        thrower(depth - 1, value);
    }

    /** One round of work; every 100th round throws from three frames down and catches it here. */
    static long round(int i, long x, int[] caught) {
        x = hot(x);
        x = cold(x);
        if (i % 100 == 0) {
            x += fib(15);
        }
        if (i % 100 == 50) {
            try {
                thrower(2, x);
            } catch (IllegalStateException e) {
                caught[0]++;
            }
        }
        return x;
    }

    static final int ALLOCATED = 5000;

    static final class Allocated {
        final int index;

        Allocated(int index) {
            this.index = index;
        }
    }

    /** Kept, so that no compiler can prove the allocations dead and leave them out. */
    static Allocated[] allocated;

    /** The allocation phase: ALLOCATED objects of one class, from this one method. */
    static Allocated[] allocate() {
        Allocated[] kept = new Allocated[ALLOCATED];
        for (int i = 0; i < ALLOCATED; i++) {
            kept[i] = new Allocated(i);
        }
        return kept;
    }

    /** When main started the workers, and the least time their rounds take (0: no pace). */
    static long startedNanos, leastNanos;

    /** Sleeps until done of rounds rounds are due, when the pace is behind the work. */
    static void pace(int done, int rounds) throws InterruptedException {
        long ahead = startedNanos + leastNanos / rounds * done - System.nanoTime();
        if (ahead > 1000000) {
            Thread.sleep(ahead / 1000000);
        }
    }

    static final class Worker implements Runnable {
        final int index, rounds;
        long result;
        final int[] caught = new int[1];

        Worker(int index, int rounds) {
            this.index = index;
            this.rounds = rounds;
        }

        @Override
        public void run() {
            long x = index + 1; /* xorshift never leaves 0 */
            for (int i = 0; i < rounds; i++) {
                x = round(i, x, caught);
                if (leastNanos > 0 && i % 100 == 99) {
                    try {
                        pace(i + 1, rounds);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
            result = x;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
        leastNanos = args.length > 1 ? (long) (Double.parseDouble(args[1]) * 1e9) : 0;
        startedNanos = System.nanoTime();
        Worker[] workers = new Worker[THREADS];
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            workers[t] = new Worker(t, rounds);
            threads[t] = new Thread(workers[t], "worker-" + t);
            threads[t].start();
        }
        long checksum = 0;
        int caught = 0;
        for (int t = 0; t < THREADS; t++) {
            threads[t].join();
            checksum = checksum * 31 + workers[t].result;
            caught += workers[t].caught[0];
        }
        /* Loads Allocated and its array class here, so that allocate makes only its own objects. */
        allocated = new Allocated[] {new Allocated(-1)};
        allocated = allocate();
        System.out.println("threads " + THREADS + ", rounds " + rounds);
        System.out.println("checksum " + Long.toHexString(checksum));
        System.out.println("exceptions caught " + caught);
    }
}

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.function.IntUnaryOperator;

/**
 * The program of test_call_batches: calls of known numbers on several threads, some of their frames
 * left by exceptions, for a monitor that takes its calls in batches to count exactly.
 *
 * {@code CallBatchWorkload THREADS N ROUNDS}: main and THREADS threads each run work(N, ROUNDS), which
 * computes fib(N) (2 fib(N + 1) - 1 calls) and, ROUNDS times, has an exception thrown through four
 * frames of thrower straight to its catcher, four more through a JDK frame (Arrays.setAll) and
 * ThrowingGenerator.applyAsInt to viaJdk, and one caught in the frame that threw it.  A daemon thread
 * also makes the 50 calls of linger(49) and then waits for good: far fewer records than a batch, which
 * only the program's end hands over.
 */
public class CallBatchWorkload {
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    /** thrower(n) makes n + 1 frames; the innermost throws, and each is left by the exception. */
    static void thrower(int n) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        thrower(n - 1);
    }

    static int catcher() {
        try {
            thrower(3);
            return 0;
        } catch (IllegalStateException e) {
            return 1;
        }
    }

    /** Arrays.setAll calls applyAsInt once for the one element: the exception leaves a JDK frame too. */
    static final class ThrowingGenerator implements IntUnaryOperator {
        @Override
        public int applyAsInt(int index) {
            thrower(3);
            return index;
        }
    }

    static int viaJdk() {
        try {
            Arrays.setAll(new int[1], new ThrowingGenerator());
            return 0;
        } catch (IllegalStateException e) {
            return 1;
        }
    }

    /** Throws and catches in one frame, which then returns. */
    static int catchesItself(int round) {
        try {
            if (round >= 0) {
                throw new IllegalStateException("caught here");
            }
            return 0;
        } catch (IllegalStateException e) {
            return 1;
        }
    }

    static int work(int n, int rounds) {
        int caught = 0;
        for (int i = 0; i < rounds; i++) {
            caught += catcher() + viaJdk() + catchesItself(i);
        }
        return fib(n) + caught;
    }

    static int linger(int n) {
        return n == 0 ? 0 : 1 + linger(n - 1);
    }

    static final class Worker implements Runnable {
        private final int n, rounds;
        int result;

        Worker(int n, int rounds) {
            this.n = n;
            this.rounds = rounds;
        }

        @Override
        public void run() {
            result = work(n, rounds);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]), n = Integer.parseInt(args[1]), rounds = Integer.parseInt(args[2]);
        CountDownLatch lingered = new CountDownLatch(1), never = new CountDownLatch(1);
        Thread lingering = new Thread(() -> {
            linger(49);
            lingered.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "batch-lingering");
        lingering.setDaemon(true);
        lingering.start();
        Worker[] workers = new Worker[threads];
        Thread[] started = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Worker(n, rounds);
            started[t] = new Thread(workers[t], "batch-worker-" + t);
            started[t].start();
        }
        int total = work(n, rounds);
        lingered.await();
        for (int t = 0; t < threads; t++) {
            started[t].join();
            total += workers[t].result;
        }
        System.out.println("total " + total);
    }
}

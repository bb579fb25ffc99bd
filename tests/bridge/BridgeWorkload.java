import java.util.ArrayList;
import java.util.List;

/**
 * Deterministic programs for the bridge's end-to-end tests; the first argument picks one.
 * Each prints what it did, so a test can compare the output with and without the agent.
 */
public class BridgeWorkload {
    static int depthSum;

    /** Recursion of a known shape: recurse(n) makes n + 1 calls. */
    static int recurse(int n) {
        return n == 0 ? 0 : 1 + recurse(n - 1);
    }

    /** Throws at the bottom of a known depth; the exception unwinds three frames. */
    static void thrower(int n) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        thrower(n - 1);
    }

    static void catcher() {
        try {
            thrower(2);
        } catch (IllegalStateException e) {
            depthSum++;
        }
    }

    /** Each thread ends only once all have recursed: none ends early, so each keeps a ThreadID of its own
     * (an ended thread's may be reused, as the API allows). */
    static void recursion(int threads, int depth) throws InterruptedException {
        List<Thread> all = new ArrayList<>();
        java.util.concurrent.CountDownLatch recursed = new java.util.concurrent.CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < 10; i++) {
                    recurse(depth);
                }
                recursed.countDown();
                try {
                    recursed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "worker-" + t);
            all.add(th);
            th.start();
        }
        for (Thread th : all) {
            th.join();
        }
        System.out.println("recursion done: " + threads + " threads");
    }

    static void classes() {
        try {
            Class.forName("jevmon.test.NoSuchClass");
        } catch (ClassNotFoundException e) {
            System.out.println("missing class not found");
        }
        System.out.println("loaded " + new LoadedLater().toString());
    }

    static class LoadedLater {
        @Override
        public String toString() {
            return "LoadedLater";
        }
    }

    /** Defines a copy of Unloadable in a loader of its own, then lets loader and class die. */
    static void unload() throws Exception {
        byte[] bytes;
        try (java.io.InputStream in = BridgeWorkload.class.getResourceAsStream("BridgeWorkload$Unloadable.class")) {
            bytes = in.readAllBytes();
        }
        ClassLoader loader = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) {
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        Class<?> copy = Class.forName("BridgeWorkload$Unloadable", true, loader);
        System.out.println("defined " + copy.getName());
        copy = null;
        loader = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
        }
        System.out.println("unload done");
        long before = ThreadWakeUps.of("jevmon unloads"), started = System.nanoTime();
        Thread.sleep(1000);
        System.out.println(ThreadWakeUps.since("jevmon unloads", before, started));
    }

    static class Unloadable {
    }

    /**
     * Deep recursion with JDK frames between: deep(n) calls deep(n - 1) directly when n is odd
     * and through String.valueOf and Step.toString when it is even; the bottom throws when asked.
     * A class of its own, so that a test can enable its methods alone.
     */
    static final class Deep {
        static String deep(int n, boolean bottomThrows) {
            if (n == 0) {
                if (bottomThrows) {
                    throw new IllegalStateException("bottom");
                }
                return "";
            }
            return n % 2 == 0 ? String.valueOf(new Step(n - 1, bottomThrows)) : deep(n - 1, bottomThrows);
        }

        static final class Step {
            private final int n;
            private final boolean bottomThrows;

            Step(int n, boolean bottomThrows) {
                this.n = n;
                this.bottomThrows = bottomThrows;
            }

            @Override
            public String toString() {
                return n < 0 ? "warm" : deep(n, bottomThrows);
            }
        }
    }

    /** Deep.deep(depth) runs times, returning and unwound, after its JDK and Step frames ran outside it. */
    static void deepRuns(int runs, int depth) {
        String warm = String.valueOf(new Deep.Step(-1, false));
        int caught = 0;
        for (int i = 0; i < runs; i++) {
            Deep.deep(depth, false);
            try {
                Deep.deep(depth, true);
            } catch (IllegalStateException e) {
                caught++;
            }
        }
        System.out.println("deep done, caught " + caught + " " + warm);
    }

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    /** Twelve bytecodes on three lines, stepped through by the single-step test. */
    static int stepped(int a) {
        int b = a + 1; // step line 1
        int c = b * 2;
        return c - a;
    }

    static void markerOff() {
    }

    static class MarkerOn extends RuntimeException {
    }

    /** recurse() runs 3 + 6 + 4 frames; a monitor that toggles method calls sees the first and last batch. */
    static void toggle() {
        recurse(2);
        markerOff();
        recurse(5);
        try {
            throw new MarkerOn();
        } catch (MarkerOn e) {
            recurse(3);
        }
        System.out.println("toggle done");
    }

    /** A thread renamed by main while it runs, then main renames itself. */
    static void threads() throws InterruptedException {
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch renamed = new java.util.concurrent.CountDownLatch(1);
        Thread t = new Thread(() -> {
            running.countDown();
            try {
                renamed.await();
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("in " + Thread.currentThread().getName());
        }, "named-thread");
        t.start();
        running.await();
        t.setName("renamed-thread");
        renamed.countDown();
        t.join();
        Thread.currentThread().setName("renamed-main");
        System.out.println("threads done");
    }

    /** Entered by a daemon thread while main returns (a test monitor takes long in its MethodEntry). */
    static void slowCall() {
    }

    /** main returns while a daemon thread is inside slowCall's MethodEntry callback. */
    static void slowAtExit() throws InterruptedException {
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        Thread daemon = new Thread(() -> {
            started.countDown();
            slowCall();
        }, "slow-daemon");
        daemon.setDaemon(true);
        daemon.start();
        started.await();
        Thread.sleep(500);
        System.out.println("main returns");
    }

    /** n short platform threads, 100 at a time, each a few calls deep. */
    static void churn(int n) throws Exception {
        for (int started = 0; started < n; started += 100) {
            Thread[] batch = new Thread[100];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = new Thread(() -> recurse(20));
                batch[i].start();
            }
            for (Thread t : batch)
                t.join();
        }
    }

    static long hot(long x) {
        return x * 31 + (x >>> 7);
    }

    static void jit() {
        long acc = 0;
        for (int i = 0; i < 2_000_000; i++) {
            acc = hot(acc + i);
        }
        System.out.println("jit done " + (acc != 42));
    }

    static void stack() {
        stackLevel(3);
    }

    static void stackLevel(int n) {
        if (n > 0) {
            stackLevel(n - 1);
            return;
        }
        StringBuilder sb = new StringBuilder("java stack:");
        for (StackTraceElement e : Thread.currentThread().getStackTrace()) {
            sb.append(' ').append(e.getClassName()).append('.').append(e.getMethodName());
        }
        System.out.println(sb);
        traceHere();
    }

    /** The test monitor takes a stack trace when this method is entered. */
    static void traceHere() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "recursion":
                recursion(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
                break;
            case "exceptions":
                catcher();
                System.out.println("caught " + depthSum);
                break;
            case "classes":
                classes();
                break;
            case "null-name":
                try {
                    Thread.currentThread().setName(null); /* throws in setName, past its injected handler */
                } catch (NullPointerException e) {
                    System.out.println("null name refused");
                }
                break;
            case "step":
                System.out.println("stepped " + stepped(5));
                break;
            case "deep":
                deepRuns(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
                break;
            case "fib":
                System.out.println("fib " + fib(Integer.parseInt(args[1])));
                break;
            case "toggle":
                toggle();
                break;
            case "unload":
                unload();
                break;
            case "gc":
                System.gc();
                System.out.println("gc done");
                break;
            case "jit":
                jit();
                break;
            case "stack":
                stack();
                break;
            case "threads":
                threads();
                break;
            case "slow-exit":
                slowAtExit();
                break;
            case "churn":
                churn(Integer.parseInt(args[1]));
                break;
            default:
                System.out.println("unknown mode " + args[0]);
                System.exit(2);
        }
    }
}

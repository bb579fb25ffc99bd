/**
 * The program the samples' end-to-end tests profile (tests/sdk/test_samples.c): it loads
 * a class of its own, runs a named thread, throws and catches an exception, asks for a
 * garbage collection and makes a known number of recursive calls, and prints what it did,
 * so a test can compare the output with and without the agent.
 *
 * Usage: SampleWorkload [n, default 15] [threads]: with threads, fib(n) also runs once in
 * each of that many threads, and Unloadable.run is called UNLOADABLE_RUNS times in a copy
 * of the class that is then unloaded.
 */
public class SampleWorkload {
    /** fib(n) calls itself: fib(n) makes 2 * F(n + 1) - 1 calls of fib in all. */
    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    /** Loaded on first use, after the monitors are up. */
    static class LoadedByWorkload {
        String greet() {
            return "hello from LoadedByWorkload";
        }
    }

    static final int UNLOADABLE_RUNS = 100;

    /** Defined again in a loader of its own, called, and unloaded. */
    public static class Unloadable implements Runnable {
        @Override
        public void run() {
        }
    }

    static void fibInThreads(int n, int threads) throws InterruptedException {
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            all[t] = new Thread(() -> fib(n), "fib-" + t);
            all[t].start();
        }
        for (Thread t : all) {
            t.join();
        }
        System.out.println("fib(" + n + ") in " + threads + " threads");
    }

    static void unloadable() throws Exception {
        byte[] bytes;
        try (java.io.InputStream in = SampleWorkload.class.getResourceAsStream("SampleWorkload$Unloadable.class")) {
            bytes = in.readAllBytes();
        }
        ClassLoader loader = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) {
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        Runnable copy = (Runnable) Class.forName("SampleWorkload$Unloadable", true, loader)
                .getDeclaredConstructor().newInstance();
        for (int i = 0; i < UNLOADABLE_RUNS; i++) {
            copy.run();
        }
        copy = null;
        loader = null;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
        }
        System.out.println("unloadable ran " + UNLOADABLE_RUNS + " times");
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        System.out.println("fib(" + n + ") = " + fib(n));
        if (args.length > 1) {
            fibInThreads(n, Integer.parseInt(args[1]));
            unloadable();
        }

        System.out.println(new LoadedByWorkload().greet());

        Thread worker = new Thread(() -> System.out.println("in " + Thread.currentThread().getName()),
                "sample-worker");
        worker.start();
        worker.join();

        try {
            throw new IllegalStateException("thrown on purpose");
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage());
        }

        System.gc();
        System.out.println("done");
    }
}

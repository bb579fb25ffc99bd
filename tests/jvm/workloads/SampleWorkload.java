/**
 * The program the samples' end-to-end tests profile (tests/jvm/test_samples.c): it loads
 * a class of its own, runs a named thread, throws and catches an exception, asks for a
 * garbage collection and makes a known number of recursive calls, and prints what it did,
 * so a test can compare the output with and without the agent.
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

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        System.out.println("fib(" + n + ") = " + fib(n));

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

/**
 * A busy program to attach to (tests/monitor/test_jevprof_cli.c): prints "ready", then until a line
 * "quit" on standard input (or its end, or the number of seconds of its argument, 120 by
 * default) keeps one thread computing in busyHot and allocating BusyWorkload$Cell objects, and prints
 * "alive N" for every "ping N" line, so that a test can tell the program still runs.
 */
public class BusyWorkload {
    static final class Cell {
        long value;

        Cell(long value) {
            this.value = value;
        }
    }

    static final Object[] ring = new Object[1024];
    static volatile boolean quit;

    static long busyHot(long seed) {
        long x = seed;
        for (int i = 0; i < 2000; i++)
            x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static void busyAllocate(int i) {
        ring[i & (ring.length - 1)] = new Cell(i);
    }

    public static void main(String[] args) throws Exception {
        long limit = System.nanoTime() + (args.length > 0 ? Long.parseLong(args[0]) : 120) * 1_000_000_000L;
        Thread worker = new Thread(() -> {
            long sum = 0;
            for (int i = 0; !quit && System.nanoTime() < limit; i++) {
                sum += busyHot(i);
                busyAllocate(i);
            }
            System.out.println("worked " + (sum & 1));
        }, "busy-worker");
        worker.start();
        System.out.println("ready");
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null && !line.equals("quit");)
            if (line.startsWith("ping "))
                System.out.println("alive " + line.substring(5).trim());
        quit = true;
        worker.join();
    }
}

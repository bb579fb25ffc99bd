package jevmon;

/**
 * The bridge instrumented classes call in the class-file JVM tests: counts entries and
 * exits per method id.  Uses nothing but array accesses, so calling it from any
 * instrumented JDK method cannot recurse, and its initializer calls nothing, so it may
 * run at any point of VM startup.  Every method starts disabled; enableAll() turns all on.
 */
public final class Bridge {
    private static final int SIZE = 1 << 20;
    public static final byte[] on = new byte[SIZE];
    public static final long[] enters = new long[SIZE];
    public static final long[] exits = new long[SIZE];

    private Bridge() {
    }

    public static void enableAll() {
        for (int i = 0; i < SIZE; i++)
            on[i] = 1;
    }

    public static void enter(int id) {
        enters[id]++;
    }

    public static void exit(int id) {
        exits[id]++;
    }

    /** A method left by an exception: an exit too.  The handler calls it without testing the
     *  flag (as the agent's bridge does), so it tests the flag itself. */
    public static void unwind(int id) {
        if (on[id] != 0)
            exits[id]++;
    }
}

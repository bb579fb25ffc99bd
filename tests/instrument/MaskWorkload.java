import java.net.URL;
import java.net.URLClassLoader;

/**
 * The rounds of tests/instrument/fx_maskflip.c (test_mask_changes.c): each case on a thread of its
 * own, which sets the case's mask (begin), goes twice through every activity that makes a
 * category's events (calls of MaskWorkload$Target.maskTarget, which throws, unwinds a frame and
 * catches; a class loaded afresh; a thread started and joined; a collection; a loop the JIT
 * compiles), marking the second pass (second) and repeating it while the monitor has not had what
 * the case turned on (satisfied: only a collection's change may take more than one), and puts the
 * base mask back (end).  After joining
 * it, main asks the monitor to log the case's result (verify).
 * Arguments: the fixture's library (System.load), then optionally the first and last case.
 */
public class MaskWorkload {
    static native int cases();
    static native boolean begin(int k);
    static native void second(int k);
    static native boolean satisfied(int k);
    static native void end(int k);
    static native void verify(int k);

    public static class Target {
        static int caught;

        static void thrower(int k) {
            throw new IllegalStateException("round " + k);
        }

        static void middle(int k) {
            thrower(k);
        }

        public static int maskTarget(int k) {
            try {
                middle(k);
            } catch (IllegalStateException e) {
                caught++;
            }
            return caught;
        }

        public static void touch() {
        }
    }

    /** Loaded afresh each pass, so its loop is compiled afresh (JIT_COMPILE_FINISHED). */
    public static class Loaded {
        public static long hot(int k) {
            long x = k;
            for (int i = 0; i < 300_000; i++)
                x = x * 31 + (i ^ k);
            return x;
        }
    }

    static volatile long sink;

    static long spin(int k) {
        long x = k;
        for (int i = 0; i < 20_000; i++)
            x = x * 31 + (i ^ k);
        return x;
    }

    static void activities(int k, URL[] path) throws Exception {
        for (int i = 0; i < 3; i++)
            Target.maskTarget(k);
        try (URLClassLoader loader = new URLClassLoader(path, null)) {
            Class<?> loaded = Class.forName("MaskWorkload$Loaded", true, loader); /* prepared: CLASS_LOAD_FINISHED */
            sink += (Long) loaded.getMethod("hot", int.class).invoke(null, k);
        }
        Thread child = new Thread(() -> sink += spin(k));
        child.start();
        child.join();
        System.gc();
        for (int i = 0; i < 50; i++)
            sink += spin(k + i);
    }

    static void round(int k, URL[] path) {
        if (!begin(k))
            return;
        try {
            activities(k, path);
            second(k);
            for (int passes = 1; passes < 50; passes++) { /* one must do, except after a collection */
                activities(k, path);
                if (satisfied(k))
                    break;
            }
        } catch (Exception e) {
            System.out.println("round " + k + ": " + e);
        } finally {
            end(k);
        }
    }

    public static void main(String[] args) throws Exception {
        System.load(args[0]);
        Target.touch();
        URL[] path = {MaskWorkload.class.getProtectionDomain().getCodeSource().getLocation()};
        int first = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        int last = args.length > 2 ? Integer.parseInt(args[2]) : cases() - 1;
        for (int k = first; k <= last; k++) {
            final int n = k;
            Thread t = new Thread(() -> round(n, path), "round-" + k);
            t.start();
            t.join();
            verify(k);
        }
        System.out.println("done " + first + ".." + last);
    }
}

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads and links every class named in the file given as first argument (dotted names,
 * one a line) from the boot class loader, without initializing it, and prints one line
 * per class that fails and a summary.  Class.forName(name, false, null) only loads;
 * getDeclaredFields() makes HotSpot link the class (JVM_GetClassDeclaredFields calls
 * link_class), and linking runs the verifier on boot classes when -Xverify:all is on.
 *
 * With "count" as second argument every instrumented method is enabled first through
 * jevmon.Bridge (patched into java.base), and the entry and exit totals are printed.
 */
public class VerifyAll {
    public static void main(String[] args) throws Exception {
        boolean count = args.length > 1 && args[1].equals("count");
        Class<?> bridge = count ? Class.forName("jevmon.Bridge") : null;
        if (count)
            bridge.getMethod("enableAll").invoke(null);
        int linked = 0, failed = 0;
        for (String name : Files.readAllLines(Path.of(args[0]))) {
            try {
                Class.forName(name, false, null).getDeclaredFields();
                linked++;
            } catch (Throwable t) {
                failed++;
                System.out.println("FAIL " + name + ": " + t);
            }
        }
        System.out.println("linked " + linked + " failed " + failed);
        if (count)
            System.out.println("enters " + sum((long[]) bridge.getField("enters").get(null)) + " exits "
                    + sum((long[]) bridge.getField("exits").get(null)));
    }

    private static long sum(long[] counts) {
        long total = 0;
        for (long c : counts)
            total += c;
        return total;
    }
}

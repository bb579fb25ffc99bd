/**
 * Input of test_classfile.c (compiled with javac --release 17 -g into Jumps.class, which is
 * committed so the Windows build needs no JDK): loops, both switch forms, try/catch/
 * finally, synchronized, long and double values, a constructor that computes its
 * super() argument with a branch and a new, and returns of every kind.
 */
public class Jumps extends Number {
    private final long value;

    public Jumps(int x) {
        super();
        value = x;
    }

    public Jumps(Object o, int x) {
        this(x > 0 ? new Integer(x).intValue() : -x);
    }

    static int loop(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            if (i % 3 == 0)
                continue;
            sum += i;
        }
        return sum;
    }

    static int table(int k) {
        switch (k) {
        case 0: return 10;
        case 1: return 11;
        case 2: return 12;
        default: return -1;
        }
    }

    static String lookup(int k) {
        switch (k) {
        case -100: return "a";
        case 7: return "b";
        case 100000: return "c";
        default: return null;
        }
    }

    static double guarded(double d) {
        try {
            if (d < 0)
                throw new IllegalArgumentException();
            return Math.sqrt(d);
        } catch (IllegalArgumentException e) {
            return -1;
        } finally {
            d = 0;
        }
    }

    synchronized float locked(float f) {
        return f * 2;
    }

    static void nothing() {
    }

    native void outside();

    @Override public int intValue() { return (int) value; }
    @Override public long longValue() { return value; }
    @Override public float floatValue() { return value; }
    @Override public double doubleValue() { return value; }
}

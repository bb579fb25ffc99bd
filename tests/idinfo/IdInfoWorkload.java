import java.io.PrintStream;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Objects with known contents for the IDInfo end-to-end suite (tests/idinfo/test_idinfo.c).
 * Each object is handed to the test monitor (tests/idinfo/fx_idinfo.c) by throwing an
 * {@link Inspect} that carries it: the monitor finds it through EXCEPTION_THROWN and reads
 * it with the IDInfo methods.  For each inspection this program prints, from reflection,
 * the lines the monitor should log, so the test can compare the two views of one run.
 */
public class IdInfoWorkload {
    static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    /** Carries an object to the monitor; mode says what it should do with it. */
    static final class Inspect extends RuntimeException {
        final String mode;
        final Object target;

        Inspect(String mode, Object target) {
            super(null, null, false, false);
            this.mode = mode;
            this.target = target;
        }
    }

    static void inspect(String mode, Object target) {
        try {
            throw new Inspect(mode, target);
        } catch (Inspect e) {
            // the monitor has seen it
        }
    }

    static class Base {
        int baseInt = 7;
        Object baseRef = "base";
    }

    static final class Sample extends Base {
        static int sInt = -5;
        static long sLong = 1L << 40;
        static String sRef = "static-ref";
        static double sDouble = -2.5;
        static Object sNull;

        boolean z = true;
        byte b = -7;
        char c = '\u00e9';
        short s = -300;
        int i = 123456789;
        long j = -1234567890123L;
        float f = 1.5f;
        double d = -0.1;
        String str = "text";
        int[] arr = {1, 2};
        Object nul;
        Sample self = this;

        Sample() {
        }

        long helper(int x, String y) {
            return x + y.length();
        }
    }

    /** A value as the IDInfo methods widen it to 64 bits; a reference as its class name. */
    static String widened(Object v) {
        if (v == null) {
            return "null";
        } else if (v instanceof Boolean) {
            return (Boolean) v ? "1" : "0";
        } else if (v instanceof Character) {
            return Long.toString((Character) v);
        } else if (v instanceof Float) {
            return Long.toString(Float.floatToRawIntBits((Float) v) & 0xffffffffL);
        } else if (v instanceof Double) {
            return Long.toString(Double.doubleToRawLongBits((Double) v));
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
            return Long.toString(((Number) v).longValue());
        }
        return v.getClass().getName();
    }

    /** The name MethodInformation gives: class with slashes, a dot, name and descriptor. */
    static String methodName(Executable m) {
        Class<?> ret = m instanceof Method ? ((Method) m).getReturnType() : void.class;
        String name = m instanceof Method ? m.getName() : "<init>";
        return m.getDeclaringClass().getName().replace('.', '/') + "." + name
                + MethodType.methodType(ret, m.getParameterTypes()).toMethodDescriptorString();
    }

    static void printFields(Class<?> k, Object obj) throws Exception {
        out.println("fields of " + k.getName());
        for (Field f : k.getDeclaredFields()) {
            f.setAccessible(true);
            boolean isStatic = Modifier.isStatic(f.getModifiers());
            Object v = isStatic ? f.get(null) : f.get(obj);
            String value = f.getType().isPrimitive() ? widened(v) : v == null ? "null" : v.getClass().getName();
            out.println("fields " + f.getName() + " static=" + (isStatic ? 1 : 0) + " ref="
                    + (f.getType().isPrimitive() ? 0 : 1) + " value=" + value);
        }
    }

    static void fields() throws Exception {
        Sample sample = new Sample();
        out.println("fields class " + sample.getClass().getName());
        List<String> methods = new ArrayList<>();
        for (Method m : Sample.class.getDeclaredMethods()) {
            methods.add(methodName(m));
        }
        for (Constructor<?> c : Sample.class.getDeclaredConstructors()) {
            methods.add(methodName(c));
        }
        methods.add("IdInfoWorkload$Sample.<clinit>()V");
        Collections.sort(methods);
        for (String m : methods) {
            out.println("fields method " + m);
        }
        printFields(Sample.class, sample);
        printFields(Base.class, sample);
        inspect("fields", sample);
    }

    static void arrays() {
        Object[] arrays = {
            new boolean[] {true, false}, new byte[] {-1, 2, Byte.MIN_VALUE}, new char[] {'a', '\uffff'},
            new short[] {-2, Short.MAX_VALUE}, new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0},
            new long[] {Long.MIN_VALUE, Long.MAX_VALUE}, new float[] {-0.0f, Float.NaN, 3.25f},
            new double[] {1e300, -0.0}, new String[] {"x", null}, new int[][] {{1}}, new Object[0],
        };
        for (Object a : arrays) {
            StringBuilder line = new StringBuilder("array " + a.getClass().getName());
            int n = java.lang.reflect.Array.getLength(a);
            for (int k = 0; k < n; k++) {
                Object v = java.lang.reflect.Array.get(a, k);
                line.append(' ').append(a.getClass().getComponentType().isPrimitive() ? widened(v)
                        : v == null ? "null" : v.getClass().getName());
            }
            out.println(line);
        }
        inspect("arrays", arrays);
    }

    static void describe() throws Exception {
        Method helper = Sample.class.getDeclaredMethod("helper", int.class, String.class);
        Constructor<Sample> constructor = Sample.class.getDeclaredConstructor();
        Field field = Sample.class.getDeclaredField("j");
        Object[] objects = {
            "plain ascii", "h\u00e9llo w\u00f6rld \u2713 \uD83D\uDE00", new StringBuilder("builder \u00e9"),
            new StringBuffer("buffer \u2713"), String.class, int[].class, Sample.class, helper, constructor,
            field, new Object(), 42, "",
        };
        String[] expected = {
            "plain ascii", "h\u00e9llo w\u00f6rld \u2713 \uD83D\uDE00", "builder \u00e9", "buffer \u2713",
            "java.lang.String", "[I", "IdInfoWorkload$Sample", methodName(helper), methodName(constructor),
            "IdInfoWorkload$Sample.j:" + field.getType().descriptorString(), null, null, "",
        };
        for (int k = 0; k < objects.length; k++) {
            out.println("describe " + k + (expected[k] == null ? " failed" : " text=" + expected[k]));
        }
        out.println("classpath " + System.getProperty("java.class.path"));
        inspect("describe", objects);
    }

    static Object kept;

    static void handles() throws InterruptedException {
        kept = new String("kept-object");
        Object dropped = new String("dropped-object");
        WeakReference<Object> weak = new WeakReference<>(dropped);
        inspect("handles-make", new Object[] {kept, dropped, null});
        dropped = null;
        for (int k = 0; k < 50 && weak.get() != null; k++) {
            System.gc();
            Thread.sleep(10);
        }
        out.println("handles dropped collected=" + (weak.get() == null));
        inspect("handles-check", kept);
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static void waitFor(Thread t, Thread.State state) throws InterruptedException {
        while (t.getState() != state) {
            Thread.sleep(1);
        }
    }

    static boolean notified; // guarded by the lock of monitors()

    /** A lock entered twice by one thread, with one thread blocked entering it and one in wait(). */
    static void monitors() throws InterruptedException {
        Object lock = new Object();
        CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            synchronized (lock) {
                while (!notified) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "monitor-waiter");
        waiter.start();
        waitFor(waiter, Thread.State.WAITING);
        Thread holder = new Thread(() -> {
            synchronized (lock) {
                synchronized (lock) {
                    inspect("monitor-holder", lock);
                    held.countDown();
                    await(release);
                }
            }
        }, "monitor-holder");
        holder.start();
        held.await();
        Thread blocker = new Thread(() -> {
            synchronized (lock) {
                // entering is all it does
            }
        }, "monitor-blocker");
        blocker.start();
        waitFor(blocker, Thread.State.BLOCKED);
        inspect("monitor", lock);
        inspect("monitor-free", new Object());
        release.countDown();
        holder.join();
        synchronized (lock) {
            notified = true;
            lock.notifyAll();
        }
        waiter.join();
        blocker.join();
        out.println("monitors done");
    }

    public static void main(String[] args) throws Exception {
        fields();
        arrays();
        describe();
        handles();
        monitors();
        inspect("invalid", new Sample());
        out.println("done");
    }
}

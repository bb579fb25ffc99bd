package jevmon.test;

import java.io.InputStream;
import java.lang.ref.WeakReference;

/**
 * Programs for the answers the spec fixes, in a package so that class names
 * have a class-file form that differs from the dotted one; the first argument picks one.
 *   gone        Class.forName of SpecWorkload$Gone, then new Gone(): two failed loads (the build
 *               deletes SpecWorkload$Gone.class after compiling)
 *   covariant   10 calls of Sup.get through Base: each call goes through the bridge
 *               Sup.get()Object to Sup.get()String
 *   delegated   a loader under the platform loader that defines a copy of SpecWorkload$Unloadable
 *               (its parent fails first: no failed load) and fails for jevmon.test.Missing (its
 *               parent fails first: one failed load)
 *   unload      a copy of SpecWorkload$Unloadable in a loader of its own, run (1000 calls of its
 *               tick), then loader and class dropped and collected until the class is gone
 */
public class SpecWorkload {
    static class Gone {
    }

    static void gone() {
        try {
            Class.forName("jevmon.test.SpecWorkload$Gone");
        } catch (ClassNotFoundException e) {
            System.out.println("forName: " + e.getMessage());
        }
        try {
            new Gone();
        } catch (NoClassDefFoundError e) {
            System.out.println("new: " + e.getMessage());
        }
    }

    static class Base<T> {
        T get() {
            return null;
        }
    }

    /** Its get() returns String: javac adds the bridge get()Object, which calls it. */
    static class Sup extends Base<String> {
        int n;

        @Override
        String get() {
            return "v" + n++;
        }
    }

    static void covariant() {
        Base<String> base = new Sup();
        String last = null;
        for (int i = 0; i < 10; i++)
            last = base.get();
        System.out.println("covariant " + last);
    }

    public static class Unloadable implements Runnable {
        long sum;

        /* Some work a call (about 20 us), so that its 1000 calls rank far up the report's table by
         * total time (test_jevprof), above the thousand JDK methods of a few microseconds. */
        void tick(int i) {
            long x = i;
            for (int k = 0; k < 20_000; k++)
                x = x * 31 + k;
            sum += x;
        }

        @Override
        public void run() {
            for (int i = 0; i < 1000; i++)
                tick(i);
        }
    }

    /** A loader under parent that defines a copy of Unloadable and nothing else. */
    static ClassLoader unloadableLoader(ClassLoader parent) throws Exception {
        byte[] bytes;
        try (InputStream in = SpecWorkload.class.getResourceAsStream("SpecWorkload$Unloadable.class")) {
            bytes = in.readAllBytes();
        }
        return new ClassLoader(parent) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals("jevmon.test.SpecWorkload$Unloadable"))
                    throw new ClassNotFoundException(name);
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
    }

    static void delegated() throws Exception {
        ClassLoader loader = unloadableLoader(ClassLoader.getPlatformClassLoader());
        System.out.println("defined " + Class.forName("jevmon.test.SpecWorkload$Unloadable", false, loader).getName());
        try {
            Class.forName("jevmon.test.Missing", false, loader);
        } catch (ClassNotFoundException e) {
            System.out.println("missing: " + e.getMessage());
        }
    }

    static void unload() throws Exception {
        ClassLoader loader = unloadableLoader(null);
        Class<?> copy = Class.forName("jevmon.test.SpecWorkload$Unloadable", true, loader);
        ((Runnable) copy.getDeclaredConstructor().newInstance()).run();
        WeakReference<Class<?>> gone = new WeakReference<>(copy);
        copy = null;
        loader = null;
        for (int i = 0; i < 50 && gone.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        Thread.sleep(300); /* the bridge reports unloads from a thread of its own, shortly after */
        System.out.println(gone.get() == null ? "unloaded" : "still loaded");
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "gone":
                gone();
                break;
            case "covariant":
                covariant();
                break;
            case "delegated":
                delegated();
                break;
            case "unload":
                unload();
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}

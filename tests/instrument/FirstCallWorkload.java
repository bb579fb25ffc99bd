import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.function.IntUnaryOperator;

/*
 * First calls into a class just loaded, on many threads at once, for tests/instrument/test_first_calls.c.
 *
 *   ROUNDS THREADS METHODS   THREADS platform threads, released together by a barrier in each of
 *                            ROUNDS rounds, call the round's Caller.applyAsInt -> Target.all ->
 *                            Target.m0 .. m<METHODS-1>.  Each round's Caller and Target are defined
 *                            by a fresh class loader (Caller from its own class file, Target
 *                            generated: METHODS static methods with line tables), so every round
 *                            is the first call of every Target method, and the agent registers
 *                            Target (every method's name, modifiers, line table) while the other
 *                            threads make their first calls into it.
 * Entries of round(): THREADS * ROUNDS.  Prints "sum <n>" and "done" at the end.
 */
public class FirstCallWorkload {
    static final String CALLER = "FirstCallWorkload$Caller", TARGET = "FirstCallWorkload$Target";
    static byte[] callerBytes, targetBytes;
    static IntUnaryOperator[] callers;
    static CyclicBarrier barrier;
    static long sum;

    /* The stub Caller is compiled against; each round's Target is generated (targetClass). */
    public static class Target {
        public static int all(int x) {
            return x;
        }
    }

    public static class Caller implements IntUnaryOperator {
        public int applyAsInt(int x) {
            return Target.all(x);
        }
    }

    /* Defines Caller and Target itself, everything else from its parent. */
    static final class Fresh extends ClassLoader {
        Fresh() {
            super(FirstCallWorkload.class.getClassLoader());
        }

        @Override
        protected synchronized Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            byte[] bytes = name.equals(CALLER) ? callerBytes : name.equals(TARGET) ? targetBytes : null;
            if (bytes == null)
                return super.loadClass(name, resolve);
            Class<?> c = findLoadedClass(name);
            return c != null ? c : defineClass(name, bytes, 0, bytes.length);
        }
    }

    /* A constant pool being written. */
    static final class Pool {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream out = new DataOutputStream(bytes);
        final Map<String, Integer> known = new LinkedHashMap<>();
        int count = 1;

        int entry(String key, int tag, int a, int b, String text) throws IOException {
            Integer index = known.get(key);
            if (index != null)
                return index;
            out.writeByte(tag);
            if (text != null)
                out.writeUTF(text);
            else {
                out.writeShort(a);
                if (b >= 0)
                    out.writeShort(b);
            }
            known.put(key, count);
            return count++;
        }

        int utf8(String s) throws IOException {
            return entry("U" + s, 1, 0, -1, s);
        }

        int cls(String name) throws IOException {
            return entry("C" + name, 7, utf8(name), -1, null);
        }

        int method(String owner, String name, String descriptor) throws IOException {
            int c = cls(owner), nat = entry("N" + name + descriptor, 12, utf8(name), utf8(descriptor), null);
            return entry("M" + owner + "." + name + descriptor, 10, c, nat, null);
        }
    }

    /* A Code attribute: code, max_stack, max_locals 1, a line table of (pc, line) pairs. */
    static void code(Pool pool, DataOutputStream out, byte[] code, int maxStack, int[] lines) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        DataOutputStream b = new DataOutputStream(body);
        b.writeShort(maxStack);
        b.writeShort(1);
        b.writeInt(code.length);
        b.write(code);
        b.writeShort(0); /* no exception table */
        b.writeShort(1);
        b.writeShort(pool.utf8("LineNumberTable"));
        b.writeInt(2 + 2 * lines.length);
        b.writeShort(lines.length / 2);
        for (int line : lines)
            b.writeShort(line);
        out.writeShort(1);
        out.writeShort(pool.utf8("Code"));
        out.writeInt(body.size());
        body.writeTo(out);
    }

    /* public class Target { public static int m<i>(int x) { return x + i; } ...
     *                       public static int all(int x) { return m<n-1>(...m1(m0(x))); } } */
    static byte[] targetClass(int methods) throws IOException {
        Pool pool = new Pool();
        ByteArrayOutputStream methodBytes = new ByteArrayOutputStream();
        DataOutputStream m = new DataOutputStream(methodBytes);
        int descriptor = pool.utf8("(I)I");
        for (int i = 0; i < methods; i++) {
            m.writeShort(0x0009); /* public static */
            m.writeShort(pool.utf8("m" + i));
            m.writeShort(descriptor);
            byte[] body = {0x1a /* iload_0 */, 0x11 /* sipush */, (byte) (i >> 8), (byte) i, 0x60 /* iadd */,
                           (byte) 0xac /* ireturn */};
            code(pool, m, body, 2, new int[] {0, 10 + i, 1, 11 + i});
        }
        ByteArrayOutputStream allCode = new ByteArrayOutputStream();
        int[] lines = new int[2 * methods];
        allCode.write(0x1a); /* iload_0 */
        for (int i = 0; i < methods; i++) {
            int ref = pool.method(TARGET, "m" + i, "(I)I");
            lines[2 * i] = allCode.size();
            lines[2 * i + 1] = 10000 + i;
            allCode.write(0xb8); /* invokestatic */
            allCode.write(ref >> 8);
            allCode.write(ref);
        }
        allCode.write(0xac); /* ireturn */
        m.writeShort(0x0009);
        m.writeShort(pool.utf8("all"));
        m.writeShort(descriptor);
        code(pool, m, allCode.toByteArray(), 1, lines);

        int thisClass = pool.cls(TARGET), superClass = pool.cls("java/lang/Object");
        int sourceFileName = pool.utf8("SourceFile"), sourceFile = pool.utf8("FirstCallTarget.java");
        ByteArrayOutputStream classBytes = new ByteArrayOutputStream();
        DataOutputStream c = new DataOutputStream(classBytes);
        c.writeInt(0xcafebabe);
        c.writeShort(0);
        c.writeShort(52); /* Java 8: no branches, so no StackMapTable */
        c.writeShort(pool.count);
        pool.bytes.writeTo(c);
        c.writeShort(0x0021); /* public super */
        c.writeShort(thisClass);
        c.writeShort(superClass);
        c.writeShort(0); /* interfaces */
        c.writeShort(0); /* fields */
        c.writeShort(methods + 1);
        methodBytes.writeTo(c);
        c.writeShort(1);
        c.writeShort(sourceFileName);
        c.writeInt(2);
        c.writeShort(sourceFile);
        return classBytes.toByteArray();
    }

    static final class Worker extends Thread {
        final int id;
        long total;

        Worker(int id) {
            super("first-call-" + id);
            this.id = id;
        }

        @Override
        public void run() {
            for (int r = 0; r < callers.length; r++)
                total += round(r, id);
        }
    }

    /* All threads wait, then call this round's Caller, whose Target is not loaded yet. */
    static int round(int r, int id) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return callers[r].applyAsInt(id);
    }

    public static void main(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]), threads = Integer.parseInt(args[1]), methods = Integer.parseInt(args[2]);
        try (InputStream in = FirstCallWorkload.class.getResourceAsStream(CALLER + ".class")) {
            callerBytes = in.readAllBytes();
        }
        targetBytes = targetClass(methods);
        /* Caller loaded, created (and registered) up front; its Target is loaded by its first call. */
        callers = new IntUnaryOperator[rounds];
        for (int r = 0; r < rounds; r++)
            callers[r] = (IntUnaryOperator) new Fresh().loadClass(CALLER).getConstructor().newInstance();
        barrier = new CyclicBarrier(threads);
        Worker[] workers = new Worker[threads];
        for (int i = 0; i < threads; i++)
            (workers[i] = new Worker(i)).start();
        for (Worker w : workers) {
            w.join();
            sum += w.total;
        }
        System.out.println("sum " + sum);
        System.out.println("done");
    }
}

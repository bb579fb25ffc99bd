import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.FileReader;
import java.io.IOException;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Programs for the heap monitor's end-to-end tests; the first argument picks one.
 *   alloc N       allocates N HeapWorkload$Counted objects (each escapes into a ring)
 *   reflect N     allocates N one-element HeapWorkload$Counted[] arrays through reflection (made by the VM)
 *   list          a 1000-node list in a static field, an Aged and a Finalizable object, a thread
 *                 holding a Marker array in a local variable, three Branches with null references
 *                 (and an array holding the last between nulls), and three System.gc() calls
 *   stress        eight threads allocating while the main thread collects garbage
 */
public class HeapWorkload {
    static Node head;
    static Aged aged;
    static final Object[] ring = new Object[1024];

    static class Node {
        Node next;
        int value;

        Node(Node next, int value) {
            this.next = next;
            this.value = value;
        }
    }

    static class Counted {
        int value;
    }

    static class Base {
        Object tag;
        int weight;
    }

    /** Reference fields, in a heap dump's order: Base.tag, next, leaf. */
    static class Branch extends Base {
        static Object shared;
        Branch next;
        long n;
        Object leaf;
    }

    static Branch branches;
    static Object[] sparse;

    /** b1 (next b2, leaf a Marker), b2 (tag a String, next b3), b3 (all null); sparse = {null, b3, null}. */
    static void branches() {
        Branch b1 = new Branch(), b2 = new Branch(), b3 = new Branch();
        b1.next = b2;
        b1.leaf = new Marker();
        b2.tag = "tag";
        b2.next = b3;
        branches = b1;
        sparse = new Object[] {null, b3, null};
    }

    static class Aged {
    }

    static class Marker {
    }

    /**
     * Registered for finalization when created (HotSpot ignores an empty finalize(), hence the
     * count); kept reachable, so it waits as long as the program runs.
     */
    static class Finalizable {
        static int finalized;

        @SuppressWarnings({"deprecation", "removal"})
        @Override
        protected void finalize() {
            finalized++;
        }
    }

    static Finalizable finalizable;

    static void alloc(int n) {
        for (int i = 0; i < n; i++) {
            Counted c = new Counted();
            c.value = i;
            ring[i & 1023] = c;
        }
        System.out.println("allocated " + n);
    }

    static void reflect(int n) {
        for (int i = 0; i < n; i++) {
            ring[i & 1023] = java.lang.reflect.Array.newInstance(Counted.class, 1);
        }
        System.out.println("reflected " + n);
    }

    static void holdLocal(CountDownLatch ready, CountDownLatch release) throws InterruptedException {
        Marker[] local = {new Marker(), new Marker()};
        ready.countDown();
        release.await();
        Reference.reachabilityFence(local);
    }

    static void list() throws Exception {
        Node h = null;
        for (int i = 0; i < 1000; i++) {
            h = new Node(h, i);
        }
        head = h;
        aged = new Aged();
        finalizable = new Finalizable();
        branches();
        CountDownLatch ready = new CountDownLatch(1), release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                holdLocal(ready, release);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "holder");
        holder.start();
        ready.await();
        for (int i = 0; i < 3; i++) {
            System.gc();
            awaitDumps(i + 1);
        }
        release.countDown();
        holder.join();
        System.out.println("list of " + count(head) + " nodes");
    }

    /*
     * Waits until the test monitor has logged count finished heap dumps (FXHEAP_DUMP set, its log
     * in FXMON_LOG), at most 20 s, so that the next collection comes after this one's dump: a
     * fixed 600 ms (a dump takes about 250 ms) was too short once on a loaded machine, and the
     * second dump then saw the third collection's age.  With no dump to wait for, 600 ms.
     */
    static void awaitDumps(int count) throws Exception {
        String log = System.getenv("FXMON_LOG"), dump = System.getenv("FXHEAP_DUMP");
        if (log == null || dump == null || dump.isEmpty() || dump.startsWith("0")) {
            Thread.sleep(600);
            return;
        }
        for (int waited = 0; waited < 20000 && dumpsLogged(log) < count; waited += 20) {
            Thread.sleep(20);
        }
    }

    static int dumpsLogged(String log) throws IOException {
        int dumps = 0;
        try (BufferedReader in = new BufferedReader(new FileReader(log))) {
            for (String line; (line = in.readLine()) != null;) {
                if (line.startsWith("dump objects=")) {
                    dumps++;
                }
            }
        } catch (FileNotFoundException e) {
            return 0;
        }
        return dumps;
    }

    static int count(Node n) {
        int c = 0;
        for (; n != null; n = n.next) {
            c++;
        }
        return c;
    }

    static void stress() throws Exception {
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread th = new Thread(() -> alloc(200000), "allocator-" + t);
            all.add(th);
            th.start();
        }
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(50);
        }
        for (Thread th : all) {
            th.join();
        }
        System.out.println("stress done");
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "alloc":
                alloc(Integer.parseInt(args[1]));
                break;
            case "reflect":
                reflect(Integer.parseInt(args[1]));
                break;
            case "list":
                list();
                break;
            case "stress":
                stress();
                break;
            default:
                throw new IllegalArgumentException(args[0]);
        }
    }
}

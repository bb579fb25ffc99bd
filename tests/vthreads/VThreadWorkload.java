import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/*
 * Virtual threads for tests/vthreads/test_vthreads.c.  Compiled with --release 17 like the other
 * workloads: the JDK 21 API (Thread.ofVirtual) is reached by reflection.
 *
 *   calls N     N virtual threads each run vtask -> level(3) -> ... -> level(0), which blocks
 *               one of five ways (i % 5: sleep, park, a contended ReentrantLock, a blocking
 *               queue, a socket read on the loopback), then more calls on the way back; each
 *               renames itself.  Entries: vtask N, level 4N, leaf 7N, block N.  Then three
 *               stack traces (the monitor's "trace" lines, this program's "java-trace" lines):
 *               a virtual thread tracing itself, one parked, one spinning while mounted.
 *   busy N MS   N virtual threads for MS milliseconds, each spending about 90% of its time in
 *               busy() (about 9 ms of arithmetic) and 10% asleep (1 ms).
 *   many N      N short virtual threads, a few hundred calls each, 10000 alive at most, each
 *               joined before the end.
 * Prints "done" at the end.
 */
public class VThreadWorkload {
    static final ReentrantLock lock = new ReentrantLock();
    static final BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(1);
    static int port;
    static final AtomicLong sink = new AtomicLong();
    static volatile boolean stop;
    static volatile boolean spinning;

    static ThreadFactory virtualThreads(String prefix) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
        builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
        return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
    }

    static int leaf(int x) {
        return x * 31 + 7;
    }

    static int onlyWay = -1; /* all threads block the same way (the third argument) */

    static void block(int i) throws Exception {
        switch (onlyWay >= 0 ? onlyWay : i % 5) {
        case 0:
            Thread.sleep(2);
            break;
        case 1:
            LockSupport.parkNanos(2_000_000);
            break;
        case 2:
            lock.lock();
            try {
                Thread.sleep(1);
            } finally {
                lock.unlock();
            }
            break;
        case 3:
            queue.take();
            break;
        default:
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                out.write(i & 0x7f);
                out.flush();
                if (in.read() != (i & 0x7f))
                    throw new IllegalStateException("echo");
            }
        }
    }

    static int level(int i, int d) throws Exception {
        if (d == 0) {
            block(i);
            return leaf(i);
        }
        int x = leaf(d);
        x += level(i, d - 1);
        return x + leaf(x);
    }

    static void vtask(int i) throws Exception {
        Thread.currentThread().setName("vtask-" + i);
        sink.addAndGet(level(i, 3));
    }

    static void echoServer(ServerSocket server) {
        while (true) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> {
                    try (Socket c = s) {
                        int b = c.getInputStream().read();
                        Thread.sleep(1);
                        c.getOutputStream().write(b);
                    } catch (Exception e) {
                    }
                });
                t.setDaemon(true);
                t.start();
            } catch (Exception e) {
                return;
            }
        }
    }

    static void join(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads)
            t.join();
    }

    static void calls(int n) throws Exception {
        ServerSocket server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
        port = server.getLocalPort();
        Thread acceptor = new Thread(() -> echoServer(server));
        acceptor.setDaemon(true);
        acceptor.start();
        int takers = onlyWay == 3 ? n : onlyWay >= 0 ? 0 : (n + 1) / 5;
        Thread producer = new Thread(() -> {
            try {
                for (int k = 0; k < takers; k++) {
                    Thread.sleep(1);
                    queue.put(k);
                }
            } catch (InterruptedException e) {
            }
        });
        producer.start();
        ThreadFactory factory = virtualThreads("vt-");
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int k = i;
            Thread t = factory.newThread(() -> {
                try {
                    vtask(k);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            threads.add(t);
            t.start();
        }
        join(threads);
        producer.join();
        server.close();
        traces(factory);
    }

    /* Frames outermost first, up to the method named last (or all), as "Class.method|...". */
    static String frames(StackTraceElement[] trace, String last) {
        StringBuilder b = new StringBuilder();
        for (int i = trace.length - 1; i >= 0; i--) {
            if (b.length() > 0)
                b.append('|');
            b.append(trace[i].getClassName()).append('.').append(trace[i].getMethodName());
            if (trace[i].getMethodName().equals(last))
                break;
        }
        return b.toString();
    }

    static void traceSelf() {
        System.out.println("java-trace self " + frames(Thread.currentThread().getStackTrace(), "traceSelf"));
    }

    static void traceSelfTarget() {
        traceSelf();
    }

    static void parkHere() {
        LockSupport.park();
    }

    static void parkTarget() {
        parkHere();
    }

    static void traceParked() {
    }

    static void spinHere() {
        spinning = true;
        long x = 0;
        while (!stop)
            x++;
        sink.addAndGet(x);
    }

    static void spinTarget() {
        spinHere();
    }

    static void traceSpinner() {
    }

    static void traces(ThreadFactory factory) throws Exception {
        Thread self = factory.newThread(VThreadWorkload::traceSelfTarget);
        self.start();
        self.join();

        Thread parked = factory.newThread(VThreadWorkload::parkTarget);
        parked.start();
        while (parked.getState() != Thread.State.WAITING)
            Thread.sleep(1);
        traceParked();
        System.out.println("java-trace parked " + frames(parked.getStackTrace(), null));
        LockSupport.unpark(parked);
        parked.join();

        Thread spinner = factory.newThread(VThreadWorkload::spinTarget);
        spinner.start();
        while (!spinning)
            Thread.sleep(1);
        traceSpinner();
        System.out.println("java-trace spinner " + frames(spinner.getStackTrace(), null));
        stop = true;
        spinner.join();
    }

    static long busy() {
        long x = 0, end = System.nanoTime() + 9_000_000;
        while (System.nanoTime() < end)
            for (int k = 0; k < 1000; k++)
                x += k * 31 ^ x;
        return x;
    }

    static void busyLoop(long until) {
        try {
            while (System.currentTimeMillis() < until) {
                sink.addAndGet(busy());
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
        }
    }

    static void busyThreads(int n, long ms) throws Exception {
        ThreadFactory factory = virtualThreads("busy-");
        long until = System.currentTimeMillis() + ms;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = factory.newThread(() -> busyLoop(until));
            threads.add(t);
            t.start();
        }
        join(threads);
    }

    static int shortTask(int i) {
        int x = 0;
        for (int k = 0; k < 100; k++)
            x += leaf(k + i);
        return x;
    }

    /* Each thread is joined, 20000 starts after its own (long over by then) or at the end: a
     * thread's end comes after its task releases its permit, and every end must come before the
     * program's (its monitor counts them). */
    static void many(int n) throws Exception {
        ThreadFactory factory = virtualThreads("short-");
        java.util.concurrent.Semaphore alive = new java.util.concurrent.Semaphore(10000);
        Thread[] started = new Thread[20000];
        for (int i = 0; i < n; i++) {
            final int k = i;
            alive.acquire();
            Thread t = factory.newThread(() -> {
                try {
                    sink.addAndGet(shortTask(k));
                } finally {
                    alive.release();
                }
            });
            if (started[i % started.length] != null)
                started[i % started.length].join();
            started[i % started.length] = t;
            t.start();
        }
        for (Thread t : started)
            if (t != null)
                t.join();
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        onlyWay = args.length > 2 && args[0].equals("calls") ? Integer.parseInt(args[2]) : -1;
        if (args[0].equals("calls"))
            calls(n);
        else if (args[0].equals("busy"))
            busyThreads(n, Long.parseLong(args[2]));
        else if (args[0].equals("many"))
            many(n);
        System.out.println("done");
    }
}

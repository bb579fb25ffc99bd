import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * Waits to be attached to (the attach suites, tests/attach/test_attach*.c): prints "ready",
 * starts a thread that sleeps, then obeys lines on standard input: "work N" calls attachWork N
 * times through attachLoop and prints "done N <sum>"; "sleepers N" starts N more sleeping threads
 * and prints "started N"; "quit" (or the end of input) ends the program.
 */
public class AttachWorkload {
    static int attachWork(int i) {
        return i * 2 + 1;
    }

    /* Calls nothing but attachWork: a monitor counts its exits back into here. */
    static long attachLoop(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += attachWork(i);
        return sum;
    }

    static void sleep() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            /* ends */
        }
    }

    public static void main(String[] args) throws Exception {
        Thread sleeper = new Thread(AttachWorkload::sleep, "attach-sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null && !line.equals("quit");) {
            if (line.startsWith("sleepers ")) {
                int n = Integer.parseInt(line.substring(9).trim());
                for (int i = 0; i < n; i++) {
                    Thread t = new Thread(AttachWorkload::sleep, "attach-sleeper-" + i);
                    t.setDaemon(true);
                    t.start();
                }
                System.out.println("started " + n);
            } else if (line.startsWith("work ")) {
                int n = Integer.parseInt(line.substring(5).trim());
                System.out.println("done " + n + " " + attachLoop(n));
            }
        }
    }
}

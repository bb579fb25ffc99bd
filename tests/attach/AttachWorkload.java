import java.io.BufferedReader;
import java.io.InputStreamReader;

/**
 * Waits to be attached to (the attach suites, tests/attach/test_attach*.c): prints "ready",
 * starts a thread that sleeps, then obeys lines on standard input: "work N" calls attachWork N
 * times through attachLoop and prints "done N <sum>"; "quit" (or the end of input) ends the
 * program.
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

    public static void main(String[] args) throws Exception {
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                /* ends */
            }
        }, "attach-sleeper");
        sleeper.setDaemon(true);
        sleeper.start();
        System.out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null && !line.equals("quit");) {
            if (line.startsWith("work ")) {
                int n = Integer.parseInt(line.substring(5).trim());
                System.out.println("done " + n + " " + attachLoop(n));
            }
        }
    }
}

/**
 * The workloads' look at a thread of the agent's by its name (Linux's /proc): how often it went to
 * sleep and was woken, which is what a thread that polls costs an idle program.
 */
final class ThreadWakeUps {
    private ThreadWakeUps() {
    }

    /** The voluntary context switches of this process's thread of that name so far; -1 with no such thread. */
    static long of(String name) {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        for (java.io.File task : tasks == null ? new java.io.File[0] : tasks) {
            java.nio.file.Path dir = task.toPath();
            try {
                if (!java.nio.file.Files.readString(dir.resolve("comm")).strip().equals(name))
                    continue;
                for (String line : java.nio.file.Files.readAllLines(dir.resolve("status")))
                    if (line.startsWith("voluntary_ctxt_switches:"))
                        return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
            } catch (java.io.IOException ended) {
                // the thread ended while it was read
            }
        }
        return -1;
    }

    /** "NAME woke N times in M ms" for the wake-ups between before (of()'s) and now, or that there is no such thread. */
    static String since(String name, long before, long startedNanos) {
        long after = of(name), millis = (System.nanoTime() - startedNanos) / 1_000_000;
        return before < 0 || after < 0 ? "no thread named " + name
                                       : name + " woke " + (after - before) + " times in " + millis + " ms";
    }
}

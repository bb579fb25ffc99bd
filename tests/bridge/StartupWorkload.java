import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * StartupWorkload calls code of the JDK's classes loaded before VMInit, which instrumented
 * method calls reach only through the retransformation at VMInit: a default method of
 * java.util.Map (an interface the JVM loads while it boots), on a map class of its own that
 * does not override it.
 *   java StartupWorkload default N: calls Map.getOrDefault N times, prints the sum
 */
public class StartupWorkload {
    /** An empty map whose getOrDefault is Map's default method. */
    static final class Empty extends AbstractMap<String, Integer> {
        @Override
        public Set<Map.Entry<String, Integer>> entrySet() {
            return Set.of();
        }
    }

    public static void main(String[] args) {
        int calls = Integer.parseInt(args[1]);
        Map<String, Integer> map = new Empty();
        int sum = 0;
        for (int i = 0; i < calls; i++)
            sum += map.getOrDefault("absent", 1);
        System.out.println("sum " + sum);
    }
}

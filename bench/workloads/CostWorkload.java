/**
 * Workloads of the cost table (bench/bench.sh, BENCH_ONLY=cost): "hello" prints one line and exits,
 * for start-up; "exceptions N" throws and catches N exceptions in a loop
 * (exceptions without stack traces: the cost measured is the agent's, not fillInStackTrace's).
 */
public class CostWorkload {
    static final class Thrown extends RuntimeException {
        Thrown(int n) {
            super(null, null, false, false);
            this.n = n;
        }

        final int n;
    }

    static void thrower(int i) {
        throw new Thrown(i);
    }

    static long exceptions(int count) {
        long sum = 0;
        for (int i = 0; i < count; i++) {
            try {
                thrower(i);
            } catch (Thrown e) {
                sum += e.n & 1;
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        switch (args.length > 0 ? args[0] : "hello") {
            case "hello":
                System.out.println("Hello, world");
                break;
            case "exceptions":
                System.out.println("caught " + exceptions(Integer.parseInt(args[1])));
                break;
            default:
                System.out.println("unknown mode " + args[0]);
                System.exit(2);
        }
    }
}

/**
 * Runs tests/classfile/java/Jumps.java's methods with every instrumented method
 * enabled and prints their results, then the bridge's entry and exit totals (to
 * stderr, so stdout compares with an uninstrumented run).
 */
public class RunJumps {
    public static void main(String[] args) {
        jevmon.Bridge.enableAll();
        System.out.println(Jumps.loop(10) + " " + Jumps.table(1) + " " + Jumps.table(9) + " " + Jumps.lookup(7) + " "
                + Jumps.lookup(100000) + " " + Jumps.guarded(-1) + " " + Jumps.guarded(4) + " "
                + new Jumps(null, 5).intValue() + " " + new Jumps(null, -3).longValue() + " "
                + new Jumps(2).locked(1.5f) + " " + new Jumps(7).doubleValue());
        Jumps.nothing();
        long enters = 0, exits = 0;
        for (int i = 0; i < jevmon.Bridge.enters.length; i++) {
            enters += jevmon.Bridge.enters[i];
            exits += jevmon.Bridge.exits[i];
        }
        System.err.println("enters " + enters + " exits " + exits);
    }
}

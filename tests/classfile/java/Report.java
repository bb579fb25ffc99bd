import jevmon.Bridge;

/**
 * Runs Sample.main with every instrumented method enabled ("off" as argument: all
 * disabled), then prints "id enters exits" to stderr for every method id that counted
 * something.  Not instrumented itself.
 */
public class Report {
    public static void main(String[] args) {
        if (args.length == 0 || !args[0].equals("off"))
            Bridge.enableAll();
        Sample.main(args);
        for (int id = 0; id < Bridge.enters.length; id++)
            if (Bridge.enters[id] != 0 || Bridge.exits[id] != 0)
                System.err.println(id + " " + Bridge.enters[id] + " " + Bridge.exits[id]);
    }
}

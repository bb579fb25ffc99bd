import java.io.File;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * LinkSweep loads and links classes without initializing them and prints one line per class
 * with the outcome, so that a run with the agent can be compared line by line with one
 * without (tests/classfile/test_rewrite_sweep.c, `make sweep`).
 *   java LinkSweep PER_SOURCE SOURCE...
 * A SOURCE is a jar (its classes load through one class loader over every jar given), "jdk"
 * (the classes of the JDK's own modules, through their loaders: run with --add-modules
 * ALL-SYSTEM), or "class:NAME" (that class, from the jars, always taken).  PER_SOURCE 0 takes
 * every class of each source; N takes at most N, evenly spread over the sorted names, the same
 * every run.  Class.forName(name, false, loader) only loads; getDeclaredFields() links (HotSpot's
 * JVM_GetClassDeclaredFields links the class first), which runs the verifier.
 */
public class LinkSweep {
    public static void main(String[] args) throws Exception {
        int perSource = Integer.parseInt(args[0]);
        List<URL> jars = new ArrayList<>();
        for (int i = 1; i < args.length; i++)
            if (args[i].endsWith(".jar"))
                jars.add(new File(args[i]).toURI().toURL());
        ClassLoader jarLoader = new URLClassLoader(jars.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
        int linked = 0, failed = 0;
        for (int i = 1; i < args.length; i++) {
            List<String> names = new ArrayList<>();
            if (args[i].startsWith("class:"))
                names.add(args[i].substring("class:".length()));
            else
                names = sample(args[i].equals("jdk") ? jdkClasses() : jarClasses(args[i]), perSource);
            for (String name : names) {
                String outcome = link(name, args[i].equals("jdk") ? null : jarLoader);
                System.out.println(name + " " + outcome);
                if (outcome.equals("ok"))
                    linked++;
                else
                    failed++;
            }
        }
        System.out.println("sweep: " + (linked + failed) + " classes, " + linked + " linked, " + failed + " failed");
    }

    /**
     * "ok", or the exception's class and the first line of its message (object addresses left
     * out).  A NoClassDefFoundError gives its class alone: which of several missing classes the
     * verifier meets first depends on what loaded before, the same classes in other orders.
     */
    static String link(String name, ClassLoader loader) {
        try {
            ClassLoader from = loader;
            if (from == null) {
                Optional<Module> module = ModuleLayer.boot().findModule(jdkModuleOf.get(name));
                from = module.get().getClassLoader();
            }
            Class.forName(name, false, from).getDeclaredFields();
            return "ok";
        } catch (NoClassDefFoundError e) {
            return e.getClass().getName();
        } catch (Throwable t) {
            String message = String.valueOf(t.getMessage()).split("\n", 2)[0].replaceAll("@(0x)?[0-9a-f]+", "@");
            return t.getClass().getName() + ": " + message;
        }
    }

    static List<String> sample(TreeSet<String> names, int perSource) {
        List<String> all = new ArrayList<>(names), taken = new ArrayList<>();
        int stride = perSource <= 0 ? 1 : Math.max(1, (all.size() + perSource - 1) / perSource);
        for (int i = 0; i < all.size(); i += stride)
            taken.add(all.get(i));
        return taken;
    }

    static TreeSet<String> jarClasses(String path) throws Exception {
        TreeSet<String> names = new TreeSet<>();
        try (JarFile jar = new JarFile(path)) {
            for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
                String entry = e.nextElement().getName();
                if (entry.endsWith(".class") && !entry.startsWith("META-INF/") && !entry.endsWith("module-info.class"))
                    names.add(entry.substring(0, entry.length() - ".class".length()).replace('/', '.'));
            }
        }
        return names;
    }

    /** Module of every class "jdk" named, for its loader. */
    static final java.util.Map<String, String> jdkModuleOf = new java.util.HashMap<>();

    static TreeSet<String> jdkClasses() throws Exception {
        TreeSet<String> names = new TreeSet<>();
        for (ModuleReference ref : ModuleFinder.ofSystem().findAll()) {
            String module = ref.descriptor().name();
            if (ModuleLayer.boot().findModule(module).isEmpty())
                continue; /* not resolved at start-up: nothing loads from it */
            try (ModuleReader reader = ref.open()) {
                reader.list().filter(e -> e.endsWith(".class") && !e.endsWith("module-info.class")).forEach(e -> {
                    String name = e.substring(0, e.length() - ".class".length()).replace('/', '.');
                    names.add(name);
                    jdkModuleOf.put(name, module);
                });
            }
        }
        return names;
    }
}

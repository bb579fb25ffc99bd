/*
 * jevprof - jevprof's command line (bin/jevprof in the tree, a link to this program; installed as
 * `jevprof`), shaped as async-profiler's asprof: runs a command under jevprof, or profiles a
 * running JVM of this user.  Nothing is registered: the agent's options name jevprof's library
 * for that load (server=) and carry its settings (command=).  `jevprof --help` says how;
 * docs/jevprof.md says more.
 *
 * A program rather than a script because a launcher's start-up is the program's: bash took 1.7 ms
 * to start and read the options before it ran `java`, this takes about 0.4.  It reads every
 * option and checks every value (a bad one stops it before any program starts, in one line, exit
 * status 2), then either runs the command with the agent (this process becomes it) or hands what
 * it read to jevprof-pid (src/cmd/jevprof-pid.sh, beside the libraries), the script that attaches
 * to a running JVM and lists JVMs.
 *
 * The libraries are this program's directory's (the build tree), or <prefix>/lib/jevmon when it is
 * installed as <prefix>/bin/jevprof; JEVPROF_LIBDIR names others (the tests' sanitized builds).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../monitor/jevprof.h"

static const char usage_text[] =
    "usage: jevprof [options] PID                        profile a running JVM of yours (root: any)\n"
    "       jevprof start|stop|dump|status [options] PID\n"
    "       jevprof list                                 your JVMs, and which run jevprof\n"
    "       jevprof [options] [--] COMMAND [arguments...]\n"
    "\n"
    "  jevprof -d 30 -f profile.html 12345          profile JVM 12345 for 30 s, write a flame graph\n"
    "\n"
    "With a PID, jevprof is attached to that running JVM through its attach socket, as jcmd does;\n"
    "the JVM needs nothing beforehand (JDK 21 and later print a warning about the dynamic agent\n"
    "unless it runs with -XX:+EnableDynamicAgentLoading).  With -d it records that long, writes\n"
    "its files and stops; the JVM runs on.  Without -d it records until `stop` or the program's end.\n"
    "  start    attach and record (the default); after a stop: a new profile, with new settings\n"
    "  dump     write the profile so far, recording goes on\n"
    "  stop     write it and stop recording\n"
    "  status   what it records\n"
    "Each answer of the JVM (what it records, what it refused and why, the files it wrote) prints\n"
    "here, and a refusal exits 1.\n"
    "With COMMAND, runs it under jevprof: `java` or another launcher of a JDK (javac, jshell...:\n"
    "the agent goes in as -J-agentpath) or any other program that starts JVMs (a script, a build\n"
    "tool: the agent goes in through JAVA_TOOL_OPTIONS, for every JVM it starts; give each its own\n"
    "files with -f 'out-%p.html').  Without -d it records until the program ends.\n"
    "\n"
    "options:\n"
    "  -d SECONDS         record this long, then write the files and stop recording\n"
    "  -f FILE            an output, its kind by its extension: .html flame graph, .collapsed\n"
    "                     (collapsed stacks), .pb.gz (pprof), .txt or .report (the text report), .jfr\n"
    "                     (every profile as a JFR recording); may be given several times; %p is the\n"
    "                     process id, %t the start time\n"
    "  -e MODE            what to record: cpu, wall, calls, both (cpu and calls), alloc or lock; may be\n"
    "                     given twice, e.g. -e cpu -e alloc  [JEVPROF_MODE]\n"
    "  -i INTERVAL        sampling interval with a unit: 10ms (default), 1ms, 2s; or bytes between\n"
    "                     allocation samples in alloc mode: 512k (default), 256k, 1m, 4096\n"
    "  --mode LIST        the modes of -e as a list: cpu,alloc\n"
    "  --interval MS      sampling interval, whole milliseconds, 1 to 60000 (default 10)  [JEVPROF_INTERVAL_MS]\n"
    "  --out DIR          output directory, created when missing (default ./jevprof-out for a\n"
    "                     COMMAND; for a PID, where that JVM's settings say, else its working directory)  "
    "[JEVPROF_OUTPUT_DIR]\n"
    "  --prefix NAME      start of every output file's name (default jevprof); %p and %t as in -f  "
    "[JEVPROF_FILE_PREFIX]\n"
    "  --time cpu|wall    calls mode: time on the processor (default) or wall time  [JEVPROF_TIME]\n"
    "  --top N            lines per table of the report (default 20)  [JEVPROF_TOP]\n"
    "  --min-share PERCENT\n"
    "                     in the collapsed files and flame graphs, fold the call paths under this share\n"
    "                     of the profile into their callers (default 0.01; 0 keeps every path)  [JEVPROF_MIN_SHARE]\n"
    "  --lock DURATION    lock mode: waits shorter than this are not recorded (default 0: every\n"
    "                     contended wait; 10ms, 100us, or nanoseconds)  [JEVPROF_LOCK_THRESHOLD]\n"
    "  --cstack fp|no     cpu and wall modes: native frames, walked by frame pointers (default), or none  "
    "[JEVPROF_CSTACK]\n"
    "  --kstack yes|no    cpu mode: the kernel frames above the native ones where the kernel gives them\n"
    "                     (default), or none  [JEVPROF_KSTACK]\n"
    "  --threads all|java cpu mode: the JVM's own threads too (default), or Java threads only  [JEVPROF_THREADS]\n"
    "  --alloc-interval BYTES\n"
    "                     alloc mode: about one allocation reported per BYTES each thread allocates\n"
    "                     (default 524288; 0 is every allocation, many times slower)  "
    "[JEVMON_ALLOCATION_SAMPLING_INTERVAL]\n"
    "  --pid PID          the same as PID after the options\n"
    "  -h, --help         this text\n"
    "  --                 the end of the options: COMMAND follows\n"
    "Each long option also takes --option=VALUE; the variable in brackets is read by jevprof when the\n"
    "option is not given.  Values cannot hold quotes (they travel in the agent's options).\n"
    "\n"
    "Run under jevprof, a program's files are named on its standard error (\"jevmon: jevprof: wrote\").\n";

#define MAX_SETTINGS 64
#define MAX_INTERVALS 16
#define DEFAULT_ALLOCATION_INTERVAL "524288" /* a stack per allocation costs about 1.5 us: sampled unless asked */

/* What the options said. */
static struct {
    char *settings[MAX_SETTINGS]; /* jevprof's settings, name=value, for command= (monitor/config.h) */
    size_t setting_count;
    const char *intervals[MAX_INTERVALS]; /* -i, read once the modes are known */
    size_t interval_count;
    char modes[1024];
    char alloc_interval[32]; /* the bridge's allocation sampling interval (allocation_interval=) */
    char duration[32];
    const char *pid, *action;
    unsigned files;
    int given_out;
} o;

static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("jevprof: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(2);
}

static char *joined(const char *a, const char *b, const char *c)
{
    size_t length = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(length);
    if (!s)
        fail("out of memory");
    snprintf(s, length, "%s%s%s", a, b, c);
    return s;
}

/* Whether s is one or more decimal digits. */
static int digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* s as a whole number from low to high, or -1. */
static long long whole(const char *s, long long low, long long high)
{
    if (!digits(s) || strlen(s) > 18)
        return -1;
    long long n = atoll(s);
    return n >= low && n <= high ? n : -1;
}

/* The modes, as jevprof's settings name them (monitor/config.c's table: the two lists are the same);
 * sample is cpu's old name. */
static const char *const mode_names[] = {"cpu", "wall", "calls", "both", "alloc", "lock", "sample"};

static int is_mode(const char *word, size_t length)
{
    for (size_t i = 0; i < sizeof(mode_names) / sizeof(*mode_names); i++)
        if (strlen(mode_names[i]) == length && !strncmp(mode_names[i], word, length))
            return 1;
    return 0;
}

/* A value of setting name (or of the variable name) that jevprof would refuse stops this command
 * here, before any program starts, in one line. */
static void check(const char *name, const char *value)
{
    if (!strcmp(name, "mode") || !strcmp(name, "JEVPROF_MODE")) {
        size_t n = strlen(value);
        const char *word = !n || strstr(value, ",,") || value[0] == ',' || value[n - 1] == ',' ? "" : value;
        for (;;) {
            size_t length = strcspn(word, ",");
            if (!is_mode(word, length))
                fail("%s \"%s\": \"%.*s\" is not a mode; the modes: cpu, wall, calls, both, alloc, lock, or a list: "
                     "cpu,alloc", name, value, (int)length, word);
            if (!word[length])
                break;
            word += length + 1;
        }
    } else if (!strcmp(name, "interval") || !strcmp(name, "JEVPROF_INTERVAL_MS")) {
        if (whole(value, 1, 60000) < 0)
            fail("%s \"%s\": whole milliseconds, 1 to 60000", name, value);
    } else if (!strcmp(name, "top") || !strcmp(name, "JEVPROF_TOP")) {
        if (whole(value, 1, 1000) < 0)
            fail("%s \"%s\": a number, 1 to 1000", name, value);
    } else if (!strcmp(name, "time") || !strcmp(name, "JEVPROF_TIME")) {
        if (strcmp(value, "cpu") && strcmp(value, "wall"))
            fail("%s \"%s\": cpu or wall", name, value);
    } else if (!strcmp(name, "min-share") || !strcmp(name, "JEVPROF_MIN_SHARE")) {
        size_t whole_digits = strspn(value, "0123456789");
        const char *rest = value + whole_digits;
        int fraction = *rest == '.' && (whole_digits || rest[1]);
        if (fraction)
            rest += 1 + strspn(rest + 1, "0123456789");
        if (*rest || !(whole_digits || fraction) || strtod(value, NULL) > 100)
            fail("%s \"%s\": a percent from 0 to 100, such as 0.01", name, value);
    } else if (!strcmp(name, "prefix") || !strcmp(name, "JEVPROF_FILE_PREFIX")) {
        if (!*value || strpbrk(value, "/\\:"))
            fail("%s \"%s\": a file name, without / \\ or :", name, value);
    }
}

/* One of jevprof's settings; a space or backslash in it escaped by a backslash (monitor/config.h);
 * no quotes, tabs or line breaks, which the options cannot carry. */
static void setting(const char *name, const char *value)
{
    if (!*value || strpbrk(value, "\"'\t\n"))
        fail("%s \"%s\": a value must be non-empty, without quotes, tabs or line breaks", name, value);
    check(name, value);
    if (o.setting_count == MAX_SETTINGS)
        fail("more than %d settings", MAX_SETTINGS);
    char *s = malloc(strlen(name) + 2 * strlen(value) + 2), *at = s;
    if (!s)
        fail("out of memory");
    at += sprintf(at, "%s=", name);
    for (const char *c = value; *c; c++) {
        if (*c == '\\' || *c == ' ')
            *at++ = '\\';
        *at++ = *c;
    }
    *at = '\0';
    o.settings[o.setting_count++] = s;
}

/* The current directory as the shell names it: $PWD when it is this directory (a path through a
 * link stays one), else the real one. */
static const char *current_directory(void)
{
    static char real[PATH_MAX];
    const char *pwd = getenv("PWD");
    struct stat a, b;
    if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return pwd;
    if (!getcwd(real, sizeof(real)))
        fail("cannot read the current directory: %s", strerror(errno));
    return real;
}

/* A path of the caller's, absolute: the profiled JVM has a working directory of its own. */
static char *absolute(const char *path)
{
    return path[0] == '/' ? joined(path, "", "") : joined(current_directory(), "/", path);
}

/* Variable name's value, or fallback when it is unset or empty. */
static const char *variable_or(const char *name, const char *fallback)
{
    const char *value = getenv(name);
    return value && *value ? value : fallback;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && !strcmp(s + n - m, end);
}

/* -i: a time (ms, us, s) is the sampling interval; bytes (k, m, g, or a plain number in alloc mode)
 * the allocation interval. */
static void interval(const char *value)
{
    size_t n = strspn(value, "0123456789");
    const char *unit = value + n;
    static const char *const units[] = {"ms", "us", "s", "k", "m", "g", "b", ""};
    size_t u = 0;
    while (u < sizeof(units) / sizeof(*units) && strcmp(unit, units[u]))
        u++;
    unsigned long long number = n && n <= 15 ? strtoull(value, NULL, 10) : 0;
    if (!n || n > 15 || u == sizeof(units) / sizeof(*units))
        fail("-i %s: a number with a unit: 10ms, 2s, 512k, 1m", value);
    if (!*unit)
        unit = !strcmp(o.modes, "alloc") ? "b" : "ms";
    char text[32];
    if (!strcmp(unit, "us")) {
        if (number % 1000)
            fail("-i %s: jevprof samples every whole millisecond (1ms at the finest)", value);
        snprintf(text, sizeof(text), "%llu", number / 1000);
        setting("interval", text);
    } else if (!strcmp(unit, "ms") || !strcmp(unit, "s")) {
        snprintf(text, sizeof(text), "%llu", !strcmp(unit, "s") ? number * 1000 : number);
        setting("interval", text);
    } else {
        int shift = *unit == 'k' ? 10 : *unit == 'm' ? 20 : *unit == 'g' ? 30 : 0;
        if (number > (ULLONG_MAX >> shift))
            fail("-i %s: a number with a unit: 10ms, 2s, 512k, 1m", value);
        snprintf(o.alloc_interval, sizeof(o.alloc_interval), "%llu", number << shift);
    }
}

static void copy(char *to, size_t size, const char *what, const char *value)
{
    if (strlen(value) >= size)
        fail("%s %s: too long", what, value);
    strcpy(to, value);
}

/* What option name (without its dashes) stands for, with its value. */
static void option(const char *name, const char *value)
{
    if (!strcmp(name, "d") || !strcmp(name, "duration")) {
        char seconds[32];
        size_t n = strspn(value, "0123456789");
        if (!n || n > 9 || (value[n] && strcmp(value + n, "s")))
            fail("-d %s: whole seconds, 1 or more", value);
        snprintf(seconds, sizeof(seconds), "%.*s", (int)n, value);
        if (!atol(seconds))
            fail("-d %s: whole seconds, 1 or more", value);
        snprintf(o.duration, sizeof(o.duration), "%ld", atol(seconds)); /* a COMMAND's setting; with a PID, a stop after it */
    } else if (!strcmp(name, "f") || !strcmp(name, "file")) {
        static const char *const extensions[] = {".html", ".collapsed", ".pb.gz", ".txt", ".report", ".jfr"};
        size_t e = 0;
        while (e < sizeof(extensions) / sizeof(*extensions) && !ends_with(value, extensions[e]))
            e++;
        if (e == sizeof(extensions) / sizeof(*extensions))
            fail("-f %s: the extension says what to write: .html, .collapsed, .pb.gz, .txt, .report or .jfr", value);
        setting("file", absolute(value));
        o.files++;
    } else if (!strcmp(name, "e")) {
        size_t used = strlen(o.modes);
        if (used + strlen(value) + 2 > sizeof(o.modes))
            fail("-e %s: too many modes", value);
        snprintf(o.modes + used, sizeof(o.modes) - used, "%s%s", used ? "," : "", value);
    } else if (!strcmp(name, "i")) {
        if (o.interval_count == MAX_INTERVALS)
            fail("-i given more than %d times", MAX_INTERVALS);
        o.intervals[o.interval_count++] = value;
    } else if (!strcmp(name, "mode")) {
        copy(o.modes, sizeof(o.modes), "--mode", value);
    } else if (!strcmp(name, "out")) {
        setting("out", absolute(value));
        o.given_out = 1;
    } else if (!strcmp(name, "interval") || !strcmp(name, "prefix") || !strcmp(name, "top") || !strcmp(name, "time") ||
               !strcmp(name, "min-share") || !strcmp(name, "cstack") || !strcmp(name, "kstack") ||
               !strcmp(name, "threads")) {
        setting(name, value);
    } else if (!strcmp(name, "alloc-interval")) {
        if (!digits(value) || strlen(value) > 18)
            fail("--alloc-interval %s: a number of bytes", value);
        copy(o.alloc_interval, sizeof(o.alloc_interval), "--alloc-interval", value);
    } else if (!strcmp(name, "lock")) {
        size_t n = strspn(value, "0123456789");
        const char *unit = value + n;
        if (!n || (*unit && strcmp(unit, "ns") && strcmp(unit, "us") && strcmp(unit, "ms") && strcmp(unit, "s")))
            fail("--lock %s: a duration (ns, us, ms, s)", value);
        setting("lock", value);
    } else if (!strcmp(name, "pid")) {
        o.pid = value;
    } else {
        fail("unknown option --%s (see --help)", name);
    }
}

/* The options, up to the COMMAND; the index of its first word. */
static int read_options(int argc, char **argv)
{
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            exit(0);
        } else if (!strcmp(a, "--")) {
            return i + 1;
        } else if (!strncmp(a, "--", 2) && strchr(a, '=')) {
            char name[64];
            const char *equals = strchr(a, '=');
            if ((size_t)(equals - a - 2) >= sizeof(name))
                fail("unknown option %.*s (see --help)", (int)(equals - a), a);
            snprintf(name, sizeof(name), "%.*s", (int)(equals - a - 2), a + 2);
            option(name, equals + 1);
            i++;
        } else if (!strncmp(a, "--", 2) || (a[0] == '-' && a[1] && strchr("dfei", a[1]) && !a[2])) {
            if (i + 1 >= argc)
                fail("%s needs a value (see --help)", a);
            option(a + (a[1] == '-' ? 2 : 1), argv[i + 1]);
            i += 2;
        } else if (a[0] == '-') {
            fail("unknown option %s (see --help)", a);
        } else if (!strcmp(a, "start") || !strcmp(a, "stop") || !strcmp(a, "dump") || !strcmp(a, "status") ||
                   !strcmp(a, "list")) {
            if (o.action)
                fail("one of start, stop, dump, status, list at a time");
            o.action = a;
            i++;
        } else if (digits(a) && !o.pid && i == argc - 1) {
            o.pid = a;
            i++;
        } else {
            break;
        }
    }
    return i;
}

/* The directory of this program; its libraries': this directory in the build tree, <prefix>/lib/jevmon
 * for <prefix>/bin/jevprof. */
static void own_directories(char *self, size_t self_size, char *libraries, size_t libraries_size)
{
    ssize_t n = readlink("/proc/self/exe", self, self_size - 1);
    if (n <= 0)
        fail("cannot find where this program is (/proc/self/exe): %s", strerror(errno));
    self[n] = '\0';
    *strrchr(self, '/') = '\0';
    char installed[PATH_MAX + 32];
    snprintf(libraries, libraries_size, "%.*s/lib/jevmon", (int)strlen(self) - 4, self);
    snprintf(installed, sizeof(installed), "%s/libjevmon.so", libraries);
    if (!ends_with(self, "/bin") || access(installed, F_OK) != 0)
        snprintf(libraries, libraries_size, "%s", self);
}

/* command as the shell would find it (a path, or the first executable file of that name on PATH),
 * or NULL. */
static char *find_command(const char *command)
{
    struct stat st;
    if (strchr(command, '/'))
        return stat(command, &st) == 0 && S_ISREG(st.st_mode) && access(command, X_OK) == 0 ? joined(command, "", "")
                                                                                               : NULL;
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/local/bin:/usr/bin:/bin"; dir;) {
        const char *colon = strchr(dir, ':');
        size_t length = colon ? (size_t)(colon - dir) : strlen(dir);
        char *candidate = malloc(length + strlen(command) + 3);
        if (!candidate)
            fail("out of memory");
        sprintf(candidate, "%.*s/%s", (int)length, length ? dir : ".", command);
        if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) && access(candidate, X_OK) == 0)
            return candidate;
        free(candidate);
        dir = colon ? colon + 1 : NULL;
    }
    return NULL;
}

/* Runs COMMAND under jevprof: this process becomes it. */
static void run_command(char **command, const char *libraries, const char *clsid)
{
    if (o.duration[0])
        setting("duration", o.duration);
    if (!o.files && !o.given_out && !variable_or("JEVPROF_OUTPUT_DIR", NULL))
        setting("out", joined(current_directory(), "/jevprof-out", ""));
    char *launcher = find_command(command[0]);
    if (!launcher) {
        fprintf(stderr, "jevprof: %s: command not found\n", command[0]);
        exit(127);
    }
    size_t length = 4 * strlen(libraries) + 256 + strlen(clsid) * 2;
    for (size_t i = 0; i < o.setting_count; i++)
        length += strlen(o.settings[i]) + 1;
    char *agent = malloc(length), *at = agent;
    if (!agent)
        fail("out of memory");
    at += sprintf(at, "-agentpath:%s/libjevmon.so=enable,server=%s=%s/libjevprof.so,monitors=%s", libraries, clsid,
                  libraries, clsid);
    if (o.alloc_interval[0])
        at += sprintf(at, ",allocation_interval=%s", o.alloc_interval);
    at += sprintf(at, ",command=start");
    for (size_t i = 0; i < o.setting_count; i++)
        at += sprintf(at, " %s", o.settings[i]);
    if (strpbrk(agent, "\"'"))
        fail("the library's path %s cannot hold quotes", libraries);
    /* A JDK's own launchers live in its bin/, beside lib/modules (the JDK's class image, a file):
     * those take their JVM's options after -J (java itself takes them as they are); anything else
     * gets JAVA_TOOL_OPTIONS.  A `java` is taken for the JDK's without resolving its links. */
    const char *base = strrchr(launcher, '/') + 1;
    int java = !strcmp(base, "java"), jdk_launcher = 0;
    char real[PATH_MAX];
    if (!java && realpath(launcher, real)) {
        char *slash = strrchr(real, '/');
        *slash = '\0';
        slash = strrchr(real, '/');
        if (slash && !strcmp(slash + 1, "bin")) {
            struct stat st;
            strcpy(slash, "/lib/modules");
            jdk_launcher = stat(real, &st) == 0 && S_ISREG(st.st_mode);
        }
    }
    size_t count = 0;
    while (command[count])
        count++;
    char **args = calloc(count + 2, sizeof(*args));
    if (!args)
        fail("out of memory");
    args[0] = command[0];
    size_t n = 1;
    if (java || jdk_launcher)
        args[n++] = java ? agent : joined("-J", agent, "");
    for (size_t i = 1; i < count; i++)
        args[n++] = command[i];
    if (!java && !jdk_launcher) { /* the JVM splits JAVA_TOOL_OPTIONS at spaces outside quotes */
        const char *tool_options = getenv("JAVA_TOOL_OPTIONS");
        char quote = 0;
        for (const char *c = tool_options ? tool_options : ""; *c; c++)
            if (!quote && (*c == '"' || *c == '\''))
                quote = *c;
            else if (*c == quote)
                quote = 0;
        if (quote)
            fail("JAVA_TOOL_OPTIONS has an unbalanced %c: the JVM would read jevprof's agent as a part of its last "
                 "option; fix JAVA_TOOL_OPTIONS", quote);
        char *quoted = joined("\"", agent, "\"");
        if (setenv("JAVA_TOOL_OPTIONS", tool_options && *tool_options ? joined(tool_options, " ", quoted) : quoted, 1))
            fail("cannot set JAVA_TOOL_OPTIONS: %s", strerror(errno));
    }
    execvp(launcher, args); /* a path: run as it is, or by sh when it is a script without #! (as bash would) */
    fprintf(stderr, "jevprof: %s: %s\n", command[0], strerror(errno));
    exit(126);
}

int main(int argc, char **argv)
{
    int first = read_options(argc, argv);
    if (o.modes[0])
        setting("mode", o.modes);
    static const char *const variables[] = {"JEVPROF_MODE",      "JEVPROF_INTERVAL_MS", "JEVPROF_TOP",
                                            "JEVPROF_TIME",      "JEVPROF_MIN_SHARE",   "JEVPROF_FILE_PREFIX"};
    for (size_t i = 0; i < sizeof(variables) / sizeof(*variables); i++)
        if (getenv(variables[i]))
            check(variables[i], getenv(variables[i]));
    for (size_t i = 0; i < o.interval_count; i++)
        interval(o.intervals[i]);
    char modes[sizeof(o.modes) + 2];
    snprintf(modes, sizeof(modes), ",%s,", o.modes);
    if (strstr(modes, ",alloc,") && !o.alloc_interval[0] && !variable_or("JEVMON_ALLOCATION_SAMPLING_INTERVAL", NULL))
        strcpy(o.alloc_interval, DEFAULT_ALLOCATION_INTERVAL);
    char self[PATH_MAX], own_libraries[PATH_MAX + 16];
    own_directories(self, sizeof(self), own_libraries, sizeof(own_libraries));
    const char *libraries = variable_or("JEVPROF_LIBDIR", own_libraries);
    const char *needed[] = {"libjevmon.so", "libjevprof.so"};
    for (size_t i = 0; i < 2; i++) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/%s", libraries, needed[i]);
        if (access(path, F_OK) != 0)
            fail("%s is missing: run make first", path);
    }
    const char *clsid = variable_or("JEVPROF_CLSID", JP_CLSID_TEXT);
    int commands_a_jvm = (o.action && !strcmp(o.action, "list")) || o.pid;
    if (!commands_a_jvm) {
        if (first >= argc) {
            fputs(usage_text, stderr);
            return 2;
        }
        run_command(argv + first, libraries, clsid);
    }
    if (o.action && !strcmp(o.action, "list") && (first < argc || o.pid))
        fail("list takes nothing more");
    if (first < argc)
        fail("a PID takes no COMMAND (see --help)");
    /* jevprof-pid ACTION PID DURATION ALLOCATION-INTERVAL FILES GIVEN-OUT LIBRARIES CLSID SETTING... */
    char files[16], *script = joined(own_libraries, "/jevprof-pid", "");
    if (access(script, R_OK) != 0)
        fail("%s is missing: run make first", script);
    snprintf(files, sizeof(files), "%u", o.files);
    char **args = calloc(o.setting_count + 12, sizeof(*args));
    if (!args)
        fail("out of memory");
    size_t n = 0;
    const char *fixed[] = {"bash", script, o.action ? o.action : "", o.pid ? o.pid : "", o.duration, o.alloc_interval,
                           files, o.given_out ? "yes" : "", libraries, clsid};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
        args[n++] = (char *)fixed[i];
    for (size_t i = 0; i < o.setting_count; i++)
        args[n++] = o.settings[i];
    execvp("bash", args);
    fail("cannot run %s: %s", script, strerror(errno));
    return 2;
}

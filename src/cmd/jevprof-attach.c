/*
 * jevprof-attach - loads an agent library into a running HotSpot JVM through the JVM's attach
 * mechanism, as the JDK's jcmd does, without starting a JVM to do it: jcmd's own start-up is
 * seconds, this is milliseconds.  jevprof-pid (bin/jevprof's part for a PID) runs it for each
 * command to a PID (as the JVM's user: root's runs it through setpriv or nsenter).
 *
 *   jevprof-attach PID LIBRARY OPTIONS
 *
 * The mechanism, as HotSpot implements it on Linux: the JVM listens on the UNIX socket
 * .java_pid<pid> in its /tmp, <pid> its process id in its own pid namespace; a JVM that has not
 * started listening yet starts when it gets SIGQUIT and finds a file .attach_pid<pid> of its user
 * in its working directory or its /tmp.  A request is protocol 1, "1\0load\0LIBRARY\0true\0OPTIONS\0"
 * (each argument at most 1024 bytes), or protocol 2 for longer ones (JDK 24 and later):
 * "2\0<size>\0load\0...".  The answer is a status line, then the operation's output: HotSpot's
 * "return code: N", N what Agent_OnAttach returned.
 *
 * Prints that answer on standard output and exits 0 when the JVM ran the agent; otherwise one line
 * "jevprof: PID: <why>" on standard error and exit 1 (no such process, not a JVM, attach disabled,
 * no answer to SIGQUIT in time, a socket not the JVM user's, a library the JVM could not load, no
 * answer to the load within JEVPROF_ATTACH_WAIT seconds, 120 unless set); 2 on a usage error.
 * Linux only (/proc, namespaces, HotSpot's Linux socket): a program of its own rather than a part
 * of the platform layer, which the agent shares with Windows.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* How long a JVM may take to open its socket after SIGQUIT (jcmd waits about as long). */
#define SOCKET_WAIT_SECONDS 10
/* The longest argument protocol 1 takes (HotSpot's AttachOperation::arg_length_max). */
#define V1_ARG_MAX 1024
/* HotSpot's answer to a protocol it does not speak (ATTACH_ERROR_BADVERSION). */
#define BAD_VERSION 101
/* How long the JVM may take to answer a load, unless JEVPROF_ATTACH_WAIT says otherwise: the
 * agent's command runs before the answer, and a stop writes the profile first (seconds for a big
 * one on a busy machine).  A JVM stopped after it accepted the connection never answers. */
#define ANSWER_WAIT_SECONDS 120
#define ANSWER_WAIT_MAX_SECONDS 86400
/* The most of an answer kept: a load's is a line or two. */
#define ANSWER_MAX (64 * 1024)

static const char *pid_text;

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "jevprof: %s: ", pid_text);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

static double monotonic_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

/* The text of a small file of /proc (NUL-terminated, at most size - 1 bytes); 0, errno set, when unreadable. */
static int read_small(const char *path, char *text, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t used = 0;
    ssize_t n;
    while (used < size - 1 && (n = read(fd, text + used, size - 1 - used)) != 0) {
        if (n < 0 && errno != EINTR)
            break;
        used += n > 0 ? (size_t)n : 0;
    }
    int saved = errno;
    close(fd);
    text[used] = '\0';
    errno = saved;
    return 1;
}

/* Whether the process maps HotSpot's libjvm.so; the map read line by line (it can be megabytes). */
static int maps_libjvm(const char *proc)
{
    char path[96], line[4096];
    snprintf(path, sizeof(path), "%s/maps", proc);
    FILE *maps = fopen(path, "re");
    if (!maps)
        fail("cannot read %s: %s", path, strerror(errno));
    int found = 0;
    while (!found && fgets(line, sizeof(line), maps)) {
        size_t len = strcspn(line, "\n");
        line[len] = '\0';
        found = len >= 10 && strcmp(line + len - 10, "/libjvm.so") == 0;
    }
    fclose(maps);
    return found;
}

/* From /proc/PID/status: the process id in its own pid namespace (NSpid's last field) and
 * whether it catches SIGQUIT (SigCgt). */
static void read_status(const char *proc, long *nspid, int *catches_quit)
{
    char path[96], status[8192];
    snprintf(path, sizeof(path), "%s/status", proc);
    if (!read_small(path, status, sizeof(status)))
        fail("cannot read %s: %s", path, strerror(errno));
    const char *ns = strstr(status, "\nNSpid:"), *caught = strstr(status, "\nSigCgt:");
    if (ns) {
        const char *end = ns + strcspn(ns + 1, "\n") + 1, *last = end;
        while (last > ns && last[-1] != '\t' && last[-1] != ' ')
            last--;
        *nspid = strtol(last, NULL, 10);
    }
    *catches_quit = caught && (strtoull(caught + 8, NULL, 16) & (1ull << (SIGQUIT - 1))) != 0;
}

/* HotSpot's performance data file of the JVM (tmp/hsperfdata_<user>/<nspid>): whether it says the
 * JVM takes attaches (sun.rt.jvmCapabilities, its first character; 0 under
 * -XX:+DisableAttachMechanism).  1 when it says so or there is no such file (-XX:-UsePerfData). */
static int perf_data_allows_attach(const char *tmp, long nspid)
{
    DIR *dir = opendir(tmp);
    struct dirent *entry;
    int fd = -1;
    while (dir && fd < 0 && (entry = readdir(dir))) {
        char path[PATH_MAX];
        if (strncmp(entry->d_name, "hsperfdata_", 11) != 0 ||
            (size_t)snprintf(path, sizeof(path), "%s/%s/%ld", tmp, entry->d_name, nspid) >= sizeof(path))
            continue;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (dir)
        closedir(dir);
    if (fd < 0)
        return 1;
    /* The prologue: magic CA FE C0 C0, byte order (1 little-endian), versions, accessible, used,
     * overflow, modification time (8 bytes), the first entry's offset, the number of entries. */
    static unsigned char data[256 * 1024];
    ssize_t size = read(fd, data, sizeof(data));
    close(fd);
    uint32_t entry_offset, count;
    if (size < 32 || memcmp(data, "\xca\xfe\xc0\xc0", 4) != 0 || data[4] != 1)
        return 1;
    memcpy(&entry_offset, data + 24, 4);
    memcpy(&count, data + 28, 4);
    /* Each entry: its length, its name's offset, its vector length, type, flags, units,
     * variability, its data's offset (offsets from the entry). */
    for (uint64_t at = entry_offset; count-- > 0 && at + 20 <= (uint64_t)size;) {
        uint32_t length, name, data_offset;
        memcpy(&length, data + at, 4);
        memcpy(&name, data + at + 4, 4);
        memcpy(&data_offset, data + at + 16, 4);
        if (length < 20 || at + name >= (uint64_t)size || at + data_offset >= (uint64_t)size)
            return 1;
        if (memchr(data + at + name, '\0', size - at - name) &&
            strcmp((const char *)data + at + name, "sun.rt.jvmCapabilities") == 0)
            return data[at + data_offset] != '0';
        at += length;
    }
    return 1;
}

/* Makes the JVM open its socket: the trigger file (its working directory, else its /tmp), then
 * SIGQUIT; waits for the socket.  The trigger file is removed if this made it. */
static void start_listener(long pid, long nspid, const char *proc, const char *tmp, const char *socket_path)
{
    char trigger[PATH_MAX];
    snprintf(trigger, sizeof(trigger), "%s/cwd/.attach_pid%ld", proc, nspid);
    int fd = open(trigger, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
        snprintf(trigger, sizeof(trigger), "%s/.attach_pid%ld", tmp, nspid);
        fd = open(trigger, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            fail("cannot make %s, which asks the JVM to open its attach socket: %s", trigger, strerror(errno));
    }
    int made = fd >= 0;
    if (made)
        close(fd);
    if (kill((pid_t)pid, SIGQUIT) != 0) {
        int error = errno;
        if (made)
            unlink(trigger);
        fail("cannot signal it: %s", strerror(error));
    }
    struct timespec pause = {0, 1000000};
    struct stat st;
    double deadline = monotonic_seconds() + SOCKET_WAIT_SECONDS;
    int found;
    do { /* 1 ms at first, a JVM at rest opens it in a few; then up to 50 ms between looks */
        nanosleep(&pause, NULL);
        pause.tv_nsec = pause.tv_nsec < 25000000 ? pause.tv_nsec * 2 : 50000000;
        found = stat(socket_path, &st) == 0;
    } while (!found && monotonic_seconds() < deadline && kill((pid_t)pid, 0) == 0);
    if (made)
        unlink(trigger);
    if (!found && kill((pid_t)pid, 0) != 0)
        fail("ended while it was asked to open its attach socket");
    if (!found)
        fail("no attach socket (%s) within %d s of SIGQUIT: the JVM is stopped or too busy to answer, or runs "
             "with -XX:+DisableAttachMechanism",
             socket_path, SOCKET_WAIT_SECONDS);
}

/* The socket must be the JVM user's: a socket of another user at that name could pose as the
 * JVM (jcmd checks the same). */
static void check_socket(const char *socket_path, const char *proc)
{
    struct stat st, process;
    if (lstat(socket_path, &st) != 0)
        fail("cannot look at %s: %s", socket_path, strerror(errno));
    if (stat(proc, &process) != 0)
        fail("cannot look at %s: %s", proc, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        fail("%s is not a socket: not the JVM's", socket_path);
    if (st.st_uid != process.st_uid || st.st_uid != geteuid())
        fail("%s belongs to uid %lu; the JVM's user is uid %lu, this runs as uid %lu: not used", socket_path,
             (unsigned long)st.st_uid, (unsigned long)process.st_uid, (unsigned long)geteuid());
    if (st.st_mode & (S_IRWXG | S_IRWXO))
        fail("%s can be used by other users (mode %03o): not the JVM's", socket_path, (unsigned)(st.st_mode & 0777));
}

static void write_all(int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fail("the JVM closed its attach socket before taking the request: %s", n < 0 ? strerror(errno) : "");
        data += n, size -= (size_t)n;
    }
}

/* The request: protocol 1 when each argument fits in it, else 2. */
static char *request(const char *const *strings, size_t count, size_t *size, int *version)
{
    size_t data = 0, longest = 0;
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(strings[i]);
        data += len + 1;
        longest = len > longest ? len : longest;
    }
    *version = longest > V1_ARG_MAX ? 2 : 1;
    char *text = malloc(data + 32);
    if (!text)
        fail("out of memory");
    size_t at = (size_t)snprintf(text, 32, "%d", *version) + 1;
    if (*version == 2)
        at += (size_t)snprintf(text + at, 32 - at, "%zu", data) + 1;
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(strings[i]) + 1;
        memcpy(text + at, strings[i], len);
        at += len;
    }
    *size = at;
    return text;
}

/* The wait for an answer: JEVPROF_ATTACH_WAIT (whole seconds, 1 to a day) when set, else the default. */
static int answer_wait_seconds(void)
{
    const char *text = getenv("JEVPROF_ATTACH_WAIT");
    if (!text || !*text)
        return ANSWER_WAIT_SECONDS;
    char *end;
    errno = 0;
    long seconds = strtol(text, &end, 10);
    if (errno || *end || seconds < 1 || seconds > ANSWER_WAIT_MAX_SECONDS) {
        fprintf(stderr, "jevprof: JEVPROF_ATTACH_WAIT=%s is not a number of seconds from 1 to %d: waiting %d s\n",
                text, ANSWER_WAIT_MAX_SECONDS, ANSWER_WAIT_SECONDS);
        return ANSWER_WAIT_SECONDS;
    }
    return (int)seconds;
}

/* The answer, whole (the JVM closes the connection after it), NUL-terminated; given up after
 * wait_seconds. */
static char *read_answer(int fd, int wait_seconds)
{
    char *answer = malloc(ANSWER_MAX + 1);
    size_t used = 0;
    ssize_t n = 1;
    double deadline = monotonic_seconds() + wait_seconds;
    if (!answer)
        fail("out of memory");
    while (used < ANSWER_MAX && n != 0) {
        double left = deadline - monotonic_seconds();
        struct pollfd readable = {.fd = fd, .events = POLLIN};
        int ready = left > 0 ? poll(&readable, 1, (int)(left * 1000) + 1) : 0;
        if (ready == 0)
            fail("no answer to the load within %d s (JEVPROF_ATTACH_WAIT): the JVM is stopped or too busy; it may "
                 "still run the command when it goes on",
                 wait_seconds);
        n = ready > 0 ? read(fd, answer + used, ANSWER_MAX - used) : -1;
        if (n < 0 && errno != EINTR)
            fail("reading the JVM's answer: %s", strerror(errno));
        used += n > 0 ? (size_t)n : 0;
    }
    answer[used] = '\0';
    return answer;
}

/* The JVM's text on one line, its lines joined by spaces (as the JDK's attach API joins them). */
static char *one_line(char *text)
{
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
        text[--len] = '\0';
    for (char *at = text; (at = strchr(at, '\n'));)
        *at = ' ';
    return text;
}

int main(int argc, char **argv)
{
    if (argc != 4 || !argv[1][0] || strspn(argv[1], "0123456789") != strlen(argv[1]) || argv[2][0] != '/') {
        fprintf(stderr, "usage: jevprof-attach PID /path/to/agent.so OPTIONS\n"
                        "  loads the agent into the running JVM PID (HotSpot's attach), prints its answer\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a JVM that closes the socket: an error, not the end of this program */
    pid_text = argv[1];
    long pid = strtol(argv[1], NULL, 10), nspid = pid;
    char proc[32], tmp[64], socket_path[128];
    snprintf(proc, sizeof(proc), "/proc/%ld", pid);
    if (access(proc, F_OK) != 0)
        fail("no such process");
    if (!maps_libjvm(proc))
        fail("not a Java virtual machine (no libjvm.so in its memory map)");
    int catches_quit = 0;
    read_status(proc, &nspid, &catches_quit);
    /* Its /tmp as it sees it, whatever mount namespace it runs in. */
    snprintf(tmp, sizeof(tmp), "%s/root/tmp", proc);
    snprintf(socket_path, sizeof(socket_path), "%s/.java_pid%ld", tmp, nspid);

    struct stat st;
    if (stat(socket_path, &st) != 0) {
        if (!perf_data_allows_attach(tmp, nspid))
            fail("the JVM runs with -XX:+DisableAttachMechanism: nothing can attach to it");
        if (!catches_quit)
            fail("the JVM has no attach socket and does not catch SIGQUIT (-Xrs?), which would start one");
        start_listener(pid, nspid, proc, tmp, socket_path);
    }
    check_socket(socket_path, proc);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(socket_path) >= sizeof(address.sun_path))
        fail("the socket's path %s is too long", socket_path);
    strcpy(address.sun_path, socket_path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0)
        fail("cannot connect to %s: %s", socket_path, strerror(errno));
    const char *strings[] = {"load", argv[2], "true", argv[3]};
    size_t size;
    int version;
    int wait_seconds = answer_wait_seconds();
    char *text = request(strings, 4, &size, &version);
    write_all(fd, text, size);
    free(text);
    char *answer = read_answer(fd, wait_seconds);
    close(fd);

    char *output = answer + strcspn(answer, "\n");
    output += *output == '\n';
    long status = strtol(answer, NULL, 10);
    if (!answer[0])
        fail("the JVM closed its attach socket without an answer (it refuses a request it cannot read)");
    if (status == BAD_VERSION && version == 2)
        fail("the agent's options are %zu bytes: this JVM takes at most %d (JDK 24 and later take more)",
             strlen(argv[3]), V1_ARG_MAX);
    /* HotSpot answers "return code: N" once the agent ran; anything else says why it did not
     * (JDK 17 with status -1, later ones with 0). */
    if (status != 0 || (strncmp(output, "return code: ", 13) != 0 && !strstr(output, "\nreturn code: ")))
        fail("the JVM did not load %s: %s", argv[2], one_line(output));
    fputs(output, stdout);
    free(answer);
    return fflush(stdout) == 0 ? 0 : 1;
}

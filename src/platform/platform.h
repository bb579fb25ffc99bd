/*
 * platform.h - the one interface between jevmon and the operating system.
 *
 * Implemented on Windows by platform/win32.c (environment, modules, threads, locks, time)
 * with win32_registry.c (the registry), win32_com.c (COM activation) and the other
 * win32_*.c, and on POSIX by platform/posix.c with its helpers platform/posix_*.c (the
 * POSIX COM layer: a registry kept in regedit-format files, posix_registry.c, and
 * dlopen-based class activation, posix_activation.c).  Nothing
 * outside src/platform/ tests for the operating system.
 *
 * Strings are UTF-8.  Functions returning allocated memory use malloc; free it with
 * free() (plat_free_strings for string lists).
 */
#ifndef JEVMON_PLATFORM_H
#define JEVMON_PLATFORM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jevmon.h"

/* ---- Diagnostics ------------------------------------------------------------------- */
/* Writes one line "jevmon: <message>\n" to stderr in a single write. */
void jv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void jv_vlog(const char *fmt, va_list ap);
/* Sends every line (without the newline) to sink instead of stderr; NULL restores stderr.  For tests. */
void jv_log_set_sink(void (*sink)(const char *line, void *context), void *context);

/* ---- Environment ------------------------------------------------------------------- */
/* A copy of the variable's value, or NULL when it is not set. */
char *plat_getenv(const char *name);
/* Sets (value non-NULL) or removes a variable of this process, as the C runtime's getenv sees it. */
int plat_setenv(const char *name, const char *value);

/* ---- Registry ---------------------------------------------------------------------- */
typedef enum plat_hive {
    PLAT_HKLM, /* HKEY_LOCAL_MACHINE */
    PLAT_HKCU, /* HKEY_CURRENT_USER */
    PLAT_HKCR  /* HKEY_CLASSES_ROOT: HKCU\Software\Classes over HKLM\Software\Classes */
} plat_hive;

typedef enum plat_reg_status {
    PLAT_REG_OK = 0,
    PLAT_REG_NOT_FOUND,  /* no such key or value */
    PLAT_REG_WRONG_TYPE, /* the value exists with another type */
    PLAT_REG_ERROR       /* I/O error, refused file, access denied; already logged */
} plat_reg_status;

/* Key paths use backslashes, relative to the hive ("Software\\Microsoft\\Java VM").
 * name NULL or "" is the key's default value. */
plat_reg_status plat_reg_get_string(plat_hive hive, const char *key, const char *name, char **value);
plat_reg_status plat_reg_get_dword(plat_hive hive, const char *key, const char *name, DWORD *value);
/* The names of the key's direct subkeys, in the order the registry enumerates them. */
plat_reg_status plat_reg_subkeys(plat_hive hive, const char *key, char ***names, size_t *count);
void plat_free_strings(char **strings, size_t count);

/* Writing creates missing keys.  PLAT_HKCR writes go to HKLM\Software\Classes. */
plat_reg_status plat_reg_set_string(plat_hive hive, const char *key, const char *name, const char *value);
plat_reg_status plat_reg_set_dword(plat_hive hive, const char *key, const char *name, DWORD value);
/* Deletes the key and everything below it; a missing key is PLAT_REG_NOT_FOUND. */
plat_reg_status plat_reg_delete_tree(plat_hive hive, const char *key);

/* ---- COM --------------------------------------------------------------------------- */
/* Per thread: CoInitializeEx(COINIT_MULTITHREADED) on Windows; nothing elsewhere. */
HRESULT plat_com_init(void);
void plat_com_uninit(void);

/*
 * CoCreateInstance(clsid, NULL, CLSCTX_INPROC_SERVER, iid, ppv).  On failure returns
 * the HRESULT and writes a one-line cause naming what failed into why (for example
 * "InprocServer32 is a relative path: libfoo.so").
 */
HRESULT plat_create_instance(const CLSID *clsid, const IID *iid, void **ppv, char *why, size_t why_len);
/* The same from the in-process server at server (an absolute path) instead of the registered one,
 * refused as a registered server would be (on POSIX: posix_trust.h's rules). */
HRESULT plat_create_instance_at(const CLSID *clsid, const char *server, const IID *iid, void **ppv, char *why,
                                size_t why_len);

/* ---- Modules ------------------------------------------------------------------------ */
/* The absolute path of the module (shared library, DLL, executable) containing addr. */
char *plat_module_path(const void *addr);

/* The address of the symbol a module exports, for the module containing addr; NULL when none. */
void *plat_module_symbol(const void *addr, const char *name);

/* ---- Processes and directories ------------------------------------------------------- */
/* The operating system's id of this process (getpid / GetCurrentProcessId). */
DWORD plat_process_id(void);
/* Creates directory path and its missing parents ('/' separates them; '\\' too on Windows), with
 * mode 0755 less the umask (writable by no group or other user, as plat_output_dir_open
 * wants).  0 when it is a directory afterwards; else -1, with the reason in why. */
int plat_make_directories(const char *path, char *why, size_t why_len);

/* ---- Output files (a profiler's, written where a user points it) ---------------------------- */
/*
 * An output directory, checked and held open: every file of it is created, read, replaced and
 * removed relative to the directory that was checked, whatever happens to its path meanwhile.
 * A writer of any kind opens the directory, writes its files with plat_write_file and closes it.
 */
typedef struct plat_output_dir plat_output_dir;
/* Opens the directory path (made when missing, with its parents: 0755, whatever the umask) when
 * no one but root or this user could have changed what its path leads to.  POSIX: walked from
 * the root one directory at a time, never following a link (posix_trust.h): each directory on the
 * way is owned by root or this user and writable by no one else unless sticky (as /tmp); a link is
 * followed only when root or this user owns it; the directory itself is writable by no group or
 * other user, sticky or not.  Windows: any directory (its access control lists are not read), held
 * open so that it cannot be renamed or removed.  NULL with the reason in why; errno EACCES when
 * refused. */
plat_output_dir *plat_output_dir_open(const char *path, char *why, size_t why_len);
/* The user's own directory for files that have nowhere else to go, in path (size bytes): the first
 * of $XDG_RUNTIME_DIR/jevprof, ~/.cache/jevprof, /tmp/jevprof-<uid> that opens as above and is this
 * user's with no permission for anyone else (made with mode 0700 when missing, never chmodded:
 * one made by someone else, or reached through their link, is refused).  Windows:
 * %LOCALAPPDATA%\jevprof.  NULL with every candidate's reason in why. */
plat_output_dir *plat_output_dir_private(char *path, size_t size, char *why, size_t why_len);
void plat_output_dir_close(plat_output_dir *dir);
/* Writes the file name in dir without ever opening what is at that name: fill(out, context)
 * writes a new temporary file of the directory (created, never through a link), which then takes
 * name's place: a reader, or a crash of the process, never meets half a file (a reader may find
 * neither for an instant).  It is not flushed to disk: the program's end waits for these writes,
 * and the system writes them back in its time.
 * Only a regular file (or nothing) at name is replaced: anything else (a FIFO, a directory, a
 * link, a device) is left alone, and nothing is written.  fill returns 0, or non-zero when it
 * failed (errno says why; 0: out of memory).  0, or -1 with the reason in why and no file left
 * behind. */
typedef int (*plat_file_writer)(FILE *out, void *context);
int plat_write_file(plat_output_dir *dir, const char *name, plat_file_writer fill, void *context, char *why,
                    size_t why_len);
/* Creates the file name in dir holding text, only when nothing is at that name (never through a
 * link), whole: the text is in the file before the name appears (a temporary file linked to the
 * name).  0 created, 1 something is there already, -1 failed (the reason in why). */
int plat_create_new_file(plat_output_dir *dir, const char *name, const char *text, char *why, size_t why_len);
/* Reads the regular file name in dir (a link or anything else is not read) into text, at most
 * size - 1 bytes, NUL-terminated.  0, or -1. */
int plat_read_small_file(plat_output_dir *dir, const char *name, char *text, size_t size);
/* Removes the regular file name in dir (nothing else).  0, or -1. */
int plat_remove_file(plat_output_dir *dir, const char *name);
/* 1 when process pid (plat_process_id's) is running, else 0. */
int plat_process_running(DWORD pid);

/* Writes size bytes of data to out as one gzip member (RFC 1952).  0, or -1 on a write error or
 * out of memory.  Linux compresses with the system's zlib; the Windows targets have no zlib, so
 * they store the data in uncompressed deflate blocks (a valid gzip file, as large as the data). */
int plat_gzip_write(FILE *out, const void *data, size_t size);

/* ---- Threads, time, locks ------------------------------------------------------------- */
typedef struct plat_mutex plat_mutex;
plat_mutex *plat_mutex_create(void);
void plat_mutex_destroy(plat_mutex *m);
void plat_mutex_lock(plat_mutex *m);
void plat_mutex_unlock(plat_mutex *m);

/* A flag a thread can sleep on until another sets it: a timer thread told to stop wakes at once
 * instead of sleeping out its period (the JVM's exit waits for it).  Once set it stays set until
 * reset. */
typedef struct plat_event plat_event;
plat_event *plat_event_create(void);
void plat_event_destroy(plat_event *e);
void plat_event_set(plat_event *e);
void plat_event_reset(plat_event *e);
/* Sleeps until e is set or ms milliseconds passed: 1 when it is set, 0 on the timeout. */
int plat_event_wait_ms(plat_event *e, unsigned ms);

typedef struct plat_thread plat_thread;
/* Starts a native thread running fn(arg), named name where the system's tools show it (top -H,
 * perf, a debugger: its first 15 bytes on Linux, SetThreadDescription on Windows); NULL on failure. */
plat_thread *plat_thread_start(const char *name, void (*fn)(void *arg), void *arg);
/* Waits for the thread to end and frees it. */
void plat_thread_join(plat_thread *t);
/* Has the calling thread run fn as it ends, whoever started it (a pthread key's destructor, a
 * fiber-local storage callback): once per thread however often asked.  One fn per process: a
 * later call with another fn is refused.  0, or -1 when it cannot be arranged. */
int plat_thread_at_exit(void (*fn)(void));

/* The operating system's id of the calling thread (GetCurrentThreadId / gettid). */
DWORD plat_os_thread_id(void);
/* A monotonic clock in nanoseconds. */
uint64_t plat_now_ns(void);
/* The wall-clock time in nanoseconds since 1970 (UTC). */
uint64_t plat_unix_ns(void);
/* The processor time (user and system) a thread of this process has used, in nanoseconds;
 * UINT64_MAX when it cannot be read (the thread is gone).  A system call: microseconds on some
 * machines, so not for every event.  Windows counts it in scheduler quanta (about 15.6 ms). */
uint64_t plat_thread_cpu_ns(DWORD os_thread);
/* 1 when a thread's processor time (plat_thread_cpu_ns) moves whenever the thread runs, however
 * briefly (Linux: nanoseconds); 0 where it moves by quanta (Windows). */
int plat_thread_cpu_exact(void);
/* The processors this process may run on now (at least 1). */
unsigned plat_processor_count(void);
/* The operating system's ids of this process's threads now, at most max of them into ids; how
 * many there are (more than max: call again with more room). */
size_t plat_process_threads(DWORD *ids, size_t max);
/* A cheaper counter for timing many short intervals (the processor's time-stamp counter, a few
 * times cheaper than the clock): ticks of a constant rate, which the caller converts by comparing
 * plat_ticks and plat_now_ns taken together at two moments. */
uint64_t plat_ticks(void);
void plat_sleep_ms(unsigned ms);

/*
 * A process-wide memory barrier (Linux membarrier, Windows FlushProcessWriteBuffers): when
 * plat_process_barrier returns, every thread of the process has passed a full barrier, so
 * a thread that orders its own accesses only against the compiler still pairs with the
 * caller as if both had used fences.  init returns 0 when the system has no such barrier
 * (then do not call plat_process_barrier).
 */
int plat_process_barrier_init(void);
void plat_process_barrier(void);

/* Runs fn on a helper thread of its own, for slow system calls the caller should not wait for (on the
 * caller's thread where no helper can be started, and always on Windows, which has no helpers). */
void plat_run_helper(void *(*fn)(void *unused));
/* Waits for the helper threads the platform layer started for slow system calls (the barrier's
 * registration, readying the timers, plat_run_helper's) to end: before the library that holds
 * their code may be unloaded (a failed Agent_OnAttach).  Without helpers (Windows), returns at once. */
void plat_helpers_join(void);

/* ---- Sampling another thread ------------------------------------------------------------ */
/*
 * Takes the registers of another thread of this process at one moment.  POSIX: a signal
 * to the thread, whose handler records them and then runs hook(its ucontext_t, arg) on the
 * thread itself, so hook must be async-signal-safe; sampling one thread at a time.
 * Windows: SuspendThread, GetThreadContext, ResumeThread from the caller; hook is never
 * run.  Returns 0, without waiting longer than timeout_ms, when the thread is gone, cannot
 * be reached or does not answer in time.  plat_sample_init (once, before any sampling)
 * returns 0 when this system cannot sample, having said why in one jv_log line.
 */
typedef void (*plat_sample_hook)(void *context, void *arg);
typedef struct plat_registers {
    uint64_t ip, sp;
    int hooked; /* hook ran on the thread */
} plat_registers;
int plat_sample_init(void);
int plat_sample_thread(DWORD os_tid, unsigned timeout_ms, plat_sample_hook hook, void *arg, plat_registers *regs);

/*
 * The JNIEnv of the Java thread a signal interrupted, found without the JVM's thread-locals.  The
 * JVM's library is loaded at run time, so every read of its thread-locals (GetEnv's) goes through
 * the C library's __tls_get_addr, which after any library with thread-locals was loaded (this
 * agent's, at an attach) updates the thread's table of them on its next call, with malloc and
 * free: a handler doing the same on a thread interrupted inside that update or inside malloc frees
 * the table twice or deadlocks (a collector thread lost its Thread::current() so, once, in this
 * project's tests).  The JVM also records each of its threads in a thread-specific key of the
 * system (pthread's), read without allocating.  plat_jvm_thread_key_find, on a Java thread (env its
 * JNIEnv, which lies inside the JVM's record of the thread), finds that key: the one whose value
 * lies below env, the nearest, by at most span bytes (0 when there is none), and keeps where in the
 * record the JNIEnv lies.  plat_jvm_thread_env, async-signal-safe, gives the interrupted thread's
 * JNIEnv: NULL before the key is found, on a thread the JVM has not recorded (one starting, or one
 * it never knew), and on one of its threads that is not a Java thread (a collector: the place
 * holds no JNIEnv, whose first word is the JNI function table of every Java thread; asked once per
 * kind of record, through the kernel, since such a record may end before the place).  Windows: no
 * key is looked for and no JNIEnv is given (its sampler runs no code on the sampled thread).
 */
int plat_jvm_thread_key_find(const void *env, size_t span);
void *plat_jvm_thread_env(void);

/* ---- Processor-time timers ------------------------------------------------------------------ */
/*
 * A timer on one thread's processor-time clock: once in each period_ns of processor time that
 * thread uses (at a random point of it where the system's timers allow: posix_interrupt.c), the
 * sampling signal interrupts it where it runs and the handler runs the tick hook on it
 * (async-signal-safe only, as the sample hook), with how many periods went by without their own
 * signal and are merged into this one (overruns).  No thread has to be scheduled
 * to take the samples, and a thread that waits is never interrupted.  plat_cpu_timers_init, once
 * after plat_sample_init succeeded, sets the hook; it returns 0 where the system has no such
 * timers (Windows).  plat_cpu_timer_start: NULL when the thread cannot have one (gone, the
 * limit of timers).
 */
typedef void (*plat_cpu_tick_hook)(void *context, int overruns, const uint64_t *kernel, int kernel_count);
typedef struct plat_cpu_timer plat_cpu_timer;
int plat_cpu_timers_init(plat_cpu_tick_hook hook);
/* Readies the system for timers soon to start, on a thread of its own so that nobody waits for it
 * (Linux: the kernel's first perf event in a while, 10-20 ms asleep). */
void plat_cpu_timers_prepare(void);
plat_cpu_timer *plat_cpu_timer_start(DWORD os_tid, uint64_t period_ns);
void plat_cpu_timer_stop(plat_cpu_timer *timer);

/*
 * Kernel frames (posix_kernel.c).  plat_cpu_timers_kernel(1), before timers start, asks each
 * later timer for the kernel's call chain at its expiries where the kernel gives it (a perf event
 * with a ring buffer); the tick hook then gets the kernel frames the thread was in, innermost
 * first (kernel_count 0: in user space, or none).  It returns JEVMON_KERNEL_FRAMES_TAKEN, or why
 * no timer will have them (the kernel's symbols hidden from the process).  plat_cpu_timer_kernel:
 * a started timer's JEVMON_KERNEL_FRAMES (NOT_ASKED when none were asked of it).  plat_kernel_records_skipped: ring-buffer records skipped
 * since the last plat_cpu_timers_kernel.  plat_kernel_symbol: "vmlinux`function" (a module's:
 * "module`function") of a kernel address from /proc/kallsyms, 0 when none covers it; not for
 * the signal handler.  Windows: never taken (NO_TIMERS).
 */
int plat_cpu_timers_kernel(int want);
int plat_cpu_timer_kernel(const plat_cpu_timer *timer);
uint64_t plat_kernel_records_skipped(void);
int plat_kernel_symbol(uint64_t address, char *name, size_t size);

/* ---- Native stacks ------------------------------------------------------------------------- */
/*
 * What a native stack walk (sampling/native_walk.c) needs.  plat_context_frame: the interrupted
 * ip, sp and frame pointer of a signal handler's context (0 where the system has none: Windows).
 * plat_read_memory: copies size bytes from this process's address, or returns 0 when any of them
 * is not readable, without faulting; async-signal-safe.  plat_read_memory_prefix: as much of it as
 * is readable from address on, page by page, in one system call; the bytes copied (0: none).
 * plat_native_symbol: "library`symbol" of
 * a code address (demangled, without its parameters), from the library's ELF symbol tables
 * (.symtab, or a Debian debug file's, else .dynsym); "library`0x<offset>" where none covers it;
 * 0 when the address is in no library (generated code) or the system cannot say.  Not for the
 * signal handler: it reads files and allocates.  plat_native_code: 1 when address lies in the code
 * of the executable or a library the loader mapped, 0 in code generated at run time (the JVM's) or
 * outside any code; takes a lock, not for the signal handler.  plat_os_thread_name: the name the OS has for a
 * thread of this process (Linux: its comm, which the JVM sets); 0 when gone.
 */
int plat_context_frame(const void *context, uint64_t *ip, uint64_t *sp, uint64_t *fp);
/* A copy of a signal handler's context (into moved, PLAT_CONTEXT_MAX bytes) with another ip, sp and
 * frame pointer: the context of a caller, for a walk that starts there.  Async-signal-safe; 0 where
 * the system has no such context. */
#define PLAT_CONTEXT_MAX 1024
int plat_context_moved(const void *context, uint64_t ip, uint64_t sp, uint64_t fp, void *moved);
int plat_read_memory(uint64_t address, void *buffer, size_t size);
size_t plat_read_memory_prefix(uint64_t address, void *buffer, size_t size);
int plat_native_symbol(uint64_t address, char *name, size_t size);
int plat_native_code(uint64_t address);
int plat_os_thread_name(DWORD os_tid, char *name, size_t size);
/* How a function's caller is found from a code address in it, as its library's call frame
 * information says (x86-64): its canonical frame address (CFA) is the stack pointer (cfa_fp 0) or
 * the frame pointer (1) at that address plus cfa_offset; its return address lies at CFA +
 * ra_offset (ra_saved 0: it has none, the thread's outermost function); the caller's frame pointer
 * is this one's (fp_saved 0) or lies at CFA + fp_offset (1).  The caller's stack pointer is the
 * CFA.  0 where it is not known (no such information, or a rule other than these).  Not for the
 * signal handler. */
typedef struct plat_unwind_rule {
    int cfa_fp, ra_saved, fp_saved;
    int64_t cfa_offset, ra_offset, fp_offset;
} plat_unwind_rule;
int plat_native_unwind_rule(uint64_t address, plat_unwind_rule *rule);

#endif /* JEVMON_PLATFORM_H */

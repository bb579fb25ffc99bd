/*
 * config.h - jevprof's settings: built-in defaults, then the values under its Monitors key
 * (HKLM\Software\Microsoft\Java VM\Monitors\jevprof), then environment variables.
 *
 *   what              registry value        environment            default
 *   output directory  OutputDir (REG_SZ)    JEVPROF_OUTPUT_DIR     "."        (created when missing)
 *   file names        FilePrefix (REG_SZ)   JEVPROF_FILE_PREFIX    "jevprof"  (jevprof-report.txt, ...)
 *   mode              Mode (REG_SZ)         JEVPROF_MODE           "cpu"      (a list: see jp_mode)
 *   sample interval   IntervalMs (DWORD)    JEVPROF_INTERVAL_MS    10         (whole ms, 1..60000)
 *   report length     TopN (DWORD)          JEVPROF_TOP            20         (1..1000)
 *   calls' time       Time (REG_SZ)         JEVPROF_TIME           "cpu"      ("cpu" or "wall")
 *   smallest path     MinShare (REG_SZ)     JEVPROF_MIN_SHARE      JP_DEFAULT_MIN_SHARE (a percent, 0..100)
 *   count exceptions  Exceptions (DWORD)    JEVPROF_EXCEPTIONS     0          (1: the summary counts them)
 *   lock threshold    LockThreshold (REG_SZ) JEVPROF_LOCK_THRESHOLD 0         (lock mode: shorter waits are
 *                                                                             not recorded; ns, or us/ms/s after it)
 *   native frames     CStack (REG_SZ)       JEVPROF_CSTACK         "fp"       ("no": Java frames only)
 *   kernel frames     KStack (REG_SZ)       JEVPROF_KSTACK         "yes"      ("no": none; cpu mode, with cstack fp)
 *   threads sampled   Threads (REG_SZ)      JEVPROF_THREADS        "all"      ("java": not the JVM's own; cpu mode)
 *
 * The interval is whole milliseconds because the portable timer sleeps in milliseconds; 1 ms
 * (1 kHz) is the finest.  A bad value gets one "jevmon: jevprof: ..." line naming its source
 * and the reason, and the setting falls back to its default; the same lines head the report.
 *
 * The output directory and the file prefix may hold async-profiler's patterns: %p the process
 * id, %t the time recording started (YYYYMMDD-hhmmss, local time), %% a percent sign.
 *
 * The same settings, and two more, also come as text (jp_config_parse): the agent option
 * command= of the load that creates jevprof, or the start command after a stop, e.g.
 * "start mode=alloc interval=10 duration=30 file=/tmp/p.html file=/tmp/p.pb.gz" (docs/jevprof.md,
 * "Commands").  The two more: duration (whole seconds: stop and write after that
 * long) and file (an output of its own, several allowed, its kind chosen by its extension: .html
 * flame graph, .collapsed, .pb.gz pprof, .txt or .report report; with any file= only these are
 * written, with the patterns too).  Settings are separated by spaces; a backslash in a value
 * stands for the character after it ("out=/home/a\\ b/p": a directory with a space).
 */
#ifndef JEVPROF_CONFIG_H
#define JEVPROF_CONFIG_H

#include <stddef.h>
#include <time.h>

#define JP_MONITOR_KEY_NAME "jevprof"
#define JP_CONFIG_KEY "Software\\Microsoft\\Java VM\\Monitors\\jevprof"

/* What jevprof records.  The setting is a comma-separated list of "cpu" (or its old name
 * "sample"), "wall", "calls", "alloc", "lock" and "both" (cpu and calls), whose parts add up:
 * "cpu,alloc", "wall,calls", "cpu,lock".  JP_MODE_SAMPLE is a sampler of either kind; JP_MODE_WALL
 * makes it wall's. */
typedef enum jp_mode {
    JP_MODE_SAMPLE = 0x1,
    JP_MODE_CALLS = 0x2,
    JP_MODE_BOTH = JP_MODE_SAMPLE | JP_MODE_CALLS,
    JP_MODE_ALLOC = 0x4,
    JP_MODE_ALL = JP_MODE_BOTH | JP_MODE_ALLOC,
    JP_MODE_WALL = 0x8,
    JP_MODE_LOCK = 0x10
} jp_mode;

#define JP_DEFAULT_OUTPUT_DIR "."
#define JP_DEFAULT_FILE_PREFIX "jevprof"
#define JP_DEFAULT_MODE JP_MODE_SAMPLE
#define JP_DEFAULT_INTERVAL_MS 10u
#define JP_DEFAULT_TOP 20u
/* Paths under this share of their profile (percent) are folded into their callers in the
 * collapsed files, flame graphs and pprof files (output.c), which keeps them small whatever the program: see
 * docs/jevprof.md for what it gives on javac. */
#define JP_DEFAULT_MIN_SHARE 0.01
#define JP_MIN_INTERVAL_MS 1u
#define JP_MAX_INTERVAL_MS 60000u
#define JP_MAX_TOP 1000u
#define JP_MAX_LOOP_SECONDS 86400u
#define JP_MAX_LOCK_THRESHOLD_NS 3600000000000ull /* an hour */

/* file=: which output a path gets, by its extension; the first profile's (jp_output_write_all). */
typedef enum jp_file_kind { JP_FILE_REPORT, JP_FILE_COLLAPSED, JP_FILE_FLAME, JP_FILE_PPROF, JP_FILE_JFR } jp_file_kind;
#define JP_MAX_FILES 8

typedef struct jp_output_file {
    char path[1024];
    jp_file_kind kind;
} jp_output_file;

typedef struct jp_config {
    char output_dir[1024];
    char file_prefix[128];
    jp_mode mode;
    unsigned interval_ms;
    unsigned top;
    double min_share; /* percent */
    int wall_time;    /* calls mode records wall time, not processor time */
    unsigned loop_seconds; /* continuous mode: a complete profile every this many seconds (0: off) */
    unsigned exceptions;   /* 1: ask for EXCEPTIONS and count them by class (docs/jevprof.md: what it costs) */
    int native_frames;     /* cstack=fp: samples carry their native frames (cstack=no: Java frames only) */
    int vm_threads;        /* threads=all: cpu mode samples the JVM's own threads too (threads=java: not) */
    int kernel_frames;     /* kstack=yes: cpu mode's native frames end in the kernel's where it gives them */
    char problems[2048]; /* the bad settings, one line each as logged (less "jevprof: "), for the report */
    unsigned duration_seconds; /* stop and write after this long (0: at the end, or a stop) */
    jp_output_file files[JP_MAX_FILES]; /* file=: only these outputs, at these paths */
    unsigned file_count;
    unsigned long long lock_threshold_ns; /* lock mode: waits shorter than this are not recorded */
} jp_config;

void jp_config_defaults(jp_config *config);

/* Defaults, then the registry, then the environment; the patterns are left as they are. */
void jp_config_load(jp_config *config);

/* Then the settings of text: words "name=value" separated by spaces, the names mode, interval
 * (milliseconds; "ms" after the number is allowed), out, prefix, top, time, min-share, loop,
 * exceptions, duration, file and lock (the lock threshold); a first word without '=' (a command's name) is skipped.  Each
 * bad word gets one line naming it, as a bad variable does. */
void jp_config_parse(jp_config *config, const char *text);

/* Replaces the patterns of the output directory, the file prefix and the files (%p pid, %t started, %%).
 * A result that does not fit is a bad setting: logged, and the default is used. */
void jp_config_expand(jp_config *config, unsigned long pid, time_t started);

/* The mode as the setting spells it: "cpu", "wall", "calls", "both", "alloc", "cpu,alloc", "lock", ... */
const char *jp_mode_name(jp_mode mode);

#endif /* JEVPROF_CONFIG_H */

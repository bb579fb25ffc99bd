/*
 * output.h - the files jevprof leaves at the end, in the output directory, each named by the
 * file prefix (default "jevprof") and a suffix:
 *
 *   <prefix>-report.txt        the text report
 *   <prefix>.collapsed         collapsed stacks of the main profile (samples; in calls mode,
 *                              self time in microseconds), for FlameGraph and speedscope
 *   <prefix>-flame.html        a self-contained flame graph of the same profile
 *   <prefix>-calls.collapsed,  in "both" mode, the same two for the call tree
 *   <prefix>-calls-flame.html
 *   <prefix>-alloc.collapsed,  in alloc mode, the same two for the allocation sites (allocating
 *   <prefix>-alloc-flame.html  stacks ending in the allocated class, weighted by allocations)
 *   <prefix>-alloc-bytes.collapsed,  and for the same sites weighted by bytes
 *   <prefix>-alloc-bytes-flame.html
 *   <prefix>.pb.gz             each profile in pprof's format (gzip'd profile.proto): the main
 *   <prefix>-calls.pb.gz       one, in "both" mode the call tree, in alloc mode the allocation
 *   <prefix>-alloc.pb.gz       sites with both allocations and bytes
 *   <prefix>-lock.collapsed,   in lock mode, the same two for the contended lock waits (waiting
 *   <prefix>-lock-flame.html   stacks ending in the lock's class, weighted by waits)
 *   <prefix>-lock-delay.collapsed,  and for the same waits weighted by nanoseconds waited
 *   <prefix>-lock-delay-flame.html
 *   <prefix>-lock.pb.gz        the lock waits in pprof's format: contentions and delay, as Go's
 *                              mutex profile
 *
 * With file= settings (config.h), only those files are written, each the output its extension
 * names: a JFR recording of every profile (.jfr, jfr.h), the report, or the first profile's
 * collapsed file, flame graph or pprof file (the
 * samples' or the calls', else the allocations', else the lock waits').
 *
 * Every file is written as a new temporary file renamed over its name (platform.h,
 * plat_write_file): never through a link, and only a regular file is replaced (a FIFO, a
 * directory, a link at the name gets one line and is left alone), in the directory as checked
 * and held open (plat_output_dir_open): it and every directory and link on its path must be this
 * user's or root's and writable by no one else (a sticky directory on the way may be).  The
 * output directory, and the directory of each file= setting, that is not, or cannot be made, or
 * cannot be written in, gets one line naming it and the user's private directory (where the
 * files go instead; nothing is written when that cannot be used either).  While a run lives,
 * "<prefix>.lock" in the directory holds its process id (there before the name is): a
 * second run finding a running process's there writes "<prefix>-<its pid>*" instead, said in one
 * line.  No run removes a file it did not write: files of the prefix that this run does not
 * write (an earlier run's, in another mode) are named in one line and left.  On stderr (never
 * stdout: the program's output stays as it was), one line naming every file written and the
 * five hottest methods.
 */
#ifndef JEVPROF_OUTPUT_H
#define JEVPROF_OUTPUT_H

#include "report.h"

#define JP_REPORT_SUFFIX "-report.txt"
#define JP_COLLAPSED_SUFFIX ".collapsed"
#define JP_FLAME_SUFFIX "-flame.html"
#define JP_CALLS_COLLAPSED_SUFFIX "-calls.collapsed"
#define JP_CALLS_FLAME_SUFFIX "-calls-flame.html"
#define JP_ALLOC_COLLAPSED_SUFFIX "-alloc.collapsed"
#define JP_ALLOC_FLAME_SUFFIX "-alloc-flame.html"
#define JP_ALLOC_BYTES_COLLAPSED_SUFFIX "-alloc-bytes.collapsed"
#define JP_ALLOC_BYTES_FLAME_SUFFIX "-alloc-bytes-flame.html"
#define JP_PPROF_SUFFIX ".pb.gz"
#define JP_CALLS_PPROF_SUFFIX "-calls.pb.gz"
#define JP_ALLOC_PPROF_SUFFIX "-alloc.pb.gz"
#define JP_LOCK_COLLAPSED_SUFFIX "-lock.collapsed"
#define JP_LOCK_FLAME_SUFFIX "-lock-flame.html"
#define JP_LOCK_DELAY_COLLAPSED_SUFFIX "-lock-delay.collapsed"
#define JP_LOCK_DELAY_FLAME_SUFFIX "-lock-delay-flame.html"
#define JP_LOCK_PPROF_SUFFIX "-lock.pb.gz"
#define JP_JFR_SUFFIX ".jfr" /* only with a file= of its kind */

/* At start-up: creates the output directory when it is missing and takes the prefix there (its
 * lock file); a directory that cannot be made, is not the user's own or cannot be written in is
 * said now (one "jevmon: jevprof:" line) rather than at the end, and config's directory becomes
 * the user's private one (config's prefix gets "-<pid>" when another run holds it).  0, or -1
 * when nothing can be written anywhere. */
int jp_output_prepare(jp_config *config);
/* When the monitor goes: removes the prefix's lock file, if it is this process's. */
void jp_output_release(const jp_config *config);

/* Each file that cannot be written gets one "jevmon: jevprof:" line; the others are written.
 * written (size bytes) gets what the line on stderr says: "wrote <path>, <path>, ..." (or
 * "wrote only ...", "wrote nothing"). */
#define JP_OUTPUT_LIST_BYTES 4096 /* enough for "wrote " and every path */
void jp_output_write_all(const jp_report *report, char *written, size_t size);

#endif /* JEVPROF_OUTPUT_H */

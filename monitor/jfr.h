/*
 * jfr.h - the profiles of a run as a JDK Flight Recorder recording (.jfr), written by jevprof
 * itself, as JDK Mission Control, IntelliJ, `jfr print` and async-profiler's jfrconv read it: one
 * chunk (format 2.0) holding its metadata (the types below), one constant pool (threads,
 * classes, methods, symbols, stack traces, frame types, thread states) and the events:
 *
 *   cpu samples        jdk.ExecutionSample, state STATE_DEFAULT (no state taken: async-profiler's
 *                      mark of a cpu sample, the one its jfrconv --cpu keeps)
 *   wall samples       jdk.ExecutionSample, state the thread's (the sample's last frame)
 *   allocations        jdk.ObjectAllocationSample, objectClass and weight (bytes)
 *   contended monitor  jdk.JavaMonitorEnter, monitorClass and duration
 *   park on a lock     jdk.ThreadPark, parkedClass and duration
 *
 * The profiles are trees: each path of a tree becomes as many events as its weight counts
 * (samples, waits), with the path as their stack trace (innermost frame first).  Their threads and
 * times come from the recorder's log (eventlog.h): a path's events take its log entries' threads
 * (the OS's, by id and name) and times in proportion to the entries' weights, one event to one
 * entry while the log kept every one (a wait then has its own duration, and starts that long
 * before it was logged); a path without entries has its events on the thread "jevprof: thread not
 * logged", spread evenly over the recording's span, a wait the path's nanoseconds shared out; an
 * entry with no OS thread (a virtual thread's wall sample) is on a thread that stands for those.  An
 * allocation path becomes one event whose weight is the path's bytes (as a JFR allocation sample
 * stands for the bytes allocated since the last one): its allocations are estimates from samples,
 * often millions.  The paths are folded as the collapsed files' are (JEVPROF_MIN_SHARE), so the
 * events' counts and top frames are the collapsed files'.  Calls mode's tree has no JFR event: it
 * is not in the recording.  A library's function is a frame of type Native (key 3, as the JDK and
 * jfrconv number it), every other frame of type Java.
 *
 * Integers are LEB128 (the format's compressed integers), strings UTF-8; the file is built in
 * memory and written at once.
 */
#ifndef JEVPROF_JFR_H
#define JEVPROF_JFR_H

#include <stdio.h>

#include "report.h"

/* The most events of one profile's samples or waits in a recording: beyond it, each path has its
 * even share of this many (a JFR sample or wait carries no weight), said in one line, so that a
 * recording stays one that readers open whatever the run (about 15 MB of events). */
#define JP_JFR_MAX_EVENTS 1000000u

/* 0, or -1 on a write error or out of memory. */
int jp_jfr_write(FILE *out, const jp_report *report);

#endif /* JEVPROF_JFR_H */

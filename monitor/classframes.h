/*
 * classframes.h - the frames that stand for classes at the end of a stack: the allocated class
 * (alloc mode), the lock's class (lock mode).  The trees hold MethodIDs, so a class is recorded
 * as a frame from the top of the ID range, below JP_UNKNOWN_METHOD, JP_UNKNOWN_CALLERS and
 * JP_FOLDED_PATHS (the same assumption: no VM's MethodID is that close to the top):
 * JP_CLASS_FRAME(i) for the i-th class met.  One table serves every recorder, so a frame means
 * one class in every profile of a run.
 *
 * A class's name is copied when it is first met, since a ClassID expires at CLASS_UNLOAD and may
 * then be reused for another class: the table forgets the ClassID there and keeps the name.
 * Names live as long as the table and never move, so a writer may read them while recording
 * goes on.  Thread-safe: a lock of its own; a new class is named with no lock held.
 */
#ifndef JEVPROF_CLASSFRAMES_H
#define JEVPROF_CLASSFRAMES_H

#include "idmap.h"
#include "jevmon.h"
#include "names.h"
#include "platform/platform.h"
#include "tree.h"

#define JP_CLASS_FRAME(index) (JP_FOLDED_PATHS - 1 - (MethodID)(index))
#define JP_MAX_CLASS_FRAMES (1u << 20) /* classes beyond this many are recorded as "(other classes)" */
/* JP_CLASS_FRAME(JP_MAX_CLASS_FRAMES) and the one below are "(other classes)" and "(unknown class)". */

typedef struct jp_class_frames {
    IJavaEventMonitorIDInfo *info; /* not owned */
    jp_names *names;               /* not owned: class names, cached per ClassID */
    plat_mutex *lock;              /* guards everything below */
    jp_idmap classes;              /* ClassID -> class frame index + 1 */
    char **class_names;            /* display names, by class frame index */
    size_t class_count, class_capacity;
} jp_class_frames;

/* 0, or -1 out of memory. */
int jp_class_frames_init(jp_class_frames *c, IJavaEventMonitorIDInfo *info, jp_names *names);
void jp_class_frames_free(jp_class_frames *c);

/* The frame of klass (0: "(unknown class)"), named when it is new; 0 when out of memory. */
MethodID jp_class_frames_frame(jp_class_frames *c, ClassID klass);
/* CLASS_UNLOAD: the ClassID may be reused from now on. */
void jp_class_frames_unloading(jp_class_frames *c, ClassID klass);
/* The name of a class frame, or NULL when frame is not one. */
const char *jp_class_frames_name(jp_class_frames *c, MethodID frame);

#endif /* JEVPROF_CLASSFRAMES_H */

/*
 * pprof.h - a profile in pprof's format (github.com/google/pprof, proto/profile.proto), as
 * `go tool pprof`, Pyroscope and Parca read it: one sample per path of a tree (its locations
 * innermost first), one function per method (with its source file and first line where the VM
 * gives them), one location per line of a function that a frame was at (the line of the node's
 * bytecode offset, its method's first line when it has none).  The protobuf is encoded here
 * by hand (varints and length-delimited fields: the few hundred lines it takes are smaller
 * than a protobuf-c dependency and its generated code); the caller gzips it.
 */
#ifndef JEVPROF_PPROF_H
#define JEVPROF_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "javaname.h"
#include "tree.h"

typedef enum jp_pprof_kind {
    JP_PPROF_SAMPLES,    /* samples/count and cpu/nanoseconds (count times the period) */
    JP_PPROF_CALLS,      /* calls/count and cpu (or wall)/nanoseconds of self time */
    JP_PPROF_ALLOCATIONS, /* alloc_objects/count and alloc_space/bytes */
    JP_PPROF_LOCKS        /* contentions/count and delay/nanoseconds (Go's mutex profile) */
} jp_pprof_kind;

typedef struct jp_pprof_profile {
    jp_pprof_kind kind;
    const jp_tree *tree;  /* samples: counts; calls: nanoseconds and calls; allocations: objects in
                             scale units */
    const jp_tree *bytes; /* allocations: the same paths weighted by bytes (a path may be missing);
                             locks: weighted by nanoseconds waited */
    uint64_t scale;       /* tree's weight of one (allocations: JP_ALLOCATION_COUNT_SCALE), else 1 */
    int wall_time;        /* calls, samples: the time is wall time (samples: each labelled with its thread's state) */
    int64_t period;       /* samples: the interval in ns; allocations: bytes per sample (0: every one) */
    int64_t time_nanos;   /* when recording started, ns since 1970 */
    int64_t duration_nanos;
    jp_method_namer name;        /* Function.name: as the report names methods */
    jp_method_namer system_name; /* Function.system_name: the brief name of the files */
    jp_method_sourcer source;    /* Function.filename and start_line; NULL: none */
    jp_method_liner line;        /* Line.line of a node at its offset; NULL: the function's start_line */
    void *name_context;
} jp_pprof_profile;

/* Encodes profile into *data (malloc'ed, *size bytes).  0, or -1 out of memory. */
int jp_pprof_encode(const jp_pprof_profile *profile, uint8_t **data, size_t *size);

#endif /* JEVPROF_PPROF_H */

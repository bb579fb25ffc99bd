/*
 * hotspot_code.h - what HotSpot's code heaps hold at an address (hotspot_code.c), read through its
 * Serviceability Agent tables (hotspot_tables.h).  The samplers use it to tell compiled Java code
 * from a library's and to check that a walk's method owns the code it stands in, without
 * CompiledMethodLoad events: with them on, HotSpot builds every compiled method's address map and
 * wakes its service thread once per method compiled, the largest part of a sampler's cost on a
 * program whose JIT is busy.
 */
#ifndef JEVMON_HOTSPOT_CODE_H
#define JEVMON_HOTSPOT_CODE_H

#include <stdint.h>

#include <jni.h>

typedef enum jv_heap_code {
    JV_HEAP_UNREADABLE = -1, /* this JVM does not show its code heaps (another JVM or version) */
    JV_HEAP_OUTSIDE = 0,     /* not in a code heap */
    JV_HEAP_OTHER_CODE = 1,  /* in a code heap, not method's compiled code */
    JV_HEAP_METHOD_CODE = 2  /* in method's compiled code */
} jv_heap_code;

/* Finds HotSpot's layout (symbols and VMStructs rows): once, and never inside a signal handler,
 * where looking a symbol up may wait for the loader's lock the interrupted code holds.  Call it
 * before the first walk that may ask the two functions below; they answer UNREADABLE (0) until then. */
void jv_hotspot_code_prepare(void);

/* Lock-free and allocation-free; reads only the JVM's committed code memory.  Code freed and
 * reused meanwhile may give the new owner's answer.  method may be NULL (then never METHOD_CODE). */
jv_heap_code jv_hotspot_code_at(uintptr_t address, jmethodID method);

/* A compiled method interrupted where AsyncGetCallTrace cannot walk from: its frame being set up
 * or taken down (JDK-8178287).  The method, and its caller's ip, sp and frame pointer. */
typedef struct jv_frame_edge {
    jmethodID method;
    uint64_t caller_ip, caller_sp, fp;
} jv_frame_edge;
/* In a signal handler, for the interrupted ip, sp and frame pointer in a compiled method: 1 and
 * *out filled where its return address is found (its caller in a code heap, just after a call),
 * else 0.  Reads the JVM's metadata without faulting. */
int jv_hotspot_frame_edge(uintptr_t ip, uint64_t sp, uint64_t fp, jv_frame_edge *out);

#endif

/*
 * ids.h - how jevmon's UniqueIDs are made and checked.
 *
 * Every ID is pointer-sized: the low 4 bits name its kind, the rest an index into that
 * kind's table (plus 1, so no valid ID is 0).  An ID of the wrong kind, out of range or
 * for an entry that has expired decodes as invalid, so a garbage or stale ID passed by a
 * monitor fails cleanly instead of reaching the JVM.
 *
 * StackIDs name a frame by its thread and its depth (1 = the thread's outermost frame):
 * JVMTI has no frame identity, and depth is what entry and exit events and stack
 * traces agree on.  The StackID of depth 0 is NULL, the caller of the outermost frame.
 */
#ifndef JEVMON_IDS_H
#define JEVMON_IDS_H

#include <stdint.h>

#include "jevmon.h"

typedef enum jv_id_kind {
    JV_ID_CLASS = 1,
    JV_ID_METHOD = 2,
    JV_ID_FIELD = 3,
    JV_ID_THREAD = 4,
    JV_ID_OBJECT = 5,
    JV_ID_HANDLE = 6,
    JV_ID_STACK = 7
} jv_id_kind;

#define JV_ID_KIND_BITS 4
#define JV_ID_KIND_MASK ((UniqueID)0xF)

static inline UniqueID jv_id_make(jv_id_kind kind, uint32_t index)
{
    return ((UniqueID)index + 1) << JV_ID_KIND_BITS | (UniqueID)kind;
}

/* Non-zero and *index set when id is of the given kind. */
static inline int jv_id_index(UniqueID id, jv_id_kind kind, uint32_t *index)
{
    if ((id & JV_ID_KIND_MASK) != (UniqueID)kind || (id >> JV_ID_KIND_BITS) == 0 ||
        (id >> JV_ID_KIND_BITS) > UINT32_MAX)
        return 0;
    *index = (uint32_t)((id >> JV_ID_KIND_BITS) - 1);
    return 1;
}

/* StackIDs: thread index in the bits above the depth. */
#define JV_STACK_DEPTH_BITS (sizeof(UniqueID) == 8 ? 32 : 16)
#define JV_STACK_MAX_DEPTH ((uint32_t)(((uint64_t)1 << JV_STACK_DEPTH_BITS) - 1))

static inline StackID jv_stack_id(uint32_t thread_index, uint32_t depth)
{
    if (depth == 0 || depth > JV_STACK_MAX_DEPTH)
        return 0;
    UniqueID payload = ((UniqueID)thread_index << JV_STACK_DEPTH_BITS) | depth;
    return payload << JV_ID_KIND_BITS | (UniqueID)JV_ID_STACK;
}

#endif

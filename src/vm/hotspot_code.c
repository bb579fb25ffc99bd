/*
 * hotspot_code.c - the owner of the code at an address, from HotSpot's code heaps (see
 * hotspot_code.h).  CodeCache::_heaps lists the heaps; each keeps its code in a VirtualSpace
 * (_memory, committed from low to high) of segments 2^_log2_segment_size bytes long, and a byte per
 * segment in _segmap: 0 where a block starts, 0xFF where no block is, otherwise how many segments
 * back to go (again and again) to reach the start.  A block is a HeapBlock header followed by its
 * CodeBlob; an nmethod's _method is the Method* a jmethodID points to.  Every read stays inside
 * the heap's committed memory and every walk back moves toward its start, so a segment map changed
 * under the reader can give a wrong owner but never a read outside the heap.
 */
#include <stdatomic.h>
#include <string.h>

#include "vm/hotspot_code.h"
#include "vm/hotspot_tables.h"
#include "vm/once.h"

#define FREE_SEGMENT 0xFF

/* Where the fields read here lie, from the tables. */
static struct {
    char *const *heaps;              /* CodeCache::_heaps, a GrowableArray<CodeHeap*>* */
    uint64_t array_length, array_data; /* GrowableArrayBase::_len (int), GrowableArray<int>::_data */
    uint64_t memory, segmap, log2_segment; /* CodeHeap's two VirtualSpaces and its int */
    uint64_t space_low, space_high;  /* VirtualSpace::_low, _high (char *) */
    uint64_t block_header;           /* sizeof(HeapBlock): the CodeBlob follows it */
    uint64_t nmethod_method;         /* nmethod::_method (Method*), CompiledMethod's before JDK 23 */
} at;
static int readable;
static atomic_int layout_once;

static void find_layout(void)
{
    jv_sa_tables t;
    if (!jv_sa_tables_read(&t))
        return;
    at.heaps = jv_sa_static_address(&t, "CodeCache", "_heaps");
    at.block_header = jv_sa_type_size(&t, "HeapBlock");
    readable = at.heaps && at.block_header && jv_sa_field_offset(&t, "GrowableArrayBase", "_len", &at.array_length) &&
               jv_sa_field_offset(&t, "GrowableArray<int>", "_data", &at.array_data) &&
               jv_sa_field_offset(&t, "CodeHeap", "_memory", &at.memory) &&
               jv_sa_field_offset(&t, "CodeHeap", "_segmap", &at.segmap) &&
               jv_sa_field_offset(&t, "CodeHeap", "_log2_segment_size", &at.log2_segment) &&
               jv_sa_field_offset(&t, "VirtualSpace", "_low", &at.space_low) &&
               jv_sa_field_offset(&t, "VirtualSpace", "_high", &at.space_high) &&
               (jv_sa_field_offset(&t, "nmethod", "_method", &at.nmethod_method) ||
                jv_sa_field_offset(&t, "CompiledMethod", "_method", &at.nmethod_method)); /* up to JDK 22 */
}

static uintptr_t word_at(const char *base, uint64_t offset)
{
    uintptr_t value;
    memcpy(&value, base + offset, sizeof(value));
    return value;
}

/* address lies in heap's committed code [low, high): the owner of its block. */
static jv_heap_code block_owner(const char *heap, uintptr_t low, uintptr_t high, uintptr_t address,
                                jmethodID method)
{
    int log2;
    memcpy(&log2, heap + at.log2_segment, sizeof(log2));
    const uint8_t *map = (const uint8_t *)word_at(heap + at.segmap, at.space_low);
    uintptr_t map_end = word_at(heap + at.segmap, at.space_high);
    if (log2 <= 0 || log2 >= 32 || !map || map_end <= (uintptr_t)map)
        return JV_HEAP_OTHER_CODE;
    uintptr_t segment = (address - low) >> log2;
    if (segment >= map_end - (uintptr_t)map || map[segment] == FREE_SEGMENT)
        return JV_HEAP_OTHER_CODE;
    for (uint8_t back; (back = map[segment]) != 0; segment -= back)
        if (back == FREE_SEGMENT || back > segment)
            return JV_HEAP_OTHER_CODE;
    uintptr_t blob = low + (segment << log2) + at.block_header;
    if (!method || blob + at.nmethod_method + sizeof(void *) > high)
        return JV_HEAP_OTHER_CODE;
    /* A block that holds no nmethod has other data there, which is no Method* a jmethodID points to. */
    return word_at((const char *)blob, at.nmethod_method) == *(const uintptr_t *)method ? JV_HEAP_METHOD_CODE
                                                                                        : JV_HEAP_OTHER_CODE;
}

jv_heap_code jv_hotspot_code_at(uintptr_t address, jmethodID method)
{
    jv_once(&layout_once, find_layout);
    if (!readable)
        return JV_HEAP_UNREADABLE;
    const char *array = *at.heaps;
    if (!array)
        return JV_HEAP_OUTSIDE;
    int count;
    memcpy(&count, array + at.array_length, sizeof(count));
    const char *const *heaps = (const char *const *)word_at(array, at.array_data);
    for (int i = 0; heaps && i < count; i++) {
        const char *memory = heaps[i] + at.memory;
        uintptr_t low = word_at(memory, at.space_low), high = word_at(memory, at.space_high);
        if (address >= low && address < high)
            return block_owner(heaps[i], low, high, address, method);
    }
    return JV_HEAP_OUTSIDE;
}

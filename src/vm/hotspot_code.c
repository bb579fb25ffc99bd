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

#include "platform/platform.h"
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
    /* For a compiled frame being set up or taken down: where it is complete, its method's jmethodID */
    uint64_t frame_complete;         /* CodeBlob::_frame_complete_offset, from its code's start */
    uint64_t code_begin;             /* CodeBlob::_code_begin (char *), or with code_is_offset ... */
    int code_is_offset;              /* ... CodeBlob::_code_offset, from the blob (JDK 23 on) */
    uint64_t frame_complete_size, code_offset_size; /* their sizes: ints, smaller from JDK 23 on */
    uint64_t const_method, constants, idnum, holder, jmethod_ids; /* Method -> ConstMethod -> ... */
} at;
static int readable, prologues_readable;
static atomic_int layout_once;

static int is_int_size(uint64_t size)
{
    return size == sizeof(int16_t) || size == sizeof(int32_t);
}

/* A signed integer field of size 2 or 4 bytes (is_int_size). */
static int int_at(const char *base, uint64_t offset, uint64_t size)
{
    int16_t short_value;
    int32_t value;
    if (size == sizeof(short_value)) {
        memcpy(&short_value, base + offset, sizeof(short_value));
        return short_value;
    }
    memcpy(&value, base + offset, sizeof(value));
    return value;
}

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
    prologues_readable =
        readable && jv_sa_field_offset(&t, "CodeBlob", "_frame_complete_offset", &at.frame_complete) &&
        is_int_size(at.frame_complete_size = jv_sa_field_size(&t, "CodeBlob", "_frame_complete_offset")) &&
        (jv_sa_field_offset(&t, "CodeBlob", "_code_begin", &at.code_begin) ||
         ((at.code_is_offset = jv_sa_field_offset(&t, "CodeBlob", "_code_offset", &at.code_begin)) &&
          is_int_size(at.code_offset_size = jv_sa_field_size(&t, "CodeBlob", "_code_offset")))) &&
        jv_sa_field_offset(&t, "Method", "_constMethod", &at.const_method) &&
        jv_sa_field_offset(&t, "ConstMethod", "_constants", &at.constants) &&
        jv_sa_field_offset(&t, "ConstMethod", "_method_idnum", &at.idnum) &&
        jv_sa_field_offset(&t, "ConstantPool", "_pool_holder", &at.holder) &&
        jv_sa_field_offset(&t, "InstanceKlass", "_methods_jmethod_ids", &at.jmethod_ids);
}

static uintptr_t word_at(const char *base, uint64_t offset)
{
    uintptr_t value;
    memcpy(&value, base + offset, sizeof(value));
    return value;
}

/* address lies in heap's committed code [low, high): the CodeBlob of its block, 0 where no block is. */
static uintptr_t block_blob(const char *heap, uintptr_t low, uintptr_t address)
{
    int log2;
    memcpy(&log2, heap + at.log2_segment, sizeof(log2));
    const uint8_t *map = (const uint8_t *)word_at(heap + at.segmap, at.space_low);
    uintptr_t map_end = word_at(heap + at.segmap, at.space_high);
    if (log2 <= 0 || log2 >= 32 || !map || map_end <= (uintptr_t)map)
        return 0;
    uintptr_t segment = (address - low) >> log2;
    if (segment >= map_end - (uintptr_t)map || map[segment] == FREE_SEGMENT)
        return 0;
    for (uint8_t back; (back = map[segment]) != 0; segment -= back)
        if (back == FREE_SEGMENT || back > segment)
            return 0;
    return low + (segment << log2) + at.block_header;
}

void jv_hotspot_code_prepare(void)
{
    jv_once(&layout_once, find_layout);
}

/* The code heap address lies in (JV_HEAP_OTHER_CODE, its blob in *blob and the heap's end in
 * *high; *blob 0 where no block is there), else JV_HEAP_OUTSIDE or JV_HEAP_UNREADABLE. */
static jv_heap_code find_blob(uintptr_t address, uintptr_t *blob, uintptr_t *high)
{
    if (atomic_load_explicit(&layout_once, memory_order_acquire) != JV_ONCE_DONE || !readable)
        return JV_HEAP_UNREADABLE; /* not prepared yet: no lookup here, which may be a handler */
    const char *array = *at.heaps;
    if (!array)
        return JV_HEAP_OUTSIDE;
    int count;
    memcpy(&count, array + at.array_length, sizeof(count));
    const char *const *heaps = (const char *const *)word_at(array, at.array_data);
    for (int i = 0; heaps && i < count; i++) {
        const char *memory = heaps[i] + at.memory;
        uintptr_t low = word_at(memory, at.space_low);
        *high = word_at(memory, at.space_high);
        if (address >= low && address < *high) {
            *blob = block_blob(heaps[i], low, address);
            return JV_HEAP_OTHER_CODE;
        }
    }
    return JV_HEAP_OUTSIDE;
}

jv_heap_code jv_hotspot_code_at(uintptr_t address, jmethodID method)
{
    uintptr_t blob = 0, high = 0;
    jv_heap_code found = find_blob(address, &blob, &high);
    if (found != JV_HEAP_OTHER_CODE || !blob || !method || blob + at.nmethod_method + sizeof(void *) > high)
        return found;
    /* A block that holds no nmethod has other data there, which is no Method* a jmethodID points to. */
    return word_at((const char *)blob, at.nmethod_method) == *(const uintptr_t *)method ? JV_HEAP_METHOD_CODE
                                                                                        : JV_HEAP_OTHER_CODE;
}

/* The jmethodID of a Method* (InstanceKlass::jmethod_id_or_null's lookup: the holder's array of
 * them, its length first, by the method's idnum), read without faulting; NULL where there is none. */
static jmethodID jmethod_of(uintptr_t method)
{
    uintptr_t const_method = 0, constants = 0, holder = 0, ids = 0, length = 0, id = 0;
    uint16_t idnum = 0;
    if (!plat_read_memory(method + at.const_method, &const_method, sizeof(const_method)) || !const_method ||
        !plat_read_memory(const_method + at.constants, &constants, sizeof(constants)) || !constants ||
        !plat_read_memory(const_method + at.idnum, &idnum, sizeof(idnum)) ||
        !plat_read_memory(constants + at.holder, &holder, sizeof(holder)) || !holder ||
        !plat_read_memory(holder + at.jmethod_ids, &ids, sizeof(ids)) || !ids ||
        !plat_read_memory(ids, &length, sizeof(length)) || length <= idnum ||
        !plat_read_memory(ids + (idnum + 1u) * sizeof(uintptr_t), &id, sizeof(id)) || !id)
        return NULL;
    uintptr_t points_to = 0; /* a jmethodID points to its Method* */
    return plat_read_memory(id, &points_to, sizeof(points_to)) && points_to == method ? (jmethodID)id : NULL;
}

/* Whether a return address follows a call, as every return address does: call rel32, or an
 * indirect call through a register or memory (the encodings HotSpot's code and stubs use). */
static int after_call(uint64_t return_address)
{
    uint8_t b[6];
    if (!plat_read_memory(return_address - sizeof(b), b, sizeof(b)))
        return 0;
    return b[1] == 0xe8 ||                                                   /* call rel32 */
           (b[4] == 0xff && (b[5] & 0xf8) == 0xd0) ||                         /* call *%reg */
           (b[3] == 0x41 && b[4] == 0xff && (b[5] & 0xf8) == 0xd0) ||         /* call *%r8-15 */
           (b[3] == 0xff && (b[4] & 0xf8) == 0x50) ||                         /* call *disp8(%reg) */
           (b[0] == 0xff && ((b[1] & 0xf8) == 0x90 || b[1] == 0x15));         /* call *disp32(%reg), *rip */
}

/* The stack's state at ip, where the frame is being set up or taken down, from the instructions
 * HotSpot's x86-64 compilers emit there: how far above sp the return address lies, and whether
 * the caller's %rbp is saved just below it (else it is still in the register).  Prologue (after the
 * inline-cache check and the stack bangs, which leave the stack as the call left it): push %rbp
 * [; mov %rsp,%rbp] ; sub $size,%rsp, or without bangs sub $size,%rsp ; mov %rbp,size(%rsp).
 * Epilogue: add $size,%rsp ; pop %rbp ; [the return's safepoint poll] ; ret.  Elsewhere (before
 * push %rbp, after pop %rbp) the stack is as the call left it; the caller found there is checked. */
static void edge_state(uintptr_t ip, uintptr_t begin, uint64_t *above, int *saved)
{
    const uint8_t *at_ip = (const uint8_t *)ip;
    int32_t size = 0;
    *saved = 0;
    if ((ip >= begin + 1 && at_ip[-1] == 0x55) || /* after push %rbp, or push and mov %rsp,%rbp */
        (ip >= begin + 4 && at_ip[-4] == 0x55 && at_ip[-3] == 0x48 && at_ip[-2] == 0x89 && at_ip[-1] == 0xe5) ||
        at_ip[0] == 0x5d) { /* at pop %rbp */
        *above = 8, *saved = 1;
        return;
    }
    if (at_ip[0] == 0x48 && at_ip[1] == 0x89 && (at_ip[2] == 0x6c || at_ip[2] == 0xac) && at_ip[3] == 0x24)
        size = at_ip[2] == 0x6c ? (int8_t)at_ip[4] : (memcpy(&size, at_ip + 4, sizeof(size)), size); /* mov %rbp,size(%rsp) */
    else if (at_ip[0] == 0x48 && (at_ip[1] == 0x83 || at_ip[1] == 0x81) && at_ip[2] == 0xc4)
        size = at_ip[1] == 0x83 ? (int8_t)at_ip[3] : (memcpy(&size, at_ip + 3, sizeof(size)), size); /* add $size,%rsp */
    *above = size > 0 ? (uint64_t)size + 8 : 0;
    *saved = size > 0 && at_ip[0] == 0x48 && at_ip[2] == 0xc4; /* add: %rbp saved at size(%rsp) */
}

int jv_hotspot_frame_edge(uintptr_t ip, uint64_t sp, uint64_t fp, jv_frame_edge *out)
{
    uintptr_t blob = 0, high = 0;
    if (find_blob(ip, &blob, &high) != JV_HEAP_OTHER_CODE || !blob || !prologues_readable ||
        blob + at.nmethod_method + sizeof(void *) > high)
        return 0;
    int complete = int_at((const char *)blob, at.frame_complete, at.frame_complete_size);
    uintptr_t begin = at.code_is_offset
                          ? blob + (uintptr_t)(intptr_t)int_at((const char *)blob, at.code_begin, at.code_offset_size)
                          : word_at((const char *)blob, at.code_begin);
    if (complete <= 0 || ip < begin || ip + 8 > high)
        return 0; /* a blob that never has a frame says so with a negative offset */
    uintptr_t method = word_at((const char *)blob, at.nmethod_method);
    if (!method || !(out->method = jmethod_of(method)))
        return 0; /* no nmethod there (a stub's block has other data), or no jmethodID yet */
    uint64_t above;
    int saved;
    edge_state(ip, begin, &above, &saved);
    uint64_t slot = sp + above; /* the return address */
    out->fp = fp;
    out->caller_sp = slot + 8;
    if (!plat_read_memory(slot, &out->caller_ip, sizeof(out->caller_ip)) ||
        (saved && !plat_read_memory(slot - 8, &out->fp, sizeof(out->fp))))
        return 0;
    /* The caller is Java code (compiled or interpreted) or a stub, in a code heap, at a call. */
    uintptr_t caller_blob = 0, caller_high = 0;
    return find_blob(out->caller_ip, &caller_blob, &caller_high) == JV_HEAP_OTHER_CODE && caller_blob &&
           after_call(out->caller_ip);
}

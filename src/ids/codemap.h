/*
 * codemap.h - the map of generated code: which compiled method or VM stub an address
 * belongs to.
 *
 * Fed by JVMTI's CompiledMethodLoad / CompiledMethodUnload (compiled methods) and
 * DynamicCodeGenerated (the interpreter and VM stubs), replayed at start by GenerateEvents.
 * The stubs are always kept; the compiled methods only from the first jv_codemap_want_compiled
 * on: with CompiledMethodLoad on, HotSpot builds every compiled method's address map and inlining
 * record and wakes its service thread to post it, a few percent of a program's processor time
 * while the JIT is busy, which a sampler that only needs to tell generated code from a library's
 * (native_walk.c) does not pay.
 * Code memory is reused: an entry that overlaps newer code is dead and stops mapping, so
 * the newest code always wins; an unload removes exactly the entry it names.  Updates take
 * a mutex; lookups take no lock and cost O(log n): a binary search of a sorted array plus a
 * scan of the few newest entries not merged into it yet.
 */
#ifndef JEVMON_CODEMAP_H
#define JEVMON_CODEMAP_H

#include <stddef.h>
#include <stdint.h>

#include <jni.h>

typedef enum jv_code_kind {
    JV_CODE_NONE = 0,     /* not generated code the JVM told us about */
    JV_CODE_COMPILED = 1, /* a JIT-compiled method */
    JV_CODE_STUB = 2      /* VM-generated code: the interpreter, call stubs, runtime stubs */
} jv_code_kind;

typedef struct jv_code_range {
    uintptr_t start, end; /* [start, end) */
    jmethodID method;     /* JV_CODE_COMPILED: the compiled method */
    const char *name;     /* JV_CODE_STUB: the VM's name for it, valid until jv_codemap_destroy */
} jv_code_range;

void jv_codemap_init(void);
/* Frees everything; no lookup may be running. */
void jv_codemap_destroy(void);

void jv_codemap_add_compiled(jmethodID method, const void *code, size_t size);
void jv_codemap_add_stub(const char *name, const void *code, size_t size);
/* Forgets the compiled code of method at code, unless newer code replaced it already. */
void jv_codemap_remove_compiled(jmethodID method, const void *code);

/* The compiled methods are needed (a sample's location, a method's compiled code): the JIT's
 * events go on, once, with a replay of what was compiled before, which the first caller runs
 * before it returns.  Cheap after that; a call on another thread meanwhile does not wait (the
 * replay's callbacks may call it), so a lookup there may miss a method not replayed yet. */
void jv_codemap_want_compiled(void);
/* Called once the JIT's events can be switched (events/jit.c, at VMInit or the attach): start switches
 * the compiled methods' events on and replays them; it runs now if they were wanted already. */
void jv_codemap_compiled_source(void (*start)(void));

/* What address lies in; *range is filled unless the answer is JV_CODE_NONE.  Lock-free. */
jv_code_kind jv_codemap_find(uintptr_t address, jv_code_range *range);

#endif

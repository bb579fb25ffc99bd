/*
 * original_code.h - what the instrumented path changed in the code, taken back out of what monitors
 * see: the class file's own bytecodes of every rewritten method, where each of its
 * instructions went (cf_offset_map), and which frames are the bridge's.
 *
 * The class-file hook records each method it rewrites under its class, name and descriptor
 * (it has no jmethodID yet).  A method's record is found from its current bytecodes
 * (GetBytecodes): a record matches when its rewrite has their length and every instruction
 * the rewriter does not change is where the record puts it, so a class loaded twice, or by
 * two loaders with different code, finds its own.  Records stay until the agent ends.
 */
#ifndef JEVMON_ORIGINAL_CODE_H
#define JEVMON_ORIGINAL_CODE_H

#include <stdint.h>

#include "classfile/classfile.h"
#include "vm/vm.h"

typedef struct jv_rewrite jv_rewrite;

void jv_rewrites_init(void);

/* A method the class-file hook rewrote (any thread; class_name in internal form). */
void jv_rewrite_record(const char *class_name, const char *name, const char *descriptor, const cf_offset_map *map);
/* A method rewritten again (the class-file hook's second part rewriting the first's output):
 * when map's original is a recorded rewrite, the record says where the class file's code went
 * through both; otherwise map's original is the class file's code, recorded as above. */
void jv_rewrite_record_again(const char *class_name, const char *name, const char *descriptor,
                             const cf_offset_map *map);
/* Has any method been recorded?  (Without, the JVM runs every class file's own code.) */
int jv_rewrites_recorded(void);
/* The record of the method whose bytecodes are now code, or NULL when they are the class file's. */
const jv_rewrite *jv_rewrite_find(const char *class_name, const char *name, const char *descriptor,
                                  const uint8_t *code, uint32_t length);
/* The class file's bytecodes of the method. */
const uint8_t *jv_rewrite_original(const jv_rewrite *r, uint32_t *length);
/* The class file's offset of the instruction whose code holds a rewritten offset (the injected
 * entry call belongs to the first instruction, an exit call to its return, the injected handler
 * to the last); *starts is set when the instruction itself starts there, unset in injected code. */
uint32_t jv_rewrite_offset(const jv_rewrite *r, uint32_t offset, int *starts);

/* A bridge class's method (a native of jevmon/Bridge or jevmon/Watch, which injected code
 * calls): its frames are hidden from monitors, like those hidden before. */
void jv_rewrite_hide_bridge_method(jmethodID method);
int jv_rewrite_is_bridge_method(jmethodID method);

#endif

/*
 * method.h - the method table: a MethodID per jmethodID.
 *
 * MethodIDs are registered with their class (class.c).  The method-call path maps a
 * jmethodID to its MethodID through an open-addressing hash whose slots are filled
 * with compare-and-swap, so lookups never take a lock.
 */
#ifndef JEVMON_METHOD_H
#define JEVMON_METHOD_H

#include <stdatomic.h>
#include <stdint.h>

#include "ids/codemap.h"
#include "ids/original_code.h"
#include "jevmon.h"
#include "vm/vm.h"

/* A method's bytecodes and line table as its class file has them, read once (single-stepping
 * needs them at every step).  On the instrumented path rewrite says how the code the JVM runs
 * maps to them (NULL: the JVM runs the class file's code). */
typedef struct jv_method_code {
    BYTE_CODE *bytecodes;
    jint bytecode_count;
    jvmtiLineNumberEntry *lines;
    jint line_count;
    const jv_rewrite *rewrite;
} jv_method_code;

/* What MethodInformation answers.  A class's CLASS_UNLOAD comes after the JVM freed its methods,
 * and the ID answers until that event returns, so the facts of a class that may be unloaded are read
 * when it is registered; those of a class that never is (the boot loader's, not hidden: most of a
 * JVM's classes at VMInit) when first asked for. */
typedef struct jv_method_facts {
    char *name;      /* "name\0descriptor\0", malloc'd */
    const char *descriptor;
    jint modifiers;
    SourceLineInfo *lines; /* malloc'd; NULL when it has none */
    int line_count;
} jv_method_facts;

typedef struct jv_method {
    jmethodID jmethod;
    ClassID class_id;
    jv_method_facts facts;              /* once facts_read */
    _Atomic int facts_read;
    _Atomic uint32_t specific_monitors; /* bit i: monitor i enabled this method with EnableMethodCallEvents */
    const void *_Atomic code;           /* its latest JIT-compiled code; the code map says if it is still there */
    jv_method_code *_Atomic stepping; /* read on the first step into the method */
    _Atomic uint32_t bridge_int;      /* instrumented path: its latest method int + 1, 0 before its first call */
    _Atomic int entry_watch;          /* JVMTI path, while enabled: how its calls are caught (specific_regions.c) */
} jv_method;

void jv_methods_init(void);
void jv_methods_destroy(void);

/* Registers a method of a class being registered, its facts read now or (permanent) when first
 * asked for; returns its MethodID (the existing one if known). */
MethodID jv_method_register(jmethodID jmethod, ClassID class_id, int permanent);
/* The MethodID of jmethod, registering its class when it is not known yet; 0 on failure. */
MethodID jv_method_id(JNIEnv *env, jmethodID jmethod);
/* The entry of a method whose class is live, or NULL for an invalid, foreign or stale MethodID. */
jv_method *jv_method_get(MethodID id);
/* The method's bytecodes and line table, read from the JVM the first time; NULL on failure. */
const jv_method_code *jv_method_code_of(jv_method *m);
/* The class file's offset of a location in the code the JVM runs (original_code.h's jv_rewrite_offset;
 * *starts set for any location of code the JVM runs as the class file has it). */
jlocation jv_method_code_offset(const jv_method_code *code, jlocation location, int *starts);
/* Records the latest compiled code of a method (CompiledMethodLoad). */
void jv_method_set_code(jmethodID jmethod, const void *code);
/* Is the method's latest compiled code still in place (not unloaded, its memory not reused)?
 * Then *range is that code.  0 for NULL. */
int jv_method_compiled_code(jv_method *m, jv_code_range *range);
/* The entry behind a MethodID the bridge made itself (no liveness check): for the method-call path. */
jv_method *jv_method_entry(MethodID id);

/* This concern's methods of the IJavaEventMonitorIDInfo objects (their vtables: idinfo/idinfo.c). */
HRESULT STDMETHODCALLTYPE idinfo_InterpretedMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, unsigned int *pbyte_code_length, BYTE_CODE **ppbyte_codes);
HRESULT STDMETHODCALLTYPE idinfo_JITCompiledMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, unsigned int *pjit_code_length, unsigned char **ppjit_code);
HRESULT STDMETHODCALLTYPE idinfo_MethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id, LPSTR *ppmethod_name, ClassID *pclass_id, JAVA_EXECUTION_MODEL *pexec, int *psource_line_info_length, SourceLineInfo **ppsource_line_info);

#endif

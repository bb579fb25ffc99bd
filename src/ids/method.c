/*
 * method.c - the method table and its lock-free jmethodID index (see method.h), and the
 * IDInfo methods about methods: MethodInformation, InterpretedMethodInformation,
 * JITCompiledMethodInformation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ids/class.h"
#include "ids/codemap.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/table.h"

#define INDEX_BITS 22 /* 4M slots: twice the table's capacity keeps probes short */
#define INDEX_SIZE ((size_t)1 << INDEX_BITS)

typedef struct index_slot {
    _Atomic(jmethodID) key;
    _Atomic MethodID value; /* 0 until the entry is published */
} index_slot;

static jv_table methods;
static index_slot *method_index;
static plat_mutex *facts_lock; /* one late read of a method's facts at a time */

void jv_methods_init(void)
{
    jv_table_init(&methods, sizeof(jv_method));
    method_index = calloc(INDEX_SIZE, sizeof(*method_index));
    facts_lock = plat_mutex_create();
}

void jv_methods_destroy(void)
{
    uint32_t n = jv_table_count(&methods);
    for (uint32_t i = 0; i < n; i++) {
        jv_method *m = jv_table_get(&methods, i);
        jv_method_code *code = atomic_load(&m->stepping);
        free(m->facts.name);
        free(m->facts.lines);
        if (code) {
            free(code->bytecodes);
            free(code->lines);
            free(code);
        }
    }
    jv_table_destroy(&methods);
    free(method_index);
    method_index = NULL;
    plat_mutex_destroy(facts_lock);
    facts_lock = NULL;
}

/*
 * A jmethodID points into one of HotSpot's arrays of method pointers, and a class's
 * jmethodIDs are made together, side by side: consecutive pointers get consecutive slots,
 * so registering a class touches a page or two of the index rather than one per method
 * (the index is large, and untouched pages cost nothing).  The address range an index's
 * worth of pointers spans gets a scrambled offset of its own.
 */
static size_t slot_of(jmethodID jmethod)
{
    uint64_t pointer = (uint64_t)(uintptr_t)jmethod / sizeof(void *);
    uint64_t range = (pointer >> INDEX_BITS) * 0x9E3779B97F4A7C15ull;
    return (size_t)((pointer + (range >> (64 - INDEX_BITS))) & (INDEX_SIZE - 1));
}

static MethodID index_lookup(jmethodID jmethod)
{
    for (size_t i = slot_of(jmethod), probes = 0; probes < INDEX_SIZE; i = (i + 1) & (INDEX_SIZE - 1), probes++) {
        jmethodID key = atomic_load_explicit(&method_index[i].key, memory_order_acquire);
        if (key == jmethod) {
            MethodID value;
            while (!(value = atomic_load_explicit(&method_index[i].value, memory_order_acquire)))
                ; /* another thread is publishing this entry right now */
            return value;
        }
        if (!key)
            return 0;
    }
    return 0;
}

static void method_init(void *element, void *arg)
{
    jv_method *m = element, *from = arg;
    m->jmethod = from->jmethod;
    m->class_id = from->class_id;
    m->facts = from->facts;
    atomic_store_explicit(&m->facts_read, atomic_load(&from->facts_read), memory_order_release);
}

/* The method's line table as MethodInformation gives it (malloc'd), or NULL with *count 0. */
static SourceLineInfo *read_line_table(jmethodID jmethod, int *count)
{
    jint n = 0;
    jvmtiLineNumberEntry *lines = NULL;
    SourceLineInfo *table = NULL;
    *count = 0;
    if ((*jv_jvmti)->GetLineNumberTable(jv_jvmti, jmethod, &n, &lines) != JVMTI_ERROR_NONE)
        return NULL;
    if (n > 0 && (table = malloc((size_t)n * sizeof(*table)))) {
        for (jint i = 0; i < n; i++) {
            table[i].code_offset = (DWORD)lines[i].start_location;
            table[i].line_number = (DWORD)lines[i].line_number;
        }
        *count = n;
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)lines);
    return table;
}

/* Reads what MethodInformation needs once the JVM has freed the method; 0 when it cannot. */
static int read_facts(jmethodID jmethod, jv_method_facts *facts)
{
    char *name = NULL, *descriptor = NULL;
    memset(facts, 0, sizeof(*facts));
    if ((*jv_jvmti)->GetMethodName(jv_jvmti, jmethod, &name, &descriptor, NULL) != JVMTI_ERROR_NONE)
        return 0;
    size_t name_size = strlen(name) + 1, descriptor_size = strlen(descriptor) + 1;
    if ((facts->name = malloc(name_size + descriptor_size))) {
        memcpy(facts->name, name, name_size);
        memcpy(facts->name + name_size, descriptor, descriptor_size);
        facts->descriptor = facts->name + name_size;
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    if (!facts->name || (*jv_jvmti)->GetMethodModifiers(jv_jvmti, jmethod, &facts->modifiers) != JVMTI_ERROR_NONE) {
        free(facts->name);
        return 0;
    }
    facts->lines = read_line_table(jmethod, &facts->line_count);
    return 1;
}

MethodID jv_method_register(jmethodID jmethod, ClassID class_id, int permanent)
{
    if (!method_index)
        return 0;
    for (size_t i = slot_of(jmethod), probes = 0; probes < INDEX_SIZE; i = (i + 1) & (INDEX_SIZE - 1), probes++) {
        jmethodID expected = NULL;
        if (atomic_compare_exchange_strong(&method_index[i].key, &expected, jmethod)) {
            jv_method m = {.jmethod = jmethod, .class_id = class_id, .facts_read = !permanent};
            uint32_t index = permanent || read_facts(jmethod, &m.facts) ? jv_table_add(&methods, method_init, &m)
                                                                        : UINT32_MAX;
            if (index == UINT32_MAX) {
                free(m.facts.name);
                free(m.facts.lines);
            }
            MethodID id = index == UINT32_MAX ? (MethodID)JV_ID_METHOD /* never valid */ : jv_id_make(JV_ID_METHOD, index);
            atomic_store_explicit(&method_index[i].value, id, memory_order_release);
            return index == UINT32_MAX ? 0 : id;
        }
        if (expected == jmethod)
            return index_lookup(jmethod);
    }
    return 0;
}

MethodID jv_method_id(JNIEnv *env, jmethodID jmethod)
{
    if (!jmethod)
        return 0; /* the index's empty slots hold NULL keys */
    MethodID id = index_lookup(jmethod);
    if (id || !env)
        return id;
    jclass klass = NULL;
    if ((*jv_jvmti)->GetMethodDeclaringClass(jv_jvmti, jmethod, &klass) != JVMTI_ERROR_NONE)
        return 0;
    jv_class_id(env, klass);
    (*env)->DeleteLocalRef(env, klass);
    return index_lookup(jmethod);
}

jv_method *jv_method_entry(MethodID id)
{
    uint32_t index;
    return jv_id_index(id, JV_ID_METHOD, &index) ? jv_table_get(&methods, index) : NULL;
}

jv_method *jv_method_get(MethodID id)
{
    jv_method *m = jv_method_entry(id);
    return m && jv_class_get(m->class_id) ? m : NULL;
}

/* The method's facts, read now if they were not; NULL when the JVM no longer has them. */
static const jv_method_facts *facts_of(jv_method *m)
{
    if (atomic_load_explicit(&m->facts_read, memory_order_acquire))
        return &m->facts;
    plat_mutex_lock(facts_lock);
    int read = atomic_load(&m->facts_read) || read_facts(m->jmethod, &m->facts);
    if (read)
        atomic_store_explicit(&m->facts_read, 1, memory_order_release);
    plat_mutex_unlock(facts_lock);
    return read ? &m->facts : NULL;
}

/* "java/lang/Object.hashCode()I" in CoTaskMem. */
static char *method_full_name(jv_method *m)
{
    jv_class *c = jv_class_get(m->class_id);
    const jv_method_facts *facts = c ? facts_of(m) : NULL;
    char *result = NULL;
    if (!facts)
        return NULL;
    const char *cls = c->signature;
    size_t cls_len = strlen(cls);
    if (cls[0] == 'L' && cls_len >= 2) {
        cls++;
        cls_len -= 2;
    }
    size_t len = cls_len + 1 + strlen(facts->name) + strlen(facts->descriptor) + 1;
    if ((result = CoTaskMemAlloc(len)))
        snprintf(result, len, "%.*s.%s%s", (int)cls_len, cls, facts->name, facts->descriptor);
    return result;
}

static JAVA_EXECUTION_MODEL execution_model(jv_method *m)
{
    const jv_method_facts *facts = facts_of(m);
    if (facts && (facts->modifiers & 0x0100 /* ACC_NATIVE */))
        return JVM_EXECUTION_NATIVE;
    /* HotSpot starts every method in the interpreter; only a -Xint VM never compiles. */
    return JVM_EXECUTION_INTERPRETED;
}

/* The JVM's line table while the class is loaded (the bridge may rewrite a class after its
 * registration), the one read at registration while its CLASS_UNLOAD is delivered. */
static HRESULT line_table(jv_method *m, int *plength, SourceLineInfo **pinfo)
{
    jv_class *c = jv_class_get(m->class_id);
    *plength = 0;
    *pinfo = NULL;
    if (c && atomic_load(&c->state) == JV_CLASS_UNLOADING) {
        /* The class is going: the table read at registration (never a permanent class's). */
        int count = atomic_load(&m->facts_read) ? m->facts.line_count : 0;
        if (count <= 0)
            return S_OK;
        if (!(*pinfo = CoTaskMemAlloc((size_t)count * sizeof(SourceLineInfo))))
            return E_OUTOFMEMORY;
        memcpy(*pinfo, m->facts.lines, (size_t)count * sizeof(SourceLineInfo));
        *plength = count;
        return S_OK;
    }
    const jv_method_code *code = jv_method_code_of(m);
    if (!code || code->line_count <= 0)
        return S_OK; /* no line numbers (or no bytecode): an empty table */
    if (!(*pinfo = CoTaskMemAlloc((size_t)code->line_count * sizeof(SourceLineInfo))))
        return E_OUTOFMEMORY;
    for (jint i = 0; i < code->line_count; i++) {
        (*pinfo)[i].code_offset = (DWORD)code->lines[i].start_location;
        (*pinfo)[i].line_number = (DWORD)code->lines[i].line_number;
    }
    *plength = code->line_count;
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_MethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id,
                                                   LPSTR *ppmethod_name, ClassID *pclass_id,
                                                   JAVA_EXECUTION_MODEL *pexec, int *psource_line_info_length,
                                                   SourceLineInfo **ppsource_line_info)
{
    (void)iface;
    jv_method *m = jv_method_get(method_id);
    if (!m || !jv_jvmti)
        return E_FAIL;
    jv_jni(); /* JVMTI refuses threads the JVM has not seen: a monitor's own thread is attached first */
    if (ppmethod_name && !(*ppmethod_name = method_full_name(m)))
        return E_FAIL;
    if (pclass_id)
        *pclass_id = m->class_id;
    if (pexec)
        *pexec = execution_model(m);
    if (psource_line_info_length && ppsource_line_info)
        return line_table(m, psource_line_info_length, ppsource_line_info);
    return S_OK;
}

HRESULT STDMETHODCALLTYPE idinfo_InterpretedMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id,
                                                              unsigned int *pbyte_code_length,
                                                              BYTE_CODE **ppbyte_codes)
{
    (void)iface;
    jv_method *m = jv_method_get(method_id);
    jv_jni(); /* attached first, as above */
    const jv_method_code *code = jv_method_code_of(m);
    if (!code || !pbyte_code_length || !ppbyte_codes)
        return E_FAIL;
    *ppbyte_codes = CoTaskMemAlloc(code->bytecode_count ? (size_t)code->bytecode_count : 1);
    if (*ppbyte_codes) {
        memcpy(*ppbyte_codes, code->bytecodes, (size_t)code->bytecode_count);
        *pbyte_code_length = (unsigned)code->bytecode_count;
    }
    return *ppbyte_codes ? S_OK : E_OUTOFMEMORY;
}

void jv_method_set_code(jmethodID jmethod, const void *code)
{
    jv_method *m = jv_method_entry(index_lookup(jmethod));
    if (m)
        atomic_store(&m->code, code);
}

int jv_method_compiled_code(jv_method *m, jv_code_range *range)
{
    jv_codemap_want_compiled();
    const void *code = m ? atomic_load(&m->code) : NULL;
    /* The code map knows whether the code was unloaded or its memory reused since. */
    return code && jv_codemap_find((uintptr_t)code, range) == JV_CODE_COMPILED && range->method == m->jmethod &&
           range->start == (uintptr_t)code;
}

HRESULT STDMETHODCALLTYPE idinfo_JITCompiledMethodInformation(IJavaEventMonitorIDInfo4 *iface, MethodID method_id,
                                                              unsigned int *pjit_code_length, unsigned char **ppjit_code)
{
    (void)iface;
    jv_code_range range;
    if (!pjit_code_length || !ppjit_code || !jv_method_compiled_code(jv_method_get(method_id), &range))
        return E_FAIL; /* not compiled (now), or not since the agent started listening */
    size_t size = range.end - range.start;
    if (!(*ppjit_code = CoTaskMemAlloc(size)))
        return E_OUTOFMEMORY;
    memcpy(*ppjit_code, (const void *)range.start, size);
    *pjit_code_length = (unsigned)size;
    return S_OK;
}

/* A malloc'd copy of JVMTI-allocated memory, which it deallocates. */
static void *take_jvmti_memory(void *data, size_t size)
{
    void *copy = size ? malloc(size) : NULL;
    if (copy)
        memcpy(copy, data, size);
    if (data)
        (*jv_jvmti)->Deallocate(jv_jvmti, data);
    return copy;
}

/* The record of m's rewrite when the JVM runs one (its bytecodes are code), else NULL. */
static const jv_rewrite *rewrite_of(jv_method *m, const uint8_t *code, jint length)
{
    jv_class *c = jv_class_get(m->class_id);
    char *name = NULL, *sig = NULL;
    if (!jv_rewrites_recorded() || !c || c->signature[0] != 'L' ||
        (*jv_jvmti)->GetMethodName(jv_jvmti, m->jmethod, &name, &sig, NULL) != JVMTI_ERROR_NONE)
        return NULL;
    const jv_rewrite *found = NULL;
    size_t class_length = strlen(c->signature) - 2; /* "Lpkg/Name;" */
    char *class_name = malloc(class_length + 1);
    if (class_name) {
        memcpy(class_name, c->signature + 1, class_length);
        class_name[class_length] = '\0';
        found = jv_rewrite_find(class_name, name, sig, code, (uint32_t)length);
    }
    free(class_name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)name);
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)sig);
    return found;
}

/* fresh's bytecodes and line offsets made the class file's, when they are a rewrite's. */
static void undo_rewrite(jv_method *m, jv_method_code *fresh)
{
    if (!(fresh->rewrite = rewrite_of(m, fresh->bytecodes, fresh->bytecode_count)))
        return;
    uint32_t length;
    const uint8_t *original = jv_rewrite_original(fresh->rewrite, &length);
    BYTE_CODE *copy = malloc(length ? length : 1);
    if (!copy) {
        free(fresh->bytecodes);
        fresh->bytecodes = NULL; /* out of memory: no code rather than the rewrite */
        return;
    }
    memcpy(copy, original, length);
    free(fresh->bytecodes);
    fresh->bytecodes = copy;
    fresh->bytecode_count = (jint)length;
    for (jint i = 0; i < fresh->line_count; i++) {
        int starts;
        fresh->lines[i].start_location = jv_method_code_offset(fresh, fresh->lines[i].start_location, &starts);
    }
}

const jv_method_code *jv_method_code_of(jv_method *m)
{
    if (!m)
        return NULL;
    jv_method_code *code = atomic_load(&m->stepping);
    if (code)
        return code;
    unsigned char *bytes = NULL;
    jvmtiLineNumberEntry *lines = NULL;
    jv_method_code fresh = {0};
    if ((*jv_jvmti)->GetBytecodes(jv_jvmti, m->jmethod, &fresh.bytecode_count, &bytes) != JVMTI_ERROR_NONE)
        return NULL;
    fresh.bytecodes = take_jvmti_memory(bytes, (size_t)fresh.bytecode_count);
    if ((*jv_jvmti)->GetLineNumberTable(jv_jvmti, m->jmethod, &fresh.line_count, &lines) == JVMTI_ERROR_NONE)
        fresh.lines = take_jvmti_memory(lines, (size_t)fresh.line_count * sizeof(*lines));
    if (!fresh.lines)
        fresh.line_count = 0;
    if (fresh.bytecodes)
        undo_rewrite(m, &fresh);
    code = malloc(sizeof(*code));
    jv_method_code *expected = NULL;
    if (code && fresh.bytecodes) {
        *code = fresh;
        if (atomic_compare_exchange_strong(&m->stepping, &expected, code))
            return code;
    }
    /* Out of memory, or another thread read it first: use what is there. */
    free(fresh.bytecodes);
    free(fresh.lines);
    free(code);
    return expected;
}

jlocation jv_method_code_offset(const jv_method_code *code, jlocation location, int *starts)
{
    *starts = 1;
    if (!code->rewrite || location < 0)
        return location;
    return (jlocation)jv_rewrite_offset(code->rewrite, (uint32_t)location, starts);
}

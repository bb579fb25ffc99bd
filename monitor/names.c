/* names.c - the method and class name caches (see names.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "javaname.h"
#include "names.h"

#define NAME_MAX_BYTES 1024

/* Which form of a method's name tells it apart from the others met so far. */
typedef enum jp_name_form {
    JP_NAME_BRIEF,     /* "pkg.Class.method": no other method has it */
    JP_NAME_SIGNATURE, /* "pkg.Class.method(int, long)": overloads */
    JP_NAME_TYPED      /* "pkg.Class.method(): java.lang.String": a bridge and the method it calls */
} jp_name_form;

/* A cached method name: the brief, the signature and the typed form, the source file and the
 * line table, in one allocation. */
typedef struct jp_method_name {
    jp_name_form form;
    jp_frame_kind kind;
    unsigned long first_line; /* 0: unknown */
    const char *signature;
    const char *typed;
    const char *source_file;  /* NULL: unknown */
    const SourceLineInfo *lines; /* MethodInformation's line table, by code offset */
    size_t line_count;
    char brief[];
} jp_method_name;

int jp_names_init(jp_names *names)
{
    memset(names, 0, sizeof(*names));
    names->lock = plat_mutex_create();
    return names->lock ? 0 : -1;
}

static void free_values(jp_idmap *map)
{
    for (size_t i = 0; i < map->capacity; i++)
        if (map->entries[i].key)
            free((void *)map->entries[i].value);
    jp_idmap_free(map);
}

static int by_code_offset(const void *a, const void *b)
{
    DWORD x = ((const SourceLineInfo *)a)->code_offset, y = ((const SourceLineInfo *)b)->code_offset;
    return x < y ? -1 : x > y;
}

/* source_file may be NULL; the line table, line_count entries, is copied, sorted by code offset, and its
 * first line (the lowest) kept. */
static jp_method_name *method_name_new(const char *brief, const char *signature, const char *typed,
                                       const char *source_file, const SourceLineInfo *lines, size_t line_count)
{
    size_t brief_size = strlen(brief) + 1, signature_size = strlen(signature) + 1, typed_size = strlen(typed) + 1;
    size_t file_size = source_file ? strlen(source_file) + 1 : 0;
    size_t lines_at = sizeof(jp_method_name) + brief_size + signature_size + typed_size + file_size;
    lines_at = (lines_at + _Alignof(SourceLineInfo) - 1) / _Alignof(SourceLineInfo) * _Alignof(SourceLineInfo);
    jp_method_name *name = malloc(lines_at + line_count * sizeof(SourceLineInfo));
    if (!name)
        return NULL;
    name->form = JP_NAME_BRIEF;
    name->kind = JP_FRAME_OTHER;
    name->first_line = 0;
    name->lines = line_count ? memcpy((char *)name + lines_at, lines, line_count * sizeof(*lines)) : NULL;
    name->line_count = line_count;
    if (line_count)
        qsort((char *)name + lines_at, line_count, sizeof(*lines), by_code_offset);
    for (size_t i = 0; i < line_count; i++) /* the method's first line: the lowest of its table */
        if (lines[i].line_number && (!name->first_line || lines[i].line_number < name->first_line))
            name->first_line = lines[i].line_number;
    memcpy(name->brief, brief, brief_size);
    name->signature = name->brief + brief_size;
    memcpy(name->brief + brief_size, signature, signature_size);
    name->typed = name->signature + signature_size;
    memcpy(name->brief + brief_size + signature_size, typed, typed_size);
    name->source_file = source_file ? name->typed + typed_size : NULL;
    if (source_file)
        memcpy(name->brief + brief_size + signature_size + typed_size, source_file, file_size);
    return name;
}

void jp_names_free(jp_names *names)
{
    free_values(&names->methods);
    free_values(&names->classes);
    if (names->lock)
        plat_mutex_destroy(names->lock);
    memset(names, 0, sizeof(*names));
}

/* The VM's class information: its name (malloc'ed) and, when wanted, its methods (CoTaskMem)
 * and its SourceFile attribute (malloc'ed; NULL when it has none). */
static char *ask_class(IJavaEventMonitorIDInfo *info, ClassID klass, int *method_count, MethodID **methods,
                       char **source_file)
{
    LPSTR class_name = NULL, source = NULL;
    int count = 0;
    MethodID *ids = NULL;
    __int64 created = 0;
    if (!info || !klass ||
        FAILED(IJavaEventMonitorIDInfo_ClassInformation(info, klass, &class_name, &source, &count, &ids, &created)))
        class_name = source = NULL, ids = NULL, count = 0;
    if (source_file)
        *source_file = source && *source ? strdup(source) : NULL;
    CoTaskMemFree(source);
    if (methods) {
        *methods = ids;
        *method_count = ids ? count : 0;
    } else {
        CoTaskMemFree(ids);
    }
    char *copy = class_name ? strdup(class_name) : NULL;
    CoTaskMemFree(class_name);
    return copy;
}

/* The source file of the method named vm_name ("java/lang/String.indexOf(II)I") in klass, as a
 * source tree holds it: the package's directories, then the class's SourceFile attribute
 * ("java/lang/String.java"), into out; 0, or -1 when the VM does not say. */
static int ask_source_file(IJavaEventMonitorIDInfo *info, ClassID klass, const char *vm_name, char *out, size_t size)
{
    char *source_file = NULL;
    free(ask_class(info, klass, NULL, NULL, &source_file));
    if (!source_file)
        return -1;
    size_t class_end = strcspn(vm_name, "("), package_end = 0;
    while (class_end > 0 && vm_name[class_end - 1] != '.')
        class_end--;
    for (size_t i = 0; i + 1 < class_end; i++)
        if (vm_name[i] == '/')
            package_end = i + 1;
    snprintf(out, size, "%.*s%s", (int)package_end, vm_name, source_file);
    free(source_file);
    return 0;
}

/* Asks the VM; a malloc'ed name, or NULL. */
static jp_method_name *ask_method_name(IJavaEventMonitorIDInfo *info, MethodID method)
{
    LPSTR vm_name = NULL;
    ClassID klass = 0;
    JAVA_EXECUTION_MODEL model = JVM_EXECUTION_INVALID;
    int line_count = 0;
    SourceLineInfo *lines = NULL;
    char display[NAME_MAX_BYTES], signature[NAME_MAX_BYTES], typed[NAME_MAX_BYTES], source_file[NAME_MAX_BYTES];
    if (!info || FAILED(IJavaEventMonitorIDInfo_MethodInformation(info, method, &vm_name, &klass, &model,
                                                                  &line_count, &lines)))
        vm_name = NULL, lines = NULL;
    if (!vm_name) {
        CoTaskMemFree(lines);
        return NULL;
    }
    jp_display_name(vm_name, display, sizeof(display));
    jp_signature_name(vm_name, signature, sizeof(signature));
    jp_typed_name(vm_name, typed, sizeof(typed));
    int have_source = ask_source_file(info, klass, vm_name, source_file, sizeof(source_file)) == 0;
    CoTaskMemFree(vm_name);
    jp_method_name *name = method_name_new(display, signature, typed, have_source ? source_file : NULL, lines,
                                           lines && line_count > 0 ? (size_t)line_count : 0);
    CoTaskMemFree(lines);
    if (name) {
        /* The model is the method's default, not how a sampled frame ran (javaname.h). */
        name->kind = model == JVM_EXECUTION_NATIVE ? JP_FRAME_NATIVE
                     : model == JVM_EXECUTION_COM  ? JP_FRAME_VM
                                                   : JP_FRAME_JAVA;
    }
    return name;
}

/* Caches a name under key and returns the cached one; takes ownership of name.  The first
 * name cached for a key stays (two threads may resolve the same ID at once, and the string
 * handed to one must not be freed by the other).  Called with the lock held. */
static void *remember(jp_idmap *map, UniqueID key, void *name)
{
    jp_idmap_entry *e = jp_idmap_insert(map, key);
    if (!e || e->value) {
        free(name);
        return e ? (void *)e->value : NULL;
    }
    e->value = (uintptr_t)name;
    return name;
}

/* The cached name of method, asked of the VM when missing; NULL out of memory. */
static const jp_method_name *method_name(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method)
{
    plat_mutex_lock(names->lock);
    jp_idmap_entry *e = jp_idmap_find(&names->methods, method);
    const jp_method_name *name = e ? (const jp_method_name *)e->value : NULL;
    plat_mutex_unlock(names->lock);
    if (name)
        return name;
    jp_method_name *asked = ask_method_name(info, method);
    if (!asked) {
        char unknown[64];
        snprintf(unknown, sizeof(unknown), "<unknown method 0x%llx>", (unsigned long long)method);
        asked = method_name_new(unknown, unknown, unknown, NULL, NULL, 0);
    }
    if (!asked)
        return NULL;
    plat_mutex_lock(names->lock);
    name = remember(&names->methods, method, asked);
    plat_mutex_unlock(names->lock);
    return name;
}

const char *jp_names_method(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method)
{
    const jp_method_name *name = method_name(names, info, method);
    return !name                              ? "<out of memory>"
           : name->form == JP_NAME_TYPED     ? name->typed
           : name->form == JP_NAME_SIGNATURE ? name->signature
                                             : name->brief;
}

const char *jp_names_method_signature(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method)
{
    const jp_method_name *name = method_name(names, info, method);
    return !name ? "<out of memory>" : name->form == JP_NAME_TYPED ? name->typed : name->signature;
}

const char *jp_names_method_source(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method,
                                   unsigned long *first_line)
{
    const jp_method_name *name = method_name(names, info, method);
    *first_line = name ? name->first_line : 0;
    return name ? name->source_file : NULL;
}

unsigned long jp_names_method_line(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method, DWORD offset)
{
    const jp_method_name *name = method_name(names, info, method);
    if (!name)
        return 0;
    /* the last entry starting at or before offset (the table is sorted by code offset) */
    size_t low = 0, high = offset == JEVMON_NO_PC_OFFSET ? 0 : name->line_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (name->lines[middle].code_offset <= offset)
            low = middle + 1;
        else
            high = middle;
    }
    return low && name->lines[low - 1].line_number ? name->lines[low - 1].line_number : name->first_line;
}

jp_frame_kind jp_names_method_kind(jp_names *names, IJavaEventMonitorIDInfo *info, MethodID method)
{
    const jp_method_name *name = method_name(names, info, method);
    return name ? name->kind : JP_FRAME_OTHER;
}

static int by_brief_then_signature(const void *a, const void *b)
{
    const jp_method_name *x = *(jp_method_name *const *)a, *y = *(jp_method_name *const *)b;
    int brief = strcmp(x->brief, y->brief);
    return brief ? brief : strcmp(x->signature, y->signature);
}

static const char *signature_of(const jp_method_name *name)
{
    return name->signature;
}

static const char *typed_of(const jp_method_name *name)
{
    return name->typed;
}

/* Gives form to the methods of all[start, end) when their names in that form (name_in) differ. */
static void distinguish(jp_method_name **all, size_t start, size_t end,
                        const char *(*name_in)(const jp_method_name *), jp_name_form form)
{
    int differ = 0;
    for (size_t i = start + 1; i < end; i++)
        differ |= strcmp(name_in(all[i]), name_in(all[start])) != 0;
    for (size_t i = start; differ && i < end; i++)
        if (all[i]->form < form)
            all[i]->form = form;
}

void jp_names_find_overloads(jp_names *names)
{
    plat_mutex_lock(names->lock);
    jp_method_name **all = malloc((names->methods.count + 1) * sizeof(*all));
    size_t count = 0;
    for (size_t i = 0; all && i < names->methods.capacity; i++)
        if (names->methods.entries[i].key)
            all[count++] = (jp_method_name *)names->methods.entries[i].value;
    if (all)
        qsort(all, count, sizeof(*all), by_brief_then_signature);
    /* Each run of one brief name: overloads when its signatures differ; each run of one
     * signature: a bridge and its covariant method when their return types differ. */
    for (size_t start = 0, end; all && start < count; start = end) {
        for (end = start + 1; end < count && strcmp(all[end]->brief, all[start]->brief) == 0; end++)
            ;
        distinguish(all, start, end, signature_of, JP_NAME_SIGNATURE);
    }
    for (size_t start = 0, end; all && start < count; start = end) {
        for (end = start + 1; end < count && strcmp(all[end]->signature, all[start]->signature) == 0; end++)
            ;
        distinguish(all, start, end, typed_of, JP_NAME_TYPED);
    }
    free(all);
    plat_mutex_unlock(names->lock);
}

char *jp_names_class(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass)
{
    if (!klass)
        return NULL;
    plat_mutex_lock(names->lock);
    jp_idmap_entry *e = jp_idmap_find(&names->classes, klass);
    char *name = e ? (char *)e->value : NULL;
    plat_mutex_unlock(names->lock);
    if (name)
        return name;
    char *asked = ask_class(info, klass, NULL, NULL, NULL);
    if (!asked)
        return NULL;
    plat_mutex_lock(names->lock);
    name = remember(&names->classes, klass, asked);
    plat_mutex_unlock(names->lock);
    return name;
}

char *jp_names_class_of_object(jp_names *names, IJavaEventMonitorIDInfo *info, ObjectID object)
{
    ClassID klass = 0;
    if (!info || FAILED(IJavaEventMonitorIDInfo_ObjectInformation(info, object, &klass)))
        return NULL;
    return jp_names_class(names, info, klass);
}

void jp_names_class_unloading(jp_names *names, IJavaEventMonitorIDInfo *info, ClassID klass)
{
    int count = 0;
    MethodID *methods = NULL;
    free(ask_class(info, klass, &count, &methods, NULL));
    for (int i = 0; i < count; i++) {
        jp_method_name *name = ask_method_name(info, methods[i]);
        if (!name)
            continue;
        plat_mutex_lock(names->lock);
        remember(&names->methods, methods[i], name);
        plat_mutex_unlock(names->lock);
    }
    CoTaskMemFree(methods);
    plat_mutex_lock(names->lock);
    free((void *)jp_idmap_remove(&names->classes, klass));
    plat_mutex_unlock(names->lock);
}

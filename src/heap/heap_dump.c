/*
 * heap_dump.c - heap dumps for IHeapInfoCallback, and object ages.
 *
 * JVMTI forbids heap walking inside GarbageCollectionFinish, so the GC callback only
 * counts the collection and raises a flag; a thread of ours polls the flag and dumps at a
 * safe point of its own: FollowReferences over the heap environment's tags (heap.h), then
 * the report, in the order of the reference's section 5:
 *
 *   C_BEGIN
 *   per thread: C_RT_THREAD (ThreadID; the Thread object), then one container per frame
 *     holding references: C_RT_JIT / C_RT_INTERPRETED (StackID, MethodID; JIT when the
 *     method has compiled code) or C_RT_NATIVE (JNI local references)
 *   C_RT_CLASS per class with static references (ClassID): the static fields' values
 *   C_RT_JNI_GLOBAL: JNI global references
 *   C_RT_INTERNAL: system classes, monitors in use and other VM roots
 *   C_RT_FINALIZE: objects registered for finalization (referents of java.lang.ref.Finalizer)
 *   C_HEAP, then ObjectReferences for every object with reference fields or elements: one
 *     entry per reference field (its class's fields in GetClassFields order, its superclasses'
 *     first) or per element, null ones included, so that a reference's position names its field
 *   C_END: the dump's ObjectIDs expire
 *
 * Fields are read with JNI as the report is made (JVMTI's field indices count static and
 * interface fields, and HotSpot's have differed from the specification); array elements come
 * from the walk.
 *
 * A tag in the dump environment: bits 32-63 the dump that last numbered the object, bits
 * 0-31 its number there.  In the age environment: the GC count at its birth, plus one.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "heap/heap.h"
#include "ids/class.h"
#include "ids/ids.h"
#include "ids/method.h"
#include "ids/object.h"
#include "ids/thread.h"
#include "platform/platform.h"

#define POLL_MS 10
#define DUMP_SHIFT 32
#define NUMBER_MASK 0xffffffffULL

static atomic_uint gc_count;
static atomic_int dump_pending, stopping;
static plat_thread *dumper;
static unsigned dump_serial; /* the dump thread's own */

/* ---- Object ages ------------------------------------------------------------------------ */

void jv_heap_note_birth(jobject object)
{
    jvmtiEnv *ages = jv_heap_age_env();
    jlong tag = 0;
    if (ages && (*ages)->GetTag(ages, object, &tag) == JVMTI_ERROR_NONE && !tag)
        (*ages)->SetTag(ages, object, (jlong)atomic_load(&gc_count) + 1);
}

HRESULT jv_heap_object_age(jobject object, DWORD *age)
{
    jvmtiEnv *ages = jv_heap_age_env();
    jlong born = 0, now = (jlong)atomic_load(&gc_count) + 1;
    if (!ages || !jv_heap_ages_kept() || (*ages)->GetTag(ages, object, &born) != JVMTI_ERROR_NONE)
        return E_FAIL;
    if (!born) /* first seen now: it has survived nothing we know of */
        (*ages)->SetTag(ages, object, born = now);
    *age = now > born ? (DWORD)(now - born) : 0;
    return S_OK;
}

/* ---- The walk ----------------------------------------------------------------------------- */

typedef enum root_kind { ROOT_THREAD, ROOT_FRAME, ROOT_NATIVE_FRAME, ROOT_STATIC, ROOT_JNI_GLOBAL, ROOT_INTERNAL } root_kind;

typedef struct root {
    root_kind kind;
    uint32_t object;  /* the referenced object's number */
    uint32_t holder;  /* ROOT_FRAME/NATIVE_FRAME: the thread object's number; ROOT_STATIC: the class object's */
    jint depth;       /* frames: from the top */
    jmethodID method;
} root;

/* An element of an array of references: the array's number, the element's, its index. */
typedef struct edge {
    uint32_t from, to, order;
} edge;

typedef struct walk {
    unsigned serial;
    uint32_t objects; /* numbered 1..objects */
    uint32_t self;    /* the dump thread's Thread object: its JNI locals are the dump's own */
    root *roots;
    size_t root_count, root_capacity;
    edge *edges;
    size_t edge_count, edge_capacity;
    uint32_t *class_of;    /* by number, for the objects named before the walk: their class's number */
    uint32_t class_of_count;
    int failed;
} walk;

static void *grow(void *items, size_t *capacity, size_t size, int *failed)
{
    size_t grown = *capacity ? *capacity * 2 : 1024;
    void *bigger = realloc(items, grown * size);
    if (!bigger) {
        *failed = 1;
        return items;
    }
    *capacity = grown;
    return bigger;
}

/* The number a tag carries for this dump, 0 when it is from another. */
static uint32_t number_of_tag(const walk *w, jlong tag)
{
    unsigned long long t = (unsigned long long)tag;
    return (t >> DUMP_SHIFT) == w->serial ? (uint32_t)(t & NUMBER_MASK) : 0;
}

/* The object's number in this dump, numbering it on first sight. */
static uint32_t number(walk *w, jlong *tag)
{
    uint32_t n = number_of_tag(w, *tag);
    if (!n) {
        n = ++w->objects;
        *tag = (jlong)((unsigned long long)w->serial << DUMP_SHIFT | n);
    }
    return n;
}

static void add_root(walk *w, root r)
{
    if (w->root_count == w->root_capacity)
        w->roots = grow(w->roots, &w->root_capacity, sizeof(root), &w->failed);
    if (w->root_count < w->root_capacity)
        w->roots[w->root_count++] = r;
}

static void add_edge(walk *w, uint32_t from, uint32_t to, uint32_t order)
{
    if (w->edge_count == w->edge_capacity)
        w->edges = grow(w->edges, &w->edge_capacity, sizeof(edge), &w->failed);
    if (w->edge_count < w->edge_capacity)
        w->edges[w->edge_count++] = (edge){from, to, order};
}

static jint JNICALL follow(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                           jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                           jint length, void *user_data)
{
    (void)referrer_class_tag, (void)size, (void)length;
    walk *w = user_data;
    if (w->failed)
        return JVMTI_VISIT_ABORT;
    uint32_t to = number(w, tag_ptr);
    int own_local = kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL && w->self &&
                    number_of_tag(w, info->jni_local.thread_tag) == w->self;
    if (to < w->class_of_count && !own_local) /* an object only the dump holds is not reported */
        w->class_of[to] = number_of_tag(w, class_tag);
    switch (kind) {
    case JVMTI_HEAP_REFERENCE_THREAD:
        add_root(w, (root){ROOT_THREAD, to, 0, 0, NULL});
        break;
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        add_root(w, (root){ROOT_FRAME, to, number_of_tag(w, info->stack_local.thread_tag), info->stack_local.depth,
                           info->stack_local.method});
        break;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        if (own_local)
            return 0; /* the references this thread holds to number the objects */
        add_root(w, (root){ROOT_NATIVE_FRAME, to, number_of_tag(w, info->jni_local.thread_tag), info->jni_local.depth,
                           info->jni_local.method});
        break;
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
        add_root(w, (root){ROOT_JNI_GLOBAL, to, 0, 0, NULL});
        break;
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
    case JVMTI_HEAP_REFERENCE_MONITOR:
    case JVMTI_HEAP_REFERENCE_OTHER:
        add_root(w, (root){ROOT_INTERNAL, to, 0, 0, NULL});
        break;
    case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
        add_root(w, (root){ROOT_STATIC, to, number(w, referrer_tag_ptr), 0, NULL});
        break;
    case JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT:
        add_edge(w, number(w, referrer_tag_ptr), to, (uint32_t)info->array.index);
        break;
    default: /* fields (read at the report), class, loader, signers, protection domain, interfaces, ... */
        break;
    }
    return JVMTI_VISIT_OBJECTS;
}

/* ---- The report ------------------------------------------------------------------------- */

/* What ObjectReferences lists for the instances of a class. */
typedef struct layout {
    int object_array;   /* its instances are arrays of references: one entry per element */
    size_t count;       /* otherwise one per reference field, in fields */
    jfieldID fields[];
} layout;

static layout no_references; /* primitive arrays, classes without reference fields, unknown */

typedef struct report {
    walk *w;
    JNIEnv *env;
    jobject *objects;    /* by number (local references), NULL when gone */
    ObjectID *ids;       /* by number */
    unsigned char *seen; /* by number: already reported as a reference */
    uint32_t named;      /* objects 1..named have references (and ObjectIDs) */
    ObjectID *refs;      /* scratch for one call */
    DWORD *flags;
    size_t scratch;
    layout **layouts;    /* by class number, made on first use */
} report;

static int by_edge(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    return x->from != y->from ? (x->from < y->from ? -1 : 1) : x->order < y->order ? -1 : x->order > y->order;
}

static int by_holder_then_depth(const void *a, const void *b)
{
    const root *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->holder != y->holder)
        return x->holder < y->holder ? -1 : 1;
    return x->depth < y->depth ? 1 : x->depth > y->depth ? -1 : 0; /* outermost frame first */
}

static int scratch_for(report *r, size_t n)
{
    if (n <= r->scratch)
        return 1;
    ObjectID *refs = realloc(r->refs, n * sizeof(*refs));
    if (refs)
        r->refs = refs;
    DWORD *flags = realloc(r->flags, n * sizeof(*flags));
    if (flags)
        r->flags = flags;
    if (!refs || !flags)
        return 0;
    r->scratch = n;
    return 1;
}

static void fill(report *r, size_t i, uint32_t object)
{
    r->refs[i] = r->ids[object];
    r->flags[i] = r->seen[object] ? JVM_OBJ_ALREADY_REPORTED : 0;
    r->seen[object] = 1;
}

/* RootReferences for the roots [from, to) of the sorted list. */
static void root_references(report *r, IHeapInfoCallback *cb, const root *roots, size_t count)
{
    if (!count || !scratch_for(r, count))
        return;
    for (size_t i = 0; i < count; i++)
        fill(r, i, roots[i].object);
    IHeapInfoCallback_RootReferences(cb, r->refs, (unsigned)count, r->flags);
}

/* The run of roots starting at i that share kind and holder (and depth, for frames). */
static size_t run_end(const root *roots, size_t count, size_t i)
{
    size_t j = i + 1;
    while (j < count && roots[j].kind == roots[i].kind && roots[j].holder == roots[i].holder &&
           (roots[i].kind != ROOT_FRAME && roots[i].kind != ROOT_NATIVE_FRAME ? 1 : roots[j].depth == roots[i].depth))
        j++;
    return j;
}

static void report_frames(report *r, IHeapInfoCallback *cb, const root *roots, size_t count, uint32_t thread_object)
{
    jv_thread *t = r->objects[thread_object] ? jv_thread_of(r->env, r->objects[thread_object]) : NULL;
    jint frames = 0;
    if (!t || (*jv_jvmti)->GetFrameCount(jv_jvmti, r->objects[thread_object], &frames) != JVMTI_ERROR_NONE)
        return;
    frames -= jv_thread_base_frames(r->env, r->objects[thread_object], t); /* a virtual thread's own frames */
    for (size_t i = 0; i < count;) {
        size_t end = run_end(roots, count, i);
        if (roots[i].holder == thread_object && (roots[i].kind == ROOT_FRAME || roots[i].kind == ROOT_NATIVE_FRAME) &&
            (!t->is_virtual || frames > roots[i].depth)) {
            MethodID method = jv_method_id(r->env, roots[i].method);
            jv_code_range code;
            CONTAINER_TYPE type = roots[i].kind == ROOT_NATIVE_FRAME                   ? C_RT_NATIVE
                                  : jv_method_compiled_code(jv_method_get(method), &code) ? C_RT_JIT
                                                                                          : C_RT_INTERPRETED;
            uint32_t depth = frames > roots[i].depth ? (uint32_t)(frames - roots[i].depth) : 1;
            IHeapInfoCallback_BeginContainer(cb, type, jv_stack_id(t->index, depth), method);
            root_references(r, cb, &roots[i], end - i);
        }
        i = end;
    }
}

/*
 * Objects registered for finalization: the referents of java.lang.ref.Finalizer objects
 * (HotSpot registers an object when it is created, if its class has a non-empty finalize()),
 * read with JNI: one instance check per named object.
 */
static void report_finalizable(report *r, IHeapInfoCallback *cb)
{
    JNIEnv *env = r->env;
    jclass finalizer = (*env)->FindClass(env, "java/lang/ref/Finalizer");
    jclass reference = (*env)->FindClass(env, "java/lang/ref/Reference");
    jfieldID referent_field = reference ? (*env)->GetFieldID(env, reference, "referent", "Ljava/lang/Object;") : NULL;
    (*env)->ExceptionClear(env);
    IHeapInfoCallback_BeginContainer(cb, C_RT_FINALIZE, 0, 0);
    jvmtiEnv *numbers = jv_heap_env();
    size_t n = 0;
    for (uint32_t i = 1; finalizer && referent_field && i <= r->named; i++) {
        if (!r->objects[i] || !(*env)->IsInstanceOf(env, r->objects[i], finalizer))
            continue;
        jobject referent = (*env)->GetObjectField(env, r->objects[i], referent_field);
        jlong tag = 0;
        uint32_t number = referent && (*numbers)->GetTag(numbers, referent, &tag) == JVMTI_ERROR_NONE
                              ? number_of_tag(r->w, tag)
                              : 0;
        if (number && number <= r->named && scratch_for(r, n + 1))
            fill(r, n++, number);
        if (referent)
            (*env)->DeleteLocalRef(env, referent);
    }
    if (n)
        IHeapInfoCallback_RootReferences(cb, r->refs, (unsigned)n, r->flags);
    (*env)->DeleteLocalRef(env, finalizer);
    (*env)->DeleteLocalRef(env, reference);
}

static int is_reference(const char *descriptor)
{
    return descriptor[0] == 'L' || descriptor[0] == '[';
}

/* Appends the instance reference fields of klass to l, its superclasses' first; NULL (l freed)
 * when JVMTI cannot list them or memory runs out. */
static layout *add_fields(JNIEnv *env, jclass klass, layout *l)
{
    jclass super = (*env)->GetSuperclass(env, klass);
    if (super) {
        l = add_fields(env, super, l);
        (*env)->DeleteLocalRef(env, super);
    }
    jint n = 0;
    jfieldID *fields = NULL;
    if (!l || (*jv_jvmti)->GetClassFields(jv_jvmti, klass, &n, &fields) != JVMTI_ERROR_NONE) {
        free(l);
        return NULL;
    }
    for (jint i = 0; l && i < n; i++) {
        jint modifiers = 0;
        char *descriptor = NULL;
        if ((*jv_jvmti)->GetFieldModifiers(jv_jvmti, klass, fields[i], &modifiers) != JVMTI_ERROR_NONE ||
            (*jv_jvmti)->GetFieldName(jv_jvmti, klass, fields[i], NULL, &descriptor, NULL) != JVMTI_ERROR_NONE) {
            free(l);
            l = NULL;
        } else if (!(modifiers & 0x0008 /* ACC_STATIC */) && is_reference(descriptor)) {
            layout *bigger = realloc(l, sizeof(*l) + (l->count + 1) * sizeof(jfieldID));
            if (bigger)
                bigger->fields[bigger->count++] = fields[i];
            else
                free(l);
            l = bigger;
        }
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)descriptor);
    }
    (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)fields);
    return l;
}

/* The layout of the instances of the class numbered class_number, made on first use. */
static const layout *layout_of(report *r, uint32_t class_number)
{
    if (!class_number || class_number > r->named || !r->objects[class_number])
        return &no_references;
    if (r->layouts[class_number])
        return r->layouts[class_number];
    jclass klass = (jclass)r->objects[class_number];
    char *signature = NULL;
    layout *l = NULL;
    if ((*jv_jvmti)->GetClassSignature(jv_jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
        if (signature[0] != '[')
            l = add_fields(r->env, klass, calloc(1, sizeof(*l)));
        else if (is_reference(signature + 1) && (l = calloc(1, sizeof(*l))))
            l->object_array = 1;
        (*jv_jvmti)->Deallocate(jv_jvmti, (unsigned char *)signature);
    }
    if (l && !l->count && !l->object_array) {
        free(l);
        l = NULL;
    }
    return r->layouts[class_number] = l ? l : &no_references;
}

/* Entry i of the scratch: value (a local reference, maybe NULL), read from a field now. */
static void refer(report *r, size_t i, jobject value)
{
    jlong tag = 0;
    jvmtiEnv *numbers = jv_heap_env();
    uint32_t object = value && (*numbers)->GetTag(numbers, value, &tag) == JVMTI_ERROR_NONE ? number_of_tag(r->w, tag) : 0;
    if (object && object <= r->named)
        fill(r, i, object);
    else { /* null, or an object newer than the walk */
        r->refs[i] = value ? jv_object_id(r->env, value) : 0;
        r->flags[i] = 0;
    }
}

/* ObjectReferences for every named object with reference fields or elements, in number order. */
static void object_references(report *r, IHeapInfoCallback *cb)
{
    walk *w = r->w;
    JNIEnv *env = r->env;
    size_t e = 0; /* the first array element not yet passed */
    for (uint32_t from = 1; from <= r->named; from++) {
        size_t first = e;
        while (e < w->edge_count && w->edges[e].from <= from)
            if (w->edges[e++].from < from)
                first = e;
        const layout *l = layout_of(r, from < w->class_of_count ? w->class_of[from] : 0);
        jobject object = r->objects[from];
        size_t n = !object ? 0 : l->object_array ? (size_t)(*env)->GetArrayLength(env, (jarray)object) : l->count;
        if (!n || !scratch_for(r, n))
            continue;
        DWORD objflags = r->seen[from] ? JVM_OBJ_ALREADY_REPORTED : 0;
        r->seen[from] = 1;
        if (l->object_array) {
            memset(r->refs, 0, n * sizeof(*r->refs));
            memset(r->flags, 0, n * sizeof(*r->flags));
            for (size_t k = first; k < e; k++)
                if (w->edges[k].order < n)
                    fill(r, w->edges[k].order, w->edges[k].to);
        } else
            for (size_t i = 0; i < n; i++) {
                jobject value = (*env)->GetObjectField(env, object, l->fields[i]);
                refer(r, i, value);
                if (value)
                    (*env)->DeleteLocalRef(env, value);
            }
        IHeapInfoCallback_ObjectReferences(cb, r->ids[from], objflags, r->refs, (unsigned)n, r->flags);
    }
}

static void report_to(report *r, IHeapInfoCallback *cb)
{
    walk *w = r->w;
    memset(r->seen, 0, w->objects + 1u);
    IHeapInfoCallback_BeginContainer(cb, C_BEGIN, 0, 0);
    for (size_t i = 0; i < w->root_count;) {
        size_t end = run_end(w->roots, w->root_count, i);
        const root *first = &w->roots[i];
        if (first->kind == ROOT_THREAD) {
            for (size_t k = i; k < end; k++) {
                jobject thread = r->objects[w->roots[k].object];
                jv_thread *t = thread ? jv_thread_of(r->env, thread) : NULL;
                if (!t)
                    continue;
                IHeapInfoCallback_BeginContainer(cb, C_RT_THREAD, jv_thread_id(t), 0);
                root_references(r, cb, &w->roots[k], 1);
                report_frames(r, cb, w->roots, w->root_count, w->roots[k].object);
            }
        } else if (first->kind == ROOT_STATIC) {
            ClassID class_id = r->objects[first->holder] ? jv_class_id(r->env, (jclass)r->objects[first->holder]) : 0;
            if (class_id) {
                IHeapInfoCallback_BeginContainer(cb, C_RT_CLASS, class_id, 0);
                root_references(r, cb, first, end - i);
            }
        } else if (first->kind == ROOT_JNI_GLOBAL || first->kind == ROOT_INTERNAL) {
            IHeapInfoCallback_BeginContainer(cb, first->kind == ROOT_JNI_GLOBAL ? C_RT_JNI_GLOBAL : C_RT_INTERNAL, 0, 0);
            root_references(r, cb, first, end - i);
        }
        i = end;
    }
    report_finalizable(r, cb);
    IHeapInfoCallback_BeginContainer(cb, C_HEAP, 0, 0);
    object_references(r, cb);
    IHeapInfoCallback_BeginContainer(cb, C_END, 0, 0);
}

/*
 * Naming the objects.  JVMTI's heap walks give tags, never references, and HotSpot's
 * GetObjectsWithTags compares every tagged object with every tag asked for: quadratic in
 * unique tags.  So a first walk marks every reachable object with one tag in the mark
 * environment; one GetObjectsWithTags returns them all; each then gets its number in the dump
 * environment (SetTag, a hash lookup) and its mark back to 0.  The references held from then
 * on keep those objects alive for the second walk, which finds the numbers in place; objects
 * allocated in between get numbers without references, and are reported without ObjectIDs.
 */
#define MARK 1

static jint JNICALL mark(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                         jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr, jint length,
                         void *user_data)
{
    (void)kind, (void)info, (void)class_tag, (void)referrer_class_tag, (void)size, (void)referrer_tag_ptr;
    (void)length, (void)user_data;
    *tag_ptr = MARK;
    return JVMTI_VISIT_OBJECTS;
}

/* The first walk and the numbering; r->objects[1..w->objects] hold local references; room for
 * the second walk's classes and the report's layouts. */
static int name_objects(report *r)
{
    jvmtiEnv *marks = jv_heap_mark_env(), *numbers = jv_heap_env();
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.heap_reference_callback = mark;
    jlong wanted = MARK, *found_tags = NULL;
    jint found = 0;
    jobject *objects = NULL;
    if ((*marks)->FollowReferences(marks, 0, NULL, NULL, &callbacks, NULL) != JVMTI_ERROR_NONE ||
        (*r->env)->EnsureLocalCapacity(r->env, 64) != 0 ||
        (*marks)->GetObjectsWithTags(marks, 1, &wanted, &found, &objects, &found_tags) != JVMTI_ERROR_NONE)
        return 0;
    r->objects = calloc((size_t)found + 1, sizeof(*r->objects));
    for (jint i = 0; i < found; i++) {
        (*marks)->SetTag(marks, objects[i], 0);
        if (r->objects) {
            r->objects[i + 1] = objects[i];
            (*numbers)->SetTag(numbers, objects[i], (jlong)((unsigned long long)r->w->serial << DUMP_SHIFT | (jlong)(i + 1)));
        } else
            (*r->env)->DeleteLocalRef(r->env, objects[i]);
    }
    (*marks)->Deallocate(marks, (unsigned char *)objects);
    (*marks)->Deallocate(marks, (unsigned char *)found_tags);
    r->w->objects = (uint32_t)found;
    r->named = (uint32_t)found;
    r->w->class_of = calloc((size_t)found + 1, sizeof(*r->w->class_of));
    r->w->class_of_count = r->w->class_of ? (uint32_t)found + 1 : 0;
    r->layouts = calloc((size_t)found + 1, sizeof(*r->layouts));
    jthread self = NULL;
    jlong self_tag = 0;
    if ((*numbers)->GetCurrentThread(numbers, &self) == JVMTI_ERROR_NONE && self) {
        if ((*numbers)->GetTag(numbers, self, &self_tag) == JVMTI_ERROR_NONE)
            r->w->self = number_of_tag(r->w, self_tag);
        (*r->env)->DeleteLocalRef(r->env, self);
    }
    return r->objects && r->w->class_of && r->layouts;
}

/* After the second walk: room for the objects it numbered, and ObjectIDs for the named ones. */
static int identify_objects(report *r)
{
    uint32_t all = r->w->objects;
    jobject *objects = realloc(r->objects, (all + 1u) * sizeof(*objects));
    if (!objects)
        return 0;
    r->objects = objects;
    memset(r->objects + r->named + 1, 0, (all - r->named) * sizeof(*objects));
    r->ids = calloc(all + 1u, sizeof(*r->ids));
    r->seen = calloc(all + 1u, 1);
    if (!r->ids || !r->seen)
        return 0;
    for (uint32_t n = 1; n <= r->named; n++)
        r->ids[n] = jv_object_id(r->env, r->objects[n]);
    return 1;
}

static void dump(JNIEnv *env)
{
    jvmtiEnv *heap = jv_heap_env();
    if (!heap || !jv_heap_mark_env() || !env)
        return;
    walk w = {0};
    dump_serial = dump_serial % 0xffffffffu + 1;
    w.serial = dump_serial;
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof(callbacks));
    callbacks.heap_reference_callback = follow;
    jv_dispatch d;
    jv_dispatch_begin(&d, env);
    (*env)->PushLocalFrame(env, 64);
    report r = {.w = &w, .env = env};
    if (!name_objects(&r))
        jv_log("a heap dump could not list the objects; this one is not reported");
    else if ((*heap)->FollowReferences(heap, 0, NULL, NULL, &callbacks, &w) != JVMTI_ERROR_NONE || w.failed ||
             !identify_objects(&r))
        jv_log("a heap dump failed (%s); this one is not reported", w.failed ? "out of memory" : "FollowReferences");
    else {
        qsort(w.roots, w.root_count, sizeof(root), by_holder_then_depth);
        qsort(w.edges, w.edge_count, sizeof(edge), by_edge);
        for (size_t i = 0; i < jv_monitors.count; i++) {
            IHeapInfoCallback *cb = jv_heap_dump_callback(jv_monitors.items[i]);
            if (cb && atomic_load(&jv_monitors.items[i]->phase) == JV_PHASE_RUNNING)
                report_to(&r, cb);
        }
    }
    (*env)->PopLocalFrame(env, NULL);
    jv_dispatch_end(&d); /* the dump's ObjectIDs expire */
    free(r.objects);
    free(r.ids);
    free(r.seen);
    free(r.refs);
    free(r.flags);
    free(w.roots);
    free(w.edges);
    free(w.class_of);
    for (uint32_t i = 0; r.layouts && i <= r.named; i++)
        if (r.layouts[i] != &no_references)
            free(r.layouts[i]);
    free(r.layouts);
}

/* ---- The thread ------------------------------------------------------------------------- */

void jv_heap_gc_finished(void)
{
    atomic_fetch_add(&gc_count, 1);
    if (jv_heap_dumps_wanted())
        atomic_store(&dump_pending, 1);
}

HRESULT jv_heap_request_dump(void)
{
    if (!jv_heap_dumps_wanted() || !jv_heap_env())
        return E_FAIL;
    atomic_store(&dump_pending, 1);
    return S_OK;
}

static void dump_loop(void *arg)
{
    (void)arg;
    for (;;) {
        int last = atomic_load(&stopping); /* a dump asked for before VMDeath is still made */
        if (atomic_exchange(&dump_pending, 0) && jv_heap_dumps_wanted())
            dump(jv_jni());
        if (last)
            break;
        plat_sleep_ms(POLL_MS);
    }
    if (jv_vm)
        (*jv_vm)->DetachCurrentThread(jv_vm);
}

void jv_heap_dumper_start(void)
{
    if (jv_heap_env() && !dumper && !(dumper = plat_thread_start("jevmon heap dump", dump_loop, NULL)))
        jv_log("could not start the thread that dumps the heap; GetHeapInfo callbacks get no dumps");
}

void jv_heap_dumper_stop(void)
{
    if (!dumper)
        return;
    atomic_store(&stopping, 1);
    plat_thread_join(dumper);
    dumper = NULL;
}

/* jfr.c - a run's profiles as a JFR recording (see jfr.h). */
#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "jfr.h"

/* ---- The types of the recording: ids, and the metadata that describes them --------------- */

enum {
    T_BOOLEAN = 4, T_INT = 8, T_LONG = 9, T_STRING = 10,
    T_THREAD = 20, T_CLASS = 21, T_SYMBOL = 22, T_METHOD = 23, T_FRAME_TYPE = 24, T_STACK_FRAME = 25,
    T_STACK_TRACE = 26, T_THREAD_STATE = 27, T_CLASS_LOADER = 28, T_PACKAGE = 29,
    T_TIMESTAMP = 40, T_TIMESPAN = 41, T_DATA_AMOUNT = 42,
    E_EXECUTION_SAMPLE = 101, E_ALLOCATION_SAMPLE = 102, E_MONITOR_ENTER = 103, E_THREAD_PARK = 104
};

#define CHUNK_HEADER_BYTES 68
#define EVENT_SIZE_BYTES 5 /* an event's size: a LEB128 padded to this many bytes, written once it is known */
#define METADATA_EVENT 0
#define CHECKPOINT_EVENT 1
#define STRING_UTF8 3 /* a string's encoding byte: UTF-8 bytes follow their count */
/* The threads that stand for others: of the events the logs do not place (eventlog.h), and of those
 * whose OS thread is not known (a virtual thread's wall sample); the logged threads follow. */
#define UNLOGGED_THREAD 1
#define NO_OS_THREAD 2
#define FIRST_THREAD 3
static const char *const stand_in_threads[] = {"jevprof: thread not logged",
                                               "jevprof: thread without an OS thread (virtual)"};
#define NO_LINE (-1)  /* a frame's line number when not known: `jfr print` shows none */
#define FRAME_JAVA 1   /* frame type keys (frame_type) */
#define FRAME_NATIVE 3
#define FRAME_KERNEL 5 /* async-profiler's key: its jfrconv adds "_[k]" to such a frame's name */

typedef struct field_info {
    const char *name;
    int type;
    int pooled;                 /* the value is a constant pool key */
    int array;                  /* an array of type */
    int annotation;             /* 0, or the annotation's type */
    const char *annotation_value;
} field_info;

typedef struct type_info {
    int id;
    const char *name;
    const char *super_type;     /* NULL: none */
    int simple;                 /* one field, which stands for the value */
    const field_info *fields;
    size_t field_count;
} type_info;

#define FIELDS(list) list, sizeof(list) / sizeof(*list)
static const field_info annotation_fields[] = {{"value", T_STRING, 0, 0, 0, NULL}};
static const field_info thread_fields[] = {{"osName", T_STRING, 0, 0, 0, NULL},
                                           {"osThreadId", T_LONG, 0, 0, 0, NULL},
                                           {"javaName", T_STRING, 0, 0, 0, NULL},
                                           {"javaThreadId", T_LONG, 0, 0, 0, NULL}};
/* The JDK's fields, in its order: readers that know the types (async-profiler's) read them by place. */
static const field_info class_fields[] = {{"classLoader", T_CLASS_LOADER, 1, 0, 0, NULL},
                                          {"name", T_SYMBOL, 1, 0, 0, NULL},
                                          {"package", T_PACKAGE, 1, 0, 0, NULL},
                                          {"modifiers", T_INT, 0, 0, 0, NULL}};
static const field_info class_loader_fields[] = {{"type", T_CLASS, 1, 0, 0, NULL}, {"name", T_SYMBOL, 1, 0, 0, NULL}};
static const field_info package_fields[] = {{"name", T_SYMBOL, 1, 0, 0, NULL}};
static const field_info symbol_fields[] = {{"string", T_STRING, 0, 0, 0, NULL}};
static const field_info method_fields[] = {{"type", T_CLASS, 1, 0, 0, NULL},
                                           {"name", T_SYMBOL, 1, 0, 0, NULL},
                                           {"descriptor", T_SYMBOL, 1, 0, 0, NULL},
                                           {"modifiers", T_INT, 0, 0, 0, NULL},
                                           {"hidden", T_BOOLEAN, 0, 0, 0, NULL}};
static const field_info frame_type_fields[] = {{"description", T_STRING, 0, 0, 0, NULL}};
static const field_info stack_frame_fields[] = {{"method", T_METHOD, 1, 0, 0, NULL},
                                                {"lineNumber", T_INT, 0, 0, 0, NULL},
                                                {"bytecodeIndex", T_INT, 0, 0, 0, NULL},
                                                {"type", T_FRAME_TYPE, 1, 0, 0, NULL}};
static const field_info stack_trace_fields[] = {{"truncated", T_BOOLEAN, 0, 0, 0, NULL},
                                                {"frames", T_STACK_FRAME, 0, 1, 0, NULL}};
static const field_info thread_state_fields[] = {{"name", T_STRING, 0, 0, 0, NULL}};
static const field_info execution_sample_fields[] = {{"startTime", T_LONG, 0, 0, T_TIMESTAMP, "TICKS"},
                                                     {"sampledThread", T_THREAD, 1, 0, 0, NULL},
                                                     {"stackTrace", T_STACK_TRACE, 1, 0, 0, NULL},
                                                     {"state", T_THREAD_STATE, 1, 0, 0, NULL}};
static const field_info allocation_sample_fields[] = {{"startTime", T_LONG, 0, 0, T_TIMESTAMP, "TICKS"},
                                                      {"eventThread", T_THREAD, 1, 0, 0, NULL},
                                                      {"stackTrace", T_STACK_TRACE, 1, 0, 0, NULL},
                                                      {"objectClass", T_CLASS, 1, 0, 0, NULL},
                                                      {"weight", T_LONG, 0, 0, T_DATA_AMOUNT, "BYTES"}};
static const field_info monitor_enter_fields[] = {{"startTime", T_LONG, 0, 0, T_TIMESTAMP, "TICKS"},
                                                  {"duration", T_LONG, 0, 0, T_TIMESPAN, "TICKS"},
                                                  {"eventThread", T_THREAD, 1, 0, 0, NULL},
                                                  {"stackTrace", T_STACK_TRACE, 1, 0, 0, NULL},
                                                  {"monitorClass", T_CLASS, 1, 0, 0, NULL},
                                                  {"previousOwner", T_THREAD, 1, 0, 0, NULL},
                                                  {"address", T_LONG, 0, 0, 0, NULL}};
static const field_info thread_park_fields[] = {{"startTime", T_LONG, 0, 0, T_TIMESTAMP, "TICKS"},
                                                {"duration", T_LONG, 0, 0, T_TIMESPAN, "TICKS"},
                                                {"eventThread", T_THREAD, 1, 0, 0, NULL},
                                                {"stackTrace", T_STACK_TRACE, 1, 0, 0, NULL},
                                                {"parkedClass", T_CLASS, 1, 0, 0, NULL},
                                                {"timeout", T_LONG, 0, 0, T_TIMESPAN, "NANOSECONDS"},
                                                {"until", T_LONG, 0, 0, T_TIMESTAMP, "MILLISECONDS_SINCE_EPOCH"},
                                                {"address", T_LONG, 0, 0, 0, NULL}};

#define ANNOTATION "java.lang.annotation.Annotation"
#define EVENT "jdk.jfr.Event"
static const type_info types[] = {
    {T_BOOLEAN, "boolean", NULL, 0, NULL, 0},
    {T_INT, "int", NULL, 0, NULL, 0},
    {T_LONG, "long", NULL, 0, NULL, 0},
    {T_STRING, "java.lang.String", NULL, 0, NULL, 0},
    {T_THREAD, "java.lang.Thread", NULL, 0, FIELDS(thread_fields)},
    {T_CLASS, "java.lang.Class", NULL, 0, FIELDS(class_fields)},
    {T_CLASS_LOADER, "jdk.types.ClassLoader", NULL, 0, FIELDS(class_loader_fields)},
    {T_PACKAGE, "jdk.types.Package", NULL, 0, FIELDS(package_fields)},
    {T_SYMBOL, "jdk.types.Symbol", NULL, 1, FIELDS(symbol_fields)},
    {T_METHOD, "jdk.types.Method", NULL, 0, FIELDS(method_fields)},
    {T_FRAME_TYPE, "jdk.types.FrameType", NULL, 1, FIELDS(frame_type_fields)},
    {T_STACK_FRAME, "jdk.types.StackFrame", NULL, 0, FIELDS(stack_frame_fields)},
    {T_STACK_TRACE, "jdk.types.StackTrace", NULL, 0, FIELDS(stack_trace_fields)},
    {T_THREAD_STATE, "jdk.types.ThreadState", NULL, 1, FIELDS(thread_state_fields)},
    {T_TIMESTAMP, "jdk.jfr.Timestamp", ANNOTATION, 0, FIELDS(annotation_fields)},
    {T_TIMESPAN, "jdk.jfr.Timespan", ANNOTATION, 0, FIELDS(annotation_fields)},
    {T_DATA_AMOUNT, "jdk.jfr.DataAmount", ANNOTATION, 0, FIELDS(annotation_fields)},
    {E_EXECUTION_SAMPLE, "jdk.ExecutionSample", EVENT, 0, FIELDS(execution_sample_fields)},
    {E_ALLOCATION_SAMPLE, "jdk.ObjectAllocationSample", EVENT, 0, FIELDS(allocation_sample_fields)},
    {E_MONITOR_ENTER, "jdk.JavaMonitorEnter", EVENT, 0, FIELDS(monitor_enter_fields)},
    {E_THREAD_PARK, "jdk.ThreadPark", EVENT, 0, FIELDS(thread_park_fields)},
};
#define TYPE_COUNT (sizeof(types) / sizeof(*types))

/* The thread states of wall mode's last frames, as JFR names them. */
static const struct {
    const char *label, *state;
} thread_states[] = {{"running", "STATE_RUNNABLE"},
                     {"native", "STATE_IN_NATIVE"},
                     {"blocked", "STATE_BLOCKED_ON_MONITOR_ENTER"},
                     {"waiting", "STATE_IN_OBJECT_WAIT"},
                     {"sleeping", "STATE_SLEEPING"}};
#define STATE_COUNT (sizeof(thread_states) / sizeof(*thread_states))
#define STATE_UNKNOWN (STATE_COUNT + 1) /* a state key: a wall sample whose last frame is no state */
/* A cpu sample's state: none asked of the VM, the sample of processor time.  async-profiler's name
 * for its own cpu samples' state, which its jfrconv --cpu keeps (and --wall leaves out). */
#define STATE_CPU (STATE_COUNT + 2)

/* ---- Bytes ---------------------------------------------------------------------------------- */

typedef struct buffer {
    uint8_t *data;
    size_t size, capacity;
    int failed;
} buffer;

static void put(buffer *b, const void *bytes, size_t size)
{
    if (b->failed)
        return;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity < b->size + size)
            capacity *= 2;
        uint8_t *grown = realloc(b->data, capacity);
        if (!grown) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, bytes, size);
    b->size += size;
}

static void put_byte(buffer *b, uint8_t byte)
{
    put(b, &byte, 1);
}

/* The format's compressed integer: LEB128, the ninth byte whole. */
static void put_varint(buffer *b, uint64_t value)
{
    uint8_t bytes[9];
    size_t n = 0;
    while (n < 8 && value > 0x7f) {
        bytes[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    bytes[n++] = (uint8_t)value;
    put(b, bytes, n);
}

/* An int: 32 bits (-1 is 5 bytes, as readers of ints expect). */
static void put_int(buffer *b, int32_t value)
{
    put_varint(b, (uint32_t)value);
}

static void put_string(buffer *b, const char *text)
{
    size_t length = strlen(text);
    put_byte(b, STRING_UTF8);
    put_varint(b, length);
    put(b, text, length);
}

static void put_big_endian(uint8_t *at, uint64_t value, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--, value >>= 8)
        at[i] = (uint8_t)value;
}

/* Starts an event of type: its size is filled in by end_event. */
static size_t begin_event(buffer *b, uint64_t type)
{
    size_t start = b->size;
    static const uint8_t size_room[EVENT_SIZE_BYTES] = {0};
    put(b, size_room, sizeof(size_room));
    put_varint(b, type);
    return start;
}

static void end_event(buffer *b, size_t start)
{
    if (b->failed)
        return;
    uint64_t size = b->size - start;
    for (int i = 0; i < EVENT_SIZE_BYTES; i++, size >>= 7)
        b->data[start + (size_t)i] = (uint8_t)((size & 0x7f) | (i < EVENT_SIZE_BYTES - 1 ? 0x80 : 0));
}

/* ---- Constants: strings interned to their pool keys ------------------------------------------ */

typedef struct interned {
    char **texts;    /* by key - 1 */
    size_t count, capacity;
    size_t *slots;   /* open addressing: key, or 0 for empty */
    size_t slot_count;
    int failed;
} interned;

static size_t text_hash(const char *text)
{
    size_t hash = 5381;
    for (; *text; text++)
        hash = hash * 33 + (unsigned char)*text;
    return hash;
}

static int grow_slots(interned *t)
{
    size_t count = t->slot_count ? t->slot_count * 2 : 256;
    size_t *slots = calloc(count, sizeof(*slots));
    if (!slots)
        return -1;
    for (size_t k = 1; k <= t->count; k++) {
        size_t at = text_hash(t->texts[k - 1]) & (count - 1);
        while (slots[at])
            at = (at + 1) & (count - 1);
        slots[at] = k;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_count = count;
    return 0;
}

/* text's key (from 1), added when new; 0 out of memory. */
static uint64_t intern(interned *t, const char *text)
{
    if ((t->count + 1) * 2 > t->slot_count && grow_slots(t)) {
        t->failed = 1;
        return 0;
    }
    size_t at = text_hash(text) & (t->slot_count - 1);
    for (; t->slots[at]; at = (at + 1) & (t->slot_count - 1))
        if (!strcmp(t->texts[t->slots[at] - 1], text))
            return t->slots[at];
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 256;
        char **grown = realloc(t->texts, capacity * sizeof(*grown));
        if (!grown) {
            t->failed = 1;
            return 0;
        }
        t->texts = grown;
        t->capacity = capacity;
    }
    if (!(t->texts[t->count] = strdup(text))) {
        t->failed = 1;
        return 0;
    }
    t->slots[at] = ++t->count;
    return t->count;
}

static void interned_free(interned *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->texts[i]);
    free(t->texts);
    free(t->slots);
}

/* A method of the pool: its class, name and descriptor (keys). */
typedef struct method_entry {
    uint64_t klass, name, descriptor;
} method_entry;

typedef struct writer {
    const jp_report *r;
    buffer events;
    interned symbols, classes;   /* classes: by name; each one's name is a symbol of the same text */
    uint64_t *class_names;       /* by class key - 1: its name's symbol */
    size_t class_names_count;
    jp_idmap method_keys;        /* MethodID -> key */
    method_entry *methods;       /* by key - 1 */
    size_t method_count, method_capacity;
    buffer stacks;               /* the stack trace pool's entries, written as they come */
    uint64_t stack_count;
    uint64_t start_ticks, span_ticks;
    jp_idmap thread_keys;        /* OS thread -> key (from FIRST_THREAD) */
    const jp_log_thread **threads; /* by key - FIRST_THREAD: the logs' */
    size_t thread_count;
    int failed;
} writer;

static uint64_t symbol(writer *w, const char *text)
{
    return intern(&w->symbols, text);
}

/* The class named name (a Java name, dots; an array's as the VM's descriptor: "[LName", "[I"): its key. */
static uint64_t class_key(writer *w, const char *name)
{
    char descriptor[1100];
    size_t dimensions = strspn(name, "[");
    if (dimensions && name[dimensions] == 'L' && name[strlen(name) - 1] != ';') { /* JFR's array names end so */
        snprintf(descriptor, sizeof(descriptor), "%s;", name);
        name = descriptor;
    }
    size_t before = w->classes.count;
    uint64_t key = intern(&w->classes, name);
    if (key && w->classes.count > before) {
        uint64_t *grown = realloc(w->class_names, w->classes.count * sizeof(*grown));
        if (!grown) {
            w->failed = 1;
            return 0;
        }
        w->class_names = grown;
        w->class_names[key - 1] = symbol(w, name);
        w->class_names_count = w->classes.count;
    }
    return key;
}

/* Appends the JVM descriptor of one Java type name ("int", "java.lang.String[]") to out. */
static void descriptor_of(const char *type, size_t length, char *out, size_t size)
{
    static const struct { const char *name; char code; } primitives[] = {
        {"int", 'I'}, {"long", 'J'}, {"boolean", 'Z'}, {"byte", 'B'}, {"char", 'C'},
        {"short", 'S'}, {"float", 'F'}, {"double", 'D'}, {"void", 'V'}};
    size_t used = strlen(out);
    while (length >= 2 && type[length - 2] == '[' && type[length - 1] == ']') {
        if (used + 1 < size)
            out[used++] = '[';
        length -= 2;
    }
    for (size_t i = 0; i < sizeof(primitives) / sizeof(*primitives); i++)
        if (strlen(primitives[i].name) == length && !memcmp(primitives[i].name, type, length)) {
            if (used + 1 < size)
                out[used++] = primitives[i].code;
            out[used] = '\0';
            return;
        }
    snprintf(out + used, size - used, "L%.*s;", (int)length, type);
    for (char *c = out + used; *c; c++)
        if (*c == '.')
            *c = '/';
}

/* A frame's type key: native code (a library's function, a thread with no Java frame) is
 * FRAME_NATIVE, the kernel's FRAME_KERNEL, every other frame FRAME_JAVA.  The keys are the JDK's
 * and async-profiler's, whose jfrconv reads them by number: a native frame is its function's name,
 * with no class. */
static uint64_t frame_type(const jp_report *r, MethodID method)
{
    jp_frame_kind kind = r->kind ? r->kind(r->name_context, method) : JP_FRAME_JAVA;
    return kind == JP_FRAME_KERNEL                               ? FRAME_KERNEL
           : kind == JP_FRAME_C_CODE || kind == JP_FRAME_THREAD ? FRAME_NATIVE
                                                                : FRAME_JAVA;
}

/* A method's pool key, from the report's signature name "pkg.Class.method(int, pkg.Type)" (a frame
 * that stands for no method: its name, as a method of the class "jevprof"). */
static uint64_t method_key(writer *w, MethodID method)
{
    const jp_idmap_entry *known = jp_idmap_find(&w->method_keys, method);
    if (known)
        return known->value;
    const jp_report *r = w->r;
    const char *signature = r->signature_name(r->name_context, method);
    char whole[2048], descriptor[2048] = "(";
    snprintf(whole, sizeof(whole), "%s", signature ? signature : "(unknown method)");
    size_t length = strlen(whole);
    if (frame_type(r, method) == FRAME_KERNEL && length > 4 && !strcmp(whole + length - 4, "_[k]"))
        whole[length - 4] = '\0'; /* the type says it: "read_zero", as async-profiler writes it */
    char *open = whole[0] == '(' ? NULL : strchr(whole, '(');
    if (open) { /* the parameters, each a descriptor */
        for (char *at = open + 1; *at && *at != ')';) {
            size_t length = strcspn(at, ",)");
            descriptor_of(at, length, descriptor, sizeof(descriptor));
            at += length;
            at += strspn(at, ", ");
        }
        *open = '\0';
    }
    size_t used = strlen(descriptor);
    snprintf(descriptor + used, sizeof(descriptor) - used, ")V");
    char *dot = open ? strrchr(whole, '.') : NULL;
    method_entry entry = {dot ? (*dot = '\0', class_key(w, whole)) : class_key(w, "jevprof"),
                          symbol(w, dot ? dot + 1 : whole), symbol(w, open ? descriptor : "()V")};
    if (w->method_count == w->method_capacity) {
        size_t capacity = w->method_capacity ? w->method_capacity * 2 : 256;
        method_entry *grown = realloc(w->methods, capacity * sizeof(*grown));
        if (!grown) {
            w->failed = 1;
            return 0;
        }
        w->methods = grown;
        w->method_capacity = capacity;
    }
    jp_idmap_entry *e = jp_idmap_insert(&w->method_keys, method);
    if (!e) {
        w->failed = 1;
        return 0;
    }
    w->methods[w->method_count++] = entry;
    e->value = w->method_count;
    return w->method_count;
}

/* The stack trace of node's path up to (not with) the root, innermost first: its pool key. */
static uint64_t stack_key(writer *w, const jp_tree *tree, uint32_t node)
{
    uint32_t depth = 0;
    for (uint32_t at = node; at != JP_ROOT; at = tree->nodes[at].parent)
        depth++;
    put_varint(&w->stacks, ++w->stack_count);
    put_byte(&w->stacks, 0); /* not truncated */
    put_varint(&w->stacks, depth);
    for (uint32_t at = node; at != JP_ROOT; at = tree->nodes[at].parent) {
        put_varint(&w->stacks, method_key(w, tree->nodes[at].method));
        put_int(&w->stacks, NO_LINE);
        put_int(&w->stacks, 0); /* bytecode index */
        put_varint(&w->stacks, frame_type(w->r, tree->nodes[at].method));
    }
    return w->stack_count;
}

/* ---- Events ------------------------------------------------------------------------------------- */

/* A profile's events: the paths of its folded tree, each weight times (in divisor units), placed on
 * their threads and times by the log. */
typedef struct profile_events {
    const jp_tree *tree, *second; /* second: the same paths weighted by bytes or nanoseconds, or NULL */
    const jp_tree *logged;        /* the tree the log's nodes are of (tree's paths, maybe at offsets), or NULL */
    const jp_event_log *log;      /* NULL: every event on UNLOGGED_THREAD, spread over the span */
    uint64_t divisor;             /* tree's weight of one event */
    int type;                     /* samples: E_EXECUTION_SAMPLE; allocations: E_ALLOCATION_SAMPLE;
                                     waits: E_MONITOR_ENTER (a park's last method is LockSupport's) */
} profile_events;

/* The tree folded as the collapsed files are (output.c): at the setting's share of the whole. */
static int fold(const jp_report *r, const jp_tree *tree, jp_tree *folded)
{
    uint64_t min_total = jp_tree_share(tree->nodes[JP_ROOT].total, r->config->min_share);
    if (jp_tree_init(folded))
        return -1;
    if (jp_tree_fold(folded, tree, min_total || r->config->min_share <= 0 ? min_total : 1)) {
        jp_tree_free(folded);
        return -1;
    }
    return 0;
}

/* The node of second with node's path in tree (found[] holds the parents'), or JP_NO_NODE. */
static uint32_t same_path(const jp_tree *tree, const jp_tree *second, const uint32_t *found, uint32_t node)
{
    uint32_t parent = found[tree->nodes[node].parent];
    return parent == JP_NO_NODE ? JP_NO_NODE : jp_tree_find(second, parent, tree->nodes[node].method);
}

static int is_park(const jp_report *r, MethodID method)
{
    const char *name = r->name(r->name_context, method);
    return name && !strncmp(name, "java.util.concurrent.locks.LockSupport.park", 43);
}

/* The state key of a wall sample's last frame, or 0 when it is none. */
static uint64_t state_key(MethodID method)
{
    const char *label = jp_sampler_state_label(method);
    for (size_t i = 0; label && i < STATE_COUNT; i++)
        if (!strcmp(label, thread_states[i].label))
            return i + 1;
    return 0;
}

/* The pool key of a logged thread (a thread of the log, or JP_LOG_NO_THREAD). */
static uint64_t thread_key(writer *w, const jp_event_log *log, uint32_t thread)
{
    if (thread >= log->thread_count)
        return thread == JP_LOG_NO_THREAD ? NO_OS_THREAD : UNLOGGED_THREAD;
    const jp_log_thread *t = &log->threads[thread];
    jp_idmap_entry *e = jp_idmap_insert(&w->thread_keys, t->os_thread);
    if (!e)
        return UNLOGGED_THREAD;
    if (!e->value) {
        const jp_log_thread **grown = realloc(w->threads, (w->thread_count + 1) * sizeof(*grown));
        if (!grown) {
            jp_idmap_remove(&w->thread_keys, t->os_thread);
            return UNLOGGED_THREAD;
        }
        w->threads = grown;
        w->threads[w->thread_count++] = t;
        e->value = FIRST_THREAD + w->thread_count - 1;
    }
    return e->value;
}

/* The log's entries by the folded node their paths fold into: entry[first[n] .. first[n + 1]) are
 * node n's, in the log's order (the order they were recorded in). */
typedef struct placed {
    uint32_t *first; /* folded.count + 1 */
    uint32_t *entry;
} placed;

/* The folded node of each node of logged, parents first: its own path, or the folded paths it is in. */
static uint32_t *folded_nodes(const jp_tree *logged, const jp_tree *folded)
{
    uint32_t *at = malloc((size_t)logged->count * sizeof(*at));
    if (!at)
        return NULL;
    at[JP_ROOT] = JP_ROOT;
    for (uint32_t i = 1; i < logged->count; i++) {
        uint32_t parent = logged->nodes[i].parent, f = parent < i ? at[parent] : JP_NO_NODE;
        if (f == JP_NO_NODE || (f != JP_ROOT && folded->nodes[f].method == JP_FOLDED_PATHS))
            at[i] = f; /* below a folded path: in it */
        else if ((at[i] = jp_tree_find(folded, f, logged->nodes[i].method)) == JP_NO_NODE)
            at[i] = jp_tree_find(folded, f, JP_FOLDED_PATHS); /* folded itself */
    }
    return at;
}

/* 0, or -1 out of memory. */
static int place(const profile_events *p, const jp_tree *folded, placed *out)
{
    memset(out, 0, sizeof(*out));
    if (!p->log || !p->logged)
        return 0;
    const jp_event_log *log = p->log;
    uint32_t *at = folded_nodes(p->logged, folded), *next = calloc((size_t)folded->count, sizeof(*next));
    out->first = calloc((size_t)folded->count + 1, sizeof(*out->first));
    out->entry = malloc((log->count ? log->count : 1) * sizeof(*out->entry));
    if (!at || !next || !out->first || !out->entry) {
        free(at), free(next), free(out->first), free(out->entry);
        memset(out, 0, sizeof(*out));
        return -1;
    }
    for (size_t i = 0; i < log->count; i++) { /* counted at their node's successor, summed below */
        uint32_t node = log->events[i].node;
        if (node < p->logged->count && at[node] != JP_NO_NODE)
            out->first[at[node] + 1]++;
    }
    for (uint32_t n = 0; n < folded->count; n++)
        out->first[n + 1] += out->first[n];
    for (size_t i = 0; i < log->count; i++) {
        uint32_t node = log->events[i].node;
        if (node < p->logged->count && at[node] != JP_NO_NODE)
            out->entry[out->first[at[node]] + next[at[node]]++] = (uint32_t)i;
    }
    free(next), free(at);
    return 0;
}

/* Where one event of a path goes: its thread, its time (ticks) and, for a wait, its duration. */
typedef struct event_place {
    uint64_t thread, ticks, duration;
} event_place;

/* A path's log entries as its events take them, in order: entry[first + at] is the one reached. */
typedef struct path_entries {
    uint32_t first, count, at;
    uint64_t weight;     /* the entries' weights summed */
    uint64_t before;     /* of the entries before at */
} path_entries;

static path_entries entries_of(const profile_events *p, const placed *on, uint32_t node)
{
    path_entries e = {0, 0, 0, 0, 0};
    if (!on->first)
        return e;
    e.first = on->first[node];
    e.count = on->first[node + 1] - e.first;
    for (uint32_t i = 0; i < e.count; i++)
        e.weight += p->log->events[on->entry[e.first + i]].weight;
    return e;
}

/* Event k of count (k rising from 0) of a path with entries: one entry per event while the log kept
 * every one, else the entry whose weight holds the middle of the event's share of the entries'
 * weights; a path without entries: UNLOGGED_THREAD, at the event's share (done of all) of the span.
 * share: the event's part of the path's second weight (a wait's nanoseconds). */
static event_place place_event(writer *w, const profile_events *p, const placed *on, path_entries *entries,
                               uint64_t k, uint64_t count, uint64_t done, uint64_t all, uint64_t share)
{
    event_place e = {UNLOGGED_THREAD, w->start_ticks + (all ? w->span_ticks * done / all : 0), share};
    if (!entries->count)
        return e;
    const jp_logged_event *events = p->log->events, *chosen;
    if (entries->count == count) {
        chosen = &events[on->entry[entries->first + k]];
        if (p->type != E_ALLOCATION_SAMPLE && chosen->second)
            e.duration = chosen->second; /* a wait's own */
    } else {
        double middle = ((double)k + 0.5) * (double)entries->weight / (double)count;
        while (entries->at + 1 < entries->count &&
               (double)(entries->before + events[on->entry[entries->first + entries->at]].weight) <= middle)
            entries->before += events[on->entry[entries->first + entries->at++]].weight;
        chosen = &events[on->entry[entries->first + entries->at]];
    }
    e.thread = thread_key(w, p->log, chosen->thread);
    uint64_t ended = chosen->time_ns > w->r->started_ns ? chosen->time_ns - w->r->started_ns : 0;
    if (p->type == E_MONITOR_ENTER) /* a wait is logged when it ends: it started its duration before */
        ended = ended > e.duration ? ended - e.duration : 0;
    e.ticks = w->start_ticks + ended;
    return e;
}

/* part of all scaled to written (written < all), rounded down. */
static uint64_t share_of(uint64_t part, uint64_t written, uint64_t all)
{
    if (all < UINT64_MAX / written)
        return part * written / all;
    return (uint64_t)((double)part / (double)all * (double)written); /* beyond 10^13 events */
}

static void write_events(writer *w, const profile_events *p)
{
    const jp_report *r = w->r;
    jp_tree folded, second = {0};
    if (fold(r, p->tree, &folded) || (p->second && fold(r, p->second, &second))) {
        jp_tree_free(&folded);
        w->failed = 1;
        return;
    }
    uint32_t *found = malloc((size_t)folded.count * sizeof(*found));
    placed on;
    if (!found || place(p, &folded, &on)) {
        free(found);
        jp_tree_free(&folded), jp_tree_free(&second);
        w->failed = 1;
        return;
    }
    uint64_t all = 0, done = 0, counted = 0; /* counted: the paths' events so far, before any share */
    for (uint32_t i = 1; i < folded.count; i++)
        all += p->type == E_ALLOCATION_SAMPLE ? folded.nodes[i].self >= (p->divisor + 1) / 2
                                              : (folded.nodes[i].self + p->divisor / 2) / p->divisor;
    uint64_t written = p->type != E_ALLOCATION_SAMPLE && all > JP_JFR_MAX_EVENTS ? JP_JFR_MAX_EVENTS : all;
    if (written < all)
        jv_log("jevprof: the .jfr recording holds %llu of the %llu %s, each path's even share (its events "
               "carry no weight); the other outputs have them all",
               (unsigned long long)written, (unsigned long long)all, p->type == E_EXECUTION_SAMPLE ? "samples" : "waits");
    found[JP_ROOT] = JP_ROOT;
    for (uint32_t i = 1; i < folded.count && !w->failed && !w->events.failed; i++) {
        const jp_node *node = &folded.nodes[i];
        found[i] = p->second ? same_path(&folded, &second, found, i) : JP_NO_NODE;
        uint64_t count = (node->self + p->divisor / 2) / p->divisor;
        if (count && p->type == E_ALLOCATION_SAMPLE)
            count = 1; /* one sample of the path's bytes: its allocations are estimates, often millions */
        else if (count && written < all) { /* the path's share of the events written */
            uint64_t before = share_of(counted, written, all);
            counted += count;
            count = share_of(counted, written, all) - before;
        }
        if (!count)
            continue;
        /* the last frame: a class (allocations, waits) or a state (wall samples) is a field, not a frame */
        int last_is_field = p->type != E_EXECUTION_SAMPLE || state_key(node->method); /* a folded path's too */
        uint32_t stack_node = last_is_field ? node->parent : i;
        uint64_t stack = stack_key(w, &folded, stack_node);
        uint64_t state = state_key(node->method);
        /* a path folded into "(smaller paths, ...)" has no class of its own: that frame names it */
        uint64_t klass = p->type == E_EXECUTION_SAMPLE ? 0 : class_key(w, r->name(r->name_context, node->method));
        uint64_t second_total = found[i] != JP_NO_NODE ? second.nodes[found[i]].self : 0;
        int type = p->type == E_MONITOR_ENTER && stack_node != JP_ROOT && is_park(r, folded.nodes[stack_node].method)
                       ? E_THREAD_PARK
                       : p->type;
        path_entries entries = entries_of(p, &on, i);
        for (uint64_t k = 0; k < count; k++, done++) {
            uint64_t share = second_total / count + (k < second_total % count); /* the bytes or ns, shared out */
            event_place at = place_event(w, p, &on, &entries, k, count, done, written, share);
            size_t start = begin_event(&w->events, (uint64_t)type);
            put_varint(&w->events, at.ticks);
            if (type == E_MONITOR_ENTER || type == E_THREAD_PARK)
                put_varint(&w->events, at.duration);
            put_varint(&w->events, at.thread);
            put_varint(&w->events, stack);
            if (type == E_EXECUTION_SAMPLE)
                put_varint(&w->events, state ? state : r->config->mode & JP_MODE_WALL ? STATE_UNKNOWN : STATE_CPU);
            else
                put_varint(&w->events, klass);
            if (type == E_ALLOCATION_SAMPLE)
                put_varint(&w->events, share);
            if (type == E_MONITOR_ENTER)
                put_varint(&w->events, 0); /* previous owner: not known (null) */
            if (type == E_THREAD_PARK) {
                put_varint(&w->events, 0); /* timeout: not known */
                put_varint(&w->events, 0); /* until: not known */
            }
            if (type == E_MONITOR_ENTER || type == E_THREAD_PARK)
                put_varint(&w->events, 0); /* the lock's address: not known */
            end_event(&w->events, start);
        }
    }
    free(found), free(on.first), free(on.entry);
    jp_tree_free(&folded), jp_tree_free(&second);
}

/* ---- Metadata and constant pool ------------------------------------------------------------------ */

/* One element of the metadata's tree: name, attributes (pairs of texts), then the children's count. */
static void put_element(buffer *b, interned *strings, const char *name, const char *const *attributes,
                        size_t attribute_count, size_t children)
{
    put_varint(b, intern(strings, name) - 1);
    put_varint(b, attribute_count);
    for (size_t i = 0; i < 2 * attribute_count; i++)
        put_varint(b, intern(strings, attributes[i]) - 1);
    put_varint(b, children);
}

static void put_type(buffer *b, interned *strings, const type_info *t)
{
    char id[24], type_id[24];
    const char *attributes[8] = {"id", id, "name", t->name};
    size_t count = 2;
    snprintf(id, sizeof(id), "%d", t->id);
    if (t->super_type)
        attributes[2 * count] = "superType", attributes[2 * count + 1] = t->super_type, count++;
    if (t->simple)
        attributes[2 * count] = "simpleType", attributes[2 * count + 1] = "true", count++;
    put_element(b, strings, "class", attributes, count, t->field_count);
    for (size_t i = 0; i < t->field_count; i++) {
        const field_info *f = &t->fields[i];
        const char *field_attributes[8] = {"name", f->name, "class", type_id};
        size_t field_count = 2;
        snprintf(type_id, sizeof(type_id), "%d", f->type);
        if (f->pooled)
            field_attributes[2 * field_count] = "constantPool", field_attributes[2 * field_count + 1] = "true",
            field_count++;
        if (f->array)
            field_attributes[2 * field_count] = "dimension", field_attributes[2 * field_count + 1] = "1", field_count++;
        put_element(b, strings, "field", field_attributes, field_count, f->annotation ? 1 : 0);
        if (f->annotation) {
            char annotation_id[24];
            snprintf(annotation_id, sizeof(annotation_id), "%d", f->annotation);
            const char *annotation_attributes[4] = {"class", annotation_id, "value", f->annotation_value};
            put_element(b, strings, "annotation", annotation_attributes, 2, 0);
        }
    }
}

static void put_metadata(buffer *out, uint64_t ticks)
{
    interned strings = {0};
    buffer tree = {0};
    static const char *const region[] = {"locale", "en_US", "gmtOffset", "0"};
    put_element(&tree, &strings, "root", NULL, 0, 2);
    put_element(&tree, &strings, "metadata", NULL, 0, TYPE_COUNT);
    for (size_t i = 0; i < TYPE_COUNT; i++)
        put_type(&tree, &strings, &types[i]);
    put_element(&tree, &strings, "region", region, 2, 0);
    size_t start = begin_event(out, METADATA_EVENT);
    put_varint(out, ticks);
    put_varint(out, 0); /* duration */
    put_varint(out, 1); /* the metadata's id */
    put_varint(out, strings.count);
    for (size_t i = 0; i < strings.count; i++)
        put_string(out, strings.texts[i]);
    put(out, tree.data, tree.size);
    out->failed |= tree.failed || strings.failed;
    end_event(out, start);
    free(tree.data);
    interned_free(&strings);
}

static void put_constant_pool(buffer *out, writer *w, uint64_t ticks)
{
    size_t start = begin_event(out, CHECKPOINT_EVENT);
    put_varint(out, ticks);
    put_varint(out, 0); /* duration */
    put_varint(out, 0); /* no earlier pool */
    put_byte(out, 0);   /* not a flush */
    put_varint(out, 7); /* pools */
    put_varint(out, T_THREAD);
    put_varint(out, FIRST_THREAD - 1 + w->thread_count);
    for (size_t i = 0; i < FIRST_THREAD - 1; i++) {
        put_varint(out, UNLOGGED_THREAD + i);
        put_string(out, stand_in_threads[i]);
        put_varint(out, 0);
        put_string(out, stand_in_threads[i]);
        put_varint(out, 0);
    }
    for (size_t i = 0; i < w->thread_count; i++) {
        char unnamed[48];
        const char *name = w->threads[i]->name;
        if (!name)
            snprintf(unnamed, sizeof(unnamed), "OS thread %lu", (unsigned long)w->threads[i]->os_thread);
        put_varint(out, FIRST_THREAD + i);
        put_string(out, name ? name : unnamed); /* the OS's name: a Java thread's is its Java name */
        put_varint(out, w->threads[i]->os_thread);
        put_string(out, name ? name : unnamed);
        put_varint(out, 0); /* the Java thread id: the API does not tell it */
    }
    put_varint(out, T_THREAD_STATE);
    put_varint(out, STATE_COUNT + 2);
    for (size_t i = 0; i < STATE_COUNT; i++) {
        put_varint(out, i + 1);
        put_string(out, thread_states[i].state);
    }
    put_varint(out, STATE_UNKNOWN);
    put_string(out, "STATE_UNKNOWN");
    put_varint(out, STATE_CPU);
    put_string(out, "STATE_DEFAULT");
    put_varint(out, T_FRAME_TYPE);
    put_varint(out, 3);
    put_varint(out, FRAME_JAVA);
    put_string(out, "Java");
    put_varint(out, FRAME_NATIVE);
    put_string(out, "Native");
    put_varint(out, FRAME_KERNEL);
    put_string(out, "Kernel");
    put_varint(out, T_CLASS);
    put_varint(out, w->classes.count);
    for (size_t i = 0; i < w->classes.count; i++) {
        put_varint(out, i + 1);
        put_varint(out, 0); /* class loader: not known (null) */
        put_varint(out, w->class_names[i]);
        put_varint(out, 0); /* package: not known (null) */
        put_int(out, 1);    /* public */
    }
    put_varint(out, T_METHOD);
    put_varint(out, w->method_count);
    for (size_t i = 0; i < w->method_count; i++) {
        put_varint(out, i + 1);
        put_varint(out, w->methods[i].klass);
        put_varint(out, w->methods[i].name);
        put_varint(out, w->methods[i].descriptor);
        put_int(out, 1); /* public */
        put_byte(out, 0); /* not hidden */
    }
    put_varint(out, T_SYMBOL);
    put_varint(out, w->symbols.count);
    for (size_t i = 0; i < w->symbols.count; i++) {
        put_varint(out, i + 1);
        put_string(out, w->symbols.texts[i]);
    }
    put_varint(out, T_STACK_TRACE);
    put_varint(out, w->stack_count);
    put(out, w->stacks.data, w->stacks.size);
    end_event(out, start);
}

int jp_jfr_write(FILE *out, const jp_report *r)
{
    writer w;
    memset(&w, 0, sizeof(w));
    w.r = r;
    w.start_ticks = r->started_unix_ns; /* ticks are nanoseconds since 1970 */
    w.span_ticks = (uint64_t)(r->seconds * 1e9);
    class_key(&w, "jevprof"); /* the class of the frames that stand for no method; never an empty pool */
    if (r->samples) {
        profile_events p = {r->samples, NULL, r->sample_lines, r->sample_events, 1, E_EXECUTION_SAMPLE};
        write_events(&w, &p);
    }
    if (r->allocations) {
        profile_events p = {r->allocations,       r->allocated_bytes,        r->allocations,
                            r->allocation_events, JP_ALLOCATION_COUNT_SCALE, E_ALLOCATION_SAMPLE};
        write_events(&w, &p);
    }
    if (r->lock_waits) {
        profile_events p = {r->lock_waits, r->lock_delay, r->lock_waits, r->lock_events, 1, E_MONITOR_ENTER};
        write_events(&w, &p);
    }
    buffer file = {0};
    uint8_t header[CHUNK_HEADER_BYTES] = {'F', 'L', 'R', '\0', 0, 2, 0, 0};
    put(&file, header, sizeof(header));
    size_t metadata_at = file.size;
    put_metadata(&file, w.start_ticks);
    size_t pool_at = file.size;
    put_constant_pool(&file, &w, w.start_ticks);
    put(&file, w.events.data, w.events.size);
    int failed = w.failed || file.failed || w.events.failed || w.stacks.failed || w.symbols.failed ||
                 w.classes.failed;
    if (!failed) {
        put_big_endian(file.data + 8, file.size, 8);       /* chunk size */
        put_big_endian(file.data + 16, pool_at, 8);        /* the constant pool */
        put_big_endian(file.data + 24, metadata_at, 8);    /* the metadata */
        put_big_endian(file.data + 32, w.start_ticks, 8);  /* start, ns since 1970 */
        put_big_endian(file.data + 40, w.span_ticks, 8);   /* duration, ns */
        put_big_endian(file.data + 48, w.start_ticks, 8);  /* start, ticks */
        put_big_endian(file.data + 56, 1000000000u, 8);    /* ticks per second */
        put_big_endian(file.data + 64, 3, 4); /* finished (0), compressed integers (1), the last chunk (2) */
        failed = fwrite(file.data, 1, file.size, out) != file.size;
    }
    free(file.data), free(w.events.data), free(w.stacks.data), free(w.methods), free(w.class_names);
    interned_free(&w.symbols), interned_free(&w.classes);
    jp_idmap_free(&w.method_keys);
    jp_idmap_free(&w.thread_keys);
    free(w.threads);
    return failed ? -1 : 0;
}

/*
 * classfile.h - the class-file model and the method-entry/exit instrumenter.
 *
 * Parse a class file (any version up to 69, Java 25) into a cf_class, optionally
 * rewrite every method's bytecode so it reports entry and exit to a bridge class, and
 * write the model back.  Without instrumentation, parse -> write reproduces the input
 * byte for byte.
 *
 * What the rewriter injects into a method with id N (bridge B, flag array F optional):
 *   at entry:           [getstatic B.F; push N; baload; ifeq +] [aload A] push N; invokestatic B.enter
 *                       (aload A, the method's first parameter, when enter takes a reference first)
 *   before each return: [getstatic B.F; push N; baload; ifeq +] push N; invokestatic B.exit
 *   a handler for any Throwable over the original body, last in the exception table:
 *                       push N; invokestatic B.unwind; athrow
 *                       (with no unwind method: [flag check] push N; invokestatic B.exit; athrow)
 * In constructors there are two handlers: one over the code that runs before this is
 * initialized, typed with uninitializedThis, one over the code after, each in as many
 * ranges as the paths make (a switch may choose among several super()/this() calls), and
 * neither over a super()/this() call: HotSpot checks a handler over that call with both
 * the uninitialized and the initialized this, which no frame satisfies.  So an
 * exception thrown by super()/this() itself leaves the constructor without an exit
 * call; the bridge must tolerate a missing exit (e.g. unwind its shadow stack to the
 * method whose exit it sees).  Returns keep the operand stack as they found it: the
 * frame after a guarded exit call lists the whole stack, found by simulating the
 * straight-line code since the preceding frame.  Branches pushed out of 16-bit reach
 * by the inserted code grow: goto/jsr into goto_w/jsr_w, a conditional branch into the
 * opposite branch over a goto_w (with a simulated frame after it).
 *
 * From class-file version 50 on, a rewritten method carries a StackMapTable whenever the
 * original needed none or had one, so HotSpot's type checker passes the class as it did.
 * A class whose member references or methods have malformed descriptors is not rewritten.
 *
 * Attributes are kept as raw bytes.  Inside rewritten Code attributes: StackMapTable,
 * LineNumberTable, LocalVariableTable and LocalVariableTypeTable are remapped;
 * RuntimeVisibleTypeAnnotations, RuntimeInvisibleTypeAnnotations, CharacterRangeTable
 * and StackMap (CLDC) hold code offsets this rewriter does not remap and are dropped;
 * any other attribute is kept unchanged.
 *
 * Nothing here calls the operating system; all memory of a model is released by cf_free.
 */
#ifndef JEVMON_CLASSFILE_H
#define JEVMON_CLASSFILE_H

#include <stddef.h>
#include <stdint.h>

/* Constant pool tags (JVMS 4.4). */
enum {
    CF_UTF8 = 1, CF_INTEGER = 3, CF_FLOAT = 4, CF_LONG = 5, CF_DOUBLE = 6, CF_CLASS = 7,
    CF_STRING = 8, CF_FIELDREF = 9, CF_METHODREF = 10, CF_INTERFACE_METHODREF = 11,
    CF_NAME_AND_TYPE = 12, CF_METHOD_HANDLE = 15, CF_METHOD_TYPE = 16, CF_DYNAMIC = 17,
    CF_INVOKE_DYNAMIC = 18, CF_MODULE = 19, CF_PACKAGE = 20
};

enum { CF_ACC_STATIC = 0x0008, CF_ACC_NATIVE = 0x0100 };

/* Newest class-file major version understood (Java 25). */
#define CF_MAX_MAJOR_VERSION 69

typedef struct cf_const {
    uint8_t tag; /* 0 for the unusable slot after a Long or Double, and for slot 0 */
    union {
        struct { const uint8_t *bytes; uint16_t length; } utf8; /* modified UTF-8, not terminated */
        uint32_t bits;       /* Integer, Float */
        uint64_t wide_bits;  /* Long, Double */
        /* Class, String, MethodType, Module, Package: first only.  Field/Method/
         * InterfaceMethodref: class, name_and_type.  NameAndType: name, descriptor.
         * Dynamic, InvokeDynamic: bootstrap method attr index, name_and_type. */
        struct { uint16_t first, second; } ref;
        struct { uint8_t kind; uint16_t reference; } handle; /* MethodHandle */
    } v;
} cf_const;

typedef struct cf_attr {
    uint16_t name; /* Utf8 index */
    uint32_t length;
    const uint8_t *data;
} cf_attr;

typedef struct cf_handler {
    uint16_t start_pc, end_pc, handler_pc, catch_type;
} cf_handler;

typedef struct cf_code {
    uint16_t max_stack, max_locals;
    uint32_t length;
    const uint8_t *bytes;
    uint16_t handler_count;
    cf_handler *handlers;
    uint16_t attr_count;
    cf_attr *attrs;
} cf_code;

typedef struct cf_member { /* a field or a method */
    uint16_t access, name, descriptor; /* name, descriptor: Utf8 indexes */
    uint16_t attr_count;
    cf_attr *attrs;
    /* Methods with a Code attribute: its parsed form, written back in place of the raw
     * attribute attrs[code_attr]. */
    cf_code *code;
    uint16_t code_attr;
} cf_member;

typedef struct cf_arena cf_arena;

typedef struct cf_class {
    cf_arena *arena;
    uint16_t minor_version, major_version;
    uint16_t cp_count; /* as in the file: one more than the last index */
    cf_const *cp;
    uint32_t cp_capacity; /* entries allocated at cp, for appending */
    /* Hash index of the entries the instrumenter looks up (Utf8, Integer, Class,
     * NameAndType, member refs), built on the first lookup: slots hold cp indexes, 0 empty. */
    uint16_t *cp_lookup;
    uint32_t cp_lookup_mask, cp_lookup_used;
    uint16_t access, this_class, super_class;
    uint16_t interface_count;
    uint16_t *interfaces;
    uint16_t field_count, method_count;
    cf_member *fields, *methods;
    uint16_t attr_count;
    cf_attr *attrs;
} cf_class;

/* ---- Model ----------------------------------------------------------------------- */
/*
 * Parses size bytes at data.  The model points into data, which must stay unchanged
 * until cf_free.  NULL on malformed or unsupported input, with the reason in error.
 */
cf_class *cf_parse(const uint8_t *data, size_t size, char *error, size_t error_size);
void cf_free(cf_class *cls);
/* Serializes the model into a malloc'ed buffer; 0 on success, -1 with error. */
int cf_write(const cf_class *cls, uint8_t **out, size_t *out_size, char *error, size_t error_size);

/* The Utf8 entry at index as a NUL-terminated copy in buf (truncated to fit); "" when
 * index is not a Utf8 entry. */
const char *cf_utf8(const cf_class *cls, uint16_t index, char *buf, size_t size);

/* ---- Instrumentation --------------------------------------------------------------- */
typedef struct cf_method_info {
    const char *class_name; /* internal form: "java/lang/String" */
    const char *name;       /* "<init>", "hashCode" */
    const char *descriptor; /* "()I" */
    uint16_t access;        /* ACC_* flags of the method */
} cf_method_info;

/* Why a method keeps its original code (cf_hooks.left_alone). */
typedef enum cf_left_alone {
    CF_NO_BYTECODE, /* native or abstract */
    /* finalize()V that only returns: HotSpot registers objects for finalization only when
     * some finalize() of their class does more, so instrumenting Object's would make
     * every object finalizable */
    CF_EMPTY_FINALIZER,
    CF_TOO_LONG,    /* the instrumented code would exceed 65535 bytes (also logged) */
    CF_UNSUPPORTED  /* a construct the rewriter does not handle, the reason logged: code the
                     * type simulation cannot follow (to a return, or along a constructor's
                     * paths), a constructor without super()/this(), too many handlers or
                     * too deep a stack, and java.lang.Object.<init>, which HotSpot treats
                     * specially */
} cf_left_alone;

#define CF_SKIP_METHOD (-1)

/*
 * Where a rewritten method's instructions went (cf_hooks.rewritten), for whoever must show
 * the class file's offsets: for every pc of the original code that starts an instruction,
 * and for original_length, target[pc] is where the code run for it starts (the exit call
 * injected before a return included) and moved[pc] where the instruction itself now is;
 * other pcs hold UINT32_MAX.  The rewritten code is rewritten_length bytes: the entry call
 * before target[0], the injected handlers from target[original_length] on.
 */
typedef struct cf_offset_map {
    const uint8_t *original; /* the class file's code */
    uint32_t original_length, rewritten_length;
    const uint32_t *target, *moved;
} cf_offset_map;

typedef struct cf_hooks {
    const char *bridge_class;           /* internal name, e.g. "jevmon/Bridge" */
    /* Static methods of the bridge taking the method id, e.g. "enter", "(I)V"; the
     * injected code pushes one int and expects nothing back.  An enter that takes a reference
     * first, e.g. "(Ljava/lang/String;I)V", also gets the method's first parameter, pushed
     * before the id (so the bridge needs no JVMTI access to locals to read it): method_id must
     * then choose only methods whose first parameter is a reference (reading a parameter is
     * legal before super() in a constructor). */
    const char *enter_name, *enter_descriptor;
    const char *exit_name, *exit_descriptor;
    /* Optional static byte[] (or boolean[]) field of the bridge, e.g. "on", "[B": the
     * injected code calls enter/exit only while flags[id] != 0.  NULL: always call. */
    const char *flags_name, *flags_descriptor;
    /* The id of a method with bytecode (0 .. 0x7fffffff), or CF_SKIP_METHOD to leave it
     * alone.  Called once per such method, in class-file order. */
    int32_t (*method_id)(void *context, const cf_method_info *method);
    /* Optional: a method that keeps its code although it was not skipped; for
     * CF_TOO_LONG and CF_UNSUPPORTED method_id has been called for it before. */
    void (*left_alone)(void *context, const cf_method_info *method, cf_left_alone why);
    void *context;
    /* Optional: the bridge method the handler calls instead of exit (same form), so the
     * bridge can tell an exit by exception from a return.  NULL: exit. */
    const char *unwind_name, *unwind_descriptor;
    /* Optional: called for each method rewritten, with where its code went; map and what it
     * points to live only during the call. */
    void (*rewritten)(void *context, const cf_method_info *method, int32_t id, const cf_offset_map *map);
} cf_hooks;

typedef struct cf_instrument_stats {
    unsigned instrumented; /* methods rewritten */
    unsigned skipped;      /* method_id said CF_SKIP_METHOD */
    unsigned no_bytecode, empty_finalizer, too_long, unsupported;
} cf_instrument_stats;

/*
 * Rewrites every method of the model as described at the top; the bridge class itself
 * is left alone (it would call itself).  hooks->method_id is required.  Returns 0
 * (stats filled, stats may be NULL) or -1 with error: the model may then be partly
 * rewritten and must be freed, not written.  Not thread-safe per model; separate
 * models may be instrumented on separate threads (jv_log is the only shared state).
 */
int cf_instrument(cf_class *cls, const cf_hooks *hooks, cf_instrument_stats *stats,
                  char *error, size_t error_size);

/*
 * parse -> instrument -> write in one call, for a ClassFileLoadHook.  Returns 1 with a
 * malloc'ed *out when some method was rewritten, 0 when nothing was (*out NULL, the class
 * needs no change), -1 with error when the class cannot be handled (use it unchanged).
 */
int cf_instrument_class(const uint8_t *data, size_t size, const cf_hooks *hooks,
                        uint8_t **out, size_t *out_size, cf_instrument_stats *stats,
                        char *error, size_t error_size);

/*
 * The offsets of one method's return instructions (ireturn .. return), in code order, walking
 * its bytecode (a Code attribute's code, or JVMTI GetBytecodes) instruction by instruction.
 * Returns how many there are, of which the first max are stored in offsets; -1 when the code
 * cannot be walked (an unknown opcode, or an instruction running past the end).
 */
long cf_return_offsets(const uint8_t *code, uint32_t length, uint32_t *offsets, size_t max);

#endif /* JEVMON_CLASSFILE_H */

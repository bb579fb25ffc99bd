/*
 * internal.h - what the files of src/classfile share and the agent does not see.
 *
 * Each group below names the file that owns it.
 */
#ifndef JEVMON_CLASSFILE_INTERNAL_H
#define JEVMON_CLASSFILE_INTERNAL_H

#include <stdint.h>

#include "classfile/arena.h"
#include "classfile/bytes.h"
#include "classfile/classfile.h"

/* ---- error.c: the first failure of an operation, as text for the caller ------------ */
typedef struct cf_error {
    char *text;
    size_t size;
} cf_error;

/* Records the message unless one is already there; returns CF_MALFORMED for chaining. */
int cf_fail(cf_error *error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Results below 0 shared by the rewriting steps. */
enum { CF_MALFORMED = -1, CF_CODE_TOO_LONG = -2, CF_CODE_UNSUPPORTED = -3 };

/* ---- constpool.c: the constant pool ------------------------------------------------- */
int cf_cp_parse(cf_class *cls, cf_reader *r, cf_error *error);
void cf_cp_write(const cf_class *cls, cf_buffer *b);
int cf_cp_has(const cf_class *cls, uint32_t index, uint8_t tag);
/* Whether the Utf8 entry at index is exactly text. */
int cf_cp_utf8_is(const cf_class *cls, uint32_t index, const char *text);
/* Index of an equal entry, appended when missing; 0 when the pool is full or out of memory. */
uint16_t cf_cp_utf8(cf_class *cls, const char *text);
uint16_t cf_cp_class(cf_class *cls, const char *name);
uint16_t cf_cp_integer(cf_class *cls, int32_t value);
/* tag CF_FIELDREF or CF_METHODREF */
uint16_t cf_cp_member_ref(cf_class *cls, uint8_t tag, const char *class_name, const char *name,
                          const char *descriptor);

/* ---- attributes.c: attribute tables ----------------------------------------------- */
/* Reads attribute_count and that many attributes; names must be Utf8 entries. */
int cf_read_attributes(cf_class *cls, cf_reader *r, uint16_t *count, cf_attr **attrs, cf_error *error);
void cf_write_attributes(cf_buffer *b, uint16_t count, const cf_attr *attrs);
void cf_write_attribute(cf_buffer *b, const cf_attr *attr);
/* The first attribute named name, or NULL. */
const cf_attr *cf_find_attribute(const cf_class *cls, uint16_t count, const cf_attr *attrs, const char *name);

/* ---- code.c: Code attributes -------------------------------------------------------- */
int cf_code_parse(cf_class *cls, const cf_attr *attr, cf_code **out, cf_error *error);
/* The attribute body (what follows attribute_length). */
void cf_code_write(const cf_code *code, cf_buffer *b);

/* ---- opcodes.c: instruction decoding ------------------------------------------------ */
enum {
    OP_ICONST_0 = 3, OP_BIPUSH = 16, OP_SIPUSH = 17, OP_LDC_W = 19, OP_BALOAD = 51,
    OP_IFEQ = 153, OP_GOTO = 167, OP_JSR = 168, OP_TABLESWITCH = 170, OP_LOOKUPSWITCH = 171,
    OP_IRETURN = 172, OP_RETURN = 177, OP_GETSTATIC = 178, OP_INVOKESPECIAL = 183,
    OP_INVOKESTATIC = 184, OP_NEW = 187, OP_ATHROW = 191, OP_WIDE = 196, OP_IFNULL = 198,
    OP_IFNONNULL = 199, OP_GOTO_W = 200, OP_JSR_W = 201
};
/* Length of the instruction at pc (switch padding counted from pc), or 0 when the
 * opcode is unknown or the instruction does not fit in code. */
uint32_t cf_insn_length(const uint8_t *code, uint32_t length, uint32_t pc);
/* Branches with a 16-bit offset at pc + 1 (if*, goto, jsr, ifnull, ifnonnull). */
int cf_is_short_branch(uint8_t op);
/* Short branches but goto and jsr. */
int cf_is_conditional_branch(uint8_t op);
int cf_is_return(uint8_t op);

/* ---- descriptor.c: descriptors -------------------------------------------------------- */
/* Length of the field type at s (NUL-terminated), or 0 when none starts there. */
size_t cf_field_type_length(const char *s);
/* CF_MALFORMED unless every member reference, (invoke)dynamic entry and method of the class
 * has a well-formed descriptor: the type simulation trusts them. */
int cf_check_descriptors(cf_class *cls, cf_error *error);
/* Calls each(context, type, type_length) for every parameter type, then returns the
 * return type through ret / ret_length; -1 when the descriptor is malformed. */
int cf_descriptor_walk(const char *descriptor, int (*each)(void *context, const char *type, size_t length),
                       void *context, const char **ret, size_t *ret_length);

/* ---- stackmap.c: StackMapTable ------------------------------------------------------ */
enum {
    CF_ITEM_TOP = 0, CF_ITEM_INTEGER = 1, CF_ITEM_FLOAT = 2, CF_ITEM_DOUBLE = 3, CF_ITEM_LONG = 4,
    CF_ITEM_NULL = 5, CF_ITEM_UNINITIALIZED_THIS = 6, CF_ITEM_OBJECT = 7, CF_ITEM_UNINITIALIZED = 8
};
typedef struct cf_vtype {
    uint8_t item;  /* CF_ITEM_* */
    uint16_t data; /* Object: Class index; Uninitialized: pc of its new instruction */
} cf_vtype;
/* One frame with absolute contents; a Long or Double is one entry, as in the encoding. */
typedef struct cf_frame {
    uint32_t pc;
    uint16_t local_count, stack_count;
    cf_vtype *locals, *stack;
} cf_frame;

/* The implicit frame at pc 0 of a method (JVMS 4.10.1.6); may add Class entries. */
int cf_initial_frame(cf_class *cls, const cf_member *method, cf_frame *out, cf_error *error);
/* The verification type of a field descriptor (return types included; "V" is not). */
int cf_vtype_of(cf_class *cls, const char *type, size_t length, cf_vtype *out, cf_error *error);
int cf_stackmap_decode(cf_class *cls, const cf_attr *attr, uint32_t code_length, const cf_frame *initial,
                       cf_frame **frames, uint16_t *count, cf_error *error);
/* Encodes frames (sorted by pc, distinct pcs) into *out, an attribute named StackMapTable. */
int cf_stackmap_encode(cf_class *cls, const cf_frame *initial, const cf_frame *frames, uint32_t count,
                       cf_attr *out, cf_error *error);

/* ---- simulate.c: types along straight-line code ------------------------------------- */
/* The locals and operand stack just before the instruction at target_pc, running the
 * code from frame from (no branch target may lie between); out->pc is left 0. */
int cf_simulate_frame(cf_class *cls, const cf_code *code, const cf_frame *from, uint32_t target_pc, cf_frame *out,
                      cf_error *error);

/* What each instruction of a constructor finds `this` to be (cf_simulate_this). */
enum { CF_THIS_INITIALIZED = 0, CF_THIS_UNINITIALIZED = 1, CF_THIS_INIT_CALL = 2 /* the super()/this() call */ };
/* state[pc] for every instruction of the code, each path followed from the stack map frame
 * before it (frames: absolute, sorted by pc, count of them; initial: the method's implicit
 * first frame); CF_MALFORMED when the types cannot be followed. */
int cf_simulate_this(cf_class *cls, const cf_code *code, const cf_frame *initial, const cf_frame *frames,
                     uint32_t count, uint8_t *state, cf_error *error);

/* ---- relocate.c: code layout after insertions --------------------------------------- */
typedef struct cf_relocation {
    uint8_t *code;          /* the new code, in the arena */
    uint32_t length;
    uint32_t body_start;    /* pc of the first original instruction: after the prefix */
    uint32_t body_end;      /* end of the original code: where the suffix starts */
    /* For every original pc that starts an instruction, and for the original length:
     * target[pc]  where a jump to pc now lands (the code inserted before it, if any);
     * moved[pc]   where the instruction itself now is. */
    uint32_t *target, *moved;
    /* Per original pc: 1 for a branch that no longer fit in 16 bits.  A conditional one
     * became the opposite branch over a goto_w, CF_SPLIT_BRANCH_LENGTH bytes in all,
     * after which the verifier wants a stack map frame. */
    uint8_t *widened;
    uint32_t old_length;
} cf_relocation;

enum { CF_SPLIT_BRANCH_LENGTH = 8 };

/*
 * Lays out prefix + the original code with before_return inserted before every return
 * instruction + suffix, rewriting branch offsets (goto/jsr widen to goto_w/jsr_w when
 * they no longer fit, conditional branches are split, switch padding is recomputed).
 * Inserted code must be position independent.  CF_CODE_TOO_LONG or CF_MALFORMED on
 * failure.
 */
int cf_relocate(cf_arena *arena, const uint8_t *code, uint32_t length, const uint8_t *prefix,
                uint32_t prefix_length, const uint8_t *before_return, uint32_t before_return_length,
                const uint8_t *suffix, uint32_t suffix_length, cf_relocation *out, cf_error *error);

/* Whether pc starts an instruction of the original code or is its end. */
int cf_is_boundary(const cf_relocation *reloc, uint32_t pc);

/* ---- remap.c: Code sub-attributes after relocation ----------------------------------- */
/* Rewrites the pc fields of a LineNumberTable, LocalVariableTable or
 * LocalVariableTypeTable for the relocation; CF_MALFORMED if it is inconsistent. */
int cf_remap_line_numbers(cf_arena *arena, const cf_attr *attr, const cf_relocation *reloc, cf_attr *out,
                          cf_error *error);
int cf_remap_local_variables(cf_arena *arena, const cf_attr *attr, const cf_relocation *reloc, cf_attr *out,
                             cf_error *error);

/* ---- rewrite.c, frames.c: the shape of a rewritten method ------------------------ */
/* A piece of injected code: [getstatic flags; push id; baload; ifeq skip;] push id;
 * invokestatic target; skip: [athrow]. */
typedef struct cf_snippet {
    uint8_t bytes[24];
    uint32_t length;
    uint32_t skip; /* offset of the label after the call, where a frame is needed; 0 when unguarded */
} cf_snippet;

/* Where rewrite.c put the injected code. */
typedef struct cf_method_layout {
    cf_relocation reloc;
    cf_snippet entry, exit, handler;
    /* Constructors of subclasses: per original pc, CF_THIS_* (constructor.c); else NULL.
     * Such a method gets two handlers: for where this is uninitialized, then initialized. */
    const uint8_t *this_state;
} cf_method_layout;

/* ---- constructor.c: this in a constructor -------------------------------------------- */
/* The layout's this_state for a constructor (not Object's) with bytecode; has_stack_map:
 * whether its rewrite will carry a StackMapTable.  CF_CODE_UNSUPPORTED (reason in error)
 * when its paths cannot be followed or it calls no super()/this(). */
int cf_constructor_states(cf_class *cls, const cf_member *method, int has_stack_map, const uint8_t **out,
                          cf_error *error);

/* The StackMapTable of the rewritten method (code: its original Code); CF_MALFORMED,
 * or CF_CODE_UNSUPPORTED when the types at a new frame cannot be worked out. */
int cf_rebuild_stack_map(cf_class *cls, const cf_member *method, const cf_code *code, const cf_method_layout *lay,
                         uint16_t throwable, cf_attr *out, cf_error *error);

#endif /* JEVMON_CLASSFILE_INTERNAL_H */

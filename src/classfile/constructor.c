/*
 * constructor.c - where a constructor's `this` is still uninitialized, so that the handler
 * the rewriter puts over the original body is typed right at every instruction it covers.
 *
 * A constructor may have several super()/this() calls, one per path: Groovy's constructors
 * choose theirs with a switch, so code after the first call in code order can still run
 * with `this` uninitialized.  Where the method will carry a StackMapTable, every path is
 * followed from the frames (simulate.c).  Code without one is checked by the old verifier,
 * which types handlers itself: there `this` counts as uninitialized up to the first call in
 * code order.
 */
#include "classfile/internal.h"

/* The pc of the invokespecial that initializes this in code order: the first <init> call
 * not paired with an earlier new.  0 when there is none (the caller checks). */
static uint32_t first_this_init(const cf_class *cls, const cf_code *code)
{
    uint32_t pending_new = 0;
    for (uint32_t pc = 0, n; pc < code->length; pc += n) {
        n = cf_insn_length(code->bytes, code->length, pc);
        if (!n)
            return 0;
        uint8_t op = code->bytes[pc];
        if (op == OP_NEW)
            pending_new++;
        if (op != OP_INVOKESPECIAL)
            continue;
        uint16_t ref = cf_get_u2(code->bytes + pc + 1);
        if (!cf_cp_has(cls, ref, CF_METHODREF) && !cf_cp_has(cls, ref, CF_INTERFACE_METHODREF))
            return 0;
        uint16_t nat = cls->cp[ref].v.ref.second;
        if (!cf_cp_utf8_is(cls, cls->cp[nat].v.ref.first, "<init>"))
            continue;
        if (pending_new == 0)
            return pc;
        pending_new--;
    }
    return 0;
}

static int follow_paths(cf_class *cls, const cf_member *method, const cf_code *code, uint8_t *state,
                        cf_error *error)
{
    cf_frame initial, *frames = NULL;
    uint16_t count = 0;
    const cf_attr *table = cf_find_attribute(cls, code->attr_count, code->attrs, "StackMapTable");
    if (cf_initial_frame(cls, method, &initial, error) < 0 ||
        (table && cf_stackmap_decode(cls, table, code->length, &initial, &frames, &count, error) < 0))
        return CF_MALFORMED;
    return cf_simulate_this(cls, code, &initial, frames, count, state, error) < 0 ? CF_CODE_UNSUPPORTED : 0;
}

int cf_constructor_states(cf_class *cls, const cf_member *method, int has_stack_map, const uint8_t **out,
                          cf_error *error)
{
    const cf_code *code = method->code;
    uint8_t *state = cf_arena_alloc(cls->arena, code->length);
    if (!state)
        return cf_fail(error, "out of memory");
    if (has_stack_map) {
        int result = follow_paths(cls, method, code, state, error);
        if (result < 0)
            return result;
    } else {
        uint32_t call = first_this_init(cls, code);
        if (call) {
            for (uint32_t pc = 0; pc < call; pc++)
                state[pc] = CF_THIS_UNINITIALIZED;
            state[call] = CF_THIS_INIT_CALL;
        }
    }
    for (uint32_t pc = 0; pc < code->length; pc++)
        if (state[pc] == CF_THIS_INIT_CALL) {
            *out = state;
            return 0;
        }
    cf_fail(error, "constructor without a super() or this() call");
    return CF_CODE_UNSUPPORTED;
}

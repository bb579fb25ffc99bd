/*
 * relocate.c - laying out a method's code again after inserting code at its start,
 * before each return instruction and at its end: every branch and switch offset is
 * recomputed for the new positions, switch padding follows the new alignment, goto or
 * jsr grow into goto_w or jsr_w when their offset no longer fits in 16 bits, and a
 * conditional branch that no longer reaches becomes the opposite branch over a goto_w.
 */
#include <string.h>

#include "classfile/internal.h"

#define NOT_AN_INSTRUCTION UINT32_MAX

/* Whether the original code has an instruction at pc. */
static int is_instruction(const cf_relocation *reloc, int64_t pc)
{
    return pc >= 0 && pc < reloc->old_length && reloc->moved[pc] != NOT_AN_INSTRUCTION;
}

/* Where the 4-byte operands of a switch at pc start: after 0-3 bytes of padding. */
static uint32_t switch_operands(uint32_t pc)
{
    return (pc + 4) & ~3u;
}

/* The number of jump offsets after the default of the switch whose operands are at
 * operands, and the distance between them; the first is at operands + 12 for both kinds
 * (tableswitch: default, low, high, offsets; lookupswitch: default, npairs, key/offset pairs). */
static uint32_t switch_cases(uint8_t op, const uint8_t *operands, uint32_t *stride)
{
    *stride = op == OP_TABLESWITCH ? 4 : 8;
    if (op == OP_TABLESWITCH)
        return cf_get_u4(operands + 8) - cf_get_u4(operands + 4) + 1; /* high - low + 1 */
    return cf_get_u4(operands + 4);
}

/* Calls check(context, target) for every branch target of the instruction at pc. */
static int for_each_target(const uint8_t *code, uint32_t pc, int (*check)(void *context, int64_t target),
                           void *context)
{
    uint8_t op = code[pc];
    if (cf_is_short_branch(op))
        return check(context, pc + (int64_t)(int16_t)cf_get_u2(code + pc + 1));
    if (op == OP_GOTO_W || op == OP_JSR_W)
        return check(context, pc + (int64_t)(int32_t)cf_get_u4(code + pc + 1));
    if (op != OP_TABLESWITCH && op != OP_LOOKUPSWITCH)
        return 0;
    const uint8_t *operands = code + switch_operands(pc);
    uint32_t stride, count = switch_cases(op, operands, &stride);
    if (check(context, pc + (int64_t)(int32_t)cf_get_u4(operands)) < 0)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if (check(context, pc + (int64_t)(int32_t)cf_get_u4(operands + 12 + i * stride)) < 0)
            return -1;
    return 0;
}

static int check_target(void *context, int64_t target)
{
    return is_instruction(context, target) ? 0 : -1;
}

/* The branch taken exactly when op's is not: ifeq <-> ifne, iflt <-> ifge, ...,
 * if_acmpeq <-> if_acmpne, ifnull <-> ifnonnull. */
static uint8_t opposite(uint8_t op)
{
    if (op == OP_IFNULL || op == OP_IFNONNULL)
        return op == OP_IFNULL ? OP_IFNONNULL : OP_IFNULL;
    return (uint8_t)((op - OP_IFEQ) % 2 == 0 ? op + 1 : op - 1);
}

/* Size of the instruction at old pc when placed at new_pc. */
static uint32_t new_size(const uint8_t *code, uint32_t pc, uint32_t old_size, uint32_t new_pc, int widened)
{
    uint8_t op = code[pc];
    if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH)
        return old_size - (switch_operands(pc) - pc) + (switch_operands(new_pc) - new_pc);
    if (!widened)
        return old_size;
    return cf_is_conditional_branch(op) ? CF_SPLIT_BRANCH_LENGTH : 5;
}

static void put_s32(uint8_t *p, int64_t v)
{
    cf_set_u4(p, (uint32_t)(int32_t)v);
}

/* Writes the instruction at old pc to out at its new place, with branch offsets for it. */
static void emit(const uint8_t *code, uint32_t pc, uint32_t old_size, int widened, const cf_relocation *reloc,
                 uint8_t *out)
{
    uint8_t op = code[pc];
    uint32_t at = reloc->moved[pc];
    if (cf_is_short_branch(op)) {
        int64_t displacement = (int64_t)reloc->target[pc + (int16_t)cf_get_u2(code + pc + 1)] - at;
        if (widened && cf_is_conditional_branch(op)) {
            out[at] = opposite(op); /* over the goto_w when the original would not branch */
            cf_set_u2(out + at + 1, CF_SPLIT_BRANCH_LENGTH);
            out[at + 3] = OP_GOTO_W;
            put_s32(out + at + 4, displacement - 3);
        } else if (widened) {
            out[at] = op == OP_GOTO ? OP_GOTO_W : OP_JSR_W;
            put_s32(out + at + 1, displacement);
        } else {
            out[at] = op;
            cf_set_u2(out + at + 1, (uint16_t)(int16_t)displacement);
        }
    } else if (op == OP_GOTO_W || op == OP_JSR_W) {
        out[at] = op;
        put_s32(out + at + 1, (int64_t)reloc->target[pc + (int32_t)cf_get_u4(code + pc + 1)] - at);
    } else if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
        const uint8_t *in = code + switch_operands(pc);
        uint8_t *o = out + switch_operands(at);
        out[at] = op;
        memset(out + at + 1, 0, (size_t)(o - (out + at + 1)));
        memcpy(o, in, old_size - (switch_operands(pc) - pc)); /* keys, low, high, counts */
        put_s32(o, (int64_t)reloc->target[pc + (int32_t)cf_get_u4(in)] - at);
        uint32_t stride, count = switch_cases(op, in, &stride);
        for (uint32_t i = 0; i < count; i++) {
            uint32_t field = 12 + i * stride;
            put_s32(o + field, (int64_t)reloc->target[pc + (int32_t)cf_get_u4(in + field)] - at);
        }
    } else {
        memcpy(out + at, code + pc, old_size);
    }
}

int cf_relocate(cf_arena *arena, const uint8_t *code, uint32_t length, const uint8_t *prefix,
                uint32_t prefix_length, const uint8_t *before_return, uint32_t before_return_length,
                const uint8_t *suffix, uint32_t suffix_length, cf_relocation *out, cf_error *error)
{
    memset(out, 0, sizeof(*out));
    out->old_length = length;
    out->target = cf_arena_alloc(arena, sizeof(uint32_t) * (length + 1u));
    out->moved = cf_arena_alloc(arena, sizeof(uint32_t) * (length + 1u));
    uint8_t *widened = out->widened = cf_arena_alloc(arena, length);
    uint32_t *size = cf_arena_alloc(arena, sizeof(uint32_t) * length);
    if (!out->target || !out->moved || !widened || !size)
        return cf_fail(error, "out of memory");
    for (uint32_t pc = 0; pc < length; pc++)
        out->moved[pc] = out->target[pc] = NOT_AN_INSTRUCTION;
    for (uint32_t pc = 0; pc < length; pc += size[pc]) {
        size[pc] = cf_insn_length(code, length, pc);
        if (!size[pc])
            return cf_fail(error, "bad instruction (opcode %u) at pc %u", code[pc], pc);
        out->moved[pc] = 0;
    }
    for (uint32_t pc = 0; pc < length; pc += size[pc])
        if (for_each_target(code, pc, check_target, out) < 0)
            return cf_fail(error, "branch at pc %u to a place that is not an instruction", pc);

    /* Widening only ever grows code, so this settles after at most one pass per branch. */
    for (;;) {
        uint32_t at = prefix_length;
        for (uint32_t pc = 0; pc < length; pc += size[pc]) {
            out->target[pc] = at;
            if (cf_is_return(code[pc]))
                at += before_return_length;
            out->moved[pc] = at;
            at += new_size(code, pc, size[pc], at, widened[pc]);
        }
        out->target[length] = out->moved[length] = at;
        out->body_start = prefix_length;
        out->body_end = at;
        out->length = at + suffix_length;
        if (out->length > UINT16_MAX)
            return CF_CODE_TOO_LONG;
        int changed = 0;
        for (uint32_t pc = 0; pc < length; pc += size[pc]) {
            if (!cf_is_short_branch(code[pc]) || widened[pc])
                continue;
            int64_t displacement = (int64_t)out->target[pc + (int16_t)cf_get_u2(code + pc + 1)] - out->moved[pc];
            if (displacement >= INT16_MIN && displacement <= INT16_MAX)
                continue;
            widened[pc] = 1;
            changed = 1;
        }
        if (!changed)
            break;
    }

    out->code = cf_arena_alloc(arena, out->length);
    if (!out->code)
        return cf_fail(error, "out of memory");
    memcpy(out->code, prefix, prefix_length);
    for (uint32_t pc = 0; pc < length; pc += size[pc]) {
        if (cf_is_return(code[pc]))
            memcpy(out->code + out->target[pc], before_return, before_return_length);
        emit(code, pc, size[pc], widened[pc], out, out->code);
    }
    memcpy(out->code + out->body_end, suffix, suffix_length);
    return 0;
}

int cf_is_boundary(const cf_relocation *reloc, uint32_t pc)
{
    return pc == reloc->old_length || is_instruction(reloc, pc);
}

/* opcodes.c - lengths and kinds of JVM instructions (JVMS 6.5), see internal.h; the return scan of classfile.h. */
#include "classfile/classfile.h"
#include "classfile/internal.h"

/* Length of each fixed-size opcode; 0 for unknown opcodes and the variable-length
 * tableswitch, lookupswitch and wide. */
static const uint8_t fixed_length[256] = {
    /* 0x00 nop, aconst_null, iconst_m1..5, lconst, fconst, dconst */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x10 bipush, sipush, ldc, ldc_w, ldc2_w, iload..aload, iload_0.. */
    2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
    /* 0x20 ..aload_3, iaload..saload */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x30 .., istore..astore, istore_0.. */
    1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
    /* 0x40 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x50 ..sastore, pop, dup, swap */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x60 arithmetic */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x70 */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x80 .., iinc (0x84), conversions */
    1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x90 conversions, lcmp..dcmpg, ifeq.. */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3,
    /* 0xa0 if_icmpne..jsr, ret, tableswitch, lookupswitch, returns */
    3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 0, 0, 1, 1, 1, 1,
    /* 0xb0 areturn, return, get/putstatic, get/putfield, invokes, invokeinterface,
     * invokedynamic, new, newarray, anewarray, arraylength, athrow */
    1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 5, 3, 2, 3, 1, 1,
    /* 0xc0 checkcast, instanceof, monitorenter/exit, wide, multianewarray, ifnull,
     * ifnonnull, goto_w, jsr_w; 0xca and above are reserved (breakpoint, impdep) */
    3, 3, 1, 1, 0, 4, 3, 3, 5, 5, 0, 0, 0, 0, 0, 0,
};

uint32_t cf_insn_length(const uint8_t *code, uint32_t length, uint32_t pc)
{
    if (pc >= length)
        return 0;
    uint8_t op = code[pc];
    uint64_t n = fixed_length[op];
    if (op == OP_WIDE) {
        if (pc + 1 >= length)
            return 0;
        uint8_t widened = code[pc + 1];
        if (widened == 0x84) /* iinc */
            n = 6;
        else if ((widened >= 0x15 && widened <= 0x19) || (widened >= 0x36 && widened <= 0x3a) || widened == 0xa9)
            n = 4; /* loads, stores, ret */
        else
            return 0;
    } else if (op == OP_TABLESWITCH || op == OP_LOOKUPSWITCH) {
        uint64_t operands = (pc + 4) & ~(uint64_t)3; /* after 0-3 bytes of padding */
        if (operands + (op == OP_TABLESWITCH ? 12 : 8) > length)
            return 0;
        if (op == OP_TABLESWITCH) {
            int32_t low = (int32_t)cf_get_u4(code + operands + 4);
            int32_t high = (int32_t)cf_get_u4(code + operands + 8);
            if (low > high)
                return 0;
            n = operands - pc + 12 + 4 * ((uint64_t)((int64_t)high - low) + 1);
        } else {
            int32_t pairs = (int32_t)cf_get_u4(code + operands + 4);
            if (pairs < 0)
                return 0;
            n = operands - pc + 8 + 8 * (uint64_t)pairs;
        }
    }
    if (n == 0 || n > length - pc)
        return 0;
    return (uint32_t)n;
}

int cf_is_short_branch(uint8_t op)
{
    return (op >= OP_IFEQ && op <= OP_JSR) || op == OP_IFNULL || op == OP_IFNONNULL;
}

int cf_is_return(uint8_t op)
{
    return op >= OP_IRETURN && op <= OP_RETURN;
}

int cf_is_conditional_branch(uint8_t op)
{
    return cf_is_short_branch(op) && op != OP_GOTO && op != OP_JSR;
}

long cf_return_offsets(const uint8_t *code, uint32_t length, uint32_t *offsets, size_t max)
{
    long found = 0;
    for (uint32_t pc = 0; pc < length;) {
        uint32_t n = cf_insn_length(code, length, pc);
        if (n == 0)
            return -1;
        if (cf_is_return(code[pc]) && (size_t)found++ < max)
            offsets[found - 1] = pc;
        pc += n;
    }
    return found;
}

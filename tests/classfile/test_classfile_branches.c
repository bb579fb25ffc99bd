/*
 * test_classfile_branches.c - code the rewriter moves, without a JVM: branches, switches and
 * exception handlers landing where they did, gotos, jsrs and conditional branches widened or
 * split when inserted code pushes them out of range, and the offset map of each instruction's
 * move.  Classes built byte by byte (classfile_build.c) and tests/classfile/java/Jumps.class.
 * Pure C11, so it also runs under Wine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "classfile_build.h"

START_TEST(branches_land_where_they_did)
{
    /* 0: iload_0  1: ifeq ->9  4: iinc 0 -1  7: goto ->0 (backward)  10: return ... laid
     * out so the forward branch targets a return and the backward one crosses one. */
    const uint8_t code[] = {
        0x1a,             /* 0 iload_0 */
        0x99, 0x00, 0x0a, /* 1 ifeq -> 11 (the final return) */
        0x84, 0x00, 0xff, /* 4 iinc 0, -1 */
        0x1a,             /* 7 iload_0 */
        0x9a, 0xff, 0xf8, /* 8 ifne -> 0 */
        0xb1,             /* 11 return */
    };
    bytes input = class_with_code(code, sizeof(code));
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &unflagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    /* entry: iconst_0, invokestatic (4 bytes); before the return: the same with exit */
    ck_assert_int_eq(c->bytes[0], OP_ICONST_0);
    ck_assert(is_bridge_call(cls, c->bytes + 1, "enter"));
    uint32_t body = 4;
    ck_assert_int_eq(c->bytes[body + 1], 0x99);
    int16_t forward = (int16_t)cf_get_u2(c->bytes + body + 2);
    /* the forward branch lands on the exit call before the return, not on the return */
    ck_assert_int_eq(c->bytes[body + 1 + forward], OP_ICONST_0);
    ck_assert(is_bridge_call(cls, c->bytes + body + 1 + forward + 1, "exit"));
    ck_assert_int_eq(c->bytes[body + 1 + forward + 4], OP_RETURN);
    /* the backward branch lands on the first original instruction, after the entry call */
    int16_t backward = (int16_t)cf_get_u2(c->bytes + body + 9);
    ck_assert_int_eq(body + 8 + backward, body);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

/* Checks the switch at pc of the instrumented m(): zero padding to a 4-byte boundary and
 * every target at the bipush <case value> its original target had. */
static void check_switch(const cf_code *c, uint32_t pc, int cases)
{
    ck_assert_uint_gt(cf_insn_length(c->bytes, c->length, pc), 0);
    uint32_t operands = (pc + 4) & ~3u;
    for (uint32_t p = pc + 1; p < operands; p++)
        ck_assert_int_eq(c->bytes[p], 0);
    int32_t def = (int32_t)cf_get_u4(c->bytes + operands);
    ck_assert_int_eq(c->bytes[pc + def], OP_BIPUSH);
    ck_assert_int_eq(c->bytes[pc + def + 1], 99);
    for (int i = 0; i < cases; i++) {
        uint32_t stride = c->bytes[pc] == OP_TABLESWITCH ? 4 : 8;
        uint32_t field = operands + 12 + stride * (uint32_t)i;
        int32_t target = (int32_t)cf_get_u4(c->bytes + field);
        ck_assert_int_eq(c->bytes[pc + target], OP_BIPUSH);
        ck_assert_int_eq(c->bytes[pc + target + 1], i);
    }
}

START_TEST(switch_padding_follows_the_new_alignment)
{
    /* iload_0; tableswitch 0..1; lookupswitch {5, 9}; case bodies: bipush n; pop; return */
    uint8_t code[128];
    size_t n = 0;
    code[n++] = 0x1a;                       /* 0 iload_0 */
    code[n++] = OP_TABLESWITCH;             /* 1 */
    n += 2;                                 /* padding to 4 */
    uint32_t table_ops = (uint32_t)n;
    n += 4 * 5;                             /* default, low, high, 2 offsets */
    code[n++] = 0x1a;                       /* iload_0 */
    uint32_t lookup_pc = (uint32_t)n;
    code[n++] = OP_LOOKUPSWITCH;
    while (n % 4)
        code[n++] = 0;
    uint32_t lookup_ops = (uint32_t)n;
    n += 4 * 6;                             /* default, npairs, 2 pairs */
    uint32_t body[3];
    for (int i = 0; i < 3; i++) {
        body[i] = (uint32_t)n;
        code[n++] = OP_BIPUSH;
        code[n++] = (uint8_t)(i == 2 ? 99 : i);
        code[n++] = 0x57;                   /* pop */
        code[n++] = OP_RETURN;
    }
    memset(code + 2, 0, 2);
    cf_set_u4(code + table_ops, body[2] - 1);
    cf_set_u4(code + table_ops + 4, 0);
    cf_set_u4(code + table_ops + 8, 1);
    cf_set_u4(code + table_ops + 12, body[0] - 1);
    cf_set_u4(code + table_ops + 16, body[1] - 1);
    memset(code + lookup_pc + 1, 0, lookup_ops - lookup_pc - 1);
    cf_set_u4(code + lookup_ops, body[2] - lookup_pc);
    cf_set_u4(code + lookup_ops + 4, 2);
    cf_set_u4(code + lookup_ops + 8, 5);
    cf_set_u4(code + lookup_ops + 12, body[0] - lookup_pc);
    cf_set_u4(code + lookup_ops + 16, 9);
    cf_set_u4(code + lookup_ops + 20, body[1] - lookup_pc);
    bytes input = class_with_code(code, n);

    /* ids 1000 (sipush) without guard: 6 bytes at entry, so every padding changes */
    next_id = 1000;
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &unflagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    ck_assert_int_eq(c->bytes[0], OP_SIPUSH);
    ck_assert_int_eq(c->bytes[7], OP_TABLESWITCH);
    check_switch(c, 7, 2);
    uint32_t next = 7 + cf_insn_length(c->bytes, c->length, 7) + 1;
    ck_assert_int_eq(c->bytes[next], OP_LOOKUPSWITCH);
    check_switch(c, next, 2);
    ck_assert_int_eq(count_calls(cls, c, "exit"), 3 + 1); /* three returns and the handler */
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

/* Code: a branch at 0 over `returns` returns padded with nops to about 30000 bytes, to the
 * final return; branch is goto, jsr or ifeq (with iconst_0 before it). */
static bytes far_branch(uint8_t branch, unsigned returns)
{
    size_t length = 30000;
    uint8_t *code = calloc(length, 1); /* nop */
    size_t start = 0;
    if (branch == OP_IFEQ)
        code[start++] = OP_ICONST_0;
    code[start] = branch;
    cf_set_u2(code + start + 1, (uint16_t)(length - 1 - start));
    for (unsigned i = 0; i < returns; i++)
        code[start + 3 + i * 4] = OP_RETURN;
    code[length - 1] = OP_RETURN;
    bytes input = class_with_code(code, length);
    free(code);
    return input;
}

/* With an unwind method, the handler calls it without the flag check; entry and exits keep theirs. */
START_TEST(handler_calls_unwind_outside_the_flag)
{
    static const uint8_t code[] = {OP_ICONST_0, OP_IFEQ, 0x00, 0x04, OP_RETURN, OP_RETURN};
    bytes input = class_with_code(code, sizeof(code));
    cf_hooks hooks = flagged;
    hooks.unwind_name = "unwind";
    hooks.unwind_descriptor = "(I)V";
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &hooks, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    ck_assert_int_eq(count_calls(cls, c, "enter"), 1);
    ck_assert_int_eq(count_calls(cls, c, "exit"), 2);   /* the two returns */
    ck_assert_int_eq(count_calls(cls, c, "unwind"), 1); /* the handler */
    check_returns_report_exit(cls, c);
    uint32_t handler = c->handlers[c->handler_count - 1].handler_pc;
    ck_assert_int_eq(c->bytes[handler], OP_ICONST_0); /* the id: no getstatic of the flags before it */
    ck_assert(is_bridge_call(cls, c->bytes + handler + 1, "unwind"));
    ck_assert_int_eq(c->bytes[handler + 4], OP_ATHROW);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(goto_widens_when_inserted_code_pushes_it_out_of_range)
{
    /* 1500 returns get 1500 * 14 bytes of guarded exit calls: 51000 bytes between */
    bytes input = far_branch(OP_GOTO, 1500);
    uint8_t *out;
    cf_instrument_stats stats;
    next_id = 7;
    cf_class *cls = instrument(&input, &flagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    uint32_t body = 14; /* getstatic, bipush 7, baload, ifeq, bipush 7, invokestatic */
    ck_assert_int_eq(c->bytes[body], OP_GOTO_W);
    int32_t displacement = (int32_t)cf_get_u4(c->bytes + body + 1);
    ck_assert_int_gt(displacement, INT16_MAX);
    /* it lands on the guarded exit call before the final return */
    ck_assert_int_eq(c->bytes[body + displacement], OP_GETSTATIC);
    ck_assert_int_eq(c->bytes[body + displacement + 14], OP_RETURN);
    ck_assert_int_eq(c->bytes[body + displacement + 15], OP_GETSTATIC); /* the handler */
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(jsr_widens_too)
{
    bytes input = far_branch(OP_JSR, 5000); /* 5000 unguarded exit calls of 4 bytes */
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &unflagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    ck_assert_int_eq(c->bytes[4], OP_JSR_W); /* after iconst_0; invokestatic enter */
    int32_t displacement = (int32_t)cf_get_u4(c->bytes + 4 + 1);
    ck_assert_int_eq(c->bytes[4 + displacement], OP_ICONST_0); /* the exit call before the final return */
    ck_assert_int_eq(c->bytes[4 + displacement + 4], OP_RETURN);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(conditional_branch_out_of_range_is_split)
{
    bytes input = far_branch(OP_IFEQ, 1500);
    uint8_t *out;
    cf_instrument_stats stats;
    next_id = 7;
    cf_class *cls = instrument(&input, &flagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    uint32_t branch = 14 + 1; /* after the guarded entry call and iconst_0 */
    ck_assert_int_eq(c->bytes[branch], 0x9a); /* ifne over ... */
    ck_assert_int_eq(cf_get_u2(c->bytes + branch + 1), 8);
    ck_assert_int_eq(c->bytes[branch + 3], OP_GOTO_W); /* ... a goto_w to the old target */
    int32_t displacement = (int32_t)cf_get_u4(c->bytes + branch + 4);
    ck_assert_int_eq(c->bytes[branch + 3 + displacement], OP_GETSTATIC);
    ck_assert_int_eq(c->bytes[branch + 3 + displacement + 14], OP_RETURN);
    ck_assert_int_eq(c->bytes[branch + 8], OP_GETSTATIC); /* the first return's exit call */
    ck_assert_int_eq(tk_log_count, 0);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

/* What the rewritten hook said of the last method rewritten (copies: its map lives only during the call). */
static struct {
    uint8_t *original;
    uint32_t original_length, rewritten_length;
    uint32_t *target, *moved;
} reported;

static void note_rewritten(void *context, const cf_method_info *m, int32_t id, const cf_offset_map *map)
{
    (void)context, (void)m, (void)id;
    free(reported.original);
    free(reported.target);
    free(reported.moved);
    size_t entries = map->original_length + 1u;
    reported.original = malloc(map->original_length);
    reported.target = malloc(entries * sizeof(uint32_t));
    reported.moved = malloc(entries * sizeof(uint32_t));
    memcpy(reported.original, map->original, map->original_length);
    memcpy(reported.target, map->target, entries * sizeof(uint32_t));
    memcpy(reported.moved, map->moved, entries * sizeof(uint32_t));
    reported.original_length = map->original_length;
    reported.rewritten_length = map->rewritten_length;
}

/*
 * The offset map of a rewrite with a split branch and many returns: every original instruction
 * is where moved says (the same opcode, but the split branch's), its code starts at target (the
 * exit call before a return), the entry call is all before target[0], the body ends at
 * target[length], and pcs inside instructions are marked so.
 */
START_TEST(offset_map_says_where_each_instruction_went)
{
    bytes input = far_branch(OP_IFEQ, 1500);
    cf_hooks hooks = flagged;
    hooks.rewritten = note_rewritten;
    uint8_t *out;
    cf_instrument_stats stats;
    next_id = 7;
    cf_class *cls = instrument(&input, &hooks, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    ck_assert_uint_eq(reported.rewritten_length, c->length);
    ck_assert_uint_eq(reported.original_length, 30000);
    ck_assert_uint_eq(reported.target[0], 14); /* the guarded entry call */
    ck_assert_uint_eq(reported.moved[0], 14);
    ck_assert_int_eq(c->bytes[reported.moved[1]], 0x9a); /* ifeq, split into ifne over a goto_w */
    ck_assert_uint_eq(reported.moved[2], UINT32_MAX); /* inside the branch */
    unsigned returns = 0;
    for (uint32_t pc = 0; pc < reported.original_length; pc++) {
        if (reported.moved[pc] == UINT32_MAX)
            continue;
        uint8_t op = reported.original[pc];
        if (pc != 1)
            ck_assert_int_eq(c->bytes[reported.moved[pc]], op);
        if (op == OP_RETURN) {
            returns++;
            ck_assert_uint_eq(reported.moved[pc] - reported.target[pc], 14); /* the exit call before it */
        } else
            ck_assert_uint_eq(reported.moved[pc], reported.target[pc]);
    }
    ck_assert_uint_eq(returns, 1501);
    ck_assert_uint_eq(reported.target[30000], reported.moved[30000]);
    ck_assert_int_eq(c->bytes[reported.target[30000]], OP_GETSTATIC); /* the injected handler */
    free(reported.original);
    free(reported.target);
    free(reported.moved);
    memset(&reported, 0, sizeof(reported));
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST


int main(void)
{
    Suite *s = suite_create("classfile_branches");
    TCase *tc = tcase_create("classfile_branches");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, branches_land_where_they_did);
    tcase_add_test(tc, handler_calls_unwind_outside_the_flag);
    tcase_add_test(tc, switch_padding_follows_the_new_alignment);
    tcase_add_test(tc, goto_widens_when_inserted_code_pushes_it_out_of_range);
    tcase_add_test(tc, jsr_widens_too);
    tcase_add_test(tc, conditional_branch_out_of_range_is_split);
    tcase_add_test(tc, offset_map_says_where_each_instruction_went);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

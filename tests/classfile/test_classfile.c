/*
 * test_classfile.c - the class-file model and the entry/exit instrumenter without a JVM
 * (tests/classfile/test_classfile_jdk.c runs the results on real JVMs): round trips, what the
 * rewriter inserts and leaves alone, broken classes; branches and code moved by the rewriter in
 * test_classfile_branches.c.  Inputs are classes built byte by byte (classfile_build.c) and
 * tests/classfile/java/Jumps.class, found under $JEVMON_SRC (default: the working directory).
 * Pure C11, so it also runs under Wine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "classfile_build.h"

START_TEST(every_constant_pool_tag_round_trips)
{
    builder c;
    builder_init(&c);
    unsigned name = utf8(&c, "x"), type = utf8(&c, "I"), mdesc = utf8(&c, "()V");
    u1(&c.cp, CF_INTEGER); u4(&c.cp, 0x12345678); c.cp_count++;
    u1(&c.cp, CF_FLOAT); u4(&c.cp, 0x3f800000); c.cp_count++;
    u1(&c.cp, CF_LONG); u4(&c.cp, 1); u4(&c.cp, 2); c.cp_count += 2;
    u1(&c.cp, CF_DOUBLE); u4(&c.cp, 3); u4(&c.cp, 4); c.cp_count += 2;
    unsigned cls = class_entry(&c, "test/Other");
    u1(&c.cp, CF_STRING); u2(&c.cp, name); c.cp_count++;
    unsigned nat = c.cp_count;
    u1(&c.cp, CF_NAME_AND_TYPE); u2(&c.cp, name); u2(&c.cp, type); c.cp_count++;
    unsigned mnat = c.cp_count;
    u1(&c.cp, CF_NAME_AND_TYPE); u2(&c.cp, name); u2(&c.cp, mdesc); c.cp_count++;
    unsigned field = c.cp_count;
    u1(&c.cp, CF_FIELDREF); u2(&c.cp, cls); u2(&c.cp, nat); c.cp_count++;
    u1(&c.cp, CF_METHODREF); u2(&c.cp, cls); u2(&c.cp, mnat); c.cp_count++;
    unsigned imethod = c.cp_count;
    u1(&c.cp, CF_INTERFACE_METHODREF); u2(&c.cp, cls); u2(&c.cp, mnat); c.cp_count++;
    u1(&c.cp, CF_METHOD_HANDLE); u1(&c.cp, 1); u2(&c.cp, field); c.cp_count++;
    u1(&c.cp, CF_METHOD_HANDLE); u1(&c.cp, 9); u2(&c.cp, imethod); c.cp_count++;
    u1(&c.cp, CF_METHOD_TYPE); u2(&c.cp, mdesc); c.cp_count++;
    u1(&c.cp, CF_DYNAMIC); u2(&c.cp, 0); u2(&c.cp, nat); c.cp_count++;
    u1(&c.cp, CF_INVOKE_DYNAMIC); u2(&c.cp, 0); u2(&c.cp, mnat); c.cp_count++;
    u1(&c.cp, CF_MODULE); u2(&c.cp, name); c.cp_count++;
    u1(&c.cp, CF_PACKAGE); u2(&c.cp, name); c.cp_count++;
    bytes input = finish(&c, CF_MAX_MAJOR_VERSION);

    char error[256];
    cf_class *parsed = cf_parse(input.data, input.size, error, sizeof(error));
    ck_assert_msg(parsed != NULL, "%s", error);
    int seen[32] = {0};
    for (unsigned i = 1; i < parsed->cp_count; i++)
        seen[parsed->cp[i].tag]++;
    const int tags[] = {CF_UTF8, CF_INTEGER, CF_FLOAT, CF_LONG, CF_DOUBLE, CF_CLASS, CF_STRING, CF_FIELDREF,
                        CF_METHODREF, CF_INTERFACE_METHODREF, CF_NAME_AND_TYPE, CF_METHOD_HANDLE, CF_METHOD_TYPE,
                        CF_DYNAMIC, CF_INVOKE_DYNAMIC, CF_MODULE, CF_PACKAGE};
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
        ck_assert_msg(seen[tags[i]] > 0, "tag %d missing", tags[i]);
    ck_assert_uint_eq(parsed->cp[6].v.wide_bits, 0x100000002ull); /* Long after 3 Utf8, Integer, Float */
    ck_assert_int_eq(parsed->cp[7].tag, 0);                        /* its second slot */

    uint8_t *out;
    size_t size;
    ck_assert_int_eq(cf_write(parsed, &out, &size, error, sizeof(error)), 0);
    ck_assert_uint_eq(size, input.size);
    ck_assert(memcmp(out, input.data, size) == 0);
    free(out);
    cf_free(parsed);

    /* the newest version is accepted, the next one is not */
    input.data[7] = CF_MAX_MAJOR_VERSION + 1;
    ck_assert_ptr_null(cf_parse(input.data, input.size, error, sizeof(error)));
    ck_assert_msg(strstr(error, "version"), "%s", error);
    free(input.data);
}
END_TEST

START_TEST(compiled_class_round_trips_and_instruments)
{
    bytes input = read_source_file("tests/classfile/java/Jumps.class");
    char error[256];
    cf_class *parsed = cf_parse(input.data, input.size, error, sizeof(error));
    ck_assert_msg(parsed != NULL, "%s", error);
    uint8_t *out;
    size_t size;
    ck_assert_int_eq(cf_write(parsed, &out, &size, error, sizeof(error)), 0);
    ck_assert(size == input.size && memcmp(out, input.data, size) == 0);
    free(out);
    cf_free(parsed);

    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &flagged, &out, &stats);
    ck_assert_uint_eq(stats.no_bytecode, 1); /* outside() */
    ck_assert_uint_eq(left_alone_count[CF_NO_BYTECODE], 1);
    ck_assert_uint_eq(stats.instrumented, (unsigned)next_id);
    ck_assert_uint_eq(stats.instrumented, 12);
    for (unsigned i = 0; i < cls->method_count; i++) {
        const cf_member *m = &cls->methods[i];
        if (!m->code)
            continue;
        const cf_code *code = m->code;
        /* guard, then the entry call */
        ck_assert_int_eq(code->bytes[0], OP_GETSTATIC);
        ck_assert_int_eq(count_calls(cls, code, "enter"), 1);
        check_returns_report_exit(cls, code);
        /* the catch-all handler is last, ends in athrow and has a frame */
        const cf_handler *last = &code->handlers[code->handler_count - 1];
        ck_assert_int_eq(last->catch_type, 0);
        ck_assert_int_eq(code->bytes[code->length - 1], OP_ATHROW);
        cf_frame *frames;
        uint16_t count = frames_of(cls, m, &frames);
        for (unsigned f = 0; f < count; f++)
            ck_assert_msg(cf_insn_length(code->bytes, code->length, frames[f].pc) > 0, "frame off an instruction");
        const cf_frame *handler = frame_at(frames, count, last->handler_pc);
        ck_assert_int_eq(handler->stack_count, 1);
        ck_assert_int_eq(handler->stack[0].item, CF_ITEM_OBJECT);
        ck_assert(cf_cp_utf8_is(cls, cls->cp[handler->stack[0].data].v.ref.first, "java/lang/Throwable"));
        check_debug_tables(cls, code);
    }

    /* The constructor computing its this() argument: one handler before the call, typed
     * uninitializedThis, one after it; none covers the call. */
    const cf_member *ctor = find_method(cls, "<init>", "(Ljava/lang/Object;I)V");
    const cf_code *code = ctor->code;
    ck_assert_int_eq(code->handler_count, 2);
    const cf_handler *before = &code->handlers[0], *after = &code->handlers[1];
    ck_assert_int_eq(code->bytes[before->end_pc], OP_INVOKESPECIAL);
    ck_assert_int_eq(after->start_pc, before->end_pc + 3);
    ck_assert_int_ne(before->handler_pc, after->handler_pc);
    cf_frame *frames;
    uint16_t count = frames_of(cls, ctor, &frames);
    const cf_frame *f = frame_at(frames, count, before->handler_pc);
    ck_assert_int_eq(f->local_count, 1);
    ck_assert_int_eq(f->locals[0].item, CF_ITEM_UNINITIALIZED_THIS);
    f = frame_at(frames, count, after->handler_pc);
    ck_assert_int_eq(f->local_count, 0);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(method_near_64k_is_left_alone)
{
    size_t length = 65530;
    uint8_t *code = calloc(length, 1);
    code[length - 1] = OP_RETURN;
    builder c;
    builder_init(&c);
    method(&c, CF_ACC_STATIC, "big", "()V", code, length);
    const uint8_t small[] = {OP_RETURN};
    method(&c, CF_ACC_STATIC, "small", "()V", small, sizeof(small));
    method(&c, 0, "outside", "()V", NULL, 0);
    bytes input = finish(&c, 49);
    free(code);

    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &flagged, &out, &stats);
    ck_assert_uint_eq(stats.instrumented, 1);
    ck_assert_uint_eq(stats.too_long, 1);
    ck_assert_uint_eq(stats.no_bytecode, 1);
    ck_assert_uint_eq(left_alone_count[CF_TOO_LONG], 1);
    ck_assert_uint_eq(left_alone_count[CF_NO_BYTECODE], 1);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "test/Built.big()V") && strstr(tk_log_lines[0], "65535"), "%s",
                  tk_log_lines[0]);
    ck_assert_uint_eq(find_method(cls, "big", NULL)->code->length, length); /* unchanged */
    ck_assert_uint_gt(find_method(cls, "small", NULL)->code->length, 1);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

/* A return need not find its value alone on the stack (jlink's generated code leaves
 * hundreds of entries below): the frame after the guarded exit call lists them all. */
START_TEST(exit_frame_keeps_the_whole_stack)
{
    const uint8_t code[] = {0x01, 0x0a, 0x04, OP_IRETURN}; /* aconst_null; lconst_1; iconst_1; ireturn */
    builder c;
    builder_init(&c);
    method(&c, CF_ACC_STATIC, "m", "()I", code, sizeof(code));
    bytes input = finish(&c, 52);
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &flagged, &out, &stats);
    const cf_member *m = find_method(cls, "m", NULL);
    uint32_t ret = 0;
    while (m->code->bytes[ret] != OP_IRETURN)
        ret += cf_insn_length(m->code->bytes, m->code->length, ret);
    cf_frame *frames;
    uint16_t count = frames_of(cls, m, &frames);
    const cf_frame *f = frame_at(frames, count, ret);
    ck_assert_int_eq(f->local_count, 0);
    ck_assert_int_eq(f->stack_count, 3);
    ck_assert_int_eq(f->stack[0].item, CF_ITEM_NULL);
    ck_assert_int_eq(f->stack[1].item, CF_ITEM_LONG);
    ck_assert_int_eq(f->stack[2].item, CF_ITEM_INTEGER);
    ck_assert_int_eq(m->code->max_stack, 4 + 2);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(large_ids_use_an_integer_constant)
{
    const uint8_t code[] = {OP_RETURN};
    bytes input = class_with_code(code, sizeof(code));
    next_id = 100000;
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &unflagged, &out, &stats);
    const cf_code *c = find_method(cls, "m", NULL)->code;
    ck_assert_int_eq(c->bytes[0], OP_LDC_W);
    const cf_const *k = &cls->cp[cf_get_u2(c->bytes + 1)];
    ck_assert_int_eq(k->tag, CF_INTEGER);
    ck_assert_uint_eq(k->v.bits, 100000);
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

/* An enter that takes a reference first gets the method's first parameter (slot 1 of an instance
 * method, 0 of a static one) before the id; exit and unwind get the id alone. */
START_TEST(enter_taking_a_reference_gets_the_first_parameter)
{
    const uint8_t code[] = {OP_RETURN};
    builder b;
    builder_init(&b);
    method(&b, 0, "instance", "(Ljava/lang/String;)V", code, sizeof(code));
    method(&b, CF_ACC_STATIC, "shared", "([ILjava/lang/String;)V", code, sizeof(code));
    bytes input = finish(&b, 49);
    cf_hooks hooks = unflagged;
    hooks.enter_descriptor = "(Ljava/lang/String;I)V";
    uint8_t *out;
    cf_instrument_stats stats;
    cf_class *cls = instrument(&input, &hooks, &out, &stats);
    static const struct { const char *name; uint8_t load; } expected[] = {{"instance", 0x2b /* aload_1 */},
                                                                         {"shared", 0x2a /* aload_0 */}};
    for (size_t i = 0; i < 2; i++) {
        const cf_code *c = find_method(cls, expected[i].name, NULL)->code;
        ck_assert_int_eq(c->bytes[0], expected[i].load);
        ck_assert_int_eq(c->bytes[1], OP_ICONST_0 + (int)i);
        ck_assert(is_bridge_call(cls, c->bytes + 2, "enter"));
        ck_assert_int_eq(count_calls(cls, c, "enter"), 1);
        check_returns_report_exit(cls, c);
        ck_assert_uint_ge(c->max_stack, 2); /* the parameter and the id */
    }
    cf_free(cls);
    free(out);
    free(input.data);
}
END_TEST

START_TEST(bridge_and_skipped_methods_are_not_touched)
{
    const uint8_t code[] = {OP_RETURN};
    bytes input = class_with_code(code, sizeof(code));
    cf_hooks bridge = flagged;
    bridge.bridge_class = "test/Built";
    uint8_t *out;
    size_t size;
    cf_instrument_stats stats;
    char error[256];
    int result = cf_instrument_class(input.data, input.size, &bridge, &out, &size, &stats, error, sizeof(error));
    ck_assert_int_eq(result, 0);
    ck_assert_int_eq(next_id, 0);
    free(input.data);
}
END_TEST

/* Every prefix of a real class must fail to parse; every single-bit change must either
 * fail or instrument cleanly (ASan and UBSan watch). */
START_TEST(truncated_and_corrupted_classes_fail_cleanly)
{
    bytes input = read_source_file("tests/classfile/java/Jumps.class");
    char error[256];
    for (size_t n = 0; n < input.size; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exact size, so ASan sees any read past it */
        memcpy(copy, input.data, n);
        cf_class *cls = cf_parse(copy, n, error, sizeof(error));
        ck_assert_msg(cls == NULL, "a class cut at %u bytes parsed", (unsigned)n);
        ck_assert_msg(error[0] != '\0', "no error for a class cut at %u bytes", (unsigned)n);
        free(copy);
    }
    unsigned failed = 0, instrumented = 0;
    uint32_t seed = 12345;
    for (size_t i = 0; i < input.size * 8; i += 3) {
        uint8_t *copy = malloc(input.size);
        memcpy(copy, input.data, input.size);
        copy[i / 8] ^= (uint8_t)(1u << (i % 8));
        seed = seed * 1103515245u + 12345u; /* and a second flip somewhere else */
        copy[(seed >> 8) % input.size] ^= (uint8_t)(1u << ((seed >> 4) % 8));
        uint8_t *out;
        size_t size;
        cf_instrument_stats stats;
        int result = cf_instrument_class(copy, input.size, &flagged, &out, &size, &stats, error, sizeof(error));
        failed += result < 0;
        instrumented += result > 0;
        if (result > 0) {
            cf_class *again = cf_parse(out, size, error, sizeof(error));
            ck_assert_msg(again != NULL, "output of a corrupted class does not parse: %s", error);
            cf_free(again);
        }
        free(out);
        free(copy);
    }
    ck_assert_uint_gt(failed, 0);
    ck_assert_uint_gt(instrumented, 0);
    free(input.data);
}
END_TEST

/* cf_return_offsets (THREAD_SET_NAME's breakpoints): every return found, walking over the
 * variable-length instructions; a code it cannot walk is refused rather than half-scanned. */
START_TEST(returns_are_found_past_switches_and_wide)
{
    static const uint8_t code[] = {
        0x1a,                         /* 0 iload_0 */
        0xaa, 0x00, 0x00,             /* 1 tableswitch, padded to 4 */
        0x00, 0x00, 0x00, 0x18,       /* 4 default: 1 + 24 = 25 */
        0x00, 0x00, 0x00, 0x00,       /* 8 low 0 */
        0x00, 0x00, 0x00, 0x01,       /* 12 high 1 */
        0x00, 0x00, 0x00, 0x18,       /* 16 case 0 */
        0x00, 0x00, 0x00, 0x19,       /* 20 case 1: 26 */
        0xac,                         /* 24 ireturn (the byte a naive scan would read as one) */
        0xc4, 0x84, 0x01, 0x00, 0x00, 0x02, /* 25 wide iinc 256, 2 */
        0xb1,                         /* 31 return */
        0xc4, 0x15, 0x00, 0xb1,       /* 32 wide iload 177: operand bytes that look like return */
        0xac,                         /* 36 ireturn */
    };
    uint32_t offsets[4];
    ck_assert_int_eq(cf_return_offsets(code, sizeof(code), offsets, 4), 3);
    ck_assert_uint_eq(offsets[0], 24);
    ck_assert_uint_eq(offsets[1], 31);
    ck_assert_uint_eq(offsets[2], 36);
    /* More returns than room: all counted, the first ones kept. */
    ck_assert_int_eq(cf_return_offsets(code, sizeof(code), offsets, 1), 3);
    ck_assert_uint_eq(offsets[0], 24);
    /* Cut inside the last wide instruction, or an unknown opcode: not walkable. */
    ck_assert_int_eq(cf_return_offsets(code, 34, offsets, 4), -1);
    static const uint8_t unknown[] = {0x00, 0xcb, 0xb1};
    ck_assert_int_eq(cf_return_offsets(unknown, sizeof(unknown), offsets, 4), -1);
    ck_assert_int_eq(cf_return_offsets(code, 0, offsets, 4), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("classfile");
    TCase *tc = tcase_create("classfile");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_constant_pool_tag_round_trips);
    tcase_add_test(tc, compiled_class_round_trips_and_instruments);
    tcase_add_test(tc, method_near_64k_is_left_alone);
    tcase_add_test(tc, exit_frame_keeps_the_whole_stack);
    tcase_add_test(tc, large_ids_use_an_integer_constant);
    tcase_add_test(tc, enter_taking_a_reference_gets_the_first_parameter);
    tcase_add_test(tc, bridge_and_skipped_methods_are_not_touched);
    tcase_add_test(tc, truncated_and_corrupted_classes_fail_cleanly);
    tcase_add_test(tc, returns_are_found_past_switches_and_wide);
    suite_add_tcase(s, tc);
    return tk_run_suite(s);
}

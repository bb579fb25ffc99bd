/*
 * test_classfile.c - the class-file model and the entry/exit instrumenter without a JVM
 * (tests/classfile/test_classfile_jdk.c runs the results on real JVMs).  Inputs are classes
 * built here byte by byte and tests/classfile/java/Jumps.class, found under $JEVMON_SRC
 * (default: the working directory).  Pure C11, so it also runs under Wine.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classfile/classfile.h"
#include "classfile/internal.h"
#include "platform/platform.h"
#include "../support/testkit.h"

/* ---- Building class files ---------------------------------------------------------------- */

typedef struct bytes {
    uint8_t *data;
    size_t size, capacity;
} bytes;

static void put(bytes *b, const void *data, size_t n)
{
    if (n == 0)
        return;
    if (b->size + n > b->capacity) {
        b->capacity = (b->size + n) * 2;
        b->data = realloc(b->data, b->capacity);
        ck_assert_ptr_nonnull(b->data);
    }
    memcpy(b->data + b->size, data, n);
    b->size += n;
}

static void u1(bytes *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    put(b, &x, 1);
}

static void u2(bytes *b, unsigned v)
{
    u1(b, v >> 8);
    u1(b, v);
}

static void u4(bytes *b, uint32_t v)
{
    u2(b, v >> 16);
    u2(b, v & 0xffff);
}

typedef struct builder {
    bytes cp, methods;
    unsigned cp_count, method_count;
} builder;

static unsigned utf8(builder *c, const char *text)
{
    u1(&c->cp, CF_UTF8);
    u2(&c->cp, (unsigned)strlen(text));
    put(&c->cp, text, strlen(text));
    return c->cp_count++;
}

static unsigned class_entry(builder *c, const char *name)
{
    unsigned n = utf8(c, name);
    u1(&c->cp, CF_CLASS);
    u2(&c->cp, n);
    return c->cp_count++;
}

/* A method; code NULL makes it native. */
static void method(builder *c, unsigned access, const char *name, const char *descriptor, const uint8_t *code,
                   size_t length)
{
    unsigned n = utf8(c, name), d = utf8(c, descriptor), code_name = code ? utf8(c, "Code") : 0;
    u2(&c->methods, code ? access : access | CF_ACC_NATIVE);
    u2(&c->methods, n);
    u2(&c->methods, d);
    u2(&c->methods, code ? 1 : 0);
    c->method_count++;
    if (!code)
        return;
    u2(&c->methods, code_name);
    u4(&c->methods, (uint32_t)(12 + length));
    u2(&c->methods, 4); /* max_stack */
    u2(&c->methods, 4); /* max_locals */
    u4(&c->methods, (uint32_t)length);
    put(&c->methods, code, length);
    u2(&c->methods, 0); /* exception table */
    u2(&c->methods, 0); /* attributes */
}

static void builder_init(builder *c)
{
    memset(c, 0, sizeof(*c));
    c->cp_count = 1;
}

/* The class file; frees what the builder held. */
static bytes finish(builder *c, unsigned major)
{
    unsigned this_class = class_entry(c, "test/Built"), super_class = class_entry(c, "java/lang/Object");
    bytes b = {0};
    u4(&b, 0xCAFEBABE);
    u2(&b, 0);
    u2(&b, major);
    u2(&b, c->cp_count);
    put(&b, c->cp.data, c->cp.size);
    u2(&b, 0x21);
    u2(&b, this_class);
    u2(&b, super_class);
    u2(&b, 0); /* interfaces */
    u2(&b, 0); /* fields */
    u2(&b, c->method_count);
    put(&b, c->methods.data, c->methods.size);
    u2(&b, 0); /* attributes */
    free(c->cp.data);
    free(c->methods.data);
    return b;
}

/* A version-49 class (no stack maps) with one static method "m" whose code is given. */
static bytes class_with_code(const uint8_t *code, size_t length)
{
    builder c;
    builder_init(&c);
    method(&c, CF_ACC_STATIC, "m", "()V", code, length);
    return finish(&c, 49);
}

static bytes read_source_file(const char *relative)
{
    char path[2048];
    const char *root = getenv("JEVMON_SRC");
    snprintf(path, sizeof(path), "%s/%s", root ? root : ".", relative);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s (set JEVMON_SRC to the source tree)", path);
    bytes b = {0};
    uint8_t chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        put(&b, chunk, n);
    fclose(f);
    return b;
}

/* ---- Instrumenting -------------------------------------------------------------------------- */

static int32_t next_id;
static unsigned left_alone_count[4];

static int32_t assign_id(void *context, const cf_method_info *m)
{
    (void)context;
    (void)m;
    return next_id++;
}

static void note_left_alone(void *context, const cf_method_info *m, cf_left_alone why)
{
    (void)context;
    (void)m;
    left_alone_count[why]++;
}

static const cf_hooks flagged = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", "on", "[B",
                                 assign_id, note_left_alone, NULL, NULL, NULL, NULL};
static const cf_hooks unflagged = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", NULL, NULL,
                                   assign_id, note_left_alone, NULL, NULL, NULL, NULL};

static void setup(void)
{
    next_id = 0;
    memset(left_alone_count, 0, sizeof(left_alone_count));
    tk_capture_log();
}

static void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
}

/* Instruments input, then parses the result (the caller frees it with cf_free). */
static cf_class *instrument(const bytes *input, const cf_hooks *hooks, uint8_t **out, cf_instrument_stats *stats)
{
    size_t size;
    char error[256];
    int result = cf_instrument_class(input->data, input->size, hooks, out, &size, stats, error, sizeof(error));
    ck_assert_msg(result == 1, "instrumenting failed (%d): %s", result, error);
    cf_class *cls = cf_parse(*out, size, error, sizeof(error));
    ck_assert_msg(cls != NULL, "the instrumented class does not parse: %s", error);
    return cls;
}

static const cf_member *find_method(const cf_class *cls, const char *name, const char *descriptor)
{
    for (unsigned i = 0; i < cls->method_count; i++)
        if (cf_cp_utf8_is(cls, cls->methods[i].name, name) &&
            (!descriptor || cf_cp_utf8_is(cls, cls->methods[i].descriptor, descriptor)))
            return &cls->methods[i];
    ck_abort_msg("no method %s", name);
    return NULL;
}

/* Whether the method ref at index names jevmon/Bridge.name. */
static int is_bridge_call(const cf_class *cls, const uint8_t *insn, const char *name)
{
    if (insn[0] != OP_INVOKESTATIC)
        return 0;
    uint16_t ref = cf_get_u2(insn + 1);
    const cf_const *r = &cls->cp[ref];
    const cf_const *owner = &cls->cp[r->v.ref.first], *nat = &cls->cp[r->v.ref.second];
    return r->tag == CF_METHODREF && cf_cp_utf8_is(cls, owner->v.ref.first, "jevmon/Bridge") &&
           cf_cp_utf8_is(cls, nat->v.ref.first, name);
}

/* Counts invokestatic Bridge.name in code; every instruction must decode. */
static int count_calls(const cf_class *cls, const cf_code *code, const char *name)
{
    int n = 0;
    for (uint32_t pc = 0, len; pc < code->length; pc += len) {
        len = cf_insn_length(code->bytes, code->length, pc);
        ck_assert_msg(len > 0, "bad instruction at %u", pc);
        n += is_bridge_call(cls, code->bytes + pc, name);
    }
    return n;
}

/* Every return must come right after a call of Bridge.exit (through its guard). */
static void check_returns_report_exit(const cf_class *cls, const cf_code *code)
{
    for (uint32_t pc = 0, len; pc < code->length; pc += len) {
        len = cf_insn_length(code->bytes, code->length, pc);
        if (cf_is_return(code->bytes[pc]))
            ck_assert_msg(pc >= 3 && is_bridge_call(cls, code->bytes + pc - 3, "exit"),
                          "return at %u without an exit call", pc);
    }
}

/* The decoded StackMapTable of an instrumented method. */
static uint16_t frames_of(cf_class *cls, const cf_member *m, cf_frame **frames)
{
    char error[256] = "";
    cf_error e = {error, sizeof(error)};
    const cf_attr *table = cf_find_attribute(cls, m->code->attr_count, m->code->attrs, "StackMapTable");
    ck_assert_ptr_nonnull(table);
    cf_frame initial;
    uint16_t count;
    ck_assert_msg(cf_initial_frame(cls, m, &initial, &e) == 0, "%s", error);
    ck_assert_msg(cf_stackmap_decode(cls, table, m->code->length, &initial, frames, &count, &e) == 0, "%s", error);
    return count;
}

static const cf_frame *frame_at(const cf_frame *frames, uint16_t count, uint32_t pc)
{
    for (uint16_t i = 0; i < count; i++)
        if (frames[i].pc == pc)
            return &frames[i];
    ck_abort_msg("no frame at %u", pc);
    return NULL;
}

/* Every pc a LineNumberTable or LocalVariableTable names starts an instruction, and no
 * variable range reaches into the injected handlers. */
static void check_debug_tables(const cf_class *cls, const cf_code *code)
{
    uint32_t handlers = code->handlers[code->handler_count - 1].handler_pc;
    for (unsigned a = 0; a < code->attr_count; a++) {
        const cf_attr *attr = &code->attrs[a];
        int lines = cf_cp_utf8_is(cls, attr->name, "LineNumberTable");
        int locals = cf_cp_utf8_is(cls, attr->name, "LocalVariableTable");
        if (!lines && !locals)
            continue;
        unsigned entry = lines ? 4 : 10, count = cf_get_u2(attr->data);
        for (unsigned i = 0; i < count; i++) {
            const uint8_t *e = attr->data + 2 + i * entry;
            uint32_t start = cf_get_u2(e);
            ck_assert_uint_gt(cf_insn_length(code->bytes, code->length, start), 0);
            if (locals)
                ck_assert_uint_le(start + cf_get_u2(e + 2), handlers);
        }
    }
}

/* ---- Tests ------------------------------------------------------------------------------------ */

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
    tcase_add_test(tc, branches_land_where_they_did);
    tcase_add_test(tc, handler_calls_unwind_outside_the_flag);
    tcase_add_test(tc, switch_padding_follows_the_new_alignment);
    tcase_add_test(tc, goto_widens_when_inserted_code_pushes_it_out_of_range);
    tcase_add_test(tc, jsr_widens_too);
    tcase_add_test(tc, conditional_branch_out_of_range_is_split);
    tcase_add_test(tc, offset_map_says_where_each_instruction_went);
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

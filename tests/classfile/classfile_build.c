/*
 * classfile_build.c - class files built byte by byte, the rewriter's test hooks and the checks of
 * what it wrote, for the class-file suites (classfile_build.h).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "classfile_build.h"
#include "platform/platform.h"

void put(bytes *b, const void *data, size_t n)
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

void u1(bytes *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    put(b, &x, 1);
}

void u2(bytes *b, unsigned v)
{
    u1(b, v >> 8);
    u1(b, v);
}

void u4(bytes *b, uint32_t v)
{
    u2(b, v >> 16);
    u2(b, v & 0xffff);
}

unsigned utf8(builder *c, const char *text)
{
    u1(&c->cp, CF_UTF8);
    u2(&c->cp, (unsigned)strlen(text));
    put(&c->cp, text, strlen(text));
    return c->cp_count++;
}

unsigned class_entry(builder *c, const char *name)
{
    unsigned n = utf8(c, name);
    u1(&c->cp, CF_CLASS);
    u2(&c->cp, n);
    return c->cp_count++;
}

/* A method; code NULL makes it native. */
void method(builder *c, unsigned access, const char *name, const char *descriptor, const uint8_t *code,
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

void builder_init(builder *c)
{
    memset(c, 0, sizeof(*c));
    c->cp_count = 1;
}

/* The class file; frees what the builder held. */
bytes finish(builder *c, unsigned major)
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
bytes class_with_code(const uint8_t *code, size_t length)
{
    builder c;
    builder_init(&c);
    method(&c, CF_ACC_STATIC, "m", "()V", code, length);
    return finish(&c, 49);
}

bytes read_source_file(const char *relative)
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

int32_t next_id;
unsigned left_alone_count[4];

int32_t assign_id(void *context, const cf_method_info *m)
{
    (void)context;
    (void)m;
    return next_id++;
}

void note_left_alone(void *context, const cf_method_info *m, cf_left_alone why)
{
    (void)context;
    (void)m;
    left_alone_count[why]++;
}

const cf_hooks flagged = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", "on", "[B",
                                 assign_id, note_left_alone, NULL, NULL, NULL, NULL};
const cf_hooks unflagged = {"jevmon/Bridge", "enter", "(I)V", "exit", "(I)V", NULL, NULL,
                                   assign_id, note_left_alone, NULL, NULL, NULL, NULL};

void setup(void)
{
    next_id = 0;
    memset(left_alone_count, 0, sizeof(left_alone_count));
    tk_capture_log();
}

void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
}

/* Instruments input, then parses the result (the caller frees it with cf_free). */
cf_class *instrument(const bytes *input, const cf_hooks *hooks, uint8_t **out, cf_instrument_stats *stats)
{
    size_t size;
    char error[256];
    int result = cf_instrument_class(input->data, input->size, hooks, out, &size, stats, error, sizeof(error));
    ck_assert_msg(result == 1, "instrumenting failed (%d): %s", result, error);
    cf_class *cls = cf_parse(*out, size, error, sizeof(error));
    ck_assert_msg(cls != NULL, "the instrumented class does not parse: %s", error);
    return cls;
}

const cf_member *find_method(const cf_class *cls, const char *name, const char *descriptor)
{
    for (unsigned i = 0; i < cls->method_count; i++)
        if (cf_cp_utf8_is(cls, cls->methods[i].name, name) &&
            (!descriptor || cf_cp_utf8_is(cls, cls->methods[i].descriptor, descriptor)))
            return &cls->methods[i];
    ck_abort_msg("no method %s", name);
    return NULL;
}

/* Whether the method ref at index names jevmon/Bridge.name. */
int is_bridge_call(const cf_class *cls, const uint8_t *insn, const char *name)
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
int count_calls(const cf_class *cls, const cf_code *code, const char *name)
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
void check_returns_report_exit(const cf_class *cls, const cf_code *code)
{
    for (uint32_t pc = 0, len; pc < code->length; pc += len) {
        len = cf_insn_length(code->bytes, code->length, pc);
        if (cf_is_return(code->bytes[pc]))
            ck_assert_msg(pc >= 3 && is_bridge_call(cls, code->bytes + pc - 3, "exit"),
                          "return at %u without an exit call", pc);
    }
}

/* The decoded StackMapTable of an instrumented method. */
uint16_t frames_of(cf_class *cls, const cf_member *m, cf_frame **frames)
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

const cf_frame *frame_at(const cf_frame *frames, uint16_t count, uint32_t pc)
{
    for (uint16_t i = 0; i < count; i++)
        if (frames[i].pc == pc)
            return &frames[i];
    ck_abort_msg("no frame at %u", pc);
    return NULL;
}

/* Every pc a LineNumberTable or LocalVariableTable names starts an instruction, and no
 * variable range reaches into the injected handlers. */
void check_debug_tables(const cf_class *cls, const cf_code *code)
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

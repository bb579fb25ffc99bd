/*
 * rewrite.c - rewriting methods so they report entry and exit to the bridge class
 * (what is injected is described in classfile.h).  This file decides what code goes
 * where and which handlers cover it; relocate.c moves the original code, frames.c
 * builds the new StackMapTable, remap.c fixes the other tables that name code positions.
 */
#include <string.h>

#include "classfile/internal.h"
#include "platform/platform.h"

/* Constant pool entries the injected code uses, added on first need. */
typedef struct bridge_refs {
    uint16_t enter, exit, unwind, flags, throwable;
} bridge_refs;

typedef struct method_context {
    cf_class *cls;
    cf_member *method;
    const cf_hooks *hooks;
    const bridge_refs *refs;
    cf_method_info info;
    cf_error *error;
} method_context;

static void put_id(cf_snippet *s, int32_t id, uint16_t id_constant)
{
    uint8_t *p = s->bytes + s->length;
    if (id <= 5) {
        p[0] = (uint8_t)(OP_ICONST_0 + id);
        s->length += 1;
    } else if (id <= INT8_MAX) {
        p[0] = OP_BIPUSH;
        p[1] = (uint8_t)id;
        s->length += 2;
    } else if (id <= INT16_MAX) {
        p[0] = OP_SIPUSH;
        cf_set_u2(p + 1, (uint16_t)id);
        s->length += 3;
    } else {
        p[0] = OP_LDC_W;
        cf_set_u2(p + 1, id_constant);
        s->length += 3;
    }
}

static void put_ref(cf_snippet *s, uint8_t op, uint16_t index)
{
    s->bytes[s->length] = op;
    cf_set_u2(s->bytes + s->length + 1, index);
    s->length += 3;
}

enum { OP_ALOAD_0 = 42 };
#define NO_ARGUMENT (-1)

/* The snippet calling target, first pushing the reference in local argument_slot unless it is
 * NO_ARGUMENT (then at most 1); behind the flag unless it is the handler calling a separate
 * unwind method. */
static cf_snippet make_snippet(const bridge_refs *refs, int32_t id, uint16_t id_constant, uint16_t target,
                               int rethrow, int argument_slot)
{
    cf_snippet s = {{0}, 0, 0};
    uint32_t branch = 0;
    int guarded = refs->flags && !(rethrow && refs->unwind != refs->exit);
    if (guarded) {
        put_ref(&s, OP_GETSTATIC, refs->flags);
        put_id(&s, id, id_constant);
        s.bytes[s.length++] = OP_BALOAD;
        branch = s.length;
        put_ref(&s, OP_IFEQ, 0);
    }
    if (argument_slot != NO_ARGUMENT)
        s.bytes[s.length++] = (uint8_t)(OP_ALOAD_0 + argument_slot);
    put_id(&s, id, id_constant);
    put_ref(&s, OP_INVOKESTATIC, target);
    if (guarded) {
        s.skip = s.length;
        cf_set_u2(s.bytes + branch + 1, (uint16_t)(s.length - branch));
    }
    if (rethrow)
        s.bytes[s.length++] = OP_ATHROW;
    return s;
}

static int add_bridge_refs(cf_class *cls, const cf_hooks *hooks, bridge_refs *refs, cf_error *error)
{
    if (refs->enter)
        return 0;
    refs->enter = cf_cp_member_ref(cls, CF_METHODREF, hooks->bridge_class, hooks->enter_name, hooks->enter_descriptor);
    refs->exit = cf_cp_member_ref(cls, CF_METHODREF, hooks->bridge_class, hooks->exit_name, hooks->exit_descriptor);
    refs->unwind = hooks->unwind_name ? cf_cp_member_ref(cls, CF_METHODREF, hooks->bridge_class, hooks->unwind_name,
                                                         hooks->unwind_descriptor)
                                      : refs->exit;
    refs->throwable = cf_cp_class(cls, "java/lang/Throwable");
    if (hooks->flags_name)
        refs->flags =
            cf_cp_member_ref(cls, CF_FIELDREF, hooks->bridge_class, hooks->flags_name, hooks->flags_descriptor);
    if (!refs->enter || !refs->exit || !refs->unwind || !refs->throwable || (hooks->flags_name && !refs->flags))
        return cf_fail(error, "constant pool full");
    return 0;
}

static int is_object_class(const cf_class *cls)
{
    return cf_cp_utf8_is(cls, cls->cp[cls->this_class].v.ref.first, "java/lang/Object");
}

/* ---- Code attribute ------------------------------------------------------------------ */

/*
 * Our handler entries over the original body, into out (when not NULL); returns how many.
 * In a constructor one handler covers the instructions that run before this is
 * initialized, typed with uninitializedThis, the other those after, in as many ranges as
 * the paths make; neither covers a super()/this() call: the verifier checks a handler over
 * that call with both the uninitialized and the initialized this, which no frame satisfies.
 */
static uint32_t our_handlers(const cf_code *code, const cf_method_layout *lay, cf_handler *out)
{
    const cf_relocation *reloc = &lay->reloc;
    uint32_t count = 0, run_start = 0;
    for (uint32_t pc = 0; pc <= code->length; pc++) {
        if (!cf_is_boundary(reloc, pc))
            continue;
        uint8_t run = lay->this_state ? lay->this_state[run_start] : CF_THIS_INITIALIZED;
        if (pc < code->length && (!lay->this_state || lay->this_state[pc] == run))
            continue;
        if (pc > run_start && run != CF_THIS_INIT_CALL) {
            int second = lay->this_state && run == CF_THIS_INITIALIZED; /* after the uninitialized one */
            uint32_t handler = reloc->body_end + (second ? lay->handler.length : 0);
            if (out)
                out[count] = (cf_handler){(uint16_t)reloc->target[run_start], (uint16_t)reloc->target[pc],
                                          (uint16_t)handler, 0};
            count++;
        }
        run_start = pc;
    }
    return count;
}

static int remap_handlers(method_context *mc, const cf_code *code, const cf_method_layout *lay, cf_code *out)
{
    const cf_relocation *reloc = &lay->reloc;
    uint32_t added = our_handlers(code, lay, NULL);
    if (code->handler_count + added > UINT16_MAX)
        return CF_CODE_UNSUPPORTED;
    out->handlers = cf_arena_alloc(mc->cls->arena, sizeof(cf_handler) * (code->handler_count + added + 1u));
    if (!out->handlers)
        return cf_fail(mc->error, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < code->handler_count; i++) {
        const cf_handler *h = &code->handlers[i];
        if (!cf_is_boundary(reloc, h->start_pc) || !cf_is_boundary(reloc, h->end_pc) ||
            !cf_is_boundary(reloc, h->handler_pc))
            return cf_fail(mc->error, "exception table entry %u does not match instructions", i);
        cf_handler *m = &out->handlers[n++];
        m->start_pc = (uint16_t)reloc->target[h->start_pc];
        m->end_pc = (uint16_t)reloc->target[h->end_pc];
        m->handler_pc = (uint16_t)reloc->target[h->handler_pc];
        m->catch_type = h->catch_type;
    }
    /* Ours come last so that every handler of the method itself sees exceptions first. */
    out->handler_count = (uint16_t)(n + our_handlers(code, lay, out->handlers + n));
    return 0;
}

/* The Code sub-attributes of the rewritten method: tables remapped, position-dependent
 * attributes this file cannot remap dropped, the rest kept. */
/*
 * Does the code have places control reaches other than by falling through (branch
 * targets, handlers)?  Such code in a class of version 50 or later carries a StackMapTable
 * whenever HotSpot's type checker will pass it; one that has none (version 50: the old
 * verifier checks it instead; later: HotSpot hands out classes from its shared archive
 * without them when retransforming, unverified) gets none in its rewrite either: frames
 * could not be computed without the original ones.
 */
static int has_merge_points(const cf_code *code)
{
    if (code->handler_count)
        return 1;
    for (uint32_t pc = 0, n; pc < code->length; pc += n) {
        uint8_t op = code->bytes[pc];
        if (cf_is_short_branch(op) || op == OP_GOTO_W || op == OP_JSR_W || op == OP_TABLESWITCH ||
            op == OP_LOOKUPSWITCH)
            return 1;
        if (!(n = cf_insn_length(code->bytes, code->length, pc)))
            return 1; /* malformed: keep to the path that reports it */
    }
    return 0;
}

static int remap_code_attributes(method_context *mc, const cf_code *code, const cf_method_layout *lay,
                                 int wants_stack_map, cf_code *out)
{
    cf_class *cls = mc->cls;
    out->attrs = cf_arena_alloc(cls->arena, sizeof(cf_attr) * (code->attr_count + 1u));
    if (!out->attrs)
        return cf_fail(mc->error, "out of memory");
    uint32_t n = 0;
    for (uint32_t i = 0; i < code->attr_count; i++) {
        const cf_attr *a = &code->attrs[i];
        cf_attr *o = &out->attrs[n];
        int remapped = 0;
        if (cf_cp_utf8_is(cls, a->name, "StackMapTable"))
            continue; /* rebuilt below */
        if (cf_cp_utf8_is(cls, a->name, "LineNumberTable"))
            remapped = cf_remap_line_numbers(cls->arena, a, &lay->reloc, o, mc->error);
        else if (cf_cp_utf8_is(cls, a->name, "LocalVariableTable") ||
                 cf_cp_utf8_is(cls, a->name, "LocalVariableTypeTable"))
            remapped = cf_remap_local_variables(cls->arena, a, &lay->reloc, o, mc->error);
        else if (cf_cp_utf8_is(cls, a->name, "RuntimeVisibleTypeAnnotations") ||
                 cf_cp_utf8_is(cls, a->name, "RuntimeInvisibleTypeAnnotations") ||
                 cf_cp_utf8_is(cls, a->name, "CharacterRangeTable") || cf_cp_utf8_is(cls, a->name, "StackMap"))
            continue;
        else
            *o = *a;
        if (remapped < 0)
            return remapped;
        n++;
    }
    int result = wants_stack_map ? cf_rebuild_stack_map(mc->cls, mc->method, code, lay, mc->refs->throwable,
                                                        &out->attrs[n++], mc->error)
                                 : 0;
    if (result < 0)
        return result;
    out->attr_count = (uint16_t)n;
    return 0;
}

static int rewrite_method(method_context *mc, int32_t id)
{
    cf_class *cls = mc->cls;
    cf_code *code = mc->method->code;
    uint16_t id_constant = 0;
    if (id > INT16_MAX && !(id_constant = cf_cp_integer(cls, id)))
        return cf_fail(mc->error, "constant pool full");
    /* From version 50 on, a method that needed no frames needs some for our handler: without
     * them its class would fail over to the old verifier (version 50) or fail (later). */
    const cf_attr *old_map = cf_find_attribute(cls, code->attr_count, code->attrs, "StackMapTable");
    int wants_stack_map = cls->major_version >= 50 && (old_map || !has_merge_points(code));
    cf_method_layout lay;
    memset(&lay, 0, sizeof(lay));
    const char *enter = mc->hooks->enter_descriptor;
    int argument_slot = enter[0] != '(' || (enter[1] != 'L' && enter[1] != '[') ? NO_ARGUMENT
                        : (mc->method->access & CF_ACC_STATIC) ? 0 : 1;
    lay.entry = make_snippet(mc->refs, id, id_constant, mc->refs->enter, 0, argument_slot);
    lay.exit = make_snippet(mc->refs, id, id_constant, mc->refs->exit, 0, NO_ARGUMENT);
    lay.handler = make_snippet(mc->refs, id, id_constant, mc->refs->unwind, 1, NO_ARGUMENT);
    if (cf_cp_utf8_is(cls, mc->method->name, "<init>")) {
        if (is_object_class(cls)) {
            /* HotSpot rewrites the return of Object.<init> to register finalizers, and
             * C2 (JDK 17) crashes compiling an Object.<init> that has an exception handler. */
            cf_fail(mc->error, "java.lang.Object's constructor is special to the VM");
            return CF_CODE_UNSUPPORTED;
        }
        int result = cf_constructor_states(cls, mc->method, wants_stack_map, &lay.this_state, mc->error);
        if (result < 0)
            return result;
    }
    uint8_t handlers[2 * sizeof(lay.handler.bytes)];
    uint32_t handlers_length = 0;
    for (int i = lay.this_state ? 2 : 1; i > 0; i--) {
        memcpy(handlers + handlers_length, lay.handler.bytes, lay.handler.length);
        handlers_length += lay.handler.length;
    }
    int result = cf_relocate(cls->arena, code->bytes, code->length, lay.entry.bytes, lay.entry.length,
                             lay.exit.bytes, lay.exit.length, handlers, handlers_length, &lay.reloc, mc->error);
    if (result < 0)
        return result;

    cf_code *out = cf_arena_alloc(cls->arena, sizeof(cf_code));
    if (!out)
        return cf_fail(mc->error, "out of memory");
    /* flags array and id, or id alone (an argument and its id: at entry, on an empty stack) */
    uint32_t extra = mc->refs->flags || argument_slot != NO_ARGUMENT ? 2 : 1;
    uint32_t max_stack = (code->max_stack ? code->max_stack : 1u) + extra; /* a handler holds its Throwable */
    if (max_stack > UINT16_MAX)
        return CF_CODE_UNSUPPORTED;
    out->max_stack = (uint16_t)max_stack;
    out->max_locals = code->max_locals;
    out->length = lay.reloc.length;
    out->bytes = lay.reloc.code;
    if ((result = remap_handlers(mc, code, &lay, out)) < 0 ||
        (result = remap_code_attributes(mc, code, &lay, wants_stack_map, out)) < 0)
        return result;
    mc->method->code = out;
    if (mc->hooks->rewritten) {
        cf_offset_map map = {code->bytes, code->length, lay.reloc.length, lay.reloc.target, lay.reloc.moved};
        mc->hooks->rewritten(mc->hooks->context, &mc->info, id, &map);
    }
    return 0;
}

/* ---- Class ---------------------------------------------------------------------------- */

/* NUL-terminated copy of a Utf8 entry in the arena. */
static char *arena_utf8(cf_class *cls, uint16_t index)
{
    const cf_const *c = &cls->cp[index];
    char *s = cf_arena_alloc(cls->arena, c->v.utf8.length + 1u);
    if (s)
        memcpy(s, c->v.utf8.bytes, c->v.utf8.length);
    return s;
}

static int is_empty_finalizer(const cf_class *cls, const cf_member *m)
{
    return cf_cp_utf8_is(cls, m->name, "finalize") && cf_cp_utf8_is(cls, m->descriptor, "()V") &&
           m->code->length == 1 && m->code->bytes[0] == OP_RETURN;
}

static void leave_alone(const method_context *mc, cf_left_alone why)
{
    if (mc->hooks->left_alone)
        mc->hooks->left_alone(mc->hooks->context, &mc->info, why);
}

int cf_instrument(cf_class *cls, const cf_hooks *hooks, cf_instrument_stats *stats, char *error_text,
                  size_t error_size)
{
    cf_error error = {error_text, error_size};
    if (error_text && error_size)
        error_text[0] = '\0';
    cf_instrument_stats counts = {0};
    bridge_refs refs = {0};
    char *class_name = arena_utf8(cls, cls->cp[cls->this_class].v.ref.first);
    if (!class_name)
        return cf_fail(&error, "out of memory");
    int is_bridge = strcmp(class_name, hooks->bridge_class) == 0; /* would call itself */
    if (!is_bridge && cf_check_descriptors(cls, &error) < 0)
        return CF_MALFORMED;
    for (uint32_t i = 0; i < cls->method_count && !is_bridge; i++) {
        cf_member *m = &cls->methods[i];
        cf_method_info info = {class_name, arena_utf8(cls, m->name), arena_utf8(cls, m->descriptor), m->access};
        method_context mc = {cls, m, hooks, &refs, info, &error};
        if (!mc.info.name || !mc.info.descriptor)
            return cf_fail(&error, "out of memory");
        if (!m->code) {
            counts.no_bytecode++;
            leave_alone(&mc, CF_NO_BYTECODE);
            continue;
        }
        if (is_empty_finalizer(cls, m)) {
            counts.empty_finalizer++;
            leave_alone(&mc, CF_EMPTY_FINALIZER);
            continue;
        }
        int32_t id = hooks->method_id(hooks->context, &mc.info);
        if (id < 0) {
            counts.skipped++;
            continue;
        }
        char reason[256] = "";
        cf_error method_error = {reason, sizeof(reason)};
        mc.error = &method_error;
        if (add_bridge_refs(cls, hooks, &refs, &error) < 0)
            return CF_MALFORMED;
        int result = rewrite_method(&mc, id);
        if (result == CF_CODE_TOO_LONG) {
            jv_log("%s.%s%s is not instrumented: its code would exceed 65535 bytes", class_name, mc.info.name,
                   mc.info.descriptor);
            counts.too_long++;
            leave_alone(&mc, CF_TOO_LONG);
        } else if (result == CF_CODE_UNSUPPORTED) {
            jv_log("%s.%s%s is not instrumented: %s", class_name, mc.info.name, mc.info.descriptor,
                   reason[0] ? reason : "too many handlers or too deep a stack");
            counts.unsupported++;
            leave_alone(&mc, CF_UNSUPPORTED);
        } else if (result < 0) {
            return cf_fail(&error, "%s.%s%s: %s", class_name, mc.info.name, mc.info.descriptor, reason);
        } else {
            counts.instrumented++;
        }
    }
    if (stats)
        *stats = counts;
    return 0;
}

int cf_instrument_class(const uint8_t *data, size_t size, const cf_hooks *hooks, uint8_t **out, size_t *out_size,
                        cf_instrument_stats *stats, char *error, size_t error_size)
{
    *out = NULL;
    *out_size = 0;
    cf_instrument_stats counts = {0};
    cf_class *cls = cf_parse(data, size, error, error_size);
    int result = -1;
    if (cls && cf_instrument(cls, hooks, &counts, error, error_size) == 0)
        result = counts.instrumented == 0 ? 0 : cf_write(cls, out, out_size, error, error_size) == 0 ? 1 : -1;
    if (stats)
        *stats = counts;
    cf_free(cls);
    return result;
}

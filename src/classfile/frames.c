/*
 * frames.c - the StackMapTable of a rewritten method: the original frames moved to
 * their new places plus frames for the new code: after the guarded entry call (the
 * method's first frame), after each guarded exit call and split branch, and at the
 * handlers (locals left out or, before super(), only uninitializedThis).
 */
#include <stdlib.h>
#include <string.h>

#include "classfile/internal.h"

typedef struct frame_list {
    cf_frame *frames;
    uint32_t count, capacity;
} frame_list;

static cf_frame *add_frame(cf_arena *arena, frame_list *list, uint32_t pc)
{
    if (list->count == list->capacity)
        return NULL; /* capacity is computed up front */
    cf_frame *f = &list->frames[list->count++];
    memset(f, 0, sizeof(*f));
    f->pc = pc;
    f->locals = cf_arena_alloc(arena, sizeof(cf_vtype) * 2);
    f->stack = cf_arena_alloc(arena, sizeof(cf_vtype) * 2);
    return f->locals && f->stack ? f : NULL;
}

static int compare_pc(const void *a, const void *b)
{
    const cf_frame *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Moves Uninitialized(pc) types to where their new instruction went. */
static int remap_vtypes(cf_vtype *v, uint32_t count, const cf_relocation *reloc)
{
    for (uint32_t i = 0; i < count; i++) {
        if (v[i].item != CF_ITEM_UNINITIALIZED)
            continue;
        if (!cf_is_boundary(reloc, v[i].data) || v[i].data >= reloc->old_length)
            return -1;
        v[i].data = (uint16_t)reloc->moved[v[i].data];
    }
    return 0;
}

/* A frame at pc with the given locals (at most one entry) and one Throwable on the stack. */
static int add_handler_frame(cf_arena *arena, frame_list *list, uint32_t pc, const cf_vtype *local,
                             uint16_t throwable)
{
    cf_frame *f = add_frame(arena, list, pc);
    if (!f)
        return -1;
    if (local)
        f->locals[f->local_count++] = *local;
    f->stack[0].item = CF_ITEM_OBJECT;
    f->stack[0].data = throwable;
    f->stack_count = 1;
    return 0;
}


int cf_rebuild_stack_map(cf_class *cls, const cf_member *method, const cf_code *code, const cf_method_layout *lay,
                         uint16_t throwable, cf_attr *out, cf_error *error)
{
    const cf_relocation *reloc = &lay->reloc;
    cf_frame initial;
    if (cf_initial_frame(cls, method, &initial, error) < 0)
        return CF_MALFORMED;
    cf_frame *old = NULL;
    uint16_t old_count = 0;
    const cf_attr *table = cf_find_attribute(cls, code->attr_count, code->attrs, "StackMapTable");
    if (table && cf_stackmap_decode(cls, table, code->length, &initial, &old, &old_count, error) < 0)
        return CF_MALFORMED;

    uint32_t new_places = 0; /* returns and split branches */
    for (uint32_t pc = 0; pc < code->length; pc++)
        new_places += cf_is_boundary(reloc, pc) && (cf_is_return(code->bytes[pc]) || reloc->widened[pc]);
    frame_list list = {0};
    list.capacity = old_count + 1u + new_places + 4u;
    list.frames = cf_arena_alloc(cls->arena, sizeof(cf_frame) * list.capacity);
    if (!list.frames)
        return cf_fail(error, "out of memory");

    /* Frames the new code needs at places the original had none, computed on the
     * original code and frames: after each guarded exit call (no locals, the stack as
     * the return finds it) and after each split conditional branch (unless the next
     * instruction had a frame already). */
    uint32_t next_old = 0;
    const cf_frame *from = &initial;
    for (uint32_t pc = 0; pc < code->length; pc++) {
        if (!cf_is_boundary(reloc, pc))
            continue;
        while (next_old < old_count && old[next_old].pc <= pc)
            from = &old[next_old++];
        int after_exit = lay->exit.skip && cf_is_return(code->bytes[pc]);
        int after_split = reloc->widened[pc] && cf_is_conditional_branch(code->bytes[pc]) &&
                          !(next_old < old_count && old[next_old].pc == pc + 3);
        if (!after_exit && !after_split)
            continue;
        cf_frame *f = &list.frames[list.count++];
        if (cf_simulate_frame(cls, code, from, after_exit ? pc : pc + 3, f, error) < 0 ||
            remap_vtypes(f->locals, f->local_count, reloc) < 0 || remap_vtypes(f->stack, f->stack_count, reloc) < 0)
            return CF_CODE_UNSUPPORTED;
        if (after_exit)
            f->local_count = 0;
        f->pc = after_exit ? reloc->moved[pc] : reloc->moved[pc] + CF_SPLIT_BRANCH_LENGTH;
    }
    int old_frame_at_start = 0;
    for (uint32_t i = 0; i < old_count; i++) {
        cf_frame *f = &list.frames[list.count++];
        *f = old[i];
        if (!cf_is_boundary(reloc, f->pc) || remap_vtypes(f->locals, f->local_count, reloc) < 0 ||
            remap_vtypes(f->stack, f->stack_count, reloc) < 0)
            return cf_fail(error, "stack map frame does not match instructions");
        old_frame_at_start |= f->pc == 0;
        f->pc = reloc->target[f->pc];
    }
    if (lay->entry.skip && !old_frame_at_start) {
        cf_frame *f = &list.frames[list.count++];
        *f = initial;
        f->pc = reloc->body_start;
    }
    cf_vtype uninitialized_this = {CF_ITEM_UNINITIALIZED_THIS, 0};
    uint32_t handler = reloc->body_end;
    for (int before_super = lay->this_state ? 1 : 0; before_super >= 0; before_super--) {
        const cf_vtype *local = before_super ? &uninitialized_this : NULL;
        if (add_handler_frame(cls->arena, &list, handler, local, throwable) < 0 ||
            (lay->handler.skip &&
             add_handler_frame(cls->arena, &list, handler + lay->handler.skip, local, throwable) < 0))
            return cf_fail(error, "out of memory");
        handler += lay->handler.length;
    }
    qsort(list.frames, list.count, sizeof(cf_frame), compare_pc);
    for (uint32_t i = 1; i < list.count; i++)
        if (list.frames[i].pc == list.frames[i - 1].pc)
            return cf_fail(error, "two stack map frames at pc %u", list.frames[i].pc);
    return cf_stackmap_encode(cls, &initial, list.frames, list.count, out, error);
}

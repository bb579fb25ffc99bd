/*
 * remap.c - moving the pc fields of LineNumberTable, LocalVariableTable and
 * LocalVariableTypeTable to where a relocation put the instructions.
 *
 * A range or line that starts at pc 0 keeps starting at 0, so it also covers the code
 * inserted at method entry; other starts move with the instruction they name,
 * including the code inserted before it (a return's exit call belongs to the line of
 * the return).  A range ending at the end of the code ends at the end of the original
 * body, before the inserted exception handler.
 */
#include <string.h>

#include "classfile/internal.h"

static uint32_t remap_start(const cf_relocation *reloc, uint32_t pc)
{
    return pc == 0 ? 0 : reloc->target[pc];
}

/* A copy of attr in the arena whose entries the caller patches; NULL when out of memory. */
static uint8_t *copy_table(cf_arena *arena, const cf_attr *attr, uint32_t entry_size, uint32_t *count)
{
    if (attr->length < 2)
        return NULL;
    *count = cf_get_u2(attr->data);
    if (attr->length != 2 + (uint64_t)*count * entry_size)
        return NULL;
    return cf_arena_copy(arena, attr->data, attr->length);
}

int cf_remap_line_numbers(cf_arena *arena, const cf_attr *attr, const cf_relocation *reloc, cf_attr *out,
                          cf_error *error)
{
    uint32_t count;
    uint8_t *table = copy_table(arena, attr, 4, &count);
    if (!table)
        return cf_fail(error, "bad LineNumberTable");
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = table + 2 + 4 * i;
        uint32_t pc = cf_get_u2(entry);
        if (pc >= reloc->old_length || !cf_is_boundary(reloc, pc))
            return cf_fail(error, "LineNumberTable names pc %u, not an instruction", pc);
        cf_set_u2(entry, (uint16_t)remap_start(reloc, pc));
    }
    *out = *attr;
    out->data = table;
    return 0;
}

int cf_remap_local_variables(cf_arena *arena, const cf_attr *attr, const cf_relocation *reloc, cf_attr *out,
                             cf_error *error)
{
    uint32_t count;
    uint8_t *table = copy_table(arena, attr, 10, &count);
    if (!table)
        return cf_fail(error, "bad local variable table");
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = table + 2 + 10 * i;
        uint32_t start = cf_get_u2(entry), end = start + cf_get_u2(entry + 2);
        if (start >= reloc->old_length || !cf_is_boundary(reloc, start) || end > reloc->old_length ||
            !cf_is_boundary(reloc, end))
            return cf_fail(error, "local variable range %u..%u does not match instructions", start, end);
        uint32_t new_start = remap_start(reloc, start);
        cf_set_u2(entry, (uint16_t)new_start);
        cf_set_u2(entry + 2, (uint16_t)(reloc->target[end] - new_start));
    }
    *out = *attr;
    out->data = table;
    return 0;
}

/*
 * hotspot_tables.c - reading HotSpot's Serviceability Agent tables (see hotspot_tables.h).  Each
 * lookup is a linear search of a few thousand rows: callers look their fields up once and keep the
 * answers.
 */
#include <string.h>

#include "vm/hotspot_tables.h"
#include "vm/vm.h"

static uint64_t row_number(const char *row, uint64_t column)
{
    uint64_t value;
    memcpy(&value, row + column, sizeof(value));
    return value;
}

static void *row_address(const char *row, uint64_t column)
{
    void *value;
    memcpy(&value, row + column, sizeof(value));
    return value;
}

/* The value of an exported uint64_t (0 when the symbol is missing). */
static uint64_t exported_number(const char *name)
{
    const uint64_t *value = jv_jvm_symbol(name);
    return value ? *value : 0;
}

int jv_sa_tables_read(jv_sa_tables *tables)
{
    const char *const *struct_rows = jv_jvm_symbol("gHotSpotVMStructs");
    const char *const *type_rows = jv_jvm_symbol("gHotSpotVMTypes");
    if (!struct_rows || !*struct_rows || !type_rows || !*type_rows)
        return 0;
    jv_sa_table *s = &tables->structs, *t = &tables->types;
    *s = (jv_sa_table){*struct_rows,
                       exported_number("gHotSpotVMStructEntryArrayStride"),
                       exported_number("gHotSpotVMStructEntryTypeNameOffset"),
                       exported_number("gHotSpotVMStructEntryFieldNameOffset"),
                       exported_number("gHotSpotVMStructEntryTypeStringOffset"),
                       exported_number("gHotSpotVMStructEntryOffsetOffset"),
                       exported_number("gHotSpotVMStructEntryAddressOffset"),
                       0};
    *t = (jv_sa_table){*type_rows, exported_number("gHotSpotVMTypeEntryArrayStride"),
                       exported_number("gHotSpotVMTypeEntryTypeNameOffset"), 0, 0, 0, 0,
                       exported_number("gHotSpotVMTypeEntrySizeOffset")};
    /* Every row starts with its type's name: a stride that cannot hold the columns is no table. */
    return s->stride > s->address && s->stride > s->offset && s->stride > s->field_name && s->stride > s->field_type &&
           t->stride > t->size;
}

/* The row of type (and of its field, unless field is NULL: the types' table has none), or NULL;
 * a table ends at a row without a type. */
static const char *find_row(const jv_sa_table *t, const char *type, const char *field)
{
    for (const char *row = t->rows, *name; (name = row_address(row, t->type_name)) != NULL; row += t->stride) {
        const char *field_name = field ? row_address(row, t->field_name) : NULL;
        if (strcmp(name, type) == 0 && (!field || (field_name && strcmp(field_name, field) == 0)))
            return row;
    }
    return NULL;
}

int jv_sa_field_offset(const jv_sa_tables *t, const char *type, const char *field, uint64_t *offset)
{
    const char *row = find_row(&t->structs, type, field);
    if (row)
        *offset = row_number(row, t->structs.offset);
    return row != NULL;
}

void *jv_sa_static_address(const jv_sa_tables *t, const char *type, const char *field)
{
    const char *row = find_row(&t->structs, type, field);
    return row ? row_address(row, t->structs.address) : NULL;
}

uint64_t jv_sa_field_size(const jv_sa_tables *t, const char *type, const char *field)
{
    const char *row = find_row(&t->structs, type, field), *field_type = row ? row_address(row, t->structs.field_type) : NULL;
    return field_type ? jv_sa_type_size(t, field_type) : 0;
}

uint64_t jv_sa_type_size(const jv_sa_tables *t, const char *type)
{
    const char *row = find_row(&t->types, type, NULL);
    return row ? row_number(row, t->types.size) : 0;
}

/*
 * hotspot_flags.c - turning on one of HotSpot's boolean flags from inside the process (see
 * hotspot_flags.h), through the tables HotSpot exports for its Serviceability Agent:
 * gHotSpotVMStructs lists the fields of its structures by type and name (a static one with its
 * address, another with its offset), gHotSpotVMTypes their sizes, and the gHotSpotVM*Offset and
 * *ArrayStride numbers say where each column lies in a row.  The flags are the static array
 * JVMFlag::flags of JVMFlag::numFlags records, each with its _name and _addr (where the value
 * lies), a record being JVMFlag's size from the types table (it differs between builds).  A table,
 * a row or a column that is missing (another JVM, another version) is a flag not found: nothing is
 * written then.
 */
#include <stdint.h>
#include <string.h>

#include "vm/hotspot_flags.h"
#include "vm/vm.h"

/* One exported table: its rows, the row stride, and the offsets of the columns read here. */
typedef struct sa_table {
    const char *rows;
    uint64_t stride, type_name, field_name, offset, address, size;
} sa_table;

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

static int read_tables(sa_table *structs, sa_table *types)
{
    const char *const *struct_rows = jv_jvm_symbol("gHotSpotVMStructs");
    const char *const *type_rows = jv_jvm_symbol("gHotSpotVMTypes");
    if (!struct_rows || !*struct_rows || !type_rows || !*type_rows)
        return 0;
    *structs = (sa_table){*struct_rows,
                          exported_number("gHotSpotVMStructEntryArrayStride"),
                          exported_number("gHotSpotVMStructEntryTypeNameOffset"),
                          exported_number("gHotSpotVMStructEntryFieldNameOffset"),
                          exported_number("gHotSpotVMStructEntryOffsetOffset"),
                          exported_number("gHotSpotVMStructEntryAddressOffset"),
                          0};
    *types = (sa_table){*type_rows, exported_number("gHotSpotVMTypeEntryArrayStride"),
                        exported_number("gHotSpotVMTypeEntryTypeNameOffset"), 0, 0, 0,
                        exported_number("gHotSpotVMTypeEntrySizeOffset")};
    /* Every row starts with its type's name: a stride that cannot hold the columns is no table. */
    return structs->stride > structs->address && structs->stride > structs->offset && types->stride > types->size;
}

/* The row of type (and of its field, unless field is NULL: the types' table has none), or NULL;
 * a table ends at a row without a type. */
static const char *find_row(const sa_table *t, const char *type, const char *field)
{
    for (const char *row = t->rows, *name; (name = row_address(row, t->type_name)) != NULL; row += t->stride) {
        const char *field_name = field ? row_address(row, t->field_name) : NULL;
        if (strcmp(name, type) == 0 && (!field || (field_name && strcmp(field_name, field) == 0)))
            return row;
    }
    return NULL;
}

int jv_hotspot_flag_on(const char *name)
{
    sa_table structs, types;
    if (!read_tables(&structs, &types))
        return 0;
    const char *flags_row = find_row(&structs, "JVMFlag", "flags");
    const char *count_row = find_row(&structs, "JVMFlag", "numFlags");
    const char *name_row = find_row(&structs, "JVMFlag", "_name");
    const char *addr_row = find_row(&structs, "JVMFlag", "_addr");
    const char *type_row = find_row(&types, "JVMFlag", NULL);
    uint64_t record = type_row ? row_number(type_row, types.size) : 0;
    if (!flags_row || !count_row || !name_row || !addr_row || !record)
        return 0;
    const char *const *flags = row_address(flags_row, structs.address);
    const size_t *count = row_address(count_row, structs.address);
    if (!flags || !*flags || !count)
        return 0;
    uint64_t name_at = row_number(name_row, structs.offset), addr_at = row_number(addr_row, structs.offset);
    for (size_t i = 0; i < *count; i++) {
        const char *flag = *flags + i * record, *flag_name;
        memcpy(&flag_name, flag + name_at, sizeof(flag_name));
        if (flag_name && strcmp(flag_name, name) == 0) {
            _Bool *value;
            memcpy(&value, flag + addr_at, sizeof(value));
            if (!value)
                return 0;
            *value = 1;
            return 1;
        }
    }
    return 0;
}

/*
 * hotspot_tables.h - the tables HotSpot exports for its Serviceability Agent, read from inside the
 * process (hotspot_tables.c): gHotSpotVMStructs lists the fields of its structures by type and name
 * (a static one with its address, another with its offset), gHotSpotVMTypes their sizes, and the
 * gHotSpotVM*Offset and *ArrayStride numbers say where each column lies in a row.  Used for what
 * JVMTI has no function for: a flag (hotspot_flags.c), the owner of compiled code (hotspot_code.c).
 * A table, a row or a column that is missing (another JVM, another version) is a field not found.
 */
#ifndef JEVMON_HOTSPOT_TABLES_H
#define JEVMON_HOTSPOT_TABLES_H

#include <stdint.h>

/* One exported table: its rows, the row stride, and the offsets of the columns read here. */
typedef struct jv_sa_table {
    const char *rows;
    uint64_t stride, type_name, field_name, field_type, offset, address, size;
} jv_sa_table;

typedef struct jv_sa_tables {
    jv_sa_table structs, types;
} jv_sa_tables;

/* The tables of the JVM in this process; 0 where it exports none. */
int jv_sa_tables_read(jv_sa_tables *t);

/* A non-static field's offset in its type, 1 when the row is there. */
int jv_sa_field_offset(const jv_sa_tables *t, const char *type, const char *field, uint64_t *offset);
/* A static field's address, or NULL. */
void *jv_sa_static_address(const jv_sa_tables *t, const char *type, const char *field);
/* The size of a non-static field's type ("int": 4, "int16_t": 2), 0 when a row is missing. */
uint64_t jv_sa_field_size(const jv_sa_tables *t, const char *type, const char *field);
/* A type's size, 0 when the row is missing. */
uint64_t jv_sa_type_size(const jv_sa_tables *t, const char *type);

#endif

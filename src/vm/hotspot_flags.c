/*
 * hotspot_flags.c - turning on one of HotSpot's boolean flags from inside the process (see
 * hotspot_flags.h), through its Serviceability Agent tables (hotspot_tables.h).  The flags are the
 * static array JVMFlag::flags of JVMFlag::numFlags records, each with its _name and _addr (where
 * the value lies), a record being JVMFlag's size from the types table (it differs between builds).
 * Anything missing is a flag not found: nothing is written then.
 */
#include <stdint.h>
#include <string.h>

#include "vm/hotspot_flags.h"
#include "vm/hotspot_tables.h"

int jv_hotspot_flag_on(const char *name)
{
    jv_sa_tables tables, *t = &tables;
    if (!jv_sa_tables_read(t))
        return 0;
    const char *const *flags = jv_sa_static_address(t, "JVMFlag", "flags");
    const size_t *count = jv_sa_static_address(t, "JVMFlag", "numFlags");
    uint64_t name_at, addr_at, record = jv_sa_type_size(t, "JVMFlag");
    if (!flags || !*flags || !count || !record || !jv_sa_field_offset(t, "JVMFlag", "_name", &name_at) ||
        !jv_sa_field_offset(t, "JVMFlag", "_addr", &addr_at))
        return 0;
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

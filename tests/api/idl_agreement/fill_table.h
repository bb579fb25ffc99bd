/*
 * fill_table.h - the body both sides of the IDL agreement test share: includes the API
 * header named by API_HEADER and defines API_FILL_FUNCTION, which records every entry of
 * api_list.h as that header declares it.
 *
 * The IIDs are read from the header's own DEFINE_GUID lines: DEFINE_GUID is redefined
 * to keep each value in a static of this file, so neither side can borrow the other's
 * definition at link time.  The system headers come first so that their GUIDs stay
 * plain declarations.
 */
#include <windows.h>
#include <rpc.h>
#include <rpcndr.h>
#include <ole2.h>
#include <objbase.h>

#include "api_list.h"

#undef DEFINE_GUID
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8) \
    static const GUID captured_##name = {l, w1, w2, {b1, b2, b3, b4, b5, b6, b7, b8}}
/* Two steps, so that an alias such as IID_IHeapInfoCallBack expands before pasting. */
#define CAPTURED_IID(iid) CAPTURED_IID_(iid)
#define CAPTURED_IID_(iid) captured_##iid

#include API_HEADER

/* Also checked at build time, so that a target whose tests cannot run here (win32 without
 * a 32-bit Wine) still proves them: the original's guard, and ID types that are ULONG_PTR,
 * pointer-sized and on Win32 the very type of the original's DWORD. */
#ifndef __JEVMON_H__
#error "the original's include guard __JEVMON_H__ is not defined by " API_HEADER
#endif
_Static_assert(sizeof(UniqueID) == sizeof(void *), "UniqueID is not pointer-sized in " API_HEADER);
#define IS_UNIQUE_ID(type) _Generic((type)0, UniqueID: 1, default: 0)
_Static_assert(_Generic((UniqueID)0, ULONG_PTR: 1, default: 0), "UniqueID is not ULONG_PTR in " API_HEADER);
_Static_assert(IS_UNIQUE_ID(ThreadID) && IS_UNIQUE_ID(StackID) && IS_UNIQUE_ID(ObjectID) &&
                   IS_UNIQUE_ID(ObjectHandleID) && IS_UNIQUE_ID(MethodID) && IS_UNIQUE_ID(FieldID) &&
                   IS_UNIQUE_ID(ClassID),
               "an ID type is not UniqueID in " API_HEADER);
#ifndef _WIN64
_Static_assert(_Generic((UniqueID)0, DWORD: 1, default: 0), "UniqueID is not DWORD on Win32 in " API_HEADER);
#endif

#define FILL_IID(name) t->iids[API_IID_##name] = CAPTURED_IID(IID_##name);
#define FILL_VTBL(iface) t->vtbl_sizes[API_VTBL_##iface] = sizeof(iface##Vtbl);
#define FILL_SLOT(iface, method) t->slot_offsets[API_SLOT_##iface##_##method] = offsetof(iface##Vtbl, method);
#define FILL_SIZE(type) t->layout[API_SIZE_##type] = sizeof(type);
#define FILL_FIELD(type, member) t->layout[API_FIELD_##type##_##member] = offsetof(type, member);
#define FILL_VALUE(name) t->values[API_VALUE_##name] = (long long)(name);
#define FILL_STRING(name) t->strings[API_STRING_##name] = (name);

void API_FILL_FUNCTION(api_table *t)
{
    API_INTERFACES(FILL_IID)
    API_ALIASES(FILL_IID)
    API_INTERFACES(FILL_VTBL)
    API_SLOTS(FILL_SLOT)
    API_LAYOUT(FILL_SIZE, FILL_FIELD)
    API_VALUES(FILL_VALUE)
    API_STRINGS(FILL_STRING)
}

/*
 * static_checks.h - what tests/api checks about jevmon.h at compile time, in the form
 * C89 and C++98 both accept: a check that fails declares an array of negative size.
 * Each source checks type identity in its own language as well (see there).
 */
#ifndef __JEVMON_H__
#error "jevmon.h does not define the original header's guard __JEVMON_H__"
#endif

#define API_CHECK(name, condition) typedef char api_check_##name[(condition) ? 1 : -1]

/* JVM_ID_TYPE: the original's first members (spec 0.10), then the resolved ones. */
API_CHECK(jvm_id_first, JVM_ID_FIRST == 0);
API_CHECK(jvm_id_thread, JVM_ID_THREAD == 1);
API_CHECK(jvm_id_stack, JVM_ID_STACK == 2);
API_CHECK(jvm_id_object, JVM_ID_OBJECT == 3);
API_CHECK(jvm_id_object_handle, JVM_ID_OBJECT_HANDLE == 4);
API_CHECK(jvm_id_method, JVM_ID_METHOD == 5);
API_CHECK(jvm_id_field, JVM_ID_FIELD == 6);
API_CHECK(jvm_id_class, JVM_ID_CLASS == 7);

/* UniqueID is unsigned and pointer-sized: on Win32 the size of the original's DWORD. */
API_CHECK(unique_id_unsigned, (UniqueID)-1 > 0);
API_CHECK(unique_id_pointer_sized, sizeof(UniqueID) == sizeof(void *));
#if defined(_WIN32) && !defined(_WIN64)
API_CHECK(unique_id_dword_sized, sizeof(UniqueID) == sizeof(DWORD));
#endif

/*
 * The type a monitor of the original's style keeps IDs in: DWORD on Win32, as in 1999;
 * on 64-bit targets (where the original's DWORD cannot hold an ID) ULONG_PTR.  Both files
 * pass pointers to it where the API takes pointers to ID types, so each file compiles only
 * when the ID types are that very type.
 */
#if defined(_WIN32) && !defined(_WIN64)
typedef DWORD API_LEGACY_ID;
#else
typedef ULONG_PTR API_LEGACY_ID;
#endif

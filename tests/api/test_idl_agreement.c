/*
 * test_idl_agreement.c - proves that idl/jevmon.idl, as widl compiles it for this target,
 * declares the same API as include/jevmon.h: the same IIDs, the same vtable slots at the
 * same offsets, the same type sizes and struct layouts, the same constants.
 *
 * idl_agreement/from_header.c and idl_agreement/from_idl.c fill one api_table each from
 * the lists in idl_agreement/api_list.h; every check here reports each entry that differs.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "idl_agreement/api_list.h"
#include "../support/testkit.h"

#define NAME_OF_IID(name) "IID_" #name,
#define NAME_OF_VTBL(iface) #iface "Vtbl",
#define NAME_OF_SLOT(iface, method) #iface "::" #method,
#define NAME_OF_SIZE(type) "sizeof(" #type ")",
#define NAME_OF_FIELD(type, member) "offsetof(" #type ", " #member ")",
#define NAME_OF(name) #name,
static const char *const iid_names[] = {API_INTERFACES(NAME_OF_IID) API_ALIASES(NAME_OF_IID)};
static const char *const vtbl_names[] = {API_INTERFACES(NAME_OF_VTBL)};
static const char *const slot_names[] = {API_SLOTS(NAME_OF_SLOT)};
static const char *const layout_names[] = {API_LAYOUT(NAME_OF_SIZE, NAME_OF_FIELD)};
static const char *const value_names[] = {API_VALUES(NAME_OF)};
static const char *const string_names[] = {API_STRINGS(NAME_OF)};

/* The vtable each slot belongs to, and its position there. */
#define VTBL_OF_SLOT(iface, method) API_VTBL_##iface,
static const int slot_vtbl[] = {API_SLOTS(VTBL_OF_SLOT)};

/* The ID types, which must be pointer-sized in both. */
static const int id_types[] = {API_SIZE_UniqueID, API_SIZE_ClassID, API_SIZE_MethodID, API_SIZE_FieldID,
                               API_SIZE_ObjectID, API_SIZE_ThreadID, API_SIZE_StackID, API_SIZE_ObjectHandleID};

static api_table from_idl, from_header;

/* Every entry that differs, listed in the failure message. */
typedef struct drift {
    unsigned count;
    char text[3000];
} drift;

static void drift_add(drift *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void drift_add(drift *d, const char *fmt, ...)
{
    size_t used = strlen(d->text);
    va_list ap;
    d->count++;
    if (used + 3 >= sizeof(d->text))
        return;
    if (used) {
        strcpy(d->text + used, "; ");
        used += 2;
    }
    va_start(ap, fmt);
    vsnprintf(d->text + used, sizeof(d->text) - used, fmt, ap);
    va_end(ap);
}

#define ck_assert_no_drift(d, what) \
    ck_assert_msg((d).count == 0, "%u %s differ between jevmon.idl and jevmon.h: %s", (d).count, what, (d).text)

static void compare_sizes(const char *const *names, const size_t *idl, const size_t *header, size_t n, const char *what)
{
    drift d = {0};
    for (size_t i = 0; i < n; i++)
        if (idl[i] != header[i])
            drift_add(&d, "%s is %u in the IDL, %u in the header", names[i], (unsigned)idl[i], (unsigned)header[i]);
    ck_assert_no_drift(d, what);
}

START_TEST(iids_agree)
{
    drift d = {0};
    for (int i = 0; i < API_IID_COUNT; i++) {
        char idl_text[JV_GUID_TEXT_SIZE], header_text[JV_GUID_TEXT_SIZE];
        if (!IsEqualGUID(&from_idl.iids[i], &from_header.iids[i]))
            drift_add(&d, "%s is %s in the IDL, %s in the header", iid_names[i],
                      jv_guid_format(&from_idl.iids[i], idl_text), jv_guid_format(&from_header.iids[i], header_text));
    }
    ck_assert_no_drift(d, "IIDs");
}
END_TEST

START_TEST(vtable_slots_agree)
{
    compare_sizes(slot_names, from_idl.slot_offsets, from_header.slot_offsets, API_SLOT_COUNT, "vtable slot offsets");
}
END_TEST

START_TEST(vtable_sizes_agree)
{
    compare_sizes(vtbl_names, from_idl.vtbl_sizes, from_header.vtbl_sizes, API_VTBL_COUNT, "vtable sizes");
}
END_TEST

/* The lists are in vtable order and complete: slot k of a vtable is at k pointers and the
 * vtable holds nothing else.  Without this, a method present in both headers but missing
 * from the lists would go unchecked. */
START_TEST(lists_cover_every_slot)
{
    size_t next_slot[API_VTBL_COUNT] = {0};
    drift d = {0};
    for (int i = 0; i < API_SLOT_COUNT; i++) {
        size_t expected = next_slot[slot_vtbl[i]]++ * sizeof(void *);
        if (from_header.slot_offsets[i] != expected)
            drift_add(&d, "%s is at %u, the list puts it at %u", slot_names[i], (unsigned)from_header.slot_offsets[i],
                      (unsigned)expected);
    }
    for (int v = 0; v < API_VTBL_COUNT; v++)
        if (from_header.vtbl_sizes[v] != next_slot[v] * sizeof(void *))
            drift_add(&d, "%s has %u slots, the list names %u", vtbl_names[v],
                      (unsigned)(from_header.vtbl_sizes[v] / sizeof(void *)), (unsigned)next_slot[v]);
    ck_assert_msg(d.count == 0, "%u entries of api_list.h do not match jevmon.h: %s", d.count, d.text);
}
END_TEST

START_TEST(layouts_agree)
{
    compare_sizes(layout_names, from_idl.layout, from_header.layout, API_LAYOUT_COUNT, "type sizes or field offsets");
}
END_TEST

START_TEST(ids_are_pointer_sized)
{
    drift d = {0};
    for (size_t i = 0; i < sizeof(id_types) / sizeof(id_types[0]); i++) {
        int k = id_types[i];
        if (from_idl.layout[k] != sizeof(void *) || from_header.layout[k] != sizeof(void *))
            drift_add(&d, "%s is %u in the IDL, %u in the header, pointers are %u", layout_names[k],
                      (unsigned)from_idl.layout[k], (unsigned)from_header.layout[k], (unsigned)sizeof(void *));
    }
    ck_assert_msg(d.count == 0, "%u ID types are not pointer-sized: %s", d.count, d.text);
}
END_TEST

START_TEST(values_agree)
{
    drift d = {0};
    for (int i = 0; i < API_VALUE_COUNT; i++)
        if (from_idl.values[i] != from_header.values[i])
            /* every constant fits in a long; the comparison above is on the full value */
            drift_add(&d, "%s is %ld in the IDL, %ld in the header", value_names[i], (long)from_idl.values[i],
                      (long)from_header.values[i]);
    ck_assert_no_drift(d, "constants");
}
END_TEST

START_TEST(strings_agree)
{
    drift d = {0};
    for (int i = 0; i < API_STRING_COUNT; i++)
        if (strcmp(from_idl.strings[i], from_header.strings[i]) != 0)
            drift_add(&d, "%s is \"%s\" in the IDL, \"%s\" in the header", string_names[i], from_idl.strings[i],
                      from_header.strings[i]);
    ck_assert_no_drift(d, "string constants");
}
END_TEST

static Suite *idl_agreement_suite(void)
{
    Suite *s = suite_create("idl_agreement");
    TCase *tc = tcase_create("idl_vs_header");
    tcase_add_test(tc, iids_agree);
    tcase_add_test(tc, vtable_slots_agree);
    tcase_add_test(tc, vtable_sizes_agree);
    tcase_add_test(tc, lists_cover_every_slot);
    tcase_add_test(tc, layouts_agree);
    tcase_add_test(tc, ids_are_pointer_sized);
    tcase_add_test(tc, values_agree);
    tcase_add_test(tc, strings_agree);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    api_fill_from_idl(&from_idl);
    api_fill_from_header(&from_header);
    return tk_run_suite(idl_agreement_suite());
}

/* test_guid.c - braced GUID text: round trips, either case in, upper case out, and every malformed form refused. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "../support/testkit.h"

static const GUID sample = {0x63DAD816, 0x1308, 0x449B, {0xAC, 0x11, 0x1E, 0x70, 0x2E, 0xB2, 0xD1, 0x5F}};
#define SAMPLE_TEXT "{63DAD816-1308-449B-AC11-1E702EB2D15F}"

START_TEST(formats_upper_case_braced)
{
    char text[JV_GUID_TEXT_SIZE];
    ck_assert_ptr_eq(jv_guid_format(&sample, text), text);
    ck_assert_str_eq(text, SAMPLE_TEXT);
    ck_assert_uint_eq(strlen(text), JV_GUID_TEXT_LEN);
}
END_TEST

START_TEST(parses_upper_case)
{
    GUID g;
    ck_assert_int_eq(jv_guid_parse(SAMPLE_TEXT, &g), 1);
    ck_assert(IsEqualGUID(&g, &sample));
}
END_TEST

START_TEST(parses_lower_and_mixed_case)
{
    GUID lower, mixed;
    ck_assert_int_eq(jv_guid_parse("{63dad816-1308-449b-ac11-1e702eb2d15f}", &lower), 1);
    ck_assert_int_eq(jv_guid_parse("{63dAD816-1308-449b-aC11-1E702eb2D15f}", &mixed), 1);
    ck_assert(IsEqualGUID(&lower, &sample));
    ck_assert(IsEqualGUID(&mixed, &sample));
}
END_TEST

START_TEST(round_trips_extremes)
{
    static const GUID cases[] = {
        {0, 0, 0, {0, 0, 0, 0, 0, 0, 0, 0}},
        {0xFFFFFFFF, 0xFFFF, 0xFFFF, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
        {0x00000001, 0x0000, 0x0000, {0xC0, 0, 0, 0, 0, 0, 0, 0x46}}, /* IID_IClassFactory */
        {0x01234567, 0x89AB, 0xCDEF, {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF}},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        char text[JV_GUID_TEXT_SIZE];
        GUID back;
        jv_guid_format(&cases[i], text);
        ck_assert_msg(jv_guid_parse(text, &back), "%s did not parse", text);
        ck_assert_msg(IsEqualGUID(&back, &cases[i]), "%s changed in a round trip", text);
    }
    char text[JV_GUID_TEXT_SIZE];
    ck_assert_str_eq(jv_guid_format(&cases[2], text), "{00000001-0000-0000-C000-000000000046}");
}
END_TEST

/* Every way the text can be wrong; none may change the output. */
static const char *const malformed[] = {
    "",
    "{",
    "}",
    "{}",
    "63DAD816-1308-449B-AC11-1E702EB2D15F",    /* no braces */
    "{63DAD816-1308-449B-AC11-1E702EB2D15F",   /* no closing brace */
    "63DAD816-1308-449B-AC11-1E702EB2D15F}",   /* no opening brace */
    "(63DAD816-1308-449B-AC11-1E702EB2D15F)",  /* other brackets */
    "{63DAD816-1308-449B-AC11-1E702EB2D15F}x", /* trailing text */
    "{63DAD816-1308-449B-AC11-1E702EB2D15F} ", /* trailing space */
    " {63DAD816-1308-449B-AC11-1E702EB2D15F}", /* leading space */
    "{ 63DAD816-1308-449B-AC11-1E702EB2D15F}", /* space inside */
    "{63DAD81-1308-449B-AC11-1E702EB2D15F}",   /* Data1 short */
    "{63DAD8160-1308-449B-AC11-1E702EB2D15F}", /* Data1 long */
    "{63DAD816-130-449B-AC11-1E702EB2D15F}",   /* Data2 short */
    "{63DAD816-13080-449B-AC11-1E702EB2D15F}", /* Data2 long */
    "{63DAD816-1308-449-AC11-1E702EB2D15F}",   /* Data3 short */
    "{63DAD816-1308-449B-AC1-1E702EB2D15F}",   /* Data4 first part short */
    "{63DAD816-1308-449B-AC11-1E702EB2D15}",   /* Data4 last part short */
    "{63DAD816-1308-449B-AC11-1E702EB2D15F0}", /* Data4 last part long */
    "{63DAD816-1308-449B-AC111E702EB2D15F}",   /* a dash missing */
    "{63DAD8161308449BAC111E702EB2D15F}",      /* no dashes */
    "{63DAD816_1308-449B-AC11-1E702EB2D15F}",  /* another separator */
    "{63DAD816-1308-449B-AC11-1E702EB2D15G}",  /* G is no hex digit */
    "{g3DAD816-1308-449B-AC11-1E702EB2D15F}",  /* g neither */
    "{0x3DAD816-1308-449B-AC11-1E702EB2D15F}", /* a C prefix */
    "{+3DAD816-1308-449B-AC11-1E702EB2D15F}",  /* a sign */
    "{63DAD816-1308-449B-AC11-1E702EB2D15F}}", /* doubled brace */
    "{{63DAD816-1308-449B-AC11-1E702EB2D15F}",
    "{63DAD816-1308-449B-AC11-1E70-2EB2D15F}", /* an extra dash */
};

START_TEST(refuses_malformed)
{
    const char *text = malformed[_i];
    GUID g = sample;
    ck_assert_msg(!jv_guid_parse(text, &g), "\"%s\" was accepted", text);
    ck_assert_msg(IsEqualGUID(&g, &sample), "\"%s\" changed the output", text);
}
END_TEST

START_TEST(refuses_null)
{
    GUID g = sample;
    ck_assert_int_eq(jv_guid_parse(NULL, &g), 0);
    ck_assert(IsEqualGUID(&g, &sample));
}
END_TEST

/* A text cut short anywhere must be refused without reading past its end (ASan checks that). */
START_TEST(refuses_every_prefix)
{
    for (size_t len = 0; len < JV_GUID_TEXT_LEN; len++) {
        char *cut = malloc(len + 1);
        memcpy(cut, SAMPLE_TEXT, len);
        cut[len] = '\0';
        GUID g;
        ck_assert_msg(!jv_guid_parse(cut, &g), "prefix of %u characters accepted", (unsigned)len);
        free(cut);
    }
}
END_TEST

static Suite *guid_suite(void)
{
    Suite *s = suite_create("guid");
    TCase *tc = tcase_create("guid");
    tcase_add_test(tc, formats_upper_case_braced);
    tcase_add_test(tc, parses_upper_case);
    tcase_add_test(tc, parses_lower_and_mixed_case);
    tcase_add_test(tc, round_trips_extremes);
    tcase_add_loop_test(tc, refuses_malformed, 0, (int)(sizeof(malformed) / sizeof(*malformed)));
    tcase_add_test(tc, refuses_null);
    tcase_add_test(tc, refuses_every_prefix);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tk_run_suite(guid_suite());
}

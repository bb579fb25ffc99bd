/*
 * test_regfile_errors.c - the .reg parser against bad input, all in memory (no files, so the
 * suite runs the same natively and under Wine): malformed lines, NUL bytes, files that are no
 * registry files; and its bounds: many values in linear time, a file
 * over the size bound, complaints capped per file.
 *
 * Each malformed-line case sits between good lines and checks that exactly one error
 * names the file and line, and that the good lines around it still count.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../support/testkit.h"
#include "regfile_parse.h"

/* ---- Malformed lines ---------------------------------------------------------------------- */

typedef struct malformed_case {
    const char *line; /* goes on line 4 of the file */
    const char *cause;
} malformed_case;

static const malformed_case bad_values[] = {
    {"\"a\"=dword:1", "dword value is not 8 hex digits"},
    {"\"a\"=dword:000000001", "dword value is not 8 hex digits"},
    {"\"a\"=dword:0000000g", "dword value is not 8 hex digits"},
    {"\"a\"=dword:", "dword value is not 8 hex digits"},
    {"\"a\"=dword:-0000001", "dword value is not 8 hex digits"},
    {"\"a\"=\"unterminated", "string has no closing quote"},
    {"\"a\"=\"ends in a backslash\\", "string has no closing quote"},
    {"\"a\"=\"x\" trailing", "text after the closing quote"},
    {"\"a\"=\"x\"\"y\"", "text after the closing quote"},
    {"\"a\"=\"bad \\n escape\"", "unknown escape \\n"},
    {"\"a\"=\"bad \\t escape\"", "unknown escape \\t"},
    {"\"a", "string has no closing quote"},
    {"\"a\" \"b\"", "not followed by '='"},
    {"\"a\"", "not followed by '='"},
    {"@\"x\"", "not followed by '='"},
    {"@", "not followed by '='"},
    {"\"a\"=", "no data after '='"},
    {"\"a\"=   ", "no data after '='"},
    {"\"a\"=word:00000001", "unknown value type"},
    {"\"a\"=12", "unknown value type"},
    {"\"a\"=--", "unknown value type"},
    {"\"a\"=hex:1", "hex byte \"1\" is not 2 hex digits"},
    {"\"a\"=hex:123", "hex byte \"123\" is not 2 hex digits"},
    {"\"a\"=hex:0g", "hex byte \"0g\" is not 2 hex digits"},
    {"\"a\"=hex:01,,02", "empty byte"},
    {"\"a\"=hex:,01", "empty byte"},
    {"\"a\"=hex:01,", "ends with a comma"},
    {"\"a\"=hex:01 02", "separated by commas"},
    {"\"a\"=hex:01,\\ x", "text after the line-continuing backslash"},
    {"\"a\"=hex():00", "hex(n): needs a type n"},
    {"\"a\"=hex(123456789):00", "hex(n): needs a type n"},
    {"\"a\"=hex(zz):00", "hex(n): needs a type n"},
    {"\"a\"=hex(2)00", "hex(n): needs a type n"},
    {"\"a\"=hex(2", "hex(n): needs a type n"},
    {"\"a\"=hex(2)", "hex(n): needs a type n"},
    {"garbage", "not a [key], a \"value\"=, @= or a ; comment"},
    {"=\"x\"", "not a [key]"},
    {"'a'=\"x\"", "not a [key]"},
    {"\"a\"=\"\xFF\"", "line is not valid UTF-8"},
    {"\"a\"=\"\xC0\xAF\"", "line is not valid UTF-8"},      /* overlong */
    {"\"a\"=\"\xED\xA0\x80\"", "line is not valid UTF-8"},  /* a surrogate */
};

START_TEST(malformed_value_line_is_skipped_alone)
{
    const malformed_case *c = &bad_values[_i];
    char text[512];
    snprintf(text, sizeof(text), V5 "[HKLM\\T]\n%s\n\"after\"=\"ok\"\n", c->line);
    ck_assert_msg(parse(text) == 1, "%s: %d errors", c->line, tk_log_count);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "jevmon: test.reg:4: ") == tk_log_lines[0], "%s", tk_log_lines[0]);
    ck_assert_msg(strstr(tk_log_lines[0], c->cause), "\"%s\" gave \"%s\"", c->line, tk_log_lines[0]);
    ck_assert_ptr_null(value_of(PLAT_HKLM, "T", "a"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "T", "after"), "ok");
}
END_TEST

static const malformed_case bad_keys[] = {
    {"[HKEY_LOCAL_MACHINE\\T", "key line has no closing ']'"},
    {"[", "key line has no closing ']'"},
    {"[HKEY_USERS\\T]", "unknown hive \"HKEY_USERS\""},
    {"[HKEY_CURRENT_CONFIG]", "unknown hive"},
    {"[]", "unknown hive \"\""},
    {"[-]", "unknown hive \"\""},
    {"[Software\\T]", "unknown hive \"Software\""},
    {"[HKLM\\T] x", "text after the key's closing ']'"},
    {"[HKLM\\a\\\\b]", "key path has an empty part"},
    {"[HKLM\\]", "key path has an empty part"},
    {"[HKLM\\T\\]", "key path has an empty part"},
    {"[HKLM\\\\T]", "key path has an empty part"},
    {"[-HKLM]", "a hive itself cannot be deleted"},
    {"[-HKLM\\a\\\\b]", "key path has an empty part"},
};

/* The values under a bad key line go with it; the next key is read again. */
START_TEST(malformed_key_line_skips_its_values)
{
    const malformed_case *c = &bad_keys[_i];
    char text[512];
    snprintf(text, sizeof(text), V5 "[HKLM\\Before]\n%s\n\"under\"=\"skipped\"\n[HKLM\\After]\n\"after\"=\"ok\"\n",
             c->line);
    ck_assert_msg(parse(text) == 1, "%s: %d errors", c->line, tk_log_count);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "jevmon: test.reg:4: ") == tk_log_lines[0], "%s", tk_log_lines[0]);
    ck_assert_msg(strstr(tk_log_lines[0], c->cause), "\"%s\" gave \"%s\"", c->line, tk_log_lines[0]);
    ck_assert_ptr_null(value_of(PLAT_HKLM, "Before", "under"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "T", "under"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "After", "after"), "ok");
    ck_assert_ptr_nonnull(jv_reg_find_key(tree, PLAT_HKLM, "Before"));
}
END_TEST

START_TEST(value_outside_a_key)
{
    ck_assert_uint_eq(parse(V5 "\"early\"=\"x\"\n[HKLM\\K]\n[-HKLM\\K]\n\"late\"=\"y\"\n[HKLM\\K2]\n\"ok\"=\"1\"\n"), 2);
    ck_assert(tk_logged("test.reg:3: value line before any key, or after a key deletion"));
    ck_assert(tk_logged("test.reg:6: value line before any key, or after a key deletion"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "K2", "ok"), "1");
}
END_TEST

START_TEST(continuation_past_the_end_of_the_file)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\T]\n\"ok\"=\"1\"\n\"a\"=hex:01,02,\\\n"), 1);
    ck_assert(tk_logged("test.reg:5: hex data continues past the end of the file"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "T", "a"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "T", "ok"), "1");
}
END_TEST

START_TEST(error_in_a_continued_line_names_that_line)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\T]\n\"a\"=hex:01,02,\\\n  03,zz\n\"b\"=\"1\"\n"), 1);
    ck_assert(tk_logged("test.reg:5: hex byte \"zz\" is not 2 hex digits"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "T", "a"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "T", "b"), "1");
}
END_TEST

START_TEST(regedit4_string_data_that_is_not_utf8)
{
    ck_assert_uint_eq(parse("REGEDIT4\n[HKLM\\T]\n\"a\"=hex(2):ff,00\n\"b\"=\"1\"\n"), 1);
    ck_assert(tk_logged("test.reg:3: hex(2) text is not UTF-8"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "T", "b"), "1");
}
END_TEST

/* Files that are not registry files at all are refused whole, with one line. */
START_TEST(not_a_registry_file)
{
#define BYTES(literal) literal, sizeof(literal) - 1
    static const struct {
        const char *bytes;
        size_t size;
        const char *cause;
    } files[] = {
        {BYTES(""), "not a registry file"},
        {BYTES("\n[HKLM\\T]\n\"a\"=\"1\"\n"), "not a registry file"},
        {BYTES("Windows Registry Editor Version 4.00\n[HKLM\\T]\n\"a\"=\"1\"\n"), "not a registry file"},
        {BYTES("REGEDIT5\n[HKLM\\T]\n\"a\"=\"1\"\n"), "not a registry file"},
        {BYTES("[HKLM\\T]\n\"a\"=\"1\"\n"), "not a registry file"},
        {BYTES("\xFE\xFF\0W\0i"), "UTF-16 big-endian"},
        {BYTES("\xFF\xFEW\0i\0n"), "not valid UTF-16LE"},
        {BYTES("\xFF\xFEW\0\x00\xDCi\0"), "not valid UTF-16LE"}, /* a lone low surrogate */
        {BYTES("\xFF\xFE\x00\xD8W\0"), "not valid UTF-16LE"},    /* a high surrogate without its low half */
    };
#undef BYTES
    for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
        tk_log_count = 0;
        ck_assert_uint_eq(jv_reg_parse(tree, "x.reg", files[i].bytes, files[i].size, JV_REG_ALL_HIVES), 1);
        ck_assert_int_eq(tk_log_count, 1);
        ck_assert_msg(strstr(tk_log_lines[0], "jevmon: x.reg:1: ") == tk_log_lines[0], "%s", tk_log_lines[0]);
        ck_assert_msg(strstr(tk_log_lines[0], files[i].cause), "file %u gave \"%s\"", (unsigned)i, tk_log_lines[0]);
        ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "T"));
    }
}
END_TEST

/* Names are C strings: "[HKLM\A<NUL>B]" once parsed as key A, "v<NUL>w" as value v, silently.
 * In UTF-8 and in UTF-16LE (a U+0000 unit) alike. */
START_TEST(nul_bytes_in_names_are_malformed)
{
    static const char text[] = V5 "[HKLM\\A\0B]\n\"under\"=\"x\"\n[HKLM\\K]\n\"v\0w\"=\"x\"\n\"ok\"=\"1\"\n";
    ck_assert_uint_eq(jv_reg_parse(tree, FILE_NAME, text, sizeof(text) - 1, JV_REG_ALL_HIVES), 2);
    ck_assert_int_eq(tk_log_count, 2);
    ck_assert_msg(tk_logged("test.reg:3: key path holds a NUL byte"), "%s", tk_log_lines[0]);
    ck_assert_msg(tk_logged("test.reg:6: value name holds a NUL byte"), "%s", tk_log_lines[1]);
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "A"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "K", "v"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "K", "ok"), "1");

    /* The same file in UTF-16LE: "@" stands for each NUL while it is converted. */
    char with_markers[sizeof(text)];
    memcpy(with_markers, text, sizeof(text));
    for (size_t i = 0; i < sizeof(text) - 1; i++)
        if (!with_markers[i])
            with_markers[i] = '@';
    size_t size;
    unsigned char *wide = utf16le_file(with_markers, &size);
    for (size_t i = 2; i + 1 < size; i += 2)
        if (wide[i] == '@' && wide[i + 1] == 0)
            wide[i] = 0;
    jv_reg_tree *second = jv_reg_tree_create();
    tk_log_count = 0;
    ck_assert_uint_eq(jv_reg_parse(second, FILE_NAME, wide, size, JV_REG_ALL_HIVES), 2);
    ck_assert(tk_logged("test.reg:3: key path holds a NUL byte"));
    ck_assert(tk_logged("test.reg:6: value name holds a NUL byte"));
    ck_assert_ptr_null(jv_reg_find_key(second, PLAT_HKLM, "A"));
    jv_reg_tree_free(second);
    free(wide);
}
END_TEST

START_TEST(every_error_is_reported)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\T]\n\"a\"=dword:1\n\"b\"=\"ok\"\n\"c\"=hex:1\n[HKEY_USERS\\x]\n"
                               "[HKLM\\U]\n\"d\"=x\n"),
                      4);
    ck_assert(tk_logged("test.reg:4: dword"));
    ck_assert(tk_logged("test.reg:6: hex byte"));
    ck_assert(tk_logged("test.reg:7: unknown hive"));
    ck_assert(tk_logged("test.reg:9: unknown value type"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "T", "b"), "ok");
}
END_TEST

/* 60,000 values of one key (a 2.6 MB file): looked up by name as they are set, they parse in
 * linear time, well inside the bound, where a scan of the key's values per line takes minutes. */
#define MANY_VALUES 60000

START_TEST(many_values_of_one_key_parse_in_linear_time)
{
    size_t cap = MANY_VALUES * 48 + 64, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text, cap, V5 "[HKLM\\Many]\n");
    for (int i = 0; i < MANY_VALUES; i++)
        len += (size_t)snprintf(text + len, cap - len, "\"Value%d\"=\"text %d\"\n", i, i);
    len += (size_t)snprintf(text + len, cap - len, "\"value7\"=-\n\"VALUE8\"=\"again\"\n");
    clock_t start = clock();
    ck_assert_uint_eq(jv_reg_parse(tree, FILE_NAME, text, len, JV_REG_ALL_HIVES), 0);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("%d values of one key parsed in %.2f s\n", MANY_VALUES, seconds);
    ck_assert_msg(seconds < 5.0, "%.1f s", seconds);
    ck_assert_uint_eq(jv_reg_find_key(tree, PLAT_HKLM, "Many")->value_count, MANY_VALUES - 1);
    ck_assert_ptr_null(string_of(PLAT_HKLM, "Many", "Value7"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "Many", "value8"), "again");
    ck_assert_str_eq(string_of(PLAT_HKLM, "Many", "VALUE59999"), "text 59999");
    ck_assert_str_eq(jv_reg_find_key(tree, PLAT_HKLM, "Many")->values[7].name, "Value8"); /* order kept */
    free(text);
}
END_TEST

START_TEST(a_file_over_the_size_bound_is_refused_in_one_line)
{
    size_t len = JV_REG_MAX_FILE_SIZE + 1;
    char *text = malloc(len);
    ck_assert_ptr_nonnull(text);
    memset(text, '\n', len);
    memcpy(text, V5 "[HKLM\\Big]\n\"a\"=\"b\"\n", strlen(V5 "[HKLM\\Big]\n\"a\"=\"b\"\n"));
    ck_assert_uint_eq(jv_reg_parse(tree, FILE_NAME, text, len, JV_REG_ALL_HIVES), 1);
    ck_assert_int_eq(tk_log_count, 1);
    ck_assert_msg(strstr(tk_log_lines[0], "test.reg:1: file is 4194305 bytes, more than the 4 MiB"), "%s",
                  tk_log_lines[0]);
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "Big"));
    free(text);
}
END_TEST

/* A file of garbage: the first lines' causes are said, then one line counts the rest. */
START_TEST(complaints_about_one_file_are_capped_with_a_count)
{
    size_t cap = 1000 * 8 + 64, len = 0;
    char *text = malloc(cap);
    ck_assert_ptr_nonnull(text);
    len += (size_t)snprintf(text, cap, V5 "[HKLM\\G]\n");
    for (int i = 0; i < 1000; i++)
        len += (size_t)snprintf(text + len, cap - len, "junk\n");
    ck_assert_uint_eq(jv_reg_parse(tree, FILE_NAME, text, len, JV_REG_ALL_HIVES), 1000);
    ck_assert_int_eq(tk_log_count, JV_REG_ERRORS_SAID + 1);
    ck_assert(tk_logged("test.reg:4: not a [key]"));
    ck_assert_msg(strstr(tk_log_lines[JV_REG_ERRORS_SAID], "test.reg: 980 more malformed lines not shown"), "%s",
                  tk_log_lines[JV_REG_ERRORS_SAID]);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regfile_errors");
    TCase *errors = tcase_create("errors");
    tcase_add_checked_fixture(errors, setup, teardown);
    tcase_add_loop_test(errors, malformed_value_line_is_skipped_alone, 0, (int)(sizeof(bad_values) / sizeof(*bad_values)));
    tcase_add_loop_test(errors, malformed_key_line_skips_its_values, 0, (int)(sizeof(bad_keys) / sizeof(*bad_keys)));
    tcase_add_test(errors, value_outside_a_key);
    tcase_add_test(errors, continuation_past_the_end_of_the_file);
    tcase_add_test(errors, error_in_a_continued_line_names_that_line);
    tcase_add_test(errors, regedit4_string_data_that_is_not_utf8);
    tcase_add_test(errors, not_a_registry_file);
    tcase_add_test(errors, nul_bytes_in_names_are_malformed);
    tcase_add_test(errors, every_error_is_reported);
    suite_add_tcase(s, errors);

    TCase *bounds = tcase_create("bounds");
    tcase_add_checked_fixture(bounds, setup, teardown);
    tcase_set_timeout(bounds, 120); /* the bound is the test's own, not Check's */
    tcase_add_test(bounds, many_values_of_one_key_parse_in_linear_time);
    tcase_add_test(bounds, a_file_over_the_size_bound_is_refused_in_one_line);
    tcase_add_test(bounds, complaints_about_one_file_are_capped_with_a_count);
    suite_add_tcase(s, bounds);
    return tk_run_suite(s);
}

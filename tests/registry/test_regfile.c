/*
 * test_regfile.c - the .reg parser, the registry tree and the writer, all in memory
 * (no files, so the suite runs the same natively and under Wine): the file formats, the tree's
 * rules, the writer's round trip.  Bad input and the parser's bounds: test_regfile_errors.c.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "regfile_parse.h"

static DWORD dword_of(plat_hive hive, const char *key, const char *name)
{
    DWORD value = 0xDEADBEEF;
    ck_assert_int_eq(jv_reg_get_dword(tree, hive, key, name, &value), PLAT_REG_OK);
    return value;
}

static void assert_bytes(const jv_reg_value *v, DWORD type, const void *bytes, size_t size)
{
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(v->type, type);
    ck_assert_uint_eq(v->size, size);
    ck_assert_int_eq(memcmp(v->data, bytes, size), 0);
}

/* As plat_free_strings, so that the suite needs nothing of the platform layer. */
static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

/* ---- Formats ---------------------------------------------------------------------------- */

START_TEST(v5_utf8_strings_dwords_and_default_values)
{
    ck_assert_uint_eq(parse(V5 "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\prof]\n"
                               "@=\"A profiler\"\n"
                               "\"CLSID\"=\"{63DAD816-1308-449B-AC11-1E702EB2D15F}\"\n"
                               "\"InitOptions\"=dword:0000000a\n"
                               "\"Big\"=dword:FFFFFFFF\n"),
                      0);
    const char *key = "Software\\Microsoft\\Java VM\\Monitors\\prof";
    ck_assert_str_eq(string_of(PLAT_HKLM, key, NULL), "A profiler");
    ck_assert_str_eq(string_of(PLAT_HKLM, key, ""), "A profiler");
    ck_assert_str_eq(string_of(PLAT_HKLM, key, "CLSID"), "{63DAD816-1308-449B-AC11-1E702EB2D15F}");
    ck_assert_uint_eq(dword_of(PLAT_HKLM, key, "InitOptions"), 10);
    ck_assert_uint_eq(dword_of(PLAT_HKLM, key, "Big"), 0xFFFFFFFFu);
    assert_bytes(value_of(PLAT_HKLM, key, "InitOptions"), JV_REG_DWORD, "\x0a\0\0\0", 4);
    ck_assert_int_eq(tk_log_count, 0);
}
END_TEST

START_TEST(utf8_with_bom_and_crlf)
{
    ck_assert_uint_eq(parse("\xEF\xBB\xBF" "Windows Registry Editor Version 5.00\r\n\r\n"
                            "[HKEY_CURRENT_USER\\Software\\Microsoft\\Java VM]\r\n"
                            "\"EnableEventMonitors\"=dword:00000001\r\n"
                            "\"Name\"=\"caf\xC3\xA9\"\r\n"),
                      0);
    ck_assert_uint_eq(dword_of(PLAT_HKCU, "Software\\Microsoft\\Java VM", "EnableEventMonitors"), 1);
    ck_assert_str_eq(string_of(PLAT_HKCU, "Software\\Microsoft\\Java VM", "Name"), "caf\xC3\xA9");
    /* Stored as Windows stores it: UTF-16LE with its NUL. */
    assert_bytes(value_of(PLAT_HKCU, "Software\\Microsoft\\Java VM", "Name"), JV_REG_SZ, "c\0a\0f\0\xE9\0\0\0", 10);
}
END_TEST

START_TEST(utf16le_with_bom_as_regedit_exports)
{
    size_t size;
    unsigned char *file = utf16le_file("Windows Registry Editor Version 5.00\r\n\r\n"
                                       "[HKEY_LOCAL_MACHINE\\Software\\Caf\xC3\xA9]\r\n"
                                       "@=\"\xF0\x9F\x98\x80 smile\"\r\n"
                                       "\"n\"=dword:00000102\r\n"
                                       "\"m\"=hex(7):61,00,00,00,62,00,00,00,00,00\r\n",
                                       &size);
    ck_assert_uint_eq(jv_reg_parse(tree, FILE_NAME, file, size, JV_REG_ALL_HIVES), 0);
    free(file);
    ck_assert_str_eq(string_of(PLAT_HKLM, "Software\\Caf\xC3\xA9", NULL), "\xF0\x9F\x98\x80 smile");
    assert_bytes(value_of(PLAT_HKLM, "Software\\Caf\xC3\xA9", NULL), JV_REG_SZ,
                 "\x3D\xD8\x00\xDE \0s\0m\0i\0l\0e\0\0\0", 18);
    ck_assert_uint_eq(dword_of(PLAT_HKLM, "Software\\caf\xC3\xA9", "N"), 0x102);
    assert_bytes(value_of(PLAT_HKLM, "Software\\Caf\xC3\xA9", "m"), JV_REG_MULTI_SZ, "a\0\0\0b\0\0\0\0\0", 10);
}
END_TEST

START_TEST(regedit4_reads_8_bit_string_data_as_text)
{
    ck_assert_uint_eq(parse("REGEDIT4\n\n"
                            "[HKEY_LOCAL_MACHINE\\Software\\Old]\n"
                            "\"s\"=\"plain\"\n"
                            "\"e\"=hex(2):25,50,25,00\n"
                            "\"m\"=hex(7):61,00,62,00,00\n"
                            "\"b\"=hex:25,50\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "Software\\Old", "s"), "plain");
    assert_bytes(value_of(PLAT_HKLM, "Software\\Old", "e"), JV_REG_EXPAND_SZ, "%\0P\0%\0\0\0", 8);
    assert_bytes(value_of(PLAT_HKLM, "Software\\Old", "m"), JV_REG_MULTI_SZ, "a\0\0\0b\0\0\0\0\0", 10);
    assert_bytes(value_of(PLAT_HKLM, "Software\\Old", "b"), JV_REG_BINARY, "%P", 2); /* binary stays bytes */
}
END_TEST

START_TEST(hive_names_and_abbreviations)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\A]\n\"v\"=\"lm\"\n"
                               "[hkcu\\A]\n\"v\"=\"cu\"\n"
                               "[HKEY_CLASSES_ROOT\\CLSID\\{X}]\n\"v\"=\"cr\"\n"
                               "[HKCR\\Short]\n\"v\"=\"cr2\"\n"
                               "[hkey_local_machine\\B]\n\"v\"=\"lm2\"\n"
                               "[HKEY_LOCAL_MACHINE]\n\"root\"=\"r\"\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "A", "v"), "lm");
    ck_assert_str_eq(string_of(PLAT_HKCU, "A", "v"), "cu");
    ck_assert_str_eq(string_of(PLAT_HKLM, "B", "v"), "lm2");
    ck_assert_str_eq(string_of(PLAT_HKLM, "", "root"), "r");
    /* HKEY_CLASSES_ROOT keys of a file are kept in HKLM\Software\Classes. */
    ck_assert_str_eq(string_of(PLAT_HKLM, "Software\\Classes\\CLSID\\{X}", "v"), "cr");
    ck_assert_str_eq(string_of(PLAT_HKCR, "CLSID\\{X}", "v"), "cr");
    ck_assert_str_eq(string_of(PLAT_HKCR, "Short", "v"), "cr2");
}
END_TEST

START_TEST(comments_blank_lines_and_indentation)
{
    ck_assert_uint_eq(parse(V5 "; a comment\n"
                               "   ; an indented comment\n"
                               "\n\t\n"
                               "  [HKLM\\C]  \n"
                               "\t\"a\" = \"1\"\n"
                               "; \"b\"=\"not a value\"\n"
                               "  @=dword:00000002   \n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "C", "a"), "1");
    ck_assert_uint_eq(dword_of(PLAT_HKLM, "C", NULL), 2);
    ck_assert_ptr_null(value_of(PLAT_HKLM, "C", "b"));
}
END_TEST

START_TEST(string_escapes)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\E]\n"
                               "\"path\"=\"C:\\\\Program Files\\\\x\\\\\"\n"
                               "\"quote\"=\"say \\\"hi\\\"\"\n"
                               "\"na\\\"me\\\\\"=\"v\"\n"
                               "\"empty\"=\"\"\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "E", "path"), "C:\\Program Files\\x\\");
    ck_assert_str_eq(string_of(PLAT_HKLM, "E", "quote"), "say \"hi\"");
    ck_assert_str_eq(string_of(PLAT_HKLM, "E", "na\"me\\"), "v");
    ck_assert_str_eq(string_of(PLAT_HKLM, "E", "empty"), "");
}
END_TEST

START_TEST(hex_types_are_stored_typed)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\H]\n"
                               "\"bin\"=hex:00,01,fe,FF\n"
                               "\"none\"=hex(0):\n"
                               "\"empty\"=hex:\n"
                               "\"exp\"=hex(2):25,00,41,00,25,00,00,00\n"
                               "\"multi\"=hex(7):61,00,00,00,00,00\n"
                               "\"q\"=hex(b):01,00,00,00,00,00,00,80\n"
                               "\"big\"=hex(ffff0001):07\n"
                               "\"sz\"=hex(1):68,00,69,00,00,00\n"
                               "\"dw\"=hex(4):0a,00,00,00\n"
                               "\"dw3\"=hex(4):0a,00,00\n"
                               "\"spaced\"=hex: 01 , 02 ,03\n"),
                      0);
    assert_bytes(value_of(PLAT_HKLM, "H", "bin"), JV_REG_BINARY, "\x00\x01\xfe\xff", 4);
    assert_bytes(value_of(PLAT_HKLM, "H", "none"), JV_REG_NONE, "", 0);
    assert_bytes(value_of(PLAT_HKLM, "H", "empty"), JV_REG_BINARY, "", 0);
    assert_bytes(value_of(PLAT_HKLM, "H", "exp"), JV_REG_EXPAND_SZ, "%\0A\0%\0\0\0", 8);
    assert_bytes(value_of(PLAT_HKLM, "H", "multi"), JV_REG_MULTI_SZ, "a\0\0\0\0\0", 6);
    assert_bytes(value_of(PLAT_HKLM, "H", "q"), JV_REG_QWORD, "\x01\0\0\0\0\0\0\x80", 8);
    assert_bytes(value_of(PLAT_HKLM, "H", "big"), 0xFFFF0001u, "\x07", 1);
    assert_bytes(value_of(PLAT_HKLM, "H", "spaced"), JV_REG_BINARY, "\x01\x02\x03", 3);
    /* A REG_SZ written as hex(1) is a string; a 4-byte hex(4) a DWORD. */
    ck_assert_str_eq(string_of(PLAT_HKLM, "H", "sz"), "hi");
    ck_assert_uint_eq(dword_of(PLAT_HKLM, "H", "dw"), 10);
    DWORD d;
    char *s = NULL;
    ck_assert_int_eq(jv_reg_get_dword(tree, PLAT_HKLM, "H", "dw3", &d), PLAT_REG_WRONG_TYPE);
    ck_assert_int_eq(jv_reg_get_dword(tree, PLAT_HKLM, "H", "sz", &d), PLAT_REG_WRONG_TYPE);
    ck_assert_int_eq(jv_reg_get_string(tree, PLAT_HKLM, "H", "dw", &s), PLAT_REG_WRONG_TYPE);
    ck_assert_int_eq(jv_reg_get_string(tree, PLAT_HKLM, "H", "exp", &s), PLAT_REG_WRONG_TYPE);
    ck_assert_int_eq(jv_reg_get_string(tree, PLAT_HKLM, "H", "missing", &s), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(jv_reg_get_string(tree, PLAT_HKLM, "Nowhere", "x", &s), PLAT_REG_NOT_FOUND);
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(hex_line_continuations)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\L]\n"
                               "\"long\"=hex(2):25,00,53,00,\\\n"
                               "  59,00,25,00,\\\n"
                               "\t00,00\n"
                               "\"split\"=hex:01\\\n"
                               "  ,02\n"
                               "\"lead\"=hex:\\\n"
                               "  0a\n"
                               "\"after\"=\"still read\"\n"),
                      0);
    assert_bytes(value_of(PLAT_HKLM, "L", "long"), JV_REG_EXPAND_SZ, "%\0S\0Y\0%\0\0\0", 10);
    assert_bytes(value_of(PLAT_HKLM, "L", "split"), JV_REG_BINARY, "\x01\x02", 2);
    assert_bytes(value_of(PLAT_HKLM, "L", "lead"), JV_REG_BINARY, "\x0a", 1);
    ck_assert_str_eq(string_of(PLAT_HKLM, "L", "after"), "still read");
}
END_TEST

START_TEST(deleting_keys_and_values)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\D\\Sub\\Deep]\n\"x\"=\"1\"\n"
                               "[HKLM\\D\\Keep]\n\"a\"=\"1\"\n\"b\"=\"2\"\n@=\"def\"\n"),
                      0);
    ck_assert_uint_eq(parse(V5 "[-HKLM\\D\\Sub]\n"
                               "[-HKLM\\D\\Never\\Existed]\n"
                               "[HKLM\\D\\Keep]\n\"A\"=-\n@=-\n\"missing\"=-\n"),
                      0);
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "D\\Sub"));
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "D\\Sub\\Deep"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "D\\Keep", "a"));
    ck_assert_ptr_null(value_of(PLAT_HKLM, "D\\Keep", NULL));
    ck_assert_str_eq(string_of(PLAT_HKLM, "D\\Keep", "b"), "2");
}
END_TEST

START_TEST(names_are_case_insensitive_and_keep_their_case)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\Software\\MixedCase]\n\"ValueName\"=\"1\"\n"
                               "[HKLM\\SOFTWARE\\mixedcase]\n\"VALUENAME\"=\"2\"\n\"Other\"=\"3\"\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "software\\MIXEDCASE", "valuename"), "2");
    const jv_reg_key *key = jv_reg_find_key(tree, PLAT_HKLM, "SOFTWARE\\MIXEDCASE");
    ck_assert_ptr_nonnull(key);
    ck_assert_str_eq(key->name, "MixedCase");
    ck_assert_uint_eq(key->value_count, 2);
    ck_assert_str_eq(key->values[0].name, "ValueName");
    char **names;
    size_t count;
    ck_assert_int_eq(jv_reg_subkeys(tree, PLAT_HKLM, "", &names, &count), PLAT_REG_OK);
    ck_assert_uint_eq(count, 1);
    ck_assert_str_eq(names[0], "Software");
    free_names(names, count);
}
END_TEST

START_TEST(subkeys_enumerate_in_case_insensitive_order)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\M\\zeta]\n[HKLM\\M\\Alpha]\n[HKLM\\M\\beta]\n[HKLM\\M\\Beta\\child]\n"), 0);
    char **names;
    size_t count;
    ck_assert_int_eq(jv_reg_subkeys(tree, PLAT_HKLM, "M", &names, &count), PLAT_REG_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_str_eq(names[0], "Alpha");
    ck_assert_str_eq(names[1], "beta");
    ck_assert_str_eq(names[2], "zeta");
    free_names(names, count);
    ck_assert_int_eq(jv_reg_subkeys(tree, PLAT_HKLM, "M\\Alpha", &names, &count), PLAT_REG_OK);
    ck_assert_uint_eq(count, 0);
    free_names(names, count);
    ck_assert_int_eq(jv_reg_subkeys(tree, PLAT_HKLM, "Nope", &names, &count), PLAT_REG_NOT_FOUND);
}
END_TEST

START_TEST(files_merge_in_order)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\Java VM]\n\"a\"=\"first\"\n\"b\"=\"first\"\n"
                               "[HKLM\\Java VM\\Monitors\\one]\n\"CLSID\"=\"x\"\n"),
                      0);
    ck_assert_uint_eq(parse(V5 "[HKLM\\Java VM]\n\"b\"=dword:00000002\n\"c\"=\"second\"\n"
                               "[-HKLM\\Java VM\\Monitors\\one]\n"
                               "[HKLM\\Java VM\\Monitors\\two]\n\"CLSID\"=\"y\"\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKLM, "Java VM", "a"), "first");
    ck_assert_uint_eq(dword_of(PLAT_HKLM, "Java VM", "b"), 2); /* replaced, type and all */
    ck_assert_str_eq(string_of(PLAT_HKLM, "Java VM", "c"), "second");
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "Java VM\\Monitors\\one"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "Java VM\\Monitors\\two", "CLSID"), "y");
}
END_TEST

START_TEST(classes_root_is_user_classes_over_machine_classes)
{
    ck_assert_uint_eq(parse(V5 "[HKLM\\Software\\Classes\\CLSID\\{A}\\InprocServer32]\n@=\"/machine/a.so\"\n"
                               "\"ThreadingModel\"=\"Both\"\n"
                               "[HKLM\\Software\\Classes\\CLSID\\{B}\\InprocServer32]\n@=\"/machine/b.so\"\n"
                               "[HKCU\\Software\\Classes\\CLSID\\{A}\\InprocServer32]\n@=\"/user/a.so\"\n"
                               "[HKCU\\Software\\Classes\\CLSID\\{C}]\n"),
                      0);
    ck_assert_str_eq(string_of(PLAT_HKCR, "CLSID\\{A}\\InprocServer32", NULL), "/user/a.so");
    ck_assert_str_eq(string_of(PLAT_HKCR, "clsid\\{b}\\inprocserver32", NULL), "/machine/b.so");
    /* The user's key wins as a whole: its values, not a mix of both. */
    ck_assert_ptr_null(string_of(PLAT_HKCR, "CLSID\\{A}\\InprocServer32", "ThreadingModel"));
    char **names;
    size_t count;
    ck_assert_int_eq(jv_reg_subkeys(tree, PLAT_HKCR, "CLSID", &names, &count), PLAT_REG_OK);
    ck_assert_uint_eq(count, 3);
    ck_assert_str_eq(names[0], "{A}");
    ck_assert_str_eq(names[1], "{B}");
    ck_assert_str_eq(names[2], "{C}");
    free_names(names, count);
    /* Writes and deletions go to the machine's classes. */
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKCR, "CLSID\\{D}", NULL, "d"), PLAT_REG_OK);
    ck_assert_str_eq(string_of(PLAT_HKLM, "Software\\Classes\\CLSID\\{D}", NULL), "d");
    ck_assert_int_eq(jv_reg_delete_tree(tree, PLAT_HKCR, "CLSID\\{B}"), PLAT_REG_OK);
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "Software\\Classes\\CLSID\\{B}"));
    ck_assert_int_eq(jv_reg_delete_tree(tree, PLAT_HKCR, "CLSID\\{C}"), PLAT_REG_NOT_FOUND);
}
END_TEST

START_TEST(hives_a_file_may_not_hold_are_refused)
{
    const char *text = V5 "[HKCU\\Software\\Mine]\n\"a\"=\"1\"\n[HKLM\\Software\\Ok]\n\"b\"=\"2\"\n"
                          "[HKCR\\CLSID\\{X}]\n\"c\"=\"3\"\n";
    ck_assert_uint_eq(jv_reg_parse(tree, "system.reg", text, strlen(text),
                                   JV_REG_HIVE_BIT(PLAT_HKLM) | JV_REG_HIVE_BIT(PLAT_HKCR)),
                      1);
    ck_assert(tk_logged("system.reg:3: HKEY_CURRENT_USER keys do not belong in this file"));
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKCU, "Software\\Mine"));
    ck_assert_str_eq(string_of(PLAT_HKLM, "Software\\Ok", "b"), "2");
    ck_assert_str_eq(string_of(PLAT_HKCR, "CLSID\\{X}", "c"), "3");
    tk_log_count = 0;
    ck_assert_uint_eq(jv_reg_parse(tree, "user.reg", text, strlen(text), JV_REG_HIVE_BIT(PLAT_HKCU)), 2);
    ck_assert(tk_logged("user.reg:5: HKEY_LOCAL_MACHINE keys do not belong"));
    ck_assert(tk_logged("user.reg:7: HKEY_CLASSES_ROOT keys do not belong"));
}
END_TEST

START_TEST(setting_through_the_api)
{
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A\\B", "s", "t\xC3\xA9xt"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_dword(tree, PLAT_HKLM, "A\\B", "d", 0x01020304), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(tree, PLAT_HKLM, "A", "bin", JV_REG_BINARY, "\x01\x02", 2), PLAT_REG_OK);
    ck_assert_str_eq(string_of(PLAT_HKLM, "a\\b", "S"), "t\xC3\xA9xt");
    assert_bytes(value_of(PLAT_HKLM, "A\\B", "d"), JV_REG_DWORD, "\x04\x03\x02\x01", 4);
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A\\B", "S", "again"), PLAT_REG_OK);
    ck_assert_str_eq(jv_reg_find_key(tree, PLAT_HKLM, "A\\B")->values[0].name, "s");
    ck_assert_int_eq(tk_log_count, 0);
    /* Malformed paths and names are refused with one line each. */
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A\\\\B", "x", "y"), PLAT_REG_ERROR);
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "\\A", "x", "y"), PLAT_REG_ERROR);
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A\\", "x", "y"), PLAT_REG_ERROR);
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A", "two\nlines", "y"), PLAT_REG_ERROR);
    ck_assert_int_eq(jv_reg_set_string(tree, PLAT_HKLM, "A", "x", "\xFF"), PLAT_REG_ERROR);
    ck_assert_int_eq(jv_reg_delete_tree(tree, PLAT_HKLM, ""), PLAT_REG_ERROR);
    ck_assert_int_eq(tk_log_count, 6);
    ck_assert_int_eq(jv_reg_delete_tree(tree, PLAT_HKLM, "A\\Missing"), PLAT_REG_NOT_FOUND);
    ck_assert_int_eq(jv_reg_delete_tree(tree, PLAT_HKLM, "a"), PLAT_REG_OK);
    ck_assert_ptr_null(jv_reg_find_key(tree, PLAT_HKLM, "A"));
}
END_TEST

/* ---- The writer ------------------------------------------------------------------------- */

/* A tree with every kind of value and name the writer must keep. */
static void fill_everything(jv_reg_tree *t)
{
    static const unsigned char long_binary[] = {
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11,
        0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23,
        0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xff};
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "", "at root", "r"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Software\\Microsoft\\Java VM\\Monitors\\prof", NULL, "desc"),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Software\\Microsoft\\Java VM\\Monitors\\prof", "CLSID",
                                       "{63DAD816-1308-449B-AC11-1E702EB2D15F}"),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_dword(t, PLAT_HKLM, "Software\\Microsoft\\Java VM\\Monitors\\prof", "InitOptions", 12),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Esc", "q\"uo\\te", "va\"l\\ue\\"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Esc", "unicode", "\xC3\xA9\xF0\x9F\x98\x80"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Esc", "lines", "one\ntwo\r\n"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Esc", "empty", ""), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "bin", JV_REG_BINARY, long_binary, sizeof(long_binary)),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "none", JV_REG_NONE, "", 0), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "exp", JV_REG_EXPAND_SZ, "%\0P\0%\0\0\0", 8),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "multi", JV_REG_MULTI_SZ, "a\0\0\0b\0\0\0\0\0", 10),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "qword", JV_REG_QWORD, "\1\2\3\4\5\6\7\x80", 8),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "odd type", 0x12345678u, "\x09", 1), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "short dword", JV_REG_DWORD, "\x09", 1), PLAT_REG_OK);
    /* Strings that "text" cannot carry: no NUL at the end, a NUL inside, odd length, a lone surrogate. */
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "unterminated", JV_REG_SZ, "a\0b\0", 4), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "inner nul", JV_REG_SZ, "a\0\0\0b\0\0\0", 8),
                     PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "odd", JV_REG_SZ, "a\0\0", 3), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "surrogate", JV_REG_SZ, "\x00\xD8\0\0", 4), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Types", "empty sz", JV_REG_SZ, "", 0), PLAT_REG_OK);
    /* Keys: empty ones, odd characters, HKCR's home. */
    ck_assert_int_eq(jv_reg_set_value(t, PLAT_HKLM, "Empty\\Leaf", "x", JV_REG_NONE, "", 0), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_delete_tree(t, PLAT_HKLM, "Empty\\Leaf"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKLM, "Odd ]names[ \"here\"\\-dash", "k", "v"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKCR, "CLSID\\{X}\\InprocServer32", NULL, "/x.so"), PLAT_REG_OK);
    ck_assert_int_eq(jv_reg_set_string(t, PLAT_HKCU, "Software\\Microsoft\\Java VM", "u", "user"), PLAT_REG_OK);
}

START_TEST(writer_round_trip_is_lossless)
{
    fill_everything(tree);
    for (plat_hive hive = PLAT_HKLM; hive <= PLAT_HKCU; hive++) {
        size_t size, size2;
        char *text = jv_reg_write(tree, hive, &size);
        ck_assert_ptr_nonnull(text);
        ck_assert_uint_eq(strlen(text), size);
        ck_assert_int_eq(strncmp(text, "Windows Registry Editor Version 5.00\n", 37), 0);
        jv_reg_tree *back = jv_reg_tree_create();
        ck_assert_uint_eq(parse_into(back, text), 0);
        char *text2 = jv_reg_write(back, hive, &size2);
        ck_assert_str_eq(text2, text);
        /* Every value of the original, byte for byte, in the reread tree (the hive the writer wrote). */
        static const char *const keys[] = {"",      "Software\\Microsoft\\Java VM\\Monitors\\prof",
                                           "Esc",   "Types",
                                           "Empty", "Odd ]names[ \"here\"\\-dash",
                                           "Software\\Classes\\CLSID\\{X}\\InprocServer32",
                                           "Software\\Microsoft\\Java VM"};
        for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
            const jv_reg_key *a = jv_reg_find_key(tree, hive, keys[k]), *b = jv_reg_find_key(back, hive, keys[k]);
            ck_assert_msg((a == NULL) == (b == NULL), "key %s lost or invented", keys[k]);
            if (!a)
                continue;
            ck_assert_uint_eq(a->value_count, b->value_count);
            ck_assert_uint_eq(a->subkey_count, b->subkey_count);
            for (size_t v = 0; v < a->value_count; v++) {
                const jv_reg_value *w = jv_reg_find_value(b, a->values[v].name);
                ck_assert_msg(w != NULL, "value %s\\%s lost", keys[k], a->values[v].name);
                ck_assert_str_eq(w->name, a->values[v].name);
                assert_bytes(w, a->values[v].type, a->values[v].data, a->values[v].size);
            }
        }
        jv_reg_tree_free(back);
        free(text);
        free(text2);
    }
}
END_TEST

START_TEST(writer_uses_regedit_forms)
{
    fill_everything(tree);
    size_t size;
    char *text = jv_reg_write(tree, PLAT_HKLM, &size);
    static const char *const expected[] = {
        "\n\n[HKEY_LOCAL_MACHINE]\n\"at root\"=\"r\"\n",
        "[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\prof]\n@=\"desc\"\n"
        "\"CLSID\"=\"{63DAD816-1308-449B-AC11-1E702EB2D15F}\"\n\"InitOptions\"=dword:0000000c\n",
        "\"q\\\"uo\\\\te\"=\"va\\\"l\\\\ue\\\\\"\n",
        "\"empty\"=\"\"\n",
        "\"lines\"=hex(1):6f,00,6e,00,65,00,0a,00,74,00,77,00,6f,00,0d,00,0a,00,00,00\n",
        "\"bin\"=hex:00,01,02,03,04,05,06,07,08,09,0a,0b,0c,0d,0e,0f,10,11,12,13,14,15,16,\\\n  17,",
        "\"none\"=hex(0):\n",
        "\"qword\"=hex(b):01,02,03,04,05,06,07,80\n",
        "\"odd type\"=hex(12345678):09\n",
        "\"short dword\"=hex(4):09\n",
        "[HKEY_LOCAL_MACHINE\\Empty]\n\n[HKEY_LOCAL_MACHINE\\Esc]\n",
        "[HKEY_LOCAL_MACHINE\\Software\\Classes\\CLSID\\{X}\\InprocServer32]\n@=\"/x.so\"\n",
    };
    for (size_t i = 0; i < sizeof(expected) / sizeof(*expected); i++)
        ck_assert_msg(strstr(text, expected[i]), "missing:\n%s\nin:\n%s", expected[i], text);
    ck_assert_ptr_null(strstr(text, "HKEY_CURRENT_USER"));
    free(text);
}
END_TEST

START_TEST(writer_of_an_empty_hive)
{
    size_t size;
    char *text = jv_reg_write(tree, PLAT_HKCU, &size);
    ck_assert_str_eq(text, "Windows Registry Editor Version 5.00\n\n");
    free(text);
}
END_TEST

static Suite *regfile_suite(void)
{
    Suite *s = suite_create("regfile");
    TCase *formats = tcase_create("formats");
    tcase_add_checked_fixture(formats, setup, teardown);
    tcase_add_test(formats, v5_utf8_strings_dwords_and_default_values);
    tcase_add_test(formats, utf8_with_bom_and_crlf);
    tcase_add_test(formats, utf16le_with_bom_as_regedit_exports);
    tcase_add_test(formats, regedit4_reads_8_bit_string_data_as_text);
    tcase_add_test(formats, hive_names_and_abbreviations);
    tcase_add_test(formats, comments_blank_lines_and_indentation);
    tcase_add_test(formats, string_escapes);
    tcase_add_test(formats, hex_types_are_stored_typed);
    tcase_add_test(formats, hex_line_continuations);
    tcase_add_test(formats, deleting_keys_and_values);
    tcase_add_test(formats, names_are_case_insensitive_and_keep_their_case);
    tcase_add_test(formats, subkeys_enumerate_in_case_insensitive_order);
    tcase_add_test(formats, files_merge_in_order);
    tcase_add_test(formats, classes_root_is_user_classes_over_machine_classes);
    tcase_add_test(formats, hives_a_file_may_not_hold_are_refused);
    tcase_add_test(formats, setting_through_the_api);
    suite_add_tcase(s, formats);

    TCase *writer = tcase_create("writer");
    tcase_add_checked_fixture(writer, setup, teardown);
    tcase_add_test(writer, writer_round_trip_is_lossless);
    tcase_add_test(writer, writer_uses_regedit_forms);
    tcase_add_test(writer, writer_of_an_empty_hive);
    suite_add_tcase(s, writer);

    return s;
}

int main(void)
{
    return tk_run_suite(regfile_suite());
}

/*
 * regfile_parse.c - a tree per test, .reg text parsed into it and read back (regfile_parse.h).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../support/testkit.h"
#include "regfile_parse.h"

jv_reg_tree *tree;

void setup(void)
{
    tree = jv_reg_tree_create();
    ck_assert_ptr_nonnull(tree);
    tk_capture_log();
}

void teardown(void)
{
    jv_log_set_sink(NULL, NULL);
    jv_reg_tree_free(tree);
}

unsigned parse_into(jv_reg_tree *t, const char *text)
{
    return jv_reg_parse(t, FILE_NAME, text, strlen(text), JV_REG_ALL_HIVES);
}

unsigned parse(const char *text)
{
    return parse_into(tree, text);
}

const char *string_of(plat_hive hive, const char *key, const char *name)
{
    static char *last;
    free(last);
    last = NULL;
    if (jv_reg_get_string(tree, hive, key, name, &last) != PLAT_REG_OK)
        last = NULL;
    return last;
}

const jv_reg_value *value_of(plat_hive hive, const char *key, const char *name)
{
    return jv_reg_find_value(jv_reg_find_key(tree, hive, key), name);
}

unsigned char *utf16le_file(const char *text, size_t *size)
{
    size_t len = strlen(text), n = 0;
    unsigned char *out = malloc(4 * len + 2);
    const unsigned char *s = (const unsigned char *)text;
    out[n++] = 0xFF, out[n++] = 0xFE;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        if (s[i] < 0x80)
            cp = s[i], i += 1;
        else if (s[i] < 0xE0)
            cp = (uint32_t)(s[i] & 0x1F) << 6 | (s[i + 1] & 0x3F), i += 2;
        else if (s[i] < 0xF0)
            cp = (uint32_t)(s[i] & 0x0F) << 12 | (uint32_t)(s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F), i += 3;
        else
            cp = (uint32_t)(s[i] & 0x07) << 18 | (uint32_t)(s[i + 1] & 0x3F) << 12 | (uint32_t)(s[i + 2] & 0x3F) << 6 |
                 (s[i + 3] & 0x3F),
            i += 4;
        uint32_t units[2] = {cp, 0};
        int count = 1;
        if (cp >= 0x10000)
            units[0] = 0xD800 | (cp - 0x10000) >> 10, units[1] = 0xDC00 | (cp & 0x3FF), count = 2;
        for (int u = 0; u < count; u++)
            out[n++] = (unsigned char)(units[u] & 0xFF), out[n++] = (unsigned char)(units[u] >> 8);
    }
    *size = n;
    return out;
}

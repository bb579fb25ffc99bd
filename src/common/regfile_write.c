/*
 * regfile_write.c - the .reg writer (jv_reg_write, see regfile.h): a hive as a "Windows
 * Registry Editor Version 5.00" file in UTF-8, written as regedit writes it, which
 * jv_reg_parse reads back into the same keys and values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/regfile_internal.h"

/* name or text between quotes, with \ and " escaped. */
static void write_quoted(regbuf *out, const char *text)
{
    regbuf_byte(out, '"');
    for (const char *c = text; *c; c++) {
        if (*c == '\\' || *c == '"')
            regbuf_byte(out, '\\');
        regbuf_byte(out, (unsigned char)*c);
    }
    regbuf_byte(out, '"');
}

/* A REG_SZ as "text" when that reads back as the same bytes: one NUL, at the end, valid
 * UTF-16, no line break.  Returns 0 (nothing written) otherwise. */
static int write_plain_string(regbuf *out, const jv_reg_value *value)
{
    size_t units = value->size / 2;
    if (value->size % 2 || units == 0 || value->data[value->size - 1] || value->data[value->size - 2])
        return 0;
    regbuf text = {0};
    regbuf_add(&text, "", 0);
    int plain = regfile_utf16le_to_utf8(&text, value->data, units - 1, 1) && !text.failed &&
                strlen(text.data) == text.len && !strpbrk(text.data, "\r\n");
    if (plain)
        write_quoted(out, text.data);
    free(text.data);
    return plain;
}

/* hex:xx,xx or hex(n):xx,xx, wrapped as regedit wraps: ",\" and two spaces. */
static void write_hex(regbuf *out, const jv_reg_value *value, size_t column)
{
    char prefix[24];
    if (value->type == JV_REG_BINARY)
        snprintf(prefix, sizeof(prefix), "hex:");
    else
        snprintf(prefix, sizeof(prefix), "hex(%lx):", (unsigned long)value->type);
    regbuf_str(out, prefix);
    column += strlen(prefix);
    for (size_t i = 0; i < value->size; i++) {
        char byte[4];
        snprintf(byte, sizeof(byte), "%02x%s", value->data[i], i + 1 < value->size ? "," : "");
        regbuf_str(out, byte);
        column += strlen(byte);
        if (column > 76 && i + 1 < value->size) {
            regbuf_str(out, "\\\n  ");
            column = 2;
        }
    }
}

static void write_value(regbuf *out, const jv_reg_value *value)
{
    size_t start = out->len;
    if (*value->name)
        write_quoted(out, value->name);
    else
        regbuf_byte(out, '@');
    regbuf_byte(out, '=');
    if (value->type == JV_REG_DWORD && value->size == 4) {
        char dword[16];
        snprintf(dword, sizeof(dword), "dword:%02x%02x%02x%02x", value->data[3], value->data[2], value->data[1],
                 value->data[0]);
        regbuf_str(out, dword);
    } else if (value->type != JV_REG_SZ || !write_plain_string(out, value)) {
        write_hex(out, value, out->len - start);
    }
    regbuf_byte(out, '\n');
}

/* The key at path (its full name, hive included) and everything below it.  Intermediate keys
 * are written too, even empty, since an empty key is a key that exists. */
static void write_key(regbuf *out, const jv_reg_key *key, regbuf *path, int is_root)
{
    if (!is_root || key->value_count) {
        regbuf_byte(out, '[');
        regbuf_add(out, path->data, path->len);
        regbuf_str(out, "]\n");
        for (size_t i = 0; i < key->value_count; i++) /* the default value first, as regedit writes it */
            if (!*key->values[i].name)
                write_value(out, &key->values[i]);
        for (size_t i = 0; i < key->value_count; i++)
            if (*key->values[i].name)
                write_value(out, &key->values[i]);
        regbuf_byte(out, '\n');
    }
    for (size_t i = 0; i < key->subkey_count; i++) {
        size_t path_len = path->len;
        regbuf_byte(path, '\\');
        regbuf_str(path, key->subkeys[i]->name);
        write_key(out, key->subkeys[i], path, 0);
        path->len = path_len;
        if (path->data)
            path->data[path_len] = '\0';
    }
}

char *jv_reg_write(const jv_reg_tree *tree, plat_hive hive, size_t *size)
{
    regbuf out = {0}, path = {0};
    if (hive == PLAT_HKCR)
        hive = PLAT_HKLM; /* where the classes are kept */
    regbuf_str(&out, HEADER_V5 "\n\n");
    regbuf_str(&path, regfile_hive_names[hive]);
    write_key(&out, &tree->roots[hive], &path, 1);
    free(path.data);
    if (out.failed || path.failed) {
        free(out.data);
        return NULL;
    }
    *size = out.len;
    return out.data;
}

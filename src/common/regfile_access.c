/*
 * regfile_access.c - typed reading and writing of the registry tree by hive, path and value
 * name (see regfile.h): strings converted between UTF-8 and the stored UTF-16LE, DWORDs,
 * subkey lists that merge HKEY_CLASSES_ROOT's two halves, deletion of a key and its subtree.
 * Bad paths and exhausted memory are logged here, once, with the key they concern.
 */
#include <stdlib.h>
#include <string.h>

#include "common/regfile_internal.h"

plat_reg_status jv_reg_get_string(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  char **value)
{
    path = path ? path : "";
    const jv_reg_value *v = jv_reg_find_value(regfile_lookup(tree, hive, path, 0), name);
    if (!v)
        return PLAT_REG_NOT_FOUND;
    if (v->type != JV_REG_SZ)
        return PLAT_REG_WRONG_TYPE;
    /* As far as the first NUL, as a C string reader of the Windows value sees it. */
    size_t units = 0;
    while (units < v->size / 2 && (v->data[2 * units] || v->data[2 * units + 1]))
        units++;
    regbuf text = {0};
    regbuf_add(&text, "", 0);
    regfile_utf16le_to_utf8(&text, v->data, units, 0);
    if (text.failed) {
        free(text.data);
        jv_log("registry: out of memory reading %s\\%s", regfile_hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    *value = text.data;
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_get_dword(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                 DWORD *value)
{
    const jv_reg_value *v = jv_reg_find_value(regfile_lookup(tree, hive, path, 0), name);
    if (!v)
        return PLAT_REG_NOT_FOUND;
    if (v->type != JV_REG_DWORD || v->size != 4)
        return PLAT_REG_WRONG_TYPE;
    *value = (DWORD)v->data[0] | (DWORD)v->data[1] << 8 | (DWORD)v->data[2] << 16 | (DWORD)v->data[3] << 24;
    return PLAT_REG_OK;
}

/* Appends the names of key's subkeys to names that are not there yet (case-insensitively). */
static int add_subkey_names(const jv_reg_key *key, char ***names, size_t *count)
{
    for (size_t i = 0; i < key->subkey_count; i++) {
        const char *name = key->subkeys[i]->name;
        size_t k = 0;
        while (k < *count && regfile_name_compare((*names)[k], strlen((*names)[k]), name, strlen(name)) != 0)
            k++;
        if (k < *count)
            continue;
        char **grown = realloc(*names, (*count + 1) * sizeof(char *));
        if (!grown)
            return 0;
        *names = grown;
        if (!(grown[*count] = regfile_copy_text(name, strlen(name))))
            return 0;
        (*count)++;
    }
    return 1;
}

/* plat_free_strings, which this file, built for every system, does not depend on. */
static void free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

static int by_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    return regfile_name_compare(x, strlen(x), y, strlen(y));
}

plat_reg_status jv_reg_subkeys(const jv_reg_tree *tree, plat_hive hive, const char *path, char ***names,
                               size_t *count)
{
    path = path ? path : "";
    const jv_reg_key *key = regfile_lookup(tree, hive, path, 0);
    const jv_reg_key *machine_classes = hive == PLAT_HKCR ? regfile_lookup(tree, hive, path, 1) : NULL;
    *names = NULL;
    *count = 0;
    if (!key)
        return PLAT_REG_NOT_FOUND;
    int ok = add_subkey_names(key, names, count);
    if (ok && machine_classes && machine_classes != key) {
        ok = add_subkey_names(machine_classes, names, count);
        if (ok && *count > 1) /* qsort's array may not be NULL, which it is while there is no name */
            qsort(*names, *count, sizeof(char *), by_name);
    }
    if (!ok) {
        free_names(*names, *count);
        *names = NULL;
        *count = 0;
        jv_log("registry: out of memory listing %s\\%s", regfile_hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_set_value(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD type,
                                 const void *data, size_t size)
{
    const char *value_name = name ? name : "";
    path = path ? path : "";
    if (!regfile_path_valid(path, strlen(path)) || strpbrk(value_name, "\r\n")) {
        jv_log("registry: cannot write %s\\%s value \"%s\": the key path has an empty part or a line break, or "
               "the value name a line break",
               regfile_hive_names[hive], path, value_name);
        return PLAT_REG_ERROR;
    }
    jv_reg_key *root = regfile_write_root(tree, hive);
    jv_reg_key *key = root ? regfile_walk(root, path, strlen(path), 1) : NULL;
    if (!key || !regfile_key_set_value(key, value_name, type, data, size)) {
        jv_log("registry: out of memory writing %s\\%s", regfile_hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_set_string(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  const char *value)
{
    path = path ? path : "";
    if (!value || !regfile_utf8_valid(value, strlen(value))) {
        jv_log("registry: cannot write %s\\%s value \"%s\": %s", regfile_hive_names[hive], path, name ? name : "",
               value ? "the text is not UTF-8" : "no text (NULL)");
        return PLAT_REG_ERROR;
    }
    regbuf utf16 = {0};
    regfile_utf8_to_utf16le(&utf16, value, strlen(value));
    regfile_utf16_put(&utf16, 0);
    plat_reg_status status = utf16.failed ? PLAT_REG_ERROR
                                          : jv_reg_set_value(tree, hive, path, name, JV_REG_SZ, utf16.data, utf16.len);
    if (utf16.failed)
        jv_log("registry: out of memory writing %s\\%s", regfile_hive_names[hive], path);
    free(utf16.data);
    return status;
}

plat_reg_status jv_reg_set_dword(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD value)
{
    path = path ? path : "";
    regbuf le = {0};
    regfile_dword_put(&le, value);
    plat_reg_status status =
        le.failed ? PLAT_REG_ERROR : jv_reg_set_value(tree, hive, path, name, JV_REG_DWORD, le.data, le.len);
    if (le.failed)
        jv_log("registry: out of memory writing %s\\%s", regfile_hive_names[hive], path);
    free(le.data);
    return status;
}

plat_reg_status jv_reg_delete_tree(jv_reg_tree *tree, plat_hive hive, const char *path)
{
    path = path ? path : "";
    size_t len = strlen(path);
    if (len == 0 || !regfile_path_valid(path, len)) {
        jv_log("registry: cannot delete %s\\%s: %s", regfile_hive_names[hive], path,
               len ? "the key path has an empty part" : "a hive itself cannot be deleted");
        return PLAT_REG_ERROR;
    }
    jv_reg_key *root = hive == PLAT_HKCR ? regfile_classes_of(tree, PLAT_HKLM, 0) : &tree->roots[hive];
    return root && regfile_delete_key(root, path, len) ? PLAT_REG_OK : PLAT_REG_NOT_FOUND;
}

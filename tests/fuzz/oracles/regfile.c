/* regfile.c - the registry parser's oracle (oracles.h). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/regfile.h"
#include "oracles.h"

static void discard(const char *line, void *context)
{
    (void)line, (void)context;
}

/* Reads every key below key (at path, of hive) back through the reading API: each value and
 * subkey the tree holds is found by name.  NULL, or what was not found. */
static const char *read_back(const jv_reg_tree *tree, plat_hive hive, const jv_reg_key *key, char *path,
                             size_t path_len, size_t path_size)
{
    char **names = NULL;
    size_t count = 0;
    if (jv_reg_subkeys(tree, hive, path, &names, &count) == PLAT_REG_OK) {
        for (size_t i = 0; i < count; i++)
            free(names[i]);
        free(names);
        if (hive != PLAT_HKCR && count != key->subkey_count)
            return "jv_reg_subkeys lists another number of subkeys than the key holds";
    }
    for (size_t i = 0; i < key->value_count; i++) {
        const jv_reg_value *value = &key->values[i];
        char *text = NULL;
        DWORD dword;
        if (jv_reg_find_value(key, value->name) != value)
            return "a value is not found by its name";
        if (jv_reg_get_string(tree, hive, path, value->name, &text) == PLAT_REG_OK && value->type != JV_REG_SZ)
            return "a value that is not REG_SZ was read as a string";
        free(text);
        if (jv_reg_get_dword(tree, hive, path, value->name, &dword) == PLAT_REG_OK && value->type != JV_REG_DWORD)
            return "a value that is not REG_DWORD was read as a DWORD";
    }
    for (size_t i = 0; i < key->subkey_count; i++) {
        const jv_reg_key *child = key->subkeys[i];
        size_t len = path_len + (path_len != 0) + strlen(child->name);
        if (len >= path_size)
            continue; /* deeper than the oracle follows */
        snprintf(path + path_len, path_size - path_len, "%s%s", path_len ? "\\" : "", child->name);
        if (jv_reg_find_key(tree, hive, path) != child)
            return "a key is not found by its path";
        const char *failure = read_back(tree, hive, child, path, len, path_size);
        path[path_len] = '\0';
        if (failure)
            return failure;
    }
    return NULL;
}

const char *fuzz_regfile_check(const uint8_t *data, size_t size)
{
    static const plat_hive hives[] = {PLAT_HKLM, PLAT_HKCU};
    const char *failure = NULL;
    jv_log_set_sink(discard, NULL); /* the messages are formatted all the same */
    jv_reg_tree *tree = jv_reg_tree_create();
    if (!tree)
        return NULL;
    jv_reg_parse(tree, "fuzz.reg", data, size, JV_REG_ALL_HIVES);
    for (size_t h = 0; !failure && h < sizeof(hives) / sizeof(*hives); h++) {
        char path[4096] = "";
        const jv_reg_key *root = jv_reg_find_key(tree, hives[h], "");
        failure = root ? read_back(tree, hives[h], root, path, 0, sizeof(path)) : "a hive has no root key";
    }
    char classes[4096] = "";
    const jv_reg_key *classes_root = jv_reg_find_key(tree, PLAT_HKCR, "");
    if (!failure && classes_root) /* the HKEY_CLASSES_ROOT view: exercised, nothing compared */
        read_back(tree, PLAT_HKCR, classes_root, classes, 0, sizeof(classes));
    for (size_t h = 0; !failure && h < sizeof(hives) / sizeof(*hives); h++) {
        size_t first_size = 0, second_size = 0;
        char *first = jv_reg_write(tree, hives[h], &first_size), *second = NULL;
        jv_reg_tree *again = jv_reg_tree_create();
        if (first && again) {
            if (jv_reg_parse(again, "written.reg", first, first_size, JV_REG_ALL_HIVES) != 0)
                failure = "the written file does not parse without errors";
            else if (!(second = jv_reg_write(again, hives[h], &second_size)))
                failure = NULL; /* out of memory: nothing to compare */
            else if (second_size != first_size || memcmp(first, second, first_size) != 0)
                failure = "write -> parse -> write changed the file";
        }
        free(first);
        free(second);
        jv_reg_tree_free(again);
    }
    jv_reg_tree_free(tree);
    jv_log_set_sink(NULL, NULL);
    return failure;
}

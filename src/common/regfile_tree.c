/*
 * regfile_tree.c - the registry's in-memory tree (see regfile.h): hives, keys kept in
 * case-insensitive order, values in the order they were first set with an index by name,
 * key paths, and the HKEY_CLASSES_ROOT view over the two hives' Software\Classes.
 */
#include <stdlib.h>
#include <string.h>

#include "common/regfile_internal.h"

#define CLASSES_PATH "Software\\Classes"

const char *const regfile_hive_names[3] = {"HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER", "HKEY_CLASSES_ROOT"};

static void key_clear(jv_reg_key *key)
{
    for (size_t i = 0; i < key->subkey_count; i++) {
        key_clear(key->subkeys[i]);
        free(key->subkeys[i]);
    }
    for (size_t i = 0; i < key->value_count; i++) {
        free(key->values[i].name);
        free(key->values[i].data);
    }
    free(key->subkeys);
    free(key->values);
    free(key->value_slots);
    free(key->name);
    memset(key, 0, sizeof(*key));
}

jv_reg_tree *jv_reg_tree_create(void)
{
    return calloc(1, sizeof(jv_reg_tree));
}

void jv_reg_tree_free(jv_reg_tree *tree)
{
    if (!tree)
        return;
    key_clear(&tree->roots[PLAT_HKLM]);
    key_clear(&tree->roots[PLAT_HKCU]);
    free(tree);
}

/* Index of the subkey named name[0..len), or where it would be inserted (*found 0). */
static size_t subkey_index(const jv_reg_key *key, const char *name, size_t len, int *found)
{
    size_t lo = 0, hi = key->subkey_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *mid_name = key->subkeys[mid]->name;
        int c = regfile_name_compare(name, len, mid_name, strlen(mid_name));
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    *found = 0;
    return lo;
}

/*
 * array (of count elements) with room for one more: it grows by doubling, its capacity implied
 * by the count (4, 8, 16, ...), so that a key of many subkeys or values is built in linear time.
 * NULL when out of memory (the array is as it was).
 */
static void *room_for_one(void *array, size_t count, size_t size)
{
    if (count >= 4 ? count & (count - 1) : count != 0)
        return array; /* not full: only a count of 0 or a power of two from 4 on is */
    return realloc(array, (count ? 2 * count : 4) * size);
}

/* The subkey named name[0..len); created when missing and `create`; NULL when absent or out of memory. */
static jv_reg_key *subkey(jv_reg_key *key, const char *name, size_t len, int create)
{
    int found;
    size_t at = subkey_index(key, name, len, &found);
    if (found)
        return key->subkeys[at];
    if (!create)
        return NULL;
    jv_reg_key *child = calloc(1, sizeof(*child));
    jv_reg_key **subkeys = room_for_one(key->subkeys, key->subkey_count, sizeof(*subkeys));
    if (subkeys)
        key->subkeys = subkeys;
    if (!child || !subkeys || !(child->name = regfile_copy_text(name, len))) {
        free(child);
        return NULL;
    }
    memmove(subkeys + at + 1, subkeys + at, (key->subkey_count - at) * sizeof(*subkeys));
    subkeys[at] = child;
    key->subkey_count++;
    return child;
}

int regfile_path_valid(const char *path, size_t len)
{
    if (len == 0)
        return 1;
    if (path[0] == '\\' || path[len - 1] == '\\')
        return 0;
    for (size_t i = 0; i < len; i++)
        if ((path[i] == '\\' && path[i + 1] == '\\') || path[i] == '\r' || path[i] == '\n')
            return 0;
    return 1;
}

jv_reg_key *regfile_walk(jv_reg_key *from, const char *path, size_t len, int create)
{
    jv_reg_key *key = from;
    for (size_t start = 0; key && start < len;) {
        const char *sep = memchr(path + start, '\\', len - start);
        size_t end = sep ? (size_t)(sep - path) : len;
        key = subkey(key, path + start, end - start, create);
        start = end + 1;
    }
    return key;
}

jv_reg_key *regfile_classes_of(jv_reg_tree *tree, plat_hive hive, int create)
{
    return regfile_walk(&tree->roots[hive], CLASSES_PATH, strlen(CLASSES_PATH), create);
}

jv_reg_key *regfile_lookup(const jv_reg_tree *tree, plat_hive hive, const char *path, int machine_only)
{
    jv_reg_tree *t = (jv_reg_tree *)tree; /* walk without `create` does not modify */
    size_t len = path ? strlen(path) : 0;
    if (!regfile_path_valid(path ? path : "", len))
        return NULL;
    if (hive != PLAT_HKCR)
        return regfile_walk(&t->roots[hive], path, len, 0);
    jv_reg_key *user = machine_only ? NULL : regfile_classes_of(t, PLAT_HKCU, 0);
    jv_reg_key *found = user ? regfile_walk(user, path, len, 0) : NULL;
    if (found)
        return found;
    jv_reg_key *machine = regfile_classes_of(t, PLAT_HKLM, 0);
    return machine ? regfile_walk(machine, path, len, 0) : NULL;
}

const jv_reg_key *jv_reg_find_key(const jv_reg_tree *tree, plat_hive hive, const char *path)
{
    return regfile_lookup(tree, hive, path, 0);
}

jv_reg_key *regfile_write_root(jv_reg_tree *tree, plat_hive hive)
{
    return hive == PLAT_HKCR ? regfile_classes_of(tree, PLAT_HKLM, 1) : &tree->roots[hive];
}

/*
 * The values' index.  A key's values are kept in the order they were first set (the order
 * regedit writes), which a binary search cannot use: a key of more than INDEXED_FROM values
 * has a hash table of their positions, open-addressed, at most half full.  Without one
 * (few values, or out of memory) the values are scanned.
 */
#define INDEXED_FROM 16

static size_t name_hash(const char *name)
{
    uint64_t hash = 14695981039346656037ull; /* FNV-1a over the folded name (regfile_name_compare's folding) */
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        hash ^= *c >= 'A' && *c <= 'Z' ? *c + 32u : *c;
        hash *= 1099511628211ull;
    }
    return (size_t)(hash ^ hash >> 32);
}

/* Indexes values[position] (the table has room). */
static void index_put(jv_reg_key *key, size_t position)
{
    size_t mask = key->slot_count - 1, i = name_hash(key->values[position].name) & mask;
    while (key->value_slots[i])
        i = (i + 1) & mask;
    key->value_slots[i] = position + 1;
}

/* Makes the index fit the values now there, rebuilt when it is missing, too small or stale (after a
 * deletion moved values); without one when they are few or memory runs out. */
static void index_values(jv_reg_key *key, int stale)
{
    size_t needed = 2 * key->value_count;
    if (!stale && key->value_slots && key->slot_count >= needed) {
        index_put(key, key->value_count - 1); /* just appended */
        return;
    }
    free(key->value_slots);
    key->value_slots = NULL;
    key->slot_count = 0;
    if (key->value_count < INDEXED_FROM)
        return;
    size_t slots = 64;
    while (slots < 2 * needed) /* room to grow before the next rebuild */
        slots *= 2;
    if (!(key->value_slots = calloc(slots, sizeof(*key->value_slots))))
        return;
    key->slot_count = slots;
    for (size_t position = 0; position < key->value_count; position++)
        index_put(key, position);
}

static jv_reg_value *value_in(const jv_reg_key *key, const char *name)
{
    const char *n = name ? name : "";
    size_t len = strlen(n);
    if (!key->value_slots) {
        for (size_t i = 0; i < key->value_count; i++)
            if (regfile_name_compare(key->values[i].name, strlen(key->values[i].name), n, len) == 0)
                return &key->values[i];
        return NULL;
    }
    size_t mask = key->slot_count - 1;
    for (size_t i = name_hash(n) & mask; key->value_slots[i]; i = (i + 1) & mask) {
        jv_reg_value *value = &key->values[key->value_slots[i] - 1];
        if (regfile_name_compare(value->name, strlen(value->name), n, len) == 0)
            return value;
    }
    return NULL;
}

const jv_reg_value *jv_reg_find_value(const jv_reg_key *key, const char *name)
{
    return key ? value_in(key, name) : NULL;
}

int regfile_key_set_value(jv_reg_key *key, const char *name, DWORD type, const void *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    jv_reg_value *value = value_in(key, name);
    if (!value) {
        jv_reg_value *values = room_for_one(key->values, key->value_count, sizeof(*values));
        char *name_copy = regfile_copy_text(name, strlen(name));
        if (values)
            key->values = values;
        if (!values || !name_copy) {
            free(name_copy);
            free(copy);
            return 0;
        }
        value = &key->values[key->value_count++];
        value->name = name_copy;
        value->data = NULL;
        index_values(key, 0);
    }
    free(value->data);
    value->type = type;
    value->data = copy;
    value->size = size;
    return 1;
}

void regfile_key_delete_value(jv_reg_key *key, const char *name)
{
    jv_reg_value *value = value_in(key, name);
    if (!value)
        return;
    free(value->name);
    free(value->data);
    size_t at = (size_t)(value - key->values);
    memmove(value, value + 1, (key->value_count - at - 1) * sizeof(*value));
    key->value_count--;
    index_values(key, 1); /* the values after it moved */
}

int regfile_delete_key(jv_reg_key *root, const char *path, size_t len)
{
    const char *last = path + len;
    while (last > path && last[-1] != '\\')
        last--;
    jv_reg_key *parent = last > path ? regfile_walk(root, path, (size_t)(last - path) - 1, 0) : root;
    int found;
    size_t at = parent ? subkey_index(parent, last, (size_t)(path + len - last), &found) : 0;
    if (!parent || !found)
        return 0;
    key_clear(parent->subkeys[at]);
    free(parent->subkeys[at]);
    memmove(parent->subkeys + at, parent->subkeys + at + 1, (parent->subkey_count - at - 1) * sizeof(jv_reg_key *));
    parent->subkey_count--;
    return 1;
}

/*
 * regfile.c - the registry tree, the .reg parser and the .reg writer (see regfile.h).
 *
 * Sections: growable buffers; UTF-8 / UTF-16LE conversion; the tree (keys, values,
 * paths, the HKEY_CLASSES_ROOT view); typed reading and writing; the parser; the writer.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/regfile.h"

#define HEADER_V5 "Windows Registry Editor Version 5.00"
#define HEADER_V4 "REGEDIT4"
#define CLASSES_PATH "Software\\Classes"

/* ---- Growable buffers ------------------------------------------------------------------- */

/* Bytes or text; data stays NUL-terminated.  After a failed allocation every append is
 * ignored and `failed` is set, so callers check once at the end. */
typedef struct buffer {
    char *data;
    size_t len, cap;
    int failed;
} buffer;

static void buf_add(buffer *b, const void *bytes, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *data = realloc(b->data, cap);
        if (!data) {
            b->failed = 1;
            return;
        }
        b->data = data;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void buf_str(buffer *b, const char *text)
{
    buf_add(b, text, strlen(text));
}

static void buf_byte(buffer *b, unsigned char byte)
{
    buf_add(b, &byte, 1);
}

/* ---- UTF-8 and UTF-16LE --------------------------------------------------------------- */

/* Decodes the code point at s[*i] (of n bytes) and advances *i; 0 when the bytes there are
 * not well-formed UTF-8 (truncated, overlong, a surrogate, beyond U+10FFFF). */
static int utf8_next(const unsigned char *s, size_t n, size_t *i, uint32_t *cp)
{
    unsigned char c = s[*i];
    size_t extra;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        (*i)++;
        return 1;
    }
    if ((c & 0xE0) == 0xC0)
        extra = 1, v = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0)
        extra = 2, v = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0)
        extra = 3, v = c & 0x07, min = 0x10000;
    else
        return 0;
    if (n - *i <= extra)
        return 0;
    for (size_t k = 1; k <= extra; k++) {
        if ((s[*i + k] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[*i + k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    *i += extra + 1;
    return 1;
}

static int utf8_valid(const char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n;)
        if (!utf8_next((const unsigned char *)s, n, &i, &cp))
            return 0;
    return 1;
}

static void utf8_put(buffer *out, uint32_t cp)
{
    static const unsigned char lead[] = {0, 0x00, 0xC0, 0xE0, 0xF0}; /* by sequence length */
    unsigned char bytes[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (size_t k = n - 1; k > 0; k--, cp >>= 6)
        bytes[k] = (unsigned char)(0x80 | (cp & 0x3F));
    bytes[0] = (unsigned char)(lead[n] | cp);
    buf_add(out, bytes, n);
}

static void utf16_put(buffer *out, uint32_t unit)
{
    buf_byte(out, (unsigned char)(unit & 0xFF));
    buf_byte(out, (unsigned char)(unit >> 8));
}

/* A REG_DWORD's bytes: little-endian, whatever the machine. */
static void dword_put(buffer *out, uint32_t value)
{
    for (int shift = 0; shift < 32; shift += 8)
        buf_byte(out, (unsigned char)(value >> shift));
}

/* Appends well-formed UTF-8 (checked by the caller) as UTF-16LE, without a NUL. */
static void utf8_to_utf16le(buffer *out, const char *s, size_t n)
{
    uint32_t cp;
    for (size_t i = 0; i < n && utf8_next((const unsigned char *)s, n, &i, &cp);) {
        if (cp >= 0x10000) {
            utf16_put(out, 0xD800 | (cp - 0x10000) >> 10);
            utf16_put(out, 0xDC00 | (cp & 0x3FF));
        } else {
            utf16_put(out, cp);
        }
    }
}

/*
 * Appends `units` UTF-16LE code units as UTF-8.  A lone surrogate becomes U+FFFD when
 * lenient, and makes the conversion fail (returning 0) when strict.
 */
static int utf16le_to_utf8(buffer *out, const unsigned char *s, size_t units, int strict)
{
    for (size_t i = 0; i < units; i++) {
        uint32_t u = s[2 * i] | (uint32_t)s[2 * i + 1] << 8;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            uint32_t low = s[2 * i + 2] | (uint32_t)s[2 * i + 3] << 8;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                utf8_put(out, 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                i++;
                continue;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF) {
            if (strict)
                return 0;
            u = 0xFFFD;
        }
        utf8_put(out, u);
    }
    return 1;
}

/* ---- The tree ----------------------------------------------------------------------------- */

struct jv_reg_tree {
    jv_reg_key roots[2]; /* PLAT_HKLM, PLAT_HKCU */
};

/* Folds ASCII letters only (see regfile.h), whatever the locale, unlike strcasecmp. */
static int name_compare(const char *a, size_t a_len, const char *b, size_t b_len)
{
    for (size_t i = 0; i < a_len && i < b_len; i++) {
        int ca = (unsigned char)a[i], cb = (unsigned char)b[i];
        ca = ca >= 'A' && ca <= 'Z' ? ca + 32 : ca;
        cb = cb >= 'A' && cb <= 'Z' ? cb + 32 : cb;
        if (ca != cb)
            return ca - cb;
    }
    return a_len < b_len ? -1 : a_len > b_len;
}

static char *copy_text(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

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
        int c = name_compare(name, len, mid_name, strlen(mid_name));
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
    if (!child || !subkeys || !(child->name = copy_text(name, len))) {
        free(child);
        return NULL;
    }
    memmove(subkeys + at + 1, subkeys + at, (key->subkey_count - at) * sizeof(*subkeys));
    subkeys[at] = child;
    key->subkey_count++;
    return child;
}

/* Whether path[0..len) is "" or backslash-separated non-empty names without line breaks. */
static int path_valid(const char *path, size_t len)
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

/* The key at path[0..len) below from (valid path); created when `create`. */
static jv_reg_key *walk(jv_reg_key *from, const char *path, size_t len, int create)
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

/* The hive's Software\Classes key, the home of HKEY_CLASSES_ROOT's keys. */
static jv_reg_key *classes_of(jv_reg_tree *tree, plat_hive hive, int create)
{
    return walk(&tree->roots[hive], CLASSES_PATH, strlen(CLASSES_PATH), create);
}

/*
 * The key at path as a reader sees it: in HKLM or HKCU directly; for PLAT_HKCR the key
 * under HKCU\Software\Classes when it exists there, else the one under HKLM's.
 * machine_only skips the user's classes (to list the subkeys of both).
 */
static jv_reg_key *lookup(const jv_reg_tree *tree, plat_hive hive, const char *path, int machine_only)
{
    jv_reg_tree *t = (jv_reg_tree *)tree; /* walk without `create` does not modify */
    size_t len = path ? strlen(path) : 0;
    if (!path_valid(path ? path : "", len))
        return NULL;
    if (hive != PLAT_HKCR)
        return walk(&t->roots[hive], path, len, 0);
    jv_reg_key *user = machine_only ? NULL : classes_of(t, PLAT_HKCU, 0);
    jv_reg_key *found = user ? walk(user, path, len, 0) : NULL;
    if (found)
        return found;
    jv_reg_key *machine = classes_of(t, PLAT_HKLM, 0);
    return machine ? walk(machine, path, len, 0) : NULL;
}

const jv_reg_key *jv_reg_find_key(const jv_reg_tree *tree, plat_hive hive, const char *path)
{
    return lookup(tree, hive, path, 0);
}

/* Where writes to hive go: HKCR is HKLM\Software\Classes. */
static jv_reg_key *write_root(jv_reg_tree *tree, plat_hive hive)
{
    return hive == PLAT_HKCR ? classes_of(tree, PLAT_HKLM, 1) : &tree->roots[hive];
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
    uint64_t hash = 14695981039346656037ull; /* FNV-1a over the folded name (name_compare's folding) */
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
            if (name_compare(key->values[i].name, strlen(key->values[i].name), n, len) == 0)
                return &key->values[i];
        return NULL;
    }
    size_t mask = key->slot_count - 1;
    for (size_t i = name_hash(n) & mask; key->value_slots[i]; i = (i + 1) & mask) {
        jv_reg_value *value = &key->values[key->value_slots[i] - 1];
        if (name_compare(value->name, strlen(value->name), n, len) == 0)
            return value;
    }
    return NULL;
}

const jv_reg_value *jv_reg_find_value(const jv_reg_key *key, const char *name)
{
    return key ? value_in(key, name) : NULL;
}

/* Sets or replaces a value of key; the data is copied.  0 when out of memory. */
static int key_set_value(jv_reg_key *key, const char *name, DWORD type, const void *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    jv_reg_value *value = value_in(key, name);
    if (!value) {
        jv_reg_value *values = room_for_one(key->values, key->value_count, sizeof(*values));
        char *name_copy = copy_text(name, strlen(name));
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

static void key_delete_value(jv_reg_key *key, const char *name)
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

/* Deletes the key at path[0..len) (valid, not empty) below root; 0 when there is none. */
static int delete_key(jv_reg_key *root, const char *path, size_t len)
{
    const char *last = path + len;
    while (last > path && last[-1] != '\\')
        last--;
    jv_reg_key *parent = last > path ? walk(root, path, (size_t)(last - path) - 1, 0) : root;
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

/* ---- Typed reading and writing ------------------------------------------------------------ */

static const char *const hive_names[] = {"HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER", "HKEY_CLASSES_ROOT"};

plat_reg_status jv_reg_get_string(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  char **value)
{
    path = path ? path : "";
    const jv_reg_value *v = jv_reg_find_value(lookup(tree, hive, path, 0), name);
    if (!v)
        return PLAT_REG_NOT_FOUND;
    if (v->type != JV_REG_SZ)
        return PLAT_REG_WRONG_TYPE;
    /* As far as the first NUL, as a C string reader of the Windows value sees it. */
    size_t units = 0;
    while (units < v->size / 2 && (v->data[2 * units] || v->data[2 * units + 1]))
        units++;
    buffer text = {0};
    buf_add(&text, "", 0);
    utf16le_to_utf8(&text, v->data, units, 0);
    if (text.failed) {
        free(text.data);
        jv_log("registry: out of memory reading %s\\%s", hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    *value = text.data;
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_get_dword(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                 DWORD *value)
{
    const jv_reg_value *v = jv_reg_find_value(lookup(tree, hive, path, 0), name);
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
        while (k < *count && name_compare((*names)[k], strlen((*names)[k]), name, strlen(name)) != 0)
            k++;
        if (k < *count)
            continue;
        char **grown = realloc(*names, (*count + 1) * sizeof(char *));
        if (!grown)
            return 0;
        *names = grown;
        if (!(grown[*count] = copy_text(name, strlen(name))))
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
    return name_compare(x, strlen(x), y, strlen(y));
}

plat_reg_status jv_reg_subkeys(const jv_reg_tree *tree, plat_hive hive, const char *path, char ***names,
                               size_t *count)
{
    path = path ? path : "";
    const jv_reg_key *key = lookup(tree, hive, path, 0);
    const jv_reg_key *machine_classes = hive == PLAT_HKCR ? lookup(tree, hive, path, 1) : NULL;
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
        jv_log("registry: out of memory listing %s\\%s", hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_set_value(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD type,
                                 const void *data, size_t size)
{
    const char *value_name = name ? name : "";
    path = path ? path : "";
    if (!path_valid(path, strlen(path)) || strpbrk(value_name, "\r\n")) {
        jv_log("registry: cannot write %s\\%s value \"%s\": the key path has an empty part or a line break, or "
               "the value name a line break",
               hive_names[hive], path, value_name);
        return PLAT_REG_ERROR;
    }
    jv_reg_key *root = write_root(tree, hive);
    jv_reg_key *key = root ? walk(root, path, strlen(path), 1) : NULL;
    if (!key || !key_set_value(key, value_name, type, data, size)) {
        jv_log("registry: out of memory writing %s\\%s", hive_names[hive], path);
        return PLAT_REG_ERROR;
    }
    return PLAT_REG_OK;
}

plat_reg_status jv_reg_set_string(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  const char *value)
{
    path = path ? path : "";
    if (!value || !utf8_valid(value, strlen(value))) {
        jv_log("registry: cannot write %s\\%s value \"%s\": %s", hive_names[hive], path, name ? name : "",
               value ? "the text is not UTF-8" : "no text (NULL)");
        return PLAT_REG_ERROR;
    }
    buffer utf16 = {0};
    utf8_to_utf16le(&utf16, value, strlen(value));
    utf16_put(&utf16, 0);
    plat_reg_status status = utf16.failed ? PLAT_REG_ERROR
                                          : jv_reg_set_value(tree, hive, path, name, JV_REG_SZ, utf16.data, utf16.len);
    if (utf16.failed)
        jv_log("registry: out of memory writing %s\\%s", hive_names[hive], path);
    free(utf16.data);
    return status;
}

plat_reg_status jv_reg_set_dword(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD value)
{
    path = path ? path : "";
    buffer le = {0};
    dword_put(&le, value);
    plat_reg_status status =
        le.failed ? PLAT_REG_ERROR : jv_reg_set_value(tree, hive, path, name, JV_REG_DWORD, le.data, le.len);
    if (le.failed)
        jv_log("registry: out of memory writing %s\\%s", hive_names[hive], path);
    free(le.data);
    return status;
}

plat_reg_status jv_reg_delete_tree(jv_reg_tree *tree, plat_hive hive, const char *path)
{
    path = path ? path : "";
    size_t len = strlen(path);
    if (len == 0 || !path_valid(path, len)) {
        jv_log("registry: cannot delete %s\\%s: %s", hive_names[hive], path,
               len ? "the key path has an empty part" : "a hive itself cannot be deleted");
        return PLAT_REG_ERROR;
    }
    jv_reg_key *root = hive == PLAT_HKCR ? classes_of(tree, PLAT_HKLM, 0) : &tree->roots[hive];
    return root && delete_key(root, path, len) ? PLAT_REG_OK : PLAT_REG_NOT_FOUND;
}

/* ---- The parser ------------------------------------------------------------------------------ */

typedef struct parser {
    jv_reg_tree *tree;
    const char *file;
    unsigned hives;
    int regedit4;       /* string-typed hex data is 8-bit text, not UTF-16LE */
    const char *text;   /* the file as UTF-8 */
    size_t len, pos;
    unsigned line_no;   /* of the line read last */
    unsigned errors;
    int quiet;          /* count errors without saying them */
    unsigned said;      /* errors said: after JV_REG_ERRORS_SAID, only their number is */
    jv_reg_key *key;    /* where value lines go */
    enum { NO_KEY, IN_KEY, SKIPPING_KEY } state;
} parser;

static void parse_error(parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void parse_error(parser *p, const char *fmt, ...)
{
    char cause[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cause, sizeof(cause), fmt, ap);
    va_end(ap);
    if (!p->quiet && p->said < JV_REG_ERRORS_SAID) {
        jv_log("%s:%u: %s", p->file, p->line_no, cause);
        p->said++;
    }
    p->errors++;
}

/* The next physical line, without its line break; 0 at the end of the file. */
static int next_line(parser *p, const char **line, size_t *len)
{
    if (p->pos >= p->len)
        return 0;
    const char *start = p->text + p->pos;
    const char *nl = memchr(start, '\n', p->len - p->pos);
    size_t n = nl ? (size_t)(nl - start) : p->len - p->pos;
    p->pos += n + (nl != NULL);
    if (n && start[n - 1] == '\r')
        n--;
    p->line_no++;
    *line = start;
    *len = n;
    return 1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Trims spaces and tabs on both ends of s[0..*len); returns the new start. */
static const char *trim(const char *s, size_t *len)
{
    while (*len && is_blank(*s))
        s++, (*len)--;
    while (*len && is_blank(s[*len - 1]))
        (*len)--;
    return s;
}

static int starts_with_nocase(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && name_compare(s, n, prefix, n) == 0;
}

static const struct {
    const char *name;
    plat_hive hive;
} hive_prefixes[] = {
    {"HKEY_LOCAL_MACHINE", PLAT_HKLM}, {"HKLM", PLAT_HKLM}, {"HKEY_CURRENT_USER", PLAT_HKCU},
    {"HKCU", PLAT_HKCU},               {"HKEY_CLASSES_ROOT", PLAT_HKCR}, {"HKCR", PLAT_HKCR},
};

/* [HIVE\path] or [-HIVE\path]: line starts with '['. */
static void parse_key_line(parser *p, const char *line, size_t len)
{
    const char *close = line + len - 1; /* the last ']': key names may hold one */
    while (close > line && *close != ']')
        close--;
    p->key = NULL;
    p->state = SKIPPING_KEY;
    if (close == line) {
        parse_error(p, "key line has no closing ']'; its values are skipped");
        return;
    }
    const char *inner = line + 1;
    size_t inner_len = (size_t)(close - inner);
    if (memchr(inner, '\0', inner_len)) { /* names are C strings: the NUL would cut the path short */
        parse_error(p, "key path holds a NUL byte; its values are skipped");
        return;
    }
    int deleting = inner_len && *inner == '-';
    if (deleting)
        inner++, inner_len--;
    const char *sep = memchr(inner, '\\', inner_len);
    size_t hive_len = sep ? (size_t)(sep - inner) : inner_len;
    size_t h = 0;
    while (h < sizeof(hive_prefixes) / sizeof(*hive_prefixes) &&
           name_compare(inner, hive_len, hive_prefixes[h].name, strlen(hive_prefixes[h].name)) != 0)
        h++;
    if (h == sizeof(hive_prefixes) / sizeof(*hive_prefixes)) {
        parse_error(p, "unknown hive \"%.*s\" (HKEY_LOCAL_MACHINE, HKEY_CURRENT_USER or HKEY_CLASSES_ROOT); "
                    "its values are skipped", (int)hive_len, inner);
        return;
    }
    plat_hive hive = hive_prefixes[h].hive;
    if (!(p->hives & JV_REG_HIVE_BIT(hive))) {
        parse_error(p, "%s keys do not belong in this file; skipped with their values", hive_names[hive]);
        return;
    }
    size_t trailing = (size_t)(line + len - close - 1);
    trim(close + 1, &trailing);
    if (trailing) {
        parse_error(p, "text after the key's closing ']'; its values are skipped");
        return;
    }
    char *path = sep ? copy_text(sep + 1, inner_len - hive_len - 1) : copy_text("", 0);
    if (!path) {
        parse_error(p, "out of memory");
        return;
    }
    if ((sep && !*path) || !path_valid(path, strlen(path))) {
        parse_error(p, "key path has an empty part (a doubled or trailing backslash); its values are skipped");
    } else if (deleting && !*path) {
        parse_error(p, "a hive itself cannot be deleted; line skipped with the values under it");
    } else if (deleting) {
        jv_reg_delete_tree(p->tree, hive, path); /* deleting a missing key is no error */
        p->state = NO_KEY;
    } else {
        jv_reg_key *root = write_root(p->tree, hive);
        p->key = root ? walk(root, path, strlen(path), 1) : NULL;
        if (p->key)
            p->state = IN_KEY;
        else
            parse_error(p, "out of memory");
    }
    free(path);
}

/* A quoted string at s[*i] (s[*i] is '"'): unescapes \\ and \" into out; advances past the
 * closing quote.  0 (error reported) when malformed. */
static int parse_quoted(parser *p, const char *s, size_t len, size_t *i, buffer *out)
{
    buf_add(out, "", 0);
    for ((*i)++; *i < len; (*i)++) {
        char c = s[*i];
        if (c == '"') {
            (*i)++;
            return 1;
        }
        if (c == '\\') {
            if (++*i == len)
                break;
            if (s[*i] != '\\' && s[*i] != '"') {
                parse_error(p, "unknown escape \\%c in a string (only \\\\ and \\\" are known); line skipped", s[*i]);
                return 0;
            }
            c = s[*i];
        }
        buf_byte(out, (unsigned char)c);
    }
    parse_error(p, "string has no closing quote; line skipped");
    return 0;
}

/*
 * The bytes of hex data starting at s[0..len): "xx,xx,..." where a trailing backslash
 * continues the list on the next line.  0 (error reported) when malformed.
 */
static int parse_hex_bytes(parser *p, const char *s, size_t len, buffer *out)
{
    int expect_byte = 0; /* after a comma */
    for (;;) {
        size_t i = 0;
        while (i < len) {
            if (is_blank(s[i])) {
                i++;
            } else if (s[i] == '\\') {
                size_t rest = len - i - 1;
                trim(s + i + 1, &rest);
                if (rest) {
                    parse_error(p, "text after the line-continuing backslash; line skipped");
                    return 0;
                }
                break;
            } else if (s[i] == ',') {
                if (expect_byte || out->len == 0) {
                    parse_error(p, "hex data has an empty byte (a comma too many); line skipped");
                    return 0;
                }
                expect_byte = 1;
                i++;
            } else {
                size_t token = 0;
                while (i + token < len && !is_blank(s[i + token]) && s[i + token] != ',' && s[i + token] != '\\')
                    token++;
                if (token != 2 || jv_hex_digit(s[i]) < 0 || jv_hex_digit(s[i + 1]) < 0) {
                    parse_error(p, "hex byte \"%.*s\" is not 2 hex digits; line skipped", (int)token, s + i);
                    return 0;
                }
                if (out->len && !expect_byte) {
                    parse_error(p, "hex bytes must be separated by commas; line skipped");
                    return 0;
                }
                buf_byte(out, (unsigned char)(jv_hex_digit(s[i]) << 4 | jv_hex_digit(s[i + 1])));
                expect_byte = 0;
                i += 2;
            }
        }
        if (i == len) /* no continuation */
            break;
        if (!next_line(p, &s, &len)) {
            parse_error(p, "hex data continues past the end of the file; value skipped");
            return 0;
        }
    }
    if (expect_byte) {
        parse_error(p, "hex data ends with a comma; line skipped");
        return 0;
    }
    return 1;
}

/* The type and bytes of `data` (text after '='), into *type and out.  0 (error reported) when malformed. */
static int parse_data(parser *p, const char *data, size_t len, DWORD *type, buffer *out)
{
    buf_add(out, "", 0);
    if (*data == '"') {
        size_t i = 0, rest;
        buffer text = {0};
        int ok = parse_quoted(p, data, len, &i, &text);
        rest = len - i;
        trim(data + i, &rest);
        if (ok && rest) {
            parse_error(p, "text after the closing quote of a string; line skipped");
            ok = 0;
        }
        if (ok) {
            utf8_to_utf16le(out, text.data, text.len);
            utf16_put(out, 0);
            *type = JV_REG_SZ;
        }
        free(text.data);
        return ok;
    }
    if (starts_with_nocase(data, len, "dword:")) {
        size_t digits = len - 6;
        const char *hex = trim(data + 6, &digits);
        uint32_t v = 0;
        int ok = digits == 8;
        for (size_t i = 0; ok && i < digits; i++) {
            ok = jv_hex_digit(hex[i]) >= 0;
            v = v << 4 | (uint32_t)(jv_hex_digit(hex[i]) & 0xF);
        }
        if (!ok) {
            parse_error(p, "dword value is not 8 hex digits; line skipped");
            return 0;
        }
        dword_put(out, v);
        *type = JV_REG_DWORD;
        return 1;
    }
    if (starts_with_nocase(data, len, "hex:")) {
        *type = JV_REG_BINARY;
        return parse_hex_bytes(p, data + 4, len - 4, out);
    }
    if (starts_with_nocase(data, len, "hex(")) {
        const char *close = memchr(data, ')', len);
        size_t digits = close ? (size_t)(close - data) - 4 : 0;
        uint32_t n = 0;
        int ok = close && digits >= 1 && digits <= 8 && close + 1 < data + len && close[1] == ':';
        for (size_t i = 0; ok && i < digits; i++) {
            ok = jv_hex_digit(data[4 + i]) >= 0;
            n = n << 4 | (uint32_t)(jv_hex_digit(data[4 + i]) & 0xF);
        }
        if (!ok) {
            parse_error(p, "hex(n): needs a type n of 1 to 8 hex digits, then a colon; line skipped");
            return 0;
        }
        *type = (DWORD)n;
        size_t offset = (size_t)(close + 2 - data);
        if (!parse_hex_bytes(p, close + 2, len - offset, out))
            return 0;
        if (p->regedit4 && (n == JV_REG_SZ || n == JV_REG_EXPAND_SZ || n == JV_REG_MULTI_SZ)) {
            /* REGEDIT4 writes string types as 8-bit text; the tree holds UTF-16LE. */
            if (!utf8_valid(out->data, out->len)) {
                parse_error(p, "hex(%lx) text is not UTF-8; line skipped", (unsigned long)n);
                return 0;
            }
            buffer wide = {0};
            utf8_to_utf16le(&wide, out->data, out->len);
            free(out->data);
            *out = wide;
            buf_add(out, "", 0);
        }
        return 1;
    }
    parse_error(p, "unknown value type (expected \"text\", dword:, hex: or hex(n):, or - to delete); line skipped");
    return 0;
}

/* @=data or "name"=data; line starts with '@' or '"'. */
static void parse_value_line(parser *p, const char *line, size_t len)
{
    buffer name = {0}, data = {0};
    size_t i = 0;
    if (p->state == SKIPPING_KEY)
        return; /* reported at the key line */
    if (p->state == NO_KEY) {
        parse_error(p, "value line before any key, or after a key deletion; skipped");
        return;
    }
    if (*line == '@') {
        buf_add(&name, "", 0);
        i = 1;
    } else if (!parse_quoted(p, line, len, &i, &name)) {
        goto done;
    } else if (memchr(name.data, '\0', name.len)) {
        parse_error(p, "value name holds a NUL byte; line skipped");
        goto done;
    }
    while (i < len && is_blank(line[i]))
        i++;
    if (i == len || line[i] != '=') {
        parse_error(p, "value name is not followed by '='; line skipped");
        goto done;
    }
    size_t rest = len - i - 1;
    const char *value = trim(line + i + 1, &rest);
    if (rest == 0) {
        parse_error(p, "value has no data after '='; line skipped");
        goto done;
    }
    if (rest == 1 && *value == '-') {
        key_delete_value(p->key, name.data);
        goto done;
    }
    DWORD type;
    if (!parse_data(p, value, rest, &type, &data))
        goto done;
    if (name.failed || data.failed || !key_set_value(p->key, name.data, type, data.data, data.len))
        parse_error(p, "out of memory");
done:
    free(name.data);
    free(data.data);
}

/* The file as UTF-8 text in out (BOM removed); 0 (error reported) when it cannot be read as a .reg file. */
static int decode_file(parser *p, const unsigned char *bytes, size_t size, buffer *out)
{
    buf_add(out, "", 0);
    if (size >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE) {
        if (size % 2 || !utf16le_to_utf8(out, bytes + 2, (size - 2) / 2, 1)) {
            parse_error(p, "file starts with a UTF-16LE byte order mark but is not valid UTF-16LE; file ignored");
            return 0;
        }
        return 1;
    }
    if (size >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF) {
        parse_error(p, "file is UTF-16 big-endian, which regedit does not write; file ignored");
        return 0;
    }
    if (size >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF)
        bytes += 3, size -= 3;
    buf_add(out, bytes, size);
    return 1;
}

static unsigned parse_file(jv_reg_tree *tree, const char *file_name, const void *data, size_t size, unsigned hives,
                           int quiet)
{
    parser p = {tree, file_name, hives, 0, NULL, 0, 0, 0, 0, quiet, 0, NULL, NO_KEY};
    buffer text = {0};
    const char *line;
    size_t len;

    p.line_no = 1; /* file-level errors are reported at line 1 */
    if (size > JV_REG_MAX_FILE_SIZE) {
        parse_error(&p, "file is %llu bytes, more than the %u MiB a registry file may have; file ignored",
                    (unsigned long long)size,
                    JV_REG_MAX_FILE_SIZE >> 20);
        return p.errors;
    }
    if (!decode_file(&p, data, size, &text) || text.failed) {
        if (text.failed)
            parse_error(&p, "out of memory; file ignored");
        free(text.data);
        return p.errors;
    }
    p.text = text.data;
    p.len = text.len;
    p.line_no = 0;
    if (next_line(&p, &line, &len))
        line = trim(line, &len);
    else
        len = 0;
    p.regedit4 = len == strlen(HEADER_V4) && memcmp(line, HEADER_V4, len) == 0;
    if (!p.regedit4 && !(len == strlen(HEADER_V5) && memcmp(line, HEADER_V5, len) == 0)) {
        p.line_no = 1;
        parse_error(&p, "not a registry file: the first line must be \"" HEADER_V5 "\" or \"" HEADER_V4
                        "\"; file ignored");
        free(text.data);
        return p.errors;
    }
    while (next_line(&p, &line, &len)) {
        if (!utf8_valid(line, len)) {
            parse_error(&p, "line is not valid UTF-8; skipped");
            continue;
        }
        line = trim(line, &len);
        if (len == 0 || *line == ';')
            continue;
        if (*line == '[')
            parse_key_line(&p, line, len);
        else if (*line == '@' || *line == '"')
            parse_value_line(&p, line, len);
        else
            parse_error(&p, "not a [key], a \"value\"=, @= or a ; comment; line skipped");
    }
    free(text.data);
    if (p.errors > p.said && !quiet)
        jv_log("%s: %u more malformed lines not shown (only the first %u are)", file_name, p.errors - p.said,
               p.said);
    return p.errors;
}

unsigned jv_reg_parse(jv_reg_tree *tree, const char *file_name, const void *data, size_t size, unsigned hives)
{
    return parse_file(tree, file_name, data, size, hives, 0);
}

unsigned jv_reg_parse_quietly(jv_reg_tree *tree, const char *file_name, const void *data, size_t size,
                              unsigned hives)
{
    return parse_file(tree, file_name, data, size, hives, 1);
}

/* ---- The writer -------------------------------------------------------------------------------- */

/* name or text between quotes, with \ and " escaped. */
static void write_quoted(buffer *out, const char *text)
{
    buf_byte(out, '"');
    for (const char *c = text; *c; c++) {
        if (*c == '\\' || *c == '"')
            buf_byte(out, '\\');
        buf_byte(out, (unsigned char)*c);
    }
    buf_byte(out, '"');
}

/* A REG_SZ as "text" when that reads back as the same bytes: one NUL, at the end, valid
 * UTF-16, no line break.  Returns 0 (nothing written) otherwise. */
static int write_plain_string(buffer *out, const jv_reg_value *value)
{
    size_t units = value->size / 2;
    if (value->size % 2 || units == 0 || value->data[value->size - 1] || value->data[value->size - 2])
        return 0;
    buffer text = {0};
    buf_add(&text, "", 0);
    int plain = utf16le_to_utf8(&text, value->data, units - 1, 1) && !text.failed &&
                strlen(text.data) == text.len && !strpbrk(text.data, "\r\n");
    if (plain)
        write_quoted(out, text.data);
    free(text.data);
    return plain;
}

/* hex:xx,xx or hex(n):xx,xx, wrapped as regedit wraps: ",\" and two spaces. */
static void write_hex(buffer *out, const jv_reg_value *value, size_t column)
{
    char prefix[24];
    if (value->type == JV_REG_BINARY)
        snprintf(prefix, sizeof(prefix), "hex:");
    else
        snprintf(prefix, sizeof(prefix), "hex(%lx):", (unsigned long)value->type);
    buf_str(out, prefix);
    column += strlen(prefix);
    for (size_t i = 0; i < value->size; i++) {
        char byte[4];
        snprintf(byte, sizeof(byte), "%02x%s", value->data[i], i + 1 < value->size ? "," : "");
        buf_str(out, byte);
        column += strlen(byte);
        if (column > 76 && i + 1 < value->size) {
            buf_str(out, "\\\n  ");
            column = 2;
        }
    }
}

static void write_value(buffer *out, const jv_reg_value *value)
{
    size_t start = out->len;
    if (*value->name)
        write_quoted(out, value->name);
    else
        buf_byte(out, '@');
    buf_byte(out, '=');
    if (value->type == JV_REG_DWORD && value->size == 4) {
        char dword[16];
        snprintf(dword, sizeof(dword), "dword:%02x%02x%02x%02x", value->data[3], value->data[2], value->data[1],
                 value->data[0]);
        buf_str(out, dword);
    } else if (value->type != JV_REG_SZ || !write_plain_string(out, value)) {
        write_hex(out, value, out->len - start);
    }
    buf_byte(out, '\n');
}

/* The key at path (its full name, hive included) and everything below it.  Intermediate keys
 * are written too, even empty, since an empty key is a key that exists. */
static void write_key(buffer *out, const jv_reg_key *key, buffer *path, int is_root)
{
    if (!is_root || key->value_count) {
        buf_byte(out, '[');
        buf_add(out, path->data, path->len);
        buf_str(out, "]\n");
        for (size_t i = 0; i < key->value_count; i++) /* the default value first, as regedit writes it */
            if (!*key->values[i].name)
                write_value(out, &key->values[i]);
        for (size_t i = 0; i < key->value_count; i++)
            if (*key->values[i].name)
                write_value(out, &key->values[i]);
        buf_byte(out, '\n');
    }
    for (size_t i = 0; i < key->subkey_count; i++) {
        size_t path_len = path->len;
        buf_byte(path, '\\');
        buf_str(path, key->subkeys[i]->name);
        write_key(out, key->subkeys[i], path, 0);
        path->len = path_len;
        if (path->data)
            path->data[path_len] = '\0';
    }
}

char *jv_reg_write(const jv_reg_tree *tree, plat_hive hive, size_t *size)
{
    buffer out = {0}, path = {0};
    if (hive == PLAT_HKCR)
        hive = PLAT_HKLM; /* where the classes are kept */
    buf_str(&out, HEADER_V5 "\n\n");
    buf_str(&path, hive_names[hive]);
    write_key(&out, &tree->roots[hive], &path, 1);
    free(path.data);
    if (out.failed || path.failed) {
        free(out.data);
        return NULL;
    }
    *size = out.len;
    return out.data;
}

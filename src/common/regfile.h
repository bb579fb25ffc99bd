/*
 * regfile.h - the registry kept in regedit-format files: an in-memory tree of hives,
 * keys and typed values, a parser that merges .reg files into it and a writer that
 * turns a hive back into a file.
 *
 * The tree holds two hives, HKEY_LOCAL_MACHINE and HKEY_CURRENT_USER.
 * HKEY_CLASSES_ROOT is a view: read, it is HKCU\Software\Classes over
 * HKLM\Software\Classes (a key found under HKCU wins as a whole, subkey lists are
 * the union); written or deleted, it is HKLM\Software\Classes.  A .reg file's
 * [HKEY_CLASSES_ROOT\...] keys therefore land in HKLM\Software\Classes.
 *
 * Values are stored as Windows stores them: a type and bytes, strings in UTF-16LE
 * with their terminating NUL, DWORDs little-endian.  Key and value names are UTF-8,
 * compared case-insensitively (ASCII letters only, as they are the only ones the
 * registry's users put in names), and keep the case they were created with.
 * Subkeys are kept in case-insensitive order, which is the order the registry
 * enumerates them; values in the order they were first set.
 *
 * Pure C11 with no I/O beyond jv_log: the POSIX layer reads and writes the files.
 * Implemented by concern in regfile_tree.c (the tree), regfile_access.c (typed reading and
 * writing), regfile_parse.c (the parser), regfile_write.c (the writer) and regfile_text.c
 * (buffers and UTF conversions they share); regfile_internal.h is theirs alone.
 */
#ifndef JEVMON_COM_REGFILE_H
#define JEVMON_COM_REGFILE_H

#include <stddef.h>

#include "platform/platform.h"

/* Value types, numbered as Windows numbers them (the n of hex(n):). */
enum {
    JV_REG_NONE = 0,
    JV_REG_SZ = 1,
    JV_REG_EXPAND_SZ = 2,
    JV_REG_BINARY = 3,
    JV_REG_DWORD = 4,
    JV_REG_MULTI_SZ = 7,
    JV_REG_QWORD = 11
};

typedef struct jv_reg_value {
    char *name; /* "" is the key's default value */
    DWORD type;
    unsigned char *data;
    size_t size;
} jv_reg_value;

typedef struct jv_reg_key jv_reg_key;
struct jv_reg_key {
    char *name;
    jv_reg_key **subkeys;
    size_t subkey_count;
    jv_reg_value *values;
    size_t value_count;
    /* Where each value is, by its name's hash (regfile_tree.c), so that a key of many values is read
     * in linear time: positions + 1, 0 for a free slot; NULL for a key of few values. */
    size_t *value_slots;
    size_t slot_count;
};

typedef struct jv_reg_tree jv_reg_tree;

/* An empty tree; NULL when out of memory. */
jv_reg_tree *jv_reg_tree_create(void);
void jv_reg_tree_free(jv_reg_tree *tree);

/* ---- Files ------------------------------------------------------------------------- */
/* The hives a file may hold keys of, as a mask of these bits (PLAT_HKCR: class keys). */
#define JV_REG_HIVE_BIT(hive) (1u << (hive))
#define JV_REG_ALL_HIVES (JV_REG_HIVE_BIT(PLAT_HKLM) | JV_REG_HIVE_BIT(PLAT_HKCU) | JV_REG_HIVE_BIT(PLAT_HKCR))

/*
 * Merges a .reg file, held in memory, into tree; file_name is only used in messages.
 * Reads "Windows Registry Editor Version 5.00" files in UTF-16LE with a BOM or in
 * UTF-8 with or without one, and "REGEDIT4" files (as UTF-8).  Keys of hives not in
 * `hives` are refused.
 *
 * Errors are logged one per line as "<file_name>:<line>: <cause>", the first
 * JV_REG_ERRORS_SAID of a file; one more line counts the rest.  A file larger than
 * JV_REG_MAX_FILE_SIZE (a thousand times what a registry of monitors holds) is refused
 * whole, with one line.  A malformed line
 * is skipped and the rest of the file is still merged: the one bad line costs one
 * setting, not every setting of the file, and the message says which.  Under a
 * malformed or refused key line, the values up to the next key are skipped with it.
 * Only a file that is not a registry file at all (no header, bad encoding) is
 * refused whole.  Returns the number of errors.
 */
#define JV_REG_ERRORS_SAID 20u
#define JV_REG_MAX_FILE_SIZE (4u << 20)
unsigned jv_reg_parse(jv_reg_tree *tree, const char *file_name, const void *data, size_t size, unsigned hives);
/* As jv_reg_parse, saying nothing: for a file whose errors were reported already. */
unsigned jv_reg_parse_quietly(jv_reg_tree *tree, const char *file_name, const void *data, size_t size,
                              unsigned hives);

/*
 * hive (PLAT_HKLM or PLAT_HKCU) as a "Windows Registry Editor Version 5.00" file in
 * UTF-8, which jv_reg_parse reads back into the same keys and values.  Returns the
 * text (NUL-terminated, free() it) and its length in *size; NULL when out of memory.
 */
char *jv_reg_write(const jv_reg_tree *tree, plat_hive hive, size_t *size);

/* ---- Reading ------------------------------------------------------------------------- */
/* Key paths are relative to the hive, separated by backslashes; "" (or NULL) is the hive itself.
 * A value name NULL or "" is the key's default value. */
const jv_reg_key *jv_reg_find_key(const jv_reg_tree *tree, plat_hive hive, const char *path);
const jv_reg_value *jv_reg_find_value(const jv_reg_key *key, const char *name);

/* As plat_reg_get_string: a REG_SZ value as UTF-8 (however the file wrote it). */
plat_reg_status jv_reg_get_string(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  char **value);
/* As plat_reg_get_dword: a REG_DWORD value. */
plat_reg_status jv_reg_get_dword(const jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                 DWORD *value);
/* As plat_reg_subkeys. */
plat_reg_status jv_reg_subkeys(const jv_reg_tree *tree, plat_hive hive, const char *path, char ***names,
                               size_t *count);

/* ---- Writing --------------------------------------------------------------------------- */
/* Each creates the missing keys of path.  PLAT_REG_ERROR (logged) for a malformed path
 * or name (empty path component, line break in a name) and when out of memory. */
plat_reg_status jv_reg_set_value(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD type,
                                 const void *data, size_t size);
plat_reg_status jv_reg_set_string(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name,
                                  const char *value);
plat_reg_status jv_reg_set_dword(jv_reg_tree *tree, plat_hive hive, const char *path, const char *name, DWORD value);
/* Deletes the key and everything below it; PLAT_REG_NOT_FOUND when there is no such key. */
plat_reg_status jv_reg_delete_tree(jv_reg_tree *tree, plat_hive hive, const char *path);

#endif /* JEVMON_COM_REGFILE_H */

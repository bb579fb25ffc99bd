/*
 * regfile_internal.h - what the files of the registry file format share, and nothing outside them
 * uses (common/regfile.h is the one public header):
 *
 *   regfile_text.c    growable byte buffers, UTF-8 / UTF-16LE, names compared as the registry does
 *   regfile_tree.c    the in-memory tree: keys, values and their index, paths, the HKCR view
 *   regfile_access.c  typed reading and writing through paths (jv_reg_get_string, jv_reg_set_dword, ...)
 *   regfile_parse.c   the .reg parser (jv_reg_parse)
 *   regfile_write.c   the .reg writer (jv_reg_write)
 */
#ifndef JEVMON_COM_REGFILE_INTERNAL_H
#define JEVMON_COM_REGFILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/regfile.h"

#define HEADER_V5 "Windows Registry Editor Version 5.00"
#define HEADER_V4 "REGEDIT4"

/* ---- regfile_text.c ---------------------------------------------------------------------- */

/* Bytes or text; data stays NUL-terminated.  After a failed allocation every append is
 * ignored and `failed` is set, so callers check once at the end.  {0} is an empty buffer. */
typedef struct regbuf {
    char *data;
    size_t len, cap;
    int failed;
} regbuf;

void regbuf_add(regbuf *b, const void *bytes, size_t n);
void regbuf_str(regbuf *b, const char *text);
void regbuf_byte(regbuf *b, unsigned char byte);

/* Whether s[0..n) is well-formed UTF-8 (no overlong form, surrogate or code point beyond U+10FFFF). */
int regfile_utf8_valid(const char *s, size_t n);
/* Appends one UTF-16 code unit, little-endian. */
void regfile_utf16_put(regbuf *out, uint32_t unit);
/* A REG_DWORD's bytes: little-endian, whatever the machine. */
void regfile_dword_put(regbuf *out, uint32_t value);
/* Appends well-formed UTF-8 (checked by the caller) as UTF-16LE, without a NUL. */
void regfile_utf8_to_utf16le(regbuf *out, const char *s, size_t n);
/* Appends `units` UTF-16LE code units as UTF-8.  A lone surrogate becomes U+FFFD when
 * lenient, and makes the conversion fail (returning 0) when strict. */
int regfile_utf16le_to_utf8(regbuf *out, const unsigned char *s, size_t units, int strict);

/* Compares names as the registry does: ASCII letters folded (see regfile.h), whatever the
 * locale, unlike strcasecmp.  <0, 0 or >0. */
int regfile_name_compare(const char *a, size_t a_len, const char *b, size_t b_len);
/* text[0..len) as a NUL-terminated copy to free(); NULL when out of memory. */
char *regfile_copy_text(const char *text, size_t len);

/* ---- regfile_tree.c ---------------------------------------------------------------------- */

struct jv_reg_tree {
    jv_reg_key roots[2]; /* PLAT_HKLM, PLAT_HKCU */
};

/* Indexed by plat_hive. */
extern const char *const regfile_hive_names[3];

/* Whether path[0..len) is "" or backslash-separated non-empty names without line breaks. */
int regfile_path_valid(const char *path, size_t len);
/* The key at path[0..len) below from (valid path); created when `create`. */
jv_reg_key *regfile_walk(jv_reg_key *from, const char *path, size_t len, int create);
/* The hive's Software\Classes key, the home of HKEY_CLASSES_ROOT's keys. */
jv_reg_key *regfile_classes_of(jv_reg_tree *tree, plat_hive hive, int create);
/*
 * The key at path as a reader sees it: in HKLM or HKCU directly; for PLAT_HKCR the key
 * under HKCU\Software\Classes when it exists there, else the one under HKLM's.
 * machine_only skips the user's classes (to list the subkeys of both).
 */
jv_reg_key *regfile_lookup(const jv_reg_tree *tree, plat_hive hive, const char *path, int machine_only);
/* Where writes to hive go: HKCR is HKLM\Software\Classes. */
jv_reg_key *regfile_write_root(jv_reg_tree *tree, plat_hive hive);
/* Sets or replaces a value of key; the data is copied.  0 when out of memory. */
int regfile_key_set_value(jv_reg_key *key, const char *name, DWORD type, const void *data, size_t size);
void regfile_key_delete_value(jv_reg_key *key, const char *name);
/* Deletes the key at path[0..len) (valid, not empty) below root; 0 when there is none. */
int regfile_delete_key(jv_reg_key *root, const char *path, size_t len);

#endif /* JEVMON_COM_REGFILE_INTERNAL_H */

/*
 * regfile_parse.c - the .reg parser (jv_reg_parse, see regfile.h): a file's encoding and
 * header, then line by line its [key] lines, "name"=data and @=data lines (strings, dword:,
 * hex:, hex(n): continued over lines) merged into the tree, each malformed line reported at
 * its number and skipped.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/guid.h"
#include "common/regfile_internal.h"

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
    return len >= n && regfile_name_compare(s, n, prefix, n) == 0;
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
           regfile_name_compare(inner, hive_len, hive_prefixes[h].name, strlen(hive_prefixes[h].name)) != 0)
        h++;
    if (h == sizeof(hive_prefixes) / sizeof(*hive_prefixes)) {
        parse_error(p, "unknown hive \"%.*s\" (HKEY_LOCAL_MACHINE, HKEY_CURRENT_USER or HKEY_CLASSES_ROOT); "
                    "its values are skipped", (int)hive_len, inner);
        return;
    }
    plat_hive hive = hive_prefixes[h].hive;
    if (!(p->hives & JV_REG_HIVE_BIT(hive))) {
        parse_error(p, "%s keys do not belong in this file; skipped with their values", regfile_hive_names[hive]);
        return;
    }
    size_t trailing = (size_t)(line + len - close - 1);
    trim(close + 1, &trailing);
    if (trailing) {
        parse_error(p, "text after the key's closing ']'; its values are skipped");
        return;
    }
    char *path = sep ? regfile_copy_text(sep + 1, inner_len - hive_len - 1) : regfile_copy_text("", 0);
    if (!path) {
        parse_error(p, "out of memory");
        return;
    }
    if ((sep && !*path) || !regfile_path_valid(path, strlen(path))) {
        parse_error(p, "key path has an empty part (a doubled or trailing backslash); its values are skipped");
    } else if (deleting && !*path) {
        parse_error(p, "a hive itself cannot be deleted; line skipped with the values under it");
    } else if (deleting) {
        jv_reg_delete_tree(p->tree, hive, path); /* deleting a missing key is no error */
        p->state = NO_KEY;
    } else {
        jv_reg_key *root = regfile_write_root(p->tree, hive);
        p->key = root ? regfile_walk(root, path, strlen(path), 1) : NULL;
        if (p->key)
            p->state = IN_KEY;
        else
            parse_error(p, "out of memory");
    }
    free(path);
}

/* A quoted string at s[*i] (s[*i] is '"'): unescapes \\ and \" into out; advances past the
 * closing quote.  0 (error reported) when malformed. */
static int parse_quoted(parser *p, const char *s, size_t len, size_t *i, regbuf *out)
{
    regbuf_add(out, "", 0);
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
        regbuf_byte(out, (unsigned char)c);
    }
    parse_error(p, "string has no closing quote; line skipped");
    return 0;
}

/*
 * The bytes of hex data starting at s[0..len): "xx,xx,..." where a trailing backslash
 * continues the list on the next line.  0 (error reported) when malformed.
 */
static int parse_hex_bytes(parser *p, const char *s, size_t len, regbuf *out)
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
                regbuf_byte(out, (unsigned char)(jv_hex_digit(s[i]) << 4 | jv_hex_digit(s[i + 1])));
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
static int parse_data(parser *p, const char *data, size_t len, DWORD *type, regbuf *out)
{
    regbuf_add(out, "", 0);
    if (*data == '"') {
        size_t i = 0, rest;
        regbuf text = {0};
        int ok = parse_quoted(p, data, len, &i, &text);
        rest = len - i;
        trim(data + i, &rest);
        if (ok && rest) {
            parse_error(p, "text after the closing quote of a string; line skipped");
            ok = 0;
        }
        if (ok) {
            regfile_utf8_to_utf16le(out, text.data, text.len);
            regfile_utf16_put(out, 0);
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
        regfile_dword_put(out, v);
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
            if (!regfile_utf8_valid(out->data, out->len)) {
                parse_error(p, "hex(%lx) text is not UTF-8; line skipped", (unsigned long)n);
                return 0;
            }
            regbuf wide = {0};
            regfile_utf8_to_utf16le(&wide, out->data, out->len);
            free(out->data);
            *out = wide;
            regbuf_add(out, "", 0);
        }
        return 1;
    }
    parse_error(p, "unknown value type (expected \"text\", dword:, hex: or hex(n):, or - to delete); line skipped");
    return 0;
}

/* @=data or "name"=data; line starts with '@' or '"'. */
static void parse_value_line(parser *p, const char *line, size_t len)
{
    regbuf name = {0}, data = {0};
    size_t i = 0;
    if (p->state == SKIPPING_KEY)
        return; /* reported at the key line */
    if (p->state == NO_KEY) {
        parse_error(p, "value line before any key, or after a key deletion; skipped");
        return;
    }
    if (*line == '@') {
        regbuf_add(&name, "", 0);
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
        regfile_key_delete_value(p->key, name.data);
        goto done;
    }
    DWORD type;
    if (!parse_data(p, value, rest, &type, &data))
        goto done;
    if (name.failed || data.failed || !regfile_key_set_value(p->key, name.data, type, data.data, data.len))
        parse_error(p, "out of memory");
done:
    free(name.data);
    free(data.data);
}

/* The file as UTF-8 text in out (BOM removed); 0 (error reported) when it cannot be read as a .reg file. */
static int decode_file(parser *p, const unsigned char *bytes, size_t size, regbuf *out)
{
    regbuf_add(out, "", 0);
    if (size >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE) {
        if (size % 2 || !regfile_utf16le_to_utf8(out, bytes + 2, (size - 2) / 2, 1)) {
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
    regbuf_add(out, bytes, size);
    return 1;
}

static unsigned parse_file(jv_reg_tree *tree, const char *file_name, const void *data, size_t size, unsigned hives,
                           int quiet)
{
    parser p = {tree, file_name, hives, 0, NULL, 0, 0, 0, 0, quiet, 0, NULL, NO_KEY};
    regbuf text = {0};
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
        if (!regfile_utf8_valid(line, len)) {
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

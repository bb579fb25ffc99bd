/* guid.c - parsing and formatting braced GUID text (see guid.h). */
#include <stdio.h>

#include "common/guid.h"

/* The one accepted shape; '#' stands for a hex digit, anything else for itself. */
static const char guid_shape[] = "{########-####-####-####-############}";

int jv_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The value of `digits` hex digits at text, already checked against guid_shape. */
static unsigned long hex_value(const char *text, int digits)
{
    unsigned long v = 0;
    for (int i = 0; i < digits; i++)
        v = v << 4 | (unsigned long)jv_hex_digit(text[i]);
    return v;
}

int jv_guid_parse(const char *text, GUID *guid)
{
    if (!text)
        return 0;
    /* Walking the shape stops at the first difference, so a short text is never read past its NUL. */
    for (size_t i = 0; i < sizeof(guid_shape); i++) {
        int ok = guid_shape[i] == '#' ? jv_hex_digit(text[i]) >= 0 : text[i] == guid_shape[i];
        if (!ok)
            return 0;
    }
    guid->Data1 = (DWORD)hex_value(text + 1, 8);
    guid->Data2 = (WORD)hex_value(text + 10, 4);
    guid->Data3 = (WORD)hex_value(text + 15, 4);
    for (int i = 0; i < 8; i++) /* Data4: two bytes before the last dash, six after it */
        guid->Data4[i] = (BYTE)hex_value(text + (i < 2 ? 20 + 2 * i : 25 + 2 * (i - 2)), 2);
    return 1;
}

char *jv_guid_format(const GUID *guid, char *text)
{
    snprintf(text, JV_GUID_TEXT_SIZE, "{%08lX-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}", (unsigned long)guid->Data1,
             (unsigned)guid->Data2, (unsigned)guid->Data3, guid->Data4[0], guid->Data4[1], guid->Data4[2],
             guid->Data4[3], guid->Data4[4], guid->Data4[5], guid->Data4[6], guid->Data4[7]);
    return text;
}

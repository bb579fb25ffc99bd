/*
 * guid.h - GUIDs as text: the braced form the registry, MSJAVA_EVENT_MONITORS and
 * log lines use, {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}.
 */
#ifndef JEVMON_COM_GUID_H
#define JEVMON_COM_GUID_H

#include "jevmon.h"

/* Characters of the braced form, and the size of a buffer that holds it with its NUL. */
#define JV_GUID_TEXT_LEN 38
#define JV_GUID_TEXT_SIZE (JV_GUID_TEXT_LEN + 1)

/*
 * Parses the braced form, hex digits in either case.  Strict: the braces, the four
 * dashes and every digit must be there, nothing else, not even spaces.  Returns 1 and
 * fills *guid on success; returns 0 and leaves *guid alone otherwise.
 */
int jv_guid_parse(const char *text, GUID *guid);

/* The value of one hexadecimal digit of either case, or -1. */
int jv_hex_digit(char c);

/* Writes the braced form in upper case into text (JV_GUID_TEXT_SIZE bytes); returns text. */
char *jv_guid_format(const GUID *guid, char *text);

#endif /* JEVMON_COM_GUID_H */

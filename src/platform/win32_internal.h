/*
 * win32_internal.h - what the parts of the Win32 platform layer (win32*.c) share:
 * conversion between platform.h's UTF-8 and the UTF-16 of the W functions, and the
 * text of Win32 error codes for log lines and why texts.
 */
#ifndef JEVMON_PLATFORM_WIN32_INTERNAL_H
#define JEVMON_PLATFORM_WIN32_INTERNAL_H

#include <windows.h>

/* A malloc'd UTF-16 copy of text, or NULL (logged) when it is not valid UTF-8 or memory is out. */
WCHAR *win32_to_wide(const char *text);
/* A malloc'd UTF-8 copy of the first len units of wide (len -1: up to its NUL), or NULL (logged). */
char *win32_from_wide(const WCHAR *wide, int len);
/* The system's one-line text for a Win32 error code or an HRESULT, into buf; returns buf. */
const char *win32_error_text(DWORD code, char *buf, size_t len);

#endif /* JEVMON_PLATFORM_WIN32_INTERNAL_H */

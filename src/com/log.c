/* log.c - the one-line "jevmon:" diagnostics every part of jevmon writes. */
#include <stdio.h>
#include <string.h>

#include "platform/platform.h"

void jv_vlog(const char *fmt, va_list ap)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), "jevmon: ");
    int m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof(line) - 2) len = sizeof(line) - 2;
    line[len++] = '\n';
    fwrite(line, 1, len, stderr);
    fflush(stderr);
}

void jv_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jv_vlog(fmt, ap);
    va_end(ap);
}

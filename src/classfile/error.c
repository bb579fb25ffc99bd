/* error.c - keeps the first failure message of a class-file operation (see internal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "classfile/internal.h"

int cf_fail(cf_error *error, const char *fmt, ...)
{
    if (error && error->text && error->size && !error->text[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error->text, error->size, fmt, ap);
        va_end(ap);
    }
    return CF_MALFORMED;
}

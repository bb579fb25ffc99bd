/*
 * win32_setenv.c - plat_setenv on Windows.  Through the C runtime, so its getenv sees the
 * change, and through the process environment, which is where an empty value can live
 * (the C runtime removes a variable set to "").
 */
#include <stdlib.h>
#include <windows.h>

#include "platform/platform.h"

int plat_setenv(const char *name, const char *value)
{
    int ok = _putenv_s(name, value ? value : "") == 0;
    if (value && !*value)
        ok = SetEnvironmentVariableA(name, "") != 0;
    return ok;
}

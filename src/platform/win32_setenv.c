/* win32_setenv.c - plat_setenv on Windows: through the C runtime, so its getenv sees the change too. */
#include <stdlib.h>

#include "platform/platform.h"

int plat_setenv(const char *name, const char *value)
{
    return _putenv_s(name, value ? value : "") == 0;
}

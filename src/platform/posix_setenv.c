/* posix_setenv.c - plat_setenv on POSIX. */
#include <stdlib.h>

#include "platform/platform.h"

int plat_setenv(const char *name, const char *value)
{
    return value ? setenv(name, value, 1) == 0 : unsetenv(name) == 0;
}

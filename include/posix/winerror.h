/* <winerror.h> for non-Windows systems: the Win32 and COM basics a monitor needs. */
#include "../jevmon_compat.h"

/* from_idl.c - the IDL agreement test's view of the header widl generates from idl/jevmon.idl. */
#define API_HEADER "jevmon_idl.h"
#define API_FILL_FUNCTION api_fill_from_idl
#include "fill_table.h"

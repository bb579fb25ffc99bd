/* from_header.c - the IDL agreement test's view of include/jevmon.h. */
#define API_HEADER "jevmon.h"
#define API_FILL_FUNCTION api_fill_from_header
#include "fill_table.h"

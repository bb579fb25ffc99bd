/* guids.c - defines the interface IIDs of jevmon.h for the agent (the one file that includes <initguid.h>). */
#include <initguid.h>

#include "jevmon.h"

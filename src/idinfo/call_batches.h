/*
 * call_batches.h - the IJevmonCallBatches object (call_batches.c): a monitor's registration for
 * its method calls in batches (events/call_batch.h).
 */
#ifndef JEVMON_IDINFO_CALL_BATCHES_H
#define JEVMON_IDINFO_CALL_BATCHES_H

#include "jevmon.h"

/* A new IJevmonCallBatches object for the monitor of idinfo, in *ppv. */
HRESULT jv_call_batches_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv);

#endif

/*
 * lock_waits.h - the IJevmonLockWaits object (lock_waits.c): a monitor's registration for
 * contended lock waits (events/lock_wait.h).
 */
#ifndef JEVMON_IDINFO_LOCK_WAITS_H
#define JEVMON_IDINFO_LOCK_WAITS_H

#include "jevmon.h"

/* A new IJevmonLockWaits object for the monitor of idinfo, in *ppv. */
HRESULT jv_lock_waits_create(IJavaEventMonitorIDInfo4 *idinfo, void **ppv);

#endif

/*
 * monitors.h - the life cycle of the event monitors: creation through COM, Initialize, the
 * IJavaEventMonitor2 query, the initialization options granted, MONITORS_INITIALIZED,
 * SHUTDOWN and the final Release.  It fills the monitor table (monitor_table.h) before the
 * first JVMTI event and empties it at the end.
 */
#ifndef JEVMON_MONITORS_H
#define JEVMON_MONITORS_H

#include "dispatch/monitor_table.h"
#include "jevmon.h"
#include "lifecycle/discovery.h"

/* Creates every listed monitor through COM; failures are logged and left out. */
void jv_monitors_create(const jv_monitor_specs *specs, DWORD deliverable, DWORD state_flags);
/* Calls Initialize on each, then sends MONITORS_INITIALIZED to all that succeeded. */
void jv_monitors_initialize(const char *start_class);
/* Once the JVM's capabilities are added: only deliverable can be delivered; what each monitor's
 * mask holds beyond it is masked off with one line. */
void jv_monitors_restrict(DWORD deliverable);
/* NotifyEvent(SHUTDOWN) to each monitor, then releases each exactly once and empties the table. */
void jv_monitors_shutdown(void);

#endif

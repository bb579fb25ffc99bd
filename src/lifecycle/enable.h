/*
 * enable.h - whether event monitors are enabled, by the Microsoft VM's rules.
 *
 * Monitors are enabled when either switch is on:
 *   1. MSJAVA_ENABLE_MONITORS (environment), or else HKCU\Software\Microsoft\Java VM
 *      EnableEventMonitors (DWORD): non-zero is on;
 *   2. MSJAVA_DEBUGGING_FLAGS (environment, hexadecimal), or else HKLM\Software\Microsoft\
 *      Java VM DebuggingFlags (DWORD): bit MSJDBG_FL_ENABLE_PROFILING (0x02) is on.
 * In each pair the environment variable, when set, overrides the registry value.  A
 * value that cannot be read as a number gets one "jevmon:" line and counts as not set.
 * The agent options enable/disable override everything.
 */
#ifndef JEVMON_ENABLE_H
#define JEVMON_ENABLE_H

#include "vm/options.h"

/* Non-zero when monitors are to be loaded; why names the deciding setting. */
int jv_profiling_enabled(const jv_options *opts, char *why, size_t why_len);

#endif

/*
 * options.h - the agent's own options, from -agentpath:<lib>=<options>.
 *
 * Syntax: a comma-separated list of words:
 *   enable            load monitors even when the Microsoft VM settings leave profiling off
 *   disable           load no monitors, whatever the settings say
 *   methods=jvmti     deliver method-call events through JVMTI MethodEntry/MethodExit
 *   methods=auto      let the bridge choose the cheapest mechanism the monitors allow (default)
 *   monitors={clsid};{clsid}...
 *                     load these monitors too, after the registry's and MSJAVA_EVENT_MONITORS'
 *                     (for a JVM the agent is loaded into later, started without them)
 *   server={clsid}=PATH
 *                     this load creates the class from the in-process server at PATH (absolute,
 *                     checked as a registered one is) instead of the one registered; repeatable
 *   allocation_interval=BYTES
 *                     the allocation sampling interval, before JEVMON_ALLOCATION_SAMPLING_INTERVAL
 *   reply=PATH        the caller's answer file for this load (command.h): created, never followed
 *                     through a link or opened when it exists
 *   command=TEXT      the rest of the option text, commas and all (so it comes last): offered to
 *                     each monitor through IJevmonCommands before its Initialize, its settings;
 *                     in a later load, the command itself
 * Unknown words get one "jevmon:" line and are ignored.
 *
 * Also the one reader of the numbers the agent takes from environment variables
 * (jv_env_number), so that every such variable accepts the same forms.
 */
#ifndef JEVMON_OPTIONS_H
#define JEVMON_OPTIONS_H

typedef enum jv_force { JV_FORCE_NONE, JV_FORCE_ON, JV_FORCE_OFF } jv_force;
typedef enum jv_methods_choice { JV_METHODS_AUTO, JV_METHODS_JVMTI } jv_methods_choice;

#include <stddef.h>

#define JV_MAX_SERVERS 8

typedef struct jv_options {
    jv_force profiling;
    jv_methods_choice methods;
    const char *monitors;  /* the monitors= list, not NUL-terminated (monitors_len), inside the parsed text; NULL if none */
    size_t monitors_len;
    const char *servers[JV_MAX_SERVERS]; /* each server= value ("{clsid}=PATH"), not NUL-terminated (servers_len) */
    size_t servers_len[JV_MAX_SERVERS];
    size_t server_count;
    long long allocation_interval; /* allocation_interval=; -1 when not given */
    const char *reply;             /* reply=: not NUL-terminated (reply_len), inside the parsed text; NULL if none */
    size_t reply_len;
    const char *command;           /* command=: the rest of the text; NULL if none */
} jv_options;

/* What follows the first word of text that starts with command=; NULL when none does. */
const char *jv_options_command(const char *text);

/* Parses text (NULL or "" for no options) into opts, which points into text; never fails. */
void jv_options_parse(const char *text, jv_options *opts);

/*
 * The environment variable name as a number from 0 to max, written in decimal, or in
 * hexadecimal when hex is non-zero (1 to 16 digits after an optional 0x or 0X), with only
 * spaces and tabs around it: no sign, no other text.  Returns 1 with *value; 0 when the
 * variable is unset; -1 when it is set to anything else, after one "jevmon:" line naming
 * the variable, its text, what it should be (described by form) and that it is ignored.
 */
int jv_env_number(const char *name, int hex, unsigned long long max, const char *form, unsigned long long *value);

#endif

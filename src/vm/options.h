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
 * Unknown words get one "jevmon:" line and are ignored.
 *
 * Also the one reader of the numbers the agent takes from environment variables
 * (jv_env_number), so that every such variable accepts the same forms.
 */
#ifndef JEVMON_OPTIONS_H
#define JEVMON_OPTIONS_H

typedef enum jv_force { JV_FORCE_NONE, JV_FORCE_ON, JV_FORCE_OFF } jv_force;
typedef enum jv_methods_choice { JV_METHODS_AUTO, JV_METHODS_JVMTI } jv_methods_choice;

typedef struct jv_options {
    jv_force profiling;
    jv_methods_choice methods;
    const char *monitors;  /* the monitors= list, not NUL-terminated (monitors_len), inside the parsed text; NULL if none */
    size_t monitors_len;
} jv_options;

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

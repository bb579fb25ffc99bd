/*
 * command.h - commands for a running bridge, and Agent_OnAttach's return codes.
 *
 * A load of the agent into a JVM whose bridge already runs starts nothing: its options are
 * a command, handed to every running monitor that implements IJevmonCommands, in table
 * order.  Each answer goes to the JVM's standard output, every line prefixed "jevmon: ".
 * jcmd shows the caller only Agent_OnAttach's return code ("return code: N"), so the code
 * says what became of the load or command.  A later load whose options hold command= (agent
 * options, options.h) hands over only what follows it, so that one option text serves a first
 * load and a later one alike.
 *
 * The first load's command= text goes to each created monitor before its Initialize: its
 * settings for this load (a monitor may take it or answer S_FALSE; it has no IDInfo yet).
 */
#ifndef JEVMON_COMMAND_H
#define JEVMON_COMMAND_H

enum jv_attach_code {
    JV_ATTACH_OK = 0,          /* the bridge started, or some monitor took the command */
    JV_ATTACH_NOT_STARTED = 1, /* no JVMTI, or event monitors not enabled */
    JV_ATTACH_NO_MONITORS = 2, /* enabled, but no monitor could be loaded */
    JV_COMMAND_NOT_TAKEN = 3,  /* no monitor takes the command */
    JV_COMMAND_FAILED = 4      /* a monitor's command failed */
};

/* Hands a later load's option text to the running monitors; returns a jv_attach_code. */
int jv_command(const char *text);

/* Hands the first load's command= text to the created monitors, before Initialize. */
void jv_command_settings(const char *text);

#endif

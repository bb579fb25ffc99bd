/*
 * command.h - commands for a running bridge, and Agent_OnAttach's return codes.
 *
 * A load of the agent into a JVM whose bridge already runs starts nothing: its options are
 * a command, handed to every running monitor that implements IJevmonCommands, in table
 * order.  jcmd shows the caller only Agent_OnAttach's return code ("return code: N"), so the
 * code says what became of the load or command.  The words come back through the reply file:
 * a load whose options name reply=PATH (before command=) has the bridge create PATH (never
 * through a link, never an existing file: the caller makes a private directory for it) and
 * write there every line the bridge logs on the loading thread while the load runs, and each
 * monitor's answer, every line prefixed "jevmon: "; a first load that started the bridge adds
 * the monitors' answers to "status".  Without reply=, the lines go to the JVM's standard
 * error and the answers to its standard output.  A later load whose options hold command= (agent
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
    JV_COMMAND_FAILED = 4,     /* a monitor's command failed */
    JV_ATTACH_NO_REPLY = 5     /* the reply file could not be created: nothing done */
};

/* Makes the bridge's log lines pass through the reply file of the thread's load, when it has one;
 * before any thread of the bridge's runs. */
void jv_command_log_install(void);

/* Creates the reply file named by the options' reply=, for this thread until jv_reply_end;
 * 1 when there is none to create, 0 when it cannot be created (one line on standard error). */
int jv_reply_begin(const char *reply, size_t reply_len);
void jv_reply_end(void);

/* The running monitors' answers to "status", for the reply of the load that started them. */
void jv_command_describe(void);

/* Hands a later load's option text to the running monitors; returns a jv_attach_code.  reply=
 * before command= names the reply file. */
int jv_command(const char *text);

/* Hands the first load's command= text to the created monitors, before Initialize. */
void jv_command_settings(const char *text);

#endif

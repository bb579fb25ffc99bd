#!/usr/bin/env bash
# jevprof.sh - runs a Java program under the bridge with jevprof attached through
# MSJAVA_EVENT_MONITORS, as a user of the Microsoft VM would have attached a profiler.
# `tools/jevprof.sh --help` says how; the README's "jevprof" section says more.
# Only jevprof's COM class is registered, in a registry file of the build, so nothing on
# the machine changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# An installed jevprof (make install) names its libraries, CLSID and registry directory.
build=${JEVPROF_LIBDIR:-$root/build/linux}

usage() {
  cat <<'EOF'
usage: tools/jevprof.sh [options] COMMAND [arguments...]
       tools/jevprof.sh --pid PID start|stop|dump|status

Runs COMMAND under jevprof. COMMAND is `java`, another launcher of a JDK (javac, jshell, jar,
javadoc...: the agent goes in as -J-agentpath, for that launcher's own JVM), or any other program
that starts JVMs (a script, a build tool: the agent goes in through JAVA_TOOL_OPTIONS, for every
JVM it starts; give each its own files with --prefix 'jevprof-%p').

options (each also as --option=VALUE; the environment variable in brackets is what it sets):
  --mode LIST        sample (default), calls, both, alloc, or a list: sample,alloc  [JEVPROF_MODE]
  --interval MS      sampling interval, whole milliseconds, 1 to 60000 (default 10)  [JEVPROF_INTERVAL_MS]
  --out DIR          output directory, created when missing (default ./jevprof-out)  [JEVPROF_OUTPUT_DIR]
  --prefix NAME      start of every output file's name (default jevprof); %p is the process id,
                     %t the start time (YYYYMMDD-hhmmss), in DIR too  [JEVPROF_FILE_PREFIX]
  --time cpu|wall    calls mode: time on the processor (default: blocked time left out) or wall
                     time  [JEVPROF_TIME]
  --top N            lines per table of the report (default 20)  [JEVPROF_TOP]
  --min-share PERCENT
                     in the collapsed files and flame graphs, fold the call paths under this share
                     of the profile into their callers (default 0.01; 0 keeps every path)  [JEVPROF_MIN_SHARE]
  --alloc-interval BYTES
                     alloc mode: about one allocation reported per BYTES each thread allocates
                     (default 524288; 0 is every allocation, many times slower); the report and
                     flame graphs then give estimated totals  [JEVMON_ALLOCATION_SAMPLING_INTERVAL]
  -h, --help         this text
  --                 the end of the options

At the end jevprof names every file it wrote on stderr (a line starting "jevmon: jevprof: wrote").

With --pid, drives the jevprof of a running JVM through that JVM's jcmd (JVMTI.agent_load of
this build's libjevmon.so, whose later loads are commands): status, dump (write the profile so
far and go on), stop (write it and stop), start (after a stop: a new, empty profile; in a JVM
without the bridge: attach it with jevprof, which must then be registered where that JVM looks,
e.g. by build/linux/jevmon-regsvr; jevprof then takes its settings from that JVM's environment
and its registry key). The answer is a line on the program's standard output
("jevmon: jevprof: ..."); jcmd shows only the outcome.
EOF
}

# option NAME VALUE: sets what option NAME stands for.
option() {
  [[ $1 == pid ]] || settings=yes
  case $1 in
    mode) export JEVPROF_MODE=$2 ;;
    interval) export JEVPROF_INTERVAL_MS=$2 ;;
    out) export JEVPROF_OUTPUT_DIR=$2 ;;
    prefix) export JEVPROF_FILE_PREFIX=$2 ;;
    top) export JEVPROF_TOP=$2 ;;
    time) export JEVPROF_TIME=$2 ;;
    min-share) export JEVPROF_MIN_SHARE=$2 ;;
    alloc-interval) export JEVMON_ALLOCATION_SAMPLING_INTERVAL=$2 ;;
    pid) pid=$2 ;;
    *) echo "jevprof.sh: unknown option --$1 (see --help)" >&2; exit 2 ;;
  esac
}

pid= settings=
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    --*=*) name=${1%%=*}; option "${name#--}" "${1#*=}"; shift ;;
    --*)
      [[ $# -ge 2 ]] || { echo "jevprof.sh: $1 needs a value (see --help)" >&2; exit 2; }
      option "${1#--}" "$2"; shift 2 ;;
    -*) echo "jevprof.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [[ $# -lt 1 ]]; then
  usage >&2
  exit 2
fi
for f in "$build/libjevmon.so" "$build/libjevprof.so"; do
  [[ -f $f ]] || { echo "jevprof.sh: $f is missing: run make first" >&2; exit 2; }
done

clsid=${JEVPROF_CLSID:-$(sed -n 's/^#define JP_CLSID_TEXT "\(.*\)"/\1/p' "$root/monitor/jevprof.h")}

# --pid: one command to a running JVM, through the jcmd of the JDK that runs it.
if [[ -n $pid ]]; then
  [[ $# -eq 1 && $1 =~ ^(start|stop|dump|status)$ ]] ||
    { echo "jevprof.sh: --pid takes one of start, stop, dump, status (see --help)" >&2; exit 2; }
  [[ $pid =~ ^[0-9]+$ && -d /proc/$pid ]] || { echo "jevprof.sh: --pid $pid: no such process" >&2; exit 2; }
  if [[ -n $settings ]]; then
    echo "jevprof.sh: settings cannot reach a running JVM: its jevprof reads them from its own environment" \
      "and its registry key; --pid takes none" >&2
    exit 2
  fi
  jcmd=$(dirname "$(readlink -f "/proc/$pid/exe")")/jcmd
  [[ -x $jcmd ]] || jcmd=$(command -v jcmd) || { echo "jevprof.sh: no jcmd for process $pid" >&2; exit 2; }
  load() { # load OPTIONS: the agent's return code, as jcmd prints it (-1 when it printed none)
    "$jcmd" "$pid" JVMTI.agent_load "$build/libjevmon.so" "$1" 2>&1 | sed -n 's/^return code: //p' | grep . || echo -1
  }
  # A first load starts the bridge, later ones are commands: is it there already?
  if "$jcmd" "$pid" VM.dynlibs 2>/dev/null | grep -qF "$build/libjevmon.so"; then
    code=$(load "$1")
  elif [[ $1 == start ]]; then # attach the bridge with jevprof (jcmd reads name=value as its own
    code=$(load "\"enable,monitors=$clsid\"") # options: the double quotes keep this one whole)
  else
    echo "jevprof.sh: $pid runs no jevmon bridge from $build (start attaches one)" >&2
    exit 1
  fi
  case $code in
    0) echo "jevprof.sh: $1 sent to $pid: its answer is on the program's standard output" >&2; exit 0 ;;
    1) echo "jevprof.sh: $pid: profiling not enabled, or no JVMTI" >&2 ;;
    2) echo "jevprof.sh: $pid: jevprof could not be loaded: is it registered where that JVM looks" \
         "(build/linux/jevmon-regsvr $build/libjevprof.so)? The program's standard error says why" >&2 ;;
    3) echo "jevprof.sh: $pid: no jevprof there takes commands (start it first)" >&2 ;;
    4) echo "jevprof.sh: $pid: jevprof refused $1: its answer is on the program's standard output" >&2 ;;
    *) echo "jevprof.sh: $pid: jcmd failed (is $pid a JVM of this user?)" >&2 ;;
  esac
  exit 1
fi
registry=${JEVPROF_REGISTRY_DIR:-$build/jevprof-registry}
mkdir -p "$registry"
printf 'Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\%s\\InprocServer32]\n@="%s"\n"ThreadingModel"="Both"\n' \
  "$clsid" "$build/libjevprof.so" >"$registry/system.reg"
chmod 644 "$registry/system.reg"

export JEVMON_REGISTRY_SYSTEM=$registry/system.reg JEVMON_REGISTRY_USER=$registry/user.reg
export MSJAVA_ENABLE_MONITORS=1
export MSJAVA_EVENT_MONITORS="${MSJAVA_EVENT_MONITORS:+$MSJAVA_EVENT_MONITORS;}$clsid"
export JEVPROF_OUTPUT_DIR=${JEVPROF_OUTPUT_DIR:-$PWD/jevprof-out}
if [[ ,${JEVPROF_MODE:-}, == *,alloc,* ]]; then
  export JEVMON_ALLOCATION_SAMPLING_INTERVAL=${JEVMON_ALLOCATION_SAMPLING_INTERVAL:-524288}
fi

agent=-agentpath:$build/libjevmon.so
command=$1
shift
launcher=$(command -v "$command" || true)
[[ -n $launcher ]] || { echo "jevprof.sh: $command: command not found" >&2; exit 127; }
launcher=$(readlink -f "$launcher")
if [[ $(basename "$launcher") == java ]]; then
  exec "$command" "$agent" "$@"
elif [[ -x $(dirname "$launcher")/java ]]; then
  exec "$command" "-J$agent" "$@" # a JDK launcher: -J passes an option to its JVM
else
  export JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:+$JAVA_TOOL_OPTIONS }$agent"
  exec "$command" "$@"
fi

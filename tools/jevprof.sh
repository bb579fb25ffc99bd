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
EOF
}

# option NAME VALUE: sets what option NAME stands for.
option() {
  case $1 in
    mode) export JEVPROF_MODE=$2 ;;
    interval) export JEVPROF_INTERVAL_MS=$2 ;;
    out) export JEVPROF_OUTPUT_DIR=$2 ;;
    prefix) export JEVPROF_FILE_PREFIX=$2 ;;
    top) export JEVPROF_TOP=$2 ;;
    time) export JEVPROF_TIME=$2 ;;
    min-share) export JEVPROF_MIN_SHARE=$2 ;;
    alloc-interval) export JEVMON_ALLOCATION_SAMPLING_INTERVAL=$2 ;;
    *) echo "jevprof.sh: unknown option --$1 (see --help)" >&2; exit 2 ;;
  esac
}

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

#!/usr/bin/env bash
# jevprof.sh - jevprof's command line (installed as `jevprof`), shaped as async-profiler's asprof:
# profiles a running JVM of this user (jcmd attaches the bridge with jevprof) or runs a command
# under it.  Nothing is registered: the agent options name jevprof's library for that load
# (server=) and carry its settings (command=).  `tools/jevprof.sh --help` says how;
# docs/jevprof.md says more.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# An installed jevprof (make install) names its libraries and CLSID.
build=${JEVPROF_LIBDIR:-$root/build/linux}

usage() {
  cat <<'EOF'
usage: tools/jevprof.sh [options] PID                    profile a running JVM of yours
       tools/jevprof.sh start|stop|dump|status [options] PID
       tools/jevprof.sh list                             your JVMs, and which run jevprof
       tools/jevprof.sh [options] [--] COMMAND [arguments...]

  tools/jevprof.sh -d 30 -f profile.html 12345      profile JVM 12345 for 30 s, write a flame graph

With a PID, jevprof is attached to that running JVM through the jcmd of the JDK that runs it;
the JVM needs nothing beforehand (JDK 21 and later print a warning about the dynamic agent
unless it runs with -XX:+EnableDynamicAgentLoading).  With -d it records that long, writes
its files and stops; the JVM runs on.  Without -d it records until `stop` or the program's end.
  start    attach and record (the default); after a stop: a new profile, with new settings
  dump     write the profile so far, recording goes on
  stop     write it and stop recording
  status   what it records (the answer is on the program's standard output)
With COMMAND, runs it under jevprof: `java` or another launcher of a JDK (javac, jshell...:
the agent goes in as -J-agentpath) or any other program that starts JVMs (a script, a build
tool: the agent goes in through JAVA_TOOL_OPTIONS, for every JVM it starts; give each its own
files with -f 'out-%p.html').  Without -d it records until the program ends.

options:
  -d SECONDS         record this long, then write the files and stop recording
  -f FILE            an output, its kind by its extension: .html flame graph, .collapsed
                     (collapsed stacks), .pb.gz (pprof), .txt or .report (the text report); may
                     be given several times; %p is the process id, %t the start time
  -e cpu|wall|calls|alloc
                     what to record (a mode; may be given twice, e.g. -e cpu -e alloc)  [JEVPROF_MODE]
  -i INTERVAL        sampling interval with a unit: 10ms (default), 1ms, 2s; or bytes between
                     allocation samples in alloc mode: 512k (default), 256k, 1m, 4096
  --mode LIST        sample, calls, both, alloc, or a list: sample,alloc
  --interval MS      sampling interval, whole milliseconds, 1 to 60000 (default 10)  [JEVPROF_INTERVAL_MS]
  --out DIR          output directory, created when missing (default ./jevprof-out for a
                     COMMAND; for a PID, where that JVM's settings say, else its working directory)  [JEVPROF_OUTPUT_DIR]
  --prefix NAME      start of every output file's name (default jevprof); %p and %t as in -f  [JEVPROF_FILE_PREFIX]
  --time cpu|wall    calls mode: time on the processor (default) or wall time  [JEVPROF_TIME]
  --top N            lines per table of the report (default 20)  [JEVPROF_TOP]
  --min-share PERCENT
                     in the collapsed files and flame graphs, fold the call paths under this share
                     of the profile into their callers (default 0.01; 0 keeps every path)  [JEVPROF_MIN_SHARE]
  --alloc-interval BYTES
                     alloc mode: about one allocation reported per BYTES each thread allocates
                     (default 524288; 0 is every allocation, many times slower)  [JEVMON_ALLOCATION_SAMPLING_INTERVAL]
  --pid PID          the same as PID after the options
  -h, --help         this text
  --                 the end of the options: COMMAND follows
Each long option also takes --option=VALUE; the variable in brackets is read by jevprof when the
option is not given.  Values cannot hold spaces or quotes (they travel in the agent's options).

jevprof names every file it wrote on the program's standard error ("jevmon: jevprof: wrote");
with a PID and -d this command also names the -f files.
EOF
}

fail() { echo "jevprof.sh: $*" >&2; exit 2; }

settings=()        # jevprof's settings, name=value, for command= (config.h)
alloc_interval=    # the bridge's allocation sampling interval (allocation_interval=)
modes='' duration='' pid='' action='' files=0 given_out=''

# setting NAME VALUE: one of jevprof's settings; no spaces or quotes, which the options cannot carry.
setting() {
  [[ $2 != *[[:space:]\"\']* && -n $2 ]] || fail "$1 \"$2\": a value must be non-empty, without spaces or quotes"
  settings+=("$1=$2")
}

# -i: a time (ms, us, s) is the sampling interval; bytes (k, m, g, or a plain number in alloc
# mode) the allocation interval.
interval() {
  local number unit
  [[ $1 =~ ^([0-9]+)(ms|us|s|k|m|g|b|)$ ]] || fail "-i $1: a number with a unit: 10ms, 2s, 512k, 1m"
  number=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
  if [[ -z $unit ]]; then [[ ,$modes, == ,alloc, ]] && unit=b || unit=ms; fi
  case $unit in
    us) (( number % 1000 == 0 )) || fail "-i $1: jevprof samples every whole millisecond (1ms at the finest)"
        setting interval $((number / 1000)) ;;
    ms) setting interval "$number" ;;
    s) setting interval $((number * 1000)) ;;
    b) alloc_interval=$number ;;
    k) alloc_interval=$((number * 1024)) ;;
    m) alloc_interval=$((number * 1048576)) ;;
    g) alloc_interval=$((number * 1073741824)) ;;
  esac
}

# A path of the caller's, absolute: the profiled JVM has a working directory of its own.
absolute() { [[ $1 == /* ]] && echo "$1" || echo "$PWD/$1"; }

# option NAME VALUE: sets what option NAME stands for.
option() {
  case $1 in
    d | duration) [[ $2 =~ ^([0-9]+)s?$ && ${BASH_REMATCH[1]} -gt 0 ]] || fail "-d $2: whole seconds, 1 or more"
                  duration=${BASH_REMATCH[1]}; setting duration "$duration" ;;
    f | file) [[ $2 =~ \.(html|collapsed|pb\.gz|txt|report)$ ]] ||
                fail "-f $2: the extension says what to write: .html, .collapsed, .pb.gz, .txt or .report"
              setting file "$(absolute "$2")"; files=$((files + 1)) ;;
    e) modes=${modes:+$modes,}$2 ;;
    i) pending_interval+=("$2") ;; # read once the modes are known
    mode) modes=$2 ;;
    interval) setting interval "$2" ;;
    out) setting out "$(absolute "$2")"; given_out=yes ;;
    prefix) setting prefix "$2" ;;
    top) setting top "$2" ;;
    time) setting time "$2" ;;
    min-share) setting min-share "$2" ;;
    alloc-interval) [[ $2 =~ ^[0-9]+$ ]] || fail "--alloc-interval $2: a number of bytes"; alloc_interval=$2 ;;
    pid) pid=$2 ;;
    *) fail "unknown option --$1 (see --help)" ;;
  esac
}

pending_interval=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    --*=*) name=${1%%=*}; option "${name#--}" "${1#*=}"; shift ;;
    --* | -[dfei])
      [[ $# -ge 2 ]] || fail "$1 needs a value (see --help)"
      name=${1#-}; option "${name#-}" "$2"; shift 2 ;;
    -*) fail "unknown option $1 (see --help)" ;;
    start | stop | dump | status | list)
      [[ -z $action ]] || fail "one of start, stop, dump, status, list at a time"
      action=$1; shift ;;
    *) if [[ $1 =~ ^[0-9]+$ && -z $pid && $# -eq 1 ]]; then pid=$1; shift; else break; fi ;;
  esac
done
[[ -n $modes ]] && setting mode "$modes"
for i in "${pending_interval[@]}"; do interval "$i"; done
if [[ ,$modes, == *,alloc,* && -z $alloc_interval && -z ${JEVMON_ALLOCATION_SAMPLING_INTERVAL:-} ]]; then
  alloc_interval=524288 # a stack per allocation costs about 1.5 us: sampled unless asked otherwise
fi
for f in "$build/libjevmon.so" "$build/libjevprof.so"; do
  [[ -f $f ]] || fail "$f is missing: run make first"
done
clsid=${JEVPROF_CLSID:-$(sed -n 's/^#define JP_CLSID_TEXT "\(.*\)"/\1/p' "$root/jevprof/jevprof.h")}

# The agent's options: jevprof from its library, for this load only, with its settings.
agent_options() {
  local options="enable,server=$clsid=$build/libjevprof.so,monitors=$clsid"
  [[ -z $alloc_interval ]] || options+=",allocation_interval=$alloc_interval"
  echo "$options,command=start${settings[*]:+ ${settings[*]}}"
}

# The jcmd of the JDK that runs process $1.
jcmd_of() {
  local jcmd
  jcmd=$(dirname "$(readlink -f "/proc/$1/exe")")/jcmd
  [[ -x $jcmd ]] || jcmd=$(command -v jcmd) || { echo "jevprof.sh: no jcmd for process $1" >&2; exit 2; }
  echo "$jcmd"
}

# Whether process $1 has library $2 loaded; exits when its map cannot be read.
has_library() {
  local maps
  maps=$(cat "/proc/$1/maps" 2>&1) || { echo "jevprof.sh: $1: cannot read /proc/$1/maps: $maps" >&2; exit 1; }
  grep -qF " $(readlink -f "$2")" <<<"$maps"
}

if [[ $action == list ]]; then
  [[ $# -eq 0 && -z $pid ]] || fail "list takes nothing more"
  jcmd=$(command -v jcmd || compgen -G '/usr/lib/jvm/*/bin/jcmd' | head -n 1) || true
  [[ -n $jcmd ]] || fail "no jcmd found (install a JDK)"
  "$jcmd" -l | while read -r p main; do
    [[ $main == *sun.tools.jcmd.JCmd* || ! -r /proc/$p/maps ]] && continue
    grep -qF "/$(basename "$build/libjevprof.so")" "/proc/$p/maps" 2>/dev/null && state=jevprof || state=-
    printf '%s\t%s\t%s\n' "$p" "$state" "$main"
  done
  exit 0
fi

# A PID: one command to a running JVM, through the jcmd of the JDK that runs it.
if [[ -n $pid ]]; then
  [[ $# -eq 0 ]] || fail "a PID takes no COMMAND (see --help)"
  action=${action:-start}
  [[ ${#settings[@]} -eq 0 && -z $alloc_interval || $action == start ]] ||
    fail "settings go with start (or -d): $action takes none"
  [[ $pid =~ ^[0-9]+$ && -d /proc/$pid ]] || fail "$pid: no such process"
  owner=$(stat -c %u "/proc/$pid")
  if [[ $owner != "$(id -u)" ]]; then
    echo "jevprof.sh: $pid belongs to user $(id -nu "$owner" 2>/dev/null || echo "$owner") (uid $owner), not to" \
      "you (uid $(id -u)): jevprof attaches only to JVMs of its own user; run it as that user" >&2
    exit 1
  fi
  jcmd=$(jcmd_of "$pid")
  marker=$(mktemp) # the -f files written after it are this profile's
  trap 'rm -f "$marker"' EXIT
  all_written() { # all_written [say]: whether every -f file is there (with say: names each, or why not)
    local s path found missing=0
    for s in "${settings[@]}"; do
      [[ $s == file=* ]] || continue
      path=${s#file=}
      path=${path//%p/$pid}
      found=$(compgen -G "${path//%t/*}" | tail -n 1) || true
      if [[ -n $found && $found -nt $marker ]]; then
        [[ -z ${1:-} ]] || echo "jevprof.sh: wrote $found" >&2
      else
        [[ -z ${1:-} ]] || echo "jevprof.sh: $path was not written; the program's standard error says why" >&2
        missing=1
      fi
    done
    return $missing
  }
  load() { # load OPTIONS: the agent's return code, as jcmd prints it; -1 (and what jcmd said) when it printed none
    local said code
    said=$("$jcmd" "$pid" JVMTI.agent_load "$build/libjevmon.so" "$1" 2>&1) || true
    code=$(sed -n 's/^return code: //p' <<<"$said")
    if [[ -n $code ]]; then
      echo "$code"
    else
      echo "jevprof.sh: $pid: jcmd failed: $(head -n 3 <<<"$said")" >&2
      echo -1
    fi
  }
  # A first load starts the bridge, later ones are commands: is it there already?
  if has_library "$pid" "$build/libjevmon.so"; then
    running=yes
  elif [[ $action != start ]]; then
    echo "jevprof.sh: $pid runs no jevmon bridge from $build (start attaches one)" >&2
    exit 1
  else
    running=
    [[ $files -gt 0 || -n $given_out ]] ||
      echo "jevprof.sh: $pid: without -f or --out its files go where its settings say (JEVPROF_OUTPUT_DIR)," \
        "else to its working directory, $(readlink "/proc/$pid/cwd")" >&2
  fi
  if [[ $action == start ]]; then # jcmd reads name=value as its own options: the double quotes keep this whole
    code=$(load "\"$(agent_options)\"")
  else
    code=$(load "$action")
  fi
  case $code in
    0) ;;
    1) echo "jevprof.sh: $pid: profiling not enabled, or no JVMTI" >&2; exit 1 ;;
    2) echo "jevprof.sh: $pid: jevprof could not be loaded; the program's standard error says why" >&2; exit 1 ;;
    3) echo "jevprof.sh: $pid: no jevprof there takes commands (start it first)" >&2; exit 1 ;;
    4) if [[ $action == start && -n $running ]]; then
         echo "jevprof.sh: $pid: jevprof refused the start: it records already (stop it first), or cannot" \
           "record in that mode; its answer is on the program's standard output" >&2
       else
         echo "jevprof.sh: $pid: jevprof refused $action: its answer is on the program's standard output" >&2
       fi
       exit 1 ;;
    *) exit 1 ;;
  esac
  if [[ -z $duration ]]; then
    echo "jevprof.sh: $action sent to $pid: its answer is on the program's standard output" >&2
    exit 0
  fi
  # -d: jevprof stops itself after the duration and writes its files, each renamed into place once
  # whole: wait for the -f files; without any, a stop (which returns once written) ends it.
  echo "jevprof.sh: profiling $pid for $duration s" >&2
  sleep "$duration"
  deadline=$((SECONDS + 60))
  until [[ $files -eq 0 ]] || all_written || [[ ! -d /proc/$pid || $SECONDS -ge $deadline ]]; do sleep 0.2; done
  if [[ $files -eq 0 || ! -d /proc/$pid ]] || ! all_written; then
    if [[ -d /proc/$pid ]]; then
      load stop >/dev/null
    else
      echo "jevprof.sh: $pid ended before $duration s; jevprof wrote its files at the end" >&2
    fi
  fi
  [[ $files -gt 0 ]] ||
    echo "jevprof.sh: $pid recorded for $duration s; jevprof named the files it wrote on the program's standard error" >&2
  all_written yes
  exit $?
fi
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
if [[ $files -eq 0 && -z $given_out && -z ${JEVPROF_OUTPUT_DIR:-} ]]; then
  setting out "$PWD/jevprof-out"
fi
command=$1
shift
launcher=$(command -v "$command" || true)
[[ -n $launcher ]] || { echo "jevprof.sh: $command: command not found" >&2; exit 127; }
launcher=$(readlink -f "$launcher")
agent="-agentpath:$build/libjevmon.so=$(agent_options)"
[[ $agent != *[\"\']* ]] || fail "the library's path $build cannot hold quotes"
# A JDK's own launchers live in its bin/, beside lib/modules (the JDK's class image, a file):
# those take their JVM's options after -J; anything else gets JAVA_TOOL_OPTIONS.
jdk=$(dirname "$(dirname "$launcher")")
if [[ $(basename "$(dirname "$launcher")") == bin && -f $jdk/lib/modules && $(basename "$launcher") == java ]]; then
  exec "$command" "$agent" "$@"
elif [[ $(basename "$(dirname "$launcher")") == bin && -f $jdk/lib/modules ]]; then
  exec "$command" "-J$agent" "$@"
else # the JVM splits JAVA_TOOL_OPTIONS at spaces outside quotes
  export JAVA_TOOL_OPTIONS="${JAVA_TOOL_OPTIONS:+$JAVA_TOOL_OPTIONS }\"$agent\""
  exec "$command" "$@"
fi

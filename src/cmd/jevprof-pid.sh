#!/bin/bash
# jevprof-pid - the part of jevprof (src/cmd/jevprof.c) that commands a running JVM by its PID, and
# lists JVMs: jevprof reads and checks the options, then runs this, beside the libraries, with
# what they said:
#
#   jevprof-pid ACTION PID DURATION ALLOCATION-INTERVAL FILES GIVEN-OUT LIBRARIES CLSID [SETTING...]
#
# ACTION list, start, stop, dump, status or empty (start); DURATION -d's seconds or empty; FILES the
# number of -f files; GIVEN-OUT yes for --out; LIBRARIES the directory of libjevmon.so, libjevprof.so
# and jevprof-attach; each SETTING name=value, as jevprof's command= takes it (monitor/config.h).
set -euo pipefail
[[ $# -ge 8 ]] || { echo "jevprof-pid: run by jevprof, not by hand (see jevprof --help)" >&2; exit 2; }
action=$1 pid=$2 duration=$3 alloc_interval=$4 files=$5 given_out=$6 build=$7 clsid=$8
shift 8
settings=("$@")

fail() { echo "jevprof: $*" >&2; exit 2; }

# The value of a setting as given to jevprof (monitor/config.h's escapes undone).
unescaped() {
  local value=${1//\\\\/$'\x01'}
  value=${value//\\ / }
  echo "${value//$'\x01'/\\}"
}

# The agent's options, in REPLY: jevprof from its library (in $lib, the JVM's view of it), for
# this load only, with its settings.
lib=$build
agent_options() {
  REPLY="enable,server=$clsid=$lib/libjevprof.so,monitors=$clsid"
  [[ -z $alloc_interval ]] || REPLY+=",allocation_interval=$alloc_interval"
  REPLY+=",command=start${settings[*]:+ ${settings[*]}}"
}

# Whether process $1, a JVM, has library $2 loaded (a mapping of that very file, not of a path
# holding its name); exits when its map cannot be read or holds no JVM.
has_library() {
  local maps
  maps=$(cat "/proc/$1/maps" 2>&1) || { echo "jevprof: $1: cannot read /proc/$1/maps: $maps" >&2; exit 1; }
  [[ $maps$'\n' == */libjvm.so$'\n'* ]] ||
    { echo "jevprof: $1: not a Java virtual machine (no libjvm.so in its memory map)" >&2; exit 1; }
  maps_name "$(readlink -f "$2")" "$maps"
}

# Whether process $1 holds every capability this one holds, in this user namespace, with no seccomp
# filter and no no_new_privs: nothing it runs as root gains by running as this command's root.
as_privileged_as_this() {
  local ours=() theirs=()
  [[ /proc/$1/ns/user -ef /proc/$$/ns/user ]] || return 1
  mapfile -t ours < <(privileges $$)
  mapfile -t theirs < <(privileges "$1")
  [[ ${#theirs[@]} == 3 && ${theirs[1]} == 0 && ${theirs[2]} == 0 ]] &&
    (((16#${theirs[0]} & 16#${ours[0]}) == 16#${ours[0]}))
}

# Process $1's effective capabilities, no_new_privs and seccomp mode, one a line, as /proc says
# them (nothing when it cannot be read).
privileges() {
  local field value
  while read -r field value; do
    case $field in CapEff: | Seccomp: | NoNewPrivs:) echo "$value" ;; esac
  done <"/proc/$1/status" 2>/dev/null
}

# Whether a line of map text $2 names file $1 (its path field, whole): one pattern over the text,
# not a loop over its lines (a JVM's map has hundreds; bash reads them a millisecond per ten).
maps_name() {
  [[ $'\n'$2$'\n' == *" $1"$'\n'* || $'\n'$2$'\n' == *" $1 (deleted)"$'\n'* ]]
}

if [[ $action == list ]]; then
  jcmd=$(command -v jcmd || compgen -G '/usr/lib/jvm/*/bin/jcmd' | head -n 1) || true
  [[ -n $jcmd ]] || fail "no jcmd found (install a JDK)"
  "$jcmd" -l | while read -r p main; do
    [[ $main == *sun.tools.jcmd.JCmd* || ! -r /proc/$p/maps ]] && continue
    maps_name "$(readlink -f "$build/libjevprof.so")" "$(cat "/proc/$p/maps" 2>/dev/null)" && state=jevprof || state=-
    printf '%s\t%s\t%s\n' "$p" "$state" "$main"
  done
  exit 0
fi

# A PID: one command to a running JVM, a load of the bridge through the JVM's attach socket
# (jevprof-attach, src/cmd/jevprof-attach.c: jcmd would start a JVM for it, seconds).  Its answer
# (what it did, what it refused and why) comes back through a reply file in a private directory
# of the JVM's user, read once the load returns, and is printed here.
if [[ -n $pid ]]; then
  action=${action:-start}
  [[ ${#settings[@]} -eq 0 && -z $alloc_interval || $action == start ]] ||
    fail "settings go with start (or -d): $action takes none"
  [[ $pid =~ ^[0-9]+$ && -d /proc/$pid ]] || fail "$pid: no such process"
  attach=$build/jevprof-attach
  [[ -x $attach ]] || fail "$attach is missing: run make first"
  read -r owner group < <(stat -c '%u %g' "/proc/$pid")
  # as_target: runs a command as the JVM's user and in its mount and pid namespaces, as the
  # attach needs (the JVM takes only its user's attaches); root only, for another user's
  # JVM or one in other namespaces.
  as_target=() target_pid=$pid
  other_namespace=
  for ns in mnt pid; do
    [[ /proc/$pid/ns/$ns -ef /proc/$$/ns/$ns ]] || other_namespace=yes # the same namespace: the same inode
  done
  # Root entering another root's namespaces runs that root's programs (its /tmp's copies, its sh,
  # cat and mktemp) with this command's privileges: fine for a root with as many (a service with a
  # private /tmp), a way out for one with fewer (a container's root: capabilities dropped, a
  # seccomp filter, another user namespace).  That one is refused.
  if [[ $EUID == 0 && $owner == 0 && -n $other_namespace ]] && ! as_privileged_as_this "$pid"; then
    echo "jevprof: $pid runs as root with fewer privileges than this command, in namespaces of its own (a" \
      "container's root): jevprof would run that container's programs as the host's root; run jevprof" \
      "inside the container, or the JVM as another user" >&2
    exit 1
  fi
  if [[ $EUID == 0 && ( $owner != 0 || -n $other_namespace ) ]]; then
    if [[ -n $other_namespace ]]; then
      as_target=(nsenter --target "$pid" --mount --pid --setuid "$owner" --setgid "$group" --)
      target_pid=$(awk '/^NSpid:/ { print $NF }' "/proc/$pid/status")
    else
      as_target=(setpriv --reuid="$owner" --regid="$group" --clear-groups --)
    fi
  elif [[ $owner != "$EUID" ]]; then
    echo "jevprof: $pid belongs to user $(id -nu "$owner" 2>/dev/null || echo "$owner") (uid $owner), not to" \
      "you (uid $EUID): jevprof attaches only to JVMs of its own user; run it as that user or as root" >&2
    exit 1
  fi
  target() { if [[ ${#as_target[@]} -gt 0 ]]; then "${as_target[@]}" "$@"; else "$@"; fi; }
  # A first load starts the bridge, later ones are commands: is it there already?
  running=
  has_library "$pid" "$build/libjevmon.so" && running=yes
  # A JVM in a mount namespace that does not see this tree (a container) loads copies of the bridge
  # and jevprof, and the attach client runs as a copy, from a private directory of the JVM's user
  # in its /tmp, made and written as that user (as async-profiler copies itself in); left there
  # while the JVM may hold them, and found again in its memory map by later commands.
  if [[ -n $other_namespace && ! /proc/$pid/root$build/libjevmon.so -ef $build/libjevmon.so ]]; then
    copied=$(grep -o ' /tmp/jevprof-lib\.[A-Za-z0-9]\{6\}/libjevmon\.so$' "/proc/$pid/maps" | head -n 1) || true
    if [[ -n $copied ]]; then
      lib=${copied# }
      lib=${lib%/*}
      running=yes
    elif [[ $action == start ]]; then # other commands are refused below
      lib=$(target mktemp -d /tmp/jevprof-lib.XXXXXX) || { echo "jevprof: $pid: no directory for jevprof's libraries in its /tmp" >&2; exit 1; }
      for f in libjevmon.so libjevprof.so jevprof-attach; do
        target sh -c 'cat >"$1" && chmod 0755 "$1"' sh "$lib/$f" <"$build/$f" ||
          { echo "jevprof: $pid: could not copy $f into its /tmp ($lib)" >&2; exit 1; }
      done
    fi
    attach=$lib/jevprof-attach
  fi
  reply_dir=$(target mktemp -d /tmp/jevprof-reply.XXXXXX) || { echo "jevprof: $pid: no reply directory in its /tmp" >&2; exit 1; }
  trap 'target rm -rf "$reply_dir"' EXIT
  replies=0
  marker=$reply_dir/started # the -f files written after it are this profile's
  target touch "$marker"
  # send TEXT: one load of the agent with option text TEXT, its answer printed here; the agent's
  # return code, as the JVM answers it ("return code: N"), in $code; -1 (and jevprof-attach's line
  # saying why) when the JVM did not run it.
  send() {
    local said reply="$reply_dir/reply.$((replies += 1))"
    said=$(target "$attach" "$target_pid" "$lib/libjevmon.so" "reply=$reply,$1" 2>&1) || true
    target cat "$reply" >&2 2>/dev/null || true
    if [[ $said =~ (^|$'\n')"return code: "(-?[0-9]+) ]]; then
      code=${BASH_REMATCH[2]}
      grep '^jevprof: ' <<<"$said" >&2 || true # what the client said besides the answer
    else
      echo "$said" >&2
      code=-1
    fi
  }
  if [[ -z $running && $action != start ]]; then
    echo "jevprof: $pid runs no jevmon bridge from $build (start attaches one)" >&2
    exit 1
  fi
  # With -d as root for another user: the JVM writes the -f files into the reply directory, and
  # this command copies them, as the caller, to the places asked for.
  declare -A wanted=() # file in the reply directory (the JVM's view) -> the caller's path
  if [[ -n $duration && ${#as_target[@]} -gt 0 ]]; then
    for i in "${!settings[@]}"; do
      [[ ${settings[i]} == file=* ]] || continue
      path=$(unescaped "${settings[i]#file=}")
      target mkdir "$reply_dir/$i"
      wanted[$reply_dir/$i]=$path
      settings[i]="file=$reply_dir/$i/${settings[i]##*/}"
    done
  fi
  if [[ $action == start ]]; then
    agent_options
    send "$REPLY"
  else
    send "command=$action"
  fi
  case $code in
    0) [[ -n $running || $action != start || $files -gt 0 || -n $given_out ]] || # once attached, not before a refusal
         echo "jevprof: $pid: without -f or --out its files go where its settings say (JEVPROF_OUTPUT_DIR)," \
           "else to its working directory, $(readlink "/proc/$pid/cwd")" >&2 ;;
    1) echo "jevprof: $pid: profiling not enabled, or no JVMTI" >&2; exit 1 ;;
    2) echo "jevprof: $pid: jevprof could not be loaded" >&2; exit 1 ;;
    3) echo "jevprof: $pid: no jevprof there takes commands (start it first)" >&2; exit 1 ;;
    4) if [[ $action == start && -n $running ]]; then
         echo "jevprof: $pid: jevprof refused the start" >&2
       else
         echo "jevprof: $pid: jevprof refused $action" >&2
       fi
       exit 1 ;;
    *) exit 1 ;;
  esac
  [[ -n $duration ]] || exit 0
  # -d: record that long, then stop, which writes the files and names them (as asprof does);
  # interrupted, it stops at once.
  trap 'interrupted=yes' INT TERM
  interrupted=
  sleep "$duration" & wait $! || true
  [[ -d /proc/$pid ]] || { echo "jevprof: $pid ended before the stop; jevprof wrote its files at its end" >&2; exit 1; }
  send "command=stop"
  [[ $code == 0 ]] || exit 1
  missing=0
  for dir in "${!wanted[@]}"; do # the JVM's files, copied out as the caller
    dest=${wanted[$dir]}
    found=$(target find "$dir" -mindepth 1 -maxdepth 1 -type f -printf '%f\n' | head -n 1)
    if [[ -z $found ]]; then
      echo "jevprof: $dest was not written" >&2; missing=1
    elif target cat "$dir/$found" >"$(dirname "$dest")/$found"; then
      echo "jevprof: wrote $(dirname "$dest")/$found" >&2
    else
      echo "jevprof: could not copy the profile to $(dirname "$dest")/$found" >&2; missing=1
    fi
  done
  for s in "${settings[@]}"; do # the -f files the JVM wrote where asked: there, and new?
    [[ $s == file=* && ${#wanted[@]} -eq 0 ]] || continue
    path=$(unescaped "${s#file=}")
    path=${path//%p/$pid}
    found=$(compgen -G "${path//%t/*}" | tail -n 1) || true
    [[ -n $found && $found -nt $marker ]] || { echo "jevprof: $path was not written" >&2; missing=1; }
  done
  [[ -z $interrupted && $missing == 0 ]]
  exit $?
fi

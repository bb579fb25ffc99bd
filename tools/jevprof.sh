#!/usr/bin/env bash
# jevprof.sh - runs a Java command under the bridge with jevprof attached through
# MSJAVA_EVENT_MONITORS, as a user of the Microsoft VM would have attached a profiler.
#
#   tools/jevprof.sh [--mode=LIST] java -cp app.jar com.example.Main args...
#
# jevprof's settings pass through the environment (JEVPROF_MODE, a list of sample, calls,
# both and alloc such as sample,alloc; JEVPROF_INTERVAL_MS, JEVPROF_TOP, JEVPROF_OUTPUT_DIR,
# default ./jevprof-out); --mode=LIST sets JEVPROF_MODE.
# In alloc mode the JVM reports one allocation per 512 KiB allocated by each thread (JVMTI's
# own default, a sample in proportion to the bytes each class takes) unless
# JEVMON_ALLOCATION_SAMPLING_INTERVAL says otherwise: 0, every allocation with its stack, makes
# an allocation-heavy program many times slower (monitor/README.md gives the numbers).
# Only jevprof's COM class is registered, in a registry file of the build, so nothing on
# the machine changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# An installed jevprof (make install) names its libraries, CLSID and registry directory.
build=${JEVPROF_LIBDIR:-$root/build/linux}
if [[ ${1:-} == --mode=* ]]; then
  export JEVPROF_MODE=${1#--mode=}
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $0 [--mode=sample|calls|both|alloc|sample,alloc|...] java [java arguments...]" >&2
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
mkdir -p "$JEVPROF_OUTPUT_DIR"

java=$1
shift
exec "$java" "-agentpath:$build/libjevmon.so" "$@"

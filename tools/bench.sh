#!/usr/bin/env bash
# bench.sh - `make bench`: a call-heavy workload (recursive fib) with and without the agent,
# side by side in one run, interleaved so that machine noise hits every configuration
# alike; prints each configuration's median wall time and its ratio to no agent.
# Not a timed test: it prints numbers and exits 0 unless a run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/linux
runs=${BENCH_RUNS:-3}
fib=${BENCH_FIB:-32}
java=${JAVA:-java}
work=$(mktemp -d "$build/bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One private registry per monitor, written by the monitor's own DllRegisterServer.
register() { # register NAME MODULE
  JEVMON_REGISTRY_SYSTEM=$work/$1.reg JEVMON_REGISTRY_USER=$work/user.reg "$build/jevmon-regsvr" "$2" >/dev/null
}
register callcount "$build/samples/callcount.so"
register jevprof "$build/libjevprof.so"
# The same callcount with InitOptions 0xa (GC_SAFE_METHOD_CALLS | WONT_TOGGLE_METHOD_CALL_EVENTS):
# the agent instruments method calls instead of using JVMTI events.  Monitors\callcount is the
# last key DllRegisterServer writes, so the appended value lands in it (see registry/callcount-fast.reg).
register callcount-instrumented "$build/samples/callcount.so"
grep -q '^\[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\callcount\]$' "$work/callcount-instrumented.reg"
printf '"InitOptions"=dword:0000000a\n' >>"$work/callcount-instrumented.reg"

# label | registry | extra environment | program
configs=(
  "no agent|-||"
  "JVMTI method calls, callcount sample|callcount|CALLCOUNT_FILE=$work/callcount.txt|"
  "instrumented method calls, callcount sample|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-i.txt|"
  "jevprof, calls mode|jevprof|JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work|"
  "jevprof, sample mode (10 ms)|jevprof|JEVPROF_MODE=sample JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work|"
)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A times
for ((run = 1; run <= runs; run++)); do
  for config in "${configs[@]}"; do
    IFS='|' read -r label registry extra _ <<<"$config"
    agent=()
    environment=()
    if [[ $registry != - ]]; then
      agent=("-agentpath:$build/libjevmon.so")
      environment=(MSJAVA_ENABLE_MONITORS=1 "JEVMON_REGISTRY_SYSTEM=$work/$registry.reg"
                   "JEVMON_REGISTRY_USER=$work/user.reg" $extra)
    fi
    start=$(date +%s%N)
    env "${environment[@]}" "$java" "${agent[@]}" -cp "$build/java" BridgeWorkload fib "$fib" >/dev/null 2>"$work/stderr"
    end=$(date +%s%N)
    times[$label]+="$(( (end - start) / 1000000 )) "
  done
done

printf '%-42s %10s %8s\n' "fib($fib), median of $runs runs" "ms" "ratio"
base=$(tr ' ' '\n' <<<"${times[no agent]}" | grep . | median)
for config in "${configs[@]}"; do
  label=${config%%|*}
  ms=$(tr ' ' '\n' <<<"${times[$label]}" | grep . | median)
  printf '%-42s %10s %8s\n' "$label" "$ms" "$(awk -v a="$ms" -v b="$base" 'BEGIN {printf "%.1fx", a / b}')"
done

#!/usr/bin/env bash
# bench.sh - `make bench`: each workload with and without the agent, side by side in one run,
# interleaved so that machine noise hits every configuration alike; prints medians and ratios.
# Not a timed test: it prints numbers and exits 0 unless a run fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/linux
runs=${BENCH_RUNS:-3}
java=${JAVA:-java}
work=$(mktemp -d "$build/bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The counting monitor is the callcount sample; register its class in a private registry.
callcount=$build/samples/callcount.so
export JEVMON_REGISTRY_SYSTEM=$work/system.reg JEVMON_REGISTRY_USER=$work/user.reg
"$build/jevmon-regsvr" "$callcount" >/dev/null
export CALLCOUNT_FILE=$work/callcount.txt

# One configuration per line: label | extra environment | agent options ("-" = no agent) | program arguments
configs=(
  "no agent|||-|fib 27"
  "JVMTI method calls, counting monitor|MSJAVA_ENABLE_MONITORS=1||jvmti|fib 27"
)

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

declare -A times
for ((run = 1; run <= runs; run++)); do
  for config in "${configs[@]}"; do
    IFS='|' read -r label env1 env2 agent args <<<"$config"
    agent_arg=()
    [[ $agent != - ]] && agent_arg=("-agentpath:$build/libjevmon.so=methods=$agent")
    start=$(date +%s%N)
    env $env1 $env2 "$java" "${agent_arg[@]}" -cp "$build/java" BridgeWorkload $args >/dev/null
    end=$(date +%s%N)
    times[$label]+="$(( (end - start) / 1000000 )) "
  done
done

printf '%-45s %10s %8s\n' "configuration (fib 27, $runs runs each)" "median ms" "ratio"
base=$(tr ' ' '\n' <<<"${times[no agent]}" | grep . | median)
for config in "${configs[@]}"; do
  label=${config%%|*}
  ms=$(tr ' ' '\n' <<<"${times[$label]}" | grep . | median)
  printf '%-45s %10s %8s\n' "$label" "$ms" "$(awk -v a="$ms" -v b="$base" 'BEGIN {printf "%.1fx", a / b}')"
done

#!/usr/bin/env bash
# demo.sh - `make demo`: profiles samples/java/Workload.java (8 threads, a hot method,
# recursion, exceptions) with jevprof, then shows the top of the report and where the
# outputs are. When the program fails, the demo fails with the program's own error and
# presents no profile: a report of a failed launch is not a profile.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
classes=$root/build/linux/java
rm -rf "$out"
mkdir -p "$out"

[[ -f $classes/Workload.class ]] || { echo "demo: $classes/Workload.class is missing: run 'make demo'" >&2; exit 2; }

echo "== running samples/java/Workload under jevmon with jevprof (sampling every 5 ms)"
rc=0
JEVPROF_OUTPUT_DIR=$out JEVPROF_MODE=${JEVPROF_MODE:-sample} JEVPROF_INTERVAL_MS=${JEVPROF_INTERVAL_MS:-5} \
  "$root/bin/jevprof" java -cp "$classes" Workload 2>"$out/agent.log" || rc=$?
if ((rc != 0)) || [[ ! -s $out/jevprof-report.txt ]]; then
  echo "demo: the profiled program failed (exit status $rc); its error output ($out/agent.log):" >&2
  sed 's/^/  | /' "$out/agent.log" >&2
  # What jevprof wrote describes the failure, not the workload: leave nothing that looks like a profile.
  rm -f "$out"/jevprof*
  exit $((rc != 0 ? rc : 1))
fi

echo
echo "== top of $out/jevprof-report.txt"
head -n 40 "$out/jevprof-report.txt"
echo
echo "== outputs"
for f in "$out"/jevprof*; do
  printf '  %s\n' "$f"
done
echo "  (open the flame graph in a browser; load the collapsed file into speedscope or FlameGraph,"
echo "   the .pb.gz file into go tool pprof or a continuous-profiling service)"
echo
echo "== your own program: bin/jevprof java -cp your.jar your.Main   (outputs in ./jevprof-out)"

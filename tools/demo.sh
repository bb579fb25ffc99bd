#!/usr/bin/env bash
# demo.sh - `make demo`: profiles samples/java/Workload.java (8 threads, a hot method,
# recursion, exceptions) with jevprof, then shows the top of the report and where the
# outputs are.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
rm -rf "$out"
mkdir -p "$out"

echo "== running samples/java/Workload under jevmon with jevprof (sampling every 5 ms)"
JEVPROF_OUTPUT_DIR=$out JEVPROF_MODE=${JEVPROF_MODE:-sample} JEVPROF_INTERVAL_MS=${JEVPROF_INTERVAL_MS:-5} \
  "$root/tools/jevprof.sh" java -cp "$root/build/linux/java" Workload 2>"$out/agent.log"

echo
echo "== top of $out/jevprof-report.txt"
head -n 40 "$out/jevprof-report.txt"
echo
echo "== outputs"
for f in jevprof-report.txt jevprof.collapsed jevprof-flame.html; do
  printf '  %s\n' "$out/$f"
done
echo "  (open the flame graph in a browser; load the collapsed file into speedscope or FlameGraph)"
echo
echo "== your own program: tools/jevprof.sh java -cp your.jar your.Main   (outputs in ./jevprof-out)"

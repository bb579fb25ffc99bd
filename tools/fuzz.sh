#!/usr/bin/env bash
# tools/fuzz.sh SECONDS TARGET... - what `make fuzz` runs once build/linux/fuzz/fuzz_TARGET is built.
#
# Runs each libFuzzer target for SECONDS (FUZZ_SECONDS) on one core, from its corpus in
# tests/fuzz/corpus/TARGET (read-only to libFuzzer; new inputs go to build/linux/fuzz/corpus-TARGET),
# then merges into tests/fuzz/corpus/TARGET only the new inputs that reach new code, so
# `make check` (test_fuzz_oracles) replays them.  A finding stops the target: libFuzzer
# writes it to build/linux/fuzz/crash-TARGET-*; fix it and keep the input in
# tests/fuzz/crashes/TARGET/, which `make check` replays for ever.
# Exit status: non-zero when some target found something.
set -euo pipefail

cd "$(dirname "$0")/.."
SECONDS_EACH=${1:?seconds}
shift
OUT=build/linux/fuzz
MAX_LEN=${FUZZ_MAX_LEN:-8192} # inputs no longer: small inputs run faster and keep the corpus small
status=0
for target in "$@"; do
    bin=$OUT/fuzz_$target seeds=tests/fuzz/corpus/$target work=$OUT/corpus-$target log=$OUT/fuzz_$target.log
    mkdir -p "$work" "$seeds"
    rc=0
    "$bin" -max_total_time="$SECONDS_EACH" -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$OUT/crash-$target-" "$work" "$seeds" >"$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    if ((rc != 0)); then
        status=1
        echo "fuzz_$target: FINDING after ${runs:-?} runs (exit $rc): $(grep -m1 -E 'ERROR|fuzz_$target:|runtime error' "$log" || true)"
        echo "  input: $(ls -t "$OUT"/crash-"$target"-* 2>/dev/null | head -1); log: $log"
        continue
    fi
    before=$(find "$seeds" -type f | wc -l)
    "$bin" -merge=1 "$seeds" "$work" >"$OUT/merge-$target.log" 2>&1
    after=$(find "$seeds" -type f | wc -l)
    echo "fuzz_$target: ${SECONDS_EACH} s, ${runs:-?} runs, no finding (${cov:-cov: ?} edges); $((after - before)) new corpus inputs in $seeds"
done
exit $status

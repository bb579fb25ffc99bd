#!/usr/bin/env bash
# tools/run-tests.sh - what `make check` runs once everything is built.
#
# Runs every Check suite program, each in its own process with a time limit:
#   build/linux/asan/tests/test_*     natively (ASan + UBSan)
#   build/linux/x87/tests/test_*      natively: the unit suites with x87 math (target x87)
#   build/win64/tests/test_*.exe      under 64-bit Wine, prefix build/wine64-prefix
#   build/win32/tests/test_*.exe      under 32-bit Wine, prefix build/wine32-prefix, when
#                                     tools/deps.sh could install 32-bit Wine
# Each gets JEVMON_BUILD (build/<target>, absolute) and JEVMON_SRC (the repo root),
# as Windows paths under Wine. Output of each suite: build/test-logs/<target>/<name>.log.
# The last line is 'TOTAL: N passed, M failed' (checks over all suites); the exit
# status is non-zero when anything failed.
#
# Knobs: JEVMON_TEST_TIMEOUT (seconds per suite, default 900: the end-to-end suites start dozens of JVMs),
#        JEVMON_TESTS (a grep -E pattern on "<target>/<name>" to run only some),
#        JEVMON_REPEAT (runs of each chosen suite, default 1; run N's log is <name>.N.log, and each run
#        counts: a flaky suite shows as a failed run among passed ones; docs/testing.md).
# Some JVM suites also run inside sanitized JVMs, target "sanitized" (run_sanitized_jvms).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build
LOGS=$BUILD/test-logs
TIMEOUT=${JEVMON_TEST_TIMEOUT:-900}
FILTER=${JEVMON_TESTS:-}
REPEAT=${JEVMON_REPEAT:-1}
[[ $REPEAT =~ ^[1-9][0-9]*$ ]] || { echo "error: JEVMON_REPEAT=$REPEAT: not a number of runs (1 or more)" >&2; exit 2; }
TOTAL_PASSED=0
TOTAL_FAILED=0
# One line per failed suite, repeated just above TOTAL: CI shows only the end of what a run
# printed, and a failure 80 lines up was out of its sight (a stop's CI said "1 failed" and no more).
FAILED_LINES=()

# Check prints e.g. "100%: Checks: 3, Failures: 0, Errors: 0" once per SRunner.
SUMMARY_RE='^[0-9]+%: Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+)'

# chosen_suite TARGET PROGRAM: whether JEVMON_TESTS leaves the suite in.
chosen_suite() {
    # a program whose source is gone (a suite renamed or removed since it was built) is not a suite
    compgen -G "$ROOT/tests/*/$(basename "$2" .exe).c" >/dev/null || return 1
    [[ -z $FILTER ]] || grep -qE "$FILTER" <<<"$1/$(basename "$2" .exe)"
}

# run_suite TARGET PROGRAM CMD...: run one suite JEVMON_REPEAT times, count its checks, print its lines.
run_suite() {
    local run
    chosen_suite "$1" "$2" || return 0
    if ((REPEAT == 1)); then
        run_suite_once "" "$@"
        return
    fi
    for ((run = 1; run <= REPEAT; run++)); do run_suite_once "$run" "$@"; done
}

# run_suite_once RUN TARGET PROGRAM CMD...: one run of a suite (RUN: its number when repeated, else "").
run_suite_once() {
    local run=$1 target=$2 prog=$3 name rc=0 log checks=0 fails=0 errors=0 found=no line why=""
    shift 3
    name=$(basename "$prog" .exe)
    log=$LOGS/$target/$name${run:+.$run}.log
    mkdir -p "$(dirname "$log")"
    # Under Wine, a program that failed without printing a single byte never ran (CI saw a
    # fresh prefix's loader give up that way once, the same suite passing right after): it is
    # run once more, and the line says so.  A suite that fails having printed anything is not.
    local attempt
    for attempt in 1 2; do
        rc=0
        timeout -k 10 "$TIMEOUT" "$@" "$prog" </dev/null >"$log.raw" 2>&1 || rc=$?
        tr -d '\r' <"$log.raw" >"$log" && rm -f "$log.raw"   # Wine writes CRLF
        [[ $target != linux && $rc != 0 && $rc != 124 && $rc != 137 && ! -s $log && $attempt == 1 ]] || break
        echo "note: $target/$name printed nothing and exited with status $rc under Wine; running it again"
    done
    while IFS= read -r line; do
        if [[ $line =~ $SUMMARY_RE ]]; then
            found=yes
            checks=$((checks + BASH_REMATCH[1]))
            fails=$((fails + BASH_REMATCH[2]))
            errors=$((errors + BASH_REMATCH[3]))
        fi
    done <"$log"
    local passed=$((checks - fails - errors)) failed=$((fails + errors))
    # A crash, a timeout or a sanitizer report at exit must fail the suite even when
    # Check's own summary (printed earlier) says all is well.
    if ((rc == 124 || rc == 137)); then
        why="timed out after ${TIMEOUT}s"
    elif ((rc != 0)); then
        why="exit status $rc"
    elif [[ $found == no ]] && ! grep -q '^skipped: ' "$log"; then
        why="no Check summary line"
    fi
    if [[ -n $why && $failed == 0 ]]; then
        failed=1
    fi
    TOTAL_PASSED=$((TOTAL_PASSED + passed))
    TOTAL_FAILED=$((TOTAL_FAILED + failed))
    local verdict=PASS
    ((failed == 0)) || verdict=FAIL
    printf '%-6s %-28s checks %3d  failures %2d  errors %2d  %s%s%s\n' \
        "$target" "$name" "$checks" "$fails" "$errors" "$verdict" "${run:+ (run $run of $REPEAT)}" "${why:+ ($why)}"
    grep '^skipped: ' "$log" || true
    if [[ $verdict == FAIL ]]; then
        echo "---- output of $target/$name (last 80 lines of ${log#"$ROOT"/}) ----"
        tail -n 80 "$log"
        echo "---- end of $target/$name ----"
        # Check's failure lines read "file.c:LINE:F:case:test:N: message"; the first two, or the reason
        local first
        first=$(grep -E '^[^ :]+:[0-9]+:[FE]:' "$log" | head -n 2 | tr '\n' ' ' || true)
        FAILED_LINES+=("$target/$name${run:+ (run $run)}: ${first:-${why:-see its output above}}")
    fi
}

run_linux() {
    local t
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    for t in "$BUILD"/linux/asan/tests/test_*; do
        [[ -f $t && -x $t ]] || continue
        JEVMON_BUILD=$BUILD/linux JEVMON_SRC=$ROOT run_suite linux "$t"
    done
}

# The unit suites built with -mfpmath=387: x86's excess precision, where x86 code may not run.
run_x87() {
    local t
    for t in "$BUILD"/linux/x87/tests/test_*; do
        [[ -f $t && -x $t ]] || continue
        JEVMON_BUILD=$BUILD/linux JEVMON_SRC=$ROOT run_suite x87 "$t"
    done
}

# ---- JVM suites inside sanitized JVMs ----------------------------------------------------------
# A chosen set of JVM suites (every event category, jevprof's modes, attach, heap dumps) runs again,
# target "sanitized", with build/linux/asan's agent, jevprof and test monitors (ASan + UBSan) loaded
# into real JVMs, on the newest JDK only: the runtime preloaded (HotSpot is not built with it),
# leaks not traced (LeakSanitizer cannot follow HotSpot's memory), SIGSEGV left to HotSpot, which
# takes it for null checks.  Reports go to build/test-logs/sanitized/<suite>/; any report fails.
# Knob: JEVMON_SANITIZED_SUITES (names; default: the suites mk/tests.mk tags sanitized, as the build
# wrote them to build/linux/asan/sanitized-suites; "" runs none).
SANITIZED_SUITES=${JEVMON_SANITIZED_SUITES-$(cat "$BUILD/linux/asan/sanitized-suites" 2>/dev/null || true)}

newest_jdk() {
    grep -H '^JAVA_VERSION=' /usr/lib/jvm/*/release 2>/dev/null | sed 's|/release:JAVA_VERSION="\(.*\)"|\t\1|' |
        sort -t$'\t' -k2,2V | tail -n 1 | cut -f1 | xargs -r readlink -f
}

run_sanitized_jvms() {
    local t reports runtime jdk before
    runtime=$(gcc -print-file-name=libasan.so)
    jdk=$(newest_jdk)
    for t in $SANITIZED_SUITES; do
        [[ -x $BUILD/linux/asan/tests/$t && -f $BUILD/linux/asan/libjevmon.so ]] || continue
        [[ -z $FILTER ]] || grep -qE "$FILTER" <<<"sanitized/$t" || continue
        reports=$LOGS/sanitized/$t
        mkdir -p "$reports"
        before=$TOTAL_FAILED
        LD_PRELOAD=$runtime JEVMON_TEST_JDK=$jdk JEVMON_BUILD=$BUILD/linux/asan JEVPROF_LIBDIR=$BUILD/linux/asan \
            JEVMON_SRC=$ROOT ASAN_OPTIONS=detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:log_path=$reports/asan \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$reports/ubsan \
            run_suite sanitized "$BUILD/linux/asan/tests/$t"
        if compgen -G "$reports/*san.*" >/dev/null; then
            echo "sanitized $t: sanitizer reports (${reports#"$ROOT"/}):"
            head -n 40 "$reports"/*san.*
            if ((TOTAL_FAILED == before)); then TOTAL_FAILED=$((TOTAL_FAILED + 1)); fi
            FAILED_LINES+=("sanitized/$t: sanitizer reports in ${reports#"$ROOT"/}")
        fi
    done
}

# Wine settings shared by every Windows suite; build/deps/wine.env comes from deps.sh.
setup_wine() {
    [[ -f $BUILD/deps/wine.env ]] || { echo "error: no build/deps/wine.env: run 'make deps'" >&2; exit 1; }
    # shellcheck source=/dev/null
    source "$BUILD/deps/wine.env"
    export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
    unset DISPLAY WAYLAND_DISPLAY
}

# The wineserver of a loader's own Debian package (wine64: wineserver64; wine32: wineserver32),
# else the other one: both of one Wine version speak the same protocol.
server_of() {
    local dir=${1%/*} bits=32
    [[ ${1##*/} == wine64 ]] && bits=64
    if [[ -x $dir/wineserver$bits ]]; then echo "$dir/wineserver$bits"; else echo "$dir/wineserver$((96 - bits))"; fi
}

# A wineserver left alone quits a few seconds after its last client, and a suite starting in
# those seconds died with "wine client error:0: recvmsg: Connection reset by peer".  So each
# prefix gets one persistent server for the whole run, killed at the end (also on failure or
# interrupt: the EXIT trap).  A server already there that does not quit within 15 s belongs to
# another run on this prefix: it is used and left to that run.
STARTED_SERVERS=()
start_wineserver() {
    local server=$1 prefix=$2
    if ! WINEPREFIX=$prefix "$server" -p 2>/dev/null; then
        WINEPREFIX=$prefix timeout 15 "$server" -w || true
        WINEPREFIX=$prefix "$server" -p 2>/dev/null || return 0
    fi
    STARTED_SERVERS+=("$server" "$prefix")
}
stop_wineservers() {
    local i
    trap '' INT TERM   # an interrupt now would leave a server running
    for ((i = 0; i < ${#STARTED_SERVERS[@]}; i += 2)); do
        WINEPREFIX=${STARTED_SERVERS[i + 1]} "${STARTED_SERVERS[i]}" -k 2>/dev/null || true
    done
    STARTED_SERVERS=()
}

# The Windows form of an absolute path: every prefix maps Z: to /. Computed here rather
# than with Debian's winepath wrapper, which picks its own loader whatever the prefix is.
windows_path() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }

# run_windows TARGET LOADER PREFIX: every build/TARGET/tests/test_*.exe under LOADER,
# called directly (not through Debian's wine wrapper) in the target's own prefix.
run_windows() {
    local target=$1 loader=$2 t
    local progs=("$BUILD/$target"/tests/test_*.exe) chosen=()
    for t in "${progs[@]}"; do
        if [[ -f $t ]] && chosen_suite "$target" "$t"; then chosen+=("$t"); fi
    done
    ((${#chosen[@]})) || return 0   # no server for nothing
    setup_wine
    local server
    server=$(server_of "$loader")
    start_wineserver "$server" "$3"
    for t in "${chosen[@]}"; do
        WINESERVER=$server WINEPREFIX=$3 JEVMON_BUILD=$(windows_path "$BUILD/$target") JEVMON_SRC=$(windows_path "$ROOT") \
            run_suite "$target" "$t" "$loader"
    done
}

main() {
    rm -rf "$LOGS"
    mkdir -p "$LOGS"
    trap stop_wineservers EXIT
    trap 'exit 130' INT TERM
    run_linux
    run_x87
    run_sanitized_jvms
    # shellcheck source=/dev/null
    [[ ! -f $BUILD/deps/wine.env ]] || source "$BUILD/deps/wine.env"   # each loader; setup_wine needs it
    run_windows win64 "${JEVMON_WINE64:-}" "${JEVMON_WINEPREFIX64:-}"
    if [[ -n ${JEVMON_WINE32:-} && -x ${JEVMON_WINE32:-} ]]; then
        run_windows win32 "$JEVMON_WINE32" "$JEVMON_WINEPREFIX32"
    else
        echo "skipped: no 32-bit wine: $(cat "$BUILD/deps/wine32.status" 2>/dev/null || echo "no build/deps/wine32.status")"
    fi
    local failed_line
    for failed_line in "${FAILED_LINES[@]}"; do echo "FAILED ${failed_line:0:400}"; done
    echo "TOTAL: $TOTAL_PASSED passed, $TOTAL_FAILED failed"
    ((TOTAL_FAILED == 0))
}

main "$@"

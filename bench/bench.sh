#!/usr/bin/env bash
# bench.sh - `make bench`: workloads with and without the agent, side by side in one run,
# interleaved so that machine noise hits every configuration alike; prints each
# configuration's median wall time and its ratio to no agent.
#   fib:   a call-heavy recursive fib (BridgeWorkload fib N, 78 million calls at the default N), and
#          the same fib calling two empty JNI natives per call (bench/jnifloor): the floor of the
#          instrumented mechanism
#   alloc: an allocation-heavy loop (HeapWorkload alloc N) under allocation callbacks
#   programs: H2 (a JDBC query loop), a Groovy and a JRuby script in calls mode, both JDKs
#          and an embedded Tomcat 10 under wrk: requests per second, no agent, the mechanism alone
#          (bench/startupprobe: natives that only count, empty Java methods), the bridge with a monitor
#          doing nothing, jevprof's cpu mode and calls mode
#          (BENCH_ONLY=tomcat alone; BENCH_TOMCAT_WARMUP, BENCH_TOMCAT_SECONDS, default 10 each)
#   calls: nanoseconds per call over no agent for the floor (bench/startupprobe's natives
#          reading the tick counter), the bridge with fx_silent and with callcount, jevprof's calls mode, and
#          each one's ratio to the floor's, on fib, the Groovy script and Tomcat, both JDKs (BENCH_ONLY=calls
#          alone; BENCH_CALLS_RUNS default 3, BENCH_CALLS_FIB default "28 35", BENCH_CALLS_ROUNDS "2 8":
#          processor time between a small and a large run, so start-up cancels out;
#          BENCH_CALLS_PROGRAMS, default "fib groovy tomcat", the programs to measure)
#   javac: javac compiling the JDK's own java.util.stream sources (Debian's openjdk-17-source,
#          with --patch-module java.base=...), a real program making ~200 million calls
#   vthreads: 10^6 short virtual threads (JDK 21+) under a THREADS monitor and callcount on both mechanisms
#   allocation profiles: the three AllocWorkload programs under jevprof's alloc mode (512 KiB) and
#          JFR's allocation sampling, each class's share of the bytes and the total beside the truth
#   sampling: SampleThreadLocation on every thread at 100 Hz and 1 kHz (the fx_sampler test monitor,
#          register sampling + AsyncGetCallTrace), beside JFR's execution sampler at the same rates,
#          on fib(BENCH_SAMPLING_FIB) in one thread and in BENCH_SAMPLING_THREADS threads
#   cost: each row of the cost table (docs/benchmarks.md) beside its anchors in one run: SPECIFIC_METHOD_CALLS
#          for one recursive method (fib(25) on JDK 17, fib(35) on Temurin 25 beside JFR's method timing),
#          jevprof's sample mode on javac beside JFR's profile settings, jevprof's default mode and a
#          monitor counting EXCEPTIONS on an exception loop beside JFR, and start-up on Hello world
# Not a timed test: it prints numbers and exits 0 unless a run fails.
# Knobs: BENCH_RUNS (fib and allocation runs, default 3), BENCH_ALLOCATIONS (default 20000000),
# BENCH_ALLOC_MIB (MiB each allocation-profile program allocates, default 512), BENCH_FIB
# (default 37: enough calls that the fixed start-up cost of instrumenting the JDK's classes, about
# 150 ms, does not hide the cost per call), BENCH_JAVAC_RUNS (default 1: the JVMTI row alone takes over a minute), BENCH_SAMPLING_RUNS
# (default 3), BENCH_SAMPLING_FIB (default 44), BENCH_SAMPLING_THREADS (default 4), BENCH_VTHREADS (default
# 1000000), BENCH_VTHREAD_JAVA (default: the first JDK 21+ under /usr/lib/jvm), JAVA.
# The profilers side by side, idle then with stress-ng --cpu 2: BENCH_ONLY=profilers runs them
# alone; BENCH_PROFILER_RUNS (default 9), BENCH_AGREE_RUNS (default 6), BENCH_STARTUP_RUNS (default 7), BENCH_RATE_SECONDS
# (default 10), BENCH_STEADY_RUNS (default 9), BENCH_STEADY_SECONDS (default 3), BENCH_ASYNC_PROFILER.
# Native frames and the JVM's own threads on javac beside async-profiler: BENCH_ONLY=native alone;
# BENCH_NATIVE_RUNS (default 5), BENCH_AGREE_RUNS (default 6).
# Real programs (H2, Groovy, JRuby): BENCH_ONLY=programs runs them alone; BENCH_PROGRAM_RUNS (default 1),
# BENCH_H2_QUERIES (default 2000), BENCH_SCRIPT_ROUNDS (default 10).
# Start-up of the instrumented path: BENCH_ONLY=startup, BENCH_STARTUP_RUNS (default 11 there):
# the mechanism alone, five ways (bench/startupprobe), beside callcount and jevprof's calls mode, both JDKs.
# Lock profiling: BENCH_ONLY=lock runs it alone; BENCH_LOCK_RUNS (default 3), BENCH_LOCK_OPS (default 1000000
# increments or merges per thread); idle, then with stress-ng --cpu 2.
# The cost tables: BENCH_ONLY=cost runs them alone; BENCH_COST_RUNS (default 3), BENCH_COST_JAVAC_RUNS
# (default 1), BENCH_COST_EXCEPTIONS (default 1000000), BENCH_COST_JAVA25 (default Temurin 25's java).
# Attaching: from the command to recording, bin/jevprof, jcmd and asprof: BENCH_ONLY=attach,
# BENCH_ATTACH_RUNS (default 5); idle, then with stress-ng --cpu 2.
# Attached to a serving Tomcat: throughput before, while and after each profiler records, and cpu
# mode's processor-time accounting: BENCH_ONLY=attached, BENCH_ATTACHED_SECONDS (default 12),
# BENCH_ATTACHED_RUNS (default 1), BENCH_ATTACHED_MODES (default cpu wall alloc), BENCH_TOMCAT_WARMUP
# (default 20 here).
# A periodic program under jevprof's and async-profiler's cpu sampling: BENCH_ONLY=periodic,
# BENCH_PERIODIC_RUNS (default 3), BENCH_PERIODIC_SECONDS (default 3).
set -euo pipefail
shopt -s globstar
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/linux
runs=${BENCH_RUNS:-3}
javac_runs=${BENCH_JAVAC_RUNS:-1}
fib=${BENCH_FIB:-37}
java=${JAVA:-java}
javac=${JAVAC:-$(dirname "$(readlink -f "$(command -v "$java")")")/javac}
src_zip=/usr/lib/jvm/openjdk-17/lib/src.zip
work=$(mktemp -d "$build/bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One private registry per monitor, written by the monitor's own DllRegisterServer.
register() { # register NAME MODULE
  JEVMON_REGISTRY_SYSTEM=$work/$1.reg JEVMON_REGISTRY_USER=$work/user.reg "$build/jevmon-regsvr" "$2" >/dev/null
}
# register_with_options NAME MODULE OPTIONS: the same, with an InitOptions value in the monitor's
# key (Monitors\<name> is the last key DllRegisterServer writes, so the appended value lands in it).
register_with_options() {
  register "$1" "$2"
  grep '^\[' "$work/$1.reg" | tail -n 1 | grep -q '^\[HKEY_LOCAL_MACHINE\\Software\\Microsoft\\Java VM\\Monitors\\'
  printf '"InitOptions"=dword:%08x\n' "$3" >>"$work/$1.reg"
}
# The callcount rows measure method calls alone: callcount promises both DONT_NEED_ALLOCATION
# options (0x30), so no allocation is tracked.  With 0xa more (GC_SAFE_METHOD_CALLS |
# WONT_TOGGLE_METHOD_CALL_EVENTS) the agent instruments method calls instead of using JVMTI events.
register_with_options callcount "$build/samples/callcount.so" 0x30
register_with_options callcount-instrumented "$build/samples/callcount.so" 0x3a
# fx_silent (tests/bridge/) asks for METHOD_CALLS and returns from every callback at once: with
# the same promises, it shows what the bridge costs before any monitor does anything.
register_with_options silent-instrumented "$build/fixtures/fx_silent.so" 0x3a
register jevprof "$build/libjevprof.so"
# registry_env ARRAY NAME: ARRAY gets the environment that enables monitors and has the agent read
# NAME's private registry (register's); jevprof_env is jevprof's.
registry_env() {
  local -n into=$1
  into=(MSJAVA_ENABLE_MONITORS=1 "JEVMON_REGISTRY_SYSTEM=$work/$2.reg" "JEVMON_REGISTRY_USER=$work/user.reg")
}
registry_env jevprof_env jevprof
register heapmon "$build/fixtures/fx_heapmon.so"

# SPECIFIC_METHOD_CALLS with one class enabled: every other method stops at its flag.
specific="instrumented, only java.lang.String's calls (CALLCOUNT_CLASS)"
silent="instrumented method calls, a monitor doing nothing (fx_silent)"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
median_of() { tr ' ' '\n' <<<"$1" | grep . | median; } # of a space-separated list
declare -A medians=() # the last table's medians by label, for the lines printed under it

# config_command CONFIG PROGRAM...: sets command to PROGRAM (a java command line) run under the
# configuration "label|registry|extra environment" (registry: a name given to register, or -
# for none): the agent goes in as -agentpath (javac: -J-agentpath); "bin/jevprof" runs it by bin/jevprof.
config_command() {
  local registry extra agent=() environment=() launcher=()
  IFS='|' read -r _ registry extra <<<"$1"
  shift
  environment=($extra)
  if [[ $registry == bin/jevprof ]]; then
    launcher=("$root/bin/jevprof")
  elif [[ $registry != - ]]; then
    agent=("-agentpath:$build/libjevmon.so")
    [[ $1 != "$javac" ]] || agent=("-J-agentpath:$build/libjevmon.so")
    registry_env environment "$registry"
    environment+=($extra)
  fi
  command=(env "${environment[@]}" "${launcher[@]}" "$1" "${agent[@]}" "${@:2}")
}
# table TITLE RUNS CONFIG... -- PROGRAM...: runs PROGRAM (a java command line without `java`)
# under each configuration "label|registry|extra environment" RUNS times, interleaved, and
# prints the medians.
table() {
  local title=$1 n=$2 configs=() program label run start end ms base command=()
  shift 2
  while [[ $1 != -- ]]; do configs+=("$1"); shift; done
  shift
  program=("$@")
  declare -A times=()
  for ((run = 1; run <= n; run++)); do
    for config in "${configs[@]}"; do
      label=${config%%|*}
      config_command "$config" "${program[@]}"
      start=$(date +%s%N)
      "${command[@]}" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
      end=$(date +%s%N)
      times[$label]+="$(( (end - start) / 1000000 )) "
    done
  done
  printf '%-64s %10s %8s\n' "$title, median of $n" "ms" "ratio"
  base=$(median_of "${times[no agent]}")
  medians=()
  for config in "${configs[@]}"; do
    label=${config%%|*}
    ms=$(median_of "${times[$label]}")
    medians[$label]=$ms
    printf '%-64s %10s %8s\n' "$label" "$ms" "$(awk -v a="$ms" -v b="$base" 'BEGIN {printf "%.1fx", a / b}')"
  done
  echo
}

# ---- Cost against JFR: each row of the cost table beside its anchors ------------------------------
register_with_options callcount-3e "$build/samples/callcount.so" 0x3e
register_with_options exceptions-silent "$build/fixtures/fx_silent.so" 0x30
cost_runs=${BENCH_COST_RUNS:-3}
cost_exceptions=${BENCH_COST_EXCEPTIONS:-1000000}
java25=${BENCH_COST_JAVA25:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
sampler_clsid="{821E1225-5E6E-41E1-87BE-6280CCB05DAD}" # fx_sampler, registered by hand (no DllRegisterServer)
printf 'Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\%s\\InprocServer32]\n@="%s"\n"ThreadingModel"="Both"\n' \
  "$sampler_clsid" "$build/fixtures/fx_sampler.so" >"$work/sampler.reg"
# added NAME...: each label's median over no agent's, in ms, under the table
added() {
  local label
  for label in "$@"; do
    printf '  %-62s %+8d ms\n' "$label" "$(( ${medians[$label]} - ${medians[no agent]} ))"
  done
  echo
}
cost_tables() {
  local all="all calls, callcount instrumented (InitOptions 0x3a)" specific="only BridgeWorkload's calls (SPECIFIC_METHOD_CALLS)"
  echo "== Cost against JFR =="
  echo
  table "fib(25), SPECIFIC_METHOD_CALLS for one recursive method, $("$java" -version 2>&1 | head -n 1)" "$cost_runs" \
    "no agent|-|" \
    "$all|callcount-instrumented|CALLCOUNT_FILE=$work/cost-all.txt" \
    "$specific|callcount-instrumented|CALLCOUNT_FILE=$work/cost-specific.txt CALLCOUNT_CLASS=BridgeWorkload" \
    -- "$java" -cp "$build/java" BridgeWorkload fib 25
  if [[ -x $java25 ]]; then
    table "fib(35), the same, $("$java25" -version 2>&1 | head -n 1)" "$cost_runs" \
      "no agent|-|" \
      "$all|callcount-instrumented|CALLCOUNT_FILE=$work/cost-all25.txt" \
      "$specific|callcount-instrumented|CALLCOUNT_FILE=$work/cost-specific25.txt CALLCOUNT_CLASS=BridgeWorkload" \
      "JFR method timing of BridgeWorkload::fib|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=method-timing=BridgeWorkload::fib,filename=$work/timing.jfr" \
      -- "$java25" -cp "$build/java" BridgeWorkload fib 35
  else
    echo "fib(35) on Temurin 25: skipped, no $java25"
  fi
  if [[ -f $src_zip ]]; then
    [[ -d $work/java.base/java/util ]] || (cd "$work" && unzip -qo "$src_zip" 'java.base/java/util/*')
    local sources=("$work"/java.base/java/util/**/*.java)
    table "javac java.util and its subpackages (${#sources[@]} files)" "${BENCH_COST_JAVAC_RUNS:-1}" \
      "no agent|-|" \
      "jevprof, sample mode (10 ms)|jevprof|JEVPROF_MODE=sample JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work/jp-javac" \
      "JFR, settings=profile|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=settings=profile,filename=$work/javac.jfr" \
      -- "$javac" --patch-module "java.base=$work/java.base" -d "$work/util-classes" "${sources[@]}"
  else
    echo "javac: skipped, $src_zip missing (openjdk-17-source; make deps installs it)"
  fi
  table "a loop throwing and catching $cost_exceptions exceptions (CostWorkload)" "$cost_runs" \
    "no agent|-|" \
    "jevprof, default mode|jevprof|JEVPROF_OUTPUT_DIR=$work/jp-exceptions" \
    "a monitor receiving EXCEPTIONS, doing nothing (fx_silent)|exceptions-silent|FXSILENT_REQUEST=20" \
    "JFR, every throw recorded (exceptions=all)|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=exceptions=all,filename=$work/exceptions.jfr" \
    -- "$java" -cp "$build/java" CostWorkload exceptions "$cost_exceptions"
  local label
  for label in "jevprof, default mode" "a monitor receiving EXCEPTIONS, doing nothing (fx_silent)"; do
    awk -v l="$label" -v a="${medians[$label]}" -v b="${medians[no agent]}" -v n="$cost_exceptions" \
      'BEGIN {printf "  %-62s %8.2f us per throw\n", l, (a - b) * 1000 / n}'
  done
  echo
  local hello=(
    "no agent|-|"
    "the agent, no monitor|none|"
    "JFR, default settings|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=$work/hello.jfr"
    "callcount instrumented (InitOptions 0x3e)|callcount-3e|CALLCOUNT_FILE=$work/hello-callcount.txt"
    "jevprof, calls mode|jevprof|JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work/jp-hello-calls"
    "jevprof, sample mode|jevprof|JEVPROF_MODE=sample JEVPROF_OUTPUT_DIR=$work/jp-hello-sample"
    "SAMPLING asked (fx_sampler, 100 Hz)|sampler|MSJAVA_EVENT_MONITORS=$sampler_clsid FXSAMPLE_POSSIBLE=300 FXSAMPLE_HZ=100 FXMON_LOG=$work/hello-sampler.log"
  )
  table "start-up: Hello world (CostWorkload hello)" "$cost_runs" "${hello[@]}" -- "$java" -cp "$build/java" CostWorkload hello
  echo "start-up added to Hello world:"
  local row
  for row in "${hello[@]:1}"; do
    added "${row%%|*}"
  done | grep -v '^$'
  echo
}
# ---- Real programs in calls mode: H2, Groovy, JRuby from their Debian packages --------------------
# Each program beside no agent on both JDKs: the bridge alone (fx_silent), callcount, and jevprof's
# calls mode, all instrumented; then the calls callcount counted and each row's cost per call.
program_runs=${BENCH_PROGRAM_RUNS:-1}
h2_jar=/usr/share/java/h2.jar groovy_jar=/usr/share/java/groovy-all.jar jruby_jar=/usr/share/jruby/lib/jruby.jar
program_table() { # program_table NAME JAVA ARGUMENT...: one program's table and its cost per call
  local name=$1 java_bin=$2 label
  shift 2
  table "$name, $("$java_bin" -version 2>&1 | head -n 1)" "$program_runs" \
    "no agent|-|" \
    "$silent|silent-instrumented|" \
    "instrumented method calls, callcount sample|callcount-instrumented|CALLCOUNT_FILE=$work/program-calls.txt" \
    "jevprof, calls mode|jevprof|JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work/jp-program" \
    -- "$java_bin" "$@"
  local calls
  calls=$(awk '!/^#/ {s += $1} END {print s}' "$work/program-calls.txt")
  echo "  ($calls calls counted)"
  for label in "$silent" "instrumented method calls, callcount sample" "jevprof, calls mode"; do
    awk -v l="$label" -v a="${medians[$label]}" -v b="${medians[no agent]}" -v n="$calls" \
      'BEGIN {printf "  %-62s %8.0f ns per call\n", l, (a - b) * 1e6 / n}'
  done
  echo
}
program_tables() {
  echo "== Real programs in calls mode =="
  echo
  local java_bin
  for java_bin in "$java" "$java25"; do
    command -v "$java_bin" >/dev/null || { echo "real programs on $java_bin: skipped, no such JDK"; continue; }
    if [[ -f $h2_jar ]]; then
      program_table "H2: a JDBC query loop (H2Workload ${BENCH_H2_QUERIES:-2000})" "$java_bin" \
        -cp "$h2_jar:$build/java" H2Workload "${BENCH_H2_QUERIES:-2000}"
    else
      echo "H2: skipped, $h2_jar missing (Debian's libh2-java)"
    fi
    if [[ -f $groovy_jar ]]; then
      program_table "Groovy script (GroovyWorkload.groovy ${BENCH_SCRIPT_ROUNDS:-10})" "$java_bin" \
        -cp "$groovy_jar" groovy.ui.GroovyMain "$root/bench/workloads/GroovyWorkload.groovy" "${BENCH_SCRIPT_ROUNDS:-10}"
    else
      echo "Groovy: skipped, $groovy_jar missing (Debian's groovy)"
    fi
    if [[ -f $jruby_jar ]]; then # the java command line Debian's jruby script runs
      program_table "JRuby script (JRubyWorkload.rb ${BENCH_SCRIPT_ROUNDS:-10})" "$java_bin" \
        @/usr/share/jruby/bin/.jruby.module_opts -Xss2048k --module-path "$jruby_jar" -Djruby.home=/usr/share/jruby \
        org.jruby.Main "$root/bench/workloads/JRubyWorkload.rb" "${BENCH_SCRIPT_ROUNDS:-10}"
    else
      echo "JRuby: skipped, $jruby_jar missing (Debian's jruby)"
    fi
  done
}
# build_probe: $probe, bench/startupprobe built against the rewriter's objects (those of its sources:
# a build directory may hold objects of files since removed).
probe=$work/libstartupprobe.so
build_probe() {
  [[ ! -f $probe ]] || return 0
  local jdk_home source objects=()
  jdk_home=$(dirname "$(dirname "$javac")")
  for source in "$root"/src/classfile/*.c; do
    objects+=("$build/obj/src/classfile/$(basename "${source%.c}").o")
  done
  gcc -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -ftls-model=initial-exec -I"$jdk_home/include" -I"$jdk_home/include/linux" \
    -I"$root/src" -I"$root/include" "$root/bench/startupprobe/startupprobe.c" \
    -Wl,--whole-archive "${objects[@]}" -Wl,--no-whole-archive "$build/libjevplat.a" \
    -ldl -pthread -o "$probe"
}
# Request throughput: an embedded Tomcat 10 (tests/attach/tomcat/) under wrk on loopback,
# warmed up, then measured for BENCH_TOMCAT_SECONDS; requests per second beside no agent.
tomcat_jars=(/usr/share/java/tomcat10-{api,catalina,coyote,juli,util,util-scan,servlet-api,jaspic-api,annotations-api,jni,el-api}.jar)
server_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # server_ticks PID: user + system, in clock ticks
tomcat_rps() { # tomcat_rps JAVA AGENT|- [ENVIRONMENT...]: requests per second, after a warm-up
  local java_bin=$1 port='' rps
  local agent=()
  [[ $2 == - ]] || agent=("-agentpath:$2")
  shift 2
  # the last server's files go first: its "ready" line, read before this one's redirection truncates
  # the file, named a port no one serves any more
  rm -f "$work/tomcat.in" "$work/tomcat.cpu" "$work/tomcat.out" && mkfifo "$work/tomcat.in"
  env "$@" "$java_bin" "${agent[@]}" -cp "$tomcat_cp:$work/tomcat-classes" TomcatWorkload "$work/tomcat-base" \
    <"$work/tomcat.in" >"$work/tomcat.out" 2>"$work/tomcat.err" &
  local server=$!
  exec {to_server}>"$work/tomcat.in"
  for ((i = 0; i < 300; i++)); do
    port=$(awk '/^ready / {print $2}' "$work/tomcat.out")
    [[ -z $port ]] || break
    sleep 0.2
  done
  if [[ -n $port ]]; then
    wrk -t2 -c16 -d"${BENCH_TOMCAT_WARMUP:-10}"s "http://127.0.0.1:$port/page" >"$work/wrk-warmup.out"
    local ticks_before
    ticks_before=$(server_ticks "$server")
    wrk -t2 -c16 -d"${BENCH_TOMCAT_SECONDS:-10}"s "http://127.0.0.1:$port/page" >"$work/wrk.out"
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.out")
    # the server's processor time per request while measured, in ns (calls_tables)
    awk -v t="$(($(server_ticks "$server") - ticks_before))" -v hz="$(getconf CLK_TCK)" \
      '/ requests in / {printf "%.0f\n", ($1 > 0 ? t * 1e9 / hz / $1 : 0)}' "$work/wrk.out" >"$work/tomcat.cpu"
    # every request the server answered, for the cost per call (calls_tables)
    awk '/ requests in / {n += $1} END {print n}' "$work/wrk-warmup.out" "$work/wrk.out" >"$work/tomcat.requests"
  fi
  exec {to_server}>&-
  wait "$server" || true
  [[ -n $port && -n $rps ]] || { echo "Tomcat did not serve: $(tail -n 3 "$work/tomcat.err")" >&2; echo 0; return; }
  echo "$rps"
}
tomcat_table() { # tomcat_table JAVA
  local java_bin=$1 base row rps
  echo "Tomcat 10, one servlet, wrk -t2 -c16, ${BENCH_TOMCAT_SECONDS:-10} s after a ${BENCH_TOMCAT_WARMUP:-10} s warm-up, $("$java_bin" -version 2>&1 | head -n 1)"
  printf '  %-62s %12s %8s\n' "" "requests/s" "ratio"
  local silent_env agent=$build/libjevmon.so
  registry_env silent_env silent-instrumented
  # The probe rows (bench/startupprobe, no bridge, no monitor) bound what any monitor can get:
  # every call through a native that only counts, or also reads the clock a calls profiler needs
  # at each entry and exit; every call into an empty Java method, or one reading Java's clock.
  for row in "no agent|-|" \
    "probe: every call into a native that only counts|$probe|STARTUP_PROBE=retransform" \
    "probe: the same, reading the tick counter at entry and exit|$probe|STARTUP_PROBE=retransform STARTUP_PROBE_BRIDGE=native-clock" \
    "probe: every call into an empty Java method|$probe|STARTUP_PROBE=retransform STARTUP_PROBE_BRIDGE=java" \
    "probe: the same, reading System.nanoTime at entry and exit|$probe|STARTUP_PROBE=retransform STARTUP_PROBE_BRIDGE=java-clock" \
    "$silent|$agent|${silent_env[*]}" \
    "jevprof, cpu mode (10 ms)|$agent|${jevprof_env[*]} JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work/jp-tomcat" \
    "jevprof, calls mode|$agent|${jevprof_env[*]} JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work/jp-tomcat"; do
    IFS='|' read -r label row_agent row_env <<<"$row"
    local settings=($row_env)
    rps=$(tomcat_rps "$java_bin" "$row_agent" "${settings[@]}")
    [[ $row_agent != - ]] || base=$rps
    awk -v l="$label" -v r="$rps" -v b="$base" 'BEGIN {printf "  %-62s %12.0f %7.3fx\n", l, r, (b > 0 ? r / b : 0)}'
  done
  echo
}
tomcat_compile() { # sets tomcat_cp; TomcatWorkload's classes in $work/tomcat-classes
  tomcat_cp=$(IFS=:; echo "${tomcat_jars[*]}")
  [[ -d $work/tomcat-classes ]] ||
    "$javac" -nowarn -cp "$tomcat_cp" -d "$work/tomcat-classes" "$root/tests/attach/tomcat/TomcatWorkload.java"
}
tomcat_tables() {
  if ! command -v wrk >/dev/null || [[ ! -f /usr/share/java/tomcat10-catalina.jar ]]; then
    echo "Tomcat throughput: skipped, needs Debian's libtomcat10-java and wrk (make deps installs them)"
    return
  fi
  tomcat_compile
  build_probe
  local java_bin
  for java_bin in "$java" "$java25"; do
    command -v "$java_bin" >/dev/null || { echo "Tomcat on $java_bin: skipped, no such JDK"; continue; }
    tomcat_table "$java_bin"
  done
}
if [[ ${BENCH_ONLY:-} == programs ]]; then
  program_tables
  tomcat_tables
  exit 0
fi
if [[ ${BENCH_ONLY:-} == tomcat ]]; then
  tomcat_tables
  exit 0
fi
if [[ ${BENCH_ONLY:-} == cost ]]; then
  cost_tables
  exit 0
fi

# ---- Cost per call: the bridge and jevprof against the floor, in one run ------------------------
# The floor: bench/startupprobe's natives reading the tick counter at each entry and exit (the
# least an exact calls profiler pays: the rewritten classes, two JNI calls, two clock reads).  Each
# row's added time per call, over no agent, and its ratio to the floor's.  fib and the Groovy
# script run twice per row, small and large (BENCH_CALLS_FIB 28 and 35, BENCH_CALLS_ROUNDS 2 and 8):
# the processor time (user + system; the main thread's for Groovy) of the large run less the small
# one's, over the calls between them, so start-up and the instrumenting of the JDK's classes cancel
# out and the machine's other load does not count (median of BENCH_CALLS_RUNS, default 3, interleaved).  The probe without
# the clock reads shows the two JNI calls alone.  Tomcat by the server's processor time per request
# while wrk measures (added time per request over the calls a request makes, counted by the probe),
# median of BENCH_CALLS_RUNS interleaved rounds too.
calls_rows() { # calls_rows ARRAY: the rows, "label|agent|environment"
  local -n calls_into=$1
  local silent_env callcount_env agent=$build/libjevmon.so
  registry_env silent_env silent-instrumented
  registry_env callcount_env callcount-instrumented
  calls_into=("no agent|-|"
    "floor: natives reading the tick counter (probe)|$probe|STARTUP_PROBE=retransform STARTUP_PROBE_BRIDGE=native-clock STARTUP_PROBE_PRINT=1"
    "the floor's two JNI calls alone, no clock (probe)|$probe|STARTUP_PROBE=retransform STARTUP_PROBE_PRINT=1"
    "the bridge, a monitor doing nothing (fx_silent)|$agent|${silent_env[*]}"
    "the bridge, callcount|$agent|${callcount_env[*]} CALLCOUNT_FILE=$work/calls-callcount.txt"
    "jevprof, calls mode|$agent|${jevprof_env[*]} JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work/jp-calls")
}
# calls_print LABEL ADDED_NS FLOOR_NS: one row's added time per call and its ratio to the floor's
calls_print() {
  awk -v l="$1" -v a="$2" -v f="$3" 'BEGIN {printf "  %-52s %9.1f ns %7.2fx\n", l, a, (f > 0 ? a / f : 0)}'
}
probe_calls() { awk '/^startupprobe: [0-9]+ entries/ {print $2}' "$1"; }
# cpu_us COMMAND...: runs it (stdout discarded, stderr to $work/stderr) and prints its processor time
# in us: the main thread's where the program says it ("main thread cpu ns N", GroovyWorkload: the
# JIT's threads vary from run to run), else the process's.
cpu_us() {
  local TIMEFORMAT='%3U %3S' times
  times=$({ time "$@" >/dev/null 2>"$work/stderr"; } 2>&1) || { cat "$work/stderr" >&2; exit 1; }
  awk -v t="$times" '/^main thread cpu ns [0-9]+$/ {ns = $5} END {split(t, p, " "); printf "%d\n", ns ? ns / 1e3 : (p[1] + p[2]) * 1e6}' "$work/stderr"
}
calls_program_table() { # calls_program_table TITLE SMALL LARGE JAVA ARGUMENT...: the size is the last argument
  local title=$1 small=$2 large=$3 java_bin=$4 rows row run label row_agent row_env calls=0 floor_ns us0 us
  shift 4
  calls_rows rows
  declare -A times=()
  for ((run = 1; run <= ${BENCH_CALLS_RUNS:-3}; run++)); do
    for row in "${rows[@]}"; do
      IFS='|' read -r label row_agent row_env <<<"$row"
      local agent=() settings=($row_env) small_us small_calls
      [[ $row_agent == - ]] || agent=("-agentpath:$row_agent")
      small_us=$(cpu_us env "${settings[@]}" "$java_bin" "${agent[@]}" "$@" "$small")
      [[ $row != "${rows[1]}" ]] || small_calls=$(probe_calls "$work/stderr")
      us=$(cpu_us env "${settings[@]}" "$java_bin" "${agent[@]}" "$@" "$large")
      [[ $row != "${rows[1]}" ]] || calls=$(($(probe_calls "$work/stderr") - small_calls))
      times[$label]+="$((us - small_us)) "
    done
  done
  echo "$title, $small to $large, $("$java_bin" -version 2>&1 | head -n 1): $calls calls, median of ${BENCH_CALLS_RUNS:-3}"
  printf '  %-52s %12s %8s\n' "added processor time per call, over no agent" "" "x floor"
  us0=$(median_of "${times[no agent]}")
  for row in "${rows[@]:1}"; do
    label=${row%%|*}
    us=$(median_of "${times[$label]}")
    local ns=$(awk -v a="$us" -v b="$us0" -v n="$calls" 'BEGIN {print (a - b) * 1e3 / n}')
    [[ -n ${floor_ns:-} ]] || floor_ns=$ns
    calls_print "$label" "$ns" "$floor_ns"
  done
  echo
}
calls_tomcat_table() { # calls_tomcat_table JAVA: by the server's processor time per request
  local java_bin=$1 rows row run label row_agent row_env cpu0 floor_ns per_request calls_per_request=
  local rounds=${BENCH_CALLS_RUNS:-3}
  calls_rows rows
  declare -A cpus=() rates=()
  # interleaved rounds, medians: one 10 s run of a row moves by a tenth between runs
  for ((run = 1; run <= rounds; run++)); do
    for row in "${rows[@]}"; do
      IFS='|' read -r label row_agent row_env <<<"$row"
      local settings=($row_env)
      rates[$label]+="$(tomcat_rps "$java_bin" "$row_agent" "${settings[@]}") "
      cpus[$label]+="$(cat "$work/tomcat.cpu" 2>/dev/null || echo 0) "
      # the calls a request makes (the server's start-up included), counted by the floor's probe
      [[ $row != "${rows[1]}" ]] ||
        calls_per_request+="$(awk -v c="$(probe_calls "$work/tomcat.err")" -v r="$(cat "$work/tomcat.requests")" 'BEGIN {print c / r}') "
    done
  done
  per_request=$(median_of "$calls_per_request")
  cpu0=$(median_of "${cpus[no agent]}")
  echo "Tomcat 10, wrk -t2 -c16, ${BENCH_TOMCAT_SECONDS:-10} s after ${BENCH_TOMCAT_WARMUP:-10} s, $("$java_bin" -version 2>&1 | head -n 1), median of $rounds"
  printf '  no agent: %.0f us of processor time per request; %.0f calls per request\n' "$((cpu0 / 1000))" "$per_request"
  printf '  %-52s %12s %8s\n' "added processor time per call, over no agent" "" "x floor"
  for row in "${rows[@]:1}"; do
    label=${row%%|*}
    local cpu rps ns
    cpu=$(median_of "${cpus[$label]}")
    rps=$(median_of "${rates[$label]}")
    ns=$(awk -v c="$cpu" -v b="$cpu0" -v n="$per_request" 'BEGIN {print (c > 0 && n > 0 ? (c - b) / n : 0)}')
    [[ -n ${floor_ns:-} ]] || floor_ns=$ns
    calls_print "$label ($rps/s)" "$ns" "$floor_ns"
  done
  echo
}
calls_wanted() { [[ " ${BENCH_CALLS_PROGRAMS:-fib groovy tomcat} " == *" $1 "* ]]; } # calls_wanted PROGRAM
calls_tables() {
  local java_bin
  echo "== Cost per call against the floor =="
  echo
  build_probe
  for java_bin in "$java" "$java25"; do
    command -v "$java_bin" >/dev/null || { echo "cost per call on $java_bin: skipped, no such JDK"; continue; }
    ! calls_wanted fib ||
      calls_program_table "fib (BridgeWorkload)" ${BENCH_CALLS_FIB:-28 35} "$java_bin" -cp "$build/java" BridgeWorkload fib
    if ! calls_wanted groovy; then
      :
    elif [[ -f $groovy_jar ]]; then
      calls_program_table "Groovy script (GroovyWorkload.groovy), rounds" ${BENCH_CALLS_ROUNDS:-2 8} "$java_bin" \
        -cp "$groovy_jar" groovy.ui.GroovyMain "$root/bench/workloads/GroovyWorkload.groovy"
    else
      echo "Groovy: skipped, $groovy_jar missing (Debian's groovy)"
    fi
  done
  if ! calls_wanted tomcat; then
    return
  elif ! command -v wrk >/dev/null || [[ ! -f /usr/share/java/tomcat10-catalina.jar ]]; then
    echo "Tomcat: skipped, needs Debian's libtomcat10-java and wrk (make deps installs them)"
    return
  fi
  tomcat_cp=$(IFS=:; echo "${tomcat_jars[*]}")
  "$javac" -nowarn -cp "$tomcat_cp" -d "$work/tomcat-classes" "$root/tests/attach/tomcat/TomcatWorkload.java"
  for java_bin in "$java" "$java25"; do
    command -v "$java_bin" >/dev/null && calls_tomcat_table "$java_bin"
  done
}
if [[ ${BENCH_ONLY:-} == calls ]]; then
  calls_tables
  exit 0
fi

# ---- Profilers side by side: jevprof's cpu mode, async-profiler, JFR -----------------------------
# async-profiler is a peer's build (../shared/peers/async-profiler from the checkout, or
# BENCH_ASYNC_PROFILER: its libasyncProfiler.so); its rows are skipped, with a line, without it.
ap_lib=${BENCH_ASYNC_PROFILER:-}
for dir in "$root/../shared" "$root/../../shared"; do
  [[ -n $ap_lib || ! -f $dir/peers/async-profiler/lib/libasyncProfiler.so ]] || ap_lib=$(cd "$dir" && pwd)/peers/async-profiler/lib/libasyncProfiler.so
done
profiler_runs=${BENCH_PROFILER_RUNS:-9}
# measured TITLE RUNS CONFIG... -- PROGRAM...: as table, each configuration "label|registry|extra
# environment", with the medians of wall time, processor time (user + system) and maximum RSS
# (/usr/bin/time), and the ratio or difference to no agent; "cpu, paired" is the median of each
# round's processor time over no agent's in that round, with a 95% range (paired_ratio).  Each round
# starts one configuration later than the one before.  Registry "bin/jevprof": the program is
# run by the command line a user types, `bin/jevprof PROGRAM...`, its settings from the environment.
measured() {
  local title=$1 n=$2 configs=() program label run config command=()
  shift 2
  while [[ $1 != -- ]]; do configs+=("$1"); shift; done
  shift
  program=("$@")
  declare -A wall=() cpu=() rss=()
  for ((run = 1; run <= n; run++)); do
    # each round starts one configuration later: none is always first, after another's page cache
    local shift_by=$(((run - 1) % ${#configs[@]}))
    for config in "${configs[@]:shift_by}" "${configs[@]:0:shift_by}"; do
      label=${config%%|*}
      config_command "$config" "${program[@]}"
      local started ended # wall time to the millisecond (time's %e has ten), processor time and RSS from time
      started=$(date +%s%N)
      /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "${command[@]}" >/dev/null 2>"$work/stderr" ||
        { cat "$work/stderr" >&2; exit 1; }
      ended=$(date +%s%N)
      read -r e u s m <"$work/time.txt"
      wall[$label]+="$(((ended - started) / 1000000)) "
      cpu[$label]+="$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%d", (u + s) * 1000}') "
      rss[$label]+="$((m / 1024)) "
    done
  done
  printf '%-52s %9s %6s %9s %6s %18s %8s %7s\n' "$title, median of $n" "wall ms" "ratio" "cpu ms" "ratio" "cpu, paired" \
    "RSS MB" "added"
  local w0 c0 r0 w c r
  w0=$(median_of "${wall[no agent]}")
  c0=$(median_of "${cpu[no agent]}")
  r0=$(median_of "${rss[no agent]}")
  for config in "${configs[@]}"; do
    label=${config%%|*}
    w=$(median_of "${wall[$label]}")
    c=$(median_of "${cpu[$label]}")
    r=$(median_of "${rss[$label]}")
    printf '%-52s %9s %6s %9s %6s %18s %8s %+7d\n' "$label" "$w" "$(awk -v a="$w" -v b="$w0" 'BEGIN {printf "%.2fx", a / b}')" \
      "$c" "$(awk -v a="$c" -v b="$c0" 'BEGIN {printf "%.2fx", a / b}')" "$(paired_ratio "${cpu[$label]}" "${cpu[no agent]}")" \
      "$r" "$((r - r0))"
  done
  echo
}
# paired_ratio "TIMES" "BASE TIMES": the median of each round's time over the base's in that round,
# and the order statistics around it that hold the true median 95% of the time (for 9 rounds the
# 2nd and 8th): two rows whose ranges overlap are not told apart by this run.
paired_ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN {
    n = split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i++) r[i] = x[i] / y[i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && r[j - 1] > r[j]; j--) { t = r[j]; r[j] = r[j - 1]; r[j - 1] = t }
    k = int((n + 1) / 2 - 0.98 * sqrt(n)); if (k < 1) k = 1
    printf("%.2fx (%.2f-%.2f)", (r[int((n + 1) / 2)] + r[int(n / 2) + 1]) / 2, r[k], r[n + 1 - k]) }'
}

# ---- Start-up of the instrumented path: its mechanism alone beside the bridge --------------------
# bench/startupprobe: an agent whose natives only count, so each row is what HotSpot and the
# rewriting cost for one way of giving the classes loaded before VMInit their calls (see its
# header): an early class hook that rewrites nothing (CDS is then off), today's retransformation
# at VMInit, the same on two threads, and rewriting every class as it loads (early hook), with and
# without the flag array keeping the JDK's start-up code from calling the natives before VMInit.
startup_tables() {
  local java_bin
  build_probe
  for java_bin in "$java" "$java25"; do
    command -v "$java_bin" >/dev/null || { echo "start-up on $java_bin: skipped, no such JDK"; continue; }
    measured "Hello world, $("$java_bin" -version 2>&1 | head -n 1)" "${BENCH_STARTUP_RUNS:-11}" \
      "no agent|-|" \
      "early class hook, nothing rewritten (CDS off)|-|JAVA_TOOL_OPTIONS=-agentpath:$probe STARTUP_PROBE=hook" \
      "probe: retransformed at VMInit (today's mechanism)|-|JAVA_TOOL_OPTIONS=-agentpath:$probe STARTUP_PROBE=retransform" \
      "probe: retransformed on two threads|-|JAVA_TOOL_OPTIONS=-agentpath:$probe STARTUP_PROBE=parallel" \
      "probe: rewritten as they load (early hook)|-|JAVA_TOOL_OPTIONS=-agentpath:$probe STARTUP_PROBE=early" \
      "probe: the same, flags clear until VMInit|-|JAVA_TOOL_OPTIONS=-agentpath:$probe STARTUP_PROBE=early-flagged" \
      "callcount instrumented (InitOptions 0x3e)|callcount-3e|CALLCOUNT_FILE=$work/hello-callcount.txt" \
      "jevprof, calls mode|jevprof|JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work/jp-hello-calls" \
      -- "$java_bin" -cp "$build/java" CostWorkload hello
    echo
  done
}
if [[ ${BENCH_ONLY:-} == startup ]]; then
  startup_tables
  exit 0
fi
# top_java TOOL FILE...: the ten Java methods with the most self samples in collapsed files (a
# stack's innermost Java frame; async-profiler's native frames are left out, its names made
# jevprof's: dots, no signature), one a line with its share.
top_java() {
  python3 - "$@" <<'PY'
import re, sys, collections
tool, files = sys.argv[1], sys.argv[2:]
java = re.compile(r"^[A-Za-z_$][\w$]*([./][\w$]+)*\.[\w$<>]+$")
self = collections.Counter()
for name in files:
    for line in open(name, errors="replace"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        frames = [re.sub(r"_\[[a-z0-9]\]$", "", f).split("(")[0] for f in stack.split(";")]
        frames = [f.replace("/", ".") for f in frames if java.match(f.split("(")[0]) and ("/" in f or tool == "jevprof")]
        if frames and count.isdigit():
            self[frames[-1]] += int(count)
total = sum(self.values()) or 1
for method, n in self.most_common(10):
    print(f"{100 * n / total:6.2f}%  {method}")
PY
}
# top_report REPORT...: the ten Java methods with the most self samples in jevprof's reports, from
# their "Top N methods by self samples" tables (the whole profile: a collapsed file past its size
# bound folds small paths into their callers, which would then take their samples), named as
# top_java names them, each with its share of the reports' samples.
top_report() {
  python3 - "$@" <<'PY'
import re, sys, collections
java = re.compile(r"^[A-Za-z_$][\w$]*([./][\w$]+)*\.[\w$<>]+$")
self, total = collections.Counter(), 0
for name in sys.argv[1:]:
    table = False
    for line in open(name, errors="replace"):
        taken = re.match(r"Thread samples: (\d+) in the profile", line)
        total += int(taken.group(1)) if taken else 0
        if re.match(r"Top \d+ methods by self samples", line):
            table = True
            continue
        fields = line.split(None, 4)
        if table and not line.strip():
            table = False
        elif table and len(fields) == 5 and fields[0].isdigit():
            method = fields[4].split("(")[0].strip()
            if java.match(method):
                self[method] += int(fields[0])
for method, n in self.most_common(10):
    print(f"{100 * n / (total or 1):6.2f}%  {method}")
PY
}
# load_now: the machine's load averages (uptime's), for the titles: the machine is shared.
load_now() { sed 's/.*load average: //' <<<"$(uptime)"; }
# profiler_javac TITLE COMPILE...: javac at 10 ms under no agent, jevprof cpu and wall, async-profiler
# cpu, wall and itimer, and JFR's profile settings, interleaved.
profiler_javac() {
  local title=$1 ap_rows=()
  shift
  [[ -z $ap_lib ]] || ap_rows=(
    "async-profiler 4.5, event=cpu, 10 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=10ms,file=$work/ap-javac.collapsed"
    "async-profiler 4.5, event=wall, 10 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=wall,interval=10ms,file=$work/ap-javac-w.collapsed"
    "async-profiler 4.5, event=itimer, 10 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=itimer,interval=10ms,file=$work/ap-javac-i.collapsed")
  measured "$title" "$profiler_runs" \
    "no agent|-|" \
    "jevprof, cpu mode (10 ms)|jevprof|JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work/jp-javac" \
    "jevprof, wall mode (10 ms)|jevprof|JEVPROF_MODE=wall JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work/jp-javac-w" \
    "${ap_rows[@]}" \
    "JFR, settings=profile|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=settings=profile,filename=$work/javac.jfr" \
    -- "$@"
}
profiler_hello() { # profiler_hello TITLE
  local ap_hello=()
  [[ -z $ap_lib ]] ||
    ap_hello=("async-profiler 4.5, event=cpu|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=10ms,file=$work/ap-hello.collapsed")
  measured "$1" "${BENCH_STARTUP_RUNS:-7}" \
    "no agent|-|" \
    "jevprof, cpu mode|jevprof|JEVPROF_MODE=cpu JEVPROF_OUTPUT_DIR=$work/jp-hello" \
    "jevprof, cpu mode, by bin/jevprof|bin/jevprof|JEVPROF_MODE=cpu JEVPROF_OUTPUT_DIR=$work/jp-hello-cli" \
    "jevprof, cpu mode, --kstack no|jevprof|JEVPROF_MODE=cpu JEVPROF_KSTACK=no JEVPROF_OUTPUT_DIR=$work/jp-hello-k" \
    "${ap_hello[@]}" \
    "JFR, default settings|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=$work/hello.jfr" \
    -- "$java" -cp "$build/java" CostWorkload hello
}
# profiler_steady TITLE: a loop whose compiled code is the same every run (SamplingWorkload shares:
# rounds of one loop in BENCH_STEADY_SECONDS of its thread's processor time, default 3), sampled
# every 1 ms, where a sample's cost shows: javac's compiler threads vary more than 10 ms samples
# cost.  Two costs, each paired by round: on the sampled thread, no agent's rounds over the
# profiler's; and in the process (the profiler's own threads too), processor time per round.
profiler_steady() {
  local title=$1 runs=${BENCH_STEADY_RUNS:-9} configs=() config label run rounds ms command=()
  configs=("no agent|-|"
    "jevprof, cpu mode (1 ms)|jevprof|JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=1 JEVPROF_OUTPUT_DIR=$work/jp-steady"
    "jevprof, wall mode (1 ms)|jevprof|JEVPROF_MODE=wall JEVPROF_INTERVAL_MS=1 JEVPROF_OUTPUT_DIR=$work/jp-steady-w")
  [[ -z $ap_lib ]] || configs+=(
    "async-profiler 4.5, event=cpu, 1 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=1ms,file=$work/ap-steady.collapsed"
    "async-profiler 4.5, event=wall, 1 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=wall,interval=1ms,file=$work/ap-steady-w.collapsed"
    "async-profiler 4.5, event=itimer, 1 ms|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=itimer,interval=1ms,file=$work/ap-steady-i.collapsed")
  declare -A done_rounds=() round_ms=()
  for ((run = 1; run <= runs; run++)); do
    local shift_by=$(((run - 1) % ${#configs[@]})) # each round starts one row later, as measured's
    for config in "${configs[@]:shift_by}" "${configs[@]:0:shift_by}"; do
      label=${config%%|*}
      config_command "$config" "$java" -cp "$build/java" SamplingWorkload shares "${BENCH_STEADY_SECONDS:-3}"
      read -r rounds ms < <("${command[@]}" 2>"$work/stderr" | awk '$1 == "shares" && $2 == "rounds" {print $3, $5}')
      [[ -n $ms ]] || { cat "$work/stderr" >&2; exit 1; }
      done_rounds[$label]+="$rounds "
      round_ms[$label]+="$(awk -v r="$rounds" -v ms="$ms" 'BEGIN {printf "%.3f", ms / r}') "
    done
  done
  printf '%-52s %9s %18s %12s %18s\n' "$title, median of $runs" "rounds" "thread, paired" "process ms" "process, paired"
  for config in "${configs[@]}"; do
    label=${config%%|*}
    printf '%-52s %9s %18s %12s %18s\n' "$label" "$(median_of "${done_rounds[$label]}")" \
      "$(paired_ratio "${done_rounds[no agent]}" "${done_rounds[$label]}")" \
      "$(median_of "${round_ms[$label]}")" "$(paired_ratio "${round_ms[$label]}" "${round_ms[no agent]}")"
  done
  echo
}
profiler_tables() {
  echo "== Profilers side by side: jevprof cpu and wall modes, async-profiler, JFR; idle, then with stress-ng --cpu 2 =="
  echo
  [[ -n $ap_lib ]] || echo "async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER names its libasyncProfiler.so)"
  local sources=() compile=() load stress
  if [[ -f $src_zip ]]; then
    [[ -d $work/java.base/java/util/stream ]] || (cd "$work" && unzip -qo "$src_zip" 'java.base/java/util/*')
    sources=("$work"/java.base/java/util/stream/*.java)
    compile=("$javac" --patch-module "java.base=$work/java.base" -d "$work/stream-classes" "${sources[@]}")
  else
    echo "javac: skipped, $src_zip missing (openjdk-17-source; make deps installs it)"
  fi
  for load in idle stress; do
    stress=
    if [[ $load == stress ]]; then
      command -v stress-ng >/dev/null || { echo "with stress-ng: skipped, no stress-ng"; continue; }
      stress-ng --cpu 2 --quiet & stress=$!
    fi
    local label="$load, load $(load_now) at the start"
    [[ ${#compile[@]} -eq 0 ]] || profiler_javac "javac java.util.stream (${#sources[@]} files, $label)" "${compile[@]}"
    profiler_steady "a steady loop ($label)"
    profiler_hello "start-up: Hello world (CostWorkload hello, $load)"
    [[ -z $stress ]] || { kill "$stress"; wait "$stress" 2>/dev/null || true; }
  done
  if [[ ${#compile[@]} -gt 0 ]]; then
    # Agreement: the same javac, BENCH_AGREE_RUNS times (default 6, about 30 s of it) under each at 1 ms.
    # jevprof's Java threads without native frames: a method's self samples are then those whose
    # innermost Java frame it is, as top_java counts async-profiler's.
    local i jp_files=() ap_files=()
    for ((i = 1; i <= ${BENCH_AGREE_RUNS:-6}; i++)); do
      env "${jevprof_env[@]}" \
        JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=1 JEVPROF_TOP=100 JEVPROF_CSTACK=no JEVPROF_KSTACK=no JEVPROF_THREADS=java \
        "JEVPROF_OUTPUT_DIR=$work/agree-jp-$i" \
        "$javac" "-J-agentpath:$build/libjevmon.so" "${compile[@]:1}" >/dev/null 2>&1
      jp_files+=("$work/agree-jp-$i/jevprof-report.txt")
      if [[ -n $ap_lib ]]; then
        env "JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=1ms,file=$work/agree-ap-$i.collapsed" \
          "${compile[@]}" >/dev/null 2>&1
        ap_files+=("$work/agree-ap-$i.collapsed")
      fi
    done
    echo "javac's top 10 Java methods by self samples, cpu at 1 ms, ${BENCH_AGREE_RUNS:-6} runs each:"
    top_report "${jp_files[@]}" >"$work/top-jp.txt"
    echo "  jevprof cpu mode:"; sed 's/^/    /' "$work/top-jp.txt"
    if [[ -n $ap_lib ]]; then
      top_java async-profiler "${ap_files[@]}" >"$work/top-ap.txt"
      echo "  async-profiler event=cpu:"; sed 's/^/    /' "$work/top-ap.txt"
      echo "  in both lists: $(comm -12 <(awk '{print $2}' "$work/top-jp.txt" | sort) <(awk '{print $2}' "$work/top-ap.txt" | sort) | wc -l) of 10"
    fi
    echo
  fi
  # The rate held: 8 busy threads at 1 ms on this machine's processors; the report says how many
  # samples their processor time asked for and how many were taken.
  env "${jevprof_env[@]}" \
    JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=1 "JEVPROF_OUTPUT_DIR=$work/jp-rate" \
    "$java" "-agentpath:$build/libjevmon.so" -cp "$build/java" SamplingWorkload threads 8 "${BENCH_RATE_SECONDS:-10}" \
    >/dev/null 2>&1
  echo "8 busy threads at 1 ms for ${BENCH_RATE_SECONDS:-10} s on $(nproc) processors, jevprof cpu mode (load $(load_now)):"
  grep -E '^(Samples (asked for|taken|missing)|Processor time sampled)' "$work/jp-rate/jevprof-report.txt" | sed 's/^/  /'
  echo
}
if [[ ${BENCH_ONLY:-} == profilers ]]; then
  profiler_tables
  exit 0
fi

# ---- Lock profiling: jevprof's lock mode beside async-profiler's and JFR's -----------------------
# Two contention programs (LockWorkload): 8 threads incrementing one counter under one synchronized
# lock, and 8 threads merging into a ConcurrentHashMap of 64 keys; each run idle, then with
# stress-ng --cpu 2 beside it.  Then what each profiler saw (the last run's files), and async-profiler's
# jfrconv turning jevprof's .jfr into a flame graph (here only: the project never needs it).
lock_runs=${BENCH_LOCK_RUNS:-3}
lock_ops=${BENCH_LOCK_OPS:-1000000}
lock_table() { # lock_table TITLE WORKLOAD...
  local ap_rows=()
  [[ -z $ap_lib ]] || ap_rows=(
    "async-profiler 4.5, event=lock, lock=0|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=lock,lock=0,file=$work/ap-lock0.collapsed"
    "async-profiler 4.5, event=lock, its default|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=lock,file=$work/ap-lock.collapsed")
  measured "$1" "$lock_runs" \
    "no agent|-|" \
    "jevprof, lock mode, threshold 0|jevprof|JEVPROF_MODE=lock JEVPROF_OUTPUT_DIR=$work/jp-lock" \
    "${ap_rows[@]}" \
    "JFR, settings=profile|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=settings=profile,filename=$work/lock.jfr" \
    -- "$java" -cp "$build/java" "${@:2}"
  local waits
  waits=$(grep -o "Contended waits recorded: [0-9]*" "$work/jp-lock/jevprof-report.txt" | grep -o "[0-9]*$")
  echo "  jevprof saw $waits waits, $(grep -o "Time waited in all: .*" "$work/jp-lock/jevprof-report.txt" | cut -d: -f2)"
  if [[ -n $ap_lib ]]; then
    echo "  async-profiler saw $(awk '{s += $NF} END {print s + 0}' "$work/ap-lock0.collapsed") waits at lock=0," \
      "$(awk '{s += $NF} END {print s + 0}' "$work/ap-lock.collapsed") samples at its default"
  fi
  echo "  JFR profile.jfc saw $("$(dirname "$javac")/jfr" summary "$work/lock.jfr" |
    awk '$1 == "jdk.JavaMonitorEnter" || $1 == "jdk.ThreadPark" {s += $2} END {print s + 0}') monitor enters and parks (10 ms and longer)"
}
lock_tables() {
  echo "== Lock profiling: jevprof lock mode, async-profiler event=lock, JFR =="
  echo
  [[ -n $ap_lib ]] || echo "async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER names its libasyncProfiler.so)"
  local load stress
  for load in idle stress; do
    stress=
    if [[ $load == stress ]]; then
      command -v stress-ng >/dev/null || { echo "with stress-ng: skipped, no stress-ng"; continue; }
      stress-ng --cpu 2 --quiet & stress=$!
    fi
    lock_table "8 threads, one synchronized counter, $lock_ops each ($load)" LockWorkload counter 8 "$lock_ops"
    lock_table "8 threads, ConcurrentHashMap.merge, $lock_ops each ($load)" LockWorkload chm 8 "$lock_ops"
    [[ -z $stress ]] || { kill "$stress"; wait "$stress" 2>/dev/null || true; }
    echo
  done
  if [[ -n $ap_lib ]]; then
    jfrconv_round_trip lock --lock LockWorkload chm 8 "$lock_ops"
    jfrconv_round_trip cpu --cpu SamplingWorkload truth 2
    jfrconv_round_trip wall --wall SamplingWorkload truth 2
    jfrconv_round_trip alloc --alloc AllocWorkload mixed 16
  fi
  echo
}
# jfrconv_round_trip MODE FLAG WORKLOAD...: jevprof's .jfr of MODE through async-profiler's jfrconv FLAG,
# beside jevprof's own collapsed file of the run (events: samples, waits; allocations: one per path).
jfrconv_round_trip() {
  local dir=$work/jp-jfrconv-$1 jfrconv
  jfrconv=$(dirname "$(dirname "$ap_lib")")/bin/jfrconv
  JEVPROF_OUTPUT_DIR=$dir "$root/bin/jevprof" -e "$1" -f "$dir/out.jfr" -f "$dir/out.collapsed" -- \
    "$java" -cp "$build/java" "${@:3}" >/dev/null 2>&1
  if "$jfrconv" "$2" "$dir/out.jfr" "$dir/jfrconv.collapsed" >/dev/null 2>&1; then
    echo "jfrconv $2 of jevprof's $1 .jfr: $(awk '{s += $NF} END {print s + 0}' "$dir/jfrconv.collapsed") events in" \
      "$(wc -l <"$dir/jfrconv.collapsed") stacks (jevprof's collapsed file:" \
      "$(awk -v alloc="$1" '{s += alloc == "alloc" ? 1 : $NF} END {print s + 0}' "$dir/out.collapsed") in" \
      "$(wc -l <"$dir/out.collapsed") lines)"
  else
    echo "jfrconv $2 could NOT read jevprof's $1 .jfr"
  fi
}
if [[ ${BENCH_ONLY:-} == lock ]]; then
  lock_tables
  exit 0
fi

# ---- Attach: from the command to recording (BENCH_ONLY=attach) -------------------------------------
# A BusyWorkload that has run 2 s, fresh for each attach, and the time from the command until the
# profiler records: bin/jevprof (jevprof-attach) to its "recording" line; the JDK's jcmd loading the
# same agent, bin/jevprof's way before jevprof-attach, to its return code; async-profiler's asprof to
# "Profiling for".  BENCH_ATTACH_RUNS (default 5) of each, interleaved, both JDKs, idle and with
# stress-ng --cpu 2; the medians.
attach_runs=${BENCH_ATTACH_RUNS:-5}
attach_ms() { # attach_ms MARKER COMMAND...: milliseconds from COMMAND's start to its first line holding MARKER (-1: none)
  local start=${EPOCHREALTIME/./} line ms=-1
  while IFS= read -r line; do
    [[ $ms == -1 && $line == *"$1"* ]] && ms=$(((${EPOCHREALTIME/./} - start) / 1000))
  done < <("${@:2}" 2>&1)
  echo "$ms"
}
attach_once() { # attach_once JAVA jevprof|jcmd|asprof: one fresh BusyWorkload, attached to
  local input ms pid clsid
  clsid=$(sed -n 's/^#define JP_CLSID_TEXT "\(.*\)"/\1/p' "$root/monitor/jevprof.h")
  [[ -p $work/attach.in ]] || mkfifo "$work/attach.in"
  "$1" -cp "$build/java" BusyWorkload 60 <"$work/attach.in" >"$work/attach.out" 2>&1 &
  pid=$!
  exec {input}>"$work/attach.in"
  until grep -q ready "$work/attach.out"; do sleep 0.1; done
  sleep 2
  case $2 in
    jevprof) ms=$(attach_ms "jevprof: recording" "$root/bin/jevprof" -e cpu -d 1 -f "$work/attach.collapsed" "$pid") ;;
    jcmd) ms=$(attach_ms "return code: 0" "$(dirname "$(readlink -f "$1")")/jcmd" "$pid" JVMTI.agent_load \
                 "$build/libjevmon.so" "\"enable,server=$clsid=$build/libjevprof.so,monitors=$clsid,command=start mode=cpu out=$work/attach-jcmd\"") ;;
    asprof) ms=$(attach_ms "Profiling for" "$(dirname "$(dirname "$ap_lib")")/bin/asprof" -e cpu -d 1 \
                   -f "$work/attach-ap.collapsed" "$pid") ;;
  esac
  exec {input}>&- # the end of its input ends it
  wait "$pid" || true
  echo "$ms"
}
attach_tables() {
  echo "== Attach: milliseconds from the command to recording, BusyWorkload, median of $attach_runs =="
  local load stress jdk j which ms
  local -A times
  for load in idle stress; do
    stress=
    if [[ $load == stress ]]; then
      command -v stress-ng >/dev/null || { echo "with stress-ng: skipped, no stress-ng"; continue; }
      stress-ng --cpu 2 --quiet & stress=$!
    fi
    for jdk in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/temurin-25-jdk-amd64; do
      [[ -x $jdk/bin/java ]] || continue
      times=()
      for ((j = 0; j < attach_runs; j++)); do
        for which in jevprof jcmd ${ap_lib:+asprof}; do
          ms=$(attach_once "$jdk/bin/java" "$which")
          times[$which]+="$ms "
        done
      done
      for which in jevprof jcmd ${ap_lib:+asprof}; do
        printf '  %-8s %-36s %6s ms   (%s)\n' "$load" "$which, ${jdk##*/}" \
          "$(median_of "${times[$which]}")" "${times[$which]% }"
      done
    done
    [[ -z $stress ]] || { kill "$stress"; wait "$stress" 2>/dev/null || true; }
  done
  [[ -n $ap_lib ]] || echo "async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER names its libasyncProfiler.so)"
  echo
}
if [[ ${BENCH_ONLY:-} == attach ]]; then
  attach_tables
  exit 0
fi

# ---- Attached to a serving Tomcat (BENCH_ONLY=attached) ---------------------------------------------
# The embedded Tomcat under wrk -t2 -c16, started without an agent and warmed up for
# BENCH_TOMCAT_WARMUP s (default 20), then requests per second for 8 s before, while a profiler
# attached with -d BENCH_ATTACHED_SECONDS (default 12) records (wrk from its "recording" line for
# that many seconds less 2), and 8 s after it stopped, twice.  For cpu mode also the accounting: the
# profile's samples x 10 ms against the processor time /proc gives the JVM over the same window (from
# the recording line to the profiler's exit).  Then javac-style agreement: the top 10 Java methods by
# self samples of jevprof's and async-profiler's cpu profiles of the server, all rounds of a JDK.
attached_seconds=${BENCH_ATTACHED_SECONDS:-12}
proc_cpu_ms() { # proc_cpu_ms PID: the process's user + system time so far, in ms
  awk -v hz="$(getconf CLK_TCK)" '{sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz}' "/proc/$1/stat"
}
wrk_rps() { # wrk_rps PORT SECONDS
  wrk -t2 -c16 -d"$2"s "http://127.0.0.1:$1/page" | awk '/^Requests\/sec:/ {printf "%.0f", $2}'
}
attached_round() { # attached_round JAVA jevprof|asprof MODE: one fresh Tomcat, one attach; prints a row
  local java_bin=$1 who=$2 mode=$3 port='' server input pid profiler out=$work/attached-$2-$3
  rm -f "$work/tomcat.in" "$out".* && mkfifo "$work/tomcat.in"
  "$java_bin" -cp "$tomcat_cp:$work/tomcat-classes" TomcatWorkload "$work/tomcat-base" \
    <"$work/tomcat.in" >"$work/tomcat.out" 2>"$work/tomcat.err" &
  server=$!
  exec {input}>"$work/tomcat.in"
  for ((i = 0; i < 300 && ${#port} == 0; i++)); do
    sleep 0.2
    port=$(awk '/^ready / {print $2}' "$work/tomcat.out")
  done
  [[ -n $port ]] || { echo "  Tomcat did not serve: $(tail -n 3 "$work/tomcat.err")"; exec {input}>&-; wait "$server"; return; }
  wrk_rps "$port" "${BENCH_TOMCAT_WARMUP:-20}" >/dev/null
  local before during after later cpu0 cpu1 marker
  before=$(wrk_rps "$port" 8)
  if [[ $who == jevprof ]]; then
    marker="jevprof: recording"
    "$root/bin/jevprof" -e "$mode" -d "$attached_seconds" -f "$out.collapsed" "$server" >"$out.log" 2>&1 &
  else
    marker="Profiling for"
    "$(dirname "$(dirname "$ap_lib")")/bin/asprof" -e "$mode" -i 10ms -d "$attached_seconds" -f "$out.collapsed" \
      "$server" >"$out.log" 2>&1 &
  fi
  profiler=$!
  until grep -q "$marker" "$out.log" 2>/dev/null || ! kill -0 "$profiler" 2>/dev/null; do sleep 0.02; done
  cpu0=$(proc_cpu_ms "$server")
  during=$(wrk_rps "$port" $((attached_seconds - 2)))
  wait "$profiler" || echo "  $who -e $mode exited $?: $(tail -n 2 "$out.log")"
  cpu1=$(proc_cpu_ms "$server")
  after=$(wrk_rps "$port" 8)
  later=$(wrk_rps "$port" 8)
  exec {input}>&-
  wait "$server" || true
  local accounting=
  if [[ $mode == cpu && -s $out.collapsed ]]; then
    accounting=$(awk -v used=$((cpu1 - cpu0)) '{n += $NF} END {printf "%d samples, %.2f s of %.2f s used (%.0f%%)", n, n / 100, used / 1000, (used > 0 ? n * 1000 / used : 0)}' "$out.collapsed")
    cp "$out.collapsed" "$work/agree-$who-$jdk-$RANDOM.collapsed"
  fi
  awk -v l="$who, $mode" -v b="$before" -v d="$during" -v a="$after" -v t="$later" -v acc="$accounting" \
    'BEGIN {printf "  %-24s %8d %8d (%.2fx) %8d (%.2fx) %8d (%.2fx)  %s\n", l, b, d, d / b, a, a / b, t, t / b, acc}'
}
attached_tables() {
  if ! command -v wrk >/dev/null || [[ ! -f /usr/share/java/tomcat10-catalina.jar ]]; then
    echo "Attached to Tomcat: skipped, needs Debian's libtomcat10-java and wrk (make deps installs them)"
    return
  fi
  tomcat_compile
  local java_bin round who mode jdk
  for java_bin in "$java" "$java25"; do
    java_bin=$(command -v "$java_bin") || { echo "Attached to Tomcat on $java_bin: skipped, no such JDK"; continue; }
    jdk=$(basename "$(dirname "$(dirname "$(readlink -f "$java_bin")")")")
    echo "== Attached to Tomcat 10 under wrk -t2 -c16, $jdk: requests/s before, while recording (-d $attached_seconds), after, 8 s later =="
    for ((round = 1; round <= ${BENCH_ATTACHED_RUNS:-1}; round++)); do
      for who in jevprof ${ap_lib:+asprof}; do
        for mode in ${BENCH_ATTACHED_MODES:-cpu wall alloc}; do
          attached_round "$java_bin" "$who" "$mode"
        done
      done
    done
    if [[ -n $ap_lib ]] && compgen -G "$work/agree-jevprof-$jdk-*" >/dev/null && compgen -G "$work/agree-asprof-$jdk-*" >/dev/null; then
      top_java jevprof "$work"/agree-jevprof-"$jdk"-* >"$work/top-jp.txt"
      top_java async-profiler "$work"/agree-asprof-"$jdk"-* >"$work/top-ap.txt"
      echo "  the server's top 10 Java methods by self samples, cpu mode: jevprof | async-profiler"
      paste -d'|' "$work/top-jp.txt" "$work/top-ap.txt" | sed 's/^/    /'
      echo "  in both lists: $(comm -12 <(awk '{print $2}' "$work/top-jp.txt" | sort) <(awk '{print $2}' "$work/top-ap.txt" | sort) | wc -l) of 10"
    fi
    echo
  done
  [[ -n $ap_lib ]] || echo "async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER names its libasyncProfiler.so)"
}
if [[ ${BENCH_ONLY:-} == attached ]]; then
  attached_tables
  exit 0
fi

# ---- A periodic program under cpu sampling at 1 ms: jevprof beside async-profiler --------------
# SamplingWorkload periodic: rounds of a, b and c (60/30/10% of each thread's processor time by
# iteration counts) lasting the interval, half of it and twice it, BENCH_PERIODIC_SECONDS of
# processor time each (default 3: about 3,000 samples a thread, a share's sigma 0.9 points),
# BENCH_PERIODIC_RUNS runs each (default 3); each run's shares and their distance from the truth
# in binomial sigmas.  BENCH_ONLY=periodic runs it alone.
periodic_shares() { # periodic_shares FILE: one line per thread, its a/b/c shares
  awk 'BEGIN { split("periodOne periodHalf periodDouble", name); split("60 30 10", truth) }
       { w = $NF
         for (t = 1; t <= 3; t++)
           if ($0 ~ ("SamplingWorkload[.]" name[t] "[;_ ]"))
             for (m = 1; m <= 3; m++)
               if ($0 ~ ("SamplingWorkload[.]periodic" substr("ABC", m, 1) "[;_ ]")) n[t, m] += w }
       END { for (t = 1; t <= 3; t++) { all = n[t, 1] + n[t, 2] + n[t, 3]; line = sprintf("    %-13s %6d samples:", name[t], all)
               for (m = 1; m <= 3; m++) { p = truth[m] / 100; share = all ? 100 * n[t, m] / all : 0
                 line = line sprintf("  %s %5.2f%% (%+.1f sigma)", substr("abc", m, 1), share, all ? (share / 100 - p) / sqrt(p * (1 - p) / all) : 0) }
               print line } }' "$1"
}
periodic_table() {
  local seconds=${BENCH_PERIODIC_SECONDS:-3} i
  local program=("$java" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,SamplingWorkload::work -cp "$build/java"
                 SamplingWorkload periodic 1 "$seconds")
  echo "== A periodic program, cpu sampling every 1 ms: rounds of 1, 0.5 and 2 ms, truth a 60% b 30% c 10% =="
  for ((i = 1; i <= ${BENCH_PERIODIC_RUNS:-3}; i++)); do
    env "${jevprof_env[@]}" JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=1 "JEVPROF_OUTPUT_DIR=$work/periodic-jp-$i" \
      "${program[0]}" "-agentpath:$build/libjevmon.so" "${program[@]:1}" >/dev/null 2>&1
    echo "  jevprof cpu mode, run $i:"
    periodic_shares "$work/periodic-jp-$i/jevprof.collapsed"
    if [[ -n $ap_lib ]]; then
      env "JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=1ms,file=$work/periodic-ap-$i.collapsed" \
        "${program[@]}" >/dev/null 2>&1
      echo "  async-profiler 4.5 event=cpu, run $i:"
      periodic_shares "$work/periodic-ap-$i.collapsed"
    fi
  done
  [[ -n $ap_lib ]] || echo "  async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER)"
  echo
}
if [[ ${BENCH_ONLY:-} == periodic ]]; then
  periodic_table
  exit 0
fi

# ---- Native frames and the JVM's own threads: javac beside async-profiler's default ----------------
# BENCH_ONLY=native.  top_frames: the ten frames with the most self samples, Java or native, in
# collapsed files, one a line with its share: jevprof's "library`function" and async-profiler's
# "function" are both the function; Java names with dots, no signature; both profilers' kernel
# frames (_[k]) are left out (a sample then counts for its innermost user-space frame), as
# where the kernel gives none.
top_frames() {
  python3 - "$@" <<'PY'
import re, sys, collections
files = sys.argv[1:]
self = collections.Counter()
for name in files:
    for line in open(name, errors="replace"):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if not count.isdigit() or not stack:
            continue
        frames = stack.split(";")
        while len(frames) > 1 and frames[-1].endswith("_[k]"):
            frames.pop()  # the sample is its innermost user frame's, as where no kernel frame is taken
        frame = frames[-1]
        frame = re.sub(r"_\[[a-z0-9]\]$", "", frame)
        frame = frame.split("`", 1)[-1]
        if "/" in frame and "::" not in frame:
            frame = frame.replace("/", ".")
        frame = frame.split("(")[0] if frame[:1] not in "[(" else frame  # (callers unknown), [a thread]
        self[frame] += int(count)
total = sum(self.values()) or 1
for frame, n in self.most_common(10):
    print(f"{100 * n / total:6.2f}%\t{frame}")
PY
}
native_tables() {
  echo "== Native frames and the JVM's threads: javac, jevprof cpu mode beside async-profiler's default =="
  echo
  [[ -f $src_zip ]] || { echo "javac: skipped, $src_zip missing (openjdk-17-source; make deps installs it)"; return; }
  [[ -d $work/java.base/java/util/stream ]] || (cd "$work" && unzip -qo "$src_zip" 'java.base/java/util/*')
  local sources=("$work"/java.base/java/util/stream/*.java) ap_rows=()
  local compile=("$javac" --patch-module "java.base=$work/java.base" -d "$work/stream-classes" "${sources[@]}")
  [[ -z $ap_lib ]] || ap_rows=("async-profiler 4.5, event=cpu, 10 ms (its default cstack)|-|JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=10ms,file=$work/nap-javac.collapsed")
  [[ -n $ap_lib ]] || echo "async-profiler: skipped, no ../shared/peers/async-profiler (BENCH_ASYNC_PROFILER names its libasyncProfiler.so)"
  measured "javac java.util.stream (${#sources[@]} files)" "${BENCH_NATIVE_RUNS:-5}" \
    "no agent|-|" \
    "jevprof cpu 10 ms, native frames, every thread|jevprof|JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work/njp-javac" \
    "jevprof cpu 10 ms, native frames without the kernel's (--kstack no)|jevprof|JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=10 JEVPROF_KSTACK=no JEVPROF_OUTPUT_DIR=$work/njp-javac-nok" \
    "jevprof cpu 10 ms, --cstack no --threads java|jevprof|JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=10 JEVPROF_CSTACK=no JEVPROF_THREADS=java JEVPROF_OUTPUT_DIR=$work/njp-javac-java" \
    "${ap_rows[@]}" \
    -- "${compile[@]}"
  # The top 10 of both over the same javac, BENCH_AGREE_RUNS times each (default 6) at 1 ms.
  local i jp_files=() ap_files=()
  for ((i = 1; i <= ${BENCH_AGREE_RUNS:-6}; i++)); do
    env "${jevprof_env[@]}" JEVPROF_MODE=cpu JEVPROF_INTERVAL_MS=1 JEVPROF_MIN_SHARE=0 "JEVPROF_OUTPUT_DIR=$work/nagree-jp-$i" \
      "$javac" "-J-agentpath:$build/libjevmon.so" "${compile[@]:1}" >/dev/null 2>&1
    jp_files+=("$work/nagree-jp-$i/jevprof.collapsed")
    if [[ -n $ap_lib ]]; then
      env "JAVA_TOOL_OPTIONS=-agentpath:$ap_lib=start,event=cpu,interval=1ms,file=$work/nagree-ap-$i.collapsed" \
        "${compile[@]}" >/dev/null 2>&1
      ap_files+=("$work/nagree-ap-$i.collapsed")
    fi
  done
  echo "javac's top 10 frames (Java and native) by self samples, cpu at 1 ms, ${BENCH_AGREE_RUNS:-6} runs each:"
  top_frames "${jp_files[@]}" >"$work/ntop-jp.txt"
  echo "  jevprof cpu mode:"; sed 's/^/    /' "$work/ntop-jp.txt"
  grep -E '^(Native frames|Kernel frames):' "$work/nagree-jp-1/jevprof-report.txt" | sed 's/^/    (first run) /'
  if [[ -n $ap_lib ]]; then
    top_frames "${ap_files[@]}" >"$work/ntop-ap.txt"
    echo "  async-profiler event=cpu:"; sed 's/^/    /' "$work/ntop-ap.txt"
    echo "  in both lists: $(comm -12 <(cut -f2 "$work/ntop-jp.txt" | sort) <(cut -f2 "$work/ntop-ap.txt" | sort) | wc -l) of 10"
  fi
  echo
}
if [[ ${BENCH_ONLY:-} == native ]]; then
  native_tables
  exit 0
fi

table "fib($fib)" "$runs" \
  "no agent|-|" \
  "JVMTI method calls, callcount sample|callcount|CALLCOUNT_FILE=$work/callcount.txt" \
  "instrumented method calls, callcount sample|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-i.txt" \
  "$specific|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-s.txt CALLCOUNT_CLASS=java.lang.String" \
  "$silent|silent-instrumented|" \
  "jevprof, calls mode|jevprof|JEVPROF_MODE=calls JEVPROF_OUTPUT_DIR=$work" \
  "jevprof, sample mode (10 ms)|jevprof|JEVPROF_MODE=sample JEVPROF_INTERVAL_MS=10 JEVPROF_OUTPUT_DIR=$work" \
  -- "$java" -cp "$build/java" BridgeWorkload fib "$fib"

# The floor under instrumented method calls: the same fib calling two empty JNI natives per call
# (bench/jnifloor), without any agent.  Every delivered call on the instrumented path pays at
# least this much before the bridge and the monitor do anything.
jdk_home=$(dirname "$(dirname "$javac")")
gcc -std=c11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$jdk_home/include" -I"$jdk_home/include/linux" \
  "$root/bench/jnifloor/jnifloor.c" -o "$work/libjnifloor.so"
"$javac" -d "$work/jnifloor" "$root/bench/jnifloor/JniFloor.java"
table "fib($fib): the floor of a JNI-based mechanism" "$runs" \
  "no agent|-|" \
  "two empty JNI native calls per call, no agent|-|JNI_FLOOR=1" \
  -- "$java" -Djava.library.path="$work" -cp "$work/jnifloor" JniFloor "$fib"

# Allocations: the heap test monitor (tests/heap/fx_heapmon.c) counting, under a lock, the
# objects of HeapWorkload's classes that OnObjectAllocated reports, at three sampling intervals;
# then no callback (ClassInformation's counts only) and both DONT_NEED_ALLOCATION promises.
heap="HeapWorkload alloc ${BENCH_ALLOCATIONS:-20000000}"
table "allocations ($heap)" "$runs" \
  "no agent|-|" \
  "allocation callback, interval 0 (every allocation)|heapmon|FXHEAP_ALLOC=1 FXHEAP_CLASS=HeapWorkload" \
  "allocation callback, interval 64 KiB|heapmon|FXHEAP_ALLOC=1 FXHEAP_CLASS=HeapWorkload JEVMON_ALLOCATION_SAMPLING_INTERVAL=65536" \
  "allocation callback, interval 512 KiB|heapmon|FXHEAP_ALLOC=1 FXHEAP_CLASS=HeapWorkload JEVMON_ALLOCATION_SAMPLING_INTERVAL=524288" \
  "no callback, objects-created counts kept (interval 0)|heapmon|FXHEAP_CLASS=HeapWorkload" \
  "both DONT_NEED_ALLOCATION options (InitOptions 0x30)|heapmon|FXMON_OPTIONS=30" \
  -- "$java" -cp "$build/java" $heap

# Allocation profiles against the truth: the three AllocWorkload programs (their own counts per
# class), under jevprof's alloc mode at 512 KiB (estimates from weighted samples) and under JFR's
# allocation sampling (jdk.ObjectAllocationSample, each sample weighted by the bytes its thread
# allocated since the last one).  Each class has one size, which jevprof's report gives exactly
# (estimated bytes over estimated allocations), so its true bytes are its count times that size.
alloc_mib=${BENCH_ALLOC_MIB:-512}
printf '<?xml version="1.0" encoding="UTF-8"?>\n<configuration version="2.0">\n<event name="jdk.ObjectAllocationSample"><setting name="enabled">true</setting><setting name="throttle">150/s</setting><setting name="stackTrace">false</setting></event>\n</configuration>\n' \
  >"$work/jfralloc.jfc"
alloc_table() { # alloc_table PROGRAM CLASS...
  local program=$1
  shift
  env "${jevprof_env[@]}" \
    JEVPROF_MODE=alloc JEVPROF_TOP=1000 JEVPROF_OUTPUT_DIR="$work/alloc-$program" JEVMON_ALLOCATION_SAMPLING_INTERVAL=524288 \
    "$java" "-agentpath:$build/libjevmon.so" -cp "$build/java" AllocWorkload "$program" "$alloc_mib" \
    >"$work/alloc-$program.out" 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  "$java" -XX:StartFlightRecording=filename="$work/alloc-$program.jfr,settings=$work/jfralloc.jfc" \
    -cp "$build/java" AllocWorkload "$program" "$alloc_mib" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
  "$(dirname "$javac")/jfr" print --json --events jdk.ObjectAllocationSample "$work/alloc-$program.jfr" >"$work/alloc-$program.json"
  python3 - "$program" "$work/alloc-$program.out" "$work/alloc-$program/jevprof-report.txt" \
    "$work/alloc-$program.json" "$@" <<'PY'
import json, re, sys
program, out_path, report_path, jfr_path, classes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
made = dict(re.findall(r"^count (\S+) (\d+)$", open(out_path).read(), re.M))
report = open(report_path).read()
def table(title):
    section = report.split(title, 1)[1].split("\n\n", 1)[0]
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s+[\d.]+%\s+(\S+)$", section, re.M)}
counts = table("estimated allocation sites by allocated class\n")
sizes = {k: v / counts[k] for k, v in table("estimated allocated bytes by allocated class\n").items() if counts.get(k)}
jevprof_total = int(re.search(r"Bytes allocated in all \(estimated\): (\d+)", report).group(1))
jevprof_bytes = table("estimated allocated bytes by allocated class\n")
jfr_bytes, jfr_total = {}, 0
for e in json.load(open(jfr_path))["recording"]["events"]:
    name = e["values"]["objectClass"]["name"].replace("/", ".")
    if name.startswith("[") and name.endswith(";"):
        name = name[:-1]
    jfr_bytes[name] = jfr_bytes.get(name, 0) + e["values"]["weight"]
    jfr_total += e["values"]["weight"]
truth = {c: int(made[c]) * sizes[c] for c in classes}
truth_total = sum(truth.values())
print(f"allocations: AllocWorkload {program} (shares of bytes; the truth from the program's own counts)")
print(f"{'class':<28} {'truth':>10} {'jevprof 512 KiB':>16} {'JFR':>10}")
for c in classes:
    print(f"{c:<28} {100 * truth[c] / truth_total:9.2f}% {100 * jevprof_bytes.get(c, 0) / jevprof_total:15.2f}% "
          f"{100 * jfr_bytes.get(c, 0) / jfr_total:9.2f}%")
print(f"{'bytes in all (MB)':<28} {truth_total / 1e6:10.1f} {jevprof_total / 1e6:16.1f} {jfr_total / 1e6:10.1f}\n")
PY
}
alloc_table boxes 'AllocWorkload$Box' 'AllocWorkload$Pair'
alloc_table mixed 'AllocWorkload$Box' '[B'
alloc_table clone 'AllocWorkload$Box' '[J'

if [[ -f $src_zip ]]; then
  (cd "$work" && unzip -q "$src_zip" 'java.base/java/util/stream/*')
  table "javac java.util.stream ($(ls "$work"/java.base/java/util/stream/*.java | wc -l) files)" "$javac_runs" \
    "no agent|-|" \
    "JVMTI method calls, callcount sample|callcount|CALLCOUNT_FILE=$work/callcount.txt" \
    "instrumented method calls, callcount sample|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-i.txt" \
    "$specific|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-s.txt CALLCOUNT_CLASS=java.lang.String" \
    "$silent|silent-instrumented|" \
    -- "$javac" --patch-module "java.base=$work/java.base" -d "$work/classes" "$work"/java.base/java/util/stream/*.java
  printf '(javac made %s calls)\n' "$(awk 'NR > 1 {s += $1} END {print s}' "$work/callcount-i.txt")"
else
  echo "javac: skipped, $src_zip missing (openjdk-17-source; make deps installs it)"
fi

# Virtual threads (JDK 21+, the first JDK under /usr/lib/jvm that has them, or BENCH_VTHREAD_JAVA):
# BENCH_VTHREADS (default 1000000) short virtual threads of about 100 calls each, 10^4 alive at
# most, on 2 carriers (VThreadWorkload many).  The THREADS row is the fx_vthreads test monitor
# counting THREAD_CREATE/DESTROY; the callcount rows count every call, virtual threads' included.
vthread_java=${BENCH_VTHREAD_JAVA:-}
for release in /usr/lib/jvm/*/release; do
  [[ -z $vthread_java ]] || break
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
  [[ ${major:-0} -ge 21 && -x ${release%/release}/bin/java ]] && vthread_java=${release%/release}/bin/java
done
if [[ -n $vthread_java ]]; then
  vthreads_clsid="{3C1E7A52-96B4-4D0F-A17E-5B22C9804F61}"
  printf 'Windows Registry Editor Version 5.00\n\n[HKEY_CLASSES_ROOT\\CLSID\\%s\\InprocServer32]\n@="%s"\n"ThreadingModel"="Both"\n' \
    "$vthreads_clsid" "$build/fixtures/fx_vthreads.so" >"$work/vthreads.reg"
  table "virtual threads: ${BENCH_VTHREADS:-1000000} short ones, $("$vthread_java" -version 2>&1 | head -n 1)" "$runs" \
    "no agent|-|" \
    "THREADS monitor (fx_vthreads)|vthreads|MSJAVA_EVENT_MONITORS=$vthreads_clsid FXVT_REQUEST=100 FXMON_LOG=$work/vthreads.log" \
    "JVMTI method calls, callcount sample|callcount|CALLCOUNT_FILE=$work/callcount-v.txt" \
    "instrumented method calls, callcount sample|callcount-instrumented|CALLCOUNT_FILE=$work/callcount-vi.txt" \
    -- "$vthread_java" -Djdk.virtualThreadScheduler.parallelism=2 -cp "$build/java" VThreadWorkload many "${BENCH_VTHREADS:-1000000}"
else
  echo "virtual threads: skipped, no JDK 21 or later under /usr/lib/jvm"
fi

# Sampling: the fx_sampler test monitor (registered by hand above: fixtures have no DllRegisterServer),
# saying it may ask for THREADS and SAMPLING alone (FXSAMPLE_POSSIBLE), as a sampling profiler would.
jfc() { # jfc PERIOD: a JFR settings file with the execution sampler alone
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<configuration version="2.0">\n<event name="jdk.ExecutionSample"><setting name="enabled">true</setting><setting name="period">%s</setting></event>\n</configuration>\n' "$1" >"$work/$2.jfc"
}
jfc "10 ms" jfr100
jfc "1 ms" jfr1000
sampling_runs=${BENCH_SAMPLING_RUNS:-3}
sampling_fib=${BENCH_SAMPLING_FIB:-44}
sampling_threads=${BENCH_SAMPLING_THREADS:-4}
sampling_table() { # sampling_table TITLE THREADS
  table "$1" "$sampling_runs" \
    "no agent|-|" \
    "SampleThreadLocation, every thread at 100 Hz|sampler|MSJAVA_EVENT_MONITORS=$sampler_clsid FXSAMPLE_POSSIBLE=300 FXSAMPLE_HZ=100 FXMON_LOG=$work/sampler.log" \
    "SampleThreadLocation, every thread at 1 kHz|sampler|MSJAVA_EVENT_MONITORS=$sampler_clsid FXSAMPLE_POSSIBLE=300 FXSAMPLE_HZ=1000 FXMON_LOG=$work/sampler.log" \
    "JFR execution sampling, 10 ms (100 Hz)|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=$work/r100.jfr,settings=$work/jfr100.jfc" \
    "JFR execution sampling, 1 ms (1 kHz)|-|JAVA_TOOL_OPTIONS=-XX:StartFlightRecording=filename=$work/r1000.jfr,settings=$work/jfr1000.jfc" \
    -- "$java" -cp "$build/java" SamplingWorkload fibs "$2" "$sampling_fib"
}
sampling_table "sampling: fib($sampling_fib) in 1 thread" 1
sampling_table "sampling: fib($sampling_fib) in each of $sampling_threads threads" "$sampling_threads"

program_tables
tomcat_tables
calls_tables
cost_tables
profiler_tables
lock_tables
attach_tables
attached_tables
periodic_table

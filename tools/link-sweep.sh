#!/usr/bin/env bash
# tools/link-sweep.sh - the differential verification sweep of the class-file rewriter
# (docs/testing.md): the classes of real libraries from Debian packages and of the JDK's own modules are
# loaded and linked (tests/classfile/LinkSweep.java, every class verified) in two JVMs, one
# without the agent and one under jevprof in calls mode (every class file rewritten), and the
# two are compared: each class's outcome, and the classes HotSpot fails over to its old verifier
# (-Xlog:verification).
#
#   tools/link-sweep.sh JDK DIR sample   a fixed sample (at most 250 classes of each library and of
#                                        the JDK, the same every run, plus the classes that once
#                                        failed): what test_rewrite_sweep runs in `make check`
#   tools/link-sweep.sh JDK DIR full     every class of every jar under /usr/share/java and of the
#                                        JDK, in batches of jars (`make sweep`)
#
# Needs build/linux/{libjevmon.so,libjevprof.so,java/LinkSweep.class}; writes its files in DIR.
# Prints "skipped: ..." and exits 0 when a library of the sample is not installed (tools/deps.sh
# installs them); otherwise one line
#   sweep JDK: N classes (L linked, F failed), D differing, fail-overs A without the agent, B with it, C new
# then the differing lines, and exits 1 when D or C is not 0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jdk=$1 dir=$2 mode=$3
lib=/usr/share/java
mkdir -p "$dir"

# The sample's libraries: Groovy (its selector constructors), Scala's library and Kotlin's
# stdlib and reflect (class version 50), two libraries compiled for Java 1.4 and 5.
sample_jars=(groovy-all.jar scala-library.jar kotlin-stdlib.jar kotlin-reflect.jar commons-collections3.jar xalan2.jar)
# Classes that failed once: constructors choosing super() by a switch (Groovy), a class the old
# verifier's eager loading broke (kotlin-reflect).
sample_classes=(org.codehaus.groovy.control.customizers.ASTTransformationCustomizer groovy.ui.Console
                'kotlin.reflect.jvm.internal.calls.CallerImpl$Method$Static')

# run TAG AGENT(yes|no) ARGS...: one JVM; its outcomes in DIR/TAG.out, fail-overs in DIR/TAG.failover
run() {
    local tag=$1 agent=$2 java=("$jdk/bin/java")
    shift 2
    [[ $agent == yes ]] && java=("$root/bin/jevprof" --mode calls --out "$dir/jevprof-$tag" "$jdk/bin/java")
    env -u JAVA_TOOL_OPTIONS "${java[@]}" -Xshare:off -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal \
        --add-modules ALL-SYSTEM -Xlog:verification=info:file="$dir/$tag.log"::filecount=0 -cp "$root/build/linux/java" \
        LinkSweep "$@" >"$dir/$tag.out" 2>"$dir/$tag.err" || { echo "sweep: $tag exited $?: $(tail -3 "$dir/$tag.err")"; exit 1; }
    sed -n 's/.*Fail over class verification to old verifier for: //p' "$dir/$tag.log" | sort >"$dir/$tag.failover"
    rm -f "$dir/$tag.log"
}

batches=()
if [[ $mode == sample ]]; then
    for j in "${sample_jars[@]}"; do
        [[ -f $lib/$j ]] || { echo "skipped: $lib/$j is missing (tools/deps.sh installs the sweep's libraries)"; exit 0; }
    done
    extra=$(printf 'class:%s ' "${sample_classes[@]}")
    batches=("250 ${sample_jars[*]/#/$lib/} jdk $extra")
else
    mapfile -t jars < <(for j in "$lib"/*.jar; do readlink -f "$j"; done | sort -u)
    for ((i = 0; i < ${#jars[@]}; i += 40)); do batches+=("0 ${jars[*]:i:40}"); done
    batches+=("0 jdk")
fi

: >"$dir/differences"
classes=0 linked=0 failed=0 without=0 with=0 new=0
for ((b = 0; b < ${#batches[@]}; b++)); do
    read -ra args <<<"${batches[b]}"
    run "plain-$b" no "${args[@]}"
    run "agent-$b" yes "${args[@]}"
    grep -q "method calls via bytecode instrumentation" "$dir/agent-$b.err" ||
        { echo "sweep: the agent did not instrument method calls: $(head -3 "$dir/agent-$b.err")"; exit 1; }
    diff "$dir/plain-$b.out" "$dir/agent-$b.out" >>"$dir/differences" || true
    read -r n l f < <(sed -n 's/^sweep: \([0-9]*\) classes, \([0-9]*\) linked, \([0-9]*\) failed$/\1 \2 \3/p' "$dir/plain-$b.out")
    classes=$((classes + n)) linked=$((linked + l)) failed=$((failed + f))
    without=$((without + $(wc -l <"$dir/plain-$b.failover"))) with=$((with + $(wc -l <"$dir/agent-$b.failover")))
    comm -13 "$dir/plain-$b.failover" "$dir/agent-$b.failover" | sed 's/^/new fail-over: /' >>"$dir/differences"
    new=$(grep -c '^new fail-over' "$dir/differences" || true)
done
differing=$(grep -c '^[<>]' "$dir/differences" || true)
echo "sweep $(basename "$jdk"): $classes classes ($linked linked, $failed failed), $differing differing," \
    "fail-overs $without without the agent, $with with it, $new new"
head -40 "$dir/differences"
((differing == 0 && new == 0))

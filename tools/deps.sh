#!/usr/bin/env bash
# tools/deps.sh - what `make deps` runs: install what jevmon needs on Debian 12.
#
#   1. apt packages (toolchains, Wine, Check, a JDK; Chromium and the libraries of the
#      rewriter's verification sweep if they can be had)
#   2. Check built from Debian's source package for both MinGW targets, into
#      build/deps/check-{win64,win32}/{include,lib} (the Makefile links those)
#   3. 32-bit Wine if the registry can serve it (else i386 is removed again)
#   4. headless Wine prefixes: build/wine64-prefix, and build/wine32-prefix with 32-bit Wine
#
# Every step leaves a stamp or status file in build/deps/, so a second run does
# nothing and takes about a second. Long outputs go to build/deps/*.log.
# Files run-tests.sh reads: build/deps/wine.env (each target's Wine loader and prefix).
# Set JEVMON_RETRY_WINE32=1 to try 32-bit Wine again after it failed once.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS=$ROOT/build/deps
PREFIX64=$ROOT/build/wine64-prefix
PREFIX32=$ROOT/build/wine32-prefix
mkdir -p "$DEPS"
export DEBIAN_FRONTEND=noninteractive
APT_UPDATED=no

# openjdk-17-source: the java.util.stream sources javac compiles in `make bench`.
# clang: libFuzzer for `make fuzz` (its runtime comes with clang's libclang-common-*-dev).
# libh2-java (2.5 MB): the H2 database `make bench` runs in calls mode (Groovy and JRuby, 29 and
# 55 MB, are left to the user: bench.sh skips them with a line).
# zlib1g-dev: jevprof gzips its pprof files; golang-go: `go tool pprof` reads them back in test_jevprof.
# libdw-dev: the call frame information of a native sample's innermost function (src/platform/posix_cfi.c).
# `tools/deps.sh demo` (make demo) installs only DEMO_PACKAGES and a JDK: the Linux build, without
# MinGW, Wine, Check, Chromium or the tests' tools; g++ for the C++ monitors, and libstdc++,
# which demangles native frames' C++ names.
DEMO_PACKAGES=(make gcc g++ libc6-dev python3 zlib1g-dev libdw-dev)
PACKAGES=("${DEMO_PACKAGES[@]}" mingw-w64 mingw-w64-tools libwine-dev wine wine64 check pkg-config
          cmake dpkg-dev xz-utils unzip zip openjdk-17-source clang golang-go libh2-java)

say() { printf 'deps: %s\n' "$*"; }
die() { say "error: $*" >&2; exit 1; }

# run_logged LOG CMD...: run CMD with its output in build/deps/LOG; on failure show
# the log's tail, so a broken step explains itself without flooding every run.
# QUIET_FAIL=1 skips the tail, for steps whose failure is expected and reported anyway.
run_logged() {
    local log=$DEPS/$1 rc=0
    shift
    "$@" >"$log" 2>&1 || rc=$?
    if ((rc != 0)) && [[ ${QUIET_FAIL:-} != 1 ]]; then
        say "failed ($rc): $* -- last lines of $log:" >&2
        tail -n 30 "$log" | sed 's/^/  | /' >&2
    fi
    return "$rc"
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# need_root WHAT: about to change the machine. Must be root, and only one deps.sh (of any
# clone) may do that at a time: apt-get update does not wait for another's lock.
need_root() {
    [[ $(id -u) == 0 ]] || die "$1 needs root (run 'make deps' as root)"
    [[ ${LOCKED:-no} == yes ]] && return 0
    exec 9>/var/lock/jevmon-deps.lock
    flock -w 1800 9 || die "another deps.sh holds /var/lock/jevmon-deps.lock"
    LOCKED=yes
}

# apt-get update at most once per run: it is the slow part of every apt step.
# A mirror that serves one broken index (seen for days: bookworm-security's i386 list) must
# not stop the set-up: the indexes that did download are used, each failed one gets a line,
# and its suite is remembered in FAILED_SUITES (the 32-bit Wine fallback leaves them out).
# Only an update that failed without naming a failed index is an error.
FAILED_SUITES=""
apt_update() {
    [[ $APT_UPDATED == yes ]] && return 0
    say "apt-get update"
    local rc=0 failed
    QUIET_FAIL=1 run_logged apt-update.log apt-get update || rc=$?
    failed=$(sed -n 's/^[EW]: Failed to fetch \([^ ]*\) *\(.*\)$/\1 \2/p' "$DEPS/apt-update.log")
    if [[ -n $failed ]]; then
        while read -r url why; do
            say "apt-get update: index not usable, going on without it: $url (${why:-no reason given})"
        done <<<"$failed"
        FAILED_SUITES=$(sed -n 's|.*/dists/\([^/]*\)/.*|\1|p' <<<"$failed" | sort -u | tr '\n' ' ')
    elif ((rc != 0)); then
        say "failed ($rc): apt-get update -- last lines of $DEPS/apt-update.log:" >&2
        tail -n 30 "$DEPS/apt-update.log" | sed 's/^/  | /' >&2
        # Explicit return: callers use 'apt_update || ...', where set -e does not apply.
        return "$rc"
    fi
    APT_UPDATED=yes
}

apt_install() {
    run_logged apt-install.log apt-get install -y --no-install-recommends \
        -o DPkg::Lock::Timeout=600 "$@"
}

# ---- 1. packages ---------------------------------------------------------------------
# install_packages PACKAGE...: the ones missing, and a JDK if there is none.
install_packages() {
    local want=("$@") missing=() p
    # Any JDK will do (the Makefile finds the headers through javac); add one only if none.
    command -v javac >/dev/null || want+=(openjdk-17-jdk-headless)
    for p in "${want[@]}"; do installed "$p" || missing+=("$p"); done
    if ((${#missing[@]} == 0)); then
        say "packages: all present"
    else
        need_root "installing ${missing[*]}"
        apt_update
        say "installing: ${missing[*]}"
        apt_install "${missing[@]}"
    fi
    command -v javac >/dev/null || die "no javac after installing a JDK"
}

# Nice to have: each one's absence is recorded, and what needs it skips with a line.
install_optional_packages() {
    # Chromium is only for a test that looks at an HTML flame graph: nice to have.
    install_optional chromium "tests that need it will skip" chromium
    # The libraries whose class files the rewriter's verification sweep loads (test_rewrite_sweep,
    # `make sweep`): Groovy, Scala, Kotlin, and two compiled for Java 1.4 and 5.
    install_optional sweep-libraries "test_rewrite_sweep will skip" \
        groovy scala kotlin libcommons-collections3-java libxalan2-java
    # make bench's request-throughput table: an embedded Tomcat 10 under wrk.
    install_optional bench-programs "make bench skips its Tomcat table" libtomcat10-java wrk
    # Load beside the tests and benchmarks: both cores kept busy (docs/testing.md, make bench's loaded column).
    install_optional load-generator "run the loaded repeats with another busy program" stress-ng
}

# install_optional NAME CONSEQUENCE PACKAGE...: packages that are nice to have.  The outcome is
# recorded in build/deps/NAME.status so a machine without them does not retry on every run.
install_optional() {
    local status=$DEPS/$1.status consequence=$2 missing=() p
    shift 2
    for p in "$@"; do installed "$p" || missing+=("$p"); done
    if ((${#missing[@]} == 0)); then
        echo ok >"$status"
        return 0
    fi
    [[ -f $status ]] && return 0
    need_root "installing ${missing[*]}"
    apt_update || true
    say "installing: ${missing[*]}"
    if QUIET_FAIL=1 apt_install "${missing[@]}"; then
        echo ok >"$status"
    else
        echo unavailable >"$status"
        say "${missing[*]} could not be installed (build/deps/apt-install.log); $consequence"
    fi
}

# ---- 2. Check for MinGW --------------------------------------------------------------
# Add deb-src entries mirroring each Debian 'deb' source that has none, for both the
# deb822 (.sources) and the classic (.list) format. They are composed in build/deps/ and
# copied to /etc/apt/sources.list.d/jevmon-deb-src.*: the machine's own files stay as
# they were.
enable_deb_src() {
    local out=/etc/apt/sources.list.d/jevmon-deb-src
    local d822=() classic=() f
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -e $f && $f != "$out.sources" ]] && d822+=("$f")
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -e $f && $f != "$out.list" ]] && classic+=("$f")
    done
    if ((${#d822[@]})); then
        # One stanza per paragraph; keep only enabled Debian ones without deb-src.
        awk -f - "${d822[@]}" >"$DEPS/deb-src.sources" <<'AWK'
function flush() {
    if (n && types ~ /(^|[ \t])deb([ \t]|$)/ && types !~ /deb-src/ && enabled !~ /^[ \t]*no/ && uris ~ /debian/) {
        for (i = 1; i <= n; i++) print lines[i]
        print ""
    }
    n = 0; types = ""; enabled = ""; uris = ""
}
FNR == 1 { flush() }
/^[ \t]*$/ { flush(); next }
/^#/ { next }
{
    line = $0
    if (tolower($0) ~ /^types:/) { types = substr($0, 7); line = "Types: deb-src" }
    else if (tolower($0) ~ /^enabled:/) enabled = substr($0, 9)
    else if (tolower($0) ~ /^uris:/) uris = $0
    lines[++n] = line
}
END { flush() }
AWK
    else
        : >"$DEPS/deb-src.sources"
    fi
    if ((${#classic[@]})); then
        # deb [opts] URI suite comps -> deb-src [opts] URI suite comps, unless already there.
        cat "${classic[@]}" | awk '
            /^[ \t]*deb-src[ \t]/ { sub(/^[ \t]*deb-src[ \t]+/, ""); have[$0] = 1; next }
            /^[ \t]*deb[ \t]/ && /debian/ && !/cdrom:/ { sub(/^[ \t]*deb[ \t]+/, ""); want[++n] = $0 }
            END { for (i = 1; i <= n; i++) if (!(want[i] in have)) print "deb-src " want[i] }
        ' >"$DEPS/deb-src.list"
    else
        : >"$DEPS/deb-src.list"
    fi
    for f in sources list; do
        if [[ -s $DEPS/deb-src.$f ]]; then
            cmp -s "$DEPS/deb-src.$f" "$out.$f" 2>/dev/null && continue
            need_root "enabling deb-src"
            say "enabling deb-src in $out.$f"
            cp "$DEPS/deb-src.$f" "$out.$f"
            APT_UPDATED=no
        fi
    done
}

fetch_check_source() {
    local src=$DEPS/src
    [[ -f $DEPS/check-src.stamp ]] && ls -d "$src"/check-*/ >/dev/null 2>&1 && return 0
    enable_deb_src
    # The source index appears only after an update that saw the deb-src entries.
    if [[ -z $(apt-cache showsrc check 2>/dev/null) ]]; then
        need_root "fetching Debian's source of check"
        apt_update
    fi
    say "fetching Debian's source package of check"
    rm -rf "$src"
    mkdir -p "$src"
    (cd "$src" && run_logged check-source.log apt-get source check)
    ls -d "$src"/check-*/ >/dev/null 2>&1 || die "apt-get source check unpacked nothing"
    touch "$DEPS/check-src.stamp"
}

# build_check TARGET TRIPLET: CMake cross-build of Check, static only, no tests.
build_check() {
    local t=$1 triplet=$2 src bld=$DEPS/check-build-$1 inst=$DEPS/check-$1
    [[ -f $DEPS/check-$t.stamp && -f $inst/lib/libcheck.a ]] && return 0
    fetch_check_source
    src=$(ls -d "$DEPS"/src/check-*/ | head -n 1)
    say "building Check for $t ($triplet)"
    rm -rf "$bld" "$inst"
    run_logged "check-$t-configure.log" cmake -S "$src" -B "$bld" \
        -DCMAKE_TOOLCHAIN_FILE="$ROOT/tools/mingw-toolchain.cmake" \
        -DMINGW_TRIPLET="$triplet" \
        -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$inst" \
        -DCMAKE_INSTALL_LIBDIR=lib \
        -DCHECK_ENABLE_TESTS=OFF \
        -DCHECK_ENABLE_TIMEOUT_TESTS=OFF \
        -DENABLE_SUBUNIT_EXT=OFF \
        -DBUILD_TESTING=OFF
    run_logged "check-$t-build.log" cmake --build "$bld" -j "$(nproc)"
    run_logged "check-$t-install.log" cmake --install "$bld"
    [[ -f $inst/lib/libcheck.a && -f $inst/include/check.h ]] || die "Check for $t installed no libcheck.a/check.h"
    touch "$DEPS/check-$t.stamp"
}

# ---- 3. 32-bit Wine ------------------------------------------------------------------
# wine32 needs the i386 architecture. When a suite's i386 index fails to download (the
# security suite's, seen for days), the Multi-Arch: same libraries installed from that suite
# for amd64 have no i386 twin of the same version and the plain install cannot be resolved.
# The fallback installs from the suites whose indexes did load, with those libraries pinned
# (both architectures) to a version both have: what apt then downgrades is listed, and
# nothing may be removed. If even that fails, the i386 architecture is removed again: a
# leftover i386 with no i386 package would make every later apt run fail.
try_wine32() {
    local status=$DEPS/wine32.status no_i386
    if ! no_i386=$(kernel_runs_i386); then
        echo "unavailable: $no_i386" >"$status"
        say "32-bit Wine: not used: $no_i386"
        return 0
    fi
    if wine32_installed; then
        echo ok >"$status"
        return 0
    fi
    if [[ -f $status && ${JEVMON_RETRY_WINE32:-0} != 1 ]]; then
        return 0
    fi
    need_root "trying 32-bit Wine"
    say "trying 32-bit Wine (wine32:i386)"
    local why=""
    local QUIET_FAIL=1
    run_logged wine32-arch.log dpkg --add-architecture i386 || why="dpkg --add-architecture i386 failed"
    if [[ -z $why ]]; then
        APT_UPDATED=no
        apt_update || why="apt-get update with i386 failed (build/deps/apt-update.log)"
    fi
    # Try the install even when the update failed: an index that did not load makes it
    # fail at once, and an unrelated failed index must not keep wine32 away.
    if ! run_logged wine32-install.log apt-get install -y --no-install-recommends wine32:i386; then
        why="${why:+$why; }apt-get install wine32:i386 failed (build/deps/wine32-install.log)"
        if [[ -n $FAILED_SUITES ]]; then
            say "installing wine32 from the suites whose i386 index loaded (without: ${FAILED_SUITES% })"
            install_wine32_without_failed_suites && why=""
        fi
    fi
    if wine32_installed; then
        echo ok >"$status"
        say "32-bit Wine: installed"
        return 0
    fi
    echo "unavailable: ${why:-no /usr/lib/wine/wine after install}" >"$status"
    say "32-bit Wine: not available; removing the i386 architecture again"
    say "  (${why:-no /usr/lib/wine/wine after install})"
    QUIET_FAIL=0
    if dpkg --print-foreign-architectures | grep -qx i386; then
        # Only possible with no i386 package left; a failed install leaves none.
        run_logged wine32-remove.log dpkg --remove-architecture i386 ||
            die "could not remove the i386 architecture (see build/deps/wine32-remove.log)"
        APT_UPDATED=no
        apt_update
    fi
}

# kernel_runs_i386: whether this kernel executes 32-bit x86 programs, tried with a
# five-instruction one made by binutils; if not, prints why. Some kernels run with IA-32
# emulation off (execve of an i386 program fails with ENOEXEC), and there 32-bit Wine
# installs but cannot start.
kernel_runs_i386() {
    local dir rc=0
    dir=$(mktemp -d)
    printf '.globl _start\n_start: movl $1, %%eax\n xorl %%ebx, %%ebx\n int $0x80\n' >"$dir/exit.s"
    if ! as --32 -o "$dir/exit.o" "$dir/exit.s" 2>/dev/null || ! ld -m elf_i386 -o "$dir/exit" "$dir/exit.o" 2>/dev/null; then
        echo "binutils could not make a 32-bit test program"
        rc=1
    elif ! "$dir/exit" 2>/dev/null; then
        echo "this kernel runs no 32-bit x86 programs (IA-32 emulation is off; see dmesg)"
        rc=1
    fi
    rm -rf "$dir"
    return "$rc"
}

wine32_installed() { installed wine32:i386 && [[ -x /usr/lib/wine/wine ]]; }

# install_wine32_without_failed_suites: the fallback of try_wine32, in build/deps/apt-wine32/.
install_wine32_without_failed_suites() {
    local dir=$DEPS/apt-wine32 f
    rm -rf "$dir"
    mkdir -p "$dir/sources" "$dir/preferences"
    # The machine's sources less the failed suites (deb822 and one-line formats); the index
    # files already downloaded for the remaining ones are used as they are.
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -e $f ]] || continue
        awk -v FAILED="$FAILED_SUITES" -f - "$f" >"$dir/sources/$(basename "$f")" <<'AWK'
BEGIN { n = split(FAILED, f, " "); for (i = 1; i <= n; i++) bad[f[i]] = 1; keep = 1 }
function flush(   i) { if (keep && m) { for (i = 1; i <= m; i++) print buf[i]; print "" } m = 0; keep = 1 }
/^[ \t]*$/ { flush(); next }
tolower($0) ~ /^suites:/ {
    line = "Suites:"; k = 0
    for (i = 2; i <= NF; i++) if (!($i in bad)) { line = line " " $i; k++ }
    if (!k) keep = 0
    buf[++m] = line; next
}
{ buf[++m] = $0 }
END { flush() }
AWK
    done
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk -v FAILED="$FAILED_SUITES" '
            BEGIN { n = split(FAILED, f, " "); for (i = 1; i <= n; i++) bad[f[i]] = 1 }
            /^[ \t]*deb(-src)?[ \t]/ { l = $0; gsub(/\[[^]]*\]/, "", l); split(l, w, " "); if (!(w[3] in bad)) print }
        ' >"$dir/sources/machine.list"
    local view=(-o Dir::Etc::sourcelist=/dev/null -o "Dir::Etc::sourceparts=$dir/sources"
                -o "Dir::Etc::preferencesparts=$dir/preferences")
    # Installed amd64 Multi-Arch: same packages, and the i386 versions this view offers:
    # where the installed version has no i386 twin, pin both to the newest one both have.
    dpkg-query -W -f='${Package} ${Architecture} ${Version} ${Multi-Arch} ${db:Status-Abbrev}\n' |
        awk '$2 == "amd64" && $4 == "same" && $5 ~ /^ii/ { print $1, $3 }' >"$dir/installed-same.txt"
    apt-cache "${view[@]}" madison $(awk '{ print $1 ":i386" }' "$dir/installed-same.txt") \
        >"$dir/i386-versions.txt" 2>/dev/null || true
    awk -F'|' '
        NR == FNR { split($0, a, " "); have[a[1]] = a[2]; next }
        { p = $1; gsub(/^ +| +$/, "", p); sub(/:i386$/, "", p); v = $2; gsub(/ /, "", v)
          if (v == have[p]) twin[p] = 1; else if (!(p in newest)) newest[p] = v }
        END { for (p in have) if (!(p in twin) && (p in newest))
                  printf "Package: %s:amd64 %s:i386\nPin: version %s\nPin-Priority: 1001\n\n", p, p, newest[p] }
    ' "$dir/installed-same.txt" "$dir/i386-versions.txt" >"$dir/preferences/jevmon-wine32.pref"
    # A dry run first: nothing of the machine may be removed for 32-bit Wine.
    run_logged wine32-simulate.log apt-get "${view[@]}" -s install -y --no-install-recommends \
        --allow-downgrades wine32:i386 || return 1
    if grep -q '^Remv ' "$DEPS/wine32-simulate.log"; then
        say "the fallback would remove packages ($(awk '/^Remv /{ printf "%s ", $2 }' "$DEPS/wine32-simulate.log")); not done"
        return 1
    fi
    local down
    down=$(awk '/^Inst / && /\[/ { print }' "$DEPS/wine32-simulate.log" |
           sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\).*/\1 \2 \3/p' |
           while read -r p from to; do dpkg --compare-versions "$to" lt "$from" && echo "$p $from -> $to"; done)
    [[ -z $down ]] || say "downgraded to a version with an i386 twin: $(tr '\n' ';' <<<"$down" | sed 's/;$//; s/;/; /g')"
    run_logged wine32-install.log apt-get "${view[@]}" install -y --no-install-recommends \
        --allow-downgrades -o DPkg::Lock::Timeout=600 wine32:i386
}

# ---- 4. Wine prefixes -----------------------------------------------------------------
# One prefix per target, each made by its own loader: build/wine64-prefix (WINEARCH=win64,
# /usr/lib/wine/wine64) and, with 32-bit Wine, build/wine32-prefix (WINEARCH=win32,
# /usr/lib/wine/wine). A 64-bit prefix made before wine32 arrived lacks its 32-bit half,
# and updating it with wineboot -u does not add it; a prefix of the x86 target's own does
# not depend on the order things were installed in. Headless: no DISPLAY, and
# mscoree/mshtml disabled so wineboot never asks to install Mono or Gecko.
# make_prefix DIR WINEARCH LOADER
make_prefix() {
    local dir=$1 arch=$2 loader=$3 stamp=$DEPS/$(basename "$1").stamp
    [[ -f $stamp && -f $dir/system.reg ]] && return 0
    say "Wine prefix: wineboot -i in ${dir#"$ROOT"/} ($arch)"
    rm -rf "$dir"
    mkdir -p "$dir"
    (
        unset DISPLAY WAYLAND_DISPLAY
        export WINEPREFIX=$dir WINEARCH=$arch WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
        run_logged "wineboot-$arch.log" "$loader" wineboot -i </dev/null
        run_logged "wineserver-$arch.log" wineserver -w
    )
    [[ -f $dir/system.reg ]] || die "wineboot made no prefix (see build/deps/wineboot-$arch.log)"
    touch "$stamp"
}

# What run-tests.sh needs to know about Wine, as shell assignments: each target's loader
# and prefix (empty for win32 without 32-bit Wine).
write_wine_env() {
    local w32="" p32=""
    if [[ $(cat "$DEPS/wine32.status") == ok ]]; then
        w32=/usr/lib/wine/wine p32=$PREFIX32
    fi
    cat >"$DEPS/wine.env.tmp" <<EOF
JEVMON_WINE64=/usr/lib/wine/wine64
JEVMON_WINEPREFIX64=$PREFIX64
JEVMON_WINE32=$w32
JEVMON_WINEPREFIX32=$p32
EOF
    mv "$DEPS/wine.env.tmp" "$DEPS/wine.env"
}

main() {
    local start=$SECONDS
    if [[ ${1:-} == demo ]]; then
        install_packages "${DEMO_PACKAGES[@]}"
        touch "$DEPS/demo.stamp"
        say "done (the Linux demo's packages) in $((SECONDS - start)) s"
        return
    fi
    install_packages "${PACKAGES[@]}"
    install_optional_packages
    build_check win64 x86_64-w64-mingw32
    build_check win32 i686-w64-mingw32
    try_wine32
    make_prefix "$PREFIX64" win64 /usr/lib/wine/wine64
    if [[ $(cat "$DEPS/wine32.status") == ok ]]; then
        make_prefix "$PREFIX32" win32 /usr/lib/wine/wine
    fi
    write_wine_env
    touch "$DEPS/done.stamp"
    say "done in $((SECONDS - start)) s"
}

main "$@"

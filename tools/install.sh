#!/usr/bin/env bash
# tools/install.sh - what `make install`, `make uninstall` and `make dist` run, once built.
#
#   install    the Linux SDK under $DESTDIR$PREFIX (PREFIX default /usr/local):
#                lib/jevmon/libjevmon.so, lib/jevmon/libjevprof.so   the agent and jevprof
#                lib/jevmon/jevprof-attach, lib/jevmon/jevprof-pid  jevprof's attach client and script
#                bin/jevmon-regsvr, bin/jevprof                     regsvr32 for Linux; jevprof
#                include/jevmon/*.h, include/jevmon/posix/*.h       the API header and its shims
#                include/jevmon/jevmon.idl
#                lib/libjevsdk.a, lib/libjevplat.a                  what a monitor links
#                lib/pkgconfig/jevmon.pc                            pkg-config --cflags --libs jevmon
#                share/jevmon/registry/*.reg, share/jevmon/install-manifest
#              The manifest lists every file written, so that uninstall removes exactly those.
#   uninstall  removes what the manifest under $DESTDIR$PREFIX lists, then the manifest, then
#              the directories of jevmon's own that are left empty.
#   dist       build/dist/jevmon-<target>.zip for win64 and win32, laid out like the SDK for
#              Java's: bin/ (jevmon.dll, jevprof.dll, the sample monitors), include/, lib/
#              (libjevsdk.a, libjevplat.a, monitor.def), registry/ (.reg files), README.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
DEST=$DESTDIR$PREFIX
MANIFEST_REL=share/jevmon/install-manifest

say() { printf 'install: %s\n' "$*"; }
die() { say "error: $*" >&2; exit 1; }

# put SOURCE MODE RELATIVE-DESTINATION: install one file and list it in the manifest.
put() {
    install -D -m "$2" "$1" "$DEST/$3"
    printf '%s\n' "$3" >>"$DEST/$MANIFEST_REL.new"
}

do_install() {
    local f tmp linux=$BUILD/linux
    for f in libjevmon.so libjevprof.so jevprof-attach jevprof-pid jevprof jevmon-regsvr libjevsdk.a libjevplat.a; do
        [[ -f $linux/$f ]] || die "$linux/$f is missing: run 'make' first"
    done
    mkdir -p "$DEST/share/jevmon"
    : >"$DEST/$MANIFEST_REL.new"
    put "$linux/libjevmon.so" 755 lib/jevmon/libjevmon.so
    put "$linux/libjevprof.so" 755 lib/jevmon/libjevprof.so
    put "$linux/jevprof-attach" 755 lib/jevmon/jevprof-attach
    put "$linux/jevprof-pid" 755 lib/jevmon/jevprof-pid
    # jevprof finds the libraries from where it is: <prefix>/bin/jevprof, <prefix>/lib/jevmon
    # (a tree staged under DESTDIR runs too)
    put "$linux/jevprof" 755 bin/jevprof
    put "$linux/jevmon-regsvr" 755 bin/jevmon-regsvr
    put "$linux/libjevsdk.a" 644 lib/libjevsdk.a
    put "$linux/libjevplat.a" 644 lib/libjevplat.a
    for f in include/*.h; do put "$f" 644 "include/jevmon/$(basename "$f")"; done
    for f in include/posix/*.h; do put "$f" 644 "include/jevmon/posix/$(basename "$f")"; done
    put idl/jevmon.idl 644 include/jevmon/jevmon.idl
    for f in registry/*.reg; do put "$f" 644 "share/jevmon/registry/$(basename "$f")"; done

    tmp=$(mktemp)
    cat >"$tmp" <<EOF
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include/jevmon
agentdir=\${prefix}/lib/jevmon

Name: jevmon
Description: the Microsoft VM for Java's event monitor API on JVMTI: header, self-registration and platform library for monitors
Version: 1.0
Cflags: -I\${includedir} -I\${includedir}/posix
Libs: -L\${libdir} -ljevsdk -ljevplat -ldl -pthread
EOF
    put "$tmp" 644 lib/pkgconfig/jevmon.pc
    rm -f "$tmp"

    printf '%s\n' "$MANIFEST_REL" >>"$DEST/$MANIFEST_REL.new"
    mv "$DEST/$MANIFEST_REL.new" "$DEST/$MANIFEST_REL"
    say "installed $(wc -l <"$DEST/$MANIFEST_REL") files under $DEST (listed in $DEST/$MANIFEST_REL)"
}

do_uninstall() {
    local manifest=$DEST/$MANIFEST_REL rel n=0 dir
    [[ -f $manifest ]] || die "no $manifest: nothing of jevmon is installed under $DEST"
    while IFS= read -r rel; do
        [[ -n $rel && $rel != /* && $rel != *..* ]] || die "$manifest: unexpected line '$rel'"
        [[ $rel == "$MANIFEST_REL" ]] && continue
        rm -f "$DEST/$rel"
        n=$((n + 1))
    done <"$manifest"
    rm -f "$manifest"
    # Only directories of jevmon's own, and only when empty: bin/, lib/ and the like stay.
    for dir in share/jevmon/registry share/jevmon include/jevmon/posix include/jevmon lib/jevmon; do
        rmdir "$DEST/$dir" 2>/dev/null || true
    done
    say "removed $((n + 1)) files from $DEST"
}

do_dist() {
    command -v zip >/dev/null || die "zip is missing: run 'make deps'"
    local t stage zipfile f
    local -A triplet=([win64]=x86_64-w64-mingw32 [win32]=i686-w64-mingw32) # of the README's commands
    mkdir -p "$BUILD/dist"
    for t in win64 win32; do
        stage=$BUILD/dist/jevmon-$t
        zipfile=$BUILD/dist/jevmon-$t.zip
        rm -rf "$stage" "$zipfile"
        mkdir -p "$stage/bin" "$stage/include" "$stage/lib" "$stage/registry"
        for f in jevmon.dll jevprof.dll libjevsdk.a libjevplat.a; do
            [[ -f $BUILD/$t/$f ]] || die "$BUILD/$t/$f is missing: run 'make' first"
        done
        cp "$BUILD/$t/jevmon.dll" "$BUILD/$t/jevprof.dll" "$BUILD/$t"/samples/*.dll "$stage/bin/"
        cp include/*.h idl/jevmon.idl "$stage/include/"
        cp "$BUILD/$t/libjevsdk.a" "$BUILD/$t/libjevplat.a" "$stage/lib/"
        cp tools/dist-monitor.def "$stage/lib/monitor.def"
        cp registry/*.reg "$stage/registry/"
        sed "s/@TARGET@/$t/g; s/@TRIPLET@/${triplet[$t]}/g" tools/dist-readme.txt | sed 's/$/\r/' >"$stage/README.txt"
        (cd "$BUILD/dist" && zip -qr "$zipfile" "jevmon-$t")
        rm -rf "$stage"
        say "wrote ${zipfile#"$ROOT"/}"
    done
}

case ${1:-} in
    install) do_install ;;
    uninstall) do_uninstall ;;
    dist) do_dist ;;
    *) echo "usage: $0 install|uninstall|dist  (PREFIX, DESTDIR from the environment)" >&2; exit 2 ;;
esac

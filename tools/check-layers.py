#!/usr/bin/env python3
"""check-layers.py - the bridge's layers, checked from its sources (run by `make check`).

Every file under src/ lives in a folder, and every folder has a layer (LAYERS below, bottom
first).  A file may use a file of its own folder or of a folder in a lower layer; an edge to a
higher layer is an error.  Folders that share a layer may use one another, but never in a loop.

An edge is either an include (#include "x.h" that resolves to a file under src/) or a use: a
.c file naming a function or variable that another .c file defines without `static`.
Comments and string literals are ignored.  The check knows C only as far as this project
writes it (definitions start at the beginning of a line); that is enough, since a missed
definition can only hide an edge, and the project's tests would not compile a wrong one.

Usage: tools/check-layers.py [--list] [SRC_DIR]
  --list   print every edge between folders with an example, then check
Exit status 0 when every edge points down or sideways without a loop, 1 otherwise.
"""
import os
import re
import sys
from collections import defaultdict

# Bottom first; folders on one line share a layer.  platform/ and common/ are one library
# (libjevplat.a): common/ holds the parts every system shares (the registry file format, GUIDs,
# the log, the chunked array), which the system-specific files use and which use platform.h's types.
LAYERS = [
    ("platform", "common"),  # the operating system, COM and the registry
    ("sdk",),             # what monitors link: IIDs and self-registration
    ("classfile",),       # reading, rewriting and scanning class files; knows nothing of the JVM
    ("vm",),              # the JVM handle, the agent's options, once-initialization
    ("ids",),             # the tables behind the IDs and what they answer
    ("dispatch",),        # the monitor table and delivering one event to the monitors
    ("events", "heap", "sampling"),  # JVM events turned into monitor events
    ("instrument",),      # instrumented method calls, which end in the method-call events
    ("idinfo",),          # the IDInfo object, whose vtable reaches every concern
    ("lifecycle",),          # finding, creating, initializing and shutting down monitors
    ("agent",),           # start-up, attach, commands and the JVMTI wiring
    ("cmd",),             # programs (jevmon-regsvr)
]
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}
ONE_LIBRARY = {("platform", "common"), ("common", "platform")}

DEFINITION = re.compile(
    r"^(?!static\b|extern\b|typedef\b)[A-Za-z_][\w \t\*]*?[\s\*](\w+)\s*\([^;{]*?\)\s*\{", re.M)
VARIABLE = re.compile(
    r"^(?!static\b|extern\b|typedef\b)(?:const\s+)?[A-Za-z_]\w*(?:\s+\w+)*[\s\*]+(\w+)\s*(?:\[[^\]]*\]\s*)?(?:=|;)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof"}


def strip_comments_and_strings(text):
    """Blanks comments and string/char literals, keeping line breaks."""
    def blank(match):
        return "\n" * match.group(0).count("\n") + " "
    pattern = r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    return re.sub(pattern, blank, text, flags=re.S)


def folder_of(src, path):
    rel = os.path.relpath(path, src)
    return rel.split(os.sep)[0] if os.sep in rel else None


def main(argv):
    listing = "--list" in argv
    args = [a for a in argv if a != "--list"]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    src = os.path.normpath(src)
    def shown(path):
        return os.path.relpath(path, os.path.dirname(src))

    files = []
    for directory, _, names in os.walk(src):
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith((".c", ".h"))]
    errors = []
    for path in files:
        folder = folder_of(src, path)
        if folder is None:
            errors.append(f"{shown(path)}: every file lives in a layer folder (see tools/check-layers.py)")
        elif folder not in RANK:
            errors.append(f"{shown(path)}: folder '{folder}' has no layer in tools/check-layers.py")
    if errors:
        print("\n".join("check-layers: " + e for e in errors))
        return 1

    text = {}
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            text[path] = f.read()
    clean = {path: strip_comments_and_strings(t) for path, t in text.items()}

    defined_in = {}
    for path in files:
        if not path.endswith(".c"):
            continue
        for pattern in (DEFINITION, VARIABLE):
            for match in pattern.finditer(clean[path]):
                name = match.group(1)
                if name not in KEYWORDS:
                    defined_in.setdefault(name, path)

    edges = []  # (from file, to file, how)
    for path in files:
        for included in INCLUDE.findall(text[path]):
            for base in (os.path.dirname(path), src):
                target = os.path.normpath(os.path.join(base, included))
                if target in text:
                    edges.append((path, target, f'#include "{included}"'))
                    break
        if path.endswith(".c"):
            for name in sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", clean[path]))):
                target = defined_in.get(name)
                if target and target != path:
                    edges.append((path, target, name))

    between = defaultdict(list)
    for a, b, how in edges:
        fa, fb = folder_of(src, a), folder_of(src, b)
        if fa != fb:
            between[(fa, fb)].append((a, b, how))

    if listing:
        for (fa, fb), found in sorted(between.items()):
            a, b, how = found[0]
            print(f"{fa} -> {fb}: {len(found)} edge(s), e.g. {os.path.relpath(a, src)} -> "
                  f"{os.path.relpath(b, src)} ({how})")

    for (fa, fb), found in sorted(between.items()):
        if RANK[fb] > RANK[fa]:
            for a, b, how in found:
                errors.append(f"{shown(a)} uses {shown(b)} ({how}): "
                              f"{fa}/ may not reach up to {fb}/")

    # Loops among folders of one layer.
    sideways = defaultdict(set)
    for (fa, fb) in between:
        if RANK[fa] == RANK[fb] and (fa, fb) not in ONE_LIBRARY:
            sideways[fa].add(fb)
    state = {}

    def visit(folder, path):
        state[folder] = "open"
        for nxt in sorted(sideways[folder]):
            if state.get(nxt) == "open":
                loop = path[path.index(nxt):] + [nxt]
                errors.append("folders use one another in a loop: " + " -> ".join(loop))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[folder] = "done"

    for folder in sorted(sideways):
        if folder not in state:
            visit(folder, [folder])

    if errors:
        print("\n".join("check-layers: " + e for e in errors))
        return 1
    print(f"check-layers: {len(files)} files in {len(set(folder_of(src, p) for p in files))} folders, "
          f"{sum(len(v) for v in between.values())} edges between folders, all pointing down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

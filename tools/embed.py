#!/usr/bin/env python3
"""embed.py - a text resource as C data, for the build (the Makefile's generated sources).

    embed.py INPUT OUTPUT SYMBOL

INPUT holds the marker /*@DATA@*/ once: OUTPUT defines `const char SYMBOL_head[]` (the text
before it) and `const char SYMBOL_tail[]` (the text after it), so a writer puts its data in
between.  The resource stays a file of its own kind (HTML, say), readable and checkable as such.
"""
import os
import sys

MARKER = "/*@DATA@*/"


def c_literal_lines(text):
    """The text as C string literals, one per source line of it."""
    out = []
    for line in text.splitlines(keepends=True):
        escaped = []
        for byte in line.encode("utf-8"):
            ch = chr(byte)
            if ch == "\\" or ch == '"':
                escaped.append("\\" + ch)
            elif ch == "\n":
                escaped.append("\\n")
            elif ch == "?":
                escaped.append("\\?")  # no trigraphs
            elif 0x20 <= byte < 0x7F:
                escaped.append(ch)
            else:
                escaped.append("\\%03o" % byte)
        out.append('    "%s"' % "".join(escaped))
    return "\n".join(out) if out else '    ""'


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: embed.py INPUT OUTPUT SYMBOL")
    source, target, symbol = sys.argv[1:]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    if text.count(MARKER) != 1:
        sys.exit("embed.py: %s must hold %s exactly once" % (source, MARKER))
    head, tail = text.split(MARKER)
    with open(target + ".tmp", "w", encoding="ascii") as f:
        f.write("/* Generated from %s by tools/embed.py: edit that file, not this one. */\n" % source)
        f.write("const char %s_head[] =\n%s;\n" % (symbol, c_literal_lines(head)))
        f.write("const char %s_tail[] =\n%s;\n" % (symbol, c_literal_lines(tail)))
    os.replace(target + ".tmp", target)


if __name__ == "__main__":
    main()

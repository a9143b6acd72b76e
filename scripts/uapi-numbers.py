#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Check the uAPI numbers of the assembled tree against the table of
# Documentation/networking/srv6-oam-uapi.rst: each symbol has the value the
# table gives, and a value above mainline's highest in the same enum.
# Compiles a small C program against the installed uAPI headers.
#
# ABSENT, for a base that does not carry every patch of the series
# (config/uapi-absent-BASE, none today), lists the symbols of the table that
# base does not have yet, one a line (the first word; "#" comments): each
# must really be absent from its header (a program using it does not
# compile), and is not checked further.
#
# usage: uapi-numbers.py DOC HDRDIR [ABSENT]
#        (HDRDIR: e.g. build/kbuild/usr/include)

import os
import re
import subprocess
import sys
import tempfile


def rows(doc):
    """(symbol, value, header, mainline) from the first table of the doc."""
    lines = open(doc).read().split("\n")
    start = lines.index("Numbers we add")
    out, rules = [], 0
    for line in lines[start:]:
        if re.match(r"^=+( +=+)+$", line):
            rules += 1
            if rules == 3:
                break
            continue
        if rules != 2 or not line.strip():
            continue
        sym, val, hdr, rest = line.split(None, 3)
        out.append((sym, int(val), hdr, rest.strip()))
    return out


def absent_ok(sym, hdr, hdrdir):
    """True if a program using sym does not compile against hdr."""
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "a.c")
        open(c, "w").write("#include <%s>\nlong x = (long)%s;\n" % (hdr, sym))
        return subprocess.run(["gcc", "-I", hdrdir, "-c", "-o",
                               os.path.join(tmp, "a.o"), c],
                              capture_output=True).returncode != 0


def main():
    doc, hdrdir = sys.argv[1:3]
    table = rows(doc)
    if not table:
        sys.exit("uapi-numbers: no rows in %s" % doc)
    absent = set()
    if len(sys.argv) > 3:
        for line in open(sys.argv[3]):
            words = line.split("#", 1)[0].split()
            if words:
                absent.add(words[0])
        unknown = absent - {r[0] for r in table}
        if unknown:
            sys.exit("uapi-numbers: %s: not in the table: %s"
                     % (sys.argv[3], " ".join(sorted(unknown))))
        present = [r[0] for r in table
                   if r[0] in absent and not absent_ok(r[0], r[2], hdrdir)]
        if present:
            sys.exit("uapi-numbers: %s lists symbols the headers have: %s"
                     % (sys.argv[3], " ".join(present)))
        table = [r for r in table if r[0] not in absent]
    src = "#include <stdio.h>\n"
    src += "".join("#include <%s>\n" % h for h in sorted({r[2] for r in table}))
    src += "int main(void)\n{\n"
    src += "".join('\tprintf("%%s %%ld\\n", "%s", (long)%s);\n' % (r[0], r[0])
                   for r in table)
    mains = {}
    for sym, _, _, rest in table:
        m = re.match(r"^([A-Z0-9_]+) = (\d+)$", rest)
        if m:
            mains[m.group(1)] = int(m.group(2))
    src += "\treturn 0;\n}\n"
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, "n.c"), os.path.join(tmp, "n")
        open(c, "w").write(src)
        cc = subprocess.run(["gcc", "-I", hdrdir, "-o", exe, c],
                            capture_output=True, text=True)
        if cc.returncode:
            sys.exit("uapi-numbers: a symbol of the table is not in the "
                     "headers:\n" + cc.stderr)
        got = dict(l.split() for l in
                   subprocess.run([exe], capture_output=True, text=True,
                                  check=True).stdout.splitlines())
    bad = 0
    for sym, val, hdr, rest in table:
        have = int(got[sym])
        if have != val:
            print("uapi-numbers: %s is %d in <%s>, the table says %d"
                  % (sym, have, hdr, val))
            bad += 1
        m = re.match(r"^([A-Z0-9_]+) = (\d+)$", rest)
        if m and have <= int(m.group(2)):
            print("uapi-numbers: %s = %d is not above mainline's %s"
                  % (sym, have, rest))
            bad += 1
    print("uapi-numbers: %d numbers checked, %d wrong%s"
          % (len(table), bad,
             ", %d absent on this base" % len(absent) if absent else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

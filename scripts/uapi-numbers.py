#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Check the uAPI numbers of the assembled tree against the table of
# Documentation/networking/srv6-oam-uapi.rst: each symbol has the value the
# table gives, and a value above mainline's highest in the same enum.
# Compiles a small C program against the installed uAPI headers.
#
# usage: uapi-numbers.py DOC HDRDIR     (HDRDIR: e.g. build/kbuild/usr/include)

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


def main():
    doc, hdrdir = sys.argv[1:3]
    table = rows(doc)
    if not table:
        sys.exit("uapi-numbers: no rows in %s" % doc)
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
    print("uapi-numbers: %d numbers checked, %d wrong" % (len(table), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

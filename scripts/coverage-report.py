#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# make coverage's report: the line coverage, by gcov, of the functions
# config/coverage-functions names, from the counts the guest copied out of
# debugfs (guest-check.sh, GCOV_OUT) and the notes of the coverage build.
#
# usage: coverage-report.py KOBJ GCOV_OUT FUNCTIONS OUT.json
#
# Prints one line per file (lines run / lines, percent), the functions
# with lines never run and those lines, and a total; writes the same as
# JSON.  Exit 0 once a report is made (the percentages are the result, not
# a verdict), 1 if a file's counts or notes are missing.

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def targets(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].split()
            if line:
                out.append((line[0], re.compile(line[1]),
                            re.compile(line[2]) if len(line) > 2 else None))
    return out


def gcov_json(kobj, counts, src):
    """gcov's JSON of one object: its notes (.gcno) from the build, its
    counts (.gcda) from the guest, in a scratch directory"""
    obj = os.path.splitext(src)[0]
    gcno = os.path.join(kobj, obj + '.gcno')
    found = glob.glob(os.path.join(counts, '**', obj + '.gcda'),
                      recursive=True)
    if not os.path.exists(gcno) or not found:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.basename(obj)
        shutil.copy(gcno, os.path.join(tmp, base + '.gcno'))
        shutil.copy(found[0], os.path.join(tmp, base + '.gcda'))
        res = subprocess.run(['gcov', '-t', '--json-format', '-o', tmp,
                              base + '.c'], cwd=tmp, capture_output=True,
                             text=True)
    if res.returncode:
        sys.stderr.write(res.stderr)
        return None
    return json.loads(res.stdout)


def main():
    kobj, counts, funcs, out = sys.argv[1:5]
    report = {'files': [], 'lines': 0, 'run': 0}
    missing = False
    for src, inc, exc in targets(funcs):
        data = gcov_json(kobj, counts, src)
        if data is None:
            print('%-40s no counts or notes' % src)
            missing = True
            continue
        lines = {}
        for f in data['files']:
            # the file itself, not the headers inlined into it
            if not f['file'].endswith(src):
                continue
            for ln in f['lines']:
                fn = ln.get('function_name', '')
                if not inc.search(fn) or (exc and exc.search(fn)):
                    continue
                key = (fn, ln['line_number'])
                lines[key] = max(lines.get(key, 0), ln['count'])
        run = sum(1 for c in lines.values() if c)
        unrun = {}
        for (fn, no), c in sorted(lines.items(), key=lambda x: x[0][1]):
            if not c:
                unrun.setdefault(fn, []).append(no)
        pct = 100.0 * run / len(lines) if lines else 0.0
        print('%-40s %4d / %4d lines  %5.1f%%' % (src, run, len(lines), pct))
        for fn, nos in unrun.items():
            print('    %s: %s' % (fn, ' '.join(map(str, nos))))
        report['files'].append({'file': src, 'lines': len(lines), 'run': run,
                                'percent': round(pct, 1), 'unrun': unrun})
        report['lines'] += len(lines)
        report['run'] += run
    total = 100.0 * report['run'] / report['lines'] if report['lines'] else 0
    report['percent'] = round(total, 1)
    print('%-40s %4d / %4d lines  %5.1f%%' % ('all', report['run'],
                                              report['lines'], total))
    with open(out, 'w') as f:
        json.dump(report, f, indent=1)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())

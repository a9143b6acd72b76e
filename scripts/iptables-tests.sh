#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest (make check, as "@scripts/iptables-tests.sh"): iptables'
# own tests for the extensions iptables-patches/ changes, against the
# binaries we built (build/prefix, first on PATH): iptables-test.py on the
# .t files with both backends, xlate-test.py on the .txlate files.  Exit 0
# if every unit test passed, 1 otherwise, 4 if something is missing.

set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src/iptables
exts="libip6t_srh"

for f in "$src/iptables-test.py" "$src/xlate-test.py"; do
	[ -f "$f" ] || { echo "SKIP: no $f (make tools)"; exit 4; }
done
command -v xtables-legacy-multi > /dev/null ||
	{ echo "SKIP: no xtables-legacy-multi on PATH"; exit 4; }

# The source tree is read-only here, and the scripts work in the current
# directory: run them from a copy.
work=$(mktemp -d /tmp/iptables-tests.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/extensions"
cp "$src/iptables-test.py" "$src/xlate-test.py" "$work"/
for e in $exts; do
	cp "$src/extensions/$e".* "$work/extensions"/
done
cd "$work" || exit 1

rc=0
for e in $exts; do
	if [ -f "extensions/$e.t" ]; then
		for variant in legacy nftables; do
			echo "# iptables-test.py --$variant extensions/$e.t"
			python3 iptables-test.py --host "--$variant" "extensions/$e.t" || rc=1
			cat /tmp/iptables-test.log 2>/dev/null
		done
	fi
	if [ -f "extensions/$e.txlate" ]; then
		echo "# xlate-test.py extensions/$e.txlate"
		python3 xlate-test.py --host "extensions/$e.txlate" || rc=1
	fi
done
exit $rc

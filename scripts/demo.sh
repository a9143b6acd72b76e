#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot the srv6-oam kernel and run demo/srv6-demo.sh in it with
# our tools first on PATH.  The demo's exit status comes back through a file.
#
# usage: demo.sh BZIMAGE PREFIX OUTDIR

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
bzimage=$1 prefix=$2 out=$3
rm -rf "$out"
mkdir -p "$out"

guest="export PATH=$prefix/sbin:$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin;"
guest+=" cd /tmp && $TOP/demo/srv6-demo.sh 2>&1 | tee $out/demo.log; echo \${PIPESTATUS[0]} > $out/status"
"$TOP/scripts/vm.sh" "$bzimage" --rwdir "$out" -- "bash -c '$guest'"

status=$(cat "$out/status" 2> /dev/null || echo "none")
case $status in
0) echo "demo: passed (log: $out/demo.log)" ;;
none) echo "demo: the guest did not run the demo to its end" >&2; exit 1 ;;
*) echo "demo: failed with status $status (log: $out/demo.log)" >&2; exit 1 ;;
esac

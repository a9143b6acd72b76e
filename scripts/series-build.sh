#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series-build`: check that every prefix of the kernel series builds.
# Checks out each commit of base..srv6-oam in the assembled tree in turn and
# builds it incrementally (ccache) in the usual object directory, then goes
# back to srv6-oam.  Not part of make check: it costs a build per patch.
#
# usage: series-build.sh KSRC KOBJ

set -euo pipefail

ksrc=$1 kobj=$2
rc=0
# Whatever happens, leave the tree on the whole series.
trap 'git -C "$ksrc" checkout -q -f srv6-oam' EXIT
for c in $(git -C "$ksrc" rev-list --reverse base..srv6-oam); do
	git -C "$ksrc" checkout -q -f "$c"
	subject=$(git -C "$ksrc" log -1 --format=%s "$c")
	if make -s -C "$ksrc" O="$kobj" -j"${JOBS:-$(nproc)}" CC="ccache gcc" bzImage > /dev/null 2>&1; then
		echo "  ok   $subject"
	else
		echo "  FAIL $subject"
		rc=1
	fi
done
exit $rc

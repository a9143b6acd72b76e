#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series`: write every series as git format-patch output and check it.
#
#   OUT/kernel/    the kernel series with its cover letter, made from
#                  kernel-series/ and the new files at their in-tree paths
#   OUT/kernel-split/N-NAME/
#                  on 6.12, the same patches split by the tree that takes
#                  them (net, net-next, nf-next), each with its cover
#                  letter and get_maintainer.pl's recipients
#                  (scripts/series-splits.sh, kernel-series/splits/)
#   OUT/iproute2/, OUT/iptables/, OUT/ipset/
#                  the userspace series (copies of <pkg>-patches/)
#
# Checks: every kernel patch passes scripts/checkpatch.pl --strict, and the
# series applies with `git am` to a pristine copy of the base, giving the
# same tree as the assembled one.  The userspace series are applied with
# `git am` to their Debian sources by build-tools.sh.
#
# usage: series.sh OUT

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
out=$(mkdir -p "$1" && realpath "$1")
rc=0

"$TOP/scripts/kernel-tree.sh" series "$out/kernel"

# shellcheck source=scripts/checkpatch-lib.sh
. "$TOP/scripts/checkpatch-lib.sh"
checkpatch() { checkpatch_strict "$KSRC" "$@"; }

echo "series: checkpatch --strict"
for p in "$out"/kernel/*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	if checkpatch "$p" --ignore "$CHECKPATCH_IGNORE"; then
		echo "  ok   $(basename "$p")"
	else
		echo "  FAIL $(basename "$p")"
		rc=1
	fi
done

echo "series: git am onto a pristine base"
wt=$(mktemp -d)
git -C "$KSRC" worktree add -q --detach "$wt" base
patches=()
for p in "$out"/kernel/*.patch; do
	case $p in *0000-cover-letter.patch) ;; *) patches+=("$p") ;; esac
done
if git -C "$wt" am -q --whitespace=error-all "${patches[@]}"; then
	if [ "$(git -C "$wt" rev-parse HEAD^{tree})" = "$(git -C "$KSRC" rev-parse srv6-oam^{tree})" ]; then
		echo "  ok   ${#patches[@]} patches apply, same tree as assembled"
	else
		echo "  FAIL the applied series differs from the assembled tree"
		rc=1
	fi
else
	echo "  FAIL git am"
	git -C "$wt" am --abort || true
	rc=1
fi
git -C "$KSRC" worktree remove --force "$wt"

# Upstream takes the series from 6.12's state in parts, by tree; the
# other bases are for backports and take it whole.
if [ "${BASE:-6.12}" = 6.12 ]; then
	KSRC=$KSRC "$TOP/scripts/series-splits.sh" "$out/kernel-split" || rc=1
else
	rm -rf "$out/kernel-split"
fi

# iproute2 follows the kernel's coding style: checkpatch it too.  It has no
# MAINTAINERS file to update for a new file (FILE_PATH_CHANGES), and the
# commits its Fixes: tags name are iproute2's, which checkpatch looks up in
# the kernel tree (UNKNOWN_COMMIT_ID).
for pkg in iproute2 iptables ipset; do
	mkdir -p "$out/$pkg"
	rm -f "$out/$pkg"/*.patch
	for p in "$TOP/$pkg-patches"/*.patch; do cp "$p" "$out/$pkg"/; done
	echo "series: $pkg: $(ls "$out/$pkg" | wc -l) patches"
	[ "$pkg" = iproute2 ] || continue
	for p in "$out/$pkg"/*.patch; do
		if checkpatch "$p" --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID; then
			echo "  ok   $(basename "$p")"
		else
			echo "  FAIL $(basename "$p")"
			rc=1
		fi
	done
done
exit $rc

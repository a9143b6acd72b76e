#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series`: write every series as git format-patch output and check it.
#
#   OUT/kernel/    the kernel series with its cover letter, made from
#                  kernel-series/ and the new files at their in-tree paths
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

# checkpatch PATCH [OPTION...]: checkpatch --strict finds nothing, but in
# files that ynl-gen wrote.  Those (a first comment "YNL-GEN kernel",
# "uapi" or "user", as tools/net/ynl/ynl-regen.sh finds them) are the
# generator's output, committed as it wrote it: mainline's own have the
# same CHECKs (blank line after an enum, in include/uapi/linux/fou.h), and
# a hand-edited one fails make ynl-check.
ynl_generated=$(git -C "$KSRC" grep -l -e '^/\* YNL-GEN \(kernel\|uapi\|user\)' |
	tr '\n' ' ')
checkpatch()
{
	local p=$1 out
	shift
	out=$(cd "$KSRC" && ./scripts/checkpatch.pl --strict --no-tree -q \
		--show-types "$@" "$p") && return 0
	awk -v gen=" $ynl_generated" '
		!/^(ERROR|WARNING|CHECK):/ { next }
		{
			f = ""
			if (match($0, /FILE: [^:]+:/))
				f = substr($0, RSTART + 6, RLENGTH - 7)
			if (f != "" && index(gen, " " f " ")) {
				ynl++
				next
			}
			print $0 "\n"
			bad++
		}
		END {
			if (ynl)
				printf "  (%d in ynl-generated files)\n", ynl
			exit bad > 0
		}' RS= <<< "$out"
}

echo "series: checkpatch --strict"
# UNKNOWN_COMMIT_ID: patch 0002 names the mainline (6.17) commits whose
# behaviour it reproduces; the 6.12 base, where checkpatch looks them up,
# does not have them.
for p in "$out"/kernel/*.patch; do
	case $p in *0000-cover-letter.patch) continue ;; esac
	if checkpatch "$p" --ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID; then
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

# iproute2 follows the kernel's coding style: checkpatch it too.  It has no
# MAINTAINERS file to update for a new file (FILE_PATH_CHANGES).
for pkg in iproute2 iptables ipset; do
	mkdir -p "$out/$pkg"
	rm -f "$out/$pkg"/*.patch
	for p in "$TOP/$pkg-patches"/*.patch; do cp "$p" "$out/$pkg"/; done
	echo "series: $pkg: $(ls "$out/$pkg" | wc -l) patches"
	[ "$pkg" = iproute2 ] || continue
	for p in "$out/$pkg"/*.patch; do
		if checkpatch "$p" --ignore FILE_PATH_CHANGES; then
			echo "  ok   $(basename "$p")"
		else
			echo "  FAIL $(basename "$p")"
			rc=1
		fi
	done
done
exit $rc

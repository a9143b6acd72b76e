# SPDX-License-Identifier: GPL-2.0
#
# checkpatch_strict KSRC PATCH [OPTION...]: scripts/checkpatch.pl --strict
# of the tree KSRC finds nothing in PATCH, but in files that ynl-gen wrote.
# Those (a first comment "YNL-GEN kernel", "uapi" or "user", as
# tools/net/ynl/ynl-regen.sh finds them) are the generator's output,
# committed as it wrote it: mainline's own have the same CHECKs (blank line
# after an enum, in include/uapi/linux/fou.h), and a hand-edited one fails
# make ynl-check.  Prints what checkpatch found; returns 1 if it found any.
# Sourced by scripts/series.sh and scripts/series-build.sh.

checkpatch_strict()
{
	local ksrc=$1 p=$2 out gen
	shift 2
	out=$(cd "$ksrc" && ./scripts/checkpatch.pl --strict --no-tree -q \
		--show-types "$@" "$p") && return 0
	gen=$(git -C "$ksrc" grep -l -e '^/\* YNL-GEN \(kernel\|uapi\|user\)' |
		tr '\n' ' ')
	awk -v gen=" $gen" '
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

# The checkpatch types the kernel series is checked without:
#   FILE_PATH_CHANGES  a new file with no MAINTAINERS entry (the cover
#                      letter lists the maintainers)
#   UNKNOWN_COMMIT_ID  patches that name mainline commits whose behaviour
#                      they reproduce (0011: 6.17's End.X oif; the
#                      prerequisites of a base's overlay): the base tree,
#                      where checkpatch looks them up, does not have them
CHECKPATCH_IGNORE=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID

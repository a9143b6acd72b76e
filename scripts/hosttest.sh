# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# What the host tests of make check-host written in bash share (as
# python/srv6_oam/hosttest.py does for those in Python): their result lines, in
# the style of the selftests' log_test, and whether one failed.  Source it.

# shellcheck disable=SC2034 # read by the scripts that source this file
failed=0

# check NAME GOOD [DETAIL]: one TEST: line, OK when GOOD is 1; a failure
# prints its DETAIL, indented, and is remembered in $failed.
check() {
	local name=$1 good=$2 detail=${3:-}
	if [ "$good" = 1 ]; then
		printf 'TEST: %-66s [ OK ]\n' "$name"
	else
		printf 'TEST: %-66s [FAIL]\n' "$name"
		[ -z "$detail" ] || printf '%s\n' "${detail%$'\n'}" | sed 's/^/\t/'
		failed=1
	fi
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where a test spends its time: sums an XTRACE=1 trace (scripts/guest-check.sh,
# RESULTS/traces/TEST) per source line.  Each traced command is charged the
# time until the next command of the same shell (process): the command's own
# run time, children and waits included.  Prints the N (20) most expensive
# lines: seconds, times run, FILE:LINE, and the first command seen there.
# Shells that run side by side are each charged their own time: with
# MAIN=1 only the test's own shell (the first in the trace) is, whose time
# adds up to the test's.
#
# usage: [MAIN=1] trace-profile.sh TRACE [N]

set -eu
trace=$1
n=${2:-20}
awk -v main="${MAIN:-0}" '
/^\++[0-9]+\.[0-9]+ [0-9]+ [^ ]+:[0-9]+ / {
	sub(/^\++/, "")
	t = $1; pid = $2; loc = $3
	if (first == "")
		first = pid
	if (main == 1 && pid != first)
		next
	if (pid in last) {
		dt = t - last[pid]
		sum[lastloc[pid]] += dt
		cnt[lastloc[pid]]++
	}
	last[pid] = t; lastloc[pid] = loc
	if (!(loc in cmd)) {
		c = $0
		sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", c)
		cmd[loc] = substr(c, 1, 70)
	}
}
END {
	for (l in sum)
		printf "%9.1f %6d  %-34s %s\n", sum[l], cnt[l], l, cmd[l]
}' "$trace" | sort -rn | head -n "$n"

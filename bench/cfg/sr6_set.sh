#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SRv6 transit (plain forwarding of a packet with an SRH) with one
# `-m set --match-set` rule in the mangle FORWARD chain over an ipset
# hash:sr6 set with counters of N elements: N-1 lists that differ from the
# flow's in their last SID, and the flow's own list, so that every packet
# is found in the set and updates its element's counters.
# sr6_set_N in an experiment: sr6_set.sh GEN SUT N.  sr6_set_0 is the same
# transit with no monitoring at all: no set, no rule, no mangle table.

. "$(dirname "$0")/common.sh"

n=${3:-0}
ipt() { ip netns exec "$SUT" ip6tables-legacy -t mangle "$@"; }

sut_routes
if [ "$n" -eq 0 ]; then
	traffic 6 fc00:9::a,fc00:9::b,fc00:9::1
	exit 0
fi
{
	echo "create flows hash:sr6 counters maxelem $((n + 1024))"
	# printf, not $(printf ...): no subshell per element (under TCG
	# 10000 of them took 35 s of the gate's guest time)
	for ((i = 1; i < n; i++)); do
		printf 'add flows fc00:9::a,fc00:9::b,fc00:8::%x\n' "$i"
	done
	echo "add flows fc00:9::a,fc00:9::b,fc00:9::1"
} | ip netns exec "$SUT" ipset restore
ipt -N mon
ipt -A FORWARD -j mon
ipt -A mon -m set --match-set flows src
traffic 6 fc00:9::a,fc00:9::b,fc00:9::1

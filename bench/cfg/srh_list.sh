#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# SRv6 transit (plain forwarding of a packet with an SRH) with N
# ip6tables --srh-sid-list rules in the mangle FORWARD chain: N-1 lists that
# differ from the flow's in their last SID, then the flow's own list, so
# that every rule is evaluated.  Rules without a target only count.
# srh_list_N in an experiment: srh_list.sh GEN SUT N (N = 0: the chain is
# there, empty).

. "$(dirname "$0")/common.sh"

n=${3:-0}
ipt() { ip netns exec "$SUT" ip6tables-legacy -t mangle "$@"; }

sut_routes
ipt -N mon
ipt -A FORWARD -j mon
for ((i = 1; i < n; i++)); do
	ipt -A mon -m srh --srh-sid-list "fc00:9::a,fc00:9::b,fc00:8::$(printf %x "$i")"
done
[ "$n" -eq 0 ] || ipt -A mon -m srh --srh-sid-list fc00:9::a,fc00:9::b,fc00:9::1
traffic 6 fc00:9::a,fc00:9::b,fc00:9::1

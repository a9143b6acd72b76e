#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The PF-PLM data plane (pfplm, Documentation/networking/srv6-pfplm.rst):
# plm.sh GEN SUT ROLE METHOD MODE N, run by the plm_*.sh wrappers.
#   ingress: the SUT is the SR policy's headend: H.Encaps (a seg6 encap
#            route) of plain IPv6 traffic with the flow's SID list
#            fc00:9::a,fc00:9::b,fc00:9::1, then pfplm's ingress chains in
#            mangle FORWARD, which see the outer header and its SRH;
#   egress:  the SUT is the flow's End.DT6 endpoint (fc00:1::d6): the
#            traffic arrives encapsulated with the flow's list
#            fc00:9::a,fc00:9::b,fc00:1::d6, Segments Left 0 and traffic
#            class 0x08 (pfplm's default bits: monitored, colour A), and
#            pfplm's egress chains in mangle PREROUTING count it per colour
#            before the decapsulation.
#   METHOD   off (no monitoring at all: no mangle table, no set; the
#            baseline of each role), rules or sets;
#   MODE     colour (what pfplm installs: counting and, on the ingress,
#            colouring) or count (ingress only: the same rules without the
#            TOS target, counting only);
#   N        flows: N-1 decoy SID lists, then the flow's own, last.
# The chains, rules and sets are installed by pfplm's own code (plm.py
# calls its Netfilter.setup(): one ipset restore, one ip6tables-restore
# batch), so they are byte for byte what pfplm installs.

. "$(dirname "$0")/common.sh"

role=${3:?role} method=${4:?method} mode=${5:-colour} n=${6:-1}
flow=fc00:9::a,fc00:9::b,fc00:9::1
sut_routes
case $role in
ingress)
	sut -6 route replace fd00:9::/64 encap seg6 mode encap segs "$flow" dev sink0
	;;
egress)
	flow=fc00:9::a,fc00:9::b,fc00:1::d6
	sut_routes 100
	sut -6 route add fc00:1::d6/128 encap seg6local action End.DT6 table 100 dev veth0
	;;
*)
	echo "plm.sh: role $role: want ingress or egress" >&2
	exit 2
	;;
esac
if [ "$method" != off ]; then
	ip netns exec "$SUT" /usr/bin/python3 "$(dirname "$0")/plm.py" \
		"$role" "$method" "$mode" "$n"
fi
if [ "$role" = ingress ]; then
	traffic 6
else
	# Segments Left 0 (the destination is the last SID), traffic class
	# 0x08: what the ingress sent, coloured A.
	printf '{"family": 6, "dst_addr": "fd00:9::1", "src_addr": "fd00:8::1", "dst": "fd00:9::/64", "encap": {"mode": "encap", "segs": ["%s"], "segleft": 0, "tc": 8}}\n' \
		"${flow//,/\", \"}"
fi

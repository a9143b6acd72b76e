#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DT4 (VRF mode): decapsulate, look the IPv4 packet up in VRF table 100.

. "$(dirname "$0")/common.sh"

ip netns exec "$SUT" sysctl -qw net.vrf.strict_mode=1
sut link add vrf100 type vrf table 100
sut link set vrf100 up
sut_routes
sut -4 route replace 10.9.0.0/24 via 10.0.2.2 dev sink0 table 100
sut -6 route add fc00:1::d4/128 encap seg6local action End.DT4 vrftable 100 dev vrf100
traffic 4 fc00:1::d4

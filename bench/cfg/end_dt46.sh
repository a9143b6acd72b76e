#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DT46 (VRF mode): decapsulate, look the IPv6 packet up in VRF table 100.

. "$(dirname "$0")/common.sh"

ip netns exec "$SUT" sysctl -qw net.vrf.strict_mode=1
sut link add vrf100 type vrf table 100
sut link set vrf100 up
sut_routes
sut_routes 100
sut -6 route add fc00:1::d46/128 encap seg6local action End.DT46 vrftable 100 dev vrf100
traffic 6 fc00:1::d46

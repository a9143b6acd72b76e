#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DX4 with xconnect: decapsulate, cross-connect the IPv4 packet to 10.0.2.2
# (the sink) on sink0, no route lookup.

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::d4/128 encap seg6local action End.DX4 nh4 10.0.2.2 oif sink0 xconnect dev veth0
traffic 4 fc00:1::d4 encap 10.0.2.2

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.X with oif as on mainline (6.17): fd00:2::2 looked up for every packet,
# with sink0 as the flow's oif (a preference for this global next hop).

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::e8/128 encap seg6local action End.X nh6 fd00:2::2 oif sink0 dev veth0
traffic 6 fc00:1::e8,fc00:9::1

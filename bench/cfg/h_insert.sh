#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# H.Insert: an SRH inserted into the IPv6 packet (one SID).

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route replace fd00:9::/64 encap seg6 mode inline segs fc00:9::1 dev sink0
traffic 6

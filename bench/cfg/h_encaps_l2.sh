#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# H.Encaps.L2: the whole frame in IPv6 + SRH (one SID).

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route replace fd00:9::/64 encap seg6 mode l2encap segs fc00:9::1 dev sink0
traffic 6

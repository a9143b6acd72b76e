#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# H.Encaps of IPv6: the SUT is the SR policy headend (one SID).

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route replace fd00:9::/64 encap seg6 mode encap segs fc00:9::1 dev sink0
traffic 6

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# H.Encaps of IPv4 (one SID).

. "$(dirname "$0")/common.sh"

sut_routes
sut -4 route replace 10.9.0.0/24 encap seg6 mode encap segs fc00:9::1 dev sink0
traffic 4

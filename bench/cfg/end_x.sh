#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.X: cross-connect to the IPv6 next hop fd00:2::2.

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::e8/128 encap seg6local action End.X nh6 fd00:2::2 dev veth0
traffic 6 fc00:1::e8,fc00:9::1

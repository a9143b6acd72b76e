#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DT6: decapsulate, look the IPv6 packet up in table 100.

. "$(dirname "$0")/common.sh"

sut_routes
sut_routes 100
sut -6 route add fc00:1::d6/128 encap seg6local action End.DT6 table 100 dev veth0
traffic 6 fc00:1::d6

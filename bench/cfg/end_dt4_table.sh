#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DT4 (table mode): decapsulate, look the IPv4 packet up in table 100,
# no VRF device.

. "$(dirname "$0")/common.sh"

sut_routes
sut_routes 100
sut -6 route add fc00:1::d4/128 encap seg6local action End.DT4 table 100 dev veth0
traffic 4 fc00:1::d4

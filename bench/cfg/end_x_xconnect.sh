#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.X with xconnect: cross-connect to fd00:2::2 on sink0, no route lookup.

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::e8/128 encap seg6local action End.X nh6 fd00:2::2 oif sink0 xconnect dev veth0
traffic 6 fc00:1::e8,fc00:9::1

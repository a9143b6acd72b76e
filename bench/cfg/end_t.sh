#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.T: next segment looked up in table 100.

. "$(dirname "$0")/common.sh"

sut_routes
sut_routes 100
sut -6 route add fc00:1::e7/128 encap seg6local action End.T table 100 dev veth0
traffic 6 fc00:1::e7,fc00:9::1

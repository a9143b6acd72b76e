#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End: the SUT is the active segment, two SIDs left.

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::e/128 encap seg6local action End dev veth0
traffic 6 fc00:1::e,fc00:9::1

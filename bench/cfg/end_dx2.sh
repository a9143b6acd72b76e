#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DX2: decapsulate, send the inner frame out of sink0.

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::d2/128 encap seg6local action End.DX2 oif sink0 dev veth0
traffic 6 fc00:1::d2 l2encap

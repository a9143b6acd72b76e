#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End.DX4: decapsulate, cross-connect the IPv4 packet to 10.0.2.2 (the sink).

. "$(dirname "$0")/common.sh"

sut_routes
sut -6 route add fc00:1::d4/128 encap seg6local action End.DX4 nh4 10.0.2.2 dev veth0
# End.DX4 looks nh4 up, but a connected route resolves the neighbour of the
# packet's own destination: the inner packet goes to the sink's address.
traffic 4 fc00:1::d4 encap 10.0.2.2

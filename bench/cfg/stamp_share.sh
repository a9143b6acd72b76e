#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPv4 forwarding with some STAMP test packets among the forwarded ones: the
# forwarding rate against the share of STAMP traffic (the SD-WAN paper's
# Tables I-III).  stamp_share_N: pktgen sends to the N addresses 10.9.0.1 ..
# in turn, UDP port 862, from 10.7.0.1 behind the sink; 10.9.0.1 is the
# SUT's own and its in-kernel reflector answers it (a share of 1/N), the
# others are forwarded to the sink.  Replies leave through sink0 too, so
# every packet delivered is a forwarded packet or a reply.
# stamp_share_0: the reflector is configured, 10.9.0.1 is not the SUT's, and
# the 100000 addresses are all forwarded: 0% STAMP.  ipv4_range is the same
# without any reflector, the baseline.  Frames of at least 86 bytes: 44 of
# UDP payload.

. "$(dirname "$0")/common.sh"

n=${3:-0}
sut_routes
sut -4 route replace 10.8.0.0/14 via 10.0.2.2 dev sink0
sut -4 route replace 10.7.0.0/16 via 10.0.2.2 dev sink0
if [ "$n" != none ]; then
	sut stamp reflector add port 862
fi
if [ "$n" = 0 ] || [ "$n" = none ]; then
	n=100000
else
	sut -4 addr add 10.9.0.1/32 dev lo
fi
last=$((n - 1))
printf '{"family": 4, "dst_addr": "10.9.0.1", "dst_max": "10.%d.%d.%d", "src_addr": "10.7.0.1", "udp_dst": 862, "min_size": 86}\n' \
	$((9 + (last + 1) / 65536)) $((((last + 1) / 256) % 256)) $(((last + 1) % 256))

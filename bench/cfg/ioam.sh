#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# IPv6 forwarding through an IOAM node, for the IOAM issue's curves (the
# IOAM paper's): ioam.sh GEN SUT MODE N, run by the ioam_*.sh wrappers.
#   unused: IOAM configured (namespaces 1-9, ioam6_enabled on the ingress
#           interface), no IOAM in the packets: the cost of having it;
#   freq N: the SUT inserts a pre-allocated trace (hop limit + node id,
#           room for 3 nodes) inline into 1 forwarded packet in N;
#   opts N: N such traces into every packet, all in namespace 1;
#   ns N:   N such traces into every packet, in namespaces 1..N;
#   e2e:    an Edge-to-Edge option alone (64-bit sequence number and
#           timestamp, a 32-byte Destination Options header).
# Inserted inline into forwarded packets, so the SUT does the insertion and
# nothing else; the sink does not parse the options.

. "$(dirname "$0")/common.sh"

mode=${3:?mode} n=${4:-1}
sut_routes
for i in 1 2 3 4 5 6 7 8 9; do
	sut ioam namespace add "$i"
done
ip netns exec "$SUT" sysctl -qw net.ipv6.ioam6_id=1 \
	net.ipv6.conf.veth0.ioam6_enabled=1

trace="trace prealloc type 0x800000 size 12"
opts= freq=
case $mode in
unused)
	;;
freq)
	freq="freq 1/$n"
	opts="$trace ns 1"
	;;
opts|ns)
	for i in $(seq 1 "$n"); do
		[ "$mode" = opts ] && opts="$opts $trace ns 1"
		[ "$mode" = ns ] && opts="$opts $trace ns $i"
	done
	;;
e2e)
	opts="e2e ns 1 seq64 timestamp"
	;;
*)
	echo "ioam.sh: unknown mode $mode" >&2
	exit 1
	;;
esac
if [ -n "$opts" ]; then
	# shellcheck disable=SC2086
	sut -6 route replace fd00:9::/64 via fd00:2::2 dev sink0 \
		encap ioam6 $freq mode inline $opts
fi
traffic 6

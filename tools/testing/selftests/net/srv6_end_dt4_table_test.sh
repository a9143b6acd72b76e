#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SRv6 End.DT4 bound to a plain routing table ("table", no VRF device): the
# decapsulated IPv4 packet is routed in that table, and only in that table.
#
#                                +------+  10.0.10.2, 10.9.9.1 on lo
#                            +---|  na  |
#  +------+      +-------+   |   +------+
#  | src  |------|   r   |---+
#  +------+      +-------+   |   +------+
#   10.1.1.1     fc00:e::d4t +---|  nb  |  10.0.11.2, 10.9.9.1 on lo
#   fc00:1::1                    +------+
#
# In r's main table 10.9.9.1 is reached through na; in table 100 through nb.
# src encapsulates (H.Encaps) its pings with the SID of End.DT4 table 100.

source lib.sh
source srv6_oam_lib.sh

readonly PINGS=5
readonly SID=fc00:e::d4

cleanup()
{
	cleanup_all_ns
}

trap cleanup EXIT

sid_stat()
{
	ip -n "$r" -6 -s -j route show "$SID/128" | jq ".[0].stats64.$1 // -1"
}

# sid_stat_is COUNTER N: the counter has reached N
sid_stat_is()
{
	[ "$(sid_stat "$1")" -ge "$2" ]
}

setup()
{
	setup_ns src r na nb || exit "$ksft_skip"

	ip link add veth0 netns "$src" type veth peer name veths netns "$r"
	ip link add vetha netns "$r" type veth peer name veth0 netns "$na"
	ip link add vethb netns "$r" type veth peer name veth0 netns "$nb"

	ip -n "$src" addr add fc00:1::1/64 dev veth0 nodad
	ip -n "$src" addr add 10.1.1.1/24 dev veth0
	ip -n "$src" link set veth0 up
	ip -n "$src" -6 route add default via fc00:1::2
	ip -n "$src" -4 route add default via 10.1.1.2
	for dst in 10.9.9.1 10.7.7.7 10.8.8.1; do
		ip -n "$src" -4 route add "$dst/32" encap seg6 mode encap \
			segs "$SID" dev veth0
	done

	ip -n "$r" addr add fc00:1::2/64 dev veths nodad
	ip -n "$r" addr add 10.1.1.2/24 dev veths
	ip -n "$r" addr add 10.0.10.1/24 dev vetha
	ip -n "$r" addr add 10.0.11.1/24 dev vethb
	for dev in veths vetha vethb; do
		ip -n "$r" link set "$dev" up
	done
	ip netns exec "$r" sysctl -wq net.ipv6.conf.all.forwarding=1
	ip netns exec "$r" sysctl -wq net.ipv4.ip_forward=1
	ip netns exec "$r" sysctl -wq net.ipv4.conf.all.rp_filter=0
	ip netns exec "$r" sysctl -wq net.ipv4.conf.default.rp_filter=0

	# main: 10.9.9.1 and 10.8.8.1 via na; table 100: 10.9.9.1 via nb,
	# and 10.7.7.7 is local to r there only (a local route, no address:
	# the policy rules' lookup has no route for it)
	ip -n "$r" -4 route add 10.9.9.1/32 via 10.0.10.2
	ip -n "$r" -4 route add 10.8.8.1/32 via 10.0.10.2
	ip -n "$r" -4 route add 10.9.9.1/32 via 10.0.11.2 table 100
	ip -n "$r" -4 route add local 10.7.7.7/32 dev lo table 100
	ip -n "$r" -4 route add 10.1.1.0/24 dev veths table 100

	ip -n "$na" addr add 10.0.10.2/24 dev veth0
	ip -n "$nb" addr add 10.0.11.2/24 dev veth0
	for ns in "$na" "$nb"; do
		ip -n "$ns" link set veth0 up
		ip -n "$ns" addr add 10.9.9.1/32 dev lo
		ip -n "$ns" addr add 10.8.8.1/32 dev lo
	done
	ip -n "$na" -4 route add default via 10.0.10.1
	ip -n "$nb" -4 route add default via 10.0.11.1
}

# ping $1 through End.DT4; $2 $3 $4: echo requests expected at na, nb and r
check_deliver()
{
	local desc=$1 dst=$2 want_a=$3 want_b=$4 want_r=$5 ping_ok=$6
	local a0 b0 r0 p0 a b rr p

	RET=0
	a0=$(icmp_echos "$na"); b0=$(icmp_echos "$nb"); r0=$(icmp_echos "$r")
	p0=$(sid_stat packets)
	ip netns exec "$src" ping -4 -q -c "$PINGS" -i 0.2 -W 1 "$dst" \
		>/dev/null 2>&1
	if [ "$ping_ok" = yes ]; then
		check_err $? "ping $dst failed"
	else
		check_fail $? "ping $dst succeeded"
	fi
	a=$(($(icmp_echos "$na") - a0)); b=$(($(icmp_echos "$nb") - b0))
	rr=$(($(icmp_echos "$r") - r0)); p=$(($(sid_stat packets) - p0))
	[ "$a" -eq "$want_a" ]
	check_err $? "na received $a echo requests, not $want_a"
	[ "$b" -eq "$want_b" ]
	check_err $? "nb received $b echo requests, not $want_b"
	[ "$rr" -eq "$want_r" ]
	check_err $? "r received $rr echo requests, not $want_r"
	[ "$p" -eq "$PINGS" ]
	check_err $? "End.DT4 counted $p packets, not $PINGS"
	log_test "$desc"
}

route_state()
{
	ip -n "$r" -6 route show table all
}

# $1: description, $2: expected error text, rest: the route
check_reject()
{
	local desc=$1 msg=$2
	shift 2

	RET=0
	check_refused route_state "$msg" \
		ip -n "$r" -6 route replace "$SID/128" encap seg6local \
		action End.DT4 "$@" dev veths
	log_test "reject: End.DT4 $*"
}

srv6_require ip jq ping python3

setup
if ! ip -n "$r" -6 route add "$SID/128" encap seg6local action End.DT4 \
	table 100 count dev veths 2>/dev/null; then
	echo "SKIP: kernel without End.DT4 table mode"
	exit "$ksft_skip"
fi

check_deliver "End.DT4 table 100 forwards by table 100 (nb), not main" \
	10.9.9.1 0 "$PINGS" 0 yes
check_deliver "End.DT4 table 100 delivers locally by table 100" \
	10.7.7.7 0 0 "$PINGS" yes
check_deliver "End.DT4 table 100 does not fall back to main" \
	10.8.8.1 0 0 0 no

RET=0
out=$(ip -n "$r" -6 route show "$SID/128")
echo "$out" | grep -q "action End.DT4 table 100 "
check_err $? "show: $out"
out=$(ip -n "$r" -6 -j route show "$SID/128" |
      jq -r '.[0] | "\(.action) \(.table) \(.vrftable)"')
[ "$out" = "End.DT4 100 null" ]
check_err $? "json: $out"
log_test "End.DT4 table is dumped back (text and JSON)"

# as for any routed packet, IPv4 forwarding must be on
ip netns exec "$r" sysctl -wq net.ipv4.conf.all.forwarding=0
check_deliver "End.DT4 table does not forward with IPv4 forwarding off" \
	10.9.9.1 0 0 0 no
ip netns exec "$r" sysctl -wq net.ipv4.conf.all.forwarding=1

# crafted SRv6 packets with a malformed inner IPv4 header: dropped and
# counted as errors, never routed
RET=0
mac=$(ip -n "$r" -j link show veths | jq -r '.[0].address')
e0=$(sid_stat errors); b0=$(icmp_echos "$nb")
ip netns exec "$src" python3 - "$mac" "$SID" <<-'EOF'
	import sys
	from scapy.config import conf
	from scapy.layers.inet import ICMP, IP
	from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
	from scapy.layers.l2 import Ether
	from scapy.sendrecv import sendp
	conf.verb = 0
	mac, sid = sys.argv[1], sys.argv[2]
	outer = (Ether(dst=mac) / IPv6(src="fc00:1::1", dst=sid) /
	         IPv6ExtHdrSegmentRouting(addresses=[sid], segleft=0, nh=4))
	dst = dict(src="10.1.1.1", dst="10.9.9.1")
	sendp([outer / IP(ihl=15, **dst) / ICMP(),
	       outer / IP(chksum=0x1234, **dst) / ICMP(),
	       outer / IP(len=1400, **dst) / ICMP()], iface="veth0")
EOF
check_err $? "cannot send the crafted packets"
slowwait 60 sid_stat_is errors $((e0 + 3))
e1=$(sid_stat errors); b1=$(icmp_echos "$nb")
[ $((e1 - e0)) -eq 3 ]
check_err $? "End.DT4 counted $((e1 - e0)) errors, not 3"
[ $((b1 - b0)) -eq 0 ]
check_err $? "nb received $((b1 - b0)) malformed packets"
log_test "End.DT4 table drops malformed inner IPv4 headers"

check_reject "both table and vrftable" \
	"table and vrftable are mutually exclusive" table 100 vrftable 100
check_reject "neither table nor vrftable" \
	"table or vrftable must be specified"
check_reject "a table that is not a number" "invalid table id" \
	table nosuchtable

exit "$EXIT_STATUS"

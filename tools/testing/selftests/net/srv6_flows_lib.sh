#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the SRv6 flow tests (srv6_srh_sid_list_test.sh,
# srv6_hash_sr6_test.sh, srv6_pfplm_test.sh), after lib.sh and
# srv6_oam_lib.sh: their topology, their four flows and the helpers they
# share.
#
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#  | hs |----| r1 |----| r2 |----|     r3     |----|       r4       |----| hd |
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#            H.Encaps  transit   End fc00:3::e     End fc00:4::e(2)     fd00:d::a,
#                                                  End.DT6 fc00:4::d6   ::b, ::c, ::e
#
# r1 steers the pings of hs to four addresses of hd over four SID lists:
#   A  fd00:d::a  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps
#   B  fd00:d::b  fc00:3::e,fc00:4::e2,fc00:4::d6  H.Encaps, one SID differs
#   C  fd00:d::c  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps.Red: the SRH
#                 carries fc00:4::e,fc00:4::d6 only
#   E  fd00:d::e  fc00:4::d6                       H.Encaps, a single SID
# The replies come back without an SRH.

readonly PINGS=5
readonly LIST_A=fc00:3::e,fc00:4::e,fc00:4::d6
readonly LIST_B=fc00:3::e,fc00:4::e2,fc00:4::d6
readonly LIST_C=fc00:4::e,fc00:4::d6
readonly LIST_E=fc00:4::d6
# The longest list the matches take: 16 SIDs, 1::1 to 1::10
readonly LIST_16=1::1,1::2,1::3,1::4,1::5,1::6,1::7,1::8,1::9,1::a,1::b,1::c,1::d,1::e,1::f,1::10

# flows_setup: the topology above, with the four flows' routes at r1
flows_setup()
{
	local ns

	setup_ns hs r1 r2 r3 r4 hd || exit "$ksft_skip"

	veth_link "$hs" veth0 "$r1" veth0 fd00:1::1/64 fd00:1::2/64
	veth_link "$r1" veth1 "$r2" veth0 fc00:12::1/64 fc00:12::2/64
	veth_link "$r2" veth1 "$r3" veth0 fc00:23::2/64 fc00:23::3/64
	veth_link "$r3" veth1 "$r4" veth0 fc00:34::3/64 fc00:34::4/64
	veth_link "$r4" veth1 "$hd" veth0 fd00:d::1/64 fd00:d::2/64
	for a in a b c e; do
		ip -n "$hd" addr add "fd00:d::$a/64" dev veth0 nodad
	done

	for ns in "$r1" "$r2" "$r3" "$r4"; do
		ip netns exec "$ns" sysctl -wq net.ipv6.conf.all.forwarding=1
	done

	ip -n "$hs" -6 route add default via fd00:1::2
	ip -n "$r1" -6 route add default via fc00:12::2
	ip -n "$r2" -6 route add default via fc00:23::3
	ip -n "$r2" -6 route add fd00:1::/64 via fc00:12::1
	ip -n "$r3" -6 route add default via fc00:34::4
	ip -n "$r3" -6 route add fd00:1::/64 via fc00:23::2
	ip -n "$r4" -6 route add default via fc00:34::3
	ip -n "$hd" -6 route add default via fd00:d::1

	ip -n "$r1" -6 route add fd00:d::a/128 encap seg6 mode encap \
		segs "$LIST_A" dev veth1
	ip -n "$r1" -6 route add fd00:d::b/128 encap seg6 mode encap \
		segs "$LIST_B" dev veth1
	ip -n "$r1" -6 route add fd00:d::c/128 encap seg6 mode encap.red \
		segs "$LIST_A" dev veth1
	ip -n "$r1" -6 route add fd00:d::e/128 encap seg6 mode encap \
		segs "$LIST_E" dev veth1

	ip -n "$r3" -6 route add fc00:3::e/128 encap seg6local action End \
		dev veth1
	ip -n "$r4" -6 route add fc00:4::e/128 encap seg6local action End \
		dev veth1
	ip -n "$r4" -6 route add fc00:4::e2/128 encap seg6local action End \
		dev veth1
	ip -n "$r4" -6 route add fc00:4::d6/128 encap seg6local \
		action End.DT6 table 254 dev veth1
}

# ping_flow DST [COUNT [INTERVAL]]: pings from hs, which must all be answered
ping_flow()
{
	local out

	out=$(ip netns exec "$hs" ping -6 -q -c "${2:-$PINGS}" -i "${3:-0.1}" \
		-W 2 "$1" 2>&1)
	check_err $? "ping $1 failed: $(echo "$out" | grep -E 'transmitted|rror')"
}

# Crafted packets from hs, forwarded by r1 to r2: one python3 with scapy
# on hs, a coprocess started by the first send_crafted, sends them all (a
# python3 and scapy start-up per packet takes seconds in a slow guest).
# It reads "MAC KIND" lines and answers "sent" once the packet is out.
read -r -d '' CRAFTED_PY <<-'EOF' || true
	import sys
	from scapy.config import conf
	from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
	from scapy.layers.l2 import Ether
	from scapy.packet import Raw
	from scapy.sendrecv import sendp
	conf.verb = 0
	# Segment List order: the last segment first
	a = ["fc00:4::d6", "fc00:4::e", "fc00:3::e"]

	def srh(addresses, **kw):
	    return IPv6ExtHdrSegmentRouting(addresses=addresses, nh=59, **kw)

	def crafted(mac, kind):
	    ip = Ether(dst=mac) / IPv6(src="fd00:1::1", dst="fc00:3::e", nh=43)
	    if kind == "good":
	        return ip / srh(a, segleft=2, lastentry=2)
	    if kind == "segleft-le+1":
	        # Segments Left = Last Entry + 1 is valid (RFC 8754)
	        return ip / srh(a, segleft=3, lastentry=2)
	    if kind == "overflow":
	        # Last Entry 2 but room for two SIDs: the third one would be
	        # read from the payload, where it is made to look like list A
	        return (ip / srh(a[:2], segleft=1, lastentry=2, len=4) /
	                Raw(bytes(IPv6(dst=a[2]))[24:40]))
	    if kind == "truncated":
	        p = Ether(bytes(ip / srh(a, segleft=2, lastentry=2))[:14 + 40 + 8 + 40])
	        p[IPv6].plen = 48
	        return p
	    if kind == "tlv":
	        # a PadN TLV after the Segment List, inside Hdr Ext Len
	        return (ip / srh(a, segleft=2, lastentry=2, len=8) /
	                Raw(bytes([4, 14]) + bytes(14)))
	    if kind == "segleft":
	        return ip / srh(a, segleft=5, lastentry=2)
	    if kind == "type2":
	        # a routing header of another type, with list A's bytes
	        return ip / srh(a, segleft=2, lastentry=2, type=2)
	    raise ValueError(kind)

	for line in sys.stdin:
	    mac, kind = line.split()
	    sendp(crafted(mac, kind), iface="veth0")
	    print("sent", flush=True)
	EOF

# Seconds to wait for a crafted packet to be counted: generous, a slow
# guest must not fail the test; a packet that is lost fails it anyway.
CRAFTED_WAIT=${CRAFTED_WAIT:-60}

# send_crafted MAC KIND: send one crafted packet of KIND to r1's MAC and
# wait until it is out.  The first waits for scapy to load: the deadline
# is generous.
send_crafted()
{
	local reply

	if [ -z "${CRAFTED_PID:-}" ]; then
		coproc CRAFTED { ip netns exec "$hs" python3 -c "$CRAFTED_PY"; }
	fi
	echo "$1 $2" >&"${CRAFTED[1]}" &&
		read -r -t 600 reply <&"${CRAFTED[0]}" &&
		[ "$reply" = sent ]
}

# crafted_stop: end the sender of send_crafted, if it runs: at the end of
# its input it exits
crafted_stop()
{
	local pid=${CRAFTED_PID:-}

	[ -n "$pid" ] || return 0
	[ -n "${CRAFTED[1]:-}" ] && eval "exec ${CRAFTED[1]}>&-"
	wait "$pid" 2> /dev/null
	return 0
}

# crafted_watch IPT: count, in the first rule of r2's raw PREROUTING, the
# crafted packets of send_crafted that reach r2; crafted_seen IPT: that
# count; crafted_unwatch IPT: remove the rule.  A packet lost on the way
# must not pass for one that a match refused.
crafted_watch()
{
	ip netns exec "$r2" "$1" -t raw -I PREROUTING -s fd00:1::1 -d fc00:3::e
}

crafted_seen()
{
	ip netns exec "$r2" "$1" -t raw -L PREROUTING -n -v -x |
		awk 'NR == 3 { print $1 }'
}

crafted_unwatch()
{
	ip netns exec "$r2" "$1" -t raw -D PREROUTING -s fd00:1::1 -d fc00:3::e
}

# flows_require CMD...: exit with ksft_skip unless root, with every CMD and
# with python3's scapy (send_crafted)
flows_require()
{
	srv6_require "$@"
	srv6_require_py scapy
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SRv6 End.X, End.DX6 and End.DX4 with an outgoing interface (oif).
#
# "oif DEV xconnect" (SEG6_LOCAL_XCONNECT, ours): the packet leaves on that
# interface, towards the configured next hop, with no route lookup.
# A plain End.X "oif DEV" has mainline's meaning (Linux 6.17): the next hop
# is looked up for every packet, on that interface for a link-local next hop
# (strict), with the oif as a mere preference for a global one.
#
#                                +---------+
#               fc00:a::/64      |   na    |  fc00:a::2, 10.0.10.2
#              10.0.10.0/24  +---| (vetha) |  fc00:9::1, 10.9.9.1 on lo
#  +------+      +-------+   |   +---------+
#  | src  |------|   r   |---+
#  +------+      +-------+   |   +---------+
#   fc00:1::1     SIDs       +---|   nb    |  fc00:b::2, 10.0.11.2 and also
#   10.1.1.1      fc00:e::*      | (vethb) |  fc00:a::2, 10.0.10.2
#               fc00:b::/64      +---------+  fc00:9::1, 10.9.9.1 on lo
#              10.0.11.0/24
#
# na and nb both own the next hop addresses (fc00:a::2, 10.0.10.2, and the
# link-local fe80::2) and the destination (fc00:9::1, 10.9.9.1).  For r, a
# route lookup of the global next hop always picks na (the connected
# fc00:a::/64 and 10.0.10.0/24 are on vetha), with or without a plain oif;
# with "oif vethb xconnect" the packets must reach nb, and so must they with
# the plain "oif vethb" and the link-local next hop fe80::2.  Which node got
# them is read from its ICMP echo request counter.
#
# src encapsulates (H.Encaps) its pings towards fc00:9::1 and 10.9.9.1 with
# the SIDs of r under test:
#   fc00:e::e   End.X   nh6 fc00:a::2 [oif vethb [xconnect]], or
#                       nh6 fe80::2 oif vetha|vethb, then End.DT6 on na/nb
#               (table local: the inner destination is their own address)
#   fc00:e::d6  End.DX6 nh6 fc00:a::2 [oif vethb xconnect]
#   fc00:e::d4  End.DX4 nh4 10.0.10.2 [oif vethb xconnect]
# Replies come back by plain routing.

source lib.sh
source srv6_oam_lib.sh

readonly PINGS=5
readonly END_DT6_SID=fc00:d::d6

cleanup()
{
	[ -n "$PING_PID" ] && kill "$PING_PID" 2>/dev/null
	cleanup_all_ns
}

trap cleanup EXIT

snmp6()
{
	ip netns exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/snmp6
}

# packets counted by r's behavior on $1
sid_packets()
{
	ip -n "$r" -6 -s -j route show "$1" | jq '.[0].stats64.packets // -1'
}

sid_errors()
{
	ip -n "$r" -6 -s -j route show "$1" | jq '.[0].stats64.errors // -1'
}

# the errors of End.DX4 and End.DX6 together
dx_errors()
{
	echo $(($(sid_errors fc00:e::d4) + $(sid_errors fc00:e::d6)))
}

setup()
{
	setup_ns src r na nb other || exit "$ksft_skip"

	ip link add veth0 netns "$src" type veth peer name veths netns "$r"
	ip link add vetha netns "$r" type veth peer name veth0 netns "$na"
	ip link add vethb netns "$r" type veth peer name veth0 netns "$nb"

	ip -n "$src" addr add fc00:1::1/64 dev veth0 nodad
	ip -n "$src" addr add 10.1.1.1/24 dev veth0
	ip -n "$src" link set veth0 up
	ip -n "$src" -6 route add default via fc00:1::2
	ip -n "$src" -4 route add default via 10.1.1.2

	ip -n "$r" addr add fc00:1::2/64 dev veths nodad
	ip -n "$r" addr add 10.1.1.2/24 dev veths
	ip -n "$r" addr add fc00:a::1/64 dev vetha nodad
	ip -n "$r" addr add 10.0.10.1/24 dev vetha
	ip -n "$r" addr add fc00:b::1/64 dev vethb nodad
	ip -n "$r" addr add 10.0.11.1/24 dev vethb
	for dev in veths vetha vethb; do
		ip -n "$r" link set "$dev" up
	done
	ip netns exec "$r" sysctl -wq net.ipv6.conf.all.forwarding=1
	ip netns exec "$r" sysctl -wq net.ipv6.conf.all.keep_addr_on_down=1
	ip netns exec "$r" sysctl -wq net.ipv4.ip_forward=1
	ip netns exec "$r" sysctl -wq net.ipv4.conf.all.rp_filter=0
	ip netns exec "$r" sysctl -wq net.ipv4.conf.default.rp_filter=0

	for n in na nb; do
		local ns=${!n} net

		[ "$n" = na ] && net=a || net=b
		ip -n "$ns" link set veth0 up
		ip -n "$ns" addr add "fc00:$net::2/64" dev veth0 nodad
		ip -n "$ns" addr add fe80::2/64 dev veth0 nodad
		ip -n "$ns" addr add fc00:9::1/128 dev lo
		ip -n "$ns" addr add 10.9.9.1/32 dev lo
		ip -n "$ns" -6 route add default via "fc00:$net::1"
		ip -n "$ns" -6 route add "$END_DT6_SID/128" \
			encap seg6local action End.DT6 table local dev veth0
		ip netns exec "$ns" sysctl -wq net.ipv6.conf.all.forwarding=1
		ip netns exec "$ns" sysctl -wq net.ipv4.conf.all.rp_filter=0
		ip netns exec "$ns" sysctl -wq net.ipv4.conf.veth0.rp_filter=0
	done
	ip -n "$na" addr add 10.0.10.2/24 dev veth0
	ip -n "$na" -4 route add default via 10.0.10.1
	ip -n "$nb" addr add 10.0.11.2/24 dev veth0
	ip -n "$nb" -4 route add default via 10.0.11.1
	# nb also owns na's next hop addresses
	ip -n "$nb" addr add fc00:a::2/128 dev veth0 nodad
	ip -n "$nb" addr add 10.0.10.2/32 dev veth0

	ip -n "$src" -6 route add fc00:9::1/128 encap seg6 mode encap \
		segs fc00:e::e,"$END_DT6_SID" dev veth0
	ip -n "$src" -6 route add fc00:9::2/128 encap seg6 mode encap \
		segs fc00:e::d6 dev veth0
	ip -n "$src" -4 route add 10.9.9.1/32 encap seg6 mode encap \
		segs fc00:e::d4 dev veth0
	# fc00:9::2 is the DX6 test's destination: a second address of na/nb
	ip -n "$na" addr add fc00:9::2/128 dev lo
	ip -n "$nb" addr add fc00:9::2/128 dev lo
}

# the SID routes of r: $1 = "xconnect" to cross-connect on vethb, "oif"
# for a plain oif vethb (End.X only: a lookup on vethb, as on mainline), or
# "" for the route lookup of the next hop
add_sids()
{
	local oif= xoif=

	case "$1" in
	xconnect) oif="oif vethb xconnect"; xoif=$oif ;;
	oif) oif="oif vethb" ;;
	esac

	ip -n "$r" -6 route replace fc00:e::e/128 encap seg6local \
		action End.X nh6 fc00:a::2 $oif count dev veths || return 1
	ip -n "$r" -6 route replace fc00:e::d6/128 encap seg6local \
		action End.DX6 nh6 fc00:a::2 $xoif count dev veths || return 1
	ip -n "$r" -6 route replace fc00:e::d4/128 encap seg6local \
		action End.DX4 nh4 10.0.10.2 $xoif count dev veths || return 1
}

# End.X to the link-local next hop fe80::2 on $1 (a plain oif)
add_end_x_ll()
{
	ip -n "$r" -6 route replace fc00:e::e/128 encap seg6local \
		action End.X nh6 fe80::2 oif "$1" count dev veths
}

# ping through $sid, expect the echo requests at node $want, none at the other
check_path()
{
	local desc=$1 sid=$2 fam=$3 dst=$4 want=$5
	local other a0 b0 a1 b1 p0 p1 got nogot

	RET=0
	[ "$want" = na ] && other=nb || other=na
	a0=$(icmp_echos "$na" "$fam"); b0=$(icmp_echos "$nb" "$fam")
	p0=$(sid_packets "$sid")

	ip netns exec "$src" ping -"$fam" -q -c "$PINGS" -i 0.2 -W 2 "$dst" \
		>/dev/null
	check_err $? "ping $dst failed"

	a1=$(icmp_echos "$na" "$fam"); b1=$(icmp_echos "$nb" "$fam")
	p1=$(sid_packets "$sid")
	if [ "$want" = na ]; then
		got=$((a1 - a0)); nogot=$((b1 - b0))
	else
		got=$((b1 - b0)); nogot=$((a1 - a0))
	fi
	[ "$got" -eq "$PINGS" ]
	check_err $? "$want received $got of $PINGS echo requests"
	[ "$nogot" -eq 0 ]
	check_err $? "$other received $nogot echo requests"
	[ $((p1 - p0)) -eq "$PINGS" ]
	check_err $? "$sid counted $((p1 - p0)) packets, not $PINGS"

	log_test "$desc"
}

test_paths()
{
	add_sids ""
	check_path "End.X without oif: route lookup picks na" \
		fc00:e::e 6 fc00:9::1 na
	check_path "End.DX6 without oif: route lookup picks na" \
		fc00:e::d6 6 fc00:9::2 na
	check_path "End.DX4 without oif: route lookup picks na" \
		fc00:e::d4 4 10.9.9.1 na

	add_sids xconnect
	check_path "End.X oif vethb xconnect: cross-connect to nb" \
		fc00:e::e 6 fc00:9::1 nb
	check_path "End.DX6 oif vethb xconnect: cross-connect to nb" \
		fc00:e::d6 6 fc00:9::2 nb
	check_path "End.DX4 oif vethb xconnect: cross-connect to nb" \
		fc00:e::d4 4 10.9.9.1 nb
}

# a plain End.X oif, as on mainline: a route lookup for every packet, on the
# oif's link for a link-local next hop, where the longest prefix wins for a
# global one
test_end_x_oif_mainline()
{
	local out

	add_sids oif
	check_path "End.X oif vethb, global nh6: the route lookup picks na" \
		fc00:e::e 6 fc00:9::1 na

	add_end_x_ll vethb
	check_path "End.X nh6 fe80::2 oif vethb: link-local next hop on nb" \
		fc00:e::e 6 fc00:9::1 nb
	add_end_x_ll vetha
	check_path "End.X nh6 fe80::2 oif vetha: link-local next hop on na" \
		fc00:e::e 6 fc00:9::1 na

	RET=0
	out=$(ip -n "$r" -6 route show fc00:e::e/128)
	echo "$out" | grep -q "action End.X nh6 fe80::2 oif vetha dev veths"
	check_err $? "show: $out"
	echo "$out" | grep -q xconnect
	check_fail $? "a plain oif shown as xconnect: $out"
	out=$(ip -n "$r" -6 -j route show fc00:e::e/128 |
	      jq -r '.[0] | "\(.nh6) \(.oif) \(.xconnect)"')
	[ "$out" = "fe80::2 vetha null" ]
	check_err $? "json: $out"
	log_test "End.X plain oif is dumped back without xconnect (text and JSON)"
}

# IPv6 routes r has allocated so far (fib_rt_alloc of /proc/net/rt6_stats)
rt6_allocs()
{
	local f

	read -r -a f < <(ip netns exec "$r" cat /proc/net/rt6_stats)
	echo $((16#${f[2]}))
}

# The cross-connect's point: no route is allocated per packet.  Looking a
# next hop on a connected prefix up with FLOWI_FLAG_KNOWN_NH, as End.X and
# End.DX6 do without oif, allocates an uncached route for every packet:
# counted here too, to show that the counter sees it.
test_no_route_alloc()
{
	local n=50 a0 a1 d_lookup d_oif sid dst beh

	for beh in End.X End.DX6; do
		RET=0
		if [ "$beh" = End.X ]; then
			sid=fc00:e::e dst=fc00:9::1
		else
			sid=fc00:e::d6 dst=fc00:9::2
		fi

		add_sids ""
		a0=$(rt6_allocs)
		ip netns exec "$src" ping -6 -q -c "$n" -i 0.01 -W 2 "$dst" \
			>/dev/null
		check_err $? "ping $dst failed"
		a1=$(rt6_allocs)
		d_lookup=$((a1 - a0))

		add_sids xconnect
		a0=$(rt6_allocs)
		ip netns exec "$src" ping -6 -q -c "$n" -i 0.01 -W 2 "$dst" \
			>/dev/null
		check_err $? "ping $dst failed"
		a1=$(rt6_allocs)
		d_oif=$((a1 - a0))

		[ "$d_lookup" -ge "$n" ]
		check_err $? "no oif: $d_lookup routes for $n packets"
		[ "$d_oif" -lt 10 ]
		check_err $? "xconnect: $d_oif routes for $n packets"
		log_test "$beh xconnect: no route per packet" \
			"$d_oif vs $d_lookup for $n packets"
	done
}

test_show()
{
	local out

	RET=0
	out=$(ip -n "$r" -6 route show fc00:e::e/128)
	echo "$out" | grep -q "action End.X nh6 fc00:a::2 oif vethb xconnect "
	check_err $? "show: $out"
	out=$(ip -n "$r" -6 route show fc00:e::d4/128)
	echo "$out" | grep -q "action End.DX4 nh4 10.0.10.2 oif vethb xconnect "
	check_err $? "show: $out"
	out=$(ip -n "$r" -6 -j route show fc00:e::d6/128 |
	      jq -r '.[0] | "\(.encap) \(.action) \(.nh6) \(.oif) \(.xconnect)"')
	[ "$out" = "seg6local End.DX6 fc00:a::2 vethb true" ]
	check_err $? "json: $out"
	log_test "xconnect is dumped back (text and JSON)"

	# a saved table restores identically
	RET=0
	local before after
	before=$(ip -n "$r" -6 route show | grep seg6local)
	ip -n "$r" -6 route save table main > "$TMPF"
	check_err $? "route save"
	for sid in fc00:e::e fc00:e::d6 fc00:e::d4; do
		ip -n "$r" -6 route del "$sid/128"
	done
	ip -n "$r" -6 route restore < "$TMPF" 2>/dev/null
	after=$(ip -n "$r" -6 route show | grep seg6local)
	[ "$before" = "$after" ]
	check_err $? "restored routes differ: $after"
	log_test "route save / restore round trip keeps xconnect"
}

route_state()
{
	ip -n "$r" -6 route show table all
}

# $1: description, $2: expected extack text, rest: the route
check_reject()
{
	local desc=$1 msg=$2
	shift 2

	RET=0
	check_refused route_state "$msg" ip -n "$r" -6 route replace "$@"
	log_test "reject: $desc"
}

# Add a seg6local route from attributes ip cannot send together, with a raw
# rtnetlink request: $1 = SID, $2 = action number, then attributes as
# name=value: nh6, nh4, oif (top level), xc_oif, xc_nh6, xc_nh4, xc_bad
# (nested in SEG6_LOCAL_XCONNECT; xc_bad is an unknown nested attribute).
# Prints the kernel's extack message; exits 0 if the route was added.
nl_seg6local()
{
	ip netns exec "$r" python3 - "$@" <<-'EOF'
		import socket, struct, sys

		def attr(t, data):
		    n = 4 + len(data)
		    return struct.pack("HH", n, t) + data + b"\0" * (-n % 4)

		def addr(fam, a):
		    return socket.inet_pton(fam, a)

		def ifx(name):
		    return struct.pack("I", socket.if_nametoindex(name))

		sid, action = sys.argv[1], int(sys.argv[2])
		top, nest = attr(1, struct.pack("I", action)), b""
		for kv in sys.argv[3:]:
		    k, _, v = kv.partition("=")
		    if k == "nh6": top += attr(5, addr(socket.AF_INET6, v))
		    elif k == "nh4": top += attr(4, addr(socket.AF_INET, v))
		    elif k == "oif": top += attr(7, ifx(v))
		    elif k == "xc_oif": nest += attr(1, ifx(v))
		    elif k == "xc_nh6": nest += attr(2, addr(socket.AF_INET6, v))
		    elif k == "xc_nh4": nest += attr(3, addr(socket.AF_INET, v))
		    elif k == "xc_bad": nest += attr(9, struct.pack("I", 1))
		    elif k == "xc": pass
		    else: sys.exit("unknown key " + k)
		if nest or "xc" in sys.argv[3:]:
		    top += attr(12 | 0x8000, nest)
		body = struct.pack("BBBBBBBBI", socket.AF_INET6, 128, 0, 0, 254,
		                   3, 0, 1, 0)
		body += attr(1, addr(socket.AF_INET6, sid))
		body += attr(4, ifx("veths"))
		body += attr(21, struct.pack("H", 7))	# LWTUNNEL_ENCAP_SEG6_LOCAL
		body += attr(22 | 0x8000, top)
		# RTM_NEWROUTE, NLM_F_REQUEST | ACK | EXCL | CREATE
		msg = struct.pack("IHHII", 16 + len(body), 24, 0x605, 1, 0) + body
		s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
		                  socket.NETLINK_ROUTE)
		s.setsockopt(270, 11, 1)	# NETLINK_EXT_ACK
		s.send(msg)
		rep = s.recv(65536)
		ln, typ, flags = struct.unpack("IHH", rep[:8])
		err = struct.unpack("i", rep[16:20])[0]
		off = 20 + (16 if flags & 0x100 else struct.unpack("I", rep[20:24])[0])
		text = ""
		while off + 4 <= ln:
		    alen, atype = struct.unpack("HH", rep[off:off + 4])
		    if alen < 4: break
		    if atype == 1:
		        text = rep[off + 4:off + alen].rstrip(b"\0").decode()
		    off += (alen + 3) & ~3
		print("error %d: %s" % (-err, text) if err else "added")
		sys.exit(1 if err else 0)
	EOF
}

# $1: description, $2: expected extack text, rest: nl_seg6local arguments
check_reject_raw()
{
	local desc=$1 msg=$2

	shift 2
	RET=0
	ip -n "$r" -6 route del "$1/128" 2>/dev/null
	check_refused route_state "$msg" nl_seg6local "$@"
	log_test "reject: $desc"
}

test_reject()
{
	ip -n "$r" link add dummy0 type dummy
	ip -n "$other" link add dummy7 index 777 type dummy
	ip -n "$other" link set dummy7 up

	check_reject "unknown oif" "no such device" \
		fc00:e::e/128 encap seg6local action End.X nh6 fc00:a::2 \
		oif if4242 xconnect dev veths
	check_reject "oif in another netns" "no such device" \
		fc00:e::e/128 encap seg6local action End.X nh6 fc00:a::2 \
		oif if777 xconnect dev veths
	check_reject "oif down" "oif: device is down" \
		fc00:e::d6/128 encap seg6local action End.DX6 nh6 fc00:a::2 \
		oif dummy0 xconnect dev veths
	check_reject "oif loopback" "loopback" \
		fc00:e::d4/128 encap seg6local action End.DX4 nh4 10.0.10.2 \
		oif lo xconnect dev veths
	check_reject "multicast next hop" "the next hop must be a unicast" \
		fc00:e::d6/128 encap seg6local action End.DX6 nh6 ff02::1 \
		oif vethb xconnect dev veths
	check_reject "broadcast next hop" "the next hop must be a unicast" \
		fc00:e::d4/128 encap seg6local action End.DX4 \
		nh4 255.255.255.255 oif vethb xconnect dev veths
	check_reject "oif on End" "oif is not supported by this behavior" \
		fc00:e::e/128 encap seg6local action End oif vethb dev veths
	check_reject "oif on End.DT6" "oif is not supported by this behavior" \
		fc00:e::e/128 encap seg6local action End.DT6 table 254 \
		oif vethb dev veths
	check_reject "xconnect on End" \
		"xconnect is not supported by this behavior" \
		fc00:e::e/128 encap seg6local action End nh6 fc00:a::2 \
		oif vethb xconnect dev veths
	check_reject "xconnect on End.DT6" \
		"xconnect is not supported by this behavior" \
		fc00:e::e/128 encap seg6local action End.DT6 table 254 \
		nh6 fc00:a::2 oif vethb xconnect dev veths

	# what means something else on mainline, or cannot mean anything
	check_reject "End.DX6 with a plain oif" "take it only in an xconnect" \
		fc00:e::d6/128 encap seg6local action End.DX6 nh6 fc00:a::2 \
		oif vethb dev veths
	check_reject "End.DX4 with a plain oif" "take it only in an xconnect" \
		fc00:e::d4/128 encap seg6local action End.DX4 nh4 10.0.10.2 \
		oif vethb dev veths
	check_reject "End.X with no next hop" \
		"a next hop or an xconnect is required" \
		fc00:e::e/128 encap seg6local action End.X count dev veths
	check_reject "xconnect without oif (ip)" "needs an \"oif\"" \
		fc00:e::e/128 encap seg6local action End.X nh6 fc00:a::2 \
		xconnect dev veths

	# SEG6_LOCAL_ACTION_END_X = 2, END_DX6 = 5, END_DX4 = 6
	check_reject_raw "xconnect and a top-level nh6" \
		"xconnect carries the next hop" \
		fc00:e::e 2 nh6=fc00:a::2 xc_oif=vethb xc_nh6=fc00:a::2
	check_reject_raw "xconnect and a top-level nh4" \
		"xconnect carries the next hop" \
		fc00:e::d4 6 nh4=10.0.10.2 xc_oif=vethb xc_nh4=10.0.10.2
	check_reject_raw "xconnect and a top-level oif" \
		"xconnect carries the oif" \
		fc00:e::d6 5 oif=vethb xc_oif=vethb xc_nh6=fc00:a::2
	check_reject_raw "xconnect without oif" "xconnect: an oif is required" \
		fc00:e::e 2 xc_nh6=fc00:a::2
	check_reject_raw "empty xconnect" "xconnect: an oif is required" \
		fc00:e::d6 5 xc
	check_reject_raw "xconnect without next hop" \
		"xconnect: a next hop is required" fc00:e::d4 6 xc_oif=vethb
	check_reject_raw "xconnect with the other family's next hop" \
		"nh6 for End.X and End.DX6, nh4 for End.DX4" \
		fc00:e::e 2 xc_oif=vethb xc_nh4=10.0.10.2
	check_reject_raw "unknown attribute in xconnect" "Unknown attribute" \
		fc00:e::e 2 xc_oif=vethb xc_nh6=fc00:a::2 xc_bad
	# SEG6_LOCAL_ACTION_END = 1, END_DT6 = 7: a well-formed xconnect
	check_reject_raw "xconnect on End (raw)" \
		"xconnect is not supported by this behavior" \
		fc00:e::e 1 xc_oif=vethb xc_nh6=fc00:a::2
	check_reject_raw "empty xconnect on End.DT6 (raw)" \
		"xconnect is not supported by this behavior" fc00:e::e 7 xc

	# and the helper itself can add what it refuses above
	RET=0
	ip -n "$r" -6 route del fc00:e::e/128 2>/dev/null
	nl_seg6local fc00:e::e 2 xc_oif=vethb xc_nh6=fc00:a::2 >/dev/null
	check_err $? "a raw xconnect route was refused"
	ip -n "$r" -6 route show fc00:e::e/128 |
		grep -q "nh6 fc00:a::2 oif vethb xconnect"
	check_err $? "raw xconnect route: $(ip -n "$r" -6 route show fc00:e::e/128)"
	log_test "raw netlink: a well-formed xconnect is accepted"
}

# crafted SRv6 packets whose inner packet is malformed: dropped, counted as
# errors, never forwarded
test_malformed()
{
	local mac a0 b0 a1 b1 e4 e6 e4n e6n

	RET=0
	add_sids xconnect
	mac=$(ip -n "$r" -j link show veths | jq -r '.[0].address')
	a0=$(($(icmp_echos "$na" 4) + $(icmp_echos "$na" 6)))
	b0=$(($(icmp_echos "$nb" 4) + $(icmp_echos "$nb" 6)))
	e4=$(sid_errors fc00:e::d4); e6=$(sid_errors fc00:e::d6)
	ip netns exec "$src" python3 - "$mac" <<-'EOF'
		import sys
		from scapy.config import conf
		from scapy.layers.inet import ICMP, IP
		from scapy.layers.inet6 import (ICMPv6EchoRequest, IPv6,
		                                IPv6ExtHdrSegmentRouting)
		from scapy.layers.l2 import Ether
		from scapy.packet import Raw
		from scapy.sendrecv import sendp
		conf.verb = 0
		mac = sys.argv[1]

		def srv6(sid, nh, inner):
		    return (Ether(dst=mac) /
		        IPv6(src="fc00:1::1", dst=sid) /
		        IPv6ExtHdrSegmentRouting(addresses=[sid],
		                     segleft=0, nh=nh) /
		        inner)

		bad = [
		    # End.DX4: IHL past the end, bad checksum, total length
		    # past the end, loopback source, IHL below 5
		    srv6("fc00:e::d4", 4, IP(ihl=15, src="10.1.1.1",
		                 dst="10.9.9.1") / ICMP()),
		    srv6("fc00:e::d4", 4, IP(chksum=0x1234, src="10.1.1.1",
		                 dst="10.9.9.1") / ICMP()),
		    srv6("fc00:e::d4", 4, IP(len=1400, src="10.1.1.1",
		                 dst="10.9.9.1") / ICMP()),
		    srv6("fc00:e::d4", 4, IP(src="127.0.0.1",
		                 dst="10.9.9.1") / ICMP()),
		    srv6("fc00:e::d4", 4, IP(ihl=3, src="10.1.1.1",
		                 dst="10.9.9.1") / Raw(b"x" * 40)),
		    # End.DX6: payload length past the end, zero (jumbo),
		    # multicast destination, loopback source
		    srv6("fc00:e::d6", 41, IPv6(plen=1000, src="fc00:1::1",
		                    dst="fc00:9::2") /
		         ICMPv6EchoRequest()),
		    srv6("fc00:e::d6", 41, IPv6(plen=0, src="fc00:1::1",
		                    dst="fc00:9::2") /
		         ICMPv6EchoRequest()),
		    srv6("fc00:e::d6", 41, IPv6(src="fc00:1::1",
		                    dst="ff0e::1") /
		         ICMPv6EchoRequest()),
		    srv6("fc00:e::d6", 41, IPv6(src="::1", dst="fc00:9::2") /
		         ICMPv6EchoRequest()),
		]
		sendp(bad, iface="veth0")
	EOF
	check_err $? "cannot send the crafted packets"
	# each of the 9 is an error at its SID, however slow the guest
	slowwait 60 until_counter_is ">= $((e4 + e6 + 9))" dx_errors > /dev/null
	a1=$(($(icmp_echos "$na" 4) + $(icmp_echos "$na" 6)))
	b1=$(($(icmp_echos "$nb" 4) + $(icmp_echos "$nb" 6)))
	e4n=$(sid_errors fc00:e::d4); e6n=$(sid_errors fc00:e::d6)
	[ $((a1 - a0 + b1 - b0)) -eq 0 ]
	check_err $? "$((a1 - a0 + b1 - b0)) malformed packets were forwarded"
	[ $((e4n - e4)) -eq 5 ]
	check_err $? "End.DX4 counted $((e4n - e4)) errors, not 5"
	[ $((e6n - e6)) -eq 4 ]
	check_err $? "End.DX6 counted $((e6n - e6)) errors, not 4"
	log_test "malformed inner packets are dropped and counted"
}

test_mtu()
{
	local e0 e1 b0 b1

	RET=0
	add_sids xconnect
	ip -n "$r" link set vethb mtu 1280
	e0=$(snmp6 "$r" Ip6InTooBigErrors)
	b0=$(icmp_echos "$nb" 6)
	ip netns exec "$src" ping -6 -q -c 3 -i 0.2 -W 1 -s 1300 -M do \
		fc00:9::1 >/dev/null 2>&1
	e1=$(snmp6 "$r" Ip6InTooBigErrors)
	b1=$(icmp_echos "$nb" 6)
	[ $((e1 - e0)) -gt 0 ]
	check_err $? "no Packet Too Big for a packet over the oif MTU"
	[ $((b1 - b0)) -eq 0 ]
	check_err $? "nb got $((b1 - b0)) packets larger than the MTU"
	ip -n "$r" link set vethb mtu 1500
	log_test "End.X oif honours the oif MTU (ICMPv6 Packet Too Big)"
}

test_down_up()
{
	local e0 e1

	RET=0
	add_sids xconnect
	e0=$(sid_errors fc00:e::e)
	ip -n "$r" link set vethb down
	ip netns exec "$src" ping -6 -q -c 3 -i 0.2 -W 1 fc00:9::1 \
		>/dev/null 2>&1
	check_fail $? "ping through End.X with its oif down succeeded"
	e1=$(sid_errors fc00:e::e)
	[ $((e1 - e0)) -eq 3 ]
	check_err $? "End.X counted $((e1 - e0)) errors, not 3"
	ip -n "$r" link set vethb up
	log_test "End.X oif down: packets dropped and counted as errors"

	# and forwarding resumes once it is up again
	check_path "End.X oif back up: cross-connect to nb again" \
		fc00:e::e 6 fc00:9::1 nb
}

test_delete_under_traffic()
{
	local e0 p0

	RET=0
	add_sids xconnect
	p0=$(sid_packets fc00:e::e)
	ip netns exec "$src" ping -6 -q -i 0.01 -W 1 fc00:9::1 \
		>/dev/null 2>&1 &
	PING_PID=$!
	ip netns exec "$src" ping -4 -q -i 0.01 -W 1 10.9.9.1 \
		>/dev/null 2>&1 &
	# the traffic runs through End.X
	slowwait 60 until_counter_is ">= $((p0 + 10))" sid_packets fc00:e::e \
		> /dev/null
	check_err $? "no traffic through End.X"
	# unregistering must not wait for references held by the routes
	timeout "$SRV6_HANG_TIMEOUT" ip -n "$r" link del vethb
	check_err $? "deleting the oif device hung or failed"
	e0=$(sid_errors fc00:e::e)
	slowwait 60 until_counter_is "> $e0" sid_errors fc00:e::e > /dev/null
	check_err $? "End.X did not count drops after its oif went away"
	kill "$PING_PID" $! 2>/dev/null
	wait 2>/dev/null
	PING_PID=
	ip -n "$r" -6 route show fc00:e::e/128 | grep -q "oif"
	check_err $? "route vanished with its oif"
	for sid in fc00:e::e fc00:e::d6 fc00:e::d4; do
		ip -n "$r" -6 route del "$sid/128"
		check_err $? "cannot delete $sid"
	done
	ip -n "$r" link show dev vethb >/dev/null 2>&1
	check_fail $? "vethb still exists"
	log_test "oif deleted under traffic: drops, no leak, routes removable"
}

srv6_require ip jq ping python3

TMPF=$(mktemp)
setup
if ! ip -n "$r" -6 route add fc00:e::ff/128 encap seg6local \
	action End.X nh6 fc00:a::2 oif vethb xconnect dev veths 2>/dev/null ||
   ! ip -n "$r" -6 route show fc00:e::ff/128 | grep -q xconnect; then
	echo "SKIP: kernel without xconnect for End.X"
	rm -f "$TMPF"
	exit "$ksft_skip"
fi
ip -n "$r" -6 route del fc00:e::ff/128

test_paths
test_end_x_oif_mainline
test_no_route_alloc
test_show
test_reject
test_malformed
test_mtu
test_down_up
test_delete_under_traffic
rm -f "$TMPF"

exit "$EXIT_STATUS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The srv6-oam demo network, run inside the guest (make demo).
#
#   hs1 ---- r1 ----------- r2 ----------- r3 ---- hs2
#         ingress        transit         egress
#         H.Encaps        End            End.DX6 (cross-connect)
#        (policy to hs2: segs fc00:2::e,fc00:3::d6)
#   and back: r3 H.Encaps segs fc00:2::e,fc00:1::d6, r1 End.DX6 to hs1
#
#   hs1 fd00:a::1/64     r1 fd00:a::254, fcf0:12::1     r2 fcf0:12::2, fcf0:23::2
#   hs2 fd00:b::1/64     r3 fd00:b::254, fcf0:23::3
#   SIDs: r1 fc00:1::/48, r2 fc00:2::/48, r3 fc00:3::/48
#   IPv4: hs1 10.0.1.1/24 (r1 10.0.1.254), hs2 10.0.2.1/24 (r3 10.0.2.254),
#   over r2 End.X fc00:2::e3 and r3 End.DX4 fc00:3::d4 (cross-connects),
#   back over r2 End and r1 End.DT4 fc00:1::d4 (table 100)
#
# Prints what an operator looks at: the routes, a ping and its path on the
# wire, the per-behaviour counters, IPv4 over End.X and End.DX4
# cross-connects and End.DT4's table mode, counted per SID list by an
# ip6tables --srh-sid-list rule and a hash:sr6 set, a STAMP measurement of
# the path and the reflector changed in place, an IOAM trace and
# Edge-to-Edge loss counters, four IOAM options on one route (tunsrc,
# Direct Export, transit delay, buffer occupancy), the IOAM domain egress,
# a per-flow loss report by alternate marking (pfplm), and the kernel's
# own Alternate-Marking (RFC 9343) reported per segment from r1 alone.  Each check
# line says PASS or FAIL; the demo exits non-zero if one failed.

set -eu

NODES="hs1 r1 r2 r3 hs2"
PINGS=${DEMO_PINGS:-5}

cleanup() {
	local n
	for n in $NODES; do ip netns del "demo-$n" 2> /dev/null || true; done
}
trap cleanup EXIT

nsx() { local n=$1; shift; ip netns exec "demo-$n" "$@"; }
link() { # link A IFA B IFB
	ip link add "$2" netns "demo-$1" type veth peer name "$4" netns "demo-$3"
	nsx "$1" ip link set "$2" up
	nsx "$3" ip link set "$4" up
}
section() { printf '\n=== %s\n' "$*"; }
# wait_until SECONDS CONDITION [ACTION]: evaluate CONDITION (a command
# line) until it holds, running ACTION between the tries (a short pause
# if there is none); fails when SECONDS have passed.  For what a loaded
# host makes late: a process that has to be ready, an event to be
# printed, a counter to be reached.
wait_until() {
	local deadline=$((SECONDS + $1)) cond=$2 action=${3:-sleep 0.2}
	until eval "$cond"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		eval "$action"
	done
}
# check TEXT CONDITION: a check line, TEXT (what was counted, what was
# expected) after PASS or FAIL, the verdict of CONDITION (a command line
# comparing the two); a FAIL fails the demo
check() {
	if eval "$2"; then
		echo "PASS  $1"
	else
		echo "FAIL  $1"
		ok=0
	fi
}

cleanup
for n in $NODES; do
	ip netns add "demo-$n"
	nsx "$n" ip link set lo up
	nsx "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
done
for n in r1 r2 r3; do
	nsx "$n" sysctl -qw net.ipv6.conf.all.forwarding=1
done

link hs1 eth0 r1 veth-hs1
link r1 veth-r2 r2 veth-r1
link r2 veth-r3 r3 veth-r2
link r3 veth-hs2 hs2 eth0

nsx hs1 ip -6 addr add fd00:a::1/64 dev eth0 nodad
nsx hs1 ip -6 route add default via fd00:a::254
nsx hs2 ip -6 addr add fd00:b::1/64 dev eth0 nodad
nsx hs2 ip -6 route add default via fd00:b::254
nsx r1 ip -6 addr add fd00:a::254/64 dev veth-hs1 nodad
nsx r1 ip -6 addr add fcf0:12::1/64 dev veth-r2 nodad
nsx r2 ip -6 addr add fcf0:12::2/64 dev veth-r1 nodad
nsx r2 ip -6 addr add fcf0:23::2/64 dev veth-r3 nodad
nsx r3 ip -6 addr add fcf0:23::3/64 dev veth-r2 nodad
nsx r3 ip -6 addr add fd00:b::254/64 dev veth-hs2 nodad

# Underlay: the locators.
nsx r1 ip -6 route add fc00:2::/48 via fcf0:12::2
nsx r1 ip -6 route add fc00:3::/48 via fcf0:12::2
nsx r2 ip -6 route add fc00:1::/48 via fcf0:12::1
nsx r2 ip -6 route add fc00:3::/48 via fcf0:23::3
nsx r3 ip -6 route add fc00:1::/48 via fcf0:23::2
nsx r3 ip -6 route add fc00:2::/48 via fcf0:23::2

# Ingress policies (H.Encaps) and the behaviours, with counters.
nsx r1 ip -6 route add fd00:b::/64 encap seg6 mode encap segs fc00:2::e,fc00:3::d6 dev veth-r2
nsx r3 ip -6 route add fd00:a::/64 encap seg6 mode encap segs fc00:2::e,fc00:1::d6 dev veth-r2
nsx r2 ip -6 route add fc00:2::e/128 encap seg6local action End count dev veth-r1
nsx r3 ip -6 route add fc00:3::d6/128 encap seg6local action End.DX6 nh6 fd00:b::1 \
	oif veth-hs2 xconnect count dev veth-hs2
nsx r1 ip -6 route add fc00:1::d6/128 encap seg6local action End.DX6 nh6 fd00:a::1 count dev veth-hs1

section "kernel"
uname -r
section "r1 (ingress): ip -6 route show"
nsx r1 ip -6 route show
section "r2 (transit): ip -6 route show"
nsx r2 ip -6 route show
section "r3 (egress): ip -6 route show"
nsx r3 ip -6 route show

# seg6_pkts NODE SID: the seg6local counter of SID
seg6_pkts() {
	nsx "$1" ip -s -6 route show "$2/128" | sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

# Warm up neighbour discovery, then capture one echo request on r2's
# upstream link: its outer header and SRH are the path.  tcpdump is ready
# when it is (a loaded host may take seconds): ping until it has its packet.
# (ip netns exec, not nsx, for what runs in the background: $! must be
# the process itself.)
ok=1
nsx hs1 ping -6 -q -c 1 -W 5 fd00:b::1 > /dev/null || true
cap=$(mktemp)
ip netns exec demo-r2 timeout 120 tcpdump -l -n -vv -c 1 -i veth-r1 'ip6 and ip6[6] == 43' > "$cap" 2> /dev/null &
tcpdump_pid=$!
wait_until 100 '! kill -0 "$tcpdump_pid" 2> /dev/null' \
	'nsx hs1 ping -6 -q -c 1 -W 1 fd00:b::1 > /dev/null || true' || true
wait "$tcpdump_pid" 2> /dev/null || true
section "the path on the wire (r2, link to r1): one echo request"
cat "$cap"
check "the captured packet's SRH holds the policy's segments fc00:2::e and fc00:3::d6" \
	'grep -q "fc00:2::e" "$cap" && grep -q "fc00:3::d6" "$cap"'

end0=$(seg6_pkts r2 fc00:2::e)
dx0=$(seg6_pkts r3 fc00:3::d6)
section "hs1: ping -6 -c $PINGS fd00:b::1"
nsx hs1 ping -6 -c "$PINGS" -i 0.2 -W 2 fd00:b::1 || ok=0

section "per-behaviour counters: ip -s -6 route show (seg6local)"
for n in r1 r2 r3; do
	echo "-- $n"
	nsx "$n" ip -s -6 route show | grep seg6local || true
done
section "the same, as JSON: ip -s -j -6 route show fc00:2::e/128 (r2)"
nsx r2 ip -s -j -p -6 route show fc00:2::e/128

# End on r2 saw the echo requests and the replies, End.DX6 on r3 the
# requests.
section "check"
got=$(($(seg6_pkts r2 fc00:2::e) - ${end0:-0}))
check "End on r2 counted $got packets of the $PINGS pings, expected $((2 * PINGS))" \
	'[ "$got" = "$((2 * PINGS))" ]'
got=$(($(seg6_pkts r3 fc00:3::d6) - ${dx0:-0}))
check "End.DX6 oif veth-hs2 xconnect on r3 counted $got packets, expected $PINGS" \
	'[ "$got" = "$PINGS" ]'

# IPv4 over SRv6, with the cross-connects and End.DT4's table mode: hs1's
# pings to hs2 (10.0.2.1) go r1 H.Encaps -> r2 End.X cross-connected to
# veth-r3 (no route lookup) -> r3 End.DX4 cross-connected to veth-hs2; the
# replies go r3 H.Encaps -> r2 End -> r1 End.DT4 looking up table 100.
# r2 counts both directions by SID list, with one --srh-sid-list rule
# and with a hash:sr6 set with counters.
nsx hs1 ip -4 addr add 10.0.1.1/24 dev eth0
nsx hs1 ip -4 route add default via 10.0.1.254
nsx hs2 ip -4 addr add 10.0.2.1/24 dev eth0
nsx hs2 ip -4 route add default via 10.0.2.254
nsx r1 ip -4 addr add 10.0.1.254/24 dev veth-hs1
nsx r3 ip -4 addr add 10.0.2.254/24 dev veth-hs2
for n in r1 r3; do
	nsx "$n" sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0
done
nsx r1 ip -4 route add 10.0.2.0/24 encap seg6 mode encap segs fc00:2::e3,fc00:3::d4 dev veth-r2
nsx r2 ip -6 route add fc00:2::e3/128 encap seg6local action End.X nh6 fcf0:23::3 \
	oif veth-r3 xconnect count dev veth-r1
nsx r3 ip -6 route add fc00:3::d4/128 encap seg6local action End.DX4 nh4 10.0.2.1 \
	oif veth-hs2 xconnect count dev veth-hs2
nsx r3 ip -4 route add 10.0.1.0/24 encap seg6 mode encap segs fc00:2::e,fc00:1::d4 dev veth-r2
nsx r1 ip -4 route add 10.0.1.0/24 dev veth-hs1 table 100
nsx r1 ip -6 route add fc00:1::d4/128 encap seg6local action End.DT4 table 100 count dev veth-hs1
nsx r2 ip6tables -w -t mangle -A PREROUTING -m srh --srh-sid-list fc00:2::e3,fc00:3::d4
nsx r2 ipset create demo-flows hash:sr6 counters
nsx r2 ipset add demo-flows fc00:2::e3,fc00:3::d4
nsx r2 ipset add demo-flows fc00:2::e,fc00:1::d4
nsx r2 ip6tables -w -t mangle -A PREROUTING -m set --match-set demo-flows dst
section "IPv4 over SRv6: r2 End.X and r3 End.DX4 cross-connected (oif ... xconnect), r1 End.DT4 table 100"
nsx r2 ip -6 route show fc00:2::e3/128
nsx r3 ip -6 route show fc00:3::d4/128
nsx r1 ip -6 route show fc00:1::d4/128
section "hs1: ping -4 -c $PINGS 10.0.2.1"
nsx hs1 ping -4 -c "$PINGS" -i 0.2 -W 2 10.0.2.1 || ok=0
section "r2: ip6tables -t mangle -L PREROUTING -v (the SID-list match)"
nsx r2 ip6tables -w -t mangle -L PREROUTING -v -x -n
section "r2: ipset list demo-flows (hash:sr6, a counter per SID list)"
nsx r2 ipset list demo-flows
section "check"
for c in "r2 fc00:2::e3 End.X oif veth-r3 xconnect" \
	 "r3 fc00:3::d4 End.DX4 oif veth-hs2 xconnect" "r1 fc00:1::d4 End.DT4 table 100"; do
	read -r n sid what <<< "$c"
	got=$(seg6_pkts "$n" "$sid")
	check "$what on $n ($sid) counted ${got:-0} packets, expected $PINGS" \
		'[ "${got:-0}" = "$PINGS" ]'
done
got=$(nsx r2 ip6tables -w -t mangle -L PREROUTING -v -x -n | awk '/sid-list/ { print $1; exit }')
check "r2's --srh-sid-list rule counted ${got:-0} packets (the echo requests), expected $PINGS" \
	'[ "${got:-0}" = "$PINGS" ]'
for l in fc00:2::e3,fc00:3::d4 fc00:2::e,fc00:1::d4; do
	got=$(nsx r2 ipset list demo-flows | awk -v l="$l" '$1 == l { for (i = 2; i < NF; i++) if ($i == "packets") print $(i + 1) }')
	check "r2's hash:sr6 element $l counted ${got:-0} packets, expected $PINGS" \
		'[ "${got:-0}" = "$PINGS" ]'
done

# STAMP over the same SRv6 path: hs2 answers with the kernel's
# Session-Reflector, hs1 measures with stamp-sender.
sender=$(cd "$(dirname "$0")/.." && pwd)/stamp-sender/stamp-sender
nsx hs2 ip stamp reflector add
nsx hs2 ip stamp session add ssid 1 peer fd00:a::1
section "hs1: stamp-sender -c $PINGS --tlv-dm fd00:b::1 (hs2: ip stamp reflector add)"
nsx hs1 "$sender" -c "$PINGS" -i 0.2 --tlv-dm fd00:b::1 || ok=0
section "hs2: ip -s stamp show"
nsx hs2 ip -s stamp show
rx=$(nsx hs2 ip -s -j stamp session show | jq '.[0].stats.tx')
check "the reflector's session answered ${rx:-0} test packets, expected $PINGS" \
	'[ "${rx:-0}" = "$PINGS" ]'

# The reflector and its session change in place (ip stamp change,
# replace): counters and the session's sequence number survive.
# Stateful, the reflector numbers a session's replies itself, from 0 (a
# stateless one copies the sender's numbers and leaves the session's at
# 0); with return-segs, the replies come back to hs1 over fc00:2::e9, an
# End of r2 that only they use, in an SRH the reflector inserts.
nsx r2 ip -6 route add fc00:2::e9/128 encap seg6local action End count dev veth-r1
nsx r2 ip -6 route add fd00:a::/64 via fcf0:12::1
nsx hs1 sysctl -qw net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.eth0.seg6_enabled=1
stamp_j() { nsx hs2 ip -s -j stamp show | jq -r "$1"; }
nsx hs2 ip stamp reflector change mode stateful
nsx hs2 ip stamp session change ssid 1 peer fd00:a::1 return-segs fc00:2::e9
section "hs2: ip stamp reflector change mode stateful; ip stamp session change ssid 1 peer fd00:a::1 return-segs fc00:2::e9"
nsx hs2 ip -s stamp show
after=$(stamp_j '"\(.reflectors[0].stats.rx) \(.sessions[0].seq)"')
section "hs1: stamp-sender -c $PINGS fd00:b::1 (rseq: the reflector's numbering)"
out=$(nsx hs1 "$sender" -c "$PINGS" -i 0.2 fd00:b::1) || ok=0
echo "$out"
seq1=$(stamp_j '.sessions[0].seq')
nsx hs2 ip stamp session replace ssid 1 peer fd00:a::1
nsx hs2 ip stamp session replace ssid 2 peer fd00:a::1
section "hs2: ip stamp session replace ssid 1 peer fd00:a::1 (no return path); the same for ssid 2 (new)"
nsx hs2 ip -s stamp session show
section "check"
check "after the changes: reflector rx, session seq: $after, expected $PINGS 0 (the $PINGS stateless test packets before them: nothing reset)" \
	'[ "$after" = "$PINGS 0" ]'
got=$(grep -o 'rseq=[0-9]*' <<< "$out" | cut -d= -f2 | sort -n | paste -sd,)
want=$(seq 0 $((PINGS - 1)) | paste -sd,)
check "stateful: replies numbered ${got:-none}, then session 1's seq $seq1, expected $want and $PINGS" \
	'[ "$got" = "$want" ] && [ "$seq1" = "$PINGS" ]'
got=$(seg6_pkts r2 fc00:2::e9)
check "return-segs fc00:2::e9: r2's End counted ${got:-0} packets (the replies), expected $PINGS" \
	'[ "${got:-0}" = "$PINGS" ]'
got=$(stamp_j '.sessions | sort_by(.ssid) | map("\(.ssid):\(.return_segs | length):\(.stats.rx):\(.seq)") | join(" ")')
want="1:0:$((2 * PINGS)):$PINGS 2:0:0:0"
check "replace: ssid:return-segs:rx:seq $got, expected $want (ssid 1 kept its counters)" \
	'[ "$got" = "$want" ]'
nsx hs2 ip stamp flush
section "hs2: ip stamp flush; ip -j stamp show"
out=$(nsx hs2 ip -j stamp show)
echo "$out"
got=$(jq -r '"\(.reflectors | length) \(.sessions | length)"' <<< "$out")
check "flush: reflectors and sessions left: $got of 1 2, expected 0 0" '[ "$got" = "0 0" ]'

# IOAM along the same path: hs1 inserts a trace (namespace 1) and an
# Edge-to-Edge option into its packets to hs2; r1 and hs2 fill the trace,
# hs2 counts the E2E sequence numbers. netem on r2 drops some on purpose.
for n in hs1 r1 hs2; do
	nsx "$n" ip ioam namespace add 1
done
nsx r1 sysctl -qw net.ipv6.ioam6_id=1 net.ipv6.conf.veth-hs1.ioam6_enabled=1
nsx hs2 sysctl -qw net.ipv6.ioam6_id=2 net.ipv6.conf.eth0.ioam6_enabled=1
nsx hs1 sysctl -qw net.ipv6.ioam6_id=3
nsx hs1 ip -6 route add fd00:b::1/128 via fd00:a::254 encap ioam6 mode inline \
	trace prealloc type 0x800000 ns 1 size 12 e2e ns 1 seq64 timestamp
section "hs1: ip -6 route show fd00:b::1/128 (IOAM trace + Edge-to-Edge)"
nsx hs1 ip -6 route show fd00:b::1/128
mon=$(mktemp)
# The monitor subscribes when it gets the CPU: ping until it printed both
# kinds of event (or a generous deadline).
ip netns exec demo-hs2 timeout 120 ip ioam monitor > "$mon" 2>&1 &
mon_pid=$!
wait_until 100 'grep -q "^\[TRACE\] Namespace=1 " "$mon" && grep -q "^\[E2E\] Namespace=1 " "$mon"' \
	'nsx hs1 ping -6 -q -c 2 -i 0.2 -W 2 fd00:b::1 > /dev/null || true' || true
kill "$mon_pid" 2> /dev/null
wait "$mon_pid" 2> /dev/null || true
section "hs2: ip ioam monitor (trace entries, last filler first: hop limit and node id of hs2 (2), r1 (1), hs1 (3))"
head -n 4 "$mon"
check "hs2's monitor printed trace and E2E events of namespace 1" \
	'grep -q "^\[TRACE\] Namespace=1 " "$mon" && grep -q "^\[E2E\] Namespace=1 " "$mon"'
# A gap shows between two received sequence numbers: the first and the
# last of the 22 packets go through before and after the netem loss.
nsx hs2 ip ioam e2e reset
nsx hs1 ping -6 -q -c 1 -W 2 fd00:b::1 > /dev/null || true
nsx r2 tc qdisc add dev veth-r3 root netem loss 25%
nsx hs1 ping -6 -q -c 20 -i 0.05 -W 1 fd00:b::1 > /dev/null || true
nsx r2 tc qdisc del dev veth-r3 root
nsx hs1 ping -6 -q -c 1 -W 2 fd00:b::1 > /dev/null || true
section "hs2: ip ioam e2e show (22 packets, 20 of them with netem loss 25% on r2)"
nsx hs2 ip ioam e2e show
lost=$(nsx hs2 ip -j ioam e2e show | jq '.[0].lost')
rx=$(nsx hs2 ip -j ioam e2e show | jq '.[0].rx')
check "hs2 received ${rx:-0} and counted ${lost:-0} lost of the 22 sent, expected a sum of 22" \
	'[ $((${rx:-0} + ${lost:-0})) = 22 ]'

# IOAM beyond one trace: hs1's route to hs2 now inserts four options at
# once, in an IPv6-in-IPv6 encapsulation from hs1's tunnel address
# fd00:a::100 (tunsrc) to hs2: traces in namespaces 1 and 2, the
# Edge-to-Edge option, and a Direct Export (DEX) option, for which every
# IOAM node sends its data fields as an event instead of writing them
# into the packet.  The transit delay and buffer occupancy fields (bits 4
# and 11 of the ns 1 trace and of the DEX type) are filled where their
# sysctls are set: on r1 only.
for n in hs1 r1 hs2; do
	nsx "$n" ip ioam namespace add 2
done
nsx hs1 ip -6 addr add fd00:a::100/128 dev lo
nsx hs2 ip link set ip6tnl0 up
nsx r1 sysctl -qw net.ipv6.ioam6_transit_delay=1 net.ipv6.ioam6_buffer_occupancy=1 \
	net.ipv6.conf.veth-hs1.ioam6_id=11 net.ipv6.conf.veth-r2.ioam6_id=12
nsx hs1 ip -6 route replace fd00:b::1/128 via fd00:a::254 encap ioam6 mode encap \
	tunsrc fd00:a::100 tundst fd00:b::1 \
	trace prealloc type 0x881000 ns 1 size 36 \
	trace prealloc type 0xc00000 ns 2 size 24 \
	e2e ns 1 seq64 timestamp \
	dex ns 2 type 0x801000 flowid 42 seq
section "hs1: ip -6 route show fd00:b::1/128 (four IOAM options, tunnel source fd00:a::100)"
nsx hs1 ip -6 route show fd00:b::1/128
# events FILE REGEX: how many lines of FILE match
events() { grep -cE "$2" "$1" || true; }
mon_hs2=$(mktemp)
mon_r1=$(mktemp)
ip netns exec demo-hs2 timeout 300 ip ioam monitor >> "$mon_hs2" 2>&1 &
mon_hs2_pid=$!
ip netns exec demo-r1 timeout 300 ip ioam monitor >> "$mon_r1" 2>&1 &
mon_r1_pid=$!
# Ping until both monitors print, and until they have printed every
# event of the pings sent (the last one of hs2 is an E2E event, r1 has
# exported each packet that hs2 did); then start their files afresh.
wait_until 100 '[ "$(events "$mon_r1" "^\[DEX\] ")" -gt 0 ] &&
	[ "$(events "$mon_r1" "^\[DEX\] ")" = "$(events "$mon_hs2" "^\[DEX\] ")" ] &&
	tail -n 1 "$mon_hs2" | grep -q "^\[E2E\] "' \
	'nsx hs1 ping -6 -q -c 1 -W 2 fd00:b::1 > /dev/null || true' || true
: > "$mon_hs2"
: > "$mon_r1"
nsx hs2 ip ioam e2e reset
section "hs1: ping -6 -c $PINGS fd00:b::1 (monitors on hs2 and r1)"
nsx hs1 ping -6 -q -c "$PINGS" -i 0.2 -W 2 fd00:b::1 || ok=0
wait_until 60 '[ "$(events "$mon_hs2" "^\[E2E\] ")" -ge "$PINGS" ] &&
	[ "$(events "$mon_r1" "^\[DEX\] ")" -ge "$PINGS" ]' || true
section "hs2: ip ioam monitor, the last echo request (its two traces, hs2's DEX export, its E2E option)"
tail -n 4 "$mon_hs2"
section "r1: ip ioam monitor, DEX events (Data: hop limit and node id, buffer occupancy)"
grep '^\[DEX\] ' "$mon_r1" || true
section "hs2: ip ioam e2e show (reset, then $PINGS echo requests)"
nsx hs2 ip ioam e2e show
section "check"
got=$(awk '/^\[TRACE\] Namespace=1 / { t1++ } /^\[TRACE\] Namespace=2 / { t2++ }
	/^\[E2E\] Namespace=1 / { e2e++ } /^\[DEX\] Namespace=2 / { dex++ }
	END { print t1 + 0, t2 + 0, e2e + 0, dex + 0 }' "$mon_hs2")
check "one route, four options: hs2 reported $got (ns 1 traces, ns 2 traces, E2E, DEX) for the $PINGS echo requests, expected $PINGS each" \
	'[ "$got" = "$PINGS $PINGS $PINGS $PINGS" ]'
got=$(nsx hs2 ip -j ioam e2e show |
	jq -r '"\(map(select(.src == "fd00:a::100").rx) | add // 0) \(map(select(.src != "fd00:a::100").rx) | add // 0)"')
check "tunsrc: hs2 counted E2E options from fd00:a::100 and from other sources: $got, expected $PINGS 0" \
	'[ "$got" = "$PINGS 0" ]'
# the traces of the last echo request; entries last filler first: hs2, r1, hs1
d=$(grep '^\[TRACE\] Namespace=2 ' "$mon_hs2" | tail -n 1 | sed -n 's/.*Data=\([0-9a-f]*\).*/\1/p')
ifin=${d:24:4} ifout=${d:28:4}
got="${d:2:6} ${d:18:6} ${d:34:6} in $((16#${ifin:-0})) out $((16#${ifout:-0}))"
check "ns 2 trace: node ids, then r1's interface ids: $got, expected 000002 000001 000003 (hs2 r1 hs1) in 11 out 12 (r1's veth-hs1, veth-r2)" \
	'[ "$got" = "000002 000001 000003 in 11 out 12" ]'
# ns 1, 12 octets a node: hop limit and node id, transit delay, buffer occupancy
d=$(grep '^\[TRACE\] Namespace=1 ' "$mon_hs2" | tail -n 1 | sed -n 's/.*Data=\([0-9a-f]*\).*/\1/p')
td=${d:32:8} bo=${d:40:8}
td=$((16#${td:-0})) bo=$((16#${bo:-0}))
check "transit delay (ioam6_transit_delay=1 on r1 only): hs2 ${d:8:8}, r1 $td ns, hs1 ${d:56:8}, expected ffffffff (unavailable), 0 < r1 < 10^9, ffffffff" \
	'[ "${d:8:8}" = ffffffff ] && [ "${d:56:8}" = ffffffff ] && [ "$td" -gt 0 ] && [ "$td" -lt 1000000000 ]'
got="${d:16:8} $bo ${d:64:8}"
check "buffer occupancy (ioam6_buffer_occupancy=1 on r1 only): hs2, r1, hs1: $got, expected ffffffff 0 ffffffff (nothing queued on r1's veth-r2)" \
	'[ "$got" = "ffffffff 0 ffffffff" ]'
dex_seqs() { sed -n 's/^\[DEX\] Namespace=2 FlowID=42 Seq=\([0-9]*\) .*/\1/p' "$1" | paste -sd,; }
s_r1=$(dex_seqs "$mon_r1")
s_hs2=$(dex_seqs "$mon_hs2")
first=${s_r1%%,*}
want=$(seq "${first:-0}" $((${first:-0} + PINGS - 1)) | paste -sd,)
check "Direct Export, flow 42: r1 exported seq ${s_r1:-none}, hs2 ${s_hs2:-none}, expected $PINGS consecutive, the same on both" \
	'[ -n "$s_r1" ] && [ "$s_r1" = "$want" ] && [ "$s_hs2" = "$s_r1" ]'

# Buffer occupancy under load: netem on r1's veth-r2 holds every packet,
# so that each echo request finds the earlier ones queued there, and r1
# exports 0, then one packet's bytes, then two.  (r2's neighbour entry
# on r1 is permanent for the while: a neighbour probe would queue too.)
r2mac=$(nsx r2 cat /sys/class/net/veth-r1/address)
nsx r1 ip -6 neigh replace fcf0:12::2 lladdr "$r2mac" dev veth-r2 nud permanent
nsx r1 tc qdisc add dev veth-r2 root netem delay 100s
: > "$mon_r1"
nsx hs1 ping -6 -q -c 3 -i 0.2 -W 1 fd00:b::1 > /dev/null || true
wait_until 60 '[ "$(events "$mon_r1" "^\[DEX\] ")" -ge 3 ]' || true
section "r1: tc -s qdisc show dev veth-r2 (netem delay 100s, 3 echo requests sent)"
nsx r1 tc -s qdisc show dev veth-r2
q=$(nsx r1 tc -s -j qdisc show dev veth-r2 | jq -r '.[0] | "\(.backlog) \(.qlen)"')
nsx r1 tc qdisc del dev veth-r2 root
nsx r1 ip -6 neigh del fcf0:12::2 dev veth-r2
section "r1: ip ioam monitor, DEX events of the 3 echo requests"
grep '^\[DEX\] ' "$mon_r1" || true
kill "$mon_hs2_pid" "$mon_r1_pid" 2> /dev/null
wait "$mon_hs2_pid" "$mon_r1_pid" 2> /dev/null || true
section "check"
read -r backlog qlen <<< "$q"
got=$(sed -n 's/^\[DEX\] .*Data=[0-9a-f]\{8\}\([0-9a-f]\{8\}\).*/\1/p' "$mon_r1" |
	while read -r x; do echo $((16#$x)); done | paste -sd' ')
# Each request finds the ones before it queued: the exports grow by one
# request's bytes, L, each time.  Other packets may join the queue (a
# neighbour solicitation, an MLD report, seen in CI): they count in the
# backlog, and in the step after them, and each is smaller than a request.
# So each step is one request, plus less than one request, and the two
# steps differ by less than the smaller one; the last request is queued
# behind the last export.
read -r b0 b1 b2 <<< "$got"
s1=$((${b1:-0} - ${b0:-0})) s2=$((${b2:-0} - ${b1:-0}))
l=$((s1 < s2 ? s1 : s2))
check "buffer occupancy under load: r1 exported $got bytes; netem held ${qlen:-?} packets, ${backlog:-?} bytes: expected two steps of one request's bytes ($s1, $s2) and more queued than the last export, 3 packets at least" \
	'[ "$l" -gt 0 ] && [ $((s1 > s2 ? s1 - s2 : s2 - s1)) -lt "$l" ] &&
	 [ "${qlen:-0}" -ge 3 ] && [ "${backlog:-0}" -gt "${b2:-0}" ]'
rm -f "$mon_hs2" "$mon_r1"

# Domain egress: hs2 inserts a trace and an E2E option into its replies
# to hs1 (inline).  r1 forwards them to hs1 with their options until its
# veth-hs1 is where packets leave the IOAM domain
# (net.ipv6.conf.veth-hs1.ioam6_domain_egress): from then on hs1 gets
# them without.  hs1 counts the E2E options it receives.
nsx hs1 sysctl -qw net.ipv6.conf.eth0.ioam6_enabled=1
nsx hs2 ip -6 route add fd00:a::1/128 via fd00:b::254 encap ioam6 mode inline \
	trace prealloc type 0x800000 ns 1 size 12 e2e ns 1 seq64 timestamp
e2e_rx() { nsx hs1 ip -j ioam e2e show | jq -r '[.[] | select(.src == "fd00:b::1") | .rx] | add // 0'; }
section "hs1: ping -6 -c $PINGS fd00:b::1 (replies with IOAM from hs2)"
nsx hs1 ping -6 -q -c "$PINGS" -i 0.2 -W 2 fd00:b::1 || ok=0
rx1=$(e2e_rx)
nsx r1 sysctl -qw net.ipv6.conf.veth-hs1.ioam6_domain_egress=1
section "r1: sysctl net.ipv6.conf.veth-hs1.ioam6_domain_egress=1; hs1: ping -6 -c $PINGS fd00:b::1"
nsx hs1 ping -6 -q -c "$PINGS" -i 0.2 -W 2 fd00:b::1 || ok=0
rx2=$(e2e_rx)
section "hs1: ip ioam e2e show"
nsx hs1 ip ioam e2e show
nsx hs2 ip -6 route del fd00:a::1/128
section "check"
check "domain egress: hs1 counted $rx1 E2E options in hs2's $PINGS replies, then $((${rx2:-0} - ${rx1:-0})) in the $PINGS through r1's domain egress, expected $PINGS and 0" \
	'[ "$rx1" = "$PINGS" ] && [ "$rx2" = "$PINGS" ]'

# Per-flow packet loss monitoring (pfplm): three flows from r1 to hs2 over
# three SID lists, ending on r3's End.DT6 SID fc00:3::d60; r1 colours and
# counts them, r3 counts them per colour, and r1 asks r3 for its counts over
# each flow's own SID list.  r2 drops the datagrams of flow "red" that the
# generator marked as doomed (Traffic Class 0x80): the report must show
# exactly those as lost, and nothing for "blue" and "green".
top=$(cd "$(dirname "$0")/.." && pwd)
plm=$(mktemp -d)
# (ip netns exec, not nsx, for what runs in the background: $! must be
# the process itself, for the signals below.)
nsx r2 ip -6 route add fc00:2::e2/128 encap seg6local action End dev veth-r1
nsx r3 ip -6 route add fc00:3::d60/128 encap seg6local action End.DT6 table 254 dev veth-hs2
nsx r1 ip -6 addr add fc00:1::100/128 dev lo
nsx r3 ip -6 addr add fc00:3::100/128 dev lo noprefixroute
# End.DT6 looks the inner destination up in its table only (main here).
nsx r3 ip -6 route add local fc00:3::100/128 dev lo table main
declare -A plm_sids=([blue]=fc00:2::e,fc00:3::d60 [red]=fc00:2::e2,fc00:3::d60
	[green]=fc00:2::e,fc00:2::e2,fc00:3::d60)
declare -A plm_dst=([blue]=fd00:b::11 [red]=fd00:b::12 [green]=fd00:b::13)
id=0
for f in blue red green; do
	id=$((id + 1))
	nsx hs2 ip -6 addr add "${plm_dst[$f]}"/64 dev eth0 nodad
	nsx r1 ip -6 route add "${plm_dst[$f]}"/128 encap seg6 mode encap segs "${plm_sids[$f]}" dev veth-r2
	for role in ingress egress; do
		if [ $role = ingress ]; then peer=fc00:3::100; else peer=fc00:1::100; fi
		printf '[flow %s]\nrole = %s\nid = %s\nsids = %s\npeer = %s\n\n' \
			"$f" "$role" "$id" "${plm_sids[$f]}" "$peer" >> "$plm/$role.flows"
	done
done
nsx r2 ip6tables -w -A FORWARD -m tos --tos 0x80/0x80 -j DROP
nsx hs2 ip6tables -w -A INPUT -p udp --dport 9 -j DROP
printf '[pfplm]\nperiod = 6\nmethod = sets\nsource = fc00:1::100\nresults = %s\nstate = %s\n\n' \
	"$plm/results" "$plm/state" | cat - "$plm/ingress.flows" > "$plm/ingress.conf"
printf '[pfplm]\nperiod = 6\nmethod = sets\nlisten = fc00:3::100\nstate = %s\n\n' \
	"$plm/estate" | cat - "$plm/egress.flows" > "$plm/egress.conf"
section "pfplm: r1 (ingress) configuration, period 6 s, hash:sr6 sets"
cat "$plm/ingress.conf"
ip netns exec demo-r3 pfplm -c "$plm/egress.conf" > "$plm/egress.log" 2>&1 &
egress_pid=$!
ip netns exec demo-r1 pfplm -c "$plm/ingress.conf" > "$plm/ingress.log" 2>&1 &
ingress_pid=$!
ip netns exec demo-hs1 python3 "$top/tools/testing/selftests/net/pfplm_gen.py" --period 6 \
	--packets 20 --dst fd00:b::11 --dst fd00:b::12 --dst fd00:b::13 \
	--lossy fd00:b::12=5 --out "$plm/gen" &
gen_pid=$!
# Two blocks to start, then three with traffic: wait for them to close.
plm_exact() {
	[ -s "$plm/results" ] || { echo 0; return; }
	jq -s '[.[] | select(.status == "exact" and .sent > 0)] | length' "$plm/results"
}
wait_until 360 '[ "$(plm_exact)" -ge 9 ]' 'sleep 3' || true
kill -TERM "$gen_pid"; wait "$gen_pid" || true
section "r1: the pfplm report (one line per flow and block)"
cat "$plm/ingress.log"
section "r1: pfplm --show"
nsx r1 pfplm --show --state "$plm/state"
section "r1: the hash:sr6 sets pfplm made (ipset list pfplm-iA)"
nsx r1 ipset list pfplm-iA
kill -TERM "$ingress_pid" "$egress_pid"
wait "$ingress_pid" "$egress_pid" || ok=0
section "check: every exact block against the generator's own count"
plm_ok=1
plm_out=$(python3 - "$plm/results" "$plm/gen" <<'PY'
import json, sys
gen = {(g["dst"], g["block"]): g for g in map(json.loads, open(sys.argv[2]))}
dst = {"blue": "fd00:b::11", "red": "fd00:b::12", "green": "fd00:b::13"}
n, bad, red_lost = 0, 0, 0
for r in map(json.loads, open(sys.argv[1])):
    if r["status"] != "exact":
        continue
    g = gen.get((dst[r["flow"]], r["block"]), {"sent": 0, "doomed": 0, "sure": True})
    if not g["sure"]:
        continue
    n += 1
    want = g["doomed"] if r["flow"] == "red" else 0
    if r["sent"] != g["sent"] or r["lost"] != want:
        bad += 1
        print("MISMATCH", r["flow"], r["block"], r["sent"], r["lost"], g)
    if r["flow"] == "red":
        red_lost += r["lost"]
print("%d exact blocks checked, %d mismatches; red lost %d in all" % (n, bad, red_lost))
sys.exit(0 if n >= 6 and bad == 0 and red_lost > 0 else 1)
PY
) || plm_ok=0
sed '$d' <<< "$plm_out"
check "$(tail -n 1 <<< "$plm_out"), expected 6 or more, 0, more than 0" '[ "$plm_ok" = 1 ]'
rm -rf "$plm"

# IPv6 Alternate-Marking in the kernel: two flows from r1 to hs2 marked
# by their seg6 routes with the RFC 9343 option (FlowMonIDs 21 and 22,
# segment placement), counted by r1, by r2's End and by r3's End.DT6,
# each closing its blocks; r2 drops flow 22's doomed datagrams after its
# End.  pfplm runs on r1 alone and asks r2's and r3's STAMP reflectors for
# their blocks: the report gives the loss per segment, on r2 -> r3 only.
am=$(mktemp -d)
for n in r1 r2 r3; do
	nsx "$n" sysctl -qw net.ipv6.altmark.guard_ms=1500 net.ipv6.altmark.period_ms=6000
done
nsx r2 ip -6 addr add fc00:2::100/128 dev lo
for f in 21 22; do
	nsx hs2 ip -6 addr add "fd00:b::$f"/64 dev eth0 nodad
	nsx r2 ip altmark monitor add flowmon "$f" history 32
	nsx r3 ip altmark monitor add flowmon "$f" history 32
done
nsx r1 ip -6 route add fd00:b::21/128 encap seg6 mode encap segs fc00:2::e,fc00:3::d60 \
	altmark flowmon 21 segment dev veth-r2
nsx r1 ip -6 route add fd00:b::22/128 encap seg6 mode encap segs fc00:2::e2,fc00:3::d60 \
	altmark flowmon 22 segment dev veth-r2
nsx r2 ip stamp reflector add port 8620 address fc00:2::100 altmark any
nsx r3 ip stamp reflector add port 8620 address fc00:3::100 altmark any
section "r1: routes that mark (ip -6 route show fd00:b::21/128; fd00:b::22/128)"
nsx r1 ip -6 route show fd00:b::21/128
nsx r1 ip -6 route show fd00:b::22/128
section "r2, r3: ip stamp reflector show (the counting nodes answer for their blocks)"
nsx r2 ip stamp reflector show
nsx r3 ip stamp reflector show
ip netns exec demo-r1 pfplm --method altmark --period 6 --guard 1.5 --port 8620 \
	--source fc00:1::100 --name am --results "$am/results" --state "$am/state" \
	--flow "name=am21 role=ingress id=21 sids=fc00:2::e,fc00:3::d60 peer=fc00:3::100 reflectors=fc00:2::100,fc00:3::100" \
	--flow "name=am22 role=ingress id=22 sids=fc00:2::e2,fc00:3::d60 peer=fc00:3::100 reflectors=fc00:2::100,fc00:3::100" \
	> "$am/report" 2> "$am/log" &
am_pid=$!
# The traffic starts once pfplm has reported its first block (the one it
# started in, unknown): every block of the traffic is then one the
# monitors saw whole.
wait_until 60 'grep -q started "$am/log"' || true
wait_until 60 '[ -s "$am/results" ]' 'sleep 1' || true
ip netns exec demo-hs1 python3 "$top/tools/testing/selftests/net/pfplm_gen.py" --period 6 \
	--clock tai --packets 20 --dst fd00:b::21 --dst fd00:b::22 --lossy fd00:b::22=4 \
	--blocks 4 --out "$am/gen" || true
am_exact() {
	[ -s "$am/results" ] || { echo 0; return; }
	jq -s '[.[] | select(.status == "exact" and .sent > 0)] | length' "$am/results"
}
# every block of the traffic, both flows (32 blocks of history on every
# node keep them well past this wait)
wait_until 120 '[ "$(am_exact)" -ge 8 ]' 'sleep 3' || true
# the kernels' blocks before pfplm stops: it deletes r1's monitor, which
# it added
for n in r1 r2 r3; do
	nsx "$n" ip -j altmark monitor show > "$am/$n.json"
done
kill -TERM "$am_pid"; wait "$am_pid" || ok=0
section "r1: pfplm --method altmark, the report (one line per flow and block, one per segment)"
cat "$am/report"
section "r2: ip altmark monitor show flowmon 22 (its closed blocks)"
nsx r2 ip altmark monitor show flowmon 22
section "check: every exact block against the blocks the three kernels closed"
am_ok=1
am_out=$(python3 - "$am" <<'PY'
import json, sys
d = sys.argv[1]
kern = {}
for n in ("r1", "r2", "r3"):
    for m in json.load(open(f"{d}/{n}.json")):
        for b in m.get("blocks", []):
            kern[(n, m["flowmon"], b["number"])] = b["packets"]
n, bad, lost = 0, 0, {21: [0, 0], 22: [0, 0]}
for r in map(json.loads, open(f"{d}/results")):
    if r["status"] != "exact" or r["sent"] == 0:
        continue
    f, b = r["flowmon"], r["block"]
    want = [kern.get((x, f, b)) for x in ("r1", "r2", "r3")]
    got = [r["segments"][0]["sent"], r["segments"][0]["received"],
           r["segments"][1]["received"]]
    n += 1
    if got != want:
        bad += 1
        print("MISMATCH", r["flow"], b, got, want)
    for i in (0, 1):
        lost[f][i] += r["segments"][i]["lost"]
print("%d exact blocks checked, %d mismatches; lost r1->r2, r2->r3: "
      "flow 21 %d, %d, flow 22 %d, %d" % (n, bad, *lost[21], *lost[22]))
sys.exit(0 if n >= 4 and bad == 0 and lost[21] == [0, 0] and
         lost[22][0] == 0 and lost[22][1] > 0 else 1)
PY
) || am_ok=0
sed '$d' <<< "$am_out"
check "$(tail -n 1 <<< "$am_out"), expected 4 or more, 0, loss on flow 22's r2->r3 only" '[ "$am_ok" = 1 ]'
rm -rf "$am"

if [ "$ok" = 1 ]; then
	echo "demo: PASS"
else
	echo "demo: FAIL"
	exit 1
fi

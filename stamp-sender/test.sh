#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stamp-sender against the in-kernel Session-Reflector, in the guest
# (make check runs it as @stamp-sender/test.sh).
#
#   snd ------ r ------ refl      r: End SID fc00:2::e; test packets and
#   fc00:1::1        fc00:4::1       replies both go through it over SRv6
#   10.0.1.1         10.0.2.4
#
# Exit 0 when every check passed, 1 otherwise, 4 when something is missing.

set -u
cd "$(dirname "$0")"
SENDER=$PWD/stamp-sender
KEY=000102030405060708090a0b0c0d0e0f
SID=fc00:2::e
KEYFILE=$(mktemp) || exit 1
fail=0

ok() { printf 'TEST: %-66s [ OK ]\n' "$1"; }
ko() { printf 'TEST: %-66s [FAIL]\n\t%s\n' "$1" "$2"; fail=1; }

cleanup()
{
	for ns in snd r refl; do ip netns del "stsnd-$ns" 2>/dev/null; done
	rm -f "$KEYFILE"
}
trap cleanup EXIT

for cmd in ip jq tc python3; do
	command -v "$cmd" >/dev/null || { echo "SKIP: no $cmd"; exit 4; }
done

setup()
{
	local ns
	for ns in snd r refl; do
		ip netns add "stsnd-$ns"
		ip -n "stsnd-$ns" link set lo up
		ip netns exec "stsnd-$ns" sysctl -wq net.ipv6.conf.all.forwarding=1 \
			net.ipv4.ip_forward=1 net.ipv6.conf.all.seg6_enabled=1 \
			net.ipv6.conf.default.seg6_enabled=1 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip link add e0 netns stsnd-snd type veth peer name e0 netns stsnd-r
	ip link add e1 netns stsnd-r type veth peer name e0 netns stsnd-refl
	ip -n stsnd-snd addr add fc00:1::1/64 dev e0
	ip -n stsnd-snd addr add 10.0.1.1/24 dev e0
	ip -n stsnd-r addr add fc00:1::2/64 dev e0
	ip -n stsnd-r addr add 10.0.1.2/24 dev e0
	ip -n stsnd-r addr add fc00:4::2/64 dev e1
	ip -n stsnd-r addr add 10.0.2.2/24 dev e1
	ip -n stsnd-refl addr add fc00:4::1/64 dev e0
	ip -n stsnd-refl addr add 10.0.2.4/24 dev e0
	for l in snd:e0 r:e0 r:e1 refl:e0; do
		ip -n "stsnd-${l%:*}" link set "${l#*:}" up
	done
	ip -n stsnd-snd route add default via fc00:1::2
	ip -n stsnd-snd route add default via 10.0.1.2
	ip -n stsnd-refl route add default via fc00:4::2
	ip -n stsnd-refl route add default via 10.0.2.2
	ip -n stsnd-r route add "$SID"/128 encap seg6local action End count dev e0
}

sender() { ip netns exec stsnd-snd timeout 60 "$SENDER" "$@"; }
sid_packets() { ip -n stsnd-r -6 -s -j route show "$SID"/128 | jq '.[0].stats64.packets'; }

setup
if ! ip -n stsnd-refl stamp reflector add 2>/dev/null; then
	echo "SKIP: no STAMP reflector (kernel or ip)"
	exit 4
fi
ip -n stsnd-refl stamp reflector add port 863 auth
ip -n stsnd-refl stamp session add ssid 5 peer fc00:1::1 return-segs "$SID"
ip -n stsnd-refl stamp session add ssid 6 key "$KEY"
sleep 1

# SRv6 both ways: 20 test packets through the End SID, 20 replies too
p0=$(sid_packets)
out=$(sender -j -c 20 -i 0.02 --ssid 5 --segs "$SID" --tlv-dm fc00:4::1)
rc=$?
p=$(( $(sid_packets) - p0 ))
s=$(echo "$out" | jq -c '.summary | [.sent, .received, .lost, .rtt_ns.min > 0,
	.fwd_ns.min > 0, .back_ns.min > 0, .dm.forward_loss, .dm.backward_loss]')
if [ "$rc" -eq 0 ] && [ "$s" = "[20,20,0,true,true,true,0,0]" ] && [ "$p" -eq 40 ]; then
	ok "SRv6 both ways: 20/20, delays positive, DM loss 0, 40 via End"
else
	ko "SRv6 both ways: 20/20, delays positive, DM loss 0, 40 via End" \
		"rc $rc summary $s, End counted $p"
fi
t1=$(echo "$out" | jq '[.packets[] | select(.ttl != 63)] | length')
[ "$t1" -eq 0 ] && ok "Session-Sender TTL 63 after one End" ||
	ko "Session-Sender TTL 63 after one End" "$t1 replies with another TTL"

# loss in each direction, from the Direct Measurement TLV
# (a fresh session each: DM counters are the session's since it was made)
for dir in forward backward; do
	if [ "$dir" = forward ]; then dev=e1 ns=stsnd-r ssid=7; else dev=e0 ns=stsnd-refl ssid=8; fi
	ip -n stsnd-refl stamp session add ssid "$ssid" peer fc00:1::1
	ip netns exec "$ns" tc qdisc add dev "$dev" root netem loss 30%
	out=$(sender -j -c 40 -i 0.01 --ssid "$ssid" --tlv-dm fc00:4::1)
	ip netns exec "$ns" tc qdisc del dev "$dev" root
	s=$(echo "$out" | jq -c '.summary | [.sent - .received == .lost, .lost > 0,
		.dm.forward_loss, .dm.backward_loss, .lost]')
	f=$(echo "$s" | jq '.[2]'); b=$(echo "$s" | jq '.[3]'); l=$(echo "$s" | jq '.[4]')
	if [ "$dir" = forward ]; then
		good=$([ "$f" -gt 0 ] && [ "$b" -eq 0 ] && [ "$f" -le "$l" ] && echo y)
	else
		good=$([ "$b" -gt 0 ] && [ "$f" -eq 0 ] && [ "$b" -le "$l" ] && echo y)
	fi
	if [ "$(echo "$s" | jq '.[0] and .[1]')" = true ] && [ "$good" = y ]; then
		ok "30% $dir loss: seen in the $dir DM counter only"
	else
		ko "30% $dir loss: seen in the $dir DM counter only" "summary $s"
	fi
done

# IPv4, PTP timestamps, TLVs
out=$(sender -j -c 3 -i 0.05 --ptp --tlv-timestamp --tlv-cos 46 --tlv-padding 12 10.0.2.4)
s=$(echo "$out" | jq -c '.summary | [.received, .fwd_ns.min > 0]')
[ "$s" = "[3,true]" ] && ok "IPv4, PTPv2 timestamps, TLVs" ||
	ko "IPv4, PTPv2 timestamps, TLVs" "$s"

# authenticated mode, right and wrong key; the key from a file or from the
# environment, never from the command line
echo "$KEY" >"$KEYFILE"
out=$(sender -j -c 3 -i 0.05 -p 863 --ssid 6 --key-file "$KEYFILE" --tlv-dm fc00:4::1)
s=$(echo "$out" | jq -c '[.authenticated, .summary.received, .summary.bad_auth]')
[ "$s" = "[true,3,0]" ] && ok "authenticated: right key (--key-file)" ||
	ko "authenticated: right key (--key-file)" "$s"
out=$(STAMP_KEY=$KEY sender -j -c 3 -i 0.05 -p 863 --ssid 6 --auth fc00:4::1)
s=$(echo "$out" | jq -c '[.authenticated, .summary.received, .summary.bad_auth]')
[ "$s" = "[true,3,0]" ] && ok "authenticated: right key (STAMP_KEY)" ||
	ko "authenticated: right key (STAMP_KEY)" "$s"
STAMP_KEY=${KEY/00/ff} sender -q -c 2 -i 0.05 -p 863 --ssid 6 --auth fc00:4::1 >/dev/null
[ $? -eq 1 ] && ok "authenticated: wrong key, no reply, exit 1" ||
	ko "authenticated: wrong key, no reply, exit 1" "exit status not 1"
sender -q -c 1 -p 863 --ssid 6 --auth-key "$KEY" fc00:4::1 >/dev/null 2>&1
[ $? -eq 2 ] && ok "a key on the command line is refused, exit 2" ||
	ko "a key on the command line is refused, exit 2" "exit status not 2"

# the text output an operator reads
out=$(sender -c 2 -i 0.05 --ssid 5 fc00:4::1)
echo "$out" | grep -q "2 sent, 2 received, 0 lost" && ok "text summary" ||
	ko "text summary" "$out"

exit "$fail"

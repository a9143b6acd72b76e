#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The STAMP Session-Reflector under attack: what it must refuse to answer,
# the amplification it must not offer, the state a user namespace must not
# grow without bound, and the sessions a deleted namespace must not leak.
#
#  +------+  e1           e1  +------+  e2           e2  +------+
#  | atk  |-------------------|  A   |-------------------|  B   |
#  +------+                   +------+                   +------+
#  2001:db8:1::9              fc00:a::1 (lo)             fc00:b::1 (lo)
#  10.0.1.9                   10.0.1.1, 10.0.2.1         10.0.2.2
#
# A and B run reflectors.  atk crafts single frames (stamp_test.py spoof,
# on a packet socket) with whatever source it likes, sent to A's MAC address, and is an
# honest Session-Sender too.  Each loop test sends one frame and then
# checks, seconds later, that the reflectors received it once and are not
# answering each other or themselves.  Replies must also leave where a
# careless reflector would drop them (in fragments), and not where the
# node's routes or IPsec policies say they must not go.

source lib.sh
source srv6_oam_lib.sh

readonly A6=fc00:a::1
readonly B6=fc00:b::1
readonly A4=10.0.1.1
readonly ATK6=2001:db8:1::9
readonly KEY=00112233445566778899aabbccddeeff
readonly PARAMS=/sys/module/stamp/parameters

cleanup()
{
	pyserve_stop
	cleanup_all_ns
	rm -rf "$tmp"
}

trap cleanup EXIT

# stat NS PORT FIELD: a counter of the reflector on PORT in NS
stat()
{
	local v

	v=$(ip -n "$1" -s -j stamp reflector show |
		jq ".[] | select(.port == $2) | .stats.$3 // -1")
	echo "${v:--1}"
}

# stats NS PORT FIELD...: those counters of the reflector on PORT, one line
stats()
{
	local f q=""

	for f in "${@:3}"; do
		q="$q${q:+, }(.stats.$f // -1)"
	done
	ip -n "$1" -s -j stamp reflector show |
		jq -r ".[] | select(.port == $2) | [$q] | @tsv"
}

# stat_wait NS PORT FIELD MIN: wait until the counter is at least MIN (60 s)
stat_wait()
{
	slowwait 60 until_counter_is ">= $4" stat "$1" "$2" "$3" > /dev/null
}

# stamp_test.py ARGS in atk, by its server there (pyserve_start, in
# srv6_oam_lib.sh: no Python start-up per call).  The sender ends by
# itself; its bound only turns a hang into a failure, far above what the
# slowest guest needs (srv6_oam_lib.sh's SRV6_HANG_TIMEOUT: a debug kernel
# on a loaded host can take minutes).
sender()
{
	pyserve_call "$tmp/serve" "$SRV6_HANG_TIMEOUT" "$@"
}

# spoof DST PORT SRC SPORT [--reply]: one crafted frame from atk to A
spoof()
{
	sender spoof "$1" --port "$2" --src "$3" --sport "$4" \
		--dmac "$amac" --iface e1 "${@:5}"
}

setup()
{
	# the links come after it: without DAD from the start
	srv6_setup_ns atk a b
	ip link add e1 netns "$atk" type veth peer name e1 netns "$a"
	ip link add e2 netns "$a" type veth peer name e2 netns "$b"
	ip -n "$atk" link set e1 up
	ip -n "$a" link set e1 up
	ip -n "$a" link set e2 up
	ip -n "$b" link set e2 up

	ip -n "$atk" addr add "$ATK6"/64 dev e1
	ip -n "$atk" addr add 10.0.1.9/24 dev e1
	ip -n "$atk" route add fc00:a::/64 via 2001:db8:1::1

	ip -n "$a" addr add "$A6"/128 dev lo
	ip -n "$a" addr add 2001:db8:1::1/64 dev e1
	ip -n "$a" addr add 2001:db8:2::1/64 dev e2
	ip -n "$a" addr add "$A4"/24 dev e1
	ip -n "$a" addr add 10.0.2.1/24 dev e2
	ip -n "$a" route add fc00:b::/64 via 2001:db8:2::2

	ip -n "$b" addr add "$B6"/128 dev lo
	ip -n "$b" addr add 2001:db8:2::2/64 dev e2
	ip -n "$b" addr add 10.0.2.2/24 dev e2
	ip -n "$b" route add fc00:a::/64 via 2001:db8:2::1

	# IPv4 drops a packet from one of its own addresses unless told
	# otherwise: let the IPv4 self-loop reach the reflector.
	ip netns exec "$a" sysctl -wq net.ipv4.conf.all.accept_local=1
	ip netns exec "$a" sysctl -wq net.ipv4.conf.e1.accept_local=1

	amac=$(ip -n "$a" -j link show e1 | jq -r '.[0].address')
}

# New reflectors on A and B, port 862: counters at 0, and whatever an
# earlier test started is over.
fresh_reflectors()
{
	ip -n "$a" stamp reflector del 2>/dev/null
	ip -n "$b" stamp reflector del 2>/dev/null
	ip -n "$a" stamp reflector add &&
	ip -n "$b" stamp reflector add
}

# A frame that must not be answered, and nothing may answer its echo.
# $1 description, $2 dst, $3 port, $4 src, $5 sport, $6 the counter that
# must count it, rest: extra arguments of spoof
check_loop()
{
	local desc=$1 dst=$2 port=$3 src=$4 sport=$5 cnt=$6 rx tx c brx
	shift 6

	RET=0
	fresh_reflectors
	check_err $? "cannot make the reflectors"
	spoof "$dst" "$port" "$src" "$sport" "$@"
	check_err $? "could not send the frame"
	# The reflector decides once per packet: once the frame is counted as
	# refused, it was not answered, and there is no loop to wait for.
	stat_wait "$a" "$port" "$cnt" 1
	check_err $? "A's reflector did not count the frame as $cnt"
	read -r rx tx c <<< "$(stats "$a" "$port" rx tx "$cnt")"
	brx=$(stat "$b" 862 rx)
	[ "$rx" -eq 1 ] && [ "$tx" -eq 0 ] && [ "$c" -eq 1 ] && [ "$brx" -eq 0 ]
	check_err $? "A: rx $rx tx $tx $cnt $c, B: rx $brx; want 1 0 1, 0"
	log_test "$desc"
}

# A test packet larger than the path MTU (1500) arrives in fragments; its
# reply, as large, must leave in fragments, over IPv6 as over IPv4, and
# not be dropped as too big.
test_fragments()
{
	local dst out tx x pad desc

	for dst in "$A4" "$A6"; do
		RET=0
		fresh_reflectors
		check_err $? "cannot make the reflectors"
		out=$(sender basic "$dst" --seqs 1 --pad 2500 2>&1)
		check_err $? "$(echo "$out" | grep FAIL | head -n 3)"
		read -r tx x <<< "$(stats "$a" 862 tx drop_xmit)"
		[ "$tx" -eq 1 ] && [ "$x" -eq 0 ]
		check_err $? "tx $tx drop_xmit $x, want 1 0"
		log_test "a fragmented test packet to $dst is answered in fragments"
	done

	# A Packet Too Big or Fragmentation Needed for the source (here a
	# route MTU towards atk, which is what one makes) must not make a
	# test packet's reply leave in more packets than it came in: one
	# that came whole (1400 octets), or in fragments of 1500 octets,
	# gets no reply over 1280 (1000 over IPv4), and drop_xmit counts
	# it.  The marker after it, small, is answered first.
	ip -n "$a" -6 route add "$ATK6/128" dev e1 mtu 1280
	ip -n "$a" route add 10.0.1.9/32 dev e1 mtu 1000
	for dst in "$A4" "$A6"; do
		for pad in 1300 2500; do
			RET=0
			fresh_reflectors
			check_err $? "cannot make the reflectors"
			out=$(sender none "$dst" --seqs 1 --pad "$pad" 2>&1)
			check_err $? "$(echo "$out" | grep FAIL | head -n 3)"
			read -r tx x <<< "$(stats "$a" 862 tx drop_xmit)"
			[ "$tx" -eq 1 ] && [ "$x" -eq 1 ]
			check_err $? "tx $tx drop_xmit $x, want 1 1"
			desc="no reply to $dst in smaller packets"
			log_test "$desc than its test packet (pad $pad)"
		done
	done
	ip -n "$a" -6 route del "$ATK6/128" dev e1
	ip -n "$a" route del 10.0.1.9/32 dev e1
}

# A reply whose route delivers it to A itself would carry the sender's
# bytes to a local service: a source that is none of A's addresses but
# that A's routes take as local must be refused.  The Subnet-Router
# anycast address, which forwarding joins, and a local route without an
# address; over IPv4 one in a table of its own, chosen by a rule, where
# inet_addr_type(), which looks in table local only, does not see it (a
# rule of one's own splits table local from table main).
test_local_route()
{
	ip netns exec "$a" sysctl -wq net.ipv6.conf.e1.forwarding=1
	ip -n "$a" route add local 2001:db8:99::/64 dev lo
	ip -n "$a" route add local 10.0.99.0/24 dev lo table 100
	ip -n "$a" rule add to 10.0.99.0/24 lookup 100

	check_loop "A's Subnet-Router anycast address as the source" \
		"$A6" 862 2001:db8:1:: 40000 drop_source
	check_loop "an address of a local route of A as the source" \
		"$A6" 862 2001:db8:99::9 40000 drop_source
	check_loop "an address of a local route in table 100 over IPv4" \
		"$A4" 862 10.0.99.9 40000 drop_source

	ip -n "$a" rule del to 10.0.99.0/24 lookup 100
	ip -n "$a" route del local 10.0.99.0/24 dev lo table 100
	ip -n "$a" route del local 2001:db8:99::/64 dev lo
	ip netns exec "$a" sysctl -wq net.ipv6.conf.e1.forwarding=0
}

# decided NS PORT: the test packets the reflector on PORT answered or
# failed to send
decided()
{
	local tx x

	read -r tx x <<< "$(stats "$1" "$2" tx drop_xmit)"
	echo $((tx + x))
}

# An IPsec policy that blocks what A sends to atk from port 862 blocks
# the replies of the reflector on that port, over IPv6 as over IPv4: the
# reply's flow carries its ports and goes through the policy lookup.
# The reflector on port 5002, outside the selector, still answers.
test_xfrm()
{
	local dst src out tx x

	for dst in "$A4" "$A6"; do
		src=10.0.1.9
		[ "$dst" = "$A6" ] && src=$ATK6
		RET=0
		fresh_reflectors
		check_err $? "cannot make the reflectors"
		ip -n "$a" stamp reflector add port 5002
		ip -n "$a" xfrm policy add src "$dst" dst "$src" proto udp \
			sport 862 dir out action block
		check_err $? "cannot add the IPsec policy"
		spoof "$dst" 862 "$src" 40000
		check_err $? "could not send the frame"
		slowwait 60 until_counter_is ">= 1" decided "$a" 862 > /dev/null
		check_err $? "the test packet was neither answered nor dropped"
		read -r tx x <<< "$(stats "$a" 862 tx drop_xmit)"
		[ "$tx" -eq 0 ] && [ "$x" -eq 1 ]
		check_err $? "policy block: tx $tx drop_xmit $x, want 0 1"
		out=$(sender basic "$dst" --port 5002 --seqs 1 2>&1)
		check_err $? "port 5002: $(echo "$out" | grep FAIL | head -n 3)"
		ip -n "$a" xfrm policy flush
		ip -n "$a" stamp reflector del port 5002
		log_test "IPsec policy blocks the replies to $src from port 862 only"
	done
}

stamp_state()
{
	ip -n "$a" stamp show
}

# $1 description, rest: the ip stamp command that must fail and change
# nothing
check_reject()
{
	local desc=$1
	shift

	RET=0
	check_refused stamp_state "" ip -n "$a" stamp "$@"
	log_test "reject: $desc ($REFUSED)"
}

test_loops()
{
	check_loop "self-loop: [A]:862 -> [A]:862 answered by nobody" \
		"$A6" 862 "$A6" 862 drop_source
	check_loop "self-loop over IPv4 (accept_local): A:862 -> A:862" \
		"$A4" 862 "$A4" 862 drop_source
	check_loop "ping-pong: [B]:862 -> [A]:862 is not answered" \
		"$A6" 862 "$B6" 862 drop_source
	check_loop "another local address of A as the source" \
		"$A6" 862 2001:db8:2::1 40000 drop_source
	check_loop "source port 7 (echo) is not answered" \
		"$A6" 862 "$ATK6" 7 drop_source
	check_loop "multicast destination in a unicast frame" \
		ff02::1 862 "$ATK6" 40000 drop_source
	check_loop "IPv4 subnet broadcast in a unicast frame" \
		10.0.1.255 862 10.0.1.9 40000 drop_source
	check_loop "a reflector's reply is not answered" \
		"$A6" 862 "$ATK6" 40000 drop_reflected --reply
}

# check_self_loop PORT DESC [spoof args]: [A]:PORT -> [A]:PORT, once
check_self_loop()
{
	local port=$1 desc=$2 rx tx c
	shift 2

	RET=0
	spoof "$A6" "$port" "$A6" "$port" "$@"
	stat_wait "$a" "$port" drop_source 1
	check_err $? "the reflector did not count the frame as drop_source"
	read -r rx tx c <<< "$(stats "$a" "$port" rx tx drop_source)"
	[ "$rx" -eq 1 ] && [ "$tx" -eq 0 ] && [ "$c" -eq 1 ]
	check_err $? "rx $rx tx $tx drop_source $c, want 1 0 1"
	log_test "$desc"
}

# The same self-loop in the other modes: a stateful reflector whose session
# has no fixed peer, and an authenticated one answering a replayed packet
# (the HMAC covers neither addresses nor ports).
test_modes()
{
	ip -n "$a" stamp reflector add port 864 mode stateful
	ip -n "$a" stamp session add ssid 8
	ip -n "$a" stamp reflector add port 865 auth
	ip -n "$a" stamp session add ssid 9 key "$KEY"

	check_self_loop 864 \
		"stateful, session without a peer: the self-loop is refused" \
		--ssid 8
	check_self_loop 865 \
		"authenticated, a valid packet replayed from [A]:865 is refused" \
		--ssid 9 --key "$KEY"

	ip -n "$a" stamp reflector del port 864
	ip -n "$a" stamp reflector del port 865
	ip -n "$a" stamp session del ssid 8
	ip -n "$a" stamp session del ssid 9
}

# Reflectors on two other ports, one per node: the spoofed packet is
# answered once, by A; B must not answer A's reply.
test_pingpong_ports()
{
	local arx brx atx

	RET=0
	ip -n "$a" stamp reflector add port 5000
	ip -n "$b" stamp reflector add port 6000
	spoof "$A6" 5000 "$B6" 6000
	check_err $? "could not send the frame"
	# B refused A's reply: nothing is in flight any more
	stat_wait "$b" 6000 drop_reflected 1
	check_err $? "B did not see A's reply as a reply"
	arx=$(stat "$a" 5000 rx); atx=$(stat "$a" 5000 tx)
	brx=$(stat "$b" 6000 rx)
	[ "$arx" -eq 1 ] && [ "$atx" -eq 1 ] && [ "$brx" -eq 1 ]
	check_err $? "A rx $arx tx $atx, B rx $brx: want 1 1 1"
	[ "$(stat "$b" 6000 tx)" -eq 0 ]
	check_err $? "B answered $(stat "$b" 6000 tx) times"
	log_test "ping-pong between reflectors on ports 5000 and 6000 stops at B"
	ip -n "$a" stamp reflector del port 5000
	ip -n "$b" stamp reflector del port 6000
}

test_sport_min()
{
	local tx0

	RET=0
	ip -n "$a" stamp reflector add port 5001 sport-min 1
	ip -n "$a" -j stamp reflector show |
		jq -e '.[] | select(.port == 5001) | .sport_min == 1' >/dev/null
	check_err $? "sport-min 1 is not dumped back"
	tx0=$(stat "$a" 5001 tx)
	spoof "$A6" 5001 "$ATK6" 7
	stat_wait "$a" 5001 tx $((tx0 + 1))
	check_err $? "sport-min 1: a test packet from port 7 was not answered"
	spoof "$A6" 5001 "$ATK6" 5001
	stat_wait "$a" 5001 drop_source 1
	check_err $? "sport-min 1: the reflector's own port was answered"
	log_test "sport-min 1 answers port 7, never the reflector's own port"
	ip -n "$a" stamp reflector del port 5001
}

test_honest_sender()
{
	RET=0
	fresh_reflectors
	out=$(sender basic "$A6" --ttl 64 2>&1)
	check_err $? "$(echo "$out" | grep FAIL | head -n 3)"
	log_test "an honest Session-Sender is still answered"
}

test_tlvs()
{
	local l0 out

	RET=0
	fresh_reflectors
	l0=$(stat "$a" 862 tlv_limit)
	# 44 + 89 * 16 octets: as many DM TLVs as a 1500-octet IPv4 frame holds
	out=$(sender tlv-limit "$A4" 2>&1)
	check_err $? "$(echo "$out" | grep FAIL | head -n 3)"
	[ "$(stat "$a" 862 tlv_limit)" -eq $((l0 + 1)) ]
	check_err $? "tlv_limit $l0 -> $(stat "$a" 862 tlv_limit), want +1"
	log_test "89 DM TLVs: 32 processed with one counter sum, 57 flagged M"

	ip -n "$a" stamp reflector add port 863 auth
	ip -n "$a" stamp session add ssid 7 key "$KEY"
	RET=0
	out=$(sender tlv-limit "$A6" --port 863 --key "$KEY" 2>&1)
	check_err $? "$(echo "$out" | grep FAIL | head -n 3)"
	log_test "authenticated: one HMAC TLV checked, the others flagged M"
	ip -n "$a" stamp reflector del port 863
	ip -n "$a" stamp session del ssid 7
}

test_amplification()
{
	check_reject "return-segs without a peer (an amplifier)" \
		session add ssid 5 return-segs fc00:b::e
	RET=0
	ip -n "$a" stamp session add ssid 5 peer "$ATK6" return-segs fc00:b::e
	check_err $? "return-segs with a peer refused"
	ip -n "$a" stamp session del ssid 5 peer "$ATK6"
	log_test "return-segs with a peer is accepted"
}

# The monitor that the Block TLV queries ask for: FlowMonID 21 on A,
# periods of 1 s, 32 blocks kept, so that a closed block can be found for
# half a minute after it closed.
readonly AM_FLOWMON=21 AM_PERIOD_MS=1000

# am_block: the latest block A closed for AM_FLOWMON; fails before the first
am_block()
{
	ip -n "$a" -j altmark monitor show flowmon "$AM_FLOWMON" |
		jq -e '[.[0].blocks[].number] | max'
}

# am_spoof SRC SPORT [spoof args]: a test packet to A's port 866 asking for
# the latest closed block
am_spoof()
{
	spoof "$A6" 866 "$1" "$2" --period-ms "$AM_PERIOD_MS" \
		--query "$AM_FLOWMON:$(am_block)" "${@:3}"
}

# check_altmark_loop DESC SRC SPORT COUNTER [spoof args]: a query for a
# block that A has, to A's reflector on port 866 (altmark any), which its
# source and loop checks must refuse before the block is looked up
check_altmark_loop()
{
	local desc=$1 src=$2 sport=$3 cnt=$4 rx tx c blocks refused
	shift 4

	RET=0
	ip -n "$a" stamp reflector del port 866 2>/dev/null
	ip -n "$a" stamp reflector add port 866 altmark any
	check_err $? "cannot make the reflector"
	am_spoof "$src" "$sport" "$@"
	check_err $? "could not send the frame"
	stat_wait "$a" 866 "$cnt" 1
	check_err $? "the reflector did not count the frame as $cnt"
	read -r rx tx c blocks refused <<< \
		"$(stats "$a" 866 rx tx "$cnt" altmark_blocks altmark_refused)"
	[ "$rx" -eq 1 ] && [ "$tx" -eq 0 ] && [ "$c" -eq 1 ] &&
		[ "$blocks" -eq 0 ] && [ "$refused" -eq 0 ]
	check_err $? "rx $rx tx $tx $cnt $c altmark_blocks $blocks
		altmark_refused $refused, want 1 0 1 0 0"
	log_test "$desc"
}

# Block TLV queries (Alternate-Marking, altmark any|peer): the reflector's
# source and loop checks come first, and a peer reflector answers a
# source that no session names with a refusal, never with counts.  Where
# the kernel has no Alternate-Marking, altmark any is refused and creates
# nothing.
test_altmark()
{
	local tx blocks refused noports b0 r0

	if ! ip netns exec "$a" test -d /proc/sys/net/ipv6/altmark; then
		check_reject "altmark any without CONFIG_IPV6_ALTMARK" \
			reflector add port 866 altmark any
		RET=0
		grep -qF "altmark needs CONFIG_IPV6_ALTMARK" <<< "$REFUSED"
		check_err $? "the error is not the kernel's: $REFUSED"
		log_test "without CONFIG_IPV6_ALTMARK, the refusal says why"
		return
	fi

	RET=0
	# the guard first: it must stay at most half the period
	ip netns exec "$a" sysctl -wq net.ipv6.altmark.guard_ms=500 &&
	ip netns exec "$a" sysctl -wq \
		net.ipv6.altmark.period_ms="$AM_PERIOD_MS" &&
	ip -n "$a" altmark monitor add flowmon "$AM_FLOWMON" history 32
	check_err $? "cannot make the monitor"
	slowwait 60 am_block > /dev/null
	check_err $? "the monitor closed no block"
	ip -n "$a" stamp reflector add port 866 altmark any
	check_err $? "cannot make the reflector"
	am_spoof "$ATK6" 40000
	check_err $? "could not send the frame"
	stat_wait "$a" 866 altmark_blocks 1
	check_err $? "a query from atk for a closed block was not answered with it"
	log_test "block query: atk's query for a closed block is answered with it"

	check_altmark_loop "block query: self-loop [A]:866 -> [A]:866 is refused" \
		"$A6" 866 drop_source
	check_altmark_loop "block query: ping-pong [B]:866 -> [A]:866 is refused" \
		"$B6" 866 drop_source
	check_altmark_loop "block query in a reflector's reply is not answered" \
		"$ATK6" 40000 drop_reflected --reply

	RET=0
	ip -n "$a" stamp reflector del port 866 &&
	ip -n "$a" stamp reflector add port 866 altmark peer &&
	ip -n "$a" stamp session add ssid 7 peer "$B6"
	check_err $? "cannot make the reflector and its session"
	am_spoof "$ATK6" 40000
	check_err $? "could not send the frame"
	# tx is counted last, once the reply is built and sent
	stat_wait "$a" 866 tx 1
	check_err $? "the test packet of a source no session names was not answered"
	read -r blocks refused <<< \
		"$(stats "$a" 866 altmark_blocks altmark_refused)"
	[ "$blocks" -eq 0 ] && [ "$refused" -eq 1 ]
	check_err $? "altmark_blocks $blocks altmark_refused $refused, want 0 1"
	log_test "altmark peer: a source no session names gets a refusal, no counts"

	# atk claims to be B: the answer goes to B (whose closed port counts
	# it), not to atk
	RET=0
	noports=$(udp6_noports "$b")
	read -r b0 r0 <<< "$(stats "$a" 866 altmark_blocks altmark_refused)"
	am_spoof "$B6" 40000
	check_err $? "could not send the frame"
	stat_wait "$a" 866 tx 2
	check_err $? "the spoofed peer's test packet was not answered"
	read -r blocks refused <<< \
		"$(stats "$a" 866 altmark_blocks altmark_refused)"
	[ "$blocks" -eq $((b0 + 1)) ] && [ "$refused" -eq "$r0" ]
	check_err $? "altmark_blocks $b0 -> $blocks, altmark_refused $r0 -> $refused; want +1, +0"
	slowwait 60 until_counter_is ">= $((noports + 1))" udp6_noports "$b" \
		> /dev/null
	check_err $? "B did not receive the answer to its spoofed address"
	log_test "altmark peer: the answer to a spoofed peer goes to the peer"
	ip -n "$a" stamp session del ssid 7 peer "$B6"
	ip -n "$a" stamp reflector del port 866
	ip -n "$a" altmark monitor del flowmon "$AM_FLOWMON"
}

# udp6_noports NS: UDPv6 datagrams NS received for a port nobody listens on
udp6_noports()
{
	ip netns exec "$1" awk '$1 == "Udp6NoPorts" { print $2 }' /proc/net/snmp6
}

# From a user namespace: far more sessions and reflectors than the limits.
test_limits()
{
	local smax rmax out base

	smax=$(cat "$PARAMS/sessions_max")
	rmax=$(cat "$PARAMS/reflectors_max")
	base=$(live)
	awk 'BEGIN { for (n = 0; n < 100000; n++)
		printf "stamp session add ssid %d peer fc00:%x::%x\n",
			n % 65536, int(n / 65536), n % 65536 }' \
		> "$tmp/sessions.batch"
	awk -v n="$rmax" 'BEGIN { for (i = 0; i < n + 10; i++)
		printf "stamp reflector add port %d\n", 10000 + i }' \
		> "$tmp/reflectors.batch"

	# At the limits, a replace may change what exists, not add.
	cat > "$tmp/replace.batch" <<-EOF
		stamp session replace ssid 0 peer fc00:: return-segs fc00:b::e
		stamp session replace ssid 1 peer fc00:ffff::1
		stamp reflector replace port 10000 mode stateful
		stamp reflector replace port 20000
	EOF

	RET=0
	out=$(unshare -Urn sh -c "ip -force -batch $tmp/sessions.batch 2>$tmp/err;
		ip -force -batch $tmp/reflectors.batch 2>>$tmp/err;
		ip -force -batch $tmp/replace.batch 2>$tmp/err2;
		ip -j stamp session show | jq length;
		ip -j stamp reflector show | jq length;
		ip -j stamp session show |
			jq -r '.[] | select(.ssid == 0) | .return_segs[0]';
		ip -j stamp reflector show |
			jq -r '.[] | select(.port == 10000) | .mode'")
	check_err $? "unshare: $out"
	[ "$(echo "$out" | sed -n 1p)" = "$smax" ]
	check_err $? "$(echo "$out" | sed -n 1p) sessions, limit $smax"
	[ "$(echo "$out" | sed -n 2p)" = "$rmax" ]
	check_err $? "$(echo "$out" | sed -n 2p) reflectors, limit $rmax"
	grep -q "too many sessions in this namespace (limit $smax)" "$tmp/err"
	check_err $? "no message for the session limit: $(head -n 2 "$tmp/err")"
	grep -q "too many reflectors in this namespace (limit $rmax)" "$tmp/err"
	check_err $? "no message for the reflector limit"
	log_test "user namespace: 100000 sessions, $((rmax + 10)) reflectors: $smax and $rmax taken"

	RET=0
	[ "$(echo "$out" | sed -n 3p)" = fc00:b::e ]
	check_err $? "replace of a session at the limit: return-segs $(echo "$out" | sed -n 3p)"
	[ "$(echo "$out" | sed -n 4p)" = stateful ]
	check_err $? "replace of a reflector at the limit: mode $(echo "$out" | sed -n 4p)"
	[ "$(grep -c "too many sessions in this namespace" "$tmp/err2")" = 1 ] &&
		[ "$(grep -c "too many reflectors in this namespace" "$tmp/err2")" = 1 ]
	check_err $? "replace of new objects at the limits: $(cat "$tmp/err2")"
	log_test "at the limits, replace changes existing objects and creates none"

	RET=0
	[ "$base" -ge 0 ]
	check_err $? "no $PARAMS/sessions"
	wait_live "$base"
	check_err $? "the user namespace is gone, $(($(live) - base)) of its sessions are not"
	log_test "the user namespace's $smax sessions are freed with it"
}

# live: the module's count of sessions in all namespaces
live()
{
	cat "$PARAMS/sessions" 2>/dev/null || echo -1
}

wait_live()
{
	local i

	for ((i = 0; i < 600; i++)); do
		[ "$(live)" -eq "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

test_netns_leak()
{
	local base ns=stamp-leak-$$

	RET=0
	base=$(live)
	[ "$base" -ge 0 ]
	check_err $? "no $PARAMS/sessions"
	# the count of all namespaces is root's only: an account of the
	# host (a container's root is one) cannot read it
	setpriv --reuid 65534 --regid 65534 --clear-groups \
		cat "$PARAMS/sessions" > /dev/null 2>&1
	check_fail $? "an unprivileged account can read $PARAMS/sessions"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add fc00:c::1/128 dev lo
	ip -n "$ns" stamp reflector add
	ip -n "$ns" stamp reflector add port 863 auth
	ip -n "$ns" stamp session add ssid 1 peer fc00:1::1 \
		return-segs fc00:2::e,fc00:3::e key "$KEY"
	ip -n "$ns" stamp session add ssid 2 peer 10.0.0.1 key "$KEY"
	ip -n "$ns" stamp session add ssid 3
	[ "$(live)" -eq $((base + 3)) ]
	check_err $? "$(live) sessions alive, want $((base + 3))"
	ip netns del "$ns"
	wait_live "$base"
	check_err $? "namespace deleted, $(($(live) - base)) sessions left behind"
	log_test "a deleted namespace frees its sessions (keys, return paths)"
}

# kworker_waits: the voluntary context switches of the unbound kernel
# workers.  cleanup_net() runs in one (netns_wq is unbound), and sleeps
# once in each grace period it waits for; the per-CPU workers, whose
# periodic work (vmstat, ...) grows with the time a run takes, are left
# out.
kworker_waits()
{
	awk '$1 == "Name:" { k = $2 ~ /^kworker\/u/ }
	     k && $1 == "voluntary_ctxt_switches:" { n += $2 }
	     END { print n + 0 }' /proc/[0-9]*/status 2>/dev/null
}

# ns_exit_waits N: how often the kernel workers slept while a user
# namespace's network namespace with N reflectors and one session was
# freed.  The namespace's last process waits on a FIFO until it is told to
# exit; its session's count says when the namespace is gone.
ns_exit_waits()
{
	local n=$1 base w0 pid

	base=$(live)
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++)
		printf "stamp reflector add port %d\n", 10000 + i
		print "stamp session add ssid 1" }' > "$tmp/exit.batch"
	rm -f "$tmp/exit.fifo"
	mkfifo "$tmp/exit.fifo"
	unshare -Urn sh -c "ip -batch $tmp/exit.batch && read x < $tmp/exit.fifo" &
	pid=$!
	slowwait 60 sh -c "[ \$(cat $PARAMS/sessions) -eq $((base + 1)) ]" ||
		return 1
	w0=$(kworker_waits)
	echo > "$tmp/exit.fifo"
	wait "$pid" || return 1
	wait_live "$base" || return 1
	echo $(($(kworker_waits) - w0))
}

# A namespace's reflectors are freed after one grace period, not one or
# two each: cleanup_net() runs for every namespace on the host, one at a
# time, and must not wait reflectors_max grace periods for each namespace
# that a user namespace makes and drops.
#
# Whatever else the workers do meanwhile only adds to a count, and a
# loaded host makes the windows longer: the least of three counts of each
# kind, taken in turns, is compared.  A grace period per reflector adds
# reflectors_max to every count with reflectors.
test_exit_grace()
{
	local n i w none=() full=() min_none min_full msg

	RET=0
	n=$(cat "$PARAMS/reflectors_max")
	if [ "$n" -lt 16 ]; then
		log_test_skip "namespace exit" "reflectors_max is $n, below 16"
		return
	fi
	for i in 1 2 3; do
		w=$(ns_exit_waits 0)
		check_err $? "a namespace without reflectors was not freed"
		none+=("$w")
		w=$(ns_exit_waits "$n")
		check_err $? "a namespace with $n reflectors was not freed"
		full+=("$w")
		[ "$RET" -eq 0 ] || break
	done
	if [ "$RET" -eq 0 ]; then
		min_none=$(printf '%s\n' "${none[@]}" | sort -n | head -n 1)
		min_full=$(printf '%s\n' "${full[@]}" | sort -n | head -n 1)
		msg="$n reflectors cost $((min_full - min_none)) more waits"
		msg+=" (counts: none ${none[*]}, $n reflectors ${full[*]})"
		[ $((min_full - min_none)) -lt $((n / 2)) ]
		check_err $? "$msg"
	fi
	log_test "a namespace with $n reflectors is freed after one grace period"
}

srv6_require ip jq python3 unshare setpriv

tmp=$(mktemp -d)
setup
pyserve_start "$atk" "$tmp/serve" ./stamp_test.py || exit "$ksft_fail"
if ! ip -n "$a" stamp reflector add; then
	echo "SKIP: kernel or ip without STAMP (CONFIG_NET_STAMP)"
	exit "$ksft_skip"
fi
ip -n "$b" stamp reflector add

# STAMP_ABUSE_TESTS: the tests to run, all by default
for t in ${STAMP_ABUSE_TESTS:-honest_sender loops modes pingpong_ports \
	sport_min tlvs altmark amplification fragments local_route xfrm \
	limits netns_leak exit_grace honest_sender}; do
	"test_$t"
done

exit "$EXIT_STATUS"

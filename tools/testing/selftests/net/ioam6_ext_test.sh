#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IOAM6 beyond the single pre-allocated trace: several options per route,
# the Edge-to-Edge option and its counters, the Direct Export option and its
# events, the transit delay and buffer occupancy data fields, removal at the
# domain egress, and what a node does with malformed options.
#
#  +-------+  2001:db8:1::/64  +-------+  2001:db8:2::/64  +-------+
#  | alpha |-------------------| beta  |-------------------| gamma |
#  +-------+ veth0       veth0 +-------+ veth1       veth0 +-------+
#   id 1      encap node        id 2      transit          id 3  decap node
#                                                          2001:db8:ff::2 (lo)
#
# alpha's route to 2001:db8:ff::/64 inserts the IOAM options, in each of
# the inline, encap and auto modes; ioam6_ext.py captures on gamma's veth0
# and decodes every option byte by byte. Impairments (netem, tbf) sit on
# beta's veth1, towards gamma.

source lib.sh
source srv6_oam_lib.sh

readonly A=2001:db8:1::1
readonly B1=2001:db8:1::2
readonly B2=2001:db8:2::1
readonly G=2001:db8:2::2
readonly GLO=2001:db8:ff::2
readonly TUNSRC=2001:db8:1::99	# encap mode's outer source: no node has it
readonly TRACE_TYPE=0x881000	# bits 0 (node id), 4 (transit delay), 11
readonly TRACE2_TYPE=0xc00000	# bits 0, 1 (interface ids)

cleanup()
{
	[ -n "$bg$mon" ] && kill $bg $mon 2>/dev/null
	pyserve_stop
	cleanup_all_ns
	rm -rf "$tmp"
}

trap cleanup EXIT

# One ioam6_ext.py per namespace serves every helper call there (a Python
# start-up is seconds in a TCG guest, and the test makes some eighty calls):
# srv6_oam_lib.sh's pyserve_start and pyserve_call.
start_servers()
{
	local ns

	for ns in "$alpha" "$beta" "$gamma"; do
		pyserve_start "$ns" "$tmp/serve.$ns" ./ioam6_ext.py ||
			exit "$ksft_fail"
	done
}

# helper NS ARGS...: ioam6_ext.py ARGS in NS, as if run there (its output,
# its exit status; at most 300 s), by NS's server
helper()
{
	local ns=$1

	shift
	pyserve_call "$tmp/serve.$ns" 300 "$@"
}

# capture on gamma's veth0 into $tmp/$1.json while "$2..." runs on alpha
capture()
{
	local name=$1 count=()

	shift
	# "send DST N ...": the capture ends with the Nth packet
	[ "$1" = send ] && count=(--count "$3")
	rm -f "$tmp/ready" "$tmp/stop"
	helper "$gamma" capture veth0 "$tmp/$name.json" --timeout 280 \
		"${count[@]}" --ready "$tmp/ready" --stop "$tmp/stop" &
	bg=$!
	while [ ! -e "$tmp/ready" ]; do sleep 0.1; done
	helper "$alpha" "$@"
	# or once the sender is done and veth0 has been quiet for 2 s,
	# however long the sender took (within the helper's 300 s)
	touch "$tmp/stop"
	wait "$bg"
	bg=
}

e2e()
{
	ip -n "$gamma" -j ioam e2e show ns 123 src "$1" | jq -c ".[0] // {}"
}

e2e_rx()
{
	e2e "$A" | jq '.rx // 0'
}

# listens NS: a socket of NS has joined IOAM6's event group ($evgrp), as
# ip ioam monitor does before it reports anything (/proc/net/netlink shows
# a socket's first 32 groups; the main part checks that it is one of them)
listens()
{
	local eth groups

	while read -r _ eth _ groups _; do
		[ "$eth" = 16 ] && ((0x$groups & 1 << (evgrp - 1))) && return 0
	done < <(ip netns exec "$1" cat /proc/net/netlink)
	return 1
}

# udp_in NS: the UDP datagrams NS has taken in, to a socket or not; once
# it moves, the IPv6 extension headers of that datagram have been processed
udp_in()
{
	ip netns exec "$1" awk '$1 ~ /^Udp6(InDatagrams|NoPorts|InErrors)$/ {
		n += $2 } END { print n }' /proc/net/snmp6
}

setup()
{
	local ns

	# the links come after it: without DAD from the start
	srv6_setup_ns -f alpha beta gamma
	for ns in "$alpha" "$beta" "$gamma"; do
		ip -n "$ns" ioam namespace add 123
		ip -n "$ns" ioam namespace add 124
	done
	ip link add veth0 netns "$alpha" type veth peer name veth0 \
		netns "$beta"
	# four TX queues on beta's veth1: buffer occupancy counts each
	# queue's qdisc, whether or not they are one root
	ip link add veth1 netns "$beta" numtxqueues 4 type veth \
		peer name veth0 netns "$gamma"
	ip netns exec "$alpha" sysctl -wq net.ipv6.ioam6_id=1
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_id=2
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_id=3
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth0.ioam6_enabled=1
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth0.ioam6_id=21
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_id=22
	ip netns exec "$gamma" sysctl -wq net.ipv6.conf.veth0.ioam6_enabled=1

	ip -n "$alpha" addr add "$A"/64 dev veth0
	ip -n "$beta" addr add "$B1"/64 dev veth0
	ip -n "$beta" addr add "$B2"/64 dev veth1
	ip -n "$gamma" addr add "$G"/64 dev veth0
	ip -n "$gamma" addr add "$GLO"/128 dev lo
	for ns in "$alpha" "$beta" "$gamma"; do
		ip -n "$ns" link set dev veth0 up
	done
	ip -n "$beta" link set dev veth1 up
	# gamma decapsulates the encap mode's IPv6-in-IPv6
	ip -n "$gamma" link set ip6tnl0 up

	ip -n "$alpha" -6 route add 2001:db8:2::/64 via "$B1"
	ip -n "$beta" -6 route add 2001:db8:ff::/64 via "$G"
	ip -n "$gamma" -6 route add 2001:db8:1::/64 via "$B2"
	ip -n "$alpha" -6 route add 2001:db8:ff::/64 via "$B1" dev veth0
	# the path is up once alpha reaches gamma, however long that takes
	slowwait 60 ip netns exec "$alpha" ping -6 -q -c 1 -W 1 "$G" \
		> /dev/null
}

# $1 mode; the rest of the encap
set_route()
{
	local mode=$1 extra=

	shift
	[ "$mode" != inline ] && extra="tundst $G"
	ip -n "$alpha" -6 route replace 2001:db8:ff::/64 via "$B1" dev veth0 \
		encap ioam6 mode "$mode" $extra "$@"
}

# --- several options, every mode -------------------------------------------------
test_options()
{
	local mode=$1 out src

	RET=0
	src=$A
	set_route "$mode" trace prealloc type "$TRACE_TYPE" ns 123 size 36 \
		trace prealloc type "$TRACE2_TYPE" ns 124 size 16 \
		e2e ns 123 seq64 timestamp
	check_err $? "route with three options refused"
	ip -n "$gamma" ioam e2e reset
	capture "opts-$1" send "$GLO" 5
	# auto inserts inline into the packets this node sends
	[ "$mode" = auto ] && mode=inline
	out=$(jq -r --arg mode "$mode" --arg src "$src" '
	  def fail(m): "FAIL " + m;
	  if length != 5 then fail("captured \(length) of 5 packets") else
	  [ .[] | . as $p
	    | (if $mode == "inline" then . else .inner end) as $in
	    | (if $mode == "inline" then ["hbh","doh","udp"]
	       else ["hbh","doh","ipv6"] end) as $chain
	    | [ (if .chain != $chain then fail("chain \(.chain)") else empty end),
	        (if .src != $src then fail("outer src \(.src)") else empty end),
	        (if $mode != "inline" and $in.dst != "2001:db8:ff::2"
	         then fail("inner dst") else empty end),
	        ([.hbh[] | select(.kind == "trace")]) as $t
	        | (if ($t | length) != 2 then fail("\($t | length) traces")
	           elif $t[0].ns != 123 or $t[1].ns != 124
	           then fail("trace namespaces") else empty end),
	        (.hbh[] | select(.kind == "trace" or .kind == "e2e")
	         | if .offset % 4 != 0 then fail("option at \(.offset)")
	           else empty end),
	        (.doh[] | select(.kind == "e2e" or .kind == "trace")
	         | if .offset % 4 != 0 then fail("e2e at \(.offset)")
	           else empty end),
	        ($t[0].nodes | length) as $n
	        | (if $n != 2 then fail("ns 123 trace: \($n) nodes") else empty
	           end),
	        (if ($t[1].nodes | length) != 2 then fail("ns 124 trace")
	         else empty end),
	        # node entries: the last filler first: beta then alpha
	        (if ($t[0].nodes[0][2:8]) != "000002" or
	            ($t[0].nodes[1][2:8]) != "000001"
	         then fail("node ids \($t[0].nodes)") else empty end),
	        # ns 124: beta in veth0 (21) out veth1 (22)
	        (if $t[1].nodes[0][8:16] != "00150016"
	         then fail("beta if ids \($t[1].nodes[0])") else empty end),
	        ([.doh[] | select(.kind == "e2e")]) as $e
	        | (if ($e | length) != 1 then fail("e2e options: \($e | length)")
	           elif $e[0].ns != 123 or $e[0].type != 45056
	           then fail("e2e ns/type \($e[0])") else empty end)
	      ] | .[]
	  ] as $errs
	  | if ($errs | length) > 0 then $errs[0]
	    else
	      ([.[] | .doh[] | select(.kind == "e2e") | .seq]) as $s
	      | if ($s | . != [range($s[0]; $s[0] + 5)])
		then fail("e2e seq \($s)")
		elif ([.[] | .t as $t | .doh[] | select(.kind == "e2e")
		       | ($t - .ts_sec - .ts_usec / 1e6) | fabs > 5] | any)
		then fail("e2e timestamps far from now")
		else "ok" end
	    end
	  end' "$tmp/opts-$1.json")
	[ "$out" = ok ]
	check_err $? "$out"
	mode=$1

	# gamma counted the five, from alpha, nothing lost
	out=$(e2e "$src")
	[ "$(echo "$out" | jq -r '"\(.rx) \(.lost) \(.reordered) \(.duplicated)"')" = "5 0 0 0" ]
	check_err $? "gamma's counters: $out"
	[ "$(echo "$out" | jq '.delay_count')" = 5 ]
	check_err $? "gamma's delay samples: $out"
	log_test "$mode: 2 traces (ns 123, 124) + E2E inserted, filled, counted"
}

# --- tunsrc: the outer source of the encap mode -----------------------------------
test_tunsrc()
{
	local out

	RET=0
	ip -n "$alpha" -6 route replace 2001:db8:ff::/64 via "$B1" dev veth0 \
		encap ioam6 mode encap tunsrc "$TUNSRC" tundst "$G" \
		trace prealloc type 0x800000 ns 123 size 12
	check_err $? "route with tunsrc refused"
	out=$(route_state)
	grep -qF "mode encap tunsrc $TUNSRC tundst $G " <<< "$out"
	check_err $? "tunsrc not shown: $out"
	out=$(ip -n "$alpha" -j -6 route show 2001:db8:ff::/64 |
	      jq -r '.[0].tunsrc')
	[ "$out" = "$TUNSRC" ]
	check_err $? "JSON \"tunsrc\": $out"
	log_test "encap tunsrc: shown back in text and JSON"

	RET=0
	capture tunsrc send "$GLO" 3
	out=$(jq -r --arg src "$TUNSRC" --arg a "$A" '
	  if length != 3 then "captured \(length) of 3 packets"
	  else [ .[] | select(.src != $src or .dst != "2001:db8:2::2"
			      or .chain != ["hbh", "ipv6"]
			      or .inner.src != $a)
		 | "outer \(.src) -> \(.dst), \(.chain), inner from \(.inner.src)" ]
	       | first // "ok"
	  end' "$tmp/tunsrc.json")
	[ "$out" = ok ]
	check_err $? "$out"
	log_test "encap tunsrc: the packets leave with outer source $TUNSRC"
}

# --- transit delay and buffer occupancy -------------------------------------------
# prints "alpha_delay beta_delay alpha_buf beta_buf" of the first packet
fields()
{
	jq -r '.[0].hbh[] | select(.kind == "trace" and .ns == 123)
	  | .nodes as $n
	  | [($n[1][8:16] | ascii_downcase), ($n[0][8:16]),
	     ($n[1][16:24]), ($n[0][16:24])] | join(" ")' "$1"
}

# occupancy_behind NAME: beta's buffer occupancy (hex) in a probe sent
# behind 50 packets of 1000 octets that beta's veth1 queues
occupancy_behind()
{
	local ad bd ab bb

	rm -f "$tmp/ready"
	helper "$gamma" capture veth0 "$tmp/$1.json" --timeout 280 --count 1 \
		--ready "$tmp/ready" &
	bg=$!
	while [ ! -e "$tmp/ready" ]; do sleep 0.1; done
	helper "$alpha" send "$G" 50 --size 1000 --port 5556
	helper "$alpha" send "$GLO" 1
	wait "$bg"
	bg=
	read -r ad bd ab bb <<< "$(fields "$tmp/$1.json")"
	echo "$bb"
}

test_data_fields()
{
	local f ad bd ab bb

	set_route encap trace prealloc type "$TRACE_TYPE" ns 123 size 36

	RET=0
	capture td0 send "$GLO" 1
	read -r ad bd ab bb <<< "$(fields "$tmp/td0.json")"
	[ "$bd" = ffffffff ]
	check_err $? "beta filled a transit delay ($bd) with no receive timestamp"
	log_test "transit delay unavailable without net.ipv6.ioam6_transit_delay"

	RET=0
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_transit_delay=1
	capture td1 send "$GLO" 3 --gap 0.2
	for f in $(jq -r '.[] | .hbh[] | select(.kind == "trace" and .ns == 123)
		       | .nodes[0][8:16]' "$tmp/td1.json"); do
		# nanoseconds, overflow bit clear, below one second
		((0x$f > 0 && 0x$f < 1000000000))
		check_err $? "beta's transit delay 0x$f"
	done
	read -r ad bd ab bb <<< "$(fields "$tmp/td1.json")"
	[ "$ad" = ffffffff ]
	check_err $? "alpha (packet sent locally) filled a transit delay: $ad"
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_transit_delay=0
	log_test "transit delay filled by the transit node, nanoseconds, bounded"

	RET=0
	[ "$bb" = ffffffff ] && [ "$ab" = ffffffff ]
	check_err $? "buffer occupancy without the sysctl: alpha $ab beta $bb"
	log_test "buffer occupancy unavailable without net.ipv6.ioam6_buffer_occupancy"

	RET=0
	ip netns exec "$alpha" sysctl -wq net.ipv6.ioam6_buffer_occupancy=1
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_buffer_occupancy=1
	capture td3 send "$GLO" 1
	read -r ad bd ab bb <<< "$(fields "$tmp/td3.json")"
	[ "$bb" = 00000000 ] && [ "$ab" = 00000000 ]
	check_err $? "buffer occupancy with empty queues: alpha $ab beta $bb"
	# a slow qdisc on beta towards gamma, filled by plain traffic first:
	# 50 KB at 20 kbit/s drain in 20 s, so that the probe, sent by a
	# second helper however long that one takes to start, still finds
	# them queued (it waits behind them: up to 20 s).  Every TX queue of
	# veth1 points at a classic root: its backlog is counted once, so
	# the figure is at most the 50 frames of 1062 octets (and stray
	# packets).  Then under mq, a tbf on each queue: their sum.
	tc -n "$beta" qdisc add dev veth1 root tbf rate 20kbit burst 1600 \
		limit 1000000
	bb=$(occupancy_behind td2)
	((0x$bb > 1000 && 0x$bb <= 60000))
	check_err $? "beta's buffer occupancy 0x$bb behind a full tbf (root)"
	tc -n "$beta" qdisc del dev veth1 root
	check_err $? "cannot remove the tbf from beta's veth1"
	tc -n "$beta" qdisc add dev veth1 root handle 1: mq
	for f in 1 2 3 4; do
		tc -n "$beta" qdisc add dev veth1 parent "1:$f" tbf \
			rate 20kbit burst 1600 limit 1000000
	done
	bb=$(occupancy_behind td4)
	((0x$bb > 1000 && 0x$bb <= 60000))
	check_err $? "beta's buffer occupancy 0x$bb behind full tbfs under mq"
	tc -n "$beta" qdisc del dev veth1 root
	check_err $? "cannot remove the mq from beta's veth1"
	log_test "buffer occupancy: 0 when idle, the queued bytes behind tbf"
}

# --- E2E counters under netem -----------------------------------------------------
# the qdisc on beta's veth1 holds no packet
drained()
{
	[ "$(tc -n "$beta" -s -j qdisc show dev veth1 | jq '.[0].qlen')" = 0 ]
}

# $1 name, $2 netem arguments, $3 packets
e2e_phase()
{
	local name=$1 netem=$2 n=$3 want got

	RET=0
	ip -n "$gamma" ioam e2e reset
	# shellcheck disable=SC2086
	tc -n "$beta" qdisc replace dev veth1 root netem $netem
	check_err $? "cannot put netem $netem on beta's veth1"
	rm -f "$tmp/ready" "$tmp/stop"
	helper "$gamma" capture veth0 "$tmp/$name.json" --timeout 280 \
		--ready "$tmp/ready" --stop "$tmp/stop" &
	bg=$!
	while [ ! -e "$tmp/ready" ]; do sleep 0.1; done
	helper "$alpha" send "$GLO" "$n" --gap 0.005
	# netem has sent what it delayed; a few clean packets close the
	# phase, so that every loss is seen
	slowwait 60 drained
	check_err $? "netem still holds packets"
	# what the qdisc did, for the checks of test_e2e
	tc -n "$beta" -s -j qdisc show dev veth1 |
		jq -c '.[0] | {kind, packets, drops}' > "$tmp/$name.qdisc"
	tc -n "$beta" qdisc del dev veth1 root
	helper "$alpha" send "$GLO" 3 --gap 0.05
	touch "$tmp/stop"
	wait "$bg"
	bg=
	want=$(helper "$gamma" oracle "$tmp/$name.json")
	got=$(e2e "$A" | jq -c '{rx, lost, reordered, duplicated, seq}')
	[ "$(echo "$want" | jq -S .)" = "$(echo "$got" | jq -S .)" ]
	check_err $? "kernel $got, capture says $want"
	echo "$got" > "$tmp/$name.counters"
	log_test "E2E counters with netem $netem: $got"
}

test_e2e()
{
	local got min max

	set_route encap trace prealloc type 0x800000 ns 123 size 12 \
		e2e ns 123 seq64 timestamp

	e2e_phase loss "loss 30%" 100
	[ "$(jq .lost "$tmp/loss.counters")" -gt 0 ]
	check_err $? "no loss counted; beta's qdisc: $(cat "$tmp/loss.qdisc")"
	log_test "E2E: netem loss was seen"

	e2e_phase dup "duplicate 40%" 60
	[ "$(jq .duplicated "$tmp/dup.counters")" -gt 0 ]
	check_err $? "no duplicate counted; beta's qdisc: $(cat "$tmp/dup.qdisc")"
	log_test "E2E: netem duplicates were seen"

	e2e_phase reorder "delay 20ms reorder 50% 50%" 60
	[ "$(jq .reordered "$tmp/reorder.counters")" -gt 0 ]
	check_err $? "no reordering counted; beta's qdisc: $(cat "$tmp/reorder.qdisc")"
	log_test "E2E: netem reordering was seen"

	# delay: 30 ms of netem, one clock; plausible means 30 ms .. 2 s
	RET=0
	ip -n "$gamma" ioam e2e reset
	tc -n "$beta" qdisc replace dev veth1 root netem delay 30ms
	check_err $? "cannot put netem delay 30ms on beta's veth1"
	helper "$alpha" send "$GLO" 10 --gap 0.02
	slowwait 60 until_counter_is ">= 10" e2e_rx > /dev/null
	check_err $? "gamma counted $(e2e_rx) of the 10 packets"
	tc -n "$beta" qdisc del dev veth1 root
	got=$(e2e "$A")
	min=$(echo "$got" | jq '.delay_min // 0')
	max=$(echo "$got" | jq '.delay_max // 0')
	((min >= 30000000 && max < 2000000000 && min <= max))
	check_err $? "delay min $min max $max ns"
	log_test "E2E one-way delay behind 30 ms of netem: min $min ns, max $max ns"

	# 32-bit sequence numbers, no timestamp
	RET=0
	set_route inline e2e ns 123 seq32
	ip -n "$gamma" ioam e2e reset
	capture seq32 send "$GLO" 4
	got=$(jq -c '[.[] | .chain, (.doh[] | select(.kind == "e2e")
		      | [.type, .data_len])] | unique' "$tmp/seq32.json")
	[ "$got" = '[[16384,4],["doh","udp"]]' ]
	check_err $? "E2E-only inline packets: $got"
	got=$(e2e "$A")
	[ "$(echo "$got" | jq -c '[.rx, .lost, .delay_count]')" = "[4,0,0]" ]
	check_err $? "seq32 counters $got"
	log_test "E2E alone, 32-bit sequence numbers, inline: no HBH, counted"

	# reset with a filter only touches what it names
	RET=0
	ip -n "$gamma" ioam e2e reset ns 124
	[ "$(e2e "$A" | jq .rx)" = 4 ]
	check_err $? "reset ns 124 cleared ns 123"
	ip -n "$gamma" ioam e2e reset ns 123 src "$A"
	[ "$(e2e "$A")" = "{}" ]
	check_err $? "reset ns 123 src $A left the counters"
	log_test "E2E counters reset, with filters"
}

# --- events -----------------------------------------------------------------------
test_monitor()
{
	local n

	RET=0
	set_route encap trace prealloc type 0x800000 ns 123 size 12 \
		e2e ns 123 seq64 timestamp
	ip netns exec "$gamma" timeout 300 ip -j ioam monitor \
		> "$tmp/monitor.json" 2>"$tmp/monitor.err" &
	bg=$!
	slowwait 60 listens "$gamma"
	check_err $? "the monitor did not subscribe"
	helper "$alpha" send "$GLO" 3 --gap 0.1
	# two events per packet; then stop listening, however slow the guest
	slowwait 120 until_counter_is ">= 6" events "$tmp/monitor.json" > /dev/null
	kill "$bg"
	wait "$bg" 2> /dev/null
	bg=
	n=$(jq -s '[.[] | select(.event == "e2e")] | length' "$tmp/monitor.json")
	[ "$n" = 3 ]
	check_err $? "$n E2E events of 3: $(head -c 300 "$tmp/monitor.json" "$tmp/monitor.err")"
	n=$(jq -s '[.[] | select(.event == "trace")] | length' "$tmp/monitor.json")
	[ "$n" = 3 ]
	check_err $? "$n trace events of 3"
	log_test "ip ioam monitor: an E2E and a trace event per packet"
}

# A packet socket on beta's veth0 that reads nothing holds a clone of every
# packet beta receives, so beta's copy is cloned: to fill its node data, the
# transit node must give the packet a head of its own, and both the packet
# it forwards and the trace event it sends must have the data.  A node that
# kept its pointers into the old head would fill the clone's copy and
# forward the packet without its data (upstream's 6.12 code refreshes them;
# KASAN on the debug kernel sees a write into a freed head otherwise).
# one packet from alpha; succeeds once beta's monitor reported an event
cloned_warm_up()
{
	helper "$alpha" send "$GLO" 1 > /dev/null
	[ "$(events "$tmp/cloned-beta.json" trace)" -ge 1 ]
}

test_cloned()
{
	local out n0

	RET=0
	set_route inline trace prealloc type 0x800000 ns 123 size 12
	rm -f "$tmp/hold"
	# not by helper(): $! must be the process that ends up as the
	# helper, so that kill stops it (a function's subshell would die and
	# leave it running, holding the test's output open until its timeout)
	ip netns exec "$beta" timeout 300 python3 ./ioam6_ext.py hold veth0 \
		"$tmp/hold" > /dev/null 2>&1 &
	mon=$!
	slowwait 60 test -e "$tmp/hold"
	check_err $? "no packet socket on beta's veth0"
	ip netns exec "$beta" timeout 300 ip -j ioam monitor \
		> "$tmp/cloned-beta.json" 2> "$tmp/cloned-beta.err" &
	mon="$mon $!"
	# the monitor listens once it reports an event: a packet at a time
	# until it does, however long it takes to subscribe
	slowwait 120 cloned_warm_up
	check_err $? "beta's monitor reported no event"
	n0=$(events "$tmp/cloned-beta.json" trace)
	capture cloned send "$GLO" 3
	slowwait 60 until_counter_is ">= $((n0 + 3))" \
		events "$tmp/cloned-beta.json" trace > /dev/null
	# shellcheck disable=SC2086
	kill $mon
	# shellcheck disable=SC2086
	wait $mon 2> /dev/null
	mon=

	# at gamma: beta's entry (node id 2), then alpha's (1)
	out=$(jq -c '[.[] | .hbh[] | select(.kind == "trace")
		      | [.nodes[] | .[2:8]]]' "$tmp/cloned.json")
	[ "$out" = '[["000002","000001"],["000002","000001"],["000002","000001"]]' ]
	check_err $? "the node ids of the traces gamma received: $out"
	# the last three: a warm-up packet's event may come after n0 was read
	out=$(jq -s -c '[.[] | select(.event == "trace")
			 | [.data[2:8], .data[10:16]]] | .[-3:]' \
		"$tmp/cloned-beta.json")
	[ "$out" = '[["000002","000001"],["000002","000001"],["000002","000001"]]' ]
	check_err $? "the node ids of beta's trace events: $out"
	log_test "a transit node fills and reports a trace in a cloned packet"
}

# E2E events of $1 crafted packets from alpha, counted by a monitor on gamma;
# prints "events seconds markers", the seconds the packets took to send.  Then a
# packet with a trace, whose event (not rate limited) is the marker: once
# it is out, so are the E2E events of the packets before it.
e2e_events()
{
	local n=$1 t0 t1

	ip netns exec "$gamma" timeout 300 ip -j ioam monitor \
		> "$tmp/e2erate.json" 2>"$tmp/e2erate.err" &
	mon=$!
	slowwait 60 listens "$gamma"
	t0=$(date +%s)
	helper "$alpha" send "$G" "$n" --craft e2e-ok
	t1=$(date +%s)
	set_route encap trace prealloc type 0x800000 ns 123 size 12
	helper "$alpha" send "$GLO" 1
	slowwait 60 until_counter_is ">= 1" events "$tmp/e2erate.json" trace \
		> /dev/null
	kill "$mon"
	wait "$mon" 2>/dev/null
	mon=
	echo "$(events "$tmp/e2erate.json" e2e) $((t1 - t0))" \
		"$(events "$tmp/e2erate.json" trace)"
}

test_e2e_event_rate()
{
	local n secs marks max

	RET=0
	ip -n "$gamma" ioam e2e reset
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_event_rate=5
	check_err $? "no net.ipv6.ioam6_e2e_event_rate"
	read -r n secs marks <<< "$(e2e_events 100)"
	[ "$marks" = 1 ]
	check_err $? "rate 5: $marks marker events of 1"
	# the burst spans at most secs + 2 of the limiter's one-second windows
	max=$((5 * (secs + 2)))
	[ "$n" -ge 5 ] && [ "$n" -le "$max" ]
	check_err $? "rate 5: $n E2E events for 100 packets sent in ${secs}s (at most $max)"
	# the counters still count every packet
	[ "$(e2e "$A" | jq .rx)" = 100 ]
	check_err $? "counters behind the rate limit: $(e2e "$A")"

	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_event_rate=0
	read -r n secs marks <<< "$(e2e_events 10)"
	[ "$n" = 0 ] && [ "$marks" = 1 ]
	check_err $? "rate 0: $n E2E events, $marks marker events of 1"
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_event_rate=1000
	ip -n "$gamma" ioam e2e reset
	log_test "E2E events limited by net.ipv6.ioam6_e2e_event_rate"
}

# --- E2E flows from spoofed sources -----------------------------------------------------
# number of E2E flows gamma keeps
e2e_flows()
{
	ip -n "$gamma" -j ioam e2e show | jq length
}

# alpha_counted SECONDS: alpha sends E2E options to gamma, one a second,
# until gamma counts its flow (0) or SECONDS have gone by (1)
alpha_counted()
{
	local deadline=$((SECONDS + $1))

	until helper "$alpha" send "$G" 1 --craft e2e-ok
	      [ "$(e2e "$A" | jq '.rx // 0')" != 0 ]; do
		[ $SECONDS -lt $deadline ] || return 1
		sleep 1
	done
}

test_e2e_spoofed()
{
	local deadline n u0

	RET=0
	ip -n "$gamma" ioam e2e reset
	# no flow ages while the table fills up
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_flow_timeout=3600
	check_err $? "no net.ipv6.ioam6_e2e_flow_timeout"
	u0=$(udp_in "$gamma")
	helper "$alpha" spoof 2001:db8:99:: "$G" 4200
	check_err $? "cannot send from spoofed sources"
	# once gamma's UDP has a datagram, its options have been processed
	slowwait 120 until_counter_is ">= $((u0 + 4200))" udp_in "$gamma" \
		> /dev/null
	check_err $? "gamma took in $(($(udp_in "$gamma") - u0)) of 4200 spoofed datagrams"
	# the table holds at most 4096 (how many fewer depends on how long
	# the datagrams took: once the table is full, a sweep within a
	# second takes the flows idle for a second, all of them on a slow
	# guest)
	n=$(e2e_flows)
	[ "$n" -le 4096 ]
	check_err $? "spoofed sources made $n flows, at most 4096 expected"
	# a full table makes room from the idle flows within a second or
	# so, not after the flow timeout (3600 s): alpha's flow gets in
	alpha_counted 60
	check_err $? "alpha's flow not counted beside $(e2e_flows) spoofed flows"

	# with a short timeout the spoofed flows age out; then, with the
	# default timeout again (a flow with a packet every few seconds of a
	# slow guest must not age too), alpha's flow is counted
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_flow_timeout=2
	deadline=$((SECONDS + 60))
	while n=$(e2e_flows); [ "$n" != 0 ] && [ $SECONDS -lt $deadline ]; do
		sleep 1
	done
	[ "$n" = 0 ]
	check_err $? "$n spoofed flows left"
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_e2e_flow_timeout=300
	alpha_counted 30
	check_err $? "alpha's flow not counted, $(e2e_flows) flows"
	ip -n "$gamma" ioam e2e reset
	log_test "E2E flows of 4200 spoofed sources age out, a real flow is counted"
}

# A forged E2E option in alpha's flow, from alpha's address: a sequence
# number 2^40 ahead and a timestamp of 0 (decades ago).  Neither is taken:
# no billions of losses, no later packet counted late, no delay of decades
# in the flow's figures.
test_e2e_forged()
{
	local u0 got max

	RET=0
	set_route inline e2e ns 123 seq64 timestamp
	ip -n "$gamma" ioam e2e reset
	helper "$alpha" send "$GLO" 5
	slowwait 60 until_counter_is ">= 5" e2e_rx > /dev/null
	check_err $? "gamma counted $(e2e_rx) of alpha's 5 packets"
	u0=$(udp_in "$gamma")
	helper "$alpha" send "$G" 1 --craft e2e-forged
	slowwait 60 until_counter_is ">= $((u0 + 1))" udp_in "$gamma" > /dev/null
	check_err $? "gamma's UDP did not receive the forged packet"
	helper "$alpha" send "$GLO" 5
	slowwait 60 until_counter_is ">= 11" e2e_rx > /dev/null
	check_err $? "gamma counted $(e2e_rx) of alpha's 11 packets"
	got=$(e2e "$A" | jq -c '[.rx, .lost, .reordered, .duplicated, .delay_count]')
	[ "$got" = "[11,0,0,0,10]" ]
	check_err $? "rx, lost, reordered, duplicated, delays: $got, want [11,0,0,0,10]"
	max=$(e2e "$A" | jq '.delay_max // 0')
	((max < 2000000000))
	check_err $? "a delay of $max ns in the flow's figures"
	ip -n "$gamma" ioam e2e reset
	log_test "E2E: a forged sequence number and timestamp are not counted"
}

# --- Direct Export --------------------------------------------------------------------
# ip ioam monitor -j on each node, into $tmp/$1-<node>.json, until
# monitors_stop (the timeout, the helpers' 300 s, only bounds a test that
# never gets there); returns once each of them listens
monitors_start()
{
	local name=$1 node

	mon=
	for node in alpha beta gamma; do
		ip netns exec "${!node}" timeout 300 ip -j ioam monitor \
			> "$tmp/$name-$node.json" 2>"$tmp/$name-$node.err" &
		mon="$mon $!"
	done
	for node in alpha beta gamma; do
		slowwait 60 listens "${!node}"
		check_err $? "$node's monitor did not subscribe: $(head -c 200 \
			"$tmp/$name-$node.err")"
	done
}

# monitors_wait NAME KIND N: wait until every node's monitor has at least N
# events of KIND (60 s), so that monitors_stop cuts none of them off on a
# slow guest; a check that expects fewer waits for nothing
monitors_wait()
{
	local node

	for node in alpha beta gamma; do
		slowwait 60 until_counter_is ">= $3" \
			events "$tmp/$1-$node.json" "$2" > /dev/null
	done
}

# events FILE [KIND]: how many events monitor output FILE holds (of KIND)
events()
{
	local n

	n=$(jq -s --arg k "${2-}" \
		'[.[] | select($k == "" or .event == $k)] | length' \
		"$1" 2> /dev/null)
	echo "${n:-0}"
}

# stop listening: each test has waited for the events it checks, and for
# a later marker event where it checks that an event did not come
monitors_stop()
{
	# shellcheck disable=SC2086
	kill $mon
	# shellcheck disable=SC2086
	wait $mon 2>/dev/null
	mon=
}

# $1 monitor file: the DEX events as [ns, flowid, seq, node id, if ids]
dex_events()
{
	jq -s -c '[.[] | select(.event == "dex")
		   | [.ns, .flowid, .seq, .data[2:8], .data[8:16]]]' "$1"
}

test_dex()
{
	local mode=$1 out want node id n

	RET=0
	# bits 0 (node id), 1 (interface ids); a flow ID; sequence numbers
	set_route "$mode" trace prealloc type 0x800000 ns 124 size 12 \
		dex ns 123 type 0xc00000 flowid 42 seq
	check_err $? "route with a DEX option refused"
	monitors_start "dex-$mode"
	capture "dex-$mode" send "$GLO" 3
	monitors_wait "dex-$mode" dex 3
	monitors_stop

	# on the wire: one DEX option in the Hop-by-Hop header, after the
	# trace, 4n-aligned, stamped 0, 1, 2; no node wrote into it
	out=$(jq -c '[.[] | .hbh[] | select(.kind == "dex")
		      | [.offset % 4, .ns, .flags, .ext_flags, .type,
			 .reserved, .data_len, .flowid, .seq]]' \
		"$tmp/dex-$mode.json")
	want=$(for n in 0 1 2; do
		echo "[0,123,0,192,$((0xc00000)),0,8,42,$n]"
	done | jq -s -c .)
	[ "$out" = "$want" ]
	check_err $? "DEX options on the wire: $out"

	# each node exported its own data for each packet: node id, and for
	# beta, the transit node, in veth0 (21) out veth1 (22)
	for node in alpha beta gamma; do
		case $node in
		alpha) id=000001 ;;
		beta) id=000002 ;;
		gamma) id=000003 ;;
		esac
		want="[[123,42,0,\"$id\"],[123,42,1,\"$id\"],[123,42,2,\"$id\"]]"
		out=$(dex_events "$tmp/dex-$mode-$node.json" | jq -c 'map(.[0:4])')
		[ "$out" = "$want" ]
		check_err $? "$node's DEX events: $out $(head -c 200 "$tmp/dex-$mode-$node.err")"
	done
	out=$(dex_events "$tmp/dex-$mode-beta.json" | jq -c 'map(.[4]) | unique')
	[ "$out" = '["00150016"]' ]
	check_err $? "beta's interface ids: $out"
	log_test "$mode: DEX inserted, exported by each node, packet untouched"
}

# the DEX events in monitor output $1 with a sequence number below $2, or
# with $2 and $3 = eq
dex_seq()
{
	dex_events "$1" | jq --argjson s "$2" --arg op "${3-lt}" \
		'map(select(if $op == "eq" then .[2] == $s else .[2] < $s end))
		 | length'
}

test_dex_rate()
{
	local n node

	RET=0
	set_route encap dex ns 123 type 0x800000 seq
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_dex_rate=2
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_dex_rate=0
	monitors_start dexrate
	helper "$alpha" send "$GLO" 10
	# the marker: the limits lifted, an 11th packet (sequence number 10);
	# once a node's monitor shows its export, it shows those before it
	ip netns exec "$beta" sysctl -wq net.ipv6.ioam6_dex_rate=1000
	ip netns exec "$gamma" sysctl -wq net.ipv6.ioam6_dex_rate=1000
	helper "$alpha" send "$GLO" 1
	for node in alpha beta gamma; do
		slowwait 60 until_counter_is ">= 1" \
			dex_seq "$tmp/dexrate-$node.json" 10 eq > /dev/null
		check_err $? "$node exported no marker"
	done
	monitors_stop
	n=$(dex_seq "$tmp/dexrate-alpha.json" 10)
	[ "$n" = 10 ]
	check_err $? "alpha (rate 1000) exported $n of 10"
	# a burst of 10 spans one or two of beta's one-second windows
	n=$(dex_seq "$tmp/dexrate-beta.json" 10)
	[ "$n" -ge 2 ] && [ "$n" -le 4 ]
	check_err $? "beta (rate 2) exported $n of 10"
	n=$(dex_seq "$tmp/dexrate-gamma.json" 10)
	[ "$n" = 0 ]
	check_err $? "gamma (rate 0) exported $n"
	log_test "DEX exports limited by net.ipv6.ioam6_dex_rate"
}

# --- a schema of the maximum length --------------------------------------------------
# 255 words of data, the most a schema holds (upstream fixed a wraparound of
# its length after the 6.12 base, and ip sent it with strlen() of a full,
# unterminated buffer): no trace can take its Opaque State Snapshot, so the
# node sets the Overflow flag and writes nothing; a DEX export carries the
# whole snapshot, its header and the 1020 bytes.
test_schema_max()
{
	local data want node out

	RET=0
	data=$(head -c 1020 /dev/zero | tr '\0' s)
	for node in alpha beta gamma; do
		ip -n "${!node}" ioam schema add 777 "$data" &&
			ip -n "${!node}" ioam namespace set 123 schema 777
		check_err $? "$node: a schema of 1020 bytes refused"
	done
	# "schema 777 [namespace 123], data: 73 73 ...": bytes, and how
	# many of them are "s"
	out=$(ip -n "$alpha" ioam schema show | awk '$2 == 777 {
		sub(/.*data:/, "")
		for (i = 1; i <= NF; i++)
			n += $i == "73"
		print NF, n }')
	[ "$out" = "1020 1020" ]
	check_err $? "the schema holds (bytes, of them right): $out"

	# bit 22 only: the snapshot alone, 4 + 1020 bytes, in 244 bytes
	set_route encap trace prealloc type 0x000002 ns 123 size 244
	capture schema-trace send "$GLO" 1
	out=$(jq -c '[.[] | .hbh[] | select(.kind == "trace")
		      | [.overflow, .remlen, (.nodes | length),
			 (.empty | test("^(00)+$"))]]' "$tmp/schema-trace.json")
	[ "$out" = "[[1,61,0,true]]" ]
	check_err $? "trace with the snapshot of a maximum schema: $out"

	set_route encap dex ns 123 type 0x000002
	monitors_start schema
	helper "$alpha" send "$GLO" 1
	monitors_wait schema dex 1
	monitors_stop
	want=ff000309$(printf '73%.0s' $(seq 1020))
	for node in alpha beta gamma; do
		out=$(jq -s -r '[.[] | select(.event == "dex") | .data] | .[]' \
			"$tmp/schema-$node.json")
		[ "$out" = "$want" ]
		check_err $? "$node's DEX export: ${#out} hex digits, ${out:0:16}..."
	done

	for node in alpha beta gamma; do
		ip -n "${!node}" ioam namespace set 123 schema none
		ip -n "${!node}" ioam schema del 777
	done
	log_test "a schema of 1020 bytes: trace overflow, whole DEX export"
}

# --- malformed options --------------------------------------------------------------
# Ip6InHdrErrors of beta and gamma together
hdr_errors()
{
	local ns n=0

	for ns in "$beta" "$gamma"; do
		n=$((n + $(ip netns exec "$ns" nstat -az Ip6InHdrErrors |
			   awk '/Ip6InHdrErrors/ {print $2}')))
	done
	echo "$n"
}

test_malformed()
{
	local kind n want err0 err1 crafts

	RET=0
	ip -n "$gamma" ioam e2e reset
	err0=$(hdr_errors)
	rm -f "$tmp/ready" "$tmp/stop"
	helper "$gamma" recv --timeout 280 --ready "$tmp/ready" \
		--stop "$tmp/stop" > "$tmp/recv" &
	bg=$!
	while [ ! -e "$tmp/ready" ]; do sleep 0.1; done
	monitors_start malformed
	# 2 of each kind in turn, by one helper (a Python start per kind
	# takes seconds in a slow guest)
	crafts=()
	for kind in e2e-ok e2e-unknown-ns ioam-unknown-type dex-ok \
		    dex-unknown-ns dex-unassigned-ext e2e-short-data \
		    e2e-short-hdr e2e-misaligned trace-remlen dex-short-hdr \
		    dex-short-ext; do
		crafts+=(--craft "$kind")
	done
	helper "$alpha" send "$G" 2 "${crafts[@]}"
	check_err $? "cannot send the crafted packets"
	# the marker: a third dex-ok; once beta's and gamma's monitors show
	# its export, they show every export of the packets before it
	helper "$alpha" send "$G" 1 --craft dex-ok
	for n in beta gamma; do
		slowwait 60 until_counter_is ">= 5" \
			events "$tmp/malformed-$n.json" dex > /dev/null
		check_err $? "$n did not export the marker"
	done
	touch "$tmp/stop"
	wait "$bg"
	bg=
	monitors_stop
	# the six well-formed kinds are delivered (and the marker), the six
	# others dropped
	n=$(cat "$tmp/recv")
	[ "$n" = 13 ]
	check_err $? "$n packets delivered, 13 expected"
	err1=$(hdr_errors)
	# the Hop-by-Hop ones are dropped by beta, the first IOAM node
	[ $((err1 - err0)) = 12 ]
	check_err $? "Ip6InHdrErrors +$((err1 - err0)), 12 expected"
	# only e2e-ok is counted, and its sequence number 0 twice
	want='{"rx":2,"lost":0,"reordered":0,"duplicated":1}'
	n=$(e2e "$A" | jq -c '{rx, lost, reordered, duplicated}')
	[ "$n" = "$want" ]
	check_err $? "counters $n"
	# beta and gamma export dex-ok and dex-unassigned-ext (its seq, and
	# the unassigned field skipped), not the unknown namespace
	for n in beta gamma; do
		want='[[123,7,9,"ID"],[123,7,9,"ID"],[123,null,9,"ID"],'
		want+='[123,null,9,"ID"],[123,7,9,"ID"]]'
		want=${want//ID/00000$([ "$n" = beta ] && echo 2 || echo 3)}
		[ "$(dex_events "$tmp/malformed-$n.json" | jq -c 'map(.[0:4])')" = "$want" ]
		check_err $? "$n's DEX events: $(dex_events "$tmp/malformed-$n.json")"
	done
	log_test "crafted IOAM options: malformed dropped and counted, others ignored"
}

# --- domain egress -----------------------------------------------------------------
# $1 crafted kind, sent to gamma through beta; $2 the layout gamma must see:
# [header chain, Hop-by-Hop length, [[kind, offset, option type]...]]
egress_layout()
{
	local got

	capture "$1" send "$G" 1 --craft "$1"
	got=$(jq -c '.[0] | [.chain, .hbh_len,
		      [.hbh[] | [.kind, .offset, .opt_type]]]' "$tmp/$1.json")
	[ "$got" = "$2" ]
	check_err $? "$1 packet: $got, expected $2"
}

test_domain_egress()
{
	local got want

	RET=0
	ip -n "$gamma" ioam e2e reset
	# what gamma receives from alpha with no IOAM at all
	ip -n "$alpha" -6 route replace 2001:db8:ff::/64 via "$B1" dev veth0
	capture plain send "$GLO" 1 --sport 4242
	# the same with a trace and an E2E option inserted inline, removed
	# again by beta on its way out of the domain
	set_route inline trace prealloc type "$TRACE_TYPE" ns 123 size 36 \
		e2e ns 123 seq64 timestamp dex ns 123 type 0x800000 seq
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=1
	capture stripped send "$GLO" 1 --sport 4242
	want=$(jq -r '.[0].raw' "$tmp/plain.json")
	got=$(jq -r '.[0].raw' "$tmp/stripped.json")
	[ -n "$want" ] && [ "$want" != null ] && [ "$got" = "$want" ]
	check_err $? "stripped packet differs: $got, expected $want"
	[ "$(e2e "$A")" = "{}" ]
	check_err $? "gamma counted an E2E option that beta removed"
	log_test "domain egress: packet leaves byte-identical to one without IOAM"

	RET=0
	# a Hop-by-Hop header with a router alert too: the alert stays, at its
	# alignment, the header is re-padded
	egress_layout ra-trace \
		'[["hbh","udp"],8,[["other",42,5],["padn",46,null]]]'
	# the trace first: the alert moves up, to its old offset modulo 8
	egress_layout trace-ra \
		'[["hbh","udp"],16,[["padn",42,null],["other",48,5],["padn",52,null]]]'
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=0

	# and without the sysctl, both stay
	capture ra-kept send "$G" 1 --craft ra-trace
	got=$(jq -c '.[0] | [.hbh_len, [.hbh[] | .kind]]' "$tmp/ra-kept.json")
	[ "$got" = '[32,["other","padn","trace","padn"]]' ]
	check_err $? "without ioam6_domain_egress: $got"
	log_test "domain egress: other Hop-by-Hop options kept and re-padded"
}

# An SRv6 segment of beta's, reached with an IOAM trace in the Hop-by-Hop
# header: beta processes the Segment Routing Header (a seg6local End SID,
# and, with seg6_enabled, one of its own addresses) and forwards the packet
# to its next segment, gamma, out of a domain egress: the trace goes.
test_srh_egress()
{
	local got seg sid=2001:db8:e::1

	RET=0
	ip -n "$alpha" -6 route replace 2001:db8:ff::/64 via "$B1" dev veth0
	ip -n "$alpha" -6 route replace 2001:db8:e::/64 via "$B1" dev veth0
	ip -n "$beta" -6 route replace "$sid/128" \
		encap seg6local action End dev veth0
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.all.seg6_enabled=1
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth0.seg6_enabled=1
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=1
	for seg in "$sid" "$B1"; do
		capture "srh-$seg" send "$GLO" 1 --craft trace --srh "$seg"
		got=$(jq -c '.[0] | [.chain, .dst, .hbh_len]' \
			"$tmp/srh-$seg.json")
		[ "$got" = "[[\"rh\",\"udp\"],\"$GLO\",null]" ]
		check_err $? "segment $seg, out of the domain egress: $got"
	done
	# and without the sysctl the trace is there: the above is its removal
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=0
	capture srh-kept send "$GLO" 1 --craft trace --srh "$sid"
	got=$(jq -c '.[0] | [.chain, .dst, [.hbh[].kind]]' "$tmp/srh-kept.json")
	[ "$got" = "[[\"hbh\",\"rh\",\"udp\"],\"$GLO\",[\"padn\",\"trace\"]]" ]
	check_err $? "segment $sid, no domain egress: $got"
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.all.seg6_enabled=0
	ip -n "$beta" -6 route del "$sid/128"
	ip -n "$alpha" -6 route del 2001:db8:e::/64
	log_test "domain egress: IOAM removed after an SRv6 segment of the node"
}

# --- a jumbogram at the domain egress -------------------------------------------------
# $1 counter of beta's veth1 (/proc/net/dev_snmp6)
veth1_counter()
{
	ip netns exec "$beta" awk -v c="$1" '$1 == c {print $2}' \
		/proc/net/dev_snmp6/veth1
}

# send a jumbogram ($1: --ioam or nothing) into beta's loopback, forwarded
# to gamma out of veth1; wait until beta counted it as a drop
# (Ip6OutDiscards) or as too big for veth1 (Ip6FragFails); prints
# "discards toobig", the two increments
jumbo_to_veth1()
{
	local d0 f0 d f deadline

	d0=$(veth1_counter Ip6OutDiscards)
	f0=$(veth1_counter Ip6FragFails)
	# shellcheck disable=SC2086
	helper "$beta" jumbo lo "$A" "$G" $1
	deadline=$((SECONDS + 30))
	while d=$(veth1_counter Ip6OutDiscards); f=$(veth1_counter Ip6FragFails)
	      [ $((d + f)) = $((d0 + f0)) ] && [ $SECONDS -lt $deadline ]; do
		sleep 0.5
	done
	echo "$((d - d0)) $((f - f0))"
}

test_jumbo_egress()
{
	local got

	RET=0
	# the loopback is the one interface whose MTU exceeds 64 KiB: a
	# jumbogram sent into it is received there and forwarded
	ip -n "$beta" link set lo mtu 131072
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=1
	# without IOAM: untouched, then too big for veth1 (no ICMP check)
	got=$(jumbo_to_veth1)
	[ "$got" = "0 1" ]
	check_err $? "jumbogram without IOAM: discards/too big +$got, expected 0 1"
	# with an IOAM trace: no payload length to take the trace's octets
	# off, the domain egress drops it and counts it
	got=$(jumbo_to_veth1 --ioam)
	[ "$got" = "1 0" ]
	check_err $? "jumbogram with IOAM: discards/too big +$got, expected 1 0"
	ip netns exec "$beta" sysctl -wq net.ipv6.conf.veth1.ioam6_domain_egress=0
	ip -n "$beta" link set lo mtu 65536
	# and beta still forwards
	capture jumbo-after send "$GLO" 1
	[ "$(jq length "$tmp/jumbo-after.json")" = 1 ]
	check_err $? "beta forwards nothing after the jumbograms"
	log_test "domain egress: a jumbogram with IOAM is dropped and counted"
}

# --- configuration that cannot be honoured ------------------------------------------
route_state()
{
	ip -n "$alpha" -6 route show 2001:db8:ff::/64
}

check_reject()
{
	local desc=$1

	shift
	check_refused route_state "Error:" set_route "$@"
	log_test "reject: $desc ($REFUSED)"
}

# N SIZE: the encap words of N pre-allocated traces of SIZE octets, ns 123
traces()
{
	local i

	for i in $(seq "$1"); do
		echo "trace prealloc type 0x800000 ns 123 size $2"
	done
}

test_reject()
{
	set_route encap trace prealloc type 0x800000 ns 123 size 12 \
		e2e ns 123 seq64
	RET=0
	check_reject "E2E in an unknown namespace" encap \
		trace prealloc type 0x800000 ns 123 size 12 e2e ns 7 seq64
	RET=0
	check_reject "trace option in an unknown namespace" encap \
		trace prealloc type 0x800000 ns 123 size 12 \
		trace prealloc type 0x800000 ns 7 size 12
	RET=0
	check_reject "64- and 32-bit E2E sequence numbers" encap \
		trace prealloc type 0x800000 ns 123 size 12 e2e ns 123 \
		type 0xc000
	RET=0
	check_reject "undefined E2E type bits" encap \
		trace prealloc type 0x800000 ns 123 size 12 e2e ns 123 \
		type 0x0800
	RET=0
	RET=0
	check_reject "DEX in an unknown namespace" encap \
		dex ns 7 type 0x800000
	RET=0
	check_reject "two DEX options" encap \
		dex ns 123 type 0x800000 dex ns 124 type 0x800000
	RET=0
	check_reject "undefined DEX trace type bits" encap \
		dex ns 123 type 0x000800
	RET=0
	# shellcheck disable=SC2046
	check_reject "17 options" encap $(traces 17 4)
	RET=0
	# shellcheck disable=SC2046
	check_reject "more than one Hop-by-Hop header holds" encap \
		$(traces 9 244)
	ip -n "$alpha" link set veth0 mtu 1280
	RET=0
	# shellcheck disable=SC2046
	check_reject "options larger than the device MTU" encap $(traces 5 244)
	ip -n "$alpha" link set veth0 mtu 1500
}

# --- what 6.12 accepted keeps working ---------------------------------------------------
test_compat()
{
	local out old=/usr/sbin/ip

	RET=0
	set_route encap trace prealloc type 0x800000 ns 123 size 12
	out=$(ip -n "$alpha" -6 route show 2001:db8:ff::/64)
	echo "$out" | grep -q "trace prealloc type 0x800000 ns 123 size 12"
	check_err $? "single trace route: $out"
	echo "$out" | grep -q "e2e"
	check_err $((!$?)) "a single-trace route shows options it has not: $out"
	log_test "single-trace route: the 6.12 syntax, shown as before"

	# the distribution's iproute2, which knows nothing of the new attribute
	if [ -x "$old" ] && [ "$(command -v ip)" != "$old" ]; then
		RET=0
		ip -n "$alpha" -6 route del 2001:db8:ff::/64
		# (its parser needs a word after "size N")
		$old -n "$alpha" -6 route add 2001:db8:ff::/64 \
			encap ioam6 trace prealloc type 0x800000 ns 123 \
			size 12 via "$B1"
		check_err $? "old ip cannot add a single-trace route"
		set_route encap trace prealloc type 0x800000 ns 123 size 12 \
			trace prealloc type 0xc00000 ns 124 size 8 \
			e2e ns 123 seq64
		out=$($old -n "$alpha" -6 route show 2001:db8:ff::/64)
		echo "$out" | grep -q "trace prealloc type 0x800000 ns 123 size 12"
		check_err $? "old ip shows: $out"
		log_test "the distribution's ip adds and shows routes"
	fi
}

srv6_require ip tc jq nstat python3 genl
if ! ip ioam help 2>&1 | grep -q "ioam e2e"; then
	echo "SKIP: iproute2 without 'ip ioam e2e'"
	exit "$ksft_skip"
fi
evgrp=$(genl ctrl get name IOAM6 | awk '$3 == "name:" && $4 == "ioam6_events" {
	sub(/^ID-/, "", $2); print $2 }')
if [ -z "$evgrp" ] || ((evgrp > 32)); then
	echo "FAIL: IOAM6's event group (${evgrp:-not found}) is not one of" \
		"the 32 that /proc/net/netlink shows"
	exit "$ksft_fail"
fi

tmp=$(mktemp -d)
bg=
mon=
setup
start_servers
set +e

test_compat
for mode in inline encap auto; do
	test_options "$mode"
done
test_tunsrc
test_data_fields
test_e2e
test_monitor
test_cloned
test_e2e_event_rate
test_e2e_spoofed
test_e2e_forged
for mode in inline encap auto; do
	test_dex "$mode"
done
test_dex_rate
test_schema_max
test_malformed
test_domain_egress
test_srh_egress
test_jumbo_egress
test_reject

exit "$EXIT_STATUS"

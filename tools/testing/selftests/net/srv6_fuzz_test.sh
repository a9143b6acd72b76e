#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed packets against every packet parser of srv6-oam: the SRH
# (ip6t_srh's --srh-sid-list, hash:sr6's kadt, seg6local End), the STAMP
# Session-Reflector (stateless, stateful, authenticated, SRv6 return path,
# IPv6 and IPv4), the IOAM6 options (transit trace, domain-egress
# removal, Direct Export, Edge-to-Edge) and, where the kernel has it, the
# AltMark option (RFC 9343) at an SRv6 endpoint that monitors its
# FlowMonID (before the SRH, after it, twice in one header), in a
# Hop-by-Hop header at a router that forwards it and in a Destination
# Options header to the SUT's address.  srv6_fuzz.py sends, for each
# target, each well-formed packet truncated at every byte and then
# FUZZ_COUNT mutated ones, as raw frames from atk to the SUT:
#
#  +------+  e1           e1  +-------------------+  e2           e2  +------+
#  | atk  |-------------------|        sut        |-------------------| rcv  |
#  +------+                   +-------------------+                   +------+
#  2001:db8:1::9              fc00:a::1 (lo), End fc00:a::e           fc00:b::1 (lo)
#  10.0.1.9                   10.0.1.1, 2001:db8:1::1                 End fc00:b::e
#
# Each target passes if the frames reached the SUT, its parser saw them
# (a counter that only it moves), the kernel log holds no report of a
# bug, and the SUT still forwards over End, reflects STAMP and answers
# pings afterwards.  Then the three targets' packets go to a node of
# their own configured as the SUT is, which is deleted under them,
# NETNS_ROUNDS times (netns_churn).  Then they are sent at once at the
# SUT while every object they meet is deleted and added again, replaced
# or changed, CHURN_ROUNDS times (churn_once).  In both no command may
# fail, and the same checks hold afterwards.  On a debug kernel (make check-debug) the
# harness also fails the test on any KASAN, UBSAN, lockdep or RCU report.
#
# FUZZ_COUNT (default 3000) sets the mutated packets per target; make
# fuzz sends 100000.  FUZZ_SEED (default 1) sets the seed: a run prints
# it and the index of every 5000th packet, and
#   ./srv6_fuzz.py show --target T --seed S --index I
# prints packet I again.

source lib.sh
source srv6_oam_lib.sh

readonly COUNT=${FUZZ_COUNT:-3000}
readonly SEED=${FUZZ_SEED:-1}
readonly SUT6=2001:db8:1::1
readonly REFL6=fc00:a::1
readonly SID=fc00:a::e
readonly RCV6=fc00:b::1
readonly RCV_SID=fc00:b::e
readonly ATK6=2001:db8:1::9
# the AltMark target (run once, not under the churns), where the kernel
# has Alternate-Marking
ALTMARK=
[ -e /proc/sys/net/ipv6/altmark ] && ALTMARK=yes
readonly KEY=00112233445566778899aabbccddeeff

cleanup()
{
	[ -n "${monitor:-}" ] && kill "$monitor" 2>/dev/null
	[ -n "${traffic:-}" ] && kill "${traffic[@]}" 2>/dev/null
	cleanup_all_ns
	rm -rf "$tmp"
}

tmp=$(mktemp -d)
trap cleanup EXIT

srv6_require jq python3 ip6tables ipset
[ -e /proc/sys/net/ipv6/ioam6_id ] ||
	{ echo "SKIP: no IOAM6 in this kernel"; exit "$ksft_skip"; }

setup()
{
	local ns

	srv6_setup_ns atk sut rcv
	veth_link "$atk" e1 "$sut" e1 "$ATK6"/64 "$SUT6"/64 || return
	veth_link "$sut" e2 "$rcv" e2 2001:db8:2::1/64 2001:db8:2::2/64 ||
		return
	ip -n "$atk" addr add 10.0.1.9/24 dev e1 &&
	ip -n "$rcv" addr add "$RCV6"/128 dev lo || return
	ip -n "$atk" -6 route add fc00::/16 via "$SUT6" &&
	ip -n "$rcv" -6 route add default via 2001:db8:2::1 || return
	# SRH with segments left 0 to atk (session 7's return path) or rcv:
	# accepted, not dropped
	for ns in "$atk" "$rcv"; do
		ip netns exec "$ns" sysctl -wq net.ipv6.conf.all.seg6_enabled=1
	done
	ip netns exec "$atk" sysctl -wq net.ipv6.conf.e1.seg6_enabled=1
	ip netns exec "$rcv" sysctl -wq net.ipv6.conf.e2.seg6_enabled=1
	# session 7's return path goes over an End SID of rcv
	ip netns exec "$rcv" sysctl -wq net.ipv6.conf.all.forwarding=1
	ip -n "$rcv" -6 route add "$RCV_SID"/128 encap seg6local action End \
		dev e2 || return
	# the check ping of atk goes to rcv over the End SID
	ip -n "$atk" -6 route add "$RCV6"/128 encap seg6 mode inline \
		segs "$SID" dev e1 || return
	configure "$sut" || return
	amac=$(ip -n "$sut" -j link show e1 | jq -r '.[0].address')
}

# configure NS: every packet parser of ours in NS, whose e1 faces atk
# (2001:db8:1::1/64 on it) and e2 rcv (2001:db8:2::1/64)
configure()
{
	local ns=$1 ch
	local s="ip netns exec $ns"

	ip -n "$ns" addr add 10.0.1.1/24 dev e1 &&
	ip -n "$ns" addr add "$REFL6"/128 dev lo &&
	ip -n "$ns" -6 route add fc00:b::/64 via 2001:db8:2::2 || return
	$s sysctl -wq net.ipv6.conf.all.forwarding=1
	$s sysctl -wq net.ipv6.conf.all.seg6_enabled=1
	$s sysctl -wq net.ipv6.conf.e1.seg6_enabled=1
	ip -n "$ns" -6 route add "$SID"/128 encap seg6local action End \
		dev e2 || return
	# the AltMark option's FlowMonID, where the kernel has it, its
	# Hop-by-Hop placement counted on e1, and a STAMP reflector that
	# answers for its blocks
	if [ -n "$ALTMARK" ]; then
		ip -n "$ns" altmark monitor add flowmon 7 || return
		$s sysctl -wq net.ipv6.conf.e1.altmark_enabled=1 || return
		ip -n "$ns" stamp reflector add port 865 altmark any || return
	fi

	# SRH parsers: ip6t_srh --srh-sid-list both ways round, its revision
	# 1 (previous, next and last SID), and a hash:sr6 set with counters,
	# in PREROUTING (every packet) and FORWARD
	$s ipset create flows hash:sr6 counters &&
	$s ipset add flows "$SID,$RCV6" || return
	for ch in PREROUTING FORWARD; do
		$s ip6tables -t mangle -A "$ch" \
			-m srh --srh-sid-list "$SID,$RCV6" &&
		$s ip6tables -t mangle -A "$ch" \
			-m srh ! --srh-sid-list "$SID,$RCV6" &&
		$s ip6tables -t mangle -A "$ch" -m srh --srh-psid "$SID"/64 \
			--srh-nsid "$RCV6"/64 ! --srh-lsid "$RCV6" &&
		$s ip6tables -t mangle -A "$ch" \
			-m set --match-set flows src &&
		$s ip6tables -t mangle -A "$ch" \
			-m set ! --match-set flows dst || return
	done

	# STAMP: stateless on 862, authenticated on 863, stateful on 864;
	# the sessions of srv6_fuzz.py's packets: 7 with an SRv6 return path
	# (back over rcv's End SID), 9 stateful, 11 with a key
	ip -n "$ns" stamp reflector add &&
	ip -n "$ns" stamp reflector add port 863 auth &&
	ip -n "$ns" stamp reflector add port 864 mode stateful &&
	ip -n "$ns" stamp session add ssid 7 peer "$ATK6" \
		return-segs "$RCV_SID,$ATK6" &&
	ip -n "$ns" stamp session add ssid 9 &&
	ip -n "$ns" stamp session add ssid 11 key "$KEY" || return

	# IOAM: namespaces 123 and 124, e1 inside the domain, e2 its egress
	# (traces removed), Direct Export and Edge-to-Edge events
	$s sysctl -wq net.ipv6.ioam6_id=1
	$s sysctl -wq net.ipv6.conf.e1.ioam6_enabled=1
	$s sysctl -wq net.ipv6.conf.e1.ioam6_id=11
	$s sysctl -wq net.ipv6.conf.e2.ioam6_id=12
	$s sysctl -wq net.ipv6.conf.e2.ioam6_domain_egress=1
	$s sysctl -wq net.ipv6.ioam6_dex_rate=1000
	# the trace's transit delay and buffer occupancy fields filled
	$s sysctl -wq net.ipv6.ioam6_transit_delay=1
	$s sysctl -wq net.ipv6.ioam6_buffer_occupancy=1
	ip -n "$ns" ioam namespace add 123 data 0xdeadbee0 &&
	ip -n "$ns" ioam namespace add 124
}

# counter NS DEV FIELD: a statistic of DEV in NS (rx.packets, ...)
counter()
{
	ip -n "$1" -s -j link show "$2" | jq ".[0].stats64.$3"
}

# ip_in: packets the SUT's IPv6 and IPv4 took in (InReceives: counted
# before any check of the header, after a frame for another host's MAC
# address is dropped)
ip_in()
{
	ip netns exec "$sut" awk '$1 == "Ip6InReceives" { s += $2 }
		$1 == "Ip:" { if (!c) { for (i = 2; i <= NF; i++)
					if ($i == "InReceives") c = i
				    next }
			      s += $c }
		END { print s + 0 }' /proc/net/snmp6 /proc/net/snmp
}

# srh_rule_packets CHAIN: packets the --srh-sid-list rules of the mangle
# CHAIN counted, summed (the srh match takes no packet without an SRH,
# inverted or not)
srh_rule_packets()
{
	ip netns exec "$sut" ip6tables -t mangle -L "$1" -v -x -n |
		awk 'NR > 2 && / srh / { s += $1 } END { print s + 0 }'
}

refl_stat()
{
	ip -n "$sut" -s -j stamp reflector show |
		jq "[.[] | .stats.$1 // 0] | add"
}

fuzz()
{
	ip netns exec "$atk" timeout 3600 python3 ./srv6_fuzz.py send \
		--target "$1" --seed "$SEED" --count "$COUNT" --iface e1 \
		--dmac "$amac"
}

# afterwards: End forwarding, STAMP replies (without a session, and over
# session 7's SRv6 return path), IPv6 and IPv4 pings
check_alive()
{
	local ssid

	ip netns exec "$atk" ping -6 -c 1 -W 10 "$RCV6" >/dev/null
	check_err $? "no ping reply from $RCV6 over the End SID $SID"
	for ssid in 1 7; do
		ip netns exec "$atk" timeout "$SRV6_HANG_TIMEOUT" \
			python3 ./stamp_test.py basic "$REFL6" --ssid "$ssid" \
			>/dev/null
		check_err $? "no right STAMP reply from $REFL6 (SSID $ssid)"
	done
	ip netns exec "$atk" ping -4 -c 1 -W 10 10.0.1.1 >/dev/null
	check_err $? "no IPv4 ping reply from the SUT"
}

# run TARGET DESC: fuzz TARGET, with pre_TARGET before and post_TARGET
# after (they compare the counters of TARGET's parsers)
run()
{
	local target=$1 desc=$2 out total sent rx0 rx1 s0 s1

	RET=0
	total=$(python3 ./srv6_fuzz.py count --target "$target" \
		--count "$COUNT")
	rx0=$(ip_in)
	s0=$(srv6_splats)
	"pre_$target"
	# its lines go to the log as they come: after a crash, the last
	# index printed is where to replay from
	fuzz "$target" | tee "$tmp/out"
	check_err "${PIPESTATUS[0]}" "srv6_fuzz.py failed"
	out=$(cat "$tmp/out")
	sent=$(sed -n 's/^# .*: sent \([0-9]*\), .*/\1/p' <<< "$out")
	rx1=$(ip_in)
	# every frame sent reached the SUT's IP layer (a veth drops none)
	[ "${sent:-0}" -gt "$((total * 9 / 10))" ] &&
		[ "$((rx1 - rx0))" -ge "$sent" ]
	check_err $? "sent ${sent:-none} of $total frames, the SUT's IP took in $((rx1 - rx0))"
	"post_$target"
	check_alive
	s1=$(srv6_splats)
	[ "$s1" -eq "$s0" ]
	check_err $? "the kernel log reports a bug: $(srv6_splat_tail 3)"
	log_test "fuzz $desc: $total packets, seed $SEED"
}

# the packets the AltMark monitor counted, both colours
altmark_packets()
{
	ip -n "$sut" -s -j altmark monitor show flowmon 7 |
		jq '[.[0].counters[].packets] | add'
}

pre_altmark()
{
	am0=$(altmark_packets)
}

post_altmark()
{
	local am1

	am1=$(altmark_packets)
	# the well-formed options (the truncations' early packets at least)
	[ "${am1:-0}" -gt "${am0:-0}" ]
	check_err $? "the AltMark monitor counted nothing (${am0:-?} -> ${am1:-?})"
	# the block queries: answered (a mutated one may be dropped)
	[ "$(ip -n "$sut" -s -j stamp reflector show |
	     jq '[.[] | select(.port == 865) | .stats.tx] | add // 0')" -gt 0 ]
	check_err $? "the reflector of the block queries answered none"
}

pre_srh()
{
	pre=$(srh_rule_packets PREROUTING)
	set0=$(ip netns exec "$sut" ipset list flows -o save |
		sed -n 's/.* packets \([0-9]*\).*/\1/p')
}

post_srh()
{
	local post set1

	post=$(srh_rule_packets PREROUTING)
	set1=$(ip netns exec "$sut" ipset list flows -o save |
		sed -n 's/.* packets \([0-9]*\).*/\1/p')
	# the two --srh-sid-list rules between them count every packet with
	# an SRH they could read
	[ "$((post - pre))" -gt 0 ]
	check_err $? "the --srh-sid-list rules counted nothing"
	[ "${set1:-0}" -gt "${set0:-0}" ]
	check_err $? "the hash:sr6 element counted nothing (${set0:-?} -> ${set1:-?})"
	echo "# srh: the --srh-sid-list rules counted $((post - pre)) packets," \
		"the set element $((set1 - set0))"
}

pre_stamp()
{
	st0=$(refl_stat rx)
	tx0=$(refl_stat tx)
}

post_stamp()
{
	local st1 tx1

	st1=$(refl_stat rx)
	tx1=$(refl_stat tx)
	[ "$st1" -gt "$st0" ] && [ "$tx1" -gt "$tx0" ]
	check_err $? "the reflectors received $((st1 - st0)) and sent $((tx1 - tx0))"
	echo "# stamp: the reflectors received $((st1 - st0)) and answered $((tx1 - tx0))"
}

pre_ioam()
{
	ip -n "$sut" ioam monitor > /dev/null 2>&1 &
	monitor=$!
	fw0=$(counter "$rcv" e2 rx.packets)
}

post_ioam()
{
	local fw1 e2e

	kill "$monitor" 2>/dev/null
	wait "$monitor" 2>/dev/null
	monitor=
	fw1=$(counter "$rcv" e2 rx.packets)
	e2e=$(ip -n "$sut" -j ioam e2e show | jq length)
	[ "$((fw1 - fw0))" -gt 0 ] && [ "${e2e:-0}" -gt 0 ]
	check_err $? "forwarded $((fw1 - fw0)), Edge-to-Edge flows ${e2e:-none}"
	echo "# ioam: forwarded $((fw1 - fw0)) packets, Edge-to-Edge flows $e2e"
}

# traffic_start IFACE DMAC COUNT: the three targets' packets from atk out
# of IFACE to DMAC, runs of COUNT mutations after the truncations with a new
# seed each, until traffic_stop; a run that ends well adds a line to
# $tmp/runs.  DMAC "-": the MAC address in $tmp/vmac, read before each run
# (none there: the run waits), and a failed run is tried again, as the
# node it sends to may be gone.  traffic_stop fails if a run failed that
# may not.
traffic_start()
{
	local t

	rm -f "$tmp/stop" "$tmp/runs"
	traffic=()
	for t in srh stamp ioam; do
		(
			seed=$SEED
			while [ ! -e "$tmp/stop" ]; do
				seed=$((seed + 1000))
				dmac=$2
				if [ "$dmac" = - ] &&
				   ! dmac=$(cat "$tmp/vmac" 2> /dev/null); then
					sleep 0.2
					continue
				fi
				if ip netns exec "$atk" python3 ./srv6_fuzz.py send \
					--target "$t" --seed "$seed" --count "$3" \
					--iface "$1" --dmac "$dmac" > /dev/null \
					2> "$tmp/traffic-$t.err"; then
					echo >> "$tmp/runs"
				elif [ "$2" != - ]; then
					cat "$tmp/traffic-$t.err" >&2
					exit 1
				fi
			done
		) &
		traffic+=($!)
	done
}

traffic_stop()
{
	local pid rc=0

	touch "$tmp/stop"
	for pid in "${traffic[@]}"; do
		wait "$pid" || rc=1
	done
	traffic=()
	return $rc
}

vic_in()
{
	ip netns exec "$vic" awk '$1 == "Ip6InReceives" { print $2 }' \
		/proc/net/snmp6
}

no_e3()
{
	! ip -n "$atk" link show e3 &> /dev/null
}

# The three targets' packets at a node of their own, vic, configured as the
# SUT is (configure) and deleted while they flow, NETNS_ROUNDS (default 3)
# times, from atk over a veth of its own (e3): every object of ours goes
# away with its namespace under traffic.  No command may fail, and the
# kernel log must stay clean; a device of a deleted namespace that never
# gets its references back shows there too ("unregister_netdevice: waiting
# for"), within the 10 s the churn phase after this one takes, and on the
# debug kernel kmemleak sees what a namespace left behind.
netns_churn()
{
	local round failed="" s0 runs

	RET=0
	s0=$(srv6_splats)
	rm -f "$tmp/vmac"
	traffic_start e3 - 300
	for ((round = 0; round < ${NETNS_ROUNDS:-3}; round++)); do
		setup_ns vic || { failed+=" setup_ns"; break; }
		ip netns exec "$vic" sysctl -wq net.ipv6.conf.all.accept_dad=0
		ip netns exec "$vic" sysctl -wq net.ipv6.conf.default.accept_dad=0
		ip -n "$vic" link set lo up
		veth_link "$atk" e3 "$vic" e1 &&
			ip -n "$vic" addr add "$SUT6"/64 dev e1 &&
			ip -n "$vic" link add e2 type dummy &&
			ip -n "$vic" link set e2 up &&
			ip -n "$vic" addr add 2001:db8:2::1/64 dev e2 &&
			configure "$vic" ||
			{ failed+=" configure($round)"; break; }
		ip -n "$vic" -j link show e1 | jq -r '.[0].address' \
			> "$tmp/vmac.new" && mv "$tmp/vmac.new" "$tmp/vmac"
		# deleted once its parsers are busy
		slowwait 120 until_counter_is ">= 200" vic_in > /dev/null ||
			failed+=" traffic($round)"
		rm -f "$tmp/vmac"
		cleanup_ns "$vic" || failed+=" delete($round)"
		slowwait 60 no_e3 || failed+=" e3($round)"
	done
	# runs cut short by a deletion fail: not counted
	traffic_stop
	runs=$(wc -l < "$tmp/runs" 2>/dev/null)
	[ -z "$failed" ]
	check_err $? "failed: $failed"
	echo "# netns churn: $round namespaces deleted under traffic," \
		"${runs:-0} fuzzer runs to them completed"
	check_alive
	[ "$(srv6_splats)" -eq "$s0" ]
	check_err $? "the kernel log reports a bug: $(srv6_splat_tail 3)"
	log_test "netns churn: namespaces with all our objects deleted under traffic"
}

# one round of reconfiguration of every object the packets meet, each
# left as setup made it; prints the commands that failed
churn_once()
{
	local s="ip netns exec $sut"

	ip -n "$sut" stamp reflector del port 863 || echo "reflector del"
	ip -n "$sut" stamp reflector add port 863 auth || echo "reflector add"
	ip -n "$sut" stamp reflector replace port 864 mode stateful ||
		echo "reflector replace"
	ip -n "$sut" stamp session del ssid 11 || echo "session del"
	ip -n "$sut" stamp session add ssid 11 key "$KEY" || echo "session add"
	ip -n "$sut" stamp session change ssid 7 peer "$ATK6" \
		return-segs "$RCV_SID,$ATK6" || echo "session change"
	$s ipset del flows "$SID,$RCV6" || echo "ipset del"
	$s ipset add flows "$SID,$RCV6" || echo "ipset add"
	$s ip6tables -t mangle -R PREROUTING 1 \
		-m srh --srh-sid-list "$SID,$RCV6" || echo "ip6tables -R"
	ip -n "$sut" -6 route replace "$SID"/128 encap seg6local action End \
		dev e2 || echo "route replace"
	ip -n "$sut" ioam namespace del 124 || echo "namespace del"
	ip -n "$sut" ioam namespace add 124 || echo "namespace add"
	ip -n "$sut" ioam e2e reset || echo "e2e reset"
}

# The three targets' packets again, all at once and over and over (a new
# seed each time), while churn_once runs CHURN_ROUNDS (default 10) times:
# no command may fail, no report in the kernel log, and the node works
# afterwards.
churn()
{
	local t rounds failed="" s0 sent=0

	RET=0
	s0=$(srv6_splats)
	traffic_start e1 "$amac" 1000
	for ((rounds = 0; rounds < ${CHURN_ROUNDS:-10}; rounds++)); do
		failed+=$(churn_once)
	done
	traffic_stop
	check_err $? "srv6_fuzz.py failed"
	sent=$(wc -l < "$tmp/runs" 2>/dev/null)
	[ -z "$failed" ]
	check_err $? "commands failed under traffic: $failed"
	[ "${sent:-0}" -ge 3 ]
	check_err $? "only ${sent:-0} fuzzer runs beside the reconfiguration"
	echo "# churn: $rounds rounds of reconfiguration beside ${sent:-0}" \
		"fuzzer runs (1000 mutations after the truncations each)"
	check_alive
	[ "$(srv6_splats)" -eq "$s0" ]
	check_err $? "the kernel log reports a bug: $(srv6_splat_tail 3)"
	log_test "churn: reflectors, sessions, set elements, rules, routes, IOAM under traffic"
}

RET=0
setup
check_err $? "the SUT cannot be configured"
log_test "setup: End SID, srh and hash:sr6 rules, reflectors, sessions, IOAM"
[ "$RET" = 0 ] || exit "$EXIT_STATUS"
check_alive
log_test "before: the SUT forwards, reflects and answers"
run srh "SRH (ip6t_srh, hash:sr6, End)"
run stamp "STAMP reflectors"
run ioam "IOAM6 trace, DEX, E2E, domain egress"
if [ -n "$ALTMARK" ]; then
	run altmark "AltMark option at an SRv6 endpoint"
else
	log_test_skip "fuzz AltMark: no IPv6 Alternate-Marking in this kernel"
fi
netns_churn
churn

exit "$EXIT_STATUS"

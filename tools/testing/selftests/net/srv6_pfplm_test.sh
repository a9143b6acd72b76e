#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-flow packet loss monitoring (pfplm): alternate marking over SRv6 SID
# lists, counted with --srh-sid-list rules or hash:sr6 sets, collected with
# STAMP over each flow's own SID list.  The loss pfplm reports for every
# flow and block must be the loss that happened, to the packet.
#
#  +----+    +---------+    +-----------------+    +-----------+    +----+
#  | hs |----|   r1    |----|       r2        |----|    r3     |----| hd |
#  +----+    +---------+    +-----------------+    +-----------+    +----+
#            H.Encaps       End fc00:2::/64        End.DT6
#            pfplm ingress  drops doomed packets   fc00:3::d6
#            fc00:1::100    netem delay+reorder    pfplm egress
#                           towards r3             fc00:3::100
#
# r1 steers hs's datagrams to fd00:d::K over flow fK's SID list: fc00:2::K,
# fc00:3::d6 for odd K, fc00:2::K,fc00:2::ff,fc00:3::d6 for even K, and 16
# SIDs for f50.  pfplm_gen.py, on hs, sends each flow's datagrams in the
# middle of each period and marks every Nth datagram of the lossy flows as
# doomed (a Traffic Class bit); r2 drops the doomed ones with a rule whose
# counter is the ground truth of the network's loss.  Flows f1..f50 are
# monitored from the start; at run time f49 is removed and f51 added, then
# the egress and the ingress pfplm are killed (SIGKILL) and restarted.
#
# For each method (rules, sets, and altmark where the kernel has it: r1's
# routes mark the flows with the RFC 9343 option, r1's and r3's kernels
# count them, r3's STAMP reflector answers, and only the ingress runs
# pfplm): every block reported exact must have the
# sent count of the generator and the loss it doomed, exactly; blocks may
# be reported unknown only for a reason; pfplm must exit cleanly and leave
# the netfilter state (and r1's monitors) as it found it.  Scapy's STAMP layer queries the
# egress and decodes its answer.  Bad configurations are refused with a
# message and change nothing.

source lib.sh
source srv6_oam_lib.sh
source srv6_flows_lib.sh

# PERIOD and GUARD: at least 6 s and 2 s, longer on a slow guest
# (calibrate_period)
PERIOD=6
GUARD=2
readonly FLOWS=50
readonly DOOM=0x80
readonly SRC=fc00:1::100
readonly LISTEN=fc00:3::100
# Generous: a block takes PERIOD seconds whatever the host's speed, but a
# loaded host may make a few of them unknown.
readonly WAIT_BLOCKS=25

TMP=
PIDS=()
BLOCK_CLOCK=realtime

cleanup()
{
	local p

	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	cleanup_all_ns
	[ -n "$TMP" ] && rm -rf "$TMP"
}

trap cleanup EXIT

n() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# sids K: the SID list of flow fK.  f50's 16 SIDs go r2, r3, r2, r3:
# Linux stops processing local SIDs nested deeper than 8 (the lwtunnel
# recursion limit), so at most 6 in a row on one node.
sids()
{
	local k=$1

	if [ "$k" -eq 50 ]; then
		printf '%s,' fc00:2::32 fc00:2::f1 fc00:2::f2 fc00:2::f3 \
			fc00:2::f4 fc00:2::f5 fc00:3::e01 fc00:3::e02 \
			fc00:3::e03 fc00:3::e04 fc00:3::e05 fc00:2::f6 \
			fc00:2::f7 fc00:2::f8 fc00:2::f9
		echo fc00:3::d6
	elif ((k % 2)); then
		echo "fc00:2::$(printf %x "$k"),fc00:3::d6"
	else
		echo "fc00:2::$(printf %x "$k"),fc00:2::ff,fc00:3::d6"
	fi
}

# Lossy flows: every f5K, one doomed datagram in (2 + K % 4), and f50.
lossy_every()
{
	local k=$1

	if ((k % 5 == 0)); then
		echo $((2 + (k / 5) % 4))
	fi
}

setup()
{
	local k

	setup_ns hs r1 r2 r3 hd || exit "$ksft_skip"
	veth_link "$hs" veth0 "$r1" veth0 fd00:1::1/64 fd00:1::2/64
	veth_link "$r1" veth1 "$r2" veth0 fc00:12::1/64 fc00:12::2/64
	veth_link "$r2" veth1 "$r3" veth0 fc00:23::2/64 fc00:23::3/64
	veth_link "$r3" veth1 "$hd" veth0 fd00:e::1/64 fd00:e::2/64
	for ns in "$r1" "$r2" "$r3"; do
		n "$ns" sysctl -wq net.ipv6.conf.all.forwarding=1
	done
	ip -n "$r1" addr add "$SRC"/128 dev lo
	ip -n "$r3" addr add "$LISTEN"/128 dev lo noprefixroute
	# End.DT6 looks the inner destination up in its table (main) only:
	# the egress's address must be a local route there (and not the
	# unreachable prefix route of an address on lo).
	ip -n "$r3" -6 route add local "$LISTEN"/128 dev lo table main

	ip -n "$hs" -6 route add default via fd00:1::2
	ip -n "$r1" -6 route add default via fc00:12::2
	ip -n "$r2" -6 route add default via fc00:23::3
	ip -n "$r2" -6 route add fd00:1::/64 via fc00:12::1
	ip -n "$r2" -6 route add fc00:1::/64 via fc00:12::1
	ip -n "$r3" -6 route add default via fc00:23::2
	ip -n "$hd" -6 route add default via fd00:e::1
	ip -n "$r3" -6 route add fd00:d::/64 via fd00:e::2

	ip -n "$r2" -6 route add fc00:2::/64 encap seg6local action End \
		dev veth1
	ip -n "$r3" -6 route add fc00:3::d6/128 encap seg6local \
		action End.DT6 table 254 dev veth1
	ip -n "$r3" -6 route add fc00:3::e00/120 encap seg6local action End \
		dev veth1
	# one ip per namespace for the flows' addresses and routes
	for k in $(seq 1 $((FLOWS + 1))); do
		echo "addr add fd00:d::$(printf %x "$k")/64 dev veth0 nodad"
	done | ip -n "$hd" -batch - || exit "$ksft_fail"
	for k in $(seq 1 $((FLOWS + 1))); do
		echo "route add fd00:d::$(printf %x "$k")/128" \
			"encap seg6 mode encap segs $(sids "$k") dev veth1"
	done | ip -n "$r1" -batch - || exit "$ksft_fail"
	# The network's loss: r2 drops the doomed datagrams, and counts them.
	n "$r2" ip6tables -w -A FORWARD -m tos --tos "$DOOM/$DOOM" -j DROP
	# Delay and reordering on the way to the egress, well within the guard
	# time.
	n "$r2" tc qdisc add dev veth1 root netem delay 30ms 20ms
	# hd swallows the datagrams quietly.
	n "$hd" ip6tables -w -A INPUT -p udp --dport 9 -j DROP
	# Every table exists before pfplm runs, so that its reading one does
	# not show as a change of the netfilter state.
	for ns in "$r1" "$r3"; do
		for t in filter mangle raw; do
			n "$ns" ip6tables -w -t "$t" -S > /dev/null
		done
	done
}

# calibrate_period: a period this guest can keep.  pfplm reads a colour's
# counters after the guard and must be done T - G/2 later, or it marks the
# block unusable (a late reading may hold packets of the next block of that
# colour); each reading is one ip6tables-save or ipset save of about 4 x
# FLOWS rules or elements.  On the plain kernel that takes a fraction of a
# second; on the debug kernel on a loaded host it took more than the 5 s a
# 6 s period leaves, and every block of the test was unusable.  So the
# period is 5 times the slowest of three such saves here (a table of 4 x
# FLOWS SID-list rules in hd, which has no other), 6 s at least, and the
# guard a third of it: a reading then has T/2, 2.5 saves' time (a late
# one makes a block unknown, and each step waits for exact blocks), and a
# colour switch (one rule replaced; the legacy backend rewrites the table)
# G/2, less than a save's time, but pfplm starts it as early as it takes.
# The floor holds up to 1.2 s a save: the period of make check, whose
# length scales with it.
calibrate_period()
{
	local k t0 ms worst=0

	{
		echo "*mangle"
		echo ":calib - [0:0]"
		for k in $(seq 1 $((4 * FLOWS))); do
			echo "-A calib -m srh --srh-sid-list" \
				"$(sids $((k % FLOWS + 1))) -j RETURN"
		done
		echo "COMMIT"
	} | n "$hd" ip6tables-restore -w --noflush
	for k in 1 2 3; do
		t0=$(date +%s%N)
		n "$hd" ip6tables-save -c -t mangle > /dev/null
		ms=$((($(date +%s%N) - t0) / 1000000))
		((ms > worst)) && worst=$ms
	done
	n "$hd" ip6tables -w -t mangle -F calib
	n "$hd" ip6tables -w -t mangle -X calib
	PERIOD=$(((5 * worst + 999) / 1000))
	((PERIOD < 6)) && PERIOD=6
	GUARD=$((PERIOD / 3))
	echo "# period $PERIOD s, guard $GUARD s: one save of $((4 * FLOWS))" \
		"rules took up to $worst ms here"
}

# conf ROLE METHOD FLOW... : a pfplm configuration file on stdout
conf()
{
	local role=$1 method=$2 k peer
	shift 2

	echo "[pfplm]"
	echo "period = $PERIOD"
	echo "guard = $GUARD"
	echo "method = $method"
	echo "name = plm"
	if [ "$role" = ingress ]; then
		echo "source = $SRC"
		# the egress starts first; this only bounds a hang
		echo "peer-timeout = $SRV6_HANG_TIMEOUT"
		echo "results = $TMP/results.$method"
		echo "state = $TMP/state.$method"
		echo "prometheus = $TMP/prom.$method"
		peer=$LISTEN
	else
		echo "listen = $LISTEN"
		echo "state = $TMP/estate.$method"
		peer=$SRC
	fi
	for k in "$@"; do
		printf '[flow f%s]\nrole = %s\nid = %s\nsids = %s\npeer = %s\n' \
			"$k" "$role" "$k" "$(sids "$k")" "$peer"
	done
}

# The netfilter state a pfplm run must leave as it found it
nfstate()
{
	n "$1" ip6tables-save | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'
	n "$1" ipset list -n | sort
}

# start NS CONF LOG: a pfplm in the background; its pid in $pid
start_pfplm()
{
	ip netns exec "$1" pfplm -c "$2" >> "$3" 2>&1 &
	pid=$!
	PIDS+=("$pid")
}

# flow_names FLOW...: the flows' names as a JSON array
flow_names()
{
	printf '"f%s"\n' "$@" | jq -s -c .
}

# all_exact METHOD MIN_BLOCK COUNT FLOW...: every flow has COUNT exact
# blocks with traffic from block MIN_BLOCK on
all_exact()
{
	local method=$1 b=$2 count=$3
	shift 3

	[ -s "$TMP/results.$method" ] || return 1
	tail -n 2000 "$TMP/results.$method" |
	jq -e -s --argjson b "$b" --argjson c "$count" \
		--argjson fl "$(flow_names "$@")" '
		[.[] | select(.status == "exact" and .sent > 0 and
		 .block >= $b) | .flow] as $e |
		all($fl[]; . as $f | ([$e[] | select(. == $f)] | length) >= $c)' \
		> /dev/null
}

# all_blocks_reported METHOD BLOCK FLOW...: every flow has a result for
# BLOCK
all_blocks_reported()
{
	local method=$1 b=$2
	shift 2

	tail -n 2000 "$TMP/results.$method" |
	jq -e -s --argjson b "$b" --argjson fl "$(flow_names "$@")" '
		[.[] | select(.block == $b) | .flow] as $r |
		all($fl[]; . as $f | any($r[]; . == $f))' > /dev/null
}

# wait_until SECONDS CMD...: poll CMD every half period until it succeeds
# (not more often: the daemons under test need the CPU more)
wait_until()
{
	local end=$((SECONDS + $1))
	shift

	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep $((PERIOD / 2))
	done
}

# block_now: the current block, by the clock that numbers the method's
# blocks (CLOCK_TAI for the kernel's, method altmark)
block_now()
{
	if [ "$BLOCK_CLOCK" = tai ]; then
		python3 -c 'import sys, time
print(time.clock_gettime_ns(time.CLOCK_TAI) // (int(sys.argv[1]) * 10**9))' \
			"$PERIOD"
	else
		echo $(($(date +%s) / PERIOD))
	fi
}

# altmark_setup: the kernel's side of method altmark.  r1's routes mark
# each flow with the RFC 9343 option in the final-destination placement,
# FlowMonID K for fK, so that it is counted at r1 and at r3's End.DT6 only,
# however often a SID list visits a node; r3 monitors every FlowMonID (the
# operator's monitors; pfplm adds r1's) and answers pfplm's block queries
# with its STAMP reflector; both close blocks of PERIOD, GUARD after.
altmark_setup()
{
	local k ns

	for ns in "$r1" "$r3"; do
		n "$ns" sysctl -wq net.ipv6.altmark.period_ms=$((PERIOD * 1000)) \
			net.ipv6.altmark.guard_ms=$((GUARD * 1000)) || return 1
	done
	for k in $(seq 1 $((FLOWS + 1))); do
		echo "route replace fd00:d::$(printf %x "$k")/128 encap seg6" \
			"mode encap segs $(sids "$k") altmark flowmon $k dest" \
			"dev veth1"
	done | ip -n "$r1" -batch - || return 1
	for k in $(seq 1 $((FLOWS + 1))); do
		echo "altmark monitor add flowmon $k"
	done | ip -n "$r3" -batch - || return 1
	ip -n "$r3" stamp reflector add port 862 address "$LISTEN" altmark any
}

# amstate NS: its Alternate-Marking monitors, which a pfplm run of method
# altmark must leave as it found them
amstate()
{
	ip -n "$1" -j altmark monitor show | jq -r '.[].flowmon' | sort -n
}

run_method()
{
	local method=$1 k gen_args=() every before ing egr ipid epid b role
	local flows_all flows_new rc1 rc2 out

	RET=0
	for k in $(seq 1 $((FLOWS + 1))); do
		gen_args+=(--dst "fd00:d::$(printf %x "$k")")
		every=$(lossy_every "$k")
		[ -n "$every" ] && gen_args+=(--lossy "fd00:d::$(printf %x "$k")=$every")
	done
	flows_all=$(seq 1 $FLOWS)
	flows_new="$(seq 1 48) 50 51"

	# r2's drop counter counts this run's losses only.
	n "$r2" ip6tables -w -Z FORWARD
	# Someone else's rule and set, which pfplm must leave alone.
	for ns in "$r1" "$r3"; do
		n "$ns" ip6tables -w -t mangle -A FORWARD -p udp --dport 7 -j ACCEPT
		n "$ns" ipset create other hash:ip family inet6
	done
	before=$TMP/before.$method
	{
		nfstate "$r1"; nfstate "$r3"
		[ "$method" = altmark ] && amstate "$r1"
	} > "$before"

	conf ingress "$method" $flows_all > "$TMP/ing.conf"
	conf egress "$method" $flows_all > "$TMP/egr.conf"
	ing=$TMP/ing.log.$method egr=$TMP/egr.log.$method
	: > "$TMP/results.$method"
	: > "$egr"

	# method altmark: no daemon on the egress, the kernel answers
	epid=
	BLOCK_CLOCK=realtime
	if [ "$method" = altmark ]; then
		BLOCK_CLOCK=tai
	else
		start_pfplm "$r3" "$TMP/egr.conf" "$egr"; epid=$pid
	fi
	start_pfplm "$r1" "$TMP/ing.conf" "$ing"; ipid=$pid
	ip netns exec "$hs" python3 ./pfplm_gen.py --period "$PERIOD" --doom "$DOOM" \
		--clock "$BLOCK_CLOCK" --out "$TMP/gen.$method" "${gen_args[@]}" &
	gpid=$!
	PIDS+=("$gpid")

	# 1. Steady state: every flow has exact blocks.
	wait_until $((WAIT_BLOCKS * PERIOD)) all_exact "$method" 0 2 $flows_all
	check_err $? "not every flow got 2 exact blocks: $(tail -n 3 "$ing")"

	# 2. f49 removed, f51 added, on both sides, while running.
	conf ingress "$method" $flows_new > "$TMP/ing.conf"
	conf egress "$method" $flows_new > "$TMP/egr.conf"
	kill -HUP ${epid:+"$epid"} "$ipid"
	b=$(block_now)
	wait_until $((WAIT_BLOCKS * PERIOD)) all_exact "$method" "$b" 2 51
	check_err $? "flow f51, added at run time, got no exact block"

	# 3. Each daemon killed (SIGKILL) and restarted: the blocks it cannot
	# answer for are unknown, none is wrong, and exact blocks follow.
	# (Method altmark: the restarted ingress takes over the monitors the
	# killed one added, and deletes them at its end; step 8.)
	for role in ${epid:+egress} ingress; do
		if [ "$role" = egress ]; then
			kill -9 "$epid"
			wait "$epid" 2>/dev/null
			start_pfplm "$r3" "$TMP/egr.conf" "$egr"; epid=$pid
		else
			kill -9 "$ipid"
			wait "$ipid" 2>/dev/null
			start_pfplm "$r1" "$TMP/ing.conf" "$ing"; ipid=$pid
		fi
		b=$(block_now)
		wait_until $((WAIT_BLOCKS * PERIOD)) all_exact "$method" "$b" 2 \
			$flows_new
		check_err $? "no exact blocks after the $role restarted"
	done

	# The end of the traffic, and of its last blocks.
	kill -TERM "$gpid"
	wait "$gpid"
	check_err $? "the generator failed"
	b=$(jq -s 'map(.block) | max' "$TMP/gen.$method")
	wait_until $((WAIT_BLOCKS * PERIOD)) all_blocks_reported "$method" \
		$((b + 1)) $flows_new
	check_err $? "the last blocks were not reported"

	# 5. Scapy's STAMP layer asks the egress for a block the ingress
	# reported, and decodes the answer (srv6_altmark_test.sh asks the
	# kernel's reflector for its blocks).
	if [ "$method" != altmark ]; then
		scapy_query "$method"
		check_err $? "Scapy's STAMP query of the egress failed"
	fi

	# 6. The figures, against the generator and r2's drop counter.
	python3 - "$TMP/results.$method" "$TMP/gen.$method" \
		"$(n "$r2" ip6tables -w -L FORWARD -v -x -n | awk 'NR == 3 { print $1 }')" \
		"$TMP/prom.$method" <<-'EOF'
	import json, sys
	res = [json.loads(l) for l in open(sys.argv[1])]
	gen = {}
	for l in open(sys.argv[2]):
	    g = json.loads(l)
	    k = int(g["dst"].rsplit(":", 1)[1], 16)
	    gen[("f%d" % k, g["block"])] = g
	bad, checked, lossy, unsure = [], 0, 0, 0
	reasons = {}
	for r in res:
	    if r["status"] != "exact":
	        if not r["reason"]:
	            bad.append("unknown without a reason: %s" % r)
	        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
	        continue
	    g = gen.get((r["flow"], r["block"]), {"sent": 0, "doomed": 0,
	                                          "sure": True})
	    if not g["sure"]:
	        unsure += 1
	        continue
	    checked += 1
	    if r["sent"] != g["sent"] or r["lost"] != g["doomed"] or \
	            r["received"] != r["sent"] - r["lost"]:
	        bad.append("%s block %d: sent %d lost %d, generator sent %d "
	                   "doomed %d" % (r["flow"], r["block"], r["sent"],
	                                  r["lost"], g["sent"], g["doomed"]))
	    if r["lost"] > 0:
	        lossy += 1
	    for k in ("start_ns", "end_ns"):
	        if not isinstance(r[k], int):
	            bad.append("%s is not an integer" % k)
	doomed = sum(g["doomed"] for g in gen.values())
	if doomed != int(sys.argv[3]):
	    bad.append("generator doomed %d, r2 dropped %s" % (doomed, sys.argv[3]))
	if lossy == 0:
	    bad.append("no exact block had a loss")
	# The Prometheus totals are the last result's running totals.
	last = {}
	for r in res:
	    last[r["flow"]] = r["totals"]
	prom = {}
	for l in open(sys.argv[4]):
	    if l.startswith("srv6_pfplm_lost_packets_total{"):
	        prom[l.split('flow="')[1].split('"')[0]] = int(l.split()[-1])
	for f, v in prom.items():
	    if v != last[f]["lost"]:
	        bad.append("prometheus %s lost %d, results %d" % (f, v, last[f]["lost"]))
	if len(prom) != 50:
	    bad.append("prometheus has %d flows, not 50" % len(prom))
	print("%d exact blocks checked (%d with losses), %d unsure, unknown: %s"
	      % (checked, lossy, unsure, reasons))
	for b in bad[:20]:
	    print("MISMATCH", b)
	sys.exit(1 if bad or checked < 100 else 0)
	EOF
	check_err $? "reported figures differ from the ground truth"

	# 7. --show prints the latest results.
	out=$(pfplm --show --state "$TMP/state.$method" -j |
		jq -r '.flows | map(.flow) | sort | join(" ")')
	[ "$(wc -w <<< "$out")" = 50 ]
	check_err $? "pfplm --show: $out"

	# 8. SIGTERM: both exit 0, and leave exactly what they found.
	kill -TERM "$ipid" ${epid:+"$epid"}
	wait "$ipid"; rc1=$?
	rc2=0
	[ -n "$epid" ] && { wait "$epid"; rc2=$?; }
	[ "$rc1" = 0 ] && [ "$rc2" = 0 ]
	check_err $? "pfplm exited with $rc1 (ingress), $rc2 (egress)"
	diff -u "$before" <({
		nfstate "$r1"; nfstate "$r3"
		[ "$method" = altmark ] && amstate "$r1"
	})
	check_err $? "the netfilter state or r1's monitors after pfplm differ from before"
	for ns in "$r1" "$r3"; do
		n "$ns" ip6tables -w -t mangle -D FORWARD -p udp --dport 7 -j ACCEPT
		n "$ns" ipset destroy other
	done
	# How the host's speed showed (whatever the result): late switches
	# and readings make blocks unknown, never wrong.
	grep -h -e " late" -e "no answer" "$ing" "$egr" | head -n 10
	if [ "$RET" != 0 ]; then
		echo "--- ingress log"; tail -n 30 "$ing"
		echo "--- egress log"; tail -n 30 "$egr"
	fi
	log_test "pfplm $method: exact loss per flow and block, 50 flows"
}

scapy_query()
{
	local method=$1 rec

	# The latest exact block of f5 with a loss.
	rec=$(jq -s -c '[.[] | select(.flow == "f5" and .status == "exact" and
		.lost > 0)] | last' "$TMP/results.$method")
	n "$r1" python3 - "$rec" "$SRC" "$LISTEN" "$PERIOD" <<-'EOF'
	import json, socket, struct, sys
	from scapy.layers.inet import UDP
	from scapy.contrib import stamp as sst
	rec = json.loads(sys.argv[1])
	src, dst, period = sys.argv[2], sys.argv[3], int(sys.argv[4])
	block = rec["block"]
	q = sst.STAMPSessionSenderTestUnauthenticated(
	    seq=block & 0xffffffff, ssid=rec["id"], tlv_objects=[
	        sst.STAMPTestTLV(type=5, len=12,
	                         value=struct.pack("!III", rec["sent"], 0, 0)),
	        sst.STAMPTestTLV(type=252, len=16,
	                         value=struct.pack("!BBBBIQ", 1, 0, block % 2, 0,
	                                           period * 1000, block))])
	s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
	s.bind((src, 40000))
	s.settimeout(30)
	s.sendto(bytes(q), (dst, 862))
	data, addr = s.recvfrom(2048)
	# The layer takes the TLV area's length from the UDP header above it.
	r = sst.STAMPSessionReflectorTestUnauthenticated(
	    data, _parent=UDP(len=8 + len(data)))
	tlvs = {t.type: t for t in r.tlv_objects}
	s_tx, r_rx, r_tx = struct.unpack("!III", tlvs[5].value)
	ver, status, colour, _f, pms, blk = struct.unpack("!BBBBIQ",
	                                                  tlvs[252].value)
	ok = (r.seq_sender == block & 0xffffffff and r.ssid == rec["id"] and
	      s_tx == rec["sent"] and r_rx == rec["received"] and
	      status == 0 and blk == block and colour == block % 2 and
	      pms == period * 1000 and ver == 1)
	print("egress answer for", rec["flow"], "block", block, ": status",
	      status, "S_TxC", s_tx, "R_RxC", r_rx, "(reported received",
	      rec["received"], ")")
	sys.exit(0 if ok else 1)
	EOF
}

# Bad configurations: a message, exit status 2, nothing configured.
test_refused()
{
	local before out rc

	RET=0
	before=$(nfstate "$r1")
	refuse()
	{
		local what=$1 msg=$2
		shift 2

		out=$(ip netns exec "$r1" timeout "$SRV6_HANG_TIMEOUT" pfplm "$@" 2>&1)
		rc=$?
		[ "$rc" = 2 ] && grep -q -- "$msg" <<< "$out"
		check_err $? "$what: exit $rc, not 2 with '$msg': $out"
		[ "$(nfstate "$r1")" = "$before" ]
		check_err $? "$what: the netfilter state changed"
	}
	local f="name=x role=ingress id=1 peer=$LISTEN"
	refuse "malformed SID" "is not an IPv6 SID" \
		--source "$SRC" --flow "$f sids=fc00:2::1,fc00::zz"
	refuse "17 SIDs" "at most 16" --source "$SRC" \
		--flow "$f sids=$(sids 50),fc00:3::d7"
	refuse "guard longer than half the period" "too short for the guard" \
		--source "$SRC" --period 2 --guard 1.5 --flow "$f sids=$(sids 1)"
	refuse "same bit twice" "same bit" --source "$SRC" --colour-bit 3 \
		--monitor-bit 3 --flow "$f sids=$(sids 1)"
	refuse "two flows, one SID list" "same SID list" --source "$SRC" \
		--flow "$f sids=$(sids 1)" \
		--flow "name=y role=ingress id=2 peer=$LISTEN sids=$(sids 1)"
	refuse "no source" "need 'source'" --flow "$f sids=$(sids 1)"
	refuse "a peer that never answers" "no answer from the egress" \
		--source "$SRC" --peer-timeout 3 \
		--flow "name=x role=ingress id=1 peer=fc00:3::999 sids=$(sids 1)"
	n "$r1" ip6tables -w -t mangle -A POSTROUTING -j DSCP --set-dscp 0x01
	before=$(nfstate "$r1")
	refuse "bits used by another rule" "already used by another rule" \
		--source "$SRC" --flow "$f sids=$(sids 1)"
	n "$r1" ip6tables -w -t mangle -D POSTROUTING -j DSCP --set-dscp 0x01
	log_test "pfplm: bad configurations are refused and change nothing"
}

flows_require pfplm ip6tables ip6tables-save ipset jq tc
srv6_require_py scapy.contrib.stamp

TMP=$(mktemp -d)
setup
if ! n "$r1" ipset create probe hash:sr6 2>/dev/null; then
	echo "SKIP: ipset or the kernel has no hash:sr6 set type"
	exit "$ksft_skip"
fi
n "$r1" ipset destroy probe

calibrate_period
readonly PERIOD GUARD
test_refused
run_method rules
run_method sets
if ! ip -n "$r3" altmark monitor show > /dev/null 2>&1; then
	log_test_skip "pfplm altmark: no Alternate-Marking in this kernel or ip"
elif ! altmark_setup; then
	RET=1
	log_test "pfplm altmark: the routes, monitors and reflector"
else
	run_method altmark
fi

exit "$EXIT_STATUS"

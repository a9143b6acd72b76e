#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IPv6 Alternate-Marking (RFC 9343) of seg6 routes, counted per colour and
# closed into blocks by the kernel at the ingress and at every segment
# endpoint.
#
#  +----+    +----------+    +-----------+    +--------------+    +----+
#  | hs |----|    r1    |----|    r2     |----|      r3      |----| hd |
#  +----+    +----------+    +-----------+    +--------------+    +----+
#            H.Encaps        End fc00:2::e    End.DT6 fc00:3::d6
#            altmark         netem delay      netem drops every 7th
#            flowmon 7       DELAY_MS out     packet out (r2 -> r3)
#
# r1 marks the pings of hs to fd00:d::a with FlowMonID 7; r1, r2 and r3
# monitor it.  r1's blocks are what it sent, r2's what reached the first
# segment endpoint, r3's what reached the last; the loss is injected on
# r2 -> r3 only, and counted there by ip6tables, independently of the
# monitors.  The option on the wire is decoded by a parser written from
# RFC 9343 here, not by the kernel's code.

source lib.sh
source srv6_oam_lib.sh

readonly FLOWMON=7
readonly SIDS=fc00:2::e,fc00:3::d6
readonly PERIOD_MS=4000
readonly GUARD_MS=1000
readonly DELAY_MS=200
readonly PINGS=120
readonly TMPD=$(mktemp -d)

cleanup()
{
	capture_stop
	cleanup_all_ns
	rm -rf "$TMPD"
}

trap cleanup EXIT

srv6_require ip tcpdump jq ip6tables python3

setup()
{
	local ns

	srv6_setup_ns -f -s hs r1 r2 r3 hd

	veth_link "$hs" veth0 "$r1" veth0 fd00:1::1/64 fd00:1::2/64
	veth_link "$r1" veth1 "$r2" veth0 fc00:12::1/64 fc00:12::2/64
	veth_link "$r2" veth1 "$r3" veth0 fc00:23::2/64 fc00:23::3/64
	veth_link "$r3" veth1 "$hd" veth0 fd00:d::1/64 fd00:d::a/64

	ip -n "$hs" -6 route add default via fd00:1::2
	ip -n "$r1" -6 route add default via fc00:12::2
	ip -n "$r2" -6 route add default via fc00:23::3
	ip -n "$r2" -6 route add fd00:1::/64 via fc00:12::1
	ip -n "$r3" -6 route add default via fc00:23::2
	ip -n "$hd" -6 route add default via fd00:d::1

	ip -n "$r2" -6 route add fc00:2::e/128 encap seg6local action End \
		dev veth1
	ip -n "$r3" -6 route add fc00:3::d6/128 encap seg6local \
		action End.DT6 table 254 dev veth1

	for ns in "$r1" "$r2" "$r3"; do
		ip netns exec "$ns" sysctl -wq \
			net.ipv6.altmark.guard_ms="$GUARD_MS" \
			net.ipv6.altmark.period_ms="$PERIOD_MS" || return
	done
}

if ! setup_ns probe || ! ip netns exec "$probe" \
	test -e /proc/sys/net/ipv6/altmark/period_ms; then
	echo "SKIP: no IPv6 Alternate-Marking (CONFIG_IPV6_ALTMARK)"
	exit "$ksft_skip"
fi
if ! ip altmark help 2>&1 | grep -q "monitor add"; then
	echo "SKIP: ip without \"ip altmark\""
	exit "$ksft_skip"
fi

setup || exit "$ksft_fail"

# ---- configuration ------------------------------------------------------

route_altmark()
{
	ip -n "$r1" -6 -j route show fd00:d::a/128 | jq -c '.[0].altmark'
}

# the monitors' configuration (not their blocks, which close as time goes)
monitors()
{
	local ns

	for ns in "$r1" "$r2"; do
		ip -n "$ns" -j altmark monitor show |
			jq -c '[.[] | [.flowmon, .history, .period_ms]]'
		ip netns exec "$ns" sysctl -n net.ipv6.altmark.period_ms \
			net.ipv6.altmark.guard_ms
	done
}

RET=0
ip -n "$r1" -6 route add fd00:d::a/128 encap seg6 mode encap segs "$SIDS" \
	altmark flowmon "$FLOWMON" segment delay dev veth1
check_err $? "a route with altmark was refused"
[ "$(route_altmark)" = '{"flowmon":7,"place":"segment","delay":true}' ]
check_err $? "the route reads back as $(route_altmark)"
ip -n "$r1" -6 route show fd00:d::a/128 |
	grep -q "altmark flowmon 7 segment delay"
check_err $? "ip route show: $(ip -n "$r1" -6 route show fd00:d::a/128)"
log_test "seg6 route with altmark: added and read back"

RET=0
check_refused monitors "FlowMonID" \
	ip -n "$r1" altmark monitor add flowmon 1048576
check_refused monitors "history" \
	ip -n "$r1" altmark monitor add flowmon 1 history 33
for ns in "$r1" "$r2" "$r3"; do
	ip -n "$ns" altmark monitor add flowmon "$FLOWMON"
	check_err $? "monitor add in $ns"
done
check_refused monitors "the FlowMonID has a monitor" \
	ip -n "$r1" altmark monitor add flowmon "$FLOWMON"
check_refused monitors "no monitor of this FlowMonID" \
	ip -n "$r1" altmark monitor del flowmon 8
check_refused monitors "" \
	ip netns exec "$r1" sysctl -wq net.ipv6.altmark.period_ms=2000
check_refused monitors "" \
	ip netns exec "$r2" sysctl -wq net.ipv6.altmark.guard_ms=3000
[ "$(ip -n "$r1" -j altmark monitor show | jq -c '[.[] | [.flowmon, .history, .period_ms]]')" = \
	"[[$FLOWMON,16,$PERIOD_MS]]" ]
check_err $? "monitor show: $(ip -n "$r1" -j altmark monitor show)"
log_test "monitors: added once, bounds and busy sysctls refused"

# ---- the family through its YNL spec -----------------------------------

# ynl ARGS: the kernel tree's cli.py on the altmark spec, in r1
ynl()
{
	ip netns exec "$r1" python3 "$YNL_CLI" --spec "$YNL_SPEC" \
		--no-schema --output-json "$@"
}

# $1 operation, $2 request, $3 what the error must say, $4 description
check_ynl_refused()
{
	local before out

	RET=0
	before=$(monitors)
	out=$(ynl --do "$1" --json "$2" 2>&1)
	check_fail $? "accepted: $1 $2"
	grep -q "$3" <<< "$out"
	check_err $? "no \"$3\": $out"
	[ "$(monitors)" = "$before" ]
	check_err $? "$1 $2 changed the monitors"
	log_test "ynl: the kernel refuses $4"
}

KSRC=${KSRC:-$(cd "$(dirname "$0")/../../../.." && pwd)}
YNL_CLI=$KSRC/tools/net/ynl/cli.py
YNL_SPEC=$KSRC/Documentation/netlink/specs/altmark.yaml
if [ ! -f "$YNL_CLI" ] || [ ! -f "$YNL_SPEC" ] ||
   ! python3 -c 'import yaml' 2>/dev/null; then
	log_test_skip "ynl: no $YNL_CLI, $YNL_SPEC or PyYAML (set KSRC)"
else
	RET=0
	out=$(ynl --dump monitor-get 2>&1)
	jq -e --argjson f "$FLOWMON" 'length == 1 and .[0].flowmon == $f and
		(.[0].counters | length) == 2' <<< "$out" > /dev/null
	check_err $? "monitor-get: $out"
	log_test "ynl: cli.py --dump monitor-get gives what was configured"

	check_ynl_refused monitor-add '{"flowmon": 1048576}' \
		"out of range" "a FlowMonID past 20 bits"
	check_ynl_refused monitor-add '{"flowmon": 9, "history": 1}' \
		"out of range" "a history of one block"
	check_ynl_refused monitor-add '{"history": 4}' \
		"miss-type" "monitor-add without a FlowMonID"
	check_ynl_refused monitor-del '{"flowmon": 9, "history": 4}' \
		"Unknown attribute type" "history in monitor-del (its own policy)"
fi

# ---- the option on the wire ---------------------------------------------

# decode PCAP: each IPv6 packet's AltMark options, parsed from RFC 9343
# (section 3) and RFC 8200 here: "PLACE FLOWMON L D RESERVED NEXT LENOK" a
# line, PLACE being hop (Hop-by-Hop), segment (Destination Options before
# the routing header) or dest (after it), NEXT the header after the
# extension headers and LENOK 1 if the Payload Length is the packet's.
decode()
{
	python3 - "$1" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic = struct.unpack("<I", data[:4])[0]
end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
link = struct.unpack(end + "I", data[20:24])[0]
off = 24
while off + 16 <= len(data):
    incl = struct.unpack(end + "I", data[off + 8:off + 12])[0]
    pkt = data[off + 16:off + 16 + incl]
    off += 16 + incl
    if link == 1:                       # Ethernet
        if pkt[12:14] != b"\x86\xdd":
            continue
        pkt = pkt[14:]
    if len(pkt) < 40 or pkt[0] >> 4 != 6:
        continue
    nh, pos, seen_rh, opts = pkt[6], 40, False, []
    while nh in (0, 43, 60) and pos + 8 <= len(pkt):
        hlen = (pkt[pos + 1] + 1) * 8
        if nh == 43:
            seen_rh = True
        else:
            place = "hop" if nh == 0 else ("dest" if seen_rh else "segment")
            i = pos + 2
            while i < pos + hlen:
                t = pkt[i]
                if t == 0:
                    i += 1
                    continue
                ln = pkt[i + 1]
                if t == 0x12:
                    if ln != 4:
                        opts.append(f"{place} badlen {ln}")
                    else:
                        w = struct.unpack(">I", pkt[i + 2:i + 6])[0]
                        opts.append(f"{place} {w >> 12} {(w >> 11) & 1} "
                                    f"{(w >> 10) & 1} {w & 0x3ff}")
                i += 2 + ln
        nh, pos = pkt[pos], pos + hlen
    lenok = struct.unpack(">H", pkt[4:6])[0] + 40 == len(pkt)
    for o in opts:
        print(o, nh, int(lenok))
EOF
}

# one_ping MODE PLACE SIDS [DST]: the option of one ping's packet to DST
# (fd00:d::a, or an IPv4 address) as r2 receives it (the ping may have no
# answer: inline's and a lone SID's packets end at r2 or r3, and nothing
# routes IPv4 or Ethernet frames back)
one_ping()
{
	local dst=${4:-fd00:d::a} fam=-6 len=128
	local pcap=$TMPD/$1-$2-$3-$dst.pcap

	[[ "$dst" == *.* ]] && fam=-4 len=32
	ip -n "$r1" "$fam" route replace "$dst/$len" encap seg6 mode "$1" \
		segs "$3" altmark flowmon "$FLOWMON" "$2" dev veth1 ||
		return
	capture_start "$r2" veth0 "$pcap" ip6 and dst fc00:2::e || return
	ip netns exec "$hs" ping "$fam" -c 1 -W 1 "$dst" > /dev/null
	capture_wait "$pcap" 1
	capture_stop
	decode "$pcap" | head -n 1
}

# option_ok LINE PLACE NEXT: decode's LINE is FlowMonID FLOWMON's option in
# PLACE, reserved bits zero, no D flag, a colour, NEXT after the extension
# headers and the Payload Length right
option_ok()
{
	local p id l d rsv nh lenok

	read -r p id l d rsv nh lenok <<< "$1"
	[ "$p" = "$2" ] && [ "$id" = "$FLOWMON" ] && [ "$rsv" = 0 ] &&
		[ "$d" = 0 ] && { [ "$l" = 0 ] || [ "$l" = 1 ]; } &&
		[ "$nh" = "$3" ] && [ "$lenok" = 1 ]
}

# after the headers: the inner IPv6 packet (41), or with inline the
# ping's own ICMPv6 (58); a reduced encapsulation to one segment has no
# SRH, and its dest option comes right after the IPv6 header
for mode in encap.red encap inline encap.red/1; do
	RET=0
	next=41 sids=$SIDS
	[ "$mode" = inline ] && next=58
	[ "$mode" = encap.red/1 ] && sids=fc00:2::e
	for place in hop segment dest; do
		want=$place
		[ "$mode/$place" = encap.red/1/dest ] && want=segment
		got=$(one_ping "${mode%/1}" "$place" "$sids")
		option_ok "$got" "$want" "$next"
		check_err $? "$mode, $place: the option decodes as \"$got\""
	done
	log_test "the option on the wire, mode ${mode/\/1/ to one segment}: hop, segment, dest"
done

# ---- IPv4 packets and Ethernet frames in the encapsulation ----------------

# what r1, r2 and r3 counted of FLOWMON
counted()
{
	local ns

	for ns in "$r1" "$r2" "$r3"; do
		ip -n "$ns" -s -j altmark monitor show flowmon "$FLOWMON" |
			jq '[.[0].counters[].packets] | add'
	done | paste -sd " "
}

counted_is()
{
	[ "$(counted)" = "$1" ]
}

# hs's IPv4 pings to hd's 10.0.13.10, encapsulated by r1 and decapsulated
# by r3's End.DX4; hs's IPv6 pings, encapsulated with their Ethernet
# frames (l2encap) and sent out by r3's End.DX2
ipv4_l2_setup()
{
	local ns

	for ns in "$r1" "$r3"; do
		ip netns exec "$ns" sysctl -wq net.ipv4.ip_forward=1 || return
	done
	ip -n "$hs" addr add 10.0.1.1/24 dev veth0 || return
	ip -n "$r1" addr add 10.0.1.2/24 dev veth0 || return
	ip -n "$r3" addr add 10.0.13.1/24 dev veth1 || return
	ip -n "$hd" addr add 10.0.13.10/24 dev veth0 || return
	ip -n "$hs" route add 10.0.13.0/24 via 10.0.1.2 || return
	ip -n "$r3" -6 route add fc00:3::d4/128 encap seg6local \
		action End.DX4 nh4 10.0.13.10 dev veth1 || return
	ip -n "$r3" -6 route add fc00:3::d2/128 encap seg6local \
		action End.DX2 oif veth1 dev veth1
}

# The header chain ends in the IPv4 packet (4) or the Ethernet frame (143).
# Each ping is counted by r1; by r2's End with the segment placement; by
# r3's End.DX4 or End.DX2 with the segment and the dest ones (nobody has
# altmark_enabled yet: the Hop-by-Hop option is counted by r1 only).
RET=0
ipv4_l2_setup
check_err $? "the IPv4 and End.DX2 set-up failed"
log_test "IPv4 and Ethernet in the encapsulation: set up"
for mode in encap.red encap l2encap.red l2encap; do
	RET=0
	dst=10.0.13.10 next=4 sids=fc00:2::e,fc00:3::d4
	if [[ "$mode" == l2* ]]; then
		dst=fd00:d::a next=143 sids=fc00:2::e,fc00:3::d2
	fi
	for place in hop segment dest; do
		before=$(counted)
		got=$(one_ping "$mode" "$place" "$sids" "$dst")
		option_ok "$got" "$place" "$next"
		check_err $? "$mode, $place: the option decodes as \"$got\""
		read -r a1 a2 a3 <<< "$before"
		want="$((a1 + 1)) $a2 $a3"
		[ "$place" = segment ] && want="$((a1 + 1)) $((a2 + 1)) $((a3 + 1))"
		[ "$place" = dest ] && want="$((a1 + 1)) $a2 $((a3 + 1))"
		slowwait 30 counted_is "$want"
		check_err $? "$mode, $place: r1 r2 r3 counted $before, then $(counted)"
	done
	what="IPv4 packets"
	[[ "$mode" == l2* ]] && what="Ethernet frames"
	log_test "$what, mode $mode: the option on the wire and counted, hop, segment, dest"
done

# ---- exact loss per block and per segment, mean delay ---------------------

ip -n "$r1" -6 route change fd00:d::a/128 encap seg6 mode encap \
	segs "$SIDS" altmark flowmon "$FLOWMON" segment delay dev veth1
tc -n "$r1" qdisc add dev veth1 root netem delay "${DELAY_MS}ms"
ip netns exec "$r2" ip6tables -A FORWARD -d fc00:3::d6 \
	-m statistic --mode nth --every 7 --packet 3 -j DROP

# blocks NS: "number packets bytes ts_sum dmark flags" of each closed block
blocks()
{
	ip -n "$1" -j altmark monitor show flowmon "$FLOWMON" |
		jq -r '.[0].blocks[] | [.number, .packets, .bytes, .ts_sum,
			(.dmark_ns // -1), .partial, .unsure] | join(" ")'
}

sent_total()
{
	ip -n "$r1" -s -j altmark monitor show flowmon "$FLOWMON" |
		jq '[.[0].counters[].packets] | add'
}

closed_total()
{
	blocks "$1" | awk '{ n += $2 } END { print n + 0 }'
}

last_block()
{
	blocks "$1" | awk 'END { print $1 + 0 }'
}

# every packet r1 sent is in one of its closed blocks, and r2 and r3 have
# closed that block too
all_closed()
{
	local last

	[ "$(closed_total "$r1")" -eq "$(sent_total)" ] || return
	last=$(last_block "$r1")
	[ "$(last_block "$r2")" -ge "$last" ] &&
		[ "$(last_block "$r3")" -ge "$last" ]
}

# fresh monitors: their blocks hold the pings below and nothing else, for
# 32 periods (the reflectors below answer from them)
for ns in "$r1" "$r2" "$r3"; do
	ip -n "$ns" altmark monitor del flowmon "$FLOWMON"
	ip -n "$ns" altmark monitor add flowmon "$FLOWMON" history 32
done
rtt_max=$(ip netns exec "$hs" ping -6 -q -i 0.05 -c "$PINGS" -W 1 fd00:d::a |
	sed -n 's|^rtt [^=]*= [^/]*/[^/]*/\([^/]*\)/.*|\1|p')
RET=0
slowwait $((4 * PERIOD_MS / 1000 + 120)) all_closed
check_err $? "the blocks of the pings were not all closed"
drops=$(ip netns exec "$r2" ip6tables -L FORWARD -v -x -n |
	awk '$3 == "DROP" { print $1 }')

blocks "$r1" > "$TMPD/r1"
blocks "$r2" > "$TMPD/r2"
blocks "$r3" > "$TMPD/r3"
# The one-way delay r1 -> r2 is at least netem's, and within 5% of it
# unless the host delayed the pings themselves more than that: then at
# most the round trip of the slowest ping, which it is part of.  A block that a node
# closed late (unsure) may hold packets of the next block of its colour
# there, or of the one before if that one was never closed: it is
# compared merged with them, as RFC 9341 aggregates blocks.
python3 - "$TMPD" "$drops" "$PINGS" "$DELAY_MS" "${rtt_max:-0}" <<'EOF'
import sys
d, drops, pings = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
lo = float(sys.argv[4])
hi = max(lo * 1.05, float(sys.argv[5]))
def load(n):
    b = {}
    for line in open(f"{d}/{n}"):
        num, pk, by, ts, dm, partial, unsure = line.split()
        b[int(num)] = (int(pk), int(by), int(ts), int(dm), unsure == "true")
    return b
nodes = [load("r1"), load("r2"), load("r3")]
r1, r2, r3 = nodes
up = {}
def root(n):
    while up.get(n, n) != n:
        n = up[n]
    return n
unsure = set()
for b in nodes:
    for n, v in b.items():
        if v[4]:
            unsure.add(n)
            for m in (n - 2, n + 2):
                up[root(m)] = root(n)
groups = {}
for n in sorted(set().union(*nodes)):
    groups.setdefault(root(n), []).append(n)
def total(b, g, i):
    return sum(b[n][i] for n in g if n in b)
bad = []
seg1 = seg2 = 0
delays = []
for g in groups.values():
    pk, by, ts = (total(r1, g, i) for i in range(3))
    got2, by2, ts2 = (total(r2, g, i) for i in range(3))
    if pk == 0:
        continue
    if got2 != pk or by2 != by:
        bad.append(f"blocks {g}: r1 sent {pk} ({by} B), r2 got {got2} ({by2} B)")
    seg1 += pk - got2
    seg2 += got2 - total(r3, g, 0)
    if got2 == pk:
        delays.append((ts2 - ts) / pk / 1e6)
    # the first packet of every block is double-marked (no GSO here),
    # and a block closed in time says when it was counted
    for n in g:
        if n in unsure or r1.get(n, (0,))[0] == 0:
            continue
        dm, dm2 = r1[n][3], r2.get(n, (0, 0, 0, -1))[3]
        if dm < 0 or dm2 < 0:
            bad.append(f"block {n}: no double-marked packet (r1 {dm}, r2 {dm2})")
        else:
            delays.append((dm2 - dm) / 1e6)
sent = sum(v[0] for v in r1.values())
if sent != pings:
    bad.append(f"r1 closed {sent} packets, not the {pings} pings")
if seg1 != 0:
    bad.append(f"r1 -> r2 lost {seg1}, not 0")
if seg2 != drops or drops == 0:
    bad.append(f"r2 -> r3 lost {seg2}, ip6tables dropped {drops}")
for dl in delays:
    if not lo <= dl <= hi:
        bad.append(f"delay {dl:.2f} ms, not between netem's {lo} ms "
                   f"and {hi} ms (5% more, or the slowest round trip)")
if not delays:
    bad.append("no delay measured")
if bad:
    print("\n".join(bad))
else:
    print(f"{sent} packets, lost r2->r3 {seg2}, {len(unsure)} unsure",
          "blocks, delays", " ".join("%.1f" % x for x in delays),
          f"(at most {hi} ms)")
sys.exit(1 if bad else 0)
EOF
check_err $? "the blocks do not add up"
log_test "exact loss per block and per segment, mean and double-marked delay"

# ---- the STAMP reflector answers from the blocks ---------------------------

# stamp_q CMD DST ARGS: stamp_test.py's block queries, sent by r1
stamp_q()
{
	ip netns exec "$r1" python3 ./stamp_test.py "$1" "$2" --ssid 7 \
		--period-ms "$PERIOD_MS" "${@:3}"
}

# answers_of FILE: the answers that the blocks of FILE (as blocks()
# prints them) give, "FLOWMON N 0 FLAGS PACKETS BYTES TS_SUM DMARK" a line
answers_of()
{
	awk -v f="$FLOWMON" '{
		flags = ($6 == "true") + 2 * ($7 == "true") + 4 * ($5 >= 0)
		print f, $1, 0, flags, $2, $3, $4, ($5 < 0 ? 0 : $5)
	}' "$1"
}

# check_answers NS DST: the reflector at DST answers a query for each
# block NS closed (in $TMPD/NS) with that block, field for field; a block
# that has left the history since is answered status 5 (too old)
check_answers()
{
	local name=$1 dst=$2 ns

	ns=${!name}
	stamp_q altmark "$dst" --query "$(awk -v f="$FLOWMON" \
		'{ printf "%s%s:%s", (NR > 1 ? "," : ""), f, $1 }' \
		"$TMPD/$name")" > "$TMPD/$name.stamp"
	check_err $? "stamp_test.py: $(tail -n 3 "$TMPD/$name.stamp")"
	blocks "$ns" | awk '{ print $1 }' > "$TMPD/$name.kept"
	answers_of "$TMPD/$name" | python3 -c '
import sys
want = sys.stdin.read().splitlines()
got = [l for l in open(sys.argv[1]).read().splitlines()
       if l[:1].isdigit()]
kept = set(open(sys.argv[2]).read().split())
found = 0
for w, g in zip(want, got):
    n = w.split()[1]
    if g == w:
        found += 1
    elif not (g.split()[2:3] == ["5"] and n not in kept):
        print("block %s: answered \"%s\", closed as \"%s\"" % (n, g, w))
        sys.exit(1)
if len(got) != len(want) or not found:
    print("%d answers to %d queries, %d found" % (len(got), len(want), found))
    sys.exit(1)
' "$TMPD/$name.stamp" "$TMPD/$name.kept"
	check_err $? "the reflector at $dst (in $name) does not answer with its blocks"
}

# query_kept CMD PRED: stamp_q CMD to r2 for the newest block r2 keeps
# ($last, its line in $TMPD/r2.kept1), the output in $out, then PRED; if
# PRED fails because the block left r2's history meanwhile (a slow guest:
# "too old" is then the right answer, and tells nothing), again with the
# newest block then
query_kept()
{
	local cmd=$1 pred=$2 try

	for try in 1 2 3 4 5; do
		blocks "$r2" | sort -n | tail -n 1 > "$TMPD/r2.kept1"
		last=$(awk '{ print $1 }' "$TMPD/r2.kept1")
		out=$(stamp_q "$cmd" fc00:12::2 --query "$FLOWMON:$last")
		rc=$?
		"$pred" && return 0
		blocks "$r2" | awk '{ print $1 }' | grep -qx "$last" && return 1
	done
	return 1
}

bad_flagged() { [ "$rc" = 0 ]; }
kept_answered()
{
	[ "$(head -n 1 <<< "$out")" = "$(answers_of "$TMPD/r2.kept1")" ]
}

if ! ip stamp help 2>&1 | grep -q "altmark"; then
	log_test_skip "STAMP: ip stamp without altmark"
else
	RET=0
	ip -n "$r2" stamp reflector add address fc00:12::2 altmark any &&
		ip -n "$r3" stamp reflector add altmark any
	check_err $? "reflector add ... altmark any"
	ip -n "$r2" stamp reflector show | grep -q " altmark any$"
	check_err $? "show: $(ip -n "$r2" stamp reflector show)"
	[ "$(ip -n "$r3" -j stamp reflector show | jq -r '.[0].altmark')" = any ]
	check_err $? "show -j: $(ip -n "$r3" -j stamp reflector show)"
	check_answers r2 fc00:12::2
	check_answers r3 fc00:23::3
	log_test "STAMP: the reflectors answer block queries with their closed blocks"

	RET=0
	# the last block of the pings, in r2's history still
	last=$(awk 'END { print $1 }' "$TMPD/r2")
	other=$(( (last + 1) & 1 ))
	want="8 $last 3;$FLOWMON now 1;$FLOWMON 1 2;$FLOWMON $last 4;"
	want+="$FLOWMON $last 4;$FLOWMON now+5 4"
	query="8:$last,$FLOWMON:now,$FLOWMON:1,$FLOWMON:$last:2000"
	query+=",$FLOWMON:$last::$other,$FLOWMON:now+5"
	got=$(stamp_q altmark fc00:12::2 --query "$query" |
		awk '$1 ~ /^[0-9]+$/ { printf "%s%s %s %s", (NR > 1 ? ";" : ""), $1, $2, $3 }')
	# "now" is whatever block the sender was in: compare the statuses
	[ "$(cut -d' ' -f3 <<< "${got//;/$'\n'}" | tr '\n' ' ')" = \
	  "$(cut -d' ' -f3 <<< "${want//;/$'\n'}" | tr '\n' ' ')" ]
	check_err $? "statuses: \"$got\", want \"$want\""
	[ "$(ip -n "$r2" -j altmark monitor show | jq -c '[.[] | .flowmon]')" = \
	  "[$FLOWMON]" ]
	check_err $? "a query made state: $(ip -n "$r2" -j altmark monitor show)"
	query_kept altmark-bad bad_flagged
	check_err $? "$out"
	log_test "STAMP: no monitor, not closed, no count, mismatch; malformed TLVs flagged"

	RET=0
	before=$(ip -n "$r2" stamp reflector show)
	ip -n "$r2" stamp reflector change address fc00:12::2 altmark maybe \
		2> /dev/null
	check_fail $? "altmark maybe was taken"
	[ "$(ip -n "$r2" stamp reflector show)" = "$before" ]
	check_err $? "a refused change changed the reflector"
	ip -n "$r2" stamp reflector change address fc00:12::2 altmark peer
	check_err $? "reflector change ... altmark peer"
	got=$(stamp_q altmark fc00:12::2 --query "$FLOWMON:$last" | head -n 1)
	[ "$got" = "$FLOWMON $last 6 0 0 0 0 0" ]
	check_err $? "no session, altmark peer: \"$got\""
	[ "$(ip -n "$r2" -s -j stamp reflector show |
	     jq '.[0].stats.altmark_refused')" = 1 ]
	check_err $? "altmark-refused: $(ip -n "$r2" -s stamp reflector show)"
	ip -n "$r2" stamp session add ssid 7 peer fc00:12::1
	query_kept altmark kept_answered
	rc=$?
	got="\"${out%%$'\n'*}\" for \"$(cat "$TMPD/r2.kept1")\""
	check_err "$rc" "the peer's session, altmark peer: $got"
	ip -n "$r2" stamp reflector change address fc00:12::2
	got=$(stamp_q altmark fc00:12::2 --query "$FLOWMON:$last" | head -n 1)
	[ "$got" = "$FLOWMON $last U" ]
	check_err $? "altmark off: \"$got\""
	log_test "STAMP: altmark peer answers a session's peer only, off answers none"
fi

# ---- pfplm collects from the kernels, no daemon on r2 and r3 --------------

# pfplm_check RTT_MAX: pfplm's exact blocks that carried packets, against
# the blocks the three kernels closed, and the delay r1 -> r2 against
# netem's (up to the slowest round trip): "OK N" (N blocks), else what
# differs
pfplm_check()
{
	blocks "$r1" > "$TMPD/p1"
	blocks "$r2" > "$TMPD/p2"
	blocks "$r3" > "$TMPD/p3"
	python3 - "$TMPD" "$DELAY_MS" "$1" <<'EOF'
import json, sys
d, delay, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3] or 0)
hi = max(delay * 1.05, hi)
def load(n):
    return {int(l.split()[0]): [int(x) for x in l.split()[1:4]]
            for l in open(f"{d}/{n}")}
r1, r2, r3 = load("p1"), load("p2"), load("p3")
recs = [json.loads(l) for l in open(f"{d}/pfplm.json")]
bad, exact, lossy = [], 0, 0
for r in recs:
    n = r["block"]
    if r["status"] != "exact":
        if not r["reason"]:
            bad.append(f"block {n}: unknown without a reason")
        continue
    if r["sent"] == 0 or n not in r1 or n not in r3:
        continue
    exact += 1
    lossy += r["lost"] > 0
    segs = [(g["sent"], g["received"], g["lost"]) for g in r["segments"]]
    want = [(r1[n][0], r2[n][0], r1[n][0] - r2[n][0]),
            (r2[n][0], r3[n][0], r2[n][0] - r3[n][0])]
    if (r["sent"], r["received"]) != (r1[n][0], r3[n][0]) or segs != want:
        bad.append(f"block {n}: pfplm {r['sent']} {r['received']} {segs}, "
                   f"the kernels {r1[n][0]} {r3[n][0]} {want}")
    g = r["segments"][0]
    if g["lost"] == 0 and not delay <= g["delay_ns"] / 1e6 <= hi:
        bad.append(f"block {n}: r1 -> r2 delay {g['delay_ns']} ns, not "
                   f"between netem's {delay} ms and {hi} ms")
if exact < 2 or not lossy:
    bad.append(f"{exact} exact blocks with packets, {lossy} with loss")
print("\n".join(bad) if bad else f"OK {exact}")
sys.exit(1 if bad else 0)
EOF
}

# pfplm_done BLOCK: pfplm has reported every block up to BLOCK
pfplm_done()
{
	[ -s "$TMPD/pfplm.json" ] &&
		jq -e -s --argjson n "$1" '[.[].block] as $b |
			all(range($b | min; $n + 1); . as $k | any($b[]; . == $k))' \
			"$TMPD/pfplm.json" > /dev/null
}

# the current block of CLOCK_TAI, as the kernel numbers them
tai_block()
{
	python3 -c "import time
print(time.clock_gettime_ns(time.CLOCK_TAI) // ($PERIOD_MS * 10**6))"
}

PFPLM_FLOW="name=f7 role=ingress id=7 sids=$SIDS peer=fc00:23::3"
PFPLM_FLOW+=" reflectors=fc00:12::2,fc00:23::3"
if ! pfplm --help 2>/dev/null | grep -q altmark ||
   ! ip stamp help 2>&1 | grep -q altmark; then
	log_test_skip "pfplm: no pfplm with method altmark"
else
	RET=0
	ip -n "$r2" stamp reflector change address fc00:12::2 altmark any
	before=$(monitors)
	out=$(ip netns exec "$r1" pfplm --method altmark --period 4 \
		--guard 1 --source fc00:12::1 --peer-timeout 5 \
		--flow "name=f9 role=ingress id=9 sids=$SIDS peer=fc00:23::3" \
		2>&1)
	rc=$?
	[ "$rc" = 2 ] && grep -q "no monitor of FlowMonID 9" <<< "$out"
	check_err $? "a reflector without the monitor: exit $rc, \"$out\""
	[ "$(monitors)" = "$before" ]
	check_err $? "a refused pfplm changed the monitors"
	log_test "pfplm altmark: a reflector without the flow's monitor is refused"

	RET=0
	ip netns exec "$r1" pfplm --method altmark --period 4 --guard 1 \
		--source fc00:12::1 --flow "$PFPLM_FLOW" -j \
		--results "$TMPD/pfplm.json" --state "$TMPD/pfplm.state" \
		> /dev/null 2> "$TMPD/pfplm.log" &
	ppid=$!
	slowwait 60 grep -q "started" "$TMPD/pfplm.log"
	check_err $? "pfplm did not start: $(cat "$TMPD/pfplm.log")"
	rtt_max=$(ip netns exec "$hs" ping -6 -q -i 0.05 -c 240 -W 1 \
		fd00:d::a | sed -n 's|^rtt [^=]*= [^/]*/[^/]*/\([^/]*\)/.*|\1|p')
	slowwait $((4 * PERIOD_MS / 1000 + 120)) pfplm_done "$(tai_block)"
	check_err $? "pfplm did not report the pings' blocks"
	out=$(pfplm_check "$rtt_max")
	check_err $? "$out"
	kill -TERM "$ppid"
	if slowwait 60 sh -c "! kill -0 $ppid 2> /dev/null"; then
		wait "$ppid"
		check_err $? "pfplm did not exit 0 on SIGTERM: $(tail -n 3 "$TMPD/pfplm.log")"
	else
		kill -KILL "$ppid"
		check_err 1 "pfplm did not stop on SIGTERM"
	fi
	[ "$(monitors)" = "$before" ]
	check_err $? "pfplm removed a monitor it had not added"
	echo "pfplm: ${out#OK } exact blocks with packets"
	log_test "pfplm altmark: per block and per segment, the kernels' counts"
fi

# ---- what the network sends ------------------------------------------------

RET=0
before=$(ip -n "$r2" -j altmark monitor show | jq -c '[.[] | .flowmon]')
ip -n "$r2" altmark monitor del flowmon "$FLOWMON"
check_err $? "monitor del"
ip netns exec "$hs" ping -6 -q -c 3 -W 2 fd00:d::a > /dev/null
check_err $? "the flow stops when a transit node stops monitoring it"
[ "$(ip -n "$r2" -j altmark monitor show | jq length)" = 0 ]
check_err $? "an unmonitored FlowMonID made state: $before"
log_test "an unmonitored FlowMonID is passed and counted nowhere"

# The route keeps its monitor between packets: a monitor deleted and
# added again at the ingress counts what the route sends after it
RET=0
ip -n "$r1" altmark monitor del flowmon "$FLOWMON"
ip netns exec "$hs" ping -6 -q -c 2 -W 2 fd00:d::a > /dev/null
check_err $? "the flow stops when the ingress stops monitoring it"
ip -n "$r1" altmark monitor add flowmon "$FLOWMON"
ip netns exec "$hs" ping -6 -q -c 3 -W 2 fd00:d::a > /dev/null
[ "$(sent_total)" = 3 ]
check_err $? "the new monitor counted $(sent_total) packets of the 3 sent"
log_test "a monitor deleted and added again at the ingress counts anew"


# ---- 50 flows, loss on chosen flows at chosen segments -------------------

# Flow f (0..FLOWS-1) goes from hs to fd00:d::1000+f with FlowMonID 100+f,
# its payload 16+f bytes.  Loss is injected by ip6tables at r2 on the flows
# of SEG1_LOSS before r2's endpoint (r1 -> r2), and on those of SEG2_LOSS
# after it (r2 -> r3): each such flow has SIDs of its own for the rules to
# match, and the rules' counters say what they dropped.  hd counts what
# it received of each flow.  The flows of DEST_FLOWS carry the option for
# the final destination: r2 must not count them.  The monitors keep 32
# blocks (128 s), so that a slow host's blocks are all still there when
# they are read.  Those of HOP_FLOWS carry
# it in a Hop-by-Hop header, counted where the packet comes in on an
# interface with altmark_enabled (r2's and r3's veth0); of these,
# TRANSIT_FLOWS have one segment, r3's: r2 forwards them as any router.
# LEGACY_FLOWS have r2's own address fc00:12::2 as first segment, which
# the kernel's SRH processing serves (seg6_enabled), not seg6local.
readonly FLOWS=50
readonly ROUNDS=60
readonly SEG1_LOSS="3 29"
readonly SEG2_LOSS="17 29 45 47"
readonly DEST_FLOWS="5 15 25 35 45"
readonly HOP_FLOWS="7 27 47"
readonly TRANSIT_FLOWS="47"
readonly LEGACY_FLOWS="11"

in_list()
{
	[[ " $2 " == *" $1 "* ]]
}

flow_dst()
{
	printf 'fd00:d::%x' $((0x1000 + $1))
}

# flow_sids F: the flow's segment list
flow_sids()
{
	local s1=fc00:2::e s2=fc00:3::d6

	in_list "$1" "$SEG1_LOSS" && s1=fc00:2::e:$1
	in_list "$1" "$LEGACY_FLOWS" && s1=fc00:12::2
	in_list "$1" "$SEG2_LOSS" && s2=fc00:3::d6:$1
	if in_list "$1" "$TRANSIT_FLOWS"; then
		echo "$s2"
	else
		echo "$s1,$s2"
	fi
}

# the packets of FlowMonIDs 100 and up that NS counted (-s) or closed
flows_counted()
{
	ip -n "$1" -s -j altmark monitor show |
		jq '[.[] | select(.flowmon >= 100) | .counters[].packets] | add // 0'
}

flows_closed()
{
	ip -n "$1" -j altmark monitor show |
		jq '[.[] | select(.flowmon >= 100) | .blocks[].packets] | add // 0'
}

flows_last_block()
{
	ip -n "$1" -j altmark monitor show |
		jq '[.[] | select(.flowmon >= 100) | .blocks[-1].number] | max // -1'
}

flows_all_closed()
{
	local last

	[ "$(flows_closed "$r1")" -eq "$(flows_counted "$r1")" ] || return
	[ "$(flows_counted "$r1")" -eq $((FLOWS * ROUNDS)) ] || return
	last=$(flows_last_block "$r1")
	[ "$(flows_last_block "$r2")" -ge "$last" ] &&
		[ "$(flows_last_block "$r3")" -ge "$last" ]
}

flows_setup()
{
	local f ns place hd_mac

	tc -n "$r1" qdisc del dev veth1 root
	for ns in "$r2" "$r3"; do
		ip netns exec "$ns" sysctl -wq \
			net.ipv6.conf.veth0.altmark_enabled=1 || return
	done
	ip netns exec "$r2" sysctl -wq net.ipv6.conf.all.seg6_enabled=1 \
		net.ipv6.conf.veth0.seg6_enabled=1 || return
	hd_mac=$(ip -n "$hd" -j link show veth0 | jq -r '.[0].address')
	for f in $SEG1_LOSS; do
		ip -n "$r2" -6 route add "fc00:2::e:$f/128" \
			encap seg6local action End dev veth1 || return
	done
	for f in $SEG2_LOSS; do
		ip -n "$r3" -6 route add "fc00:3::d6:$f/128" encap seg6local \
			action End.DT6 table 254 dev veth1 || return
	done
	for ((f = 0; f < FLOWS; f++)); do
		place=segment
		in_list "$f" "$DEST_FLOWS" && place=dest
		in_list "$f" "$HOP_FLOWS" && place=hop
		echo "route add $(flow_dst "$f")/128 encap seg6 mode encap" \
			"segs $(flow_sids "$f") altmark flowmon $((100 + f))" \
			"$place dev veth1" >> "$TMPD/r1.batch"
		echo "altmark monitor add flowmon $((100 + f)) history 32" \
			>> "$TMPD/mon.batch"
		echo "address add $(flow_dst "$f")/128 dev veth0 nodad" \
			>> "$TMPD/hd.batch"
		echo "neighbour add $(flow_dst "$f") lladdr $hd_mac dev veth1" \
			>> "$TMPD/r3.batch"
		echo "-A INPUT -d $(flow_dst "$f")/128 -p udp"
	done > "$TMPD/hd.rules"
	ip -n "$r1" -6 -batch "$TMPD/r1.batch" || return
	ip -n "$hd" -6 -batch "$TMPD/hd.batch" || return
	ip -n "$r3" -6 -batch "$TMPD/r3.batch" || return
	for ns in "$r1" "$r2" "$r3"; do
		ip -n "$ns" -batch "$TMPD/mon.batch" || return
	done
	{
		echo "*filter"
		cat "$TMPD/hd.rules"
		echo "-A INPUT -p udp --dport 9 -j DROP"
		echo "COMMIT"
	} | ip netns exec "$hd" ip6tables-restore || return
	{
		echo "*raw"
		for f in $SEG1_LOSS; do
			echo "-A PREROUTING -d fc00:2::e:$f/128 -m statistic" \
				"--mode nth --every $((3 + f % 4)) --packet 0 -j DROP"
		done
		echo "COMMIT"
		echo "*filter"
		for f in $SEG2_LOSS; do
			echo "-A FORWARD -d fc00:3::d6:$f/128 -m statistic" \
				"--mode nth --every $((4 + f % 3)) --packet 1 -j DROP"
		done
		echo "COMMIT"
	} | ip netns exec "$r2" ip6tables-restore
}

RET=0
flows_setup
check_err $? "the $FLOWS flows could not be set up"
ip netns exec "$hs" python3 - "$FLOWS" "$ROUNDS" <<'EOF'
import socket, sys, time
flows, rounds = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for r in range(rounds):
    for f in range(flows):
        s.sendto(b"x" * (16 + f), (f"fd00:d::{0x1000 + f:x}", 9))
    time.sleep(0.1)
EOF
check_err $? "the sender failed"
if ! slowwait $((4 * PERIOD_MS / 1000 + 120)) flows_all_closed; then
	msg="r1 counted $(flows_counted "$r1") of $((FLOWS * ROUNDS)) packets"
	check_err 1 "$msg, closed $(flows_closed "$r1")"
fi

for ns in r1 r2 r3; do
	ip -n "${!ns}" -j altmark monitor show > "$TMPD/$ns.json"
done
ip netns exec "$r2" ip6tables-save -c > "$TMPD/r2.drops"
ip netns exec "$hd" ip6tables-save -c -t filter > "$TMPD/hd.got"
# For every flow: r1 closed every packet sent; the loss r1 -> r2 and
# r2 -> r3 in its blocks is what the rules of that flow and segment
# dropped, and none elsewhere; r3 counted what hd received; and block by
# block (unsure blocks merged with their colour's neighbours, as above)
# no segment without a rule lost or gained a packet or a byte.
python3 - "$TMPD" "$FLOWS" "$ROUNDS" "$DEST_FLOWS" "$SEG1_LOSS $SEG2_LOSS" <<'EOF'
import json, re, sys
d, flows, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dest = {int(x) for x in sys.argv[4].split()}
chosen = {int(x) for x in sys.argv[5].split()}

def rule_counts(path, what):
    """{address: packets} of the rules matching on a destination"""
    out = {}
    for line in open(path):
        m = re.match(r"\[(\d+):\d+\] -A \S+ -d (\S+)/128 (.*)", line)
        if m and what in m.group(3):
            out[m.group(2)] = int(m.group(1))
    return out

drops = rule_counts(f"{d}/r2.drops", "DROP")
got = rule_counts(f"{d}/hd.got", "-p udp")
nodes = []
for n in ("r1", "r2", "r3"):
    mons = {}
    for m in json.load(open(f"{d}/{n}.json")):
        mons[m["flowmon"]] = {b["number"]: (b["packets"], b["bytes"],
                                            b["unsure"])
                              for b in m.get("blocks", [])}
    nodes.append(mons)

bad = []
lossy = 0
for f in range(flows):
    fm = 100 + f
    b1, b2, b3 = (n.get(fm, {}) for n in nodes)
    d1 = drops.get(f"fc00:2::e:{f}", 0)
    d2 = drops.get(f"fc00:3::d6:{f}", 0)
    hd = got.get(f"fd00:d::{0x1000 + f:x}", -1)
    if f"fc00:2::e:{f}" in drops and d1 == 0 or \
       f"fc00:3::d6:{f}" in drops and d2 == 0:
        bad.append(f"flow {f}: a rule of it dropped nothing")
    lossy += d1 + d2 > 0
    up = {}

    def root(x):
        while up.get(x, x) != x:
            x = up[x]
        return x
    for b in (b1, b2, b3):
        for x, v in b.items():
            if v[2]:
                for y in (x - 2, x + 2):
                    up[root(y)] = root(x)
    groups = {}
    for x in sorted(set(b1) | set(b2) | set(b3)):
        groups.setdefault(root(x), []).append(x)

    def tot(b, g, i=0):
        return sum(b[x][i] for x in g if x in b)
    s1, s2, s3 = (tot(b, list(b)) for b in (b1, b2, b3))
    if s1 != rounds:
        bad.append(f"flow {f}: r1 closed {s1} packets, not {rounds}")
    if s3 != hd:
        bad.append(f"flow {f}: r3 counted {s3}, hd received {hd}")
    if f in dest:
        if s2 != 0:
            bad.append(f"flow {f}: r2 counted {s2} of a dest option")
        if s1 - s3 != d1 + d2:
            bad.append(f"flow {f}: r1 -> r3 lost {s1 - s3}, dropped {d1 + d2}")
        pairs = [(b1, b3, d1 + d2)]
    else:
        if s1 - s2 != d1:
            bad.append(f"flow {f}: r1 -> r2 lost {s1 - s2}, dropped {d1}")
        if s2 - s3 != d2:
            bad.append(f"flow {f}: r2 -> r3 lost {s2 - s3}, dropped {d2}")
        pairs = [(b1, b2, d1), (b2, b3, d2)]
    for g in groups.values():
        for a, b, dropped in pairs:
            pa, pb = tot(a, g), tot(b, g)
            if pb > pa or (not dropped and
                           (pa, tot(a, g, 1)) != (pb, tot(b, g, 1))):
                bad.append(f"flow {f} blocks {g}: {pa} ({tot(a, g, 1)} B)"
                           f" then {pb} ({tot(b, g, 1)} B)")
if lossy != len(chosen):
    bad.append(f"{lossy} flows lost packets, not the {len(chosen)} chosen")
print("\n".join(bad) if bad else
      f"{flows} flows, {sum(drops.values())} packets dropped, all found")
sys.exit(1 if bad else 0)
EOF
check_err $? "the flows' blocks do not add up"
log_test "$FLOWS flows: exact loss per flow, block and segment"

# monitor_sent NS FLOWMON: what NS counted of FLOWMON
monitor_sent()
{
	ip -n "$1" -s -j altmark monitor show flowmon "$2" |
		jq '[.[0].counters[].packets] | add'
}

# the Hop-by-Hop option is counted only where it comes in on an interface
# with altmark_enabled
RET=0
ip netns exec "$r3" sysctl -wq net.ipv6.conf.veth0.altmark_enabled=0
a2=$(monitor_sent "$r2" 107)
a3=$(monitor_sent "$r3" 107)
ip netns exec "$hs" ping -6 -q -c 3 -W 2 "$(flow_dst 7)" > /dev/null
check_err $? "flow 7 does not pass r3 with altmark_enabled off"
b2=$(monitor_sent "$r2" 107)
b3=$(monitor_sent "$r3" 107)
[ "$b2" = $((a2 + 3)) ] && [ "$b3" = "$a3" ]
check_err $? "r2 counted $a2 then $b2, r3 $a3 then $b3"
log_test "a Hop-by-Hop option is counted where altmark_enabled is set only"

exit "$EXIT_STATUS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ipset hash:sr6: sets of SRv6 SID lists, matched with -m set against the
# Segment List of the packet's SRH, with per-element counters.
#
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#  | hs |----| r1 |----| r2 |----|     r3     |----|       r4       |----| hd |
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#            H.Encaps  sets      End fc00:3::e     End fc00:4::e(2)     fd00:d::a,
#                      (transit)                   End.DT6 fc00:4::d6   ::b, ::c, ::e
#
# r1 steers the pings of hs to four addresses of hd over four SID lists:
#   A  fd00:d::a  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps
#   B  fd00:d::b  fc00:3::e,fc00:4::e2,fc00:4::d6  H.Encaps, one SID differs
#   C  fd00:d::c  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps.Red: the SRH
#                 carries fc00:4::e,fc00:4::d6 only
#   E  fd00:d::e  fc00:4::d6                       H.Encaps, a single SID
# r2 counts them with sets and ip6tables rules in its mangle table; the
# replies come back without an SRH and must match nothing.

source lib.sh
source srv6_oam_lib.sh
source srv6_flows_lib.sh

# Lists that are not any flow's, each close to list A
readonly DECOYS=(
	fc00:4::d6,fc00:4::e,fc00:3::e		# reversed
	fc00:3::e,fc00:4::e			# a prefix
	fc00:3::e,fc00:4::e,fc00:4::d6,fc00:4::e2	# one SID longer
	fc00:3::e,fc00:4::e,fc00:4::d7		# the last SID differs
)
# The IPv6 packet length at r2 of one ping (56 bytes of data) per flow:
# outer header + SRH of n SIDs + inner IPv6 header + ICMPv6 echo
readonly LEN_A=$((40 + 8 + 3 * 16 + 40 + 64))
readonly LEN_C=$((40 + 8 + 2 * 16 + 40 + 64))
readonly LEN_E=$((40 + 8 + 1 * 16 + 40 + 64))

IPT=ip6tables

cleanup()
{
	crafted_stop
	cleanup_all_ns
	rm -f "$TMP_SAVE1" "$TMP_SAVE2"
}

trap cleanup EXIT

r2()
{
	ip netns exec "$r2" "$@"
}

# Succeeds once element $2 is no longer a member of set $1
elem_gone()
{
	! r2 ipset test "$1" "$2" 2> /dev/null
}

# "packets bytes" of element $2 of set $1, or "none" if it is no member
elem_counters()
{
	r2 ipset list "$1" |
		awk -v e="$2" '
			$1 == e {
				for (i = 2; i < NF; i++) {
					if ($i == "packets") p = $(i + 1)
					if ($i == "bytes") b = $(i + 1)
				}
				print p, b; found = 1
			}
			END { if (!found) print "none" }'
}

# elem_packets SET ELEMENT: the packets counted by ELEMENT of SET (0 if
# it is not in the set)
elem_packets()
{
	local c

	c=$(elem_counters "$@")
	echo "${c%% *}" | sed 's/^none$/0/'
}

# $1 set, $2 element, $3 packets, $4 bytes
check_elem()
{
	local got

	got=$(elem_counters "$1" "$2")
	[ "$got" = "$3 $4" ]
	check_err $? "$1 $2: counters \"$got\", not \"$3 $4\""
}

# Packet counters of the rules of chain $1 of the mangle table, one per
# line, in order
rule_counters()
{
	r2 "$IPT" -t mangle -L "$1" -n -v -x | awk 'NR > 2 { print $1 }'
}

test_counters()
{
	local d rules

	RET=0
	r2 ipset create flows hash:sr6 counters comment
	check_err $? "cannot create a hash:sr6 set with counters"
	for d in "$LIST_A" "$LIST_C" "$LIST_E" "${DECOYS[@]}"; do
		r2 ipset add flows "$d"
		check_err $? "cannot add $d"
	done
	r2 "$IPT" -t mangle -N mon
	r2 "$IPT" -t mangle -A FORWARD -j mon
	# Only the first rule updates the elements' counters
	r2 "$IPT" -t mangle -A mon -m set --match-set flows src
	r2 "$IPT" -t mangle -A mon -m set --match-set flows dst \
		! --update-counters
	r2 "$IPT" -t mangle -A mon -m set ! --match-set flows src \
		! --update-counters
	log_test "hash:sr6: create a set of 7 lists, of 1 to 4 SIDs"

	RET=0
	ping_flow fd00:d::a
	ping_flow fd00:d::b
	ping_flow fd00:d::c
	ping_flow fd00:d::e
	check_elem flows "$LIST_A" "$PINGS" $((PINGS * LEN_A))
	check_elem flows "$LIST_C" "$PINGS" $((PINGS * LEN_C))
	check_elem flows "$LIST_E" "$PINGS" $((PINGS * LEN_E))
	for d in "${DECOYS[@]}"; do
		check_elem flows "$d" 0 0
	done
	mapfile -t rules < <(rule_counters mon)
	# rule 3: flow B and the 4 * PINGS replies, which carry no SRH
	[ "${rules[*]}" = "$((3 * PINGS)) $((3 * PINGS)) $((5 * PINGS))" ]
	check_err $? "rule counters ${rules[*]}"
	log_test "hash:sr6: each element counts its own flow's packets and bytes"
}

# ipset test: whole lists only, the carried list of a reduced SRH included
test_membership()
{
	RET=0
	r2 ipset test flows "$LIST_C" 2>/dev/null
	check_err $? "the carried list of a reduced SRH is not a member"
	r2 ipset test flows "$LIST_A" 2>/dev/null
	check_err $? "list A is not a member"
	r2 ipset test flows "$LIST_A",fc00:9::1 2>/dev/null
	check_fail $? "a list one SID longer than a member tests as a member"
	r2 ipset test flows fc00:3::e 2>/dev/null
	check_fail $? "a prefix of a member tests as a member"
	r2 ipset test flows fc00:4::d6,fc00:4::e 2>/dev/null
	check_fail $? "a member's list reversed tests as a member"
	log_test "hash:sr6: ipset test, whole lists only"
}

# skbinfo: -j SET --map-set colours a flow with the mark of its element
test_skbinfo()
{
	local rules

	RET=0
	r2 ipset create colour sr6hash skbinfo
	check_err $? "cannot create a set with the sr6hash alias and skbinfo"
	r2 ipset add colour "$LIST_A" skbmark 0x10
	r2 ipset add colour "$LIST_E" skbmark 0x20
	r2 "$IPT" -t mangle -N paint
	r2 "$IPT" -t mangle -I FORWARD -j paint
	r2 "$IPT" -t mangle -A paint -j SET --map-set colour src --map-mark
	r2 "$IPT" -t mangle -A paint -m mark --mark 0x10
	r2 "$IPT" -t mangle -A paint -m mark --mark 0x20
	ping_flow fd00:d::a
	ping_flow fd00:d::b
	ping_flow fd00:d::e
	mapfile -t rules < <(rule_counters paint)
	[ "${rules[1]} ${rules[2]}" = "$PINGS $PINGS" ]
	check_err $? "marked ${rules[1]} and ${rules[2]} packets, not $PINGS each"
	r2 "$IPT" -t mangle -D FORWARD -j paint
	r2 "$IPT" -t mangle -F paint
	r2 "$IPT" -t mangle -X paint
	log_test "hash:sr6: skbinfo and -j SET --map-mark colour the flows"
}

test_timeout()
{
	local before after

	RET=0
	# Long enough for the pings and the counters to be read before the
	# element expires, however slow the guest; then the element is given
	# 1 s with add -exist, and its expiry is waited for, not slept for.
	# The default timeout outlives that wait.
	r2 ipset create brief hash:sr6 timeout 600 counters
	r2 ipset add brief "$LIST_A" timeout 300
	r2 ipset add brief "$LIST_E"
	r2 "$IPT" -t mangle -I FORWARD -m set --match-set brief src
	ping_flow fd00:d::a 2 0.1
	check_elem brief "$LIST_A" 2 $((2 * LEN_A))
	r2 ipset add brief "$LIST_A" timeout 1 -exist
	check_err $? "add -exist could not shorten the timeout"
	slowwait 120 elem_gone brief "$LIST_A"
	check_err $? "the element did not expire within 120 s of its 1"
	before=$(rule_counters FORWARD | head -n 1)
	ping_flow fd00:d::a 2 0.1
	after=$(rule_counters FORWARD | head -n 1)
	[ "$before" = "$after" ]
	check_err $? "an expired element still matched"
	r2 ipset test brief "$LIST_E" 2>/dev/null
	check_err $? "the element of the default timeout expired early"
	r2 "$IPT" -t mangle -D FORWARD -m set --match-set brief src
	r2 ipset destroy brief
	log_test "hash:sr6: timeout"
}

test_save_restore()
{
	RET=0
	r2 ipset add flows "$LIST_B" comment "flow B"
	r2 ipset save flows > "$TMP_SAVE1"
	grep -qxF "add flows $LIST_B packets 0 bytes 0 comment \"flow B\"" \
		"$TMP_SAVE1" ||
	grep -qxF "add flows $LIST_B comment \"flow B\" packets 0 bytes 0" \
		"$TMP_SAVE1"
	check_err $? "save does not show the element with its comment"
	grep -q "^create flows hash:sr6 .*counters" "$TMP_SAVE1"
	check_err $? "save does not create the set with counters"
	sed -i 's/^\(create\|add\) flows /\1 copy /' "$TMP_SAVE1"
	r2 ipset restore < "$TMP_SAVE1"
	check_err $? "restore failed"
	r2 ipset save copy > "$TMP_SAVE2"
	diff "$TMP_SAVE1" "$TMP_SAVE2" >/dev/null
	check_err $? "the restored set differs: $(diff "$TMP_SAVE1" "$TMP_SAVE2")"
	[ "$(r2 ipset list copy -t | awk '/^Number of entries/ { print $4 }')" = 8 ]
	check_err $? "list -t: not 8 entries"
	r2 ipset list copy -o xml | grep -qF "<elem>$LIST_A</elem>"
	check_err $? "-o xml does not show list A"
	r2 ipset destroy copy
	log_test "hash:sr6: save / restore round trip, comment, list -t, -o xml"
}

set_state()
{
	r2 ipset save flows
}

# $1 what, $2 error text, $3... ipset arguments
check_reject()
{
	local what=$1 err=$2

	shift 2
	RET=0
	check_refused set_state "$err" r2 ipset "$@"
	log_test "hash:sr6: refuse $what"
}

# Add IPSET_ATTR_SID_LIST payloads of the given lengths in bytes to set $1
# with raw IPSET_CMD_ADD messages, as ipset would not send them; print the
# error of each answer (0 or -errno).  The payload of 16 bytes is the SID
# fc00:9::99.
raw_add()
{
	r2 python3 - "$@" <<-'EOF'
	import socket, struct, sys

	def attr(kind, payload):
	    n = 4 + len(payload)
	    return struct.pack("=HH", n, kind) + payload + bytes(-n % 4)

	name = sys.argv[1].encode() + b"\0"
	sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
	for seq, n in enumerate(map(int, sys.argv[2:]), 1):
	    sids = socket.inet_pton(socket.AF_INET6, "fc00:9::99") * 17
	    body = (struct.pack("=BBH", socket.AF_INET6, 0, 0) +
	            attr(1, bytes([7])) +              # IPSET_ATTR_PROTOCOL
	            attr(2, name) +                    # IPSET_ATTR_SETNAME
	            attr(7 | 0x8000, attr(31, sids[:n])))  # DATA { SID_LIST }
	    # NFNL_SUBSYS_IPSET << 8 | IPSET_CMD_ADD, NLM_F_REQUEST | NLM_F_ACK
	    msg = struct.pack("=IHHII", 16 + len(body), 6 << 8 | 9, 1 | 4, seq, 0)
	    sock.send(msg + body)
	    answer = sock.recv(65536)
	    kind = struct.unpack_from("=H", answer, 4)[0]
	    print(struct.unpack_from("=i", answer, 16)[0] if kind == 2 else "none")
	EOF
}

# The kernel's own checks, which ipset's parser never lets a list reach:
# a SID list of 0 bytes, of a length that is not a whole number of SIDs, or
# of 17 SIDs is refused with IPSET_ERR_PROTOCOL (4097), the set unchanged.
test_kernel_reject()
{
	local before after out

	RET=0
	before=$(r2 ipset save flows)
	out=$(raw_add flows 0 15 17 272 | tr '\n' ' ')
	[ "$out" = "-4097 -4097 -4097 -4097 " ]
	check_err $? "the kernel answered $out"
	after=$(r2 ipset save flows)
	[ "$before" = "$after" ]
	check_err $? "a refused element changed the set"
	out=$(raw_add flows 16)
	[ "$out" = 0 ]
	check_err $? "a raw add of one SID was answered $out"
	r2 ipset test flows fc00:9::99 2>/dev/null
	check_err $? "the raw add of one SID did not add it"
	r2 ipset del flows fc00:9::99
	log_test "hash:sr6: the kernel refuses SID lists of 0, 15, 17 and 272 bytes"
}

test_reject()
{
	local l16=$LIST_16

	RET=0
	r2 ipset add flows "$l16"
	check_err $? "a list of 16 SIDs was refused"
	r2 ipset test flows "$l16" 2>/dev/null
	check_err $? "a list of 16 SIDs is not a member"
	r2 ipset del flows "$l16"
	check_err $? "a list of 16 SIDs cannot be deleted"
	log_test "hash:sr6: a list of 16 SIDs"

	check_reject "17 SIDs" "at most 16" add flows "$l16,1::11"
	check_reject "an empty SID" "empty SID" add flows "fc00:3::e,,fc00:4::d6"
	check_reject "an empty element" "empty SID" add flows ""
	check_reject "a bad address" "IPv6 address" add flows "fc00:3::e,10.0.0.1"
	check_reject "an existing element" "already added" add flows "$LIST_A"
	check_reject "deleting a non-member" "not added" del flows "$LIST_B,1::1"

	RET=0
	r2 ipset add flows "$LIST_A" -exist
	check_err $? "-exist add of a member failed"
	log_test "hash:sr6: add -exist of a member"
}

test_malformed()
{
	local mac kind before after want seen

	mac=$(ip -n "$r1" -j link show veth0 | jq -r '.[0].address')
	r2 ipset create crafted hash:sr6 counters
	r2 ipset add crafted "$LIST_A"
	r2 "$IPT" -t raw -A PREROUTING -m set --match-set crafted src
	crafted_watch "$IPT"

	for kind in good segleft-le+1 tlv overflow truncated segleft type2; do
		RET=0
		seen=$(crafted_seen "$IPT")
		before=$(elem_counters crafted "$LIST_A")
		send_crafted "$mac" "$kind"
		check_err $? "cannot send a crafted packet"
		slowwait "$CRAFTED_WAIT" until_counter_is ">= $((seen + 1))" \
			crafted_seen "$IPT" > /dev/null
		[ "$(crafted_seen "$IPT")" = $((seen + 1)) ]
		check_err $? "the crafted packet did not reach r2"
		case $kind in
		good|segleft-le+1|tlv)
			# counted by the rule after the one that saw it
			want=$((${before%% *} + 1))
			slowwait "$CRAFTED_WAIT" until_counter_is ">= $want" \
				elem_packets crafted "$LIST_A" > /dev/null
			;;
		*) want=${before%% *} ;;
		esac
		after=$(elem_counters crafted "$LIST_A")
		[ "${after%% *}" = "$want" ]
		check_err $? "counters went from $before to $after"
		case $kind in
		good|segleft-le+1|tlv)
			log_test "hash:sr6: a crafted SRH ($kind) with list A matches"
			;;
		*)
			log_test "hash:sr6: a malformed SRH ($kind) matches nothing"
			;;
		esac
	done
	crafted_unwatch "$IPT"
	r2 "$IPT" -t raw -D PREROUTING -m set --match-set crafted src
	r2 ipset destroy crafted
}

# Swap two sets under traffic: every SRv6 packet of flow A is counted once,
# by the set the rule pointed at when the packet passed.
test_swap()
{
	local pid pa pb n=60 i out swapped=0

	RET=0
	r2 ipset create next hash:sr6 counters
	r2 ipset add next "$LIST_A"
	r2 ipset create now hash:sr6 counters
	r2 ipset add now "$LIST_A"
	r2 "$IPT" -t mangle -I FORWARD -m set --match-set now src
	out=$(mktemp)
	ip netns exec "$hs" ping -6 -q -c "$n" -i 0.05 -W 2 fd00:d::a \
		> "$out" 2>&1 &
	pid=$!
	for i in $(seq 20); do
		r2 ipset swap now next || break
		swapped=$((swapped + 1))
		sleep 0.1
	done
	[ "$swapped" -eq 20 ]
	check_err $? "swap failed after $swapped swaps"
	wait "$pid"
	grep -q " 0% packet loss" "$out"
	check_err $? "pings were lost while the sets were swapped: $(grep loss "$out")"
	rm -f "$out"
	pa=$(elem_counters now "$LIST_A")
	pb=$(elem_counters next "$LIST_A")
	[ $((${pa%% *} + ${pb%% *})) -eq "$n" ]
	check_err $? "the two sets counted ${pa%% *} + ${pb%% *} packets, not $n"
	[ "${pa%% *}" -gt 0 ] && [ "${pb%% *}" -gt 0 ]
	check_err $? "one set counted everything: the swaps did nothing"
	r2 ipset flush now
	[ "$(elem_counters now "$LIST_A")" = none ]
	check_err $? "flush left list A in the set"
	r2 "$IPT" -t mangle -D FORWARD -m set --match-set now src
	r2 ipset destroy now
	r2 ipset destroy next
	log_test "hash:sr6: swap under traffic, flush"
}

flows_require ip ipset ip6tables jq ping

TMP_SAVE1=$(mktemp)
TMP_SAVE2=$(mktemp)
flows_setup

if ! r2 ipset create probe hash:sr6 2>/dev/null; then
	echo "SKIP: ipset or the kernel has no hash:sr6 set type"
	exit "$ksft_skip"
fi
r2 ipset destroy probe

test_counters
test_membership
test_skbinfo
test_timeout
test_save_restore
test_reject
test_kernel_reject
test_malformed
test_swap

exit "$EXIT_STATUS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ip6tables -m srh --srh-sid-list (ip6t_srh revision 2): a rule matches the
# packets whose SRH Segment List is exactly the given SID list.
#
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#  | hs |----| r1 |----| r2 |----|     r3     |----|       r4       |----| hd |
#  +----+    +----+    +----+    +------------+    +----------------+    +----+
#            H.Encaps  rules     End fc00:3::e     End fc00:4::e(2)     fd00:d::a,
#                      (transit)                   End.DT6 fc00:4::d6   ::b, ::c, ::e
#                                                  rules
#
# r1 steers the pings of hs to four addresses of hd over four SID lists:
#   A  fd00:d::a  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps
#   B  fd00:d::b  fc00:3::e,fc00:4::e2,fc00:4::d6  H.Encaps, one SID differs
#   C  fd00:d::c  fc00:3::e,fc00:4::e,fc00:4::d6   H.Encaps.Red: the SRH
#                 carries fc00:4::e,fc00:4::d6 only
#   E  fd00:d::e  fc00:4::d6                       H.Encaps, a single SID
# r2 sees each packet before its first segment, r4 after it.  Rules without
# a target count packets; the counts must be exactly the pings sent.  The
# whole test runs with ip6tables-legacy and with ip6tables-nft.  Then the
# nft rules that ip6tables-translate writes must count crafted packets as
# the rules they translate do.

source lib.sh
source srv6_oam_lib.sh
source srv6_flows_lib.sh

IPT=
IPT_SAVE=
IPT_RESTORE=

cleanup()
{
	crafted_stop
	cleanup_all_ns
	rm -f "$TMP_SAVE1" "$TMP_SAVE2"
}

trap cleanup EXIT

# The counters of the rules of chain $2 in netns $1, one per line, in order
counters()
{
	ip netns exec "$1" "$IPT" -t mangle -L "$2" -n -v -x |
		awk 'NR > 2 { print $1 }'
}

# rule_count NS CHAIN N: the packets rule N of CHAIN counted
rule_count()
{
	counters "$1" "$2" | sed -n "${3}p"
}

# $1 $2: netns and chain; $3...: "rule=packets" expectations, rules counted
# from 1 in the order of the chain, against counters taken before ($BEFORE)
check_counts()
{
	local ns=$1 chain=$2 after want i n got
	shift 2

	mapfile -t after < <(counters "$ns" "$chain")
	for want in "$@"; do
		i=${want%%=*}
		n=${want#*=}
		got=$((after[i - 1] - BEFORE[i - 1]))
		[ "$got" -eq "$n" ]
		check_err $? "$chain rule $i counted $got packets, not $n"
	done
}

# mon_rules NS: append the srh options read from stdin, one rule a line,
# to the mon chain of NS
mon_rules()
{
	local rule

	while read -r rule; do
		# shellcheck disable=SC2086 # the rule is words
		ip netns exec "$1" "$IPT" -t mangle -A mon -m srh $rule ||
			return 1
	done
}

# Counting rules at r2 (before the first segment) and r4 (after it)
add_rules()
{
	local r

	for r in "$r2" "$r4"; do
		ip netns exec "$r" "$IPT" -t mangle -N mon
	done
	ip netns exec "$r2" "$IPT" -t mangle -A FORWARD -j mon
	ip netns exec "$r4" "$IPT" -t mangle -A PREROUTING -j mon

	mon_rules "$r2" <<-EOF || return 1
		--srh-sid-list $LIST_A
		--srh-sid-list $LIST_B
		--srh-sid-list fc00:4::d6,fc00:4::e,fc00:3::e
		--srh-sid-list fc00:3::e,fc00:4::e,fc00:4::d7
		--srh-sid-list fc00:3::e,fc00:4::e
		--srh-sid-list $LIST_A,fc00:4::e2
		--srh-sid-list $LIST_C
		! --srh-sid-list $LIST_A
		--srh-sid-list $LIST_E
		--srh-sid-list $LIST_A --srh-segs-left-eq 2
		--srh-sid-list $LIST_A --srh-segs-left-eq 1
		! --srh-sid-list $LIST_A --srh-last-entry-eq 0
	EOF

	mon_rules "$r4" <<-EOF
		--srh-sid-list $LIST_A
		--srh-sid-list $LIST_C
		--srh-sid-list $LIST_A --srh-segs-left-eq 1
	EOF
}

del_rules()
{
	ip netns exec "$r2" "$IPT" -t mangle -D FORWARD -j mon
	ip netns exec "$r4" "$IPT" -t mangle -D PREROUTING -j mon
	for r in "$r2" "$r4"; do
		ip netns exec "$r" "$IPT" -t mangle -F mon
		ip netns exec "$r" "$IPT" -t mangle -X mon
	done
}

test_flows()
{
	local -a BEFORE4

	RET=0
	mapfile -t BEFORE < <(counters "$r2" mon)
	mapfile -t BEFORE4 < <(counters "$r4" mon)
	ping_flow fd00:d::a
	ping_flow fd00:d::b
	ping_flow fd00:d::c
	ping_flow fd00:d::e
	check_counts "$r2" mon 1="$PINGS" 2="$PINGS" 3=0 4=0 5=0 6=0 7=0 \
		8=$((2 * PINGS)) 9="$PINGS" 10="$PINGS" 11=0 12="$PINGS"
	log_test "$IPT: each list counts its own flow, before the first segment"

	RET=0
	BEFORE=("${BEFORE4[@]}")
	check_counts "$r4" mon 1="$PINGS" 2="$PINGS" 3="$PINGS"
	log_test "$IPT: the same lists count the same flows after the first segment"
}

test_malformed()
{
	local mac kind seen

	mac=$(ip -n "$r1" -j link show veth0 | jq -r '.[0].address')
	crafted_watch "$IPT"

	for kind in good tlv segleft-le+1 overflow truncated segleft type2; do
		RET=0
		seen=$(crafted_seen "$IPT")
		mapfile -t BEFORE < <(counters "$r2" mon)
		send_crafted "$mac" "$kind"
		check_err $? "cannot send a crafted packet"
		slowwait "$CRAFTED_WAIT" until_counter_is ">= $((seen + 1))" \
			crafted_seen "$IPT" > /dev/null
		[ "$(crafted_seen "$IPT")" = $((seen + 1)) ]
		check_err $? "the crafted packet did not reach r2"
		case $kind in
		good|tlv)
			# r2 counts it in raw PREROUTING, then in mon
			slowwait "$CRAFTED_WAIT" until_counter_is \
				">= $((BEFORE[0] + 1))" rule_count "$r2" mon 1 \
				> /dev/null
			check_counts "$r2" mon 1=1 8=0
			log_test "$IPT: a crafted SRH ($kind) with list A matches list A"
			;;
		segleft-le+1)
			# valid, but no srh option matches before the
			# first segment of a reduced SRH (as documented)
			check_counts "$r2" mon 1=0 8=0 12=0
			log_test "$IPT: Segments Left = Last Entry + 1 matches nothing"
			;;
		*)
			check_counts "$r2" mon 1=0 2=0 3=0 4=0 5=0 6=0 7=0 8=0 \
				9=0 10=0 11=0 12=0
			log_test "$IPT: a malformed SRH ($kind) matches nothing, not even !"
			;;
		esac
	done
	crafted_unwatch "$IPT"
}

test_save_restore()
{
	local out

	RET=0
	out=$(ip netns exec "$r2" "$IPT" -t mangle -L mon -n -v)
	echo "$out" | grep -qF " srh sid-list:$LIST_A"
	check_err $? "-L does not show the list: $out"
	echo "$out" | grep -qF " srh sid-list:!$LIST_A"
	check_err $? "-L does not show the inverted list: $out"
	log_test "$IPT -L -v shows the SID lists"

	RET=0
	ip netns exec "$r2" "$IPT_SAVE" -t mangle > "$TMP_SAVE1"
	grep -qxF -- "-A mon -m srh --srh-sid-list $LIST_A" "$TMP_SAVE1"
	check_err $? "save: no list A"
	grep -qxF -- "-A mon -m srh ! --srh-sid-list $LIST_A" "$TMP_SAVE1"
	check_err $? "save: no inverted list A"
	grep -qxF -- "-A mon -m srh --srh-segs-left-eq 2 --srh-sid-list $LIST_A" \
		"$TMP_SAVE1"
	check_err $? "save: no combined rule"
	ip netns exec "$r2" "$IPT" -t mangle -F mon
	ip netns exec "$r2" "$IPT_RESTORE" < "$TMP_SAVE1"
	check_err $? "restore failed"
	ip netns exec "$r2" "$IPT_SAVE" -t mangle > "$TMP_SAVE2"
	diff <(grep '^-A' "$TMP_SAVE1") <(grep '^-A' "$TMP_SAVE2") >/dev/null
	check_err $? "restored rules differ from the saved ones"
	[ "$(grep -c -- '--srh-sid-list' "$TMP_SAVE2")" -eq 12 ]
	check_err $? "restored $(grep -c -- '--srh-sid-list' "$TMP_SAVE2") rules, not 12"
	log_test "$IPT-save / $IPT-restore round trip"
}

rules_state()
{
	ip netns exec "$r2" "$IPT" -t mangle -S
}

# $1: what is wrong, $2: expected error text, $3: the list
check_reject()
{
	RET=0
	check_refused rules_state "$2" ip netns exec "$r2" "$IPT" -t mangle \
		-A mon -m srh --srh-sid-list "$3"
	log_test "$IPT: reject $1"
}

test_reject()
{
	local l16=$LIST_16

	RET=0
	ip netns exec "$r2" "$IPT" -t mangle -A mon -m srh --srh-sid-list "$l16"
	check_err $? "a list of 16 SIDs was refused"
	ip netns exec "$r2" "$IPT" -t mangle -D mon -m srh --srh-sid-list "$l16"
	check_err $? "the rule with 16 SIDs cannot be deleted"
	log_test "$IPT: a list of 16 SIDs"

	check_reject "17 SIDs" "more than 16 SIDs" "$l16,1::11"
	check_reject "an empty SID" "empty SID" "fc00:3::e,,fc00:4::d6"
	check_reject "a trailing comma" "empty SID" "fc00:3::e,"
	check_reject "an empty list" "empty SID" ""
	check_reject "an IPv4 address" "\"10.0.0.1\" is not an IPv6 address" \
		"fc00:3::e,10.0.0.1"
	check_reject "a prefix" "\"fc00::/64\" is not an IPv6 address" \
		"fc00::/64"
}

# The rules whose translations test_translate checks, and the packets it
# sends to both.  A list translates only with --srh-hdr-len-eq 2n (see
# Documentation/networking/srv6-srh-match.rst): without it nft cannot tell
# whether the whole SRH is within the packet.
XLATE_RULES=(
	"--srh-sid-list $LIST_E --srh-hdr-len-eq 2"
	"--srh-sid-list $LIST_C --srh-hdr-len-eq 4"
	"--srh-sid-list $LIST_C --srh-hdr-len-eq 4 --srh-segs-left-eq 1"
	"--srh-sid-list $LIST_C --srh-hdr-len-eq 4 ! --srh-segs-left-eq 1"
	"--srh-sid-list fc00:4::d6,fc00:4::e --srh-hdr-len-eq 4"
	"--srh-sid-list fc00:4::e --srh-hdr-len-eq 2"
	"--srh-sid-list $LIST_C --srh-hdr-len-eq 4 --srh-last-entry-lt 2 ! --srh-hdr-len-gt 4"
)

# The crafted packets of test_translate, one of each kind, and the packets
# that each rule of XLATE_RULES counts of it
XLATE_KINDS="
c		0110001
c-last-segment	0101001
c-reduced	0000000
c-segleft-big	0000000
c-swapped	0000100
c-tlv		0000000
c-tlv-cut	0000000
c-cut		0000000
c-overflow	0000000
c-type2		0000000
a		0000000
e		1000000
e-reduced	0000000
e-tlv		0000000
e-cut		0000000
e-other		0000010
"

# send_xlate MAC KIND...: from hs through r1 (MAC) to r2, one crafted packet
# of each KIND, the Nth one from fd00:1::1NN (hex), so that rules tell them
# apart.  A kind is a list (c: $LIST_C, e: $LIST_E, a: $LIST_A) and what
# its SRH is like.
send_xlate()
{
	ip netns exec "$hs" python3 - "$@" <<-'EOF'
	import sys
	from scapy.config import conf
	from scapy.layers.inet6 import IPv6, IPv6ExtHdrSegmentRouting
	from scapy.layers.l2 import Ether
	from scapy.packet import Raw
	from scapy.sendrecv import sendp
	conf.verb = 0
	mac, kinds = sys.argv[1], sys.argv[2:]
	# Segment List order: the last segment first
	c = ["fc00:4::d6", "fc00:4::e"]
	e = ["fc00:4::d6"]
	a = ["fc00:4::d6", "fc00:4::e", "fc00:3::e"]
	padn = Raw(bytes([4, 14]) + bytes(14))

	def srh(addresses, **kw):
	    return IPv6ExtHdrSegmentRouting(addresses=addresses, nh=59, **kw)

	def cut(p, srhlen):
	    # the packet ends srhlen bytes into its SRH, whatever Hdr Ext Len
	    p = Ether(bytes(p)[:14 + 40 + srhlen])
	    p[IPv6].plen = srhlen
	    return p

	def packet(ip, kind):
	    return {
	        "c": lambda: ip / srh(c, segleft=1, lastentry=1),
	        "c-last-segment": lambda: ip / srh(c, segleft=0, lastentry=1),
	        # reduced SRH before its first segment: SL = LE + 1
	        "c-reduced": lambda: ip / srh(c, segleft=2, lastentry=1),
	        "c-segleft-big": lambda: ip / srh(c, segleft=4, lastentry=1),
	        "c-swapped": lambda: ip / srh(c[::-1], segleft=1, lastentry=1),
	        "c-tlv": lambda: ip / srh(c, segleft=1, lastentry=1, len=6) / padn,
	        # the list is in the packet, its TLV is not
	        "c-tlv-cut": lambda: cut(ip / srh(c, segleft=1, lastentry=1,
	                                          len=6) / padn, 8 + 32),
	        "c-cut": lambda: cut(ip / srh(c, segleft=1, lastentry=1), 8 + 24),
	        # Last Entry 1, room for one SID: the other one in the payload
	        "c-overflow": lambda: (ip / srh(c[:1], segleft=0, lastentry=1,
	                                        len=2) /
	                               Raw(bytes(IPv6(dst=c[1]))[24:40])),
	        "c-type2": lambda: ip / srh(c, segleft=1, lastentry=1, type=2),
	        # Segment List[0] and [1] are list C's, Last Entry is 2
	        "a": lambda: ip / srh(a, segleft=1, lastentry=2),
	        "e": lambda: ip / srh(e, segleft=0, lastentry=0),
	        "e-reduced": lambda: ip / srh(e, segleft=1, lastentry=0),
	        "e-tlv": lambda: ip / srh(e, segleft=0, lastentry=0, len=4) / padn,
	        "e-cut": lambda: cut(ip / srh(e, segleft=0, lastentry=0), 8 + 8),
	        "e-other": lambda: ip / srh(["fc00:4::e"], segleft=0, lastentry=0),
	    }[kind]()

	for n, kind in enumerate(kinds, 1):
	    ip = (Ether(dst=mac) /
	          IPv6(src="fd00:1::1%02x" % n, dst="fc00:3::e", nh=43))
	    sendp(packet(ip, kind), iface="veth0")
	EOF
}

# The packet counters of the ip6tables rules of r2's xlate chain, and of
# the nft rules of r2's table ip6 srhxlate, one per line in rule order
xlate_ipt_counters()
{
	ip netns exec "$r2" ip6tables-legacy -t mangle -L xlate -n -v -x |
		awk 'NR > 2 { print $1 }'
}

xlate_nft_counters()
{
	ip netns exec "$r2" nft -j list chain ip6 srhxlate xlate |
		jq -r '.nftables[].rule?.expr[]?.counter?.packets // empty'
}

# The crafted packets that went through the ip6tables rules, so through
# the nft ones too (their chain comes before mangle)
xlate_seen()
{
	ip netns exec "$r2" ip6tables-legacy -t mangle -L PREROUTING -n -v -x |
		awk '$(NF - 1) ~ /^fd00:1::\/64/ && $NF ~ /^fc00:3::e/ { print $1 }'
}

# ip6tables-translate: a list of one or two SIDs with --srh-hdr-len-eq 2n
# translates; what nft cannot say exactly is refused, with a reason
test_translate_refuse()
{
	local out err rule

	RET=0
	for rule in "${XLATE_RULES[@]}"; do
		# shellcheck disable=SC2086 # the rule is words
		out=$(ip6tables-translate -A FORWARD -m srh $rule 2>&1)
		echo "$out" | grep -q "^nft 'add rule ip6 filter FORWARD rt type 4 "
		check_err $? "not translated: $rule: $out"
	done
	log_test "ip6tables-translate: lists of one or two SIDs with --srh-hdr-len-eq"

	for rule in "--srh-sid-list $LIST_C" \
		"--srh-sid-list $LIST_C --srh-hdr-len-eq 6" \
		"! --srh-sid-list $LIST_C --srh-hdr-len-eq 4" \
		"--srh-sid-list $LIST_A --srh-hdr-len-eq 6" \
		"--srh-sid-list $LIST_E --srh-hdr-len-eq 2 --srh-tag 0" \
		"--srh-segs-left-gt 1"; do
		RET=0
		# shellcheck disable=SC2086 # the rule is words
		out=$(ip6tables-translate -A FORWARD -m srh $rule 2>/dev/null)
		# (iptables 1.8.9 drops a "!" from the rule it echoes)
		case $out in
		"nft # -A FORWARD -m srh "*) ;;
		*) check_err 1 "translated: $rule: $out" ;;
		esac
		# shellcheck disable=SC2086 # the rule is words
		err=$(ip6tables-translate -A FORWARD -m srh $rule 2>&1 >/dev/null)
		echo "$err" | grep -q "^srh: not translated, nft would match other packets: "
		check_err $? "no reason given: $rule: $err"
		log_test "ip6tables-translate refuses -m srh $rule"
	done
}

# The nft rules that ip6tables-translate gives count every crafted packet
# as the ip6tables rules do.  Each rule is there once for each kind of
# packet, with the source address of that kind.  ip6tables-restore-translate
# translates them all at once (its table is mangle: the nft side is renamed
# srhxlate, to be a table of its own).
test_translate()
{
	local kind want rule seen i k nr nk
	local -a kinds wants ipt nft
	local rules=$TMP_SAVE1 out=$TMP_SAVE2

	test_translate_refuse

	while read -r kind want; do
		[ -n "$kind" ] || continue
		kinds+=("$kind")
		wants+=("$want")
	done <<< "$XLATE_KINDS"
	nr=${#XLATE_RULES[@]}
	nk=${#kinds[@]}

	RET=0
	{
		echo "*mangle"
		echo ":xlate - [0:0]"
		echo "-A PREROUTING -j xlate"
		echo "-A PREROUTING -s fd00:1::/64 -d fc00:3::e"
		for ((k = 1; k <= nk; k++)); do
			for rule in "${XLATE_RULES[@]}"; do
				echo "-A xlate -s fd00:1::$(printf 1%02x "$k") -m srh $rule"
			done
		done
		echo "COMMIT"
	} > "$rules"
	ip netns exec "$r2" ip6tables-legacy-restore --noflush < "$rules"
	check_err $? "ip6tables-legacy-restore refused the rules"
	grep -v -- '-A PREROUTING' "$rules" |
		ip6tables-restore-translate -f /dev/stdin > "$out"
	check_err $? "ip6tables-restore-translate failed"
	[ "$(grep -c '^add rule ip6 mangle xlate ip6 saddr ' "$out")" -eq $((nr * nk)) ]
	check_err $? "not all rules translated: $(grep '^#' "$out")"
	sed -i 's/^add \(table\|chain\|rule\) ip6 mangle/add \1 ip6 srhxlate/' "$out"
	ip netns exec "$r2" nft -f "$out"
	check_err $? "nft refused the translations: $(cat "$out")"
	ip netns exec "$r2" nft add chain ip6 srhxlate pre \
		"{ type filter hook prerouting priority -160; }"
	ip netns exec "$r2" nft add rule ip6 srhxlate pre jump xlate
	log_test "$nr rules for each of $nk kinds of packet, and their translations in nft"
	[ "$RET" -eq 0 ] || return

	RET=0
	seen=$(xlate_seen)
	send_xlate "$(ip -n "$r1" -j link show veth0 | jq -r '.[0].address')" \
		"${kinds[@]}"
	check_err $? "cannot send the crafted packets"
	slowwait 60 until_counter_is ">= $((seen + nk))" xlate_seen > /dev/null
	check_err $? "the crafted packets did not all reach r2: $(xlate_seen)"
	log_test "$nk crafted packets reach r2"

	mapfile -t ipt < <(xlate_ipt_counters)
	mapfile -t nft < <(xlate_nft_counters)
	for ((k = 0; k < nk; k++)); do
		RET=0
		[ "${#ipt[@]}" -eq $((nr * nk)) ] && [ "${#nft[@]}" -eq $((nr * nk)) ]
		check_err $? "${#ipt[@]} ip6tables and ${#nft[@]} nft counters, not $((nr * nk))"
		want=
		for ((i = 0; i < nr; i++)); do
			want+="${ipt[k * nr + i]}/${nft[k * nr + i]} "
		done
		for ((i = 0; i < nr; i++)); do
			[ "${ipt[k * nr + i]}" = "${nft[k * nr + i]}" ]
			check_err $? "rule $((i + 1)) counted (ip6tables/nft): $want"
			[ "${ipt[k * nr + i]}" = "${wants[k]:i:1}" ]
			check_err $? "rule $((i + 1)): want ${wants[k]}, counted $want"
		done
		log_test "translations count an SRH (${kinds[k]}) as ip6tables: ${wants[k]}"
	done

	ip netns exec "$r2" nft delete table ip6 srhxlate
	ip netns exec "$r2" ip6tables-legacy -t mangle -F PREROUTING
	ip netns exec "$r2" ip6tables-legacy -t mangle -F xlate
	ip netns exec "$r2" ip6tables-legacy -t mangle -X xlate
}

flows_require ip jq ping nft ip6tables-legacy ip6tables-nft ip6tables-translate \
	ip6tables-restore-translate

TMP_SAVE1=$(mktemp)
TMP_SAVE2=$(mktemp)
flows_setup

for backend in legacy nft; do
	IPT=ip6tables-$backend
	IPT_SAVE=ip6tables-$backend-save
	IPT_RESTORE=ip6tables-$backend-restore
	if ! ip netns exec "$r2" "$IPT" -t mangle -A FORWARD -m srh \
		--srh-sid-list "$LIST_E" 2>/dev/null; then
		echo "SKIP: $IPT: no srh match revision 2 (--srh-sid-list)"
		exit "$ksft_skip"
	fi
	ip netns exec "$r2" "$IPT" -t mangle -F FORWARD

	RET=0
	add_rules
	check_err $? "cannot add the rules"
	log_test "$IPT: add --srh-sid-list rules"

	test_flows
	test_malformed
	test_save_restore
	test_reject
	del_rules
done

test_translate

exit "$EXIT_STATUS"

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
# whole test runs with ip6tables-legacy and with ip6tables-nft.

source lib.sh
source srv6_flows_lib.sh

IPT=
IPT_SAVE=
IPT_RESTORE=

cleanup()
{
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
		sleep 0.5
		[ "$(crafted_seen "$IPT")" = $((seen + 1)) ]
		check_err $? "the crafted packet did not reach r2"
		case $kind in
		good|tlv)
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

# $1: what is wrong, $2: expected error text, $3: the list
check_reject()
{
	local before after out

	RET=0
	before=$(ip netns exec "$r2" "$IPT" -t mangle -S)
	out=$(ip netns exec "$r2" "$IPT" -t mangle -A mon -m srh \
		--srh-sid-list "$3" 2>&1)
	check_fail $? "rule accepted: --srh-sid-list $3"
	echo "$out" | grep -qF "$2"
	check_err $? "error was: $out"
	after=$(ip netns exec "$r2" "$IPT" -t mangle -S)
	[ "$before" = "$after" ]
	check_err $? "a rejected rule changed the table"
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

# ip6tables-translate, and the nft rule it gives counts the same packets
test_translate()
{
	local out want handle n

	RET=0
	out=$(ip6tables-translate -t mangle -A PREROUTING -m srh \
		--srh-sid-list "$LIST_C" 2>&1)
	want="nft 'add rule ip6 mangle PREROUTING srh last-entry 1"
	want+=" srh sid[2] fc00:4::e srh sid[1] fc00:4::d6 counter'"
	[ "$out" = "$want" ]
	check_err $? "translation: $out"
	out=$(ip6tables-translate -A FORWARD -m srh --srh-sid-list "$LIST_A" 2>&1)
	echo "$out" | grep -q "^nft # "
	check_err $? "a list of three SIDs was translated: $out"
	out=$(ip6tables-translate -A FORWARD -m srh ! --srh-sid-list "$LIST_C" 2>&1)
	echo "$out" | grep -q "^nft # "
	check_err $? "an inverted list was translated: $out"
	log_test "ip6tables-translate: lists of up to two SIDs, not inverted"

	RET=0
	ip netns exec "$r4" nft -f - <<-EOF
	table ip6 srhtest {
		chain pre {
			type filter hook prerouting priority -150;
			srh last-entry 1 srh sid[2] fc00:4::e srh sid[1] fc00:4::d6 counter
		}
	}
	EOF
	check_err $? "nft refused the translated rule"
	ping_flow fd00:d::a
	ping_flow fd00:d::c
	n=$(ip netns exec "$r4" nft -j list table ip6 srhtest |
		jq '[.nftables[].rule?.expr[]?.counter?.packets // empty] | .[0]')
	[ "$n" = "$PINGS" ]
	check_err $? "the translated rule counted $n packets, not $PINGS"
	ip netns exec "$r4" nft delete table ip6 srhtest
	log_test "the translated nft rule counts the same flow"
}

flows_require ip jq ping nft ip6tables-legacy ip6tables-nft ip6tables-translate

TMP_SAVE1=$(mktemp)
TMP_SAVE2=$(mktemp)
setup

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

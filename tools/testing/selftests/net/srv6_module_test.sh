#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our modules loaded and removed under traffic: the SRH match (ip6t_srh),
# the hash:sr6 set type (ip_set_hash_sr6) and the STAMP reflector (stamp).
#
#  +------+  e1          e1  +------+  e2          e2  +------+
#  | snd  |------------------|  r   |------------------| refl |
#  +------+                  +------+                  +------+
#  fc00:1::1 (lo)            fc00:2::e End             fc00:3::1 (lo)
#                                                      fc00:3::e End.DT6
#
# snd reaches fc00:3::1 over an SRv6 encapsulation to refl's End.DT6 SID:
# r forwards packets with an SRH, where its ip6tables rules match them.
# While pings and STAMP test packets flow:
# - ip6t_srh and ip_set_hash_sr6 are loaded by the kernel on first use
#   (module autoloading), cannot be removed while a rule or a set uses
#   them, and can once the rule and the set are gone;
# - stamp is loaded by the first "ip stamp" (its generic netlink family's
#   alias) and can be removed with reflectors and sessions in several
#   namespaces and test packets arriving: the removal takes every reflector
#   down, in every namespace; the module then loads again, with a fresh
#   configuration.
# Whatever happens, the kernel logs no BUG or WARNING, and snd's pings are
# answered all along.  A module that is built in is skipped; without
# modules at all the test is.

source lib.sh
source srv6_oam_lib.sh

readonly SND6=fc00:1::1
readonly SID2=fc00:2::e
readonly REFL6=fc00:3::1
readonly SID3=fc00:3::e
readonly KEY=00112233445566778899aabbccddeeff
readonly ROUNDS=${MODULE_ROUNDS:-3}

pids=()

cleanup()
{
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2> /dev/null
	done
	wait 2> /dev/null
	cleanup_all_ns
}

trap cleanup EXIT

# modular NAME: NAME is a loadable module of this kernel
modular()
{
	local f

	f=$(modinfo -F filename "$1" 2> /dev/null) || return 1
	[ -n "$f" ] && [ "$f" != "(builtin)" ]
}

loaded()
{
	[ -d "/sys/module/$1" ]
}

# rmmod_ok NAME: remove NAME, which must go within 60 s: a rule's or a set's
# last reference is dropped after the command that deleted it returns
# (nf_tables frees rules in a work item).
rmmod_ok()
{
	slowwait 60 rmmod "$1" 2> /dev/null
}

replies()
{
	ip netns exec "$snd" awk '$1 == "Icmp6InEchoReplies" { print $2 }' \
		/proc/net/snmp6
}

# answered: snd's pings are answered: 5 more replies within 60 s
answered()
{
	local r0

	r0=$(replies)
	slowwait 60 until_counter_is ">= $((r0 + 5))" replies > /dev/null
}

# rule_packets: the packets the first rule of r's FORWARD chain matched
rule_packets()
{
	ip netns exec "$r" ip6tables -L FORWARD -n -v -x |
		awk 'NR == 3 { print $1 } END { if (NR < 3) print -1 }'
}

# elem_packets: the packets counted by the hash:sr6 element of SID3
elem_packets()
{
	ip netns exec "$r" ipset list flows 2> /dev/null |
		awk -v e="$SID3" '$1 == e {
			for (i = 2; i < NF; i++)
				if ($i == "packets") p = $(i + 1)
		} END { print p == "" ? -1 : p }'
}

# moving CMD...: the counter CMD prints grows by 5 within 60 s
moving()
{
	local c0

	c0=$("$@")
	slowwait 60 until_counter_is ">= $((c0 + 5))" "$@" > /dev/null
}

# udp_bound NS PORT: a socket of NS is bound to UDP PORT (IPv4 or IPv6)
udp_bound()
{
	ip netns exec "$1" awk -v p="$(printf ':%04X' "$2")" '
		$2 ~ p "$" { found = 1 } END { exit !found }' \
		/proc/net/udp /proc/net/udp6
}

setup()
{
	srv6_setup_ns -f -s snd r refl
	veth_link "$snd" e1 "$r" e1 2001:db8:12::1/64 2001:db8:12::2/64 || return
	veth_link "$r" e2 "$refl" e2 2001:db8:23::2/64 2001:db8:23::3/64 || return

	# nodad: a route with "src" refuses a tentative address
	ip -n "$snd" addr add "$SND6"/128 dev lo nodad
	ip -n "$snd" route add fc00:2::/64 via 2001:db8:12::2 src "$SND6" &&
	ip -n "$snd" route add fc00:3::/64 via 2001:db8:12::2 src "$SND6" &&
	ip -n "$snd" route add "$REFL6"/128 encap seg6 mode encap segs "$SID3" \
		via 2001:db8:12::2 src "$SND6" || return

	ip -n "$r" route add fc00:1::/64 via 2001:db8:12::1 &&
	ip -n "$r" route add fc00:3::/64 via 2001:db8:23::3 &&
	ip -n "$r" route add "$SID2"/128 encap seg6local action End dev e1 ||
		return

	ip -n "$refl" addr add "$REFL6"/128 dev lo nodad
	ip -n "$refl" route add fc00:1::/64 via 2001:db8:23::2 src "$REFL6" &&
	ip -n "$refl" route add fc00:2::/64 via 2001:db8:23::2 src "$REFL6" &&
	# the decapsulated packets are for refl itself: its local table
	ip -n "$refl" route add "$SID3"/128 encap seg6local action End.DT6 \
		table local dev e2
}

# --- the SRH match and the hash:sr6 set type ---------------------------------
# What uses each module, made and unmade, and the counter it moves
srh_rule_use()
{
	ip netns exec "$r" ip6tables -A FORWARD -m srh --srh-sid-list "$SID3"
}

srh_rule_unuse()
{
	ip netns exec "$r" ip6tables -D FORWARD 1
}

sr6_set_use()
{
	ip netns exec "$r" ipset create flows hash:sr6 counters &&
	ip netns exec "$r" ipset add flows "$SID3" &&
	ip netns exec "$r" ip6tables -A FORWARD -m set --match-set flows src
}

sr6_set_unuse()
{
	ip netns exec "$r" ip6tables -D FORWARD 1 &&
	# the rule's reference to the set goes after the command
	slowwait 60 ip netns exec "$r" ipset destroy flows 2> /dev/null
}

# test_held MODULE WHAT PREFIX COUNTER: ROUNDS times, PREFIX_use makes WHAT
# (a rule, a set), which must load MODULE and move COUNTER; MODULE cannot
# be removed while WHAT uses it, and can once PREFIX_unuse has deleted it;
# the pings are answered all along
test_held()
{
	local mod=$1 what=$2 fn=$3 counter=$4 i

	if ! modular "$mod"; then
		log_test_skip "$mod: not a module in this kernel"
		return
	fi
	for ((i = 1; i <= ROUNDS; i++)); do
		RET=0
		"${fn}_use"
		check_err $? "the $what was refused"
		loaded "$mod"
		check_err $? "the $what did not load $mod"
		moving "$counter"
		check_err $? "the $what counts nothing: $("$counter")"
		rmmod "$mod" 2> /dev/null
		check_fail $? "$mod was removed with a $what using it"
		loaded "$mod" && moving "$counter"
		check_err $? "after a refused removal the $what counts nothing"
		"${fn}_unuse"
		check_err $? "the $what could not be deleted"
		rmmod_ok "$mod"
		check_err $? "$mod was not removed after the $what"
		answered
		check_err $? "pings are not answered after the removal"
		log_test "$mod, round $i: loaded by a $what, held by it, removed after"
	done
}

# --- the STAMP reflector -----------------------------------------------------
stamp_rx()
{
	ip -n "$refl" -s -j stamp reflector show 2> /dev/null |
		jq '[.[] | select(.port == 862) | .stats.rx][0] // -1'
}

# stamp_config: what the removal must take down: reflectors (stateless,
# authenticated, stateful), sessions (keyed, with an SRv6 return path) in
# refl, and a reflector in snd and in a namespace deleted before
stamp_config()
{
	ip -n "$refl" stamp reflector add &&
	ip -n "$refl" stamp reflector add port 863 auth &&
	ip -n "$refl" stamp reflector add port 864 mode stateful &&
	ip -n "$refl" stamp session add ssid 11 key "$KEY" &&
	ip -n "$refl" stamp session add ssid 12 peer "$SND6" \
		return-segs "$SID2" &&
	ip -n "$snd" stamp reflector add port 9862 &&
	ip -n "$snd" stamp session add ssid 13 &&
	ip -n "$gone" stamp reflector add &&
	ip -n "$gone" stamp session add ssid 14 key "$KEY"
}

test_stamp()
{
	local i fl

	if ! modular stamp; then
		log_test_skip "stamp: not a module in this kernel"
		return
	fi
	for ((i = 1; i <= ROUNDS; i++)); do
		RET=0
		setup_ns gone || return
		stamp_config
		check_err $? "the configuration was refused"
		loaded stamp
		check_err $? "ip stamp did not load the stamp module"
		ip netns exec "$snd" timeout "$SRV6_HANG_TIMEOUT" \
			python3 ./stamp_test.py basic "$REFL6" --ssid 12 > /dev/null
		check_err $? "no reply over the return path before the removal"
		ip netns exec "$snd" python3 ./stamp_test.py flood "$REFL6" \
			--ssid 7 --seconds 3600 > /dev/null 2>&1 &
		fl=$!
		pids+=("$fl")
		moving stamp_rx
		check_err $? "the reflector does not count the flood: $(stamp_rx)"
		cleanup_ns "$gone"
		udp_bound "$refl" 862 && udp_bound "$refl" 863 &&
			udp_bound "$snd" 9862
		check_err $? "a reflector's port is not bound before the removal"
		kill -0 "$fl" 2> /dev/null
		check_err $? "the flood ended before the removal"
		rmmod stamp
		check_err $? "stamp could not be removed with reflectors in use"
		! loaded stamp
		check_err $? "stamp is still loaded"
		! udp_bound "$refl" 862 && ! udp_bound "$refl" 863 &&
			! udp_bound "$snd" 9862
		check_err $? "a reflector's port is still bound after the removal"
		answered
		check_err $? "pings are not answered after the removal"
		kill "$fl" 2> /dev/null
		wait "$fl" 2> /dev/null
		ip -n "$refl" -j stamp show > "$tmp"
		check_err $? "ip stamp did not load stamp again"
		[ "$(jq '.reflectors + .sessions | length' "$tmp")" = 0 ]
		check_err $? "a fresh module shows objects: $(cat "$tmp")"
		ip -n "$refl" stamp reflector add &&
			ip netns exec "$snd" \
				timeout "$SRV6_HANG_TIMEOUT" \
				python3 ./stamp_test.py basic "$REFL6" > /dev/null
		check_err $? "no reply after the module was loaded again"
		ip -n "$refl" stamp flush
		ip -n "$snd" stamp flush
		log_test "stamp, round $i: removed under test packets, reflectors gone, loads again"
	done
}

srv6_require ip ip6tables ipset jq python3 modinfo rmmod
[ -e /proc/modules ] || {
	echo "SKIP: this kernel has no loadable modules"
	exit "$ksft_skip"
}
if ! modular ip6t_srh && ! modular ip_set_hash_sr6 && ! modular stamp; then
	echo "SKIP: neither ip6t_srh, ip_set_hash_sr6 nor stamp is a module"
	exit "$ksft_skip"
fi
# Start from the modules unloaded: what loads them is part of the test.
for m in stamp ip6t_srh ip_set_hash_sr6; do
	if loaded "$m" && modular "$m" && ! rmmod "$m"; then
		echo "SKIP: $m is loaded and in use outside this test"
		exit "$ksft_skip"
	fi
done

tmp=$(mktemp)
trap 'cleanup; rm -f "$tmp"' EXIT
s0=$(srv6_splats)
if ! setup; then
	echo "FAIL: setup"
	exit "$ksft_fail"
fi
ip netns exec "$snd" ping -6 -q -i 0.02 -w 3600 "$REFL6" > /dev/null 2>&1 &
pids+=($!)
RET=0
answered
check_err $? "snd's pings to $REFL6 over $SID3 are not answered"
log_test "set-up: pings over the SRv6 encapsulation answered"

test_held ip6t_srh rule srh_rule rule_packets
test_held ip_set_hash_sr6 set sr6_set elem_packets
test_stamp

RET=0
s1=$(srv6_splats)
[ "$s1" = "$s0" ]
check_err $? "the kernel log reports $((s1 - s0)) bug line(s):
$(srv6_splat_tail 5)"
log_test "the kernel log reports no bug"

exit "$EXIT_STATUS"

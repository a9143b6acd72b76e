#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed requests to the netlink interfaces srv6-oam adds or extends:
#  - the generic netlink families STAMP (ours) and IOAM6 (upstream's, with
#    our Edge-to-Edge operations and attributes), whose operations and
#    attribute policies srv6_nlfuzz.py reads from the kernel;
#  - rtnetlink: seg6local routes (End.X's oif, the xconnect of End.X,
#    End.DX6 and End.DX4, End.DT4's plain table; "seg6local") and IOAM6
#    encap routes with several options ("ioam6-lwt"), replacing routes on
#    a dummy device;
#  - ipset: create, add, del and test of hash:sr6 sets ("hash:sr6");
#  - xtables: ip6t_srh's revisions 0 to 2 (--srh-sid-list) as the match of
#    nftables rules through nft_compat, checked by the same checkentry as
#    ip6tables' rules ("srh"), and in rules of ip6tables' legacy filter
#    table, replaced with IP6T_SO_SET_REPLACE, a socket option, not
#    netlink ("srh-legacy").
# NLFUZZ_COUNT requests per interface, in a namespace of their own:
#  - as root;
#  - as an unprivileged user in a user namespace, with a network
#    namespace of its own: STAMP's operations, routes, ipset and nftables
#    need CAP_NET_ADMIN in that namespace's user namespace and work there;
#    IOAM6's operations need it in the initial one (GENL_ADMIN_PERM) and
#    get EPERM.
# An interface passes when no refused request changed what its dumps show
# (the family's dumps, the namespace's IPv6 routes, its sets, its nftables
# rules, its legacy filter table), every refusal in code of ours came
# with a reason (an extack message; for ipset, an error ipset(8) explains;
# xtables has no extack, so srh's refusals are counted, not checked for
# one), no operation was allowed where it needs more, the kernel log
# reports nothing, and everything still works afterwards.
#
# NLFUZZ_COUNT (default 500) sets the requests per interface and mode;
# make fuzz sends 20000.  NLFUZZ_SEED (default 1) sets the seed, and
#   ./srv6_nlfuzz.py show --family F --seed S --index I
# prints request I again.

source lib.sh
source srv6_oam_lib.sh

readonly COUNT=${NLFUZZ_COUNT:-500}
readonly SEED=${NLFUZZ_SEED:-1}

cleanup()
{
	cleanup_all_ns
	rm -rf "$tmp"
}

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap cleanup EXIT

srv6_require jq python3 ip ipset ip6tables ip6tables-legacy setpriv unshare

# fuzz FAMILY MODE: NLFUZZ_COUNT requests to FAMILY, as root in a
# namespace of its own (MODE root) or as nobody in a user namespace (MODE
# userns); the result in $tmp/FAMILY-MODE.json
fuzz()
{
	local family=$1 mode=$2 out=$tmp/$1-$2.json rc summary

	RET=0
	if [ "$mode" = root ]; then
		ip netns exec "$fz" python3 ./srv6_nlfuzz.py fuzz \
			--family "$family" --seed "$SEED" --count "$COUNT" \
			> "$out" 2> "$tmp/$family-$mode.err"
	else
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			unshare -Urn python3 ./srv6_nlfuzz.py fuzz --userns \
			--family "$family" --seed "$SEED" --count "$COUNT" \
			> "$out" 2> "$tmp/$family-$mode.err"
	fi
	rc=$?
	if ! jq -e .sent "$out" > /dev/null 2>&1; then
		check_err 1 "the fuzzer did not finish (exit $rc): $(tail -n 5 \
			"$tmp/$family-$mode.err")"
		log_test "$family ($mode): fuzzer"
		return
	fi
	check_err $rc "$(jq -r '.failures[:5][]' "$out")"
	[ "$(jq .sent "$out")" = "$COUNT" ]
	check_err $? "$(jq .sent "$out") requests sent of $COUNT"
	summary=$(jq -r '"\(.sent) requests, \(.accepted) accepted, " +
		"\(.refused) refused (\(.eperm) EPERM)"' "$out")
	log_test "$family ($mode): $summary"
	jq -c '{errno, unmessaged}' "$out"
}

# everything still works: STAMP and IOAM6 objects, a cross-connect, a
# hash:sr6 set and a SID-list rule made, shown, deleted
check_works()
{
	RET=0
	ip -n "$fz" stamp reflector add port 40000 &&
		ip -n "$fz" -j stamp reflector show |
		jq -e '.[] | select(.port == 40000)' > /dev/null &&
		ip -n "$fz" stamp reflector del port 40000
	check_err $? "STAMP: a reflector could not be made, shown, deleted"
	ip -n "$fz" ioam namespace add 4242 &&
		ip -n "$fz" ioam namespace show | grep -q 4242 &&
		ip -n "$fz" ioam namespace del 4242
	check_err $? "IOAM6: a namespace could not be made, shown, deleted"
	ip -n "$fz" -6 route replace fc00:f::9/128 encap seg6local \
		action End.X nh6 fc00:b::2 oif dummy0 xconnect dev dummy0 &&
		ip -n "$fz" -6 route show fc00:f::9/128 | grep -q xconnect &&
		ip -n "$fz" -6 route del fc00:f::9/128
	check_err $? "seg6local: a cross-connect could not be made, shown, deleted"
	ip netns exec "$fz" ipset create nlfuzz-check hash:sr6 counters &&
		ip netns exec "$fz" ipset add nlfuzz-check fc00:a::1,fc00:a::2 &&
		ip netns exec "$fz" ipset test nlfuzz-check fc00:a::1,fc00:a::2 \
			2> /dev/null &&
		ip netns exec "$fz" ipset destroy nlfuzz-check
	check_err $? "hash:sr6: a set could not be made, filled, tested, destroyed"
	ip netns exec "$fz" ip6tables -A INPUT -m srh \
		--srh-sid-list fc00:a::1,fc00:a::2 &&
		ip netns exec "$fz" ip6tables -S INPUT | grep -q -- --srh-sid-list &&
		ip netns exec "$fz" ip6tables -D INPUT -m srh \
			--srh-sid-list fc00:a::1,fc00:a::2
	check_err $? "srh: a SID-list rule could not be made, shown, deleted"
	ip netns exec "$fz" ip6tables-legacy -A INPUT -m srh \
		--srh-sid-list fc00:a::1,fc00:a::2 &&
		ip netns exec "$fz" ip6tables-legacy -S INPUT |
		grep -q -- --srh-sid-list &&
		ip netns exec "$fz" ip6tables-legacy -D INPUT -m srh \
			--srh-sid-list fc00:a::1,fc00:a::2
	check_err $? "srh-legacy: a SID-list rule could not be made, shown, deleted"
	[ "$(srv6_splats)" -eq "$splats0" ]
	check_err $? "the kernel log reports a bug: $(srv6_splat_tail 3)"
	log_test "after the fuzzing: everything works, the kernel log is clean"
}

setup_ns fz || exit "$ksft_skip"
ip -n "$fz" link set lo up
splats0=$(srv6_splats)
echo "seed $SEED, $COUNT requests per family and mode"

userns=yes
if ! setpriv --reuid=65534 --regid=65534 --clear-groups \
	unshare -Urn true 2> /dev/null; then
	userns=
fi
families=(stamp IOAM6 seg6local ioam6-lwt hash:sr6 srh srh-legacy)
# Alternate-Marking, where the kernel has it: its family, and seg6 routes
# with the altmark attributes
[ -e /proc/sys/net/ipv6/altmark ] && families+=(altmark seg6)
for family in "${families[@]}"; do
	fuzz "$family" root
	if [ -n "$userns" ]; then
		fuzz "$family" userns
	else
		log_test_skip "$family (userns): no unprivileged user namespaces"
	fi
done
check_works

exit "$EXIT_STATUS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Malformed requests to the generic netlink families srv6-oam adds or
# extends: STAMP (ours) and IOAM6 (upstream's, with our Edge-to-Edge
# operations and attributes).  srv6_nlfuzz.py reads each family's
# operations and attribute policies from the kernel and sends NLFUZZ_COUNT
# requests built from them, in a namespace of their own:
#  - as root;
#  - as an unprivileged user in a user namespace, with a network
#    namespace of its own: STAMP's operations need CAP_NET_ADMIN in that
#    namespace's user namespace (GENL_UNS_ADMIN_PERM) and work there;
#    IOAM6's need it in the initial one (GENL_ADMIN_PERM) and get EPERM.
# A family passes when no refused request changed what its dumps show,
# every refusal of an operation of ours came with an extack message, no
# operation was allowed where it needs more, the kernel log reports
# nothing, and the family still works afterwards.
#
# NLFUZZ_COUNT (default 3000) sets the requests per family and mode; make
# fuzz sends 100000.  NLFUZZ_SEED (default 1) sets the seed, and
#   ./srv6_nlfuzz.py show --family F --seed S --index I
# prints request I again.

source lib.sh
source srv6_oam_lib.sh

readonly COUNT=${NLFUZZ_COUNT:-3000}
readonly SEED=${NLFUZZ_SEED:-1}
# what the kernel logs when something is wrong, debug kernel or not
readonly SPLAT='BUG:|WARNING:|Oops|general protection|UBSAN|KASAN|refcount_t|RCU'

cleanup()
{
	cleanup_all_ns
	rm -rf "$tmp"
}

tmp=$(mktemp -d)
chmod 755 "$tmp"
trap cleanup EXIT

srv6_require jq python3 ip setpriv unshare

splats()
{
	dmesg | grep -c -E "$SPLAT"
}

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

# the family still works: STAMP and IOAM6 objects made, shown, deleted
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
	[ "$(splats)" -eq "$splats0" ]
	check_err $? "the kernel log reports a bug: $(dmesg | grep -E "$SPLAT" | tail -n 3)"
	log_test "after the fuzzing: both families work, the kernel log is clean"
}

setup_ns fz || exit "$ksft_skip"
ip -n "$fz" link set lo up
splats0=$(splats)
echo "seed $SEED, $COUNT requests per family and mode"

userns=yes
if ! setpriv --reuid=65534 --regid=65534 --clear-groups \
	unshare -Urn true 2> /dev/null; then
	userns=
fi
for family in stamp IOAM6; do
	fuzz "$family" root
	if [ -n "$userns" ]; then
		fuzz "$family" userns
	else
		log_test_skip "$family (userns): no unprivileged user namespaces"
	fi
done
check_works

exit "$EXIT_STATUS"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# For the stock kernel (`make check-stock`: the base of the series without
# our patches): a cross-connect configured with "xconnect" must be refused,
# not silently turned into a routed End.X/End.DX6/End.DX4.  Run with our ip
# (build/prefix), which sends SEG6_LOCAL_XCONNECT instead of nh6/nh4/oif.
# The plain configurations are accepted, as a control.  Exit 0 when every
# xconnect route was refused and every control accepted.

ret=0
ns=stock-xc-$$

cleanup() { ip netns del "$ns" 2>/dev/null; }
trap cleanup EXIT

ip netns add "$ns" || exit 1
ip -n "$ns" link add veth0 type veth peer name veth1 || exit 1
ip -n "$ns" link set veth0 up
ip -n "$ns" link set veth1 up
ip -n "$ns" addr add fc00:a::1/64 dev veth1 nodad
ip -n "$ns" addr add 10.0.10.1/24 dev veth1

echo "# kernel: $(uname -r); ip: $(command -v ip) ($(ip -V))"

refused()
{
	local desc=$1 out
	shift

	out=$(ip -n "$ns" -6 route add "$@" 2>&1)
	if [ $? -eq 0 ]; then
		echo "FAIL: $desc: accepted; shown as:" \
			"$(ip -n "$ns" -6 route show "$1")"
		ret=1
	else
		echo "ok: $desc: refused: $out"
	fi
}

accepted()
{
	local desc=$1 out
	shift

	out=$(ip -n "$ns" -6 route add "$@" 2>&1)
	if [ $? -ne 0 ]; then
		echo "FAIL: $desc: refused: $out"
		ret=1
	else
		echo "ok: $desc: accepted, shown as:" \
			"$(ip -n "$ns" -6 route show "$1")"
	fi
}

refused "End.X xconnect" fc00:e::1/128 encap seg6local action End.X \
	nh6 fc00:a::2 oif veth1 xconnect dev veth0
refused "End.DX6 xconnect" fc00:e::2/128 encap seg6local action End.DX6 \
	nh6 fc00:a::2 oif veth1 xconnect dev veth0
refused "End.DX4 xconnect" fc00:e::3/128 encap seg6local action End.DX4 \
	nh4 10.0.10.2 oif veth1 xconnect dev veth0

accepted "End.X nh6 (control)" fc00:e::11/128 encap seg6local \
	action End.X nh6 fc00:a::2 dev veth0
accepted "End.DX4 nh4 (control)" fc00:e::13/128 encap seg6local \
	action End.DX4 nh4 10.0.10.2 dev veth0
# 6.12 does not know End.X oif: accepted, and the oif silently dropped
accepted "End.X nh6 oif (6.12: oif dropped; 6.17: a lookup on it)" \
	fc00:e::14/128 encap seg6local action End.X nh6 fc00:a::2 \
	oif veth1 dev veth0

exit "$ret"

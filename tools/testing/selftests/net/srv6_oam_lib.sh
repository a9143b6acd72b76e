#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the SRv6 OAM selftests (srv6_*_test.sh,
# ioam6_ext_test.sh).  Sourced after lib.sh, whose setup_ns, log_test and
# ret_set_ksft_status they build on.

# What the kernel logs when something is wrong, debug kernel or not: a
# BUG or WARNING, an oops, a report of KASAN, UBSAN, KFENCE, lockdep, RCU or
# slab debugging, a refcount warning, a netdev whose unregistration stalls.
SRV6_SPLAT_RE='BUG:|WARNING:|KASAN:|UBSAN:|KFENCE:|kernel BUG at|'\
'general protection fault|Oops:|Kernel panic|possible recursive locking|'\
'possible circular locking|inconsistent lock state|'\
'possible irq lock inversion|suspicious RCU usage|RCU stall|'\
'rcu_sched self-detected|refcount_t:|'\
'sleeping function called from invalid context|INFO: task .* blocked|'\
'BUG .*: (Poison|Redzone|Freepointer|Object) |unregister_netdevice: waiting for'

# The bound of a command that ends by itself (a tool that refuses its
# input, a sender of a fixed count, an interface deletion): it only turns a
# hang into a failure, so it is far above what the slowest guest needs.  A
# debug kernel under TCG on a loaded host took over 120 s to run one
# refusal of pfplm (Python's start-up, mostly); the harness's bound of the
# whole test (SELFTEST_TIMEOUT) is above this one.
SRV6_HANG_TIMEOUT=${SRV6_HANG_TIMEOUT:-900}

# check_err STATUS MSG: fail the test case with MSG unless STATUS is 0;
# check_fail STATUS MSG: fail it with MSG if STATUS is 0.  forwarding/lib.sh
# has them, net/lib.sh (which the tests source) not in every tree they run
# on: defined here only where lib.sh did not.
if ! declare -F check_err > /dev/null; then
check_err()
{
	if (($1)); then
		ret_set_ksft_status "$ksft_fail" "$2"
	fi
}
fi

if ! declare -F check_fail > /dev/null; then
check_fail()
{
	check_err $((!$1)) "$2"
}
fi

# srv6_require CMD...: exit with $ksft_skip unless the test runs as root and
# finds every CMD
srv6_require()
{
	local cmd

	if [ "$(id -u)" -ne 0 ]; then
		echo "SKIP: need root privileges"
		exit "$ksft_skip"
	fi
	for cmd in "$@"; do
		if ! command -v "$cmd" >/dev/null; then
			echo "SKIP: $cmd not found"
			exit "$ksft_skip"
		fi
	done
}

# srv6_require_py MODULE...: exit with $ksft_skip unless python3 finds
# every MODULE.  Found, not imported: importing Scapy takes tens of seconds
# in a slow guest, and the test imports what it uses anyway (a module that
# is there and does not import fails the test, as it should).
srv6_require_py()
{
	local mod

	srv6_require python3
	for mod in "$@"; do
		if ! python3 -c 'import importlib.util as u, sys
sys.exit(u.find_spec(sys.argv[1]) is None)' "$mod" 2>/dev/null; then
			echo "SKIP: python3 module $mod not found"
			exit "$ksft_skip"
		fi
	done
}

# srv6_setup_ns [-f] [-4] [-s] NAME...: setup_ns NAME... (or exit with
# $ksft_skip), then in each namespace DAD off, for "all" and for the
# devices still to come (a device takes its defaults when it is made, and
# an address in DAD is not usable), and with -f IPv6 forwarding, -4 IPv4
# forwarding, -s SRv6 (seg6_enabled, "all" and the devices to come).
srv6_setup_ns()
{
	local __opt __name __sysctls

	__sysctls=(net.ipv6.conf.all.accept_dad=0
		   net.ipv6.conf.default.accept_dad=0)
	OPTIND=1
	while getopts f4s __opt; do
		case $__opt in
		f) __sysctls+=(net.ipv6.conf.all.forwarding=1) ;;
		4) __sysctls+=(net.ipv4.ip_forward=1) ;;
		s) __sysctls+=(net.ipv6.conf.all.seg6_enabled=1
			       net.ipv6.conf.default.seg6_enabled=1) ;;
		*) return 1 ;;
		esac
	done
	shift $((OPTIND - 1))
	setup_ns "$@" || exit "$ksft_skip"
	for __name in "$@"; do
		ip netns exec "${!__name}" sysctl -wq "${__sysctls[@]}" ||
			return
	done
}

# veth_link NS1 DEV1 NS2 DEV2 [ADDR1 ADDR2]: a veth pair between two
# namespaces, both ends up, each given its address (without DAD) if any
veth_link()
{
	ip link add "$2" netns "$1" type veth peer name "$4" netns "$3" ||
		return
	if [ -n "${5:-}" ]; then
		ip -n "$1" addr add "$5" dev "$2" nodad || return
		ip -n "$3" addr add "$6" dev "$4" nodad || return
	fi
	ip -n "$1" link set "$2" up && ip -n "$3" link set "$4" up
}

# check_refused STATE MSG CMD [ARG...]: CMD must fail, print an error that
# contains MSG (a fixed string; "" takes any non-empty error), and leave
# what STATE (a command, run without arguments) prints as it was: a
# refused configuration changes nothing.  Updates RET; the caller logs the
# test case.  REFUSED holds the first line of CMD's error, for that log.
check_refused()
{
	local state=$1 msg=$2 before after out
	shift 2

	before=$("$state")
	out=$("$@" 2>&1)
	check_fail $? "accepted: $*"
	[ -n "$out" ]
	check_err $? "no error message: $*"
	if [ -n "$msg" ]; then
		grep -qF -- "$msg" <<< "$out"
		check_err $? "the error is not \"$msg\": $out"
	fi
	after=$("$state")
	[ "$before" = "$after" ]
	check_err $? "a refused command changed the state: $*"
	REFUSED=$(head -n 1 <<< "$out")
}

# icmp_echos NS [4|6]: the ICMP (default) or ICMPv6 echo requests NS has
# received
icmp_echos()
{
	if [ "${2:-4}" = 6 ]; then
		ip netns exec "$1" awk '$1 == "Icmp6InEchos" { print $2 }' \
			/proc/net/snmp6
	else
		ip netns exec "$1" awk '$1 == "Icmp:" {
			if (!col) { for (i = 2; i <= NF; i++)
					if ($i == "InEchos") col = i
				    next }
			print $col }' /proc/net/snmp
	fi
}

SRV6_CAPTURES=()

# capture_start NS DEV PCAP [FILTER...]: tcpdump on DEV in NS into PCAP,
# each packet written as it comes; returns once tcpdump listens (at most
# 60 s), non-zero if it never does.  capture_stop ends every capture.
capture_start()
{
	local ns=$1 dev=$2 pcap=$3 i
	shift 3

	ip netns exec "$ns" tcpdump -n -U --immediate-mode -i "$dev" \
		-w "$pcap" "$@" 2>"$pcap.log" &
	SRV6_CAPTURES+=("$!")
	for ((i = 0; i < 600; i++)); do
		grep -q "listening on" "$pcap.log" && return 0
		kill -0 "$!" 2>/dev/null || break
		sleep 0.1
	done
	cat "$pcap.log" >&2
	return 1
}

# capture_count PCAP [FILTER...]: the packets of PCAP so far (that match
# FILTER)
capture_count()
{
	local pcap=$1
	shift

	tcpdump -n -r "$pcap" "$@" 2>/dev/null | wc -l
}

# capture_wait PCAP N [FILTER...]: until PCAP holds at least N packets
# (that match FILTER), at most 60 s
capture_wait()
{
	local pcap=$1 n=$2 i
	shift 2

	for ((i = 0; i < 600; i++)); do
		[ "$(capture_count "$pcap" "$@")" -ge "$n" ] && return 0
		sleep 0.1
	done
	return 1
}

capture_stop()
{
	[ ${#SRV6_CAPTURES[@]} -gt 0 ] || return 0
	kill "${SRV6_CAPTURES[@]}" 2>/dev/null
	wait "${SRV6_CAPTURES[@]}" 2>/dev/null
	SRV6_CAPTURES=()
}

# pyserve_start NS DIR HELPER: start, in NS, the server of the Python
# helper HELPER (srv6_pyserve.py), which takes requests in the directory
# DIR (made here), and wait until it does.  pyserve_stop ends all servers.
SRV6_PYSERVERS=()
SRV6_PYCALLS=0
pyserve_start()
{
	mkdir -p "$2" || return
	ip netns exec "$1" python3 "$3" serve "$2" &
	SRV6_PYSERVERS+=($!)
	slowwait 60 test -p "$2/req" && return 0
	echo "no $3 server in $1" >&2
	return 1
}

# pyserve_call DIR BOUND ARGS...: the helper's command ARGS, run by the
# server of DIR as `timeout BOUND python3 HELPER ARGS` would run in its
# namespace: its output, its error output and its exit status.  Both FIFOs
# are opened read and write, which does not block, so that a server gone
# for good fails the call 30 s after BOUND instead of hanging the test.
pyserve_call()
{
	local dir=$1 bound=$2 id line rc= fd
	shift 2

	id=$dir/call.$BASHPID.$((++SRV6_PYCALLS))
	mkfifo "$id" || return
	exec {fd}<> "$id"
	printf -v line '%s\x1f' "$id" "$id.out" "$id.err" "$bound" "$@"
	printf '%s\n' "$line" 1<> "$dir/req"
	read -t $((bound + 30)) -r -u "$fd" rc ||
		echo "pyserve: no answer from $dir to: $*" >&2
	exec {fd}<&-
	[ -s "$id.out" ] && cat "$id.out"
	[ -s "$id.err" ] && cat "$id.err" >&2
	rm -f "$id" "$id.out" "$id.err"
	return "${rc:-1}"
}

pyserve_stop()
{
	[ ${#SRV6_PYSERVERS[@]} -gt 0 ] || return 0
	kill "${SRV6_PYSERVERS[@]}" 2>/dev/null
	wait "${SRV6_PYSERVERS[@]}" 2>/dev/null
	SRV6_PYSERVERS=()
}

# srv6_splats: how many lines of the kernel log report a bug
srv6_splats()
{
	dmesg | grep -c -E "$SRV6_SPLAT_RE"
}

# srv6_splat_tail N: the last N of those lines
srv6_splat_tail()
{
	dmesg | grep -E "$SRV6_SPLAT_RE" | tail -n "$1"
}

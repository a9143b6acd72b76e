#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# STAMP reflection over IPv6: the in-kernel Session-Reflector against a
# user-space one and an eBPF one.
#   stamp_reflect.sh GEN SUT MODE, run by stamp_kernel.sh, stamp_user.sh,
#   stamp_ebpf.sh and stamp_idle.sh
# kernel: the SUT's in-kernel reflector answers every test packet;
# user:   bench/stamp_reflector.c (recvmmsg/sendmmsg) does, pinned to the
#         SUT's CPU, so the cost method counts its time as the SUT's;
# ebpf:   bench/stamp_ebpf.bpf.c at the tc ingress hook of the SUT's veth0
#         answers it and redirects the reply out of sink0 (the route to
#         the sender), the IP stack never sees it;
# idle:   plain IPv6 forwarding with an in-kernel reflector configured and
#         no test packet at all (its cost must be that of ipv6).
# Test packets go to the SUT's own fd00:1::2, UDP port 862, from fd00:9::5,
# which is behind the sink: the replies leave through sink0 and are the
# delivered packets.  A test packet needs 44 bytes of UDP payload: frames of
# at least 106 bytes.

. "$(dirname "$0")/common.sh"

mode=${3:-kernel}
sut_routes
case $mode in
kernel)
	sut stamp reflector add port 862
	;;
user)
	exe=${TMPDIR:-/tmp}/srperf-stamp_reflector
	cc -O2 -Wall -o "$exe" "$(dirname "$0")/../stamp_reflector.c"
	ip netns exec "$SUT" setsid taskset -c 1 "$exe" 862 \
		< /dev/null > /dev/null 2>&1 &
	sleep 0.5
	;;
ebpf)
	bash "$(dirname "$0")/../stamp_ebpf_load.sh" "$SUT" veth0
	;;
idle)
	sut stamp reflector add port 862
	traffic 6
	exit 0
	;;
*)
	echo "stamp_reflect.sh: unknown mode $mode" >&2
	exit 1
	;;
esac
printf '{"family": 6, "dst_addr": "fd00:1::2", "src_addr": "fd00:9::5", "udp_dst": 862, "min_size": 106}\n'

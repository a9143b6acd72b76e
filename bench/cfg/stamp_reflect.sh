#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# STAMP reflection: the in-kernel Session-Reflector in its configurations,
# against a user-space one and an eBPF one.
#   stamp_reflect.sh GEN SUT MODE [ARG], run by stamp_kernel.sh,
#   stamp_auth.sh, stamp_srv6.sh, stamp_tlv.sh, stamp_user.sh, stamp_ebpf.sh
#   and stamp_idle.sh
# kernel: the SUT's in-kernel reflector (stateless, unauthenticated, no
#         session) answers every test packet; ARG 4: IPv4 test packets;
# auth:   the same in authenticated mode (HMAC-SHA-256, RFC 8762's 112-byte
#         format), the key that of a session; ARG 4: IPv4;
# srv6:   a session for the test packets' SSID and source, with ARG return
#         SIDs (0: no return path): the reply leaves with an SRH;
# tlv:    the test packets carry a Timestamp Information and a Direct
#         Measurement TLV (RFC 8972), which the reply fills in;
# user:   bench/stamp_reflector.c (recvmmsg/sendmmsg) answers, pinned to
#         the SUT's CPU, so the cost method counts its time as the SUT's;
# ebpf:   bench/stamp_ebpf.bpf.c at the tc ingress hook of the SUT's veth0
#         answers it and redirects the reply out of sink0 (the route to
#         the sender), the IP stack never sees it;
# idle:   plain IPv6 forwarding with an in-kernel reflector configured and
#         no test packet at all (its cost must be that of ipv6).
# Test packets go to the SUT's own fd00:1::2 (10.0.1.2), UDP port 862, from
# fd00:9::5 (10.9.0.5), which is behind the sink: the replies leave through
# sink0 and are the delivered packets.  kernel, user and ebpf send pktgen's
# own payload, 44 bytes (frames of at least 106 bytes); the other modes a
# test packet of stamp-sender's encoder (python/srv6_oam/stamp_wire.py), sequence
# number 0, in frames of exactly its size (ipv6_N and ipv4_N are baselines
# of the same sizes).

. "$(dirname "$0")/common.sh"

mode=${3:-kernel} arg=${4:-}
key=00112233445566778899aabbccddeeff
fam=6 dst=fd00:1::2 src=fd00:9::5 l3=40
if [ "$arg" = 4 ] && { [ "$mode" = kernel ] || [ "$mode" = auth ]; }; then
	fam=4 dst=10.0.1.2 src=10.9.0.5 l3=20
fi
stamp=
sut_routes
case $mode in
kernel)
	sut stamp reflector add port 862
	[ "$fam" = 4 ] && stamp='{}'
	payload=44
	;;
auth)
	sut stamp reflector add port 862 auth
	sut stamp session add ssid 9 key "$key"
	stamp="{\"ssid\": 9, \"key\": \"$key\"}"
	payload=112
	;;
srv6)
	sut stamp reflector add port 862
	segs=
	for i in $(seq 1 "${arg:-1}"); do
		segs=${segs:+$segs,}fc00:9::7$i
	done
	sut stamp session add ssid 7 peer "$src" ${segs:+return-segs $segs}
	stamp='{"ssid": 7}'
	payload=44
	;;
tlv)
	sut stamp reflector add port 862
	stamp='{"tlvs": ["timestamp", "dm"]}'
	payload=$((44 + 8 + 16))
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
if [ -z "$stamp" ]; then
	printf '{"family": 6, "dst_addr": "%s", "src_addr": "%s", "udp_dst": 862, "min_size": 106}\n' \
		"$dst" "$src"
else
	printf '{"family": %s, "dst_addr": "%s", "src_addr": "%s", "udp_dst": 862, "size": %s, "stamp": %s}\n' \
		"$fam" "$dst" "$src" $((14 + l3 + 8 + payload)) "$stamp"
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's eBPF STAMP Session-Reflector (bench/stamp_ebpf.bpf.c) answers
# stamp-sender as the in-kernel one does, in the guest (make check runs it
# as @bench/stamp_ebpf_test.sh; the object comes from make bench-bpf).
#
#   snd e0 ---- e0 refl     fd00:1::1 10.0.1.1 / fd00:1::2 10.0.1.2
#
# Every reply's bytes are the in-kernel reflector's, timestamps aside (the
# UDP checksum is good, or the sender's socket would drop the reply);
# T1 <= T2 <= T3 <= T4; IPv6 and IPv4, NTP and PTP timestamps.  Negative
# cases: no reflector, another port, a well-known source port: no reply.
#
# Exit 0 when every check passed, 1 otherwise, 4 when something is missing.

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
obj=$top/build/bench-bpf/stamp_ebpf.bpf.o
tmp=$(mktemp -d) || exit 1
fail=0

ok() { printf 'TEST: %-66s [ OK ]\n' "$1"; }
ko() { printf 'TEST: %-66s [FAIL]\n\t%s\n' "$1" "$2"; fail=1; }

cleanup()
{
	ip netns del sebpf-snd 2> /dev/null
	ip netns del sebpf-refl 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

for cmd in ip stamp-sender /usr/bin/python3; do
	command -v "$cmd" > /dev/null || { echo "SKIP: no $cmd"; exit 4; }
done
[ -r "$obj" ] || { echo "SKIP: no $obj (make bench-bpf)"; exit 4; }
[ -x "${obj%/*}/tcx_load" ] || { echo "SKIP: no ${obj%/*}/tcx_load (make bench-bpf)"; exit 4; }

for ns in snd refl; do
	ip netns add "sebpf-$ns"
	ip -n "sebpf-$ns" link set lo up
	# The reflector's FIB lookups need a forwarding host.
	ip netns exec "sebpf-$ns" sysctl -wq net.ipv6.conf.all.forwarding=1 \
		net.ipv4.ip_forward=1 net.ipv6.conf.default.accept_dad=0
done
ip link add e0 netns sebpf-snd type veth peer name e0 netns sebpf-refl
ip -n sebpf-snd addr add fd00:1::1/64 dev e0 nodad
ip -n sebpf-snd addr add 10.0.1.1/24 dev e0
ip -n sebpf-refl addr add fd00:1::2/64 dev e0 nodad
ip -n sebpf-refl addr add 10.0.1.2/24 dev e0
ip -n sebpf-snd link set e0 up
ip -n sebpf-refl link set e0 up

# sender NAME ARGS...: 5 test packets, the JSON document in $tmp/NAME.json.
# stamp-sender ends as soon as every packet is answered; --timeout is how
# long it waits for late replies (or, in the negative cases, for none):
# long enough for a guest three times slower than usual.
sender()
{
	local name=$1
	shift
	ip netns exec sebpf-snd timeout 120 stamp-sender -j --dump-hex -c 5 \
		-i 0.05 --timeout 10 "$@" > "$tmp/$name.json"
}

# check NAME REF [PTP]: 5 replies, sane, and the bytes of REF's replies
# but for the timestamps (T3, T2, and the sender's T1).
check()
{
	/usr/bin/python3 - "$tmp/$1.json" "$tmp/$2.json" "${3:-0}" <<-'PY'
	import json, sys
	doc, ref = (json.load(open(f)) for f in sys.argv[1:3])
	ptp = sys.argv[3] == "1"
	pk, rp = doc["packets"], ref["packets"]
	assert len(pk) == 5, f"{len(pk)} replies of 5 ({doc.get('errors')})"
	assert doc["timestamp_format"] == ("PTP" if ptp else "NTP"), doc["timestamp_format"]
	def masked(p):
	    b = bytearray.fromhex(p["payload"])
	    for lo, hi in ((4, 12), (16, 24), (28, 36)):
	        b[lo:hi] = bytes(hi - lo)
	    return bytes(b)
	for i, (p, r) in enumerate(zip(sorted(pk, key=lambda p: p["seq"]),
	                               sorted(rp, key=lambda p: p["seq"]))):
	    assert p["seq"] == i and p["reflector_seq"] == i, (p["seq"], p["reflector_seq"])
	    assert p["t1_ns"] <= p["t2_ns"] <= p["t3_ns"] <= p["t4_ns"], \
	        [p[k] for k in ("t1_ns", "t2_ns", "t3_ns", "t4_ns")]
	    assert p["error_estimate"]["ptp"] == ptp, p["error_estimate"]
	    assert masked(p) == masked(r), (p["payload"], r["payload"])
	PY
}

# none NAME: the sender got no reply.
none()
{
	/usr/bin/python3 -c 'import json, sys; sys.exit(len(json.load(open(sys.argv[1]))["packets"]) != 0)' \
		"$tmp/$1.json"
}

# The references: the in-kernel reflector (stateless, unauthenticated).
if ! ip -n sebpf-refl stamp reflector add port 862 2> /dev/null; then
	echo "SKIP: no in-kernel STAMP reflector (kernel or ip)"
	exit 4
fi
sender k6 fd00:1::2
sender k4 10.0.1.2
sender k6ptp --ptp fd00:1::2
ip -n sebpf-refl stamp reflector del port 862

sender none6 fd00:1::2
if none none6; then
	ok "no reflector, no reply"
else
	ko "no reflector, no reply" "$(cat "$tmp/none6.json")"
fi

if ! bash "$here/stamp_ebpf_load.sh" sebpf-refl e0 > "$tmp/load.log" 2>&1; then
	ko "eBPF reflector attached at tcx ingress" "$(cat "$tmp/load.log")"
	exit 1
fi
ok "eBPF reflector attached at tcx ingress"

for c in "6 fd00:1::2:k6" "4 10.0.1.2:k4" "6ptp --ptp fd00:1::2:k6ptp"; do
	args=${c%:*} ref=${c##*:}
	name=e${args%% *}
	ptp=0 what="IPv${name:1:1}"
	[ "${name%ptp}" = "$name" ] || ptp=1 what+=" PTP"
	# shellcheck disable=SC2086
	sender "$name" ${args#* }
	if msg=$(check "$name" "$ref" "$ptp" 2>&1); then
		ok "eBPF reflector: $what: replies as the kernel's"
	else
		ko "eBPF reflector: $what: replies as the kernel's" "$msg"
	fi
done

sender port -p 863 fd00:1::2
if none port; then
	ok "eBPF reflector: no reply on another port"
else
	ko "eBPF reflector: no reply on another port" "$(cat "$tmp/port.json")"
fi
sender sport --sport 1000 fd00:1::2
if none sport; then
	ok "eBPF reflector: no reply to a well-known source port"
else
	ko "eBPF reflector: no reply to a well-known source port" "$(cat "$tmp/sport.json")"
fi

exit $fail

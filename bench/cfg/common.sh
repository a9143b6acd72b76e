# SPDX-License-Identifier: GPL-2.0
#
# Sourced by every forwarder configuration script (bench/cfg/NAME.sh), the
# SRPerf CFG scripts of srperf.py.  Such a script is run with the names of the
# generator's and the SUT's netns; it configures the SUT for its behaviour and
# prints, as its last line, the traffic it needs as JSON:
#   family     4 or 6: the packet pktgen builds (UDP)
#   dst_addr, src_addr
#   encap      optional: {"segs": [...], "mode": "encap"|"l2encap"} makes the
#              generator stage wrap the packet in an outer IPv6 header + SRH
#              (optional in it: "segleft" N, the frame as a node receives
#              it with Segments Left N, destination the matching SID;
#              "tc" T, the outer header's traffic class)
#   dst        with encap: the prefix the generator stage's policy covers
#
# The topology (srperf.py):  gen veth0 fd00:1::1 10.0.1.1
#                            sut veth0 fd00:1::2 10.0.1.2, sink0 fd00:2::1 10.0.2.1
#                            the sink: dummy sink0 in the SUT's netns, next hops
#                            fd00:2::2 and 10.0.2.2 (static neighbours)
# Traffic goes to fd00:9::1 or 10.9.0.1, behind the sink; the SUT's SIDs are
# fc00:1::/32, further SIDs fc00:9::/32 are behind the sink.

set -eu
GEN=$1 SUT=$2

sut() { ip -netns "$SUT" "$@"; }

# The SUT's plain routes towards the sink, in table $1 (default main).
sut_routes() {
	local table=${1:-main}
	sut -6 route replace fd00:9::/64 via fd00:2::2 dev sink0 table "$table"
	sut -6 route replace fc00:9::/32 via fd00:2::2 dev sink0 table "$table"
	sut -4 route replace 10.9.0.0/24 via 10.0.2.2 dev sink0 table "$table"
}

# traffic FAMILY [SEGS [MODE [DST]]]: print the traffic spec; FRAME_SIZE,
# if set, is the frame size of plain traffic whatever the experiment's.
traffic() {
	local fam=$1 segs=${2:-} mode=${3:-encap} dst src pfx
	if [ "$fam" = 6 ]; then
		dst=fd00:9::1 pfx=fd00:9::/64
		src=fd00:1::1
		[ -z "$segs" ] || src=fd00:8::1
	else
		dst=10.9.0.1 pfx=10.9.0.0/24
		src=10.0.1.1
		[ -z "$segs" ] || src=10.8.0.1
	fi
	dst=${4:-$dst}
	if [ -z "$segs" ] && [ -n "${FRAME_SIZE:-}" ]; then
		printf '{"family": %s, "dst_addr": "%s", "src_addr": "%s", "size": %s}\n' \
			"$fam" "$dst" "$src" "$FRAME_SIZE"
	elif [ -z "$segs" ]; then
		printf '{"family": %s, "dst_addr": "%s", "src_addr": "%s"}\n' "$fam" "$dst" "$src"
	else
		printf '{"family": %s, "dst_addr": "%s", "src_addr": "%s", "dst": "%s", "encap": {"mode": "%s", "segs": ["%s"]}}\n' \
			"$fam" "$dst" "$src" "$pfx" "$mode" "${segs//,/\", \"}"
	fi
}

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Alternate-Marking data plane (Documentation/networking/altmark.rst)
# beside pfplm's (plm.sh): plm_altmark.sh GEN SUT ROLE N, run by the
# plm_ing_altmark.sh and plm_egr_altmark.sh wrappers.
#   ingress: the SUT is the SR policy's headend: H.Encaps with the flow's
#            SID list fc00:9::a,fc00:9::b,fc00:9::1, as plm_ing_off, plus
#            "altmark flowmon N" on the route (the option in a
#            Destination Options header before the SRH, 8 bytes more per
#            packet) and N monitors (FlowMonIDs 1..N; the flow's is N), so
#            that every packet is coloured and counted by the kernel;
#   egress:  the SUT is the flow's End.DT6 endpoint (fc00:1::d6), as
#            plm_egr_off, plus N monitors; the traffic arrives as the
#            ingress sends it, with the option of FlowMonID N before the
#            SRH (Segments Left 0), and End.DT6 counts it before it runs.
# The baselines are plm_ing_off and plm_egr_off: the same path with no
# option and no monitor.

. "$(dirname "$0")/common.sh"

role=${3:?role} n=${4:-1}
sut_routes
case $role in
ingress)
	flow=fc00:9::a,fc00:9::b,fc00:9::1
	sut -6 route replace fd00:9::/64 encap seg6 mode encap segs "$flow" \
		altmark flowmon "$n" segment dev sink0
	;;
egress)
	flow=fc00:9::a,fc00:9::b,fc00:1::d6
	sut_routes 100
	sut -6 route add fc00:1::d6/128 encap seg6local action End.DT6 \
		table 100 dev veth0
	;;
*)
	echo "plm_altmark.sh: role $role: want ingress or egress" >&2
	exit 2
	;;
esac
seq 1 "$n" | sed 's/^/altmark monitor add flowmon /' |
	ip netns exec "$SUT" ip -batch - || exit
if [ "$role" = ingress ]; then
	traffic 6
else
	printf '{"family": 6, "dst_addr": "fd00:9::1", "src_addr": "fd00:8::1", "dst": "fd00:9::/64", "encap": {"mode": "encap", "segs": ["%s"], "segleft": 0, "altmark": %d}}\n' \
		"${flow//,/\", \"}" "$n"
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where the PF-PLM ingress's cost goes (experiment pfplm_parts): the
# ingress of plm.sh (H.Encaps with the flow's 3-SID list) with parts of
# pfplm's ingress state only, run by the wrappers plm_ing_table.sh and
# plm_ing_chains.sh:  plm_parts.sh GEN SUT PART
#   table   the mangle table, with no rule: the cost of its hooks
#           (PREROUTING, FORWARD and POSTROUTING for a forwarded packet);
#   chains  pfplm's chains and jumps as pfplm installs them (FORWARD
#           -j pfplm-I; pfplm-I: -m tos --tos 0x00/0x08 -j pfplm-I-A) with
#           the colour chains empty: what every packet pays before the
#           first flow rule or the set rule.
# With plm_ing_{rules,sets}_{count,colour}_1, the next steps: the flow's
# match, then its TOS target.

. "$(dirname "$0")/common.sh"

part=${3:?part}
sut_routes
sut -6 route replace fd00:9::/64 encap seg6 mode encap segs fc00:9::a,fc00:9::b,fc00:9::1 dev sink0
case $part in
table)
	# Listing the table instantiates it in the netns: its hooks are
	# registered from then on.
	ip netns exec "$SUT" ip6tables-legacy -t mangle -S > /dev/null
	;;
chains)
	printf '%s\n' '*mangle' ':pfplm-I - [0:0]' ':pfplm-I-A - [0:0]' \
		':pfplm-I-B - [0:0]' \
		'-A pfplm-I -m tos --tos 0x00/0x08 -j pfplm-I-A' \
		'-I FORWARD 1 -j pfplm-I' 'COMMIT' |
		ip netns exec "$SUT" ip6tables-legacy-restore -w 10 --noflush
	;;
*)
	echo "plm_parts.sh: part $part: want table or chains" >&2
	exit 2
	;;
esac
traffic 6

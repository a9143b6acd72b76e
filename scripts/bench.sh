#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench [BENCH=NAME[,NAME]]`: boot the srv6-oam kernel and run SRPerf
# experiments (bench/experiments/NAME.yaml) in it, then plot them on the
# host.  The default sweep is $DEFAULT below (about 25 minutes); BENCH=all
# runs every experiment (hours: the PDR searches are slow).  SMOKE=1: one
# short trial per behaviour, no plots (what make check runs).  ONLY=b1,b2
# limits the behaviours.
#
# usage: bench.sh BZIMAGE PREFIX OUTDIR

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
bzimage=$1 prefix=$2 out=$3
DEFAULT=srv6_cost
names=${BENCH:-$DEFAULT}
[ "$names" = all ] && names=$(cd "$TOP/bench/experiments" && ls *.yaml | sed 's/\.yaml$//' | tr '\n' ',')
mkdir -p "$out"
rm -f "$out"/status.*

guest="export PATH=$prefix/sbin:$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin;"
for n in ${names//,/ }; do
	exp=$TOP/bench/experiments/$n.yaml
	[ -f "$exp" ] || { echo "bench: no experiment $exp" >&2; exit 2; }
	opts=
	[ "${SMOKE:-0}" = 1 ] && opts+=" --smoke"
	[ -n "${ONLY:-}" ] && opts+=" --only ${ONLY}"
	guest+=" /usr/bin/python3 $TOP/bench/srperf.py $exp $out$opts 2>&1 | tee $out/$n.log; echo \${PIPESTATUS[0]} > $out/status.$n;"
done
# idle=poll: an idle vCPU spins instead of halting.  Under TCG a halted
# vCPU's thread sleeps on the host and wakes up on the next RPS IPI after a
# host scheduling latency; at rates below saturation that latency, not the
# forwarder, set the result (and its spread): PDRs roughly halved and CVs
# doubled without it.  The bench's vCPUs are busy anyway.  VM_PIN: each
# vCPU thread on a host CPU of its own (vm.sh).
VM_PIN=1 VM_APPEND="idle=poll${VM_APPEND:+ $VM_APPEND}" \
	"$TOP/scripts/vm.sh" "$bzimage" --rwdir "$out" -- "bash -c '$guest'"

rc=0
for n in ${names//,/ }; do
	st=$(cat "$out/status.$n" 2> /dev/null || echo none)
	if [ "$st" != 0 ]; then
		echo "bench: $n failed (status $st, log $out/$n.log)" >&2
		rc=1
		# What it measured before a behaviour failed is still shown.
		[ -s "$out/$n.json" ] || continue
	fi
	echo "bench: $n: $out/$n.csv"
	column -s, -t < "$out/$n.csv"
	if [ "${SMOKE:-0}" != 1 ]; then
		/usr/bin/python3 "$TOP/bench/plot.py" "$out/$n.json" "$out/$n.png" || rc=1
	fi
done
exit $rc

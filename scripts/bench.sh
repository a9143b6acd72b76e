#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench [BENCH=NAME[,NAME]]`: boot the srv6-oam kernel and run SRPerf
# experiments (bench/experiments/NAME.yaml) in it, then plot them on the
# host.  The default sweep is $DEFAULT below (about 25 minutes); BENCH=all
# runs every experiment (hours: the PDR searches are slow).  SMOKE=1: one
# short trial per behaviour, no plots.  ONLY=b1,b2
# limits the behaviours.  SET="key=value ..." overrides keys of every
# experiment (e.g. SET="method=cost rounds=2").
#
# ICOUNT=1: the icount bench (bench/README.md, "Deterministic measurement"):
# the guest runs under QEMU's -icount shift=2,sleep=off (guest time derived
# from the instructions executed, single-threaded TCG) with the instruction
# counter bench/insn.c loaded ($INSN_SO, built by make), and the cost method
# gives instructions per packet; its CPU time too with STOLEN=1 (the busy
# loop on the SUT's vCPU: about half the emulator's time).
#
# GATE=1: the performance gate of make check instead (bench/gate.sh: every
# configuration script carries traffic, key ratios within their bounds),
# in an icount guest; its verdict is left in OUTDIR for make check's test
# @bench/gate.sh, and this script's status is 0 if the guest ran it.
# GATE_BOUNDS=report: its bounds are printed, not held (the debug kernel);
# SPLATS=1: the guest's kernel log and a kmemleak scan are part of the
# verdict (the debug kernel).
#
# usage: bench.sh BZIMAGE PREFIX OUTDIR

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
bzimage=$1 prefix=$2 out=$3
# The bench's guests keep the CPU model its results were recorded with
# (scripts/vm.sh, VM_CPU): the instructions a packet costs include
# glibc's and the kernel's routines, which the model's features pick.
export VM_CPU=${VM_CPU:-max}
DEFAULT=srv6_cost
names=${BENCH:-$DEFAULT}
[ "$names" = all ] && names=$(cd "$TOP/bench/experiments" && ls *.yaml | sed 's/\.yaml$//' | tr '\n' ',')
mkdir -p "$out"
rm -f "$out"/status.*

guest="export PATH=$prefix/sbin:$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin;"
if [ "${GATE:-0}" = 1 ]; then
	ICOUNT=1 names=
	rm -f "$out"/gate.*
	guest+=" GATE_BOUNDS=${GATE_BOUNDS:-hold} SPLATS=${SPLATS:-0} $TOP/bench/gate.sh --run $out $out/insn.snap > $out/gate.log 2>&1;"
fi
for n in ${names//,/ }; do
	exp=$TOP/bench/experiments/$n.yaml
	[ -f "$exp" ] || { echo "bench: no experiment $exp" >&2; exit 2; }
	opts=
	[ "${SMOKE:-0}" = 1 ] && opts+=" --smoke"
	[ -n "${ONLY:-}" ] && opts+=" --only ${ONLY}"
	[ "${ICOUNT:-0}" = 1 ] && opts+=" --insn $out/insn.snap"
	[ "${ICOUNT:-0}${STOLEN:-0}" = 11 ] && opts+=" --stolen"
	for kv in ${SET:-}; do opts+=" --set $kv"; done
	guest+=" /usr/bin/python3 $TOP/bench/srperf.py $exp $out$opts 2>&1 | tee $out/$n.log; echo \${PIPESTATUS[0]} > $out/status.$n;"
done
# idle=poll: an idle vCPU spins instead of halting.  Under TCG a halted
# vCPU's thread sleeps on the host and wakes up on the next RPS IPI after a
# host scheduling latency; at rates below saturation that latency, not the
# forwarder, set the result (and its spread): PDRs roughly halved and CVs
# doubled without it.  The bench's vCPUs are busy anyway.  VM_PIN: each
# vCPU thread on a host CPU of its own (vm.sh).
#
# ICOUNT=1: none of that.  One host thread runs both vCPUs in turn, a halted
# vCPU costs no instruction and wakes when the other one's IPI is executed,
# and guest time is the instruction count: there is no host latency to hide.
# irqaffinity=0 keeps device interrupts off the SUT's vCPU (srperf moves
# every task there too).
# The guest's command goes in a file: vng passes its command on the
# kernel's command line, which is cut at 2048 bytes, and a few experiments
# with a few SET keys are longer than that (the guest then ran nothing).
printf '%s\n' "$guest" > "$out/guest.sh"
if [ "${ICOUNT:-0}" = 1 ]; then
	so=${INSN_SO:-$TOP/build/bench-insn/insn.so}
	[ -r "$so" ] || { echo "bench: no instruction counter $so (make bench builds it)" >&2; exit 2; }
	: > "$out/insn.snap"
	plugin="$so,out=$out/insn.snap"
	# PROF=1: a profile of the SUT's kernel-mode instructions per trial
	# (bench/insn.c, bench/profile.py)
	if [ "${PROF:-0}" = 1 ]; then
		rm -rf "$out/prof"
		mkdir -p "$out/prof"
		plugin="$plugin,prof=$out/prof"
	fi
	VM_QEMU_OPTS="-icount shift=2,sleep=off -plugin $plugin${VM_QEMU_OPTS:+ $VM_QEMU_OPTS}" \
	VM_APPEND="irqaffinity=0${VM_APPEND:+ $VM_APPEND}" \
		"$TOP/scripts/vm.sh" "$bzimage" --rwdir "$out" -- "bash $out/guest.sh"
else
	VM_PIN=1 VM_APPEND="idle=poll${VM_APPEND:+ $VM_APPEND}" \
		"$TOP/scripts/vm.sh" "$bzimage" --rwdir "$out" -- "bash $out/guest.sh"
fi

if [ "${GATE:-0}" = 1 ]; then
	cat "$out/gate.log" 2> /dev/null
	# make check goes on: its test @bench/gate.sh fails without a verdict.
	[ -s "$out/gate.status" ] || echo "bench: the gate did not finish (log $out/gate.log)" >&2
	echo "bench: gate status $(cat "$out/gate.status" 2> /dev/null || echo none) (make check's @bench/gate.sh reports it)"
	exit 0
fi
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

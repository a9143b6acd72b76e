#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a behaviour's instructions go: the kernel functions the SUT's vCPU
executes per packet, from the profiles of an icount bench run with PROF=1
(bench/insn.c writes DIR/prof.SEQ at each marker; srperf records each
trial's SEQ as insn_seq).

    make bench ICOUNT=1 PROF=1 BENCH=stamp_cost ONLY=ipv6,stamp_kernel,stamp_ebpf
    bench/profile.py build/bench/stamp_cost.json build/kbuild/System.map \\
        [--top 40] [--vs ipv6]

For each behaviour: the instructions per packet of each function (every
measured trial's blocks summed, attributed by address to the function of
System.map that holds them, over the trial's packets), the largest first;
with --vs, each behaviour's difference to that one, function by function.
A trial's window also holds the background (timer ticks), which the
figures here do not subtract: their sum is a little above insn_per_pkt.
"""

import argparse
import bisect
import collections
import json
import os
import sys


def load_symbols(path):
    """Sorted (address, name) of the text symbols of System.map."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def profile(prof_dir, seqs, addrs, names):
    """Instructions per function over the profiles SEQS."""
    fn = collections.Counter()
    for seq in seqs:
        path = os.path.join(prof_dir, f"prof.{seq}")
        with open(path) as f:
            for line in f:
                a, n, c = line.split()
                a = int(a, 16)
                i = bisect.bisect_right(addrs, a) - 1
                fn[names[i] if i >= 0 else hex(a)] += int(n) * int(c)
    return fn


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", help="an experiment's results (srperf JSON)")
    ap.add_argument("system_map", help="System.map of the guest's kernel")
    ap.add_argument("--prof", help="the profiles' directory "
                    "(default: prof/ beside the JSON)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--vs", help="a behaviour to compare each one with")
    args = ap.parse_args()

    with open(args.json) as f:
        exp = json.load(f)
    prof_dir = args.prof or os.path.join(os.path.dirname(args.json), "prof")
    addrs, names = load_symbols(args.system_map)
    per_pkt = {}
    for r in exp["results"]:
        trials = [t for t in r["trials"] if "insn_seq" in t]
        if not trials:
            sys.exit(f"profile: {r['behaviour']}: no trial has insn_seq "
                     "(run the bench with ICOUNT=1 PROF=1)")
        pkts = sum(t["total"] for t in trials)
        fn = profile(prof_dir, [t["insn_seq"] for t in trials], addrs, names)
        per_pkt[r["behaviour"]] = {k: v / pkts for k, v in fn.items()}

    for b, fn in per_pkt.items():
        total = sum(fn.values())
        print(f"== {b}: {total:.0f} instructions per packet")
        for name, v in sorted(fn.items(), key=lambda kv: -kv[1])[:args.top]:
            print(f"  {v:8.1f}  {100 * v / total:5.1f}%  {name}")
        if args.vs and args.vs in per_pkt and b != args.vs:
            ref = per_pkt[args.vs]
            diff = {k: fn.get(k, 0) - ref.get(k, 0) for k in set(fn) | set(ref)}
            print(f"  -- against {args.vs}: {total - sum(ref.values()):+.0f}")
            for name, v in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:args.top]:
                print(f"  {v:+8.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare two runs of the same icount experiment (srperf JSON): per
behaviour, instructions per packet and the instruction ratio of each run
with its CV over the repetitions, and how far the two runs' ratios are
apart.  Prints a Markdown table (bench/README.md, "Deterministic
measurement": how to check determinism).

usage: compare.py A.json B.json
"""

import json
import math
import sys


def missing(x):
    return x is None or not math.isfinite(x)


def load(path):
    with open(path) as f:
        res = json.load(f)
    return res, {r["behaviour"]: r for r in res["results"]}


def main():
    (ra, a), (rb, b) = load(sys.argv[1]), load(sys.argv[2])
    print(f"| behaviour | insn/pkt A (CV) | insn/pkt B (CV) | ratio A (CV) "
          f"| ratio B (CV) | B - A |")
    print("| --- | --- | --- | --- | --- | --- |")
    worst_d, worst_cv = 0.0, 0.0
    for name, x in a.items():
        y = b.get(name)
        if not y or "insn_ratio" not in x or "insn_ratio" not in y:
            continue
        xi, yi, xr, yr = x["insn_per_pkt"], y["insn_per_pkt"], x["insn_ratio"], y["insn_ratio"]
        # null (NaN in older files): not measured, or one repetition
        if any(missing(s[k]) for s in (xi, yi, xr, yr) for k in ("mean", "cv")):
            print(f"| {name} | - | - | - | - | - |")
            continue
        d = (yr["mean"] - xr["mean"]) / xr["mean"]
        worst_d = max(worst_d, abs(d))
        worst_cv = max(worst_cv, xi["cv"], yi["cv"], xr["cv"], yr["cv"])
        print(f"| {name} | {xi['mean']:.0f} ({100 * xi['cv']:.2f}%) "
              f"| {yi['mean']:.0f} ({100 * yi['cv']:.2f}%) "
              f"| {xr['mean']:.4f} ({100 * xr['cv']:.2f}%) "
              f"| {yr['mean']:.4f} ({100 * yr['cv']:.2f}%) | {100 * d:+.2f}% |")
    print(f"\nlargest difference between the runs' ratios {100 * worst_d:.2f}%, "
          f"largest CV {100 * worst_cv:.2f}%")


if __name__ == "__main__":
    main()

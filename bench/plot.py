#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot an srperf result (JSON).  PDR method: a bar chart of PDR with CI95,
and the ratio to the baseline above each bar.  Cost method: a bar chart of
the ratio to the baseline (the baseline's CPU time per packet over the
behaviour's) with CI95, and the SUT capacity it gives above each bar; in an
icount bench a second panel, the same with instructions per packet.

usage: plot.py RESULT.json OUT.png
"""

import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def missing(x):
    """Not measured: null in the JSON (NaN in files of older srperfs)."""
    return x is None or not math.isfinite(x)


def err(x):
    """An error bar: none when the CI95 is unknown (one repetition)."""
    return 0.0 if missing(x) else x


def plot_cost(res, out):
    rows = res["results"]
    names = [r["behaviour"] for r in rows]
    colour = ["#888" if r["behaviour"] == res["baseline"] else "#47a" for r in rows]
    # The measures there are: CPU time (not with `stolen: false`) and, in an
    # icount bench, instructions; one panel each.
    panels = []
    if not any(missing(r["ratio"]["mean"]) for r in rows):
        panels.append(("ratio", lambda r: f"{r['ratio']['mean']:.2f}\n"
                       f"{r['capacity_kpps']:.0f}k",
                       f"{res['baseline']}'s CPU time per packet / this one's"))
    if all("insn_ratio" in r and not missing(r["insn_ratio"]["mean"])
           for r in rows):
        panels.append(("insn_ratio", lambda r: f"{r['insn_ratio']['mean']:.3f}\n"
                       f"{r['insn_per_pkt']['mean']:.0f}",
                       f"{res['baseline']}'s instructions per packet / this one's"))
    fig, axes = plt.subplots(len(panels), 1, squeeze=False,
                             figsize=(max(6, 0.7 * len(rows) + 2), 4.5 * len(panels)))
    for ax, (key, label, ylabel) in zip(axes[:, 0], panels):
        ratio = [r[key]["mean"] for r in rows]
        ci = [err(r[key]["ci95"]) for r in rows]
        bars = ax.bar(names, ratio, yerr=ci, capsize=3, color=colour)
        for b, r, c in zip(bars, rows, ci):
            ax.annotate(label(r), (b.get_x() + b.get_width() / 2, b.get_height() + c),
                        ha="center", va="bottom", fontsize=7, xytext=(0, 3),
                        textcoords="offset points")
        ax.axhline(1.0, color="#888", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, max(x + c for x, c in zip(ratio, ci)) * 1.25)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(axis="x", labelrotation=45)
    what = " / ".join("1 / CPU time per packet (pps)" if k == "ratio" else
                      "instructions per packet" for k, _, _ in panels)
    axes[0, 0].set_title(f"{res['experiment']}: {res['config'].get('description', '')}\n"
                         f"{res['kernel']}{', icount' if res.get('icount') else ''}; "
                         f"bars: ratio, CI95; above: ratio and {what}", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot: {out}")


def main():
    with open(sys.argv[1]) as f:
        res = json.load(f)
    if res.get("method") == "cost":
        plot_cost(res, sys.argv[2])
        return
    rows = res["results"]
    names = [r["behaviour"] for r in rows]
    if any(missing(r["pdr"]["mean"]) for r in rows):
        sys.exit(f"plot: {sys.argv[1]}: a behaviour has no PDR")
    pdr = [r["pdr"]["mean"] / 1e3 for r in rows]
    ci = [err(r["pdr"]["ci95"]) / 1e3 for r in rows]
    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) + 2), 4.5))
    bars = ax.bar(names, pdr, yerr=ci, capsize=3,
                  color=["#888" if r["behaviour"] == res["baseline"] else
                         "#c44" if r["generator_bound"] else "#47a" for r in rows])
    for b, r in zip(bars, rows):
        if r.get("ratio") and not missing(r["ratio"]["mean"]):
            ax.annotate(f"{r['ratio']['mean']:.2f}", (b.get_x() + b.get_width() / 2, b.get_height()),
                        ha="center", va="bottom", fontsize=8, xytext=(0, 3),
                        textcoords="offset points")
    ax.set_ylabel("PDR@%g%% (kpps)" % (100 * res["config"].get("threshold", 0.005)))
    ax.set_title(f"{res['experiment']}: {res['config'].get('description', '')}\n"
                 f"kernel {res['kernel']}, ratio to {res['baseline']} above bars "
                 f"(red: generator-bound)", fontsize=9)
    plt.xticks(rotation=45, ha="right")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)
    print(f"plot: {sys.argv[2]}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot an srperf result (JSON).  PDR method: a bar chart of PDR with CI95,
and the ratio to the baseline above each bar.  Cost method: a bar chart of
the ratio to the baseline (the baseline's CPU time per packet over the
behaviour's) with CI95, and the SUT capacity it gives above each bar; in an
icount bench a second panel, the same with instructions per packet.

An experiment of behaviours NAME_N whose config has `xlabel` (what N
counts, e.g. flows) is plotted as curves instead, like a throughput-vs-N
figure: the ratio to the baseline (by instructions in an icount bench,
else by CPU time) against N, log scale, one curve per NAME, CI95 as error
bars; with --goal R, a dotted line at ratio R.  Several
results of such experiments can be drawn on one figure: the curves of the
first are solid, those of the others dashed, labelled with their
experiment.

usage: plot.py [--goal R] RESULT.json [MORE.json...] OUT.png
"""

import json
import math
import re
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


def curves(res):
    """{NAME: [(N, row)...]} of the behaviours NAME_N of RES."""
    out = {}
    for r in res["results"]:
        m = re.fullmatch(r"(.+)_(\d+)", r["behaviour"])
        if m and r["behaviour"] != res["baseline"]:
            out.setdefault(m.group(1), []).append((int(m.group(2)), r))
    return {k: sorted(v, key=lambda x: x[0]) for k, v in out.items()}


def plot_curves(results, out, goal=None):
    first = results[0]
    key = ("insn_ratio" if all("insn_ratio" in r for res in results
                               for r in res["results"]) else "ratio")
    fig, ax = plt.subplots(figsize=(8, 5))
    colours = {}
    for i, res in enumerate(results):
        for name, pts in curves(res).items():
            if name not in colours:
                colours[name] = f"C{len(colours)}"
            xs = [n for n, _ in pts]
            ys = [r[key]["mean"] for _, r in pts]
            # one repetition has no interval (null): no error bar
            ci = [r[key]["ci95"] for _, r in pts]
            ci = [0 if c is None or math.isnan(c) else c for c in ci]
            ci = ci if any(ci) else None
            label = name if i == 0 else f"{name} ({res['experiment']})"
            ax.errorbar(xs, ys, yerr=ci, capsize=3, marker="o" if i == 0 else "s",
                        linestyle="-" if i == 0 else "--", color=colours[name],
                        mfc=colours[name] if i == 0 else "none", label=label)
            for x, y in zip(xs, ys):
                ax.annotate(f"{y:.3g}", (x, y), fontsize=6, xytext=(4, 3),
                            textcoords="offset points", color=colours[name])
    ax.axhline(1.0, color="#888", linewidth=0.8, linestyle="--",
               label=f"{first['baseline']} (baseline)")
    if goal:
        ax.axhline(goal, color="#c44", linewidth=0.8, linestyle=":",
                   label=f"goal: {goal:g}")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.1)
    ax.set_xlabel(f"{first['config']['xlabel']} (N)")
    what = ("instructions per packet" if key == "insn_ratio"
            else "CPU time per packet")
    ax.set_ylabel(f"baseline's {what} / this one's\n(relative throughput)",
                  fontsize=8)
    ax.legend(fontsize=7)
    ax.set_title(f"{', '.join(r['experiment'] for r in results)}: "
                 f"{first['config'].get('description', '')}\n{first['kernel']}"
                 f"{', icount' if first.get('icount') else ''}; CI95 bars",
                 fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot: {out}")


def main():
    goal = None
    if sys.argv[1:2] == ["--goal"]:
        goal = float(sys.argv[2])
        del sys.argv[1:3]
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    results = []
    for path in sys.argv[1:-1]:
        with open(path) as f:
            results.append(json.load(f))
    res, out = results[0], sys.argv[-1]
    if res.get("method") == "cost" and res["config"].get("xlabel"):
        plot_curves(results, out, goal)
        return
    if len(results) > 1:
        sys.exit("plot.py: several results only for curves (`xlabel`)")
    sys.argv[1:] = [sys.argv[1], out]
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

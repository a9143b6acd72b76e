#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of srperf's statistics (make check-host; no guest): the t
quantile of its CI95 against Student's t distribution computed here from
its density, the CI95 of a known sample, results JSON without NaN or
Infinity, and the same of every results JSON under bench/results; and the
generator's frames (srv6_frame(), stamp_frame(), built without Scapy)
byte for byte against Scapy's (python3-scapy, make deps).  Exit 0 when
every check passed, 1 otherwise."""

import glob
import itertools
import json
import math
import os
import sys
import tempfile

import srperf
from srv6_oam import hosttest
from srv6_oam.hosttest import check


SRC_MAC, DST_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"


def scapy_srv6_frame(t, size):
    from scapy.all import (IPv6, UDP, Ether, IP, Raw, raw,
                           IPv6ExtHdrSegmentRouting)
    segs, fam = t["encap"]["segs"], t["family"]
    inner = (IPv6(src=t["src_addr"], dst=t["dst_addr"]) if fam == 6
             else IP(src=t["src_addr"], dst=t["dst_addr"])) / UDP(sport=9, dport=9)
    inner = inner / Raw(bytes(max(size - 14 - len(inner), 0)))
    nh = 41 if fam == 6 else 4
    if t["encap"].get("mode") == "l2encap":
        inner, nh = Ether(src=SRC_MAC, dst=DST_MAC) / inner, 143
    segleft = int(t["encap"].get("segleft", len(segs) - 1))
    srh = IPv6ExtHdrSegmentRouting(addresses=list(reversed(segs)),
                                   segleft=segleft, lastentry=len(segs) - 1,
                                   nh=nh)
    outer = IPv6(src="fd00:1::1", dst=segs[len(segs) - 1 - segleft], nh=43,
                 hlim=64, tc=int(t["encap"].get("tc", 0)))
    return raw(Ether(src=SRC_MAC, dst=DST_MAC) / outer / srh / inner)


def scapy_stamp_frame(t, size):
    """Scapy around the payload of srperf's own frame (stamp-sender's
    encoder, tested by stamp-sender/interop-test.py)."""
    from scapy.all import IPv6, UDP, Ether, IP, raw
    ours = srperf.stamp_frame(t, size, SRC_MAC, DST_MAC)
    l3 = (IPv6(src=t["src_addr"], dst=t["dst_addr"], hlim=64)
          if t["family"] == 6 else IP(src=t["src_addr"], dst=t["dst_addr"], ttl=64))
    payload = ours[14 + (40 if t["family"] == 6 else 20) + 8:]
    return raw(Ether(src=SRC_MAC, dst=DST_MAC) / l3 /
               UDP(sport=49152, dport=t["udp_dst"]) / payload)


def frames():
    """The generator's frames against Scapy's, over the traffic the CFG
    scripts can ask for (families, modes, SID counts, segleft, tc, sizes;
    STAMP test packets of each mode)."""
    n, bad = 0, []
    for fam, mode, nseg, segleft, tc, size in itertools.product(
            (4, 6), ("encap", "l2encap"), (1, 2, 16), (None, 0, 1), (0, 8),
            (64, 78, 1500)):
        if segleft is not None and segleft >= nseg:
            continue
        enc = {"mode": mode, "segs": [f"fc00:{i + 1}::e{i}" for i in range(nseg)],
               "tc": tc}
        if segleft is not None:
            enc["segleft"] = segleft
        t = {"family": fam, "encap": enc,
             "dst_addr": "fd00:9::1" if fam == 6 else "10.9.0.1",
             "src_addr": "fd00:8::1" if fam == 6 else "10.8.0.1"}
        n += 1
        if srperf.srv6_frame(t, size, SRC_MAC, DST_MAC) != scapy_srv6_frame(t, size):
            bad.append(f"srv6 {t} {size}")
    for fam, stamp in itertools.product((4, 6), (
            {}, {"ssid": 7}, {"tlvs": ["timestamp", "dm"]},
            {"ssid": 9, "key": "00112233445566778899aabbccddeeff"})):
        t = {"family": fam, "udp_dst": 862, "stamp": stamp,
             "dst_addr": "fd00:9::1" if fam == 6 else "10.9.0.1",
             "src_addr": "fd00:8::1" if fam == 6 else "10.8.0.1"}
        n += 1
        if srperf.stamp_frame(t, 200, SRC_MAC, DST_MAC) != scapy_stamp_frame(t, 200):
            bad.append(f"stamp {t}")
    check(f"generator frames: {n} identical to Scapy's", n > 100 and not bad,
          "; ".join(bad[:3]))


def t_cdf(x, df, steps=4000):
    """P(T <= x), x >= 0, by Simpson's rule over Student's t density."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) \
        / math.sqrt(df * math.pi)

    def f(t):
        return c * (1 + t * t / df) ** (-(df + 1) / 2)
    h = x / steps
    area = f(0) + f(x) + sum((4 if i % 2 else 2) * f(i * h)
                             for i in range(1, steps))
    return 0.5 + area * h / 3


def t_quantile(p, df):
    lo, hi = 0.0, 20.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def main():
    # The CI95 of n repetitions uses n - 1 degrees of freedom.
    check("n=3 -> t 4.303, n=5 -> 2.776, n=10 -> 2.262",
          (srperf.t95(2), srperf.t95(4), srperf.t95(9)) == (4.303, 2.776, 2.262),
          (srperf.t95(2), srperf.t95(4), srperf.t95(9)))
    bad = [(df, srperf.t95(df), round(t_quantile(0.975, df), 4))
           for df in list(range(1, 31)) + [31, 35, 40, 50, 60, 90, 120, 500]
           if abs(srperf.t95(df) - t_quantile(0.975, df))
           > (0.0006 if df <= 30 else 0.0005)]
    check("t95(df) = Student's t 0.975 quantile, df 1..30 and up to 500",
          not bad, bad)
    check("t95 decreases with df, above the normal 1.96",
          all(srperf.t95(d) > srperf.t95(d + 1) > 1.96 for d in range(1, 300)))

    s = srperf.stats([1.0, 2.0, 3.0])     # mean 2, sd 1
    check("stats([1, 2, 3]): mean 2, sd 1, CI95 4.303 / sqrt(3)",
          s["n"] == 3 and s["mean"] == 2 and s["sd"] == 1
          and abs(s["ci95"] - 4.303 / math.sqrt(3)) < 1e-12, s)
    s5 = srperf.stats([10.0, 12.0, 11.0, 13.0, 9.0])
    check("stats of 5 values: CI95 2.776 * sd / sqrt(5)",
          abs(s5["ci95"] - 2.776 * s5["sd"] / math.sqrt(5)) < 1e-12, s5)
    one = srperf.stats([5.0])
    check("stats of 1 value: mean, no spread (NaN)",
          one["mean"] == 5 and all(math.isnan(one[k])
                                   for k in ("sd", "cv", "ci95")), one)
    check("stats with a NaN or an inf: all NaN",
          all(math.isnan(srperf.stats(v)["mean"])
              for v in ([1.0, math.nan], [1.0, math.inf])))

    out = {"experiment": "t", "results": [
        {"behaviour": "b", "cost_ns": srperf.stats([math.nan, 1.0]),
         "ratio": one, "capacity_kpps": math.inf, "x": [-math.inf, 1.5, 2],
         "trials": [{"cost_ns": math.inf, "insn_per_pkt": math.nan}]}]}
    with tempfile.TemporaryDirectory() as d:
        srperf.write_results(d, out, "behaviour", lambda r: r["behaviour"])
        text = open(os.path.join(d, "t.json")).read()

    def strict(word):
        raise ValueError(f"not JSON: {word}")
    try:
        back = json.loads(text, parse_constant=strict)
        good = (back["results"][0]["cost_ns"]["mean"] is None
                and back["results"][0]["ratio"]["mean"] == 5
                and back["results"][0]["ratio"]["ci95"] is None
                and back["results"][0]["capacity_kpps"] is None
                and back["results"][0]["x"] == [None, 1.5, 2]
                and back["results"][0]["trials"][0]["cost_ns"] is None)
    except ValueError as err:
        good, back = False, err
    check("results JSON: null for NaN and Infinity, strict JSON", good, back)

    # The results kept in the repository: strict JSON too (what srperf
    # writes now), so that any JSON parser reads them.
    bench = os.path.dirname(os.path.abspath(__file__))
    files = sorted(glob.glob(os.path.join(bench, "results", "**", "*.json"),
                             recursive=True))
    bad = []
    for path in files:
        try:
            with open(path) as f:
                json.load(f, parse_constant=strict)
        except ValueError as err:
            bad.append(f"{os.path.relpath(path, os.path.dirname(bench))}: {err}")
    check(f"bench/results: {len(files)} results JSON files, all strict JSON",
          bool(files) and not bad, "; ".join(bad) or "no file")
    frames()
    return hosttest.failed


if __name__ == "__main__":
    sys.exit(main())

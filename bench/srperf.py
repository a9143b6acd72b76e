#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""srperf: the SRPerf benchmark method, run inside the srv6-oam guest.

For each behaviour of an experiment (bench/experiments/*.yaml) it builds the
topology

    gen netns --veth--> sut netns --> sink0 (dummy, in the SUT's netns)
      pktgen             forwarder        counts
      (vCPU 0)           (vCPU 1, RPS)

configures the forwarder with the behaviour's script (bench/cfg/NAME.sh, as
SRPerf's CFG scripts), and finds the Partial Drop Rate: the highest offered
rate whose delivery ratio is at least 1 - threshold, by a binary search over
the offered rate (SRPerf's Algorithm 1), repeated to give mean, CV and CI95.

Traffic comes from vCPU 0, from the kernel's pktgen: plain IPv4/IPv6 frames
as pktgen builds them; any other frame (an SRH, ...) built with Scapy and
written over pktgen's frames by an eBPF program at the generator veth's
egress (bench/rewrite.py).

Offered packets are counted at the generator's veth (sent + dropped), delivered
packets at the sink's veth when the generator stops, and the per-CPU softirq
work (/proc/net/softnet_stat) is recorded per trial to show that the SUT's work
ran on vCPU 1.

usage: srperf.py EXPERIMENT.yaml OUTDIR [--smoke] [--only NAME[,NAME]]
"""

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
GEN, SUT = "srp-gen", "srp-sut"
SINK_MAC = "02:00:00:00:00:02"      # the sink's neighbour entries
GEN_CPU, SUT_CPU = 0, 1
BACKLOG = 10000
DRAIN = 0.02           # seconds after the generator stops

# Student's t, two-sided 95%, by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
       7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086,
       30: 2.042}


def t95(df):
    for k in sorted(T95):
        if df <= k:
            return T95[k]
    return 1.96


def log(msg):
    print(f"srperf: {msg}", flush=True)


def sh(cmd, ns=None, check=True):
    """Run a shell command, in a netns if given; return its stdout."""
    argv = ["sh", "-c", cmd]
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    res = subprocess.run(argv, capture_output=True, text=True)
    if check and res.returncode != 0:
        raise RuntimeError(f"{ns or 'host'}: {cmd}: {res.stderr.strip()}")
    return res.stdout


class Topology:
    """gen -> sut -> sink, offloads off, the SUT's receive work on SUT_CPU.

    The sink is a dummy device in the SUT's netns (sink0): the SUT transmits
    to it as to a NIC, and it counts and frees what it is given.  No second
    receive path shares the SUT's CPU and backlog (a sink netns behind a
    veth pair did: its receive work cost the SUT's CPU, and at overload the
    generator's flood of the shared backlog dropped the SUT's output)."""

    def __init__(self):
        self.teardown()
        for ns in (GEN, SUT):
            sh(f"ip netns add {ns}")
            sh("ip link set lo up", ns)
        # One idle process in each netns: its /proc/PID/net gives the
        # orchestrator pktgen's control files and the counters of that
        # netns without a fork per reading.
        self.holders = {ns: subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "1d"])
                        for ns in (GEN, SUT)}
        sh(f"ip link add veth0 netns {GEN} type veth peer name veth0 netns {SUT}")
        sh("ip link add sink0 type dummy", SUT)
        for ns, dev in ((GEN, "veth0"), (SUT, "veth0"), (SUT, "sink0")):
            sh(f"ip link set {dev} up", ns)
            sh(f"ethtool -K {dev} gro off gso off tso off tx off rx off "
               f"> /dev/null 2>&1 || true", ns)
        for ns in (GEN, SUT):
            sh("sysctl -qw net.ipv6.conf.all.accept_dad=0 "
               "net.ipv6.conf.default.accept_dad=0 "
               "net.ipv6.conf.all.forwarding=1 net.ipv4.ip_forward=1 "
               "net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0",
               ns)
        sh("ip -6 addr add fd00:1::1/64 dev veth0 nodad && "
           "ip addr add 10.0.1.1/24 dev veth0", GEN)
        sh("ip -6 addr add fd00:1::2/64 dev veth0 nodad && "
           "ip addr add 10.0.1.2/24 dev veth0 && "
           "ip -6 addr add fd00:2::1/64 dev sink0 nodad && "
           "ip addr add 10.0.2.1/24 dev sink0", SUT)
        self.mac = {"sut0": self.macof(SUT, "veth0"), "sink": SINK_MAC}
        # Static neighbours: no neighbour discovery in the measurement.
        sh(f"ip -6 neigh add fd00:2::2 lladdr {SINK_MAC} dev sink0 nud permanent && "
           f"ip neigh add 10.0.2.2 lladdr {SINK_MAC} dev sink0 nud permanent", SUT)
        sh(f"ip -6 neigh add fd00:1::2 lladdr {self.mac['sut0']} dev veth0 nud permanent && "
           f"ip neigh add 10.0.1.2 lladdr {self.mac['sut0']} dev veth0 nud permanent", GEN)
        # RPS: the SUT's receive work on SUT_CPU; the generator (pktgen's
        # kthread) stays on GEN_CPU.
        mask = format(1 << SUT_CPU, "x")
        # A backlog deep enough to absorb the generator's bursts: under TCG a
        # vCPU is descheduled by the host now and then and catches up in a
        # burst, which a 1000-packet backlog turns into loss that is not the
        # SUT's.  It cannot hide an overload: what is still queued when the
        # generator stops counts as lost (Generator.run).  (Global sysctl:
        # the guest runs nothing else.)
        sh(f"sysctl -qw net.core.netdev_max_backlog={BACKLOG}")
        sh(f"echo {mask} > /sys/class/net/veth0/queues/rx-0/rps_cpus", SUT)

    @staticmethod
    def macof(ns, dev):
        return sh(f"cat /sys/class/net/{dev}/address", ns).strip()

    def proc_net(self, ns):
        return f"/proc/{self.holders[ns].pid}/net"

    def teardown(self):
        for p in getattr(self, "holders", {}).values():
            p.kill()
            p.wait()
        for ns in (GEN, SUT):
            sh(f"ip netns del {ns}", check=False)


def softnet():
    """Per-CPU count of packets processed by the receive softirq."""
    out = []
    with open("/proc/net/softnet_stat") as f:
        for line in f:
            out.append(int(line.split()[0], 16))
    return out


def netdev(path, dev):
    """{rx, tx, tx_dropped} packets of DEV in a /proc/PID/net/dev."""
    with open(path) as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name.strip() == dev:
                v = rest.split()
                return {"rx": int(v[1]), "tx": int(v[9]), "tx_dropped": int(v[11])}
    raise RuntimeError(f"no {dev} in {path}")


def srv6_frame(traffic, size, src_mac, dst_mac):
    """The frame the generator replays for SRH traffic: outer IPv6 + SRH
    carrying traffic["encap"]["segs"] (first segment first), then the inner
    packet of SIZE bytes (an Ethernet frame for l2encap)."""
    from scapy.all import (IPv6, UDP, Ether, IP, Raw, raw,
                           IPv6ExtHdrSegmentRouting)
    fam = traffic["family"]
    segs = traffic["encap"]["segs"]
    l3 = (IPv6(src=traffic["src_addr"], dst=traffic["dst_addr"]) if fam == 6
          else IP(src=traffic["src_addr"], dst=traffic["dst_addr"]))
    inner = l3 / UDP(sport=9, dport=9)
    pad = max(size - 14 - len(inner), 0)
    inner = inner / Raw(b"\0" * pad)
    if traffic["encap"].get("mode") == "l2encap":
        inner, nh = Ether(src=src_mac, dst=dst_mac) / inner, 143
    else:
        nh = 41 if fam == 6 else 4
    srh = IPv6ExtHdrSegmentRouting(addresses=list(reversed(segs)),
                                   segleft=len(segs) - 1,
                                   lastentry=len(segs) - 1, nh=nh)
    outer = IPv6(src="fd00:1::1", dst=segs[0], nh=43, hlim=64)
    return raw(Ether(src=src_mac, dst=dst_mac) / outer / srh / inner)


def template(frame, pktgen_end=78):
    """What the generator's rewrite writes over the UDP frame pktgen builds,
    of the same length, to make it FRAME: FRAME from the IPv6 header on (the
    Ethernet header is pktgen's: dst_mac, the device's address, 0x86dd, the
    outer header of an SRv6 frame being IPv6), up to its last non-zero byte
    and at least over pktgen's own headers (UDP, and the pktgen header with
    its sequence number and timestamp: the frame's bytes up to PKTGEN_END),
    which would otherwise show through in the inner packet.  Beyond that,
    both frames are zeros."""
    end = min(max(len(frame.rstrip(b"\0")), pktgen_end), len(frame))
    return frame[14:end]


class Generator:
    """Offers traffic to the SUT from GEN_CPU with the kernel's pktgen.

    Plain IPv4/IPv6 (UDP) frames: pktgen builds them.  Frames with an SRH,
    which pktgen cannot build: pktgen builds an IPv6/UDP frame of the same
    length, sent through the qdisc layer, and a program at the generator
    veth's tcx egress hook rewrites it into the frame srv6_frame() built
    (bench/rewrite.py: one bpf_skb_store_bytes() per packet).  Both run in
    pktgen's kthread on GEN_CPU, on one fresh skb per packet.
    """

    def __init__(self, topo, traffic, size):
        self.topo = topo
        self.traffic = traffic
        self.size = size
        self.srh = traffic.get("encap") is not None
        self.dst_mac = topo.mac["sut0"]
        self.pktgen = topo.proc_net(GEN) + "/pktgen"
        self.frame_len = size
        if self.srh:
            frame = srv6_frame(traffic, size, topo.macof(GEN, "veth0"), self.dst_mac)
            self.frame_len = len(frame)
            sh(f"/usr/bin/python3 {HERE}/rewrite.py veth0 14 "
               f"{template(frame).hex()}", GEN)

    def pg(self, cmds):
        # One command per write, newline-terminated: pktgen scans a word
        # up to white space, not up to the end of the write.
        for f, c in cmds:
            with open(f"{self.pktgen}/{f}", "w") as fd:
                fd.write(c + "\n")

    def setup(self, rate, count):
        t = self.traffic
        dev = "veth0"
        cmds = [(f"kpktgend_{GEN_CPU}", "rem_device_all"),
                (f"kpktgend_{GEN_CPU}", f"add_device {dev}"),
                (dev, f"count {count}"), (dev, f"pkt_size {self.frame_len}"),
                (dev, "clone_skb 0"), (dev, f"dst_mac {self.dst_mac}")]
        if self.srh:
            # An IPv6 frame of the right length, rewritten on egress: its
            # addresses do not matter; through the qdisc layer, for tcx.
            cmds += [(dev, "dst6 fd00:1::2"), (dev, "src6 fd00:1::1"),
                     (dev, "xmit_mode queue_xmit")]
        elif t["family"] == 6:
            cmds += [(dev, f"dst6 {t['dst_addr']}"), (dev, f"src6 {t['src_addr']}")]
        else:
            cmds += [(dev, f"dst_min {t['dst_addr']}"), (dev, f"dst_max {t['dst_addr']}"),
                     (dev, f"src_min {t['src_addr']}"), (dev, f"src_max {t['src_addr']}")]
        cmds.append((dev, f"ratep {rate}" if rate else "delay 0"))
        self.pg(cmds)

    def result(self):
        """pktgen's own measure of the run: (microseconds, packets sent)."""
        with open(f"{self.pktgen}/veth0") as f:
            for line in f:
                if line.startswith("Result: OK:"):
                    w = line.split()
                    return int(w[2].split("(")[0]), int(w[4])
        raise RuntimeError("pktgen reported no result")

    def run(self, rate, count):
        """Offer COUNT packets at RATE pps (0: as fast as possible).

        pktgen times its own run; the orchestrator waits for it (no process
        forked on the generator's CPU meanwhile) and reads the counters of
        the generator's and the sink's netns in their /proc/PID/net/dev.
        Delivered packets are those the sink has when pktgen stops plus
        DRAIN seconds: what is still queued in the SUT then is lost, so an
        overloaded SUT cannot hide its deficit in the receive backlog."""
        gen_dev, sut_dev = self.topo.proc_net(GEN) + "/dev", self.topo.proc_net(SUT) + "/dev"

        def offered_now():      # sent + refused by the SUT's full backlog
            c = netdev(gen_dev, "veth0")
            return c["tx"] + c["tx_dropped"]

        def delivered_now():
            return netdev(sut_dev, "sink0")["tx"]

        self.setup(rate, count)
        s0, i0, o0 = softnet(), offered_now(), delivered_now()
        # pgctrl acts on the writer's netns: the one write forks.
        start = subprocess.run(["ip", "netns", "exec", GEN, "sh", "-c",
                                "echo start > /proc/net/pktgen/pgctrl"])
        if start.returncode != 0:
            raise RuntimeError(f"pktgen exited with {start.returncode}")
        time.sleep(DRAIN)
        s1, i1, o1 = softnet(), offered_now(), delivered_now()
        time.sleep(0.3)
        late = delivered_now() - o1
        usec, sent = self.result()
        offered, delivered = i1 - i0, o1 - o0
        elapsed = max(usec / 1e6, 1e-3)
        return {
            "rate": rate, "offered": offered, "delivered": delivered,
            "late": late, "elapsed": elapsed,
            "offered_pps": offered / elapsed,
            "delivered_pps": delivered / elapsed,
            "dr": delivered / offered if offered else 0.0,
            "softnet": [b - a for a, b in zip(s0, s1)],
        }


def pdr_search(gen, trial, lo, hi, threshold, accuracy, trials):
    """SRPerf Algorithm 1: halve [lo, hi] until hi - lo <= accuracy."""
    a, b = lo, hi
    while b - a > accuracy:
        m = (a + b) / 2
        r = gen.run(int(m), max(int(m * trial), 1000))
        trials.append(r)
        ok = r["dr"] >= 1 - threshold
        log(f"    {int(m):>8} pps: dr {r['dr']:.4f} "
            f"({r['delivered']}/{r['offered']}) {'pass' if ok else 'fail'}")
        if ok:
            a = m
        else:
            b = m
    return a, b


def stats(values):
    n = len(values)
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if n > 1 else 0.0
    return {
        "n": n, "mean": mean, "sd": sd,
        "cv": sd / mean if mean else 0.0,
        "ci95": t95(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0,
    }


def cfg_script(name):
    """The CFG script of a behaviour, and its arguments: bench/cfg/NAME.sh,
    or, for NAME_N where there is no such script, bench/cfg/NAME.sh with the
    argument N (e.g. srh_list_16: srh_list.sh with 16 rules)."""
    cfg = os.path.join(HERE, "cfg", f"{name}.sh")
    if os.path.exists(cfg):
        return cfg, []
    m = re.fullmatch(r"(.+)_(\d+)", name)
    if m:
        cfg = os.path.join(HERE, "cfg", f"{m.group(1)}.sh")
        if os.path.exists(cfg):
            return cfg, [m.group(2)]
    raise RuntimeError(f"no forwarder configuration script for {name}")


def measure(name, exp, smoke):
    """One repetition for one behaviour: a fresh topology, the forwarder
    configured by its CFG script, an MRR trial, then one PDR search."""
    cfg, args = cfg_script(name)
    topo = Topology()
    try:
        # The CFG script configures the SUT and prints the traffic it needs.
        out = subprocess.run(["bash", cfg, GEN, SUT] + args,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"{cfg}: {out.stderr.strip()}")
        traffic = json.loads(out.stdout.strip().splitlines()[-1])
        size = int(exp.get("pkt_size", 78))
        gen = Generator(topo, traffic, size)
        trial = 0.2 if smoke else float(exp.get("trial", 2.0))
        threshold = float(exp.get("threshold", 0.005))
        acc = float(exp.get("accuracy", 0.01))
        trials = []
        # MRR: offer as fast as the generator goes; its rate is the top of
        # the search interval (SRPerf's line packet rate).
        mrr = gen.run(0, 3000 if smoke else int(exp.get("mrr_count", 200000)))
        trials.append(mrr)
        top = mrr["offered_pps"]
        log(f"  {name}: generator max {top:.0f} pps, MRR "
            f"{mrr['delivered_pps']:.0f} pps (dr {mrr['dr']:.4f}), "
            f"frame {gen.frame_len} bytes")
        if smoke:
            r = gen.run(int(top / 4), max(int(top / 4 * trial), 100))
            trials.append(r)
            pdr, hi = r["delivered_pps"], r["delivered_pps"]
        else:
            pdr, hi = pdr_search(gen, trial, 0.0, top, threshold, acc * top, trials)
            log(f"  {name}: PDR in [{pdr:.0f}, {hi:.0f}] pps")
        return {
            "traffic": traffic, "pkt_size": size, "frame_len": gen.frame_len,
            "top": top, "mrr": mrr["delivered_pps"], "pdr": pdr,
            # A PDR within the last steps of the generator's maximum is a
            # bound, not a measurement: the generator was the bottleneck.
            "generator_bound": pdr >= top * (1 - 2 * acc),
            "trials": trials,
        }
    finally:
        topo.teardown()


def summarise(name, runs, base_runs):
    """Per behaviour: PDR and ratio statistics over the repetitions.  The
    ratio is taken per repetition, to the baseline measured in the same
    round, so that slow and fast phases of the guest cancel out."""
    pdrs = [r["pdr"] for r in runs]
    cpu = None
    for r in runs:
        for t in r["trials"]:
            cpu = t["softnet"] if cpu is None else [c + x for c, x in zip(cpu, t["softnet"])]
    ratios = []
    if base_runs:
        ratios = [r["pdr"] / b["pdr"] for r, b in zip(runs, base_runs) if b["pdr"]]
    return {
        "behaviour": name, "pkt_size": runs[0]["pkt_size"],
        "frame_len": runs[0]["frame_len"], "traffic": runs[0]["traffic"],
        "generator_max_pps": statistics.fmean(r["top"] for r in runs),
        "mrr_pps": statistics.fmean(r["mrr"] for r in runs),
        "pdr": stats(pdrs), "pdr_values": pdrs,
        "ratio": stats(ratios) if ratios else None, "ratio_values": ratios,
        "generator_bound": any(r["generator_bound"] for r in runs),
        "softnet_per_cpu": cpu,
        "trials": [t for r in runs for t in r["trials"]],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("experiment")
    ap.add_argument("outdir")
    ap.add_argument("--smoke", action="store_true",
                    help="one short trial per behaviour: checks that the bench runs")
    ap.add_argument("--only", default="")
    args = ap.parse_args()

    # The orchestrator and everything it starts run on the generator's
    # CPU: the SUT's CPU does only the SUT's work.
    os.sched_setaffinity(0, {GEN_CPU})
    with open(args.experiment) as f:
        exp = yaml.safe_load(f)
    behaviours = exp["behaviours"]
    if args.only:
        behaviours = [b for b in behaviours if b in args.only.split(",")]
    baseline = exp.get("baseline", behaviours[0])
    if baseline not in behaviours:
        behaviours.insert(0, baseline)
    os.makedirs(args.outdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.experiment))[0]
    log(f"experiment {name}: {', '.join(behaviours)}; kernel {os.uname().release}, "
        f"{os.cpu_count()} CPUs{' (smoke)' if args.smoke else ''}")

    # Repetitions are rounds over every behaviour (not one behaviour
    # repeated): each round measures the baseline and the others within
    # minutes of each other.
    reps = 1 if args.smoke else int(exp.get("repetitions", 5))
    runs = {b: [] for b in behaviours}
    failed = []
    for rep in range(reps):
        log(f"round {rep + 1}/{reps}")
        for b in behaviours:
            if b in failed:
                continue
            log(f" behaviour {b}")
            try:
                runs[b].append(measure(b, exp, args.smoke))
            except Exception as e:  # report, go on with the next one
                log(f"  {b}: ERROR {e}")
                failed.append(b)
    base_runs = runs[baseline] if baseline not in failed else None
    results = [summarise(b, runs[b], base_runs if b != baseline else runs[b])
               for b in behaviours if b not in failed and runs[b]]
    out = {"experiment": name, "kernel": os.uname().release, "smoke": args.smoke,
           "baseline": baseline, "config": exp, "results": results,
           "failed": failed}
    with open(os.path.join(args.outdir, f"{name}.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(os.path.join(args.outdir, f"{name}.csv"), "w") as f:
        f.write("behaviour,frame_len,pdr_kpps,pdr_cv,pdr_ci95_kpps,mrr_kpps,"
                "generator_max_kpps,ratio,ratio_cv,ratio_ci95,generator_bound,"
                "sut_cpu_share\n")
        for r in results:
            cpu = r["softnet_per_cpu"]
            share = cpu[SUT_CPU] / sum(cpu) if sum(cpu) else 0
            ra = r["ratio"]
            f.write(f"{r['behaviour']},{r['frame_len']},{r['pdr']['mean'] / 1e3:.2f},"
                    f"{r['pdr']['cv']:.3f},{r['pdr']['ci95'] / 1e3:.2f},"
                    f"{r['mrr_pps'] / 1e3:.2f},{r['generator_max_pps'] / 1e3:.2f},"
                    + (f"{ra['mean']:.3f},{ra['cv']:.3f},{ra['ci95']:.3f}," if ra else ",,,")
                    + f"{int(r['generator_bound'])},{share:.3f}\n")
    log(f"results in {args.outdir}/{name}.csv")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

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
egress (bench/rewrite.bpf.c).

Offered packets are counted at the generator's veth (sent + dropped), delivered
packets at the sink's veth when the generator stops, and the per-CPU softirq
work (/proc/net/softnet_stat) is recorded per trial to show that the SUT's work
ran on vCPU 1.

usage: srperf.py EXPERIMENT.yaml OUTDIR [--smoke] [--only NAME[,NAME]]
"""

import argparse
import contextlib
import ctypes
import errno
import json
import math
import mmap
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
# The tools' codec (python/srv6_oam, a symbolic link here): the STAMP test
# packets and the UDP packets of the generator's frames.
from srv6_oam import stamp_wire as sw  # noqa: E402

GEN, SUT = "srp-gen", "srp-sut"
SINK_MAC = "02:00:00:00:00:02"      # the sink's neighbour entries
GEN_MAC, SUT_MAC = "02:00:00:00:01:01", "02:00:00:00:01:02"   # veth0 of each
GEN_CPU, SUT_CPU = 0, 1
BACKLOG = 10000
DRAIN = 0.02           # seconds after the generator stops

# Student's t distribution's 0.975 quantile (a two-sided 95% interval) by
# degrees of freedom, 1 to 30, as printed in the usual tables.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101,
        2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
        2.048, 2.045, 2.042)
Z975 = 1.959963984540054    # the normal distribution's


def t95(df):
    """Student's t 0.975 quantile for df degrees of freedom (the CI95 of a
    mean of df + 1 values is t95(df) * sd / sqrt(df + 1)).  From the table
    up to 30; above, the Cornish-Fisher expansion in 1/df (Abramowitz and
    Stegun 26.7.5), within 0.0005 of the exact value there and closer as
    df grows.  No scipy in the guest."""
    if df < 1:
        raise ValueError(f"t quantile for {df} degrees of freedom")
    if df <= len(T975):
        return T975[df - 1]
    z = Z975
    return (z + (z ** 3 + z) / (4 * df)
            + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z)
            / (384 * df ** 3))


def json_safe(x):
    """x with every float that is not finite (NaN: not measured; inf: no
    packet counted) replaced by None, so that it is written as JSON's null:
    json.dump() would write NaN and Infinity, which are not JSON."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [json_safe(v) for v in x]
    return x


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

    def __init__(self, tag=""):
        # TAG names a second, third... topology beside the first (the cost
        # method keeps one per behaviour): netns srp-gen-TAG, srp-sut-TAG.
        self.gen, self.sut = (GEN + "-" + tag, SUT + "-" + tag) if tag else (GEN, SUT)
        if any(os.path.exists(f"/run/netns/{ns}") for ns in (self.gen, self.sut)):
            self.teardown()
        # Few processes: under TCG each one costs a good part of a second,
        # `ip netns exec` (which mounts a sysfs of the netns) more.  One
        # shell: `ip -batch` per netns; the MACs set, not read back; the
        # sysctls written from this process; one `ip netns exec` for what
        # needs the netns' sysfs (RPS).
        self.mac = {"gen0": GEN_MAC, "sut0": SUT_MAC, "sink": SINK_MAC}
        gen_cmds = ["link set lo up", "link set veth0 up",
                    "addr add fd00:1::1/64 dev veth0 nodad",
                    "addr add 10.0.1.1/24 dev veth0",
                    # Static neighbours: no neighbour discovery in the
                    # measurement.
                    f"neigh add fd00:1::2 lladdr {SUT_MAC} dev veth0 nud permanent",
                    f"neigh add 10.0.1.2 lladdr {SUT_MAC} dev veth0 nud permanent"]
        sut_cmds = ["link set lo up", "link add sink0 type dummy",
                    "link set veth0 up", "link set sink0 up",
                    "addr add fd00:1::2/64 dev veth0 nodad",
                    "addr add 10.0.1.2/24 dev veth0",
                    "addr add fd00:2::1/64 dev sink0 nodad",
                    "addr add 10.0.2.1/24 dev sink0",
                    f"neigh add fd00:2::2 lladdr {SINK_MAC} dev sink0 nud permanent",
                    f"neigh add 10.0.2.2 lladdr {SINK_MAC} dev sink0 nud permanent"]
        gen_b, sut_b = "\n".join(gen_cmds), "\n".join(sut_cmds)
        sh(f"ip netns add {self.gen} && ip netns add {self.sut} && "
           f"ip link add veth0 address {GEN_MAC} netns {self.gen} type veth "
           f"peer name veth0 address {SUT_MAC} netns {self.sut} && "
           f"printf '{gen_b}\\n' | ip -n {self.gen} -batch - && "
           f"printf '{sut_b}\\n' | ip -n {self.sut} -batch -")
        for ns in (self.gen, self.sut):
            with netns(ns):
                for key, val in (("ipv6/conf/all/accept_dad", 0),
                                 ("ipv6/conf/default/accept_dad", 0),
                                 ("ipv6/conf/all/forwarding", 1),
                                 ("ipv4/ip_forward", 1),
                                 ("ipv4/conf/all/rp_filter", 0),
                                 ("ipv4/conf/default/rp_filter", 0)):
                    with open(f"/proc/sys/net/{key}", "w") as f:
                        f.write(f"{val}\n")
        # One idle process in each netns: its /proc/PID/net gives the
        # orchestrator pktgen's control files and the counters of that
        # netns without a fork per reading.
        self.holders = {ns: subprocess.Popen(["nsenter", f"--net=/run/netns/{ns}",
                                              "sleep", "1d"])
                        for ns in (self.gen, self.sut)}
        offloads = "gro off gso off tso off tx off rx off"
        # RPS: the SUT's receive work on SUT_CPU; the generator (pktgen's
        # kthread) stays on GEN_CPU.
        mask = format(1 << SUT_CPU, "x")
        sh(f"nsenter --net=/run/netns/{self.gen} ethtool -K veth0 {offloads} "
           f"> /dev/null 2>&1; ip netns exec {self.sut} sh -c '"
           f"for d in veth0 sink0; do ethtool -K $d {offloads} > /dev/null 2>&1; done; "
           f"echo {mask} > /sys/class/net/veth0/queues/rx-0/rps_cpus'")
        # A backlog deep enough to absorb the generator's bursts: under TCG a
        # vCPU is descheduled by the host now and then and catches up in a
        # burst, which a 1000-packet backlog turns into loss that is not the
        # SUT's.  It cannot hide an overload: what is still queued when the
        # generator stops counts as lost (Generator.run).  (Global sysctl:
        # the guest runs nothing else.)
        with open("/proc/sys/net/core/netdev_max_backlog", "w") as f:
            f.write(f"{BACKLOG}\n")

    def proc_net(self, ns):
        return f"/proc/{self.holders[ns].pid}/net"

    def teardown(self):
        for p in getattr(self, "holders", {}).values():
            p.kill()
            p.wait()
        # Processes a CFG script left there (a user-space reflector), then
        # the netns, in one shell.
        sh(" ; ".join(f"ip netns pids {ns} 2> /dev/null | xargs -r kill -9; "
                      f"ip netns del {ns} 2> /dev/null"
                      for ns in (self.gen, self.sut)), check=False)


def teardown_all(topos):
    """Topology.teardown() of each of TOPOS, in one shell."""
    for t in topos:
        for p in getattr(t, "holders", {}).values():
            p.kill()
            p.wait()
        t.holders = {}
    if topos:
        sh(" ; ".join(f"ip netns pids {ns} 2> /dev/null | xargs -r kill -9; "
                      f"ip netns del {ns} 2> /dev/null"
                      for t in topos for ns in (t.gen, t.sut)), check=False)


_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


@contextlib.contextmanager
def netns(name):
    """Run the body with this thread in netns NAME (setns(2)), then back."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    other = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(other, CLONE_NEWNET):
            e = ctypes.get_errno()
            raise OSError(e, f"setns {name}: {os.strerror(e)}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET):
                os._exit(3)     # stranded in the wrong netns: stop here
    finally:
        os.close(own)
        os.close(other)


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


# The generator's frames, built here rather than with Scapy: under TCG its
# import alone took 35 s of the gate's guest time.  Defaults as Scapy's
# (hop limit and TTL 64, IPv4 identification 1, checksums computed); the
# UDP packets by stamp_wire.ip_udp(), as pfplm's queries.
def _mac(text):
    return bytes.fromhex(text.replace(":", ""))


def _ether(src_mac, dst_mac, ethertype, payload):
    return _mac(dst_mac) + _mac(src_mac) + struct.pack("!H", ethertype) + payload


def _ipv6(src, dst, nh, payload, hlim=64, tc=0):
    return struct.pack("!IHBB16s16s", 6 << 28 | tc << 20, len(payload), nh,
                       hlim, socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst)) + payload


def srv6_frame(traffic, size, src_mac, dst_mac):
    """The frame the generator replays for SRH traffic: outer IPv6 + SRH
    carrying traffic["encap"]["segs"] (first segment first), then the inner
    packet of SIZE bytes (an Ethernet frame for l2encap)."""
    fam = traffic["family"]
    segs = traffic["encap"]["segs"]
    pad = max(size - 14 - (40 if fam == 6 else 20) - 8, 0)
    inner = sw.ip_udp(traffic["src_addr"], traffic["dst_addr"], 9, 9,
                      bytes(pad))
    if traffic["encap"].get("mode") == "l2encap":
        inner = _ether(src_mac, dst_mac, 0x86dd if fam == 6 else 0x0800,
                       inner)
        nh = 143
    else:
        nh = 41 if fam == 6 else 4
    # As a headend sends it (Segments Left: the last index, the first SID
    # as destination), or, with "segleft", as a later node receives it.
    segleft = int(traffic["encap"].get("segleft", len(segs) - 1))
    srh = struct.pack("!BBBBBBH", nh, 2 * len(segs), 4, segleft,
                      len(segs) - 1, 0, 0)
    srh += b"".join(socket.inet_pton(socket.AF_INET6, a)
                    for a in reversed(segs))
    hdrs, nh = srh + inner, 43
    # "altmark": FlowMonID: the RFC 9343 option of that FlowMonID (colour
    # 0, no D flag) alone in a Destination Options header before the SRH,
    # as a seg6 route with "altmark ... segment" sends it.
    if "altmark" in traffic["encap"]:
        word = int(traffic["encap"]["altmark"]) << 12
        hdrs = struct.pack("!BBBBI", 43, 0, 0x12, 4, word) + hdrs
        nh = 60
    outer = _ipv6("fd00:1::1", segs[len(segs) - 1 - segleft], nh, hdrs,
                  tc=int(traffic["encap"].get("tc", 0)))
    return _ether(src_mac, dst_mac, 0x86dd, outer)


REWRITE_MAX = 512      # bench/rewrite.bpf.c's TEMPLATE_MAX


def rewrite_attach(dev, offset, tmpl):
    """Attach bench/rewrite.bpf.c at DEV's tcx egress (in this thread's
    netns), to write TMPL over each frame from byte OFFSET on: its .rodata
    is the offset, the length and the template, zero-padded."""
    if not 1 <= len(tmpl) <= REWRITE_MAX:
        raise ValueError(f"template of {len(tmpl)} bytes: 1 to {REWRITE_MAX}")
    rodata = struct.pack("=II", offset, len(tmpl)) + tmpl.ljust(REWRITE_MAX, b"\0")
    bpf = os.path.join(os.path.dirname(HERE), "build", "bench-bpf")
    out = subprocess.run([os.path.join(bpf, "tcx_load"),
                          os.path.join(bpf, "rewrite.bpf.o"), "egress", dev,
                          ".rodata=" + rodata.hex()],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"rewrite: {out.stderr.strip()} (make bench-bpf)")


def stamp_frame(traffic, size, src_mac, dst_mac):
    """The frame the generator replays for STAMP test packets with content
    (traffic["stamp"]: "ssid", "key" in hex for authenticated mode, "tlvs",
    a list of "timestamp" and "dm"): a Session-Sender test packet of
    stamp-sender's own encoder (python/srv6_oam/stamp_wire.py), sequence number
    0 and T1 0 in every packet, over UDP from port 49152, padded with zeros
    to SIZE bytes of frame."""
    spec = traffic["stamp"]
    tlvs = b""
    for name in spec.get("tlvs", []):
        if name == "timestamp":
            tlvs += sw.tlv(sw.TLV_TIMESTAMP, bytes(4))
        elif name == "dm":
            tlvs += sw.tlv(sw.TLV_DM, struct.pack("!III", 0, 0, 0))
        else:
            raise ValueError(f"stamp: unknown TLV {name}")
    key = bytes.fromhex(spec["key"]) if "key" in spec else None
    payload = sw.build_test_packet(0, bytes(8), sw.error_estimate(False, False),
                                   int(spec.get("ssid", 0)), tlvs, key)
    fam = traffic["family"]
    need = 14 + (40 if fam == 6 else 20) + 8 + len(payload)
    if need > size:
        raise ValueError(f"stamp: a {need}-byte frame in {size}")
    pkt = sw.ip_udp(traffic["src_addr"], traffic["dst_addr"], 49152,
                    int(traffic["udp_dst"]), payload + bytes(size - need))
    return _ether(src_mac, dst_mac, 0x86dd if fam == 6 else 0x0800, pkt)


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
    or STAMP test packets with content, which pktgen cannot build: pktgen
    builds an IPv6 (or IPv4) UDP frame of the same length, sent through the
    qdisc layer, and a program at the generator veth's tcx egress hook
    rewrites it into the frame srv6_frame() or stamp_frame() built
    (bench/rewrite.bpf.c: one bpf_skb_store_bytes() per packet).  Both run in
    pktgen's kthread on GEN_CPU, on one fresh skb per packet.
    """

    def __init__(self, topo, traffic, size):
        self.topo = topo
        self.traffic = traffic
        # A behaviour may need larger frames (a STAMP test packet: 44 bytes
        # of UDP payload); an experiment of such behaviours sets pkt_size.
        # "size" sets a behaviour's frame size whatever the experiment's
        # (its baseline then needs the same size to compare with).
        self.size = max(size, int(traffic.get("min_size", 0)))
        self.size = int(traffic.get("size", self.size))
        size = self.size
        self.srh = traffic.get("encap") is not None
        self.rewrite = self.srh or "stamp" in traffic
        self.dst_mac = topo.mac["sut0"]
        self.pktgen = topo.proc_net(topo.gen) + "/pktgen"
        self.attached = False
        self.frame_len = size
        if self.rewrite:
            if self.srh:
                frame = srv6_frame(traffic, size, topo.mac["gen0"],
                                   self.dst_mac)
            else:
                frame = stamp_frame(traffic, size, topo.mac["gen0"],
                                    self.dst_mac)
            self.frame_len = len(frame)
            # bench/rewrite.bpf.c, attached by tcx_load (make bench-bpf)
            # run from this thread in the generator's netns: it stays when
            # the loader exits.
            with netns(topo.gen):
                rewrite_attach("veth0", 14, template(frame))

    def pg(self, cmds):
        # One command per write, newline-terminated: pktgen scans a word
        # up to white space, not up to the end of the write.
        for f, c in cmds:
            with open(f"{self.pktgen}/{f}", "w") as fd:
                fd.write(c + "\n")

    def attach(self):
        """Give veth0 to pktgen's thread on GEN_CPU, once per generator: the
        device stays there between trials, which only rewrite its
        parameters.  (Removing it with rem_device_all before each trial, as
        srperf used to, raced: pktgen's thread removes devices
        asynchronously, with a 125 ms grace the writer sleeps, which a busy
        TCG guest sometimes exceeds; add_device then fails with EBUSY.)"""
        ctl = f"kpktgend_{GEN_CPU}"
        self.pg([(ctl, "rem_device_all")])
        for _ in range(40):
            try:
                self.pg([(ctl, "add_device veth0")])
                self.attached = True
                return
            except OSError as e:
                if e.errno != errno.EBUSY:
                    raise
                time.sleep(0.05)    # the removal has not propagated yet
        raise RuntimeError("pktgen: veth0 stays busy")

    def setup(self, rate, count):
        t = self.traffic
        dev = "veth0"
        if not self.attached:
            self.attach()
        cmds = [(dev, f"count {count}"), (dev, f"pkt_size {self.frame_len}"),
                (dev, "clone_skb 0"), (dev, f"dst_mac {self.dst_mac}")]
        if self.srh:
            # An IPv6 frame of the right length, rewritten on egress: its
            # addresses do not matter; through the qdisc layer, for tcx.
            cmds += [(dev, "dst6 fd00:1::2"), (dev, "src6 fd00:1::1"),
                     (dev, "xmit_mode queue_xmit")]
        elif t["family"] == 6:
            cmds += [(dev, f"dst6 {t['dst_addr']}"), (dev, f"src6 {t['src_addr']}")]
        else:
            # dst_max: pktgen walks the addresses from dst_min in turn.
            cmds += [(dev, f"dst_min {t['dst_addr']}"),
                     (dev, f"dst_max {t.get('dst_max', t['dst_addr'])}"),
                     (dev, f"src_min {t['src_addr']}"), (dev, f"src_max {t['src_addr']}")]
        if self.rewrite and not self.srh:
            # Rewritten on egress (stamp_frame()): through the qdisc layer.
            cmds.append((dev, "xmit_mode queue_xmit"))
        if "udp_dst" in t:
            # STAMP test packets: pktgen's header (magic, sequence number,
            # no timestamp) is all the payload has; a UDP checksum, without
            # which IPv6 sockets drop them; an ephemeral source port (a
            # reflector does not answer pktgen's default, 9, a well-known
            # port).
            cmds += [(dev, f"udp_dst_min {t['udp_dst']}"),
                     (dev, f"udp_dst_max {t['udp_dst']}"),
                     (dev, "udp_src_min 49152"), (dev, "udp_src_max 49152"),
                     (dev, "flag NO_TIMESTAMP"), (dev, "flag UDPCSUM")]
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

    def run(self, rate, count, settle=False):
        """Offer COUNT packets at RATE pps (0: as fast as possible).

        pktgen times its own run; the orchestrator waits for it (no process
        forked on the generator's CPU meanwhile) and reads the counters of
        the generator's and the sink's netns in their /proc/PID/net/dev.
        Delivered packets are those the sink has when pktgen stops plus
        DRAIN seconds: what is still queued in the SUT then is lost, so an
        overloaded SUT cannot hide its deficit in the receive backlog.
        LATE is what arrives after that: within 0.3 s, or, with SETTLE,
        until the SUT is idle again (the cost method's window)."""
        gen_dev = self.topo.proc_net(self.topo.gen) + "/dev"
        sut_dev = self.topo.proc_net(self.topo.sut) + "/dev"

        def offered_now():      # sent + refused by the SUT's full backlog
            c = netdev(gen_dev, "veth0")
            return c["tx"] + c["tx_dropped"]

        def delivered_now():
            return netdev(sut_dev, "sink0")["tx"]

        self.setup(rate, count)
        s0, i0, o0 = softnet(), offered_now(), delivered_now()
        # pgctrl acts on the writer's netns: write it from the generator's
        # (no fork on the generator's CPU); it returns when pktgen is done.
        with netns(self.topo.gen):
            self.pg([("pgctrl", "start")])
        time.sleep(DRAIN)
        s1, i1, o1 = softnet(), offered_now(), delivered_now()
        if settle:
            # Until the SUT's backlog is empty: no delivery for 3 polls.
            last, quiet = o1, 0
            while quiet < 3:
                time.sleep(DRAIN)
                now = delivered_now()
                quiet = quiet + 1 if now == last else 0
                last = now
        else:
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
    """Mean, standard deviation, CV and the half-width of the 95%
    confidence interval of the mean of values (one per repetition: n is
    the number of repetitions, the t quantile that of n - 1 degrees of
    freedom).  What cannot be computed is NaN (null in the JSON): all of
    it when a value was not measured or is infinite, the spread of a
    single value."""
    n = len(values)
    if n == 0 or not all(math.isfinite(v) for v in values):
        return {"n": n, "mean": math.nan, "sd": math.nan, "cv": math.nan,
                "ci95": math.nan}
    mean = statistics.fmean(values)
    if n == 1:
        return {"n": 1, "mean": mean, "sd": math.nan, "cv": math.nan,
                "ci95": math.nan}
    sd = statistics.stdev(values)
    return {
        "n": n, "mean": mean, "sd": sd,
        "cv": sd / mean if mean else math.nan,
        "ci95": t95(n - 1) * sd / math.sqrt(n),
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


def configure(name, exp, topo):
    """Configure TOPO's SUT for behaviour NAME with its CFG script, which
    prints the traffic it needs; return the generator for that traffic."""
    cfg, args = cfg_script(name)
    out = subprocess.run(["bash", cfg, topo.gen, topo.sut] + args,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{cfg}: {out.stderr.strip()}")
    traffic = json.loads(out.stdout.strip().splitlines()[-1])
    return Generator(topo, traffic, int(exp.get("pkt_size", 78)))


def measure(name, exp, smoke):
    """One repetition for one behaviour: a fresh topology, the forwarder
    configured by its CFG script, an MRR trial, then one PDR search."""
    topo = Topology()
    try:
        gen = configure(name, exp, topo)
        traffic, size = gen.traffic, gen.size
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


class Stolen:
    """The time SUT_CPU spends outside bench/stolen.c's loop: a busy loop
    pinned there as SCHED_IDLE that counts, in nanoseconds, the gaps in its
    own run (see stolen.c).  With nothing else on that CPU, that is the
    SUT's receive work, plus the CPU's own background (timer ticks), which
    idle_rate() measures."""

    def __init__(self, cpu):
        self.dir = tempfile.mkdtemp(prefix="srperf-stolen.")
        exe = os.path.join(self.dir, "stolen")
        subprocess.run(["cc", "-O2", "-Wall", "-o", exe, os.path.join(HERE, "stolen.c")],
                       check=True)
        path = os.path.join(self.dir, "counters")
        self.proc = subprocess.Popen([exe, str(cpu), path])
        self.mm = None
        for _ in range(500):            # its calibration: a few seconds
            time.sleep(0.05)
            if self.mm is None and os.path.exists(path) and os.path.getsize(path) == 4096:
                with open(path, "rb") as f:
                    self.mm = mmap.mmap(f.fileno(), 4096, access=mmap.ACCESS_READ)
            if self.mm is not None and self.read()[1]:
                break               # it has published: calibrated, running
        else:
            raise RuntimeError("stolen: did not start")
        self.threshold = struct.unpack_from("<Q", self.mm, 32)[0]
        log(f"stolen: busy loop on CPU {cpu}, gaps over {self.threshold} ns count")

    def read(self):
        """(stolen ns, CLOCK_MONOTONIC ns, gaps) as last published."""
        while True:
            seq, stolen, gaps, now = struct.unpack_from("<4Q", self.mm, 0)
            if seq % 2 == 0 and struct.unpack_from("<Q", self.mm, 0)[0] == seq:
                return stolen, now, gaps

    def idle_rate(self, seconds, insn=None):
        """(stolen ns per ns, the SUT's CPU's kernel-mode instructions per
        ns (with INSN, else 0)) with no traffic: the background."""
        m0 = insn.mark() if insn else None
        s0, t0, _ = self.read()
        time.sleep(seconds)
        s1, t1, _ = self.read()
        ibg = 0.0
        if insn:
            k, ns = insn.kernel(m0, insn.mark())
            ibg = k / ns if ns > 0 else 0.0
        return ((s1 - s0) / (t1 - t0) if t1 > t0 else 0.0), ibg

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Insn:
    """The instruction counters of the QEMU plugin bench/insn.c, which the
    guest of an icount bench (bench.sh, ICOUNT=1) is started with: executing
    the marker instruction makes the plugin write a snapshot of every
    vCPU's counters to PATH (in a 9p directory, not cached by the guest),
    which is read back at once.  The marker is executed by this process,
    on the generator's CPU, from a page of code of its own: no fork."""

    MAGIC = 0x5a3c96a55aa5c396      # bench/insn.c's INSN_MAGIC
    RECORD = 0x31544e434e534e49     # "INSNCNT1"

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDONLY)
        # movabs $MAGIC, %r11; ret  (r11: a scratch register of the ABI)
        code = b"\x49\xbb" + struct.pack("<Q", self.MAGIC) + b"\xc3"
        self.page = mmap.mmap(-1, mmap.PAGESIZE,
                              prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self.page.write(code)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        self.fire = ctypes.CFUNCTYPE(None)(addr)
        self.seq = 0
        self.mark()
        log(f"insn: counters of {len(self.mark()[1])} vCPUs from {path}")

    def mark(self):
        """(CLOCK_MONOTONIC ns, [(instructions, in kernel mode) per vCPU])
        at the marker."""
        t = time.monotonic_ns()
        self.fire()
        buf = os.pread(self.fd, 4096, 0)
        magic, seq, _, n = struct.unpack_from("<4Q", buf, 0)
        if magic != self.RECORD or seq <= self.seq:
            raise RuntimeError(f"insn: no fresh snapshot in the file (seq {seq}, after "
                               f"{self.seq}): is the guest running with the plugin "
                               f"(bench.sh ICOUNT=1)?")
        self.seq = seq
        v = struct.unpack_from(f"<{2 * n}Q", buf, 32)
        return t, [(v[2 * i], v[2 * i + 1]) for i in range(n)]

    def kernel(self, a, b, cpu=None):
        """Kernel-mode instructions of CPU (the SUT's) from mark A to B, and
        the guest's nanoseconds between them."""
        cpu = SUT_CPU if cpu is None else cpu
        return b[1][cpu][1] - a[1][cpu][1], b[0] - a[0]


def pin_everything(cpu):
    """Every task that may move, to CPU: the SUT's CPU runs nothing but the
    SUT's receive work (with irqaffinity=0 on the guest's command line, no
    device interrupt either).  Per-CPU kernel threads refuse, and stay."""
    n = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    os.sched_setaffinity(int(tid), {cpu})
                    n += 1
                except OSError:
                    pass
        except OSError:
            pass
    return n


class NoStolen:
    """Stolen's stand-in when an icount experiment measures instructions
    only (`stolen: false`): no busy loop, the SUT's CPU halts when idle and
    the emulator spends nothing on it; the CPU time is not measured."""

    threshold = 0

    def read(self):
        return 0, time.monotonic_ns(), 0

    def idle_rate(self, seconds, insn=None):
        m0 = insn.mark()
        time.sleep(seconds)
        k, ns = insn.kernel(m0, insn.mark())
        return 0.0, (k / ns if ns > 0 else 0.0)

    def close(self):
        pass


def cost_trial(gen, rate, trial, stolen, idle, history, insn=None):
    """Offer RATE pps for TRIAL seconds and measure the SUT's CPU time per
    delivered packet: the time stolen from the busy loop on SUT_CPU, from
    before the generator starts until the SUT is idle again, over every
    packet delivered in that window, less the background.  The background
    (timer ticks, and under TCG the host descheduling the vCPU, which the
    guest sees as time passing) is measured over IDLE seconds with no
    traffic just after each trial and appended to HISTORY; a trial uses
    the median of the last 5 such measurements, its own among them: it
    follows the host's drift, and one measurement that a host hiccup
    spoiled does not spoil the trial."""
    m0 = insn.mark() if insn else None
    s0, t0, _ = stolen.read()
    r = gen.run(rate, max(int(rate * trial), 100), settle=True)
    s1, t1, _ = stolen.read()
    m1 = insn.mark() if insn else None
    seq = insn.seq if insn else None
    history.append(stolen.idle_rate(idle, insn))
    background = statistics.median(h[0] for h in history[-5:])
    total = r["delivered"] + r["late"]
    busy = (s1 - s0) - background * (t1 - t0)
    r.update({"busy_ns": busy, "window_ns": t1 - t0, "total": total,
              "background": background,
              "cost_ns": (busy / total if total and busy > 0 else math.inf)
              if not isinstance(stolen, NoStolen) else math.nan})
    if insn:
        # The same with instructions: the SUT's CPU's kernel-mode
        # instructions in the window, less its background (kernel-mode
        # instructions per ns with no traffic, the median of the last 5).
        k, ns = insn.kernel(m0, m1)
        ibg = statistics.median(h[1] for h in history[-5:])
        net = k - ibg * ns
        r.update({"insn": k, "insn_window_ns": ns, "insn_background": ibg,
                  "insn_seq": seq,
                  "insn_user": (m1[1][SUT_CPU][0] - m1[1][SUT_CPU][1])
                  - (m0[1][SUT_CPU][0] - m0[1][SUT_CPU][1]),
                  "insn_per_pkt": net / total if total and net > 0 else math.inf})
    return r


def cost_experiment(exp, behaviours, baseline, smoke, insn=None):
    """The cost method: the SUT's CPU time per packet, each behaviour
    against the baseline in trials seconds apart.

    Every behaviour gets a topology of its own, all configured at once
    (netns srp-gen-N / srp-sut-N), so that switching between them costs
    nothing.  A round is the sequence  B x1 B x2 B ... xn B  (B the
    baseline, the others rotated by one each round): each behaviour's ratio
    is the baseline's cost, averaged over the trials just before and just
    after it, over its own, which cancels a drift of the host's speed that
    is linear over those seconds.  A repetition takes, per behaviour, the
    median ratio over its rounds; the table gives mean, CV and CI95 of the
    repetitions' medians.

    With INSN (an icount bench), each trial also gives the SUT's CPU's
    instructions per packet, and each round an instruction ratio, taken the
    same way; `warmup` rounds (default 1 with INSN, else 0) run first and
    are not counted: the first trials after boot meet cold caches and first
    allocations."""
    rate = int(exp.get("rate", 30000))
    trial = 0.1 if smoke else float(exp.get("trial", 0.5))
    rounds = 1 if smoke else int(exp.get("rounds", 10))
    reps = 1 if smoke else int(exp.get("repetitions", 3))
    idle = 0.05 if smoke else float(exp.get("idle", 0.1))
    warmup = 0 if smoke else int(exp.get("warmup", 1 if insn else 0))
    topos, gens, failed = [], {}, []
    stolen = None
    try:
        # `rot`: behaviours configured too and given one short trial each,
        # not measured (bench/gate.sh: every configuration script must
        # still carry traffic); their trials land in exp["rot_trials"].
        rot = [b for b in exp.get("rot", []) if b not in behaviours]
        for i, b in enumerate(behaviours + rot):
            try:
                t0 = time.monotonic()
                topos.append(Topology(str(i)))
                t1 = time.monotonic()
                gens[b] = configure(b, exp, topos[-1])
                log(f"  {b}: topology {t1 - t0:.1f} s, configured "
                    f"{time.monotonic() - t1:.1f} s")
            except Exception as e:  # report, go on with the next one
                log(f"  {b}: ERROR {e}")
                failed.append(b)
        if baseline in failed:
            return [], failed
        # Without the busy loop (instructions only) the emulator runs the
        # SUT's vCPU only when it has work: about twice as fast.
        stolen = (NoStolen() if insn and not exp.get("stolen", False)
                  else Stolen(SUT_CPU))
        history = [stolen.idle_rate(idle, insn) for _ in range(4)]
        exp["rot_trials"] = {}
        for b in rot:
            if b in failed:
                continue
            try:
                r = cost_trial(gens[b], rate, 0.1, stolen, idle, history, insn)
                exp["rot_trials"][b] = r
                log(f"  rot {b}: {r['delivered']}/{r['offered']} delivered"
                    + (f", {r['insn_per_pkt']:.0f} insn/pkt" if insn else ""))
            except Exception as e:  # report, go on with the next one
                log(f"  {b}: ERROR {e}")
                failed.append(b)
        others = [b for b in behaviours if b != baseline and b not in failed]
        reps_data = []
        for rep in range(-1 if warmup else 0, reps):
            log(f"repetition {rep + 1}/{reps}" if rep >= 0 else
                f"warm-up: {warmup} round(s), not counted")
            data = {b: [] for b in behaviours}
            for rnd in range(rounds if rep >= 0 else warmup):
                k = rnd % len(others) if others else 0
                order = others[k:] + others[:k]
                prev = cost_trial(gens[baseline], rate, trial, stolen, idle, history, insn)
                data[baseline].append({"trial": prev})
                line = []
                for b in order:
                    if b in failed:
                        continue
                    try:
                        r = cost_trial(gens[b], rate, trial, stolen, idle, history, insn)
                    except Exception as e:  # report, go on without it
                        log(f"  {b}: ERROR {e}")
                        failed.append(b)
                        continue
                    nxt = cost_trial(gens[baseline], rate, trial, stolen, idle, history, insn)
                    data[baseline].append({"trial": nxt})
                    base = (prev["cost_ns"] + nxt["cost_ns"]) / 2
                    # A trial whose background swallowed it has no cost
                    # (inf): its round gives that behaviour no ratio.
                    ratio = (base / r["cost_ns"] if math.isfinite(base)
                             and math.isfinite(r["cost_ns"]) else None)
                    item = {"trial": r, "ratio": ratio}
                    line.append(f"{b} {ratio:.3f}" if ratio else f"{b} -")
                    if insn:
                        ib = (prev["insn_per_pkt"] + nxt["insn_per_pkt"]) / 2
                        ir = (ib / r["insn_per_pkt"] if math.isfinite(ib)
                              and math.isfinite(r["insn_per_pkt"]) else None)
                        item["insn_ratio"] = ir
                        line[-1] += f" ({ir:.4f})" if ir else " (-)"
                    data[b].append(item)
                    prev = nxt
                log(f"  round {rnd + 1}: background {prev['background'] * 100:.2f}%, "
                    f"baseline {prev['cost_ns'] / 1e3:.2f} us/pkt"
                    + (f", {prev['insn_per_pkt']:.0f} insn/pkt" if insn else "")
                    + "; " + ", ".join(line))
            if rep >= 0:
                reps_data.append(data)
        return [cost_summary(b, [d[b] for d in reps_data], b == baseline, gens[b])
                for b in behaviours
                if b not in failed and all(d[b] for d in reps_data)], failed
    finally:
        if stolen:
            stolen.close()
        teardown_all(topos)


def cost_summary(name, reps, is_base, gen):
    """Per behaviour: per repetition the median cost and ratio over its
    rounds; over the repetitions their statistics."""
    costs = [statistics.median(x["trial"]["cost_ns"] for x in rep) for rep in reps]
    if any(math.isnan(c) for c in costs):     # not measured (NoStolen)
        costs = [math.nan] * len(reps)
    ratios = [1.0 if is_base else
              statistics.median([x["ratio"] for x in rep if x["ratio"]] or [math.nan])
              for rep in reps]
    trials = [x["trial"] for rep in reps for x in rep]
    cpu = [sum(c) for c in zip(*(t["softnet"] for t in trials))]
    insn = {}
    if "insn_per_pkt" in trials[0]:
        ipp = [statistics.median(x["trial"]["insn_per_pkt"] for x in rep) for rep in reps]
        iratios = [1.0 if is_base else
                   statistics.median([x["insn_ratio"] for x in rep if x.get("insn_ratio")]
                                     or [math.nan])
                   for rep in reps]
        insn = {"insn_per_pkt": stats(ipp), "insn_values": ipp,
                "insn_ratio": stats(iratios), "insn_ratio_values": iratios,
                "insn_rounds": [[x.get("insn_ratio") for x in rep] for rep in reps]}
    return {
        "behaviour": name, "pkt_size": gen.size, "frame_len": gen.frame_len,
        "traffic": gen.traffic,
        "cost_ns": stats(costs), "cost_values": costs,
        "capacity_kpps": 1e6 / statistics.median(costs) if costs[0] else math.nan,
        "ratio": stats(ratios), "ratio_values": ratios,
        "dr_min": min(t["dr"] for t in trials),
        "softnet_per_cpu": cpu,
        "rounds": [[x.get("ratio") for x in rep] for rep in reps],
        **insn,
        "trials": trials,
    }


def sut_share(r):
    """vCPU SUT_CPU's share of the receive softirq's packets in R's trials."""
    cpu = r["softnet_per_cpu"]
    return cpu[SUT_CPU] / sum(cpu) if sum(cpu) else 0


def write_results(outdir, out, header, row):
    """OUT as OUTDIR/NAME.json, and its results as OUTDIR/NAME.csv: the
    HEADER line, then ROW(result) for each."""
    name = out["experiment"]
    with open(os.path.join(outdir, f"{name}.json"), "w") as f:
        json.dump(json_safe(out), f, indent=1, allow_nan=False)
    with open(os.path.join(outdir, f"{name}.csv"), "w") as f:
        f.write(header + "\n")
        for r in out["results"]:
            f.write(row(r) + "\n")


def cost_row(r):
    ra = r["ratio"]
    row = (f"{r['behaviour']},{r['frame_len']},{r['cost_ns']['mean'] / 1e3:.3f},"
           f"{r['cost_ns']['cv']:.3f},{r['capacity_kpps']:.1f},"
           f"{ra['mean']:.3f},{ra['cv']:.3f},{ra['ci95']:.3f},"
           f"{min(r['ratio_values']):.3f},{max(r['ratio_values']):.3f},"
           f"{r['dr_min']:.4f},{sut_share(r):.3f}")
    if "insn_per_pkt" in r:
        ip, ir = r["insn_per_pkt"], r["insn_ratio"]
        row += (f",{ip['mean']:.0f},{ip['cv']:.4f},{ir['mean']:.4f},"
                f"{ir['cv']:.4f},{ir['ci95']:.4f}")
    else:
        row += ",,,,,"
    return row


def pdr_row(r):
    ra = r["ratio"]
    return (f"{r['behaviour']},{r['frame_len']},{r['pdr']['mean'] / 1e3:.2f},"
            f"{r['pdr']['cv']:.3f},{r['pdr']['ci95'] / 1e3:.2f},"
            f"{r['mrr_pps'] / 1e3:.2f},{r['generator_max_pps'] / 1e3:.2f},"
            + (f"{ra['mean']:.3f},{ra['cv']:.3f},{ra['ci95']:.3f}," if ra else ",,,")
            + f"{int(r['generator_bound'])},{sut_share(r):.3f}")


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
    ap.add_argument("--insn", metavar="FILE",
                    help="the snapshot file of the insn plugin (bench/insn.c): "
                    "instructions per packet too (cost method)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a key of the experiment (YAML value)")
    ap.add_argument("--stolen", action="store_true",
                    help="with --insn, the CPU time too (the experiment's "
                    "`stolen: true`): a busy loop on the SUT's CPU")
    args = ap.parse_args()

    # The orchestrator and everything it starts run on the generator's
    # CPU: the SUT's CPU does only the SUT's work.
    os.sched_setaffinity(0, {GEN_CPU})
    insn = None
    if args.insn:
        insn = Insn(args.insn)
        log(f"insn: {pin_everything(GEN_CPU)} tasks moved to CPU {GEN_CPU}")
    with open(args.experiment) as f:
        exp = yaml.safe_load(f)
    behaviours = exp["behaviours"]
    if args.only:
        behaviours = [b for b in behaviours if b in args.only.split(",")]
    for kv in args.set:
        k, _, v = kv.partition("=")
        exp[k] = yaml.safe_load(v)
    if args.stolen:
        exp["stolen"] = True
    baseline = exp.get("baseline", behaviours[0])
    if baseline not in behaviours:
        behaviours.insert(0, baseline)
    os.makedirs(args.outdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.experiment))[0]
    log(f"experiment {name}: {', '.join(behaviours)}; kernel {os.uname().release}, "
        f"{os.cpu_count()} CPUs{' (smoke)' if args.smoke else ''}")

    if exp.get("method", "pdr") == "cost":
        results, failed = cost_experiment(exp, behaviours, baseline, args.smoke, insn)
        write_results(args.outdir, {
            "experiment": name, "method": "cost", "kernel": os.uname().release,
            "icount": insn is not None, "cmdline": open("/proc/cmdline").read().strip(),
            "smoke": args.smoke, "baseline": baseline, "config": exp,
            "results": results, "failed": failed},
            "behaviour,frame_len,cost_us,cost_cv,capacity_kpps,ratio,ratio_cv,"
            "ratio_ci95,ratio_min,ratio_max,dr_min,sut_cpu_share,"
            "insn_per_pkt,insn_cv,insn_ratio,insn_ratio_cv,insn_ratio_ci95", cost_row)
        log(f"results in {args.outdir}/{name}.csv")
        if failed:
            log(f"FAILED: {', '.join(failed)}")
        return 1 if failed or not results else 0

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
            for attempt in (1, 2):  # a second chance, in a fresh topology
                try:
                    runs[b].append(measure(b, exp, args.smoke))
                    break
                except Exception as e:  # report, go on with the next one
                    log(f"  {b}: ERROR {e}" + (", once more" if attempt == 1 else ""))
            else:
                failed.append(b)
    base_runs = runs[baseline] if baseline not in failed else None
    results = [summarise(b, runs[b], base_runs if b != baseline else runs[b])
               for b in behaviours if b not in failed and runs[b]]
    write_results(args.outdir, {
        "experiment": name, "method": "pdr", "kernel": os.uname().release,
        "smoke": args.smoke, "baseline": baseline, "config": exp,
        "results": results, "failed": failed},
        "behaviour,frame_len,pdr_kpps,pdr_cv,pdr_ci95_kpps,mrr_kpps,"
        "generator_max_kpps,ratio,ratio_cv,ratio_ci95,generator_bound,"
        "sut_cpu_share", pdr_row)
    log(f"results in {args.outdir}/{name}.csv")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

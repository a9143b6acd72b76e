#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A packet fuzzer for srv6_fuzz_test.sh: well-formed packets for each of
# srv6-oam's packet parsers (the SRH of the --srh-sid-list match, hash:sr6
# and seg6local; the STAMP Session-Reflector; the IOAM6 trace, Edge-to-Edge
# and Direct Export options), each truncated at every byte and then
# mutated at random, sent as Ethernet frames on a packet socket so that
# nothing on the sending side checks or fixes them.
#
# Packet I of a target is a function of (seed, target, I) only: a run
# prints its seed, and "show" prints any packet of it again, so a crash
# halfway through is reproduced from the last index printed before it.

import argparse
import hashlib
import hmac
import random
import socket
import struct
import sys

from stamp_test import csum, tlv

ETH_P_IP, ETH_P_IPV6 = 0x0800, 0x86DD
NH_HOP, NH_ROUTING, NH_DEST, NH_UDP, NH_NONE = 0, 43, 60, 17, 59
IOAM, IOAM_DEST, ROUTER_ALERT = 0x31, 0x11, 0x05
IOAM_PREALLOC, IOAM_E2E, IOAM_DEX = 0, 3, 4
ALTMARK = 0x12			# RFC 9343
KEY = bytes.fromhex("00112233445566778899aabbccddeeff")
# values a length, count or index field most likely mishandles
EDGES = (0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7f, 0x80, 0xfe, 0xff)


def a6(addr):
    return socket.inet_pton(socket.AF_INET6, addr)


def a4(addr):
    return socket.inet_pton(socket.AF_INET, addr)


def srh(segs, left, nh=NH_UDP, tlvs=b""):
    """An SRH with the segments in wire order (segs[0] is the last)."""
    body = b"".join(a6(s) for s in segs) + tlvs
    return struct.pack("!BBBBBBH", nh, len(body) // 8, 4, left,
                       len(segs) - 1, 0, 0) + body


def opt_hdr(nh, opts):
    """A Hop-by-Hop or Destination Options header, padded to 8n."""
    pad = (-(2 + len(opts))) % 8
    if pad == 1:
        opts += b"\0"
    elif pad:
        opts += bytes([1, pad - 2]) + bytes(pad - 2)
    return bytes([nh, (len(opts) + 2) // 8 - 1]) + opts


def trace_opt(nodes=2, ns=123):
    """A pre-allocated trace, IOAM-Trace-Type bit 0 (hop limit, node id):
    room for @nodes nodes."""
    return (bytes([IOAM, 2 + 8 + 4 * nodes, 0, IOAM_PREALLOC]) +
            struct.pack("!HBBI", ns, 1 << 3, nodes, 0x800000 << 8) +
            bytes(4 * nodes))


def e2e_opt(ns=123):
    body = bytes([0, IOAM_E2E]) + struct.pack("!HH", ns, 0xb000) + bytes(16)
    return bytes([IOAM_DEST, len(body)]) + body


def dex_opt(ns=123):
    body = (bytes([0, IOAM_DEX]) + struct.pack("!HBBI", ns, 0, 0xc0,
                                                 0x800000 << 8) +
            struct.pack("!II", 7, 9))
    return bytes([IOAM, len(body)]) + body


def stamp_pkt(ssid, key=None):
    """A STAMP test packet (RFC 8762 4.2.1, 4.2.2) with a fixed timestamp,
    so that a run's packets are the same each time."""
    t1 = struct.pack("!II", 0xec000000, 0)
    if key is None:
        return struct.pack("!I8sHH28x", 1, t1, 1, ssid)
    base = struct.pack("!I12x8sHH68x", 1, t1, 1, ssid)
    return base + hmac.new(key, base, hashlib.sha256).digest()[:16]


def udp(sport, dport, payload):
    """A UDP header, its checksum left for finish()."""
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


class Template:
    """A packet: a network header (IPv6 or IPv4) and the bytes after it
    (the body: extension headers, UDP, payload), where in the body the UDP
    header starts (None if there is none), and the body's offsets of the
    fields worth aiming at."""

    def __init__(self, name, v6, src, dst, nh, body, udp_off, fields):
        self.name, self.v6, self.src, self.dst = name, v6, src, dst
        self.nh, self.body, self.udp_off = nh, body, udp_off
        self.fields = fields


def templates(a):
    """The well-formed packets of each target, from the addresses given."""
    pad = tlv(1, bytes(12))
    stamp = stamp_pkt(0)
    auth = stamp_pkt(11, KEY)
    dm = tlv(5, bytes(48))
    cos = tlv(4, bytes(4))
    tsinfo = tlv(3, bytes(4))
    t = {}
    # SRH: to an End SID of the SUT (segments left 1, then the receiver);
    # passing through it (segments left 0); with TLVs after the segments;
    # then a segment list of 6, and no payload after it.
    segs = [a.rcv6, a.sid]
    s1 = srh(segs, 1) + udp(5000, 9, bytes(16))
    s0 = srh(segs, 0) + udp(5000, 9, bytes(16))
    # a PadN TLV, then one of a type nobody knows
    stl = srh(segs, 1, tlvs=bytes([4, 6]) + bytes(6) +
              bytes([1, 6]) + bytes(6)) + udp(5000, 9, bytes(16))
    s6 = srh([a.rcv6] + ["fc00:%x::1" % i for i in range(4)] + [a.sid], 5,
             nh=NH_NONE)
    srh_fields = [1, 3, 4, 5, 6, 7]
    t["srh"] = [
        Template("srh-end", True, a.src6, a.sid, NH_ROUTING, s1, 40,
                 srh_fields + [40 + 4, 40 + 5]),
        Template("srh-transit", True, a.src6, a.rcv6, NH_ROUTING, s0, 40,
                 srh_fields),
        Template("srh-tlvs", True, a.src6, a.sid, NH_ROUTING, stl, 56,
                 srh_fields + [40, 41, 48, 49]),
        Template("srh-6segs", True, a.src6, a.sid, NH_ROUTING, s6, None,
                 srh_fields),
    ]
    # STAMP: IPv6 and IPv4 to the stateless reflector with TLVs, the
    # authenticated one with an HMAC TLV, the stateful one with its
    # session, and over an SRH whose last segment is the reflector.
    tl = pad + tsinfo + cos + dm
    tlv_fields = [8 + 44, 8 + 45, 8 + 46, 8 + 47, 8 + 60, 8 + 61, 8 + 62,
                  8 + 63]
    udp_fields = [4, 5]
    hm = tlv(8, bytes(16))
    rsrh = srh([a.refl6, a.sid], 0)
    t["stamp"] = [
        Template("stamp6", True, a.src6, a.refl6, NH_UDP,
                 udp(5001, 862, stamp + tl), 0, udp_fields + tlv_fields),
        Template("stamp4", False, a.src4, a.refl4, NH_UDP,
                 udp(5001, 862, stamp + tl), 0, udp_fields + tlv_fields),
        Template("stamp-auth", True, a.src6, a.refl6, NH_UDP,
                 udp(5002, 863, auth + hm + tl), 0,
                 udp_fields + [8 + 112, 8 + 113, 8 + 114, 8 + 115]),
        Template("stamp-stateful", True, a.src6, a.refl6, NH_UDP,
                 udp(5003, 864, stamp_pkt(9) + dm), 0,
                 udp_fields + [8 + 14, 8 + 15, 8 + 46, 8 + 47]),
        Template("stamp-srh", True, a.src6, a.refl6, NH_ROUTING,
                 rsrh + udp(5004, 862, stamp_pkt(7) + tl), len(rsrh),
                 [1, 3, 4] + [len(rsrh) + f for f in udp_fields]),
    ]
    # IOAM: a trace the SUT fills in transit, an alert and a trace the
    # domain egress removes, Direct Export in transit, Edge-to-Edge to the
    # SUT itself, and two traces in one header.
    hbh_trace = opt_hdr(NH_UDP, b"\x01\x00" + trace_opt())
    hbh_ra = opt_hdr(NH_UDP, bytes([ROUTER_ALERT, 2, 0, 0, 1, 0]) +
                     trace_opt())
    hbh_dex = opt_hdr(NH_UDP, b"\x01\x00" + dex_opt())
    doh_e2e = opt_hdr(NH_UDP, b"\x01\x00" + e2e_opt())
    hbh_two = opt_hdr(NH_UDP, b"\x01\x00" + trace_opt(1) + b"\x01\x00" +
                      trace_opt(1, ns=124))
    opt_fields = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    pl = udp(5005, 9, bytes(16))
    t["ioam"] = [
        Template("ioam-trace", True, a.src6, a.rcv6, NH_HOP,
                 hbh_trace + pl, len(hbh_trace), opt_fields + [12, 13]),
        Template("ioam-ra-trace", True, a.src6, a.rcv6, NH_HOP,
                 hbh_ra + pl, len(hbh_ra), opt_fields + [12, 13]),
        Template("ioam-dex", True, a.src6, a.rcv6, NH_HOP,
                 hbh_dex + pl, len(hbh_dex), opt_fields + [12, 13]),
        Template("ioam-e2e", True, a.src6, a.sut6, NH_DEST,
                 doh_e2e + pl, len(doh_e2e), opt_fields),
        Template("ioam-two", True, a.src6, a.rcv6, NH_HOP,
                 hbh_two + pl, len(hbh_two), opt_fields + [20, 21, 22, 23]),
    ]
    # AltMark (RFC 9343): FlowMonID 7, which the SUT monitors, before the
    # SRH to its End SID (every segment endpoint counts it), after an SRH
    # with no segment left (the final destination counts it), and twice
    # in one header (counted nowhere); in a Hop-by-Hop header of a packet
    # the SUT forwards (counted where altmark_enabled), once and twice; in
    # a Destination Options header of a packet to the SUT's own address,
    # which the IPv6 layer parses.  And a STAMP query for a block of
    # FlowMonID 7 (the PF-PLM Block TLV, version 2), to a reflector that
    # answers them from the kernel's history.
    am = struct.pack("!BBI", ALTMARK, 4, 7 << 12 | 1 << 11)
    doh_seg = opt_hdr(NH_ROUTING, am)
    doh_two = opt_hdr(NH_ROUTING, am + am)
    hbh_am = opt_hdr(NH_UDP, am)
    hbh_am_two = opt_hdr(NH_UDP, am + am)
    doh_local = opt_hdr(NH_UDP, am)
    s_dest = srh(segs, 0, nh=NH_DEST)
    doh_dest = opt_hdr(NH_UDP, am)
    am_fields = [1, 2, 3, 4, 5, 6, 7]
    plm2 = tlv(252, struct.pack("!BBBBIQII4Q", 2, 0, 1, 0, 10000, 1, 7, 0,
                                0, 0, 0, 0))
    # the TLV's type and length, its version, block and FlowMonID
    plm2_fields = [8 + 45, 8 + 46, 8 + 47, 8 + 48, 8 + 60, 8 + 61, 8 + 62,
                   8 + 63, 8 + 66, 8 + 67]
    t["altmark"] = [
        Template("altmark-segment", True, a.src6, a.sid, NH_DEST,
                 doh_seg + s1, len(doh_seg) + 40,
                 am_fields + [len(doh_seg) + f for f in srh_fields]),
        Template("altmark-dest", True, a.src6, a.sid, NH_ROUTING,
                 s_dest + doh_dest + udp(5006, 9, bytes(16)),
                 len(s_dest) + len(doh_dest),
                 [1, 3] + [len(s_dest) + f for f in am_fields]),
        Template("altmark-two", True, a.src6, a.sid, NH_DEST,
                 doh_two + s1, len(doh_two) + 40,
                 am_fields + [8 + f for f in range(8)]),
        Template("altmark-hop", True, a.src6, a.rcv6, NH_HOP,
                 hbh_am + udp(5007, 9, bytes(16)), len(hbh_am), am_fields),
        Template("altmark-hop-two", True, a.src6, a.rcv6, NH_HOP,
                 hbh_am_two + udp(5007, 9, bytes(16)), len(hbh_am_two),
                 am_fields + [8 + f for f in range(8)]),
        Template("altmark-local", True, a.src6, a.sut6, NH_DEST,
                 doh_local + udp(5008, 9, bytes(16)), len(doh_local),
                 am_fields),
        Template("altmark-stamp", True, a.src6, a.refl6, NH_UDP,
                 udp(5009, 865, stamp + plm2 + plm2), 0,
                 [4, 5] + plm2_fields),
    ]
    return t


def finish(tp, body, rnd, fix_len=True, fix_csum=True):
    """The frame's network header around @body: lengths and checksums
    right unless told otherwise."""
    if tp.v6:
        plen = len(body) if fix_len else rnd.getrandbits(16)
        l3 = struct.pack("!IHBB", 6 << 28, plen & 0xffff, tp.nh, 64) + \
            a6(tp.src) + a6(tp.dst)
    else:
        tlen = 20 + len(body) if fix_len else rnd.getrandbits(16)
        l3 = struct.pack("!BBHHHBBH", 0x45, 0, tlen & 0xffff, 1, 0, 64,
                         tp.nh, 0) + a4(tp.src) + a4(tp.dst)
        l3 = l3[:10] + struct.pack("!H", csum(l3)) + l3[12:]
    o = tp.udp_off
    if fix_csum and o is not None and len(body) >= o + 8:
        seg = bytearray(body[o:])
        seg[6:8] = b"\0\0"
        if tp.v6:
            pseudo = a6(tp.src) + a6(tp.dst) + struct.pack("!I3xB", len(seg),
                                                           NH_UDP)
        else:
            pseudo = a4(tp.src) + a4(tp.dst) + struct.pack("!xBH", NH_UDP,
                                                          len(seg))
        seg[6:8] = struct.pack("!H", csum(pseudo + bytes(seg)) or 0xffff)
        body = body[:o] + bytes(seg)
    return (ETH_P_IPV6 if tp.v6 else ETH_P_IP), l3 + body


def packet(tps, seed, target, i):
    """Packet @i of @target: the first ones truncate each template at
    every byte, in order; the others mutate a template at random."""
    for tp in tps:
        if i < len(tp.body):
            return tp.name, "truncated to %d" % i, \
                finish(tp, tp.body[:i], None)
        i -= len(tp.body)
    rnd = random.Random("%d:%s:%d" % (seed, target, i))
    tp = rnd.choice(tps)
    b = bytearray(tp.body)
    what = []
    for _ in range(rnd.choice((1, 1, 1, 2, 3))):
        op = rnd.randrange(6)
        if op == 0 and tp.fields:
            off = rnd.choice(tp.fields)
            v = rnd.choice(EDGES + (len(b) // 8, len(b) & 0xff,
                                    rnd.getrandbits(8)))
            if off < len(b):
                b[off] = v
                what.append("byte %d=%d" % (off, v))
        elif op == 1 and tp.fields:
            off = rnd.choice(tp.fields)
            v = rnd.choice((0, 1, 0xffff, len(b), len(b) + 1, len(b) - 1,
                            rnd.getrandbits(16))) & 0xffff
            if off + 1 < len(b):
                b[off:off + 2] = struct.pack("!H", v)
                what.append("u16 %d=%d" % (off, v))
        elif op == 2:
            for _ in range(rnd.randint(1, 4)):
                off = rnd.randrange(len(b))
                b[off] = rnd.getrandbits(8)
            what.append("random bytes")
        elif op == 3:
            n = rnd.randrange(len(b))
            del b[n:]
            what.append("cut at %d" % n)
        elif op == 4:
            n = rnd.randint(1, 64)
            b += bytes(rnd.getrandbits(8) for _ in range(n))
            what.append("%d more bytes" % n)
        elif op == 5:
            off = rnd.randrange(len(b))
            b[off] ^= 1 << rnd.randrange(8)
            what.append("bit flip at %d" % off)
        if not b:
            break
    fix_len = rnd.randrange(16) != 0
    fix_csum = rnd.randrange(8) != 0
    if not fix_len:
        what.append("wrong length")
    if not fix_csum:
        what.append("checksum kept")
    return tp.name, ", ".join(what), finish(tp, bytes(b), rnd, fix_len,
                                           fix_csum)


def count(tps, n):
    """How many packets a run of @n random ones sends in all."""
    return sum(len(tp.body) for tp in tps) + n


def cmd_send(a, tps):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    eth = bytes.fromhex(a.dmac.replace(":", "")) + s.getsockname()[4]
    total = count(tps, a.count)
    print("# %s: seed %d, %d packets (%d truncations, %d mutations)" %
          (a.target, a.seed, total, total - a.count, a.count), flush=True)
    sent = errors = 0
    for i in range(a.first, total):
        if i % a.every == 0:
            print("# %s: packet %d" % (a.target, i), flush=True)
        _, _, (etype, l3) = packet(tps, a.seed, a.target, i)
        try:
            s.send(eth + struct.pack("!H", etype) + l3)
            sent += 1
        except OSError:
            # too short for the device, or a full queue: counted, not sent
            errors += 1
    print("# %s: sent %d, not sent %d" % (a.target, sent, errors))
    return 0


def cmd_show(a, tps):
    name, what, (etype, l3) = packet(tps, a.seed, a.target, a.index)
    print("%s %s (%s): ethertype 0x%04x, %d bytes\n%s" %
          (a.target, name, what or "as built", etype, len(l3), l3.hex()))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("cmd", choices=("send", "show", "count"))
    p.add_argument("--target", required=True, choices=("srh", "stamp",
                                                       "ioam", "altmark"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=1000,
                   help="random packets after the truncations")
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--every", type=int, default=5000,
                   help="print the index every so many packets")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--iface")
    p.add_argument("--dmac")
    p.add_argument("--src6", default="2001:db8:1::9")
    p.add_argument("--src4", default="10.0.1.9")
    p.add_argument("--sut6", default="2001:db8:1::1")
    p.add_argument("--sid", default="fc00:a::e")
    p.add_argument("--refl6", default="fc00:a::1")
    p.add_argument("--refl4", default="10.0.1.1")
    p.add_argument("--rcv6", default="fc00:b::1")
    a = p.parse_args()
    tps = templates(a)[a.target]
    if a.cmd == "count":
        print(count(tps, a.count))
        return 0
    return (cmd_send if a.cmd == "send" else cmd_show)(a, tps)


if __name__ == "__main__":
    sys.exit(main())

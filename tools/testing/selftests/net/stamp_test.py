#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# A STAMP Session-Sender for srv6_stamp_test.sh: builds test packets byte by
# byte from RFC 8762 and RFC 8972, sends them to a Session-Reflector and
# checks every byte of the replies it can predict.  Each subcommand exits 0
# when every check passed and 1 otherwise, printing what failed.

import argparse
import hashlib
import hmac
import os
import random
import select
import socket
import struct
import sys
import time

NTP_EPOCH = 2208988800
# Seconds to wait for a reply that must come: generous, since a slow or
# loaded guest must not fail a check; only a failed check waits that long.
REPLY_WAIT = float(os.environ.get("STAMP_REPLY_WAIT", "10"))
EE_S, EE_Z = 0x8000, 0x4000
TLV_U, TLV_M, TLV_I = 0x80, 0x40, 0x20
T_PAD, T_TSINFO, T_COS, T_DM, T_HMAC = 1, 3, 4, 5, 8
SO_TIMESTAMPNS = 35
IPV6_RTHDR = 57
IPV6_RECVTCLASS, IPV6_TCLASS = 66, 67
IP_RECVTOS = 13
# The Session-Sender sequence number of a marker: a test packet sent after
# packets whose replies are counted or must not come
MARKER_SEQ = 0xfffffff0

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def done():
    print("%d check(s) failed" % len(failures) if failures else "all passed")
    sys.exit(1 if failures else 0)


# --- timestamps -------------------------------------------------------------
def now_ns(ptp):
    return time.clock_gettime_ns(time.CLOCK_TAI) if ptp else time.time_ns()


def tai_offset_ns():
    """TAI - UTC, a whole number of seconds: the time between the two
    clock reads, which a descheduled sender can make last milliseconds, is
    rounded away (as the reflector does)."""
    off = time.clock_gettime_ns(time.CLOCK_TAI) - time.time_ns()
    return (off + 10**9 // 2) // 10**9 * 10**9


def ts_pack(ns, ptp):
    sec, nsec = divmod(ns, 10**9)
    if ptp:
        return struct.pack("!II", sec & 0xffffffff, nsec)
    return struct.pack("!II", (sec + NTP_EPOCH) & 0xffffffff,
                       (nsec << 32) // 10**9)


def ts_unpack(raw, ptp):
    sec, frac = struct.unpack("!II", raw)
    if ptp:
        return sec * 10**9 + frac
    return (sec - NTP_EPOCH) * 10**9 + (frac * 10**9 >> 32)


# --- packets ----------------------------------------------------------------
def sender_packet(seq, ssid, ptp=False, sync=False, key=None, tlvs=b""):
    ee = (EE_S if sync else 0) | (EE_Z if ptp else 0) | 1
    t1 = ts_pack(now_ns(ptp), ptp)
    # The MBZ fields are not zero: the reflector must ignore them on
    # receipt and zero its own (RFC 8762 section 4.2).  Except where its
    # reply puts the Receive Timestamp: a packet with one there is a reply,
    # which it never answers.
    if key is None:
        mbz = bytes(8) + b"\xa5" * 20
        base = struct.pack("!I8sHH28s", seq, t1, ee, ssid, mbz)
    else:
        mbz = b"\xa5" * 4 + bytes(8) + b"\xa5" * 56
        base = struct.pack("!I12s8sHH68s", seq, b"\xa5" * 12, t1, ee, ssid,
                           mbz)
        base += hmac.new(key, base, hashlib.sha256).digest()[:16]
    return base + tlvs


def tlv(typ, value, flags=0, length=None):
    return struct.pack("!BBH", flags, typ,
                       len(value) if length is None else length) + value


def hmac_tlv(key, seq, tlvs):
    mac = hmac.new(key, struct.pack("!I", seq) + tlvs, hashlib.sha256)
    return tlv(T_HMAC, mac.digest()[:16])


def parse_tlvs(raw):
    out, off = [], 0
    while off + 4 <= len(raw):
        flags, typ, length = struct.unpack_from("!BBH", raw, off)
        out.append((flags, typ, raw[off + 4:off + 4 + length], off))
        off += 4 + length
    return out


class Reply:
    """A reflected packet, decoded per RFC 8762 section 4.3."""

    def __init__(self, data, t4, tclass, auth):
        self.data, self.t4, self.tclass = data, t4, tclass
        if auth:
            (self.seq, self.t3, self.ee, self.ssid, self.t2, self.sseq,
             self.st1, self.see, self.sttl) = struct.unpack_from(
                "!I12x8sHH4x8s8xI12x8sH6xB15x", data)
            self.base = 112
        else:
            (self.seq, self.t3, self.ee, self.ssid, self.t2, self.sseq,
             self.st1, self.see, self.mbz1, self.sttl) = struct.unpack_from(
                "!I8sHH8sI8sHHB3x", data)
            self.base = 44
        self.tlvs = data[self.base:]


class Session:
    """A UDP socket to the reflector, optionally over an SRv6 path."""

    def __init__(self, dst, port, segs=None, tclass=None):
        self.v6 = ":" in dst
        fam = socket.AF_INET6 if self.v6 else socket.AF_INET
        self.sock = socket.socket(fam, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        if self.v6:
            self.sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVTCLASS, 1)
            if tclass is not None:
                self.sock.setsockopt(socket.IPPROTO_IPV6, IPV6_TCLASS,
                                     tclass)
        else:
            self.sock.setsockopt(socket.IPPROTO_IP, IP_RECVTOS, 1)
            if tclass is not None:
                self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tclass)
        if segs:
            self.sock.setsockopt(socket.IPPROTO_IPV6, IPV6_RTHDR,
                                 srh(segs, dst))
        self.sock.connect((dst, port))

    def send(self, payload):
        self.sock.send(payload)

    def recv(self, timeout=1.0, auth=False, raw=False):
        """The next reply, or None after @timeout seconds; its bytes if
        @raw."""
        r, _, _ = select.select([self.sock], [], [], timeout)
        if not r:
            return None
        data, anc, _, _ = self.sock.recvmsg(4096, 256)
        if raw:
            return data
        t4, tclass = time.time_ns(), None
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                t4 = sec * 10**9 + nsec
            elif typ in (IPV6_TCLASS, 1):  # IP_TOS is 1
                tclass = val[0] if len(val) == 1 else \
                    struct.unpack("i", val[:4])[0]
        return Reply(data, t4, tclass, auth)

    def drain(self):
        while self.recv(0.05):
            pass


def pin_cpu():
    """Send from one CPU only.  A veth hands a packet to the backlog of the
    CPU that sends it, and the nodes behind it forward, reflect and answer
    it in that CPU's softirq: packets sent from one CPU are answered in the
    order they were sent.  A marker sent last is then answered last, and a
    reply to a packet before it comes before the marker's."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def srh(segs, final):
    """An SRH for IPV6_RTHDR: segs in path order, then @final."""
    lst = [final] + list(reversed(segs))
    n = len(lst) - 1
    hdr = struct.pack("!BBBBBBH", 0, 2 * len(lst), 4, n, n, 0, 0)
    return hdr + b"".join(socket.inet_pton(socket.AF_INET6, a) for a in lst)


# --- checks -----------------------------------------------------------------
def check_base(rep, req, seq, want_seq, ssid, ptp, ttl, t1_ns, slack_ns=2000):
    check(len(rep.data) == len(req), "reply is %d bytes, test packet %d"
          % (len(rep.data), len(req)))
    check(rep.seq == want_seq, "reply seq %d, want %d" % (rep.seq, want_seq))
    check(rep.sseq == seq, "Session-Sender seq %d, want %d" % (rep.sseq, seq))
    check(rep.ssid == ssid, "SSID %d, want %d" % (rep.ssid, ssid))
    check(rep.st1 == req[4:12] if rep.base == 44 else rep.st1 == req[16:24],
          "Session-Sender timestamp not copied")
    check(bool(rep.ee & EE_Z) == ptp, "Z bit %x for ptp=%s" % (rep.ee, ptp))
    check(rep.ee & 0xff != 0, "Error Estimate multiplier is 0")
    if ttl is not None:
        check(rep.sttl == ttl, "Session-Sender TTL %d, want %d"
              % (rep.sttl, ttl))
    if rep.base == 44:
        check(rep.mbz1 == 0 and rep.data[41:44] == b"\0\0\0", "MBZ not zero")
    else:
        mbz = [(4, 16), (28, 32), (40, 48), (52, 64), (74, 80), (81, 96)]
        check(all(not any(rep.data[a:b]) for a, b in mbz),
              "MBZ not zero: %s" % rep.data[:96].hex())
    t2, t3 = ts_unpack(rep.t2, ptp), ts_unpack(rep.t3, ptp)
    t4 = rep.t4
    if ptp:
        t4 += tai_offset_ns()
    check(t1_ns <= t2 + slack_ns and t2 <= t3 + slack_ns and
          t3 <= t4 + slack_ns and t4 - t1_ns < 10**10,
          "timestamps not in order: T1 %d T2 %d T3 %d T4 %d"
          % (t1_ns, t2, t3, t4))
    return t2, t3, t4


def cmd_basic(a):
    s = Session(a.dst, a.port, a.segs)
    key = bytes.fromhex(a.key) if a.key else None
    for i, seq in enumerate(a.seqs):
        t1 = now_ns(a.ptp)
        pad = tlv(T_PAD, bytes(a.pad)) if a.pad else b""
        req = sender_packet(seq, a.ssid, ptp=a.ptp, key=key, tlvs=pad)
        s.send(req)
        rep = s.recv(REPLY_WAIT, auth=key is not None)
        if not check(rep is not None, "no reply to seq %d" % seq):
            continue
        want = seq if a.first is None else a.first + i
        t2, t3, t4 = check_base(rep, req, seq, want, a.ssid, a.ptp, a.ttl,
                                t1 - 1000)
        if key is not None:
            mac = hmac.new(key, rep.data[:96], hashlib.sha256).digest()[:16]
            check(rep.data[96:112] == mac, "reply HMAC wrong")
        print("seq %d: reflector seq %d ttl %d rtt %.1f us" %
              (seq, rep.seq, rep.sttl, ((t4 - t1) - (t3 - t2)) / 1000))
    done()


def cmd_none(a):
    """Test packets that must not be answered, then a marker that must be.

    The first reply must be the marker's (see pin_cpu): no wait for a
    reply that must not come, whatever the speed of the guest."""
    pin_cpu()
    s = Session(a.dst, a.port)
    key = bytes.fromhex(a.key) if a.key else None
    pad = tlv(T_PAD, bytes(a.pad)) if a.pad else b""
    for seq in a.seqs:
        s.send(sender_packet(seq, a.ssid, key=key, tlvs=pad)[:a.length])
    mkey = bytes.fromhex(a.marker_key) if a.marker_key else None
    marker = sender_packet(MARKER_SEQ, a.marker_ssid, key=mkey)
    s.send(marker)
    data = s.recv(REPLY_WAIT, raw=True)
    if check(data is not None, "no reply to the marker (SSID %d)"
             % a.marker_ssid):
        off = 48 if mkey else 24      # the Session-Sender Sequence Number
        check(len(data) == len(marker) and
              data[off:off + 4] == struct.pack("!I", MARKER_SEQ),
              "a reply came back (%d bytes) before the marker's" % len(data))
    done()


def cmd_tlv(a):
    s = Session(a.dst, a.port, tclass=(10 << 2) | 1)   # DSCP 10, ECT(1)
    pad = bytes(range(16))
    tlvs = (tlv(T_PAD, pad) + tlv(T_TSINFO, bytes(4)) +
            tlv(T_COS, struct.pack("!HH", 46 << 10, 0)) +
            tlv(T_DM, struct.pack("!III", 1, 0, 0)) +
            tlv(200, b"\x11\x22\x33\x44", flags=TLV_M))
    req = sender_packet(1, a.ssid, tlvs=tlvs)
    s.send(req)
    rep = s.recv(REPLY_WAIT)
    if check(rep is not None, "no reply to the TLV packet"):
        check(len(rep.data) == len(req), "reply length %d, want %d"
              % (len(rep.data), len(req)))
        got = {t[1]: t for t in parse_tlvs(rep.tlvs)}
        check(sorted(got) == [T_PAD, T_TSINFO, T_COS, T_DM, 200],
              "TLVs back: %s" % sorted(got))
        f, _, v, _ = got[T_PAD]
        check(f == 0 and v == pad, "Extra Padding changed")
        f, _, v, _ = got[T_TSINFO]
        check(f == 0 and v[0] in (1, 5) and v[1] == 2 and v[3] == 2,
              "Timestamp Information %s flags %x" % (v.hex(), f))
        f, _, v, _ = got[T_COS]
        word = struct.unpack("!H", v[:2])[0]
        check(f == 0 and word >> 10 == 46 and (word >> 4) & 0x3f == 10 and
              (word >> 2) & 3 == 1 and word & 3 == 0,
              "CoS DSCP1 %d DSCP2 %d ECN %d RP %d" % (word >> 10,
              (word >> 4) & 0x3f, (word >> 2) & 3, word & 3))
        check(rep.tclass is not None and rep.tclass >> 2 == 46,
              "reply DSCP %s, want 46" % rep.tclass)
        f, _, v, _ = got[T_DM]
        stx, rrx, rtx = struct.unpack("!III", v)
        check(f == 0 and stx == 1 and rrx >= 1 and rtx >= 1,
              "Direct Measurement %d %d %d" % (stx, rrx, rtx))
        check(got[200][0] == TLV_U and got[200][2] == b"\x11\x22\x33\x44",
              "unknown TLV flags %x" % got[200][0])
    # Direct Measurement counts: the next reply has both counters one higher
    s.drain()
    dm = []
    for i in range(2):
        s.send(sender_packet(2 + i, a.ssid,
                             tlvs=tlv(T_DM, struct.pack("!III", 2 + i, 0, 0))))
        rep = s.recv(REPLY_WAIT)
        if check(rep is not None, "no reply to DM packet"):
            dm.append(struct.unpack("!III", parse_tlvs(rep.tlvs)[0][2]))
    if len(dm) == 2:
        check(dm[1][1] == dm[0][1] + 1 and dm[1][2] == dm[0][2] + 1,
              "DM counters %s then %s" % (dm[0], dm[1]))
        # the reflector has answered every test packet it took in (the
        # caller checked rx == tx before): R-RX counts this test packet,
        # R-TX this reply, so the two are equal
        check(dm[1][1] == dm[1][2],
              "DM R-RX %d, R-TX %d: not the received and reflected counts"
              % (dm[1][1], dm[1][2]))
    # malformed TLV areas: flagged, never read or written past the packet
    cases = [
        ("length past the end", tlv(T_PAD, bytes(8), length=64), 0),
        ("CoS of 3 bytes", tlv(T_COS, bytes(3)), 0),
        ("DM of 8 bytes", tlv(T_DM, bytes(8)), 0),
        ("2 bytes after a TLV", tlv(T_PAD, bytes(4)) + b"\x00\x01", 8),
    ]
    for name, tl, moff in cases:
        req = sender_packet(9, a.ssid, tlvs=tl)
        s.send(req)
        rep = s.recv(REPLY_WAIT)
        if not check(rep is not None, "no reply: %s" % name):
            continue
        want = bytearray(tl)
        want[moff] |= TLV_M
        check(rep.tlvs == bytes(want), "%s: TLVs %s, want %s" %
              (name, rep.tlvs.hex(), bytes(want).hex()))
    done()


def cmd_auth_tlv(a):
    key = bytes.fromhex(a.key)
    s = Session(a.dst, a.port)
    for good in (True, False):
        tlvs = tlv(T_PAD, bytes(8))
        mkey = key if good else key + b"x"
        req = sender_packet(77, a.ssid, key=key,
                            tlvs=tlvs + hmac_tlv(mkey, 77, tlvs))
        s.send(req)
        rep = s.recv(REPLY_WAIT, auth=True)
        if not check(rep is not None, "no reply (good HMAC TLV %s)" % good):
            continue
        got = parse_tlvs(rep.tlvs)
        check([t[1] for t in got] == [T_PAD, T_HMAC], "TLVs %s" % got)
        f = got[-1][0]
        check(bool(f & TLV_I) != good, "HMAC TLV flags %x (good %s)"
              % (f, good))
        mac = hmac.new(key, rep.data[:4] + rep.tlvs[:got[-1][3]],
                       hashlib.sha256).digest()[:16]
        check(got[-1][2] == mac, "reply's HMAC TLV is wrong")
    done()


def cmd_tlv_limit(a):
    """More TLVs than the reflector processes, and more than one HMAC TLV."""
    key = bytes.fromhex(a.key) if a.key else None
    s = Session(a.dst, a.port)
    if key is None:
        n, limit = 89, 32
        dm = tlv(T_DM, struct.pack("!III", 5, 0, 0))
        tlvs = dm * n
    else:
        pad = tlv(T_PAD, bytes(8))
        tlvs = pad + hmac_tlv(key, 78, pad)
        tlvs += tlvs[len(pad):] * 2      # two more HMAC TLVs
        n, limit = 4, 4
    req = sender_packet(78, a.ssid, key=key, tlvs=tlvs)
    s.send(req)
    rep = s.recv(REPLY_WAIT, auth=key is not None)
    if not check(rep is not None, "no reply"):
        done()
    got = parse_tlvs(rep.tlvs)
    check(len(rep.data) == len(req) and len(got) == n,
          "reply %d bytes with %d TLVs, want %d and %d"
          % (len(rep.data), len(got), len(req), n))
    if key is None:
        vals = {t[2] for t in got[:limit]}
        check(all(t[0] == 0 for t in got[:limit]) and len(vals) == 1,
              "the first %d DM TLVs: flags %s, %d different values"
              % (limit, [t[0] for t in got[:limit]], len(vals)))
        check(all(t[0] == TLV_M and t[2] == struct.pack("!III", 5, 0, 0)
                  for t in got[limit:]),
              "TLVs after the first %d: flags %s, not M and untouched"
              % (limit, sorted({t[0] for t in got[limit:]})))
    else:
        check([t[0] for t in got] == [0, 0, TLV_M, TLV_M],
              "flags %s, want 0, 0 then M for the 2nd and 3rd HMAC TLV"
              % [t[0] for t in got])
        mac = hmac.new(key, rep.data[:4] + rep.tlvs[:got[1][3]],
                       hashlib.sha256).digest()[:16]
        check(got[1][2] == mac, "the first HMAC TLV of the reply is wrong")
    done()


# --- the PF-PLM Block TLV, version 2 (srv6-pfplm.rst): Alternate-Marking -----
T_PLM = 252
# version, status, colour, flags, period (ms), block, FlowMonID, reserved,
# packets, bytes, ts_sum, dmark_ns
PLM2 = struct.Struct("!BBBBIQII4Q")
PLM_FOUND = 0


def plm2(flowmon, number, period_ms, colour=None, version=2):
    colour = number & 1 if colour is None else colour
    return PLM2.pack(version, 0, colour, 0, period_ms, number, flowmon, 0,
                     0, 0, 0, 0)


def plm2_query(s, a, tlvs):
    """Send one test packet of @tlvs; its reply's TLVs, checked for what
    the reflector must keep (its length, the TLVs' types and lengths)."""
    req = sender_packet(11, a.ssid, tlvs=tlvs)
    s.send(req)
    rep = s.recv(REPLY_WAIT)
    if not check(rep is not None, "no reply to a block query"):
        return None
    got = parse_tlvs(rep.tlvs)
    want = parse_tlvs(tlvs)
    check(len(rep.data) == len(req) and
          [(t[1], len(t[2])) for t in got] == [(t[1], len(t[2])) for t in want],
          "reply of %d bytes with TLVs %s, sent %d bytes with %s"
          % (len(rep.data), [(t[1], len(t[2])) for t in got], len(req),
             [(t[1], len(t[2])) for t in want]))
    return got


def plm2_line(q, flags, v):
    """The answer to query @q as "F N STATUS FLAGS PACKETS BYTES TS_SUM
    DMARK", or "F N U" / "F N M" for a flagged TLV, checking that the
    reflector changed only the status, the flags and the counts."""
    f, n = q[6], q[5]
    if flags:
        check(v == PLM2.pack(*q),
              "F %d block %d: a flagged TLV was changed" % (f, n))
        return "%d %d %s" % (f, n, "U" if flags & TLV_U else "M")
    r = PLM2.unpack(v)
    check(r[0] == q[0] and r[2] == q[2] and r[4:7] == q[4:7] and r[7] == 0,
          "F %d block %d: copied fields %s, sent %s" % (f, n, r, q))
    if r[1] != PLM_FOUND:
        check(r[3] == 0 and r[8:] == (0, 0, 0, 0),
              "F %d block %d: status %d with counts %s" % (f, n, r[1], r[8:]))
    return "%d %d %d %d %d %d %d %d" % ((f, n) + r[1:2] + r[3:4] + r[8:])


def cmd_altmark(a):
    """Ask the reflector for Alternate-Marking blocks, one test packet per
    --query F:N[:PERIOD_MS[:COLOUR]] (N a number, or "now", "now+K",
    "now-K": periods of CLOCK_TAI); print each answer's line."""
    s = Session(a.dst, a.port)
    for item in a.query.split(","):
        f, n, *rest = item.split(":")
        period = int(rest[0]) if rest and rest[0] else a.period_ms
        colour = int(rest[1]) if len(rest) > 1 else None
        if n.startswith("now"):
            now = time.clock_gettime_ns(time.CLOCK_TAI) // (a.period_ms * 10**6)
            n = now + int(n[3:] or 0)
        q = plm2(int(f, 0), int(n), period, colour)
        got = plm2_query(s, a, tlv(T_PLM, q))
        if got:
            print(plm2_line(PLM2.unpack(q), got[0][0], got[0][2]))
    done()


def cmd_altmark_bad(a):
    """Block TLVs the reflector must flag and leave as they are: version
    1's length (pfplm's own, U), other lengths, another version, a
    FlowMonID past 20 bits (M), and the ninth of a packet (M)."""
    s = Session(a.dst, a.port)
    f, n = (int(x) for x in a.query.split(":"))
    good = plm2(f, n, a.period_ms)
    cases = [
        ("version 1", tlv(T_PLM, good[:16]), TLV_U),
        ("55 octets", tlv(T_PLM, good[:55]), TLV_M),
        ("57 octets", tlv(T_PLM, good + b"\x00"), TLV_M),
        ("version 3", tlv(T_PLM, plm2(f, n, a.period_ms, version=3)), TLV_M),
        ("FlowMonID 0x100000", tlv(T_PLM, plm2(0x100000, n, a.period_ms)),
         TLV_M),
    ]
    for name, tl, want in cases:
        got = plm2_query(s, a, tl)
        if got:
            check(got[0][0] == want and tlv(T_PLM, got[0][2]) == tl,
                  "%s: flags %x, want %x, value %s" %
                  (name, got[0][0], want,
                   "kept" if tlv(T_PLM, got[0][2]) == tl else "changed"))
    got = plm2_query(s, a, tlv(T_PLM, good) * 9)
    if got:
        check([t[0] for t in got] == [0] * 8 + [TLV_M] and
              all(PLM2.unpack(t[2])[1] == PLM_FOUND for t in got[:8]) and
              got[8][2] == good,
              "nine block TLVs: flags %s, statuses %s" %
              ([t[0] for t in got], [t[2][1] for t in got]))
    done()


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def cmd_spoof(a):
    """One crafted frame to the reflector: any source address and port.

    Built by hand on a packet socket (Scapy takes seconds to start in a
    slow guest, and each test sends one frame)."""
    v6 = ":" in a.dst
    fam = socket.AF_INET6 if v6 else socket.AF_INET
    src, dst = socket.inet_pton(fam, a.src), socket.inet_pton(fam, a.dst)
    tlvs = b""
    if a.query:
        f, n = (int(x) for x in a.query.split(":"))
        tlvs = tlv(T_PLM, plm2(f, n, a.period_ms))
    payload = sender_packet(1, a.ssid,
                            key=bytes.fromhex(a.key) if a.key else None,
                            tlvs=tlvs)
    if a.reply:
        # What a reflector sends: a Receive Timestamp after the SSID.
        payload = payload[:16] + ts_pack(time.time_ns(), False) + \
            payload[24:]
    ulen = 8 + len(payload)
    pseudo = src + dst + (struct.pack("!I3xB", ulen, 17) if v6 else
                          struct.pack("!xBH", 17, ulen))
    udp = struct.pack("!HHHH", a.sport, a.port, ulen, 0) + payload
    udp = udp[:6] + struct.pack("!H", csum(pseudo + udp) or 0xffff) + udp[8:]
    if v6:
        l3 = struct.pack("!IHBB", 6 << 28, ulen, 17, 64) + src + dst
        etype = 0x86dd
    else:
        l3 = struct.pack("!BBHHHBBH", 0x45, 0, 20 + ulen, 1, 0, 64, 17, 0) \
            + src + dst
        l3 = l3[:10] + struct.pack("!H", csum(l3)) + l3[12:]
        etype = 0x0800
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    smac = s.getsockname()[4]
    s.send(bytes.fromhex(a.dmac.replace(":", "")) + smac +
           struct.pack("!H", etype) + l3 + udp)


def cmd_fuzz(a):
    """Random and truncated test packets: whatever comes back is checked.

    A marker follows them: its reply is the last one (see pin_cpu)."""
    pin_cpu()
    rnd = random.Random(a.seed)
    s = Session(a.dst, a.port)
    sent, got = {}, 0
    for i in range(a.count):
        n = rnd.choice([0, 1, 20, 43, 44, 45, 47, 48, 60, 200, 1000])
        tl = bytes(rnd.getrandbits(8) for _ in range(max(0, n - 44)))
        req = sender_packet(i, a.ssid, tlvs=tl)[:n] if n >= 4 else \
            bytes(rnd.getrandbits(8) for _ in range(n))
        if n >= 16:
            req = req[:14] + struct.pack("!H", a.ssid) + req[16:]
        sent[i] = req
        s.send(req)
        # Read as we go: a burst of replies would overflow the socket.
        got += check_fuzz_replies(s, sent, 0)
    want = sum(1 for r in sent.values() if len(r) >= 44)
    sent[MARKER_SEQ] = sender_packet(MARKER_SEQ, a.ssid)
    s.send(sent[MARKER_SEQ])
    # the last replies: until the marker's
    got += check_fuzz_replies(s, sent, REPLY_WAIT, until=MARKER_SEQ)
    check(got == want + 1, "%d replies, want %d and the marker's"
          % (got, want))
    done()


def check_fuzz_replies(s, sent, timeout, until=None):
    """Check the replies that came within @timeout seconds of each other,
    or up to the one to Session-Sender sequence number @until."""
    got = 0
    while True:
        rep = s.recv(timeout)
        if rep is None:
            check(until is None, "no reply to the marker")
            return got
        got += 1
        req = sent.get(rep.sseq)
        if check(req is not None and len(req) >= 44,
                 "reply to a packet that was too short or unknown"):
            check(len(rep.data) == len(req), "reply length differs")
        if until is not None and rep.sseq == until:
            return got


def cmd_flood(a):
    s = Session(a.dst, a.port)
    end = time.time() + a.seconds
    n = 0
    while time.time() < end:
        try:
            s.send(sender_packet(n, a.ssid))
        except OSError:
            pass
        n += 1
    print("sent %d" % n)


def cmd_scapy(a):
    """Scapy's own STAMP layer as Session-Sender and as reply decoder."""
    from scapy.contrib import stamp as sst
    s = Session(a.dst, a.port)
    # Scapy's TimeStampField takes seconds since 1900 as they are.
    t = time.time()
    pkt = sst.STAMPSessionSenderTestUnauthenticated(seq=4242, ssid=a.ssid,
                                                    ts=t + NTP_EPOCH)
    s.send(bytes(pkt))
    rep = s.recv(REPLY_WAIT)
    if check(rep is not None, "no reply to Scapy's test packet"):
        r = sst.STAMPSessionReflectorTestUnauthenticated(rep.data)
        t2 = float(r.ts_rx) - NTP_EPOCH
        t3 = float(r.ts) - NTP_EPOCH
        check(r.seq == 4242 and r.seq_sender == 4242,
              "seq %s/%s" % (r.seq, r.seq_sender))
        check(r.ssid == a.ssid, "ssid %s" % r.ssid)
        check(abs(float(r.ts_sender) - NTP_EPOCH - t) < 1e-6,
              "sender ts %s vs %s" % (r.ts_sender, t))
        check(t - 1e-6 <= t2 <= t3 + 1e-6 and t3 <= time.time(),
              "T1 %f T2 %f T3 %f" % (t, t2, t3))
        r.show()
    done()


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("cmd", choices=["basic", "none", "tlv", "auth-tlv",
                                   "tlv-limit", "spoof", "fuzz", "flood",
                                   "scapy", "altmark", "altmark-bad"])
    p.add_argument("dst")
    p.add_argument("--port", type=int, default=862)
    p.add_argument("--ssid", type=int, default=7)
    p.add_argument("--seqs", type=lambda v: [int(x) for x in v.split(",")],
                   default=[100, 200, 300])
    p.add_argument("--first", type=int, help="stateful: first reply seq")
    p.add_argument("--ttl", type=int)
    p.add_argument("--ptp", action="store_true")
    p.add_argument("--key")
    p.add_argument("--segs", type=lambda v: v.split(","))
    p.add_argument("--length", type=int, help="none: truncate packets")
    p.add_argument("--pad", type=int, default=0,
                   help="basic: an Extra Padding TLV of this many octets")
    p.add_argument("--marker-ssid", type=int, default=7,
                   help="none: the SSID of the marker, answered")
    p.add_argument("--marker-key", help="none: the marker's HMAC key")
    p.add_argument("--count", type=int, default=300)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--src", help="spoof: source address")
    p.add_argument("--sport", type=int, default=40000, help="spoof")
    p.add_argument("--dmac", help="spoof: the reflector's MAC address")
    p.add_argument("--iface", help="spoof: the interface to send on")
    p.add_argument("--reply", action="store_true",
                   help="spoof: make it look like a reflector's reply")
    p.add_argument("--query", help="altmark: F:N[:PERIOD_MS[:COLOUR]],...; "
                   "spoof: F:N, a Block TLV")
    p.add_argument("--period-ms", type=int, default=4000, help="altmark")
    a = p.parse_args()
    {"basic": cmd_basic, "none": cmd_none, "tlv": cmd_tlv,
     "auth-tlv": cmd_auth_tlv, "tlv-limit": cmd_tlv_limit,
     "spoof": cmd_spoof, "fuzz": cmd_fuzz, "flood": cmd_flood,
     "scapy": cmd_scapy, "altmark": cmd_altmark,
     "altmark-bad": cmd_altmark_bad}[a.cmd](a)


if __name__ == "__main__":
    # "serve DIR": the commands above, each in a child of this process
    # (srv6_pyserve.py), without a Python start-up each
    if sys.argv[1:2] == ["serve"] and len(sys.argv) == 3:
        import srv6_pyserve
        sys.exit(srv6_pyserve.serve(sys.argv[2], main))
    main()

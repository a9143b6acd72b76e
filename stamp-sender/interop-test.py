#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stamp-sender against Session-Reflectors it shares no code with, on the
host's loopback (make check-host runs it; no guest, no privileges).

- Scapy's STAMP layer (scapy.contrib.stamp, RFC 8762/8972) decodes every
  test packet stamp-sender sends and builds every reply, on 127.0.0.1
  (NTP timestamps) and ::1 (PTPv2 timestamps). The reflector holds each
  test packet FWD_DELAY before taking T2, writes T3 = T2 + RESIDENCE
  exactly, and sends the reply BACK_DELAY after T3; it drops one reply
  after counting it (backward loss) and sends another twice.
  stamp-sender must report T1 as the reflector decoded it, T2 and T3 to
  the bit as the reflector wrote them, delays that contain the added ones
  and are consistent with T1..T4 to the nanosecond, the sequence numbers,
  the loss and the duplicate.
- Authenticated mode (Scapy has no layer for it): a reflector packed here
  from the layouts of RFC 8762 4.2.2 and 4.3.2 checks the HMAC of the test
  packets and signs its replies, with the key from --key-file and from
  STAMP_KEY; a wrong key is seen on both sides; --auth-key is refused.

Exit 0 when every check passed, 1 otherwise, 4 when Scapy's STAMP layer
is missing.
"""

import hashlib
import hmac
import json
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from srv6_oam import hosttest
from srv6_oam.hosttest import check

try:
    from scapy.layers.inet import UDP
    from scapy.packet import NoPayload
    from scapy.contrib.stamp import (
        ErrorEstimate, STAMPSessionReflectorTestUnauthenticated,
        STAMPSessionSenderTestUnauthenticated, STAMPTestTLV)
except ImportError:
    print("SKIP: python3 scapy with scapy.contrib.stamp not found")
    sys.exit(4)

SENDER = os.path.join(os.path.dirname(os.path.realpath(__file__)),
                      "stamp-sender")
NS = 1_000_000_000
NTP_OFFSET = 2_208_988_800
FWD_DELAY = 0.020       # s, before T2
BACK_DELAY = 0.010      # s, after T3
RESIDENCE_NS = 5_000_000  # T3 - T2
REFLECTOR_SEQ0 = 100
SENDER_TTL = 42
KEY = bytes(range(16))



# ------------------------------------------------------------- time

def ntp_raw(ns):
    sec, rem = divmod(ns, NS)
    return ((sec + NTP_OFFSET) << 32) | ((rem << 32) // NS)


def ntp_ns(raw):
    """The value a reader that rounds to the nearest nanosecond gets."""
    sec, frac = raw >> 32, raw & 0xFFFFFFFF
    return (sec - NTP_OFFSET) * NS + ((frac * NS + (1 << 31)) >> 32)


def ptp_raw(ns):
    sec, rem = divmod(ns, NS)
    return ((sec & 0xFFFFFFFF) << 32) | rem


def ptp_ns(raw):
    return (raw >> 32) * NS + (raw & 0xFFFFFFFF)


def ts_field(raw, ptp):
    """A raw 64-bit timestamp as the value Scapy's field takes: NTP's
    TimeStampField is fixed point (seconds, exact as a Fraction), the PTP
    one a plain 64-bit integer."""
    return raw if ptp else Fraction(raw, 1 << 32)


def field_raw(pkt, name):
    """The raw 64-bit value of a decoded timestamp field."""
    return pkt.getfieldval(name)


# ----------------------------------------------- the Scapy reflector

class ScapyReflector(threading.Thread):
    """Decodes with Scapy, answers with Scapy, remembers what it did."""

    def __init__(self, address, ptp, drop=(), duplicate=()):
        super().__init__(daemon=True)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_DGRAM)
        self.sock.bind((address, 0))
        self.port = self.sock.getsockname()[1]
        self.ptp, self.drop, self.duplicate = ptp, drop, duplicate
        self.clock = time.CLOCK_TAI if ptp else time.CLOCK_REALTIME
        self.seen = []      # decoded test packets, with their length
        self.replies = {}   # sender seq -> (reflector seq, T2 raw, T3 raw)
        self.errors = []
        self.stop = False
        self.rx = self.tx = 0

    def run(self):
        while not self.stop:
            if not select.select([self.sock], [], [], 0.1)[0]:
                continue
            data, addr = self.sock.recvfrom(65535)
            try:
                self.answer(data, addr)
            except Exception as err:  # reported by the checks
                self.errors.append(repr(err))

    def answer(self, data, addr):
        # Scapy's layer (2.5) takes the TLV area's length from the UDP
        # header it finds in pkt.parent, which a dissection as the payload
        # of UDP() leaves unset: give it the header as the parent.
        test = STAMPSessionSenderTestUnauthenticated(
            data, _parent=UDP(len=8 + len(data)))
        if not isinstance(test.payload, NoPayload):
            raise ValueError(f"seq {test.seq}: bytes Scapy did not decode: "
                             f"{bytes(test.payload).hex()}")
        self.seen.append((len(data), test))
        self.rx += 1
        time.sleep(FWD_DELAY)
        now = time.clock_gettime_ns(self.clock)
        t2 = ptp_raw(now) if self.ptp else ntp_raw(now)
        if self.ptp:
            t3 = t2 + RESIDENCE_NS      # no carry: rem + 5 ms < 2^32 ns
            if (t3 & 0xFFFFFFFF) >= NS:
                t3 += (1 << 32) - NS
        else:
            t3 = t2 + (RESIDENCE_NS << 32) // NS
        self.tx += 1
        tlvs = []
        for t in test.tlv_objects:
            value = bytes(t.value)
            if t.type == 5 and len(value) == 12:  # Direct Measurement
                value = value[:4] + struct.pack("!II", self.rx, self.tx)
            tlvs.append(STAMPTestTLV(flags=t.flags, type=t.type,
                                     len=len(value), value=value))
        seq = REFLECTOR_SEQ0 + self.tx - 1
        # The Error Estimates first: their Z bits select the format of the
        # timestamp fields, which Scapy converts when they are set.
        reply = STAMPSessionReflectorTestUnauthenticated(
            err_estimate=ErrorEstimate(S=0, Z=int(self.ptp), scale=0,
                                       multiplier=1),
            err_estimate_sender=test.err_estimate, seq=seq, ssid=test.ssid,
            seq_sender=test.seq, ttl_sender=SENDER_TTL, tlv_objects=tlvs)
        reply.ts = ts_field(t3, self.ptp)
        reply.ts_rx = ts_field(t2, self.ptp)
        reply.ts_sender = ts_field(field_raw(test, "ts"),
                                   bool(test.err_estimate.Z))
        wire = bytes(reply)
        self.replies[test.seq] = (seq, t2, t3, wire)
        if test.seq in self.drop:       # lost on the way back
            return
        # send at T3 (T2 + RESIDENCE), plus the backward delay
        time.sleep(RESIDENCE_NS / NS + BACK_DELAY)
        for _ in range(2 if test.seq in self.duplicate else 1):
            self.sock.sendto(wire, addr)


def run_sender(*args, env=None):
    proc = subprocess.run([SENDER, *args], capture_output=True, text=True,
                          timeout=60, env=env)
    try:
        doc = json.loads(proc.stdout) if "-j" in args else None
    except ValueError:
        doc = None
    return proc.returncode, doc, proc.stderr


def scapy_session(address, ptp):
    """Six test packets with TLVs; reply 2 lost, reply 3 duplicated."""
    name = f"{address} {'PTP' if ptp else 'NTP'}"
    refl = ScapyReflector(address, ptp, drop={2}, duplicate={3})
    refl.start()
    args = ["-j", "-c", "6", "-i", "0.05", "--timeout", "0.5", "-p",
            str(refl.port), "--ssid", "77", "--tlv-padding", "8",
            "--tlv-cos", "46", "--tlv-dm", address]
    if ptp:
        args.insert(0, "--ptp")
    rc, doc, err = run_sender(*args)
    refl.stop = True
    refl.join()
    check(f"{name}: reflector decoded everything, no error", not refl.errors,
          refl.errors)
    check(f"{name}: stamp-sender ran, exit 0, a JSON document",
          rc == 0 and doc is not None, f"exit {rc}: {err}")
    if doc is None:
        return

    # what Scapy decoded of stamp-sender's test packets
    seqs = [t.seq for _, t in refl.seen]
    if len(doc["packets"]) != 5 or seqs != list(range(6)):
        check(f"{name}: 6 test packets seen, 5 replies reported", False,
              f"seen {seqs}, reported {len(doc['packets'])}: {doc}")
        return
    good = (seqs == list(range(6))
            and all(n == 44 + 12 + 8 + 16 for n, _ in refl.seen)
            and all(t.ssid == 77 and t.mbz == 0
                    and t.err_estimate.Z == int(ptp)
                    and t.err_estimate.multiplier == 1
                    and [(o.type, o.len) for o in t.tlv_objects]
                    == [(1, 8), (4, 4), (5, 12)]
                    and struct.unpack("!I", bytes(t.tlv_objects[2].value)
                                      [:4])[0] == t.seq + 1
                    for _, t in refl.seen))
    check(f"{name}: Scapy decodes the test packets (seq, SSID, EE, TLVs)",
          good, [t.summary() + repr(t.tlv_objects) for _, t in refl.seen])

    pkts = {p["seq"]: p for p in doc["packets"]}
    s = doc["summary"]
    check(f"{name}: sequence: 0 1 3 4 5 answered, 2 lost, 3 duplicated",
          sorted(pkts) == [0, 1, 3, 4, 5] and s["sent"] == 6
          and s["received"] == 5 and s["lost"] == 1
          and s["duplicates"] == 1,
          f"seqs {sorted(pkts)}, summary {s}")
    decode = ptp_ns if ptp else ntp_ns
    exact, bad = True, []
    for seq, p in pkts.items():
        rseq, t2, t3, _ = refl.replies[seq]
        t1 = field_raw(refl.seen[seq][1], "ts")
        if (p["t1_raw"], p["t2_raw"], p["t3_raw"]) != (t1, t2, t3) or \
                [p[f"t{i}_ns"] for i in (1, 2, 3)] != \
                [decode(t1), decode(t2), decode(t3)] or \
                p["reflector_seq"] != rseq or p["ttl"] != SENDER_TTL or \
                p["ssid"] != 77:
            exact = False
            bad.append((p, t1, t2, t3, rseq))
    check(f"{name}: T1 as sent, T2/T3 to the bit as reflected, rseq, TTL",
          exact, bad)
    consistent = all(
        p["rtt_ns"] == (p["t4_ns"] - p["t1_ns"]) - (p["t3_ns"] - p["t2_ns"])
        and p["fwd_ns"] == p["t2_ns"] - p["t1_ns"]
        and p["back_ns"] == p["t4_ns"] - p["t3_ns"]
        and p["t4_ns"] == decode(p["t4_raw"])
        and abs((p["t3_ns"] - p["t2_ns"]) - RESIDENCE_NS) <= 1
        for p in pkts.values())
    check(f"{name}: rtt = (T4-T1)-(T3-T2), fwd, back, to the nanosecond",
          consistent, list(pkts.values()))
    fwd, back = int(FWD_DELAY * NS), int(BACK_DELAY * NS)
    bounded = all(p["fwd_ns"] >= fwd and p["back_ns"] >= back
                  and fwd + back <= p["rtt_ns"] < fwd + back + NS
                  for p in pkts.values())
    check(f"{name}: delays hold the reflector's added {fwd // 10**6}+"
          f"{back // 10**6} ms", bounded,
          [(p["fwd_ns"], p["back_ns"], p["rtt_ns"]) for p in pkts.values()])
    rtts = [pkts[k]["rtt_ns"] for k in sorted(pkts)]
    check(f"{name}: summary: integers, min/avg/max of the packets",
          s["rtt_ns"]["min"] == min(rtts) and s["rtt_ns"]["max"] == max(rtts)
          and isinstance(s["rtt_ns"]["avg"], int)
          and abs(s["rtt_ns"]["avg"] - sum(rtts) / len(rtts)) <= 0.5
          and isinstance(s["jitter_ns"], int), s)
    dm = s.get("dm") or {}
    check(f"{name}: Direct Measurement: no forward loss, 1 backward",
          dm.get("forward_loss") == 0 and dm.get("backward_loss") == 1, dm)


# --------------------------------------- the authenticated reflector

# RFC 8762 4.2.2: Seq, MBZ 12, T1, EE, SSID, MBZ 68, HMAC (112 bytes)
AUTH_TEST = struct.Struct("!I12x8sHH68x16s")
# RFC 8762 4.3.2: Seq, MBZ 12, T3, EE, SSID, MBZ 4, T2, MBZ 8, Sender Seq,
# MBZ 12, Sender T1, Sender EE, MBZ 6, Sender TTL, MBZ 15, HMAC (112)
AUTH_REPLY = struct.Struct("!I12x8sHH4x8s8xI12x8sH6xB15x16s")


def hmac16(key, data):
    return hmac.new(key, data, hashlib.sha256).digest()[:16]


class AuthReflector(threading.Thread):
    def __init__(self, key):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.key, self.good, self.bad, self.stop = key, 0, 0, False

    def run(self):
        while not self.stop:
            if not select.select([self.sock], [], [], 0.1)[0]:
                continue
            data, addr = self.sock.recvfrom(65535)
            if len(data) != AUTH_TEST.size:
                self.bad += 1
                continue
            seq, t1, ee, ssid, digest = AUTH_TEST.unpack(data)
            if hmac.compare_digest(digest, hmac16(self.key, data[:96])):
                self.good += 1
            else:
                self.bad += 1   # answered anyway: the sender must see it
            t = ntp_raw(time.clock_gettime_ns(time.CLOCK_REALTIME))
            ts = struct.pack("!Q", t)
            reply = AUTH_REPLY.pack(seq, ts, 1, ssid, ts, seq, t1, ee, 64,
                                    bytes(16))
            self.sock.sendto(reply[:96] + hmac16(self.key, reply[:96]), addr)


def auth_sessions():
    refl = AuthReflector(KEY)
    refl.start()
    base = ["-j", "-c", "3", "-i", "0.02", "--timeout", "0.5", "-p",
            str(refl.port), "127.0.0.1"]
    env = {k: v for k, v in os.environ.items() if k != "STAMP_KEY"}
    with tempfile.NamedTemporaryFile("w", prefix="stamp-key.") as f:
        f.write(KEY.hex() + "\n")
        f.flush()
        rc, doc, err = run_sender("--key-file", f.name, *base, env=env)
    s = doc["summary"] if doc else {}
    check("authenticated, --key-file: 3 replies, HMACs good both ways",
          rc == 0 and doc["authenticated"] and s["received"] == 3
          and s["bad_auth"] == 0 and refl.good == 3 and refl.bad == 0
          and all(p["auth_ok"] for p in doc["packets"]),
          f"exit {rc} {err} {s} reflector good {refl.good} bad {refl.bad}")
    rc, doc, err = run_sender("--auth", *base,
                              env=dict(env, STAMP_KEY=KEY.hex()))
    s = doc["summary"] if doc else {}
    check("authenticated, STAMP_KEY: 3 replies, HMACs good both ways",
          rc == 0 and s["received"] == 3 and refl.good == 6,
          f"exit {rc} {err} {s} reflector good {refl.good}")
    rc, doc, err = run_sender("--auth", *base,
                              env=dict(env, STAMP_KEY="ff" * 16))
    s = doc["summary"] if doc else {}
    check("authenticated, wrong key: bad on both sides, exit 1",
          rc == 1 and s["received"] == 0 and s["bad_auth"] == 3
          and refl.bad == 3, f"exit {rc} {err} {s} reflector bad {refl.bad}")
    rc, _, err = run_sender("--auth", *base, env=env)
    check("--auth without STAMP_KEY: exit 2", rc == 2, f"exit {rc} {err}")
    rc, _, err = run_sender("--auth-key", KEY.hex(), *base, env=env)
    check("--auth-key HEX (argv) is refused, exit 2, names --key-file",
          rc == 2 and "--key-file" in err and KEY.hex() not in err,
          f"exit {rc} {err}")
    refl.stop = True
    refl.join()


def main():
    rc, _, _ = run_sender("--version")
    check("--version", rc == 0, f"exit {rc}")
    scapy_session("127.0.0.1", ptp=False)
    scapy_session("::1", ptp=True)
    auth_sessions()
    return hosttest.failed


if __name__ == "__main__":
    sys.exit(main())

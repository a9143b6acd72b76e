#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Traffic for srv6_pfplm_test.sh, with its own ground truth.

Every period of PERIOD seconds (numbered from the Unix epoch, like pfplm's
blocks; with --clock tai, of CLOCK_TAI, like the kernel's Alternate-Marking
blocks), sends PACKETS UDP datagrams to each destination, all of them
between 30% and 60% of the period, so that each datagram belongs to one
block without doubt however late the colour switch or the counters are
read (up to 20% of a period).  Every EVERY-th datagram of a lossy
destination (--lossy ADDR=EVERY) carries the DOOM bit in its Traffic
Class: the transit node drops exactly those.  On SIGTERM (or after
--blocks periods), writes one JSON line per destination and block:
{"dst", "block", "sent", "doomed", "sure"}, "sure" false when a datagram
to that destination left outside 20%..80% of its period (the host was too
slow to tell).
"""

import argparse
import json
import signal
import socket
import sys
import time

NS = 1_000_000_000


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--period", type=float, required=True)
    p.add_argument("--packets", type=int, default=6)
    p.add_argument("--dst", action="append", default=[])
    p.add_argument("--lossy", action="append", default=[],
                   help="ADDR=EVERY")
    p.add_argument("--doom", type=lambda v: int(v, 0), default=0x80,
                   help="Traffic Class bit of a doomed datagram")
    p.add_argument("--blocks", type=int, default=0)
    p.add_argument("--out", required=True)
    p.add_argument("--clock", choices=("realtime", "tai"), default="realtime")
    a = p.parse_args()
    clock = time.CLOCK_TAI if a.clock == "tai" else time.CLOCK_REALTIME
    lossy = {}
    for item in a.lossy:
        addr, every = item.split("=")
        lossy[addr] = int(every)
    T = int(a.period * NS)
    plain = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    doomed = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    doomed.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_TCLASS, a.doom)
    index = dict.fromkeys(a.dst, 0)
    record = {}
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    first = None
    payload = bytes(64)
    while not stop:
        now = time.clock_gettime_ns(clock)
        block = now // T
        start, end = block * T + 3 * T // 10, block * T + 6 * T // 10
        if now > start:
            block += 1
            start, end = block * T + 3 * T // 10, block * T + 6 * T // 10
        if first is None:
            first = block
        if a.blocks and block >= first + a.blocks:
            break
        while not stop:
            # one clock read: a second one could be past start already
            left = start - time.clock_gettime_ns(clock)
            if left <= 0:
                break
            time.sleep(min(0.05, left / NS))
        if stop:
            break
        # Paced by a schedule, not by a sleep after each datagram: on a
        # slow host the datagrams go as fast as they can and stay near
        # their window instead of spreading over the period.
        gap = (end - start) // max(1, a.packets * len(a.dst))
        due = start
        for n in range(a.packets):
            for dst in a.dst:
                rec = record.setdefault((dst, block),
                                        {"sent": 0, "doomed": 0,
                                         "sure": True})
                i = index[dst]
                index[dst] += 1
                every = lossy.get(dst)
                sock = doomed if every and i % every == every - 1 else plain
                t0 = time.clock_gettime_ns(clock)
                try:
                    sock.sendto(payload, (dst, 9))
                except OSError:
                    continue
                t1 = time.clock_gettime_ns(clock)
                rec["sent"] += 1
                if sock is doomed:
                    rec["doomed"] += 1
                if not (block * T + 2 * T // 10 <= t0 and
                        t1 <= block * T + 8 * T // 10):
                    rec["sure"] = False
                due += gap
                ahead = due - time.clock_gettime_ns(clock)
                if ahead > 0:
                    time.sleep(ahead / NS)
    with open(a.out, "w", encoding="utf-8") as fh:
        for (dst, block), rec in sorted(record.items()):
            rec.setdefault("sure", False)
            fh.write(json.dumps({"dst": dst, "block": block, **rec}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

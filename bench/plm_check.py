#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check the PF-PLM bench's configurations (bench/cfg/plm.sh) in the guest:
for each behaviour given, configure it as srperf does, offer 1000 packets,
and print the SUT's mangle table with its counters, its sets, and the
first packets on the sink (tcpdump -v: the outer traffic class).  What to
see: every packet delivered; the flow's own rule / set element (the last)
counted them all and no decoy any; at the ingress with colouring the
packets leave with traffic class 0x08 (monitored, colour A), without it
with 0x00; at the egress the packets (arriving with 0x08) are counted in
chain pfplm-E-A.

usage: plm_check.py BEHAVIOUR... (in the guest, as root; `make bench`'s
guest environment: the tools of the series first on PATH)
"""

import subprocess
import sys
import time

import srperf


def sut(topo, cmd):
    return subprocess.run(f"ip netns exec {topo.sut} {cmd}", shell=True,
                          capture_output=True, text=True).stdout


def main():
    exp = {"pkt_size": 78}
    for i, b in enumerate(sys.argv[1:]):
        topo = srperf.Topology(f"chk{i}")
        try:
            gen = srperf.configure(b, exp, topo)
            dump = subprocess.Popen(
                ["ip", "netns", "exec", topo.sut, "tcpdump", "-c", "2", "-nv",
                 "-i", "sink0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True)
            time.sleep(5)           # tcpdump's start-up under TCG
            r = gen.run(2000, 1000, settle=True)
            try:
                out = dump.communicate(timeout=20)[0]
            except subprocess.TimeoutExpired:
                dump.kill()
                out = dump.communicate()[0] + "(tcpdump: timeout)\n"
            print(f"=== {b}: offered {r['offered']}, delivered "
                  f"{r['delivered'] + r['late']}")
            save = sut(topo, "ip6tables-legacy-save -t mangle -c")
            lines = save.splitlines()
            # Long chains: the head, the flow's own rules (last of each
            # colour chain) and the chains' jumps.
            shown = [ln for ln in lines if not ln.startswith("[0:0] -A pfplm-")
                     or "fc00:9::1 " in ln or "fc00:9::b,fc00:1::d6 " in ln
                     or "-m set" in ln or "-j pfplm" in ln]
            print("\n".join(shown[:40]))
            print(f"({len(lines)} lines; {sum(1 for ln in lines if ln.startswith('[0:0] -A pfplm-'))}"
                  " rules of pfplm's chains counted nothing)")
            sets = sut(topo, "ipset save")
            print("\n".join(ln for ln in sets.splitlines()
                            if ln.startswith("create") or "packets 0 " not in ln))
            print("--- sink0:\n" + out)
        finally:
            topo.teardown()


if __name__ == "__main__":
    main()

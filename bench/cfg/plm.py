#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Install the PF-PLM data plane of N flows in the current netns, with
pfplm's own code: plm.py ROLE METHOD MODE N (run by plm.sh, in the SUT's
netns).

The flows' netfilter state is made by pfplm's Netfilter.setup() (one
`ipset restore` for the sets, one `ip6tables-restore --noflush` batch for
every chain and rule, colour A active), the same code path as the daemon's
start-up, so the rules and sets are byte for byte what pfplm installs:
same chains, matches, targets and order.  The one difference is MODE
"count" on the ingress, which is not a pfplm mode: the same rules without
their `-j TOS --set-tos VALUE/MASK` target (counting by the rule's or the
set element's counters, no colouring).

Flows: N-1 decoys, then the measured flow, last (with rules, every rule
of the colour chain is evaluated for its packets):
  ingress  fc00:9::a,fc00:9::b,fc00:8::I  (decoys, I = 1..N-1: they differ
           in the last SID, the worst case for --srh-sid-list, which
           compares in path order), the flow fc00:9::a,fc00:9::b,fc00:9::1
  egress   fc00:9::a,fc00:8::I,fc00:1::d6 (decoys: other paths to this
           egress's End.DT6 SID, so they differ in the middle SID), the
           flow fc00:9::a,fc00:9::b,fc00:1::d6
"""

import importlib.machinery
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PFPLM = os.path.join(HERE, "..", "..", "pfplm", "pfplm")


def load_pfplm():
    loader = importlib.machinery.SourceFileLoader("pfplm", PFPLM)
    spec = importlib.util.spec_from_loader("pfplm", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def flow_lists(role, n):
    if role == "ingress":
        decoy, own = "fc00:9::a,fc00:9::b,fc00:8::%x", "fc00:9::a,fc00:9::b,fc00:9::1"
    else:
        decoy, own = "fc00:9::a,fc00:8::%x,fc00:1::d6", "fc00:9::a,fc00:9::b,fc00:1::d6"
    return [decoy % i for i in range(1, n)] + [own]


def main():
    role, method, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    if role not in ("ingress", "egress") or method not in ("rules", "sets") \
            or mode not in ("count", "colour") or not 1 <= n <= 65535:
        sys.exit(f"plm.py: bad arguments {sys.argv[1:]}")
    if role == "egress" and mode != "colour":
        sys.exit("plm.py: the egress only counts (per colour): mode colour")
    t0 = time.monotonic()
    pf = load_pfplm()

    class Counting(pf.Netfilter):
        """pfplm's ingress rules without their TOS target."""

        def flow_rule(self, side, colour, flow):
            rule = super().flow_rule(side, colour, flow)
            return rule.split(" -j TOS ")[0] if side == "I" else rule

        def set_rule(self, side, colour):
            rule = super().set_rule(side, colour)
            return rule.split(" -j TOS ")[0] if side == "I" else rule

    settings = {k: d for k, (_t, d) in pf.GLOBAL_KEYS.items()}
    settings.update({"method": method, "iptables": "ip6tables-legacy",
                     "source": "fd00:1::2", "listen": "fd00:1::2"})
    flows = [pf.parse_flow(f"f{i}", {"role": role, "id": str(i), "sids": s,
                                     "peer": "fd00:1::1"}, "plm.py")
             for i, s in enumerate(flow_lists(role, n), 1)]
    cfg = pf.Config(settings, flows)
    nf = (Counting if mode == "count" else pf.Netfilter)(cfg)
    t1 = time.monotonic()
    nf.setup(lambda: 0)             # block 0: colour A active
    print(f"plm.py: {role} {method} {mode} {n} flows: built {t1 - t0:.1f} s, "
          f"installed {time.monotonic() - t1:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()

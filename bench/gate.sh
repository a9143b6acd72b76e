#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's gate, in two halves.
#
# `make gate` (a prerequisite of make check) boots a guest of its own under
# QEMU's icount with the instruction counter bench/insn.c and runs, there,
#
#	gate.sh --run OUTDIR SNAPSHOT
#
# which (1) configures one behaviour of every forwarder configuration script
# (bench/cfg/*.sh) and sends traffic through it, as bench/smoke.sh did for
# every behaviour (the bench code cannot rot), and (2) runs the experiment
# bench/experiments/gate.yaml and holds its key ratios, by instructions per
# packet on the SUT's vCPU, to the bounds written there.  Its verdict and
# log land in OUTDIR (build/gate).
#
# Then make check runs `gate.sh` with no argument in its own guest, as the
# test @bench/gate.sh: it reports that verdict, and fails if there is none,
# or if it is not that of the kernel under test.
#
# No time is asserted anywhere: instruction counts under icount do not
# depend on the host's speed.

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

if [ "${1:-}" != --run ]; then
	res=${GATE_RESULTS:-$top/build/gate}
	[ -s "$res/gate.status" ] || { echo "gate: no result in $res (make gate)"; exit 1; }
	cat "$res/gate.log"
	if [ "$(cat "$res/gate.kernel")" != "$(uname -r -v)" ]; then
		echo "gate: that result is of kernel '$(cat "$res/gate.kernel")', not this one"
		exit 1
	fi
	exit "$(cat "$res/gate.status")"
fi

out=$2 snap=$3
uname -r -v > "$out/gate.kernel"
rc=0
start=$(date +%s)

# (1) Rot: every configuration script once (the first behaviour of the
# experiments that uses it), one short trial each; every behaviour must be
# configured, deliver at least half of what it was offered, and give a
# finite instruction count per packet.
/usr/bin/python3 - "$here" "$out/rot.yaml" <<-'PY' || exit 1
	import glob, os, re, sys, yaml
	here = sys.argv[1]
	names, scripts = ["ipv6"], {"ipv6"}
	for f in sorted(glob.glob(os.path.join(here, "experiments", "*.yaml"))):
	    for b in yaml.safe_load(open(f))["behaviours"]:
	        s = b if os.path.exists(os.path.join(here, "cfg", b + ".sh")) \
	            else re.sub(r"_\d+$", "", b)
	        if s not in scripts:
	            scripts.add(s)
	            names.append(b)
	yaml.safe_dump({"description": "gate: every configuration script",
	                "method": "cost", "baseline": "ipv6", "pkt_size": 78,
	                "rate": 20000, "behaviours": names},
	               open(sys.argv[2], "w"))
	PY
/usr/bin/python3 "$here/srperf.py" "$out/rot.yaml" "$out" --smoke --insn "$snap" || rc=1
/usr/bin/python3 - "$out/rot.json" <<-'PY' || rc=1
	import json, math, sys
	res = json.load(open(sys.argv[1]))
	bad = [f"{r['behaviour']} ({t['delivered']}/{t['offered']})"
	       for r in res["results"] for t in r["trials"]
	       if t["dr"] < 0.5 or not 0 < t["insn_per_pkt"] < math.inf]
	if bad or res["failed"]:
	    print("gate: not carried: " + ", ".join(bad + res["failed"]))
	    sys.exit(1)
	print(f"gate: {len(res['results'])} configuration scripts carried their traffic")
	PY
echo "gate: rot check done after $(( $(date +%s) - start )) s"

# (2) The ratios.
/usr/bin/python3 "$here/srperf.py" "$here/experiments/gate.yaml" "$out" --insn "$snap" || rc=1
/usr/bin/python3 - "$here/experiments/gate.yaml" "$out/gate.json" <<-'PY' || rc=1
	import json, sys, yaml
	bounds = yaml.safe_load(open(sys.argv[1]))["bounds"]
	res = {r["behaviour"]: r for r in json.load(open(sys.argv[2]))["results"]}
	ok = bad = 0
	for b in bounds:
	    x, ref = res.get(b["x"]), res.get(b["ref"])
	    if not x or not ref:
	        print(f"not ok: {b['x']} / {b['ref']}: not measured")
	        bad += 1
	        continue
	    v = ref["insn_per_pkt"]["mean"] / x["insn_per_pkt"]["mean"]
	    good = v >= b["min"]
	    print(f"{'ok' if good else 'not ok'}: {b['ref']} / {b['x']} instructions per "
	          f"packet {v:.4f} (bound >= {b['min']}): {b['why']}")
	    ok, bad = ok + good, bad + (not good)
	print(f"gate: {ok} bounds held, {bad} broken")
	sys.exit(1 if bad else 0)
	PY
echo "gate: done after $(( $(date +%s) - start )) s (guest time)"
echo $rc > "$out/gate.status"
exit $rc

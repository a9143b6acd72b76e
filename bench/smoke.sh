#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's smoke test, run by make check in the guest: every behaviour of
# every experiment in smoke mode (configured, one short trial), each once, so
# that the bench code cannot rot.  It measures nothing: no timing is asserted.
# It fails if a behaviour cannot be configured or does not carry its traffic.

set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/srperf-smoke.XXXXXX)
rc=0
# One experiment with the union of the behaviours of all experiments, in the
# order they first appear, baseline first.
/usr/bin/python3 - "$here/experiments" "$out/smoke.yaml" <<-'PY' || exit 1
	import glob, os, sys, yaml
	names = ["ipv6"]
	for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))):
	    for b in yaml.safe_load(open(f))["behaviours"]:
	        if b not in names:
	            names.append(b)
	yaml.safe_dump({"description": "smoke: every behaviour of every experiment",
	                "baseline": "ipv6", "pkt_size": 78, "behaviours": names},
	               open(sys.argv[2], "w"))
	PY
/usr/bin/python3 "$here/srperf.py" "$out/smoke.yaml" "$out" --smoke || rc=1
# Every behaviour must carry its traffic: at a quarter of the generator's
# speed, at least half of it arrives (a behaviour that is misconfigured
# delivers next to nothing; a working one nearly all).
/usr/bin/python3 - "$out/smoke.json" <<-'PY' || rc=1
	import json, sys
	res = json.load(open(sys.argv[1]))
	bad = [f"{r['behaviour']} ({r['trials'][-1]['delivered']}/{r['trials'][-1]['offered']})"
	       for r in res["results"] if r["trials"][-1]["dr"] < 0.5]
	if bad or res["failed"]:
	    print("smoke: not carried: " + ", ".join(bad + res["failed"]))
	    sys.exit(1)
	print(f"smoke: {len(res['results'])} behaviours carried their traffic")
	PY
# The cost method's code path, on the baseline and one SRv6 behaviour: every
# trial must deliver and give the SUT a positive, finite CPU time per packet.
cat > "$out/cost.yaml" <<-'EOF'
	description: smoke of the cost method
	method: cost
	baseline: ipv6
	behaviours: [ipv6, end]
	EOF
/usr/bin/python3 "$here/srperf.py" "$out/cost.yaml" "$out" --smoke || rc=1
/usr/bin/python3 - "$out/cost.json" <<-'PY' || rc=1
	import json, math, sys
	res = json.load(open(sys.argv[1]))
	bad = [r["behaviour"] for r in res["results"]
	       if not all(0 < t["cost_ns"] < math.inf and t["total"] > 0
	                  for t in r["trials"])]
	if bad or res["failed"] or len(res["results"]) != 2:
	    print("smoke: cost method failed: " + ", ".join(bad + res["failed"]))
	    sys.exit(1)
	print("smoke: cost method: " + ", ".join(
	    f"{r['behaviour']} {r['cost_ns']['mean'] / 1e3:.1f} us/pkt" for r in res["results"]))
	PY
rm -rf "$out"
exit $rc

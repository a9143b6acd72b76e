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
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bench's smoke test, run by make check in the guest: every experiment in
# smoke mode (each behaviour configured, one short trial), so that the bench
# code cannot rot.  It measures nothing: no timing is asserted.  It fails if a
# behaviour cannot be configured or does not carry its traffic.

set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/srperf-smoke.XXXXXX)
rc=0
for exp in "$here"/experiments/*.yaml; do
	/usr/bin/python3 "$here/srperf.py" "$exp" "$out" --smoke || rc=1
	n=$(basename "$exp" .yaml)
	# Every behaviour must carry its traffic: at a quarter of the
	# generator's speed, at least half of it arrives (a behaviour that is
	# misconfigured delivers next to nothing; a working one nearly all).
	/usr/bin/python3 - "$out/$n.json" <<-'PY' || rc=1
	import json, sys
	res = json.load(open(sys.argv[1]))
	bad = [f"{r['behaviour']} ({r['trials'][-1]['delivered']}/{r['trials'][-1]['offered']})"
	       for r in res["results"] if r["trials"][-1]["dr"] < 0.5]
	if bad or res["failed"]:
	    print("smoke: not carried: " + ", ".join(bad + res["failed"]))
	    sys.exit(1)
	print(f"smoke: {res['experiment']}: {len(res['results'])} behaviours carried their traffic")
	PY
done
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-loaded`: a command (make check) while a CPU hog runs on every
# core of the host (stress-ng --cpu 0, one busy worker per online CPU, at the
# same priority as everything else).  Our tests wait for conditions, not for
# times: they must pass on a host this busy.  Prints, at the end, the
# command's run time and the host's load average over the run (sampled
# every 30 s); exits with the command's status.
#
# usage: check-loaded.sh COMMAND [ARG...]

set -uo pipefail

command -v stress-ng > /dev/null ||
	{ echo "check-loaded: no stress-ng (make deps installs it)" >&2; exit 2; }

log=$(mktemp)
setsid stress-ng --cpu 0 --cpu-method int64 --timeout 0 --quiet &
hog=$!
(
	while sleep 30; do
		cut -d' ' -f1 /proc/loadavg
	done
) > "$log" &
sampler=$!
stop()
{
	kill -- -"$hog" 2> /dev/null
	kill "$sampler" 2> /dev/null
	wait "$hog" "$sampler" 2> /dev/null
}
trap 'stop; rm -f "$log"; exit 130' INT TERM

# the hog's workers run before the command starts
deadline=$((SECONDS + 60))
while [ "$(pgrep -c -P "$hog" stress-ng)" -lt "$(nproc)" ]; do
	[ "$SECONDS" -lt "$deadline" ] ||
		{ echo "check-loaded: stress-ng did not start" >&2; stop; exit 2; }
	sleep 1
done
echo "check-loaded: stress-ng --cpu 0, $(nproc) workers on $(nproc) CPUs"

t0=$SECONDS
"$@"
rc=$?
stop
awk -v s=$((SECONDS - t0)) -v rc=$rc '
	{ n++; sum += $1; if ($1 > max) max = $1 }
	END { printf "check-loaded: exit %d after %d s; load average (1 min) " \
		"mean %.1f, max %.1f over %d samples\n", rc, s,
		n ? sum / n : 0, max, n }' "$log"
rm -f "$log"
exit "$rc"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attach the eBPF STAMP Session-Reflector (bench/stamp_ebpf.bpf.c) at the
# tcx ingress hook of DEV in netns NETNS with bench/tcx_load.c (libbpf),
# both built by make bench-bpf into build/bench-bpf/.  Its .bss is the
# kernel's TAI-UTC offset, for its NTP timestamps.
#
# usage: stamp_ebpf_load.sh NETNS DEV

set -eu
ns=$1 dev=$2
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/build/bench-bpf
for f in stamp_ebpf.bpf.o tcx_load; do
	[ -r "$dir/$f" ] || { echo "stamp_ebpf_load.sh: no $dir/$f (make bench-bpf)" >&2; exit 1; }
done
# tai_offset, an s32 in the host's byte order.
bss=$(/usr/bin/python3 -c 'import struct, time
off = round(time.clock_gettime(time.CLOCK_TAI) - time.time())
print(struct.pack("=i", off).hex())')
ip netns exec "$ns" "$dir/tcx_load" "$dir/stamp_ebpf.bpf.o" ingress "$dev" ".bss=$bss"

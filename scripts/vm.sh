#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the srv6-oam kernel in a QEMU guest with virtme-ng and run a command in
# it as root.  The host's root is shared read-only (vng's default), the
# directories given with --rwdir are writable, the private tool prefix comes
# first on PATH (the command is responsible for that: see guest-*.sh).
#
# KVM is used only if a short probe boots our kernel with it: on some hosts
# /dev/kvm exists but a KVM guest hangs.  Otherwise TCG.  VM_ACCEL=kvm|tcg
# forces the choice.
#
# vng's own exit status is not reliable (it is 255 even when the command
# passed), so callers take their results from files the command writes into
# a --rwdir.
#
# VM_CPU is the CPU model of a TCG guest (default qemu64: x86-64 with SSE3,
# no AVX, four-level page tables).  vng's own choice, max, offers every
# feature TCG emulates, and glibc's and OpenSSL's AVX2 routines, which
# their CPU checks then pick, run slower under TCG than the plain ones: a
# guest's process start-ups, Python imports and hashing took 10-25%, 25%
# and 5x longer with max.  VM_CPU=max for that (make bench and the gate
# keep the model of their recorded results).  Not used with KVM (-cpu host).
#
# VM_APPEND adds kernel command-line arguments.  VM_PIN=1 pins vCPU N's
# thread to host CPU N (benchmarks: two busy vCPUs must not share a core).
# VM_QEMU_OPTS adds QEMU options (words split on blanks, so no blank inside
# one), e.g. "-icount shift=2,sleep=off -plugin FILE.so,out=OUT" (the
# bench's icount mode, scripts/bench.sh).
#
# VM_SLOTS is how many guests may run at once on this host, whoever starts
# them (make check's guests, make BASE=6.1 check's, make gate's, make
# demo's): a TCG guest keeps about one host CPU busy, so by default one per
# CPU (nproc); 0 lifts the limit.  A guest waits for a free slot, a lock
# file of $CACHE_DIR/vm-slots held (flock) for as long as it runs, and so
# the guests of a CI run take their turns instead of sharing the CPUs.
#
# usage: vm.sh BZIMAGE [--rwdir DIR]... -- COMMAND...

set -euo pipefail

VNG=${VNG:-$(cd "$(dirname "$0")/.." && pwd)/build/venv/bin/vng}
CPUS=${VM_CPUS:-2}
MEM=${VM_MEM:-2G}

bzimage=$1
shift
rw=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in
	--rwdir) rw+=(--rwdir "$2"); shift 2 ;;
	*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ "${1:-}" = -- ] && shift
[ -r "$bzimage" ] || { echo "vm.sh: no kernel image $bzimage" >&2; exit 2; }

# Boot the kernel with no root file system under KVM: it must print its
# banner and panic (panic=-1 reboots, -no-reboot ends QEMU) within seconds.
probe_kvm() {
	local out
	[ -w /dev/kvm ] || return 1
	out=$(timeout 20 qemu-system-x86_64 -accel kvm -cpu host -m 256 \
		-nographic -no-reboot -kernel "$bzimage" \
		-append "console=ttyS0 panic=-1 root=/dev/nonexistent" 2>&1) || true
	grep -q "Kernel panic" <<< "$out"
}

# The probe's answer holds until the host reboots.
accel=${VM_ACCEL:-}
if [ -z "$accel" ]; then
	memo=${CACHE_DIR:-$HOME/.cache/srv6-oam}/accel.$(cat /proc/sys/kernel/random/boot_id)
	accel=$(cat "$memo" 2> /dev/null || true)
	if [ -z "$accel" ]; then
		if probe_kvm; then accel=kvm; else accel=tcg; fi
		mkdir -p "$(dirname "$memo")" && echo "$accel" > "$memo"
	fi
fi
kvm_opt=()
[ "$accel" = tcg ] && kvm_opt=(--disable-kvm)

# A slot of the host's guests (VM_SLOTS): the lock is held by this shell's
# descriptor, which QEMU inherits, until both have ended.  Waiting polls,
# once a second: nothing in a test depends on it.
slots=${VM_SLOTS:-$(nproc)}
if [ "$slots" -gt 0 ]; then
	slotdir=${CACHE_DIR:-$HOME/.cache/srv6-oam}/vm-slots
	mkdir -p "$slotdir"
	waited=0
	while :; do
		for i in $(seq "$slots"); do
			exec {slotfd}>> "$slotdir/$i"
			flock -n "$slotfd" && break 2
			exec {slotfd}>&-
		done
		[ "$waited" -gt 0 ] ||
			echo "vm: waiting for one of the host's $slots guest slots" >&2
		waited=$((waited + 1))
		sleep 1
	done
	[ "$waited" = 0 ] || echo "vm: slot $i free after ${waited}s" >&2
fi
# vng runs its helpers (virtme-run) from its own bin directory.
export PATH=$(dirname "$(command -v "$VNG")"):$PATH
echo "vm: booting $(basename "$bzimage") with $accel, $CPUS vCPUs, $MEM" >&2

qemu_opt=()
extra=${VM_QEMU_OPTS:-}
# A later -cpu wins over vng's.
[ "$accel" = tcg ] && extra="-cpu ${VM_CPU:-qemu64}${extra:+ $extra}"
if [ "${VM_PIN:-0}" = 1 ]; then
	# Our QEMU writes its pid into a file of ours (-pidfile, created
	# when QEMU starts, before the guest's vCPU threads exist), in a new
	# directory: the threads pinned are our guest's, never those of
	# another QEMU on the host.  vng hands --qemu-opts to a shell, so the
	# path must have no blank or shell character.
	piddir=$(mktemp -d "${TMPDIR:-/tmp}/srv6-oam-vm.XXXXXX")
	case $piddir in
	*[!A-Za-z0-9._/+-]*) rmdir "$piddir"; piddir=$(mktemp -d /tmp/srv6-oam-vm.XXXXXX) ;;
	esac
	pidfile=$piddir/qemu.pid
	extra="-name virtme-ng,debug-threads=on -pidfile $pidfile${extra:+ $extra}"
	# QEMU names its vCPU threads "CPU N/TCG" (or /KVM): pin each to a
	# host CPU of its own as soon as it exists.  The directory goes when
	# this is done (QEMU keeps running without its pid file).
	(
		trap 'rm -rf "$piddir"' EXIT
		ncpu=$(nproc)
		for _ in $(seq 600); do
			sleep 0.1
			pid=$(cat "$pidfile" 2> /dev/null) || continue
			case $pid in ''|*[!0-9]*) continue ;; esac
			pinned=0
			for t in /proc/"$pid"/task/*; do
				comm=$(cat "$t/comm" 2> /dev/null) || continue
				case $comm in
				"CPU "*/*)
					n=${comm#CPU }; n=${n%%/*}
					taskset -p -c $((n % ncpu)) "${t##*/}" > /dev/null && pinned=$((pinned + 1)) ;;
				esac
			done
			[ "$pinned" -ge "$CPUS" ] && { echo "vm: pinned $pinned vCPU threads" >&2; exit 0; }
		done
		echo "vm: could not pin the vCPU threads" >&2
	) &
fi
# VM_ROOT_TAG=1: the host's root is exported a second time, read-only,
# under the 9p tag "root" (make BASE=6.1).  6.1 strips "/dev/" from vng's
# root=/dev/root and looks for that tag, not vng's "/dev/root", so it
# mounts its root from the command line only with this.
if [ "${VM_ROOT_TAG:-0}" = 1 ]; then
	extra="${extra:+$extra }-fsdev local,id=roottag,path=/,security_model=none,readonly=on,multidevs=remap"
	extra+=" -device virtio-9p-pci,fsdev=roottag,mount_tag=root"
fi
# vng's --qemu-opts takes the rest of its command line: one word, last.
[ -n "$extra" ] && qemu_opt=(--qemu-opts="$extra")
# VM_INITRAMFS=1: boot through vng's initramfs, which mounts the 9p root
# itself.
initramfs=()
[ "${VM_INITRAMFS:-0}" = 1 ] && initramfs=(--force-initramfs)
# The root is the host's own, shared read-only, and the kernel mounts it
# with vng's options and cache=loose (the later rootflags= wins): the
# guest keeps the programs, libraries and Python modules it has read in
# its page cache instead of asking QEMU's 9p server again at every exec
# and import.  Nothing changes the root's files under a
# running guest (they write into --rwdir directories, which vng mounts
# uncached).  Not through the initramfs, which mounts the root with
# options of its own.  VM_ROOT_CACHE=0: the 9p default, no cache.
rootflags=
if [ "${VM_INITRAMFS:-0}" != 1 ] && [ "${VM_ROOT_CACHE:-1}" = 1 ]; then
	rootflags=" rootflags=version=9p2000.L,trans=virtio,access=any,msize=524288,cache=loose"
fi
# vng's standard output and error go through pipes: something under it
# opens its standard error again, with O_TRUNC, so that "make check > FILE
# 2>&1" lost everything written to FILE before the guest booted.
"$VNG" -r "$bzimage" "${kvm_opt[@]}" --force-9p "${initramfs[@]}" --cpus "$CPUS" --memory "$MEM" "${qemu_opt[@]}" \
	--append "root=/dev/root$rootflags${VM_APPEND:+ $VM_APPEND}" "${rw[@]}" --exec "$*" \
	2> >(cat >&2) | cat
exit "${PIPESTATUS[0]}"

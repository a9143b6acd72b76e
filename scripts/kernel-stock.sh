#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make kernel-stock`: the stock kernel, the base of the series without any
# of our patches (branch `base` of the assembled tree), built with the same
# config fragment as ours, for showing what a kernel without the series does
# with a configuration written for ours (`make check-stock`).  Options the
# base does not know (ours) are left out: olddefconfig drops them.
#
# usage: kernel-stock.sh KSRC KSRC_STOCK KOBJ_STOCK FRAGMENT...

set -euo pipefail

ksrc=$(realpath "$1")
stock=$2
kobj=$3
shift 3
JOBS=${JOBS:-$(nproc)}

if [ ! -e "$stock/.git" ]; then
	rm -rf "$stock"
	git -C "$ksrc" worktree prune
	git -C "$ksrc" worktree add -q --detach "$(realpath -m "$stock")" base
fi
git -C "$stock" checkout -q --detach base
stock=$(realpath "$stock")
mkdir -p "$kobj"
kobj=$(realpath "$kobj")
if [ ! -f "$kobj/.config" ] || [ "$(cat "$kobj/.fragments" 2>/dev/null)" != "$(cat "$@" | sha256sum)" ]; then
	make -s -C "$stock" O="$kobj" tinyconfig > /dev/null
	"$stock"/scripts/kconfig/merge_config.sh -m -O "$kobj" "$kobj/.config" "$@" > /dev/null
	make -s -C "$stock" O="$kobj" olddefconfig > /dev/null
	cat "$@" | sha256sum > "$kobj/.fragments"
fi
make -s -C "$stock" O="$kobj" -j"$JOBS" CC="ccache gcc" bzImage
echo "kernel-stock: $kobj/arch/x86/boot/bzImage ($(make -s -C "$stock" O="$kobj" kernelrelease), branch base: $(git -C "$stock" log -1 --format=%s))"

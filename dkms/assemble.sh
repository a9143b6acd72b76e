#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the DKMS source tree of srv6-oam's out-of-tree modules (stamp,
# ip6t_srh) from this repository, which keeps one copy of every source:
#
#   dkms/assemble.sh [--without-srh] [--linux-source TARBALL|DIR] OUTDIR
#
# OUTDIR is laid out as DKMS wants /usr/src/srv6-oam-VERSION/:
#
#   dkms.conf, Kbuild, compat.h,           from dkms/
#     ip6t_srh_dkms.c
#   net/stamp/*.[ch]                       the repository's net/stamp (6.12)
#   base-6.1/net/stamp/*.[ch]              the same as the 6.1 series has
#                                          them: kernel-series-6.1/tree/
#                                          and the net/stamp hunks of
#                                          kernel-series-6.1/*/base.diff
#   include/net/altmark.h                  the repository's, for its
#   include/uapi/linux/altmark.h             !CONFIG_IPV6_ALTMARK stubs
#   include/uapi/linux/stamp.h             the repository's
#   net/ipv6/netfilter/ip6t_srh.c          Debian's (linux-source-6.1 or
#   include/uapi/linux/netfilter_ipv6/       -6.12: the same file in both)
#     ip6t_srh.h                           with kernel-series/0004 and 0005
#   SOURCES                                where each file came from
#
# ip6t_srh.c is not in the headers packages, nor in this repository (it is
# the kernel's file, which the series patches): it is taken from a Debian
# linux-source tarball, the first of
#   --linux-source (or $LINUX_SOURCE): a .tar.xz or an unpacked tree
#   /usr/src/linux-source-6.12.tar.xz, /usr/src/linux-source-6.1.tar.xz
#     (apt-get install linux-source-6.12)
#   $CACHE_DIR/kernel/linux-source-*.tar.xz (what `make fetch` downloads;
#     CACHE_DIR defaults to ~/.cache/srv6-oam)
# and 0004 and 0005 must apply to it exactly (git apply: no fuzz).
# --without-srh leaves ip6t_srh out (and its entry out of dkms.conf).
#
# Then, for instance:
#   dkms/assemble.sh /usr/src/srv6-oam-1.0
#   dkms add srv6-oam/1.0 && dkms build srv6-oam/1.0 && dkms install srv6-oam/1.0

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
MARK=.srv6-oam-dkms

log() { printf 'assemble: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
usage() {
	echo "usage: $0 [--without-srh] [--linux-source TARBALL|DIR] OUTDIR" >&2
	exit 2
}

with_srh=1
linux_source=${LINUX_SOURCE:-}
while [ $# -gt 0 ]; do
	case $1 in
	--without-srh) with_srh=; shift ;;
	--linux-source) [ $# -ge 2 ] || usage; linux_source=$2; shift 2 ;;
	--linux-source=*) linux_source=${1#*=}; shift ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
OUT=$1

# ip6t_srh: Debian's file plus the series' 0004 and 0005.  Where they come
# from is settled before OUTDIR is touched.
find_linux_source() {
	local c
	if [ -n "$linux_source" ]; then
		[ -e "$linux_source" ] || die "no $linux_source"
		echo "$linux_source"
		return
	fi
	for c in /usr/src/linux-source-6.12.tar.xz /usr/src/linux-source-6.1.tar.xz \
		 "$CACHE_DIR"/kernel/linux-source-6.12-*.tar.xz \
		 "$CACHE_DIR"/kernel/linux-source-6.1-*.tar.xz; do
		[ -s "$c" ] && { echo "$c"; return; }
	done
	return 1
}

srh_c=net/ipv6/netfilter/ip6t_srh.c
srh_h=include/uapi/linux/netfilter_ipv6/ip6t_srh.h
srh_patches=()
if [ -n "$with_srh" ]; then
	for p in 0004 0005; do
		for o in "$TOP"/kernel-series-6.1/$p-*/{upstream.diff,base.diff,omit}; do
			die "${o#"$TOP"/}: the 6.1 series changes patch $p; assemble.sh builds one ip6t_srh for both kernels"
		done
		d=("$TOP"/kernel-series/$p-*/upstream.diff)
		[ ${#d[@]} -eq 1 ] || die "no kernel-series/$p-*/upstream.diff"
		srh_patches+=("${d[0]}")
	done
	ls=$(find_linux_source) ||
		die "no Debian linux-source tarball for ip6t_srh.c: apt-get install linux-source-6.12 (or -6.1), or pass --linux-source, or --without-srh"
fi

# Only an empty directory or one this script made is (re)filled, and
# only once the whole tree is made (in $tmp/out): a failure leaves it as
# it was.
if [ -e "$OUT" ]; then
	[ -d "$OUT" ] || die "$OUT is not a directory"
	[ -z "$(ls -A "$OUT")" ] || [ -e "$OUT/$MARK" ] ||
		die "$OUT is not empty and was not made by assemble.sh"
fi
DEST=$OUT

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# git apply works on plain files there, never in a repository around $tmp
export GIT_CEILING_DIRECTORIES=$tmp
OUT=$tmp/out
mkdir "$OUT"
touch "$OUT/$MARK"

rev=$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)
{
	echo "srv6-oam DKMS source tree, assembled by dkms/assemble.sh"
	echo "from the srv6-oam repository at $rev"
	echo
} > "$OUT/SOURCES"
src_note() { printf '%-48s %s\n' "$1" "$2" >> "$OUT/SOURCES"; }

# put SRC DEST-RELATIVE-PATH: a file of the repository into OUT
put() {
	install -D -m 644 "$TOP/$1" "$OUT/$2"
	src_note "$2" "${3:-$1}"
}

# The DKMS build files
put dkms/dkms.conf dkms.conf
put dkms/Kbuild Kbuild
put dkms/compat.h compat.h

# STAMP, 6.12: the repository's files as they are
stamp_files=()
for f in "$TOP"/net/stamp/*.c "$TOP"/net/stamp/*.h; do
	stamp_files+=("${f#"$TOP"/}")
done
[ ${#stamp_files[@]} -gt 0 ] || die "no net/stamp/*.[ch] in $TOP"
for f in "${stamp_files[@]}"; do
	put "$f" "$f"
done

# STAMP, 6.1: what the 6.1 series has instead.  Its new files are the
# repository's, or kernel-series-6.1/tree/PATH where that base has its
# own, then the base.diff hunks of its patches, in their order.
mkdir -p "$tmp/6.1/net/stamp"
for f in "${stamp_files[@]}"; do
	if [ -e "$TOP/kernel-series-6.1/tree/$f" ]; then
		cp "$TOP/kernel-series-6.1/tree/$f" "$tmp/6.1/$f"
		src_note "base-6.1/$f" "kernel-series-6.1/tree/$f"
	else
		cp "$TOP/$f" "$tmp/6.1/$f"
		src_note "base-6.1/$f" "$f"
	fi
done
for d in "$TOP"/kernel-series-6.1/[0-9]*/; do
	bd=${d}base.diff
	[ -e "$bd" ] && grep -q '^+++ b/net/stamp/' "$bd" || continue
	git -C "$tmp/6.1" apply -p1 --include='net/stamp/*' "$bd" ||
		die "${bd#"$TOP"/} does not apply to the repository's net/stamp"
	src_note "base-6.1/net/stamp (hunks)" "${bd#"$TOP"/}"
done
for f in "${stamp_files[@]}"; do
	install -D -m 644 "$tmp/6.1/$f" "$OUT/base-6.1/$f"
done

# What net/stamp includes that stock headers lack
put include/uapi/linux/stamp.h include/uapi/linux/stamp.h
put include/net/altmark.h include/net/altmark.h
put include/uapi/linux/altmark.h include/uapi/linux/altmark.h

if [ -n "$with_srh" ]; then
	mkdir -p "$tmp/srh"
	if [ -d "$ls" ]; then
		for f in $srh_c $srh_h; do
			install -D -m 644 "$ls/$f" "$tmp/srh/$f"
		done
	else
		log "taking $srh_c from $ls"
		tar -xJf "$ls" -C "$tmp/srh" --strip-components=1 \
			--wildcards "*/$srh_c" "*/$srh_h"
	fi
	for f in $srh_c $srh_h; do
		[ -s "$tmp/srh/$f" ] || die "$ls has no $f"
	done
	for p in "${srh_patches[@]}"; do
		git -C "$tmp/srh" apply -p1 "$p" ||
			die "${p#"$TOP"/} does not apply to $ls's ip6t_srh"
	done
	for f in $srh_c $srh_h; do
		install -D -m 644 "$tmp/srh/$f" "$OUT/$f"
		src_note "$f" "$(basename "$ls") + ${srh_patches[*]#"$TOP"/}"
	done
	put dkms/ip6t_srh_dkms.c ip6t_srh_dkms.c
else
	sed -i '/^# srh-begin/,/^# srh-end/d' "$OUT/dkms.conf"
	src_note "(ip6t_srh left out: --without-srh)" ""
fi

mkdir -p "$DEST"
find "$DEST" -mindepth 1 -delete
cp -R "$OUT"/. "$DEST"/
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$DEST/dkms.conf")
log "assembled srv6-oam $ver in $DEST (modules: stamp${with_srh:+ ip6t_srh})"

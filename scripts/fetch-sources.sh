#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the base sources of srv6-oam from Debian's registry, and from
# nowhere else:
#   - the kernel: the linux-source-6.12 binary package (whatever 6.12.y the
#     registry serves), which carries the tarball /usr/src/linux-source-6.12.tar.xz;
#     and, for the other bases of the series (BASE, see below), the kernel
#     of that base;
#   - iproute2, iptables and ipset: `apt-get source` from bookworm;
#   - QEMU's TCG plugin API header (include/qemu/qemu-plugin.h), for the
#     bench's instruction counter (bench/insn.c): from `apt-get source qemu`,
#     the source of the qemu-system-x86 we boot the guest with.
#
# Everything is kept in $CACHE_DIR so that a second run fetches nothing.
# The versions we got are recorded in $CACHE_DIR/versions.env.
#
# BASE names the kernel the series is applied to (make BASE=...):
#   6.12          Debian's linux-source-6.12 (the default, the one above)
#   6.12-vanilla  upstream 6.12.y as Debian ships it: the orig tarball of
#                 the source package linux of bookworm-backports, version
#                 $VANILLA_VERSION (apt-get source; Debian's own patches,
#                 its debian.tar.xz, are left out).  Not 6.12.117: the
#                 registry serves no source of bookworm-security's
#                 linux-6.12 (404), nor of trixie's linux, and
#                 6.12.95-1~bpo12+1 is the newest of bookworm-backports
#                 that it serves
#   6.1           Debian bookworm's own kernel: linux-source-6.1
# The kernel of a base other than 6.12 is recorded in
# $CACHE_DIR/base-$BASE.env (KERNEL_DEB_VERSION, KERNEL_TARBALL,
# KERNEL_DESC), the file scripts/kernel-tree.sh reads for it.
#
# The system's apt configuration is not changed.  The source packages are
# found through an apt configuration of our own, $CACHE_DIR/apt: a deb-src
# entry for bookworm, bookworm-updates, bookworm-backports and bookworm-security
# ($DEBIAN_MIRROR, $DEBIAN_SECURITY_MIRROR) and its own package lists and
# cache, given to apt-get with -o Dir::Etc::SourceList, SourceParts,
# Dir::State::Lists and Dir::Cache; the rest of the system's configuration
# (apt.conf.d: proxies and the like) still applies.  No root is needed for
# that part.  The kernel is a binary package: `apt-get download` with the
# system's configuration, as `make deps` installs packages.

set -euo pipefail

CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
KERNEL_PKG=${KERNEL_PKG:-linux-source-6.12}
BASE=${BASE:-6.12}
VANILLA_VERSION=${VANILLA_VERSION:-6.12.95-1~bpo12+1}
# Debian bookworm's userspace, pinned: the series are made against these.
USERSPACE_PKGS=${USERSPACE_PKGS:-"iproute2=6.1.0-3 iptables=1.8.9-2 ipset=7.17-1"}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
APT_DIR=$CACHE_DIR/apt
# What earlier versions of this script added to the system's configuration.
OLD_SRC_LIST=/etc/apt/sources.list.d/srv6-oam-bookworm-src.sources

log() { printf 'fetch: %s\n' "$*" >&2; }

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# apt-get with our own sources, lists and cache, for source packages.
# Run as root, apt would download as its sandbox user _apt, who may not
# write into $CACHE_DIR in root's home directory: download as root then (apt
# would fall back to it anyway, with a warning).
src_apt() {
	local sandbox=()
	[ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
	apt-get -o Dir::Etc::SourceList="$APT_DIR/sources.list" \
		-o Dir::Etc::SourceParts="$APT_DIR/sources.list.d" \
		-o Dir::State::Lists="$APT_DIR/lists" \
		-o Dir::Cache="$APT_DIR/cache" \
		"${sandbox[@]}" "$@"
}

# Write our apt configuration, and download its package lists (the Sources
# indices only) once per run, the first time a source package is needed.
src_apt_ready=
ensure_src_apt() {
	local sources=$APT_DIR/sources.list.d/bookworm-src.sources
	[ -n "$src_apt_ready" ] && return
	mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" \
		"$APT_DIR/cache/archives/partial"
	: > "$APT_DIR/sources.list"
	cat > "$sources.tmp" <<-EOT
	# srv6-oam (scripts/fetch-sources.sh): source packages of Debian
	# bookworm (backports: for the orig tarball of upstream 6.12.y),
	# for apt-get source with this directory's configuration only; the
	# system's apt configuration does not include it.
	Types: deb-src
	URIs: $DEBIAN_MIRROR
	Suites: bookworm bookworm-updates bookworm-backports
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb-src
	URIs: $DEBIAN_SECURITY_MIRROR
	Suites: bookworm-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOT
	mv "$sources.tmp" "$sources"
	log "source package lists of bookworm into $APT_DIR (the system's apt configuration is not changed)"
	src_apt update -q >&2
	src_apt_ready=1
	if [ -e "$OLD_SRC_LIST" ]; then
		log "note: $OLD_SRC_LIST was added by an earlier srv6-oam and is no longer used; it can be removed (then apt-get update)"
	fi
}

# fetch_kernel PKG: the binary package PKG (linux-source-X.Y) and the
# tarball it carries.
fetch_kernel() {
	local pkg=$1 dir=$CACHE_DIR/kernel deb ver
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n 1)
	if [ -z "$deb" ]; then
		log "downloading $pkg from Debian"
		[ -n "$(apt-cache policy "$pkg" 2>/dev/null | grep Candidate)" ] ||
			$SUDO apt-get update -q >&2
		(cd "$dir" && apt-get download -q "$pkg" >&2)
		deb=$(find "$dir" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n 1)
	fi
	[ -n "$deb" ] || { log "no $pkg package"; exit 1; }
	ver=$(dpkg-deb -f "$deb" Version)
	if [ ! -s "$dir/$pkg-$ver.tar.xz" ]; then
		log "extracting the tarball of $pkg $ver"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$pkg.tar.xz" > "$dir/tmp.tar.xz"
		mv "$dir/tmp.tar.xz" "$dir/$pkg-$ver.tar.xz"
	fi
	echo "KERNEL_DEB_VERSION=$ver"
	echo "KERNEL_TARBALL=$dir/$pkg-$ver.tar.xz"
	echo "KERNEL_DESC=Debian's $pkg $ver"
}

# fetch_orig SRCPKG VERSION: the orig tarball (upstream's tree) of the
# Debian source package SRCPKG=VERSION, by apt-get source --download-only.
fetch_orig() {
	local srcpkg=$1 ver=$2 dir=$CACHE_DIR/kernel upver orig
	upver=${ver#*:}
	upver=${upver%-*}
	orig=$dir/${srcpkg}_$upver.orig.tar.xz
	if [ ! -s "$orig" ]; then
		ensure_src_apt
		log "downloading the source of $srcpkg $ver from Debian (for its orig tarball)"
		(cd "$dir" && src_apt source -q --download-only "$srcpkg=$ver" >&2)
	fi
	[ -s "$orig" ] || { log "no $orig"; exit 1; }
	echo "KERNEL_DEB_VERSION=$upver"
	echo "KERNEL_TARBALL=$orig"
	echo "KERNEL_DESC=upstream $upver, Debian's orig tarball $(basename "$orig")"
}

fetch_userspace() {
	local dir=$CACHE_DIR/userspace spec pkg ver dsc
	mkdir -p "$dir"
	for spec in $USERSPACE_PKGS; do
		pkg=${spec%%=*}
		ver=${spec#*=}
		dsc=$dir/${pkg}_${ver#*:}.dsc
		if [ ! -s "$dsc" ]; then
			ensure_src_apt
			log "downloading the source of $pkg $ver from Debian"
			(cd "$dir" && src_apt source -q --download-only "$pkg=$ver" >&2)
		fi
		[ -s "$dsc" ] || { log "no $dsc"; exit 1; }
		echo "$(echo "$pkg" | tr a-z0-9 A-Z0-9)_DSC=$dsc"
	done
}

# The plugin API header of the QEMU that runs the guest: a plugin must be
# built against the API version of the QEMU that loads it.  Only the header
# is kept (the source package is 24 MB); Debian's patches are applied to the
# whole tree first, in case one of them touches it.
fetch_qemu() {
	local dir=$CACHE_DIR/qemu ver hdr tmp
	ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
		{ log "qemu-system-x86 is not installed (make deps)"; exit 1; }
	hdr=$dir/${ver#*:}/qemu-plugin.h
	if [ ! -s "$hdr" ]; then
		ensure_src_apt
		mkdir -p "$dir/${ver#*:}"
		tmp=$(mktemp -d "$dir/src.XXXXXX")
		log "downloading the source of qemu $ver from Debian (for qemu-plugin.h)"
		(cd "$tmp" && src_apt source -q --download-only "qemu=$ver" >&2 &&
			dpkg-source --no-check -x ./*.dsc src >&2)
		cp "$tmp/src/include/qemu/qemu-plugin.h" "$hdr.tmp"
		mv "$hdr.tmp" "$hdr"
		rm -rf "$tmp"
	fi
	echo "QEMU_PLUGIN_H=$hdr"
}

mkdir -p "$CACHE_DIR"
# Written under a name of this process's own, then renamed: a make of
# another base may run this at the same time (.ci/run builds 6.1 beside
# 6.12), and readers only ever see a whole file.
{
	fetch_kernel "$KERNEL_PKG"
	fetch_userspace
	fetch_qemu
} > "$CACHE_DIR/versions.env.$$"
mv "$CACHE_DIR/versions.env.$$" "$CACHE_DIR/versions.env"
cat "$CACHE_DIR/versions.env"

case $BASE in
6.12) ;;
6.12-vanilla)
	fetch_orig linux "$VANILLA_VERSION" > "$CACHE_DIR/base-$BASE.env.$$" ;;
6.1)
	fetch_kernel linux-source-6.1 > "$CACHE_DIR/base-$BASE.env.$$" ;;
*)
	log "unknown BASE=$BASE (6.12, 6.12-vanilla or 6.1)"
	exit 1 ;;
esac
if [ "$BASE" != 6.12 ]; then
	mv "$CACHE_DIR/base-$BASE.env.$$" "$CACHE_DIR/base-$BASE.env"
	sed "s/^/BASE $BASE: /" "$CACHE_DIR/base-$BASE.env"
fi

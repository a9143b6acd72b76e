#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the base sources of srv6-oam from Debian's registry, and from
# nowhere else:
#   - the kernel: the linux-source-6.12 binary package (whatever 6.12.y the
#     registry serves), which carries the tarball /usr/src/linux-source-6.12.tar.xz;
#   - iproute2, iptables and ipset: `apt-get source` from bookworm;
#   - QEMU's TCG plugin API header (include/qemu/qemu-plugin.h), for the
#     bench's instruction counter (bench/insn.c): from `apt-get source qemu`,
#     the source of the qemu-system-x86 we boot the guest with.
#
# Everything is kept in $CACHE_DIR so that a second run fetches nothing.
# The versions we got are recorded in $CACHE_DIR/versions.env.
#
# The system's apt configuration is not changed.  The source packages are
# found through an apt configuration of our own, $CACHE_DIR/apt: a deb-src
# entry for bookworm, bookworm-updates and bookworm-security
# ($DEBIAN_MIRROR, $DEBIAN_SECURITY_MIRROR) and its own package lists and
# cache, given to apt-get with -o Dir::Etc::SourceList, SourceParts,
# Dir::State::Lists and Dir::Cache; the rest of the system's configuration
# (apt.conf.d: proxies and the like) still applies.  No root is needed for
# that part.  The kernel is a binary package: `apt-get download` with the
# system's configuration, as `make deps` installs packages.

set -euo pipefail

CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
KERNEL_PKG=${KERNEL_PKG:-linux-source-6.12}
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
	# bookworm, for apt-get source with this directory's configuration
	# only; the system's apt configuration does not include it.
	Types: deb-src
	URIs: $DEBIAN_MIRROR
	Suites: bookworm bookworm-updates
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

fetch_kernel() {
	local dir=$CACHE_DIR/kernel deb ver
	mkdir -p "$dir"
	deb=$(find "$dir" -maxdepth 1 -name "${KERNEL_PKG}_*.deb" | sort -V | tail -n 1)
	if [ -z "$deb" ]; then
		log "downloading $KERNEL_PKG from Debian"
		[ -n "$(apt-cache policy "$KERNEL_PKG" 2>/dev/null | grep Candidate)" ] ||
			$SUDO apt-get update -q >&2
		(cd "$dir" && apt-get download -q "$KERNEL_PKG" >&2)
		deb=$(find "$dir" -maxdepth 1 -name "${KERNEL_PKG}_*.deb" | sort -V | tail -n 1)
	fi
	[ -n "$deb" ] || { log "no $KERNEL_PKG package"; exit 1; }
	ver=$(dpkg-deb -f "$deb" Version)
	if [ ! -s "$dir/$KERNEL_PKG-$ver.tar.xz" ]; then
		log "extracting the tarball of $KERNEL_PKG $ver"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/$KERNEL_PKG.tar.xz" > "$dir/tmp.tar.xz"
		mv "$dir/tmp.tar.xz" "$dir/$KERNEL_PKG-$ver.tar.xz"
	fi
	echo "KERNEL_DEB_VERSION=$ver"
	echo "KERNEL_TARBALL=$dir/$KERNEL_PKG-$ver.tar.xz"
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
{
	fetch_kernel
	fetch_userspace
	fetch_qemu
} > "$CACHE_DIR/versions.env.tmp"
mv "$CACHE_DIR/versions.env.tmp" "$CACHE_DIR/versions.env"
cat "$CACHE_DIR/versions.env"

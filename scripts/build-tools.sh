#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the patched userspace into a private prefix, never over the host's
# binaries: iproute2 (ip, tc, bridge), iptables (legacy and nft backends) and
# ipset, each from Debian bookworm's source package plus this repository's
# format-patch series (<pkg>-patches/*.patch, applied in order with git am).
#
# usage: build-tools.sh PREFIX [PKG...]     (default: iproute2 iptables ipset)

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
SRC=${USRC:-$TOP/build/src}
PREFIX=$(mkdir -p "$1" && realpath "$1")
shift
PKGS=${*:-iproute2 iptables ipset}
JOBS=${JOBS:-$(nproc)}

export GIT_AUTHOR_NAME=${SERIES_AUTHOR_NAME:-"srv6-oam developers"}
export GIT_AUTHOR_EMAIL=${SERIES_AUTHOR_EMAIL:-"srv6-oam@lists.invalid"}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_COMMITTER_DATE="2026-11-23T00:00:00+00:00"

log() { printf 'build-tools: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Unpack the Debian source package (Debian's own patches applied) into a git
# repository whose first commit is the Debian source, then git am our series.
# The tree is made again only when the series changed.
prepare() {
	local pkg=$1 dsc dir stamp want
	dsc=$(sed -n "s/^$(echo "$pkg" | tr a-z A-Z)_DSC=//p" "$CACHE_DIR/versions.env")
	[ -s "$dsc" ] || die "no source for $pkg: run 'make fetch' first"
	dir=$SRC/$pkg
	stamp=$dir/.git/srv6-oam-series
	want=$( (basename "$dsc"; cat /dev/null "$TOP/$pkg-patches"/*.patch) | sha256sum | cut -d' ' -f1)
	if [ -d "$dir/.git" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		return
	fi
	log "unpacking $(basename "$dsc") and applying $pkg-patches/"
	rm -rf "$dir"
	mkdir -p "$SRC"
	dpkg-source --no-check -q -x "$dsc" "$dir" > /dev/null
	rm -rf "$dir/.pc"
	git -C "$dir" init -q -b debian
	git -C "$dir" add -A -f .
	git -C "$dir" commit -q -m "$(basename "$dsc" .dsc): Debian source, Debian patches applied"
	for p in "$TOP/$pkg-patches"/*.patch; do
		git -C "$dir" am -q --whitespace=error-all "$p" ||
			die "$(basename "$p") does not apply to $pkg"
	done
	echo "$want" > "$stamp"
	rm -f "$dir/.srv6-oam-built"
}

build_iproute2() {
	local dir=$SRC/iproute2
	(
		cd "$dir"
		[ -f config.mk ] || ./configure --libbpf_force=off > /dev/null
		# man/man8: ip-address.8, ip-link.8, ip-netns.8 and ip-route.8
		# are made from their .in there, with the paths the binaries
		# are built with (@SYSCONFDIR@, @NETNS_RUN_DIR@, ...) put in
		# from the variables of the top Makefile.  (Not "man": its
		# Makefile has a SUBDIRS of its own, which ours would override.)
		make -s -j"$JOBS" SUBDIRS="lib ip tc bridge man/man8" > /dev/null
	)
	install -D -m 0755 "$dir/ip/ip" "$PREFIX/sbin/ip"
	install -D -m 0755 "$dir/tc/tc" "$PREFIX/sbin/tc"
	install -D -m 0755 "$dir/bridge/bridge" "$PREFIX/sbin/bridge"
	install -d "$PREFIX/share/man/man8"
	install -m 0644 "$dir"/man/man8/ip-*.8 "$dir"/man/man8/ip.8 \
		"$PREFIX/share/man/man8/"
}

build_autotools() {
	local pkg=$1 dir=$SRC/$1 logf=$SRC/$1.log
	shift
	(
		set -e
		cd "$dir"
		if [ ! -f Makefile ]; then
			autoreconf -fi
			./configure --prefix="$PREFIX" "$@"
		fi
		make -j"$JOBS"
		make install
	) > "$logf" 2>&1 || { tail -n 30 "$logf" >&2; die "building $pkg failed, see $logf"; }
}

# A package is built and installed again when its tree was made again, or
# when this script changed since it was last built (FORCE=1: always).
script_sum=$(sha256sum < "$0" | cut -d' ' -f1)
for pkg in $PKGS; do
	prepare "$pkg"
	[ "$(cat "$SRC/$pkg/.srv6-oam-built" 2>/dev/null)" = "$script_sum" ] &&
		[ "${FORCE:-0}" = 0 ] && continue
	log "building $pkg into $PREFIX"
	case $pkg in
	iproute2) build_iproute2 ;;
	iptables) build_autotools iptables ;;
	ipset) build_autotools ipset --with-kmod=no ;;
	*) die "unknown package $pkg" ;;
	esac
	echo "$script_sum" > "$SRC/$pkg/.srv6-oam-built"
done

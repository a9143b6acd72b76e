#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check Debian's symbols file of libipset (debian/libipset13.symbols, as
# ipset-patches/0002 amends it) against the libipset we built and
# installed under a prefix (make tools runs it on build/prefix), as the
# package build would: dpkg-gensymbols at check level 4 fails when the
# library exports a symbol or a version node that the file does not list
# (hash:sr6's LIBIPSET_4.13, ipset_parse_sid_list, ipset_print_sid_list),
# when the file lists one that the library does not export, or when the
# library's SONAME is not the file's; and the file it writes back must be
# the file itself, unchanged.  The version given is the one a package of
# these sources would have, the one 0002 lists the new symbols with.
#
# usage: check-ipset-symbols.sh PREFIX [SRCDIR]   (SRCDIR: build/src/ipset)

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:?usage: check-ipset-symbols.sh PREFIX [SRCDIR]}
src=${2:-${USRC:-$TOP/build/src}/ipset}
version=7.17-1+srv6oam1

log() { printf 'check-ipset-symbols: %s\n' "$*" >&2; }

command -v dpkg-gensymbols > /dev/null ||
	{ log "no dpkg-gensymbols (make deps: dpkg-dev)"; exit 1; }
symbols=$src/debian/libipset13.symbols
[ -f "$symbols" ] || { log "no $symbols (make tools)"; exit 1; }
lib=$(readlink -f "$prefix/lib/libipset.so.13") ||
	{ log "no $prefix/lib/libipset.so.13 (make tools)"; exit 1; }
[ -f "$lib" ] || { log "no $prefix/lib/libipset.so.13 (make tools)"; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0
# dpkg-gensymbols reads debian/control and debian/changelog of the
# current directory: the source's.
(cd "$src" && dpkg-gensymbols -plibipset13 -v"$version" -e"$lib" \
	-I"$symbols" -O"$out" -c4) >&2 || rc=$?
if [ "$rc" != 0 ]; then
	log "dpkg-gensymbols -c4 fails (exit status $rc): $symbols does not match $lib"
	exit 1
fi
if ! diff -u "$symbols" "$out" >&2; then
	log "dpkg-gensymbols writes $symbols back changed (above)"
	exit 1
fi
log "$(grep -c "^ " "$symbols") symbols and version nodes of $(basename "$lib"): debian/libipset13.symbols matches"

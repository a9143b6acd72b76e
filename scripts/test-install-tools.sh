#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of `make install-tools` (make check-host; no guest, no
# privileges): `make install-tools DESTDIR=$tmp prefix=/usr`, as a
# packager types it, must install stamp-sender, pfplm, the STAMP codec they
# share and stamp-sender(1) under $tmp/usr, as copies of this tree's files,
# and nothing where a system keeps them (/usr itself) nor in this tree; the
# installed commands must run from there (--version, which needs the codec
# installed beside them: they import it before parsing the command line).
#
# Prints TEST: lines like the other host tests.  Exit 0 when every check
# passed, 1 otherwise.

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
prefix=/usr
# shellcheck source=scripts/hosttest.sh
. "$TOP/scripts/hosttest.sh"

# What a system has where an install that ignored DESTDIR would write.
system_state() {
	local p
	for p in bin/stamp-sender bin/pfplm lib/srv6-oam share/man/man1/stamp-sender.1 \
		share/man/man8/pfplm.8 share/doc/srv6-oam; do
		stat -c '%n %i %Y %Z' "$prefix/$p" 2> /dev/null || echo "$prefix/$p absent"
	done
}

tree_state() {
	git -C "$TOP" status --porcelain --ignored=matching --untracked-files=all \
		-- . ':!build' 2> /dev/null
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/install-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

sys_before=$(system_state)
tree_before=$(tree_state)
# As from a shell: nothing of an enclosing make (make check-host) passed on.
out=$(cd "$TOP" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX \
	make --no-print-directory install-tools DESTDIR="$dest" prefix="$prefix" 2>&1)
rc=$?
check "make install-tools DESTDIR=\$tmp prefix=$prefix exits 0" \
	"$([ "$rc" = 0 ] && echo 1)" "$out"

root=$dest$prefix
bad=
for f in lib/srv6-oam/stamp-sender:stamp-sender/stamp-sender \
	lib/srv6-oam/pfplm:pfplm/pfplm \
	lib/srv6-oam/srv6_oam/__init__.py:python/srv6_oam/__init__.py \
	lib/srv6-oam/srv6_oam/stamp_wire.py:python/srv6_oam/stamp_wire.py \
	lib/srv6-oam/srv6_oam/plm.py:python/srv6_oam/plm.py \
	lib/srv6-oam/srv6_oam/altmark_nl.py:python/srv6_oam/altmark_nl.py \
	share/man/man1/stamp-sender.1:stamp-sender/stamp-sender.1 \
	share/man/man8/pfplm.8:pfplm/pfplm.8; do
	if [ ! -f "$root/${f%%:*}" ]; then
		bad+="$prefix/${f%%:*}: not installed"$'\n'
	elif ! cmp -s "$root/${f%%:*}" "$TOP/${f#*:}"; then
		bad+="$prefix/${f%%:*}: not a copy of ${f#*:}"$'\n'
	fi
done
for f in lib/srv6-oam/stamp-sender lib/srv6-oam/pfplm; do
	[ ! -f "$root/$f" ] || [ -x "$root/$f" ] || bad+="$prefix/$f: not executable"$'\n'
done
[ ! -e "$root/lib/srv6-oam/srv6_oam/hosttest.py" ] ||
	bad+="$prefix/lib/srv6-oam/srv6_oam/hosttest.py: the host tests' module installed"$'\n'
check "stamp-sender, pfplm, the srv6_oam package, their man pages in \$tmp$prefix" \
	"$([ -z "$bad" ] && echo 1)" "$bad"

bad=
for c in stamp-sender pfplm; do
	link=$root/bin/$c
	if [ ! -L "$link" ]; then
		bad+="$prefix/bin/$c: not a symbolic link"$'\n'
	elif [ "$(readlink -f "$link")" != "$(readlink -f "$root/lib/srv6-oam/$c")" ]; then
		bad+="$prefix/bin/$c -> $(readlink "$link"): not the installed $c"$'\n'
	fi
done
check "\$tmp$prefix/bin/stamp-sender and pfplm point into \$tmp$prefix/lib" \
	"$([ -z "$bad" ] && echo 1)" "$bad"

outside=$([ -d "$dest" ] && cd "$dest" && find . -mindepth 1 ! -path ".$prefix" ! -path ".$prefix/*" \
	! -path ".${prefix%/*}" | sed 's|^\.||')
check "nothing in \$tmp outside \$tmp$prefix (prefix=$prefix is used)" \
	"$([ -z "$outside" ] && echo 1)" "$outside"

sys_after=$(system_state)
tree_after=$(tree_state)
check "nothing installed in $prefix itself, nothing written in the tree" \
	"$([ "$sys_before" = "$sys_after" ] && [ "$tree_before" = "$tree_after" ] && echo 1)" \
	"$(diff <(echo "$sys_before"; echo "$tree_before") <(echo "$sys_after"; echo "$tree_after"))"

# From elsewhere than the tree, with no PYTHONPATH and no bytecode
# written: the commands find their codec where they are installed.
for c in stamp-sender pfplm; do
	want="$c $(sed -n 's/^VERSION = "\(.*\)"$/\1/p' "$TOP/$c/$c")"
	got=$(cd / && env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "$root/bin/$c" --version 2>&1)
	check "installed $c --version runs from \$tmp$prefix/bin" \
		"$([ "$got" = "$want" ] && echo 1)" "expected: $want"$'\n'"got: $got"
	# and in the source tree, through the symbolic link srv6_oam beside it
	got=$(cd / && env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "$TOP/$c/$c" --version 2>&1)
	check "$c --version runs from the source tree" \
		"$([ "$got" = "$want" ] && echo 1)" "expected: $want"$'\n'"got: $got"
done
# The bench's PF-PLM configuration loads pfplm from bench/cfg, whose
# Python then looks for srv6_oam there (the link beside plm.py): python3
# -c searches the working directory first, as python3 plm.py searches
# plm.py's.
got=$(cd "$TOP/bench/cfg" && env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 \
	python3 -c 'import plm; print(plm.load_pfplm().VERSION)' 2>&1)
check "bench/cfg/plm.py loads pfplm from the source tree" \
	"$([ "$got" = "$(sed -n 's/^VERSION = "\(.*\)"$/\1/p' "$TOP/pfplm/pfplm")" ] && echo 1)" "$got"

exit "$failed"

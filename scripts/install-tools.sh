#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install srv6-oam's user-space tools: stamp-sender, pfplm and the codecs
# they share (the srv6_oam package) in DEST/lib/srv6-oam, with commands in
# DEST/bin, stamp-sender's man page in DEST/share/man/man1 and the tools'
# documentation in DEST/share/doc/srv6-oam.
#
# usage: install-tools.sh DEST      (e.g. /usr/local, or $DESTDIR/usr)

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: install-tools.sh DEST}
lib=$dest/lib/srv6-oam

install -d "$lib/srv6_oam" "$dest/bin" "$dest/share/doc/srv6-oam" \
	"$dest/share/man/man1"
# hosttest.py is the host tests' (make check-host), not the tools'.
for f in "$TOP"/python/srv6_oam/*.py; do
	[ "${f##*/}" = hosttest.py ] || install -C -m 644 "$f" "$lib/srv6_oam/"
done
# The codec's file before it became the srv6_oam package.
rm -f "$lib/stamp_wire.py"
install -C -m 755 "$TOP/stamp-sender/stamp-sender" "$TOP/pfplm/pfplm" "$lib/"
install -C -m 644 "$TOP/stamp-sender/stamp-sender.1" "$dest/share/man/man1/"
install -C -m 644 "$TOP/stamp-sender/README.md" \
	"$dest/share/doc/srv6-oam/stamp-sender.md"
install -C -m 644 "$TOP/pfplm/README.md" "$dest/share/doc/srv6-oam/pfplm.md"
install -C -m 644 "$TOP/pfplm/pfplm.conf.example" "$dest/share/doc/srv6-oam/"
# -C and the test before ln: what is already in place is left alone (make
# check-6.1 runs make tools while .ci/run's make check uses these).
for t in stamp-sender pfplm; do
	[ "$(readlink "$dest/bin/$t")" = "../lib/srv6-oam/$t" ] ||
		ln -sfn ../lib/srv6-oam/$t "$dest/bin/$t"
done
echo "install-tools: stamp-sender, pfplm in $dest/bin"

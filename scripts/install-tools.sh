#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install srv6-oam's user-space tools: stamp-sender, pfplm and the codecs
# they share (the srv6_oam package) in DEST/lib/srv6-oam, with commands in
# DEST/bin, their man pages in DEST/share/man (stamp-sender(1), pfplm(8))
# and the tools' documentation and pfplm's example configurations in
# DOCDIR (default DEST/share/doc/srv6-oam; the Debian package's is its
# own, debian/rules).
#
# usage: [DOCDIR=DIR] install-tools.sh DEST   (e.g. /usr/local, $DESTDIR/usr)

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: install-tools.sh DEST}
lib=$dest/lib/srv6-oam
doc=${DOCDIR:-$dest/share/doc/srv6-oam}

install -d "$lib/srv6_oam" "$dest/bin" "$doc/examples" \
	"$dest/share/man/man1" "$dest/share/man/man8"
# hosttest.py is the host tests' (make check-host), not the tools'.
for f in "$TOP"/python/srv6_oam/*.py; do
	[ "${f##*/}" = hosttest.py ] || install -C -m 644 "$f" "$lib/srv6_oam/"
done
# The codec's file before it became the srv6_oam package.
rm -f "$lib/stamp_wire.py"
install -C -m 755 "$TOP/stamp-sender/stamp-sender" "$TOP/pfplm/pfplm" "$lib/"
install -C -m 644 "$TOP/stamp-sender/stamp-sender.1" "$dest/share/man/man1/"
install -C -m 644 "$TOP/pfplm/pfplm.8" "$dest/share/man/man8/"
install -C -m 644 "$TOP/stamp-sender/README.md" "$doc/stamp-sender.md"
install -C -m 644 "$TOP/pfplm/README.md" "$doc/pfplm.md"
install -C -m 644 "$TOP"/pfplm/examples/*.conf "$doc/examples/"
# The example's file before they were split by role.
rm -f "$doc/pfplm.conf.example"
# -C and the test before ln: what is already in place is left alone (make
# check-6.1 runs make tools while .ci/run's make check uses these).
for t in stamp-sender pfplm; do
	[ "$(readlink "$dest/bin/$t")" = "../lib/srv6-oam/$t" ] ||
		ln -sfn ../lib/srv6-oam/$t "$dest/bin/$t"
done
echo "install-tools: stamp-sender, pfplm in $dest/bin"

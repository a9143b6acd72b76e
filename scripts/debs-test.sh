#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make debs-check: install the packages of make debs into a bookworm root
# the way a user does, and test them there under our kernel.
#
#   1. a minimal bookworm root (debootstrap --variant=minbase from the
#      registry, kept as a tarball in $CACHE_DIR), unpacked afresh, with
#      the test's own tools from Debian (jq, iputils-ping, procps);
#   2. apt-get install ./*.deb of everything in DEBS/SHIP, dependencies
#      resolved by apt from the registry (nothing from build/prefix),
#      with Debian's own kernel and its headers (linux-image-amd64,
#      linux-headers-amd64), for which srv6-oam-dkms's installation has
#      dkms build and install its modules, in the root;
#   3. the guest of BZIMAGE chroots into that root and runs
#      scripts/guest-debs.sh there (ip stamp, --srh-sid-list and hash:sr6
#      through save and restore, pfplm as its unit runs it);
#      with KERNEL_DEBS=DIR (make debs-check DEB_KERNEL=1: make
#      deb-kernel's packages), the linux-image package of DIR is installed
#      too, and the guest boots the kernel it put in the root's /boot,
#      with the root's /lib/modules as the guest's: the features that are
#      modules there (STAMP, the srh match, hash:sr6) are loaded from the
#      package by the kernel's own autoloading;
#   3b. a second guest boots Debian's kernel from the root's /boot
#      (through vng's initramfs, with the root's modules: Debian builds
#      virtio and 9p as modules) and runs guest-debs.sh with STOCK=1
#      there: the same features from the DKMS modules, hash:sr6 refused;
#   4. apt-get purge of our packages and of what apt installed for them:
#      the root's packages and files are those of step 1 again (logs and
#      apt's and dpkg's own records aside).
#
# usage: debs-test.sh BZIMAGE DEBS WORK

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
bzimage=$1
debs=$(realpath "$2")
work=$(mkdir -p "$3" && realpath "$3")
root=$work/root
tarball=$CACHE_DIR/bookworm-minbase.tar
MIRROR=http://deb.debian.org/debian

log() { printf 'debs-test: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[ -s "$debs/SHIP" ] || die "no $debs/SHIP: run make debs first"
command -v debootstrap > /dev/null ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap > /dev/null

mounted=()
cleanup() {
	local m
	for m in "${mounted[@]}"; do umount -l "$m" 2> /dev/null || true; done
}
trap cleanup EXIT
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C "$@"
}

if [ ! -s "$tarball" ]; then
	log "debootstrap --variant=minbase bookworm (cached in $tarball)"
	rm -rf "$work/bootstrap"
	debootstrap --variant=minbase bookworm "$work/bootstrap" "$MIRROR" \
		> "$work/debootstrap.log" 2>&1 ||
		die "debootstrap failed: $(tail -n 5 "$work/debootstrap.log")"
	mkdir -p "$CACHE_DIR"
	tar -C "$work/bootstrap" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -rf "$work/bootstrap"
fi
rm -rf "$root" "$work/ship"
mkdir -p "$root"
tar -C "$root" -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")

log "the test's tools from Debian: jq, iputils-ping, procps"
in_root apt-get update -q > "$work/apt.log" 2>&1 ||
	die "apt-get update: $(tail -n 5 "$work/apt.log")"
in_root apt-get install -y -q --no-install-recommends jq iputils-ping procps \
	>> "$work/apt.log" 2>&1 || die "apt-get install jq: $(tail -n 5 "$work/apt.log")"

# What the root holds before our packages: the installed packages, and
# every file but apt's, dpkg's and the logs' own, /etc/hosts, which
# netbase's postinst makes (python3 brings netbase) and its purge leaves
# to the administrator, and the backups that the shadow tools keep of
# the user and group files (udev's postinst adds system groups, which
# stay, as Debian leaves system groups after a purge).
state() {
	in_root dpkg-query -W -f='${Package} ${Version}\n' | sort
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./var/log -o \
		-path ./var/cache -o -path ./var/lib/apt -o -path ./var/lib/dpkg -o \
		-path ./tmp -o -path ./run -o -path ./etc/ld.so.cache -o \
		-path ./etc/hosts -o -path ./etc/passwd- -o -path ./etc/group- -o \
		-path ./etc/shadow- -o -path ./etc/gshadow- \) -prune -o -print | sort)
}
state > "$work/before"

# Debian's own kernel, for srv6-oam-dkms (from the registry)
STOCK_PKGS="linux-image-amd64 linux-headers-amd64"
log "apt-get install of $(paste -sd ' ' "$debs/SHIP")${KERNEL_DEBS:+, the kernel of $KERNEL_DEBS} and $STOCK_PKGS"
mkdir -p "$root/tmp/debs"
while read -r p; do
	cp "$debs/${p}"_*.deb "$root/tmp/debs/"
done < "$debs/SHIP"
release=
if [ -n "${KERNEL_DEBS:-}" ]; then
	img=$(ls "$KERNEL_DEBS"/linux-image-*.deb 2> /dev/null | grep -v -- -dbg_ | tail -n 1)
	[ -n "$img" ] || die "no linux-image package in $KERNEL_DEBS: make deb-kernel"
	cp "$img" "$root/tmp/debs/"
	release=$(dpkg-deb -f "$img" Package | sed 's/^linux-image-//')
	echo "$(dpkg-deb -f "$img" Package)" > "$work/ship"
fi
cat "$debs/SHIP" >> "$work/ship"
# shellcheck disable=SC2046 # one word a file
in_root apt-get install -y -q --no-install-recommends $STOCK_PKGS \
	$(cd "$root" && ls tmp/debs/*.deb | sed 's|^|/|') > "$work/install.log" 2>&1 ||
	die "apt-get install: $(tail -n 10 "$work/install.log")"
bad=
while read -r p; do
	v=$(in_root dpkg-query -W -f='${Version}' "$p")
	dpkg-deb -f "$root/tmp/debs/${p}"_*.deb Version | grep -qxF "$v" || bad+=" $p=$v"
done < "$work/ship"
[ -z "$bad" ] || die "installed, but not the versions built:$bad"
rm -rf "$root/tmp/debs"
stock=$(in_root dpkg-query -W -f='${Depends}' linux-image-amd64 |
	sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
[ -n "$stock" ] && [ -r "$root/boot/vmlinuz-$stock" ] ||
	die "linux-image-amd64 put no kernel in the root's /boot"
in_root dkms status -m srv6-oam -k "$stock" | grep -q ': installed' ||
	die "srv6-oam-dkms: no modules installed for $stock: $(in_root dkms status; grep -A5 -i error "$work/install.log" | head -n 20)"
log "dkms built and installed srv6-oam's modules for Debian's $stock"
cp "$TOP/scripts/guest-debs.sh" "$root/root/guest-debs.sh"
umount "$root/proc"
mounted=()

# guest NAME BZIMAGE RELEASE STOCK: guest-debs.sh in the root, in a guest
# of BZIMAGE; RELEASE: a kernel of the root's, whose modules it loads
guest() {
	local name=$1 bzimage=$2 release=$3 stock=$4 modules=
	if [ -n "$release" ]; then
		# the kernel's own autoloading (request_module) runs the
		# guest's modprobe, outside the chroot: it must find the
		# root's modules too (the tools in the chroot that run
		# modprobe themselves find them there)
		modules="mount --bind $root/lib/modules /lib/modules &&"
	fi
	log "guest: the packages' test in the root, chrooted (kernel $(basename "$bzimage"))"
	rm -f "$work/$name.rc" "$work/$name.out"
	VM_INITRAMFS=$stock "$TOP/scripts/vm.sh" "$bzimage" --rwdir "$work" -- \
		"$modules mount --bind $root $root && mount -t proc proc $root/proc &&
		 mount --rbind /sys $root/sys &&
		 mount --rbind /dev $root/dev && mount -t tmpfs tmpfs $root/run &&
		 mount -t tmpfs tmpfs $root/tmp &&
		 chroot $root /usr/bin/env KERNEL_RELEASE=$release STOCK=$stock \
			/bin/bash /root/guest-debs.sh > $work/$name.out 2>&1;
		 echo \$? > $work/$name.rc" > "$work/$name-vm.log" 2>&1 || true
	cat "$work/$name.out" 2> /dev/null || true
	[ "$(cat "$work/$name.rc" 2> /dev/null)" = 0 ] ||
		die "the packages' test failed in the guest of $(basename "$bzimage") (rc $(cat "$work/$name.rc" 2> /dev/null || echo none); $work/$name-vm.log)"
}

if [ -n "$release" ]; then
	bzimage=$root/boot/vmlinuz-$release
	[ -r "$bzimage" ] || die "the package put no /boot/vmlinuz-$release"
fi
guest guest "$bzimage" "$release" 0
guest guest-stock "$root/boot/vmlinuz-$stock" "$stock" 1

log "apt-get purge of our packages and what they brought"
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
rm -f "$root/root/guest-debs.sh"
# Debian's kernel by name too: apt never autoremoves the newest kernel.
# And autoremove without APT::AutoRemove::SuggestsImportant: dkms brought
# a compiler (gcc, make, dpkg-dev, ...), which apt would keep because the
# root's apt suggests dpkg-dev; with it the root would keep them, as
# after any build tools' removal, whatever our packages do.
# shellcheck disable=SC2046
in_root apt-get purge -y -q $(cat "$work/ship") $STOCK_PKGS \
	"linux-image-$stock" "linux-headers-$stock" > "$work/purge.log" 2>&1 ||
	die "apt-get purge: $(tail -n 10 "$work/purge.log")"
in_root apt-get autoremove --purge -y -q -o APT::AutoRemove::SuggestsImportant=false \
	>> "$work/purge.log" 2>&1 ||
	die "apt-get autoremove: $(tail -n 10 "$work/purge.log")"
umount "$root/proc"
mounted=()
state > "$work/after"
if ! diff -u "$work/before" "$work/after" > "$work/diff"; then
	cat "$work/diff" >&2
	die "the root is not as it was before the packages"
fi
echo "TEST: $(printf '%-66s' 'dpkg purge: the packages and files as before') [ OK ]"
log "pass"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb-kernel: Debian packages of the patched kernel, built by the
# kernel's own bindeb-pkg from the assembled tree (make tree), in a build
# directory of their own:
#
#   DEB_CONFIG=guest (default, what CI builds): the guest's configuration
#     with modules (config/guest.config, config/modules.config): STAMP, the
#     SRH match and hash:sr6 as modules.  A package to test the packaging
#     with; the kernel boots in the QEMU guest, not on a router.
#   DEB_CONFIG=debian: Debian's own configuration of the base for amd64
#     (the registry's linux-config-6.12 or -6.1, config.amd64_none_amd64),
#     with config/debian.config on top: our features on, as modules where
#     they can be, and what a local build cannot do off (Debian's module
#     signing key and trusted keys are not ours; no debug info, which
#     would multiply the build's time and size).  For a router.
#
# The packages: linux-image-RELEASE and linux-headers-RELEASE (and
# linux-libc-dev), RELEASE being the base's version with "-srv6-oam"
# (CONFIG_LOCALVERSION), version VERSION-1+srv6oam1, in OUT.
#
# usage: deb-kernel.sh KSRC KOBJ OUT CONFIG FRAGMENT...   (CONFIG: guest|debian)

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
ksrc=$(realpath "$1")
mkdir -p "$2" "$3"
kobj=$(realpath "$2")
out=$(realpath "$3")
what=$4
shift 4
JOBS=${JOBS:-$(nproc)}

log() { printf 'deb-kernel: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case $what in
guest)
	"$TOP/scripts/kernel-config.sh" "$ksrc" "$kobj" "$@"
	;;
debian)
	series=$(make -s -C "$ksrc" kernelversion | cut -d. -f1,2)
	pkg=linux-config-$series
	dir=$CACHE_DIR/$pkg
	if ! ls "$dir"/*.deb > /dev/null 2>&1; then
		mkdir -p "$dir"
		(cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$pkg" > /dev/null) ||
			die "apt-get download $pkg failed"
	fi
	deb=$(ls "$dir"/*.deb | tail -n 1)
	rm -rf "$kobj/linux-config"
	dpkg-deb -x "$deb" "$kobj/linux-config"
	cfg=$(find "$kobj/linux-config" -name 'config.amd64_none_amd64.xz' | head -n 1)
	[ -n "$cfg" ] || die "$deb has no config.amd64_none_amd64.xz"
	log "Debian's configuration: $(basename "$deb"), $(basename "$cfg")"
	xz -dc "$cfg" > "$kobj/.config"
	"$ksrc"/scripts/kconfig/merge_config.sh -m -O "$kobj" "$kobj/.config" \
		"$TOP/config/debian.config" > /dev/null
	make -s -C "$ksrc" O="$kobj" olddefconfig > /dev/null
	# Each of our options as config/debian.config writes it.
	bad=
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) grep -qxF "$line" "$kobj/.config" || bad+=" $line" ;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }; opt=${opt%% *}
			! grep -q "^$opt=" "$kobj/.config" || bad+=" $opt=n" ;;
		esac
	done < "$TOP/config/debian.config"
	[ -z "$bad" ] || die "not in the configuration as config/debian.config says:$bad"
	;;
*)
	die "DEB_CONFIG=$what: guest or debian"
	;;
esac

version=$(make -s -C "$ksrc" kernelversion)
pkgversion=$version-1+srv6oam1
log "bindeb-pkg $version ($what configuration), package version $pkgversion, -j$JOBS"
t0=$(date +%s)
# LOCALVERSION= (set, empty): the release is the base's version with
# CONFIG_LOCALVERSION, without the "+" of a git tree past its tag.
make -s -C "$ksrc" O="$kobj" -j"$JOBS" CC="ccache gcc" LOCALVERSION= \
	KDEB_PKGVERSION="$pkgversion" KDEB_SOURCENAME=linux-srv6-oam \
	DPKG_FLAGS=-d bindeb-pkg > "$kobj/bindeb-pkg.log" 2>&1 ||
	die "bindeb-pkg failed: $(tail -n 20 "$kobj/bindeb-pkg.log")"
log "built in $(( $(date +%s) - t0 ))s"
# bindeb-pkg writes the packages beside the build directory.
rm -f "$out"/*.deb
release=$(make -s -C "$ksrc" O="$kobj" LOCALVERSION= kernelrelease)
for p in "linux-image-$release" "linux-headers-$release" linux-libc-dev; do
	f=$(ls "$(dirname "$kobj")/${p}_${pkgversion}_"*.deb 2> /dev/null | tail -n 1)
	if [ -z "$f" ]; then
		[ "$p" = "linux-headers-$release" ] || die "no $p package"
		continue
	fi
	mv "$f" "$out/"
done
rm -f "$(dirname "$kobj")"/linux-*_"$pkgversion"_*.{buildinfo,changes}
# What the image holds of ours: the modules of the features, and a
# configuration that says so.
img=$(ls "$out/linux-image-${release}_"*.deb)
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$img" "$x"
for m in stamp.ko ip_set_hash_sr6.ko ip6t_srh.ko; do
	find "$x/lib/modules/$release" -name "$m*" | grep -q . ||
		die "$(basename "$img") has no $m"
done
grep -qx 'CONFIG_IPV6_ALTMARK=y' "$x/boot/config-$release" ||
	die "$(basename "$img"): no CONFIG_IPV6_ALTMARK=y"
log "packages in $out:"
ls "$out"/*.deb | sed 's#.*/#  #' >&2

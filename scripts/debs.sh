#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make debs: Debian binary packages of iproute2, iptables and ipset with
# srv6-oam's patches, built the way Debian builds them, from bookworm's own
# source packages (make fetch keeps them in $CACHE_DIR/userspace):
#
#   - the source package is unpacked with dpkg-source (Debian's patches
#     applied), our format-patch series (PKG-patches/) goes into
#     debian/patches/srv6-oam/ with DEP-3 headers and at the end of
#     debian/patches/series (quilt, applied by dpkg-source at the build);
#     a patch of ours that changes only debian/ (ipset's symbols file) is
#     a change to the packaging and is applied to debian/ itself;
#   - the version is Debian's with "+srv6oam1" (6.1.0-3+srv6oam1, ...), as
#     for a local rebuild, with a debian/changelog entry that lists the
#     patches;
#   - the build dependencies come from the registry (apt-get build-dep on
#     the unpacked tree), then dpkg-buildpackage -F -uc -us (the source
#     package too, in OUT/build/PKG, for a maintainer to take), with
#     DEB_BUILD_OPTIONS=nocheck (the upstream suites are make check's:
#     scripts/iptables-tests.sh and ipset-tests.sh, in the guest);
#   - lintian checks each build, source and binaries, against Debian's
#     own packages of the version rebuilt (apt-get download): a tag those
#     have too is Debian's and reported; an error or warning of the
#     rebuild's own fails.  Two packaging changes avoid the ones a rebuild
#     would cause: debian/control names us among the Uploaders (lintian
#     took the rebuild for a misnumbered NMU otherwise), and Debian's
#     overrides that point at lines of a man page point at any line of it
#     (our patches move them).
#
# And srv6-oam's own source package (debian/ in this repository, native,
# built from the files debian/rules installs): srv6-oam-tools, the tools
# with their man pages, pfplm@.service and pfplm's example configurations
# in /etc/pfplm (conffiles); srv6-oam-dkms, the modules for Debian's own
# kernels (dkms/README.md), the tree of dkms/assemble.sh in
# /usr/src/srv6-oam-VERSION, built by dh_dkms's scripts at installation
# for each kernel whose headers are installed.  Its lintian tags have nothing to be compared
# with: an error or warning fails, unless debian/*lintian-overrides
# explains it.
#
# Only the binary packages that change are kept in OUT (and listed in
# OUT/SHIP), below.
#
# usage: debs.sh OUT [PKG...]      (default: iproute2 iptables ipset srv6-oam)

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
OUT=$(mkdir -p "$1" && realpath "$1")
shift
PKGS=${*:-iproute2 iptables ipset srv6-oam}
SUFFIX=+srv6oam1
MAINT="srv6-oam developers <srv6-oam@lists.invalid>"

log() { printf 'debs: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo

need=()
for p in dpkg-dev debhelper lintian fakeroot; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
	log "installing ${need[*]}"
	$sudo apt-get update -q > /dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
		--no-install-recommends "${need[@]}" > /dev/null
fi

# dep3 PATCH: the format-patch mail PATCH as a DEP-3 patch on stdout: its
# From, Date and Subject header (without the mbox line and the "[PATCH
# n/m]"), Forwarded and Last-Update, then the message and the diff
dep3()
{
	awk -v fwd="Forwarded: no" '
		NR == 1 && /^From [0-9a-f]+ / { next }
		hdr && /^Subject:/ { sub(/\[PATCH[^]]*\] /, "") }
		hdr && /^Date:/ { date = $0 }
		hdr && /^$/ {
			print fwd
			hdr = 0
		}
		{ print }
		BEGIN { hdr = 1 }' "$1"
}

# subject PATCH: its subject, continuation lines joined, without "[PATCH
# n/m]"
subject()
{
	awk '/^Subject:/ { s = $0; f = 1; next }
	     f && /^ / { s = s $0; next }
	     f { exit }
	     END { sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s); print s }' "$1"
}

# debian_only PATCH: the patch changes files under debian/ only
debian_only()
{
	! grep '^+++ b/' "$1" | grep -qv '^+++ b/debian/'
}

# build PKG: build dependencies, dpkg-buildpackage and lintian of the
# source tree $src (of $srcname $newver, from $dsc if Debian's) in $work
build()
{
	log "$srcname $newver: build dependencies"
	(cd "$src" && DEBIAN_FRONTEND=noninteractive $sudo apt-get build-dep -y -q ./ > "$work/build-dep.log" 2>&1) ||
		die "apt-get build-dep for $srcname failed: $(tail -n 5 "$work/build-dep.log")"
	log "$srcname $newver: dpkg-buildpackage"
	t0=$(date +%s)
	(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
		dpkg-buildpackage -F -uc -us > "$work/build.log" 2>&1) ||
		die "$srcname: dpkg-buildpackage failed: $(tail -n 20 "$work/build.log")"
	log "$srcname $newver: built in $(( $(date +%s) - t0 ))s"
	changes=("$work"/*.changes)
	# lintian, against Debian's own source and binary packages of the
	# version we rebuilt: a tag they have too is Debian's (reported); an
	# error or warning they do not have is ours, and fails
	# (srv6-oam's own: nothing of Debian's to compare with)
	mkdir -p "$work/debian"
	: > "$work/lintian.debian"
	if [ -n "$dsc" ]; then
		for deb in "$work"/*.deb; do
			(cd "$work/debian" && apt-get download -q -o APT::Sandbox::User=root \
				"$(dpkg-deb -f "$deb" Package)=$version" > /dev/null 2>&1) || true
		done
		lintian "$dsc" "$work/debian"/*.deb 2> /dev/null | grep -E '^[EWIN]: ' |
			sort -u > "$work/lintian.debian" || true
	fi
	lintian "${changes[0]}" 2> /dev/null | grep -E '^[EWIN]: ' |
		sort -u > "$work/lintian.log" || true
	comm -12 "$work/lintian.log" "$work/lintian.debian" | sed 's/^/  lintian (Debian'"'"'s too): /' >&2
	comm -23 "$work/lintian.log" "$work/lintian.debian" | sed 's/^/  lintian: /' >&2
	new=$(comm -23 "$work/lintian.log" "$work/lintian.debian" | grep -E '^[EW]: ' || true)
	[ -z "$new" ] || die "$srcname: lintian errors or warnings of the rebuild's own: $new"
}

# own_source WORK: srv6-oam's source tree in WORK/src, the files of this
# repository (committed or not, as git sees the work tree) that debian/
# builds from, and in dkms-src the DKMS tree of dkms/assemble.sh (whose
# ip6t_srh.c is Debian's, from the linux-source tarball of make fetch)
own_source()
{
	mkdir -p "$1/src"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard -- \
		debian pfplm python stamp-sender scripts/install-tools.sh dkms/README.md |
		xargs -0 cp -P --parents -t "$1/src")
	"$TOP/dkms/assemble.sh" "$1/src/dkms-src" 2> "$1/assemble.log" ||
		die "dkms/assemble.sh: $(tail -n 5 "$1/assemble.log")"
}

for pkg in $PKGS; do
	work=$OUT/build/$pkg
	rm -rf "$work"
	mkdir -p "$work"
	if [ "$pkg" = srv6-oam ]; then
		own_source "$work"
		src=$work/src
		srcname=$pkg
		version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
		newver=$version
		dsc=
		build "$pkg"
		continue
	fi
	dsc=$(sed -n "s/^$(echo "$pkg" | tr a-z A-Z)_DSC=//p" "$CACHE_DIR/versions.env")
	[ -s "$dsc" ] || die "no source for $pkg: run 'make fetch' first"
	# (dpkg-source puts the upstream tarball beside it, for the source
	# package's build)
	dpkg-source --no-check -q -x "$dsc" "$work/src" > /dev/null
	src=$work/src
	srcname=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Source)
	version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
	newver=$version$SUFFIX
	mkdir -p "$src/debian/patches/srv6-oam"
	list=()
	for p in "$TOP/$pkg-patches"/*.patch; do
		name=$(basename "$p")
		if debian_only "$p"; then
			(cd "$src" && patch -s -p1 --no-backup-if-mismatch < "$p") ||
				die "$name does not apply to $srcname's debian/"
			list+=("$(subject "$p")")
			continue
		fi
		dep3 "$p" > "$src/debian/patches/srv6-oam/$name"
		echo "srv6-oam/$name" >> "$src/debian/patches/series"
		list+=("$(subject "$p")")
	done
	date=$(git -C "$TOP" log -1 --format=%aD -- "$pkg-patches")
	{
		echo "$srcname ($newver) bookworm; urgency=medium"
		echo
		echo "  * Rebuild with srv6-oam's patches (debian/patches/srv6-oam/):"
		for l in "${list[@]}"; do
			printf '%s\n' "$l" | fold -s -w 72 | sed 's/ *$//; 1s/^/    - /; 2,$s/^/      /'
		done
		echo
		echo " -- $MAINT  $date"
		echo
		cat "$src/debian/changelog"
	} > "$work/changelog"
	mv "$work/changelog" "$src/debian/changelog"
	# We made this upload (the changelog's entry is ours): an uploader,
	# not a Debian NMU.
	if grep -q '^Uploaders:' "$src/debian/control"; then
		sed -i '0,/^Uploaders:/s/^Uploaders: */Uploaders: '"$MAINT"', /' \
			"$src/debian/control"
	else
		sed -i '0,/^Maintainer:/s/^\(Maintainer:.*\)$/\1\nUploaders: '"$MAINT"'/' \
			"$src/debian/control"
	fi
	# Debian's lintian overrides point at lines of the man pages, which our
	# patches move: any line of the same page (once).
	for o in "$src"/debian/*lintian-overrides "$src"/debian/source/lintian-overrides; do
		[ -f "$o" ] || continue
		sed 's/\(\.[1-8]\.gz\):[0-9][0-9]*\]/\1:*]/' "$o" |
			awk '/^#/ || /^$/ || !seen[$0]++' > "$o.new"
		mv "$o.new" "$o"
	done

	build "$pkg"
done

# The binary packages that change: those holding a file our patches change
# (CHANGED below, by what the patches touch), and those a shipped one
# depends on with "=" (its own version, from the same source).  The others
# (documentation, -dev) stay bookworm's: libipset-dev's headers gain the
# SID-list parser and printer, which only a program built against them
# needs.
declare -A CHANGED=(
	[iproute2]="iproute2"           # ip (stamp, altmark, seg6 keywords), its man pages
	[iptables]="iptables"           # libip6t_srh.so (--srh-sid-list), ip6tables-extensions(8)
	[ipset]="ipset libipset13"      # the hash:sr6 type in libipset, ipset(8)
	[srv6-oam]="srv6-oam-tools srv6-oam-dkms"  # ours
)
rm -f "$OUT"/*.deb "$OUT/SHIP"
for pkg in $PKGS; do
	declare -A built=() ship=()
	for deb in "$OUT/build/$pkg"/*.deb; do
		built[$(dpkg-deb -f "$deb" Package)]=$deb
	done
	todo=(${CHANGED[$pkg]})
	while [ "${#todo[@]}" -gt 0 ]; do
		b=${todo[0]}
		todo=("${todo[@]:1}")
		[ -n "${ship[$b]:-}" ] && continue
		[ -n "${built[$b]:-}" ] || die "$pkg built no $b"
		ship[$b]=1
		for d in $(dpkg-deb -f "${built[$b]}" Depends | tr ',' '\n' |
			   sed -n 's/^ *\([^ ]*\) *(= [^)]*).*/\1/p'); do
			[ -n "${built[$d]:-}" ] && todo+=("$d")
		done
	done
	for b in "${!ship[@]}"; do
		cp "${built[$b]}" "$OUT/"
		echo "$b" >> "$OUT/SHIP"
	done
	unset built ship
done
sort -o "$OUT/SHIP" "$OUT/SHIP"

# What the patches add is in what is shipped: ip altmark and ip stamp, the
# SID-list revision of the srh match, the hash:sr6 set type; and pfplm
# with its unit and examples (of the packages built this time: PKG:FILE:TEXT).
x=$OUT/build/contents
rm -rf "$x"
mkdir -p "$x"
for deb in "$OUT"/*.deb; do
	dpkg-deb -x "$deb" "$x"
done
for want in "iproute2:bin/ip:ip altmark monitor add" \
	    "iproute2:bin/ip:ip stamp reflector" \
	    "iptables:usr/lib/*/xtables/libip6t_srh.so:--srh-sid-list" \
	    "ipset:usr/lib/*/libipset.so.13.*:hash:sr6" \
	    "srv6-oam:usr/lib/srv6-oam/pfplm:--cleanup" \
	    "srv6-oam:lib/systemd/system/pfplm@.service:ExecStopPost=/usr/bin/pfplm" \
	    "srv6-oam:etc/pfplm/altmark.conf.example:method = altmark" \
	    "srv6-oam:usr/src/srv6-oam-*/net/ipv6/netfilter/ip6t_srh.c:IP6T_SRH_SID_LIST" \
	    "srv6-oam:usr/src/srv6-oam-*/dkms.conf:BUILT_MODULE_NAME[1]=\"ip6t_srh\""; do
	pkg=${want%%:*}
	want=${want#*:}
	[[ " $PKGS " == *" $pkg "* ]] || continue
	f=(${x}/${want%%:*})
	[ -f "${f[0]}" ] && grep -aqF -- "${want#*:}" "${f[0]}" ||
		die "${want%%:*} in the packages lacks \"${want#*:}\""
done
log "packages in $OUT (SHIP lists them):"
ls "$OUT"/*.deb | sed 's#.*/#  #' >&2

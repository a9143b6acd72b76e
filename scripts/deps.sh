#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what srv6-oam needs to build, boot and test, by name, from Debian's
# packages and PyPI only.  Idempotent: installs only what is missing.
#
# usage: deps.sh "APT PKGS" VENV "PIP PKGS"

set -euo pipefail

apt_pkgs=$1 venv=$2 pip_pkgs=$3

missing=()
for p in $apt_pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	sudo=
	[ "$(id -u)" = 0 ] || sudo=sudo
	# tshark asks whether non-root users may capture: they may not.
	echo 'wireshark-common wireshark-common/install-setuid boolean false' |
		$sudo debconf-set-selections
	$sudo apt-get update -q
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
		"${missing[@]}"
fi

# virtme-ng (vng) in a private virtual environment, from PyPI; Debian's own
# python3 so that it also sees Debian's python3-* packages.
if [ ! -x "$venv/bin/vng" ] || ! "$venv/bin/pip" show -q ${pip_pkgs%%=*} > /dev/null 2>&1; then
	echo "deps: installing $pip_pkgs into $venv"
	/usr/bin/python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check $pip_pkgs
fi
"$venv/bin/vng" --version

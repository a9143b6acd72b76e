#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make $KOBJ/.config: `make tinyconfig`, then the fragments merged on top, then
# a check that every option of every fragment is in the result as written
# (as the last fragment that sets it writes it).
#
# usage: kernel-config.sh KSRC KOBJ FRAGMENT...

set -euo pipefail

ksrc=$(realpath "$1")
mkdir -p "$2"
kobj=$(realpath "$2")
shift 2
mkdir -p "$kobj"
make -s -C "$ksrc" O="$kobj" tinyconfig > /dev/null
"$ksrc"/scripts/kconfig/merge_config.sh -m -O "$kobj" "$kobj/.config" "$@" > /dev/null
make -s -C "$ksrc" O="$kobj" olddefconfig > /dev/null

# Each option as the last fragment that sets it gives it (merge_config.sh
# lets a later fragment override an earlier one: config/base-BASE.config).
declare -A last
order=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) opt=${line%%=*} ;;
	"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *} ;;
	*) continue ;;
	esac
	[ -n "${last[$opt]+set}" ] || order+=("$opt")
	last[$opt]=$line
done < <(cat "$@")

bad=0
for opt in "${order[@]}"; do
	line=${last[$opt]}
	case "$line" in
	CONFIG_*=n) want="# ${line%=n} is not set" ;;
	CONFIG_*=*) want=$line ;;
	*) want=$line ;;
	esac
	# off: "is not set", or not there at all (its dependencies are off)
	if [ "$want" = "# $opt is not set" ] && ! grep -q "^$opt=" "$kobj/.config"; then
		continue
	fi
	if ! grep -qxF -- "$want" "$kobj/.config"; then
		echo "kernel-config: '$line' did not stick: $(grep -E "^(# )?$opt[= ]" "$kobj/.config" || echo "$opt absent")" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || { echo "kernel-config: the fragment did not apply; fix its dependencies" >&2; exit 1; }
echo "kernel-config: $(grep -c '=y' "$kobj/.config") options set, every fragment line present"

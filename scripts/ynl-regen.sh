#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The genetlink specs are authoritative: for each family NAME (stamp,
# altmark), include/uapi/linux/NAME.h and DIR/NAME_nl_gen.{c,h} are what the
# kernel tree's ynl-gen makes of Documentation/netlink/specs/NAME.yaml, and
# iproute2's copy of the uapi header (iproute2-patches/) is that header.
#
#   scripts/ynl-regen.sh KSRC check   regenerate into a temporary
#                                     directory, fail on any difference
#   scripts/ynl-regen.sh KSRC write   regenerate the committed files
#
# KSRC is the assembled kernel tree (build/linux): its
# tools/net/ynl/ynl-gen-c.py and the schemas in Documentation/netlink/.
# ynl-gen needs PyYAML and jsonschema (it validates the spec against the
# schema): YNL_PYTHON, else the first python3 that has both (Debian's, which
# make deps gives python3-yaml and python3-jsonschema, first).
set -eu

KSRC=${1:?usage: $0 KSRC check|write}
MODE=${2:?usage: $0 KSRC check|write}
TOP=$(cd "$(dirname "$0")/.." && pwd)
GEN=$KSRC/tools/net/ynl/ynl-gen-c.py
# family:directory of its generated kernel code
FAMILIES="stamp:net/stamp altmark:net/ipv6"

case $MODE in check|write) ;; *) echo "$0: check or write, not $MODE" >&2; exit 2 ;; esac
[ -f "$GEN" ] || { echo "$0: no $GEN (make tree)" >&2; exit 1; }

py=${YNL_PYTHON:-}
if [ -z "$py" ]; then
	for c in /usr/bin/python3 python3; do
		if "$c" -c 'import yaml, jsonschema' 2>/dev/null; then
			py=$c
			break
		fi
	done
fi
if [ -z "$py" ]; then
	echo "$0: no python3 with PyYAML and jsonschema (set YNL_PYTHON)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rc=0
for fam in $FAMILIES; do
	name=${fam%%:*}
	dir=${fam#*:}
	SPEC=Documentation/netlink/specs/$name.yaml
	FILES="include/uapi/linux/$name.h $dir/${name}_nl_gen.h $dir/${name}_nl_gen.c"

	# ynl-gen names the spec by its path below the directory that holds
	# MAINTAINERS (and searches up to / for one), and finds the schema
	# two levels above the spec: give it a kernel-like root holding it.
	root=$tmp/$name/root
	mkdir -p "$root/Documentation/netlink/specs"
	touch "$root/MAINTAINERS"
	cp "$KSRC"/Documentation/netlink/genetlink*.yaml "$root/Documentation/netlink/"
	cp "$TOP/$SPEC" "$root/$SPEC"

	out=$tmp/$name/out
	mkdir -p "$out/include/uapi/linux" "$out/$dir"
	gen() {
		"$py" "$GEN" --spec "$root/$SPEC" "$@"
	}
	gen --mode uapi --header -o "$out/include/uapi/linux/$name.h"
	gen --mode kernel --header -o "$out/$dir/${name}_nl_gen.h"
	gen --mode kernel --source -o "$out/$dir/${name}_nl_gen.c"

	if [ "$MODE" = write ]; then
		for f in $FILES; do
			cp "$out/$f" "$TOP/$f"
			echo "ynl-regen: wrote $f"
		done
		continue
	fi

	for f in $FILES; do
		if ! diff -u --label "$f (committed)" \
			--label "$f (from $SPEC)" "$TOP/$f" "$out/$f"; then
			echo "ynl-regen: $f differs from what ynl-gen makes of $SPEC" >&2
			rc=1
		fi
	done

	# iproute2 carries the uapi header as the kernel has it: its copy is
	# what its series leaves in include/uapi/linux/NAME.h.
	ipr=$tmp/$name/iproute2
	mkdir -p "$ipr"
	for p in "$TOP"/iproute2-patches/*.patch; do
		git -C "$ipr" apply --include="include/uapi/linux/$name.h" "$p"
	done
	if ! diff -u --label "iproute2-patches: include/uapi/linux/$name.h" \
		--label "include/uapi/linux/$name.h" \
		"$ipr/include/uapi/linux/$name.h" "$TOP/include/uapi/linux/$name.h"; then
		echo "ynl-regen: iproute2's copy of $name.h is not the kernel's" >&2
		rc=1
	fi
	[ $rc = 0 ] && echo "ynl-regen: $FILES and iproute2's $name.h are $SPEC's"
done
[ "$MODE" = write ] || exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series-build [BASE=...]`: the kernel series is bisectable on its
# base.  For every patch of base..srv6-oam of the assembled tree, in order:
#   - checkpatch.pl --strict finds nothing in it (as make series checks);
#   - if it changes a file the kernel build reads (anything but
#     Documentation/ and tools/), the tree at that patch builds (bzImage,
#     warnings as in the normal build) twice:
#       guest  the guest kernel's configuration (the fragments given);
#       off    the same with the features' Kconfig symbols off, those of
#              the series (NET_STAMP, IP_SET_HASH_SR6) and the upstream
#              ones our code hangs on (IPV6_SEG6_LWTUNNEL,
#              IPV6_IOAM6_LWTUNNEL, IP6_NF_MATCH_SRH);
#     a patch that only changes documentation or selftests builds what
#     the patch before it built, and says so.
# A failing patch is named, with checkpatch's first findings or its build
# log's first error lines (the whole log is kept as DIR/PATCH.CONF.log);
# the exit status is 1 if any patch failed.
#
# The builds are made in a worktree of the assembled tree and object
# directories of their own, under DIR: the tree that make kernel builds and
# its objects are not touched.  Both configurations are made once, at the
# whole series, and given to each patch as they are (olddefconfig leaves
# out the symbols that patch does not know yet).  ccache makes a second
# run cheap.  DIR/report.txt keeps the table.
#
# SERIES_FROM=N (make series-build SERIES_FROM=N) builds only from the
# Nth patch on (as git format-patch numbers the base's series), and
# SERIES_TO=M only up to the Mth (after a change that leaves the tree at
# the Mth patch as it was, the later patches' trees are the same too):
# the others are checked with checkpatch and reported as not built
# ("skip"), and the run does not say that every patch builds.
#
# usage: series-build.sh KSRC DIR FRAGMENT...

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$(realpath "$1")
mkdir -p "$2"
dir=$(realpath "$2")
shift 2
jobs=${JOBS:-$(nproc)}
# The worktree has the name of the assembled tree (linux, linux-6.1, ...),
# so that it sits at the same relative path to DIR/kbuild-guest as the
# tree to its own objects (build/kbuild-BASE): with CCACHE_BASEDIR, a
# file that a patch leaves as the whole series has it is a ccache hit.
wt=$dir/$(basename "$ksrc")
OFF_SYMS="NET_STAMP IP_SET_HASH_SR6 IPV6_SEG6_LWTUNNEL IPV6_IOAM6_LWTUNNEL IP6_NF_MATCH_SRH"

# shellcheck source=scripts/checkpatch-lib.sh
. "$TOP/scripts/checkpatch-lib.sh"

log() { printf 'series-build: %s\n' "$*" >&2; }
w() { git -C "$wt" "$@"; }

# A worktree of the assembled tree (made once; its HEAD is detached).
if [ ! -e "$wt/.git" ]; then
	git -C "$ksrc" worktree prune
	git -C "$ksrc" worktree add -q --detach "$wt" srv6-oam
fi
w checkout -q -f --detach srv6-oam

# The two configurations, at the whole series.
"$TOP/scripts/kernel-config.sh" "$wt" "$dir/kbuild-guest" "$@" > /dev/null
cp "$dir/kbuild-guest/.config" "$dir/guest.config"
mkdir -p "$dir/kbuild-off"
cp "$dir/guest.config" "$dir/kbuild-off/.config"
for s in $OFF_SYMS; do
	"$wt/scripts/config" --file "$dir/kbuild-off/.config" --disable "$s"
done
make -s -C "$wt" O="$dir/kbuild-off" olddefconfig > /dev/null
for s in $OFF_SYMS; do
	grep -qx "# CONFIG_$s is not set" "$dir/kbuild-off/.config" ||
		{ log "CONFIG_$s is still on in the off configuration"; exit 1; }
done
cp "$dir/kbuild-off/.config" "$dir/off.config"

# build CONF: build the worktree's HEAD with configuration CONF; the log
# goes to DIR/CONF.log.
build() {
	local conf=$1 kobj=$dir/kbuild-$1
	cp "$dir/$conf.config" "$kobj/.config"
	make -s -C "$wt" O="$kobj" olddefconfig > "$dir/$conf.log" 2>&1 &&
		make -s -C "$wt" O="$kobj" -j"$jobs" CC="ccache gcc" bzImage \
			>> "$dir/$conf.log" 2>&1
}

rm -rf "$dir/patches"
git -C "$ksrc" format-patch -q -o "$dir/patches" base..srv6-oam
mapfile -t patches < <(ls "$dir/patches"/*.patch)
mapfile -t commits < <(git -C "$ksrc" rev-list --reverse base..srv6-oam)
[ "${#patches[@]}" = "${#commits[@]}" ] || { log "format-patch gave ${#patches[@]} patches for ${#commits[@]} commits"; exit 1; }

rc=0
report=$dir/report.txt
{
	echo "series-build: $(cat "$ksrc/.git/srv6-oam-base") + ${#commits[@]} patches, $(date -u +%FT%TZ)"
	echo "  (guest/off: build time in s, '-' no kernel file changed)"
} > "$report"
cat "$report"
t_all=$(date +%s)
for i in "${!commits[@]}"; do
	c=${commits[$i]}
	p=${patches[$i]}
	subject=$(git -C "$ksrc" log -1 --format=%s "$c")
	status=ok
	why=()
	if ! checkpatch_strict "$ksrc" "$p" --ignore "$CHECKPATCH_IGNORE" > "$dir/checkpatch.log"; then
		status=FAIL
		why+=("checkpatch:" "$(head -n 3 "$dir/checkpatch.log")")
	fi
	tg=- to=-
	kfiles=$(git -C "$ksrc" diff-tree --no-commit-id --name-only -r "$c" |
		grep -v -e '^Documentation/' -e '^tools/' || true)
	if [ -n "$kfiles" ] && { [ $((i + 1)) -lt "${SERIES_FROM:-1}" ] ||
		[ $((i + 1)) -gt "${SERIES_TO:-${#commits[@]}}" ]; }; then
		tg=skip to=skip
	elif [ -n "$kfiles" ]; then
		w checkout -q -f --detach "$c"
		for conf in guest off; do
			t0=$(date +%s)
			if build "$conf"; then
				t=$(( $(date +%s) - t0 ))
			else
				t=FAIL
				status=FAIL
				why+=("build ($conf):" "$(grep -E 'error|Error' "$dir/$conf.log" | head -n 5)")
				cp "$dir/$conf.log" "$dir/$(basename "$p" .patch).$conf.log"
			fi
			if [ "$conf" = guest ]; then tg=$t; else to=$t; fi
		done
	fi
	line=$(printf '  %-4s %5s %5s  %s' "$status" "$tg" "$to" "$(basename "$p" .patch)")
	echo "$line" | tee -a "$report"
	if [ "$status" != ok ]; then
		printf '         %s\n' "${why[@]}" | tee -a "$report"
		rc=1
	fi
done
w checkout -q -f --detach srv6-oam
if [ $rc != 0 ]; then
	verdict=FAILED
elif [ "${SERIES_FROM:-1}" -gt 1 ] || [ "${SERIES_TO:-${#commits[@]}}" -lt "${#commits[@]}" ]; then
	verdict="every patch from the ${SERIES_FROM:-1}th to the ${SERIES_TO:-${#commits[@]}}th builds (SERIES_FROM, SERIES_TO; the others were not built)"
else
	verdict="every patch builds"
fi
echo "series-build: $verdict, $(( $(date +%s) - t_all ))s" | tee -a "$report"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the man pages installed under a prefix (make tools runs it on
# build/prefix):
#
#   - no page may contain an @WORD@ placeholder outside a roff comment
#     (a build step that should have put a path or a version in did not:
#     "@SYSCONFDIR@/rt_tables");
#   - every page is formatted with groff -ww (all warnings), from
#     PREFIX/share/man as man(1) does, so that ".so man8/x.8" is found,
#     with preconv (-k) and tbl (-t).  An error (a non-zero exit status,
#     or a message that is not a warning, such as a .so page that cannot
#     be opened) fails the check for every page.  A warning fails it for
#     the pages we wrote or patched: the pages of this repository
#     (stamp-sender.1) and those the userspace series touch (man/man8/ip-route.8.in -> ip-route.8,
#     src/ipset.8 -> ipset.8, extensions/*.man -> iptables-extensions.8).
#     For the other pages, Debian's as they are, a warning is only
#     reported: they are not ours to fix here.
#
# usage: check-man.sh PREFIX

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
mandir=${1:?usage: check-man.sh PREFIX}/share/man

log() { printf 'check-man: %s\n' "$*" >&2; }

command -v groff > /dev/null || { log "no groff (make deps: groff-base)"; exit 1; }
[ -d "$mandir" ] || { log "no $mandir"; exit 1; }

# The names of the installed pages that are ours, one a line.
our_pages() {
	local path
	git -C "$TOP" ls-files -- '*.[1-9]' | sed 's|.*/||'
	sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$TOP"/*-patches/*.patch |
		while read -r path; do
			case $path in
			*.[1-9].in) path=${path%.in}; echo "${path##*/}" ;;
			*.[1-9]) echo "${path##*/}" ;;
			extensions/*.man) echo iptables-extensions.8 ;;
			esac
		done
}
ours=$(our_pages | sort -u)

page_text() {
	case $1 in
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# groff's warnings name the file, unless it had to read a pipe.
render() {
	case $1 in
	*.gz) gzip -dc "$1" | groff -k -t -man -ww -z -Tutf8 ;;
	*) groff -k -t -man -ww -z -Tutf8 "$1" ;;
	esac
}

failed=0 pages=0 noted=0
cd "$mandir"
for page in man*/*; do
	[ -f "$page" ] || continue
	pages=$((pages + 1))
	name=${page##*/}
	name=${name%.gz}
	# Comments (\" to the end of the line) may hold anything: iptables'
	# extensions page keeps its template's ".\" @MATCH@".
	if out=$(page_text "$page" | sed 's/\\".*//' | grep -nE '@[A-Z][A-Z0-9_]*@'); then
		log "$page: placeholder left in:"
		sed 's/^/    /' <<< "$out" >&2
		failed=$((failed + 1))
	fi
	rc=0
	out=$(render "$page" 2>&1) || rc=$?
	if [ "$rc" != 0 ] || grep -qv ': warning' <<< "${out:-: warning}"; then
		log "$page: groff cannot format it (exit status $rc):"
		sed 's/^/    /' <<< "$out" >&2
		failed=$((failed + 1))
	elif [ -n "$out" ]; then
		if grep -qxF "$name" <<< "$ours"; then
			log "$page: groff warns about a page of ours:"
			failed=$((failed + 1))
		else
			log "$page: groff warns (not a page of ours: reported only):"
			noted=$((noted + 1))
		fi
		sed 's/^/    /' <<< "$out" >&2
	fi
done

[ "$pages" -gt 0 ] || { log "no man page under $mandir"; exit 1; }
log "$pages pages, $(wc -l <<< "$ours") of them ours: $failed failed, $noted with warnings reported only"
[ "$failed" = 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree: the Debian linux-source-6.12 base plus the series
# kept in this repository.
#
# The series is kernel-series/NNNN-slug/, one directory per patch, applied in
# order.  Each directory holds:
#   message        the commit message (subject, blank line, body, sign-off)
#   upstream.diff  optional: the patch's edits to files of the base, as a -p1
#                  unified diff
#   files          optional: the new files the patch adds, one in-tree path a
#                  line; their content is this repository's file at that path
# A new file belongs to exactly one patch (checked here), so the files at
# their in-tree paths in this repository are always the final state.
#
# The tree is a git repository ($KSRC) whose branch "base" is the pristine
# Debian tree and whose branch "srv6-oam" is the base plus one commit per
# patch.  The commits are made with git plumbing in a private index, then
# checked out, so files the series did not change keep their timestamps and
# an incremental kernel build stays incremental.
#
# usage: kernel-tree.sh assemble   build $KSRC and check it out at srv6-oam
#        kernel-tree.sh series DIR write the format-patch series into DIR

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
SERIES=$TOP/kernel-series
KSRC=${KSRC:-$TOP/build/linux}
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/srv6-oam}
OWNED_DIRS="net include tools Documentation"

export GIT_AUTHOR_NAME=${SERIES_AUTHOR_NAME:-"srv6-oam developers"}
export GIT_AUTHOR_EMAIL=${SERIES_AUTHOR_EMAIL:-"srv6-oam@lists.invalid"}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME
export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
# Fixed dates: the same series gives the same commits and the same patches.
export GIT_AUTHOR_DATE="2026-11-23T00:00:00+00:00"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE

log() { printf 'kernel-tree: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
g() { git -C "$KSRC" "$@"; }

base_tree() {
	local env tarball ver
	env=$CACHE_DIR/versions.env
	[ -s "$env" ] || die "no $env: run 'make fetch' first"
	tarball=$(sed -n 's/^KERNEL_TARBALL=//p' "$env")
	ver=$(sed -n 's/^KERNEL_DEB_VERSION=//p' "$env")
	if [ -d "$KSRC/.git" ] &&
	   [ "$(cat "$KSRC/.git/srv6-oam-base" 2>/dev/null)" = "$ver" ]; then
		return
	fi
	log "unpacking linux-source-6.12 $ver into $KSRC"
	rm -rf "$KSRC"
	mkdir -p "$KSRC"
	tar -xf "$tarball" -C "$KSRC" --strip-components=1
	g init -q -b base
	g config core.autocrlf false
	g config gc.auto 0
	g add -A -f .
	g commit -q -m "Debian linux-source-6.12 $ver" -m \
		"Base of the srv6-oam series: the tree of Debian's linux-source-6.12 $ver package."
	g tag -f base-"$(echo "$ver" | tr '~:' '__')" > /dev/null
	echo "$ver" > "$KSRC/.git/srv6-oam-base"
}

# Every file of ours under the owned directories is claimed by one patch.
check_ownership() {
	local listed all dup missing
	listed=$(cat /dev/null "$SERIES"/[0-9]*/files | sed -e 's/#.*//' -e '/^[[:space:]]*$/d' | sort)
	dup=$(printf '%s\n' "$listed" | uniq -d)
	[ -z "$dup" ] || die "files claimed by more than one patch: $dup"
	all=$(cd "$TOP" && git ls-files --cached --others --exclude-standard $OWNED_DIRS | sort)
	missing=$(comm -23 <(printf '%s\n' "$all" | sed '/^$/d') <(printf '%s\n' "$listed" | sed '/^$/d'))
	[ -z "$missing" ] || die "files in the repository that no patch adds: $missing"
	missing=$(comm -13 <(printf '%s\n' "$all" | sed '/^$/d') <(printf '%s\n' "$listed" | sed '/^$/d'))
	[ -z "$missing" ] || die "patches list files that do not exist: $missing"
}

assemble() {
	local parent tree d f blob mode n=0
	base_tree
	check_ownership
	export GIT_INDEX_FILE=$KSRC/.git/srv6-oam-index
	rm -f "$GIT_INDEX_FILE"
	parent=$(g rev-parse base)
	g read-tree "$parent"
	for d in "$SERIES"/[0-9]*/; do
		d=${d%/}
		[ -s "$d/message" ] || die "$d has no message"
		if [ -s "$d/upstream.diff" ]; then
			g apply --cached --whitespace=error-all "$d/upstream.diff" ||
				die "$(basename "$d")/upstream.diff does not apply"
		fi
		if [ -f "$d/files" ]; then
			for f in $(sed -e 's/#.*//' "$d/files"); do
				blob=$(git -C "$KSRC" hash-object -w "$TOP/$f")
				mode=100644
				[ -x "$TOP/$f" ] && mode=100755
				g update-index --add --cacheinfo "$mode,$blob,$f"
			done
		fi
		tree=$(g write-tree)
		parent=$(g commit-tree "$tree" -p "$parent" -F "$d/message")
		n=$((n + 1))
	done
	unset GIT_INDEX_FILE
	g update-ref refs/heads/srv6-oam "$parent"
	g checkout -q -f srv6-oam
	log "srv6-oam = base + $n patches ($(g rev-parse --short HEAD))"
}

series() {
	local out=$1 cover subject
	assemble
	rm -rf "$out"
	mkdir -p "$out"
	g format-patch -q --cover-letter --base=base --thread=shallow \
		-o "$out" base..srv6-oam
	cover=$(ls "$out"/0000-cover-letter.patch)
	subject=$(head -n 1 "$SERIES/cover-letter")
	python3 - "$cover" "$SERIES/cover-letter" "$subject" "$(cat "$KSRC/.git/srv6-oam-base")" <<-'PY'
	import sys
	path, body_path, subject, base = sys.argv[1:5]
	body = open(body_path).read().split("\n", 1)[1].strip("\n")
	body += ("\n\nBase: Debian's linux-source-6.12 " + base + ", unpacked and committed"
	         "\nas is (that commit is the base-commit below).")
	text = open(path).read()
	text = text.replace("*** SUBJECT HERE ***", subject)
	text = text.replace("*** BLURB HERE ***", body)
	open(path, "w").write(text)
	PY
	log "series written to $out"
}

case "${1:-}" in
assemble) assemble ;;
series) series "${2:?output directory}" ;;
*) die "usage: $0 assemble | series DIR" ;;
esac

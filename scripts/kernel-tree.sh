#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Assemble the kernel tree: a base (Debian's linux-source-6.12 unless BASE
# says otherwise) plus the series kept in this repository.
#
# The series is kernel-series/NNNN-slug/, one directory per patch, applied in
# order.  Each directory holds:
#   message        the commit message (subject, blank line, body, sign-off)
#   upstream.diff  optional: the patch's edits to files of the base, as a -p1
#                  unified diff
#   files          optional: the new files the patch adds, one in-tree path a
#                  line; their content is this repository's file at that path
# A new file belongs to exactly one patch (checked here), so the files at
# their in-tree paths in this repository are always the final state.  A
# later patch's upstream.diff may grow it (a helper of a selftest library
# that comes with its first user): the patch that adds the file adds it as
# it was before those hunks (grown_source).
#
# BASE (make BASE=..., scripts/fetch-sources.sh) is the tree the series is
# applied to: 6.12 (Debian's linux-source-6.12, $CACHE_DIR/versions.env),
# 6.12-vanilla or 6.1 ($CACHE_DIR/base-$BASE.env).  A base may have an
# overlay, kernel-series-$BASE/, holding only what differs there:
#   NNNN-slug/     a patch of the base's own (a prerequisite), inserted in
#                  order, or one that replaces whichever of message,
#                  upstream.diff and files it has of kernel-series/NNNN-slug;
#                  and, for this base only:
#                    omit          leave the patch out (the file says why)
#                    context N     apply upstream.diff with N lines of
#                                  context (git apply -CN): a patch whose
#                                  context only differs (lists in
#                                  Makefiles, index.rst), rebased as it is
#                                  assembled; the patch written out for
#                                  the base has full context again
#                    upstream-files  paths whose content the patch takes
#                                  from the 6.12 base (a backport of the
#                                  upstream commits that made them)
#                    ported-from   required with an upstream.diff that
#                                  replaces kernel-series' one: the git
#                                  blob id (git hash-object) of the
#                                  kernel-series upstream.diff it was
#                                  ported from; when that diff changes,
#                                  the assembly stops until the port is
#                                  redone and the id updated
#                    base.diff     applied after the rest, in the same
#                                  commit: what the base needs changed in
#                                  the patch's new files or hunks
#   tree/PATH      the content of the new file PATH on that base, where it
#                  differs from the repository's PATH
#   cover-letter   text added to the cover letter's for that base
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
BASE=${BASE:-6.12}
OVERLAY=$TOP/kernel-series-$BASE
if [ "$BASE" = 6.12 ]; then
	BASE_ENV=$CACHE_DIR/versions.env
else
	BASE_ENV=$CACHE_DIR/base-$BASE.env
fi
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

# What the base is, in words: "Debian's linux-source-6.12 6.12.117-1~deb12u1".
base_desc() {
	local desc
	desc=$(sed -n 's/^KERNEL_DESC=//p' "$BASE_ENV")
	# versions.env written before KERNEL_DESC existed
	[ -n "$desc" ] || desc="Debian's linux-source-6.12 $(sed -n 's/^KERNEL_DEB_VERSION=//p' "$BASE_ENV")"
	echo "$desc"
}

base_tree() {
	local tarball ver desc
	[ -s "$BASE_ENV" ] || die "no $BASE_ENV: run 'make BASE=$BASE fetch' first"
	tarball=$(sed -n 's/^KERNEL_TARBALL=//p' "$BASE_ENV")
	ver=$(sed -n 's/^KERNEL_DEB_VERSION=//p' "$BASE_ENV")
	desc=$(base_desc)
	if [ -d "$KSRC/.git" ] &&
	   [ "$(cat "$KSRC/.git/srv6-oam-base" 2>/dev/null)" = "$BASE $ver" ]; then
		return
	fi
	# A tree of 6.12 unpacked before BASE existed says only its version.
	if [ "$BASE" = 6.12 ] && [ -d "$KSRC/.git" ] &&
	   [ "$(cat "$KSRC/.git/srv6-oam-base" 2>/dev/null)" = "$ver" ]; then
		echo "$BASE $ver" > "$KSRC/.git/srv6-oam-base"
		return
	fi
	rm -rf "$KSRC"
	# The base's commit is the same in every checkout on this machine:
	# once made, it is kept in $CACHE_DIR/kernel/tree-BASE-VERSION.git,
	# and the tree of a later checkout (a fresh clone's: CI's) is checked
	# out of it, sharing its objects, instead of being unpacked and
	# hashed again (a minute and a half of one CPU).
	cache=$(dirname "$tarball")/tree-$(echo "$BASE-$ver" | tr '~:' '__').git
	if git -C "$cache" rev-parse -q --verify refs/heads/base > /dev/null 2>&1; then
		log "checking out $desc into $KSRC (from $cache)"
		git clone -q --shared --no-checkout --branch base "$cache" "$KSRC"
		g remote remove origin
		g config core.autocrlf false
		g config gc.auto 0
		g checkout -q -f base
	else
		log "unpacking $desc into $KSRC"
		mkdir -p "$KSRC"
		tar -xf "$tarball" -C "$KSRC" --strip-components=1
		g init -q -b base
		g config core.autocrlf false
		g config gc.auto 0
		g add -A -f .
		g commit -q -m "Base: $desc" -m \
			"Base of the srv6-oam series: $desc, unpacked and committed as is."
		# For the next tree: a bare copy (hard links to these objects),
		# renamed into place whole; a copy made meanwhile by another
		# checkout wins.
		rm -rf "$cache.$$"
		git clone -q --bare --branch base "$KSRC" "$cache.$$" &&
			mv -T "$cache.$$" "$cache" 2> /dev/null
		rm -rf "$cache.$$"
	fi
	g tag -f base-"$(echo "$BASE-$ver" | tr '~:' '__')" > /dev/null
	echo "$BASE $ver" > "$KSRC/.git/srv6-oam-base"
}

# The patches of this base, in order: the directories of kernel-series/ and
# of the overlay by name, the overlay's winning; each printed as
# "NAME SERIESDIR OVERLAYDIR" (either may be "-"), omitted ones left out.
patch_dirs() {
	local n
	{
		for d in "$SERIES"/[0-9]*/ "$OVERLAY"/[0-9]*/; do
			d=${d%/}
			basename "$d"
		done
	} | LC_ALL=C sort -u | while read -r n; do
		[ -e "$OVERLAY/$n/omit" ] && continue
		printf '%s %s %s\n' "$n" \
			"$([ -d "$SERIES/$n" ] && echo "$SERIES/$n" || echo -)" \
			"$([ -d "$OVERLAY/$n" ] && echo "$OVERLAY/$n" || echo -)"
	done
}

# check_port NAME SERIESDIR OVERLAYDIR: an overlay's upstream.diff that
# replaces the series' one is a port of that very diff: a change to the
# series' diff that the port does not carry would be lost on this base.
check_port() {
	local want have
	[ "$2" != - ] && [ -s "$2/upstream.diff" ] || return 0
	[ "$3" != - ] && [ -s "$3/upstream.diff" ] || return 0
	want=$(git hash-object "$2/upstream.diff")
	have=
	if [ -s "$3/ported-from" ]; then
		have=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$3/ported-from")
	fi
	[ -n "$have" ] ||
		die "$1: $3/upstream.diff replaces the series' one, but has no ported-from (its blob id: $want)"
	[ "$have" = "$want" ] ||
		die "$1: kernel-series/$1/upstream.diff changed since $3/upstream.diff was ported from it ($have, now $want): port the change, then write $want into $3/ported-from"
}

# part NAME SERIESDIR OVERLAYDIR: the patch's file NAME, the overlay's first.
part() {
	if [ "$3" != - ] && [ -e "$3/$1" ]; then
		echo "$3/$1"
	elif [ "$2" != - ] && [ -e "$2/$1" ]; then
		echo "$2/$1"
	fi
}

# upstream_fetch: the files that the overlay's patches take from the 6.12
# base (Debian's linux-source-6.12 of versions.env; their upstream-files),
# into $KSRC/.git/srv6-oam-upstream, all at once: from the tree that
# 6.12's make tree keeps in the cache if it is there, else in one pass over
# the tarball (each pass unpacks all of it: a minute of CPU time).
upstream_fetch() {
	local dir=$KSRC/.git/srv6-oam-upstream tarball ver top cache f
	local files=()

	for f in $(cat /dev/null "$OVERLAY"/[0-9]*/upstream-files | sed -e 's/#.*//'); do
		[ -e "$dir/$f" ] || files+=("$f")
	done
	[ "${#files[@]}" -gt 0 ] || return 0
	tarball=$(sed -n 's/^KERNEL_TARBALL=//p' "$CACHE_DIR/versions.env")
	ver=$(sed -n 's/^KERNEL_DEB_VERSION=//p' "$CACHE_DIR/versions.env")
	cache=$(dirname "$tarball")/tree-$(echo "6.12-$ver" | tr '~:' '__').git
	mkdir -p "$dir"
	if git -C "$cache" rev-parse -q --verify refs/heads/base > /dev/null 2>&1; then
		git -C "$cache" archive base -- "${files[@]}" | tar -x -C "$dir" ||
			die "${files[*]}: not all in $cache"
		return
	fi
	[ -s "$tarball" ] || die "no 6.12 tarball for ${files[*]}: run 'make fetch' first"
	# linux-source-6.12-VERSION.tar.xz holds linux-source-6.12/
	top=$(basename "$tarball")
	top=${top%-"$ver".tar.xz}
	tar -xJf "$tarball" -C "$dir" --strip-components=1 "${files[@]/#/$top/}" ||
		die "${files[*]}: not all in $tarball"
}

# upstream_file PATH: the file PATH of the 6.12 base (upstream_fetch).
upstream_file() {
	[ -e "$KSRC/.git/srv6-oam-upstream/$1" ] ||
		die "$1 is not in the overlay's upstream-files"
	echo "$KSRC/.git/srv6-oam-upstream/$1"
}

# source_of PATH: the content of new file PATH on this base.
source_of() {
	if [ -e "$OVERLAY/tree/$1" ]; then
		echo "$OVERLAY/tree/$1"
	else
		echo "$TOP/$1"
	fi
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

# grown_source PATH I: the content of new file PATH as the I-th patch (of
# the arrays names, diffs, ctxs) adds it: the repository's content with the
# hunks of the later patches' upstream.diff that grow it taken back, last
# first, in a file under $grow_dir; the repository's file itself where no
# later patch grows it.
grown_source() {
	local f=$1 i=$2 j src tmp=
	src=$(source_of "$f")
	for ((j = ${#diffs[@]} - 1; j > i; j--)); do
		[ -n "${diffs[j]}" ] && grep -qxF "+++ b/$f" "${diffs[j]}" || continue
		if [ -z "$tmp" ]; then
			tmp=$grow_dir/$i
			mkdir -p "$tmp/$(dirname "$f")"
			cp "$src" "$tmp/$f"
		fi
		# shellcheck disable=SC2086 # ctxs[j] is empty or one -CN
		(cd "$tmp" && git apply -R --include="$f" ${ctxs[j]} "${diffs[j]}") ||
			die "${names[j]}/upstream.diff does not come off $f (as ${names[i]} adds it)"
	done
	if [ -n "$tmp" ]; then echo "$tmp/$f"; else echo "$src"; fi
}

# index_add PATH SRC: PATH in the index, with SRC's content and mode.
index_add() {
	local blob mode=100644
	blob=$(git -C "$KSRC" hash-object -w "$2")
	[ -x "$2" ] && mode=100755
	g update-index --add --cacheinfo "$mode,$blob,$1"
}

assemble() {
	local parent tree n=0 name sdir odir msg diff files f ctx i
	local names=() sdirs=() odirs=() diffs=() ctxs=() grow_dir
	base_tree
	check_ownership
	upstream_fetch
	while read -r name sdir odir; do
		names+=("$name") sdirs+=("$sdir") odirs+=("$odir")
		diffs+=("$(part upstream.diff "$sdir" "$odir")")
		if [ "$odir" != - ] && [ -s "$odir/context" ]; then
			ctxs+=("-C$(cat "$odir/context")")
		else
			ctxs+=("")
		fi
	done < <(patch_dirs)
	grow_dir=$(mktemp -d "${TMPDIR:-/tmp}/kernel-tree.XXXXXX")
	# shellcheck disable=SC2064 # the directory is known now
	trap "rm -rf '$grow_dir'" EXIT
	export GIT_INDEX_FILE=$KSRC/.git/srv6-oam-index
	rm -f "$GIT_INDEX_FILE"
	parent=$(g rev-parse base)
	g read-tree "$parent"
	for ((i = 0; i < ${#names[@]}; i++)); do
		name=${names[i]} sdir=${sdirs[i]} odir=${odirs[i]} diff=${diffs[i]}
		msg=$(part message "$sdir" "$odir")
		files=$(part files "$sdir" "$odir")
		[ -n "$msg" ] && [ -s "$msg" ] || die "$name has no message"
		check_port "$name" "$sdir" "$odir"
		ctx=()
		[ -z "${ctxs[i]}" ] || ctx=("${ctxs[i]}")
		if [ -n "$diff" ] && [ -s "$diff" ]; then
			g apply --cached --whitespace=error-all "${ctx[@]}" "$diff" ||
				die "$name/upstream.diff does not apply to $(base_desc)"
		fi
		if [ "$odir" != - ] && [ -s "$odir/upstream-files" ]; then
			for f in $(sed -e 's/#.*//' "$odir/upstream-files"); do
				index_add "$f" "$(upstream_file "$f")"
			done
		fi
		if [ -n "$files" ]; then
			for f in $(sed -e 's/#.*//' "$files"); do
				index_add "$f" "$(grown_source "$f" "$i")"
			done
		fi
		if [ "$odir" != - ] && [ -s "$odir/base.diff" ]; then
			g apply --cached --whitespace=error-all "$odir/base.diff" ||
				die "$name/base.diff of $BASE does not apply"
		fi
		tree=$(g write-tree)
		parent=$(g commit-tree "$tree" -p "$parent" -F "$msg")
		n=$((n + 1))
	done
	unset GIT_INDEX_FILE
	g update-ref refs/heads/srv6-oam "$parent"
	g checkout -q -f srv6-oam
	log "srv6-oam = base ($BASE) + $n patches ($(g rev-parse --short HEAD))"
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
	python3 - "$cover" "$SERIES/cover-letter" "$subject" "$(base_desc)" \
		"$OVERLAY/cover-letter" <<-'PY'
	import os, sys
	path, body_path, subject, base, extra = sys.argv[1:6]
	body = open(body_path).read().split("\n", 1)[1].strip("\n")
	if os.path.exists(extra):
	    body += "\n\n" + open(extra).read().strip("\n")
	body += ("\n\nBase: " + base + ", unpacked and committed"
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

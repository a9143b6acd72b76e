#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series` (6.12 only): the kernel series split the way netdev and
# netfilter-devel take patches, as kernel-series/splits/order says: one
# `git format-patch` directory per split, OUT/N-NAME/, with its cover
# letter (kernel-series/splits/NAME), "[PATCH TREE]" subjects ("6.12.y"
# for a fix for the stable trees, Cc: stable@vger.kernel.org), and the
# recipients scripts/get_maintainer.pl gives for its patches: maintainers
# as To:, the rest (reviewers, lists) as Cc:, listed in the cover letter
# too.  Without a git history here, get_maintainer.pl cannot add the
# authors of the commits a Fixes: tag names (--no-fixes): who wrote
# 968691c777af is added by hand: kernel-series/splits/NAME.cc, when it
# exists, holds more recipients, "ADDRESS (WHY)" a line, Cc:'d too.
#
# A split is made by applying, to a clean copy of the base (branch base of
# $KSRC), the format-patch output of the splits it comes after, with
# git am, and cherry-picking its own commits of the assembled series on
# top.  Each split's patches carry base-commit and prerequisite-patch-id
# lines (git format-patch --base) naming what they apply on.
#
# Checks, each reported "ok" or "FAIL":
#   - every patch of the series is in exactly one split;
#   - each split's patches apply with git am onto the base and the splits
#     it comes after (themselves applied with git am), and give the tree
#     the cherry-picks gave;
#   - all the splits applied in their order give the tree of the
#     assembled series.
#
# usage: series-splits.sh OUT   (KSRC: the assembled tree)

set -euo pipefail
shopt -s nullglob

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
SPLITS=$TOP/kernel-series/splits
out=$(mkdir -p "$1" && realpath "$1")
rc=0

# Fixed dates, as kernel-tree.sh's: the same series gives the same patches.
export GIT_COMMITTER_NAME=${SERIES_AUTHOR_NAME:-"srv6-oam developers"}
export GIT_COMMITTER_EMAIL=${SERIES_AUTHOR_EMAIL:-"srv6-oam@lists.invalid"}
export GIT_COMMITTER_DATE="2026-11-23T00:00:00+00:00"

ok() { echo "  ok   $*"; }
fail() { echo "  FAIL $*"; rc=1; }

# The series' commits, in order, by patch number: the leading numbers of
# a patch's directory name, "0011" of 0011-seg6-end-x-oif ("0012-1" of a
# 0012-1-slug put in before 0012 without renumbering), in kernel-tree.sh's
# order.
declare -A commit_of
numbers=()
mapfile -t commits < <(git -C "$KSRC" rev-list --reverse base..srv6-oam)
mapfile -t names < <(cd "$TOP/kernel-series" && ls -d [0-9]*/ |
		     sed 's|/$||' | LC_ALL=C sort)
if [ "${#commits[@]}" -ne "${#names[@]}" ]; then
	echo "series-splits: $KSRC has ${#commits[@]} commits, kernel-series ${#names[@]} patches" >&2
	exit 1
fi
for i in "${!names[@]}"; do
	n=$(expr "${names[$i]}" : '\([0-9]\{4\}\(-[0-9]\{1,\}\)*\)-')
	if [ -z "$n" ] || [ -n "${commit_of[$n]:-}" ]; then
		echo "series-splits: kernel-series/${names[$i]}: no patch number of its own" >&2
		exit 1
	fi
	numbers+=("$n")
	commit_of[$n]=${commits[$i]}
done

declare -A tree_of after_of range_of dir_of
order=()
while read -r name tree after range; do
	order+=("$name")
	tree_of[$name]=$tree
	after_of[$name]=$after
	range_of[$name]=$range
	dir_of[$name]=$out/${#order[@]}-$name
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SPLITS/order")

# patches NAME: the patch numbers of split NAME, FIRST..LAST in the
# series' order.
patches() {
	local first=${range_of[$1]%..*} last=${range_of[$1]#*..} n in=0
	for n in "${numbers[@]}"; do
		[ "$n" = "$first" ] && in=1
		[ "$in" = 1 ] && echo "$n"
		[ "$n" = "$last" ] && [ "$in" = 1 ] && return
	done
	echo "series-splits: $1: $first..$last is not a range of the series" >&2
	echo "-"
}

echo "series-splits: every patch in one split"
declare -A seen
for name in "${order[@]}"; do
	for n in $(patches "$name"); do
		if [ -z "${commit_of[$n]:-}" ]; then
			fail "$name: patch $n is not in the series"
		elif [ -n "${seen[$n]:-}" ]; then
			fail "patch $n is in ${seen[$n]} and $name"
		fi
		seen[$n]=$name
	done
done
for n in "${!commit_of[@]}"; do
	[ -n "${seen[$n]:-}" ] || fail "patch $n is in no split"
done
[ "$rc" = 0 ] && ok "${#commit_of[@]} patches in ${#order[@]} splits"

wt=$(mktemp -d)
trap 'git -C "$KSRC" worktree remove --force "$wt" 2>/dev/null || true; rm -rf "$wt"' EXIT
git -C "$KSRC" worktree add -q --detach "$wt" base
w() { git -C "$wt" "$@"; }

# chain NAME: the splits NAME comes after (AFTER, and theirs), first
# first, each once.
chain() {
	_chain "$1" | awk '!seen[$0]++'
}

_chain() {
	local a
	[ "${after_of[$1]}" = - ] && return
	for a in ${after_of[$1]//,/ }; do
		_chain "$a"
		echo "$a"
	done
}

# am_split NAME: git am the patches of split NAME (written already).
am_split() {
	local p files=()
	for p in "${dir_of[$1]}"/*.patch; do
		case $p in */0000-cover-letter.patch) ;; *) files+=("$p") ;; esac
	done
	w am -q --whitespace=error-all "${files[@]}"
}

# at NAME: the worktree on the base and the splits NAME comes after.
at() {
	local a
	w am --abort > /dev/null 2>&1 || true
	w cherry-pick --abort > /dev/null 2>&1 || true
	w checkout -q -f --detach base
	for a in $(chain "$1"); do
		am_split "$a" || return 1
	done
}

echo "series-splits: git am of each split onto the base and the splits before it"
for name in "${order[@]}"; do
	dir=${dir_of[$name]}
	rm -rf "$dir"
	if ! at "$name"; then
		fail "$name: the splits it comes after do not apply"
		continue
	fi
	pre=$(w rev-parse HEAD)
	picked=1
	for n in $(patches "$name"); do
		if ! w cherry-pick "${commit_of[$n]}" > /dev/null 2>&1; then
			fail "$name: patch $n does not apply after $(chain "$name" | tr '\n' ' ')"
			picked=0
			break
		fi
	done
	[ "$picked" = 1 ] || continue
	head=$(w rev-parse HEAD)

	# Recipients, from the split's patches.
	tmp=$(mktemp -d)
	w format-patch -q -o "$tmp" "$pre..$head"
	(cd "$wt" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-fixes \
		"$tmp"/*.patch) > "$tmp/recipients"
	rm -f "$tmp"/*.patch
	to=() cc=()
	while IFS= read -r line; do
		addr=${line% (*}
		case $line in
		*"(maintainer:"*) to+=("--to=$addr") ;;
		*) cc+=("--cc=$addr") ;;
		esac
	done < "$tmp/recipients"
	if [ -f "$SPLITS/$name.cc" ]; then
		while IFS= read -r line; do
			cc+=("--cc=${line% (*}")
			echo "$line" >> "$tmp/recipients"
		done < <(sed -e '/^#/d' -e '/^[[:space:]]*$/d' "$SPLITS/$name.cc")
	fi
	# A split for a stable tree ("6.12.y") goes to the stable list.
	case ${tree_of[$name]} in
	*.y)
		cc+=("--cc=stable@vger.kernel.org")
		echo "stable@vger.kernel.org (the stable trees)" >> "$tmp/recipients"
		;;
	esac

	w format-patch -q --cover-letter --base=base --thread=shallow \
		--subject-prefix="PATCH ${tree_of[$name]}" "${to[@]}" "${cc[@]}" \
		-o "$dir" "$pre..$head"
	python3 - "$dir/0000-cover-letter.patch" "$SPLITS/$name" \
		"$tmp/recipients" "${after_of[$name]}" <<-'PY'
	import sys
	path, body_path, rcpt_path, after = sys.argv[1:5]
	subject, body = open(body_path).read().split("\n", 1)
	body = body.strip("\n")
	if after != "-":
	    body += ("\n\nIt applies on top of the part it names (the"
	             " prerequisite-patch-id lines\nbelow list every patch"
	             " before it).")
	rcpt = open(rcpt_path).read().strip("\n")
	body += ("\n\nRecipients (scripts/get_maintainer.pl --no-git; To: the"
	         " maintainers,\nCc: the rest):\n\n"
	         + "\n".join("  " + r for r in rcpt.splitlines()))
	text = open(path).read()
	text = text.replace("*** SUBJECT HERE ***", subject)
	text = text.replace("*** BLURB HERE ***", body)
	open(path, "w").write(text)
	PY
	nrcpt=$(grep -c . "$tmp/recipients" || true)
	rm -rf "$tmp"

	# What a maintainer does: git am onto the tree it applies to.
	w checkout -q -f --detach "$pre"
	if am_split "$name" &&
	   [ "$(w rev-parse 'HEAD^{tree}')" = "$(git -C "$KSRC" rev-parse "$head^{tree}")" ]; then
		ok "$(basename "$dir"): $(patches "$name" | wc -l) patches, [PATCH ${tree_of[$name]}], after ${after_of[$name]}, $nrcpt recipients"
	else
		fail "$(basename "$dir"): git am does not give the tree of its commits"
	fi
done

echo "series-splits: all the splits, in order, give the assembled series"
w am --abort > /dev/null 2>&1 || true
w checkout -q -f --detach base
all=1
for name in "${order[@]}"; do
	[ -d "${dir_of[$name]}" ] && am_split "$name" || { all=0; break; }
done
if [ "$all" = 1 ] &&
   [ "$(w rev-parse 'HEAD^{tree}')" = "$(git -C "$KSRC" rev-parse 'srv6-oam^{tree}')" ]; then
	ok "same tree as the assembled series"
else
	fail "the splits applied in order do not give the assembled series"
fi
exit $rc

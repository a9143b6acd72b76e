#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build and install the net selftests of the assembled tree the kselftest
# way, into DEST (run_kselftest.sh, kselftest-list.txt, net/, net/lib/), and
# check the result: every net/ (or net:) test of config/check-tests is in the
# installed list, and every file of ours under tools/testing/selftests/net
# (tests and the helpers they read: TEST_FILES) is installed, the same file.
#
# The build is upstream's: the selftests Makefile, as
#   make -C tools/testing/selftests TARGETS=net INSTALL_PATH=DEST install
# does it, in two steps so that two upstream programs can be left out (below):
# first the tree-wide part (runner, net/lib), then net itself.
#
# usage: kselftest-install.sh KSRC KHDR DEST
#   KHDR  the kernel's installed uapi headers (build/kbuild/usr/include)

set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$1 khdr=$2 dest=$3
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
sel=$ksrc/tools/testing/selftests
obj=$TOP/build/kselftest-build
[ "${BASE:-6.12}" = 6.12 ] || obj=$obj-$BASE
jobs=${JOBS:-$(nproc)}

# Upstream C programs of net that do not compile in linux 6.12.117, whatever
# we do (upstream's own build fails the same way): they are not built, and
# so not installed nor listed.  None of them is a test of ours or one that
# config/check-tests runs.
#   tls                 tls.c calls tls_crypto_info_init() with four
#                       arguments, its definition takes three (a backport
#                       of newer rekey tests without the helper's change)
#   reuseport_bpf_numa  uses bool, true and false without <stdbool.h>: an
#                       error with gcc before 15 (bookworm has gcc 12);
#                       it would also need libnuma-dev
nobuild="tls reuseport_bpf_numa"

die() { echo "kselftest-install: $*" >&2; exit 1; }
[ -d "$khdr/linux" ] || die "no uapi headers in $khdr (make kernel)"

common=(KHDR_INCLUDES="-isystem $khdr" CC="ccache gcc" FORCE_TARGETS=1)
rm -rf "$dest"
mkdir -p "$obj"

# The runner, net/lib and an empty list.  A tree without net/lib (6.1):
# the runner as its selftests Makefile's install rule installs it.
if [ -d "$sel/net/lib" ]; then
	make -s -C "$sel" -j"$jobs" TARGETS=net/lib O="$obj" INSTALL_PATH="$dest" \
		"${common[@]}" install > "$obj/lib.log" 2>&1 ||
		{ tail -n 30 "$obj/lib.log" >&2; die "net/lib: build or install failed (log: $obj/lib.log)"; }
else
	mkdir -p "$dest/kselftest"
	install -m 744 "$sel/kselftest/module.sh" "$sel/kselftest/runner.sh" \
		"$sel/kselftest/prefix.pl" "$dest/kselftest/"
	install -m 744 "$sel/run_kselftest.sh" "$dest/"
	: > "$dest/kselftest-list.txt"
fi

# net, with the TEST_GEN_PROGS its Makefile gives less those above: a value
# given on the command line must be the one lib.mk would make, with the
# output directory in front.
out=$obj/kselftest/net
# net/lib's build makes it on 6.12; on 6.1 nothing does, and lib.mk's
# link rule does not.
mkdir -p "$out"
progs=$(make -s --no-print-directory -C "$sel/net" OUTPUT="$out" \
	--eval 'ksft-gen-progs: ; @echo $(TEST_GEN_PROGS)' ksft-gen-progs)
keep=()
for p in $progs; do
	case " $nobuild " in *" $(basename "$p") "*) continue ;; esac
	keep+=("$p")
done
[ "${#keep[@]}" -gt 0 ] || die "no TEST_GEN_PROGS in net/Makefile"
make -C "$sel/net" -j"$jobs" OUTPUT="$out" INSTALL_PATH="$dest/net" \
	SRC_PATH="$(readlink -e "$sel")" OBJ_PATH="$dest" \
	TEST_GEN_PROGS="${keep[*]}" "${common[@]}" install > "$obj/net.log" 2>&1 ||
	{ grep -E -B5 'error|\*\*\*' "$obj/net.log" | tail -n 40 >&2; die "net: build or install failed (log: $obj/net.log)"; }
make -s --no-print-directory -C "$sel/net" OUTPUT="$out" COLLECTION=net \
	TEST_GEN_PROGS="${keep[*]}" emit_tests >> "$dest/kselftest-list.txt"
echo "kselftest-install: net installed in $dest ($(grep -c '^net:' "$dest/kselftest-list.txt") tests; not built: $nobuild)"

# The check.  On a base other than 6.12, the tests it does not run
# (config/check-skip-BASE) are not looked for, and the files of ours are
# those the assembled tree has (a patch left out on that base has none).
skipfile=$TOP/config/check-skip-${BASE:-6.12}
bad=0
while read -r t; do
	case $t in
	net/*) k=net:${t#net/} ;;
	net:*) k=$t ;;
	*) continue ;;
	esac
	[ -f "$skipfile" ] && cut -f1 "$skipfile" | grep -xF "$t" > /dev/null && continue
	grep -qxF "$k" "$dest/kselftest-list.txt" ||
		{ echo "kselftest-install: $t is not in kselftest-list.txt (TEST_PROGS)" >&2; bad=1; }
done < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$TOP/config/check-tests")
# The files of ours: those under version control when this is a git
# checkout (not what running the tests left behind, e.g. __pycache__).
ours=$(cd "$TOP" && { git ls-files tools/testing/selftests/net 2> /dev/null ||
	ls -d tools/testing/selftests/net/*; } | sed 's|^tools/testing/selftests/net/||' | grep -v /)
nours=0
for n in $ours; do
	f=$ksrc/tools/testing/selftests/net/$n
	if [ "${BASE:-6.12}" != 6.12 ] && [ ! -e "$f" ]; then
		continue
	fi
	nours=$((nours + 1))
	if ! cmp -s "$f" "$dest/net/$n"; then
		echo "kselftest-install: net/$n is not installed (TEST_PROGS or TEST_FILES)" >&2
		bad=1
	elif [ -x "$f" ] && [ ! -x "$dest/net/$n" ]; then
		echo "kselftest-install: net/$n is installed without its execute bit" >&2
		bad=1
	fi
	case $n in
	*_test.sh) grep -qxF "net:$n" "$dest/kselftest-list.txt" ||
		{ echo "kselftest-install: net/$n is not in kselftest-list.txt (TEST_PROGS)" >&2; bad=1; } ;;
	esac
done
[ "$bad" = 0 ] || die "the installed tree lacks tests or files (see above)"
echo "kselftest-install: every net/ test of config/check-tests is listed, our $nours files are installed"

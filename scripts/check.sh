#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: boot the srv6-oam kernel and run the selftests in it.
#
# The tests are those of config/check-tests (ours and the upstream ones that
# cover code we touch), or the ones named in $TESTS.  Prints TAP, one line per
# test, then the closing line "N passed, N failed, N skipped"; the same lines
# (not the end of each failed test's log printed before the closing line) go
# to RESULTS/summary.txt as well, to outlive stdout.  Exits non-zero
# when a test failed or timed out, when the guest did not boot or did not run
# every test, and when a test was skipped (a skip is never a pass: in our guest
# everything a test needs is there; ALLOW_SKIP=1 relaxes this).
#
# $FUZZ_COUNT and $FUZZ_SEED, $NLFUZZ_COUNT and $NLFUZZ_SEED, when set,
# go to the guest's tests (net/srv6_fuzz_test.sh, net/srv6_nlfuzz_test.sh).
# $GCOV_OUT, a directory, has the guest copy the gcov counts there after
# the last test (make coverage).
# $MODULES_DIR, the INSTALL_MOD_PATH of the kernel's modules (make
# check-modules), is mounted on the guest's /lib/modules.
# $HELPERS, when set, replaces the list of C helpers (config/check-helpers).
# $KSFT is the installed kselftest tree (scripts/kselftest-install.sh) that
# tests named COLLECTION:TEST are run from, by its run_kselftest.sh.
# $BASE (make BASE=...): the tests config/check-skip-BASE lists are not
# run on that base; each is reported as a skip with the reason given there,
# and those skips, and only those, do not fail the run.
#
# usage: check.sh BZIMAGE KSRC PREFIX RESULTS

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
bzimage=$1 ksrc=$2 prefix=$3 results=$4
stage=$TOP/build/selftests
[ "${BASE:-6.12}" = 6.12 ] || stage=$stage-$BASE

if [ -n "${TESTS:-}" ]; then
	read -r -a tests <<< "$TESTS"
else
	mapfile -t tests < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$TOP/config/check-tests")
fi
[ "${#tests[@]}" -gt 0 ] || { echo "check: no tests" >&2; exit 2; }

# The tests this base does not run, and why.
declare -A base_skip
skipfile=$TOP/config/check-skip-${BASE:-6.12}
if [ -f "$skipfile" ]; then
	while IFS=$'\t' read -r t reason; do
		base_skip[$t]=${reason:-no reason given}
	done < <(sed -e 's/^#.*//' -e '/^[[:space:]]*$/d' "$skipfile")
fi
all_tests=("${tests[@]}")
tests=()
for t in "${all_tests[@]}"; do
	[ -n "${base_skip[$t]+set}" ] || tests+=("$t")
done

# Stage the selftests of the assembled tree and build their C helpers against
# its uapi headers.
rm -rf "$stage" "$results"
mkdir -p "$stage" "$results"
cp -a "$ksrc/tools/testing/selftests/net" "$ksrc/tools/testing/selftests/kselftest" \
	"$ksrc/tools/testing/selftests/kselftest.h" "$stage"/
for t in "${tests[@]}"; do
	case $t in
	@*) [ -x "$TOP/${t#@}" ] || { echo "check: no test $t in this repository" >&2; exit 2; } ;;
	*/*) [ -e "$stage/$t" ] || { echo "check: no test $t in the tree" >&2; exit 2; } ;;
	*:*) [ -n "${KSFT:-}" ] && grep -qxF "$t" "$KSFT/kselftest-list.txt" ||
		{ echo "check: $t is not in ${KSFT:-(no KSFT)}/kselftest-list.txt" >&2; exit 2; } ;;
	*) echo "check: $t: neither a path nor COLLECTION:TEST" >&2; exit 2 ;;
	esac
done
hdr=${KHDR:-$TOP/build/kbuild/usr/include}
while read -r helper; do
	[ -n "$helper" ] || continue
	gcc -Wall -O2 -I"$hdr" -o "$stage/net/$helper" "$stage/net/$helper.c" ||
		{ echo "check: cannot build $helper" >&2; exit 2; }
done < <(if [ -n "${HELPERS+set}" ]; then printf '%s\n' $HELPERS; else
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/config/check-helpers"; fi)

"$TOP/scripts/vm.sh" "$bzimage" --rwdir "$results" -- \
	env KSRC="$ksrc" SPLATS="${SPLATS:-0}" KSFT="${KSFT:-}" SELFTEST_TIMEOUT="${SELFTEST_TIMEOUT:-1500}" \
	${FUZZ_COUNT:+FUZZ_COUNT=$FUZZ_COUNT} ${FUZZ_SEED:+FUZZ_SEED=$FUZZ_SEED} \
	${NLFUZZ_COUNT:+NLFUZZ_COUNT=$NLFUZZ_COUNT} ${NLFUZZ_SEED:+NLFUZZ_SEED=$NLFUZZ_SEED} \
	${GCOV_OUT:+GCOV_OUT=$GCOV_OUT} ${MODULES_DIR:+MODULES_DIR=$MODULES_DIR} \
	${IPSET_TIME_SCALE:+IPSET_TIME_SCALE=$IPSET_TIME_SCALE} ${IPSET_TESTS:+IPSET_TESTS=${IPSET_TESTS// /,}} \
	"$TOP/scripts/guest-check.sh" "$results" "$stage" "$prefix" "${tests[@]}"
echo "check: guest exited with $? (vng's status is not used)"

# A test's log: logs/PATH.log, "/" turned into ":"; logs/kselftest:C:T.log
# for a test C:T the runner ran.
logof() {
	local l=${1#@}
	case $1 in *:*) [[ $1 == */* ]] || l=kselftest:$1 ;; esac
	echo "$results/logs/${l//\//:}.log"
}

# SPLATS=1 (make check-debug): the kernel log of the boot and the guest's
# kmemleak scan after the last test are two more results.  The base's
# skips are reported in their place.
tests=("${all_tests[@]}")
[ "${SPLATS:-0}" = 1 ] && tests=(boot "${tests[@]}" kmemleak)
# say LINE: a line of the summary, on stdout and in summary.txt.
summary=$results/summary.txt
: > "$summary"
say() {
	printf '%s\n' "$1"
	printf '%s\n' "$1" >> "$summary"
}

pass=0 fail=0 skip=0 bskip=0 n=0
say "TAP version 13"
say "1..${#tests[@]}"
[ -s "$results/uname" ] && say "# kernel under test: $(cat "$results/uname")"
declare -A got
if [ -f "$results/record" ]; then
	while read -r res rc secs t; do
		got[$t]="$res $rc $secs"
	done < "$results/record"
fi
for t in "${tests[@]}"; do
	n=$((n + 1))
	if [ -n "${base_skip[$t]+set}" ]; then
		say "ok $n selftests: $t # SKIP on ${BASE:-6.12}: ${base_skip[$t]}"
		skip=$((skip + 1)) bskip=$((bskip + 1))
		continue
	fi
	read -r res rc secs <<< "${got[$t]:-none - -}"
	case $res in
	pass) say "ok $n selftests: $t # ${secs}s"; pass=$((pass + 1)) ;;
	skip) say "ok $n selftests: $t # SKIP"; skip=$((skip + 1)) ;;
	timeout) say "not ok $n selftests: $t # TIMEOUT after ${secs}s"; fail=$((fail + 1)) ;;
	fail) say "not ok $n selftests: $t # exit=$rc, log: $(logof "$t")"; fail=$((fail + 1)) ;;
	*) say "not ok $n selftests: $t # not run: the guest did not get to it"; fail=$((fail + 1)) ;;
	esac
done
[ -f "$results/complete" ] || say "# the guest did not finish the run"
# The end of each failed test's log, so that a CI log that keeps only the
# end of the output still says why.
for t in "${tests[@]}"; do
	read -r res rc secs <<< "${got[$t]:-none - -}"
	[ "$res" = fail ] || [ "$res" = timeout ] || continue
	log=$(logof "$t")
	[ -f "$log" ] || continue
	echo "# --- the last 40 lines of $t's log"
	tail -n 40 "$log" | sed 's/^/# /'
done
say "$pass passed, $fail failed, $skip skipped"

[ "$fail" = 0 ] || exit 1
[ -f "$results/complete" ] || exit 1
[ "$bskip" = 0 ] || say "# $bskip of the skips: tests this base does not run ($(basename "$skipfile"))"
[ "$skip" = "$bskip" ] || [ "${ALLOW_SKIP:-0}" = 1 ] || { say "# skips are failures here (ALLOW_SKIP=1 to allow)"; exit 1; }
exit 0

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
# The last run's time table, before its results go: it balances this one.
prev_times=$(mktemp)
trap 'rm -f "$prev_times"' EXIT
cp "$results/times.tsv" "$prev_times" 2> /dev/null || : > "$prev_times"
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

# The guests: CHECK_GUESTS of them (2: a TCG guest keeps about one of the
# host's CPUs busy) run side by side, each with its results in
# RESULTS/guestN (record, logs, console.log); the host's guest slots
# (VM_SLOTS, scripts/vm.sh) say how many boot at once.  Each guest goes
# through all the tests, longest first, and runs the next one that no
# guest has claimed yet (a directory in RESULTS/claims: mkdir is atomic on
# the host), so the guests end together even when one of them boots late,
# waiting for a slot that another part of CI holds.  The expected times are
# those of the last run of this RESULTS (its times.tsv) where there is
# one, else config/check-times-BASE for the tests it lists on a BASE other
# than 6.12, else config/check-times; a test in none counts 60 s.
# GCOV_OUT wants the counts of one kernel: one guest.
ngu=${CHECK_GUESTS:-2}
[ -z "${GCOV_OUT:-}" ] || ngu=1
[ "$ngu" -le "${#tests[@]}" ] || ngu=${#tests[@]}
# Each guest gets its share of the host's CPUs as vCPUs (VM_CPUS
# overrides): two guests side by side on two CPUs get one each.  More
# vCPUs than the host has CPUs for them cost TCG far more than they give:
# the same four tests in two guests side by side took 525 s with two
# vCPUs each, 350 s with one.
vcpus=${VM_CPUS:-$(( $(nproc) / ngu ))}
[ "$vcpus" -ge 1 ] || vcpus=1
declare -A expect
while IFS=$'\t' read -r t secs; do
	[[ $secs =~ ^[0-9]+ ]] && expect[$t]=${BASH_REMATCH[0]}
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/config/check-times" \
		"$TOP/config/check-times-${BASE:-6.12}" 2> /dev/null
	 [ -s "$prev_times" ] && awk -F'\t' 'NR > 1 { print $1 "\t" $3 }' "$prev_times")
queue=()
while read -r _ t; do
	queue+=("$t")
done < <(for t in "${tests[@]}"; do echo "${expect[$t]:-60} $t"; done | sort -s -k1,1nr)
claims=$results/claims
mkdir -p "$claims"
# The queue goes to the guests in a file: virtme-ng hands the guest its
# command on the kernel's command line, which 26 test names overflow.
printf '%s\n' "${queue[@]}" > "$results/queue"

# run_guest N: guest N runs the tests of the queue that it claims first.
run_guest() {
	local g=$1 dir=$results/guest$1 sfx=
	[ "$ngu" = 1 ] || sfx=-g$g
	mkdir -p "$dir"
	VM_CPUS=$vcpus "$TOP/scripts/vm.sh" "$bzimage" --rwdir "$dir" --rwdir "$claims" -- \
	env KSRC="$ksrc" SPLATS="${SPLATS:-0}" SPLAT_SUFFIX="$sfx" KSFT="${KSFT:-}" \
	SELFTEST_TIMEOUT="${SELFTEST_TIMEOUT:-1500}" XTRACE="${XTRACE:-0}" \
	CLAIMS="$claims" QUEUE="$results/queue" \
	${FUZZ_COUNT:+FUZZ_COUNT=$FUZZ_COUNT} ${FUZZ_SEED:+FUZZ_SEED=$FUZZ_SEED} \
	${NLFUZZ_COUNT:+NLFUZZ_COUNT=$NLFUZZ_COUNT} ${NLFUZZ_SEED:+NLFUZZ_SEED=$NLFUZZ_SEED} \
	${GCOV_OUT:+GCOV_OUT=$GCOV_OUT} ${MODULES_DIR:+MODULES_DIR=$MODULES_DIR} \
	${IPSET_TIME_SCALE:+IPSET_TIME_SCALE=$IPSET_TIME_SCALE} ${IPSET_TESTS:+IPSET_TESTS=${IPSET_TESTS// /,}} \
	"$TOP/scripts/guest-check.sh" "$dir" "$stage" "$prefix" 2>&1 |
		tee "$dir/console.log" | { if [ "$ngu" = 1 ]; then cat; else sed -u "s/^/[guest $g] /"; fi; }
	echo "${PIPESTATUS[0]}" > "$dir/.vm-status"
}
run_start=$EPOCHREALTIME
pids=()
total=0
for t in "${queue[@]}"; do total=$((total + ${expect[$t]:-60})); done
[ "$ngu" = 1 ] ||
	echo "check: ${#queue[@]} tests, about ${total}s, longest first, in $ngu guests"
for ((g = 1; g <= ngu; g++)); do
	run_guest "$g" &
	pids+=($!)
done
wait "${pids[@]}"
run_secs=$(awk -v a="$run_start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')

# One result of them all: the record, the logs, the times; complete when
# every guest completed.
mkdir -p "$results/logs"
: > "$results/record"
: > "$results/times"
complete=1
for ((g = 1; g <= ngu; g++)); do
	dir=$results/guest$g
	st=$(cat "$dir/.vm-status" 2> /dev/null)
	if [ "$ngu" = 1 ]; then
		echo "check: guest exited with $st (vng's status is not used)"
	else
		echo "check: guest $g exited with $st (vng's status is not used)"
	fi
	cat "$dir/record" >> "$results/record" 2> /dev/null
	[ ! -f "$dir/times" ] || sed "s/^/$g /" "$dir/times" >> "$results/times"
	[ ! -d "$dir/logs" ] || cp -a "$dir/logs/." "$results/logs/"
	[ ! -d "$dir/traces" ] || { mkdir -p "$results/traces" && cp -a "$dir/traces/." "$results/traces/"; }
	[ -f "$dir/complete" ] || complete=0
	[ -s "$results/uname" ] || cp "$dir/uname" "$results/uname" 2> /dev/null
done
[ "$complete" = 0 ] || echo complete > "$results/complete"

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
if [ "${SPLATS:-0}" = 1 ]; then
	if [ "$ngu" = 1 ]; then
		tests=(boot "${tests[@]}" kmemleak)
	else
		pre=() post=()
		for ((g = 1; g <= ngu; g++)); do pre+=("boot-g$g") post+=("kmemleak-g$g"); done
		tests=("${pre[@]}" "${tests[@]}" "${post[@]}")
	fi
fi
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
	# (a line without a test's name, e.g. one a guest cut short, is
	# skipped: an empty subscript would end the loop)
	while read -r res rc secs t; do
		[ -n "$t" ] || continue
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
for ((g = 1; g <= ngu; g++)); do
	[ -f "$results/guest$g/complete" ] && continue
	if [ "$ngu" = 1 ]; then
		say "# the guest did not finish the run"
	else
		say "# guest $g did not finish the run"
	fi
done
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
# The time table: a line per test that ran, longest first, its wall time
# (in the guest, whose clock under TCG is the host's), the CPU time the
# guest spent on it (every vCPU's busy time, /proc/stat: how much of the
# wall time was work rather than waiting) and its share of the tests' wall
# time; in RESULTS/times.tsv too, for the next change to compare with and
# the next run's split.  A test the guest kept no time of has its record's
# seconds and no CPU time.
declare -A tguest twall tcpu
while read -r g wall cpu t; do
	[ -n "$t" ] || continue
	tguest[$t]=$g twall[$t]=$wall tcpu[$t]=$cpu
done < "$results/times"
for t in "${tests[@]}"; do
	read -r res rc secs <<< "${got[$t]:-none - -}"
	[ "$res" != none ] && [ -z "${twall[$t]+set}" ] || continue
	tguest[$t]=1 twall[$t]=$secs tcpu[$t]=-
done
for t in "${tests[@]}"; do
	[ -n "${twall[$t]+set}" ] || continue
	printf '%s\t%s\t%s\t%s\n' "$t" "${tguest[$t]}" "${twall[$t]}" "${tcpu[$t]}"
done | sort -t$'\t' -s -k3,3gr | awk -F'\t' -v out="$results/times.tsv" \
	-v ngu="$ngu" -v run="${run_secs:-0}" '
	{ t[NR] = $1; g[NR] = $2; w[NR] = $3; c[NR] = $4; sum += $3; per[$2] += $3 }
	END {
		print "test\tguest\twall_s\tcpu_s\tshare_pct" > out
		printf "# time table (%s), longest first\n", out
		printf "#  %7s %7s %6s %5s  %s\n", "wall_s", "cpu_s", "share", "guest", "test"
		for (i = 1; i <= NR; i++) {
			share = sum > 0 ? 100 * w[i] / sum : 0
			printf "%s\t%s\t%s\t%s\t%.1f\n", t[i], g[i], w[i], c[i], share > out
			printf "#  %7s %7s %5.1f%% %5s  %s\n", w[i], c[i], share, g[i], t[i]
		}
		line = sprintf("# %d tests, %.0fs in all", NR, sum)
		if (ngu > 1) {
			for (i = 1; i <= ngu; i++)
				line = line sprintf("; guest %d %.0fs", i, per[i])
			line = line sprintf("; the guests side by side %ss", run)
		}
		print line
	}' | while IFS= read -r l; do say "$l"; done
say "$pass passed, $fail failed, $skip skipped"

[ "$fail" = 0 ] || exit 1
[ -f "$results/complete" ] || exit 1
[ "$bskip" = 0 ] || say "# $bskip of the skips: tests this base does not run ($(basename "$skipfile"))"
[ "$skip" = "$bskip" ] || [ "${ALLOW_SKIP:-0}" = 1 ] || { say "# skips are failures here (ALLOW_SKIP=1 to allow)"; exit 1; }
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of scripts/check.sh's report (make check-host; no guest, no
# privileges): what it prints from the guest's record of results, and the
# copy of it it keeps in RESULTS/summary.txt.  check.sh is run from a
# throw-away copy of the repository's scripts directory whose vm.sh, instead
# of booting a guest, writes the record a guest would have written; the
# selftests are empty files of a fake kernel tree.
#
# stdout must be exactly what CI and the README expect (TAP, the end of a
# failed test's log, the closing line "N passed, N failed, N skipped"),
# summary.txt the same lines but the log's, and the exit status the
# verdict.  Prints TEST: lines like the other host tests.  Exit 0 when
# every check passed, 1 otherwise.

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/hosttest.sh
. "$TOP/scripts/hosttest.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-summary.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/top/scripts" "$tmp/ksrc/tools/testing/selftests/net" \
	"$tmp/ksrc/tools/testing/selftests/kselftest"
cp "$TOP/scripts/check.sh" "$tmp/top/scripts/"
touch "$tmp/ksrc/tools/testing/selftests/kselftest.h"
for t in a b c d e; do
	touch "$tmp/ksrc/tools/testing/selftests/net/$t.sh"
done

# The guest: vm.sh BZIMAGE --rwdir DIR -- env ... guest-check.sh DIR STAGE
# PREFIX TEST...; writes the lines of $FAKE_RECORD that are of its TESTs as
# DIR/record (and DIR/ran: its TESTs), their times (the record's seconds,
# a tenth of them as CPU time) unless FAKE_NOTIMES=1, a log for each failed
# test, the kernel release, and DIR/complete unless FAKE_INCOMPLETE=1.
cat > "$tmp/top/scripts/vm.sh" <<'EOF'
#!/bin/bash
set -eu
results=$3
claims= queue=
while [ $# -gt 0 ] && [[ $1 != */guest-check.sh ]]; do
	case $1 in
	CLAIMS=*) claims=${1#CLAIMS=} ;;
	QUEUE=*) queue=${1#QUEUE=} ;;
	esac
	shift
done
shift 4
[ -z "$queue" ] || mapfile -t tests < "$queue"
[ -z "$queue" ] || set -- "${tests[@]}"
# FAKE_LATE=1: guest 2 boots when guest 1 is done
if [ "${FAKE_LATE:-0}" = 1 ] && [[ $results == */guest2 ]]; then
	while [ ! -e "${results%2}1/complete" ]; do sleep 0.1; done
fi
# the tests it claims, as guest-check.sh does
mine=()
for t in "$@"; do
	[ -z "$claims" ] || mkdir "$claims/${t//\//:}" 2> /dev/null || continue
	mine+=("$t")
done
set -- "${mine[@]}"
mkdir -p "$results/logs"
echo "$*" > "$results/ran"
: > "$results/record"
: > "$results/times"
# FAKE_TORN=1: a line cut short at the top of each file (one a guest that
# died while writing it would leave, in another guest's file before this)
[ "${FAKE_TORN:-0}" = 0 ] || { echo "pass 0" >> "$results/record"; echo "1.0" >> "$results/times"; }
while read -r res rc secs t; do
	[ -n "$t" ] && [[ " $* " == *" $t "* ]] || continue
	echo "$res $rc $secs $t" >> "$results/record"
	[ "${FAKE_NOTIMES:-0}" = 1 ] ||
		echo "$secs.0 $((secs / 10)).$((secs % 10)) $t" >> "$results/times"
	[ "$res" = fail ] || continue
	printf 'setting up\n%s says why (exit %s)\n' "$t" "$rc" > "$results/logs/${t//\//:}.log"
done <<< "$FAKE_RECORD"
echo 6.12.117-srv6-oam+ > "$results/uname"
[ "${FAKE_INCOMPLETE:-0}" = 1 ] || echo complete > "$results/complete"
EOF
chmod +x "$tmp/top/scripts/vm.sh"

# run NAME TESTS RECORD: check.sh on them (one guest, unless CHECK_GUESTS
# says otherwise); stdout in $tmp/NAME.out, its exit status in $rc, results
# in $tmp/NAME.  summary.txt is there beforehand, stale, as a previous run
# leaves it.
run() {
	local name=$1 tests=$2 record=$3
	mkdir -p "$tmp/$name"
	echo "1 passed, 0 failed, 0 skipped" > "$tmp/$name/summary.txt"
	FAKE_RECORD=$record TESTS=$tests HELPERS="" KSFT="" CHECK_GUESTS=${CHECK_GUESTS:-1} \
		"$tmp/top/scripts/check.sh" none "$tmp/ksrc" "$tmp/prefix" "$tmp/$name" \
		> "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
}

# table NAME LINE...: the head of NAME's time table, then its LINEs.
table() {
	local name=$1
	shift
	printf '# time table (%s), longest first\n' "$tmp/$name/times.tsv"
	printf '#   wall_s   cpu_s  share guest  test\n'
	printf '%s\n' "$@"
}

# expect NAME WHAT STATUS [SUMMARY]: stdout is $out, summary.txt is SUMMARY
# (by default $out without its first line, the guest's exit status), the
# exit status is STATUS.
expect() {
	local name=$1 what=$2 status=$3 want_sum
	want_sum=${4-$(sed 1d <<< "$out")}
	check "$what: stdout" "$([ "$(cat "$tmp/$name.out")" = "$out" ] && echo 1)" \
		"$(diff <(echo "$out") "$tmp/$name.out"; cat "$tmp/$name.err")"
	check "$what: summary.txt" \
		"$([ -f "$tmp/$name/summary.txt" ] && [ "$(cat "$tmp/$name/summary.txt")" = "$want_sum" ] && echo 1)" \
		"$(diff <(echo "$want_sum") "$tmp/$name/summary.txt" 2>&1)"
	check "$what: exit status $status" "$([ "$rc" = "$status" ] && echo 1)" "exit status $rc"
}

run mixed "net/a.sh net/b.sh net/c.sh net/d.sh net/e.sh" "pass 0 12 net/a.sh
fail 1 3 net/b.sh
skip 4 1 net/c.sh
timeout 124 1500 net/d.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..5
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 12s
not ok 2 selftests: net/b.sh # exit=1, log: $tmp/mixed/logs/net:b.sh.log
ok 3 selftests: net/c.sh # SKIP
not ok 4 selftests: net/d.sh # TIMEOUT after 1500s
not ok 5 selftests: net/e.sh # not run: the guest did not get to it
# --- the last 40 lines of net/b.sh's log
# setting up
# net/b.sh says why (exit 1)
$(table mixed \
'#   1500.0   150.0  98.9%     1  net/d.sh' \
'#     12.0     1.2   0.8%     1  net/a.sh' \
'#      3.0     0.3   0.2%     1  net/b.sh' \
'#      1.0     0.1   0.1%     1  net/c.sh' \
'# 4 tests, 1516s in all')
1 passed, 3 failed, 1 skipped"
expect mixed "a pass, a fail, a skip, a timeout, one not run" 1 "$(sed -e 1d \
	-e '/^# --- the last 40 lines/d' -e '/^# setting up/d' -e '/says why/d' <<< "$out")"

run pass "net/a.sh net/b.sh" "pass 0 5 net/a.sh
pass 0 7 net/b.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..2
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
ok 2 selftests: net/b.sh # 7s
$(table pass \
'#      7.0     0.7  58.3%     1  net/b.sh' \
'#      5.0     0.5  41.7%     1  net/a.sh' \
'# 2 tests, 12s in all')
2 passed, 0 failed, 0 skipped"
expect pass "every test passed" 0

# The same with a line cut short in the record and the times: it is
# skipped, the tests before and after it are counted.
FAKE_TORN=1 run torn "net/a.sh net/b.sh" "pass 0 5 net/a.sh
pass 0 7 net/b.sh
"
out=${out//"$tmp/pass/"/"$tmp/torn/"}
expect torn "a record line cut short is skipped" 0

run skip "net/a.sh net/c.sh" "pass 0 5 net/a.sh
skip 4 0 net/c.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..2
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
ok 2 selftests: net/c.sh # SKIP
$(table skip \
'#      5.0     0.5 100.0%     1  net/a.sh' \
'#      0.0     0.0   0.0%     1  net/c.sh' \
'# 2 tests, 5s in all')
1 passed, 0 failed, 1 skipped
# skips are failures here (ALLOW_SKIP=1 to allow)"
expect skip "a skip fails the run" 1

# A base's skips (config/check-skip-BASE): not run (net/z.sh is not even
# in the tree), reported as skips with their reason, in their place; they
# alone do not fail the run, another skip still does.
mkdir -p "$tmp/top/config"
printf '# comment\nnet/z.sh\tnot on this base\n@x/y.sh\tneither\n' > "$tmp/top/config/check-skip-9.9"
BASE=9.9 run baseskip "net/a.sh net/z.sh @x/y.sh net/b.sh" "pass 0 5 net/a.sh
pass 0 6 net/b.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..4
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
ok 2 selftests: net/z.sh # SKIP on 9.9: not on this base
ok 3 selftests: @x/y.sh # SKIP on 9.9: neither
ok 4 selftests: net/b.sh # 6s
$(table baseskip \
'#      6.0     0.6  54.5%     1  net/b.sh' \
'#      5.0     0.5  45.5%     1  net/a.sh' \
'# 2 tests, 11s in all')
2 passed, 0 failed, 2 skipped
# 2 of the skips: tests this base does not run (check-skip-9.9)"
expect baseskip "a base's skips are reported with their reason, and pass" 0

BASE=9.9 run baseskip2 "net/a.sh net/z.sh net/c.sh" "pass 0 5 net/a.sh
skip 4 0 net/c.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..3
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
ok 2 selftests: net/z.sh # SKIP on 9.9: not on this base
ok 3 selftests: net/c.sh # SKIP
$(table baseskip2 \
'#      5.0     0.5 100.0%     1  net/a.sh' \
'#      0.0     0.0   0.0%     1  net/c.sh' \
'# 2 tests, 5s in all')
1 passed, 0 failed, 2 skipped
# 1 of the skips: tests this base does not run (check-skip-9.9)
# skips are failures here (ALLOW_SKIP=1 to allow)"
expect baseskip2 "on a base, a skip it does not list still fails the run" 1

FAKE_INCOMPLETE=1 run incomplete "net/a.sh" "pass 0 5 net/a.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..1
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
# the guest did not finish the run
$(table incomplete \
'#      5.0     0.5 100.0%     1  net/a.sh' \
'# 1 tests, 5s in all')
1 passed, 0 failed, 0 skipped"
expect incomplete "the guest did not finish" 1

# Two guests: each goes through the tests longest first by
# config/check-times's expected times (a 100, b 50, c 40, d 30) and runs
# those no guest has claimed yet; the report is one, with the time
# table's guest column and each guest's sum.  Guest 2 boots when guest 1
# is done (FAKE_LATE), as when another part of CI holds the second slot:
# guest 1 runs everything, in that order, and guest 2 nothing.
printf '# comment\nnet/a.sh\t100\nnet/b.sh\t50\nnet/c.sh\t40\nnet/d.sh\t30\n' \
	> "$tmp/top/config/check-times"
FAKE_LATE=1 CHECK_GUESTS=2 run two "net/d.sh net/c.sh net/b.sh net/a.sh" "pass 0 9 net/a.sh
pass 0 5 net/b.sh
pass 0 4 net/c.sh
fail 1 3 net/d.sh
"
out="check: 4 tests, about 220s, longest first, in 2 guests
check: guest 1 exited with 0 (vng's status is not used)
check: guest 2 exited with 0 (vng's status is not used)
TAP version 13
1..4
# kernel under test: 6.12.117-srv6-oam+
not ok 1 selftests: net/d.sh # exit=1, log: $tmp/two/logs/net:d.sh.log
ok 2 selftests: net/c.sh # 4s
ok 3 selftests: net/b.sh # 5s
ok 4 selftests: net/a.sh # 9s
# --- the last 40 lines of net/d.sh's log
# setting up
# net/d.sh says why (exit 1)
$(table two \
'#      9.0     0.9  42.9%     1  net/a.sh' \
'#      5.0     0.5  23.8%     1  net/b.sh' \
'#      4.0     0.4  19.0%     1  net/c.sh' \
'#      3.0     0.3  14.3%     1  net/d.sh' \
'# 4 tests, 21s in all; guest 1 21s; guest 2 0s; the guests side by side 0s')
3 passed, 1 failed, 0 skipped"
# (how long the fake guests took side by side is the host's business)
sed -i 's/side by side [0-9]*s$/side by side 0s/' "$tmp/two.out" "$tmp/two/summary.txt"
expect two "two guests, one report" 1 "$(sed -e 1,3d \
	-e '/^# --- the last 40 lines/d' -e '/^# setting up/d' -e '/says why/d' <<< "$out")"
check "two guests: guest 1 ran them all, longest first" \
	"$([ "$(cat "$tmp/two/guest1/ran")" = "net/a.sh net/b.sh net/c.sh net/d.sh" ] && echo 1)" \
	"$(cat "$tmp/two/guest1/ran")"
check "two guests: guest 2, booted last, found nothing left" \
	"$([ -z "$(cat "$tmp/two/guest2/ran")" ] && echo 1)" "$(cat "$tmp/two/guest2/ran")"
check "two guests: times.tsv" \
	"$(printf 'test\tguest\twall_s\tcpu_s\tshare_pct\nnet/a.sh\t1\t9.0\t0.9\t42.9\nnet/b.sh\t1\t5.0\t0.5\t23.8\nnet/c.sh\t1\t4.0\t0.4\t19.0\nnet/d.sh\t1\t3.0\t0.3\t14.3\n' |
		cmp -s - "$tmp/two/times.tsv" && echo 1)" "$(cat "$tmp/two/times.tsv")"

# Side by side, each test runs once, in one of the guests, whichever
# claims it first.
CHECK_GUESTS=2 run race "net/d.sh net/c.sh net/b.sh net/a.sh net/e.sh" "pass 0 9 net/a.sh
pass 0 5 net/b.sh
pass 0 4 net/c.sh
pass 0 3 net/d.sh
pass 0 2 net/e.sh
"
check "two guests side by side: every test once" \
	"$([ "$(cat "$tmp/race/guest1/ran" "$tmp/race/guest2/ran" | tr ' ' '\n' |
		sed '/^$/d' | sort | tr '\n' ' ')" = "net/a.sh net/b.sh net/c.sh net/d.sh net/e.sh " ] &&
		[ "$rc" = 0 ] && echo 1)" \
	"$(cat "$tmp/race/guest1/ran" "$tmp/race/guest2/ran" "$tmp/race.out")"

# The next run of the same RESULTS orders by that run's times.tsv, not by
# config/check-times: a 3, b 5, c 4, d 9 -> d, b, c, a (the first run below
# writes those times, the second reads them).
FAKE_LATE=1 CHECK_GUESTS=2 run two "net/d.sh net/c.sh net/b.sh net/a.sh" "pass 0 3 net/a.sh
pass 0 5 net/b.sh
pass 0 4 net/c.sh
pass 0 9 net/d.sh
"
FAKE_LATE=1 CHECK_GUESTS=2 run two "net/d.sh net/c.sh net/b.sh net/a.sh" "pass 0 3 net/a.sh
pass 0 5 net/b.sh
pass 0 4 net/c.sh
pass 0 9 net/d.sh
"
check "a second run orders by the first one's times" \
	"$([ "$(cat "$tmp/two/guest1/ran")" = "net/d.sh net/b.sh net/c.sh net/a.sh" ] && echo 1)" \
	"$(cat "$tmp/two/guest1/ran"; cat "$tmp/two.err")"

# On another base, config/check-times-BASE's times override
# config/check-times's for the tests it lists (a fresh RESULTS): b 200 on
# 6.1 -> b first, then a, c, d.
printf 'net/b.sh\t200\n' > "$tmp/top/config/check-times-6.1"
FAKE_LATE=1 BASE=6.1 CHECK_GUESTS=2 run base61 "net/d.sh net/c.sh net/b.sh net/a.sh" "pass 0 9 net/a.sh
pass 0 5 net/b.sh
pass 0 4 net/c.sh
pass 0 3 net/d.sh
"
check "on 6.1, config/check-times-6.1's times" \
	"$([ "$(cat "$tmp/base61/guest1/ran")" = "net/b.sh net/a.sh net/c.sh net/d.sh" ] && echo 1)" \
	"$(cat "$tmp/base61/guest1/ran"; cat "$tmp/base61.err")"

# A guest that kept no times: the record's seconds, no CPU time.
FAKE_NOTIMES=1 run notimes "net/a.sh" "pass 0 5 net/a.sh
"
check "without the guest's times, the record's seconds" \
	"$(grep -qxF '#        5       - 100.0%     1  net/a.sh' "$tmp/notimes.out" && echo 1)" \
	"$(cat "$tmp/notimes.out")"

exit "$failed"

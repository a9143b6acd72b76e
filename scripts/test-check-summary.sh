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

# The guest: vm.sh BZIMAGE --rwdir RESULTS -- COMMAND...; writes
# $FAKE_RECORD as RESULTS/record, a log for each failed test, the kernel
# release, and RESULTS/complete unless FAKE_INCOMPLETE=1.
cat > "$tmp/top/scripts/vm.sh" <<'EOF'
#!/bin/bash
set -eu
results=$3
mkdir -p "$results/logs"
printf '%s' "$FAKE_RECORD" > "$results/record"
while read -r res rc secs t; do
	[ "$res" = fail ] || continue
	printf 'setting up\n%s says why (exit %s)\n' "$t" "$rc" > "$results/logs/${t//\//:}.log"
done <<< "$FAKE_RECORD"
echo 6.12.117-srv6-oam+ > "$results/uname"
[ "${FAKE_INCOMPLETE:-0}" = 1 ] || echo complete > "$results/complete"
EOF
chmod +x "$tmp/top/scripts/vm.sh"

# run NAME TESTS RECORD: check.sh on them; stdout in $tmp/NAME.out, its exit
# status in $rc, results in $tmp/NAME.  summary.txt is there beforehand,
# stale, as a previous run leaves it.
run() {
	local name=$1 tests=$2 record=$3
	mkdir -p "$tmp/$name"
	echo "1 passed, 0 failed, 0 skipped" > "$tmp/$name/summary.txt"
	FAKE_RECORD=$record TESTS=$tests HELPERS="" KSFT="" \
		"$tmp/top/scripts/check.sh" none "$tmp/ksrc" "$tmp/prefix" "$tmp/$name" \
		> "$tmp/$name.out" 2> "$tmp/$name.err"
	rc=$?
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
2 passed, 0 failed, 0 skipped"
expect pass "every test passed" 0

run skip "net/a.sh net/c.sh" "pass 0 5 net/a.sh
skip 4 0 net/c.sh
"
out="check: guest exited with 0 (vng's status is not used)
TAP version 13
1..2
# kernel under test: 6.12.117-srv6-oam+
ok 1 selftests: net/a.sh # 5s
ok 2 selftests: net/c.sh # SKIP
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
1 passed, 0 failed, 0 skipped"
expect incomplete "the guest did not finish" 1

exit "$failed"

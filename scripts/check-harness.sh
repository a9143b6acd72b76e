#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-harness`: prove that `make check` can fail.  Runs check.sh in
# the guest on three throw-away tests, one that passes, one that fails and one
# that skips, and expects the run to say so and to exit non-zero.
#
# usage: check-harness.sh BZIMAGE KSRC PREFIX OUTDIR

set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
bzimage=$1 prefix=$3 out=$4
fake=$out/tree/tools/testing/selftests

rm -rf "$out"
mkdir -p "$fake/net" "$fake/kselftest"
touch "$fake/kselftest.h"
for t in pass:0 fail:1 skip:4; do
	printf '#!/bin/bash\necho "harness %s: exit %s on $(uname -r)"\nexit %s\n' \
		"${t%:*}" "${t#*:}" "${t#*:}" > "$fake/net/harness_${t%:*}.sh"
	chmod +x "$fake/net/harness_${t%:*}.sh"
done

# run NAME TESTS...: check.sh on the fake tree, output in $out/NAME.log and
# $out/NAME; its exit status in $rc
run()
{
	local name=$1
	shift

	HELPERS="" TESTS="$*" "$TOP/scripts/check.sh" "$bzimage" "$out/tree" \
		"$prefix" "$out/$name" | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
}

# expect NAME WHAT PATTERN...: every PATTERN (grep -E) in NAME's output and a
# failed run, or the harness is broken
expect()
{
	local name=$1 what=$2 p
	shift 2

	for p in "$@"; do
		grep -q -E "$p" "$out/$name.log" || {
			echo "check-harness: FAIL: no '$p' in the output ($what)" >&2
			exit 1
		}
	done
	[ "$rc" != 0 ] || { echo "check-harness: FAIL: exit 0 ($what)" >&2; exit 1; }
	echo "check-harness: $what (exit $rc)"
}

run results net/harness_pass.sh net/harness_fail.sh net/harness_skip.sh
expect results "the harness reports a failing and a skipping test, and fails the run" \
	'^1 passed, 1 failed, 1 skipped$' '^ok 1 selftests: net/harness_pass.sh' \
	'^not ok 2 selftests: net/harness_fail.sh' \
	'^ok 3 selftests: net/harness_skip.sh # SKIP'

# SPLATS=1 (make check-debug): a test that passes but after which the
# kernel log holds a warning fails.  The warning is written to /dev/kmsg
# (the harness reads the log, whoever wrote it); the kernel under test here
# has no kmemleak, so that result fails too.
cat > "$fake/net/harness_splat.sh" <<'EOF'
#!/bin/bash
echo "WARNING: CPU: 0 PID: $$ at harness_splat (injected)" > /dev/kmsg
EOF
chmod +x "$fake/net/harness_splat.sh"
SPLATS=1 CHECK_GUESTS=1 run results-splat net/harness_pass.sh net/harness_splat.sh
expect results-splat "with SPLATS=1 a warning in the kernel log fails its test" \
	'^2 passed, 2 failed, 0 skipped$' \
	'^not ok 3 selftests: net/harness_splat.sh # exit=splat' \
	'^not ok 4 selftests: kmemleak # exit=no-kmemleak' \
	'^# .*harness_splat \(injected\)'

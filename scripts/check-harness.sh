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

HELPERS="" TESTS="net/harness_pass.sh net/harness_fail.sh net/harness_skip.sh" \
	"$TOP/scripts/check.sh" "$bzimage" "$out/tree" "$prefix" "$out/results" | tee "$out/check.log"
rc=${PIPESTATUS[0]}

ok=1
grep -qx '1 passed, 1 failed, 1 skipped' "$out/check.log" || ok=0
grep -q '^ok 1 selftests: net/harness_pass.sh' "$out/check.log" || ok=0
grep -q '^not ok 2 selftests: net/harness_fail.sh' "$out/check.log" || ok=0
grep -q '^ok 3 selftests: net/harness_skip.sh # SKIP' "$out/check.log" || ok=0
[ "$rc" != 0 ] || ok=0
if [ "$ok" = 1 ]; then
	echo "check-harness: the harness reports a failing and a skipping test, and fails the run (exit $rc)"
else
	echo "check-harness: FAIL: the harness did not report the run as expected (exit $rc)" >&2
	exit 1
fi

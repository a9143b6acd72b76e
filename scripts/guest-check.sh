#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest (see vm.sh): run each selftest of the list and record
# its result.  The host (check.sh) turns the record into TAP and the closing
# line, so a guest that dies half-way is noticed there.
#
# usage: guest-check.sh RESULTS STAGE PREFIX TEST...
#   RESULTS  writable directory (a --rwdir): results, one log per test
#   STAGE    staged tools/testing/selftests tree (read-only here, copied)
#   PREFIX   the private prefix of our ip/iptables/ipset, put first on PATH
#   TEST     path relative to STAGE, e.g. net/srv6_end_flavors_test.sh, or
#            @PATH: a test of this repository, PATH relative to its top

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
results=$1 stage=$2 prefix=$3
shift 3
export PATH=$prefix/sbin:$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Generous: the bench smoke alone takes 13 minutes on an idle machine.
timeout=${SELFTEST_TIMEOUT:-1500}

mkdir -p "$results/logs"
: > "$results/record"
uname -r > "$results/uname"
echo "# guest kernel: $(cat /proc/version)"
echo "# guest: $(nproc) CPUs, ip: $(command -v ip) ($(ip -V))"

# The staged tree is on the host's read-only root; tests may write next to
# themselves, so run them from a private copy.
work=$(mktemp -d /tmp/kselftest.XXXXXX)
cp -a "$stage"/. "$work"/

for t in "$@"; do
	name=${t#@}
	name=${name//\//:}
	log=$results/logs/$name.log
	echo "# running $t"
	start=$(date +%s)
	# "@path": a test of this repository that is not a kernel selftest.
	dir=$work/$(dirname "$t")
	case $t in @*) dir=$top/$(dirname "${t#@}") ;; esac
	(cd "$dir" && timeout -k 10 "$timeout" "./$(basename "$t")") > "$log" 2>&1 < /dev/null
	rc=$?
	secs=$(( $(date +%s) - start ))
	case $rc in
	0) res=pass ;;
	4) res=skip ;;
	124|137) res=timeout ;;
	*) res=fail ;;
	esac
	# Leftovers of one test must not change the next one.
	ip -all netns delete > /dev/null 2>&1
	echo "# $t: $res (exit $rc, ${secs}s)"
	if [ "$res" != pass ]; then
		tail -n 25 "$log" | sed 's/^/#   /'
	fi
	printf '%s %s %s %s\n' "$res" "$rc" "$secs" "$t" >> "$results/record"
done
echo complete > "$results/complete"

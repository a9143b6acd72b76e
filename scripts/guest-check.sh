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
#            @PATH: a test of this repository, PATH relative to its top, or
#            COLLECTION:TEST, e.g. net:srv6_pfplm_test.sh: that test run by
#            run_kselftest.sh -t COLLECTION:TEST of the installed kselftest
#            tree $KSFT (make kselftest-install); its log is the runner's
#            KTAP output, its result the runner's verdict on it

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
results=$1 stage=$2 prefix=$3
shift 3
# QUEUE (check.sh): a file of the tests to go through, one a line, in
# place of the arguments.
if [ -n "${QUEUE:-}" ]; then
	mapfile -t queue < "$QUEUE"
	set -- "${queue[@]}"
fi
export PATH=$prefix/sbin:$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Generous: the bench smoke alone takes 13 minutes on an idle machine.
timeout=${SELFTEST_TIMEOUT:-1500}

# SPLATS=1 (make check-debug, on the debug kernel): a test fails if the
# kernel logged a report of a debugging option while it ran, and a
# kmemleak scan after the last test is one more result.
splats=${SPLATS:-0}
# What counts as a report: the selftests' own pattern, SRV6_SPLAT_RE of the
# staged net/srv6_oam_lib.sh (which defines functions and that variable).
splat_re=$(. "$stage/net/srv6_oam_lib.sh" && printf '%s' "${SRV6_SPLAT_RE:-}")
if [ "$splats" = 1 ] && [ -z "$splat_re" ]; then
	echo "# no SRV6_SPLAT_RE in $stage/net/srv6_oam_lib.sh" >&2
	exit 1
fi

# XTRACE=1: every shell of a test, the test itself and the scripts it runs,
# traces its commands with the time each started and its file and line
# into RESULTS/traces/TEST (scripts/trace-profile.sh sums them per line):
# where a test spends its time.
xtrace=${XTRACE:-0}
xtrace_rc=/tmp/xtrace.rc
if [ "$xtrace" = 1 ]; then
	cat > "$xtrace_rc" <<- 'EOF'
	PS4='+${EPOCHREALTIME} ${BASHPID} ${BASH_SOURCE[0]##*/}:${LINENO} '
	BASH_XTRACEFD=9
	set -x
	EOF
fi

# SPLAT_SUFFIX names this guest's "boot" and "kmemleak" results when
# check.sh runs more than one guest (boot-g1, kmemleak-g2, ...).
sfx=${SPLAT_SUFFIX:-}

# busy_ticks: the CPU time every vCPU has spent on anything but idling
# since the boot, in clock ticks (the first line of /proc/stat).
busy_ticks() {
	local _cpu user nice system idle iowait irq softirq steal _rest
	read -r _cpu user nice system idle iowait irq softirq steal _rest < /proc/stat
	echo $((user + nice + system + irq + softirq + steal))
}
hz=$(getconf CLK_TCK 2> /dev/null || echo 100)

mkdir -p "$results/logs"
: > "$results/record"
# The time table's lines: WALL CPU TEST, seconds, for check.sh.
: > "$results/times"
uname -r > "$results/uname"
echo "# guest kernel: $(cat /proc/version)"
echo "# guest: $(nproc) CPUs, ip: $(command -v ip) ($(ip -V))"

# The staged tree is on the host's read-only root; tests may write next to
# themselves, so run them from a private copy.
work=$(mktemp -d /tmp/kselftest.XXXXXX)
cp -a "$stage"/. "$work"/
# The installed kselftest tree, when a test is run by its runner: a copy too.
ksft=
for t in "$@"; do
	case $t in @*|*/*) continue ;; esac
	if [ -n "${KSFT:-}" ] && [ -d "$KSFT" ]; then
		ksft=$(mktemp -d /tmp/kselftest-install.XXXXXX)
		cp -a "$KSFT"/. "$ksft"/
	fi
	break
done
if [ "$splats" = 1 ]; then
	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug 2> /dev/null
	# What booting logged is a result of its own, "boot".
	dmesg -c > "$results/logs/boot$sfx.log" 2>&1
	if grep -E "$splat_re" "$results/logs/boot$sfx.log" | sed "s/^/# boot$sfx: /" | grep .; then
		echo "fail splat 0 boot$sfx" >> "$results/record"
	else
		echo "pass 0 0 boot$sfx" >> "$results/record"
	fi
fi

# MODULES_DIR (make check-modules): the modules of this kernel, installed
# there by make modules_install INSTALL_MOD_PATH=MODULES_DIR, where modprobe
# and the kernel's module autoloading look for them.
if [ -n "${MODULES_DIR:-}" ]; then
	if [ -d "$MODULES_DIR/lib/modules/$(uname -r)" ] &&
	   mount --bind "$MODULES_DIR/lib/modules" /lib/modules; then
		echo "# modules: $MODULES_DIR/lib/modules on /lib/modules"
	else
		echo "# modules: no $MODULES_DIR/lib/modules/$(uname -r), or it cannot be mounted"
	fi
fi

# CLAIMS (check.sh, with more than one guest): a directory that every
# guest of the run shares; a guest runs a test only if it made the test's
# directory there first (mkdir is atomic on the host's file system).
claims=${CLAIMS:-}
for t in "$@"; do
	name=${t#@}
	name=${name//\//:}
	if [ -n "$claims" ] && ! mkdir "$claims/$name" 2> /dev/null; then
		continue
	fi
	log=$results/logs/$name.log
	echo "# running $t"
	start=$(date +%s)
	t0=$EPOCHREALTIME c0=$(busy_ticks)
	case $t in
	@*|*/*)
		# "@path": a test of this repository that is not a kernel selftest.
		dir=$work/$(dirname "$t")
		case $t in @*) dir=$top/$(dirname "${t#@}") ;; esac
		if [ "$xtrace" = 1 ]; then
			mkdir -p "$results/traces"
			# Every bash started with BASH_ENV in its environment
			# reads that file first (root's bash takes no PS4 from
			# the environment).
			(cd "$dir" && env BASH_ENV="$xtrace_rc" \
				timeout -k 10 "$timeout" "./$(basename "$t")") \
				> "$log" 2>&1 9> "$results/traces/$name" < /dev/null
		else
			(cd "$dir" && timeout -k 10 "$timeout" "./$(basename "$t")") > "$log" 2>&1 < /dev/null
		fi
		rc=$?
		;;
	*:*)
		# The runner's exit status says nothing of the test's: its
		# verdict is the KTAP line "ok 1 selftests: COLLECTION: TEST".
		log=$results/logs/kselftest:$name.log
		if [ -z "$ksft" ]; then
			echo "no installed kselftest tree (KSFT)" > "$log"
			rc=2
		else
			# -p: the test's own output goes to /tmp/TEST (by
			# default the runner writes it to /dev/stdout, which
			# is the console here, not our stdout), put back
			# under the test's KTAP header line.
			base=${t#*:}
			hdr="selftests: ${t%%:*}: $base"
			# A runner without -p and -o (6.1's) writes the
			# test's output into the KTAP stream itself, and
			# takes its timeout from net/settings (1500 s).
			opts=(-p -o "$timeout")
			grep -q -e '--per-test-log' "$ksft/run_kselftest.sh" || opts=()
			(cd "$ksft" && timeout -k 10 $((timeout + 60)) \
				./run_kselftest.sh "${opts[@]}" -t "$t") > "$log.ktap" 2>&1 < /dev/null
			rc=$?
			if [ -f "/tmp/$base" ]; then
				sed "\|^# $hdr\$|r /tmp/$base" "$log.ktap" > "$log"
			else
				cat "$log.ktap" > "$log"
			fi
			rm -f "$log.ktap" "/tmp/$base"
			if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				:
			elif grep -qxF "ok 1 $hdr" "$log"; then
				rc=0
			elif grep -qxF "ok 1 $hdr # SKIP" "$log"; then
				rc=4
			elif grep -q "^not ok 1 $hdr # TIMEOUT" "$log"; then
				rc=124
			else
				rc=$(sed -n "s/^not ok 1 $hdr # exit=\([0-9]*\)\$/\1/p" "$log")
				rc=${rc:-1}
				[ "$rc" != 0 ] || rc=1
			fi
		fi
		;;
	*)
		echo "not a test: $t" > "$log"
		rc=2
		;;
	esac
	secs=$(( $(date +%s) - start ))
	awk -v a="$t0" -v b="$EPOCHREALTIME" -v c="$(( $(busy_ticks) - c0 ))" \
		-v hz="$hz" -v t="$t" 'BEGIN { printf "%.1f %.1f %s\n", b - a, c / hz, t }' \
		>> "$results/times"
	case $rc in
	0) res=pass ;;
	4) res=skip ;;
	124|137) res=timeout ;;
	*) res=fail ;;
	esac
	# Leftovers of one test must not change the next one.
	ip -all netns delete > /dev/null 2>&1
	if [ "$splats" = 1 ]; then
		# The netns' devices and sockets go away in a worker: let it run
		# before reading the log (a leak of a device shows as
		# unregister_netdevice waiting).
		sleep 2
		dmesg -c > "$log.dmesg" 2>&1
		if grep -q -E "$splat_re" "$log.dmesg"; then
			{
				echo "--- the kernel reported a problem during this test:"
				grep -E -A 30 "$splat_re" "$log.dmesg" | head -n 200
			} >> "$log"
			[ "$res" = timeout ] || { res=fail; rc=splat; }
		fi
	fi
	echo "# $t: $res (exit $rc, ${secs}s)"
	if [ "$res" != pass ]; then
		tail -n 25 "$log" | sed 's/^/#   /'
	fi
	printf '%s %s %s %s\n' "$res" "$rc" "$secs" "$t" >> "$results/record"
done
if [ "$splats" = 1 ]; then
	# kmemleak reports an object after two scans that found no reference
	# to it, and only once it is older than 5 s.
	log=$results/logs/kmemleak$sfx.log
	km=/sys/kernel/debug/kmemleak
	start=$(date +%s)
	if [ -w "$km" ]; then
		echo "# running kmemleak"
		sleep 6
		echo scan > "$km"; sleep 6; echo scan > "$km"
		cat "$km" > "$log"
		leaks=$(grep -c '^unreferenced object' "$log")
		if [ "$leaks" = 0 ]; then res=pass rc=0; else res=fail rc=leaks:$leaks; fi
	else
		echo "kmemleak: $km not writable (kernel without DEBUG_KMEMLEAK?)" > "$log"
		res=fail rc=no-kmemleak
	fi
	echo "# kmemleak: $res ($rc)"
	printf '%s %s %s %s\n' "$res" "$rc" "$(( $(date +%s) - start ))" "kmemleak$sfx" >> "$results/record"
fi
# GCOV_OUT=DIR (make coverage, on the coverage kernel): the counts of the
# objects gcov profiles, copied out of debugfs after the last test, under
# their paths there (the build directory's absolute path, then the
# object's).
if [ -n "${GCOV_OUT:-}" ]; then
	gc=/sys/kernel/debug/gcov
	[ -d "$gc" ] || mount -t debugfs none /sys/kernel/debug
	n=0
	while read -r f; do
		rel=${f#"$gc"}
		mkdir -p "$GCOV_OUT/$(dirname "$rel")"
		cat "$f" > "$GCOV_OUT/$rel" && n=$((n + 1))
	done < <(find "$gc" -name '*.gcda' 2> /dev/null)
	echo "# gcov: the counts of $n objects in $GCOV_OUT"
fi
echo complete > "$results/complete"

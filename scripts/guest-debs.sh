#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packages' test, in a bookworm root that has them installed and
# nothing else of ours (scripts/debs-test.sh puts this file there and runs
# it chrooted in the guest of our kernel): each user-visible feature with
# the commands the packages installed.
#
#   - ip stamp: a reflector added and shown (-j), stamp-sender's replies;
#   - ip6tables: an --srh-sid-list rule through ip6tables-save and
#     ip6tables-restore, unchanged;
#   - ipset: a hash:sr6 set through ipset save and restore, unchanged;
#   - pfplm, as pfplm@.service runs it (no systemd in the guest: the unit's
#     ExecStartPre, ExecStart, ExecStopPost command lines, read from the
#     installed unit): exact blocks between an ingress and an egress
#     namespace; a stop (SIGTERM) leaves no chain and no set; a SIGKILL
#     leaves them, and ExecStopPost's --cleanup removes them.
#
# KERNEL_RELEASE: the guest runs the kernel of that linux-image package.
# STOCK=1 with it: Debian's own kernel, with srv6-oam-dkms's modules built
# there by dkms at the installation: the same checks, except that a
# hash:sr6 set is refused (no DKMS module has it: dkms/README.md), and so
# pfplm runs with method rules (the srh match) instead of sets.
#
# Prints TEST: lines; exit 0 when every check passed.

set -uo pipefail

UNIT=/lib/systemd/system/pfplm@.service
rc=0
check() {
	if eval "$2"; then
		printf 'TEST: %-66s [ OK ]\n' "$1"
	else
		printf 'TEST: %-66s [FAIL]\n' "$1"
		[ -n "${3:-}" ] && printf '\t%s\n' "$(eval "$3")"
		rc=1
	fi
}
# wait_for SECONDS CONDITION
wait_for() {
	local end=$((SECONDS + $1))
	until eval "$2"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}
ns() { local n=$1; shift; ip netns exec "deb-$n" "$@"; }

# Nothing of build/prefix or the host: the packages' commands.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
for c in ip ip6tables ip6tables-save ip6tables-restore ipset pfplm stamp-sender; do
	p=$(command -v "$c") || { echo "no $c"; exit 1; }
	r=$(readlink -f "$p")
	echo "# $c: $p -> $r ($(dpkg -S "*bin/${r##*/}" 2> /dev/null | cut -d: -f1 | sort -u))"
done

STOCK=${STOCK:-0}
if [ -n "${KERNEL_RELEASE:-}" ]; then
	check "the packaged kernel runs: $KERNEL_RELEASE" \
		'[ "$(uname -r)" = "$KERNEL_RELEASE" ] && dpkg -s "linux-image-$KERNEL_RELEASE" > /dev/null' \
		'uname -r'
fi

# ---- hs -- a (ingress) -- z (egress, End.DT6 fc00:f::d6) ----------------
for n in hs a z; do
	ip netns add "deb-$n"
	ns "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.forwarding=1
	ns "$n" ip link set lo up
done
ip link add eth0 netns deb-hs type veth peer name veth-hs netns deb-a
ip link add veth-z netns deb-a type veth peer name veth-a netns deb-z
ns hs ip addr add fd00:a::1/64 dev eth0 nodad
ns a ip addr add fd00:a::2/64 dev veth-hs nodad
ns a ip addr add fc00:a0::1/64 dev veth-z nodad
ns z ip addr add fc00:a0::2/64 dev veth-a nodad
for l in "hs eth0" "a veth-hs" "a veth-z" "z veth-a"; do
	read -r n d <<< "$l"
	ns "$n" ip link set "$d" up
done
ns hs ip -6 route add default via fd00:a::2
ns z ip -6 route add default via fc00:a0::1
ns a ip -6 route add fc00:f::/64 via fc00:a0::2
ns a ip -6 route add fc00:3::100/128 via fc00:a0::2
ns a ip addr add fc00:1::100/128 dev lo
ns z ip addr add fc00:3::100/128 dev lo noprefixroute
ns z ip addr add fd00:b::1/128 dev lo noprefixroute
# End.DT6 looks the inner destination up in table main only.
ns z ip -6 route add local fc00:3::100/128 dev lo table main
ns z ip -6 route add local fd00:b::1/128 dev lo table main
ns z ip -6 route add fc00:f::d6/128 encap seg6local action End.DT6 table 254 dev veth-a
ns a ip -6 route add fd00:b::1/128 encap seg6 mode encap segs fc00:f::d6 dev veth-z
check "ping over the seg6 route (ip from the package)" \
	'ns hs ping -6 -c 2 -W 5 fd00:b::1 > /dev/null'

# ---- ip stamp ------------------------------------------------------------
ns z ip stamp reflector add port 862 address fc00:3::100
check "ip stamp reflector add, and -j show lists it" \
	'[ "$(ns z ip -j stamp reflector show | jq length)" = 1 ]' \
	'ns z ip -j stamp reflector show 2>&1'
check "stamp-sender: replies of the kernel's reflector" \
	'ns a stamp-sender -c 3 -i 0.2 -s fc00:1::100 fc00:3::100 > /tmp/stamp.out 2>&1' \
	'cat /tmp/stamp.out'
ns z ip stamp reflector flush

# ---- ip6tables --srh-sid-list, ipset hash:sr6: save and restore --------------
# saved: the table without comments, and without the chains' packet and
# byte counts (the router's own neighbour discovery goes through them)
saved() {
	ns a ip6tables-save -t mangle | grep -v '^#' | sed 's/ \[[0-9]*:[0-9]*\]$//'
}
ns a ip6tables -t mangle -A FORWARD -m srh --srh-sid-list fc00:2::e,fc00:f::d6 -j ACCEPT
s1=$(saved)
ns a ip6tables -t mangle -F
printf '%s\n' "$s1" | ns a ip6tables-restore
s2=$(saved)
check "ip6tables --srh-sid-list: save, restore, save again: the same" \
	'grep -q -- "--srh-sid-list fc00:2::e,fc00:f::d6" <<< "$s1" && [ "$s1" = "$s2" ]' \
	'echo "$s1 / $s2"'
ns a ip6tables -t mangle -F
if [ "$STOCK" = 1 ]; then
	check "ipset hash:sr6 on Debian's kernel: refused, no set made" \
		'! ns a ipset create sr6t hash:sr6 2> /tmp/ipset.err &&
		 grep -q "not supported" /tmp/ipset.err && [ -z "$(ns a ipset list -n)" ]' \
		'cat /tmp/ipset.err; ns a ipset list -n'
else
	ns a ipset create sr6t hash:sr6 counters
	ns a ipset add sr6t fc00:2::e,fc00:f::d6
	i1=$(ns a ipset save sr6t)
	ns a ipset destroy sr6t
	printf '%s\n' "$i1" | ns a ipset restore
	i2=$(ns a ipset save sr6t)
	check "ipset hash:sr6: save, restore, save again: the same" \
		'grep -q "add sr6t fc00:2::e,fc00:f::d6" <<< "$i1" && [ "$i1" = "$i2" ]' \
		'echo "$i1 / $i2"'
	ns a ipset destroy sr6t
fi

# ---- pfplm as pfplm@.service runs it ---------------------------------------
# unit_cmd KEY INSTANCE: the unit's command line KEY for instance INSTANCE
unit_cmd() {
	sed -n "s/^$1=//p" "$UNIT" | sed "s/%i/$2/g"
}
# pfplm_conf ROLE ADDRKEY ADDR PEER: /etc/pfplm/ROLE.conf, method sets
# (rules on Debian's kernel), period 2 s, one flow over fc00:f::d6;
# ADDRKEY (source or listen) ADDR
method=sets
[ "$STOCK" = 1 ] && method=rules
pfplm_conf() {
	mkdir -p /etc/pfplm
	printf '[pfplm]\nperiod = 2\nmethod = %s\n%s = %s\nresults = %s\n\n' \
		"$method" "$2" "$3" "/var/log/pfplm/$1.jsonl" > "/etc/pfplm/$1.conf"
	printf '[flow f]\nrole = %s\nid = 1\nsids = fc00:f::d6\npeer = %s\n' \
		"$1" "$4" >> "/etc/pfplm/$1.conf"
}
pfplm_conf ingress source fc00:1::100 fc00:3::100
pfplm_conf egress listen fc00:3::100 fc00:1::100
mkdir -p /var/log/pfplm /run/pfplm
# ours NS: the chains and sets of pfplm's in NS
ours() {
	echo $(($(ns "$1" ip6tables-save -t mangle | grep -c '^:pfplm') +
		$(ns "$1" ipset list -n | grep -c '^pfplm')))
}
# exact: the ingress's exact blocks with traffic and no loss so far
exact() {
	if [ -s /var/log/pfplm/ingress.jsonl ]; then
		jq -s '[.[] | select(.status == "exact" and .sent > 0 and .lost == 0)] | length' \
			/var/log/pfplm/ingress.jsonl
	else
		echo 0
	fi
}
check "ExecStartPre: $(unit_cmd ExecStartPre ingress)" \
	'ns a $(unit_cmd ExecStartPre ingress) > /dev/null'
# (ip netns exec, not ns: $! must be the process itself, for the signals)
# shellcheck disable=SC2046 # the unit's words
ip netns exec deb-z $(unit_cmd ExecStart egress) > /tmp/egress.log 2>&1 &
epid=$!
# shellcheck disable=SC2046
ip netns exec deb-a $(unit_cmd ExecStart ingress) > /tmp/ingress.log 2>&1 &
ipid=$!
ip netns exec deb-hs ping -6 -q -i 0.1 -W 1 fd00:b::1 > /dev/null 2>&1 &
gpid=$!
check "pfplm (method $method): three exact blocks with traffic and no loss" \
	'wait_for 240 "[ \"\$(exact)\" -ge 3 ] || ! kill -0 $ipid" && kill -0 $ipid' \
	'tail -n 5 /tmp/ingress.log /tmp/egress.log'
kill "$gpid"
kill -TERM "$ipid" "$epid"
wait "$ipid"
irc=$?
wait "$epid"
check "stop (SIGTERM): exit 0, no chain or set left on either side" \
	'[ "$irc" = 0 ] && [ "$(ours a)" = 0 ] && [ "$(ours z)" = 0 ]' \
	'echo "ingress exit $irc; left: a $(ours a), z $(ours z)"'

# shellcheck disable=SC2046
ip netns exec deb-a $(unit_cmd ExecStart ingress) --peer-timeout 0 > /tmp/ingress2.log 2>&1 &
ipid=$!
wait_for 60 '[ "$(ours a)" -gt 0 ]'
kill -KILL "$ipid"
wait "$ipid" 2> /dev/null
left=$(ours a)
ns a $(unit_cmd ExecStopPost ingress) > /tmp/cleanup.log 2>&1
crc=$?
check "after a SIGKILL, ExecStopPost (--cleanup) removes what was left" \
	'[ "$left" -gt 0 ] && [ "$crc" = 0 ] && [ "$(ours a)" = 0 ]' \
	'echo "left $left; --cleanup exit $crc: $(cat /tmp/cleanup.log); now $(ours a)"'

if [ "$STOCK" = 1 ]; then
	# loaded, the files dkms built and installed (updates/dkms), the
	# srh match ours (the stock module has no version)
	from_dkms() {
		local m
		for m in stamp ip6t_srh; do
			[ "$(cat "/sys/module/$m/initstate" 2> /dev/null)" = live ] || return
			ls "/lib/modules/$KERNEL_RELEASE/updates/dkms/$m.ko"* > /dev/null 2>&1 || return
			[ "$(modinfo -n "$m")" = "$(ls "/lib/modules/$KERNEL_RELEASE/updates/dkms/$m.ko"*)" ] || return
		done
		[ -n "$(cat /sys/module/ip6t_srh/version 2> /dev/null)" ] &&
			dkms status -m srv6-oam -k "$KERNEL_RELEASE" | grep -q ': installed'
	}
	check "the modules dkms built: stamp, ip6t_srh from updates/dkms" \
		from_dkms 'grep -E "^(stamp|ip6t_srh) " /proc/modules; dkms status'
elif [ -n "${KERNEL_RELEASE:-}" ]; then
	# loaded (a module, not built in) and the package's
	from_package() {
		local m
		for m in stamp ip6t_srh ip_set_hash_sr6; do
			[ "$(cat "/sys/module/$m/initstate" 2> /dev/null)" = live ] || return
			find "/lib/modules/$KERNEL_RELEASE" -name "$m.ko*" | grep -q . || return
			dpkg -S "/lib/modules/$KERNEL_RELEASE/*/$m.ko*" > /dev/null 2>&1 || return
		done
	}
	check "the features' modules loaded from the package: stamp, ip6t_srh, ip_set_hash_sr6" \
		from_package 'grep -E "^(stamp|ip6t_srh|ip_set_hash_sr6) " /proc/modules'
fi

for n in hs a z; do ip netns del "deb-$n"; done
rm -rf /etc/pfplm/ingress.conf /etc/pfplm/egress.conf /var/log/pfplm /tmp/*.log /tmp/stamp.out \
	/tmp/ipset.err
exit "$rc"

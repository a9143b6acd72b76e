#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-kernel STAMP Session-Reflector (RFC 8762, RFC 8972) on an SRv6
# network where the test path and the return path differ.
#
#                   +------+  fc00:2::e End
#              +----|  r2  |----+
#  +------+    |    +------+    |    +------+
#  | snd  |----+                +----| refl |  fc00:4::1, 10.0.24.4
#  +------+    |    +------+    |    +------+
#  fc00:1::1   +----|  r3  |----+
#  10.0.12.1        +------+  fc00:3::e End
#
# Plain routing goes through r2 both ways.  snd sends its test packets over
# r2's End SID; the reflector's session sends the replies back over r3's
# (an SRH inserted with return-segs), which a capture on r3 must show.
# stamp_test.py is the Session-Sender: it builds and checks the packets
# byte by byte.
#
# The family is also driven through its YNL spec with the kernel tree's
# tools/net/ynl/cli.py: $KSRC names the tree (default: the one this script
# sits in, four directories up); without cli.py and the spec there, those
# checks are skipped.

source lib.sh
source srv6_oam_lib.sh

readonly REFL6=fc00:4::1
readonly REFL4=10.0.24.4
readonly SND6=fc00:1::1
readonly SID2=fc00:2::e
readonly SID3=fc00:3::e
readonly KEY=00112233445566778899aabbccddeeff

cleanup()
{
	capture_stop
	pyserve_stop
	cleanup_all_ns
	rm -rf "$tmp"
}

trap cleanup EXIT

# stamp_test.py ARGS in snd, by its server there (pyserve_start, in
# srv6_oam_lib.sh: no Python start-up per call).  The sender ends by
# itself; its bound only turns a hang into a failure, far above what the
# slowest guest needs (srv6_oam_lib.sh's SRV6_HANG_TIMEOUT: a debug kernel
# on a loaded host can take minutes).
sender()
{
	pyserve_call "$tmp/serve" "$SRV6_HANG_TIMEOUT" "$@"
}

# stat OBJECT(reflector|session) FIELD [SSID]: a counter of the first
# object, or of the session SSID.  Sessions are dumped in the order of
# their hash, whose seed is the namespace's: with several sessions, which
# comes first differs from run to run.
stat()
{
	local sel=true

	[ -n "${3:-}" ] && sel=".ssid == $3"
	ip -n "$refl" -s -j stamp "$1" show |
		jq "[.[] | select($sel)][0].stats.$2 // -1"
}

# stat_wait KIND COUNTER N [SSID]: wait until COUNTER has reached N, as the
# packets a check counts may still be on their way when the sender stops
# waiting for a reply; the check that follows reads the counter
stat_wait()
{
	slowwait 60 until_counter_is ">= $3" stat "$1" "$2" ${4:+"$4"} > /dev/null
}

setup()
{
	# the links come after it: without DAD from the start
	srv6_setup_ns -f -4 -s snd r2 r3 refl
	veth_link "$snd" e2 "$r2" e1
	veth_link "$snd" e3 "$r3" e1
	veth_link "$refl" e2 "$r2" e4
	veth_link "$refl" e3 "$r3" e4
	for dev in e2 e3; do
		ip netns exec "$snd" sysctl -wq net.ipv6.conf."$dev".seg6_enabled=1
		ip netns exec "$refl" sysctl -wq net.ipv6.conf."$dev".seg6_enabled=1
	done
	for dev in e1 e4; do
		ip netns exec "$r2" sysctl -wq net.ipv6.conf."$dev".seg6_enabled=1
		ip netns exec "$r3" sysctl -wq net.ipv6.conf."$dev".seg6_enabled=1
	done

	ip -n "$snd" addr add "$SND6"/128 dev lo
	ip -n "$snd" addr add 2001:db8:12::1/64 dev e2
	ip -n "$snd" addr add 2001:db8:13::1/64 dev e3
	ip -n "$snd" addr add 10.0.12.1/24 dev e2
	ip -n "$snd" route add fc00:4::/64 via 2001:db8:12::2 src "$SND6"
	ip -n "$snd" route add fc00:2::/64 via 2001:db8:12::2 src "$SND6"
	ip -n "$snd" route add fc00:3::/64 via 2001:db8:13::3 src "$SND6"
	ip -n "$snd" route add 10.0.24.0/24 via 10.0.12.2

	ip -n "$r2" addr add 2001:db8:12::2/64 dev e1
	ip -n "$r2" addr add 2001:db8:24::2/64 dev e4
	ip -n "$r2" addr add 10.0.12.2/24 dev e1
	ip -n "$r2" addr add 10.0.24.2/24 dev e4
	ip -n "$r2" route add fc00:1::/64 via 2001:db8:12::1
	ip -n "$r2" route add fc00:4::/64 via 2001:db8:24::4
	ip -n "$r2" route add "$SID2"/128 encap seg6local action End dev e1

	ip -n "$r3" addr add 2001:db8:13::3/64 dev e1
	ip -n "$r3" addr add 2001:db8:34::3/64 dev e4
	ip -n "$r3" route add fc00:1::/64 via 2001:db8:13::1
	ip -n "$r3" route add fc00:4::/64 via 2001:db8:34::4
	ip -n "$r3" route add "$SID3"/128 encap seg6local action End dev e1

	ip -n "$refl" addr add "$REFL6"/128 dev lo
	ip -n "$refl" addr add 2001:db8:24::4/64 dev e2
	ip -n "$refl" addr add 2001:db8:34::4/64 dev e3
	ip -n "$refl" addr add "$REFL4"/24 dev e2
	ip -n "$refl" route add fc00:1::/64 via 2001:db8:24::2 src "$REFL6"
	ip -n "$refl" route add fc00:2::/64 via 2001:db8:24::2 src "$REFL6"
	ip -n "$refl" route add fc00:3::/64 via 2001:db8:34::3 src "$REFL6"
	ip -n "$refl" route add 10.0.12.0/24 via 10.0.24.2
}

stamp_state()
{
	ip -n "$refl" stamp show
}

# $1 the error message expected ("" for any), $2 description,
# rest: the ip stamp command that must fail and change nothing
check_stamp_refused()
{
	local msg=$1 desc=$2
	shift 2

	RET=0
	check_refused stamp_state "$msg" ip -n "$refl" stamp "$@"
	log_test "reject: $desc ($REFUSED)"
}

check_reject()
{
	check_stamp_refused "" "$@"
}

# run a stamp_test.py check: $1 description, rest: its arguments
check_sender()
{
	local desc=$1 out
	shift

	RET=0
	out=$(sender "$@" 2>&1)
	check_err $? "$(echo "$out" | grep FAIL | head -n 5)"
	log_test "$desc"
}

# decoded PCAP...: tshark's decoding of every packet of the PCAPs, a line
# each, with UDP port 862 as TWAMP-Test/STAMP: "capture sport dport src
# dst sl segments protocols expert-info" (tab-separated), where capture is
# the PCAP's index, 0 for the first (its interface in the merged file).
# One tshark for all: its start alone takes tens of seconds in a slow
# guest.
decoded()
{
	mergecap -I none -F pcapng -w "$tmp/decoded.pcapng" "$@" 2>&1 &&
	tshark -r "$tmp/decoded.pcapng" -d udp.port==862,twamp.test -T fields \
		-e frame.interface_id -e udp.srcport -e udp.dstport \
		-e ipv6.src -e ipv6.dst -e ipv6.routing.segleft \
		-e ipv6.routing.srh.addr -e frame.protocols -e _ws.expert 2>&1
}

# capture_of INDEX DECODED: DECODED's lines of capture INDEX without the
# index, and every line that is not a packet's (messages)
capture_of()
{
	awk -F '\t' -v c="$1" '$1 == c { sub(/^[^\t]*\t/, ""); print; next }
		!/\t/' <<< "$2"
}

# replies_in DECODED: "src dst sl segments" of each STAMP reply in it
replies_in()
{
	awk -F '\t' -v OFS='\t' '$1 == 862 { print $3, $4, $5, $6 }' <<< "$1"
}

test_return_path()
{
	local n2 n3 out d2 d3

	# the reply carries SRH [fc00:3::e, fc00:1::1] from refl to r3
	RET=0
	capture_start "$r3" e4 "$tmp/r3.pcap" udp or ip6 proto 43
	check_err $? "no capture on r3"
	capture_start "$r2" e4 "$tmp/r2.pcap" udp or ip6 proto 43
	check_err $? "no capture on r2"
	out=$(sender basic "$REFL6" --segs "$SID2" --ttl 63 2>&1)
	check_err $? "$(echo "$out" | grep FAIL | head -n 5)"
	# the sender has its 3 replies: r3 forwarded them, and r2 the 3 test
	# packets (on to the reflector after its End); wait until both
	# captures have written them
	capture_wait "$tmp/r3.pcap" 3 ip6 proto 43 and src "$REFL6"
	capture_wait "$tmp/r2.pcap" 3 ip6 proto 43 and dst "$REFL6"
	capture_stop
	out=$(decoded "$tmp/r3.pcap" "$tmp/r2.pcap")
	d3=$(capture_of 0 "$out")
	d2=$(capture_of 1 "$out")
	n3=$(replies_in "$d3" | grep -c "^$REFL6	$SID3	1	$SND6,$SID3$")
	[ "$n3" -eq 3 ]
	check_err $? "r3 saw $n3 replies with SRH $SID3,$SND6, not 3: $(replies_in "$d3")"
	n2=$(replies_in "$d2" | wc -l)
	[ "$n2" -eq 0 ]
	check_err $? "r2 saw $n2 replies"
	n2=$(awk -F '\t' -v sid="$SID2" '$2 == 862 &&
		index("," $6 ",", "," sid ",")' <<< "$d2" | wc -l)
	[ "$n2" -eq 3 ]
	check_err $? "r2 saw $n2 test packets over $SID2, not 3"
	# an implementation nobody here wrote must decode the exchange
	awk -F '\t' '$1 == 862 { n++; t += $7 ~ /:twamp\.test(:|$)/ }
		END { exit !(n && t == n) }' <<< "$d3"
	check_err $? "tshark did not decode the reply as TWAMP-Test/STAMP: $d3"
	echo "$d3" | grep -qiE "malformed|Expert Info \(Error"
	check_fail $? "tshark reports errors: $(echo "$d3" |
		grep -iE 'malformed|error' | head -n 3)"
	log_test "replies go back over return-segs via r3, test packets via r2"
}

# The reflector keeps the route of its last reply per CPU: a change of the
# routes must reach the next reply.  refl's route back to snd goes via r2;
# replaced by one via r3, the very next reply must go via r3, and back.
test_route_change()
{
	local out n

	RET=0
	capture_start "$r3" e4 "$tmp/rc3.pcap" udp src port 862
	check_err $? "no capture on r3"
	capture_start "$r2" e4 "$tmp/rc2.pcap" udp src port 862
	check_err $? "no capture on r2"

	out=$(sender basic "$REFL6" --seqs 1,2 --ttl 63 2>&1)
	check_err $? "via r2: $(echo "$out" | grep FAIL | head -n 3)"
	capture_wait "$tmp/rc2.pcap" 2
	check_err $? "r2 did not see the 2 replies"

	ip -n "$refl" route replace fc00:1::/64 via 2001:db8:34::3 src "$REFL6"
	out=$(sender basic "$REFL6" --seqs 3 --ttl 63 2>&1)
	check_err $? "via r3: $(echo "$out" | grep FAIL | head -n 3)"
	capture_wait "$tmp/rc3.pcap" 1
	check_err $? "the first reply after the route change did not go via r3"

	ip -n "$refl" route replace fc00:1::/64 via 2001:db8:24::2 src "$REFL6"
	out=$(sender basic "$REFL6" --seqs 4 --ttl 63 2>&1)
	check_err $? "via r2 again: $(echo "$out" | grep FAIL | head -n 3)"
	capture_wait "$tmp/rc2.pcap" 3
	check_err $? "the first reply after the route came back did not go via r2"
	capture_stop
	n=$(capture_count "$tmp/rc3.pcap")
	[ "$n" -eq 1 ]
	check_err $? "r3 saw $n replies, not 1"
	log_test "replies follow a route change from the next packet on"
}

# ynl ARGS: cli.py on the stamp spec, in the reflector's namespace, JSON out
ynl()
{
	ip netns exec "$refl" python3 "$YNL_CLI" --spec "$YNL_SPEC" \
		$YNL_SCHEMA --output-json "$@"
}

# $1 description, $2 attribute, $3 its value in hex, $4 extack: a
# session-add with that attribute (past iproute2's own checks) that the
# kernel must refuse with ERANGE and that extack message
check_ynl_reject()
{
	local json out

	RET=0
	json=$(jq -nc --arg p "$SND6_HEX" --arg a "$2" --arg v "$3" \
		'{ssid: 32, peer6: $p} + {($a): $v}')
	out=$(ynl --do session-add --json "$json" 2>&1)
	check_fail $? "accepted: $json"
	grep -q "$4" <<< "$out"
	check_err $? "no extack \"$4\": $out"
	grep -q "Numerical result out of range" <<< "$out"
	check_err $? "not ERANGE: $out"
	[ "$(ip -n "$refl" -j stamp session show | jq length)" = 1 ]
	check_err $? "a session was added"
	log_test "ynl: the kernel refuses $1"
}

# $1 operation, $2 its JSON request, $3 description, $4 the extack it
# must give (default "Unknown attribute type"): an attribute of the
# operation's set that its policy does not take (a dump-only one, or one
# another operation takes), which the kernel must refuse by name, changing
# nothing
check_ynl_policy()
{
	local before out want=${4:-Unknown attribute type}

	RET=0
	before=$(stamp_state)
	out=$(ynl --do "$1" --json "$2" 2>&1)
	check_fail $? "accepted: $1 $2"
	grep -q "$want" <<< "$out"
	check_err $? "no extack \"$want\": $out"
	[ "$(stamp_state)" = "$before" ]
	check_err $? "$1 changed the configuration"
	log_test "ynl: $1 refuses $3 (its own policy)"
}

test_ynl()
{
	local segs out

	YNL_CLI=$KSRC/tools/net/ynl/cli.py
	YNL_SPEC=$KSRC/Documentation/netlink/specs/stamp.yaml
	if [ ! -f "$YNL_CLI" ] || [ ! -f "$YNL_SPEC" ]; then
		log_test_skip "ynl: no $YNL_CLI or $YNL_SPEC (set KSRC)"
		return
	fi
	if ! python3 -c 'import yaml' 2>/dev/null; then
		log_test_skip "ynl: cli.py needs python3 with PyYAML"
		return
	fi
	# What is tested here is the kernel's answer: the spec is validated
	# against the schema where it is built (ynl-gen), not again by every
	# cli.py run (seconds each in an emulated guest).
	YNL_SCHEMA=--no-schema

	ip -n "$refl" stamp flush
	ip -n "$refl" stamp reflector add port 920 address "$REFL6" \
		mode stateful auth early-timestamp sport-min 2000
	ip -n "$refl" stamp reflector add port 921 address "$REFL4"
	ip -n "$refl" stamp session add ssid 31 peer "$SND6" \
		return-segs "$SID2,$SID3" key "$KEY"

	RET=0
	out=$(ynl --dump reflector-get 2>&1)
	check_err $? "reflector-get: $out"
	jq -e --arg a6 "$REFL6" --arg a4 "$REFL4" '
		length == 2 and
		(map(select(.port == 920))[0] |
		 .addr6 == $a6 and .mode == "stateful" and .auth == true and
		 ."early-ts" == true and ."sport-min" == 2000 and
		 .stats.rx == 0 and has("addr4") == false) and
		(map(select(.port == 921))[0] |
		 .addr4 == $a4 and .mode == "stateless" and has("auth") == false
		 and has("early-ts") == false and ."sport-min" == 1024)' \
		<<< "$out" >/dev/null
	check_err $? "reflector-get dumped $out"
	log_test "ynl: cli.py --dump reflector-get gives what was configured"

	RET=0
	segs=$(python3 -c 'import ipaddress, sys
print("".join(ipaddress.IPv6Address(a).packed.hex() for a in sys.argv[1:]))' \
		"$SID2" "$SID3")
	out=$(ynl --dump session-get 2>&1)
	check_err $? "session-get: $out"
	jq -e --arg p6 "$SND6" --arg segs "$segs" '
		length == 1 and
		(.[0] | .ssid == 31 and .peer6 == $p6 and .segs == $segs and
		 ."has-key" == true and has("key") == false and .seq == 0 and
		 .stats.rx == 0 and .stats.tx == 0)' <<< "$out" >/dev/null
	check_err $? "session-get dumped $out"
	log_test "ynl: cli.py --dump session-get gives what was configured"

	# 17 addresses, 272 bytes; 65 bytes
	SND6_HEX=$(ipv6_hex "$SND6")
	check_ynl_reject "17 return SIDs" segs "$(printf '%0544d' 0)" \
		"return-segs is 1 to 16 addresses"
	check_ynl_reject "an empty return path" segs "" \
		"return-segs is 1 to 16 addresses"
	check_ynl_reject "a 65-byte key" key "$(printf '%0130d' 0)" \
		"key is 1 to 64 bytes"
	check_ynl_reject "an empty key" key "" "key is 1 to 64 bytes"

	# One policy per operation: what one takes, another refuses (stats
	# is below reflector-add's highest attribute, altmark, and has no
	# policy there).
	check_ynl_policy reflector-add '{"port": 922, "stats": {"rx": 1}}' \
		"the dump-only stats" "Unsupported attribute"
	check_ynl_policy reflector-del '{"port": 921, "mode": "stateful"}' \
		"a mode"
	check_ynl_policy session-add "{\"ssid\": 33, \"seq\": 7}" \
		"the dump-only seq"
	check_ynl_policy session-del "{\"ssid\": 31, \"peer6\": \"$SND6_HEX\", \"key\": \"00\"}" \
		"a key"
	ip -n "$refl" stamp flush
}

# ipv6_hex ADDR: the 16 bytes of an IPv6 address in hex, as cli.py takes
# a binary attribute
ipv6_hex()
{
	python3 -c 'import ipaddress, sys
print(ipaddress.IPv6Address(sys.argv[1]).packed.hex())' "$1"
}

srv6_require ip jq tcpdump tshark mergecap
srv6_require_py scapy.contrib.stamp

tmp=$(mktemp -d)
KSRC=${KSRC:-$(cd "$(dirname "$0")/../../../.." && pwd)}
setup
pyserve_start "$snd" "$tmp/serve" ./stamp_test.py || exit "$ksft_fail"
if ! ip -n "$refl" stamp reflector add 2>/dev/null; then
	echo "SKIP: kernel or ip without STAMP (CONFIG_NET_STAMP)"
	exit "$ksft_skip"
fi

# --- stateless, unauthenticated, no session -------------------------------
check_sender "stateless: IPv6 reply copies the sequence numbers" \
	basic "$REFL6" --seqs 100,200,300 --ttl 63
check_sender "stateless: IPv4 reflected on the same dual-stack port" \
	basic "$REFL4" --seqs 5,6 --ttl 63
check_sender "stateless: PTPv2 timestamps when the Z bit asks for them" \
	basic "$REFL6" --ptp --ttl 63
check_sender "Scapy's STAMP layer as the Session-Sender and the decoder" \
	scapy "$REFL6"

RET=0
rx=$(stat reflector rx); tx=$(stat reflector tx)
[ "$rx" -ge 9 ] && [ "$rx" -eq "$tx" ]
check_err $? "reflector counters rx $rx tx $tx"
log_test "reflector counts what it received and sent"

# --- TLVs ------------------------------------------------------------------
check_sender "RFC 8972 TLVs: padding, timestamp info, CoS, DM, unknown, malformed" \
	tlv "$REFL6"

test_route_change

# --- return path over SRv6 -------------------------------------------------
ip -n "$refl" stamp session add ssid 7 peer "$SND6" return-segs "$SID3"
test_return_path
RET=0
out=$(ip -n "$refl" stamp session show)
echo "$out" | grep -q "ssid 7 peer $SND6 return-segs $SID3"
check_err $? "show: $out"
out=$(ip -n "$refl" -j stamp session show |
	jq -r '.[] | select(.ssid == 7) | .return_segs[0]')
[ "$out" = "$SID3" ]
check_err $? "json: $out"
[ "$(stat session rx 7)" -eq 3 ] && [ "$(stat session tx 7)" -eq 3 ]
check_err $? "session counters rx $(stat session rx 7) tx $(stat session tx 7)"
log_test "session and its counters are dumped back (text and JSON)"
# a last SID equal to the sender is not repeated in the SRH
ip -n "$refl" stamp session del ssid 7 peer "$SND6"
ip -n "$refl" stamp session add ssid 7 peer "$SND6" return-segs "$SID3,$SND6"
check_sender "return-segs ending with the Session-Sender itself" \
	basic "$REFL6" --segs "$SID2" --ttl 63
ip -n "$refl" stamp session del ssid 7 peer "$SND6"

# --- T2 when the packet entered the stack ---------------------------------
ip -n "$refl" stamp reflector del
ip -n "$refl" stamp reflector add early-timestamp
check_sender "early-timestamp: T2 from the stack, timestamps in order" \
	basic "$REFL6" --ttl 63
RET=0
out=$(ip -n "$refl" -j stamp reflector show | jq -r '.[0].early_timestamp')
[ "$out" = true ]
check_err $? "early_timestamp is $out"
log_test "early-timestamp is dumped back"

# --- stateful ----------------------------------------------------------------
ip -n "$refl" stamp reflector del
ip -n "$refl" stamp reflector add mode stateful
# the marker that follows the packets of SSID 9 has a session
ip -n "$refl" stamp session add ssid 10
check_sender "stateful: no session, no reply" none "$REFL6" --ssid 9 \
	--marker-ssid 10
ip -n "$refl" stamp session del ssid 10
RET=0
stat_wait reflector drop_no_session 3
[ "$(stat reflector drop_no_session)" -ge 3 ]
check_err $? "drop_no_session $(stat reflector drop_no_session)"
log_test "stateful: drops without a session are counted"
ip -n "$refl" stamp session add ssid 9
check_sender "stateful: the reflector numbers its replies 0, 1, 2" \
	basic "$REFL6" --ssid 9 --seqs 1000,2000,3000 --first 0
check_sender "stateful: and goes on 3, 4 for the same session" \
	basic "$REFL4" --ssid 9 --seqs 7,8 --first 3
ip -n "$refl" stamp reflector del

# --- authenticated ---------------------------------------------------------------
ip -n "$refl" stamp reflector add port 863 auth
ip -n "$refl" stamp session add ssid 11 key "$KEY"
check_sender "authenticated: right key, HMAC of the reply checked" \
	basic "$REFL6" --port 863 --ssid 11 --key "$KEY"
check_sender "authenticated: HMAC TLV checked, I flag on a bad one" \
	auth-tlv "$REFL6" --port 863 --ssid 11 --key "$KEY"
RET=0
d0=$(stat session drop_auth 11); m0=$(stat reflector drop_malformed)
sender none "$REFL6" --port 863 --ssid 11 --key "${KEY/00/ff}" \
	--marker-ssid 11 --marker-key "$KEY" >/dev/null
check_err $? "a wrong key got a reply"
stat_wait session drop_auth $((d0 + 3)) 11
[ "$(stat session drop_auth 11)" -eq $((d0 + 3)) ]
check_err $? "drop_auth $(stat session drop_auth 11), want $((d0 + 3))"
sender none "$REFL6" --port 863 --ssid 11 \
	--marker-ssid 11 --marker-key "$KEY" >/dev/null
check_err $? "an unauthenticated (44-byte) packet got a reply"
stat_wait reflector drop_malformed $((m0 + 3))
[ "$(stat reflector drop_malformed)" -eq $((m0 + 3)) ]
check_err $? "drop_malformed $(stat reflector drop_malformed), want $((m0 + 3))"
log_test "authenticated: wrong HMAC and unauthenticated packets dropped, counted"
RET=0
ip -n "$refl" stamp session show | grep -q "key set"
check_err $? "the key is not shown as set"
ip -n "$refl" -j stamp session show | grep -qi "$KEY"
check_fail $? "the key was dumped"
log_test "keys are never dumped back"
ip -n "$refl" stamp reflector del port 863

# --- malformed test packets ----------------------------------------------------
ip -n "$refl" stamp reflector add
check_sender "truncated test packets (43 bytes) are not answered" \
	none "$REFL6" --length 43
RET=0
stat_wait reflector drop_malformed 3
[ "$(stat reflector drop_malformed)" -ge 3 ]
check_err $? "drop_malformed $(stat reflector drop_malformed)"
log_test "truncated test packets are counted"
check_sender "random and truncated packets: every reply checked" \
	fuzz "$REFL6" --count 400
check_sender "the reflector still answers after the fuzzing" \
	basic "$REFL6" --ttl 63

# --- configuration errors change nothing -------------------------------------
check_reject "duplicate reflector" reflector add
check_reject "port in use by another reflector" reflector add address "$REFL6"
check_reject "Error Estimate multiplier 0" reflector add port 900 multiplier 0
check_reject "return-segs for an IPv4 Session-Sender" \
	session add ssid 1 peer 10.0.12.1 return-segs "$SID3"
check_reject "unknown reflector" reflector del port 999
check_reject "unknown session" session del ssid 4242
ip -n "$refl" stamp session add ssid 1
check_reject "duplicate session" session add ssid 1
check_reject "key longer than 64 bytes" \
	session add ssid 2 key "$(printf '%0130d' 0)"

# --- the family through its YNL spec -----------------------------------------
test_ynl

# --- ip -batch -force, flush ----------------------------------------------------
# count WHAT(reflector|session): how many the namespace has
count()
{
	ip -n "$refl" -j stamp "$1" show | jq length
}

RET=0
ip -n "$refl" stamp flush
check_err $? "flush failed"
# lines 2 and 5 the kernel refuses (duplicates), lines 4, 6 and 8 ip
# cannot parse (an unknown keyword, a port out of range, a keyword without
# its value): each fails alone, and every other line is carried out
cat > "$tmp/stamp.batch" <<-EOF
	stamp reflector add port 910
	stamp reflector add port 910
	stamp session add ssid 21
	stamp reflector add port 912 colour blue
	stamp session add ssid 21
	stamp reflector add port 70000
	stamp reflector add port 911 address $REFL6
	stamp session add ssid 22 peer
	stamp session add ssid 22 peer $SND6
EOF
ip -n "$refl" -force -batch "$tmp/stamp.batch" 2>"$tmp/stamp.batch.err"
check_fail $? "a batch with refused and malformed lines exited 0"
failed=$(sed -n 's/^Command failed .*:\([0-9]*\)$/\1/p' \
	"$tmp/stamp.batch.err" | xargs)
[ "$failed" = "2 4 5 6 8" ]
check_err $? "lines \"$failed\" failed, not 2 4 5 6 8: $(cat "$tmp/stamp.batch.err")"
[ "$(grep -c '^Error: ' "$tmp/stamp.batch.err")" = 5 ]
check_err $? "not one \"Error:\" per failed line: $(cat "$tmp/stamp.batch.err")"
ports=$(ip -n "$refl" -j stamp reflector show | jq -c '[.[].port] | sort')
ssids=$(ip -n "$refl" -j stamp session show | jq -c '[.[].ssid] | sort')
[ "$ports" = "[910,911]" ] && [ "$ssids" = "[21,22]" ]
check_err $? "after the batch: reflectors $ports, sessions $ssids, not [910,911] and [21,22]"
log_test "ip -batch -force: the lines after a refused or malformed one are carried out"

RET=0
ip -n "$refl" stamp session flush
check_err $? "session flush failed"
nr=$(count reflector) ns=$(count session)
[ "$ns" = 0 ] && [ "$nr" = 2 ]
check_err $? "session flush left $ns sessions, $nr reflectors, not 0 and 2"
ip -n "$refl" stamp session add ssid 23
ip -n "$refl" stamp flush
check_err $? "flush failed"
out=$(ip -n "$refl" -j stamp show)
[ "$(jq '.reflectors + .sessions | length' <<< "$out")" = 0 ]
check_err $? "after flush: $out"
ip -n "$refl" stamp flush
check_err $? "a flush with nothing to remove failed"
log_test "flush removes every session, then every reflector"
ip -n "$refl" stamp reflector add

# --- change and replace -------------------------------------------------------------
# jq FILTER on "ip -j stamp WHAT show"
show_j()
{
	ip -n "$refl" -j stamp "$1" show | jq -r "$2"
}

ip -n "$refl" stamp session add ssid 31 peer "$SND6"
check_sender "before a change: stateless, the sequence numbers are copied" \
	basic "$REFL6" --ssid 31 --seqs 100,200 --ttl 63
RET=0
rx0=$(stat reflector rx)
ip -n "$refl" stamp reflector change mode stateful sync multiplier 3
check_err $? "reflector change failed"
out=$(show_j reflector '.[] | "\(.port) \(.address) \(.mode) \(.sync) \(.multiplier)"')
[ "$out" = "862 any stateful true 3" ]
check_err $? "after the change: $out"
[ "$(stat reflector rx)" = "$rx0" ]
check_err $? "the counters were reset: rx $(stat reflector rx), was $rx0"
log_test "reflector change: new configuration in -j show, counters kept"
check_sender "reflector change: stateful at once, replies numbered 0, 1, 2" \
	basic "$REFL6" --ssid 31 --seqs 100,200,300 --first 0

RET=0
srx=$(stat session rx)
ip -n "$refl" stamp session change ssid 31 peer "$SND6" return-segs "$SID3"
check_err $? "session change failed"
out=$(show_j session '.[] | "\(.ssid) \(.peer) \(.return_segs | join(",")) \(.key) \(.seq)"')
[ "$out" = "31 $SND6 $SID3 false 3" ]
check_err $? "after the change: $out"
[ "$(stat session rx)" = "$srx" ]
check_err $? "the counters were reset: rx $(stat session rx), was $srx"
log_test "session change: new return path in -j show, sequence number and counters kept"
check_sender "session change: the sequence goes on, 3, 4" \
	basic "$REFL6" --ssid 31 --seqs 1,2 --first 3 --ttl 63

RET=0
d0=$(stat session drop_auth 31)
ip -n "$refl" stamp session change ssid 31 peer "$SND6" key "$KEY"
check_err $? "session change failed"
# the marker after the packets of SSID 31: a session of its own, gone at
# once
ip -n "$refl" stamp session add ssid 34
sender none "$REFL6" --ssid 31 --marker-ssid 34 >/dev/null
check_err $? "a session changed to a key answered an unauthenticated packet"
ip -n "$refl" stamp session del ssid 34
stat_wait session drop_auth $((d0 + 3)) 31
[ "$(stat session drop_auth 31)" -eq $((d0 + 3)) ]
check_err $? "drop_auth $(stat session drop_auth 31), want $((d0 + 3))"
[ "$(show_j session '.[0] | "\(.key) \(.return_segs | length)"')" = "true 0" ]
check_err $? "a change without return-segs kept them, or the key is not set"
log_test "session change: a key added, the return path removed, at once"
ip -n "$refl" stamp session change ssid 31 peer "$SND6"
check_sender "session change: without the key it answers again, 5, 6" \
	basic "$REFL6" --ssid 31 --seqs 1,2 --first 5 --ttl 63

check_stamp_refused "no such reflector" "change of a missing reflector creates nothing" \
	reflector change port 999 mode stateful
check_stamp_refused "no such session" "change of a missing session creates nothing" \
	session change ssid 31 peer 10.0.12.1
check_stamp_refused "multiplier" "a refused reflector change leaves it as it was" \
	reflector change multiplier 0
ip -n "$refl" stamp session add ssid 32
check_stamp_refused "peer address" "a refused session change leaves it as it was" \
	session change ssid 32 return-segs "$SID3"
check_stamp_refused "already exists" "add of an existing reflector still fails" \
	reflector add mode stateless
check_stamp_refused "already exists" "add of an existing session still fails" \
	session add ssid 31 peer "$SND6" return-segs "$SID3"

RET=0
ip -n "$refl" stamp reflector replace port 920 mode stateful early-timestamp
check_err $? "reflector replace of a missing one failed"
ip -n "$refl" stamp session replace ssid 33 peer "$SND6" return-segs "$SID2"
check_err $? "session replace of a missing one failed"
out=$(show_j reflector '.[] | select(.port == 920) | "\(.mode) \(.early_timestamp)"')
[ "$out" = "stateful true" ]
check_err $? "replaced reflector: $out"
out=$(show_j session '.[] | select(.ssid == 33) | .return_segs[0]')
[ "$out" = "$SID2" ]
check_err $? "replaced session: $out"
ip -n "$refl" stamp reflector replace port 920
check_err $? "reflector replace of an existing one failed"
ip -n "$refl" stamp session replace ssid 33 peer "$SND6"
check_err $? "session replace of an existing one failed"
out=$(show_j reflector '[.[] | select(.port == 920)] |
	"\(length) \(.[0].mode) \(.[0].early_timestamp)"')
[ "$out" = "1 stateless false" ]
check_err $? "reflector replaced twice: $out"
out=$(show_j session '[.[] | select(.ssid == 33)] | "\(length) \(.[0].return_segs | length)"')
[ "$out" = "1 0" ]
check_err $? "session replaced twice: $out"
log_test "replace creates a missing reflector and session, then updates them"
ip -n "$refl" stamp flush
ip -n "$refl" stamp reflector add

# --- teardown under traffic --------------------------------------------------------
RET=0
sender flood "$REFL6" --seconds 4 >/dev/null 2>&1 &
fl=$!
# five rounds at least, and more for as long as the flood runs
i=0
while ((i < 5)) || kill -0 "$fl" 2> /dev/null; do
	ip -n "$refl" stamp reflector del
	ip -n "$refl" stamp reflector add
	ip -n "$refl" stamp reflector change mode stateful
	ip -n "$refl" stamp session replace ssid 7 peer "$SND6" return-segs "$SID3"
	ip -n "$refl" stamp session change ssid 7 peer "$SND6" key "$KEY"
	i=$((i + 1))
done
ip -n "$refl" stamp session add ssid 3 peer "$SND6" return-segs "$SID3" key "$KEY"
wait "$fl"
# a namespace being torn down does not stand in a new one's way
ip netns del "$refl"
ip netns add stamp-after
ip -n stamp-after link set lo up
ip -n stamp-after stamp reflector add
check_err $? "a new namespace cannot get a reflector"
ip netns del stamp-after
log_test "reflectors removed and namespace deleted under traffic"

exit "$EXIT_STATUS"

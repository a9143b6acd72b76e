"""stamp_wire: the STAMP packet encoder and decoder of srv6-oam's tools.

RFC 8762 (STAMP) and RFC 8972 (its TLVs): timestamps, Error Estimate,
Session-Sender test packets and Session-Reflector replies, unauthenticated
and authenticated (HMAC-SHA-256 truncated to 16 bytes), the TLVs, the
SRH that carries a test packet over SRv6, and the UDP packets of those
that write them whole (ip_udp(): pfplm's in-band queries, the bench's
generator frames).  stamp-sender (Session-Sender)
and pfplm (per-flow loss monitoring: Session-Sender on the ingress,
Session-Reflector on the egress) both use it: one parser for every STAMP
packet in the tree.

Python 3 standard library only.
"""

import hashlib
import hmac
import socket
import struct
import time

STAMP_PORT = 862
NS = 1_000_000_000
NTP_UNIX_OFFSET = 2_208_988_800  # seconds from 1900-01-01 to 1970-01-01

# Packet layouts (RFC 8762 section 4, RFC 8972 section 3), big endian.
# Unauthenticated test packet: Seq, T1, Error Estimate, SSID, MBZ 28.
SENDER = struct.Struct("!I8sHH28x")
# Unauthenticated reply: Seq, T3, EE, SSID, T2, Sender Seq, Sender T1,
# Sender EE, MBZ 2, Sender TTL, MBZ 3.
REFLECTOR = struct.Struct("!I8sHH8sI8sH2xB3x")
# Authenticated test packet: Seq, MBZ 12, T1, EE, SSID, MBZ 68, HMAC.
AUTH_SENDER = struct.Struct("!I12x8sHH68x16s")
# Authenticated reply: Seq, MBZ 12, T3, EE, SSID, MBZ 4, T2, MBZ 8,
# Sender Seq, MBZ 12, Sender T1, Sender EE, MBZ 6, Sender TTL, MBZ 15, HMAC.
AUTH_REFLECTOR = struct.Struct("!I12x8sHH4x8s8xI12x8sH6xB15x16s")
AUTH_HMAC_OFFSET = 96  # the HMAC covers the bytes before it
HMAC_LEN = 16

# RFC 8972 TLVs: Flags, Type, Length (of the value), Value.
TLV_HDR = struct.Struct("!BBH")
TLV_PADDING, TLV_TIMESTAMP, TLV_COS, TLV_DM, TLV_HMAC = 1, 3, 4, 5, 8
TLV_NAMES = {TLV_PADDING: "padding", TLV_TIMESTAMP: "timestamp",
             TLV_COS: "cos", TLV_DM: "dm", TLV_HMAC: "hmac"}
TLV_FLAGS = ((0x80, "U"), (0x40, "M"), (0x20, "I"))
FLAG_I = 0x20
SYNC_SOURCES = {1: "NTP", 2: "PTP", 3: "SSU/BITS", 4: "GPS/GLONASS/LORAN-C",
                5: "local"}
TS_METHODS = {1: "HW-assist", 2: "SW-local", 3: "control-plane"}

# Error Estimate (RFC 4656 4.1.2): S, Z, 6-bit scale, 8-bit multiplier.
EE_S, EE_Z = 0x8000, 0x4000

# Linux values (asm-generic; the same on x86, arm, powerpc, mips, s390).
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
IPV6_RTHDR = getattr(socket, "IPV6_RTHDR", 57)
TIMESPEC = struct.Struct("@ll")  # struct timespec of SCM_TIMESTAMPNS
SRH_TYPE = 4
RECV_BUF = 65535

# SRv6 test packets (--segs), as Linux 6.12 handles them:
#
# setsockopt(IPPROTO_IPV6, IPV6_RTHDR) needs no privilege (ipv6_set_opt_hdr()
# exempts IPV6_RTHDR from the CAP_NET_RAW check). It wants a length that is
# a multiple of 8, at most 2040, and (hdrlen + 1) * 8 bytes; for type 4 it
# runs seg6_validate_srh(srh, optlen, false): hdrlen must match the length,
# segments_left <= first_segment, first_segment <= hdrlen / 2 - 1, and any
# bytes after the segment list must be well-formed SRH TLVs. nexthdr is
# ignored (ipv6_push_rthdr4() writes it). The sticky option then applies to
# every packet sent on the socket. (The IPV6_RTHDR cmsg of sendmsg() is no
# alternative: ip6_datagram_send_ctl() refuses every type but 2.)
#
# The destination given to sendto() must be the final one, TARGET:
# udpv6_sendmsg() calls fl6_update_dst(), which routes towards
# segments[segments_left] (the first segment, S1) and keeps TARGET as the
# final address; then ipv6_push_rthdr4() copies the SRH into the packet,
# overwrites segments[0] with that final address (TARGET) and makes
# segments[segments_left] the destination of the IPv6 header. The UDP
# checksum uses the final destination, as RFC 8200 8.1 requires.
#
# So for --segs S1,...,Sn: segments[] = TARGET, Sn, ..., S1 (reverse path
# order), segments_left = first_segment = n, hdrlen = 2 * (n + 1).
# The receiving nodes must accept SRHs (sysctl net.ipv6.conf.*.seg6_enabled).


class MalformedReply(Exception):
    """A datagram that is not a well-formed STAMP reply."""


class MalformedTest(Exception):
    """A datagram that is not a well-formed STAMP test packet."""


# ---------------------------------------------------------------- time

def encode_ntp(ns):
    """Unix-epoch nanoseconds -> NTP 64-bit timestamp (1900 epoch)."""
    sec, rem = divmod(ns, NS)
    return struct.pack("!II", (sec + NTP_UNIX_OFFSET) & 0xFFFFFFFF,
                       (rem << 32) // NS)


def decode_ntp(raw):
    """NTP 64-bit timestamp -> Unix-epoch nanoseconds.

    Seconds with the top bit clear are taken to be in NTP era 1 (from
    2036-02-07 on), as RFC 4330 section 3 suggests."""
    sec, frac = struct.unpack("!II", raw)
    if not sec & 0x80000000:
        sec += 1 << 32
    return (sec - NTP_UNIX_OFFSET) * NS + ((frac * NS + (1 << 31)) >> 32)


def encode_ptp(ns):
    """TAI nanoseconds -> PTPv2 truncated timestamp (32-bit s, 32-bit ns)."""
    sec, rem = divmod(ns, NS)
    return struct.pack("!II", sec & 0xFFFFFFFF, rem)


def decode_ptp(raw):
    """PTPv2 truncated timestamp -> TAI nanoseconds."""
    sec, nsec = struct.unpack("!II", raw)
    return sec * NS + nsec


def tai_offset_ns():
    """CLOCK_TAI - CLOCK_REALTIME: whole seconds (0 where it is not set)."""
    diff = (time.clock_gettime_ns(time.CLOCK_TAI)
            - time.clock_gettime_ns(time.CLOCK_REALTIME))
    return round(diff / NS) * NS


class Clock:
    """The session's time scale: UTC (NTP format) or TAI (PTP format).

    Every time is kept as integer nanoseconds since 1970-01-01 in that
    scale; reply timestamps in the other format are converted with the
    kernel's TAI offset."""

    def __init__(self, ptp):
        self.ptp = ptp
        self.clock_id = time.CLOCK_TAI if ptp else time.CLOCK_REALTIME
        self.tai_offset = tai_offset_ns()

    def now(self):
        return time.clock_gettime_ns(self.clock_id)

    def from_realtime(self, ns):
        """A CLOCK_REALTIME time (a socket timestamp) in this scale."""
        return ns + self.tai_offset if self.ptp else ns

    def encode(self, ns):
        return encode_ptp(ns) if self.ptp else encode_ntp(ns)

    def decode(self, raw, ptp_format):
        """A timestamp in the format the Z bit says -> this scale."""
        if ptp_format:
            ns = decode_ptp(raw)
            return ns if self.ptp else ns - self.tai_offset
        ns = decode_ntp(raw)
        return ns + self.tai_offset if self.ptp else ns


def error_estimate(sync, ptp, scale=0, multiplier=1):
    return (EE_S if sync else 0) | (EE_Z if ptp else 0) | \
        (scale << 8) | multiplier


def decode_error_estimate(ee):
    return {"sync": bool(ee & EE_S), "ptp": bool(ee & EE_Z),
            "scale": (ee >> 8) & 0x3F, "multiplier": ee & 0xFF}


# ------------------------------------------------------ building packets

def truncated_hmac(key, data):
    """HMAC-SHA-256 truncated to 16 bytes (RFC 8762 4.4, RFC 8972 4.8)."""
    return hmac.new(key, data, hashlib.sha256).digest()[:HMAC_LEN]


def tlv(tlv_type, value, flags=0):
    return TLV_HDR.pack(flags, tlv_type, len(value)) + value


# Where T1 goes in a test packet: after the Sequence Number (unauthenticated)
# or after the Sequence Number and 12 MBZ bytes (authenticated).
T1_OFFSET, AUTH_T1_OFFSET = 4, 16


def hmac_state(key):
    """An HMAC-SHA-256 object keyed with key, with nothing hashed yet:
    copy() it for each message to skip the key schedule (None: no key)."""
    return None if key is None else hmac.new(key, digestmod=hashlib.sha256)


def prepare_test_packet(seq, ee, ssid, tlvs, key):
    """A Session-Sender test packet, complete but for T1 and the HMAC over
    it: a bytearray to give finish_test_packet() once T1 is known.

    The HMAC TLV (over the Sequence Number and the TLVs) does not cover T1:
    it is computed here. key None means unauthenticated."""
    if key is None:
        return bytearray(SENDER.pack(seq, bytes(8), ee, ssid) + tlvs)
    packet = bytearray(AUTH_SENDER.pack(seq, bytes(8), ee, ssid,
                                        bytes(HMAC_LEN)))
    if tlvs:
        packet += tlvs + tlv(TLV_HMAC,
                             truncated_hmac(key, bytes(packet[:4]) + tlvs))
    return packet


def finish_test_packet(packet, timestamp, state):
    """Write T1 (8 bytes, encoded) into a prepare_test_packet() buffer and,
    in authenticated mode, the HMAC over the base packet that covers it.

    state: hmac_state(key) of the key the packet was prepared with, None
    when unauthenticated. Returns packet."""
    if state is None:
        packet[T1_OFFSET:T1_OFFSET + 8] = timestamp
        return packet
    packet[AUTH_T1_OFFSET:AUTH_T1_OFFSET + 8] = timestamp
    digest = state.copy()
    digest.update(memoryview(packet)[:AUTH_HMAC_OFFSET])
    packet[AUTH_HMAC_OFFSET:AUTH_HMAC_OFFSET + HMAC_LEN] = \
        digest.digest()[:HMAC_LEN]
    return packet


def build_test_packet(seq, timestamp, ee, ssid, tlvs, key):
    """A Session-Sender test packet with T1 = timestamp (8 bytes, encoded),
    as bytes; key None means unauthenticated.

    A sender that reads its clock for T1 should call prepare_test_packet()
    first and finish_test_packet() right after reading it instead."""
    return bytes(finish_test_packet(
        prepare_test_packet(seq, ee, ssid, tlvs, key), timestamp,
        hmac_state(key)))


def checksum(data):
    """The Internet checksum (RFC 1071) of data."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ip_udp(src, dst, sport, dport, payload, ttl=64):
    """An IPv6 (or, for IPv4 addresses, IPv4) packet carrying a UDP datagram,
    its checksum computed: for the frames of those that write them
    whole (pfplm's in-band queries, the bench's generator).  IPv4: no
    options, identification 1, DF clear."""
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    if ":" in src:
        s = socket.inet_pton(socket.AF_INET6, src)
        d = socket.inet_pton(socket.AF_INET6, dst)
        pseudo = s + d + struct.pack("!I3xB", len(udp), socket.IPPROTO_UDP)
    else:
        s, d = socket.inet_aton(src), socket.inet_aton(dst)
        pseudo = s + d + struct.pack("!xBH", socket.IPPROTO_UDP, len(udp))
    udp = udp[:6] + struct.pack("!H", checksum(pseudo + udp) or 0xFFFF) + udp[8:]
    if ":" in src:
        return struct.pack("!IHBB16s16s", 6 << 28, len(udp),
                           socket.IPPROTO_UDP, ttl, s, d) + udp
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, ttl,
                      socket.IPPROTO_UDP, 0, s, d)
    return hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:] + udp


def build_srh(final, segments):
    """SRH (type 4) for the path segments S1..Sn (packed), then final."""
    n = len(segments)
    header = struct.pack("!BBBBBBH", 0, 2 * (n + 1), SRH_TYPE, n, n, 0, 0)
    return header + final + b"".join(reversed(segments))


# ------------------------------------------------------- parsing replies

def parse_tlvs(data, offset, limit=None):
    """The TLVs from offset to the end of data, as dicts.

    limit: at most this many TLVs (None: no limit); a datagram with more
    is refused as soon as the one past the limit is seen, so that parsing
    one costs at most that much whatever its length."""
    tlvs = []
    while offset < len(data):
        if limit is not None and len(tlvs) >= limit:
            raise MalformedReply(f"more than {limit} TLVs")
        if len(data) - offset < TLV_HDR.size:
            raise MalformedReply(f"{len(data) - offset} stray bytes at "
                                 f"offset {offset}")
        flags, tlv_type, length = TLV_HDR.unpack_from(data, offset)
        end = offset + TLV_HDR.size + length
        if end > len(data):
            raise MalformedReply(f"TLV type {tlv_type} at offset {offset}: "
                                 f"length {length} runs past the end")
        value = data[offset + TLV_HDR.size:end]
        entry = {"type": tlv_type, "name": TLV_NAMES.get(tlv_type),
                 "flags": flags, "len": length, "offset": offset,
                 "value": value}
        entry.update(decode_tlv(tlv_type, value))
        tlvs.append(entry)
        offset = end
    return tlvs


def find_tlv(tlvs, tlv_type, length):
    """The first TLV of parse_tlvs()' list with this type and value
    length, or None."""
    for t in tlvs:
        if t["type"] == tlv_type and t["len"] == length:
            return t
    return None


def decode_tlv(tlv_type, value):
    """The fields of the TLV types we know (when the length is right)."""
    if tlv_type == TLV_TIMESTAMP and len(value) == 4:
        sync_in, method_in, sync_out, method_out = value
        return {"sync_in": sync_in, "method_in": method_in,
                "sync_out": sync_out, "method_out": method_out}
    if tlv_type == TLV_COS and len(value) == 4:
        word = struct.unpack("!I", value)[0]
        return {"dscp1": word >> 26, "dscp2": (word >> 20) & 0x3F,
                "ecn": (word >> 18) & 3, "rp": (word >> 16) & 3}
    if tlv_type == TLV_DM and len(value) == 12:
        s_tx, r_rx, r_tx = struct.unpack("!III", value)
        return {"s_tx": s_tx, "r_rx": r_rx, "r_tx": r_tx}
    return {}


def verify_tlv_hmac(data, tlvs, key):
    """Check the reply's HMAC TLV: over its Sequence Number and the TLVs
    before it. Marks the TLV with hmac_ok; False when there is none."""
    hmacs = [t for t in tlvs if t["type"] == TLV_HMAC]
    if not hmacs:
        return False
    entry = hmacs[-1]
    base_len = AUTH_REFLECTOR.size
    expected = truncated_hmac(key, data[:4] + data[base_len:entry["offset"]])
    entry["hmac_ok"] = (len(entry["value"]) == HMAC_LEN
                        and hmac.compare_digest(entry["value"], expected))
    return entry["hmac_ok"]


def parse_reply(data, key):
    """A Session-Reflector reply as a dict; key None: unauthenticated."""
    layout = REFLECTOR if key is None else AUTH_REFLECTOR
    if len(data) < layout.size:
        raise MalformedReply(f"{len(data)} bytes, shorter than "
                             f"{layout.size}")
    fields = layout.unpack_from(data)
    seq, t3, ee, ssid, t2, sender_seq, sender_t1, sender_ee, ttl = fields[:9]
    reply = {"reflector_seq": seq, "t3_raw": t3, "ee": ee, "ssid": ssid,
             "t2_raw": t2, "seq": sender_seq, "sender_t1_raw": sender_t1,
             "sender_ee": sender_ee, "ttl": ttl, "auth_ok": None}
    reply["tlvs"] = parse_tlvs(data, layout.size)
    if key is not None:
        reply["auth_error"] = auth_error(data, fields[9], reply["tlvs"], key)
        reply["auth_ok"] = reply["auth_error"] is None
    return reply


def auth_error(data, digest, tlvs, key):
    """What is wrong with an authenticated reply's HMACs, None if nothing."""
    if not hmac.compare_digest(digest,
                               truncated_hmac(key, data[:AUTH_HMAC_OFFSET])):
        return "bad HMAC"
    if tlvs and not any(t["type"] == TLV_HMAC for t in tlvs):
        return "TLVs but no HMAC TLV"
    if tlvs and not verify_tlv_hmac(data, tlvs, key):
        return "bad HMAC TLV"
    return None


# -------------------------------------------- the Session-Reflector's side

def parse_test_packet(data, max_tlvs=None):
    """An unauthenticated Session-Sender test packet as a dict.

    Raises MalformedTest when it is shorter than the base packet, its
    TLVs do not fill it exactly, or there are more than max_tlvs of them
    (None: no limit)."""
    if len(data) < SENDER.size:
        raise MalformedTest(f"{len(data)} bytes, shorter than {SENDER.size}")
    seq, t1, ee, ssid = SENDER.unpack_from(data)
    try:
        tlvs = parse_tlvs(data, SENDER.size, max_tlvs)
    except MalformedReply as err:
        raise MalformedTest(str(err)) from None
    return {"seq": seq, "t1_raw": t1, "ee": ee, "ssid": ssid,
            "mbz": data[16:SENDER.size], "tlvs": tlvs}


def build_reply(test, seq, t2_raw, t3_raw, ee, ttl, tlvs):
    """An unauthenticated Session-Reflector reply to the parsed test packet.

    tlvs: the reply's TLVs, already encoded (RFC 8972: the reflector
    returns the sender's TLVs, with the fields it fills filled in)."""
    return REFLECTOR.pack(seq, t3_raw, ee, test["ssid"], t2_raw,
                          test["seq"], test["t1_raw"], test["ee"],
                          ttl) + tlvs


def encode_tlvs(entries):
    """parse_tlvs() entries back to bytes (flags, type and value)."""
    return b"".join(tlv(t["type"], t["value"], t["flags"]) for t in entries)

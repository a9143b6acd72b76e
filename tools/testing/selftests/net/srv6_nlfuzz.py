#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Netlink fuzzer of srv6_nlfuzz_test.sh.  For a generic netlink family
# (STAMP, altmark, IOAM6) it asks the kernel for the family's operations and their
# attribute policies (CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY); for the
# attributes srv6-oam adds elsewhere, which no kernel interface describes,
# it has their policies written out below:
#  - seg6local: RTM_NEWROUTE with a seg6local encap: End.X, End.DX6,
#    End.DX4 and End.DT4 with the attributes they take (SEG6_LOCAL_OIF,
#    SEG6_LOCAL_XCONNECT, End.DT4's plain SEG6_LOCAL_TABLE among them;
#    mode "ours"), and every seg6local attribute (mode "any");
#  - ioam6-lwt: RTM_NEWROUTE with an IOAM6 encap, IOAM6_IPTUNNEL_OPTS;
#  - hash:sr6: ipset's create, add, del and test of hash:sr6 sets;
#  - srh: ip6t_srh's revisions 0 to 2 as the xtables match of nftables
#    rules (nft_compat), checked by the match's checkentry as ip6tables'
#    setsockopt has it checked;
#  - srh-legacy: the same matches in rules of ip6tables' own (legacy)
#    filter table, replaced whole with IP6T_SO_SET_REPLACE as
#    ip6tables-legacy does: not netlink, but the other way in to the same
#    checkentry, with the entry around the match (its sizes and offsets,
#    the IPv6 part's protocol and flags) changed now and then too.
# It sends requests built from them: attributes of the right type with
# values in and out of their range, wrong lengths, wrong types, unknown
# attributes, duplicates, nests and their contents, truncated attributes,
# well-formed structures with a few bytes changed, in random combinations.
# After each request it checks:
#  - a refused request changed nothing: the family's dumps (the
#    namespace's IPv6 routes, its ipset sets, its nftables rules) read the
#    same before and after it;
#  - a refusal in code of ours says why: an extack message, or the
#    attribute it misses; ipset's own convention, an error number ipset(8)
#    explains, counts as a reason there.  An xtables match has no extack
#    (its checkentry logs the reason): srh's refusals are counted, as are
#    upstream's own refusals without a reason;
#  - as an unprivileged user in a user namespace, an operation that needs
#    CAP_NET_ADMIN in the initial namespace (GENL_ADMIN_PERM) is refused
#    with EPERM, and nothing changes.
# Request I of a run depends only on the seed, the family and I;
# "show --family F --seed S --index I" prints it again.

import argparse
import errno
import json
import os
import random
import socket
import struct
import subprocess
import sys

NETLINK_ROUTE = 0
NETLINK_NETFILTER = 12
NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_MISS_TYPE = 5
NLMSGERR_ATTR_MISS_NEST = 6
NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3fff

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_CMD_GETPOLICY = 10
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_OPS = 6
CTRL_ATTR_POLICY = 8
CTRL_ATTR_OP_POLICY = 9
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_POLICY_DO = 1
CTRL_ATTR_POLICY_DUMP = 2

GENL_ADMIN_PERM = 0x01
GENL_CMD_CAP_DO = 0x02
GENL_CMD_CAP_DUMP = 0x04
GENL_UNS_ADMIN_PERM = 0x10

# enum netlink_attribute_type and enum netlink_policy_type_attr
(NL_ATTR_TYPE_INVALID, NL_ATTR_TYPE_FLAG, NL_ATTR_TYPE_U8, NL_ATTR_TYPE_U16,
 NL_ATTR_TYPE_U32, NL_ATTR_TYPE_U64, NL_ATTR_TYPE_S8, NL_ATTR_TYPE_S16,
 NL_ATTR_TYPE_S32, NL_ATTR_TYPE_S64, NL_ATTR_TYPE_BINARY, NL_ATTR_TYPE_STRING,
 NL_ATTR_TYPE_NUL_STRING, NL_ATTR_TYPE_NESTED, NL_ATTR_TYPE_NESTED_ARRAY,
 NL_ATTR_TYPE_BITFIELD32, NL_ATTR_TYPE_SINT, NL_ATTR_TYPE_UINT) = range(18)
NL_POLICY_TYPE_ATTR_TYPE = 1
NL_POLICY_TYPE_ATTR_MIN_VALUE_S = 2
NL_POLICY_TYPE_ATTR_MAX_VALUE_S = 3
NL_POLICY_TYPE_ATTR_MIN_VALUE_U = 4
NL_POLICY_TYPE_ATTR_MAX_VALUE_U = 5
NL_POLICY_TYPE_ATTR_MIN_LENGTH = 6
NL_POLICY_TYPE_ATTR_MAX_LENGTH = 7
NL_POLICY_TYPE_ATTR_POLICY_IDX = 8
NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE = 9

# integer types: (size, signed)
INTS = {NL_ATTR_TYPE_U8: (1, False), NL_ATTR_TYPE_U16: (2, False),
        NL_ATTR_TYPE_U32: (4, False), NL_ATTR_TYPE_U64: (8, False),
        NL_ATTR_TYPE_S8: (1, True), NL_ATTR_TYPE_S16: (2, True),
        NL_ATTR_TYPE_S32: (4, True), NL_ATTR_TYPE_S64: (8, True),
        NL_ATTR_TYPE_UINT: (8, False), NL_ATTR_TYPE_SINT: (8, True)}

# The attributes of an altmark monitor that change by themselves
# (ALTMARK_A_MONITOR_COUNTERS, ALTMARK_A_MONITOR_BLOCK)
ALTMARK_A_MONITOR_TIMED = (4, 5)

# The operations of the families that srv6-oam adds: every refusal of
# theirs must say why.  IOAM6's others are upstream's, which refuse some
# requests with a bare error number; they are counted, not failed.
OURS = {'stamp': None,			# all of them
        'altmark': None,
        'IOAM6': {8, 9}}		# IOAM6_CMD_DUMP_E2E, IOAM6_CMD_RESET_E2E


def nla(atype, payload):
    hdr = struct.pack('=HH', 4 + len(payload), atype)
    return hdr + payload + bytes(-len(payload) % 4)


def attrs(buf):
    off = 0
    while off + 4 <= len(buf):
        ln, atype = struct.unpack_from('=HH', buf, off)
        if ln < 4:
            break
        yield atype & NLA_TYPE_MASK, buf[off + 4:off + ln]
        off += (ln + 3) & ~3


def uint(b):
    return int.from_bytes(b, sys.byteorder)


def sint(b):
    return int.from_bytes(b, sys.byteorder, signed=True)


class Netlink:
    def __init__(self, proto=NETLINK_GENERIC):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, payload, dump=False, version=1):
        """Send one generic netlink request; return (errno, extack
        message, replies): replies are the attribute parts of the answers
        (after the genl header)."""
        body = struct.pack('=BBH', cmd, version, 0) + payload
        err, msg, replies = self.raw(family, 0, body, dump)
        return err, msg, [r[4:] for r in replies]

    def raw(self, mtype, flags, body, dump=False):
        """Send one message of type mtype (flags on top of the request's
        own); return (errno, extack message, the bodies of the answers)"""
        self.seq += 1
        flags |= NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
        self.sock.send(struct.pack('=IHHII', 16 + len(body), mtype, flags,
                                   self.seq, 0) + body)
        replies = []
        for mtype, mflags, seq, chunk in self.messages():
            if seq != self.seq:
                continue
            if mtype == NLMSG_ERROR:
                return (-sint(chunk[:4]), self._extack(chunk, mflags),
                        replies)
            if mtype == NLMSG_DONE:
                err = -sint(chunk[:4]) if len(chunk) >= 4 else 0
                return err, None, replies
            replies.append(chunk)

    def messages(self):
        """The messages the socket receives, as (type, flags, sequence
        number, body), for as long as the caller wants them"""
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, mtype, mflags, seq = struct.unpack_from('=IHHI', data, off)
                yield mtype, mflags, seq, data[off + 16:off + ln]
                off += (ln + 3) & ~3

    @staticmethod
    def _extack(chunk, mflags):
        """The reason a refusal gives: its message, or the attribute it
        misses (NL_SET_ERR_ATTR_MISS(), as GENL_REQ_ATTR_CHECK() sets it,
        which iproute2 and YNL report by name)"""
        if not mflags & NLM_F_ACK_TLVS:
            return None
        # the error, then the request's header (and all of it if the
        # ack is not capped), then the TLVs
        echoed = 16 if mflags & NLM_F_CAPPED else uint(chunk[4:8])
        tlvs = dict(attrs(chunk[4 + ((echoed + 3) & ~3):]))
        if NLMSGERR_ATTR_MSG in tlvs:
            return tlvs[NLMSGERR_ATTR_MSG].rstrip(b'\0').decode(
                errors='replace')
        if NLMSGERR_ATTR_MISS_TYPE in tlvs:
            return 'missing attribute %d%s' % (
                uint(tlvs[NLMSGERR_ATTR_MISS_TYPE]),
                ' in nest at %d' % uint(tlvs[NLMSGERR_ATTR_MISS_NEST])
                if NLMSGERR_ATTR_MISS_NEST in tlvs else '')
        return None


class Family:
    """A family's id, operations (flags) and policies, from the kernel"""

    def __init__(self, nl, name):
        self.name = name
        err, _, rep = nl.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                                 nla(CTRL_ATTR_FAMILY_NAME,
                                     name.encode() + b'\0'), version=2)
        if err or not rep:
            raise LookupError('no generic netlink family %s (%s)' %
                              (name, os.strerror(err)))
        top = dict(attrs(rep[0]))
        self.id = uint(top[CTRL_ATTR_FAMILY_ID])
        self.ops = {}
        for _, op in attrs(top.get(CTRL_ATTR_OPS, b'')):
            o = dict(attrs(op))
            self.ops[uint(o[CTRL_ATTR_OP_ID])] = uint(
                o.get(CTRL_ATTR_OP_FLAGS, bytes(4)))
        self.policies = {}
        self.op_policy = {}
        err, _, rep = nl.request(GENL_ID_CTRL, CTRL_CMD_GETPOLICY,
                                 nla(CTRL_ATTR_FAMILY_ID,
                                     struct.pack('=H', self.id)),
                                 dump=True, version=2)
        if err:
            raise LookupError('no policy of %s (%s)' %
                              (name, os.strerror(err)))
        for r in rep:
            for atype, val in attrs(r):
                if atype == CTRL_ATTR_POLICY:
                    for idx, pol in attrs(val):
                        for a, desc in attrs(pol):
                            self.policies.setdefault(idx, {})[a] = \
                                dict(attrs(desc))
                elif atype == CTRL_ATTR_OP_POLICY:
                    for cmd, pv in attrs(val):
                        d = dict(attrs(pv))
                        self.op_policy[cmd] = (
                            uint(d[CTRL_ATTR_POLICY_DO])
                            if CTRL_ATTR_POLICY_DO in d else None,
                            uint(d[CTRL_ATTR_POLICY_DUMP])
                            if CTRL_ATTR_POLICY_DUMP in d else None)

    def do_ops(self):
        return sorted(c for c, f in self.ops.items() if f & GENL_CMD_CAP_DO)

    def dump_ops(self):
        return sorted(c for c, f in self.ops.items() if f & GENL_CMD_CAP_DUMP)

    def ours(self, cmd):
        mine = OURS.get(self.name, set())
        return mine is None or cmd in mine

    def admin(self, cmd):
        """needs CAP_NET_ADMIN in the initial user namespace"""
        return bool(self.ops[cmd] & GENL_ADMIN_PERM)

    @staticmethod
    def reasoned(err, msg):
        return bool(msg)

    def send(self, nl, cmd, payload):
        err, msg, _ = nl.request(self.id, cmd, payload)
        return err, msg

    def state(self, nl):
        """What the family's dumps say, as bytes: the same before and
        after a refused request.  The objects in any order: a dump walks
        hash tables, which a resize in the background may reorder."""
        out = []
        for cmd in self.dump_ops():
            err, _, rep = nl.request(self.id, cmd, b'', dump=True)
            if self.name == 'altmark':
                rep = [self.altmark_config(r) for r in rep]
            out.append((cmd, err, tuple(sorted(rep))))
        return out

    @staticmethod
    def altmark_config(body):
        """An altmark monitor's configuration (its attributes, after the
        genl header), without what changes as time goes: its counters and
        closed blocks"""
        return b''.join(nla(t, v) for t, v in attrs(body)
                        if t not in ALTMARK_A_MONITOR_TIMED)

    def describe(self):
        return {str(c): f for c, f in sorted(self.ops.items())}


class Gen:
    """Requests of one family, from a seeded generator"""

    def __init__(self, fam, seed, index):
        self.fam = fam
        self.rng = random.Random('%s/%d/%d' % (fam.name, seed, index))

    def request(self):
        rng = self.rng
        cmd = rng.choice(self.fam.do_ops())
        if hasattr(self.fam, 'build'):
            return cmd, self.fam.build(self, cmd)
        idx = self.fam.op_policy.get(cmd, (None, None))[0]
        payload = self.attrset(idx, 0)
        # now and then, a broken tail: an attribute header that claims
        # more than there is, or a header cut short
        r = rng.random()
        if r < 0.03:
            payload += struct.pack('=HH', rng.randint(5, 300),
                                   rng.randint(0, 20))
        elif r < 0.05:
            payload += bytes(rng.randint(1, 3))
        return cmd, payload

    def attrset(self, idx, depth):
        rng = self.rng
        pol = self.fam.policies.get(idx, {}) if idx is not None else {}
        known = sorted(pol)
        maxtype = max(k & NLA_TYPE_MASK for k in known) if known else 8
        out = b''
        for _ in range(rng.randint(0, len(known) + 2)):
            if known and rng.random() < 0.9:
                atype = rng.choice(known)
            else:		# unknown, or 0
                atype = rng.choice([0, maxtype + 1,
                                    rng.randint(maxtype + 1, NLA_TYPE_MASK)])
            out += self.attr(atype, pol.get(atype), depth)
        return out

    def mutate(self, b):
        """b as it is, or with a few bytes changed, cut or added"""
        rng = self.rng
        b = bytearray(b)
        if rng.random() < 0.4:
            return bytes(b)
        for _ in range(rng.randint(1, 3)):
            k = rng.random()
            if k < 0.35 and b:
                b[rng.randrange(len(b))] = rng.getrandbits(8)
            elif k < 0.6 and b:
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
            elif k < 0.8:
                del b[rng.randrange(len(b) + 1):]
            else:
                b += rng.randbytes(rng.choice([1, 2, 4, 8, 16]))
        return bytes(b)

    def attr(self, atype, desc, depth):
        rng = self.rng
        if desc is None:
            return nla(atype, rng.randbytes(rng.choice([0, 1, 2, 4, 8, 16])))
        if 'tmpl' in desc and rng.random() < 0.7:
            return nla(atype, self.mutate(rng.choice(desc['tmpl'])))
        ptype = uint(desc[NL_POLICY_TYPE_ATTR_TYPE])
        bad = rng.random() < 0.25
        if bad and rng.random() < 0.5:		# any bytes at all
            return nla(atype, rng.randbytes(rng.choice([0, 1, 2, 3, 4, 5, 8,
                                                         9, 16, 64, 300])))
        if ptype in INTS:
            size, signed = INTS[ptype]
            if ptype in (NL_ATTR_TYPE_UINT, NL_ATTR_TYPE_SINT):
                size = rng.choice([4, 8])
            lo = -(1 << (8 * size - 1)) if signed else 0
            hi = (1 << (8 * size - 1)) - 1 if signed else (1 << 8 * size) - 1
            mn = sint(desc[NL_POLICY_TYPE_ATTR_MIN_VALUE_S]) \
                if NL_POLICY_TYPE_ATTR_MIN_VALUE_S in desc else \
                uint(desc.get(NL_POLICY_TYPE_ATTR_MIN_VALUE_U, b'')) \
                if NL_POLICY_TYPE_ATTR_MIN_VALUE_U in desc else lo
            mx = sint(desc[NL_POLICY_TYPE_ATTR_MAX_VALUE_S]) \
                if NL_POLICY_TYPE_ATTR_MAX_VALUE_S in desc else \
                uint(desc[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]) \
                if NL_POLICY_TYPE_ATTR_MAX_VALUE_U in desc else hi
            mn, mx = max(mn, lo), min(mx, hi)
            if bad:
                cands = [v for v in (mn - 1, mx + 1, lo, hi) if lo <= v <= hi]
                v = rng.choice(cands) if cands else mn
            else:
                v = rng.choice([mn, mx, mn + 1, mx - 1, 0, 1,
                                rng.randint(mn, mx),
                                rng.randint(mn, min(mx, mn + 70000))])
                v = min(max(v, mn), mx)
            return nla(atype, v.to_bytes(size, sys.byteorder, signed=signed))
        if ptype == NL_ATTR_TYPE_FLAG:
            return nla(atype, b'' if not bad else bytes(4))
        if ptype in (NL_ATTR_TYPE_STRING, NL_ATTR_TYPE_NUL_STRING,
                     NL_ATTR_TYPE_BINARY):
            mn = uint(desc.get(NL_POLICY_TYPE_ATTR_MIN_LENGTH, b'\0'))
            mx = uint(desc.get(NL_POLICY_TYPE_ATTR_MAX_LENGTH, b'\0')) or 64
            n = rng.choice([mn, mx, rng.randint(mn, mx)]) if not bad else \
                rng.choice([max(mn - 1, 0), mx + 1, mx + 7])
            if ptype == NL_ATTR_TYPE_BINARY:
                return nla(atype, rng.randbytes(n))
            s = bytes(rng.choice(b'abcdefghijklmnopqrstuvwxyz0123456789-_')
                      for _ in range(n))
            if ptype == NL_ATTR_TYPE_NUL_STRING or rng.random() < 0.5:
                s += b'\0'
            return nla(atype, s)
        if ptype in (NL_ATTR_TYPE_NESTED, NL_ATTR_TYPE_NESTED_ARRAY):
            sub = uint(desc[NL_POLICY_TYPE_ATTR_POLICY_IDX]) \
                if NL_POLICY_TYPE_ATTR_POLICY_IDX in desc else None
            if depth >= 3:
                inner = b''
            elif ptype == NL_ATTR_TYPE_NESTED_ARRAY:
                inner = b''.join(nla(i, self.attrset(sub, depth + 1))
                                 for i in range(rng.randint(0, 3)))
            else:
                inner = self.attrset(sub, depth + 1)
            if rng.random() < 0.5:
                atype |= NLA_F_NESTED
            return nla(atype, inner)
        if ptype == NL_ATTR_TYPE_BITFIELD32:
            return nla(atype, struct.pack('=II', rng.getrandbits(32),
                                          rng.getrandbits(32)))
        return nla(atype, rng.randbytes(rng.randint(0, 16)))


def pol(ptype, mn=None, mx=None, minlen=None, maxlen=None, idx=None,
        tmpl=None):
    """An attribute's policy, as CTRL_CMD_GETPOLICY describes one, for
    the attributes no kernel interface describes; tmpl: well-formed
    values, which the generator sends as they are or slightly changed"""
    def enc(v):
        return v.to_bytes(8, sys.byteorder)
    d = {NL_POLICY_TYPE_ATTR_TYPE: ptype.to_bytes(4, sys.byteorder)}
    for key, v in ((NL_POLICY_TYPE_ATTR_MIN_VALUE_U, mn),
                   (NL_POLICY_TYPE_ATTR_MAX_VALUE_U, mx),
                   (NL_POLICY_TYPE_ATTR_MIN_LENGTH, minlen),
                   (NL_POLICY_TYPE_ATTR_MAX_LENGTH, maxlen),
                   (NL_POLICY_TYPE_ATTR_POLICY_IDX, idx)):
        if v is not None:
            d[key] = enc(v)
    if tmpl is not None:
        d['tmpl'] = tmpl
    return d


def u32(v):
    return struct.pack('=I', v)


def be32(v):
    return struct.pack('>I', v)


def in6(addr):
    return socket.inet_pton(socket.AF_INET6, addr)


def in4(addr):
    return socket.inet_pton(socket.AF_INET, addr)


def strip(buf, drop):
    """buf's attributes without those of a type in drop"""
    return b''.join(nla(t, v) for t, v in attrs(buf) if t not in drop)


def setup_cmd(*args):
    """set-up in the fuzzer's own namespace (a user namespace's too);
    what cannot be done there (IOAM6 needs the initial namespace's
    CAP_NET_ADMIN) is left undone"""
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)


RTM_NEWROUTE = 24
RTM_GETROUTE = 26
NLM_F_REPLACE = 0x100
NLM_F_CREATE = 0x400
RTA_DST = 1
RTA_OIF = 4
RTA_CACHEINFO = 12
RTA_ENCAP_TYPE = 21
RTA_ENCAP = 22
RTA_EXPIRES = 23
LWTUNNEL_ENCAP_SEG6 = 5
LWTUNNEL_ENCAP_SEG6_LOCAL = 7
LWTUNNEL_ENCAP_IOAM6 = 9

# SEG6_LOCAL_*, SEG6_LOCAL_XC_*, IOAM6_IPTUNNEL_* (include/uapi/linux)
SEG6_LOCAL_ACTION_END_X, SEG6_LOCAL_ACTION_END_DX6, \
    SEG6_LOCAL_ACTION_END_DX4, SEG6_LOCAL_ACTION_END_DT4 = 2, 5, 6, 8
TRACE_HDR = [b'\x00\x7b\x00\x03\x80\x00\x00\x00',	# ns 123, node id, 12 octets
             b'\x00\x7b\x00\x3d\x00\x00\x02\x00']	# the schema, 244
E2E_HDR = [b'\x00\x7b\x80\x00', b'\x00\x7b\x70\x00']	# seq64; seq32 + ts
DEX_HDR = [b'\x00\x7b\x00\xc0\x80\x00\x00\x00\x00\x00\x00\x2a',
           b'\x00\x7b\x00\x40\xc0\x00\x00\x00']
SRH = [bytes([0, 2, 4, 0, 0, 0, 0, 0]) + in6('fc00:a::9')]


# struct seg6_iptunnel_encap: a mode (inline, encap, l2encap, encap.red,
# l2encap.red), then a valid SRH to one segment
SEG6_ENCAP = [u32(mode) + SRH[0] for mode in range(5)]


def seg6_policies():
    """SEG6_IPTUNNEL_*: the SRH, SEG6_IPTUNNEL_SRC (refused with a
    message: no policy to describe), SEG6_IPTUNNEL_ALTMARK and its
    SEG6_IPTUN_ALTMARK_* (FlowMonID, placement, delay)"""
    return {
        0: {1: pol(NL_ATTR_TYPE_BINARY, tmpl=SEG6_ENCAP),
            3: pol(NL_ATTR_TYPE_NESTED, idx=1)},
        1: {1: pol(NL_ATTR_TYPE_U32, mn=0, mx=0xfffff),
            2: pol(NL_ATTR_TYPE_U32, mn=0, mx=2),
            3: pol(NL_ATTR_TYPE_FLAG)},
    }


def seg6local_policies(oif):
    xc = {1: pol(NL_ATTR_TYPE_U32, mn=1, tmpl=[u32(oif), u32(1)]),
          2: pol(NL_ATTR_TYPE_BINARY, minlen=16, maxlen=16,
                 tmpl=[in6('fc00:a::2'), in6('ff02::1'), in6('::1')]),
          3: pol(NL_ATTR_TYPE_BINARY, minlen=4, maxlen=4,
                 tmpl=[in4('10.0.10.2'), in4('224.0.0.1'),
                       in4('127.0.0.1')])}
    table = pol(NL_ATTR_TYPE_U32, tmpl=[u32(254), u32(100)])
    ours = {3: table, 4: xc[3], 5: xc[2], 7: xc[1], 9: table,
            12: pol(NL_ATTR_TYPE_NESTED, idx=1)}
    return {
        # every attribute: the behaviour's table
        0: {1: pol(NL_ATTR_TYPE_U32, mn=1, mx=16),
            2: pol(NL_ATTR_TYPE_BINARY, maxlen=264, tmpl=SRH),
            6: pol(NL_ATTR_TYPE_U32, tmpl=[u32(oif)]),
            8: pol(NL_ATTR_TYPE_NESTED, idx=3),
            10: pol(NL_ATTR_TYPE_NESTED, idx=4),
            11: pol(NL_ATTR_TYPE_NESTED, idx=5), **ours},
        1: xc,
        # the attributes End.X, End.DX6, End.DX4 and End.DT4 take, ours
        # (oif, xconnect, End.DT4's plain table) among them
        2: ours,
        3: {1: pol(NL_ATTR_TYPE_U32), 2: pol(NL_ATTR_TYPE_NUL_STRING,
                                               maxlen=256)},
        4: {2: pol(NL_ATTR_TYPE_U64), 3: pol(NL_ATTR_TYPE_U64),
            4: pol(NL_ATTR_TYPE_U64)},
        5: {1: pol(NL_ATTR_TYPE_U32), 2: pol(NL_ATTR_TYPE_U8),
            3: pol(NL_ATTR_TYPE_U8)},
    }


def ioam6_lwt_policies():
    opts = {1: pol(NL_ATTR_TYPE_BINARY, tmpl=TRACE_HDR),
            2: pol(NL_ATTR_TYPE_BINARY, tmpl=E2E_HDR),
            3: pol(NL_ATTR_TYPE_BINARY, tmpl=DEX_HDR)}
    addr = pol(NL_ATTR_TYPE_BINARY, minlen=16, maxlen=16,
               tmpl=[in6('fc00:b::2'), in6('fc00:b::1')])
    return {
        0: {1: pol(NL_ATTR_TYPE_U8, mn=1, mx=3),
            2: addr,
            3: pol(NL_ATTR_TYPE_BINARY, minlen=8, maxlen=8, tmpl=TRACE_HDR),
            4: pol(NL_ATTR_TYPE_U32, mn=1, mx=1000000),
            5: pol(NL_ATTR_TYPE_U32, mn=1, mx=1000000),
            6: addr,
            7: pol(NL_ATTR_TYPE_NESTED, idx=1)},
        1: opts,
    }


class Described:
    """An interface whose policies the fuzzer carries: its operations
    are self.ops (name by number); by default all of them are ours, none
    needs the initial namespace's CAP_NET_ADMIN, and a refusal gives its
    reason as an extack message"""

    def do_ops(self):
        return sorted(self.ops)

    def ours(self, cmd):
        return True

    @staticmethod
    def admin(cmd):
        return False

    @staticmethod
    def reasoned(err, msg):
        return bool(msg)

    def describe(self):
        return self.ops


class RouteFamily(Described):
    """RTM_NEWROUTE (create or replace) of one of four /128 routes over
    dummy0, with a seg6local, an IOAM6 or a seg6 encap; the state is the
    namespace's IPv6 routes"""

    def __init__(self, nl, name):
        self.name = name
        self.id = RTM_NEWROUTE
        setup_cmd('ip', 'link', 'set', 'lo', 'up')
        setup_cmd('ip', 'link', 'add', 'dummy0', 'type', 'dummy')
        setup_cmd('ip', 'link', 'set', 'dummy0', 'up')
        setup_cmd('ip', '-6', 'addr', 'add', 'fc00:b::1/64', 'dev',
                  'dummy0', 'nodad')
        setup_cmd('ip', 'ioam', 'namespace', 'add', '123')
        self.oif = socket.if_nametoindex('dummy0')
        if name == 'seg6local':
            self.encap = LWTUNNEL_ENCAP_SEG6_LOCAL
            self.policies = seg6local_policies(self.oif)
            # 0: End.X, End.DX6, End.DX4 or End.DT4 with the attributes
            # they take (refusals there are ours); 1: anything
            self.ops = {0: 'ours', 1: 'any'}
        elif name == 'seg6':
            self.encap = LWTUNNEL_ENCAP_SEG6
            self.policies = seg6_policies()
            # 0: a valid SRH with altmark (and now and then
            # SEG6_IPTUNNEL_SRC): refusals there are ours; 1: anything
            self.ops = {0: 'ours', 1: 'any'}
        else:
            self.encap = LWTUNNEL_ENCAP_IOAM6
            self.policies = ioam6_lwt_policies()
            self.ops = {0: 'ours'}
        self.op_policy = {}

    def ours(self, cmd):
        return self.ops[cmd] == 'ours'

    def build(self, gen, cmd):
        rng = gen.rng
        if self.encap == LWTUNNEL_ENCAP_SEG6_LOCAL and cmd == 0:
            act = rng.choice([SEG6_LOCAL_ACTION_END_X,
                              SEG6_LOCAL_ACTION_END_DX6,
                              SEG6_LOCAL_ACTION_END_DX4,
                              SEG6_LOCAL_ACTION_END_DT4])
            encap = nla(1, u32(act)) + gen.attrset(2, 0)
        elif self.encap == LWTUNNEL_ENCAP_SEG6 and cmd == 0:
            encap = nla(1, rng.choice(SEG6_ENCAP))
            if rng.random() < 0.9:
                encap += nla(3 | NLA_F_NESTED, gen.attrset(1, 1))
            if rng.random() < 0.1:
                encap += gen.attr(2, None, 0)
        elif self.encap == LWTUNNEL_ENCAP_IOAM6 and rng.random() < 0.7:
            # a mode, its tunnel destination, a trace or a list of
            # options, then perhaps anything else
            pols = self.policies
            mode = rng.randint(1, 3)
            encap = nla(1, bytes([mode])) if rng.random() < 0.9 else b''
            if mode != 1 or rng.random() < 0.1:
                encap += gen.attr(2, pols[0][2], 0)
            if rng.random() < 0.25:
                encap += gen.attr(3, pols[0][3], 0)
            else:
                opts = [rng.randint(1, 3) for _ in range(rng.randint(1, 4))]
                encap += nla(7 | NLA_F_NESTED,
                             b''.join(gen.attr(t, pols[1][t], 1)
                                      for t in opts))
            if rng.random() < 0.2:
                encap += gen.attrset(0, 0)
        else:
            encap = gen.attrset(0, 0)
        rtm = struct.pack('=BBBBBBBBI', socket.AF_INET6, 128, 0, 0, 254, 3,
                          0, 1, 0)
        dst = in6('fc00:f::%d' % rng.randint(1, 4))
        return (rtm + nla(RTA_DST, dst) + nla(RTA_OIF, u32(self.oif)) +
                nla(RTA_ENCAP_TYPE, struct.pack('=H', self.encap)) +
                nla(RTA_ENCAP | NLA_F_NESTED, encap))

    def send(self, nl, cmd, body):
        err, msg, _ = nl.raw(self.id, NLM_F_CREATE | NLM_F_REPLACE, body)
        return err, msg

    def state(self, nl):
        rtm = struct.pack('=BBH', socket.AF_INET6, 0, 0) + bytes(8)
        err, _, rep = nl.raw(RTM_GETROUTE, 0, rtm, dump=True)
        # without what moves by itself: the cache info's last use, expiry
        return [err] + sorted(r[:12] + strip(r[12:], {RTA_CACHEINFO,
                                                       RTA_EXPIRES})
                              for r in rep)


NFNL_SUBSYS_IPSET = 6
IPSET_PROTOCOL = 7
IPSET_CMD_CREATE, IPSET_CMD_LIST, IPSET_CMD_ADD, IPSET_CMD_DEL, \
    IPSET_CMD_TEST = 2, 7, 9, 10, 11
IPSET_ATTR_PROTOCOL, IPSET_ATTR_SETNAME, IPSET_ATTR_TYPENAME, \
    IPSET_ATTR_REVISION, IPSET_ATTR_FAMILY, IPSET_ATTR_DATA, \
    IPSET_ATTR_ADT, IPSET_ATTR_LINENO = 1, 2, 3, 4, 5, 7, 8, 9
IPSET_ATTR_TIMEOUT = 6
IPSET_ATTR_ELEMENTS, IPSET_ATTR_MEMSIZE = 24, 26
IPSET_ERR_PRIVATE = 4096
# what ipset(8) explains besides its private range (lib/errcode.c), and
# ENOMEM, which a hash size beyond the hash types' limit gets
IPSET_REASONS = {errno.ENOENT, errno.EMSGSIZE, errno.ERANGE, errno.EEXIST,
                 errno.ENOMEM}
NFPROTO_IPV6 = 10
# the sets the fuzzer works on: made by the set-up, or by its creates
SETS = ['sr6a', 'sr6c', 'sr6t', 'fz0', 'fz1', 'fz2']
SIDS = [in6('fc00:a::1'), in6('fc00:a::1') + in6('fc00:b::1'),
        b''.join(in6('fc00:c::%x' % i) for i in range(16))]


class IpsetFamily(Described):
    """ipset's create, add, del and test of hash:sr6 sets; the state is
    the namespace's sets and their elements"""

    def __init__(self, nl, name):
        self.name = name
        self.id = (NFNL_SUBSYS_IPSET << 8)
        setup_cmd('ipset', 'create', 'sr6a', 'hash:sr6')
        setup_cmd('ipset', 'create', 'sr6c', 'hash:sr6', 'counters',
                  'comment', 'skbinfo')
        setup_cmd('ipset', 'create', 'sr6t', 'hash:sr6', 'timeout', '600')
        self.ops = {IPSET_CMD_CREATE: 'create', IPSET_CMD_ADD: 'add',
                    IPSET_CMD_DEL: 'del', IPSET_CMD_TEST: 'test'}
        self.op_policy = {}
        # ipset's numbers are big-endian, flagged NLA_F_NET_BYTEORDER,
        # as ipset sends them (the kernel refuses them unflagged)
        net = NLA_F_NET_BYTEORDER
        self.policies = {
            # create's data (net/netfilter/ipset/ip_set_hash_sr6.c)
            0: {17: pol(NL_ATTR_TYPE_U32),
                net | 18: pol(NL_ATTR_TYPE_U32,
                              tmpl=[be32(64), be32(1 << 31)]),
                net | 19: pol(NL_ATTR_TYPE_U32,
                              tmpl=[be32(1), be32(65536)]),
                21: pol(NL_ATTR_TYPE_U8, mn=2, mx=12),
                22: pol(NL_ATTR_TYPE_U8),
                net | 6: pol(NL_ATTR_TYPE_U32, tmpl=[be32(600), be32(0)]),
                # counters, comment, forceadd, skbinfo
                net | 8: pol(NL_ATTR_TYPE_U32,
                             tmpl=[be32(1 << 3), be32(1 << 4),
                                   be32(1 << 5), be32(1 << 6)])},
            # add, del and test's data
            1: {31: pol(NL_ATTR_TYPE_BINARY, maxlen=256, tmpl=SIDS),
                net | 6: pol(NL_ATTR_TYPE_U32, tmpl=[be32(600), be32(0)]),
                net | 9: pol(NL_ATTR_TYPE_U32),
                net | 24: pol(NL_ATTR_TYPE_U64),
                net | 25: pol(NL_ATTR_TYPE_U64),
                26: pol(NL_ATTR_TYPE_NUL_STRING, maxlen=255,
                        tmpl=[b'a comment\0']),
                net | 27: pol(NL_ATTR_TYPE_U64),
                net | 28: pol(NL_ATTR_TYPE_U32),
                net | 29: pol(NL_ATTR_TYPE_U16)},
        }

    @staticmethod
    def reasoned(err, msg):
        return bool(msg) or err >= IPSET_ERR_PRIVATE or err in IPSET_REASONS

    def build(self, gen, cmd):
        rng = gen.rng

        def maybe(atype, good, bad):
            if rng.random() < 0.9:
                return nla(atype, good)
            return nla(atype, bad) if rng.random() < 0.8 else b''
        out = maybe(IPSET_ATTR_PROTOCOL, bytes([IPSET_PROTOCOL]),
                    bytes([rng.choice([0, 5, 6, 8, 255])]))
        # creates make fz0-fz2; the others go mostly to the set-up's sets
        name = rng.choice(SETS[3:] if cmd == IPSET_CMD_CREATE or
                          rng.random() < 0.2 else SETS[:3])
        out += maybe(IPSET_ATTR_SETNAME, name.encode() + b'\0',
                     rng.randbytes(rng.choice([0, 1, 31, 32, 40])))
        if cmd == IPSET_CMD_CREATE:
            out += maybe(IPSET_ATTR_TYPENAME, b'hash:sr6\0',
                         b'hash:sr6')
            out += maybe(IPSET_ATTR_REVISION, b'\0', bytes([1]))
            out += maybe(IPSET_ATTR_FAMILY, bytes([NFPROTO_IPV6]),
                         bytes([rng.choice([0, 2, 7])]))
            data = gen.attrset(0, 0) if rng.random() < 0.6 else b''
            out += nla(IPSET_ATTR_DATA | NLA_F_NESTED, data)
        elif rng.random() < 0.8:
            out += nla(IPSET_ATTR_DATA |
                       (NLA_F_NESTED if rng.random() < 0.95 else 0),
                       self.element(gen))
        else:			# several elements at once, as restore sends
            adt = b''.join(nla(IPSET_ATTR_DATA | NLA_F_NESTED,
                               self.element(gen))
                           for _ in range(rng.randint(0, 3)))
            out += nla(IPSET_ATTR_ADT | NLA_F_NESTED, adt)
        if rng.random() < 0.1:
            out += nla(IPSET_ATTR_LINENO, u32(rng.getrandbits(32)))
        return struct.pack('=BBH', NFPROTO_IPV6, 0, 0) + out

    def element(self, gen):
        """an element's data: a segment list, mostly, and now and then
        other attributes, of the policy or not"""
        rng = gen.rng
        out = b''
        if rng.random() < 0.85:
            out += gen.attr(31, self.policies[1][31], 1)
        if rng.random() < 0.5:
            out += gen.attrset(1, 1)
        return out

    def send(self, nl, cmd, body):
        err, msg, _ = nl.raw(self.id | cmd, 0, body)
        return err, msg

    def state(self, nl):
        body = struct.pack('=BBH', NFPROTO_IPV6, 0, 0) + \
            nla(IPSET_ATTR_PROTOCOL, bytes([IPSET_PROTOCOL]))
        err, _, rep = nl.raw(self.id | IPSET_CMD_LIST, 0, body, dump=True)
        out = set()
        for r in rep:
            for t, v in attrs(r[4:]):
                t &= ~NLA_F_NESTED
                if t == IPSET_ATTR_DATA:	# the header, without
                    out.add((t, strip(v, {IPSET_ATTR_ELEMENTS,	# what
                                          IPSET_ATTR_MEMSIZE})))	# moves
                elif t == IPSET_ATTR_ADT:
                    # each element, but those that time out
                    for _, e in attrs(v):
                        to = dict(attrs(e)).get(IPSET_ATTR_TIMEOUT)
                        if to is None or not uint(to):
                            out.add((t, e))
                else:
                    out.add((t, v))
        return [err] + sorted(out)


NFNL_SUBSYS_NFTABLES = 10
NFNL_MSG_BATCH_BEGIN, NFNL_MSG_BATCH_END = 0x10, 0x11
NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWRULE, NFT_MSG_GETRULE, \
    NFT_MSG_DELRULE = 0, 3, 6, 7, 8
NLM_F_APPEND = 0x800
NFTA_TABLE_NAME = 1
NFTA_CHAIN_TABLE, NFTA_CHAIN_NAME, NFTA_CHAIN_HOOK, NFTA_CHAIN_TYPE = \
    1, 3, 4, 7
NFTA_HOOK_HOOKNUM, NFTA_HOOK_PRIORITY = 1, 2
NFTA_RULE_TABLE, NFTA_RULE_CHAIN, NFTA_RULE_EXPRESSIONS = 1, 2, 4
NFTA_LIST_ELEM = 1
NFTA_EXPR_NAME, NFTA_EXPR_DATA = 1, 2
NFTA_MATCH_NAME, NFTA_MATCH_REV, NFTA_MATCH_INFO = 1, 2, 3
NF_INET_PRE_ROUTING = 0


def srh_info(rev, flags=0, inv=0, sids=()):
    """struct ip6t_srh (revision 0), ip6t_srh1 (1), ip6t_srh2 (2)"""
    b = struct.pack('=BBBBHHH', 41, 4, 1, 1, 0, flags, inv)
    if rev == 0:
        return b + bytes(6)		# XT_ALIGN(10)
    b += bytes(2) + in6('fc00:a::1') + in6('fc00:a::2') + in6('fc00:a::3') + \
        bytes(48)
    if rev == 1:
        return b + bytes(4)		# XT_ALIGN(108)
    return b + struct.pack('=B3x', len(sids)) + b''.join(sids) + \
        bytes(16 * (16 - len(sids)))


SRH_INFOS = [srh_info(0, 0x0001), srh_info(0, 0x0400, 0x0400),
             srh_info(1, 0x0800 | 0x1000, 0x2000),
             srh_info(2, 0x4000, 0, [in6('fc00:a::1'), in6('fc00:a::2')]),
             srh_info(2, 0x4000 | 0x0010, 0x4000, [in6('fc00:a::1')]),
             srh_info(2, 0x4000, 0,
                      [in6('fc00:a::%x' % i) for i in range(1, 17)])]


def srh_match_info(gen):
    """(revision, info) of an srh match: mostly a valid revision and one
    of SRH_INFOS of its size, mutated; now and then an unknown revision or
    random bytes of a plausible size"""
    rng = gen.rng
    rev = rng.choice([0, 1, 2, 2, 2]) if rng.random() < 0.9 else \
        rng.choice([3, 255])
    good = [i for i in SRH_INFOS if len(i) == (16, 112, 368)[min(rev, 2)]]
    info = gen.mutate(rng.choice(good)) if rng.random() < 0.9 else \
        rng.randbytes(rng.choice([0, 16, 112, 368, 400]))
    return rev, info


class SrhMatchFamily(Described):
    """ip6t_srh, revisions 0 to 2, as the xtables match of an nftables
    rule (nft_compat: the match's info checked by its checkentry, as
    ip6tables' own setsockopt has it checked); the state is the rules of
    the namespace's ip6 tables.  xtables refusals carry no extack: they
    are counted, the reason goes to the kernel log."""

    def __init__(self, nl, name):
        self.name = name
        self.nl = nl
        self.id = NFNL_SUBSYS_NFTABLES << 8
        self.ops = {0: 'rule'}
        self.op_policy = {}
        self.batch([(NFT_MSG_NEWTABLE, NLM_F_CREATE,
                     nla(NFTA_TABLE_NAME, b'nlfuzz\0')),
                    (NFT_MSG_NEWCHAIN, NLM_F_CREATE,
                     nla(NFTA_CHAIN_TABLE, b'nlfuzz\0') +
                     nla(NFTA_CHAIN_NAME, b'pre\0') +
                     nla(NFTA_CHAIN_HOOK | NLA_F_NESTED,
                         nla(NFTA_HOOK_HOOKNUM, be32(NF_INET_PRE_ROUTING)) +
                         nla(NFTA_HOOK_PRIORITY, be32(0))) +
                     nla(NFTA_CHAIN_TYPE, b'filter\0'))])

    def batch(self, msgs):
        """msgs [(type, flags, attributes)] in one nftables batch;
        returns (errno, extack message) of the last one"""
        nl = self.nl
        out, seqs = b'', []
        hdr = struct.pack('=BBH', NFPROTO_IPV6, 0, 0)
        for mtype, flags, body in [(NFNL_MSG_BATCH_BEGIN, 0, b'')] + msgs + \
                [(NFNL_MSG_BATCH_END, 0, b'')]:
            nl.seq += 1
            seqs.append(nl.seq)
            if mtype in (NFNL_MSG_BATCH_BEGIN, NFNL_MSG_BATCH_END):
                full = mtype
                h = struct.pack('=BBH', 0, 0,
                                socket.htons(NFNL_SUBSYS_NFTABLES))
                fl = NLM_F_REQUEST
            else:
                full = self.id | mtype
                h = hdr
                fl = NLM_F_REQUEST | NLM_F_ACK | flags
            m = h + body
            out += struct.pack('=IHHII', 16 + len(m), full, fl, nl.seq, 0) + m
        nl.sock.send(out)
        want = seqs[-2]
        for mtype, mflags, seq, chunk in nl.messages():
            if mtype != NLMSG_ERROR or seq not in seqs:
                continue
            err = -sint(chunk[:4])
            if err or seq == want:
                return err, nl._extack(chunk, mflags)

    def ours(self, cmd):
        return False		# no extack in xtables: counted

    def build(self, gen, cmd):
        rev, info = srh_match_info(gen)
        match = nla(NFTA_MATCH_NAME, b'srh\0') + \
            nla(NFTA_MATCH_REV, be32(rev)) + nla(NFTA_MATCH_INFO, info)
        expr = nla(NFTA_EXPR_NAME, b'match\0') + \
            nla(NFTA_EXPR_DATA | NLA_F_NESTED, match)
        return nla(NFTA_RULE_TABLE, b'nlfuzz\0') + \
            nla(NFTA_RULE_CHAIN, b'pre\0') + \
            nla(NFTA_RULE_EXPRESSIONS | NLA_F_NESTED,
                nla(NFTA_LIST_ELEM | NLA_F_NESTED, expr))

    def send(self, nl, cmd, body):
        err, msg = self.batch([(NFT_MSG_NEWRULE,
                                NLM_F_CREATE | NLM_F_APPEND, body)])
        if not err:		# a rule of it stays: flush the chain
            self.batch([(NFT_MSG_DELRULE, 0,
                         nla(NFTA_RULE_TABLE, b'nlfuzz\0') +
                         nla(NFTA_RULE_CHAIN, b'pre\0'))])
        return err, msg

    def state(self, nl):
        hdr = struct.pack('=BBH', NFPROTO_IPV6, 0, 0)
        err, _, rep = nl.raw(self.id | NFT_MSG_GETRULE, 0, hdr, dump=True)
        # without the header's generation id
        return [err] + sorted(r[4:] for r in rep)


# ip6tables' legacy interface (linux/netfilter_ipv6/ip6_tables.h, x86-64
# layouts): struct ip6t_entry is the 136-byte struct ip6t_ip6, nfcache,
# target_offset, next_offset, comefrom, 4 bytes of padding and the 16-byte
# counters; an xt_entry_match or xt_entry_target header is its size, a
# 29-byte name and the revision.
SOL_IPV6 = 41
IP6T_SO_SET_REPLACE = 64
IP6T_SO_GET_INFO = 64
IP6T_SO_GET_ENTRIES = 65
IP6T_ENTRY = 168
IP6T_GET_ENTRIES = 40
NF_INET_HOOKS = 5
FILTER_HOOKS = (1, 2, 3)	# LOCAL_IN, FORWARD, LOCAL_OUT
NF_ACCEPT = 1


def xt_header(size, name, rev=0):
    return struct.pack('=H29sB', size, name, rev)


def ip6t_entry(body=b'', target=None, ipv6=None):
    """an ip6t_entry with the matches BODY and TARGET (standard ACCEPT)"""
    if target is None:
        target = xt_header(40, b'') + struct.pack('=i4x', -NF_ACCEPT - 1)
    ipv6 = ipv6 if ipv6 is not None else bytes(136)
    toff = IP6T_ENTRY + len(body)
    return ipv6 + struct.pack('=IHHI4x16x', 0, toff, toff + len(target), 0) + \
        body + target


class SrhLegacyFamily(Described):
    """ip6t_srh, revisions 0 to 2, in the INPUT chain of ip6tables' legacy
    filter table, the table replaced whole with IP6T_SO_SET_REPLACE on a
    raw socket (as ip6tables-legacy does; ip6_tables.c's translate_table()
    and the match's checkentry check it); the state is the table's entries
    (IP6T_SO_GET_ENTRIES, without the counters).  A request is the INPUT
    chain's one rule; an accepted one is replaced by the empty table
    again.  No extack on this path: refusals are counted."""

    def __init__(self, nl, name):
        import ctypes
        self.ctypes = ctypes
        self.name = name
        self.id = IP6T_SO_SET_REPLACE
        self.ops = {0: 'replace'}
        self.op_policy = {}
        self.sock = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                                  socket.IPPROTO_RAW)
        self.libc = ctypes.CDLL(None, use_errno=True)
        err = self.replace(b'')
        if err:
            raise OSError(err, 'the empty filter table: %s' %
                          os.strerror(err))

    def getsockopt(self, opt, buf):
        ct = self.ctypes
        b = ct.create_string_buffer(buf, len(buf))
        n = ct.c_uint(len(buf))
        if self.libc.getsockopt(self.sock.fileno(), SOL_IPV6, opt, b,
                                ct.byref(n)):
            raise OSError(ct.get_errno(), os.strerror(ct.get_errno()))
        return b.raw[:n.value]

    def info(self):
        """(number of entries, size) of the namespace's filter table"""
        raw = self.getsockopt(IP6T_SO_GET_INFO,
                              struct.pack('=32s52x', b'filter'))
        return struct.unpack_from('=II', raw, 76)

    def replace(self, rule):
        """replace the filter table by one with RULE (an entry, or b'')
        first in INPUT and ACCEPT policies; the error number, 0 if taken"""
        policy = ip6t_entry()
        error = ip6t_entry(target=xt_header(64, b'ERROR') +
                           struct.pack('=30s2x', b'ERROR'))
        entries = rule + policy * 3 + error
        hooks, under = [0] * NF_INET_HOOKS, [0] * NF_INET_HOOKS
        hooks[1], under[1] = 0, len(rule)
        for i, h in enumerate(FILTER_HOOKS[1:], 1):
            hooks[h] = under[h] = len(rule) + i * len(policy)
        n = 1 if rule else 0
        num, _ = self.info()
        counters = self.ctypes.create_string_buffer(16 * num)
        repl = struct.pack('=32sIII5I5IIQ', b'filter',
                           sum(1 << h for h in FILTER_HOOKS), n + 4,
                           len(entries), *hooks, *under, num,
                           self.ctypes.addressof(counters))
        try:
            self.sock.setsockopt(SOL_IPV6, IP6T_SO_SET_REPLACE,
                                 repl + entries)
        except OSError as e:
            return e.errno
        return 0

    def ours(self, cmd):
        return False		# no extack in xtables: counted

    @staticmethod
    def reasoned(err, msg):
        return False

    def build(self, gen, cmd):
        rng = gen.rng
        rev, info = srh_match_info(gen)
        size = 32 + len(info)
        if rng.random() < 0.1:	# a match size that is not the info's
            size = rng.choice([0, 32, size - 8, size + 8,
                               rng.randint(0, 0xffff)]) & 0xffff
        match = xt_header(size, b'srh', rev) + info
        ipv6 = bytearray(136)
        if rng.random() < 0.2:	# protocol, flags, inverse flags
            ipv6[128:133] = struct.pack('=HBBB', rng.choice([0, 43, 17]),
                                        0, rng.getrandbits(8),
                                        rng.getrandbits(8))
        entry = bytearray(ip6t_entry(match, ipv6=bytes(ipv6)))
        if rng.random() < 0.05:	# target_offset, next_offset
            struct.pack_into('=HH', entry, 140, rng.getrandbits(16),
                             rng.getrandbits(16))
        return bytes(entry)

    def send(self, nl, cmd, body):
        err = self.replace(body)
        if not err:		# the rule stays: back to the empty table
            self.replace(b'')
        return err, None

    def state(self, nl):
        num, size = self.info()
        raw = bytearray(self.getsockopt(
            IP6T_SO_GET_ENTRIES,
            struct.pack('=32sI4x', b'filter', size) + bytes(size)))
        off = IP6T_GET_ENTRIES
        while off < len(raw):	# the counters count packets: not state
            raw[off + 152:off + 168] = bytes(16)
            nxt = struct.unpack_from('=H', raw, off + 142)[0]
            if nxt < IP6T_ENTRY:
                break
            off += nxt
        return [num, bytes(raw)]


def family(nl_cache, name):
    """the family named name, on a socket of its netlink protocol"""
    if name == 'srh-legacy':
        return None, SrhLegacyFamily(None, name)
    if name == 'srh':
        nl = nl_cache.setdefault(NETLINK_NETFILTER,
                                 Netlink(NETLINK_NETFILTER))
        return nl, SrhMatchFamily(nl, name)
    if name in ('seg6local', 'ioam6-lwt', 'seg6'):
        nl = nl_cache.setdefault(NETLINK_ROUTE, Netlink(NETLINK_ROUTE))
        return nl, RouteFamily(nl, name)
    if name == 'hash:sr6':
        nl = nl_cache.setdefault(NETLINK_NETFILTER,
                                 Netlink(NETLINK_NETFILTER))
        return nl, IpsetFamily(nl, name)
    nl = nl_cache.setdefault(NETLINK_GENERIC, Netlink())
    return nl, Family(nl, name)


def fuzz(a):
    nl, fam = family({}, a.family)
    userns = a.userns
    stats = {'sent': 0, 'accepted': 0, 'refused': 0, 'eperm': 0,
             'refused_without_message': 0, 'counted_without_reason': 0}
    by_errno = {}
    failures = []
    unmessaged = {}
    before = fam.state(nl)
    for i in range(a.count):
        cmd, payload = Gen(fam, a.seed, i).request()
        err, msg = fam.send(nl, cmd, payload)
        stats['sent'] += 1
        if i % 5000 == 0:
            print('%s: seed %d, request %d' % (fam.name, a.seed, i),
                  file=sys.stderr)
        if not err:
            stats['accepted'] += 1
            if userns and fam.admin(cmd):
                failures.append('request %d: cmd %d needs CAP_NET_ADMIN in '
                                'the initial namespace, and was accepted in '
                                'a user namespace' % (i, cmd))
            before = fam.state(nl)
            continue
        stats['refused'] += 1
        name = errno.errorcode.get(err, str(err))
        by_errno[name] = by_errno.get(name, 0) + 1
        if err == errno.EPERM:
            stats['eperm'] += 1
        elif userns and fam.admin(cmd):
            failures.append('request %d: cmd %d refused with %s, not EPERM, '
                            'in a user namespace' % (i, cmd, name))
        elif not fam.reasoned(err, msg):
            key = '%d/%s' % (cmd, name)
            if fam.ours(cmd):
                stats['refused_without_message'] += 1
                if key not in unmessaged:
                    failures.append('request %d: cmd %d refused with %s '
                                    'and no extack message: %s' %
                                    (i, cmd, name, payload.hex()))
            else:	# upstream's, and xtables' (no extack there)
                stats['counted_without_reason'] += 1
            unmessaged[key] = unmessaged.get(key, 0) + 1
        after = fam.state(nl)
        if after != before:
            failures.append('request %d: cmd %d refused with %s (%s), and '
                            'the state changed: %s' %
                            (i, cmd, name, msg, payload.hex()))
            before = after
        if len(failures) >= 20:
            break
    print(json.dumps({'family': fam.name, 'seed': a.seed, 'userns': userns,
                      'ops': fam.describe(),
                      **stats, 'errno': by_errno,
                      'unmessaged': unmessaged, 'failures': failures}))
    return 1 if failures else 0


def show(a):
    _, fam = family({}, a.family)
    cmd, payload = Gen(fam, a.seed, a.index).request()
    print('family %s (%d) cmd %d: %s' % (fam.name, fam.id, cmd, payload.hex()))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('fuzz')
    c.add_argument('--family', required=True)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--count', type=int, default=3000)
    c.add_argument('--userns', action='store_true',
                   help='run as an unprivileged user in a user namespace')
    c = sub.add_parser('show')
    c.add_argument('--family', required=True)
    c.add_argument('--seed', type=int, default=1)
    c.add_argument('--index', type=int, required=True)
    a = ap.parse_args()
    return {'fuzz': fuzz, 'show': show}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Generic netlink fuzzer of srv6_nlfuzz_test.sh.  For a family (STAMP,
# IOAM6) it asks the kernel for the family's operations and their attribute
# policies (CTRL_CMD_GETFAMILY, CTRL_CMD_GETPOLICY), and sends requests built
# from them: attributes of the right type with values in and out of their
# range, wrong lengths, wrong types, unknown attributes, duplicates, nests
# and their contents, truncated attributes, in random combinations.  After
# each request it checks:
#  - a refused request changed nothing: the family's dumps read the same
#    before and after it;
#  - a refusal of an operation of ours says why: an extack message, or
#    the attribute it misses;
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
import sys

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

# The operations of the families that srv6-oam adds: every refusal of
# theirs must say why.  IOAM6's others are upstream's, which refuse some
# requests with a bare error number; they are counted, not failed.
OURS = {'stamp': None,			# all of them
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
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, payload, dump=False, version=1):
        """Send one request; return (errno, extack message, replies):
        replies are the attribute parts of the answers (after the genl
        header)."""
        self.seq += 1
        body = struct.pack('=BBH', cmd, version, 0) + payload
        flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
        self.sock.send(struct.pack('=IHHII', 16 + len(body), family, flags,
                                   self.seq, 0) + body)
        replies = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                ln, mtype, mflags, seq = struct.unpack_from('=IHHI', data, off)
                chunk = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if seq != self.seq:
                    continue
                if mtype == NLMSG_ERROR:
                    return (-sint(chunk[:4]), self._extack(chunk, mflags),
                            replies)
                if mtype == NLMSG_DONE:
                    err = -sint(chunk[:4]) if len(chunk) >= 4 else 0
                    return err, None, replies
                replies.append(chunk[4:])

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


class Gen:
    """Requests of one family, from a seeded generator"""

    def __init__(self, fam, seed, index):
        self.fam = fam
        self.rng = random.Random('%s/%d/%d' % (fam.name, seed, index))

    def request(self):
        rng = self.rng
        cmd = rng.choice(self.fam.do_ops())
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
        maxtype = max(known) if known else 8
        out = b''
        for _ in range(rng.randint(0, len(known) + 2)):
            if known and rng.random() < 0.9:
                atype = rng.choice(known)
            else:		# unknown, or 0
                atype = rng.choice([0, maxtype + 1,
                                    rng.randint(maxtype + 1, NLA_TYPE_MASK)])
            out += self.attr(atype, pol.get(atype), depth)
        return out

    def attr(self, atype, desc, depth):
        rng = self.rng
        if desc is None:
            return nla(atype, rng.randbytes(rng.choice([0, 1, 2, 4, 8, 16])))
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


def state(nl, fam):
    """What the family's dumps say, as bytes: the same before and after a
    refused request.  The objects in any order: a dump walks hash tables,
    which a resize in the background may reorder."""
    out = []
    for cmd in fam.dump_ops():
        err, _, rep = nl.request(fam.id, cmd, b'', dump=True)
        out.append((cmd, err, tuple(sorted(rep))))
    return out


def fuzz(a):
    nl = Netlink()
    fam = Family(nl, a.family)
    userns = a.userns
    stats = {'sent': 0, 'accepted': 0, 'refused': 0, 'eperm': 0,
             'refused_without_message': 0, 'upstream_without_message': 0}
    by_errno = {}
    failures = []
    unmessaged = {}
    before = state(nl, fam)
    for i in range(a.count):
        cmd, payload = Gen(fam, a.seed, i).request()
        err, msg, _ = nl.request(fam.id, cmd, payload)
        stats['sent'] += 1
        if i % 5000 == 0:
            print('%s: seed %d, request %d' % (fam.name, a.seed, i),
                  file=sys.stderr)
        if not err:
            stats['accepted'] += 1
            if userns and fam.ops[cmd] & GENL_ADMIN_PERM:
                failures.append('request %d: cmd %d needs CAP_NET_ADMIN in '
                                'the initial namespace, and was accepted in '
                                'a user namespace' % (i, cmd))
            before = state(nl, fam)
            continue
        stats['refused'] += 1
        name = errno.errorcode.get(err, str(err))
        by_errno[name] = by_errno.get(name, 0) + 1
        if err == errno.EPERM:
            stats['eperm'] += 1
        elif userns and fam.ops[cmd] & GENL_ADMIN_PERM:
            failures.append('request %d: cmd %d refused with %s, not EPERM, '
                            'in a user namespace' % (i, cmd, name))
        elif not msg:
            key = '%d/%s' % (cmd, name)
            if fam.ours(cmd):
                stats['refused_without_message'] += 1
                if key not in unmessaged:
                    failures.append('request %d: cmd %d refused with %s '
                                    'and no extack message: %s' %
                                    (i, cmd, name, payload.hex()))
            else:
                stats['upstream_without_message'] += 1
            unmessaged[key] = unmessaged.get(key, 0) + 1
        after = state(nl, fam)
        if after != before:
            failures.append('request %d: cmd %d refused with %s (%s), and '
                            'the state changed: %s' %
                            (i, cmd, name, msg, payload.hex()))
            before = after
        if len(failures) >= 20:
            break
    print(json.dumps({'family': fam.name, 'seed': a.seed, 'userns': userns,
                      'ops': {str(c): f for c, f in sorted(fam.ops.items())},
                      **stats, 'errno': by_errno,
                      'unmessaged': unmessaged, 'failures': failures}))
    return 1 if failures else 0


def show(a):
    nl = Netlink()
    fam = Family(nl, a.family)
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

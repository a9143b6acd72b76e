# SPDX-License-Identifier: GPL-2.0
"""altmark_nl: the kernel's Alternate-Marking monitors over generic netlink.

A client of the "altmark" family (Documentation/netlink/specs/altmark.yaml,
include/uapi/linux/altmark.h): add and delete a FlowMonID's monitor, and
read its closed blocks.  Python 3 standard library only; needs
CAP_NET_ADMIN in the network namespace.
"""

import errno
import os
import socket
import struct

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3fff

FAMILY = "altmark"
FLOWMON_MAX = 0xfffff
HISTORY_MAX = 32
CMD_MONITOR_ADD, CMD_MONITOR_DEL, CMD_MONITOR_GET = 1, 2, 3
A_MONITOR_FLOWMON, A_MONITOR_HISTORY, A_MONITOR_PERIOD_MS = 1, 2, 3
A_MONITOR_BLOCK = 5
A_BLOCK_NUMBER, A_BLOCK_PACKETS, A_BLOCK_BYTES = 1, 2, 3
A_BLOCK_TS_SUM, A_BLOCK_DMARK_NS, A_BLOCK_FLAGS = 4, 5, 6
FLAG_PARTIAL, FLAG_UNSURE, FLAG_DMARK = 1, 2, 4

NLMSGHDR = struct.Struct("=IHHII")
GENLHDR = struct.Struct("=BBH")
NLATTR = struct.Struct("=HH")


class NetlinkError(OSError):
    """The kernel's error for a request, with its extack message if any."""


def attr(atype, payload):
    hdr = NLATTR.pack(NLATTR.size + len(payload), atype)
    return hdr + payload + bytes(-len(payload) % 4)


def attrs(data):
    """{type: [payload, ...]} of a run of attributes."""
    out, off = {}, 0
    while off + NLATTR.size <= len(data):
        length, atype = NLATTR.unpack_from(data, off)
        if length < NLATTR.size or off + length > len(data):
            break
        out.setdefault(atype & NLA_TYPE_MASK, []).append(
            data[off + NLATTR.size:off + length])
        off += (length + 3) & ~3
    return out


def u32(raw):
    return struct.unpack("=I", raw[:4])[0]


def u64(raw):
    return struct.unpack("=Q", raw[:8])[0]


def block(raw):
    """A block nest as a dict (ip -j altmark monitor show's keys)."""
    a = attrs(raw)
    flags = u32(a[A_BLOCK_FLAGS][0]) if A_BLOCK_FLAGS in a else 0
    return {"number": u64(a[A_BLOCK_NUMBER][0]),
            "packets": u64(a[A_BLOCK_PACKETS][0]),
            "bytes": u64(a[A_BLOCK_BYTES][0]),
            "ts_sum": u64(a[A_BLOCK_TS_SUM][0]),
            "dmark_ns": (u64(a[A_BLOCK_DMARK_NS][0])
                         if A_BLOCK_DMARK_NS in a else None),
            "partial": bool(flags & FLAG_PARTIAL),
            "unsure": bool(flags & FLAG_UNSURE)}


class Altmark:
    """A generic netlink socket talking to the altmark family."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW |
                                  socket.SOCK_CLOEXEC, NETLINK_GENERIC)
        self.sock.bind((0, 0))
        self.seq = 0
        self.family = self._family_id()

    def close(self):
        self.sock.close()

    def _talk(self, family, cmd, payload):
        """Send one request, with an acknowledgement asked for: its
        replies' payloads (after the genl header) once the acknowledgement
        came, or NetlinkError for an error."""
        flags = NLM_F_REQUEST | NLM_F_ACK
        self.seq += 1
        body = GENLHDR.pack(cmd, 1, 0) + payload
        self.sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), family,
                                     flags, self.seq, 0) + body)
        out = []
        while True:
            data = self.sock.recv(65536)
            off = 0
            while off + NLMSGHDR.size <= len(data):
                length, mtype, _f, seq, _pid = NLMSGHDR.unpack_from(data, off)
                if length < NLMSGHDR.size:
                    raise NetlinkError(errno.EIO, "malformed netlink reply")
                msg = data[off + NLMSGHDR.size:off + length]
                off += (length + 3) & ~3
                if seq != self.seq:
                    continue
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", msg)[0]
                    if err == 0:
                        return out
                    raise NetlinkError(err, self._extack(msg) or
                                       os.strerror(err))
                if mtype == NLMSG_DONE:
                    return out
                out.append(msg[GENLHDR.size:])

    @staticmethod
    def _extack(msg):
        # struct nlmsgerr: error, then the request's header (and, without
        # NETLINK_CAP_ACK, its payload); then the extack attributes.
        if len(msg) < 4 + NLMSGHDR.size:
            return None
        req_len = NLMSGHDR.unpack_from(msg, 4)[0]
        a = attrs(msg[4 + ((req_len + 3) & ~3):])
        if 1 in a:                      # NLMSGERR_ATTR_MSG
            return a[1][0].rstrip(b"\0").decode(errors="replace")
        return None

    def _family_id(self):
        try:
            reply = self._talk(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                               attr(CTRL_ATTR_FAMILY_NAME,
                                    FAMILY.encode() + b"\0"))
        except NetlinkError as err:
            if err.errno == errno.ENOENT:
                raise NetlinkError(err.errno, "the kernel has no altmark "
                                   "family (CONFIG_IPV6_ALTMARK)") from None
            raise
        a = attrs(reply[0])
        return struct.unpack("=H", a[CTRL_ATTR_FAMILY_ID][0][:2])[0]

    def monitor_add(self, flowmon, history=None):
        payload = attr(A_MONITOR_FLOWMON, struct.pack("=I", flowmon))
        if history is not None:
            payload += attr(A_MONITOR_HISTORY, struct.pack("=I", history))
        self._talk(self.family, CMD_MONITOR_ADD, payload)

    def monitor_del(self, flowmon):
        self._talk(self.family, CMD_MONITOR_DEL,
                   attr(A_MONITOR_FLOWMON, struct.pack("=I", flowmon)))

    def monitor_get(self, flowmon):
        """{"flowmon", "history", "period_ms", "blocks": [oldest first]},
        or None if there is no monitor of flowmon."""
        try:
            reply = self._talk(self.family, CMD_MONITOR_GET,
                               attr(A_MONITOR_FLOWMON,
                                    struct.pack("=I", flowmon)))
        except NetlinkError as err:
            if err.errno == errno.ENOENT:
                return None
            raise
        a = attrs(reply[0])
        return {"flowmon": u32(a[A_MONITOR_FLOWMON][0]),
                "history": u32(a[A_MONITOR_HISTORY][0]),
                "period_ms": u32(a[A_MONITOR_PERIOD_MS][0]),
                "blocks": [block(b) for b in a.get(A_MONITOR_BLOCK, [])]}

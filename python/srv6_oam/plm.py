# SPDX-License-Identifier: GPL-2.0
"""plm: the PF-PLM Block TLV.

pfplm's ingress asks its egress for a block's received count with a STAMP
test packet that carries this TLV, and the egress answers with the same
TLV, its status set, in the reply (pfplm/README.md).  STAMP TLV type 252
(Private Use, RFC 8972 section 5.1); its value: version, status, colour,
flags (0), the period in milliseconds and the block number.  Version 2
(below) is answered by the kernel's reflector, from the kernel's
Alternate-Marking blocks.
"""

import struct

from .stamp_wire import tlv

TLV_PLM = 252
PLM = struct.Struct("!BBBBIQ")
PLM_VERSION = 1
ST_EXACT = 0       # in a query: "query"; in a reply: R_RxC is exact
ST_NOT_READY = 1   # the egress has not closed the block yet: ask again
ST_NO_COUNT = 2    # the egress has no count for the block
ST_NO_FLOW = 3     # no egress flow with this SSID for this peer
ST_MISMATCH = 4    # period or colour differ from the egress's
ST_TOO_OLD = 5     # the block is older than the egress's history
ST_REFUSED = 6     # version 2: refused by the reflector's altmark policy
STATUS_TEXT = {ST_NOT_READY: "egress: block not closed yet",
               ST_NO_COUNT: "egress: no count for this block "
                            "(started, restarted or flow added since)",
               ST_NO_FLOW: "egress: flow not configured there",
               ST_MISMATCH: "egress: period or colour differ",
               ST_TOO_OLD: "egress: block older than its history",
               ST_REFUSED: "reflector: refused (altmark peer, and no "
                           "session names us)"}


def plm_tlv(status, colour, period_ms, block):
    """The Block TLV, header included (flags 0)."""
    return tlv(TLV_PLM, PLM.pack(PLM_VERSION, status, colour, 0, period_ms,
                                 block))


# Version 2 (Documentation/networking/stamp.rst): a closed block of the
# kernel's Alternate-Marking monitor of a FlowMonID, which the in-kernel
# reflector answers: version, status, colour, flags, the period in
# milliseconds, the block number, the FlowMonID, 4 reserved octets, and
# the block's packets, bytes, timestamp sum and double-marked packet's
# timestamp (ns), zero in the query.
PLM2 = struct.Struct("!BBBBIQII4Q")
PLM2_VERSION = 2
PLM2_FLAGS = {"partial": 1, "unsure": 2, "dmark": 4}


def plm2_tlv(colour, period_ms, block, flowmon):
    """A version 2 query, header included."""
    return tlv(TLV_PLM, PLM2.pack(PLM2_VERSION, ST_EXACT, colour, 0,
                                  period_ms, block, flowmon, 0, 0, 0, 0, 0))


def plm2_decode(value):
    """A version 2 TLV's value as a dict, or None if it is not one."""
    if len(value) != PLM2.size or value[0] != PLM2_VERSION:
        return None
    (_v, status, colour, flags, period_ms, block, flowmon, _r, packets,
     nbytes, ts_sum, dmark_ns) = PLM2.unpack(value)
    return {"status": status, "colour": colour, "period_ms": period_ms,
            "block": block, "flowmon": flowmon, "packets": packets,
            "bytes": nbytes, "ts_sum": ts_sum,
            "dmark_ns": dmark_ns if flags & PLM2_FLAGS["dmark"] else None,
            "partial": bool(flags & PLM2_FLAGS["partial"]),
            "unsure": bool(flags & PLM2_FLAGS["unsure"])}

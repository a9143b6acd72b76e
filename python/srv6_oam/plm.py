# SPDX-License-Identifier: GPL-2.0
"""plm: the PF-PLM Block TLV.

pfplm's ingress asks its egress for a block's received count with a STAMP
test packet that carries this TLV, and the egress answers with the same
TLV, its status set, in the reply (pfplm/README.md).  STAMP TLV type 252
(Private Use, RFC 8972 section 5.1); its value: version, status, colour,
flags (0), the period in milliseconds and the block number.
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
STATUS_TEXT = {ST_NOT_READY: "egress: block not closed yet",
               ST_NO_COUNT: "egress: no count for this block "
                            "(started, restarted or flow added since)",
               ST_NO_FLOW: "egress: flow not configured there",
               ST_MISMATCH: "egress: period or colour differ",
               ST_TOO_OLD: "egress: block older than its history"}


def plm_tlv(status, colour, period_ms, block):
    """The Block TLV, header included (flags 0)."""
    return tlv(TLV_PLM, PLM.pack(PLM_VERSION, status, colour, 0, period_ms,
                                 block))

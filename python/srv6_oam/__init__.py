# SPDX-License-Identifier: GPL-2.0
"""srv6_oam: the packet codecs that srv6-oam's tools share.

stamp_wire  STAMP (RFC 8762, RFC 8972): test packets, replies, TLVs,
            authentication, and the IPv6/UDP/SRH headers around them
plm         the PF-PLM Block TLV that pfplm's ingress and egress exchange
            in their STAMP test packets

stamp-sender, pfplm and the SRPerf bench import them from here; the
kernel's selftests keep codecs of their own (a selftest depends on nothing
outside tools/testing/selftests).  Python 3 standard library only.
"""

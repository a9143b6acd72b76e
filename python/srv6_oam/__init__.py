# SPDX-License-Identifier: GPL-2.0
"""srv6_oam: the packet codecs that srv6-oam's tools share.

stamp_wire  STAMP (RFC 8762, RFC 8972): test packets, replies, TLVs,
            authentication, and the IPv6/UDP/SRH headers around them
plm         the PF-PLM Block TLV that pfplm's ingress and egress exchange
            in their STAMP test packets (version 1), and that the kernel's
            STAMP reflector answers from its Alternate-Marking blocks
            (version 2)
altmark_nl  the kernel's Alternate-Marking monitors, over generic netlink
hosttest    the result lines of the tools' host tests (make check-host);
            not installed

stamp-sender, pfplm and the SRPerf bench import them by name: make
install-tools puts the package beside the installed commands, and in the
source tree a symbolic link to python/srv6_oam sits beside each tool (and
beside bench/cfg/plm.py, which loads pfplm), in the directory Python
searches first (the script's own).  The
kernel's selftests keep codecs of their own (a selftest depends on nothing
outside tools/testing/selftests).  Python 3 standard library only.
"""

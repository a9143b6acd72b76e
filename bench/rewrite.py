#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rewrite: turn the frames pktgen sends on a device into a given frame.

pktgen builds only UDP frames; srperf needs SRv6 frames (an SRH, STAMP, IOAM)
at pktgen's speed.  This attaches a tiny eBPF program at the device's tcx
egress hook: one bpf_skb_store_bytes() writes the template over the frame
from byte OFFSET on.  pktgen sends through the qdisc layer (xmit_mode
queue_xmit), so the program runs in pktgen's kthread, on the generator's CPU,
once per fresh skb; the frame the receiver gets is the template, byte for
byte, when pktgen's frame has the template's length and carries zeros where
the template ends (srperf.py makes sure of both).

The program is assembled here, instruction by instruction (the template
lives in its immediates), and loaded and attached with the bpf() syscall:
no compiler, no loader library, no bpffs.  Run it in the device's netns:

    rewrite.py DEV OFFSET HEXBYTES

The attachment stays until the device goes away.
"""

import ctypes
import os
import socket
import struct
import sys

SYS_BPF = 321                   # x86_64
BPF_PROG_LOAD, BPF_PROG_ATTACH = 5, 8
BPF_PROG_TYPE_SCHED_CLS = 3
BPF_TCX_EGRESS = 47
FN_SKB_STORE_BYTES = 9
STACK = 512


def insn(code, dst=0, src=0, off=0, imm=0):
    return struct.pack("<BBhi", code, dst | (src << 4), off, imm)


def ld_imm64(dst, value):
    lo, hi = value & 0xffffffff, value >> 32
    return (insn(0x18, dst, imm=struct.unpack("<i", struct.pack("<I", lo))[0]) +
            insn(0, imm=struct.unpack("<i", struct.pack("<I", hi))[0]))


def build(offset, template):
    size = (len(template) + 7) & ~7
    padded = template + b"\0" * (size - len(template))
    if not template or size > STACK:
        raise ValueError(f"template of {len(template)} bytes: 1 to {STACK}")
    p = insn(0xbf, 6, 1)                                  # r6 = r1 (ctx)
    for i in range(0, size, 8):
        p += ld_imm64(1, int.from_bytes(padded[i:i + 8], "little"))
        p += insn(0x7b, 10, 1, off=i - size)              # *(u64 *)(fp - size + i) = r1
    p += insn(0xbf, 1, 6)                                 # r1 = ctx
    p += insn(0xb7, 2, imm=offset)                        # r2 = offset
    p += insn(0xbf, 3, 10)                                # r3 = fp
    p += insn(0x07, 3, imm=-size)                         # r3 += -size
    p += insn(0xb7, 4, imm=len(template))                 # r4 = len
    p += insn(0xb7, 5, imm=0)                             # r5 = flags
    p += insn(0x85, imm=FN_SKB_STORE_BYTES)               # call
    p += insn(0xb7, 0, imm=0)                             # r0 = TCX_PASS
    p += insn(0x95)                                       # exit
    return p


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    ret = libc.syscall(ctypes.c_long(SYS_BPF), ctypes.c_int(cmd), buf,
                       ctypes.c_uint(len(attr)))
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"bpf({cmd}): {os.strerror(err)}")
    return ret


def load(prog):
    insns = ctypes.create_string_buffer(prog, len(prog))
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(65536)
    attr = bytearray(128)
    struct.pack_into("<IIQQIIQ", attr, 0, BPF_PROG_TYPE_SCHED_CLS,
                     len(prog) // 8, ctypes.addressof(insns),
                     ctypes.addressof(lic), 1, len(log), ctypes.addressof(log))
    attr[48:48 + 14] = b"srperf_rewrite"              # prog_name
    try:
        return bpf(BPF_PROG_LOAD, attr)
    except OSError as e:
        raise OSError(e.errno, f"{e.strerror}\n{log.value.decode()}") from None


def attach(fd, ifindex):
    attr = bytearray(32)
    struct.pack_into("<IIII", attr, 0, ifindex, fd, BPF_TCX_EGRESS, 0)
    bpf(BPF_PROG_ATTACH, attr)


def main():
    if len(sys.argv) != 4:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: rewrite.py DEV OFFSET HEXBYTES", file=sys.stderr)
        return 2
    dev, offset, template = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
    attach(load(build(offset, template)), socket.if_nametoindex(dev))
    return 0


if __name__ == "__main__":
    sys.exit(main())

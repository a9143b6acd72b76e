#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Helper of ioam6_ext_test.sh: sends UDP test packets (optionally with
# crafted Hop-by-Hop / Destination Options headers), captures packets on an
# interface and decodes their IOAM options byte by byte (RFC 9197, 9486),
# and computes the Edge-to-Edge counters a capture implies. RFC 9326 for the
# Direct Export option.

import argparse
import json
import os
import socket
import struct
import sys
import time

import srv6_pyserve

ETH_P_ALL = 0x0003
ETH_P_IPV6 = 0x86DD
NEXTHDR_HOP = 0
NEXTHDR_ROUTING = 43
NEXTHDR_DEST = 60
NEXTHDR_IPV6 = 41
NEXTHDR_UDP = 17
IPV6_TLV_IOAM = 0x31
IPV6_TLV_IOAM_DEST = 0x11
IPV6_TLV_JUMBO = 0xC2
IOAM6_TYPE_PREALLOC = 0
IOAM6_TYPE_E2E = 3
IOAM6_TYPE_DEX = 4
DEX_FLOW_ID = 0x80
DEX_SEQ = 0x40

# socket option numbers from linux/in6.h
IPV6_HOPOPTS = 54
IPV6_RTHDR = 57
IPV6_DSTOPTS = 59


def decode_trace(body, abs_off):
    """body: the pre-allocated trace header and data (after the 4-octet
    IOAM option header)."""
    ns, b2, b3, ttype = struct.unpack('!HBBI', body[:8])
    nodelen = b2 >> 3
    overflow = (b2 >> 2) & 1
    remlen = b3 & 0x7f
    ttype >>= 8
    data = body[8:]
    filled = data[remlen * 4:]
    nodes = []
    step = nodelen * 4
    if step:
        for i in range(0, len(filled) - len(filled) % step, step):
            nodes.append(filled[i:i + step].hex())
    return {'kind': 'trace', 'offset': abs_off, 'ns': ns,
            'nodelen': nodelen, 'overflow': overflow, 'remlen': remlen,
            'type': ttype, 'data_len': len(data), 'empty': data[:remlen * 4].hex(),
            'nodes': nodes}


def decode_e2e(body, abs_off):
    ns, etype = struct.unpack('!HH', body[:4])
    d = body[4:]
    out = {'kind': 'e2e', 'offset': abs_off, 'ns': ns, 'type': etype,
           'data_len': len(d)}
    p = 0
    if etype & 0x8000:
        out['seq'] = struct.unpack('!Q', d[p:p + 8])[0]
        p += 8
    if etype & 0x4000:
        out['seq32'] = struct.unpack('!I', d[p:p + 4])[0]
        out.setdefault('seq', out['seq32'])
        p += 4
    if etype & 0x2000:
        out['ts_sec'] = struct.unpack('!I', d[p:p + 4])[0]
        p += 4
    if etype & 0x1000:
        out['ts_usec'] = struct.unpack('!I', d[p:p + 4])[0]
        p += 4
    return out


def decode_dex(body, abs_off):
    ns, flags, ext, ttype = struct.unpack('!HBBI', body[:8])
    out = {'kind': 'dex', 'offset': abs_off, 'ns': ns, 'flags': flags,
           'ext_flags': ext, 'type': ttype >> 8, 'reserved': ttype & 0xff,
           'data_len': len(body) - 8}
    p = 8
    for bit, key in ((DEX_FLOW_ID, 'flowid'), (DEX_SEQ, 'seq')):
        if ext & bit and len(body) >= p + 4:
            out[key] = struct.unpack('!I', body[p:p + 4])[0]
            p += 4
    return out


def dex_opt(ns=123, ext=DEX_FLOW_ID | DEX_SEQ, opt_len=None, fields=None):
    """A DEX option, IOAM-Trace-Type bit 0; by default flow ID 7 and
    sequence number 9 as the Extension-Flags ask."""
    if fields is None:
        fields = b''
        for bit, val in ((DEX_FLOW_ID, 7), (DEX_SEQ, 9)):
            if ext & bit:
                fields += struct.pack('!I', val)
    body = (bytes([0, IOAM6_TYPE_DEX]) +
            struct.pack('!HBBI', ns, 0, ext, 0x800000 << 8) + fields)
    return bytes([IPV6_TLV_IOAM, opt_len if opt_len is not None
                  else len(body)]) + body


def decode_tlvs(hdr, hdr_off):
    """Options of a Hop-by-Hop or Destination Options header; hdr_off is the
    header's offset from the start of its IPv6 header."""
    opts = []
    i = 2
    while i < len(hdr):
        t = hdr[i]
        if t == 0:
            opts.append({'kind': 'pad1', 'offset': hdr_off + i})
            i += 1
            continue
        ln = hdr[i + 1]
        val = hdr[i + 2:i + 2 + ln]
        off = hdr_off + i
        if t in (IPV6_TLV_IOAM, IPV6_TLV_IOAM_DEST) and ln >= 2:
            itype = val[1]
            body = val[2:]
            if itype == IOAM6_TYPE_PREALLOC and len(body) >= 8:
                o = decode_trace(body, off)
            elif itype == IOAM6_TYPE_E2E and len(body) >= 4:
                o = decode_e2e(body, off)
            elif itype == IOAM6_TYPE_DEX and len(body) >= 8:
                o = decode_dex(body, off)
            else:
                o = {'kind': 'ioam', 'offset': off, 'ioam_type': itype}
            o['opt_type'] = t
            o['opt_len'] = ln
            opts.append(o)
        elif t == 1:
            opts.append({'kind': 'padn', 'offset': off, 'len': ln,
                         'zero': not any(val)})
        else:
            opts.append({'kind': 'other', 'offset': off, 'opt_type': t,
                         'opt_len': ln})
        i += 2 + ln
    return opts


def decode_ipv6(pkt):
    """One IPv6 packet: its extension headers in order, the options they
    hold, and the inner packet of an IPv6-in-IPv6 one."""
    if len(pkt) < 40 or pkt[0] >> 4 != 6:
        return None
    plen = struct.unpack('!H', pkt[4:6])[0]
    out = {'src': socket.inet_ntop(socket.AF_INET6, pkt[8:24]),
           'dst': socket.inet_ntop(socket.AF_INET6, pkt[24:40]),
           'hlim': pkt[7], 'plen': plen, 'chain': [], 'hbh': [], 'doh': []}
    nh = pkt[6]
    off = 40
    while True:
        if nh in (NEXTHDR_HOP, NEXTHDR_DEST, NEXTHDR_ROUTING):
            hlen = (pkt[off + 1] + 1) * 8
            hdr = pkt[off:off + hlen]
            name = {NEXTHDR_HOP: 'hbh', NEXTHDR_DEST: 'doh',
                    NEXTHDR_ROUTING: 'rh'}[nh]
            out['chain'].append(name)
            if name != 'rh':
                out[name] = decode_tlvs(hdr, off)
                out[name + '_len'] = hlen
            nh = hdr[0]
            off += hlen
        elif nh == NEXTHDR_IPV6:
            out['chain'].append('ipv6')
            out['inner'] = decode_ipv6(pkt[off:])
            out['inner_raw'] = pkt[off:40 + plen].hex()
            break
        elif nh == NEXTHDR_UDP:
            out['chain'].append('udp')
            out['sport'], out['dport'] = struct.unpack('!HH',
                                                       pkt[off:off + 4])
            out['payload'] = pkt[off + 8:40 + plen].hex()
            break
        else:
            out['chain'].append(str(nh))
            break
    # what the packet would be with no IOAM at all: the headers that are not
    # IOAM-only, and the payload, as a hex string for byte comparisons
    out['raw'] = pkt[:40 + plen].hex()
    return out


def cmd_capture(a):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((a.iface, 0))
    s.settimeout(0.2)
    if a.ready:
        open(a.ready, 'w').close()
    pkts = []
    end = time.time() + a.timeout
    quiet = None
    while time.time() < end and len(pkts) < a.count:
        # --stop: once the file exists (the sender is done), end when the
        # socket has had nothing for --quiet seconds
        if quiet is None and a.stop and os.path.exists(a.stop):
            quiet = time.time() + a.quiet
        if quiet is not None and time.time() >= quiet:
            break
        try:
            frame, addr = s.recvfrom(65535)
        except socket.timeout:
            continue
        if quiet is not None:
            quiet = time.time() + a.quiet
        # addr[2] is the packet type: 4 = PACKET_OUTGOING
        if addr[1] != ETH_P_IPV6 or (addr[2] == 4 and not a.outgoing):
            continue
        p = decode_ipv6(frame[14:])
        if p is None:
            continue
        udp = p if 'dport' in p else p.get('inner') or {}
        if udp.get('dport') != a.port:
            continue
        p['t'] = time.time()
        pkts.append(p)
    with open(a.out, 'w') as f:
        json.dump(pkts, f)
    return 0


def cmd_hold(a):
    """A packet socket on IFACE that reads nothing: each packet the node
    receives there is cloned into its queue, so the stack's own skb is
    cloned too, and a node that writes into it must first give it a head
    of its own (skb_ensure_writable())."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((a.iface, 0))
    open(a.ready, 'w').close()
    time.sleep(a.timeout)
    s.close()
    return 0


def ext_hdr(opts):
    """A Hop-by-Hop or Destination Options header (next header left 0 for
    the kernel to set) around option bytes, padded to 8n with PadN."""
    ln = 2 + len(opts)
    pad = (-ln) % 8
    if pad == 1:
        opts += bytes([0])
    elif pad:
        opts += bytes([1, pad - 2]) + bytes(pad - 2)
    return bytes([0, (len(opts) + 2) // 8 - 1]) + opts


def e2e_opt(ns=123, etype=0xb000, data_len=None, opt_len=None, data=None):
    data = bytes(16) if data is None else data
    if data_len is not None:
        data = data[:data_len]
    body = bytes([0, IOAM6_TYPE_E2E]) + struct.pack('!HH', ns, etype) + data
    return bytes([IPV6_TLV_IOAM_DEST, opt_len if opt_len is not None
                  else len(body)]) + body


# crafted headers: name -> (header kind, option bytes)
CRAFT = {
    # well-formed
    'e2e-ok': ('doh', b'\x01\x00' + e2e_opt()),
    'e2e-unknown-ns': ('doh', b'\x01\x00' + e2e_opt(ns=999)),
    # a sequence number 2^40 ahead, a timestamp of 0
    'e2e-forged': ('doh', b'\x01\x00' +
                   e2e_opt(data=struct.pack('!QII', 1 << 40, 0, 0))),
    'ioam-unknown-type': ('doh', b'\x01\x00' + bytes([IPV6_TLV_IOAM_DEST, 6,
                                                       0, 2, 0, 123, 0, 0])),
    # malformed
    'e2e-short-data': ('doh', b'\x01\x00' + e2e_opt(data_len=8)),
    'e2e-short-hdr': ('doh', b'\x01\x00' + bytes([IPV6_TLV_IOAM_DEST, 4,
                                                   0, 3, 0, 123])),
    'e2e-misaligned': ('doh', e2e_opt()),
    # a router alert (2n+0), then a trace that a domain egress removes
    'ra-trace': ('hbh', bytes([5, 2, 0, 0, 1, 0, IPV6_TLV_IOAM, 2 + 8 + 8,
                               0, 0]) +
                 struct.pack('!HBBI', 123, 1 << 3, 2, 0x800000 << 8) +
                 bytes(8)),
    # the trace alone: a domain egress removes the whole header
    'trace': ('hbh', b'\x01\x00' + bytes([IPV6_TLV_IOAM, 2 + 8 + 8, 0, 0]) +
              struct.pack('!HBBI', 123, 1 << 3, 2, 0x800000 << 8) +
              bytes(8)),
    # the same, the trace first: the alert moves, to its offset modulo 8
    'trace-ra': ('hbh', bytes([1, 0, IPV6_TLV_IOAM, 2 + 8 + 8, 0, 0]) +
                 struct.pack('!HBBI', 123, 1 << 3, 2, 0x800000 << 8) +
                 bytes(8) + bytes([5, 2, 0, 0])),
    # Direct Export: well-formed, unknown namespace, an unassigned
    # Extension-Flag with its 4-octet field; then truncated header, and
    # fewer optional fields than the Extension-Flags announce
    'dex-ok': ('hbh', b'\x01\x00' + dex_opt()),
    'dex-unknown-ns': ('hbh', b'\x01\x00' + dex_opt(ns=999)),
    'dex-unassigned-ext': ('hbh', b'\x01\x00' +
                           dex_opt(ext=DEX_SEQ | 0x20,
                                   fields=struct.pack('!II', 9, 0))),
    'dex-short-hdr': ('hbh', b'\x01\x00' + dex_opt(ext=0, opt_len=6)[:8]),
    'dex-short-ext': ('hbh', b'\x01\x00' +
                      dex_opt(ext=DEX_FLOW_ID | DEX_SEQ, fields=b'')),
    'trace-remlen': ('hbh', b'\x01\x00' + bytes([IPV6_TLV_IOAM, 2 + 8 + 8,
                                                  0, 0]) +
                     struct.pack('!HBBI', 123, 1 << 3, 10, 0x800000 << 8) +
                     bytes(8)),
}


def srh(segs):
    """A Segment Routing Header (RFC 8754) for the IPV6_RTHDR socket
    option: the segments in the order they are visited, then the slot of
    the final destination, which the kernel fills with the address sent to
    (and puts the first segment into the IPv6 header)."""
    addrs = [bytes(16)] + [socket.inet_pton(socket.AF_INET6, x)
                           for x in reversed(segs)]
    n = len(segs)
    return bytes([0, 2 * (n + 1), 4, n, n, 0, 0, 0]) + b''.join(addrs)


def send_one(a, hbh, dst_opts):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    if a.sport:
        s.bind(('::', a.sport))
    if hbh:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_HOPOPTS, bytes.fromhex(hbh))
    if a.srh:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RTHDR, srh(a.srh))
    if dst_opts:
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_DSTOPTS,
                     bytes.fromhex(dst_opts))
    for i in range(a.count):
        payload = struct.pack('!I', i) + bytes(max(a.size - 4, 0))
        s.sendto(payload, (a.dst, a.port))
        if a.gap:
            time.sleep(a.gap)
    s.close()


def cmd_send(a):
    """count packets, or count packets of each --craft kind in turn"""
    if not a.craft:
        send_one(a, a.hbh, a.dst_opts)
    for name in a.craft or []:
        kind, opts = CRAFT[name]
        hdr = ext_hdr(opts).hex()
        if kind == 'hbh':
            send_one(a, hdr, a.dst_opts)
        else:
            send_one(a, a.hbh, hdr)
    return 0


def ipv6_hdr(src, dst, nh, plen):
    return (struct.pack('!IHBB', 6 << 28, plen, nh, 64) +
            socket.inet_pton(socket.AF_INET6, src) +
            socket.inet_pton(socket.AF_INET6, dst))


def cmd_spoof(a):
    """The E2E option of 'e2e-ok' from a.count source addresses, the ones
    after a.prefix, through a raw socket that sends the IPv6 header as
    given (IPPROTO_RAW): sources nobody checks, as an attacker's."""
    s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
    doh = bytearray(ext_hdr(b'\x01\x00' + e2e_opt()))
    doh[0] = NEXTHDR_UDP
    udp = struct.pack('!HHHH', 4243, a.port, 8, 0)
    base = int.from_bytes(socket.inet_pton(socket.AF_INET6, a.prefix), 'big')
    for i in range(a.count):
        src = socket.inet_ntop(socket.AF_INET6,
                               (base + 1 + i).to_bytes(16, 'big'))
        s.sendto(ipv6_hdr(src, a.dst, NEXTHDR_DEST, len(doh) + len(udp)) +
                 bytes(doh) + udp, (a.dst, 0))
    return 0


def cmd_jumbo(a):
    """A jumbogram (RFC 2675): payload length 0, a Hop-by-Hop header with a
    Jumbo Payload option and, with --ioam, a pre-allocated trace, then UDP
    and a.size octets. Sent into a.iface as if received there: the loopback,
    the only interface whose MTU can exceed 64 KiB."""
    opts = bytes([IPV6_TLV_JUMBO, 4, 0, 0, 0, 0])
    if a.ioam:
        opts += (bytes([IPV6_TLV_IOAM, 2 + 8 + 8, 0, IOAM6_TYPE_PREALLOC]) +
                 struct.pack('!HBBI', 123, 1 << 3, 2, 0x800000 << 8) +
                 bytes(8))
    hbh = bytearray(ext_hdr(opts))
    hbh[0] = NEXTHDR_UDP
    # the Jumbo Payload option at offset 2 of the header, 4n+2 of the packet
    struct.pack_into('!I', hbh, 4, len(hbh) + 8 + a.size)
    frame = (bytes(12) + struct.pack('!H', ETH_P_IPV6) +
             ipv6_hdr(a.src, a.dst, NEXTHDR_HOP, 0) + bytes(hbh) +
             struct.pack('!HHHH', 4244, a.port, 0, 0) + bytes(a.size))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((a.iface, 0))
    s.send(frame)
    return 0


def cmd_recv(a):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind(('::', a.port))
    s.settimeout(0.2)
    if a.ready:
        open(a.ready, 'w').close()
    n = 0
    end = time.time() + a.timeout
    quiet = None
    while time.time() < end:
        # --stop, as for capture: the sender is done, end when quiet
        if quiet is None and a.stop and os.path.exists(a.stop):
            quiet = time.time() + a.quiet
        if quiet is not None and time.time() >= quiet:
            break
        try:
            s.recv(65535)
            n += 1
            if quiet is not None:
                quiet = time.time() + a.quiet
        except socket.timeout:
            pass
    print(n)
    return 0


def cmd_oracle(a):
    """The Edge-to-Edge counters implied by the sequence numbers a capture
    saw, in arrival order: lost = numbers never seen between the first and
    the highest, duplicated = copies, reordered = first copies that came
    after a higher number."""
    seqs = []
    for p in json.load(open(a.file)):
        for o in p.get('doh', []):
            if o.get('kind') == 'e2e' and 'seq' in o:
                seqs.append(o['seq'])
    seen = set()
    hi = None
    reordered = 0
    for s in seqs:
        if s in seen:
            continue
        if hi is not None and s < hi:
            reordered += 1
        seen.add(s)
        hi = s if hi is None else max(hi, s)
    uniq = len(seen)
    first = seqs[0] if seqs else 0
    lost = (hi - first + 1 - len([s for s in seen if s >= first])) if seqs else 0
    print(json.dumps({'rx': len(seqs), 'lost': lost, 'reordered': reordered,
                      'duplicated': len(seqs) - uniq,
                      'seq': hi if seqs else None}))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('capture')
    c.add_argument('iface')
    c.add_argument('out')
    c.add_argument('--count', type=int, default=1 << 30)
    c.add_argument('--timeout', type=float, default=10)
    c.add_argument('--port', type=int, default=5555)
    c.add_argument('--ready')
    c.add_argument('--stop')
    c.add_argument('--quiet', type=float, default=2)
    c.add_argument('--outgoing', action='store_true')
    c = sub.add_parser('hold')
    c.add_argument('iface')
    c.add_argument('ready')
    c.add_argument('--timeout', type=float, default=300)
    c = sub.add_parser('send')
    c.add_argument('dst')
    c.add_argument('count', type=int)
    c.add_argument('--size', type=int, default=64)
    c.add_argument('--gap', type=float, default=0.0)
    c.add_argument('--port', type=int, default=5555)
    c.add_argument('--hbh')
    c.add_argument('--dst-opts')
    c.add_argument('--craft', choices=sorted(CRAFT), action='append',
                   help='repeated: each kind in turn')
    c.add_argument('--sport', type=int)
    c.add_argument('--srh', action='append',
                   help='repeated: a segment to visit before DST')
    c = sub.add_parser('spoof')
    c.add_argument('prefix')
    c.add_argument('dst')
    c.add_argument('count', type=int)
    c.add_argument('--port', type=int, default=5555)
    c = sub.add_parser('jumbo')
    c.add_argument('iface')
    c.add_argument('src')
    c.add_argument('dst')
    c.add_argument('--size', type=int, default=65536)
    c.add_argument('--port', type=int, default=5555)
    c.add_argument('--ioam', action='store_true')
    c = sub.add_parser('recv')
    c.add_argument('--port', type=int, default=5555)
    c.add_argument('--timeout', type=float, default=3)
    c.add_argument('--ready')
    c.add_argument('--stop')
    c.add_argument('--quiet', type=float, default=2)
    c = sub.add_parser('oracle')
    c.add_argument('file')
    c = sub.add_parser('serve')
    c.add_argument('dir')
    a = ap.parse_args()
    return {'capture': cmd_capture, 'hold': cmd_hold, 'send': cmd_send,
            'recv': cmd_recv, 'oracle': cmd_oracle, 'spoof': cmd_spoof,
            'jumbo': cmd_jumbo,
            'serve': lambda a: srv6_pyserve.serve(a.dir, main)}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())

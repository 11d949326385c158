#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the seed corpora of the fuzz targets: well-formed inputs built
from the RFC layouts, so that fuzzing starts deep inside each parser.
Run from userspace-tests/: python3 fuzz/make-corpus.py"""
import os
import struct


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def stream(ulpdus, markers, crc):
    out = bytearray()
    for u in ulpdus:
        body = struct.pack(">H", len(u)) + u
        body += bytes((-len(body)) % 4)
        covered = bytearray()
        length_pos = 0
        for i, b in enumerate(body):
            if markers and len(out) % 512 == 0:
                m = struct.pack(">HH", 0, 0 if i == 0 else len(out) - length_pos)
                out += m
                covered += m
            if i == 0:
                length_pos = len(out)
            out.append(b)
            covered.append(b)
        if markers and len(out) % 512 == 0:
            m = struct.pack(">HH", 0, len(out) - length_pos)
            out += m
            covered += m
        out += struct.pack("<I", crc32c(covered) if crc else 0)
    return bytes(out)


def frame(key, flags, rev, pd):
    return key + bytes([flags, rev]) + struct.pack(">H", len(pd)) + pd


REQ = b"MPA ID Req Frame"
REP = b"MPA ID Rep Frame"


def write(target, name, data):
    d = os.path.join("fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


ulpdus = [bytes(range(20)), b"", bytes(600), bytes([7]) * 1500, b"abc"]
for flags in range(4):
    write("fpdu", "stream-%d" % flags,
          bytes([flags, 0]) + stream(ulpdus, flags & 1, flags & 2))
    write("fpdu", "roundtrip-%d" % flags,
          bytes([flags | 4, 7]) + bytes([3]) + bytes(111) + bytes([0, 20]) + bytes(range(20)))

enh = struct.pack(">HH", 0x8000 | 4, 0x4000 | 0xC000 | 4)
for pol, peer in [
        (0x00, frame(REQ, 0x50, 2, enh + b"hello")),
        (0x00, frame(REQ, 0x40, 1, b"rev one")),
        (0x00, frame(REQ, 0xD0, 2, struct.pack(">HH", 0x3FFF, 0x3FFF))),
        (0x41, frame(REP, 0x50, 2, struct.pack(">HH", 0x8000 | 2, 0x8000 | 2))),
        (0x01, frame(REP, 0x40, 2, struct.pack(">HH", 0x3FFF, 0x3FFF))),
        (0x01, frame(REP, 0x60, 2, struct.pack(">HH", 4, 4) + b"no"))]:
    write("startup", "%02x-%s" % (pol, peer[16:20].hex()),
          bytes([pol, 0x0E, 0, 4, 4, 16, 16]) + peer)

for i, (pol, req, rep) in enumerate([
        (0x20, (0x50, 2, 0x8004, 0xC004), (0x50, 2, 0x8004, 0x8004)),
        (0x00, (0x40, 1, 0, 0), (0x40, 1, 0, 0)),
        (0x00, (0x50, 2, 0x3FFF, 0x3FFF), (0x50, 2, 0x3FFF, 0x3FFF))]):
    data = bytes([pol, 0x0E])
    for f in (req, rep):
        data += bytes([f[0], f[1] - 1, 0]) + struct.pack(">HH", f[2], f[3])
    data += struct.pack(">HHHH", 4, 4, 16, 16)
    write("negotiate", "seed-%d" % i, data)

# DDP/RDMAP headers: Send, Write, Read Request, TERMINATE with headers.
write("ddp", "send", bytes([0x41, 0x43]) + bytes(4) + struct.pack(">III", 0, 1, 0))
write("ddp", "write", bytes([0xC1, 0x40]) + struct.pack(">IQ", 0x1234, 0x10))
write("ddp", "read-request", bytes([0x41, 0x41]) + bytes(4) + struct.pack(">III", 1, 1, 0)
      + struct.pack(">IQIIQ", 1, 2, 3, 4, 5))
write("ddp", "term-payload", struct.pack(">IH", 0x0100E000, 46) + bytes([0x41, 0x41]) + bytes(16)
      + bytes(28))

# The DDP/RDMAP stream: a SEND in two segments with a WRITE and a Read
# Response between them, a Read Request, a TERMINATE; in every MPA mode.
def untagged(op, last, qn, msn, mo, payload=b""):
    return bytes([0x41 if last else 0x01, 0x40 | op]) + struct.pack(">IIII", 0, qn, msn, mo) + payload


def tagged(op, last, stag, to, payload):
    return bytes([0xC1 if last else 0x81, 0x40 | op]) + struct.pack(">IQ", stag, to) + payload


segments = [untagged(3, False, 0, 1, 0, b"A" * 16), tagged(0, True, 0x1234, 0, b"W" * 40),
            tagged(2, True, 0x5678, 0, b"R" * 64), untagged(3, True, 0, 1, 16, b"B" * 16),
            untagged(1, True, 1, 1, 0, struct.pack(">IQIIQ", 1, 0, 64, 2, 0)),
            untagged(7, True, 2, 1, 0, struct.pack(">I", 0x0102 << 16))]
for flags in range(4):
    write("stream", "mixed-%d" % flags, bytes([flags, 0, 0]) + stream(segments, flags & 1, flags & 2))
    write("stream", "chunked-%d" % flags, bytes([flags, 7, 5]) + stream(segments, flags & 1, flags & 2))

# The transmit order of two peers: ORD and IRD 1, 2 and 4, a queue of
# READs, WRITEs and fenced work requests, each side moving in turn.
for ord_ in (1, 2, 4):
    wrs = bytes([1, 0, 1, 3, 0, 1, 1, 2, 1, 0])
    events = bytes(range(6)) * 40
    write("tx_order", "ord-%d" % ord_, bytes([ord_, 0, len(wrs) - 1]) + wrs + events)

# The send queue: ORD 1 and 4, 4 and 16 slots, from 0 and across 2^32;
# every kind of work request posted, then each kind of event in turn.
for ord_, size, start in ((1, 2, 0), (4, 4, 1)):
    posts = bytes(k * 8 + (0x80 if k == 1 else 0) for k in range(5)) * 2
    events = bytes([2, 3, 2, 3 | 0x40, 4, 5, 6, 2, 5, 6, 0x87, 7, 6]) * 20
    write("send_queue", "ord-%d" % ord_, bytes([ord_, size, start]) + posts + events)

# RPC-over-RDMA: Version One and Two headers (a READ call with a write and
# a reply chunk, a Long Call, errors), a property operation, private data.
def w(*ws):
    return b"".join(struct.pack(">I", x) for x in ws)


write("rpcrdma", "v1-read-call", w(1, 1, 32, 0, 0, 1, 1, 0x11, 4096, 0, 0x1000, 0, 1, 1, 0x22, 512, 0, 0x40))
write("rpcrdma", "v2-long-call", w(2, 2, 1, 1, 0, 0x11, 1, 0, 7, 3000, 0, 0x5000, 0, 0, 0))
write("rpcrdma", "v2-err-write-resource", w(3, 2, 1, 4, 7, 1, 70000))
write("rpcrdma", "v1-err-vers", w(4, 1, 1, 4, 1, 1, 1))
write("rpcrdma", "v2-connprop", w(5, 2, 1, 5, 0, 1, 36, 2, 1, 4, 8192, 2, 4, 2, 1, 1))
write("rpcrdma", "private-data", bytes([0xF6, 0xAB, 0x0E, 0x18, 1, 1, 3, 3]))

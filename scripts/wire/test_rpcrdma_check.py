#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rpcrdma_check.py against captures written here, octet by octet from RFC
5044 (MPA), 5041 (DDP), 5040 (RDMAP), 8797 (private data), 8166 and the
seed's XDR (Documentation/rpcrdma.rst): a clean Version Two exchange and
a fallback pass; each broken rule is reported, and nothing else is.

Run: python3 scripts/wire/test_rpcrdma_check.py (make check's host tier).
"""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpa_check as mpa          # noqa: E402
import rpcrdma_check as rc       # noqa: E402

INI, RSP = ("10.77.0.2", 40000), ("10.77.0.1", 20050)


def u32(*v):
    return b"".join(struct.pack(">I", x) for x in v)


def seg(handle, length, offset):
    return u32(handle, length) + struct.pack(">Q", offset)


def pd8797(send=4096, recv=4096, inv=False):
    return u32(rc.PD_MAGIC) + bytes([1, int(inv), send // 1024 - 1, recv // 1024 - 1])


def startup(key, pd, flags=mpa.S | mpa.C):
    # RFC 6581 enhanced data first: client-server (A = 0), IRD/ORD 4.
    pd = struct.pack(">HH", 4, 4) + pd
    return key + bytes([flags, 2]) + struct.pack(">H", len(pd)) + pd


def fpdu(ulpdu):
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += b"\0" * ((-len(body)) % 4)
    return body + b"\0\0\0\0"       # CRC32c: not this checker's to check


def send(msn, payload, opcode=rc.SEND, mss=1000, inv=0):
    """The FPDUs of one SEND on queue 0, split at MSS payload octets (INV:
    the STag a Send With Invalidate names)."""
    out, mo = [], 0
    while True:
        part = payload[mo:mo + mss]
        last = mo + len(part) == len(payload)
        hdr = bytes([0x01 | (0x40 if last else 0), 0x40 | opcode]) + u32(inv, 0, msn, mo)
        out.append(fpdu(hdr + part))
        mo += len(part)
        if last:
            return out


def write(stag, to, payload):
    return [fpdu(bytes([0xC1, 0x40 | rc.WRITE]) + struct.pack(">IQ", stag, to) + payload)]


def read_req(msn, src, src_to, size):
    return [fpdu(bytes([0x41, 0x40 | rc.READ_REQ]) + u32(0, 1, msn, 0) +
                 struct.pack(">IQIIQ", 0x99, 0, size, src, src_to))]


def v2(xid, proc, body, credit=4, vers=2):
    return u32(xid, vers, credit, proc) + body


def chunks(direction, reads=(), writes=(), reply=None, inv=0):
    b = u32(direction, inv)
    for pos, s in reads:
        b += u32(1, pos) + s
    b += u32(0)
    for w in writes:
        b += u32(1, len(w)) + b"".join(w)
    b += u32(0)
    b += u32(1, len(reply)) + b"".join(reply) if reply is not None else u32(0)
    return b


def v1_lists(reads=(), writes=(), reply=None):
    return chunks(0, reads, writes, reply)[8:]


def connprop(direction, rbsiz=4096):
    info = u32(1, 1, 4, rbsiz) + u32(0)          # one property, empty nochg
    return u32(direction, 1, len(info)) + info


def pcap(events, ini=INI, t0=0, header=True):
    """A pcap of one connection: EVENTS are (side, octets), side 0 the
    initiator (at address and port INI), in time order, each its own TCP
    segment, the first at second T0 + 1."""
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)] if header else []
    seq = [1000, 5000]
    t = t0

    def frame(side, flags, payload):
        nonlocal t
        t += 1
        (s, sp), (d, dp) = (ini, RSP) if side == 0 else (RSP, ini)
        tcp = struct.pack(">HHIIBBHHH", sp, dp, seq[side], 0, 5 << 4, flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(payload), 0, 0, 64, 6,
                         0, bytes(map(int, s.split("."))), bytes(map(int, d.split("."))))
        eth = b"\0" * 12 + b"\x08\x00"
        pkt = eth + ip + tcp + payload
        out.append(struct.pack("<IIII", t, 0, len(pkt), len(pkt)) + pkt)
        seq[side] += len(payload) + (1 if flags & 0x02 else 0)

    frame(0, 0x02, b"")
    frame(1, 0x12, b"")
    for side, data in events:
        frame(side, 0x18, data)
    return b"".join(out)


def with_startup(events, req_pd=None, rep_pd=None):
    ev = [(0, startup(mpa.KEY_REQ, pd8797() if req_pd is None else req_pd)),
          (1, startup(mpa.KEY_REP, pd8797() if rep_pd is None else rep_pd))]
    for side, fps in events:
        ev += [(side, f) for f in fps]
    return ev


def run(events, req_pd=None, rep_pd=None):
    with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
        f.write(pcap(with_startup(events, req_pd, rep_pd)))
        f.flush()
        dirs, order = mpa.directions(f.name)
    (_, _, name, ini, rsp), = list(mpa.mpa_connections(dirs, order))
    return rc.check(name, ini, rsp)


NULL = b"\0" * 40            # an RPC message: only its length matters here
W = seg(0x1234, 8192, 0x10000)


def good_v2():
    """NULL, then ECHO of 8 KiB: the argument in a read chunk at position
    44, the result written into a write chunk; CONNPROP both ways."""
    return [
        (0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
        (1, send(1, v2(0, rc.OPTIONAL, connprop(1)))),
        (1, send(2, v2(1, rc.MSG, chunks(1) + NULL))),
        (0, send(2, v2(0, rc.OPTIONAL, connprop(0)))),
        (0, send(3, v2(2, rc.MSG, chunks(0, reads=[(44, seg(0x77, 8192, 0x5000))],
                                         writes=[[W]]) + NULL))),
        (1, read_req(1, 0x77, 0x5000, 8192)),
        (1, write(0x1234, 0x10000, b"x" * 1000) + write(0x1234, 0x10000 + 1000, b"y" * 7192)),
        (1, send(3, v2(2, rc.MSG, chunks(1, writes=[[seg(0x1234, 8192, 0x10000)]]) + NULL))),
    ]


class Good(unittest.TestCase):
    def test_v2(self):
        c = run(good_v2())
        self.assertEqual(c.errors, [])
        self.assertEqual(c.settled, 2)
        self.assertEqual((c.counts["calls"], c.counts["replies"], c.counts["WRITE FPDUs"],
                          c.counts["READ Requests"], c.counts["CONNPROP"]), (2, 2, 2, 1, 2))

    def test_fallback(self):
        # A Version One responder answers the Version Two probe with
        # ERR_VERS 1..1 in the caller's version; the same call again in One.
        c = run([
            (0, send(1, v2(7, rc.MSG, chunks(0) + NULL))),
            (1, send(1, v2(7, rc.ERROR, u32(1, 1, 1)))),
            (0, send(2, v2(7, rc.MSG, v1_lists() + NULL, vers=1))),
            (1, send(2, v2(7, rc.MSG, v1_lists() + NULL, vers=1, credit=32))),
            (0, send(3, v2(8, rc.MSG, v1_lists() + NULL, vers=1))),
            (0, send(4, v2(9, rc.MSG, v1_lists() + NULL, vers=1))),
        ])
        self.assertEqual(c.errors, [])
        self.assertEqual((c.settled, c.fell_back, c.first_vers), (1, True, 2))

    def test_send_inv(self):
        # Version Two: the handle the call named; Version One: one of the
        # call's handles, to a requester whose private data accepts it.
        c = run([(0, send(1, v2(1, rc.MSG, chunks(0, writes=[[W]], inv=0x1234) + NULL))),
                 (1, send(1, v2(1, rc.MSG, chunks(1, writes=[[seg(0x1234, 8, 0x10000)]]) + NULL),
                          rc.SEND_INV, inv=0x1234))])
        self.assertEqual(c.errors, [])
        self.assertEqual(c.counts["Send With Invalidate"], 1)
        c = run([(0, send(1, v2(1, rc.MSG, v1_lists(writes=[[W]]) + NULL, vers=1))),
                 (1, send(1, v2(1, rc.MSG, v1_lists(writes=[[seg(0x1234, 8, 0x10000)]]) + NULL, vers=1),
                          rc.SEND_INV, inv=0x1234))], req_pd=pd8797(inv=True))
        self.assertEqual(c.errors, [])

    def test_long_call_and_reply_chunk(self):
        r = [seg(0x55, 200000, 0)]
        c = run([
            (0, send(1, v2(1, rc.NOMSG, chunks(0, reads=[(0, seg(0x66, 100000, 0))], reply=r)))),
            (1, read_req(1, 0x66, 0, 100000)),
            (1, write(0x55, 0, b"z" * 3000)),
            (1, send(1, v2(1, rc.NOMSG, chunks(1, reply=[seg(0x55, 3000, 0)])))),
        ])
        self.assertEqual(c.errors, [])

    def test_segmented_message(self):
        big = v2(2, rc.MSG, chunks(0) + b"\0" * 3000)
        c = run(good_v2()[:4] + [(0, send(3, big, mss=700)),
                                 (1, send(3, v2(2, rc.MSG, chunks(1) + NULL)))])
        self.assertEqual(c.errors, [])


class Bad(unittest.TestCase):
    def one(self, events, want, **kw):
        c = run(events, **kw)
        self.assertEqual(len(c.errors), 1, c.errors)
        self.assertIn(want, c.errors[0])

    def test_write_outside_chunk(self):
        ev = good_v2()
        ev[6] = (1, write(0x1234, 0x10000 + 8000, b"y" * 193))   # one octet past
        self.one(ev, "in no write or reply chunk")

    def test_write_unknown_stag(self):
        ev = good_v2()
        ev[6] = (1, write(0x4321, 0x10000, b"y"))
        self.one(ev, "in no write or reply chunk")

    def test_read_outside_chunk(self):
        ev = good_v2()
        ev[5] = (1, read_req(1, 0x77, 0x5000, 8193))
        self.one(ev, "in no read chunk")

    def test_first_v2_call_too_long(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + b"\0" * 1000)))],
                 "before the first reply")

    def test_property_procedure(self):
        self.one([(0, send(1, v2(1, 6, b"")))], "OPTIONAL types carry them")

    def test_over_inline(self):
        ev = good_v2()[:2] + [(1, send(2, v2(1, rc.MSG, chunks(1) + b"\0" * 2100)))]
        self.one(ev, "inline size 2048", rep_pd=pd8797(send=2048, recv=4096))

    def test_no_private_data_inline_1024(self):
        ev = good_v2()[:2] + [(1, send(2, v2(1, rc.MSG, chunks(1) + b"\0" * 1000)))]
        self.one(ev, "inline size 1024", rep_pd=b"")

    def test_reply_other_version(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
                  (1, send(1, v2(1, rc.MSG, v1_lists() + NULL, vers=1)))],
                 "reply in version 1 to a call in 2")

    def test_two_calls_before_grant(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
                  (0, send(2, v2(2, rc.MSG, chunks(0) + NULL)))],
                 "2 calls outstanding, credits 1")

    def test_version_outside_err_vers(self):
        self.one([(0, send(1, v2(7, rc.MSG, chunks(0) + NULL))),
                  (1, send(1, v2(7, rc.ERROR, u32(1, 1, 1)))),
                  (0, send(2, v2(7, rc.MSG, chunks(0) + NULL)))],
                 "version 2 after ERR_VERS 1..1")

    def test_switch_after_settled(self):
        ev = good_v2() + [(0, send(4, v2(3, rc.MSG, v1_lists() + NULL, vers=1)))]
        self.one(ev, "version 1 after replies in 2")

    def test_unending_list(self):
        self.one([(0, send(1, v2(1, rc.MSG, u32(0, 0) + (u32(1, 44) + seg(1, 1, 0)) * 3)))],
                 "truncated")

    def test_count_overflow(self):
        self.one([(0, send(1, v2(1, rc.MSG, u32(0, 0, 0, 1, 0x10000000))))],
                 "do not fit the message")

    def test_nomsg_reply_without_reply_chunk(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
                  (1, send(1, v2(1, rc.NOMSG, chunks(1))))],
                 "NOMSG reply without a reply chunk")

    def test_reply_write_longer_than_offered(self):
        ev = good_v2()
        ev[7] = (1, send(3, v2(2, rc.MSG, chunks(1, writes=[[seg(0x1234, 8193, 0x10000)]]) + NULL)))
        self.one(ev, "offered 0x1234/8192")

    def test_msg_with_position_zero(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0, reads=[(0, seg(1, 8, 0))]) + NULL)))],
                 "MSG call with a Position Zero read chunk")

    def test_gap_in_message(self):
        fps = send(1, v2(1, rc.MSG, chunks(0) + b"\0" * 900), mss=400)
        self.one([(0, [fps[0], fps[2]])], "segment at MO 800, expected 400")

    def test_error_body_size(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
                  (1, send(1, v2(1, rc.ERROR, u32(7, 1))))],
                 "truncated")

    def test_inv_handle_not_in_call(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0, writes=[[W]], inv=0x999) + NULL)))],
                 "rdma_inv_handle 0x999 is none of the call's handles")

    def test_send_inv_without_inv_handle(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0) + NULL))),
                  (1, send(1, v2(1, rc.MSG, chunks(1) + NULL), rc.SEND_INV, inv=0x1234))],
                 "rdma_inv_handle is 0")

    def test_send_inv_of_another_handle(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0, writes=[[W]], inv=0x1234) + NULL))),
                  (1, send(1, v2(1, rc.MSG, chunks(1, writes=[[seg(0x1234, 8, 0x10000)]]) + NULL),
                           rc.SEND_INV, inv=0x1235))],
                 "reply invalidates 0x1235, the call named 0x1234")

    def test_v1_send_inv_not_offered(self):
        self.one([(0, send(1, v2(1, rc.MSG, v1_lists(writes=[[W]]) + NULL, vers=1))),
                  (1, send(1, v2(1, rc.MSG, v1_lists(writes=[[seg(0x1234, 8, 0x10000)]]) + NULL, vers=1),
                           rc.SEND_INV, inv=0x1234))],
                 "private data did not accept it")

    def test_msg_without_rpc_message(self):
        self.one([(0, send(1, v2(1, rc.MSG, chunks(0))))], "MSG call without an RPC message")

    def test_requester_error(self):
        self.one([(0, send(1, v2(1, rc.ERROR, u32(2))))], "the requester sent RDMA_ERROR")


FALLBACK = [
    (0, send(1, v2(7, rc.MSG, chunks(0) + NULL))),
    (1, send(1, v2(7, rc.ERROR, u32(1, 1, 1)))),
    (0, send(2, v2(7, rc.MSG, v1_lists() + NULL, vers=1))),
    (1, send(2, v2(7, rc.MSG, v1_lists() + NULL, vers=1))),
]


class Remembered(unittest.TestCase):
    """The script as check.sh runs it, on two connections from one
    requester to a responder of Version One only."""

    def script(self, second):
        with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
            f.write(pcap(with_startup(FALLBACK)) +
                    pcap(with_startup(second), ini=(INI[0], INI[1] + 1), t0=100, header=False))
            f.flush()
            here = os.path.dirname(os.path.abspath(__file__))
            return subprocess.run([sys.executable, os.path.join(here, "rpcrdma_check.py"),
                                   "--want=fallback,remembered", f.name],
                                  capture_output=True, text=True)

    def test_second_begins_in_one(self):
        r = self.script([(0, send(1, v2(8, rc.MSG, v1_lists() + NULL, vers=1))),
                         (1, send(1, v2(8, rc.MSG, v1_lists() + NULL, vers=1)))])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("(began in 1: refused 2 before)", r.stdout)

    def test_second_probes_two_again(self):
        r = self.script(FALLBACK)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("ERROR: no connection began in One after Two was refused", r.stdout)


class NotRpcRdma(unittest.TestCase):
    def test_without_private_data(self):
        self.assertIsNone(run([], req_pd=b"\0" * 8))


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check RPC-over-RDMA in a capture: Version One (RFC 8166) and Version
Two as the seed revision defines it (draft-cel-nfsv4-rpcrdma-version-two-04,
Documentation/rpcrdma.rst), over MPA/DDP/RDMAP (RFC 5044, 5041, 5040).

Wireshark decodes Version One only. This reads the pcap itself (the TCP
reassembly and FPDU framing of mpa_check.py), takes each connection whose
MPA Request carries RFC 8797 private data (after RFC 6581's four octets
where enhanced), puts its SEND messages back together from their DDP
segments (queue 0, by MSN and MO), decodes every transport header, and
checks, per connection:

  - DDP and RDMAP framing: version fields, a message's segments without
    gaps, the last one flagged, nothing after it;
  - each header decodes exactly by its version's XDR: Version One's
    procedures MSG, NOMSG, ERROR (MSGP and DONE are "not to be used");
    Version Two's MSG, NOMSG, ERROR and OPTIONAL, with the property
    operations as OPTIONAL types 1 to 4 (procedures 6 to 9 are errors:
    the choice Documentation/rpcrdma.rst explains); chunk lists end, their
    counts fit the message, error bodies have the size their code gives;
  - sizes: every message at most the inline size the private data agreed
    for its direction (RFC 8797: the smaller of the sender's send size and
    the receiver's receive size, 1024 without private data), and a
    Version Two call sent before the first reply at most 1024 octets;
  - versions: a reply is in its call's version and echoes its xid; an
    ERR_VERS names a range (low <= high) and the requester's next call is
    in a version within it; once a reply other than ERR_VERS came, every
    later message on the connection is in that version;
  - credits: the requester never has more calls outstanding than the last
    grant allows (one until the first reply), the responder grants at
    least one;
  - chunks: a NOMSG call carries a Position Zero read chunk or a reply
    chunk, a MSG call no Position Zero read chunk, and a MSG an RPC
    message after its header; a reply's write list and reply chunk name
    only segments of its call's, no longer than offered; a NOMSG reply
    has a reply chunk;
  - remote invalidation (Version Two): a call's rdma_inv_handle is 0 or
    one of the handles in that call; a reply to a call whose
    rdma_inv_handle is 0 goes by plain Send, one by Send With Invalidate
    invalidates exactly that handle;
  - RDMA operations: every RDMA WRITE from the responder lands inside a
    segment of a write or reply chunk that an earlier call offered, and
    every RDMA READ Request it sends reads inside a segment of an earlier
    call's read list (nothing is placed or read where the requester did
    not allow it).

Prints one line per connection and a summary "N connections, N calls, N
errors"; exits 1 on any error, or when no such connection is found. With
--want=v2,fallback,remembered it also fails unless some connection
settled in Version Two, some fell back from Two to One, and some began in
One without asking because an earlier connection from the same address
to the same responder had been refused Two (the seed's way out of a
negotiation loop, which our requester takes: a capture that lost its
RPC-over-RDMA traffic cannot pass).
"""
import struct
import sys

import mpa_check as mpa

PD_MAGIC = 0xF6AB0E18
DEFAULT_INLINE = 1024
FIRST_V2_MAX = 1024

# RDMAP opcodes (RFC 5040 section 4.3)
WRITE, READ_REQ, READ_RESP, SEND, SEND_INV, SEND_SE, SEND_SE_INV, TERMINATE = range(8)
SENDS = (SEND, SEND_INV, SEND_SE, SEND_SE_INV)

# Procedures, and Version Two's OPTIONAL types for the property operations
MSG, NOMSG, MSGP, DONE, ERROR, OPTIONAL = range(6)
OPT_NAMES = {1: "CONNPROP", 2: "REQPROP", 3: "RESPROP", 4: "UPDPROP"}
CALL, REPLY = 0, 1
ERR_VERS = 1
# Version Two's error codes and the words each body holds after the code
V2_ERR_WORDS = {1: 2, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 2, 8: 1, 9: 0, 10: 0}
V1_ERR_WORDS = {1: 2, 2: 0}     # ERR_VERS, ERR_CHUNK


class Bad(Exception):
    """A header that does not decode, or breaks a rule of its version."""


class Xdr:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def u32(self):
        if self.pos + 4 > len(self.data):
            raise Bad(f"truncated at octet {self.pos}")
        v = struct.unpack_from(">I", self.data, self.pos)[0]
        self.pos += 4
        return v

    def u64(self):
        return self.u32() << 32 | self.u32()

    def opaque(self):
        n = self.u32()
        if n > len(self.data) - self.pos:
            raise Bad(f"opaque of {n} octets at octet {self.pos - 4} overruns the message")
        v = self.data[self.pos:self.pos + n]
        self.pos += n + (-n) % 4
        if self.pos > len(self.data):
            raise Bad("opaque padding overruns the message")
        return v

    def bool(self, what):
        v = self.u32()
        if v > 1:
            raise Bad(f"{what}: discriminator {v}, not 0 or 1")
        return v == 1

    def count(self, what, size):
        """A counted array's length, which the rest of the message must hold."""
        n = self.u32()
        if n * size > len(self.data) - self.pos:
            raise Bad(f"{what}: {n} elements do not fit the message")
        return n


def segment(x):
    return {"handle": x.u32(), "length": x.u32(), "offset": x.u64()}


def write_chunk(x):
    return [segment(x) for _ in range(x.count("write chunk", 16))]


def chunk_lists(x):
    reads, writes, reply = [], [], None
    while x.bool("read list"):
        pos = x.u32()
        reads.append(dict(segment(x), position=pos))
    while x.bool("write list"):
        writes.append(write_chunk(x))
    if x.bool("reply chunk"):
        reply = write_chunk(x)
    return reads, writes, reply


def propset(x):
    return [(x.u32(), x.opaque()) for _ in range(x.count("propset", 8))]


def subset(x):
    return [x.u32() for _ in range(x.count("propsubset", 4))]


def decode(data):
    """The transport header at the start of DATA, as a dict; raises Bad."""
    x = Xdr(data)
    h = {"xid": x.u32(), "vers": x.u32(), "credit": x.u32(), "proc": x.u32()}
    vers, proc = h["vers"], h["proc"]
    if proc == ERROR:
        h["err"] = x.u32()
        if h["err"] == ERR_VERS:     # fixed for all versions
            h["low"], h["high"] = x.u32(), x.u32()
        elif vers == 1 and h["err"] in V1_ERR_WORDS or vers == 2 and h["err"] in V2_ERR_WORDS:
            h["info"] = [x.u32() for _ in range((V1_ERR_WORDS if vers == 1 else V2_ERR_WORDS)[h["err"]])]
        else:
            raise Bad(f"version {vers} has no error code {h['err']}")
        if x.pos != len(data):
            raise Bad(f"{len(data) - x.pos} octets after an RDMA_ERROR")
        return h
    if vers == 1:
        if proc not in (MSG, NOMSG):
            raise Bad(f"Version One procedure {proc}" +
                      (" (not to be used)" if proc in (MSGP, DONE) else ""))
    elif vers == 2:
        if proc == OPTIONAL:
            h["dir"], h["opttype"] = x.u32(), x.u32()
            info = x.opaque()
            if x.pos != len(data):
                raise Bad(f"{len(data) - x.pos} octets after an RDMA2_OPTIONAL")
            if h["dir"] not in (CALL, REPLY):
                raise Bad(f"OPTIONAL direction {h['dir']}")
            if h["opttype"] in OPT_NAMES:
                h["props"] = props(h["opttype"], info)
            return h
        if proc not in (MSG, NOMSG):
            raise Bad(f"Version Two procedure {proc}" +
                      (" (a property operation: OPTIONAL types carry them)"
                       if 6 <= proc <= 9 else ""))
        h["dir"], h["inv"] = x.u32(), x.u32()
        if h["dir"] not in (CALL, REPLY):
            raise Bad(f"rdma_direction {h['dir']}")
    else:
        raise Bad(f"version {vers} (only ERR_VERS decodes in another version)")
    h["reads"], h["writes"], h["reply"] = chunk_lists(x)
    h["hdrlen"] = x.pos
    if proc == NOMSG and x.pos != len(data):
        raise Bad(f"{len(data) - x.pos} octets after a NOMSG header")
    return h


def props(opttype, info):
    """The property operation's structure, which must fill rdma_optinfo."""
    x = Xdr(info)
    if opttype == 1:
        p = {"start": propset(x), "nochg": subset(x)}
    elif opttype == 2:
        p = {"want": propset(x)}
    elif opttype == 3:
        p = {"done": subset(x), "rejected": subset(x), "other": propset(x)}
    else:
        p = {"now": propset(x)}
    if x.pos != len(info):
        raise Bad(f"{OPT_NAMES[opttype]}: {len(info) - x.pos} octets after its structure")
    return p


def private_data(pd, enhanced):
    """(send size, receive size, remote invalidation) of RFC 8797 private
    data after the MPA private data's RFC 6581 field, or None."""
    off = 4 if enhanced else 0
    b = pd[off:off + 8]
    if len(b) < 8 or struct.unpack_from(">I", b, 0)[0] != PD_MAGIC or b[4] != 1:
        return None
    return (b[6] + 1) * 1024, (b[7] + 1) * 1024, bool(b[5] & 1)


class Stream:
    """One direction's RDMAP messages: SENDs reassembled, the rest listed."""

    def __init__(self, d, fp, rtr):
        self.sends = []      # (time, opcode, payload, inv stag) in MSN order
        self.writes = []     # (time, stag, to, length)
        self.read_reqs = []  # (time, src stag, src to, size)
        self.terminates = []
        self.errors = []
        parts, order = {}, []
        for i, (off, u) in enumerate(fp):
            if i == 0 and rtr:
                continue            # the initiator's RTR (RFC 6581)
            t = d.time_at(off)
            if len(u) < 2:
                self.errors.append(f"a {len(u)}-octet ULPDU")
                continue
            ctrl, rctrl = u[0], u[1]
            tagged, last, opcode = bool(ctrl & 0x80), bool(ctrl & 0x40), rctrl & 0x0F
            if ctrl & 0x03 != 1 or rctrl >> 6 != 1:
                self.errors.append(f"DDP/RDMAP version {ctrl & 3}/{rctrl >> 6}")
                continue
            if tagged:
                if len(u) < 14:
                    self.errors.append("a truncated tagged header")
                    continue
                stag, to = struct.unpack_from(">IQ", u, 2)
                if opcode == WRITE:
                    self.writes.append((t, stag, to, len(u) - 14))
                continue            # Read Responses: the requester's own
            if len(u) < 18:
                self.errors.append("a truncated untagged header")
                continue
            qn, msn, mo = struct.unpack_from(">III", u, 6)
            if opcode == TERMINATE:
                self.terminates.append(u[18:22].hex())
            elif opcode == READ_REQ and qn == 1 and len(u) >= 18 + 28:
                size, src, src_to = struct.unpack_from(">IIQ", u, 18 + 12)
                self.read_reqs.append((t, src, src_to, size))
            elif opcode in SENDS and qn == 0:
                if msn not in parts:
                    parts[msn] = {"t": t, "op": opcode, "segs": [], "last": None,
                                  "inv": struct.unpack_from(">I", u, 2)[0]}
                    order.append(msn)
                m = parts[msn]
                m["segs"].append((mo, u[18:]))
                if last:
                    m["last"] = mo + len(u) - 18
            else:
                self.errors.append(f"opcode {opcode} on queue {qn}")
        for n, msn in enumerate(order):
            m = parts[msn]
            data = bytearray()
            for mo, p in sorted(m["segs"]):
                if mo != len(data):
                    self.errors.append(f"MSN {msn}: segment at MO {mo}, expected {len(data)}")
                    break
                data += p
            else:
                if m["last"] is None:
                    if n + 1 < len(order):
                        self.errors.append(f"MSN {msn}: no last segment")
                    continue        # the capture ended inside it
                self.sends.append((m["t"], m["op"], bytes(data), m["inv"]))


def handles(h):
    """Every STag a MSG or NOMSG header names in its chunks."""
    out = {r["handle"] for r in h["reads"]}
    return out | {s["handle"] for c in h["writes"] + [h["reply"] or []] for s in c}


def inside(segs, stag, to, length):
    return any(s["handle"] == stag and s["offset"] <= to and
               to + length <= s["offset"] + s["length"] for s in segs)


class Conn:
    def __init__(self, name, inline_q, inline_r):
        self.name = name
        self.inline = {"requester": inline_q, "responder": inline_r}
        self.errors = []
        self.calls = {}             # outstanding xid -> call header
        self.grant = None           # the last credit grant; None before a reply
        self.settled = None         # the version of the first reply not ERR_VERS
        self.vers_range = None      # the last ERR_VERS's (low, high)
        self.offered_writes = []    # write and reply chunk segments offered so far
        self.offered_reads = []     # read segments offered so far
        self.counts = {}
        self.first_vers = None
        self.fell_back = False
        self.requester_invalidates = False  # RFC 8797's flag, from the requester

    def error(self, msg):
        self.errors.append(msg)

    def count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def call(self, data, h, op=SEND, inv=0):
        v = h["vers"]
        if self.first_vers is None:
            self.first_vers = v
        if v == 2 and self.grant is None and len(data) > FIRST_V2_MAX:
            self.error(f"xid {h['xid']:#x}: a {len(data)}-octet Version Two call "
                       f"before the first reply (at most {FIRST_V2_MAX})")
        if self.vers_range and not self.vers_range[0] <= v <= self.vers_range[1]:
            self.error(f"xid {h['xid']:#x}: version {v} after ERR_VERS "
                       f"{self.vers_range[0]}..{self.vers_range[1]}")
        if self.vers_range and v != self.first_vers:
            self.fell_back = True
        if self.settled is not None and v != self.settled:
            self.error(f"xid {h['xid']:#x}: version {v} after replies in {self.settled}")
        if h["proc"] == ERROR:
            self.error(f"xid {h['xid']:#x}: the requester sent RDMA_ERROR")
            return
        if h["proc"] == OPTIONAL:
            self.count(OPT_NAMES.get(h["opttype"], f"OPTIONAL {h['opttype']}"))
            if h["dir"] != CALL:
                self.error("an OPTIONAL from the requester with direction REPLY")
            return
        if v == 2 and h["dir"] != CALL:
            self.error(f"xid {h['xid']:#x}: a requester's MSG/NOMSG with direction REPLY")
            return
        if v == 2 and h["inv"]:
            if h["inv"] not in handles(h):
                self.error(f"xid {h['xid']:#x}: rdma_inv_handle {h['inv']:#x} is none of "
                           "the call's handles")
        if h["proc"] == MSG and h["hdrlen"] == len(data):
            self.error(f"xid {h['xid']:#x}: MSG call without an RPC message")
        if h["proc"] == NOMSG:
            if not any(r["position"] == 0 for r in h["reads"]) and h["reply"] is None:
                self.error(f"xid {h['xid']:#x}: NOMSG call with neither a Position Zero "
                           "read chunk nor a reply chunk")
        elif any(r["position"] == 0 for r in h["reads"]):
            self.error(f"xid {h['xid']:#x}: MSG call with a Position Zero read chunk")
        limit = 1 if self.grant is None else self.grant
        if h["xid"] not in self.calls and len(self.calls) >= limit:
            self.error(f"xid {h['xid']:#x}: {len(self.calls) + 1} calls outstanding, "
                       f"credits {limit}")
        self.calls[h["xid"]] = h
        self.count("calls")
        if h["reads"] or h["writes"] or h["reply"]:
            self.count("with chunks")
        self.offered_reads += h["reads"]
        for c in h["writes"] + ([h["reply"]] if h["reply"] else []):
            self.offered_writes += c

    def reply(self, data, h, op=SEND, inv=0):
        xid, v = h["xid"], h["vers"]
        if h["proc"] == OPTIONAL:
            self.count(OPT_NAMES.get(h["opttype"], f"OPTIONAL {h['opttype']}"))
            if h["dir"] != REPLY:
                self.error("an OPTIONAL from the responder with direction CALL")
            return
        call = self.calls.pop(xid, None)
        if call is None:
            self.error(f"xid {xid:#x}: a reply to no outstanding call")
            return
        if v != call["vers"]:
            self.error(f"xid {xid:#x}: reply in version {v} to a call in {call['vers']}")
        if op in (SEND_INV, SEND_SE_INV) and v == 1:
            # RFC 8797: only to a requester that offered it, and only one
            # of the call's handles.
            if not self.requester_invalidates:
                self.error(f"xid {xid:#x}: Send With Invalidate to a requester whose "
                           "private data did not accept it")
            elif inv not in handles(call):
                self.error(f"xid {xid:#x}: reply invalidates {inv:#x}, none of the call's handles")
            self.count("Send With Invalidate")
        elif op in (SEND_INV, SEND_SE_INV):
            want = call.get("inv", 0)
            if not want:
                self.error(f"xid {xid:#x}: reply by Send With Invalidate to a call whose "
                           "rdma_inv_handle is 0")
            elif inv != want:
                self.error(f"xid {xid:#x}: reply invalidates {inv:#x}, the call named {want:#x}")
            self.count("Send With Invalidate")
        if h["credit"] == 0:
            self.error(f"xid {xid:#x}: a grant of 0 credits")
        if h["proc"] == ERROR:
            self.count("ERR_VERS" if h["err"] == ERR_VERS else f"RDMA_ERROR {h['err']}")
            if h["err"] == ERR_VERS:
                if h["low"] > h["high"]:
                    self.error(f"xid {xid:#x}: ERR_VERS {h['low']}..{h['high']}")
                self.vers_range = (h["low"], h["high"])
            return
        if self.settled is None:
            self.settled = v
        self.grant = max(h["credit"], 1)
        self.count("replies")
        if v == 2 and h["dir"] != REPLY:
            self.error(f"xid {xid:#x}: a responder's MSG/NOMSG with direction CALL")
        if h["proc"] == NOMSG and h["reply"] is None:
            self.error(f"xid {xid:#x}: NOMSG reply without a reply chunk")
        if h["proc"] == MSG and h["hdrlen"] == len(data):
            self.error(f"xid {xid:#x}: MSG reply without an RPC message")
        if len(h["writes"]) > len(call["writes"]):
            self.error(f"xid {xid:#x}: reply's write list has {len(h['writes'])} chunks, "
                       f"the call offered {len(call['writes'])}")
        for got, offered in zip(h["writes"], call["writes"]):
            self.within(xid, "write chunk", got, offered)
        if h["reply"] is not None:
            if call["reply"] is None:
                self.error(f"xid {xid:#x}: reply chunk in a reply to a call that offered none")
            else:
                self.within(xid, "reply chunk", h["reply"], call["reply"])

    def within(self, xid, what, got, offered):
        if len(got) > len(offered):
            self.error(f"xid {xid:#x}: {what} of {len(got)} segments, {len(offered)} offered")
        for g, o in zip(got, offered):
            if g["handle"] != o["handle"] or g["length"] > o["length"]:
                self.error(f"xid {xid:#x}: {what} returns {g['handle']:#x}/{g['length']}, "
                           f"offered {o['handle']:#x}/{o['length']}")


def check(name, ini, rsp):
    """Check one MPA connection; None if it carries no RPC-over-RDMA."""
    req, rp = mpa.frame(ini.data, mpa.KEY_REQ), mpa.frame(rsp.data, mpa.KEY_REP)
    if isinstance(req, str) or isinstance(rp, str) or rp[0] & mpa.R:
        return None
    (qf, qrev, qpd), (pf, prev, ppd) = req, rp
    qpriv = private_data(qpd, qrev == 2 and qf & mpa.S)
    if qpriv is None:
        return None
    ppriv = private_data(ppd, prev == 2 and pf & mpa.S) or (DEFAULT_INLINE, DEFAULT_INLINE, False)
    # RFC 8797: a side sends at most its own send size and the other's
    # receive size.
    conn = Conn(name, min(qpriv[0], ppriv[1]), min(ppriv[0], qpriv[1]))
    conn.requester_invalidates = qpriv[2]
    p2p = prev == 2 and pf & mpa.S and mpa.enhanced(ppd)["A"]
    try:
        fi = mpa.fpdus(ini.data, 20 + len(qpd), bool(pf & mpa.M))
        fr = mpa.fpdus(rsp.data, 20 + len(ppd), bool(qf & mpa.M))
    except ValueError as e:
        conn.error(f"MPA framing: {e}")
        return conn
    q, r = Stream(ini, fi, p2p), Stream(rsp, fr, False)
    for who, s in (("requester", q), ("responder", r)):
        for e in s.errors:
            conn.error(f"{who}: {e}")
        for term in s.terminates:
            conn.error(f"{who} sent a TERMINATE ({term})")
    if q.writes or q.read_reqs:
        conn.error("the requester sent RDMA WRITEs or READ Requests")
    # Both directions in capture order: a reply is seen before a call that
    # waited for it; a responder's RDMA operation after the call it serves.
    events = [(t, 0, "requester", op, (d, inv)) for t, op, d, inv in q.sends]
    events += [(t, 1, "responder", op, (d, inv)) for t, op, d, inv in r.sends]
    events += [(t, 1, "write", stag, (to, n)) for t, stag, to, n in r.writes]
    events += [(t, 1, "read", stag, (to, n)) for t, stag, to, n in r.read_reqs]
    for t, _, who, a, b in sorted(events, key=lambda e: (e[0], e[1])):
        if who == "write":
            if not inside(conn.offered_writes, a, *b):
                conn.error(f"RDMA WRITE of {b[1]} octets to {a:#x}@{b[0]:#x}: "
                           "in no write or reply chunk offered")
            conn.count("WRITE FPDUs")
            continue
        if who == "read":
            if not inside(conn.offered_reads, a, *b):
                conn.error(f"RDMA READ of {b[1]} octets from {a:#x}@{b[0]:#x}: "
                           "in no read chunk offered")
            conn.count("READ Requests")
            continue
        data, inv = b
        if len(data) > conn.inline[who]:
            conn.error(f"{who}: a {len(data)}-octet message, inline size {conn.inline[who]}")
        try:
            h = decode(data)
        except Bad as e:
            conn.error(f"{who}: {e}")
            continue
        if who == "requester":
            conn.call(data, h, a, inv)
        else:
            conn.reply(data, h, a, inv)
    return conn


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    want = set()
    for a in sys.argv[1:]:
        if a.startswith("--want="):
            want = set(a.split("=", 1)[1].split(","))
    if len(args) != 1 or not want <= {"v2", "fallback", "remembered"}:
        sys.exit("usage: rpcrdma_check.py [--want=v2,fallback,remembered] CAPTURE.pcap")
    dirs, order = mpa.directions(args[0])
    conns = calls = errors = 0
    settled_v2 = fell_back = remembered = False
    refused = set()     # (requester address, responder address, port) refused Two
    for key, _, name, ini, rsp in mpa.mpa_connections(dirs, order):
        c = check(name, ini, rsp)
        if c is None:
            continue
        conns += 1
        calls += c.counts.get("calls", 0)
        settled_v2 |= c.settled == 2
        fell_back |= c.fell_back
        pair = (key[0], key[2], key[3])
        how = f"version {c.settled}" if c.settled else "no reply"
        if c.fell_back:
            how += f" (fell back from {c.first_vers})"
        elif c.first_vers == 1 and pair in refused:
            how += " (began in 1: refused 2 before)"
            remembered = True
        if c.vers_range and not c.vers_range[0] <= 2 <= c.vers_range[1]:
            refused.add(pair)
        counts = " ".join(f"{k} {v}" for k, v in sorted(c.counts.items()))
        print(f"{name}: rpcrdma {how}, inline {c.inline['requester']}/"
              f"{c.inline['responder']}: {counts}")
        for e in c.errors:
            print(f"ERROR {name}: {e}")
        errors += len(c.errors)
    for w, ok, what in (("v2", settled_v2, "settled in Version Two"),
                        ("fallback", fell_back, "fell back from Two to One"),
                        ("remembered", remembered, "began in One after Two was refused")):
        if w in want and not ok:
            print(f"ERROR: no connection {what}")
            errors += 1
    print(f"{conns} connections, {calls} calls, {errors} errors")
    sys.exit(1 if errors or conns == 0 else 0)


if __name__ == "__main__":
    main()

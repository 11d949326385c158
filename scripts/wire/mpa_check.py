#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the MPA connections in a capture against RFC 5044 and RFC 6581.

tshark decodes MPA, DDP and RDMAP and checks CRCs, but knows nothing of
RFC 6581 (it reads the enhanced data as plain private data), and it frames
Markers only where each TCP segment holds whole FPDUs (and then in both
directions when either side asked). This reads the pcap
itself, puts each TCP direction back together, and for every connection
that starts with an MPA Request checks:

  - both startup frames: key, reserved bits, revision, PD_Length <= 512,
    the R bit only in a Reply, a Reply to a Rev 1 Request is Rev 1; the
    first reserved bit is upstream siw's GSO offer (xiw's mpa_gso), not
    RFC 5044: it is allowed and reported ("G 1/1"), the others are errors;
  - RFC 6581 enhanced data where S is set: present (PD_Length >= 4); in
    client-server mode (A = 0) B, C and D are 0; a peer-to-peer Reply
    (A = 1) answers a peer-to-peer Request and names at least one RTR type
    (section 9.2); ORD of the responder <= IRD of the initiator (9.1);
  - full operation: the stream splits into FPDUs (Markers every 512 octets
    in each direction that asked for them, FPDUPTR checked, and on such
    connections every FPDU's CRC32c, which tshark cannot check there); a
    rejected connection carries none;
  - peer-to-peer: the initiator's first FPDU is an RTR of a type the Reply
    named (zero-length SEND, zero-length RDMA WRITE, or zero-length RDMA
    READ Request), or a TERMINATE of layer 2 (LLP), type 0 (MPA) with code
    7 when the Reply named no type the Request offered, or code 6; the
    responder sends no FPDU before it (MPA fencing).

A new SYN on a TCP 4-tuple already seen starts a new connection (xiw's
unenhanced retry reuses its address and port); FPDU counts for tshark are
summed per 4-tuple, as tshark keys them.

Prints one line per connection and a summary "N connections, N FPDUs,
N errors"; exits 1 on any error. With --fpdus it also prints, per
direction, "fpdus SRC:PORT DST:PORT N" for comparison with tshark,
"aligned SRC:PORT DST:PORT A/N" (of N TCP segments in full operation, A
begin with an FPDU: RFC 5044 section 6's FPDU Alignment; directions with
Markers left out, and segments that continue an FPDU larger than any
segment of that direction, which cannot begin with one) and per sender
"alignment SRC A/N ... (P %)", and
"markers SRC:PORT DST:PORT" for each connection with Markers, and
"retransmitted SRC:PORT DST:PORT" for each other one where a TCP segment
repeated octets already seen (tshark's reassembly may lose the FPDU
framing there), and "short-head SRC:PORT DST:PORT" for each connection
where an FPDU begins too close to the end of its TCP segment for tshark
to find it (short_head()), and "reused SRC:PORT DST:PORT" for each 4-tuple
that carried a connection after one in full operation (tshark keeps the
MPA state of the first and misreads the next one's startup frames as
FPDUs); this checker checks the CRCs of all four kinds itself.

PAD (RFC 5044 section 4.1: zero from the sender) is checked in every
direction: with --pad-strict=ADDR,... a non-zero PAD sent from one of
those addresses is an error; from any other it is reported on the
connection's line ("pad!=0 I/R": FPDUs of the initiator and responder).
"""
import bisect
import struct
import sys

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
M, C, R, S = 0x80, 0x40, 0x20, 0x10
G = 0x08     # first Res bit: upstream siw's GSO offer, not RFC 5044
RES = 0x07   # the other Res bits
A_BIT, B_BIT = 0x8000, 0x4000       # in the IRD word
C_BIT, D_BIT = 0x8000, 0x4000       # in the ORD word
IRD_ORD_MASK = 0x3FFF
RTR_SEND, RTR_WRITE, RTR_READ = "send", "write", "read"


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    table = CRC32C_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def packets(path):
    """(time, src, sport, dst, dport, seq, flags, payload) of each TCP/IPv4 frame."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    nano = magic in (0xA1B23C4D, 0x4D3CB2A1)
    off = 24
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from(end + "IIII", data, off)
        frame = data[off + 16: off + 16 + caplen]
        off += 16 + caplen
        t = sec + frac / (1e9 if nano else 1e6)
        if len(frame) < 34 or frame[12:14] != b"\x08\x00":
            continue
        ip = frame[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6:
            continue
        total = struct.unpack_from(">H", ip, 2)[0]
        tcp = ip[ihl:total]
        if len(tcp) < 20:
            continue
        sport, dport, seq = struct.unpack_from(">HHI", tcp, 0)
        doff = (tcp[12] >> 4) * 4
        src = ".".join(map(str, ip[12:16]))
        dst = ".".join(map(str, ip[16:20]))
        yield t, src, sport, dst, dport, seq, tcp[13], tcp[doff:]


class Direction:
    def __init__(self):
        self.isn = None
        self.segs = {}          # relative seq -> (time, payload), first copy wins
        self.data = b""
        self.times = []         # (offset, time) of each segment start
        self.overlap = False    # a segment repeated octets seen before
        self.addr = None        # the sender's IP address
        self.aligned = self.segments = 0   # see alignment()
        self.short_head = False  # see short_head()

    def add(self, t, seq, flags, payload):
        if flags & 0x02:        # SYN
            self.isn = seq
            return
        if self.isn is None or not payload:
            return
        rel = (seq - self.isn - 1) & 0xFFFFFFFF
        if rel in self.segs:
            self.overlap = True         # a retransmission
        else:
            self.segs[rel] = (t, payload)

    def assemble(self):
        out = bytearray()
        for rel in sorted(self.segs):
            t, p = self.segs[rel]
            if rel > len(out):
                break           # a hole: the capture missed bytes
            if rel < len(out):
                self.overlap = True     # a retransmission
            if rel + len(p) > len(out):
                self.times.append((len(out), t))
                out += p[len(out) - rel:]
        self.data = bytes(out)

    def time_at(self, offset):
        """When the segment carrying byte OFFSET was seen."""
        best = None
        for o, t in self.times:
            if o <= offset:
                best = t
            else:
                break
        return best


class Report:
    def __init__(self):
        self.errors = 0
        self.lines = []

    def error(self, conn, msg):
        self.errors += 1
        self.lines.append(f"ERROR {conn}: {msg}")


def frame(data, key):
    """Parse a startup frame at the start of DATA: (flags, rev, pd) or an error string."""
    if len(data) < 20:
        return "truncated startup frame"
    if data[:16] != key:
        return f"key {data[:16]!r}, expected {key!r}"
    flags, rev, pdlen = data[16], data[17], struct.unpack_from(">H", data, 18)[0]
    if pdlen > 512:
        return f"PD_Length {pdlen} > 512"
    if len(data) < 20 + pdlen:
        return "truncated private data"
    return flags, rev, data[20:20 + pdlen]


def enhanced(pd):
    ird, ord_ = struct.unpack_from(">HH", pd, 0)
    return {"A": bool(ird & A_BIT), "B": bool(ird & B_BIT), "C": bool(ord_ & C_BIT),
            "D": bool(ord_ & D_BIT), "ird": ird & IRD_ORD_MASK, "ord": ord_ & IRD_ORD_MASK}


def rtr_types(e):
    return {t for t, bit in ((RTR_SEND, "B"), (RTR_WRITE, "C"), (RTR_READ, "D")) if e[bit]}


def fpdus(data, start, markers, crc=False, pad=None):
    """Split full operation from offset START into (offset, ULPDU) pairs.

    With CRC, also checks each FPDU's CRC32c (over the FPDU with its
    Markers, sent least significant octet first) and raises ValueError on
    a mismatch. Offsets of FPDUs whose PAD is not zero go to the list PAD.

    Offsets are those of the ULPDU_Length field. With MARKERS, one Marker
    sits at every 512th octet from START; each points back to the
    ULPDU_Length field of the FPDU it falls in, and one falling between two
    FPDUs points nowhere (FPDUPTR 0). Raises ValueError on a bad Marker;
    stops where the capture ends inside an FPDU.
    """
    out = []
    pos = start

    def marker_here():
        return markers and (pos - start) % 512 == 0

    def marker():
        nonlocal pos
        mk = data[pos:pos + 4]
        if len(mk) < 4:
            raise EOFError
        if mk[0:2] != b"\0\0":
            raise ValueError(f"marker at {pos - start}: reserved field not zero")
        pos += 4
        return pos - 4, struct.unpack_from(">H", mk, 2)[0]

    def take(n, seen):
        nonlocal pos
        buf = bytearray()
        while n:
            if marker_here():
                seen.append(marker())
                continue
            step = min(n, 512 - (pos - start) % 512) if markers else n
            chunk = data[pos:pos + step]
            if len(chunk) < step:
                raise EOFError
            buf += chunk
            pos += step
            n -= step
        return bytes(buf)

    while pos < len(data):
        raw = pos                    # the FPDU's first octet, for the CRC
        try:
            if marker_here():
                at, ptr = marker()
                if ptr != 0:
                    raise ValueError(f"marker at {at - start} between FPDUs has FPDUPTR {ptr}")
            head = pos
            seen = []
            ulen = struct.unpack(">H", take(2, seen))[0]
            ulpdu = take(ulen, seen)
            # RFC 5044 section 4.1: the sender sets PAD to zero.
            if any(take((-(2 + ulen)) % 4, seen)) and pad is not None:
                pad.append(head - start)
            if marker_here():        # a Marker right before the CRC is the FPDU's
                seen.append(marker())
            crc_at = pos
            sent = take(4, seen)
        except EOFError:
            break
        for at, ptr in seen:
            if at - ptr != head:
                raise ValueError(f"marker at {at - start} points {ptr} back, its FPDU's "
                                 f"ULPDU_Length is {at - head} back")
        if crc and crc32c(data[raw:crc_at]) != int.from_bytes(sent, "little"):
            raise ValueError(f"FPDU at {head - start}: CRC32c mismatch")
        out.append((head, ulpdu))
    return out


def rtr_of(ulpdu):
    """The RTR type a ULPDU is, or a description of what it is instead."""
    if len(ulpdu) < 2:
        return "a runt"
    ctrl, rctrl = ulpdu[0], ulpdu[1]
    tagged, opcode = bool(ctrl & 0x80), rctrl & 0x0F
    if tagged and opcode == 0 and len(ulpdu) == 14:
        return RTR_WRITE
    if not tagged and len(ulpdu) >= 18:
        qn = struct.unpack_from(">I", ulpdu, 6)[0]
        if opcode == 3 and qn == 0 and len(ulpdu) == 18:
            return RTR_SEND
        if opcode == 1 and qn == 1 and len(ulpdu) == 18 + 28:
            if struct.unpack_from(">I", ulpdu, 18 + 24)[0] == 0:
                return RTR_READ
    if not tagged and opcode == 7 and len(ulpdu) >= 22:
        return f"term {ulpdu[18] >> 4}/{ulpdu[18] & 15}/{ulpdu[19]}"
    return f"opcode {opcode} ({'tagged' if tagged else 'untagged'}, {len(ulpdu)} octets)"


def with_markers(ini, rsp):
    return any(len(d.data) >= 20 and d.data[16] & M for d in (ini, rsp))


def check_conn(name, ini, rsp, rep, pad_strict=()):
    """Check one connection; returns its summary line and FPDU counts.

    PAD that is not zero is an error in the directions whose sender's
    address is in PAD_STRICT, and reported ("pad!=0 N/N") in the others.
    """
    req = frame(ini.data, KEY_REQ)
    if isinstance(req, str):
        rep.error(name, f"Request: {req}")
        return None
    rq_flags, rq_rev, rq_pd = req
    if rq_flags & RES or rq_flags & R:
        rep.error(name, f"Request flags {rq_flags:#x}: R or reserved bits set")
    if rq_rev not in (1, 2):
        rep.error(name, f"Request Rev {rq_rev}")
    rq_enh = None
    if rq_rev == 2 and rq_flags & S:
        if len(rq_pd) < 4:
            rep.error(name, "Request S set with PD_Length < 4")
            return None
        rq_enh = enhanced(rq_pd)
        if not rq_enh["A"] and rtr_types(rq_enh):
            rep.error(name, "client-server Request with B, C or D set")
    rp = frame(rsp.data, KEY_REP)
    if isinstance(rp, str):
        if not rsp.data:
            return f"{name}: Request rev {rq_rev}, no Reply (closed)", 0, 0
        rep.error(name, f"Reply: {rp}")
        return None
    rp_flags, rp_rev, rp_pd = rp
    if rp_flags & RES:
        rep.error(name, f"Reply flags {rp_flags:#x}: reserved bits set")
    if rq_rev == 1 and rp_rev != 1:
        rep.error(name, f"Reply Rev {rp_rev} to a Rev 1 Request")
    desc = (f"rev {rq_rev}/{rp_rev} M {int(bool(rq_flags & M))}/{int(bool(rp_flags & M))} "
            f"C {int(bool(rq_flags & C))}/{int(bool(rp_flags & C))}")
    if (rq_flags | rp_flags) & G:
        desc += f" G {int(bool(rq_flags & G))}/{int(bool(rp_flags & G))}"
    ini_end, rsp_end = 20 + len(rq_pd), 20 + len(rp_pd)
    if rp_flags & R:
        if len(ini.data) > ini_end or len(rsp.data) > rsp_end:
            rep.error(name, "data after a rejecting Reply")
        return f"{name}: {desc} rejected", 0, 0
    rtr = None
    if rp_rev == 2 and rp_flags & S:
        if len(rp_pd) < 4:
            rep.error(name, "Reply S set with PD_Length < 4")
            return None
        rp_enh = enhanced(rp_pd)
        if rq_enh is None:
            rep.error(name, "enhanced Reply to an unenhanced Request")
        elif rp_enh["A"]:
            offered, chosen = rtr_types(rq_enh), rtr_types(rp_enh)
            if not rq_enh["A"]:
                rep.error(name, "Reply sets A, the Request did not")
            if not chosen:
                rep.error(name, "peer-to-peer Reply names no RTR type")
            elif not chosen & offered:
                desc += " (responder proposes RTR types not offered)"
            rtr = chosen
            desc += f" p2p rtr {'|'.join(sorted(chosen))}"
        elif rtr_types(rp_enh):
            rep.error(name, "client-server Reply with B, C or D set")
        if rq_enh is not None:
            desc += (f" ird/ord {rq_enh['ird']}/{rq_enh['ord']} -> "
                     f"{rp_enh['ird']}/{rp_enh['ord']}")
            if (rp_enh["ord"] > rq_enh["ird"] and IRD_ORD_MASK not in (rp_enh["ord"], rq_enh["ird"])):
                rep.error(name, f"responder ORD {rp_enh['ord']} > initiator IRD {rq_enh['ird']}")
    elif rq_enh is not None and rq_enh["A"] and rp_rev == 2:
        rep.error(name, "Rev 2 Reply without S to an enhanced Request")
    # tshark checks CRCs, but frames Markers only where TCP segments hold
    # whole FPDUs, and may lose an FPDU's framing where a retransmission
    # overlaps it: those connections get their CRCs checked here.
    crc = bool((rq_flags | rp_flags) & C) and (bool((rq_flags | rp_flags) & M) or
                                               ini.overlap or rsp.overlap)
    side, pad_i, pad_r = "initiator", [], []
    try:
        fi = fpdus(ini.data, ini_end, bool(rp_flags & M), crc, pad_i)
        side = "responder"
        fr = fpdus(rsp.data, rsp_end, bool(rq_flags & M), crc, pad_r)
        # Where tshark loses the framing (short_head()), the CRCs are
        # checked here.
        ini.short_head, rsp.short_head = short_head(ini, fi), short_head(rsp, fr)
        if not crc and (rq_flags | rp_flags) & C and (ini.short_head or rsp.short_head):
            side = "initiator"
            fpdus(ini.data, ini_end, bool(rp_flags & M), True)
            side = "responder"
            fpdus(rsp.data, rsp_end, bool(rq_flags & M), True)
    except ValueError as e:
        rep.error(name, f"{side}: {e}")
        return None
    for who, addr, pad in (("initiator", ini.addr, pad_i), ("responder", rsp.addr, pad_r)):
        if pad and addr in pad_strict:
            rep.error(name, f"{who}: PAD not zero in {len(pad)} FPDUs, the first at {pad[0]}")
    if pad_i or pad_r:
        desc += f" pad!=0 {len(pad_i)}/{len(pad_r)}"
    if rtr:
        if not fi:
            rep.error(name, "peer-to-peer: the initiator sent no RTR")
        else:
            got = rtr_of(fi[0][1])
            if got == "term 2/0/7" and not rtr & offered:
                pass    # no RTR type in common: RFC 6581 section 9.2's TERMINATE
            elif got == "term 2/0/6":
                pass    # IRD too small for the ORD wanted (section 9.1)
            elif got not in rtr:
                rep.error(name, f"peer-to-peer: first FPDU is {got}, not an RTR of "
                          f"{'|'.join(sorted(rtr))}")
            desc += f" sent {got}"
    if fr and fi:
        t_rtr, t_resp = ini.time_at(fi[0][0]), rsp.time_at(fr[0][0])
        if t_resp is not None and t_rtr is not None and t_resp < t_rtr:
            rep.error(name, "MPA fencing: the responder sent an FPDU before the initiator's first")
    elif fr and not fi:
        rep.error(name, "MPA fencing: the responder sent FPDUs, the initiator none")
    for d, fp, marked in ((ini, fi, rp_flags & M), (rsp, fr, rq_flags & M)):
        if fp and not marked:
            d.aligned, d.segments = alignment(d, fp)
    return f"{name}: {desc} fpdus {len(fi)}/{len(fr)}", len(fi), len(fr)


# tshark's MPA dissector tries a new FPDU only on at least 8 octets
# (MPA_SMALLEST_FPDU_LEN in its packet-iwarp-mpa.c): an FPDU that begins
# fewer than 8 octets before the end of its TCP segment and goes on in the
# next one is lost to it, and it reads the next segment as an FPDU of its
# own. FPDUs that span segments do that at random (GSO-sized FPDUs).
TSHARK_MIN_HEAD = 8


def short_head(d, fp):
    """Does an FPDU in this direction begin within TSHARK_MIN_HEAD octets
    of the end of its TCP segment and continue in the next?"""
    starts = [o for o, _ in d.times] + [len(d.data)]
    i = 0
    for n, (head, _) in enumerate(fp):
        while i + 1 < len(starts) and starts[i + 1] <= head:
            i += 1
        seg_end = starts[i + 1] if i + 1 < len(starts) else len(d.data)
        fpdu_end = fp[n + 1][0] if n + 1 < len(fp) else len(d.data)
        if seg_end - head < TSHARK_MIN_HEAD and fpdu_end > seg_end:
            return True
    return False


def alignment(d, fp):
    """FPDU Alignment (RFC 5044 section 6) in one direction: of the TCP
    segments that begin in full operation, how many begin with an FPDU.
    A segment that continues an FPDU longer than the direction's largest
    segment (a GSO-sized FPDU, which cannot fit one) is not counted: it
    could not begin with one."""
    heads = [head for head, _ in fp]
    head_set = set(heads)
    starts = [o for o, _ in d.times if o >= fp[0][0]]
    if not starts:
        return 0, 0
    ends = starts[1:] + [len(d.data)]
    mss = max(e - s for s, e in zip(starts, ends))
    aligned = counted = 0
    for o in starts:
        if o in head_set:
            aligned += 1
            counted += 1
            continue
        i = bisect.bisect_right(heads, o) - 1
        nxt = heads[i + 1] if i + 1 < len(heads) else len(d.data)
        if i >= 0 and nxt - heads[i] > mss:
            continue
        counted += 1
    return aligned, counted


def directions(path):
    """Each TCP direction of the capture put back together: a dict from
    (src, sport, dst, dport, generation) to Direction, and its keys in the
    order first seen. A new SYN on a 4-tuple seen before is a new
    connection, of the next generation (an unenhanced retry reuses its
    address and port)."""
    dirs = {}
    order = []
    gen = {}
    for t, src, sport, dst, dport, seq, flags, payload in packets(path):
        pair = frozenset(((src, sport), (dst, dport)))
        key = (src, sport, dst, dport, gen.get(pair, 0))
        if flags & 0x12 == 0x02 and key in dirs and dirs[key].isn not in (None, seq):
            gen[pair] = key[4] + 1
            key = key[:4] + (key[4] + 1,)
        if key not in dirs:
            dirs[key] = Direction()
            order.append(key)
        dirs[key].add(t, seq, flags, payload)
    for d in dirs.values():
        d.assemble()
    return dirs, order


def mpa_connections(dirs, order):
    """(key, rkey, name, initiator, responder) of each connection that
    starts with an MPA Request."""
    for key in order:
        ini = dirs[key]
        if not ini.data.startswith(KEY_REQ):
            continue
        rkey = (key[2], key[3], key[0], key[1], key[4])
        rsp = dirs.get(rkey, Direction())
        ini.addr, rsp.addr = key[0], key[2]
        name = f"{key[0]}:{key[1]}->{key[2]}:{key[3]}" + (f"#{key[4]}" if key[4] else "")
        yield key, rkey, name, ini, rsp


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    pad_strict = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--pad-strict=")]
    pad_strict = pad_strict[0].split(",") if pad_strict else []
    if len(args) != 1:
        sys.exit("usage: mpa_check.py [--fpdus] [--pad-strict=ADDR,...] CAPTURE.pcap")
    dirs, order = directions(args[0])
    rep = Report()
    conns = nfpdu = 0
    counts = {}  # per TCP 4-tuple, as tshark counts
    marked = []
    retransmitted = []
    misframed = []
    operated = set()  # 4-tuples with a connection that reached full operation
    reused = set()    # and another after it
    for key, rkey, name, ini, rsp in mpa_connections(dirs, order):
        res = check_conn(name, ini, rsp, rep, pad_strict)
        conns += 1
        if with_markers(ini, rsp):
            marked.append(key)
        elif ini.overlap or rsp.overlap:
            retransmitted.append(key)
        if res and (ini.short_head or rsp.short_head):
            misframed.append(key)
        if key[:4] in operated:
            reused.add(key[:4])
        if res:
            line, a, b = res
            if a or b:
                operated.add(key[:4])
            rep.lines.append(line)
            nfpdu += a + b
            counts[key[:4]] = counts.get(key[:4], 0) + a
            counts[rkey[:4]] = counts.get(rkey[:4], 0) + b
    for line in rep.lines:
        print(line)
    if "--fpdus" in sys.argv:
        for s, sp, d, dp, _ in marked:
            print(f"markers {s}:{sp} {d}:{dp}")
        for s, sp, d, dp, _ in retransmitted:
            print(f"retransmitted {s}:{sp} {d}:{dp}")
        for s, sp, d, dp, _ in misframed:
            print(f"short-head {s}:{sp} {d}:{dp}")
        for s, sp, d, dp in sorted(reused):
            print(f"reused {s}:{sp} {d}:{dp}")
        for (s, sp, d, dp), n in counts.items():
            print(f"fpdus {s}:{sp} {d}:{dp} {n}")
        by_sender = {}
        for key, d in dirs.items():
            if d.segments:
                print(f"aligned {key[0]}:{key[1]} {key[2]}:{key[3]} {d.aligned}/{d.segments}")
                a, n = by_sender.get(key[0], (0, 0))
                by_sender[key[0]] = (a + d.aligned, n + d.segments)
        for src, (a, n) in sorted(by_sender.items()):
            print(f"alignment {src} {a}/{n} segments begin with an FPDU ({100 * a / n:.1f} %)")
    print(f"{conns} connections, {nfpdu} FPDUs, {rep.errors} errors")
    sys.exit(1 if rep.errors or conns == 0 else 0)


if __name__ == "__main__":
    main()

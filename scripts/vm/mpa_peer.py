#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A misbehaving MPA peer over plain TCP, for the VM timeout tests.

  mpa_peer.py silent-server PORT [READY]
                                      accept, read the MPA Request, never reply
                                      (READY: a file created once listening)
  mpa_peer.py silent-client HOST PORT connect, never send the Request
  mpa_peer.py no-rtr HOST PORT [READY]
                                      send a peer-to-peer Request (RFC 6581,
                                      WRITE RTR offered), read the Reply
                                      (READY: a file created then), never
                                      send the RTR
  mpa_peer.py p2p-first HOST PORT KIND
                                      send a peer-to-peer Request (CRC on,
                                      WRITE RTR offered), read the Reply,
                                      then a first FPDU that is no RTR:
                                      KIND send100 (a 100-octet SEND),
                                      send1000 (a 1000-octet SEND) or
                                      bad-crc (the WRITE RTR with a wrong
                                      CRC); expect a TERMINATE with MPA
                                      code 7, 7 or 2 (RFC 6581 section
                                      9.2, RFC 5044 section 8) before the
                                      close
  mpa_peer.py greedy-server PORT [READY]
                                      accept, read the enhanced Request and
                                      reply with an ORD above any IRD; expect
                                      a TERMINATE with MPA code 6 (RFC 6581
                                      section 9.1) before the close
  mpa_peer.py depths-server PORT READY IRD ORD
                                      accept, read the enhanced Request and
                                      reply (CRC on, its model and RTR
                                      types echoed) with IRD and ORD; the
                                      initiator must go on
                                      without a TERMINATE until it closes
  mpa_peer.py big-client HOST PORT N IRD ORD
                                      send a client-server Request with IRD,
                                      ORD and N octets of ULP private data
                                      (octet i = i * 7 + 1); up to 508
                                      expect a Reply that echoes each 0x3FFF
                                      sent (RFC 6581 section 9.1) and
                                      negotiates the other, above it a
                                      close and no Reply

  mpa_peer.py half-open HOST PORT N   open N connections, each sending half
                                      of the Request's key and then nothing;
                                      with all N open, a client's Request
                                      must be answered within LIMIT; then
                                      xiw must close all N (over its
                                      mpa_max_half_open at once, the rest
                                      at its Request timeout) within LIMIT

  mpa_peer.py fin-request HOST PORT    send a client-server Request, then
                                      close our side (FIN) at once; expect
                                      the Reply once the ULP accepts, then
                                      xiw's close: a peer gone before
                                      Full Operation must not leave the
                                      connection up

  mpa_peer.py request-clients HOST PORT N [SENT]
                                      open N connections at once, each
                                      sending a client-server Request (SENT:
                                      a file created once all are sent); say
                                      for each whether the Reply came, xiw
                                      closed it without one, or it is still
                                      open after LIMIT (exit 0 unless that)

  mpa_peer.py request-close HOST PORT send a client-server Request and close
                                      at once, without waiting for anything

Each waits until xiw closes the connection and prints what it saw and after
how long (big-client only where xiw refuses the Request: a client-server
connection xiw accepted stays up, idle, until we close it). The exit status is 0 only if xiw closed it within LIMIT seconds
(environment, default 30), not before MIN seconds (default 0), and, where a
frame was due, the frame was right.
"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wire"))
from mpa_check import crc32c  # noqa: E402

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
LIMIT = float(os.environ.get("LIMIT", "30"))
# A timeout under test must not fire early: a close before MIN seconds
# (environment, default 0) fails, so an xiw that closed at once would not
# pass for one that waited.
MIN = float(os.environ.get("MIN", "0"))


def request(pd, flags=0x50):
    """An MPA Request (C and S, Rev 2 by default) carrying PD."""
    return REQ_KEY + bytes([flags, 2]) + struct.pack(">H", len(pd)) + pd


def wait_close(s, t0):
    """Seconds until the peer closes (EOF or reset), or None at LIMIT."""
    s.settimeout(0.5)
    while time.monotonic() - t0 < LIMIT:
        try:
            if not s.recv(4096):
                return time.monotonic() - t0
        except socket.timeout:
            continue
        except ConnectionError:
            return time.monotonic() - t0
    return None


def read_exact(s, n):
    buf = b""
    s.settimeout(LIMIT)
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def report(what, closed):
    if closed is None:
        print(f"{what}: still open after {LIMIT:.0f} s")
        return 1
    print(f"{what}: closed by xiw after {closed:.1f} s")
    if closed < MIN:
        print(f"{what}: closed before the {MIN:.1f} s the timeout allows")
        return 1
    return 0


def accept_one(port, ready=None):
    """Listen on PORT (creating READY once listening), accept one connection."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    if ready:
        open(ready, "w").close()
    ls.settimeout(LIMIT)
    s, _ = ls.accept()
    return s


def silent_server(port, ready=None):
    s = accept_one(port, ready)
    t0 = time.monotonic()
    head = read_exact(s, 20)
    ok = head[:16] == REQ_KEY
    print(f"silent-server: Request key {'seen' if ok else 'missing'}")
    return report("silent-server", wait_close(s, t0)) or (0 if ok else 1)


def fin_request(host, port):
    s = socket.create_connection((host, port), timeout=LIMIT)
    s.sendall(request(struct.pack(">HH", 4, 4)))  # client-server, IRD/ORD 4
    s.shutdown(socket.SHUT_WR)
    t0 = time.monotonic()
    head = read_exact(s, 20)
    ok = head[:16] == REP_KEY
    print(f"fin-request: Reply {'seen' if ok else 'missing'}")
    if ok:
        read_exact(s, struct.unpack(">H", head[18:20])[0])
    return report("fin-request", wait_close(s, t0)) or (0 if ok else 1)


def silent_client(host, port):
    s = socket.create_connection((host, port), timeout=LIMIT)
    return report("silent-client", wait_close(s, time.monotonic()))


def no_rtr(host, port, ready=None):
    s = socket.create_connection((host, port), timeout=LIMIT)
    # C and S flags, Rev 2, PD_Length 4: A | IRD 4, C (WRITE RTR) | ORD 4.
    s.sendall(request(struct.pack(">HH", 0x8004, 0x8004)))
    t0 = time.monotonic()
    head = read_exact(s, 20)
    ok = head[:16] == REP_KEY and head[17] == 2
    if ok:
        pd_len = struct.unpack(">H", head[18:20])[0]
        pd = read_exact(s, pd_len)
        ok = len(pd) >= 4 and pd[0] & 0x80  # A echoed
    print(f"no-rtr: peer-to-peer Reply {'seen' if ok else 'missing'}")
    if ready:
        open(ready, "w").close()
    return report("no-rtr", wait_close(s, t0)) or (0 if ok else 1)


def fpdu(ulpdu, bad_crc=False):
    """ULPDU framed as an FPDU with CRC32c, no Markers."""
    f = struct.pack(">H", len(ulpdu)) + ulpdu
    f += b"\0" * (-len(f) % 4)
    return f + struct.pack("<I", crc32c(f) ^ (0xFF if bad_crc else 0))


def terminate_code(s):
    """The MPA error code of the TERMINATE xiw sends next, or None."""
    try:
        head = read_exact(s, 2)
        n = struct.unpack(">H", head)[0] if len(head) == 2 else 0
        ulpdu = read_exact(s, n)
    except (ConnectionError, socket.timeout):
        return None
    if len(ulpdu) < 18:
        return None
    hl = 14 if ulpdu[0] & 0x80 else 18  # tagged or untagged DDP header
    if ulpdu[1] & 0x0F != 0x7 or len(ulpdu) < hl + 2 or ulpdu[hl] != 0x20:
        print(f"not an MPA TERMINATE: {ulpdu.hex()}")
        return None
    return ulpdu[hl + 1]  # layer 2 (LLP), type 0 (MPA): the code


def p2p_first(host, port, kind):
    s = socket.create_connection((host, port), timeout=LIMIT)
    # C and S flags, Rev 2: A | IRD 4, C (WRITE RTR) | ORD 4.
    s.sendall(request(struct.pack(">HH", 0x8004, 0x8004)))
    t0 = time.monotonic()
    head = read_exact(s, 20)
    if head[:16] != REP_KEY or not head[16] & 0x40:
        print(f"p2p-first: no Reply with CRC: {head.hex()}")
        return 1
    read_exact(s, struct.unpack(">H", head[18:20])[0])
    send = lambda n: bytes([0x41, 0x43]) + struct.pack(">IIII", 0, 0, 1, 0) + bytes(n)  # noqa: E731
    write_rtr = bytes([0xC1, 0x40]) + struct.pack(">IQ", 0, 0)
    first, want = {"send100": (fpdu(send(100)), 7), "send1000": (fpdu(send(1000)), 7),
                   "bad-crc": (fpdu(write_rtr, bad_crc=True), 2)}[kind]
    s.sendall(first)
    code = terminate_code(s)
    print(f"p2p-first {kind}: TERMINATE code {code}, want {want}")
    return report(f"p2p-first {kind}", wait_close(s, t0)) or (0 if code == want else 1)


def read_request(s):
    """The Request's header and private data, or None."""
    head = read_exact(s, 20)
    if len(head) < 20 or head[:16] != REQ_KEY:
        return None
    pd_len = struct.unpack(">H", head[18:20])[0]
    return head, read_exact(s, pd_len)


def answer_enhanced(s, what, reply_depths):
    """Read an enhanced Request from S and answer it: C and S, Rev 2, the
    initiator's control flags (A, B | C, D: its model and RTR types)
    echoed, with the IRD and ORD reply_depths(ird, ord) returns for the
    Request's. False (and a message) if the Request is not enhanced."""
    req = read_request(s)
    if req is None or req[0][17] != 2 or not req[0][16] & 0x10 or len(req[1]) < 4:
        print(f"{what}: no enhanced Request")
        return False
    ird_f, ord_f = struct.unpack(">HH", req[1][:4])
    ird, ord_ = reply_depths(ird_f & 0x3FFF, ord_f & 0x3FFF)
    print(f"{what}: Request IRD {ird_f & 0x3FFF} ORD {ord_f & 0x3FFF} "
          f"control {ird_f >> 14:#x}/{ord_f >> 14:#x}, Reply IRD {ird} ORD {ord_}")
    s.sendall(REP_KEY + bytes([0x50, 2]) + struct.pack(
        ">HHH", 4, (ird_f & 0xC000) | ird, (ord_f & 0xC000) | ord_))
    return True


def greedy_server(port, ready=None):
    s = accept_one(port, ready)
    t0 = time.monotonic()
    # Our IRD covers its ORD, but our ORD 0x3FFE is more than any
    # device's IRD, so the initiator must TERMINATE with code 6.
    if not answer_enhanced(s, "greedy-server", lambda ird, ord_: (ord_, 0x3FFE)):
        return 1
    code = terminate_code(s)
    ok = code == 6
    print(f"greedy-server: TERMINATE code {code}, want 6: {'seen' if ok else 'missing'}")
    return report("greedy-server", wait_close(s, t0)) or (0 if ok else 1)


def depths_server(port, ready, ird, ord_):
    s = accept_one(port, ready)
    t0 = time.monotonic()
    if not answer_enhanced(s, "depths-server", lambda *_: (ird, ord_)):
        return 1
    # Whatever the initiator sends until it closes: no TERMINATE.
    got = b""
    s.settimeout(0.5)
    while time.monotonic() - t0 < LIMIT:
        try:
            chunk = s.recv(4096)
        except socket.timeout:
            continue
        except ConnectionError:
            break
        if not chunk:
            break
        got += chunk
    term = len(got) >= 4 and got[3] & 0x0F == 0x7
    print(f"depths-server: {len(got)} octets from the initiator, "
          f"{'a TERMINATE' if term else 'no TERMINATE'}")
    return report("depths-server", wait_close(s, t0)) or (1 if term else 0)


def big_client(host, port, ulp_len, ird, ord_):
    s = socket.create_connection((host, port), timeout=LIMIT)
    # C and S, Rev 2; A = 0 | IRD, C = D = 0 | ORD.
    pd = struct.pack(">HH", ird, ord_) + bytes((i * 7 + 1) & 0xFF for i in range(ulp_len))
    s.sendall(request(pd))
    t0 = time.monotonic()
    try:
        head = read_exact(s, 20)
    except ConnectionError:
        head = b""
    if len(pd) > 512:
        # PD_Length above 512: an improperly formatted frame (RFC 5044
        # section 7.1), closed without a Reply.
        ok = not head
        print(f"big-client: {len(pd)} octets of private data, Reply {'none' if ok else head.hex()}")
    else:
        ok = len(head) == 20 and head[:16] == REP_KEY and head[17] == 2 and head[16] & 0x10
        fields = read_exact(s, 4) if ok else b""
        ok = ok and len(fields) == 4
        if ok:
            r_ird, r_ord = (v & 0x3FFF for v in struct.unpack(">HH", fields))
            print(f"big-client: Reply IRD {r_ird:#x} ORD {r_ord:#x}")
            # Our IRD 0x3FFF comes back as the responder's ORD, our ORD
            # 0x3FFF as its IRD; a value we negotiate is met within bounds.
            ok = (r_ord == 0x3FFF) == (ird == 0x3FFF) and r_ord <= ird
            ok = ok and (r_ird == 0x3FFF) == (ord_ == 0x3FFF)
        print(f"big-client: Reply {'as RFC 6581 section 9.1 says' if ok else 'wrong'}")
        # Client-server: the connection is up, and idle until we send.
        s.close()
        return 0 if ok else 1
    return report("big-client", wait_close(s, t0)) or (0 if ok else 1)


def half_open(host, port, n):
    import resource
    import selectors
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 256, n + 256))
    t0 = time.monotonic()
    sel = selectors.DefaultSelector()
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex((host, port))
        sel.register(s, selectors.EVENT_WRITE)
    # Connected ones get half a key (a Request that never completes) and
    # are then watched for xiw's close.
    opened = []
    while len(opened) < n and time.monotonic() - t0 < LIMIT:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            sel.unregister(s)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                try:
                    s.send(REQ_KEY[:8])
                except ConnectionError:
                    pass  # closed by xiw already: counted below
                opened.append(s)
            else:
                s.close()
    print(f"half-open: {len(opened)} of {n} connections open after {time.monotonic() - t0:.1f} s")
    t1 = time.monotonic()
    ok = False
    try:
        c = socket.create_connection((host, port), timeout=LIMIT)
        c.sendall(request(struct.pack(">HH", 4, 4)))
        ok = read_exact(c, 20)[:16] == REP_KEY
        c.close()
    except (ConnectionError, socket.timeout) as e:
        print(f"half-open: the client failed: {e}")
    print(f"half-open: the client's Reply {'came' if ok else 'never came'} "
          f"after {time.monotonic() - t1:.1f} s")
    for s in opened:
        sel.register(s, selectors.EVENT_READ)
    left = len(opened)
    while left and time.monotonic() - t1 < LIMIT:
        for key, _ in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                gone = not s.recv(64)
            except ConnectionError:
                gone = True
            if gone:
                sel.unregister(s)
                s.close()
                left -= 1
    print(f"half-open: {len(opened) - left} of {len(opened)} closed by xiw "
          f"after {time.monotonic() - t1:.1f} s")
    return 0 if ok and len(opened) == n and left == 0 else 1


def request_clients(host, port, n, sent=None):
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=LIMIT)
        s.sendall(request(struct.pack(">HH", 4, 4)))
        socks.append(s)
    if sent:
        open(sent, "w").close()
    t0 = time.monotonic()
    rc = 0
    for i, s in enumerate(socks):
        s.settimeout(max(0.1, LIMIT - (time.monotonic() - t0)))
        try:
            head = s.recv(20)
            what = "Reply seen" if head[:16] == REP_KEY else "closed without a Reply"
        except socket.timeout:
            what, rc = "still open", 1
        except ConnectionError:
            what = "closed without a Reply"
        print(f"request-clients: connection {i}: {what} after {time.monotonic() - t0:.1f} s")
        s.close()
    return rc


def request_close(host, port):
    s = socket.create_connection((host, port), timeout=LIMIT)
    s.sendall(request(struct.pack(">HH", 4, 4)))
    s.close()
    print("request-close: Request sent, connection closed")
    return 0


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "silent-server":
        return silent_server(int(args[0]), args[1] if len(args) > 1 else None)
    if mode == "silent-client":
        return silent_client(args[0], int(args[1]))
    if mode == "no-rtr":
        return no_rtr(args[0], int(args[1]), args[2] if len(args) > 2 else None)
    if mode == "p2p-first":
        return p2p_first(args[0], int(args[1]), args[2])
    if mode == "greedy-server":
        return greedy_server(int(args[0]), args[1] if len(args) > 1 else None)
    if mode == "depths-server":
        return depths_server(int(args[0]), args[1], int(args[2], 0), int(args[3], 0))
    if mode == "big-client":
        return big_client(args[0], int(args[1]), int(args[2]), int(args[3], 0), int(args[4], 0))
    if mode == "half-open":
        return half_open(args[0], int(args[1]), int(args[2]))
    if mode == "fin-request":
        return fin_request(args[0], int(args[1]))
    if mode == "request-clients":
        return request_clients(args[0], int(args[1]), int(args[2]), args[3] if len(args) > 3 else None)
    if mode == "request-close":
        return request_close(args[0], int(args[1]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

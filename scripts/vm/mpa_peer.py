#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A misbehaving MPA peer over plain TCP, for the VM timeout tests.

  mpa_peer.py silent-server PORT [READY]
                                      accept, read the MPA Request, never reply
                                      (READY: a file created once listening)
  mpa_peer.py silent-client HOST PORT connect, never send the Request
  mpa_peer.py no-rtr HOST PORT        send a peer-to-peer Request (RFC 6581,
                                      WRITE RTR offered), read the Reply,
                                      never send the RTR

Each waits until xiw closes the connection and prints what it saw and after
how long. The exit status is 0 only if xiw closed it within LIMIT seconds
(environment, default 30) and, where a frame was due, the frame was right.
"""
import os
import socket
import struct
import sys
import time

REQ_KEY = b"MPA ID Req Frame"
REP_KEY = b"MPA ID Rep Frame"
LIMIT = float(os.environ.get("LIMIT", "30"))


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
    return 0


def silent_server(port, ready=None):
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", port))
    ls.listen(1)
    if ready:
        open(ready, "w").close()
    ls.settimeout(LIMIT)
    s, _ = ls.accept()
    t0 = time.monotonic()
    head = read_exact(s, 20)
    ok = head[:16] == REQ_KEY
    print(f"silent-server: Request key {'seen' if ok else 'missing'}")
    return report("silent-server", wait_close(s, t0)) or (0 if ok else 1)


def silent_client(host, port):
    s = socket.create_connection((host, port), timeout=LIMIT)
    return report("silent-client", wait_close(s, time.monotonic()))


def no_rtr(host, port):
    s = socket.create_connection((host, port), timeout=LIMIT)
    # C and S flags, Rev 2, PD_Length 4: A | IRD 4, C (WRITE RTR) | ORD 4.
    s.sendall(REQ_KEY + bytes([0x50, 2]) + struct.pack(">HHH", 4, 0x8004, 0x8004))
    t0 = time.monotonic()
    head = read_exact(s, 20)
    ok = head[:16] == REP_KEY and head[17] == 2
    if ok:
        pd_len = struct.unpack(">H", head[18:20])[0]
        pd = read_exact(s, pd_len)
        ok = len(pd) >= 4 and pd[0] & 0x80  # A echoed
    print(f"no-rtr: peer-to-peer Reply {'seen' if ok else 'missing'}")
    return report("no-rtr", wait_close(s, t0)) or (0 if ok else 1)


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "silent-server":
        return silent_server(int(args[0]), args[1] if len(args) > 1 else None)
    if mode == "silent-client":
        return silent_client(args[0], int(args[1]))
    if mode == "no-rtr":
        return no_rtr(args[0], int(args[1]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plain TCP bandwidth for make bench: 64 KiB writes for SECS seconds.

  tcp_bw.py server ADDR SECS
  tcp_bw.py client ADDR SECS     prints "tcp <MB/s>"
"""
import socket
import sys
import time

PORT = 7490


def main():
    role, host, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if role == "server":
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, PORT))
        ls.listen(1)
        s, _ = ls.accept()
        while s.recv(1 << 20):
            pass
        return 0
    for _ in range(30):
        try:
            s = socket.create_connection((host, PORT))
            break
        except OSError:
            time.sleep(1)
    else:
        return 1
    buf, n, t0 = b"x" * 65536, 0, time.monotonic()
    while time.monotonic() - t0 < secs:
        s.sendall(buf)
        n += len(buf)
    print("tcp %.2f" % (n / (time.monotonic() - t0) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())

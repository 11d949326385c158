#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The core benchmark's medians as a table of GB/s and ratios to the
physical limit measured in the same run (memcpy plus CRC32c of the same
octets with CRC on, memcpy alone with it off).

    summary.py core_bench.json
"""
import json
import sys


def medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        name = b.get("run_name", b["name"]).removesuffix("_median")
        kind, *args = name.split("/")
        key = dict(a.split(":") for a in args)
        out[(kind, key.get("size"), key.get("crc"), key.get("markers"))] = b["bytes_per_second"] / 1e9
    return out


def main():
    m = medians(sys.argv[1])
    print(f"{'size':>6} {'crc':>3} {'mrk':>3}  {'tx copy':>8} {'gather':>8} {'rx':>8} {'limit':>8}"
          f"  {'copy/lim':>8} {'gath/lim':>8} {'rx/lim':>8}")
    for size in ("64", "4096", "65536"):
        for crc in ("1", "0"):
            limit = m.get(("LimitCopyCrc" if crc == "1" else "LimitCopy", size, None, None))
            for mk in ("0", "1"):
                tx, ga, rx = (m.get((k, size, crc, mk)) for k in ("TxCopy", "TxGather", "Rx"))
                if None in (tx, ga, rx, limit):
                    print(f"{size:>6} {crc:>3} {mk:>3}  (missing)")
                    continue
                print(f"{size:>6} {crc:>3} {mk:>3}  {tx:8.2f} {ga:8.2f} {rx:8.2f} {limit:8.2f}"
                      f"  {tx / limit:8.2f} {ga / limit:8.2f} {rx / limit:8.2f}")


if __name__ == "__main__":
    main()

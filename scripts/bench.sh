#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: RDMA WRITE bandwidth of upstream siw and xiw (each with and
# without CRC32c, and with GSO-sized FPDUs) and plain TCP between two
# stock-kernel VMs, in one boot,
# reported as MB/s and as ratios to siw; then, in a second boot, one NFS
# workload over TCP, siw and xiw (scripts/vm/tests/nfsbench.sh), reported
# with ratios of xiw to TCP and to siw. Under QEMU without KVM the
# absolute figures say little; the ratios are the point.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/vm/bench
# The core's benchmark, run in VM 0 after the rest (tests/corebench.sh).
kdir=$("$top/scripts/kernel.sh" headers-6.12)
make -s -C "$top" module >/dev/null &&
	make -s -C "$top/userspace-tests" OUT="$top/build/bench" \
		KWARN_FILE="$top/build/$("$top/scripts/kernel.sh" release "$kdir")/drivers/xiw/core/xiw_core.warnings" \
		"$top/build/bench/bench/core_bench" >/dev/null ||
	echo "bench: the core's benchmark did not build" >&2
SIW_VARIANTS="crc gso" "$top/scripts/vm/run.sh" --kernel stock --tests "bench corebench" --timeout 900 \
	--out "$out" --results "$top/build/vm/bench.results" >/dev/null 2>&1
rc=$?
f=$out/share/vm0/bench
[ -s "$f" ] || { echo "bench: no figures (run.sh exited $rc); see $out" >&2; exit 1; }
awk 'function r(a, b) { return v[b] ? sprintf("%.2f", v[a] / v[b]) : "-" }
     { v[$1] = $2; n[NR] = $1 }
     END { printf "%-14s %10s %10s %10s\n", "stack", "MB/s", "vs siw", "vs siw-crc"
           for (i = 1; i <= NR; i++)
               printf "%-14s %10.2f %10s %10s\n", n[i], v[n[i]], r(n[i], "siw"), r(n[i], "siw-crc") }' "$f"
# Latency, typical microseconds (send and read at 16 octets, send4k at
# 4 KiB): lower is better, so the ratio is siw's over xiw's (above 1: xiw
# is faster); send4k/send says how much a 4 KiB SEND costs over a 16 B one.
f=$out/share/vm0/lat
if [ -s "$f" ]; then
	echo
	awk '{ v[$1 " " $2] = $3 }
	     function r(a, b) { return v[a] ? sprintf("%.2f", v[b] / v[a]) : "-" }
	     END { printf "%-12s %9s %9s %9s %13s\n", "usec", "siw", "xiw-crc", "xiw-nocrc", "siw/xiw-nocrc"
	           split("send read send4k", ops)
	           for (i = 1; i <= 3; i++) {
	               o = ops[i]
	               printf "%-12s %9s %9s %9s %13s\n", o, v["siw " o], v["xiw-crc " o],
	                      v["xiw-nocrc " o], r("xiw-nocrc " o, "siw " o)
	           }
	           printf "%-12s %9s %9s %9s\n", "send4k/send", r("siw send", "siw send4k"),
	                  r("xiw-crc send", "xiw-crc send4k"), r("xiw-nocrc send", "xiw-nocrc send4k") }' "$f"
fi

# The core under the emulator: GB/s of payload, and each path against the
# limit (memcpy plus CRC32c with CRC, memcpy alone without).
f=$out/share/vm0/core.json
if [ -s "$f" ]; then
	echo
	python3 - "$f" <<-'EOP'
	import json, sys
	v = {b["name"]: b["bytes_per_second"] / 1e9 for b in json.load(open(sys.argv[1]))["benchmarks"]}
	print(f"{'core in the VM, 64 KiB':<24} {'GB/s':>7} {'vs limit':>9}")
	for crc, limit in (("1", "LimitCopyCrc/size:65536"), ("0", "LimitCopy/size:65536")):
	    for path in ("TxCopy", "Rx"):
	        k = f"{path}/size:65536/crc:{crc}/markers:0"
	        if k in v and limit in v:
	            print(f"{path + (' crc' if crc == '1' else ' nocrc'):<24} {v[k]:7.3f} {v[k] / v[limit]:9.2f}")
	for k in ("LimitCopy/size:65536", "LimitCopyCrc/size:65536"):
	    if k in v:
	        print(f"{k.split('/')[0]:<24} {v[k]:7.3f}")
	EOP
fi

# NFS over RDMA (Documentation/performance.rst): one NFSv4.2 workload over
# TCP, siw and xiw in a second boot.
out=$top/build/vm/nfsbench
"$top/scripts/vm/run.sh" --kernel stock --tests nfsbench --timeout 1200 --out "$out" \
	--results "$top/build/vm/nfsbench.results" >/dev/null 2>&1
rc=$?
f=$out/share/vm1/nfsbench
[ -s "$f" ] || { echo "bench: no NFS figures (run.sh exited $rc); see $out" >&2; exit 1; }
echo
awk '{ v[$1 " " $2] = $3; if (!($2 in seen)) { seen[$2] = 1; m[++n] = $2 } }
     function r(a, b) { return v[b] ? sprintf("%.2f", v[a] / v[b]) : "-" }
     END { printf "%-18s %9s %9s %9s %9s %9s\n", "NFSv4.2", "tcp", "siw", "xiw", "xiw/tcp", "xiw/siw"
           for (i = 1; i <= n; i++) {
               k = m[i]
               printf "%-18s %9s %9s %9s %9s %9s\n", k, v["tcp " k], v["siw " k], v["xiw " k],
                      r("xiw " k, "tcp " k), r("xiw " k, "siw " k)
           } }' "$f"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make interop`: the full interop matrix (Documentation/interop.rst). Two
# stock-kernel VMs in one boot: the xiw to xiw matrix (VM test cm), then
# xiw against upstream siw and every siw variant (VM test interop,
# INTEROP=full), with VM 0's NIC captured and the capture checked by
# tshark and scripts/wire/mpa_check.py. Prints one line per case and
# "N passed, N failed".
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/vm/interop
results=$top/build/vm/interop.results
: > "$results"
SIW_VARIANTS="stock v1 p2p p2p_read crc crc_strict gso" INTEROP=full \
	"$top/scripts/vm/run.sh" --kernel stock --tests "cm interop" --timeout 2400 \
	--pcap --out "$out" --results "$results"
if [ -s "$out/wire.pcap" ]; then
	"$top/scripts/wire/check.sh" "$out/wire.pcap" vm-stock/wire >> "$results"
else
	echo "FAIL vm-stock/wire/capture" >> "$results"
fi
cat "$results"
p=$(grep -c '^PASS' "$results")
f=$(grep -c '^FAIL' "$results")
echo "$p passed, $f failed"
[ "$f" = 0 ]

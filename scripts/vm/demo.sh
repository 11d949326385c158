#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot two VMs on the Debian stock 6.12 kernel, create xiw0 on
# each, and print what xiw does so far as a short report.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/vm/demo
results=$top/build/vm/demo.results
rm -f "$results"
echo "xiw demo: two VMs on the stock kernel (QEMU TCG, about a minute)..."
"$top/scripts/vm/run.sh" --kernel stock --tests demo --timeout 300 \
	--out "$out" --results "$results"
rc=$?
echo
for i in 0 1; do
	cat "$out/share/vm$i/report" 2>/dev/null || echo "== vm$i: no report"
	echo
done
echo "Beyond this demo, make check runs NFS and NVMe over Fabrics over xiw,"
echo "SRQs, and interoperability with upstream siw (README, Status;"
echo "Documentation/ for what is tested and what is not yet)."
echo "checks: $(grep -c '^PASS' "$results") passed, $(grep -c '^FAIL' "$results") failed"
grep '^FAIL' "$results"
exit $rc

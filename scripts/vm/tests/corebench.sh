# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: the core's benchmark (make bench-core's binary, built by
# scripts/bench.sh) inside VM 0, for 64 KiB messages without Markers and
# the physical limit beside them: what each costs where QEMU emulates
# every instruction, CRC32c's crc32 instruction among them
# (Documentation/performance.rst). A benchmark, not a test: only "it ran"
# is checked.
. "$XIW_TOP/scripts/vm/lib.sh"

[ "$VM_IDX" = 0 ] || exit 77
bin=$XIW_TOP/build/bench/bench/core_bench
filter='^(Limit.*/size:65536|(TxCopy|Rx)/size:65536/crc:[01]/markers:0)$'
check ran sh -c "'$bin' --benchmark_filter='$filter' --benchmark_min_time=0.5 \
	--benchmark_format=json > '$OUT/core.json'"

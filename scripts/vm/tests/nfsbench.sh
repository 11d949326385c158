# SPDX-License-Identifier: GPL-2.0
#
# `make bench`, NFS part: one NFSv4.2 workload over TCP, over upstream siw
# and over xiw, side by side in one boot (scripts/vm/nfslib.sh: VM 0
# serves, VM 1 mounts and measures). The workload: a 256 MiB file written
# and fsync'd, read back after a cache drop (1 MiB dd blocks), and 500
# small files created and removed. Each figure goes to $OUT/nfsbench as
# "transport metric value". A benchmark, not a test: only "it ran" is
# checked.
. "$XIW_TOP/scripts/vm/lib.sh"
. "$XIW_TOP/scripts/vm/nfslib.sh"

MIB=${NFSBENCH_MIB:-256}
M=/mnt/bench
srv() { [ "$VM_IDX" = $SRV_VM ]; }
now() { date +%s.%N; }
rate() { echo "$1 $2 $3" | awk '{ printf "%.1f", $1 / ($3 - $2) }'; }

measure() {	# TRANSPORT
	nfs_mount 4.2 $M "$([ "$1" = tcp ] && echo tcp)" || return 1
	t0=$(now)
	dd if=/dev/zero of=$M/big bs=1M count="$MIB" conv=fsync status=none || return 1
	t1=$(now)
	drop_caches
	t2=$(now)
	dd if=$M/big of=/dev/null bs=1M status=none || return 1
	t3=$(now)
	mkdir $M/small && for i in $(seq 500); do echo "$i" > $M/small/$i; done && sync &&
		rm -rf $M/small $M/big && sync || return 1
	t4=$(now)
	{
		echo "$1 write_MBps $(rate "$MIB" "$t0" "$t1")"
		echo "$1 read_MBps $(rate "$MIB" "$t2" "$t3")"
		echo "$1 small_files_per_s $(rate 500 "$t3" "$t4")"
	} >> "$OUT/nfsbench"
	umount $M
}

run() {	# TRANSPORT RNIC
	if srv; then
		rnic_use "$2"
		barrier "$1-ready" 120
		barrier "$1-done" 900
	else
		rnic_use "$2"
		barrier "$1-ready" 120
		check "$1" measure "$1"
		barrier "$1-done" 900
	fi
}

modprobe rdma_cm && modprobe rpcrdma
check net retry 10 ping -c 1 -W 2 "$PEER_IP"
if srv; then
	check server nfs_server_start
fi
barrier serving 120
run tcp none
run siw siw
run xiw xiw
rnic_use none

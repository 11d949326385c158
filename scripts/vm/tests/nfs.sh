# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA (RPC-over-RDMA Version One) on xiw between two VMs: VM 0
# runs kernel nfsd with its RDMA listener, VM 1 mounts (scripts/vm/nfslib.sh).
#
#   xiw-xiw   NFSv3 and NFSv4.2 with proto=rdma: files of 0 B to 64 MiB
#             (1 MiB on the debug kernel) written, synced, dropped from
#             the cache and checksummed; directory operations; four
#             parallel writers; fio with verification (stock kernel). xiw's
#             counters show remote invalidation at work: the server sends
#             Send with Invalidate and pulls WRITE payloads with
#             READ_WITH_INV, the client sees its STags invalidated.
#   faults    unmount/remount cycles; nfsd restarted while the client
#             writes; the client's link flapped while it writes; rmmod of
#             xiw while mounted (refused, or clean and the mount recovers).
#   siw-srv   VM 0 on upstream siw, VM 1 on xiw (stock kernels only: siw
#             as a peer-to-peer responder trips lockdep by itself on the
#             debug kernel, Documentation/interop.rst).
#   siw-cli   VM 0 on xiw, VM 1 on upstream siw (stock kernels only).
#             Both with rpcrdma-nfs against nfsd (nfs_ops).
#   Files go up to 64 MiB on the stock kernels, 16 MiB where
#   VOLUME=small (make check: still 16 chunks of 1 MiB each), 1 MiB on
#   the debug kernel.
#   one-host  VM 0 mounts its own export over RDMA on its one xiw device.
#
# No case may leave a kernel warning, oops, leak or hung task behind
# (run.sh checks each VM's kernel log).
. "$XIW_TOP/scripts/vm/lib.sh"
. "$XIW_TOP/scripts/vm/nfslib.sh"

M3=/mnt/v3
M4=/mnt/v4
# The debug kernel (KASAN, lockdep, kmemleak under TCG) moves data at a
# fraction of the stock kernel's speed: there the files go up to 1 MiB,
# and the counters need fewer invalidations to pass.
# VOLUME=small (make check's stock kernels) stops at 16 MiB, in every
# case: the 64 MiB file cost a minute a boot and tested no other path.
if [ "$KERNEL_KIND" = debug ]; then
	MAX=1048576 PAR_KIB=1024 MIN_INV=8 MIXED_VERS=4.2
else
	MAX=67108864 PAR_KIB=4096 MIN_INV=64 MIXED_VERS="3 4.2"
fi
[ "${VOLUME:-full}" = small ] && [ "$MAX" -gt 16777216 ] && MAX=16777216
srv() { [ "$VM_IDX" = $SRV_VM ]; }
# make check's debug-kernel boot (DEPTH=quick) leaves the directory
# operations (small inline RPCs, which the integrity checks' RPCs
# exercise the same way) and the remount cycles to the stock kernel;
# every other case runs on both (the faults read what the integrity
# checks wrote). Only those and one-host ask at_depth, and QUICK names
# one-host.
QUICK='one-host'

# The files rpcrdma-nfs works on (server side): one to read, one to be
# written, in a directory of their own.
RPC_READ_SIZE=100000 RPC_WRITE_SIZE=200000
rpc_files() {
	mkdir -p $EXPORT/rpcrdma &&
		head -c $RPC_READ_SIZE /dev/urandom > $EXPORT/rpcrdma/read.bin &&
		: > $EXPORT/rpcrdma/write.bin
}

# nfs_ops: our requester against nfsd (Documentation/rpcrdma.rst): Version
# Two refused, then NFSv4.0 in Version One: LOOKUP, the same as a Long
# Call, READ into a write chunk (checked against the file read through
# the mount), WRITE from a read chunk (checked on the server's disk, by
# VM 0, rpc-write-on-disk), READDIR into a reply chunk.
nfs_ops() {
	"$XIW_TOP/build/user/rpcrdma-nfs" -p 20049 -e 1 -s $RPC_WRITE_SIZE "$PEER_IP" \
		rpcrdma/read.bin rpcrdma/write.bin > "$OUT/nfs-ops.txt" 2>&1
	rc=$?
	cat "$OUT/nfs-ops.txt"
	# The file's FNV-1a 64 as read through the xiw-xiw NFSv4.2 mount, the
	# first time.
	[ -s /tmp/rpc-read.fnv ] || python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
print("%016x" % h)' $M4/rpcrdma/read.bin > /tmp/rpc-read.fnv || return 1
	want=$(cat /tmp/rpc-read.fnv)
	[ $rc = 0 ] &&
		grep -q "read rpcrdma/read.bin: $RPC_READ_SIZE octets by a write chunk, eof, fnv1a64 $want\$" \
			"$OUT/nfs-ops.txt" &&
		grep -q "write rpcrdma/write.bin: $RPC_WRITE_SIZE octets by a read chunk" "$OUT/nfs-ops.txt" &&
		grep -q 'readdir: 2 entries by a reply chunk.* read.bin' "$OUT/nfs-ops.txt" &&
		grep -q 'long-call: the same handle' "$OUT/nfs-ops.txt"
}

# written_by_ops: what rpcrdma-nfs wrote is on the server's disk: octet i
# is (i * 7 + 3) mod 256.
written_by_ops() {
	python3 - $EXPORT/rpcrdma/write.bin $RPC_WRITE_SIZE <<-'EOP'
	import sys
	data, n = open(sys.argv[1], "rb").read(), int(sys.argv[2])
	sys.exit(0 if data == bytes((i * 7 + 3) & 255 for i in range(n)) else 1)
	EOP
}

setup() {
	modprobe rdma_cm && modprobe rdma_ucm && modprobe rpcrdma && rnic_use xiw &&
		retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null || return 1
	if srv; then
		nfs_server_start && rpc_files
	else
		make_sources $MAX
	fi
}
check setup setup || exit 1
if srv; then
	nfs_stuck_watch > "$OUT/nfs-diag.txt" 2>&1 &
	watch=$!
fi
srv && at tx_send_inv read_inv rx_read_req
barrier serving 120 || exit 1

# ---- xiw to xiw -------------------------------------------------------------
fio_job() {	# NAME DIR fio-options...
	n=$1 d=$2
	shift 2
	timeout 300 fio --name="$n" --directory="$d" --ioengine=psync --direct=1 \
		--verify=crc32c --do_verify=1 --verify_fatal=1 "$@" \
		--output="$OUT/fio-$n.txt" && grep -q 'err= 0' "$OUT/fio-$n.txt"
}

if srv; then
	barrier xiw-io-done 1500
	# Replies that return a single-segment chunk go out as Send with
	# Invalidate; WRITE payloads come in by RDMA Read into FRWR sinks.
	check xiw-server-send-inv grew tx_send_inv $MIN_INV
	check xiw-server-read-inv grew read_inv $MIN_INV
	[ "$KERNEL_KIND" != debug ] && check rpc-write-on-disk written_by_ops
else
	at rx_send_inv rx_read_req
	# RPC-over-RDMA Version Two against Linux's nfsd, which speaks One
	# (Documentation/rpcrdma.rst): the probe is answered ERR_VERS, the
	# NULL calls of NFSv3 and NFSv4 go on in Version One.
	for v in 3 4; do
		check rpcrdma-nfsd-v$v-null "$XIW_TOP/build/user/rpcrdma-ping" -p 20049 \
			-P 100003 -V $v -c 3 -e 1 "$PEER_IP"
	done
	check xiw-mount-v3 nfs_mount 3 $M3
	check xiw-mount-v4.2 nfs_mount 4.2 $M4
	# Not on the debug kernel, for make check's budget: the requester is
	# user space, and the NULL calls above took nfsd's paths there.
	[ "$KERNEL_KIND" != debug ] && check rpcrdma-nfsd-ops nfs_ops
	check xiw-v3-integrity bounded 300 integrity $M3/int
	check xiw-v4.2-integrity bounded 300 integrity $M4/int
	at_depth xiw-v3-dirops && check xiw-v3-dirops bounded 180 dirops $M3
	at_depth xiw-v4.2-dirops && check xiw-v4.2-dirops bounded 180 dirops $M4
	check xiw-v4.2-parallel bounded 300 parallel $M4/par 4 $PAR_KIB
	if [ "$KERNEL_KIND" != debug ]; then
		# Small: under TCG a 4 KiB RDMA message takes ~20 ms with siw
		# and xiw alike (Documentation/nfs.rst).
		check xiw-fio-seq-write fio_job seq $M4 --rw=write --bs=256k --size=16m
		# 4 KiB writes cost about 100 ms each over RDMA here (the
		# 4 KiB latency of the performance issue): 1 MiB of them.
		check xiw-fio-rand-write fio_job rand $M3 --rw=randwrite --bs=4k --size=1m
		check xiw-fio-rand-rw fio_job randrw $M4 --rw=randrw --bs=16k --size=2m
	fi
	# Each READ reply of the read-backs carries one Write chunk segment:
	# the server invalidates its STag with the reply.
	check xiw-client-send-inv grew rx_send_inv $MIN_INV
	check xiw-client-read-req grew rx_read_req $MIN_INV
	barrier xiw-io-done 1500
fi

# ---- faults -------------------------------------------------------------------
# writer DIR DONE: 1 MiB files, each fsync'd, one after the other until the
# barrier DONE has been reached by VM 0 and at least 5 are written.
writer() {
	mkdir -p "$1" || return 1
	i=0
	while [ $i -lt 400 ]; do
		i=$((i + 1))
		dd if=/tmp/src/f1048576 of="$1/w$i" bs=64k conv=fsync status=none || return 1
		[ $i -ge 5 ] && [ -e "$SYNC/$TEST.$2.$SRV_VM" ] && break
	done
	echo "$i files written"
}
written_ok() {	# DIR
	drop_caches
	n=0
	for f in "$1"/w*; do
		cmp /tmp/src/f1048576 "$f" || return 1
		n=$((n + 1))
	done
	echo "$n files intact"
	[ $n -ge 5 ]
}

nfsd_restart() { nfsd_stop && sleep 3 && nfsd_start; }
if srv; then
	barrier restart-go 300
	sleep 2
	check nfsd-restart nfsd_restart
	barrier restart-done 120
	barrier flap-done 600
	barrier rmmod-done 600
else
	remount() {
		for i in 1 2 3; do
			umount $M4 && nfs_mount 4.2 $M4 &&
				cmp /tmp/src/f1048576 $M4/int/f1048576 || return 1
		done
	}
	at_depth remount-cycles && check remount-cycles remount
	# The server restarts nfsd while this client writes: a hard mount
	# waits and resends, and nothing synced before or after is lost.
	writer $M4/restart restart-done > "$OUT/writer-restart.txt" 2>&1 &
	w=$!
	barrier restart-go 300
	barrier restart-done 120
	check restart-writer wait $w
	cat "$OUT/writer-restart.txt"
	check restart-data written_ok $M4/restart
	check restart-synced-before sh -c "cd $M4/int && sha256sum f* | cmp - /tmp/src.sha256"
	# The client's link goes down for 3 s under writes: xiw fails its QPs,
	# the NFS client reconnects once the link is back.
	writer $M3/flap flap-done > "$OUT/writer-flap.txt" 2>&1 &
	w=$!
	sleep 3
	ip link set eth0 down && sleep 3 && ip link set eth0 up
	check flap-link-back retry 30 ping -c 1 -W 2 "$PEER_IP"
	barrier flap-done 600
	check flap-writer wait $w
	cat "$OUT/writer-flap.txt"
	check flap-data written_ok $M3/flap
	# rmmod while mounted: either refused, or clean and the mounts
	# recover once xiw is back.
	timeout 120 rmmod xiw
	rc=$?
	if grep -q '^xiw ' /proc/modules; then
		echo "rmmod xiw while mounted: refused ($rc)"
		check rmmod-refused-cleanly test $rc != 124
	else
		echo "rmmod xiw while mounted: done"
		RNIC=none
		check rmmod-relink rnic_use xiw
	fi
	check rmmod-mount-works sh -c "echo 3 > /proc/sys/vm/drop_caches &&
		timeout 300 cmp /tmp/src/f1048576 $M4/int/f1048576 &&
		timeout 300 cmp /tmp/src/f1048576 $M3/int/f1048576"
	check xiw-umount sh -c "umount $M3 && umount $M4"
	barrier rmmod-done 600
fi

# ---- mixed peers: upstream siw on one side --------------------------------
mixed() {	# NAME SERVER_RNIC CLIENT_RNIC
	if srv; then
		check "$1-rnic" rnic_use "$2"
		: > $EXPORT/rpcrdma/write.bin
		barrier "$1-ready" 120
		barrier "$1-done" 1200
		check "$1-rpc-write-on-disk" written_by_ops
	else
		check "$1-rnic" rnic_use "$3"
		barrier "$1-ready" 120
		for v in $MIXED_VERS; do
			m=/mnt/$1-v$v
			check "$1-mount-v$v" nfs_mount $v $m &&
				check "$1-v$v-integrity" bounded 300 integrity $m/int-$1 &&
				check "$1-v$v-dirops" bounded 180 dirops $m
			check "$1-umount-v$v" nfs_umount $m
		done
		# Our requester, on xiw or on siw, against nfsd on the other.
		check "$1-rpcrdma-nfsd-ops" nfs_ops
		barrier "$1-done" 1200
	fi
}
# Both on the stock kernels only: on the debug kernel siw does not serve
# (see the header) and xiw's server side is the xiw-xiw cases'. On 6.1
# only at full depth (check-full): there a 6.1 siw server once stopped
# acknowledging the xiw client's writes mid-run (Documentation/nfs.rst).
if [ "$KERNEL_KIND" = stock ] ||
   { [ "$KERNEL_KIND" = stock61 ] && [ "${DEPTH:-full}" = full ]; }; then
	mixed siw-srv siw xiw
	mixed siw-cli xiw siw
elif [ "$KERNEL_KIND" = stock61 ]; then
	echo "SKIP $TEST/siw-srv" >> "$OUT/results"
	echo "SKIP $TEST/siw-cli" >> "$OUT/results"
fi

# ---- one host ---------------------------------------------------------------
# The server mounts its own export over RDMA (nfslib.sh, one_host_nfs).
# VM 1 waits.
if at_depth one-host; then
	if srv; then
		check one-host-rnic rnic_use xiw &&
			check one-host bounded 300 one_host_nfs
	fi
	barrier one-host-done 600
fi

server_stop() { nfsd_stop && exportfs -ua; }
if srv; then
	kill $watch
	cat "$OUT/nfs-diag.txt"
	check server-stop server_stop
fi
check rnic-unload rnic_use none

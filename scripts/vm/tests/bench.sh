# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: RDMA WRITE bandwidth (ib_write_bw -R, 64 KiB messages)
# between the two VMs, side by side in one boot: upstream siw (as shipped,
# no CRC, built to require CRC32c, and built with try_gso), xiw with
# CRC32c, xiw without it, both again with GSO-sized FPDUs (mpa_gso, sent
# zero-copy), xiw copying or gathering their payload instead (tx_payload),
# and plain TCP (python sockets, 64 KiB writes). Then latency over siw and
# xiw: ib_send_lat and ib_read_lat -R at 16 octets, ib_send_lat at 4 KiB.
# VM 1 serves, VM 0 measures; each result goes to $OUT/bench as
# "name MB/s", each latency to $OUT/lat as "name op typical-usec". A
# benchmark, not a test: only "it ran" is checked.
. "$XIW_TOP/scripts/vm/lib.sh"

P=/sys/module/xiw/parameters
SECS=${BENCH_SECS:-10}
bw() {	# name device
	if [ "$VM_IDX" = 1 ]; then
		barrier "$1-go" 60
		timeout $((SECS + 60)) ib_write_bw -R -d "$2" -s 65536 -D "$SECS" -F >/dev/null 2>&1
	else
		barrier "$1-go" 60
		sleep 2
		retry 10 timeout $((SECS + 60)) ib_write_bw -R -d "$2" -s 65536 -D "$SECS" -F \
			"$PEER_IP" > "$OUT/$1.out" 2>&1 &&
		awk -v n="$1" '$1 == 65536 { print n, $4 }' "$OUT/$1.out" >> "$OUT/bench"
	fi
	barrier "$1-done" $((SECS + 120))
}

lat() {	# name device
	# send4k: a 4 KiB SEND, several MSS-sized FPDUs (an NFS call or
	# reply at the inline threshold).
	for t in send:16:send read:16:read send:4096:send4k; do
		op=${t%%:*} size=${t#*:} size=${size%%:*} label=${t##*:}
		if [ "$VM_IDX" = 1 ]; then
			barrier "$1-$label-lat-go" 60
			timeout 120 ib_${op}_lat -R -d "$2" -s "$size" -n 1000 -F >/dev/null 2>&1
		else
			barrier "$1-$label-lat-go" 60
			sleep 2
			retry 10 timeout 120 ib_${op}_lat -R -d "$2" -s "$size" -n 1000 -F \
				"$PEER_IP" > "$OUT/$1-$label-lat.out" 2>&1 &&
			awk -v n="$1" -v o="$label" -v s="$size" '$1 == s { print n, o, $5 }' \
				"$OUT/$1-$label-lat.out" >> "$OUT/lat"
		fi
		barrier "$1-$label-lat-done" 180
	done
}

modprobe rdma_ucm
check net retry 10 ping -c 1 -W 2 "$PEER_IP"

load_module "$(siw_ko stock)" && rdma link add siw0 type siw netdev eth0
bw siw siw0
lat siw siw0
rdma link delete siw0 && rmmod siw
# siw built to require CRC32c (scripts/vm/siw.sh variant crc): the
# reference for xiw with CRC.
load_module "$(siw_ko crc)" && rdma link add siw0 type siw netdev eth0
bw siw-crc siw0
rdma link delete siw0 && rmmod siw
# siw built with try_gso (variant gso): GSO-sized FPDUs, the reference
# for xiw's mpa_gso.
load_module "$(siw_ko gso)" && rdma link add siw0 type siw netdev eth0
bw siw-gso siw0
rdma link delete siw0 && rmmod siw

load_xiw && rdma link add xiw0 type xiw netdev eth0
bw xiw-crc xiw0
lat xiw-crc xiw0
echo suppress > $P/mpa_crc
bw xiw-nocrc xiw0
lat xiw-nocrc xiw0
# GSO-sized FPDUs (mpa_gso on both sides), with CRC32c and without: their
# pages go zero-copy (tx_payload's default).
echo Y > $P/mpa_gso
echo required > $P/mpa_crc
bw xiw-gso-crc xiw0
echo suppress > $P/mpa_crc
bw xiw-gso-nocrc xiw0
# The same FPDUs copied into the FPDU buffer first, and gathered (TCP
# copies from the registered pages): what zero-copy saves.
echo copy > $P/tx_payload
bw xiw-copy-gso-nocrc xiw0
echo gather > $P/tx_payload
bw xiw-gather-gso-nocrc xiw0
echo N > $P/mpa_gso
bw xiw-gather-nocrc xiw0
rdma link delete xiw0 && rmmod xiw

# Plain TCP with the same message size, for the ceiling.
TCP="python3 $XIW_TOP/scripts/vm/tcp_bw.py"
barrier tcp-go 60
if [ "$VM_IDX" = 1 ]; then
	timeout $((SECS + 60)) $TCP server "$MY_IP" "$SECS"
else
	sleep 2
	timeout $((SECS + 60)) $TCP client "$PEER_IP" "$SECS" >> "$OUT/bench"
	check measured test -s "$OUT/bench"
fi
barrier tcp-done $((SECS + 120))

# SPDX-License-Identifier: GPL-2.0
#
# Stock rdma-core tools over xiw, unchanged, between two VMs (and our own
# pattern checker, userspace-tests/rdma/xiw_pattern.c): the
# distribution's siw provider drives xiw through the siw user ABI (mapped
# SQ, RQ and CQ rings, the post_send doorbell, user MRs). VM 0 serves, VM 1
# connects; each pair is one case. Sizes and counts are small: the VMs run
# under TCG.
. "$XIW_TOP/scripts/vm/lib.sh"

setup() {
	load_xiw && modprobe rdma_ucm && rdma link add xiw0 type xiw netdev eth0 &&
	retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
check setup setup || exit 1
barrier setup || exit 1

# make check's debug-kernel boot (DEPTH=quick): each tool once, our
# checker on every path (SRQ, zero-copy, the MTU change), RDMA READ from
# perftest, and the link going down; the rest of the perftest matrix runs
# on the stock kernel and in check-full.
QUICK='qp-caps|rping|ucmatose|pattern|pattern-srq|rdma-resource|pattern-mtu|ib_read_bw|pattern-zcopy|one-host|link-down'

# A user QP gets every limit the device advertises, reports them back and
# starts in INIT; one more SGE or WR is EINVAL (userspace-tests/rdma/
# xiw_qpcaps.c). VM 0 alone: it needs no peer.
if [ "$VM_IDX" = 0 ] && at_depth qp-caps; then
	check qp-caps "$XIW_QPCAPS" -d xiw0
fi

# pair NAME "server command" "client command": the server runs in the
# foreground with a timeout; the client retries while the server is not
# listening yet. Each command's exit status is the verdict.
pair() {
	at_depth "$1" || return 0
	if [ "$VM_IDX" = 0 ]; then
		barrier "$1-go" 60
		check "$1-server" timeout 150 sh -c "$2"
	else
		barrier "$1-go" 60
		sleep 2
		check "$1-client" retry 30 timeout 120 sh -c "$3"
	fi
	barrier "$1-done" 200
}

pair rping "rping -s -a $MY_IP -V -C 20 -S 4096" "rping -c -a $PEER_IP -V -C 20 -S 4096"
pair rping-large "rping -s -a $MY_IP -V -C 4 -S 65535" "rping -c -a $PEER_IP -V -C 4 -S 65535"
pair ucmatose "ucmatose -b $MY_IP -c 2 -C 10 -S 1000" "ucmatose -s $PEER_IP -c 2 -C 10 -S 1000"
pair rdma-server "rdma_server -s $MY_IP" "rdma_client -s $PEER_IP"
# Ours: SEND echo from three SGEs, inline SEND, RDMA WRITE read back by
# RDMA READ, 0 B to 1 MiB, every byte and completion field checked.
pair pattern "$XIW_PATTERN -s $MY_IP" "$XIW_PATTERN -c $PEER_IP"
# The same with the server's receives on a shared receive queue, its limit
# event and LAST_WQE_REACHED checked.
pair pattern-srq "$XIW_PATTERN -q -s $MY_IP" "$XIW_PATTERN -c $PEER_IP"

# RPC-over-RDMA's tools: rpcrdma.sh, in the captured boot.

# rdma resource (Documentation/admin-guide.rst, Resources): while the
# pattern checker repeats its checks for 5 s, VM 1 lists its QP, cm_id,
# CQs and MRs with xiw's attributes (-dd; Debian's rdma prints them as
# drv_NAME VALUE), all in one go; the QP shows what MPA agreed with the
# defaults (Revision 2 with RFC 6581, CRC, no Markers, peer-to-peer with
# an RTR) and its queues, the cm_id a connected initiator, a CQ the
# completions it took and the events it raised.
has() { tr '\n' ' ' < "$OUT/res-$1.txt" | grep -qE -- "$2" || { echo "$1: no \"$2\""; return 1; }; }
res_all() {
	for o in qp cm_id; do
		rdma -dd resource show $o link xiw0/1 > "$OUT/res-$o.txt" 2>&1 || return 1
	done
	for o in cq mr; do
		rdma -dd resource show $o dev xiw0 > "$OUT/res-$o.txt" 2>&1 || return 1
	done
	for want in 'state RTS' 'drv_mpa_rev 2 ' 'drv_enhanced 1 ' 'drv_crc 1 ' \
		'drv_markers_tx 0 ' 'drv_markers_rx 0 ' 'drv_peer_to_peer 1 ' \
		'drv_rtr (send|write|read) ' 'drv_ird [1-9]' 'drv_ord [1-9]' \
		'drv_sq_depth [1-9]' 'drv_reads_out [0-9]' 'drv_peer_ird [1-9]'; do
		has qp "$want" || return 1
	done
	has cm_id 'drv_cep connected drv_initiator 1 ' &&
	has cq 'drv_cq_depth [1-9][0-9]* drv_user 1 ' &&
	has cq 'drv_completions [1-9][0-9]* drv_events [1-9][0-9]* drv_armed [0-3] ' &&
	has mr 'drv_kind user drv_valid 1 drv_pages [1-9]'
}
if ! at_depth rdma-resource; then
	:
elif [ "$VM_IDX" = 0 ]; then
	barrier res-go 60
	check rdma-resource-server timeout 120 $XIW_PATTERN -s "$MY_IP"
	barrier res-done 150
else
	barrier res-go 60
	sleep 2
	retry 30 timeout 100 $XIW_PATTERN -c "$PEER_IP" -t 5 > "$OUT/res-pattern.txt" 2>&1 &
	pat=$!
	check rdma-resource retry 20 res_all
	cat "$OUT"/res-qp.txt "$OUT"/res-cm_id.txt "$OUT"/res-cq.txt "$OUT"/res-mr.txt
	check rdma-resource-client wait $pat
	cat "$OUT/res-pattern.txt"
	barrier res-done 150
fi

# The MTU changes under traffic: VM 1's eth0 cycles through 1000, 600 and
# 1500 octets while its pattern checker runs. Every byte still arrives,
# and VM 1's xiw resized its FPDUs to TCP's new MSS (tx_mulpdu_change).
if ! at_depth pattern-mtu; then
	:
elif [ "$VM_IDX" = 0 ]; then
	barrier mtu-go 60
	check pattern-mtu-server timeout 300 $XIW_PATTERN -s "$MY_IP"
	barrier mtu-done 330
else
	at tx_mulpdu_change
	barrier mtu-go 60
	sleep 2
	( while :; do
		for m in 1000 600 1500; do ip link set eth0 mtu $m; sleep 0.4; done
	done ) &
	flap=$!
	# -t: the checks repeat for 8 s, so the MTU changes under them
	# however fast the link carries one round.
	check pattern-mtu-client retry 30 timeout 270 $XIW_PATTERN -c "$PEER_IP" -t 8
	kill $flap
	wait $flap
	ip link set eth0 mtu 1500
	check pattern-mtu-resized grew tx_mulpdu_change 1
	barrier mtu-done 330
fi
# perftest through rdma_cm (-R); each checks its own completions. On the
# debug kernel 200 64 KiB READs took 78 s of a CI run: 20 show the same
# code paths to KASAN.
if [ "$KERNEL_KIND" = debug ]; then PERF_N=20; else PERF_N=200; fi
for t in write_bw read_bw send_bw write_lat read_lat send_lat; do
	pair "ib_$t" "ib_$t -R -d xiw0 -n $PERF_N -s 65536 -F" \
		"ib_$t -R -d xiw0 -n $PERF_N -s 65536 -F $PEER_IP"
done
pair ib_send_bw-srq "ib_send_bw -R -d xiw0 --use-srq -n $PERF_N -s 65536 -F" \
	"ib_send_bw -R -d xiw0 --use-srq -n $PERF_N -s 65536 -F $PEER_IP"

# Zero-copy transmit: with GSO-sized FPDUs (mpa_gso on both sides) TCP
# sends the registered pages themselves (tx_payload's default), and a
# SEND, WRITE or Read Response is done with them only once TCP let go.
# Every byte checked by ours, then the bandwidth tools both ways.
echo Y > /sys/module/xiw/parameters/mpa_gso
at tx_zcopy_msg
pair pattern-zcopy "$XIW_PATTERN -s $MY_IP" "$XIW_PATTERN -c $PEER_IP"
for t in write_bw read_bw; do
	pair "ib_$t-zcopy" "ib_$t -R -d xiw0 -n $PERF_N -s 65536 -F" \
		"ib_$t -R -d xiw0 -n $PERF_N -s 65536 -F $PEER_IP"
done
# Kernels without struct ubuf_info_ops (6.1) build zero-copy out: there
# the same traffic goes by copy (the load line says which).
if zc_built; then
	check zcopy-used grew tx_zcopy_msg 1
else
	check zcopy-copied stayed tx_zcopy_msg
fi
echo N > /sys/module/xiw/parameters/mpa_gso

# One host (issue 23's "the way people test on one machine"): client and
# server on VM 0 and its one xiw device, connecting to its own address;
# TCP carries it over the loopback device, both ends' QPs are xiw's, and
# a send can run the receive path of the other end in the same call
# chain. rping -V and our checker, every byte checked, and perftest's
# WRITE and READ bandwidth (not in QUICK); VM 1 waits.
if ! at_depth one-host; then
	:
elif [ "$VM_IDX" = 0 ]; then
	# one_host NAME "server" "client": both here, the client retried
	# while the server starts; both must succeed.
	one_host() {
		timeout 120 sh -c "exec $2" > "$OUT/$1-server.txt" 2>&1 &
		srv=$!
		sleep 1
		retry 20 timeout 100 sh -c "exec $3" > "$OUT/$1-client.txt" 2>&1
		crc=$?
		wait $srv
		src=$?
		cat "$OUT/$1-server.txt" "$OUT/$1-client.txt"
		[ $crc = 0 ] && [ $src = 0 ]
	}
	check one-host-rping one_host rping "rping -s -a $MY_IP -V -C 20 -S 4096" \
		"rping -c -a $MY_IP -V -C 20 -S 4096"
	at rx_read_req
	check one-host-pattern one_host pattern "$XIW_PATTERN -s $MY_IP" \
		"$XIW_PATTERN -c $MY_IP"
	# xiw served the checker's six RDMA READs (not another device).
	check one-host-on-xiw grew rx_read_req 6
	# perftest through rdma_cm, both ends here. The client starts once
	# the server's listener is up (xiw's kernel socket, in ss): its
	# retries after a refused connection are not safe (link-down below).
	one_host_perf() {
		timeout 120 "$1" -R -d xiw0 -n $PERF_N -s 65536 \
			> "$OUT/one-host-$1-server.txt" 2>&1 &
		srv=$!
		retry 60 listening 18515 &&
			timeout 100 "$1" -R -d xiw0 -n $PERF_N -s 65536 "$MY_IP" \
				> "$OUT/one-host-$1-client.txt" 2>&1
		crc=$?
		wait $srv
		src=$?
		cat "$OUT/one-host-$1-server.txt" "$OUT/one-host-$1-client.txt"
		[ $crc = 0 ] && [ $src = 0 ]
	}
	# The loopback address: rdma_cm binds 127.0.0.1 to an active port
	# (xiw0's), but xiw's wildcard listener takes connections arriving
	# on its netdev only (cm.c, xiw_listen_bind()), and these arrive on
	# lo: refused at once, with rping's error, never a hang. (To the
	# host's own eth0 address they arrive on eth0: the cases above.)
	lo_refused() {
		timeout 60 rping -s -p 7301 -C 1 > "$OUT/lo-server.txt" 2>&1 &
		srv=$!
		retry 30 listening 7301
		timeout 30 rping -c -a 127.0.0.1 -p 7301 -C 1 > "$OUT/lo-client.txt" 2>&1
		rc=$?
		kill $srv 2>/dev/null
		wait $srv
		cat "$OUT/lo-client.txt"
		[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'REJECTED, error -111' "$OUT/lo-client.txt"
	}
	# perftest and the loopback address in the stock 6.12 boot and
	# check-full (one-host-perf is not in QUICK): rping and our checker
	# above take xiw's one-host paths on every kernel.
	if at_depth one-host-perf; then
		check one-host-ib_write_bw one_host_perf ib_write_bw
		check one-host-ib_read_bw one_host_perf ib_read_bw
		check one-host-loopback-refused lo_refused
	fi
	barrier one-host-done 300
else
	barrier one-host-done 300
fi

# The link goes down under traffic (VM 0's eth0): xiw fails the QPs at
# NETDEV_GOING_DOWN, so the server ends within seconds instead of when TCP
# gives up or the client's 60 s are up. The traffic is our checker's:
# perftest's client (4.5-0.17, Debian 12's) frees its rdma_cm ids when
# its data connection is refused and retries on them, a crash that takes
# the pair down now and then (Documentation/testing.rst, user).
if ! at_depth link-down; then
	:
elif [ "$VM_IDX" = 0 ]; then
	barrier down-go 60
	timeout 150 $XIW_PATTERN -s "$MY_IP" > "$OUT/down.txt" 2>&1 &
	srv=$!
	# Connected: our QP is in RTS (the client retries while we start).
	rts=0
	retry 60 sh -c 'rdma resource show qp link xiw0/1 | grep -q "state RTS"' && rts=1
	barrier down-running 120
	sleep 3
	# Connected and still running when the link goes: it cannot pass by
	# ending early.
	running=0
	[ $rts = 1 ] && kill -0 $srv 2>/dev/null && running=1
	t0=$(date +%s)
	ip link set eth0 down
	wait $srv
	rc=$?
	t=$(( $(date +%s) - t0 ))
	echo "xiw_pattern -s exited $rc, ${t} s after the link went down"
	cat "$OUT/down.txt"
	check link-down-ends-fast test "$running" = 1 -a "$t" -lt 20
	ip link set eth0 up
	barrier down-done 150
else
	barrier down-go 60
	sleep 2
	retry 30 timeout 150 $XIW_PATTERN -c "$PEER_IP" -t 60 > "$OUT/down.txt" 2>&1 &
	pat=$!
	barrier down-running 120
	barrier down-done 150
	kill $pat 2>/dev/null	# the retry loop first, then what it runs
	pkill -f 'xiw_pattern -c' 2>/dev/null
	wait $pat
fi

teardown() { rdma link delete xiw0 && rmmod xiw; }
check teardown teardown

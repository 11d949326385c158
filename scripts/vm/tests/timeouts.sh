# SPDX-License-Identifier: GPL-2.0
#
# MPA Startup Phase timeouts over real TCP (RFC 5044 section 7.1, RFC 6581
# section 9.2), against a peer that goes silent (scripts/vm/mpa_peer.py):
#   reply:   xiw initiates; the peer takes the Request and never replies.
#            The connect fails with ETIMEDOUT (rdma_cm: UNREACHABLE).
#            reply-qp-gone: the same, and the ULP destroys its QP after
#            1 s: the connect ends then, not at the Reply timeout.
#   request: the peer connects to an xiw listener and never sends the
#            Request. xiw closes; its ULP never hears of it.
#   rtr:     the peer sends a peer-to-peer Request and never the RTR.
#            xiw's accept returns at once; the connection closes after
#            the RTR timeout and its ULP sees no good ESTABLISHED.
# And one peer that answers wrongly:
#   ird:     xiw initiates; the peer replies with an ORD above any IRD
#            xiw can offer. xiw sends a TERMINATE with MPA code 6
#            (insufficient IRD, RFC 6581 section 9.1) and closes; the
#            connect fails.
#   depths:  xiw initiates; the Reply lowers its ORD and raises its IRD
#            (RFC 6581 section 9.1): its ULP and QP get the new values.
#   big:     a peer sends Requests with 512 octets of private data and
#            IRD 0x3FFF, ORD 300, then IRD 300, ORD 0x3FFF: xiw's Reply
#            echoes each 0x3FFF (RFC 6581 section 9.1) and negotiates the
#            other; its ULP gets the first 255 octets and depths of 255
#            (iw_cm's fields are 8 bits wide: the most they carry). With
#            513 octets xiw closes without a Reply; its ULP hears nothing.
# Each timeout is set to 2 s; the peer allows 30 s before calling it a hang
# and fails a close before 1 s (the timeout must have run, less the time
# the peer's clock starts late: TCP setup, the Reply).
. "$XIW_TOP/scripts/vm/lib.sh"

P=/sys/module/xiw/parameters
R=/sys/module/xiw_cmtest/parameters/result
PEER="python3 $XIW_TOP/scripts/vm/mpa_peer.py"

setup() {
	load_xiw && modprobe rdma_cm && rdma link add xiw0 type xiw netdev eth0 &&
	echo 2000 > $P/mpa_request_timeout_ms && echo 2000 > $P/mpa_reply_timeout_ms &&
	echo 2000 > $P/mpa_rtr_timeout_ms &&
	retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
check setup setup || exit 1
barrier setup || exit 1

# VM 1 plays the silent responder, VM 0's xiw initiates.
if [ "$VM_IDX" = 1 ]; then
	MIN=1 $PEER silent-server 7480 "$OUT/listening" > "$OUT/peer-reply.txt" 2>&1 &
	peer=$!
	retry 30 test -e "$OUT/listening"
	barrier reply-listen 60
	check reply-peer wait $peer
	cat "$OUT/peer-reply.txt"
else
	barrier reply-listen 60
	sleep 1
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7480 data=0
	cat $R
	check reply-connect-fails grep -q '^error=-110 ' $R
	rmmod xiw_cmtest
fi
barrier reply-done 120

# The same silent responder, with a 30 s Reply timeout, and a ULP that
# gives up after 1 s and destroys its QP: the connect ends then
# (CONNECT_REPLY with ECONNABORTED, rdma_cm: CONNECT_ERROR), xiw closes
# the connection, and the cm_id is not held for the rest of those 30 s.
if [ "$VM_IDX" = 1 ]; then
	LIMIT=12 $PEER silent-server 7486 "$OUT/gone-listening" > "$OUT/peer-qp-gone.txt" 2>&1 &
	peer=$!
	retry 30 test -e "$OUT/gone-listening"
	barrier qp-gone-listen 60
	check reply-qp-gone-peer wait $peer
	cat "$OUT/peer-qp-gone.txt"
else
	barrier qp-gone-listen 60
	sleep 1
	echo 30000 > $P/mpa_reply_timeout_ms
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7486 data=0 abort_ms=1000
	cat $R
	check reply-qp-gone-connect-ends grep -q '^error=-103 ' $R
	rmmod xiw_cmtest
	echo 2000 > $P/mpa_reply_timeout_ms
fi
barrier qp-gone-done 120

if [ "$VM_IDX" = 1 ]; then
	rm -f "$OUT/listening"
	$PEER greedy-server 7481 "$OUT/listening" > "$OUT/peer-ird.txt" 2>&1 &
	peer=$!
	retry 30 test -e "$OUT/listening"
	barrier ird-listen 60
	check ird-term6 wait $peer
	cat "$OUT/peer-ird.txt"
else
	barrier ird-listen 60
	sleep 1
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7481 ird=2 ord=2 data=0
	cat $R
	check ird-connect-fails grep -q '^error=-105 ' $R
	rmmod xiw_cmtest
fi
barrier ird-done 120

# RFC 6581 section 9.1 from the initiator's side: it offers IRD 1 and
# ORD 3, the Reply says IRD 2 and ORD 2. The initiator raises its IRD to
# the responder's ORD and lowers its ORD to the responder's IRD, and its
# ULP's ESTABLISHED reports those (rdma_cm: responder_resources is the
# IRD), not what it offered; the MPA log shows what its QP got.
if [ "$VM_IDX" = 1 ]; then
	rm -f "$OUT/listening"
	$PEER depths-server 7482 "$OUT/listening" 2 2 > "$OUT/peer-depths.txt" 2>&1 &
	peer=$!
	retry 30 test -e "$OUT/listening"
	barrier depths-listen 60
	check ird-agreed-peer wait $peer
	cat "$OUT/peer-depths.txt"
else
	barrier depths-listen 60
	echo Y > /sys/module/xiw/parameters/mpa_log
	echo "xiw-test: case ird-agreed" > /dev/kmsg
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7482 ird=1 ord=3 data=0
	cat $R
	check ird-agreed-ulp grep -q '^established ird=2 ord=2 ' $R
	check ird-agreed-qp eval "dmesg | sed -n '/xiw-test: case ird-agreed\$/,\$p' |
		grep -q 'xiw: initiator: rev 2 .* ird 2 ord 2 '"
	rmmod xiw_cmtest
fi
barrier depths-done 120

# VM 1's xiw listens; VM 0 plays the silent initiator, then the one that
# never sends the RTR.
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7471
	barrier listen 60
	barrier request-done 120
	check request-no-ulp-event grep -q '^requests=0 ' $R
	# The next peer only now: its Request reaches the ULP at once.
	barrier request-checked 60
	barrier rtr-done 120
	cat $R
	check rtr-not-established grep -q '^requests=1 established=0 ' $R
	rmmod xiw_cmtest
else
	barrier listen 60
	check request-peer env MIN=1 $PEER silent-client "$PEER_IP" 7471
	barrier request-done 120
	barrier request-checked 60
	check rtr-peer env MIN=1 $PEER no-rtr "$PEER_IP" 7471
	barrier rtr-done 120
fi

# VM 1's xiw listens; VM 0 sends the largest Request allowed, with IRD and
# ORD 0x3FFF, then one 1 octet over the limit.
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7472
	barrier big-listen 60
	barrier big-done 120
	cat $R
	# Two requests reached the ULP, the last with the first 255 octets
	# intact and IRD 300 and ORD 0x3FFF read as 255.
	check big-pd-ulp grep -q '^requests=2 .*pd_len=255 pd_ok=1 ird=255 ord=255 ' $R
	rmmod xiw_cmtest
else
	barrier big-listen 60
	check big-pd-3fff-ird $PEER big-client "$PEER_IP" 7472 508 0x3FFF 300
	check big-pd-3fff-ord $PEER big-client "$PEER_IP" 7472 508 300 0x3FFF
	check big-pd-over $PEER big-client "$PEER_IP" 7472 509 4 4
	barrier big-done 120
fi

teardown() { rdma link delete xiw0 && rmmod xiw; }
check teardown teardown

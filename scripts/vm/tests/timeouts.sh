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
# Each failure in the Startup Phase leaves one "connection refused" line
# naming the reason (Documentation/admin-guide.rst, Logging); a connect
# its own ULP gave up leaves none.
# Each timeout is set to 2 s; the peer allows 30 s before calling it a hang
# and fails a close before 1 s (the timeout must have run, less the time
# the peer's clock starts late: TCP setup, the Reply).
. "$XIW_TOP/scripts/vm/lib.sh"

P=/sys/module/xiw/parameters
R=/sys/module/xiw_cmtest/parameters/result
PEER="python3 $XIW_TOP/scripts/vm/mpa_peer.py"

# mark CASE, then logged CASE TEXT: the kernel log since the mark has TEXT.
mark() { echo "xiw-test: case $1" > /dev/kmsg; }
logged() { dmesg | sed -n "/xiw-test: case $1\$/,\$p" | grep -q -- "$2"; }
REFUSED='connection refused:'
# xiw's tracepoints (Documentation/admin-guide.rst, Tracepoints), on for
# the whole test; traced PATTERN: the trace has a line matching PATTERN.
TR=/sys/kernel/tracing
trace_on() {
	{ [ -d $TR/events ] || mount -t tracefs nodev $TR; } &&
	echo 1 > $TR/events/xiw/enable && echo > $TR/trace
}
traced() { grep -qE -- "$1" $TR/trace || { echo "no trace line matching: $1"; return 1; }; }

setup() {
	load_xiw && modprobe rdma_cm && rdma link add xiw0 type xiw netdev eth0 &&
	echo 2000 > $P/mpa_request_timeout_ms && echo 2000 > $P/mpa_reply_timeout_ms &&
	echo 2000 > $P/mpa_rtr_timeout_ms &&
	retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
check setup setup || exit 1
check trace-on trace_on
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
	mark reply
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7480 data=0
	cat $R
	check reply-connect-fails grep -q '^error=-110 ' $R
	check reply-logged logged reply \
		"xiw: initiator peer $PEER_IP:7480: $REFUSED no MPA Reply before the timeout"
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
	mark qp-gone
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7486 data=0 abort_ms=1000
	cat $R
	check reply-qp-gone-connect-ends grep -q '^error=-103 ' $R
	check reply-qp-gone-not-logged eval "logged qp-gone 'case qp-gone' &&
		! logged qp-gone '$REFUSED'"
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
	mark ird
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7481 ird=2 ord=2 data=0
	cat $R
	check ird-connect-fails grep -q '^error=-105 ' $R
	check ird-logged logged ird "$REFUSED refused with a TERMINATE .*: MPA: insufficient IRD"
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
	mark ird-agreed
	load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=7482 ird=1 ord=3 data=0
	cat $R
	check ird-agreed-ulp grep -q '^established ird=2 ord=2 ' $R
	check ird-agreed-qp logged ird-agreed 'xiw: initiator: rev 2 .* ird 2 ord 2 '
	rmmod xiw_cmtest
fi
barrier depths-done 120

# VM 1's xiw listens; VM 0 plays the silent initiator, then the one that
# never sends the RTR.
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7471
	mark request
	barrier listen 60
	barrier request-done 120
	check request-no-ulp-event grep -q '^requests=0 ' $R
	check request-logged retry 5 logged request \
		"xiw: responder peer $PEER_IP:[0-9]*: $REFUSED no MPA Request before the timeout"
	mark rtr
	# The next peer only now: its Request reaches the ULP at once.
	barrier request-checked 60
	barrier rtr-done 120
	cat $R
	check rtr-not-established grep -q '^requests=1 established=0 ' $R
	check rtr-logged retry 5 logged rtr "$REFUSED no RTR before the timeout"
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
	mark big
	barrier big-listen 60
	barrier big-done 120
	cat $R
	# Only the Request over the limit failed.
	check big-pd-over-logged retry 5 logged big "$REFUSED an MPA Request xiw cannot take"
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

# What the tracepoints saw: VM 0 initiated (a Reply that never came, a
# TERMINATE for a Reply that asked too much, a connection whose depths
# the Reply changed), VM 1 responded (a Request that never came, an RTR
# that never came, Requests its ULP was offered).
if [ "$VM_IDX" = 0 ]; then
	check trace-refused traced \
		"xiw_mpa_refused: initiator peer $PEER_IP:7480 err -110 term 0x0: no MPA Reply before the timeout"
	check trace-terminate traced "xiw_terminate: sent qp 0 peer $PEER_IP:7481 layer 2 type 0 code 0x6"
	check trace-agreed traced \
		"xiw_mpa_agreed: initiator peer $PEER_IP:7482 rev 2 crc 1 .* ird 1/2/2 ord 3/2/2"
	check trace-cm-events eval "traced 'xiw_cm_event: initiator peer $PEER_IP:7480 CONNECT_REPLY status -110' &&
		traced 'xiw_cm_event: initiator peer $PEER_IP:7482 CONNECT_REPLY status 0'"
	check trace-qp-states eval "traced 'xiw_qp_state: qp [0-9]+ RTR -> RTS' &&
		traced 'xiw_qp_state: qp [0-9]+ RTS -> SQD' &&
		traced 'xiw_qp_state: qp [0-9]+ RTR -> ERR'"
else
	check trace-refused eval "traced 'xiw_mpa_refused: responder peer $PEER_IP:[0-9]+ err -110 term 0x0: no MPA Request before the timeout' &&
		traced 'xiw_mpa_refused: responder peer $PEER_IP:[0-9]+ err -110 term 0x0: no RTR before the timeout'"
	check trace-cm-events traced "xiw_cm_event: responder peer $PEER_IP:[0-9]+ CONNECT_REQUEST status 0"
fi
echo 0 > $TR/events/xiw/enable
grep xiw_ $TR/trace | head -n 40

teardown() { rdma link delete xiw0 && rmmod xiw; }
check teardown teardown

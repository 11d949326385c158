# SPDX-License-Identifier: GPL-2.0
#
# A hostile peer (Documentation/security.rst), over real TCP.
#
# DDP/RDMAP (scripts/vm/ddp_peer.py plays the responder; VM 0's xiw
# connects with xiw_cmtest probe=1, which posts one receive, SENDs where
# 64 octets may be read and READs 64 octets):
#   interleave, interleave-complete: a SEND's segments with a READ's
#       Response segments between them; each lands by its own queue and
#       offset: the receive holds "A"*16 "B"*16, the READ's sink "R"*64.
#   short-response, gap-response: a Read Response that leaves the READ
#       short or skips octets ends the stream (TERMINATE 1/1/1); the READ
#       does not complete successfully.
#   ird0: the initiator offered IRD 0; a Read Request ends the stream
#       (TERMINATE 0/2/7) and nothing is read.
#   sendinv-bad-crc: a Send with Invalidate in an FPDU with a wrong CRC
#       is refused for its CRC (TERMINATE 2/0/2), before its STag is
#       looked at (one that cannot be invalidated would give 0/2/9).
#   after-terminate: a SEND right behind the peer's TERMINATE, in the same
#       TCP segment, is not placed: the receive is flushed.
#   stalled: the probe also WRITEs 1 MiB to a peer whose host drops all it
#       sends (tc), then the peer breaks a rule: xiw's QP goes to ERROR
#       with an FPDU half sent and its TERMINATE behind it, and the work
#       requests flush at once all the same (a drain must not wait for a
#       peer that does not read); once the peer's host lets segments in
#       again, the rest of that FPDU and the TERMINATE (0/2/6) arrive.
#       stalled-gather: the same with payload sent from the WRITE's own
#       pages (tx_payload=gather): xiw may not read them once the flush
#       gave them back, so it closes at once, without the TERMINATE.
#       Stock kernel only (about 20 s each).
#   send-too-long ... read-resp-bad-stag: one broken rule each (a SEND
#       too long, without a receive, on a bad queue; DDP and RDMAP
#       versions; an unknown opcode; WRITE, Read Request and Read Response
#       naming an STag nobody registered; a Read Response too long): the
#       TERMINATE the RFC names, nothing placed.
#   write-to-wrap ... short-ulpdu, read-resp-unsolicited, send-msn-repeat:
#       more broken rules (TO wraps, STag key octets, empty segments, MSN
#       and MO, Read Request layouts, DDP version and T flag, a ULPDU
#       shorter than its header, a response nobody asked for): each the
#       TERMINATE ddp_peer.py names; peer-terminate: the peer's own
#       TERMINATE flushes the probe, xiw answers nothing;
#       interleave-write: a WRITE between a SEND's segments lands by its
#       STag, the SEND's continuation in its receive.
#   log-terminate-sent, log-terminate-received: the TERMINATEs of
#       send-too-long and peer-terminate each left a log line with the
#       peer's address and the RFC's name for the error.
# Connection management (scripts/vm/mpa_peer.py against VM 1's xiw_cmtest
# server, which accepts from its CONNECT_REQUEST handler, on iw_cm's work
# queue, as nvmet-rdma does):
#   p2p-accept: a peer-to-peer Request whose RTR never comes must not hold
#       that queue: a client-server Request right after it is answered
#       within 12 s although the RTR timeout is 20 s; the lost connection
#       reaches the ULP as ESTABLISHED with an error status (est_failed).
#   p2p-first-*: a peer-to-peer initiator whose first FPDU is no RTR (a
#       100- or 1000-octet SEND) gets TERMINATE code 7, one whose RTR has a
#       wrong CRC code 2 (RFC 6581 section 9.2, RFC 5044 section 8); each
#       reaches the ULP as ESTABLISHED with an error status.
#   fin-before-accept: a client-server Request followed at once by the
#       peer's FIN, while the ULP takes 3 s to accept: the Reply goes
#       out, the ULP sees ESTABLISHED then DISCONNECTED, and xiw closes
#       the connection within 20 s (it stayed up, half closed, before).
#   half-open: 1000 connections (300 on the debug kernel) that send half
#       a Request and stop do not keep a real client's Request from its
#       Reply; xiw holds at most
#       mpa_max_half_open (100 here) of them at any time, closing the
#       oldest (cm_half_open_closed), and closes the rest at its Request
#       timeout (15 s here); its ULP hears only of the real one.
#   dropped-request: a ULP too slow for its listen backlog (1) makes
#       iw_cm drop CONNECT_REQUESTs: xiw closes those connections
#       (cm_req_dropped grows) and leaks no connection endpoint (xiw
#       unloads with none outliving its device).
#   listener-gone: the listener is destroyed (its ULP unloads) while
#       Requests wait behind a slow CONNECT_REQUEST handler; iw_cm drops
#       those events. Every connection still ends (here at the 5 s ULP
#       timeout), and none of their endpoints outlives xiw's device.
#   stale-request: a connection xiw ended (its 1 s ULP timeout) while
#       its ULP still sat on the CONNECT_REQUEST, and a second Request
#       to the same listener meanwhile: the ULP's late accept of the
#       first must not take the second (iw_cm names a connection by a
#       handle, which was handed out again at once); the second is
#       answered when its own CONNECT_REQUEST is accepted (est_req=2).
. "$XIW_TOP/scripts/vm/lib.sh"

P=/sys/module/xiw/parameters
R=/sys/module/xiw_cmtest/parameters/result
DDP="python3 $XIW_TOP/scripts/vm/ddp_peer.py"
MPA="python3 $XIW_TOP/scripts/vm/mpa_peer.py"

# ddp_peer.py plays the client-server model only.
setup() {
	load_xiw && modprobe rdma_cm && rdma link add xiw0 type xiw netdev eth0 &&
	echo Y > $P/mpa_log && echo N > $P/mpa_peer_to_peer &&
	retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
# make check's debug-kernel boot (DEPTH=quick) runs the DDP cases whose
# octets reach xiw's placement and completion code (where KASAN matters);
# those refused from the headers or an STag lookup alone (queue, MSN,
# versions, opcode, unknown STags) run on the stock kernel, and
# everywhere in check-full. Every connection-management case runs on both.
QUICK='interleave|interleave-complete|short-response|gap-response|ird0|sendinv-bad-crc'
QUICK="$QUICK|after-terminate|send-too-long|read-resp-too-long"
QUICK="$QUICK|interleave-write|read-resp-unsolicited|send-continuation-too-long"
QUICK="$QUICK|log-terminate-sent"

# Established connections to PORT (ss fails: no number, the test fails).
estab() { n=$(ss -Htn state established "dport = :$1") && echo "$n" | grep -c .; }

# ddp CASE PORT PROBE_PARAMS EXPECT: VM 1 plays CASE, VM 0's probe must
# report EXPECT (a regular expression). VM 1's one `ddp_peer.py serve`
# (started below) plays every case but the stalled ones, which start a
# peer of their own.
ddp() {
	c=$1 port=$2 params=$3 expect=$4
	at_depth "$c" || return 0
	if [ "$VM_IDX" = 1 ]; then
		case $c in
		stalled*)
			rm -f "$OUT/ready-$c"
			$DDP "$c" "$port" "$OUT/ready-$c" > "$OUT/ddp-$c.txt" 2>&1 &
			peer=$!
			retry 30 test -e "$OUT/ready-$c"
			barrier "$c-listen" 60
			check "$c-peer" wait $peer
			cat "$OUT/ddp-$c.txt"
			;;
		*)
			barrier "$c-listen" 60
			check "$c-peer" peer_passed "$c"
			cat "$SERVED/ddp-$c.txt"
			;;
		esac
		case $c in stalled*) barrier "$c-peer-done" 120 ;; esac
	else
		barrier "$c-listen" 60
		case $c in stalled*) { sleep 2.5; ss -tinmo "dport = :$port" > "$OUT/ss-$c.txt" 2>&1; } & ;; esac
		load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port="$port" probe=1 $params
		cat $R
		check "$c" grep -qE "$expect" $R
		# Connected still (copy: the TERMINATE waits for the peer) or
		# gone (gather: pages given back may not be read); the QP stays
		# until the peer has seen which.
		case $c in
		stalled) check "$c-still-connected" test "$(estab "$port")" = 1 ;;
		stalled-gather) check "$c-closed-at-once" test "$(estab "$port")" = 0 ;;
		esac
		case $c in stalled*) barrier "$c-peer-done" 120 ;; esac
		rmmod xiw_cmtest
	fi
	barrier "$c-done" 120
}

# peer_passed CASE: the server's verdict on CASE, once it has one (its
# initiator may take up to LIMIT, 30 s, to come); none if it is gone.
# The first case's wait also covers the set-up barrier.
peer_passed() {
	_left=300
	while [ ! -e "$SERVED/rc-$1" ]; do
		kill -0 "$server" 2>/dev/null || { echo "ddp_peer.py serve is gone"; return 1; }
		_left=$((_left - 1))
		[ $_left -gt 0 ] || return 1
		sleep 0.2
	done
	[ "$(cat "$SERVED/rc-$1")" = 0 ]
}

# ddp_cases F: calls F CASE PORT PROBE_PARAMS EXPECT for each case served
# by one peer, in the order they run.
ddp_cases() {
	$1 interleave 7490 "" 'probe send=0 recv=0:32:A16B16 read=0:R64( |$)'
	$1 interleave-complete 7491 "" 'probe send=0 recv=0:32:A16B16 read=0:R64( |$)'
	$1 short-response 7492 "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
	$1 gap-response 7493 "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
	$1 ird0 7494 "ird=0" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
	$1 sendinv-bad-crc 7497 "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
	$1 after-terminate 7498 "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
	# Broken rules of RFC 5041 and RFC 5040 (ddp_peer.py names the
	# TERMINATE each must get): the stream ends, the receive and the READ
	# are flushed.
	port=7510
	for c in send-too-long send-no-buffer bad-qn bad-ddp-version bad-rdmap-version \
		bad-opcode write-bad-stag read-req-bad-stag read-resp-too-long read-resp-bad-stag; do
		$1 "$c" $port "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
		port=$((port + 1))
	done
	# More of them (write-to-wrap ... short-ulpdu): every TERMINATE code
	# the stream can produce, tagged and untagged, as ddp_peer.py lists
	# them.
	port=7520
	for c in write-to-wrap read-req-to-wrap write-wrong-key read-req-wrong-key \
		read-resp-wrong-key write-empty-bad-stag bad-mo send-empty-not-last \
		send-continuation-too-long sendinv-cannot read-req-bad-msn \
		read-req-payload read-req-not-last read-req-on-send-queue \
		tagged-bad-ddp-version tagged-send short-ulpdu peer-terminate; do
		$1 "$c" $port "" 'probe send=0 recv=[1-9][0-9]*:0: read=[1-9][0-9]*:'
		port=$((port + 1))
	done
	$1 read-resp-unsolicited 7540 "" 'probe send=0 recv=[1-9][0-9]*:0: read=0:R64( |$)'
	$1 send-msn-repeat 7541 "" 'probe send=0 recv=0:16:A16 read=[1-9][0-9]*:'
	$1 interleave-write 7542 "" 'probe send=0 recv=0:32:A16B16 read=0:R64( |$)'
}

# VM 1: one peer for every case this boot runs (in_depth: at_depth
# records the skipped ones when ddp meets them).
served() { in_depth "$1" && SERVE="$SERVE $1:$2"; }
SERVED=$OUT/served
if [ "$VM_IDX" = 1 ]; then
	SERVE=
	ddp_cases served
	rm -rf "$SERVED" && mkdir -p "$SERVED"
	$DDP serve "$SERVED" $SERVE > "$OUT/ddp-serve.txt" 2>&1 &
	server=$!
fi
# The peer's python starts (tens of seconds on the debug kernel) while
# xiw loads.
check setup setup || exit 1
if [ "$VM_IDX" = 1 ]; then
	check ddp-peer-listening wait_file "$SERVED/ready" 60
fi
barrier setup || exit 1
ddp_cases ddp
if [ "$VM_IDX" = 1 ]; then
	check ddp-peer-exit wait $server
	cat "$OUT/ddp-serve.txt"
fi

# Every TERMINATE has its log line (Documentation/admin-guide.rst,
# Logging): the one xiw sent for send-too-long (port 7510) and the one
# it received in peer-terminate (7537), each with the peer's address and
# the RFC's name.
logged() { grep -F "peer $PEER_IP:$1: TERMINATE $2" "$OUT/dmesg-term.txt"; }
if [ "$VM_IDX" = 0 ]; then
	dmesg > "$OUT/dmesg-term.txt"
	if at_depth log-terminate-sent; then
		check log-terminate-sent logged 7510 \
			"sent: layer 1 type 2 code 0x5: DDP untagged: message too long for available buffer"
	fi
	if at_depth log-terminate-received; then
		check log-terminate-received logged 7537 \
			"received: layer 0 type 2 code 0x5: RDMAP invalid RDMAP version"
	fi
fi

# A peer whose host stops taking what xiw sends. Flushed (status 5)
# within the probe's 4 s, while the peer reads nothing.
ddp stalled 7502 "probe_flood=1024" 'probe send=0 recv=5:0: read=5:[^ ]* write=5( |$)'
[ "$VM_IDX" = 0 ] && echo gather > $P/tx_payload
ddp stalled-gather 7503 "probe_flood=1024" 'probe send=0 recv=5:0: read=5:[^ ]* write=5( |$)'
[ "$VM_IDX" = 0 ] && echo zero-copy > $P/tx_payload

# Peer-to-peer accept on iw_cm's queue.
if [ "$VM_IDX" = 1 ]; then
	echo 20000 > $P/mpa_rtr_timeout_ms
	load_module "$XIW_CMTEST_KO" role=server port=7495
	barrier p2p-listen 60
	barrier p2p-done 120
	# The lost one: ESTABLISHED with an error once the RTR timeout ran out.
	check p2p-accept-lost-reported retry 40 grep -q 'est_failed=1 ' $R
	cat $R
	check p2p-accept-served grep -q '^requests=2 established=1 ' $R
	rmmod xiw_cmtest
else
	barrier p2p-listen 60
	rm -f "$OUT/no-rtr-replied"
	MIN=10 LIMIT=60 $MPA no-rtr "$PEER_IP" 7495 "$OUT/no-rtr-replied" > "$OUT/no-rtr.txt" 2>&1 &
	peer=$!
	# The second client only once the first was accepted and waits.
	retry 30 test -e "$OUT/no-rtr-replied"
	check p2p-accept-not-blocking env LIMIT=12 $MPA big-client "$PEER_IP" 7495 0 4 4
	check p2p-accept-rtr-peer wait $peer
	cat "$OUT/no-rtr.txt"
	barrier p2p-done 120
fi

# A peer that sends its Request and closes its side at once, while a slow
# ULP (3 s) has yet to accept: the Reply still goes out, the ULP sees the
# connection established and then disconnected, and xiw closes it (it
# used to stay up, half closed, until the ULP dropped it).
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7504 req_delay_ms=3000
	barrier fin-listen 60
	barrier fin-done 120
	cat $R
	check fin-before-accept-disconnected retry 20 grep -q '^requests=1 established=1 disconnected=1 ' $R
	rmmod xiw_cmtest
else
	barrier fin-listen 60
	check fin-before-accept env LIMIT=20 $MPA fin-request "$PEER_IP" 7504
	barrier fin-done 120
fi

# A ULP that rejects a connection it has just accepted (iw_cm allows it
# until ESTABLISHED, so while a peer-to-peer accept waits for the RTR):
# the connection closes at once (well within the 20 s RTR timeout still
# in force), and nothing else happens (no event after the reject, no
# reference dropped twice: kernel-log and KASAN).
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7499 reject_after_accept=1
	barrier rej-listen 60
	barrier rej-done 120
	cat $R
	check reject-after-accept grep -q '^requests=1 established=0 disconnected=0 rejected=1 est_failed=0 ' $R
	rmmod xiw_cmtest
	echo 2000 > $P/mpa_rtr_timeout_ms
else
	barrier rej-listen 60
	check reject-after-accept-closed env LIMIT=5 $MPA no-rtr "$PEER_IP" 7499
	barrier rej-done 120
fi

# A first FPDU that is no RTR.
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7500
	barrier first-listen 60
	barrier first-done 120
	check p2p-first-reported retry 10 grep -q '^requests=3 established=0 .*est_failed=3 ' $R
	cat $R
	rmmod xiw_cmtest
else
	barrier first-listen 60
	for k in send100 send1000 bad-crc; do
		check p2p-first-$k env LIMIT=10 $MPA p2p-first "$PEER_IP" 7500 $k
	done
	barrier first-done 120
fi

# Half-open MPA connections. The listen backlog holds them all: with a
# short one TCP itself drops the surplus (SYN cookies), which is the
# kernel's defence, not xiw's, and those never reach xiw.
half_open_left() {	# none of them still established on xiw's side
	left=$(ss -Htn state established '( sport = :7501 )') || return 1
	[ -z "$left" ] || { echo "$left" | head -n 5; return 1; }
}
# The Request timeout (15 s) outlasts opening them all on the debug kernel,
# where 300 take the same paths as the stock kernel's 1000 (each past the
# 100th closing the oldest) in a third of the time.
HALF_OPEN=1000
[ "$KERNEL_KIND" = debug ] && HALF_OPEN=300
if [ "$VM_IDX" = 1 ]; then
	echo 15000 > $P/mpa_request_timeout_ms
	echo 100 > $P/mpa_max_half_open
	at cm_half_open_closed
	load_module "$XIW_CMTEST_KO" role=server port=7501 backlog=1024
	barrier half-listen 60
	barrier half-done 300
	cat $R
	check half-open-one-request grep -q '^requests=1 ' $R
	# Each connection past the 100th closed the oldest on arrival.
	check half-open-oldest-closed grew cm_half_open_closed $((HALF_OPEN - 100))
	check half-open-none-left half_open_left
	rmmod xiw_cmtest
	echo 10000 > $P/mpa_request_timeout_ms
	echo 1024 > $P/mpa_max_half_open
else
	barrier half-listen 60
	check half-open env LIMIT=60 $MPA half-open "$PEER_IP" 7501 $HALF_OPEN
	barrier half-done 300
fi

# A listen backlog that overflows.
if [ "$VM_IDX" = 1 ]; then
	load_module "$XIW_CMTEST_KO" role=server port=7496 backlog=1 req_delay_ms=3000
	at cm_req_dropped
	barrier drop-listen 60
	barrier drop-done 120
	check dropped-request-counted grew cm_req_dropped 1
	rmmod xiw_cmtest
else
	barrier drop-listen 60
	# Each connection ends: answered, or closed by xiw (none left open).
	check dropped-request-closed env LIMIT=20 $MPA request-clients "$PEER_IP" 7496 5 \
		> "$OUT/drop.txt" 2>&1
	cat "$OUT/drop.txt"
	check dropped-request-some-closed grep -q 'closed without a Reply' "$OUT/drop.txt"
	barrier drop-done 120
fi

# The listener goes while Requests wait in iw_cm.
if [ "$VM_IDX" = 1 ]; then
	echo 5000 > $P/mpa_ulp_timeout_ms
	load_module "$XIW_CMTEST_KO" role=server port=7497 req_delay_ms=3000
	barrier gone-listen 60
	barrier gone-sent 60
	sleep 1
	# Waits for the handler asleep on the first Request.
	check listener-gone-unload rmmod xiw_cmtest
	barrier gone-done 120
	echo 60000 > $P/mpa_ulp_timeout_ms
else
	barrier gone-listen 60
	rm -f "$OUT/gone-sent"
	env LIMIT=25 $MPA request-clients "$PEER_IP" 7497 4 "$OUT/gone-sent" > "$OUT/gone.txt" 2>&1 &
	peer=$!
	# The listener goes only once every Request is on its way (a Python
	# start alone can take seconds on the debug kernel).
	retry 30 test -e "$OUT/gone-sent"
	barrier gone-sent 60
	check listener-gone-closed wait $peer
	cat "$OUT/gone.txt"
	barrier gone-done 120
fi

# A Request outlived by its connection: see stale-request above. The ULP
# timeout is read when a connection starts, so the first connection has
# 1 s and the second the default again.
if [ "$VM_IDX" = 1 ]; then
	echo 1000 > $P/mpa_ulp_timeout_ms
	load_module "$XIW_CMTEST_KO" role=server port=7495 req_delay_ms=6000
	barrier stale-listen 60
	barrier stale-first 60
	sleep 2
	echo 60000 > $P/mpa_ulp_timeout_ms
	barrier stale-second 60
	barrier stale-done 120
	cat $R
	check stale-request-not-taken retry 20 grep -q '^requests=2 established=1 .* est_req=2$' $R
	rmmod xiw_cmtest
else
	barrier stale-listen 60
	check stale-request-first $MPA request-close "$PEER_IP" 7495
	barrier stale-first 60
	barrier stale-second 60
	env LIMIT=30 $MPA request-clients "$PEER_IP" 7495 1 > "$OUT/stale.txt" 2>&1
	cat "$OUT/stale.txt"
	check stale-request-second-answered grep -q 'Reply seen' "$OUT/stale.txt"
	barrier stale-done 120
fi

teardown() { rdma link delete xiw0 && rmmod xiw; }
check teardown teardown
no_endpoint_outlived() { dmesg > "$OUT/dmesg-end.txt" && ! grep -q 'outlived their device' "$OUT/dmesg-end.txt"; }
check no-endpoint-outlived no_endpoint_outlived

# SPDX-License-Identifier: GPL-2.0
#
# xiw to xiw connection setup through rdma_cm and iw_cm, in two VMs: VM 1
# listens (testmod/xiw_cmtest.ko role=server), VM 0 connects. Each case
# sets xiw's MPA parameters on both sides, connects once and checks what
# each ULP saw (the test module's "result") and what MPA agreed (xiw's
# mpa_log line "rev R crc C markers S/R p2p P rtr T ird I ord O gso G"). Every
# connection that is established then carries data in that MPA mode: the
# client's SEND echo and RDMA WRITE/READ checks (xiw_cmtest data=1), and
# in two cases the FRWR and remote invalidation checks (frwr=1), and in
# one the server's receives come from a shared receive queue (srq=1).
. "$XIW_TOP/scripts/vm/lib.sh"

SERVER=1
PORT=7471
P=/sys/module/xiw/parameters
R=/sys/module/xiw_cmtest/parameters/result

setup() {
	load_xiw && modprobe rdma_cm && rdma link add xiw0 type xiw netdev eth0 &&
	echo Y > /sys/module/xiw/parameters/mpa_log &&
	{ [ ! -e /proc/dynamic_debug/control ] ||
	  echo 'module xiw +p' > /proc/dynamic_debug/control; }
}
check setup setup || exit 1
barrier setup || exit 1

defaults() {
	echo 2 > $P/mpa_rev && echo required > $P/mpa_crc && echo accept > $P/mpa_markers &&
	echo N > $P/mpa_peer_to_peer && echo Y > $P/mpa_rtr_send &&
	echo Y > $P/mpa_rtr_write && echo Y > $P/mpa_rtr_read && echo 0 > $P/fault_tx_crc &&
	echo 0 > $P/fault_tx_marker && echo 0 > $P/fault_connect_delay_ms &&
	echo Y > $P/mpa_retry_unenhanced && echo N > $P/mpa_gso &&
	echo zero-copy > $P/tx_payload
}

# The kernel log since this case began. The log is never cleared: the
# harness scans all of it (KUnit's KTAP, WARNs) after the run. case_snap
# keeps it in the case's file once its connection is over, for the checks
# that read what was logged by then (on the debug kernel each pass over
# the whole log costs a second).
case_mark() { echo "xiw-test: case $tc" > /dev/kmsg; }
case_log() { dmesg | sed -n "/xiw-test: case $tc\$/,\$p"; }
case_snap() { CASE_FILE=$OUT/dmesg-$tc-$1.txt; case_log > "$CASE_FILE"; }

# agreed ROLE PATTERN: the last MPA line of ROLE in the case's file
# matches PATTERN.
agreed() {
	grep "xiw: $1: rev" "$CASE_FILE" | tail -n 1 | tee /dev/stderr | grep -qE "$2"
}

# run NAME "client params" "server params" "client args" CLIENT_RE SERVER_RE [CLIENT_MPA SERVER_MPA]
# CM_CASES (a regular expression) narrows the run while debugging.
want() {
	case "$1" in *-error) [ "${CM_SPOILED:-Y}" = Y ] || return 1 ;; esac
	echo "$1" | grep -qE "^(${CM_CASES:-.*})$"
}
# make check's debug-kernel boot (DEPTH=quick) runs one case per code path
# that KASAN and lockdep should see: remote invalidation and FRWR, the
# fence, the Rev 1 retry (a second socket), SRQ with Markers (CRC off is
# marker-error's), zero-copy and gathered payload, an RTR, a refusal by
# TERMINATE and one by reject, and the early receive; and both spoiled-FPDU cases, which only this boot
# runs (the stock boot's network is captured). The variations of these
# (one-sided offers, other RTR types, IRD/ORD, private data sizes) run on
# the stock kernel, and all of them in check-full.
QUICK='cs-rev2|fence|retry-unenhanced|markers-both|gso|gather|p2p-read'
QUICK="$QUICK|late-event|crc-error|marker-error|reject"

# RFC 5044 section 8 over real TCP: the client spoils an FPDU on purpose
# (a test aid parameter). The server must refuse it with a TERMINATE of
# layer 2 (LLP), type 0 (MPA) and the code the RFC names, and the client
# must receive exactly that; the fault was used once.
mpa_error_checks() {	# ROLE CODE PARAMETER
	if [ "$1" = responder ]; then
		check "$tc-server-terminate" grep -q \
			"TERMINATE sent: layer 2 type 0 code 0x$2: MPA: " "$CASE_FILE"
		check "$tc-server-counters" grew tx_terminate 1
	else
		check "$tc-client-terminate" retry 10 eval "case_log |
			grep -q 'TERMINATE received: layer 2 type 0 code 0x$2'"
		check "$tc-client-counters" grew rx_terminate 1
		check "$tc-fault-used" grep -qx 0 $P/$3
	fi
}

# RFC 6581 section 9.1 (TERM code 5): the client refuses the Markers the
# server's Reply demands, a local error without a code of its own. It
# sends a TERMINATE with code 5 before the close, and the server gets it.
term5_checks() {
	if [ "$1" = responder ]; then
		check "$tc-server-terminate" retry 10 eval "case_log |
			grep -q 'TERMINATE received: layer 2 type 0 code 0x5'"
		check "$tc-server-counters" grew rx_terminate 1
	else
		check "$tc-client-counters" grew tx_terminate 1
	fi
}

# RFC 6581 section 10: the client's enhanced Request met a close, and it
# tried again with Rev 1.
retry_checks() {
	[ "$1" = responder ] ||
		check "$tc-client-retried" grep -q "retrying with Rev 1" "$CASE_FILE"
}

# GSO-sized FPDUs: where both offered them, each side sent FPDUs longer
# than one TCP segment (its SENDs, WRITEs and Read Responses); where one
# did, none.
gso_checks() {	# ROLE YES|NO
	if [ "$2" = YES ]; then
		check "$tc-$1-gso-fpdus" grew tx_gso_fpdu 1
	else
		check "$tc-$1-no-gso-fpdus" stayed tx_gso_fpdu
	fi
}

# How payload reaches TCP (tx_payload): by default TCP sends the pages of
# GSO-sized FPDUs itself (zero-copy) and copies the rest; gathered from
# where it lies; or always copied into the FPDU buffer first. Both sides
# send data: the client its SENDs and WRITEs, the server its echoes and
# Read Responses.
payload_checks() {	# ROLE gather|copy|zero-copy
	case $2 in
	gather) check "$tc-$1-gathered" grew tx_gather_fpdu 1 ;;
	copy) check "$tc-$1-copied" eval 'stayed tx_gather_fpdu && stayed tx_zcopy_msg' ;;
	zero-copy)
		if zc_built; then
			check "$tc-$1-zero-copy" grew tx_zcopy_msg 1
		else	# 6.1: built out, the same traffic copied
			check "$tc-$1-copied" stayed tx_zcopy_msg
		fi ;;
	esac
}

# A refused connection leaves one line naming who refused it
# (Documentation/admin-guide.rst, Logging).
reject_checks() {
	if [ "$1" = responder ]; then
		check "$tc-server-logged" grep -q \
			"xiw: responder peer $PEER_IP:[0-9]*: connection refused: the ULP rejected the MPA Request" \
			"$CASE_FILE"
	else
		check "$tc-client-logged" retry 10 eval "case_log | grep -q \
			'xiw: initiator peer $PEER_IP:$PORT: connection refused: the peer rejected the MPA Request'"
	fi
}

# case_checks ROLE: what some cases check beyond the ULP's results.
case_checks() {
	case "$tc" in
	gather) payload_checks "$1" gather ;;
	copy) payload_checks "$1" copy ;;
	gso) gso_checks "$1" YES; payload_checks "$1" zero-copy ;;
	gso-one-side) gso_checks "$1" NO ;;
	crc-error) mpa_error_checks "$1" 2 fault_tx_crc ;;
	marker-error) mpa_error_checks "$1" 3 fault_tx_marker ;;
	retry-unenhanced) retry_checks "$1" ;;
	markers-refused) term5_checks "$1" ;;
	reject) reject_checks "$1" ;;
	esac
}

run() {
	# A case left out (CM_CASES, or spoiled frames where the network is
	# captured) is counted as skipped, never silently dropped.
	want "$1" || { echo "SKIP $TEST/$1" >> "$OUT/results"; SERVER_ARGS=; return 0; }
	at_depth "$1" || { SERVER_ARGS=; return 0; }
	tc=$1 cset=$2 sset=$3 cargs=$4 cre=$5 sre=$6 cmpa=${7:-} smpa=${8:-}
	defaults
	at rx_send_inv tx_send_inv read_inv reg_mr rx_terminate tx_terminate tx_gso_fpdu \
		tx_gather_fpdu tx_zcopy_msg
	if [ "$VM_IDX" = "$SERVER" ]; then
		eval "$sset"
		case_mark
		load_module "$XIW_CMTEST_KO" role=server port=$PORT $SERVER_ARGS || true
		barrier "$tc-listen" 60
		barrier "$tc-done" 120
		sleep 1
		case_snap server
		# The server's own events may still be on their way when the
		# client is done (late-event holds ESTABLISHED back 2 s, and
		# its accept with it): wait up to 5 s for what is expected.
		check "$tc-server" retry 5 grep -qE "$sre" $R
		cat $R
		[ -z "$smpa" ] || check "$tc-server-mpa" agreed responder "$smpa"
		# FRWR: the first Send with Invalidate went out, and the
		# client refused the WRITE to its invalidated STag with a
		# TERMINATE (which may stop the second Send before it leaves).
		case " $cargs " in *" frwr=1 "*)
			check "$tc-server-counters" eval 'grew tx_send_inv 1 && grew rx_terminate 1'
		esac
		# SRQ: the first receive crossed the limit, once; the QP in
		# ERROR said it takes no more (after the CM's events).
		case " $SERVER_ARGS " in *" srq=1 "*)
			check "$tc-server-srq" retry 10 grep -q 'srq_limit=1 last_wqe=1' \
				/sys/module/xiw_cmtest/parameters/srq_events
			cat /sys/module/xiw_cmtest/parameters/srq_events
		esac
		case_checks responder
		rmmod xiw_cmtest
	else
		eval "$cset"
		case_mark
		barrier "$tc-listen" 60
		load_module "$XIW_CMTEST_KO" role=client addr="$PEER_IP" port=$PORT $CMT_DATA $cargs
		case_snap client
		check "$tc-client" grep -qE "$cre" $R
		cat $R
		case "$cre" in *data=fail*) ;; *)
			! grep -q '^established' $R ||
				check "$tc-data" grep -q "$CMT_DATA_OK" $R
		esac
		case " $cargs " in *" frwr=1 "*)
			check "$tc-frwr" grep -q 'frwr=ok' $R
			# One READ_WITH_INV and one Send with Invalidate took
			# effect; the second Send's TERMINATE went out.
			check "$tc-client-counters" eval 'grew read_inv 1 && grew rx_send_inv 1 &&
				grew reg_mr 2 && grew tx_terminate 1'
		esac
		[ -z "$cmpa" ] || check "$tc-client-mpa" agreed initiator "$cmpa"
		case_checks initiator
		rmmod xiw_cmtest
		barrier "$tc-done" 120
	fi
	SERVER_ARGS=
}

run cs-rev2 "" "" "pd_len=16 ird=4 ord=4 frwr=1" \
	'^established ird=4 ord=4 pd_len=16 pd_ok=1' \
	'requests=1 established=1 .*pd_len=16 pd_ok=1 ird=4 ord=4' \
	'rev 2 crc 1 markers 0/0 p2p 0' 'rev 2 crc 1 markers 0/0 p2p 0'
# MPA fencing (RFC 5044 section 7.1.2): the server's ULP posts a SEND the
# moment the connection is up; it must not leave before the client's
# first FPDU. The client (hello=1) sees nothing arrive for 2 s, then HELO
# after its own first SEND; where the network is captured, the wire check
# sees the order too.
SERVER_ARGS=hello=1
run fence "" "" "hello=1" '^established .*hello=ok' 'requests=1 established=1'
# IRD and ORD that differ (RFC 6581 section 9.1): the client offers IRD 1,
# ORD 3; the server's ULP accepts with IRD 2, ORD 1, and xiw raises that
# IRD to the client's ORD (resources allow it). Each ULP's ESTABLISHED and
# each QP get what was agreed, in their own sense (rdma_cm:
# responder_resources is the IRD), not what its ULP asked for.
# (timeouts.sh's depths case has the Reply change the client's values.)
SERVER_ARGS="ird=2 ord=1"
run depths "" "" "ird=1 ord=3" \
	'^established ird=1 ord=3 ' 'requests=1 established=1 .*est_ird=3 est_ord=1 .*ird=3 ord=1 ' \
	'p2p 0 .* ird 1 ord 3 ' 'p2p 0 .* ird 3 ord 1 '
run cs-rev1 "echo 1 > $P/mpa_rev" "" "pd_len=100" \
	'^established .*pd_len=16 pd_ok=1' 'requests=1 established=1 .*pd_len=100 pd_ok=1' \
	'rev 1 crc 1' 'rev 1 crc 1'
# An RFC 5044-only server closes on an enhanced Request (RFC 6581 section
# 10): the client retries with Rev 1 (mpa_retry_unenhanced, the default),
# or reports the failure when that is off; the server's ULP never sees the
# enhanced attempt.
run retry-unenhanced "" "echo 1 > $P/mpa_rev" "" \
	'^established' 'requests=1 established=1' 'rev 1 crc 1' 'rev 1 crc 1'
run no-retry "echo N > $P/mpa_retry_unenhanced" "echo 1 > $P/mpa_rev" "" \
	'^rejected status=-104 ' 'requests=0 established=0'
# The server's receives come from a shared receive queue here (and in
# markers-both, which the debug boot runs).
SERVER_ARGS=srq=1
run crc-off "echo suppress > $P/mpa_crc" "echo suppress > $P/mpa_crc" "" \
	'^established' 'established=1' 'crc 0' 'crc 0'
run crc-one-side "echo suppress > $P/mpa_crc" "" "" \
	'^established' 'established=1' 'crc 1' 'crc 1'
SERVER_ARGS=srq=1
run markers-both "echo require > $P/mpa_markers" "echo require > $P/mpa_markers" "frwr=1" \
	'^established' 'established=1' 'markers 1/1' 'markers 1/1'
run markers-to-client "echo require > $P/mpa_markers" "" "" \
	'^established' 'established=1' 'markers 0/1' 'markers 1/0'
run markers-refused "echo refuse > $P/mpa_markers" "echo require > $P/mpa_markers" "" \
	'^error=' 'requests=1 '
# GSO-sized FPDUs (mpa_gso, a reserved MPA bit): used only when both offer;
# then their pages go zero-copy (tx_payload's default).
run gso "echo Y > $P/mpa_gso" "echo Y > $P/mpa_gso" "" \
	'^established' 'established=1' 'crc 1 .* gso 1' 'crc 1 .* gso 1'
run gso-one-side "echo Y > $P/mpa_gso" "" "" \
	'^established' 'established=1' 'gso 0' 'gso 0'
# Payload gathered from where it lies, or copied into the FPDU buffer
# even where the FPDUs are GSO-sized (tx_payload).
run gather "echo gather > $P/tx_payload" "echo gather > $P/tx_payload" "" \
	'^established' 'established=1'
run copy "echo copy > $P/tx_payload; echo Y > $P/mpa_gso" \
	"echo copy > $P/tx_payload; echo Y > $P/mpa_gso" "" '^established' 'established=1'
# Each RTR type alone on both sides (RFC 6581 control flags B, C, D).
for t in send:0x2 write:0x4 read:0x8; do
	only="for x in send write read; do [ \$x = ${t%:*} ] || echo N > $P/mpa_rtr_\$x; done"
	run p2p-${t%:*} "echo Y > $P/mpa_peer_to_peer; $only" "$only" "" \
		'^established' 'requests=1 established=1' "p2p 1 rtr ${t#*:} " "p2p 1 rtr ${t#*:} "
done
run p2p-no-match "echo Y > $P/mpa_peer_to_peer; echo N > $P/mpa_rtr_write; echo N > $P/mpa_rtr_read" \
	"echo N > $P/mpa_rtr_send; echo N > $P/mpa_rtr_write" "" \
	'^error=' 'requests=1 established=0'
# A receive may complete before the responder's ULP hears ESTABLISHED
# (held back 2 s here by a test aid): the echo the ULP posts from that
# completion must be taken, since the QP is in RTS before the first octet
# is placed. The client's data checks carry it.
run late-event "" "echo 2000 > $P/fault_connect_delay_ms" "" \
	'^established' 'requests=1 established=1'
# The most private data rdma_cm can carry (its length is 8 bits wide
# there): 255 octets for the ULP, 259 on the wire with the RFC 6581 prefix.
# Code 2: the client's first FPDU carries a wrong CRC. Code 3: with CRC
# off, Markers towards the server, the first Marker's FPDUPTR is wrong.
# Not while the network is captured (run.sh --pcap): the capture's checks
# (scripts/wire/check.sh) demand good CRCs and Markers throughout.
[ "${CAPTURED:-0}" = 1 ] && CM_SPOILED=N
run crc-error "echo 1 > $P/fault_tx_crc" "" "" \
	'^established .*data=fail' 'requests=1 established=1'
run marker-error "echo suppress > $P/mpa_crc; echo 1 > $P/fault_tx_marker" \
	"echo suppress > $P/mpa_crc; echo require > $P/mpa_markers" "" \
	'^established .*data=fail' 'requests=1 established=1' 'crc 0 markers 1/0' 'crc 0 markers 0/1'
SERVER_ARGS=pd_len=255
run pd-255 "" "" "pd_len=255" \
	'^established .*pd_len=255 pd_ok=1' 'requests=1 established=1 .*pd_len=255 pd_ok=1'
SERVER_ARGS=reject=1
run reject "" "" "pd_len=40" \
	'^rejected status=-111 pd_len=16 pd_ok=1' 'requests=1 established=0 .*rejected=1'

teardown() { rdma link delete xiw0 && rmmod xiw; }
check teardown teardown

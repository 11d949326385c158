# SPDX-License-Identifier: GPL-2.0
#
# Teardown under traffic. userspace-tests/rdma/xiw_churn.c serves on VM 1
# and connects from VM 0, ROUNDS rounds, one connection each. Both sides
# keep 64 KiB RDMA WRITEs and READs in flight against each other's buffer,
# with GSO-sized FPDUs (mpa_gso), so each side sends zero-copy WRITEs and
# Read Responses while the other's Read Requests arrive. Each round ends
# its connection one way, in turn: VM 0's process is killed (SIGKILL),
# destroys its QP then its cm_id, or disconnects; or VM 1's server
# disconnects, or destroys its QP and cm_id, while VM 0 goes on posting
# (VM 1 ends it the time VM 0 chose after it came up); or VM 0 posts only
# 512 KiB READs (read-flood) and VM 1 disconnects as before: VM 1's post
# calls must return and its work requests complete meanwhile (a poster
# held in its post call by the peer's READs: Documentation/security.rst).
# Every work request must complete exactly once where a QP is left to
# complete it, DISCONNECTED must come, within 30 s, and every round must
# connect (the listener keeps serving through all of it).
# Meanwhile a bystander connection between the same VMs (rping -V, every
# ping checked) must carry on through all rounds.
# Afterwards: zero-copy messages were sent and Read Requests served on
# both sides, VM 1 sent no TERMINATE (its peer broke no rule; this is the
# check that found an IRD slot given back only after its Read Response's
# last octets were in TCP, by when the next Read Request could already
# have arrived and been refused), no QP is left, and the harness's
# kernel-log case (with KASAN, lockdep and kmemleak on the debug kernel)
# finds nothing.
. "$XIW_TOP/scripts/vm/lib.sh"

QUICK='rounds-6'
ROUNDS=6
at_depth rounds-30 && ROUNDS=30
# To chase a rare fault: one way of ending, many rounds (run.sh).
[ -n "$CHURN_ROUNDS" ] && ROUNDS=$CHURN_ROUNDS
# A connection that does not end in time: its sockets, cm_ids and QPs,
# TCP's resets, xiw's counters, the tasks blocked (in the kernel log) and
# the trace (below), while it is still there.
HANG_DIAG='rdma -dd resource show cq; ss -tanie; nstat -az TcpExtTCPChallengeACK TcpExtTCPAbortOnData TcpOutRsts; rdma -dd resource show cm_id; rdma -dd resource show qp; grep -v "^0$" /sys/class/infiniband/xiw0/ports/1/hw_counters/* | tr "\n" " "; echo; echo w > /proc/sysrq-trigger; tail -n 400 /sys/kernel/tracing/trace'

setup() {
	load_xiw mpa_gso=Y mpa_log=Y && modprobe rdma_ucm &&
	rdma link add xiw0 type xiw netdev eth0 &&
	retry 10 ibv_devices | grep -q xiw0 && retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
check setup setup || exit 1
barrier setup || exit 1
# xiw's events and TCP's resets and state changes traced, for HANG_DIAG:
# a few lines a connection. (This showed a peer-disconnect round's close
# coming 32 s late, Documentation/security.rst.)
TRACED='xiw tcp/tcp_receive_reset tcp/tcp_send_reset sock/inet_sock_set_state'
[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing
echo 8192 > /sys/kernel/tracing/buffer_size_kb
for e in $TRACED; do
	echo 1 > /sys/kernel/tracing/events/$e/enable
done

qps() { rdma resource show qp link xiw0/1 2>/dev/null | grep -c 'lqpn'; }
pings() { grep -c 'ping data' "$OUT/bystander.txt"; }
at tx_zcopy_msg rx_read_req tx_terminate

if [ "$VM_IDX" = 1 ]; then
	rping -s -a "$MY_IP" -p 7177 -V -S 64 -C 100000000 > "$OUT/bystander-server.txt" 2>&1 &
	by=$!
	"$XIW_CHURN" -s "$MY_IP" -x "$HANG_DIAG" > "$OUT/churn-server.txt" 2>&1 &
	srv=$!
	retry 30 grep -q listening "$OUT/churn-server.txt"
	barrier listening 60
	barrier done $((900 + ROUNDS * 20))
	kill -TERM $srv
	check server wait $srv
	cat "$OUT/churn-server.txt"
	# The server's QPs outlive none of their MRs, and its peer keeps to
	# the rules: whatever VM 0 does, VM 1 has no cause for a TERMINATE.
	check no-terminate-sent stayed tx_terminate
	kill $by 2>/dev/null
	wait $by
else
	barrier listening 60
	rping -c -a "$PEER_IP" -p 7177 -V -v -S 64 -C 100000000 > "$OUT/bystander.txt" 2>&1 &
	by=$!
	retry 30 sh -c "[ \$(grep -c 'ping data' $OUT/bystander.txt) -gt 10 ]"
	before=$(pings)
	check rounds-$ROUNDS timeout $((600 + ROUNDS * 20)) "$XIW_CHURN" -c "$PEER_IP" \
		-n $ROUNDS -r $$ ${CHURN_MODE:+-m "$CHURN_MODE"} -x "$HANG_DIAG"
	sleep 1
	check bystander-verified kill -0 $by
	after=$(pings)
	echo "bystander: $((after - before)) pings during the rounds"
	check bystander-carried-on test "$after" -gt "$before"
	kill $by 2>/dev/null
	wait $by
	barrier done $((900 + ROUNDS * 20))
fi
# Every non-zero counter, to read a failure by.
(cd /sys/class/infiniband/xiw0/ports/1/hw_counters && grep -v '^0$' ./* /dev/null) | tr '\n' ' '
echo
if zc_built; then
	check zero-copy-sent grew tx_zcopy_msg 1
else	# 6.1: built out
	check zero-copy-none stayed tx_zcopy_msg
fi
check read-requests-served grew rx_read_req 1
check no-qp-left retry 30 test "$(qps)" = 0

# A listener destroyed while connections may wait in its accept queue:
# TCP forgets each child under the child's socket lock
# (inet_child_forget() takes its sk_callback_lock with softirqs off), and
# the children were born with xiw's socket callbacks. Those took
# sk_callback_lock with softirqs on when TCP ran them from
# release_sock()'s backlog: lockdep (debug kernel, the harness's
# kernel-log case) called the pair a possible deadlock when nfsd stopped
# in CI. VM 0 connects to its own rping listener in a tight loop while
# the listener goes. Whether a child is still queued at that moment is a
# race: one debug run without the fix did not reproduce the report.
pending_children() {
	rping -s -a "$MY_IP" -p 18700 -C 1 >/dev/null 2>&1 &
	l=$!
	sleep 2
	python3 - "$MY_IP" 18700 4 <<-'EOP' &
	import socket, sys, time
	end, held = time.time() + float(sys.argv[3]), []
	while time.time() < end:
	    c = socket.socket()
	    c.setblocking(False)
	    c.connect_ex((sys.argv[1], int(sys.argv[2])))
	    held.append(c)
	    if len(held) > 200:
	        for h in held:
	            h.close()
	        held = []
	    time.sleep(0.002)
	EOP
	c=$!
	sleep 1
	kill $l
	wait $l
	wait $c
	# The listener is gone: nothing answers on its port.
	! rping -c -a "$MY_IP" -p 18700 -C 1 >/dev/null 2>&1
}
[ "$VM_IDX" = 0 ] && check listener-with-pending-children pending_children

# Half of that pair every time: lockdep judges lock classes, not
# sockets, and every TCP socket's sk_callback_lock is of one class. A
# plain listener closed with a connection in its accept queue makes TCP
# forget that child, taking the lock for writing under the child's
# socket spinlock (which softirqs take), whatever xiw's listeners did.
# The other half, one of xiw's callbacks run from release_sock()'s
# backlog, is still a race: with the fix reverted, a debug boot of this
# test (rounds-5, both cases) reported nothing.
forgotten_child() {
	python3 - "$MY_IP" 18701 <<-'EOP'
	import socket, sys, time
	ip, port = sys.argv[1], int(sys.argv[2])
	l = socket.socket()
	l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	l.bind((ip, port))
	l.listen(4)
	c = socket.create_connection((ip, port))
	def queued():	# a listener's rx_queue in /proc/net/tcp: its accept queue
	    for line in open('/proc/net/tcp').readlines()[1:]:
	        f = line.split()
	        if f[1].endswith(':%04X' % port) and f[3] == '0A':
	            return int(f[4].split(':')[1], 16)
	    return 0
	end = time.time() + 10
	while queued() < 1 and time.time() < end:
	    time.sleep(0.05)
	n = queued()
	print('children in the accept queue at close:', n)
	l.close()
	c.close()
	sys.exit(0 if n >= 1 else 1)
	EOP
}
[ "$VM_IDX" = 0 ] && check listener-forgets-child forgotten_child
# The tests after this one run untraced.
for e in $TRACED; do
	echo 0 > /sys/kernel/tracing/events/$e/enable
done
echo > /sys/kernel/tracing/trace
check teardown sh -c 'rdma link delete xiw0 && rmmod xiw'

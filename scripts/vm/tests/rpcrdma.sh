# SPDX-License-Identifier: GPL-2.0
#
# RPC-over-RDMA between our requester and responder
# (Documentation/rpcrdma.rst), in make check's captured boot, where
# scripts/wire/rpcrdma_check.py checks every transport header and every
# RDMA operation on the wire (vm-stock/wire/rpcrdma). VM 0 serves on
# xiw, VM 1 calls:
#
#   v2           xiw on both VMs: Version Two agreed and the properties
#                exchanged; NULL calls, then ECHO calls whose data comes
#                back checked: 3000 octets inline, 1 MiB by a read chunk
#                and a write chunk, 100000 octets as Long Calls and with
#                the whole reply written into a reply chunk
#   v1-fallback  a responder of Version One only: the requester falls back
#                on the same connection, then 200000-octet ECHO calls with
#                chunks in Version One; its second connection to that
#                responder begins in Version One (rpcrdma/peer.h)
#   siw-v2       the requester on upstream siw against the xiw responder:
#                the calls of v2
#   refused      a requester connecting to a port where nothing listens
#                ends at once with the error (it used to wait forever in
#                its connection's teardown; make check-full's debug boot
#                hung on it when a retried client outlived its server)
#
# siw calls, never serves: as an RFC 6581 responder it can miss the RTR
# (Documentation/interop.rst, item 13). Each tool's exit status is the
# verdict on the calls; the wire check's on the octets.
. "$XIW_TOP/scripts/vm/lib.sh"

PING=$XIW_TOP/build/user/rpcrdma-ping
SERVER=$XIW_TOP/build/user/rpcrdma-server

# pair NAME "server options" "client command": VM 0's responder ends
# after the connections its options name; VM 1's client is retried while
# the responder is not listening yet.
pair() {
	barrier "$1-go" 60 || return 1
	if [ "$VM_IDX" = 0 ]; then
		check "$1-server" timeout 150 $SERVER -a "$MY_IP" $2
	else
		sleep 2
		check "$1-client" retry 30 timeout 120 sh -c "$3"
	fi
	barrier "$1-done" 200
}

# The calls of v2 on PORT, each tool run a connection of its own: five.
v2_calls() {
	echo "$PING -p $1 -c 4 -e 2 $PEER_IP &&
		$PING -p $1 -c 4 -s 3000 -e 2 $PEER_IP &&
		$PING -p $1 -c 2 -s 1048576 -e 2 $PEER_IP &&
		$PING -p $1 -c 2 -s 100000 -L -e 2 $PEER_IP &&
		$PING -p $1 -c 2 -s 100000 -R -e 2 $PEER_IP"
}

setup() { modprobe rdma_ucm && retry 10 ping -c 1 -W 2 "$PEER_IP" > /dev/null; }
check setup setup || exit 1
check xiw-rnic rnic_use xiw || exit 1
# refused: on VM 1, before any responder; bounded so a hang fails.
refused() {
	t0=$(date +%s)
	timeout 60 $PING -p 20059 -c 1 "$PEER_IP" > "$OUT/refused.txt" 2>&1
	rc=$?
	t=$(( $(date +%s) - t0 ))
	cat "$OUT/refused.txt"
	echo "rpcrdma-ping exited $rc after $t s"
	[ $rc = 1 ] && [ $t -lt 20 ] && grep -q 'rdma_connect: Connection refused' "$OUT/refused.txt"
}
[ "$VM_IDX" = 1 ] && check refused refused
pair v2 "-p 20050 -n 5" "$(v2_calls 20050)"
pair v1-fallback "-v 1 -p 20051 -n 2" "$PING -p 20051 -c 4 -s 200000 -e 1 -r 2 $PEER_IP"
[ "$VM_IDX" = 1 ] && { check siw-rnic rnic_use siw || exit 1; }
pair siw-v2 "-p 20052 -n 5" "$(v2_calls 20052)"
check teardown rnic_use none

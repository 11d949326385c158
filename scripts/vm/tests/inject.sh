# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures, on the debug kernel (CONFIG_FAILSLAB): failslab
# fails a share of the slab allocations of the tasks marked with
# make-it-fail (task-filter). userspace-tests/rdma/xiw_inject.c marks
# itself for each of ROUNDS rounds of what an unprivileged process does:
# PD, CQ, MR, SRQ, a QP with its own receive queue and one on the SRQ, an
# rdma_cm connection to VM 1's persistent rping server (address and route
# resolution, the QP, MPA), and their destruction. uverbs, the RDMA core,
# rdma_cm, iw_cm and xiw's verbs and connection setup all allocate in its
# context. Each call may fail, with its errno; none may hang (20 s for a
# connection event), and none may leave a warning, an oops, a KASAN or
# lockdep report or a leak (the harness checks the kernel log and
# kmemleak at the end of the boot) or a QP behind. Then a round without
# injection must succeed, and an rping too. The kernel's own report of a
# failed allocation (warn_alloc) is expected here; run.sh leaves exactly
# those out of this boot's kernel-log check. The allocations failed are
# counted (failslab's times counts down) and printed, with the failures
# by call: at least one allocation must have failed.
# (Only xiw_inject is marked, never a shell: the VM's root and shares are
# 9p, whose client does not survive failures of its own allocations.)
. "$XIW_TOP/scripts/vm/lib.sh"

FS=/sys/kernel/debug/failslab
QUICK='rounds-30'
ROUNDS=30
at_depth rounds-200 && ROUNDS=200
TIMES=1000000

setup() {
	load_xiw && modprobe rdma_ucm && rdma link add xiw0 type xiw netdev eth0 &&
	retry 10 ibv_devices | grep -q xiw0 && retry 10 ping -c 1 -W 2 "$PEER_IP" >/dev/null
}
check setup setup || exit 1
barrier setup || exit 1

teardown() { rdma link delete xiw0 && rmmod xiw; }
if [ ! -d $FS ]; then
	echo "SKIP $TEST/failslab" >> "$OUT/results"	# not built in
	check teardown teardown
	exit 0
fi

qps() { rdma resource show qp link xiw0/1 2>/dev/null | grep -c 'lqpn'; }

if [ "$VM_IDX" = 1 ]; then
	rping -s -P -a "$MY_IP" -C 1 -S 64 > "$OUT/rping-server.txt" 2>&1 &
	srv=$!
	barrier go 60
	barrier done 1800
	kill $srv
	wait $srv
	check server-no-qp-left retry 20 test "$(qps)" = 0
	check teardown teardown
	exit 0
fi

barrier go 60
sleep 2	# the server listens
echo N > $FS/ignore-gfp-wait	# GFP_KERNEL allocations too
echo Y > $FS/task-filter
echo 0 > $FS/verbose		# nothing in the log: it must stay clean
echo 1 > $FS/interval
echo 3 > $FS/probability
: > "$OUT/alloc-failures-injected"	# run.sh: their reports are expected
echo $TIMES > $FS/times
check rounds timeout 1500 "$XIW_INJECT" -d xiw0 -c "$PEER_IP" -n $ROUNDS
echo 0 > $FS/probability
injected=$((TIMES - $(cat $FS/times)))
echo "failslab: $injected allocations failed in $ROUNDS rounds"
check some-injected test "$injected" -gt 0
check rping-after timeout 60 rping -c -a "$PEER_IP" -C 4 -S 64 -V
check no-qp-left retry 20 test "$(qps)" = 0
barrier done 1800
check teardown teardown

# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (python3-pyverbs ships it under
# /usr/share/doc/rdma-core/tests, mostly gzip-compressed), each VM on its
# own: VM 0 against xiw0, VM 1 against upstream siw's siw0, at the same
# time, for comparison (Documentation/interop.rst, rdma-core's own tests).
# Every run's output is kept in rdmacore-*-DEV.txt.
#
#   suite   the suite as a user runs it (run_tests.py --dev DEV): on an
#           iWARP device it skips every traffic test, because it takes
#           the GID (the MAC, then zeros) for an unset one;
#   cm      the rdma_cm tests that apply to iWARP (client and server in
#           two processes on this host: SENDs, RDMA READ, RDMA WRITE, a
#           rejected connection), through scripts/vm/rdmacore_iwarp.py
#           (the device's address from `rdma link`, GID 0);
#   iwarp   the whole suite that way: every test that ran either passed
#           or is one of the IB-only tests named below.
#
# xiw's runs are judged; siw's are printed beside them and only have to
# run to the end (siw's own result varies: Documentation/interop.rst).
. "$XIW_TOP/scripts/vm/lib.sh"

if [ "$VM_IDX" = 0 ]; then DEV=xiw0; else DEV=siw0; fi
T=/tmp/rdmacore
SHIM=$XIW_TOP/scripts/vm/rdmacore_iwarp.py
CM_TESTS='sync_traffic async_read async_write async_reject_traffic'
# Not applicable to iWARP, on xiw and siw alike: the QP is connected by
# modify_qp to RTR with an IB address (EOPNOTSUPP), an IB-only rdma_cm
# option (the ACK timeout), the CONNECT_RESPONSE event of an external QP
# (iw_cm reports ESTABLISHED), or a UD QP.
IB_ONLY='test_cq_events_rc test_mr_rereg_access test_mr_rereg_access_bad_flow
	test_mr_rereg_addr test_mr_rereg_pd test_ro_rc_traffic
	test_rdmacm_async_traffic test_rdmacm_async_traffic_external_qp
	test_rdmacm_async_udp_traffic'

unpack() {
	rm -rf $T && mkdir -p $T &&
	cp -r /usr/share/doc/rdma-core/tests $T/ &&
	find $T/tests -name '*.gz' -exec gunzip {} +
}
# run NAME ARGS...: one unittest run into rdmacore-NAME-DEV.txt; it must
# reach its "Ran N tests" line. Prints the summary.
run() {
	_f=$OUT/rdmacore-$1-$DEV.txt
	shift
	(cd $T/tests && timeout 600 "$@") > "$_f" 2>&1
	grep -E '^(Ran [0-9]+ tests|OK|FAILED)' "$_f"
	grep -qE '^Ran [0-9]+ tests' "$_f"
}
# ok NAME: that run ended OK, nothing skipped; else its failures.
ok() {
	grep -E '^(ERROR|FAIL):' "$OUT/rdmacore-$1-$DEV.txt"
	grep -qxE 'OK( \(skipped=0\))?' "$OUT/rdmacore-$1-$DEV.txt"
}
# ok_skips NAME: that run ended OK (skips allowed).
ok_skips() {
	grep -E '^(ERROR|FAIL):' "$OUT/rdmacore-$1-$DEV.txt"
	grep -qE '^OK( |$)' "$OUT/rdmacore-$1-$DEV.txt"
}
# only_ib_only NAME: every failing test of that run is in IB_ONLY.
only_ib_only() {
	_bad=0
	for t in $(sed -nE 's/^(ERROR|FAIL): ([a-z0-9_]+) .*/\2/p' \
		"$OUT/rdmacore-$1-$DEV.txt"); do
		case " $(echo $IB_ONLY) " in
		*" $t "*) ;;
		*) echo "not an IB-only test: $t"; _bad=1 ;;
		esac
	done
	return $_bad
}
dev_up() {
	if [ "$DEV" = xiw0 ]; then
		load_xiw && rdma link add xiw0 type xiw netdev eth0
	else
		load_module "$(siw_ko stock)" && rdma link add siw0 type siw netdev eth0
	fi
}
dev_down() { rdma link delete "$DEV" && rmmod "${DEV%0}"; }

cm_names=
for t in $CM_TESTS; do
	cm_names="$cm_names tests.test_rdmacm.CMTestCase.test_rdmacm_$t"
done

check setup modprobe rdma_ucm
check unpack unpack
check "$DEV-up" dev_up
check "$DEV-suite" run suite python3 run_tests.py --dev "$DEV" -v
check "$DEV-cm" run cm python3 "$SHIM" $T/tests --dev "$DEV" --gid 0 -v $cm_names
check "$DEV-iwarp" run iwarp python3 "$SHIM" $T/tests --dev "$DEV" --gid 0 -v
if [ "$DEV" = xiw0 ]; then
	check xiw-suite-ok ok_skips suite
	check xiw-cm-ok ok cm
	check xiw-iwarp-ib-only only_ib_only iwarp
else
	ok_skips suite
	ok cm
	only_ib_only iwarp
fi
check "$DEV-down" dev_down
barrier rdmacore-done 300

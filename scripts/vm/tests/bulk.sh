# SPDX-License-Identifier: GPL-2.0
#
# Bulk streams for the wire checks (make check's captured boot): perftest
# with 64 KiB messages back to back, where TCP has a window of FPDUs queued
# and would append the next FPDU to a partly filled segment. The capture's
# FPDU Alignment (scripts/wire/check.sh, fpdu-alignment) is judged on these
# and on everything else xiw sends in that boot. The ports name the cells
# there: 7481 and 7482 are xiw on both VMs.
#
#   xx-write   VM 0 writes to VM 1, both on xiw (xiw as WRITE sender)
#   xx-read    VM 0 reads from VM 1, both on xiw (xiw as READ responder)
#   sx-write   VM 1 on upstream siw connects to VM 0 on xiw, both write
#              (-b): xiw as WRITE sender to siw
#   sx-read    VM 1 on siw reads from VM 0 on xiw: xiw as READ responder
#              to siw
#
# siw connects, never serves: as an RFC 6581 responder it can miss the RTR
# (Documentation/interop.rst, item 13). A case passes when the tool ends
# well; the verdict on the octets is the wire check's.
. "$XIW_TOP/scripts/vm/lib.sh"

N=100
# pair NAME TOOL PORT SERVER-VM SERVER-DEV CLIENT-DEV [OPTIONS]
pair() {
	cell=$1 tool=$2 port=$3 srv_vm=$4 srv_dev=$5 cli_dev=$6
	shift 6
	barrier "$cell-go" 60 || return 1
	if [ "$VM_IDX" = "$srv_vm" ]; then
		timeout 120 $tool -R -d "$srv_dev" -s 65536 -n $N -p "$port" -F "$@" \
			> "$OUT/$cell-server.txt" 2>&1
	else
		sleep 2
		check "$cell" retry 10 timeout 120 $tool -R -d "$cli_dev" -s 65536 \
			-n $N -p "$port" -F "$@" "$PEER_IP" > "$OUT/$cell.txt" 2>&1
	fi
	barrier "$cell-done" 180
}

setup() { modprobe rdma_ucm && retry 10 ping -c 1 -W 2 "$PEER_IP" > /dev/null; }
check setup setup || exit 1
check xiw-rnic rnic_use xiw || exit 1
pair xx-write ib_write_bw 7481 1 xiw0 xiw0
pair xx-read ib_read_bw 7482 1 xiw0 xiw0
[ "$VM_IDX" = 1 ] && { check siw-rnic rnic_use siw || exit 1; }
pair sx-write ib_write_bw 7483 0 xiw0 siw0 -b
pair sx-read ib_read_bw 7484 0 xiw0 siw0
check teardown rnic_use none
